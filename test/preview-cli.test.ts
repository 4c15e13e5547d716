/**
 * `polar-sql preview`, offline over a facts file and against a server started in this
 * process: both give the triples of the brute force, page by page, in the readable form and
 * as the HTTP shape; bad arguments and broken policies get their exit codes.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PolarService } from "../src/api/service.js";
import type { CliIo } from "../src/cli/io.js";
import { main } from "../src/cli/main.js";
import { createApp } from "../src/http/app.js";
import { silentLogger } from "../src/http/logger.js";
import { type ServerHandle, startServer } from "../src/http/server.js";
import { createService } from "../src/service/service.js";
import { bruteForce, program, tripleKey } from "./preview-support.js";

const KEY = "preview-cli-key";
const ACTIVE = `actor User {}
resource Repo {
  roles = ["reader", "admin"];
  permissions = ["read", "push"];
  "read" if "reader";
  "push" if "admin";
}
allow(actor, action, resource) if has_permission(actor, action, resource);
test "admins push" {
  setup { has_role(User{"a"}, "admin", Repo{"r"}); has_role(User{"b"}, "reader", Repo{"r"}); }
  assert allow(User{"a"}, "push", Repo{"r"});
  assert_not allow(User{"b"}, "push", Repo{"r"});
}
`;
const CANDIDATE = ACTIVE.replace(`"push" if "admin";`, `"push" if "reader";`);
const FACTS = [
  ["a", "admin", "r1"],
  ["b", "reader", "r1"],
  ["c d", "reader", "r2"],
].map(([user, role, repo]) => ({
  predicate: "has_role",
  args: [
    { type: "User", id: user! },
    { type: "String", id: role! },
    { type: "Repo", id: repo! },
  ],
}));

let dir: string;
let service: PolarService;
let server: ServerHandle;
const file = (name: string) => join(dir, name);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "polar-sql-preview-"));
  await writeFile(file("active.polar"), ACTIVE);
  await writeFile(file("candidate.polar"), CANDIDATE);
  await writeFile(file("broken.polar"), `${CANDIDATE}\nallow(x, "read", y) if nope(;`);
  await writeFile(file("facts.json"), JSON.stringify(FACTS));
  service = await createService({ workers: 0 });
  await service.postPolicy({ src: ACTIVE, filename: "active.polar" }, {});
  await service.batch([{ inserts: FACTS }]);
  server = await startServer({
    app: createApp({ service, apiKeys: [KEY], logger: silentLogger }),
    port: 0,
    host: "127.0.0.1",
  });
});

afterAll(async () => {
  await server?.close();
  await service?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function cli(args: readonly string[]) {
  const out = { stdout: "", stderr: "" };
  const io: CliIo = {
    stdout: (t) => (out.stdout += t),
    stderr: (t) => (out.stderr += t),
    isTTY: false,
    env: { POLAR_SQL_URL: server.url, POLAR_SQL_API_KEY: KEY },
  };
  const code = await main(args, io);
  return { code, ...out };
}

const offline = (...more: string[]) => [
  "preview",
  "--policy",
  file("active.polar"),
  "--new-policy",
  file("candidate.polar"),
  "--facts",
  file("facts.json"),
  ...more,
];
const remote = (...more: string[]) => ["preview", "--new-policy", file("candidate.polar"), ...more];

const expected = bruteForce(program(ACTIVE), program(CANDIDATE), FACTS);

describe("polar-sql preview", () => {
  it("offline and against a server, as JSON, gives the brute-force triples on any page size", async () => {
    for (const args of [
      offline("--json"),
      offline("--json", "--page-size", "1"),
      remote("--json", "--page-size", "2"),
    ]) {
      const ran = await cli(args);
      expect(ran.stderr).toBe("");
      expect(ran.code).toBe(0);
      const reply = JSON.parse(ran.stdout);
      expect(reply.gained.map(tripleKey).sort()).toEqual(expected.gained);
      expect(reply.lost.map(tripleKey).sort()).toEqual(expected.lost);
      expect(reply.next_page_token).toBeUndefined();
      expect(reply.tests.candidate).toEqual({ passed: [], failed: ["admins push"] });
    }
    expect(expected.gained.length).toBe(2);
  });

  it("prints the changes grouped by resource type and permission", async () => {
    const ran = await cli(offline());
    expect(ran.code).toBe(0);
    expect(ran.stdout).toBe(`Repo "push": 2 gained, 1 lost
  + User:b on Repo:r1
  + User:"c d" on Repo:r2
  - User:a on Repo:r1

2 gained, 1 lost in total

tests of the current policy: 1 passed, 0 failed
tests of the new policy: 0 passed, 1 failed (\`admins push\`)
`);
    expect((await cli(remote())).stdout).toBe(ran.stdout);
  });

  it("takes several files per policy", async () => {
    const split = ACTIVE.indexOf("allow(");
    await writeFile(file("blocks.polar"), ACTIVE.slice(0, split));
    await writeFile(file("rules.polar"), ACTIVE.slice(split));
    const args = offline("--json");
    args.splice(2, 1, file("blocks.polar"), file("rules.polar"));
    const ran = await cli(args);
    expect(ran.code).toBe(0);
    expect(JSON.parse(ran.stdout).gained.map(tripleKey).sort()).toEqual(expected.gained);
    // The first file alone: its tests are gone (and `allow` is the default one).
    const one = await cli(["preview", "--policy", file("blocks.polar"), ...args.slice(4)]);
    const blocksOnly = bruteForce(program(ACTIVE.slice(0, split)), program(CANDIDATE), FACTS);
    expect(JSON.parse(one.stdout).gained.map(tripleKey).sort()).toEqual(blocksOnly.gained);
    expect(JSON.parse(one.stdout).tests.active).toEqual({ passed: [], failed: [] });
  });

  it("refuses a broken candidate and wrong arguments", async () => {
    const broken = await cli(["preview", "--new-policy", file("broken.polar")]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/nothing was sent/);
    const offlineBroken = await cli([
      "preview",
      "--policy",
      file("active.polar"),
      "--new-policy",
      file("broken.polar"),
    ]);
    expect(offlineBroken.code).toBe(1);
    const missing = await cli(["preview", "--policy", file("active.polar")]);
    expect(missing).toMatchObject({ code: 2, stderr: /needs `--new-policy`/ });
    const size = await cli(offline("--page-size", "0"));
    expect(size).toMatchObject({ code: 2, stderr: /--page-size/ });
    const stray = await cli(["preview", "--new-policy", file("candidate.polar"), "--facts", "x"]);
    expect(stray).toMatchObject({ code: 2, stderr: /--facts/ });
  });
});
