/**
 * `polar-sql playground` (src/cli/playground-command.ts): serves the files of a built site and
 * nothing else; wrong arguments exit 2.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CliIo } from "../src/cli/io.js";
import { main } from "../src/cli/main.js";
import { runPlaygroundCommand } from "../src/cli/playground-command.js";

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
