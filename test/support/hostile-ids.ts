/** Ids made of the characters that break naive formats (quotes, separators, escapes, non-ASCII). */
import fc from "fast-check";

export const hostileId = fc.oneof(
  fc.string({
    unit: fc.constantFrom(
      '"',
      "'",
      ":",
      ",",
      " ",
      "\t",
      "\n",
      "\\",
      "_",
      "a",
      "é",
      "日",
      "😀",
      "(",
      ")",
    ),
    minLength: 1,
  }),
  fc.string({ unit: "binary", minLength: 1 }),
);
