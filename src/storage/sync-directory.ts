import { open } from "node:fs/promises";

/**
 * Makes a new or renamed directory entry durable (fsync of the directory). Best effort: some
 * platforms and filesystems refuse fsync on a directory; the file data itself is synced by the caller.
 */
export async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // unsupported here (e.g. Windows); nothing more can be done
  }
}
