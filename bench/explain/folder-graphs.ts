/**
 * docs/explain.md's Folder policy and folder graphs of any size for it: a document in N folders
 * (wide) or at the bottom of an N-deep chain of folders (deep), alice a viewer of the last
 * folder, so that she may read the document through the whole graph. Shared by the explain
 * sizes bench, the hostile bench and the tests.
 */

export const FOLDER_POLICY = `actor User {}

resource Folder {
  roles = ["viewer", "editor"];
  permissions = ["read", "write"];
  relations = { parent: Folder };

  role if role on "parent";
  "viewer" if "editor";
  "read" if "viewer";
  "write" if "editor";
}

resource Document {
  permissions = ["read", "write"];
  relations = { folder: Folder };

  "read" if "read" on "folder";
  "write" if "write" on "folder";
}
`;

interface WireValue {
  readonly type: string;
  readonly id: string;
}

export interface WireFact {
  readonly predicate: string;
  readonly args: readonly WireValue[];
}

export interface FolderCase {
  /** `wide-240`, `deep-3000`, … */
  readonly name: string;
  readonly facts: readonly WireFact[];
  /** May alice read the document? (An `/authorize` body.) */
  readonly question: {
    readonly actor_type: "User";
    readonly actor_id: string;
    readonly action: "read";
    readonly resource_type: "Document";
    readonly resource_id: string;
  };
}

const folder = (i: number): WireValue => ({ type: "Folder", id: `f${i}` });
const relation = (from: WireValue, name: string, to: WireValue): WireFact => ({
  predicate: "has_relation",
  args: [from, { type: "String", id: name }, to],
});

/**
 * The facts of a wide or deep folder graph of `size` folders.
 *
 * @example
 * folderCase("deep", 3).facts.length; // 4: the document's folder, two parents, alice's role
 */
export function folderCase(shape: "wide" | "deep", size: number): FolderCase {
  const document = { type: "Document", id: "plan.md" };
  const facts: WireFact[] = [];
  if (shape === "wide") {
    for (let i = 0; i < size; i++) facts.push(relation(document, "folder", folder(i)));
  } else {
    facts.push(relation(document, "folder", folder(0)));
    for (let i = 0; i + 1 < size; i++) facts.push(relation(folder(i), "parent", folder(i + 1)));
  }
  facts.push({
    predicate: "has_role",
    args: [{ type: "User", id: "alice" }, { type: "String", id: "viewer" }, folder(size - 1)],
  });
  return {
    name: `${shape}-${size}`,
    facts,
    question: {
      actor_type: "User",
      actor_id: "alice",
      action: "read",
      resource_type: "Document",
      resource_id: "plan.md",
    },
  };
}
