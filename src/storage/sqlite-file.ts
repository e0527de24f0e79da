import type Database from "better-sqlite3";

/** How long a statement waits for another process's lock on the same SQLite file before SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000;
/** Pause between tries of a step SQLite refused without waiting. */
const WAL_RETRY_MS = 10;

/**
 * Settings every SQLite file the package opens gets, in this order: the busy timeout first (several
 * processes share the file — a worker and a recovering one, the CLI and a server), then, with `wal`,
 * write-ahead logging, then, with `synced`, `synchronous = FULL`: each commit is synced before it
 * returns, so what the guard promises of a committed record (an execution claim, an audit record)
 * holds across a power loss, not only across a crash of the process (WAL's default, NORMAL, syncs
 * only at checkpoints). Last, `schema` creates the opener's tables.
 *
 * Switching to WAL and creating tables take the file's write lock. SQLite does not always wait for
 * it: when waiting could deadlock (two processes opening a new file at once, each holding the shared
 * lock it read the schema with) or while another opener recovers a killed writer's log, it answers
 * SQLITE_BUSY at once, busy timeout or not. So the mode is read first (a file already in WAL — every
 * file after its first opening — needs no switch), and a refused switch or schema step is tried again
 * for as long as the busy timeout would have waited. `schema` must be safe to run again after a
 * refusal (CREATE ... IF NOT EXISTS).
 */
export function prepareSqliteFile(
  db: Pick<Database.Database, "pragma">,
  options: { wal: boolean; synced?: boolean; schema?: () => void },
): void {
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  if (options.wal) {
    whileBusy(deadline, () => {
      if (String(db.pragma("journal_mode", { simple: true })).toLowerCase() !== "wal") db.pragma("journal_mode = WAL");
    });
  }
  if (options.synced === true) db.pragma("synchronous = FULL");
  if (options.schema) whileBusy(deadline, options.schema);
}

/** Runs `step`, again after each refusal SQLite gave without waiting, until `deadline`. */
function whileBusy(deadline: number, step: () => void): void {
  for (;;) {
    try {
      step();
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
