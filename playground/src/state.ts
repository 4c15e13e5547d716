/**
 * The page's state in the URL fragment: JSON, deflate-raw (CompressionStream), base64url, as
 * `#s=…`. A reload keeps it and a link opens it elsewhere.
 */
import type { PlaygroundState } from "./examples.js";

const KEYS = [
  "policy",
  "facts",
  "bindings",
  "schema",
  "actor",
  "action",
  "resource",
  "dialect",
] as const satisfies readonly (keyof PlaygroundState)[];

async function pipe(bytes: Uint8Array, stream: GenericTransformStream): Promise<Uint8Array> {
  const piped = new Blob([bytes as BlobPart]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(piped).arrayBuffer());
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** `s=…` for the fragment. */
export async function encodeState(state: PlaygroundState): Promise<string> {
  const json = JSON.stringify(Object.fromEntries(KEYS.map((key) => [key, state[key]])));
  const packed = await pipe(new TextEncoder().encode(json), new CompressionStream("deflate-raw"));
  return `s=${toBase64Url(packed)}`;
}

/**
 * The state in a fragment (with or without `#`), null when there is none; throws when the
 * fragment is there but cannot be read (a truncated link).
 */
export async function decodeState(
  fragment: string,
  defaults: PlaygroundState,
): Promise<PlaygroundState | null> {
  const text = fragment.replace(/^#/, "");
  if (!text.startsWith("s=")) return null;
  const bytes = await pipe(fromBase64Url(text.slice(2)), new DecompressionStream("deflate-raw"));
  const parsed: unknown = JSON.parse(new TextDecoder().decode(bytes));
  if (typeof parsed !== "object" || parsed === null) throw new Error("not an object");
  const record = parsed as Record<string, unknown>;
  const state: Record<string, string> = {};
  for (const key of KEYS) {
    const value = record[key];
    state[key] = typeof value === "string" ? value : defaults[key];
  }
  return state as unknown as PlaygroundState;
}
