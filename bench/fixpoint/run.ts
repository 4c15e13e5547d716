/**
 * Latency of central questions over a non-linear family (docs/fixpoint.md): transitive
 * closure written `path(x, z) if path(x, y) and path(y, z)` over a random graph, on the
 * embedded store (or a PostgreSQL server with --database-url=...).
 *
 *   npx tsx bench/fixpoint/run.ts [--nodes=200] [--edges=400] [--iterations=20]
 *     [--store=sqlite|pglite | --database-url=…]
 */
import { createService } from "../../src/service/service.js";
import type { EmbeddedStore } from "../../src/store/store.js";

const flag = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const nodes = Number(flag("nodes", "200"));
const edges = Number(flag("edges", "400"));
const iterations = Number(flag("iterations", "20"));
const databaseUrl = flag("database-url", "");

const POLICY = `actor User {}
resource Node { permissions = ["read"]; }
path(x: Node, z: Node) if edge(x, z);
path(x: Node, z: Node) if path(x, y) and path(y, z);
allow(u: User, "read", n: Node) if start(u, m) and path(m, n);
`;

let seed = 42;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};
const node = (i: number) => ({ type: "Node", id: `n${i}` });
const facts = [
  ...Array.from({ length: edges }, () => ({
    predicate: "edge",
    args: [node(Math.floor(random() * nodes)), node(Math.floor(random() * nodes))],
  })),
  { predicate: "start", args: [{ type: "User", id: "ada" }, node(0)] },
];

const embedded = flag("store", "sqlite") as EmbeddedStore;
const service = await createService(databaseUrl ? { databaseUrl } : { embedded });
await service.postPolicy({ src: POLICY, filename: "closure.polar" }, {});
await service.clearData();
await service.batch([{ inserts: facts }]);

async function timed(label: string, work: () => Promise<unknown>): Promise<void> {
  await work();
  const started = performance.now();
  for (let i = 0; i < iterations; i++) await work();
  const ms = (performance.now() - started) / iterations;
  console.log(`| ${label} | ${ms.toFixed(1)} |`);
}

const ask = { actor_type: "User", actor_id: "ada", action: "read", resource_type: "Node" };
console.log(`${databaseUrl ? "PostgreSQL server" : "PGlite"}, ${nodes} nodes, ${edges} edges`);
console.log("| question | ms per question |");
console.log("|---|---:|");
await timed("authorize", () => service.authorize({ ...ask, resource_id: `n${nodes - 1}` }));
await timed("list", () => service.list({ ...ask, page_size: 10_000 }));
await timed("actions", () => service.actions({ ...ask, resource_id: "n1" }));
const listed = (await service.list({ ...ask, page_size: 10_000 })).body as { results: string[] };
console.log(`(list answers ${listed.results.length} nodes)`);
await service.close();
