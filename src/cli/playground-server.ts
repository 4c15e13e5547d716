/**
 * Hands out the files of a built playground (src/cli/playground-build.ts) for
 * `polar-sql playground` (src/cli/playground-command.ts), light on the wire:
 *
 * - compressed by the request's `Accept-Encoding`: brotli, else gzip, from a `.br` (the build
 *   writes them) or `.gz` copy when present, else gzipped on the fly; `Vary: Accept-Encoding`
 *   on every compressible file;
 * - a strong `ETag` per file and encoding (SHA-256 of the file sent, marked `-gzip` when gzipped
 *   on the fly), and `304 Not Modified` on a matching `If-None-Match`;
 * - a name with a content hash (`main-KQGXBQ2C.js`) is kept for a year (`immutable`); any other
 *   (`index.html`) is revalidated on each use (`no-cache`).
 */

import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { basename, extname, resolve, sep } from "node:path";
import { createGzip } from "node:zlib";

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
  ".data": "application/octet-stream",
  ".png": "image/png",
  ".json": "application/json",
};

const COMPRESSIBLE = new Set([".html", ".js", ".css", ".wasm", ".data", ".json"]);

/** esbuild's `[hash]` (8 of A–Z, 2–7) or `hashedName`'s (8 hex digits, upper case). */
const HASHED_NAME = /-[A-Z0-9]{8}\.[a-z0-9]+$/;

export const IMMUTABLE = "public, max-age=31536000, immutable";
export const REVALIDATE = "no-cache";

type Encoding = "br" | "gzip" | "identity";

/** What is sent for one request: which bytes, and how they are labelled. */
interface Representation {
  readonly path: string;
  readonly encoding: Encoding;
  /** Gzip `path` while sending it (no precompressed copy). */
  readonly compressOnTheFly: boolean;
  readonly etag: string;
  /** Unknown when compressed on the fly. */
  readonly size?: number;
}

/** Serves the request from the site in `dir` (an absolute path). */
export async function serveSiteFile(
  dir: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const method = request.method ?? "GET";
  if (method !== "GET" && method !== "HEAD") {
    response.writeHead(405, { allow: "GET, HEAD" }).end();
    return;
  }
  const file = await fileFor(dir, request.url ?? "/");
  if (!file) {
    response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found\n");
    return;
  }
  const chosen = await representationOf(file, request.headers["accept-encoding"] ?? "");
  const headers: Record<string, string | number> = {
    "content-type": CONTENT_TYPES[extname(file)] ?? "application/octet-stream",
    "cache-control": HASHED_NAME.test(basename(file)) ? IMMUTABLE : REVALIDATE,
    etag: chosen.etag,
  };
  if (COMPRESSIBLE.has(extname(file))) headers.vary = "Accept-Encoding";
  if (chosen.encoding !== "identity") headers["content-encoding"] = chosen.encoding;
  if (matches(request.headers["if-none-match"], chosen.etag)) {
    delete headers["content-type"];
    response.writeHead(304, headers).end();
    return;
  }
  if (chosen.size !== undefined) headers["content-length"] = chosen.size;
  response.writeHead(200, headers);
  if (method === "HEAD") {
    response.end();
    return;
  }
  const body = createReadStream(chosen.path).on("error", () => response.destroy());
  if (chosen.compressOnTheFly) body.pipe(createGzip()).pipe(response);
  else body.pipe(response);
}

/** The file for a request path inside `dir`, or null (outside it, or not a file). */
async function fileFor(dir: string, url: string): Promise<string | null> {
  let path: string;
  try {
    path = decodeURIComponent(new URL(url, "http://x").pathname);
  } catch {
    return null;
  }
  if (path.endsWith("/")) path += "index.html";
  const file = resolve(dir, `.${path}`);
  if (file !== dir && !file.startsWith(dir + sep)) return null;
  return (await sizeOf(file)) === undefined ? null : file;
}

/** The size of a regular file, or undefined when there is none. */
async function sizeOf(path: string): Promise<number | undefined> {
  try {
    const stats = await stat(path);
    return stats.isFile() ? stats.size : undefined;
  } catch {
    return undefined;
  }
}

/** The encodings `Accept-Encoding` allows (a q-value above 0), in the server's order. */
export function acceptedEncodings(header: string): Encoding[] {
  const quality = new Map<string, number>();
  for (const part of header.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    if (name) quality.set(name, q === undefined ? 1 : Number(q));
  }
  const allows = (name: string) => (quality.get(name) ?? quality.get("*") ?? 0) > 0;
  return (["br", "gzip"] as const).filter(allows);
}

/** Brotli or gzip copy when accepted and present, gzip on the fly, else the file itself. */
async function representationOf(file: string, acceptEncoding: string): Promise<Representation> {
  const accepted = COMPRESSIBLE.has(extname(file)) ? acceptedEncodings(acceptEncoding) : [];
  for (const encoding of accepted) {
    const copy = `${file}.${encoding === "br" ? "br" : "gz"}`;
    const size = await sizeOf(copy);
    if (size !== undefined) {
      return { path: copy, encoding, compressOnTheFly: false, etag: await etagOf(copy), size };
    }
  }
  const etag = await etagOf(file);
  if (accepted.includes("gzip")) {
    return {
      path: file,
      encoding: "gzip",
      compressOnTheFly: true,
      etag: `${etag.slice(0, -1)}-gzip"`,
    };
  }
  return {
    path: file,
    encoding: "identity",
    compressOnTheFly: false,
    etag,
    size: await sizeOf(file),
  };
}

/** Strong ETags by path, kept while the file's size and modification time stay the same. */
const etags = new Map<string, { stamp: string; etag: string }>();

async function etagOf(path: string): Promise<string> {
  const stats = await stat(path);
  const stamp = `${stats.size}:${stats.mtimeMs}`;
  const known = etags.get(path);
  if (known?.stamp === stamp) return known.etag;
  const digest = createHash("sha256")
    .update(await readFile(path))
    .digest("base64url");
  const etag = `"${digest.slice(0, 22)}"`;
  etags.set(path, { stamp, etag });
  return etag;
}

/** Whether `If-None-Match` names `etag` (or is `*`); a weak validator matches too (RFC 9110). */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === "*") return true;
  return ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}
