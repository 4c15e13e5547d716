/**
 * "Did you mean" suggestions for misspelled names: the closest candidate by edit distance
 * (insertions, deletions, substitutions and swaps of neighbours each cost 1), when it is close
 * enough to be a likely typo.
 */

/** Edit distance with adjacent transpositions (optimal string alignment), or `limit + 1`. */
function distance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, before[j - 2]! + 1);
      }
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The candidate closest to `name`, if one is within a third of its length (at least 1; case
 * differences alone, and abbreviations of three or more letters, always qualify); null
 * otherwise. Ties go to the first in sort order.
 *
 *   suggest("organisation", ["organization", "owner"]) // "organization"
 *   suggest("Repo", ["Repository", "User"])            // "Repository"
 *   suggest("xyz", ["organization"])                   // null
 */
export function suggest(name: string, candidates: Iterable<string>): string | null {
  const limit = Math.max(1, Math.floor(name.length / 3));
  let best: string | null = null;
  let bestDistance = limit + 1;
  for (const candidate of [...new Set(candidates)].sort()) {
    if (candidate === name) continue;
    const lower = name.toLowerCase();
    const other = candidate.toLowerCase();
    const abbreviation =
      Math.min(lower.length, other.length) >= 3 &&
      (other.startsWith(lower) || lower.startsWith(other));
    const d =
      other === lower
        ? 0
        : Math.min(distance(name, candidate, limit), abbreviation ? limit : limit + 1);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** `; did you mean `x`?` for a suggestion, or "". */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const found = suggest(name, candidates);
  return found === null ? "" : `; did you mean \`${found}\`?`;
}
