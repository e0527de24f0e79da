import { randomBytes } from "node:crypto";
import { link, open, rename, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { syncDirectory } from "../storage/sync-directory.js";

/** Temp files are hidden siblings of the target so the rename stays on one filesystem. */
export function isTempFileName(name: string): boolean {
  return /^\..+\.[0-9a-f]{12}\.tmp$/.test(name);
}

async function modeOf(target: string): Promise<number | undefined> {
  try {
    return (await stat(target)).mode & 0o7777;
  } catch {
    return undefined;
  }
}

/**
 * Writes `data` to `target` so that readers (and a crash at any moment) see either the old file or the
 * new one whole: temp file in the same directory, fsync, then rename (or link, when `exclusive`, which
 * refuses an existing target). The directory is fsynced so the rename itself survives a power loss.
 */
export async function writeFileAtomic(target: string, data: string | Uint8Array, options: { exclusive?: boolean } = {}): Promise<void> {
  const dir = path.dirname(target);
  const temp = path.join(dir, `.${path.basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
  const mode = (await modeOf(target)) ?? 0o644;
  const handle = await open(temp, "wx", mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    if (options.exclusive) {
      await link(temp, target);
      await unlink(temp);
    } else {
      await rename(temp, target);
    }
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await syncDirectory(dir);
}

