import { createReadStream } from "node:fs";
import { mkdir, open, type FileHandle } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { syncDirectory } from "../storage/sync-directory.js";
import { createInterface } from "node:readline";
import { parseStoredRecord, validateQuery, validateRecords } from "./schema.js";
import { selectRecords } from "./select.js";
import type { AuditQuery, AuditRecord, AuditSink } from "./types.js";
import { AuditError, ErrorCode } from "../errors/index.js";

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

async function endsWithNewline(handle: FileHandle): Promise<boolean> {
  const { size } = await handle.stat();
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  return last[0] === 0x0a;
}


/**
 * Append-only JSON Lines audit log: one record per line, fsynced per write batch, deduplicated
 * by id across restarts. A torn last line left by a crash is skipped, and the next append
 * starts on a fresh line. Writes from this process are serialised.
 */
export class JsonlAuditSink implements AuditSink {
  readonly path: string;
  readonly #handle: FileHandle;
  readonly #ids: Set<string>;
  /** True when the file may not end with "\n" (torn line, failed write). */
  #needsNewline: boolean;
  #tail: Promise<unknown> = Promise.resolve();
  #closed = false;

  private constructor(path: string, handle: FileHandle, ids: Set<string>, needsNewline: boolean) {
    this.path = path;
    this.#handle = handle;
    this.#ids = ids;
    this.#needsNewline = needsNewline;
  }

  static async open(path: string): Promise<JsonlAuditSink> {
    if (typeof path !== "string" || path.length === 0) throw new AuditError(ErrorCode.AUDIT_CONFIG, "JSONL audit sink refused: path must be a non-empty string");
    const absolute = resolve(path);
    await mkdir(dirname(absolute), { recursive: true });
    const handle = await open(absolute, "a+");
    try {
      const ids = new Set<string>();
      await forEachLine(absolute, (line) => {
        const record = line.length > 0 ? parseStoredRecord(line) : undefined;
        if (record) ids.add(record.id);
      });
      const fresh = (await handle.stat()).size === 0;
      if (fresh) await syncDirectory(dirname(absolute));
      return new JsonlAuditSink(absolute, handle, ids, !(await endsWithNewline(handle)));
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async write(records: readonly AuditRecord[]): Promise<void> {
    const valid = validateRecords(records);
    return this.#serialised(() => this.#append(valid));
  }

  async query(query?: AuditQuery): Promise<AuditRecord[]> {
    const q = validateQuery(query);
    return this.#serialised(async () => {
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
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#tail;
    await this.#handle.close();
  }

  #serialised<T>(task: () => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new Error(`audit sink refused: ${this.path} is closed`));
    const run = this.#tail.then(task);
    this.#tail = run.catch(() => undefined);
    return run;
  }

  async #append(records: readonly AuditRecord[]): Promise<void> {
    const batchIds = new Set<string>();
    const fresh = records.filter((record) => {
      if (this.#ids.has(record.id) || batchIds.has(record.id)) return false;
      batchIds.add(record.id);
      return true;
    });
    if (fresh.length === 0) return;
    const text = (this.#needsNewline ? "\n" : "") + fresh.map((record) => JSON.stringify(record)).join("\n") + "\n";
    try {
      // One write of one buffer (appendFile's generic path costs more CPU per append), then the sync.
      const bytes = Buffer.from(text, "utf8");
      for (let offset = 0; offset < bytes.length; ) {
        const { bytesWritten } = await this.#handle.write(bytes, offset, bytes.length - offset);
        offset += bytesWritten;
      }
      await this.#handle.datasync();
    } catch (error) {
      // A partial append may have left a torn line: start the next one on a fresh line.
      this.#needsNewline = true;
      throw new AuditError(ErrorCode.AUDIT_WRITE, `audit write to ${this.path} failed: ${(error as Error).message}`, { cause: error });
    }
    this.#needsNewline = false;
    for (const id of batchIds) this.#ids.add(id);
  }
}
