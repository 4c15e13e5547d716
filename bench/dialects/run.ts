/**
 * Emitted vs hand-written statements on MariaDB (mysql dialect) and SQLite: the bench/local
 * policy, bindings and hand-written queries (bench/local/handwritten.ts) over data of the same
 * shape as bench/local/generate.ts, scaled down (`--scale`, default 0.05 of its 3.1M rows).
 * Every question's answer is checked equal between the two statements; the figures are the
 * sum over questions of each statement's median time, and the ratio emitted / hand-written.
 *
 *   npx tsx bench/dialects/run.ts [--scale=0.05] [--repetitions=15] [--engines=mariadb,sqlite]
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import mysql from "mysql2/promise";
import {
  authorizeQuery,
  checkPolicyOrThrow,
  type DialectName,
  listQuery,
} from "../../src/index.js";
import { handAuthorizeSql, handListSql } from "../local/handwritten.js";

const args = new Map(
  process.argv.slice(2).map((arg) => {
    const [key, value] = arg.replace(/^--/, "").split("=");
    return [key!, value ?? "true"];
  }),
);
const SCALE = Number(args.get("scale") ?? 0.05);
const REPETITIONS = Number(args.get("repetitions") ?? 15);
const ENGINES = (args.get("engines") ?? "mariadb,sqlite").split(",");

/** Seeded mulberry32. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Data {
  readonly folders: [number, number | null, number | null][]; // id, parent_id, org_id (top only)
  readonly folderOrg: number[];
  readonly documents: [number, number, number, number, string][]; // id, folder, org, public, title
  readonly memberships: [number, number, string][]; // user, org, role
  readonly folderRoles: [number, number, string][]; // user, folder, role
}

function generate(scale: number): Data {
  const random = rng(42);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const users = Math.max(50, Math.round(100_000 * scale));
  const orgs = Math.max(5, Math.round(10_000 * scale));
  const folderCount = Math.max(100, Math.round(200_000 * scale));
  const documentCount = Math.max(400, Math.round(800_000 * scale));
  const folders: Data["folders"] = [];
  const folderOrg: number[] = [0];
  const depth: number[] = [0];
  const byOrg: number[][] = Array.from({ length: orgs + 1 }, () => []);
  for (let org = 1; org <= orgs; org++) {
    for (let k = 0; k < 1 + Math.floor(random() * 3); k++) {
      const id = folders.length + 1;
      folders.push([id, null, org]);
      folderOrg.push(org);
      depth.push(1);
      byOrg[org]!.push(id);
    }
  }
  while (folders.length < folderCount) {
    // 1% of organizations are large.
    const org =
      random() < 0.3
        ? 1 + Math.floor(random() * Math.max(1, orgs / 100))
        : 1 + Math.floor(random() * orgs);
    const parent = pick(byOrg[org]!);
    if (depth[parent]! >= 8) continue;
    const id = folders.length + 1;
    folders.push([id, parent, null]);
    folderOrg.push(org);
    depth.push(depth[parent]! + 1);
    byOrg[org]!.push(id);
  }
  const documents: Data["documents"] = [];
  for (let id = 1; id <= documentCount; id++) {
    const folder = 1 + Math.floor(random() * folders.length);
    documents.push([id, folder, folderOrg[folder]!, random() < 0.02 ? 1 : 0, `doc ${id}`]);
  }
  const memberships: Data["memberships"] = [];
  const folderRoles: Data["folderRoles"] = [];
  for (let user = 1; user <= users; user++) {
    const mine = new Set<number>();
    while (mine.size < Math.min(5, orgs)) mine.add(1 + Math.floor(random() * orgs));
    for (const org of mine) memberships.push([user, org, random() < 0.04 ? "admin" : "member"]);
    const granted = new Set<number>();
    for (let k = 0; k < 8; k++) {
      const folder = pick(byOrg[pick([...mine])]!);
      if (granted.has(folder)) continue;
      granted.add(folder);
      const r = random();
      folderRoles.push([user, folder, r < 0.6 ? "viewer" : r < 0.9 ? "editor" : "owner"]);
    }
  }
  return { folders, folderOrg, documents, memberships, folderRoles };
}

const DDL = (text: string, int: string) => `CREATE TABLE organizations (id ${int} PRIMARY KEY);
CREATE TABLE folders (id ${int} PRIMARY KEY, parent_id ${int}, org_id ${int});
CREATE INDEX folders_parent ON folders (parent_id);
CREATE INDEX folders_org ON folders (org_id);
CREATE TABLE documents (id ${int} PRIMARY KEY, folder_id ${int} NOT NULL, org_id ${int} NOT NULL, is_public boolean NOT NULL, title ${text} NOT NULL);
CREATE INDEX documents_folder ON documents (folder_id);
CREATE INDEX documents_org ON documents (org_id);
CREATE TABLE org_memberships (user_id ${int} NOT NULL, org_id ${int} NOT NULL, role ${text} NOT NULL, PRIMARY KEY (user_id, org_id));
CREATE INDEX org_memberships_org ON org_memberships (org_id, user_id);
CREATE TABLE folder_roles (user_id ${int} NOT NULL, folder_id ${int} NOT NULL, role ${text} NOT NULL, PRIMARY KEY (user_id, folder_id));
CREATE INDEX folder_roles_folder ON folder_roles (folder_id, user_id)`;

interface Engine {
  readonly name: string;
  readonly dialect: DialectName;
  rows(sql: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

function chunks<T>(rows: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

const tables = (data: Data) =>
  [
    ["organizations", [...new Set(data.folderOrg.slice(1))].map((id) => [id])],
    ["folders", data.folders],
    ["documents", data.documents],
    ["org_memberships", data.memberships.map(([u, o, r]) => [u, o, r])],
    ["folder_roles", data.folderRoles.map(([u, f, r]) => [u, f, r])],
  ] as const;

async function mariadb(data: Data): Promise<Engine> {
  const database = `polar_bench_dialects_${process.pid}`;
  const connection = await mysql.createConnection({
    host: "127.0.0.1",
    user: "root",
    multipleStatements: true,
  });
  await connection.query(
    `DROP DATABASE IF EXISTS ${database}; CREATE DATABASE ${database} CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci; USE ${database}; SET SESSION max_statement_time = 60`,
  );
  await connection.query(DDL("varchar(32)", "int"));
  for (const [table, rows] of tables(data)) {
    for (const chunk of chunks(rows as unknown[][], 2000)) {
      await connection.query(`INSERT INTO ${table} VALUES ?`, [chunk]);
    }
  }
  await connection.query(
    "ANALYZE TABLE organizations, folders, documents, org_memberships, folder_roles",
  );
  return {
    name: "mariadb",
    dialect: "mysql",
    async rows(sql) {
      const [rows] = await connection.query(sql);
      return rows as Record<string, unknown>[];
    },
    async close() {
      if (args.has("keep")) console.log(`kept database ${database}`);
      else await connection.query(`DROP DATABASE IF EXISTS ${database}`);
      await connection.end();
    },
  };
}

async function sqlite(data: Data): Promise<Engine> {
  const dir = mkdtempSync(join(tmpdir(), "polar-bench-"));
  const db = new Database(join(dir, "bench.db"));
  db.exec(DDL("text", "integer"));
  for (const [table, rows] of tables(data)) {
    const width = (rows[0] as unknown[]).length;
    const insert = db.prepare(`INSERT INTO ${table} VALUES (${Array(width).fill("?").join(", ")})`);
    db.transaction(() => {
      for (const row of rows) insert.run(...(row as unknown[]));
    })();
  }
  db.exec("ANALYZE");
  return {
    name: "sqlite",
    dialect: "sqlite",
    async rows(sql) {
      return db.prepare(sql).all() as Record<string, unknown>[];
    },
    async close() {
      db.close();
      if (args.has("keep")) console.log(`kept ${join(dir, "bench.db")}`);
      else rmSync(dir, { recursive: true, force: true });
    },
  };
}

interface Question {
  readonly kind: "authorize" | "list";
  readonly label: string;
  readonly emitted: string;
  readonly hand: string;
}

function questions(data: Data, dialect: DialectName): Question[] {
  const random = rng(43);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const program = checkPolicyOrThrow([
    { name: "policy.polar", text: readFileSync("bench/local/policy.polar", "utf8") },
  ]);
  const data_bindings = readFileSync("bench/local/bindings.yaml", "utf8");
  const out: Question[] = [];
  const docsByFolder = new Map<number, number[]>();
  for (const [id, folder] of data.documents) {
    docsByFolder.set(folder, [...(docsByFolder.get(folder) ?? []), id]);
  }
  for (let i = 0; i < 24; i++) {
    // Half: a document in a folder the user holds a role on (allowed); half: any document.
    const [user, folder] = pick(data.folderRoles);
    const docs = docsByFolder.get(folder);
    const doc = i % 2 === 0 && docs ? pick(docs) : pick(data.documents)[0];
    const query = {
      actor_type: "User",
      actor_id: String(user),
      action: "read",
      resource_type: "Document",
      resource_id: String(doc),
    };
    out.push({
      kind: "authorize",
      label: `authorize ${user} read ${doc}`,
      emitted: authorizeQuery(program, { query, data_bindings }, { dialect }).sql,
      hand: handAuthorizeSql({
        actor: user,
        action: "read",
        resourceType: "Document",
        resource: doc,
      }),
    });
  }
  const admins = data.memberships.filter(([, , role]) => role === "admin").map(([user]) => user);
  for (const user of [
    pick(data.folderRoles)[0],
    pick(data.folderRoles)[0],
    pick(admins),
    pick(admins),
  ]) {
    const fragment = listQuery(
      program,
      {
        query: {
          actor_type: "User",
          actor_id: String(user),
          action: "read",
          resource_type: "Document",
        },
        column: "documents.id",
        data_bindings,
      },
      { dialect },
    ).sql;
    out.push({
      kind: "list",
      label: `list ${user} read Document`,
      emitted: `SELECT documents.id, documents.title FROM documents WHERE ${fragment}`,
      hand: handListSql({ actor: user, action: "read", resourceType: "Document" }),
    });
  }
  return out;
}

function answer(kind: Question["kind"], rows: Record<string, unknown>[]): string {
  if (kind === "authorize") return String(Boolean(Number(rows[0]!.allowed)));
  return JSON.stringify([...new Set(rows.map((row) => Number(row.id)))].sort((a, b) => a - b));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function time(engine: Engine, sql: string): Promise<number> {
  const start = process.hrtime.bigint();
  await engine.rows(sql);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function bench(engine: Engine, data: Data): Promise<void> {
  const asked = questions(data, engine.dialect);
  if (args.has("print"))
    for (const q of asked) console.log(`-- ${q.label}\n${q.emitted};\n${q.hand};`);
  const totals = { authorize: { e: 0, h: 0 }, list: { e: 0, h: 0 } };
  let worst = { ratio: 0, label: "" };
  for (const question of asked) {
    const emitted = answer(question.kind, await engine.rows(question.emitted));
    const hand = answer(question.kind, await engine.rows(question.hand));
    if (emitted !== hand) {
      throw new Error(`${engine.name} ${question.label}: emitted ${emitted}, hand-written ${hand}`);
    }
    const e: number[] = [];
    const h: number[] = [];
    for (let r = 0; r < REPETITIONS; r++) {
      e.push(await time(engine, question.emitted));
      h.push(await time(engine, question.hand));
    }
    totals[question.kind].e += median(e);
    totals[question.kind].h += median(h);
    const ratio = median(e) / median(h);
    if (ratio > worst.ratio) worst = { ratio, label: question.label };
  }
  for (const kind of ["authorize", "list"] as const) {
    const { e, h } = totals[kind];
    const count = asked.filter((q) => q.kind === kind).length;
    console.log(
      `${engine.name} ${kind}: ${count} questions, emitted ${(e / count).toFixed(2)} ms, hand-written ${(h / count).toFixed(2)} ms (mean of medians), ratio ${(e / h).toFixed(2)}`,
    );
  }
  console.log(`${engine.name} worst question: ${worst.label}, ratio ${worst.ratio.toFixed(2)}`);
}

const data = generate(SCALE);
console.log(
  `scale ${SCALE}: ${data.folders.length} folders, ${data.documents.length} documents, ${data.memberships.length} memberships, ${data.folderRoles.length} folder roles; ${REPETITIONS} repetitions`,
);
for (const name of ENGINES) {
  const engine = name === "mariadb" ? await mariadb(data) : await sqlite(data);
  try {
    await bench(engine, data);
  } finally {
    await engine.close();
  }
}
