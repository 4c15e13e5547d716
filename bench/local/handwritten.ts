/**
 * Hand-written queries for the bench policy, as an expert would write them against this schema
 * knowing the policy: walk up from the resource's folder (small recursive CTE, carrying each
 * folder's organization so no second lookup is needed), then probe the user's roles on that
 * handful of folders through the primary keys. Lists walk down from the user's grants instead.
 * They are the baselines the emitted SQL is measured against.
 *
 *   handAuthorizeSql({ actor: 17, action: "read", resourceType: "Document", resource: 5 })
 */

export type ResourceType = "Document" | "Folder";

export interface AuthorizeQuestion {
  readonly actor: number;
  readonly action: string;
  readonly resourceType: ResourceType;
  readonly resource: number;
}

export interface ListQuestion {
  readonly actor: number;
  readonly action: string;
  readonly resourceType: "Document";
}

/** Folder roles that grant each action (owner ⊇ editor ⊇ viewer); org admins own everything. */
const FOLDER_ROLES_FOR: Readonly<Record<string, readonly string[]>> = {
  read: ["viewer", "editor", "owner"],
  write: ["editor", "owner"],
  share: ["owner"],
  delete: ["owner"],
};

/** Actions that exist per type; the policy maps Document delete to Folder share. */
export const ACTIONS: Readonly<Record<ResourceType, readonly string[]>> = {
  Document: ["read", "write", "delete"],
  Folder: ["read", "write", "share"],
};

function rolesFor(action: string): string {
  const roles = FOLDER_ROLES_FOR[action];
  if (!roles) throw new Error(`no hand-written query for action \`${action}\``);
  return roles.map((role) => `'${role}'`).join(", ");
}

function integer(id: number): string {
  if (!Number.isSafeInteger(id)) throw new Error(`not an integer id: ${id}`);
  return String(id);
}

/** One row, one boolean column `allowed`. */
export function handAuthorizeSql(question: AuthorizeQuestion): string {
  const { actor, action, resourceType, resource } = question;
  const user = integer(actor);
  const seed =
    resourceType === "Document"
      ? `SELECT f.id, f.parent_id, f.org_id FROM documents AS d
         JOIN folders AS f ON f.id = d.folder_id WHERE d.id = ${integer(resource)}`
      : `SELECT f.id, f.parent_id, f.org_id FROM folders AS f WHERE f.id = ${integer(resource)}`;
  const publicRead =
    resourceType === "Document" && action === "read"
      ? ` OR EXISTS (SELECT 1 FROM documents AS d
         JOIN org_memberships AS m ON m.org_id = d.org_id AND m.user_id = ${user}
         WHERE d.id = ${integer(resource)} AND d.is_public AND m.role IN ('member', 'admin'))`
      : "";
  return `WITH RECURSIVE ancestors(id, parent_id, org_id) AS (
  ${seed}
  UNION
  SELECT f.id, f.parent_id, f.org_id FROM folders AS f JOIN ancestors AS a ON f.id = a.parent_id
)
SELECT EXISTS (SELECT 1 FROM ancestors AS a
    JOIN folder_roles AS r ON r.folder_id = a.id AND r.user_id = ${user}
    WHERE r.role IN (${rolesFor(action)}))
  OR EXISTS (SELECT 1 FROM ancestors AS a
    JOIN org_memberships AS m ON m.org_id = a.org_id AND m.user_id = ${user}
    WHERE m.role = 'admin')${publicRead} AS allowed`;
}

/**
 * Distinct `(id, title)` rows of the documents the actor may access: folders granted by a role
 * or by org admin, their subtrees (walking down `parent_id`), plus public documents of the
 * actor's organizations for `read`.
 */
export function handListSql(question: ListQuestion): string {
  const user = integer(question.actor);
  const publicRead =
    question.action === "read"
      ? `
UNION
SELECT d.id, d.title FROM org_memberships AS m
JOIN documents AS d ON d.org_id = m.org_id AND d.is_public
WHERE m.user_id = ${user} AND m.role IN ('member', 'admin')`
      : "";
  return `WITH RECURSIVE granted(id) AS (
  SELECT r.folder_id FROM folder_roles AS r
  WHERE r.user_id = ${user} AND r.role IN (${rolesFor(question.action)})
  UNION
  SELECT f.id FROM org_memberships AS m JOIN folders AS f ON f.org_id = m.org_id
  WHERE m.user_id = ${user} AND m.role = 'admin'
), visible(id) AS (
  SELECT id FROM granted
  UNION
  SELECT f.id FROM folders AS f JOIN visible AS v ON f.parent_id = v.id
)
SELECT d.id, d.title FROM visible AS v JOIN documents AS d ON d.folder_id = v.id${publicRead}`;
}

/**
 * How the caller uses an emitted list fragment: the same rows as `handListSql`. `table` is
 * `documents` or the schema-qualified name the fragment's column uses.
 */
export function wrapListFragment(fragment: string, table = "documents"): string {
  return `SELECT documents.id, documents.title FROM ${table} WHERE ${fragment}`;
}
