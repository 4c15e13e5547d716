/**
 * The scale-out bench's own logic (bench/scale-out/): the read-your-writes counter against the
 * real service (no stale answers) and against a server that answers stale (every grant's read
 * counted, the revoke's not), and the CPU shares computed from /proc snapshots.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CpuSnapshot, cpuShares } from "../bench/scale-out/cpu.js";
import { readYourWrites } from "../bench/scale-out/read-your-writes.js";
import type { PolarService } from "../src/api/service.js";
import { createApp } from "../src/http/app.js";
import { silentLogger } from "../src/http/logger.js";
import { type ServerHandle, startServer } from "../src/http/server.js";
import { createService } from "../src/service/service.js";
import { sharedWorkerPool } from "./support/worker-pool.js";

const KEY = "scale-out-key";
const POLICY = `actor User {}
resource Folder { roles = ["viewer"]; permissions = ["read"]; "read" if "viewer"; }
resource Document {
  permissions = ["read"];
  relations = { folder: Folder };
  "read" if "read" on "folder";
}`;
const targets = [
  { document: "d1", folder: "f1" },
  { document: "d2", folder: "f2" },
];

describe("readYourWrites", () => {
  let service: PolarService;
  let server: ServerHandle;
  let stale: http.Server;
  let staleUrl = "";

  beforeAll(async () => {
    service = await createService({ pool: sharedWorkerPool() });
    await service.postPolicy({ src: POLICY, filename: "policy.polar" }, {});
    await service.batch([
      {
        inserts: targets.map((t) => ({
          predicate: "has_relation",
          args: [
            { type: "Document", id: t.document },
            { type: "String", id: "folder" },
            { type: "Folder", id: t.folder },
          ],
        })),
      },
    ]);
    const app = createApp({ service, apiKeys: [KEY], logger: silentLogger });
    server = await startServer({ app, port: 0, host: "127.0.0.1" });
    // A server that acknowledges writes and answers every question as before them: denied.
    stale = http.createServer((request, response) => {
      request.resume();
      request.on("end", () => {
        const write = request.url === "/api/batch";
        response.writeHead(200, {
          "content-type": "application/json",
          ...(write && { OsoOffset: "1" }),
        });
        response.end(JSON.stringify(write ? { message: "ok" } : { allowed: false }));
      });
    });
    await new Promise<void>((resolve) => stale.listen(0, "127.0.0.1", resolve));
    staleUrl = `http://127.0.0.1:${(stale.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await server?.close();
    await service?.close();
    await new Promise((resolve) => stale?.close(resolve));
  });

  it("counts no stale answer from the service, with or without the offset", async () => {
    for (const sendOffset of [false, true]) {
      const counts = await readYourWrites({
        writer: server.url,
        reader: server.url,
        apiKey: KEY,
        targets,
        pairs: 4,
        sendOffset,
        run: `t${sendOffset}`,
      });
      expect(counts).toMatchObject({ reads: 8, stale: 0, firstStale: null });
    }
  });

  it("counts the read after each grant of a server that answers from before the write", async () => {
    const counts = await readYourWrites({
      writer: staleUrl,
      reader: staleUrl,
      apiKey: KEY,
      targets,
      pairs: 3,
      sendOffset: true,
      run: "s",
    });
    expect(counts.reads).toBe(6);
    expect(counts.stale).toBe(3);
    expect(counts.firstStale).toContain("after insert");
  });
});

const snapshot = (
  at: number,
  machineBusy: number,
  processes: [number, string, number][],
): CpuSnapshot => ({
  at,
  machineBusy,
  processes: new Map(processes.map(([pid, role, seconds]) => [pid, { role, seconds }])),
});

describe("cpuShares", () => {
  it("gives cores per role over the wall time, and the rest of the machine as other", () => {
    const before = snapshot(0, 100, [
      [1, "generator", 10],
      [2, "instances", 20],
      [3, "instances", 5],
    ]);
    const after = snapshot(2000, 104, [
      [1, "generator", 10.5],
      [2, "instances", 21],
      [3, "instances", 6],
    ]);
    const shares = cpuShares(before, after);
    expect(shares.get("generator")).toBeCloseTo(0.25);
    expect(shares.get("instances")).toBeCloseTo(1);
    expect(shares.get("other")).toBeCloseTo(0.75);
  });

  it("leaves out a process seen in one snapshot only", () => {
    const before = snapshot(0, 0, [[1, "postgres", 3]]);
    const after = snapshot(1000, 1, [
      [1, "postgres", 3.25],
      [2, "postgres", 9],
    ]);
    const shares = cpuShares(before, after);
    expect(shares.get("postgres")).toBeCloseTo(0.25);
    expect(shares.get("other")).toBeCloseTo(0.75);
  });

  it("never counts more than the machine's busy time as used by the roles plus other", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.double({ min: 0, max: 10, noNaN: true }), fc.boolean()), {
          maxLength: 6,
        }),
        fc.double({ min: 0, max: 30, noNaN: true }),
        (used, spare) => {
          const processes = used.map(([, instance], pid): [number, string, number] => [
            pid,
            instance ? "instances" : "postgres",
            0,
          ]);
          const total = used.reduce((sum, [seconds]) => sum + seconds, 0);
          const before = snapshot(0, 0, processes);
          const after = snapshot(
            1000,
            total + spare,
            processes.map(([pid, role], i) => [pid, role, used[i]![0]]),
          );
          const shares = cpuShares(before, after);
          const sum = [...shares.values()].reduce((a, b) => a + b, 0);
          expect(sum).toBeCloseTo(total + spare, 6);
          expect(shares.get("other")).toBeCloseTo(spare, 6);
        },
      ),
    );
  });
});
