/**
 * Rule bodies that once made planning grow exponentially (issue 13), shared by
 * bench/hostile/run.ts and the tests that check each is planned in linear work or refused
 * (test/local-or.test.ts, test/hostile-requests.test.ts). Each appends one `has_role` rule
 * (and its helper rules) to `head`, a policy declaring `User` and a `Doc` resource with the
 * role `viewer`; every fact it reads is `has_relation(Doc, String, User)`.
 */

const times = (k: number, part: (i: number) => string, separator: string) =>
  Array.from({ length: k }, (_, i) => part(i)).join(separator);

/** `(has_relation(d, "a0", u) or has_relation(d, "b0", u)) and …`: `or`s over bound variables. */
export const conjunctionOfOrs = (head: string, k: number) =>
  `${head}has_role(u: User, "viewer", d: Doc) if ${times(
    k,
    (i) => `(has_relation(d, "a${i}", u) or has_relation(d, "b${i}", u))`,
    " and ",
  )};\n`;

/** Each `or` binds `x<i>`, which a call after it binds too: the `or` waits for the call. */
export const flowingOrs = (head: string, k: number) =>
  `${head}has_role(u: User, "viewer", d: Doc) if ${times(
    k,
    (i) =>
      `x${i} matches User and (has_relation(d, "a${i}", x${i}) or has_relation(d, "b${i}", x${i})) and has_relation(d, "c${i}", x${i})`,
    " and ",
  )} and has_relation(d, "owner", u);\n`;

/** Each `or` alone binds `x<i>`, which only filters read: the filters move into the `or`. */
export const filteredOrs = (head: string, k: number) =>
  `${head}has_role(u: User, "viewer", d: Doc) if ${times(
    k,
    (i) =>
      `x${i} matches User and (has_relation(d, "a${i}", x${i}) or has_relation(d, "b${i}", x${i})) and x${i} != u and not has_relation(d, "n${i}", x${i})`,
    " and ",
  )} and has_relation(d, "owner", u);\n`;

/**
 * `conjunctionOfOrs` with each `or` a predicate of two rules, called with bound arguments:
 * kept whole once the conjunction has made 64 branches.
 */
export const twoRuleCalls = (head: string, k: number) =>
  `${head}has_role(u: User, "viewer", d: Doc) if ${times(k, (i) => `either${i}(d, u)`, " and ")};\n${times(
    k,
    (i) =>
      `either${i}(d: Doc, u: User) if has_relation(d, "a${i}", u);\neither${i}(d: Doc, u: User) if has_relation(d, "b${i}", u);\n`,
    "",
  )}`;

/** Calls of two-rule predicates that each bind a variable a filter reads: still 2^k branches. */
export const bindingCalls = (head: string, k: number) =>
  `${head}has_role(u: User, "viewer", d: Doc) if ${times(
    k,
    (i) => `pick${i}(d, x${i}) and x${i} != u`,
    " and ",
  )};\n${times(
    k,
    (i) =>
      `pick${i}(d: Doc, x: User) if has_relation(d, "a${i}", x);\npick${i}(d: Doc, x: User) if has_relation(d, "b${i}", x);\n`,
    "",
  )}`;
