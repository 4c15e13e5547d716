/**
 * The embedded store starts small (issue 14, src/store/pglite-setup.ts): PGlite runs with the
 * embedded settings, a new database (in memory or in a new data directory) starts from the
 * cached empty image once one was kept, and a cache that cannot be written or read only costs
 * speed.
 */
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openPglite } from "../src/store/pglite-executor.js";
import { openStore } from "../src/store/store.js";
import { openTestPglite } from "./support/pglite.js";

const saved = process.env.XDG_CACHE_HOME;
afterEach(() => {
  if (saved === undefined) delete process.env.XDG_CACHE_HOME;
  else process.env.XDG_CACHE_HOME = saved;
});

describe("embedded PGlite", () => {
  it("runs with the embedded settings, and with given ones", async () => {
    // From the cached image, as every in-memory start after the first (the tests below start
    // without one).
    const db = await openPglite();
    try {
      const [row] = await db.query<{ shared_buffers: string }>("SHOW shared_buffers");
      expect(row?.shared_buffers).toBe("16MB");
    } finally {
      await db.close();
    }
    const tuned = await openPglite({ settings: ["shared_buffers = 2MB"] });
    try {
      const [row] = await tuned.query<{ shared_buffers: string }>("SHOW shared_buffers");
      expect(row?.shared_buffers).toBe("2MB");
    } finally {
      await tuned.close();
    }
  }, 60_000);

  it("keeps an empty image on the first in-memory start and starts the next one from it", async () => {
    const cache = mkdtempSync(join(tmpdir(), "polar-cache-"));
    process.env.XDG_CACHE_HOME = cache;
    const first = await openStore({ embedded: "pglite" });
    const [settings] = await first.db.query<{ shared_buffers: string }>("SHOW shared_buffers");
    expect(settings?.shared_buffers).toBe("16MB");
    await first.applyBatch([
      { inserts: [{ predicate: "f", args: [{ type: "User", id: "ada" }] }] },
    ]);
    await first.close();
    const images = readdirSync(join(cache, "polar-sql"));
    expect(images).toHaveLength(1);
    expect(images[0]).toMatch(/^pglite-.+-empty\.tar$/);
    // The image is of a database before any store wrote to it: a new store starts empty.
    const second = await openStore({ embedded: "pglite" });
    try {
      expect(await second.readFacts({ predicate: "f", positions: new Map() })).toEqual([]);
      const [row] = await second.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM polar_meta WHERE key = 'token_secret'",
      );
      expect(row?.n).toBe(1);
    } finally {
      await second.close();
    }
  }, 60_000);

  it("starts a new data directory from the image, and opens one that holds a database as it is", async () => {
    // An image with a table of its own: a database made from it has the table, initdb's not.
    const root = mkdtempSync(join(tmpdir(), "polar-pglite-"));
    const imagePath = join(root, "marked.tar");
    const source = await openTestPglite();
    try {
      await source.exec("CREATE TABLE from_the_image (n int)");
      const image = await source.dumpDataDir("none");
      writeFileSync(imagePath, Buffer.from(await image.arrayBuffer()));
    } finally {
      await source.close();
    }
    const dataDir = join(root, "data");
    const marked = "SELECT to_regclass('from_the_image') IS NOT NULL AS marked";
    const first = await openPglite({ dataDir, imagePath });
    try {
      expect(await first.query(marked)).toEqual([{ marked: true }]);
      await first.query("INSERT INTO from_the_image VALUES (7)");
    } finally {
      await first.close();
    }
    // Loading the image over a database would fail (PGlite refuses it); the row is still there.
    const again = await openPglite({ dataDir, imagePath });
    try {
      expect(await again.query("SELECT n FROM from_the_image")).toEqual([{ n: 7 }]);
    } finally {
      await again.close();
    }
  }, 60_000);

  it("starts without a cache it cannot write", async () => {
    const blocked = join(mkdtempSync(join(tmpdir(), "polar-cache-")), "a-file");
    writeFileSync(blocked, "not a directory");
    process.env.XDG_CACHE_HOME = blocked;
    const store = await openStore({ embedded: "pglite" });
    try {
      expect(await store.dataVersion()).toBe(0);
    } finally {
      await store.close();
    }
    expect(existsSync(join(blocked, "polar-sql"))).toBe(false);
  }, 60_000);
});
