/**
 * The folder forest: each organization owns a few top folders and a tree below them, at most
 * `MAX_DEPTH` levels deep. Sizes are skewed (1% of organizations are large) and the shape mixes
 * long chains with bushy levels, so the sample finds both shallow and deep folders.
 *
 *   const tree = folderTree(seededRandom(42), 10_000, 200_000);
 *   tree.parent[i] // parent folder id of folder `i + 1`, or 0 for a top folder
 */
import { randomInt } from "./config.js";

export const MAX_DEPTH = 8;

export interface FolderTree {
  /** Folder ids are 1..n; index i describes folder i + 1. */
  readonly organization: Int32Array;
  /** 0 for top folders (they carry the organization), else the parent's id. */
  readonly parent: Int32Array;
  /** 1 for top folders. */
  readonly depth: Int32Array;
}

export function folderTree(
  random: () => number,
  organizations: number,
  folders: number,
): FolderTree {
  const sizes = organizationSizes(random, organizations, folders);
  const organization = new Int32Array(folders);
  const parent = new Int32Array(folders);
  const depth = new Int32Array(folders);
  let first = 0;
  sizes.forEach((size, index) => {
    const roots = size >= 100 ? 3 : size >= 10 ? 2 : 1;
    for (let k = 0; k < size; k++) {
      const at = first + k;
      organization[at] = index + 1;
      if (k < roots) {
        depth[at] = 1;
        continue;
      }
      // Half the time extend the newest folder (long chains), else attach anywhere earlier.
      let chosen = random() < 0.55 ? at - 1 : first + randomInt(random, k);
      while (depth[chosen]! >= MAX_DEPTH) chosen = parent[chosen]! - 1;
      parent[at] = chosen + 1;
      depth[at] = depth[chosen]! + 1;
    }
    first += size;
  });
  return { organization, parent, depth };
}

/** Folder counts per organization, summing to `folders`; every organization gets at least one. */
function organizationSizes(random: () => number, organizations: number, folders: number): number[] {
  const weights = Array.from({ length: organizations }, () =>
    random() < 0.01 ? 20 + random() * 40 : 0.3 + random() * 1.4,
  );
  const total = weights.reduce((sum, w) => sum + w, 0);
  const sizes = weights.map((w) => Math.max(1, Math.floor((w / total) * folders)));
  let rest = folders - sizes.reduce((sum, n) => sum + n, 0);
  for (let i = 0; rest !== 0; i = (i + 1) % organizations) {
    if (rest > 0) {
      sizes[i]!++;
      rest--;
    } else if (sizes[i]! > 1) {
      sizes[i]!--;
      rest++;
    }
  }
  return sizes;
}
