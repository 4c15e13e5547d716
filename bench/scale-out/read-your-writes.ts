/**
 * Read-your-writes across instances: a write through instance A, then at once a question to
 * instance B whose answer the write changed. Each pair grants a fresh user `viewer` on a
 * document's folder (the answer to `read` turns true), then revokes it (false again), so every
 * read has one right answer. The `OsoOffset` header that A answers is sent with B's question
 * when `sendOffset` is set, as the official client does (node_modules/oso-cloud/dist/src/api.js
 * keeps the last offset a mutation answered and sends it with every request).
 *
 *   const counts = await readYourWrites({ writer, reader, apiKey, targets, pairs: 500, sendOffset: true });
 */
import http from "node:http";

/** A document and the folder it sits in (from a `has_relation(Document, "folder", Folder)`). */
export interface Target {
  readonly document: string;
  readonly folder: string;
}

export interface ReadYourWritesOptions {
  readonly writer: string;
  readonly reader: string;
  readonly apiKey: string;
  readonly targets: readonly Target[];
  readonly pairs: number;
  readonly sendOffset: boolean;
  /** Distinguishes the users of successive runs on one store. */
  readonly run: string;
}

export interface ReadYourWritesCounts {
  /** Reads (two per pair: after the grant, after the revoke). */
  readonly reads: number;
  readonly stale: number;
  /** Milliseconds from the write's answer to the read's answer: p50 and max. */
  readonly p50Ms: number;
  readonly maxMs: number;
  readonly firstStale: string | null;
}

interface Answer {
  readonly status: number;
  readonly offset: string | null;
  readonly body: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

function post(base: string, path: string, apiKey: string, body: unknown, offset: string | null) {
  const text = JSON.stringify(body);
  const url = new URL(path, base);
  return new Promise<Answer>((resolve, reject) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: "POST",
        path: url.pathname,
        agent,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(text),
          authorization: `Bearer ${apiKey}`,
          ...(offset !== null && { OsoOffset: offset }),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const header = response.headers.osooffset;
          resolve({
            status: response.statusCode ?? 0,
            offset: typeof header === "string" ? header : null,
            body: Buffer.concat(chunks).toString(),
          });
        });
      },
    );
    request.on("error", reject);
    request.end(text);
  });
}

export async function readYourWrites(
  options: ReadYourWritesOptions,
): Promise<ReadYourWritesCounts> {
  const { writer, reader, apiKey } = options;
  let stale = 0;
  let reads = 0;
  let firstStale: string | null = null;
  const gaps: number[] = [];
  for (let i = 0; i < options.pairs; i++) {
    const target = options.targets[i % options.targets.length]!;
    const user = `${options.run}-${i}`;
    const fact = {
      predicate: "has_role",
      args: [
        { type: "User", id: user },
        { type: "String", id: "viewer" },
        { type: "Folder", id: target.folder },
      ],
    };
    const question = {
      actor_type: "User",
      actor_id: user,
      action: "read",
      resource_type: "Document",
      resource_id: target.document,
      context_facts: [],
    };
    for (const [changeset, expected] of [
      [{ inserts: [fact] }, true],
      [{ deletes: [fact] }, false],
    ] as const) {
      const written = await post(writer, "/api/batch", apiKey, [changeset], null);
      if (written.status !== 200 || written.offset === null) {
        throw new Error(`write answered ${written.status} ${written.body.slice(0, 200)}`);
      }
      const wroteAt = performance.now();
      const offset = options.sendOffset ? written.offset : null;
      const answer = await post(reader, "/api/authorize", apiKey, question, offset);
      gaps.push(performance.now() - wroteAt);
      if (answer.status !== 200) {
        throw new Error(`authorize answered ${answer.status} ${answer.body.slice(0, 200)}`);
      }
      reads++;
      const allowed = (JSON.parse(answer.body) as { allowed: boolean }).allowed;
      if (allowed !== expected) {
        stale++;
        firstStale ??= `pair ${i}: after ${"inserts" in changeset ? "insert" : "delete"} at offset ${written.offset}, ${reader} answered allowed=${allowed}`;
      }
    }
  }
  gaps.sort((a, b) => a - b);
  return {
    reads,
    stale,
    p50Ms: Math.round((gaps[Math.floor(gaps.length / 2)] ?? Number.NaN) * 10) / 10,
    maxMs: Math.round((gaps.at(-1) ?? Number.NaN) * 10) / 10,
    firstStale,
  };
}
