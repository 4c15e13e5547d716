/**
 * The SQL that creates and fills the bench schema. Bulk rows come from `generate_series` and a
 * seeded hash (`bench_rnd`), so loading stays inside PostgreSQL; only the folder tree (200k rows,
 * shaped by a walk that SQL expresses badly) is computed in JavaScript and sent as arrays.
 */
import type { DataSize } from "./config.js";

/** Tables in load order, with the number of rows each holds at a given size. */
export const TABLES = [
  "users",
  "organizations",
  "folders",
  "documents",
  "org_memberships",
  "folder_roles",
] as const;

export type TableName = (typeof TABLES)[number];

export function createTablesSql(): string {
  return `
    CREATE TABLE users (id integer NOT NULL, name text NOT NULL);
    CREATE TABLE organizations (id integer NOT NULL, name text NOT NULL);
    -- org_id is set on top folders only: nested folders reach their organization through
    -- parent_id. depth is informational (the question sampler reads it; queries do not).
    CREATE TABLE folders (
      id integer NOT NULL, parent_id integer, org_id integer, depth smallint NOT NULL,
      name text NOT NULL,
      CHECK ((parent_id IS NULL) = (org_id IS NOT NULL)));
    CREATE TABLE documents (
      id integer NOT NULL, folder_id integer NOT NULL, org_id integer NOT NULL,
      is_public boolean NOT NULL, title text NOT NULL);
    CREATE TABLE org_memberships (user_id integer NOT NULL, org_id integer NOT NULL, role text NOT NULL);
    CREATE TABLE folder_roles (user_id integer NOT NULL, folder_id integer NOT NULL, role text NOT NULL);
    -- deterministic pseudo-random integer in [0, n) for (key, salt)
    CREATE FUNCTION bench_rnd(key bigint, salt bigint, n bigint) RETURNS bigint
      LANGUAGE sql IMMUTABLE PARALLEL SAFE
      RETURN (hashint8extended(key, salt) & 9223372036854775807) % n;
  `;
}

/**
 * Fills every table. Expects the temporary table `folder_tree(id, parent_id, org_id, depth)`
 * (all folders, org_id set on every row) and `org_range(org_id, first_folder, folder_count)`.
 */
export function fillTablesSql(size: DataSize, seed: number): Record<TableName, string> {
  const salt = (n: number) => seed * 100 + n;
  const step = Math.max(1, Math.floor(size.organizations / size.membershipsPerUser));
  // the m-th organization of user u; distinct for m < membershipsPerUser
  const memberOrg = (u: string, m: string) =>
    `((bench_rnd(${u}, ${salt(1)}, ${size.organizations}) + (${m}) * ${step}) % ${size.organizations} + 1)`;
  return {
    users: `INSERT INTO users SELECT i, 'user-' || i FROM generate_series(1, ${size.users}) AS i`,
    organizations: `INSERT INTO organizations SELECT i, 'org-' || i
      FROM generate_series(1, ${size.organizations}) AS i`,
    folders: `INSERT INTO folders
      SELECT id, NULLIF(parent_id, 0), CASE WHEN parent_id = 0 THEN org_id END, depth, 'folder-' || id
      FROM folder_tree ORDER BY id`,
    // documents spread uniformly over folders; 2% are public
    documents: `INSERT INTO documents
      SELECT i, f.id, f.org_id, bench_rnd(i, ${salt(4)}, 50) = 0, 'doc-' || i
      FROM generate_series(1, ${size.documents}) AS i
      JOIN folder_tree AS f ON f.id = bench_rnd(i, ${salt(3)}, ${size.folders}) + 1
      ORDER BY i`,
    // every user belongs to a few organizations; 4% of memberships are admin
    org_memberships: `INSERT INTO org_memberships
      SELECT u, ${memberOrg("u", "m")},
        CASE WHEN bench_rnd(u * 16 + m, ${salt(2)}, 25) = 0 THEN 'admin' ELSE 'member' END
      FROM generate_series(1, ${size.users}) AS u,
           generate_series(0, ${size.membershipsPerUser - 1}) AS m
      ORDER BY 1, 2`,
    // folder roles inside the user's organizations: 60% viewer, 30% editor, 10% owner
    folder_roles: `INSERT INTO folder_roles
      SELECT DISTINCT ON (user_id, folder_id) user_id, folder_id, role FROM (
        SELECT u AS user_id,
          r.first_folder + (bench_rnd(u * 16 + j % ${size.membershipsPerUser}, ${salt(5)}, r.folder_count)
            + (j / ${size.membershipsPerUser}) * 7) % r.folder_count AS folder_id,
          CASE bench_rnd(u * 16 + j, ${salt(6)}, 10) WHEN 0 THEN 'owner'
            WHEN 1 THEN 'editor' WHEN 2 THEN 'editor' WHEN 3 THEN 'editor' ELSE 'viewer' END AS role
        FROM generate_series(1, ${size.users}) AS u,
             generate_series(0, ${size.folderRolesPerUser - 1}) AS j,
             LATERAL (SELECT * FROM org_range
                      WHERE org_range.org_id = ${memberOrg("u", `j % ${size.membershipsPerUser}`)}) AS r
      ) AS drawn
      ORDER BY user_id, folder_id, role`,
  };
}

/** Keys and the indexes a DBA would add for these lookups (every binding column is covered). */
export function indexesSql(): string[] {
  return [
    "ALTER TABLE users ADD PRIMARY KEY (id)",
    "ALTER TABLE organizations ADD PRIMARY KEY (id)",
    "ALTER TABLE folders ADD PRIMARY KEY (id)",
    "ALTER TABLE documents ADD PRIMARY KEY (id)",
    "ALTER TABLE org_memberships ADD PRIMARY KEY (user_id, org_id)",
    "ALTER TABLE folder_roles ADD PRIMARY KEY (user_id, folder_id)",
    "CREATE INDEX folders_parent_id_idx ON folders (parent_id)",
    "CREATE INDEX folders_org_id_idx ON folders (org_id)",
    "CREATE INDEX documents_folder_id_idx ON documents (folder_id)",
    "CREATE INDEX documents_org_id_idx ON documents (org_id)",
    "CREATE INDEX documents_public_org_id_idx ON documents (org_id) WHERE is_public",
    "CREATE INDEX org_memberships_org_id_idx ON org_memberships (org_id, user_id)",
    "CREATE INDEX folder_roles_folder_id_idx ON folder_roles (folder_id, user_id)",
    "ALTER TABLE folders ADD FOREIGN KEY (parent_id) REFERENCES folders (id)",
    "ALTER TABLE folders ADD FOREIGN KEY (org_id) REFERENCES organizations (id)",
    "ALTER TABLE documents ADD FOREIGN KEY (folder_id) REFERENCES folders (id)",
    "ALTER TABLE documents ADD FOREIGN KEY (org_id) REFERENCES organizations (id)",
    "ALTER TABLE org_memberships ADD FOREIGN KEY (user_id) REFERENCES users (id)",
    "ALTER TABLE org_memberships ADD FOREIGN KEY (org_id) REFERENCES organizations (id)",
    "ALTER TABLE folder_roles ADD FOREIGN KEY (user_id) REFERENCES users (id)",
    "ALTER TABLE folder_roles ADD FOREIGN KEY (folder_id) REFERENCES folders (id)",
  ];
}
