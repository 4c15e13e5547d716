/**
 * Names for drafted bindings: Polar type names from table names (`repositories` →
 * `Repository`, `org_members` → `OrgMember`) and relation names from column names
 * (`author_id` → `author`). English plurals only, by rule; `--policy` corrects the rest.
 */

const IRREGULAR: Readonly<Record<string, string>> = {
  people: "person",
  children: "child",
  men: "man",
  women: "woman",
  mice: "mouse",
  geese: "goose",
  feet: "foot",
  teeth: "tooth",
};

/**
 * The singular of an English plural, by the usual rules; a word that does not look plural is
 * returned as it is.
 *
 *   singular("repositories") // "repository"
 *   singular("addresses")    // "address"
 *   singular("status")       // "status"
 */
export function singular(word: string): string {
  const lower = word.toLowerCase();
  // Own keys only: a table named `__proto__` or `constructor` is a word like any other.
  if (Object.hasOwn(IRREGULAR, lower)) return IRREGULAR[lower]!;
  if (/[^aeiou]ies$/i.test(word) && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(ss|us|is|ws)$/i.test(word)) return word;
  if (/(sses|xes|zes|ches|shes|uses)$/i.test(word)) return word.slice(0, -2);
  if (/[^s]s$/i.test(word)) return word.slice(0, -1);
  return word;
}

/** The words of an identifier: split at `_`, `-`, spaces and lower-to-upper case changes. */
function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word.length > 0);
}

/**
 * A Polar type name for a table: the last word made singular, every word capitalized.
 *
 *   typeNameOf("org_members") // "OrgMember"
 *   typeNameOf("people")      // "Person"
 */
export function typeNameOf(table: string): string {
  const parts = words(table);
  if (parts.length > 0) parts[parts.length - 1] = singular(parts[parts.length - 1]!);
  return parts.map((part) => part.charAt(0).toUpperCase() + part.slice(1).toLowerCase()).join("");
}

/**
 * A relation name for a foreign-key column: the column without its `_id` suffix.
 *
 *   relationNameOf("author_id") // "author"
 *   relationNameOf("parent")    // "parent"
 */
export function relationNameOf(column: string): string {
  const stripped = column.replace(/_?(id|Id|ID)$/, "");
  return stripped.length > 0 ? stripped : column;
}

/** A lower-case, separator-free form for loose comparisons of names. */
export function looseName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, "");
}
