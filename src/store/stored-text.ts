/** How the store keeps a policy's text and file name, which may hold what PostgreSQL text cannot. */

export interface StoredPolicy {
  readonly src: string;
  readonly filename: string | null;
}

export function policyFileName(filename: string | null): string {
  return filename || "policy.polar";
}

/**
 * PostgreSQL text holds no NUL, yet a policy's comments and filename may: such a text (or one
 * with U+0001, the escape character) is stored as `\u0001!` followed by the text with U+0001
 * written `\u0001a` and NUL `\u0001z`. Other texts are stored as they are; none of them
 * holds U+0001, so none is mistaken for an escaped one.
 */
const ESCAPED = "\u0001!";

export function toStoredText(text: string): string {
  if (!/[\u0000\u0001]/.test(text)) return text;
  return ESCAPED + text.replace(/[\u0000\u0001]/g, (c) => (c === "\u0000" ? "\u0001z" : "\u0001a"));
}

export function fromStoredText(stored: string): string {
  if (!stored.startsWith(ESCAPED)) return stored;
  return stored
    .slice(ESCAPED.length)
    .replace(/\u0001([az])/g, (_, code: string) => (code === "z" ? "\u0000" : "\u0001"));
}
