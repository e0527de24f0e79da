import { createReadStream, fdatasyncSync, fstatSync, readSync, writeSync } from "node:fs";
import { z } from "zod";
import { mkdir, open, type FileHandle } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { syncDirectory } from "../storage/sync-directory.js";
import { createInterface } from "../deps/builtins.js";
import { parseStoredLine, parseStoredRecord, validateQuery, validateRecords } from "./schema.js";
import { selectRecords } from "./select.js";
import type { AuditQuery, AuditRecord, AuditSink } from "./types.js";
import { AuditError, ErrorCode } from "../errors/index.js";
import { FileSync } from "./file-sync.js";

/** Default of `JsonlAuditSinkOptions.outcomeSyncMs`. */
export const DEFAULT_OUTCOME_SYNC_MS = 50;

/** Calls `onLine` for every line of the file, streaming; a missing file has no lines. */
async function forEachLine(path: string, onLine: (line: string) => void): Promise<void> {
  const stream = createReadStream(path, { encoding: "utf8" });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  try {
    for await (const line of lines) onLine(line);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  } finally {
    lines.close();
    stream.destroy();
  }
}

/** Whether the file ends with "\n" now (an empty file does). */
function endsWithNewline(fd: number): boolean {
  const { size } = fstatSync(fd);
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  return readSync(fd, last, 0, 1, size - 1) === 1 && last[0] === 0x0a;
}


/**
 * The line a sink appends when an `fdatasync` failed: the ids of the records appended since the
 * last good sync, which nothing can prove on disk. It is not a record (readers skip it); a sink
 * opening the file later forgets those ids, so a record written again under one of them (a re-run
 * after the crash) is appended and synced again instead of being taken as already written.
 */
const unsyncedMarkerSchema = z.lazy(() => z.object({ unsynced: z.object({ ids: z.array(z.string()), error: z.string(), at: z.number() }) }).strict());

/** The ids a marker line names as not proven on disk; undefined for any other line. */
function unsyncedIds(line: string): string[] | undefined {
  return line.startsWith('{"unsynced"') ? parseStoredLine(line, unsyncedMarkerSchema)?.unsynced.ids : undefined;
}

/** Options of `JsonlAuditSink.open`. */
export interface JsonlAuditSinkOptions {
  /**
   * How long a batch of outcome records only (calls that already ended) may wait for its
   * `fdatasync`: it is synced with the next batch, within this many milliseconds, or at `close`,
   * whichever comes first. Default 50. `0` syncs every batch before `write` resolves.
   */
  outcomeSyncMs?: number;
}

/** `outcomeSyncMs`: whole milliseconds, 0 to 60,000 (the object form of `openAuditSink` checks it with this too). */
export const outcomeSyncMsSchema = z.lazy(() => z.number().int().min(0).max(60_000));

const jsonlOptionsSchema = z.lazy(() => z.object({ outcomeSyncMs: outcomeSyncMsSchema.default(DEFAULT_OUTCOME_SYNC_MS) }).strict());

/** Every record of these events is on disk (fdatasync) before `write` resolves: a call may start on them. */
function mustSyncNow(records: readonly AuditRecord[]): boolean {
  return records.some((record) => record.event !== "outcome");
}

/**
 * Append-only JSON Lines audit log: one record per line, deduplicated by id across restarts. A
 * torn last line left by a crash is skipped, and the next append starts on a fresh line.
 *
 * Durability: every batch is written to the file (one `write(2)`) before `write` resolves, so a
 * killed process loses no record. A batch holding any record that a call may start on (decision,
 * human answer, killswitch, policy) is also `fdatasync`ed before `write` resolves — on the main
 * thread, as a better-sqlite3 commit is, and covering every earlier append too; concurrent writers
 * (threads of one process) share that sync (group commit: one `fdatasync` for every writer that
 * appended before it ran). A batch of
 * outcome records only is synced with the next batch, within `outcomeSyncMs`, or at `close`: a
 * power loss can lose the outcomes of the last `outcomeSyncMs`, leaving what a power loss while
 * those calls ran would have left (their decision on disk, no outcome), never a call without its
 * decision. After a failed sync the sink refuses every later write (the kernel may have dropped the
 * unsynced pages; nothing can prove them on disk), and appends a marker naming the records since the
 * last good sync, which a sink opening the file later does not take as written.
 */
export class JsonlAuditSink implements AuditSink {
  readonly path: string;
  readonly #handle: FileHandle;
  readonly #ids: Set<string>;
  readonly #sync: FileSync;
  readonly #outcomeSyncMs: number;
  /** True when the file may not end with "\n" (torn line, failed write). */
  #needsNewline: boolean;
  /** Ids appended since the last good sync. */
  #unsynced: string[] = [];
  /** The marker line (`#markUnsynced`) while its append has not succeeded. */
  #pendingMarker: string | undefined;
  #closed = false;

  private constructor(path: string, handle: FileHandle, ids: Set<string>, needsNewline: boolean, outcomeSyncMs: number) {
    this.path = path;
    this.#handle = handle;
    this.#ids = ids;
    this.#needsNewline = needsNewline;
    this.#outcomeSyncMs = outcomeSyncMs;
    this.#sync = new FileSync(() => {
      try {
        fdatasyncSync(handle.fd);
      } catch (error) {
        this.#markUnsynced(error);
        throw error;
      }
      this.#unsynced = [];
    });
  }

  static async open(path: string, options: JsonlAuditSinkOptions = {}): Promise<JsonlAuditSink> {
    if (typeof path !== "string" || path.length === 0) throw new AuditError(ErrorCode.AUDIT_CONFIG, "JSONL audit sink refused: path must be a non-empty string");
    const parsedOptions = jsonlOptionsSchema.safeParse(options ?? {});
    if (!parsedOptions.success) throw new AuditError(ErrorCode.AUDIT_CONFIG, `JSONL audit sink refused: ${z.prettifyError(parsedOptions.error)}`);
    const absolute = resolve(path);
    await mkdir(dirname(absolute), { recursive: true });
    const handle = await open(absolute, "a+");
    try {
      const ids = new Set<string>();
      await forEachLine(absolute, (line) => {
        const record = line.length > 0 ? parseStoredRecord(line) : undefined;
        if (record) ids.add(record.id);
        // Records whose sync failed are not taken as written: appended again if written again.
        else for (const id of unsyncedIds(line) ?? []) ids.delete(id);
      });
      const fresh = (await handle.stat()).size === 0;
      if (fresh) await syncDirectory(dirname(absolute));
      return new JsonlAuditSink(absolute, handle, ids, !endsWithNewline(handle.fd), parsedOptions.data.outcomeSyncMs);
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async write(records: readonly AuditRecord[]): Promise<void> {
    const valid = validateRecords(records);
    if (this.#closed) throw new AuditError(ErrorCode.AUDIT_WRITE, `audit write refused: ${this.path} is closed`);
    const failed = this.#sync.failure;
    if (failed) {
      this.#appendMarker();
      throw new AuditError(ErrorCode.AUDIT_WRITE, `audit write refused: an earlier fdatasync of ${this.path} failed (${failed.message}); records since the last good sync may not be on disk`, { cause: failed });
    }
    const appended = this.#append(valid);
    const now = mustSyncNow(valid);
    // A batch of outcomes only waits for the next sync; anything else (and a duplicate of a record
    // still waiting for its sync) is on disk before `write` resolves: by the sync it shares with
    // every writer that appended before that sync ran (group commit, `FileSync.syncShared`).
    if (appended && this.#outcomeSyncMs > 0 && !now) this.#sync.later(this.#outcomeSyncMs);
    else if (appended || now) {
      try {
        await this.#sync.syncShared();
      } catch (error) {
        throw new AuditError(ErrorCode.AUDIT_WRITE, `audit write to ${this.path} failed: fdatasync: ${(error as Error).message}`, { cause: error });
      }
    }
  }

  async query(query?: AuditQuery): Promise<AuditRecord[]> {
    const q = validateQuery(query);
    if (this.#closed) throw new AuditError(ErrorCode.AUDIT_WRITE, `audit query refused: ${this.path} is closed`);
    const seen = new Set<string>();
    const matching: AuditRecord[] = [];
    await forEachLine(this.path, (line) => {
      const record = line.length > 0 ? parseStoredRecord(line) : undefined;
      // Another process may have appended the same id; the first line wins.
      if (!record || seen.has(record.id)) return;
      seen.add(record.id);
      if (q.threadId !== undefined && record.threadId !== q.threadId) return;
      if (q.after !== undefined && record.at <= q.after) return;
      matching.push(record);
    });
    return selectRecords(matching, q);
  }

  /**
   * Syncs what is written (outcomes waiting for their sync included), then closes the file. Rejects
   * when a sync failed, here or earlier (a deferred one no write has reported yet): records since
   * the last good sync may not be on disk.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      const failed = this.#sync.failure;
      if (failed) {
        this.#appendMarker();
        throw new AuditError(ErrorCode.AUDIT_WRITE, `audit sink ${this.path} closed after a failed fdatasync (${failed.message}); records since the last good sync may not be on disk`, { cause: failed });
      }
      this.#syncNow();
    } finally {
      await this.#handle.close();
    }
  }

  #syncNow(): void {
    try {
      this.#sync.syncNow();
    } catch (error) {
      throw new AuditError(ErrorCode.AUDIT_WRITE, `audit write to ${this.path} failed: fdatasync: ${(error as Error).message}`, { cause: error });
    }
  }

  /** Appends the records not yet in the file with one `write(2)`; false when all were there. */
  #append(records: readonly AuditRecord[]): boolean {
    const batchIds = new Set<string>();
    // Asked again just before the append: the tail read at `open` can catch another process's
    // append half-copied (the size grows as its pages are copied), and a newline added for it would
    // leave an empty line once that append completes. A torn line left by a crash (or by a failed
    // write of this sink) is still torn now.
    let text = this.#lineStart();
    for (const record of records) {
      if (this.#ids.has(record.id) || batchIds.has(record.id)) continue;
      batchIds.add(record.id);
      text += `${JSON.stringify(record)}\n`;
    }
    if (batchIds.size === 0) return false;
    try {
      // Synchronous: the append is in the kernel before `write` yields, so a killed process loses
      // none, and appends from this process never interleave (one thread writes).
      this.#writeAll(text);
    } catch (error) {
      // A partial append may have left a torn line: start the next one on a fresh line.
      this.#needsNewline = true;
      throw new AuditError(ErrorCode.AUDIT_WRITE, `audit write to ${this.path} failed: ${(error as Error).message}`, { cause: error });
    }
    this.#needsNewline = false;
    for (const id of batchIds) {
      this.#ids.add(id);
      this.#unsynced.push(id);
    }
    this.#sync.written();
    return true;
  }

  /** "\n" when the file may end inside a torn line (a crash, a failed write of this sink), else "". */
  #lineStart(): string {
    return this.#needsNewline && !endsWithNewline(this.#handle.fd) ? "\n" : "";
  }

  /** Writes `text` whole (`write(2)` until every byte is in), or throws. */
  #writeAll(text: string): void {
    const bytes = Buffer.from(text, "utf8");
    for (let offset = 0; offset < bytes.length; ) offset += writeSync(this.#handle.fd, bytes, offset, bytes.length - offset);
  }

  /**
   * After a failed sync: one marker line naming the ids appended since the last good sync (see
   * `unsyncedIds`), so a sink that opens this file later does not take them as written. If its
   * append fails too, it is tried again on every later (refused) `write` and at `close`, until it
   * is in the file; the sink is refused all the same.
   */
  #markUnsynced(error: unknown): void {
    if (this.#unsynced.length === 0) return;
    const marker = { unsynced: { ids: this.#unsynced, error: error instanceof Error ? error.message : String(error), at: Date.now() } };
    this.#pendingMarker = `${JSON.stringify(marker)}\n`;
    this.#appendMarker();
  }

  /** Appends the marker that is not in the file yet, if any; on failure it stays pending. */
  #appendMarker(): void {
    const marker = this.#pendingMarker;
    if (marker === undefined) return;
    try {
      // A torn line (a failed append, a failed marker) is ended first, as `#append` does.
      this.#writeAll(`${this.#lineStart()}${marker}`);
      this.#needsNewline = false;
      this.#pendingMarker = undefined;
    } catch {
      this.#needsNewline = true;
    }
  }
}
