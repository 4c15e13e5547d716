/**
 * `polar-sql playground` (src/cli/playground-command.ts, src/cli/playground-server.ts): serves
 * the files of a built site and nothing else, compressed by `Accept-Encoding`, with ETags and
 * long caching for hashed names; wrong arguments exit 2.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { get, type IncomingHttpHeaders } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CliIo } from "../src/cli/io.js";
import { main } from "../src/cli/main.js";
import { hashedName } from "../src/cli/playground-build.js";
import { runPlaygroundCommand } from "../src/cli/playground-command.js";
import { acceptedEncodings, IMMUTABLE, REVALIDATE } from "../src/cli/playground-server.js";

const SCRIPT = `export const page = "${"the playground's script ".repeat(40)}";\n`;
const SCRIPT_NAME = "assets/main-ABCD2345.js";

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A GET that leaves the body as sent (fetch would decompress it and add Accept-Encoding). */
function rawGet(url: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((done, fail) => {
    get(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        done({
          status: response.statusCode!,
          headers: response.headers,
          body: Buffer.concat(chunks),
        }),
      );
    }).on("error", fail);
  });
}

const quiet: CliIo = { stdout: () => {}, stderr: () => {}, isTTY: false };

describe("polar-sql playground", () => {
  let dir: string;
  let url: string;
  let stop: () => void;
  let served: Promise<number>;

  beforeAll(async () => {
    const root = await mkdtemp(join(tmpdir(), "polar-sql-playground-serve-"));
    dir = join(root, "site");
    await mkdir(join(dir, "assets"), { recursive: true });
    await writeFile(join(dir, "index.html"), "<!doctype html><title>p</title>");
    await writeFile(join(dir, "assets", "pglite.wasm"), new Uint8Array([0, 97, 115, 109]));
    // A hashed script with the build's precompressed copies (src/cli/playground-build.ts).
    await writeFile(join(dir, SCRIPT_NAME), SCRIPT);
    await writeFile(join(dir, `${SCRIPT_NAME}.br`), brotliCompressSync(SCRIPT));
    await writeFile(join(dir, `${SCRIPT_NAME}.gz`), gzipSync(SCRIPT));
    await writeFile(join(root, "secret.txt"), "outside the site");
    const stopped = new Promise<void>((done) => {
      stop = done;
    });
    url = await new Promise<string>((listening) => {
      served = runPlaygroundCommand(["--port", "0", "--dir", dir], quiet, {
        stop: stopped,
        onListening: listening,
      });
    });
  });

  afterAll(async () => {
    stop();
    expect(await served).toBe(0);
    await rm(join(dir, ".."), { recursive: true, force: true });
  });

  it("serves the page and its files with their content types", async () => {
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await page.text()).toContain("<title>p</title>");
    const wasm = await fetch(`${url}assets/pglite.wasm`);
    expect(wasm.headers.get("content-type")).toBe("application/wasm");
    expect(new Uint8Array(await wasm.arrayBuffer())).toEqual(new Uint8Array([0, 97, 115, 109]));
  });

  it("serves nothing outside the site, and only GET and HEAD", async () => {
    for (const path of ["missing.js", "%2e%2e/secret.txt", "..%2fsecret.txt", "%zz"]) {
      const response = await fetch(`${url}${path}`);
      expect(response.status, path).toBe(404);
    }
    expect((await fetch(url, { method: "POST", body: "x" })).status).toBe(405);
    expect((await fetch(url, { method: "HEAD" })).status).toBe(200);
  });

  it("sends brotli or gzip when asked, the file itself when not", async () => {
    const brotli = await rawGet(`${url}${SCRIPT_NAME}`, { "accept-encoding": "gzip, deflate, br" });
    expect(brotli.headers["content-encoding"]).toBe("br");
    expect(brotli.headers.vary).toBe("Accept-Encoding");
    expect(brotli.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(brotliDecompressSync(brotli.body).toString()).toBe(SCRIPT);
    expect(brotli.body.length).toBeLessThan(SCRIPT.length / 4);
    const gzip = await rawGet(`${url}${SCRIPT_NAME}`, { "accept-encoding": "gzip, br;q=0" });
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gzip.body).toString()).toBe(SCRIPT);
    // No precompressed copy: gzipped on the fly.
    const page = await rawGet(url, { "accept-encoding": "gzip" });
    expect(page.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(page.body).toString()).toContain("<title>p</title>");
    for (const accept of [undefined, "identity", "gzip;q=0, br;q=0", "compress"]) {
      const plain = await rawGet(
        `${url}${SCRIPT_NAME}`,
        accept ? { "accept-encoding": accept } : {},
      );
      expect(plain.headers["content-encoding"], accept).toBeUndefined();
      expect(plain.body.toString(), accept).toBe(SCRIPT);
      expect(plain.headers["content-length"]).toBe(String(SCRIPT.length));
    }
  });

  it("reads Accept-Encoding's q-values and wildcard", () => {
    expect(acceptedEncodings("gzip, deflate, br, zstd")).toEqual(["br", "gzip"]);
    expect(acceptedEncodings("br;q=0, *")).toEqual(["gzip"]);
    expect(acceptedEncodings("GZIP;q=0.5")).toEqual(["gzip"]);
    expect(acceptedEncodings("")).toEqual([]);
    expect(acceptedEncodings("identity, deflate")).toEqual([]);
  });

  it("answers 304 to a matching If-None-Match, 200 to another", async () => {
    for (const [path, accept] of [
      [SCRIPT_NAME, "br"],
      [SCRIPT_NAME, "identity"],
      ["", "gzip"],
      ["assets/pglite.wasm", ""],
    ] as const) {
      const first = await rawGet(`${url}${path}`, { "accept-encoding": accept });
      const etag = first.headers.etag!;
      expect(etag, path).toMatch(/^"[\w-]+"$/);
      const again = await rawGet(`${url}${path}`, {
        "accept-encoding": accept,
        "if-none-match": etag,
      });
      expect(again.status, path).toBe(304);
      expect(again.body.length).toBe(0);
      expect(again.headers.etag).toBe(etag);
      const other = await rawGet(`${url}${path}`, {
        "accept-encoding": accept,
        "if-none-match": '"not-this-one"',
      });
      expect(other.status, path).toBe(200);
    }
    // Each encoding is its own representation, with its own ETag.
    const brotli = await rawGet(`${url}${SCRIPT_NAME}`, { "accept-encoding": "br" });
    const plain = await rawGet(`${url}${SCRIPT_NAME}`);
    expect(brotli.headers.etag).not.toBe(plain.headers.etag);
  });

  it("lets browsers keep hashed names for good and revalidate the others", async () => {
    expect((await rawGet(`${url}${SCRIPT_NAME}`)).headers["cache-control"]).toBe(IMMUTABLE);
    expect(IMMUTABLE).toBe("public, max-age=31536000, immutable");
    expect((await rawGet(url)).headers["cache-control"]).toBe(REVALIDATE);
    expect((await rawGet(`${url}index.html`)).headers["cache-control"]).toBe("no-cache");
    expect((await rawGet(`${url}assets/pglite.wasm`)).headers["cache-control"]).toBe("no-cache");
  });

  it("names a file by its content", () => {
    const css = new TextEncoder().encode("body { color: black }");
    const name = hashedName("style.css", css);
    expect(name).toMatch(/^style-[0-9A-F]{8}\.css$/);
    expect(hashedName("style.css", css)).toBe(name);
    expect(hashedName("style.css", new TextEncoder().encode("body { color: red }"))).not.toBe(name);
  });

  it("rejects a bad port and documents itself", async () => {
    let errors = "";
    const io: CliIo = { ...quiet, stderr: (text) => (errors += text) };
    expect(await main(["playground", "--port", "http"], io)).toBe(2);
    expect(errors).toContain("`--port` must be a port number");
    let help = "";
    expect(await main(["playground", "--help"], { ...quiet, stdout: (t) => (help += t) })).toBe(0);
    expect(help).toContain("--port <n>");
  });
});
