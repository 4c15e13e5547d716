/**
 * Writes grammar/railroad.html: syntax diagrams of the parser's rules, drawn by Chevrotain.
 * Run `npm run grammar` after changing src/polar/parser.ts; test/grammar.test.ts fails while
 * the checked-in file is stale. The page loads Chevrotain's diagram scripts from a CDN, pinned
 * to the installed Chevrotain version.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createSyntaxDiagramsCode } from "chevrotain";
import { parser } from "../src/polar/parser.js";

export const railroadPath = fileURLToPath(new URL("./railroad.html", import.meta.url));

/**
 * The diagrams page for the current grammar; deterministic.
 *
 * @example
 * renderRailroad().includes('"name": "policy"'); // true
 */
export function renderRailroad(): string {
  return createSyntaxDiagramsCode(parser.getSerializedGastProductions());
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(railroadPath, renderRailroad());
  console.log(`wrote ${railroadPath}`);
}
