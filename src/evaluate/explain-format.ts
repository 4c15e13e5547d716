/**
 * An explanation as an indented tree for a terminal: ✓ for a node that holds, ✗ for one that
 * does not, `file:line` beside a rule, the source of a fact, notes on their own line.
 */
import type { ExplainNode } from "./explain-node.js";

export interface ExplainFormatOptions {
  /** ANSI colours; default off. */
  readonly color?: boolean;
  /** Prefix of every line (the test report indents the tree under a failure). */
  readonly indent?: string;
}

/**
 * ```
 * ✓ allow(User{"ada"}, "open", Document{"a"})
 *   ✓ has_permission(User{"ada"}, "open", Document{"a"})  p.polar:14
 *     ✓ has_relation(Document{"a"}, "folder", Folder{"3"})  stored fact
 * ```
 */
export function formatExplanation(tree: ExplainNode, options: ExplainFormatOptions = {}): string {
  const paint = (code: string, text: string) =>
    options.color ? `\u001b[${code}m${text}\u001b[0m` : text;
  const lines: string[] = [];
  const visit = (current: ExplainNode, indent: string) => {
    const mark = current.holds ? paint("32", "✓") : paint("31", "✗");
    const where = current.rule
      ? `  ${paint("2", `${current.rule.file}:${current.rule.line}`)}`
      : current.fact
        ? `  ${paint("2", `${current.fact.source} fact`)}`
        : "";
    lines.push(`${indent}${mark} ${current.goal}${where}`);
    if (current.note) lines.push(`${indent}  ${paint("33", `note: ${current.note}`)}`);
    for (const child of current.children) visit(child, `${indent}  `);
  };
  visit(tree, options.indent ?? "");
  return `${lines.join("\n")}\n`;
}
