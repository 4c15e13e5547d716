#!/usr/bin/env node
// Lists exports of src/ that no other file names: an export used only in its own file should
// not be exported, and one used nowhere is dead code. Run by `npm run lint`.
//
//   node .ci/unused-exports.mjs          # exit 1 when it finds any
//
// A name counts as used when another file of the project (src, test, bench, examples,
// playground, grammar) mentions it as a word: conservative (a common name may hide an unused
// export), never a false alarm for a name that is really imported. `src/index.ts` is the
// package's surface: what it re-exports counts as used, and a module it re-exports whole
// (`export * from`) is public throughout.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const ROOT = new URL("..", import.meta.url).pathname;
const SCANNED = ["src", "test", "bench", "examples", "playground", "grammar"];
const SKIPPED = new Set(["node_modules", "dist", "consumer", "__snapshots__"]);

function sourceFiles(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    if (SKIPPED.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...sourceFiles(path));
    else if (/\.(m?ts|tsx|mjs|js)$/.test(name) && !name.endsWith(".d.ts")) found.push(path);
  }
  return found;
}

/** The names a file declares with `export` (declarations and `export { … }` lists). */
function exportedNames(path, text) {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const names = [];
  for (const statement of file.statements) {
    const exported = ts.canHaveModifiers(statement)
      ? ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
      : false;
    if (ts.isExportDeclaration(statement)) {
      // Re-exports (`export … from`) are the other file's; local lists are this file's.
      if (
        !statement.moduleSpecifier &&
        statement.exportClause &&
        ts.isNamedExports(statement.exportClause)
      )
        for (const element of statement.exportClause.elements) names.push(element.name.text);
      continue;
    }
    if (!exported) continue;
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations)
        if (ts.isIdentifier(declaration.name)) names.push(declaration.name.text);
    } else if (statement.name && ts.isIdentifier(statement.name)) {
      names.push(statement.name.text);
    }
  }
  return names;
}

const files = SCANNED.flatMap((dir) => {
  try {
    return sourceFiles(join(ROOT, dir));
  } catch {
    return [];
  }
});
const texts = new Map(files.map((path) => [path, readFileSync(path, "utf8")]));
/** How many files mention each word. */
const filesNaming = new Map();
const wordsOf = new Map();
for (const [path, text] of texts) {
  const words = new Set(text.match(/[A-Za-z_$][\w$]*/g) ?? []);
  wordsOf.set(path, words);
  for (const word of words) filesNaming.set(word, (filesNaming.get(word) ?? 0) + 1);
}

/** Modules `src/index.ts` re-exports whole, and those they re-export whole in turn. */
function wholeReexports(path, seen = new Set()) {
  for (const match of readFileSync(path, "utf8").matchAll(/^export \* from "(\.[^"]+)\.js";/gm)) {
    const target = join(path, "..", `${match[1]}.ts`);
    if (!seen.has(target)) wholeReexports(target, seen.add(target));
  }
  return seen;
}
const PUBLIC = wholeReexports(join(ROOT, "src/index.ts"));

const problems = [];
for (const [path, text] of texts) {
  const rel = relative(ROOT, path);
  if (!rel.startsWith("src/") || rel === "src/index.ts" || PUBLIC.has(path)) continue;
  for (const name of exportedNames(path, text)) {
    if ((filesNaming.get(name) ?? 0) > 1) continue;
    const uses = text.match(new RegExp(`(?<![\\w$])${name.replace(/\$/g, "\\$")}(?![\\w$])`, "g"));
    const where = (uses?.length ?? 0) > 1 ? "used only in its own file" : "used nowhere";
    problems.push(`${rel}: \`${name}\` is exported but ${where}`);
  }
}
if (problems.length > 0) {
  console.error(`${problems.length} unused exports:\n${problems.sort().join("\n")}`);
  process.exit(1);
}
console.log(`unused exports: none (${texts.size} files)`);
