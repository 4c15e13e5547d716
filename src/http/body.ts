/**
 * Request bodies: size limit, content type, UTF-8 and JSON decoding. Every refusal is an
 * `ApiError` with a 4xx status, so a hostile body never reaches the service or causes a 500.
 */
import { ApiError } from "../api/service.js";

/** The official client refuses bodies of 10 MiB or more; by default we accept anything smaller. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

/** Deeper JSON is refused before parsing so no later recursive walk can overflow the stack. */
export const MAX_JSON_DEPTH = 512;

export type Body = { readonly kind: "empty" } | { readonly kind: "json"; readonly value: unknown };

/**
 * Reads and decodes a request body; whitespace only counts as empty.
 *
 *   const body = await readJsonBody(new Request(url, { method: "POST", body: "[1]" }));
 *   // { kind: "json", value: [1] }
 */
export async function readJsonBody(
  request: Request,
  maxBytes: number = MAX_BODY_BYTES,
): Promise<Body> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) >= maxBytes) throw tooLarge(maxBytes);
  const bytes = await readBytes(request, maxBytes);
  if (bytes === null) return { kind: "empty" };
  checkContentType(request.headers.get("content-type"));
  const text = decodeUtf8(bytes);
  if (text.trim() === "") return { kind: "empty" };
  checkDepth(text);
  try {
    return { kind: "json", value: JSON.parse(text) };
  } catch (cause) {
    throw new ApiError(
      400,
      `request body is not valid JSON: ${lowerFirst((cause as Error).message)}`,
    );
  }
}

async function readBytes(request: Request, maxBytes: number): Promise<Uint8Array | null> {
  // With a declared length (already checked against the limit) the whole body can be read at
  // once; @hono/node-server then reads the socket directly, without a web stream.
  if (request.headers.has("content-length")) {
    const bytes = new Uint8Array(await request.arrayBuffer());
    if (bytes.byteLength >= maxBytes) throw tooLarge(maxBytes);
    return bytes.byteLength === 0 ? null : bytes;
  }
  if (request.body === null) return null;
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total >= maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return total === 0 ? null : Buffer.concat(chunks, total);
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new ApiError(400, "request body is not valid UTF-8");
  }
}

/** A body must be JSON; a missing Content-Type is tolerated, a different one is not. */
function checkContentType(header: string | null): void {
  if (header === null) return;
  const media = header.split(";")[0]!.trim().toLowerCase();
  if (media === "application/json" || /^[a-z]+\/[a-z0-9.+-]*\+json$/.test(media)) return;
  throw new ApiError(415, `unsupported content type \`${media}\`; send \`application/json\``);
}

/** Counts bracket depth outside strings; linear, no recursion. */
function checkDepth(text: string): void {
  // The depth is at most the number of brackets that open: most bodies have a handful.
  if (openers(text, "{") + openers(text, "[") <= MAX_JSON_DEPTH) return;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++;
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) {
        throw new ApiError(400, `request body is nested deeper than ${MAX_JSON_DEPTH} levels`);
      }
    } else if (ch === 0x5d || ch === 0x7d) depth--;
  }
}

/** How many times `char` occurs in `text`, counted up to one past `MAX_JSON_DEPTH`. */
function openers(text: string, char: string): number {
  let count = 0;
  let at = text.indexOf(char);
  while (at >= 0 && count <= MAX_JSON_DEPTH) {
    count++;
    at = text.indexOf(char, at + 1);
  }
  return count;
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError(
    413,
    `request body must be smaller than ${maxBytes} bytes (the \`bodyBytes\` limit; raise it with \`--max-body-bytes\` or the \`limits.bodyBytes\` option)`,
  );
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
