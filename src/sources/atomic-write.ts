import { realpath } from "node:fs/promises";
import path from "node:path";
import { modeIn, openDirChain, writeFileIn } from "./safe-fs.js";

/**
 * Writes `data` to the absolute path `target` so that readers (and a crash at any moment) see either
 * the old file or the new one whole: the directory is opened once without following a link at its
 * last component, and the temp file, fsync and rename (or link, when `exclusive`, which refuses an
 * existing target) all go through that descriptor (see `writeFileIn`). The directory is fsynced.
 */
export async function writeFileAtomic(target: string, data: string | Uint8Array, options: { exclusive?: boolean } = {}): Promise<void> {
  // The directory by its real path: the descriptor checks compare against it.
  const dir = await openDirChain(await realpath(path.dirname(path.resolve(target))), []);
  try {
    const name = path.basename(target);
    await writeFileIn(dir, name, data, { exclusive: options.exclusive ?? false, mode: (await modeIn(dir, name)) ?? 0o644 });
  } finally {
    await dir.close();
  }
}
