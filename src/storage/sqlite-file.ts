import type Database from "better-sqlite3";

/** How long a statement waits for another process's lock on the same SQLite file before SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000;
/** Pause between tries of a journal-mode switch SQLite refused without waiting. */
const WAL_RETRY_MS = 10;

/**
 * Settings every SQLite file the package opens gets, in this order: the busy timeout first (several
 * processes share the file — a worker and a recovering one, the CLI and a server), then, with `wal`,
 * write-ahead logging, then, with `synced`, `synchronous = FULL`: each commit is synced before it
 * returns, so what the guard promises of a committed record (an execution claim, an audit record)
 * holds across a power loss, not only across a crash of the process (WAL's default, NORMAL, syncs
 * only at checkpoints).
 *
 * Switching to WAL takes the file's exclusive lock. SQLite does not always wait for it: when waiting
 * could deadlock (two processes opening a new file at once, each holding the shared lock it read the
 * schema with) it answers SQLITE_BUSY at once, busy timeout or not. So the mode is read first (a file
 * already in WAL — every file after its first opening — needs no switch), and a refused switch is
 * tried again for as long as the busy timeout would have waited.
 */
export function prepareSqliteFile(db: Pick<Database.Database, "pragma">, options: { wal: boolean; synced?: boolean }): void {
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  if (options.wal) switchToWal(db);
  if (options.synced === true) db.pragma("synchronous = FULL");
}

function switchToWal(db: Pick<Database.Database, "pragma">): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      if (String(db.pragma("journal_mode", { simple: true })).toLowerCase() === "wal") return;
      db.pragma("journal_mode = WAL");
      return;
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, WAL_RETRY_MS);
    }
  }
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && (code === "SQLITE_BUSY" || code.startsWith("SQLITE_BUSY_") || code === "SQLITE_LOCKED");
}
