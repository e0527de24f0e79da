import { randomBytes } from "node:crypto";
import { constants, existsSync, type Stats } from "node:fs";
import { link, lstat, mkdir, open, readdir, readlink, rename, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_DIRECTORY, O_NONBLOCK } = constants;

/**
 * On Linux `/proc/self/fd/N/name` resolves `name` inside the directory descriptor N itself (the
 * descriptor's magic link is followed, not the directory's path), which is what `openat(2)` does and
 * what Node lacks. Every open below goes through the verified parent's descriptor this way, with
 * `O_NOFOLLOW` on the last component, so a path swapped for a symlink between the check and the open
 * is refused instead of followed. Elsewhere the paths are used and every descriptor is checked after
 * the open (device + inode against an `lstat` of the expected path): narrower, not airtight.
 */
export const DESCRIPTOR_PATHS = process.platform === "linux" && existsSync("/proc/self/fd");

/** Why a descriptor walk refused: a link or a non-directory where a directory was checked, or a swap. */
export class UnsafePathError extends Error {
  constructor(
    message: string,
    readonly reason: "link" | "swapped" | "not-a-file" | "hard-link" | "moved",
  ) {
    super(message);
    this.name = "UnsafePathError";
  }
}

function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** An open directory that was reached without following any link, with the path it must still have. */
export class VerifiedDir {
  constructor(
    readonly handle: FileHandle,
    /** Absolute path the directory had when it was opened (under the real base). */
    readonly expected: string,
  ) {}

  /** A path naming `name` inside this very directory (through its descriptor on Linux). */
  at(name: string): string {
    return DESCRIPTOR_PATHS ? `/proc/self/fd/${this.handle.fd}/${name}` : path.join(this.expected, name);
  }

  /**
   * Throws when the directory is no longer at its expected path (moved, or the path swapped).
   * `reason` names the refusal ("moved" after a write went through the descriptor: it was rolled back).
   */
  async verify(reason: "swapped" | "moved" = "swapped"): Promise<void> {
    if (DESCRIPTOR_PATHS) {
      const now = await readlink(`/proc/self/fd/${this.handle.fd}`);
      if (now !== this.expected) throw new UnsafePathError(`directory ${this.expected} moved to ${now}`, reason);
      return;
    }
    await sameObject(this.handle, this.expected, `directory ${this.expected} was swapped`, reason);
  }

  async close(): Promise<void> {
    await this.handle.close().catch(() => undefined);
  }
}

async function sameObject(handle: FileHandle, expected: string, message: string, reason: "swapped" | "moved" = "swapped"): Promise<void> {
  let byPath: Stats;
  try {
    byPath = await lstat(expected);
  } catch {
    throw new UnsafePathError(message, reason);
  }
  const byFd = await handle.stat();
  if (byPath.isSymbolicLink() || byPath.dev !== byFd.dev || byPath.ino !== byFd.ino) throw new UnsafePathError(message, reason);
}

/**
 * Whether every name of a file with several links is in the directory itself (a save's backup link,
 * or a copy made with `ln` beside it): then none of them leads outside. A link elsewhere cannot be
 * found from here, so any link count not accounted for in the directory is refused.
 */
async function linksAllHere(dir: VerifiedDir, handle: FileHandle, stats: Stats): Promise<boolean> {
  let here = 0;
  for (const entry of await readdir(dir.at(""))) {
    const other = await lstat(dir.at(entry)).catch(() => undefined);
    if (other !== undefined && other.ino === stats.ino && other.dev === stats.dev) here += 1;
  }
  // A save's backup link may have gone (or the name been renamed over) while the directory was read.
  const now = await handle.stat();
  return here >= Math.min(stats.nlink, now.nlink);
}

/** What a file open accepts beyond a regular file with one link. */
interface OpenFileOptions {
  /**
   * Accept a file with more than one hard link (st_nlink > 1) although another of its names may be
   * outside the root. Default false: refused unless all its names are in its own directory.
   */
  allowHardLinks?: boolean | undefined;
}

async function openDirectoryAt(parent: VerifiedDir | undefined, at: string, expected: string): Promise<VerifiedDir> {
  let handle: FileHandle;
  try {
    handle = await open(parent ? parent.at(at) : at, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (error) {
    const code = errno(error);
    if (code === "ELOOP" || code === "ENOTDIR") throw new UnsafePathError(`${expected} is a link or not a directory`, "link");
    throw error;
  }
  const dir = new VerifiedDir(handle, expected);
  try {
    await dir.verify();
  } catch (error) {
    await dir.close();
    throw error;
  }
  return dir;
}

/**
 * Opens `base` and then each of `segments` as directories, each through its verified parent, never
 * following a link. With `create`, missing directories are made (inside the verified parent).
 * ENOENT is passed on unchanged when a directory is missing and `create` is off.
 */
export async function openDirChain(base: string, segments: readonly string[], options: { create?: boolean } = {}): Promise<VerifiedDir> {
  let dir = await openDirectoryAt(undefined, base, base);
  try {
    for (const segment of segments) {
      const expected = path.join(dir.expected, segment);
      let next: VerifiedDir;
      try {
        next = await openDirectoryAt(dir, segment, expected);
      } catch (error) {
        if (errno(error) !== "ENOENT" || !options.create) throw error;
        await mkdir(dir.at(segment)).catch((e: unknown) => {
          if (errno(e) !== "EEXIST") throw e;
        });
        next = await openDirectoryAt(dir, segment, expected);
      }
      await dir.close();
      dir = next;
    }
    return dir;
  } catch (error) {
    await dir.close();
    throw error;
  }
}

/**
 * Opens the regular file `name` in a verified directory for reading, without following a link and
 * without blocking on a FIFO, and checks that the descriptor is a regular file at the expected path.
 */
export async function openFileIn(dir: VerifiedDir, name: string, options: OpenFileOptions = {}): Promise<{ handle: FileHandle; stats: Stats }> {
  let handle: FileHandle;
  try {
    handle = await open(dir.at(name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    if (errno(error) === "ELOOP") throw new UnsafePathError(`${path.join(dir.expected, name)} is a symbolic link`, "link");
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new UnsafePathError(`${path.join(dir.expected, name)} is not a regular file`, "not-a-file");
    if (DESCRIPTOR_PATHS) {
      const now = await readlink(`/proc/self/fd/${handle.fd}`);
      if (now !== path.join(dir.expected, name)) throw new UnsafePathError(`${path.join(dir.expected, name)} was swapped`, "swapped");
    } else {
      await sameObject(handle, path.join(dir.expected, name), `${path.join(dir.expected, name)} was swapped`);
    }
    // A hard link inside the root to a file outside it is the outside file: refused (fstat's link count).
    if (stats.nlink > 1 && options.allowHardLinks !== true && !(await linksAllHere(dir, handle, stats))) {
      throw new UnsafePathError(`${path.join(dir.expected, name)} has ${stats.nlink} hard links`, "hard-link");
    }
    return { handle, stats };
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

/** Reads a regular file of a verified directory through its descriptor (undefined when it does not exist). */
export async function readFileIn(
  dir: VerifiedDir,
  name: string,
  maxBytes: number,
  options: OpenFileOptions = {},
): Promise<{ data: Buffer; stats: Stats } | { tooLarge: number } | undefined> {
  let opened: { handle: FileHandle; stats: Stats };
  try {
    opened = await openFileIn(dir, name, options);
  } catch (error) {
    if (errno(error) === "ENOENT") return undefined;
    throw error;
  }
  try {
    if (opened.stats.size > maxBytes) return { tooLarge: opened.stats.size };
    const data = await opened.handle.readFile();
    if (data.length > maxBytes) return { tooLarge: data.length }; // it grew after the fstat
    return { data, stats: opened.stats };
  } finally {
    await opened.handle.close().catch(() => undefined);
  }
}

// Temp files: short names (so a target name of up to 255 bytes still fits beside them) that carry the
// writer's pid, so a later open can tell a killed writer's leftovers from a live writer's temp file.
const TEMP_NAME = /^\.gg-([0-9a-z]{1,8})-[0-9a-f]{8}\.tmp$/;
const inFlight = new Set<string>();

/** Whether a name is one of FileSource's temp files (`.gg-<pid36>-<8 hex>.tmp`). */
export function isTempFileName(name: string): boolean {
  return TEMP_NAME.test(name);
}

function tempName(): string {
  return `.gg-${process.pid.toString(36)}-${randomBytes(4).toString("hex")}.tmp`;
}

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errno(error) === "EPERM";
  }
}

/**
 * Removes temp files that a killed save left in a verified directory: ours that are not in flight,
 * and those of processes that no longer exist. Returns how many were removed.
 */
export async function removeStaleTempFiles(dir: VerifiedDir): Promise<number> {
  let removed = 0;
  for (const name of await readdir(dir.at(""))) {
    const match = TEMP_NAME.exec(name);
    if (!match?.[1]) continue;
    const pid = Number.parseInt(match[1], 36);
    const ours = pid === process.pid;
    if (ours ? inFlight.has(path.join(dir.expected, name)) : alive(pid)) continue;
    await unlink(dir.at(name)).then(
      () => (removed += 1),
      () => undefined,
    );
  }
  return removed;
}

/**
 * Writes `data` as `name` in a verified directory so that readers, and a crash at any moment, see the
 * old file or the new one whole: a temp file created in the directory (`O_CREAT|O_EXCL|O_NOFOLLOW`),
 * written and fsynced through its descriptor; the directory is verified to be where it was checked;
 * then renamed over the target (or linked, with `exclusive`, which refuses an existing target) through
 * the directory's descriptor. Returns the stats of what was written, taken from the temp descriptor.
 *
 * A directory moved out of the root between the check and the rename takes the write with it (no
 * system call renames "only if the directory is still there"). So the old target is kept as a backup
 * link (a temp name, in the same directory) across the rename, the directory is verified again after
 * it, and when it moved the old file is put back (or the new one removed) through the same descriptor
 * and the write is refused (`UnsafePathError` "moved").
 */
export async function writeFileIn(
  dir: VerifiedDir,
  name: string,
  data: string | Uint8Array,
  options: { exclusive?: boolean; mode?: number } = {},
): Promise<Stats> {
  const temp = tempName();
  const key = path.join(dir.expected, temp);
  inFlight.add(key);
  try {
    const handle = await open(dir.at(temp), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, options.mode ?? 0o644);
    let stats: Stats;
    try {
      await handle.writeFile(data);
      await handle.sync();
      stats = await handle.stat();
    } finally {
      await handle.close();
    }
    let backup: string | undefined;
    try {
      await dir.verify();
      if (options.exclusive) {
        await link(dir.at(temp), dir.at(name));
        await unlink(dir.at(temp));
      } else {
        backup = await backupLink(dir, name);
        await rename(dir.at(temp), dir.at(name));
      }
    } catch (error) {
      await unlink(dir.at(temp)).catch(() => undefined);
      if (backup !== undefined) await unlink(dir.at(backup)).catch(() => undefined);
      throw error;
    }
    try {
      await dir.verify("moved");
    } catch (error) {
      // Moved out between the check and the rename: what was there before comes back, unless someone
      // wrote the name again since (then theirs stays) — by a rename, or in place into the file this
      // write put there (then it no longer holds exactly this write's bytes; size and modification
      // time cannot tell: the clock behind mtime ticks several milliseconds apart). rename() between two
      // links of one file does nothing, so the backup is unlinked after it either way.
      if (await stillWritten(dir, name, stats, data)) {
        await (backup !== undefined ? rename(dir.at(backup), dir.at(name)) : unlink(dir.at(name))).catch(() => undefined);
      }
      if (backup !== undefined) await unlink(dir.at(backup)).catch(() => undefined);
      throw error;
    } finally {
      if (backup !== undefined) inFlight.delete(path.join(dir.expected, backup));
    }
    if (backup !== undefined) await unlink(dir.at(backup)).catch(() => undefined);
    await dir.handle.sync().catch(() => undefined);
    return stats;
  } finally {
    inFlight.delete(key);
  }
}

/**
 * Whether `name` in the directory is still the file a write made: the same inode (not followed
 * through a link), holding exactly the bytes written. Read through the directory's descriptor, which
 * still reaches it after the directory moved.
 */
async function stillWritten(dir: VerifiedDir, name: string, stats: Stats, data: string | Uint8Array): Promise<boolean> {
  let handle: FileHandle;
  try {
    handle = await open(dir.at(name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch {
    return false;
  }
  try {
    const now = await handle.stat();
    if (!now.isFile() || now.ino !== stats.ino || now.dev !== stats.dev || now.size !== stats.size || now.mtimeMs !== stats.mtimeMs) return false;
    return Buffer.compare(await handle.readFile(), typeof data === "string" ? Buffer.from(data) : data) === 0;
  } catch {
    return false;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** Links the current `name` (if any) to a fresh temp name in the same directory; undefined when there is none. */
async function backupLink(dir: VerifiedDir, name: string): Promise<string | undefined> {
  const backup = tempName();
  inFlight.add(path.join(dir.expected, backup));
  try {
    await link(dir.at(name), dir.at(backup)); // link(2) does not follow a link at `name`
    return backup;
  } catch (error) {
    inFlight.delete(path.join(dir.expected, backup));
    if (errno(error) === "ENOENT") return undefined;
    throw error;
  }
}

/** The permission bits of `name` in a verified directory, when it is a regular file. */
export async function modeIn(dir: VerifiedDir, name: string): Promise<number | undefined> {
  try {
    const { handle, stats } = await openFileIn(dir, name, { allowHardLinks: true });
    await handle.close();
    return stats.mode & 0o7777;
  } catch {
    return undefined;
  }
}

/**
 * Unlinks `name` in a verified directory (unlink never follows a link: a swapped-in link is removed,
 * not its target). As with a write, a directory moved out of the root meanwhile gets the file back.
 */
export async function unlinkIn(dir: VerifiedDir, name: string): Promise<void> {
  await dir.verify();
  const backup = await backupLink(dir, name);
  try {
    await unlink(dir.at(name));
    try {
      await dir.verify("moved");
    } catch (error) {
      // The file comes back (link(2) refuses to replace a name someone made again meanwhile).
      if (backup !== undefined) await link(dir.at(backup), dir.at(name)).catch(() => undefined);
      throw error;
    }
  } finally {
    if (backup !== undefined) {
      await unlink(dir.at(backup)).catch(() => undefined);
      inFlight.delete(path.join(dir.expected, backup));
    }
  }
}
