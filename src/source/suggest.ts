/**
 * "Did you mean" suggestions: the closest known name to a misspelt one, by edit distance.
 * Used for undeclared policy terms and for unknown commands and flags.
 */

/**
 * Edit distance with adjacent transpositions (optimal string alignment), over code points.
 *
 * @example
 * editDistance("raed", "read"); // 1
 * editDistance("reeder", "reader"); // 1
 */
export function editDistance(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  // rows[i][j]: distance between the first i code points of x and the first j of y.
  const rows: number[][] = Array.from({ length: x.length + 1 }, (_, i) =>
    Array.from({ length: y.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) {
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      }
      rows[i]![j] = best;
    }
  }
  return rows[x.length]![y.length]!;
}

/** How far a suggestion may be: one edit per three characters, at least one. */
function maxDistance(word: string): number {
  return Math.max(1, Math.floor([...word].length / 3));
}

/**
 * The candidate closest to `word`, or null when none is close enough: within one edit per three
 * characters (at least one), ignoring case; a difference of case alone, or an abbreviation of
 * three or more letters, always qualifies. Ties go to the earlier candidate.
 *
 * @example
 * closestName("chek", ["check", "test", "serve"]); // "check"
 * closestName("Repo", ["Repository", "User"]); // "Repository"
 * closestName("zzz", ["check"]); // null
 */
export function closestName(word: string, candidates: Iterable<string>): string | null {
  const lower = word.toLowerCase();
  const limit = maxDistance(word);
  let best: string | null = null;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    if (candidate === word) continue;
    const other = candidate.toLowerCase();
    const abbreviation =
      Math.min(lower.length, other.length) >= 3 &&
      (other.startsWith(lower) || lower.startsWith(other));
    const distance = Math.min(editDistance(lower, other), abbreviation ? limit : limit + 1);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * `did you mean `x`?` for the closest candidate, or undefined.
 *
 * @example
 * didYouMean("reeder", ["reader", "writer"]); // "did you mean `reader`?"
 */
export function didYouMean(word: string, candidates: Iterable<string>): string | undefined {
  const name = closestName(word, candidates);
  return name === null ? undefined : `did you mean \`${name}\`?`;
}

/**
 * `; did you mean `x`?` to end a message with, or "".
 *
 * @example
 * `no rule reads \`organisation\`${didYouMeanSuffix("organisation", ["organization"])}`
 */
export function didYouMeanSuffix(word: string, candidates: Iterable<string>): string {
  const hint = didYouMean(word, candidates);
  return hint === undefined ? "" : `; ${hint}`;
}
