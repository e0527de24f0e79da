import type Database from "better-sqlite3";

/** How long a statement waits for another process's lock on the same SQLite file before SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * Settings every SQLite file the package opens gets, in this order: the busy timeout first (several
 * processes share the file — a worker and a recovering one, the CLI and a server — and switching to
 * WAL itself takes a lock another opener may hold at that moment), then, with `wal`, write-ahead logging.
 */
export function prepareSqliteFile(db: Pick<Database.Database, "pragma">, options: { wal: boolean }): void {
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  if (options.wal) db.pragma("journal_mode = WAL");
}
