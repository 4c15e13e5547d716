/**
 * Draws the bench questions from the generated data, deterministically for a seed: documents
 * and folders at shallow and deep levels, each asked by a user who is allowed through a
 * specific path (a folder role high up the tree, org admin, a public document) or denied (a
 * member of the same organization without a grant, a stranger). The hand-written query
 * confirms each label, so a mislabeled sample stops the run.
 *
 *   const { authorize, list } = await drawQuestions(client, seededRandom(7), 3);
 */
import type pg from "pg";
import { randomInt } from "./config.js";
import {
  type AuthorizeQuestion,
  handAuthorizeSql,
  handListSql,
  type ListQuestion,
} from "./handwritten.js";

export interface Sampled<Q> {
  /** Row label in the report, e.g. `document depth 8, allowed: folder role on top folder`. */
  readonly category: string;
  readonly question: Q;
  /** What the hand-written query answers (authorize) or how many rows it returns (list). */
  readonly expected: boolean | number;
}

interface Resource {
  readonly id: number;
  /** The resource's folder (itself for a folder) and its ancestors, top folder first. */
  readonly ancestors: readonly FolderRow[];
  /** The organization of the top folder. */
  readonly org: number;
}

interface FolderRow {
  readonly id: number;
  readonly depth: number;
  readonly org_id: number;
}

export async function drawQuestions(
  client: pg.Client,
  random: () => number,
  perCategory: number,
): Promise<{ authorize: Sampled<AuthorizeQuestion>[]; list: Sampled<ListQuestion>[] }> {
  const size = await tableSizes(client);
  const draw = new Drawer(client, random, size);
  const authorize: Sampled<AuthorizeQuestion>[] = [];
  const list: Sampled<ListQuestion>[] = [];
  for (let i = 0; i < perCategory; i++) {
    for (const depth of [8, 4, 1]) {
      authorize.push(await draw.viaFolderRole("Document", depth, "read"));
      authorize.push(await draw.memberDenied("Document", depth, "read"));
    }
    authorize.push(await draw.viaOrgAdmin("Document", 8, "write"));
    authorize.push(await draw.publicRead());
    authorize.push(await draw.strangerDenied("Document", 8, "delete"));
    authorize.push(await draw.viaFolderRole("Folder", 8, "write"));
    authorize.push(await draw.memberDenied("Folder", 8, "read"));
    authorize.push(await draw.viaOrgAdmin("Folder", 1, "share"));
    list.push(await draw.typicalUser());
    list.push(await draw.subtreeUser());
    list.push(await draw.largeOrgAdmin());
  }
  // Drawn after the others, so that adding them left the earlier questions as they were.
  for (let i = 0; i < perCategory; i++) {
    list.push(await draw.subtreeUser("write"));
    list.push(await draw.largeOrgAdmin("write"));
  }
  return { authorize, list };
}

async function tableSizes(client: pg.Client) {
  const { rows } = await client.query(
    `SELECT (SELECT max(id) FROM users) AS users, (SELECT max(id) FROM documents) AS documents,
            (SELECT max(id) FROM folders) AS folders`,
  );
  return rows[0] as { users: number; documents: number; folders: number };
}

class Drawer {
  constructor(
    private readonly client: pg.Client,
    private readonly random: () => number,
    private readonly size: { users: number; documents: number; folders: number },
  ) {}

  private async rows<Row>(sql: string, values: unknown[] = []): Promise<Row[]> {
    return (await this.client.query(sql, values)).rows as Row[];
  }

  /** A resource whose folder sits at `depth`, starting the search at a random id. */
  private async resourceAt(type: "Document" | "Folder", depth: number): Promise<Resource> {
    const table = type === "Document" ? "documents" : "folders";
    const start =
      1 + randomInt(this.random, type === "Document" ? this.size.documents : this.size.folders);
    const sql =
      type === "Document"
        ? `SELECT d.id, d.folder_id FROM documents AS d JOIN folders AS f ON f.id = d.folder_id
           WHERE f.depth = $1 AND d.id >= $2 ORDER BY d.id LIMIT 1`
        : `SELECT id, id AS folder_id FROM ${table} WHERE depth = $1 AND id >= $2 ORDER BY id LIMIT 1`;
    const [row] = await this.rows<{ id: number; folder_id: number }>(sql, [depth, start]);
    if (!row) return this.resourceAt(type, depth); // ran off the end; draw again
    const ancestors = await this.rows<FolderRow>(
      `WITH RECURSIVE up(id) AS (SELECT $1::integer
         UNION SELECT f.parent_id FROM folders AS f JOIN up ON f.id = up.id WHERE f.parent_id IS NOT NULL)
       SELECT f.id, f.depth, coalesce(f.org_id, 0) AS org_id FROM up JOIN folders AS f USING (id)
       ORDER BY f.depth`,
      [row.folder_id],
    );
    return { id: row.id, ancestors, org: ancestors[0]!.org_id };
  }

  private async answer(question: AuthorizeQuestion): Promise<boolean> {
    const [row] = await this.rows<{ allowed: boolean }>(handAuthorizeSql(question));
    return row!.allowed;
  }

  private async confirmed(
    category: string,
    question: AuthorizeQuestion,
    expected: boolean,
  ): Promise<Sampled<AuthorizeQuestion>> {
    const actual = await this.answer(question);
    if (actual !== expected)
      throw new Error(
        `sample \`${category}\` ${JSON.stringify(question)}: hand-written says ${actual}`,
      );
    return { category, question, expected };
  }

  /** Allowed through a role on the topmost ancestor that has one (the longest walk). */
  async viaFolderRole(type: "Document" | "Folder", depth: number, action: string) {
    for (;;) {
      const resource = await this.resourceAt(type, depth);
      const roles = action === "read" ? ["viewer", "editor", "owner"] : ["editor", "owner"];
      const [grant] = await this.rows<{ user_id: number }>(
        `SELECT r.user_id FROM folder_roles AS r JOIN folders AS f ON f.id = r.folder_id
         WHERE r.folder_id = ANY($1) AND r.role = ANY($2) ORDER BY f.depth, r.user_id LIMIT 1`,
        [resource.ancestors.map((a) => a.id), roles],
      );
      if (!grant) continue;
      const category = `${type} depth ${depth}, ${action}: allowed by the topmost folder role`;
      const question = { actor: grant.user_id, action, resourceType: type, resource: resource.id };
      return this.confirmed(category, question, true);
    }
  }

  async viaOrgAdmin(type: "Document" | "Folder", depth: number, action: string) {
    for (;;) {
      const resource = await this.resourceAt(type, depth);
      const [admin] = await this.rows<{ user_id: number }>(
        `SELECT user_id FROM org_memberships WHERE org_id = $1 AND role = 'admin' ORDER BY user_id LIMIT 1`,
        [resource.org],
      );
      if (!admin) continue;
      const question = { actor: admin.user_id, action, resourceType: type, resource: resource.id };
      return this.confirmed(
        `${type} depth ${depth}, ${action}: allowed as org admin`,
        question,
        true,
      );
    }
  }

  /** A member of the resource's organization with no grant on its path: every branch runs. */
  async memberDenied(type: "Document" | "Folder", depth: number, action: string) {
    for (;;) {
      const resource = await this.resourceAt(type, depth);
      const members = await this.rows<{ user_id: number }>(
        `SELECT user_id FROM org_memberships WHERE org_id = $1 AND role = 'member' ORDER BY user_id`,
        [resource.org],
      );
      for (const { user_id } of members) {
        const question = { actor: user_id, action, resourceType: type, resource: resource.id };
        if (!(await this.answer(question)))
          return this.confirmed(
            `${type} depth ${depth}, ${action}: denied, org member`,
            question,
            false,
          );
      }
    }
  }

  async strangerDenied(type: "Document" | "Folder", depth: number, action: string) {
    for (;;) {
      const resource = await this.resourceAt(type, depth);
      const actor = 1 + randomInt(this.random, this.size.users);
      const question = { actor, action, resourceType: type, resource: resource.id };
      if (!(await this.answer(question)))
        return this.confirmed(
          `${type} depth ${depth}, ${action}: denied, stranger`,
          question,
          false,
        );
    }
  }

  /** A public document read by a plain member of its organization without a folder grant. */
  async publicRead() {
    for (;;) {
      const start = 1 + randomInt(this.random, this.size.documents);
      const [doc] = await this.rows<{ id: number; folder_id: number; org_id: number }>(
        `SELECT id, folder_id, org_id FROM documents WHERE is_public AND id >= $1 ORDER BY id LIMIT 1`,
        [start],
      );
      if (!doc) continue;
      const members = await this.rows<{ user_id: number }>(
        `SELECT user_id FROM org_memberships WHERE org_id = $1 AND role = 'member' ORDER BY user_id`,
        [doc.org_id],
      );
      for (const { user_id } of members) {
        const folder = {
          actor: user_id,
          action: "read",
          resourceType: "Folder" as const,
          resource: doc.folder_id,
        };
        if (await this.answer(folder)) continue; // reads the folder: not the public path
        const question = { ...folder, resourceType: "Document" as const, resource: doc.id };
        return this.confirmed("Document, read: allowed as public to org member", question, true);
      }
    }
  }

  private pick<Row>(rows: readonly Row[], what: string): Row {
    if (rows.length === 0) throw new Error(`the data holds no ${what}; use a larger --scale`);
    return rows[randomInt(this.random, rows.length)]!;
  }

  private async listed(
    category: string,
    actor: number,
    action = "read",
  ): Promise<Sampled<ListQuestion>> {
    const question: ListQuestion = { actor, action, resourceType: "Document" };
    const rows = await this.rows(handListSql(question));
    return { category, question, expected: rows.length };
  }

  async typicalUser() {
    return this.listed(
      "list read Document: random user",
      1 + randomInt(this.random, this.size.users),
    );
  }

  /** A user with a role on a top folder of a large organization: a wide, deep subtree. */
  async subtreeUser(action = "read") {
    const rows = await this.rows<{ user_id: number }>(
      `SELECT r.user_id FROM folder_roles AS r JOIN folders AS f ON f.id = r.folder_id
       WHERE f.parent_id IS NULL${action === "read" ? "" : " AND r.role IN ('editor', 'owner')"} AND f.org_id IN (
         SELECT org_id FROM folders WHERE parent_id IS NULL GROUP BY org_id HAVING count(*) = 3)
       ORDER BY r.user_id`,
    );
    const pick = this.pick(rows, "a user with a role on a top folder of a large org");
    return this.listed(
      `list ${action} Document: role on a top folder of a large org`,
      pick.user_id,
      action,
    );
  }

  async largeOrgAdmin(action = "read") {
    const rows = await this.rows<{ user_id: number }>(
      `SELECT m.user_id FROM org_memberships AS m WHERE m.role = 'admin' AND m.org_id IN (
         SELECT org_id FROM folders WHERE parent_id IS NULL GROUP BY org_id HAVING count(*) = 3)
       ORDER BY m.user_id`,
    );
    const pick = this.pick(rows, "an admin of a large org");
    return this.listed(`list ${action} Document: admin of a large org`, pick.user_id, action);
  }
}
