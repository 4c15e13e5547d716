/**
 * An explanation as an indented tree for a terminal: ✓ for a node that holds, ✗ for one that
 * does not, `file:line` beside a rule, the source of a fact, notes on their own line. Written
 * with an explicit stack, so a tree of any depth prints; below `INDENTED_LEVELS` levels a line
 * starts with its level in brackets instead of further spaces, so the text stays proportional to
 * the tree.
 */
import { ExplanationTooLarge } from "./explain-json.js";
import type { ExplainNode } from "./explain-node.js";

export interface ExplainFormatOptions {
  /** ANSI colours; default off. */
  readonly color?: boolean;
  /** Prefix of every line (the test report indents the tree under a failure). */
  readonly indent?: string;
  /** Most nodes printed; past it `ExplanationTooLarge` is thrown. Unbounded by default. */
  readonly maxNodes?: number;
}

/** Levels shown by indentation; deeper lines are marked `[level]`. */
export const INDENTED_LEVELS = 40;

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
  const base = options.indent ?? "";
  const deepest = `${base}${"  ".repeat(INDENTED_LEVELS)}`;
  const prefix = (level: number) =>
    level <= INDENTED_LEVELS ? `${base}${"  ".repeat(level)}` : `${deepest}[${level}] `;
  const maxNodes = options.maxNodes ?? Number.POSITIVE_INFINITY;
  const lines: string[] = [];
  let printed = 0;
  const stack: { node: ExplainNode; level: number }[] = [{ node: tree, level: 0 }];
  while (stack.length > 0) {
    const { node: current, level } = stack.pop()!;
    if (++printed > maxNodes) {
      throw new ExplanationTooLarge("maxNodes", maxNodes);
    }
    const mark = current.holds ? paint("32", "✓") : paint("31", "✗");
    const where = current.rule
      ? `  ${paint("2", `${current.rule.file}:${current.rule.line}`)}`
      : current.fact
        ? `  ${paint("2", `${current.fact.source} fact`)}`
        : "";
    const start = prefix(level);
    lines.push(`${start}${mark} ${current.goal}${where}`);
    if (current.note) lines.push(`${start}  ${paint("33", `note: ${current.note}`)}`);
    for (let i = current.children.length - 1; i >= 0; i--) {
      stack.push({ node: current.children[i]!, level: level + 1 });
    }
  }
  return `${lines.join("\n")}\n`;
}
