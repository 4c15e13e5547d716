/**
 * Reading the children of a CST node that Chevrotain's recovery may have left incomplete: the
 * accessors throw `IncompleteNode` where a required part is missing, and `members` catches it.
 */
import type { CstNode, IToken } from "chevrotain";

/** Thrown when a recovered CST lacks a required part; caught at list members. */
export class IncompleteNode extends Error {}

export function nodes(node: CstNode, key: string): CstNode[] {
  return (node.children[key] as CstNode[] | undefined) ?? [];
}

/** The `key` children, all of which must be complete. */
export function complete(node: CstNode, key: string): CstNode[] {
  const found = nodes(node, key);
  if (found.some((inner) => inner.recoveredNode)) throw new IncompleteNode();
  return found;
}

export function tokens(node: CstNode, key: string): IToken[] {
  return ((node.children[key] as IToken[] | undefined) ?? []).filter(
    (token) => !token.isInsertedInRecovery,
  );
}

export function child(node: CstNode, key: string): CstNode {
  const found = nodes(node, key)[0];
  if (!found || found.recoveredNode) throw new IncompleteNode();
  return found;
}

export function optionalChild(node: CstNode, key: string): CstNode | null {
  const found = nodes(node, key)[0];
  if (found?.recoveredNode) throw new IncompleteNode();
  return found ?? null;
}

export function token(node: CstNode, key: string): IToken {
  const found = tokens(node, key)[0];
  if (!found) throw new IncompleteNode();
  return found;
}

/** A closing token; one inserted by recovery counts, the node is otherwise complete. */
export function closed(node: CstNode, key: string): void {
  if (!node.children[key]) throw new IncompleteNode();
}

export function has(node: CstNode, key: string): boolean {
  return node.children[key] !== undefined;
}

/** Builds each member, leaving out the ones recovery left incomplete. */
export function members<T>(list: readonly CstNode[], build: (node: CstNode) => T): T[] {
  const built: T[] = [];
  for (const member of list) {
    try {
      if (member.recoveredNode) continue;
      built.push(build(member));
    } catch (problem) {
      if (!(problem instanceof IncompleteNode)) throw problem;
    }
  }
  return built;
}
