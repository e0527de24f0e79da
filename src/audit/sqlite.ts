import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type Database from "better-sqlite3";
import { parseStoredRecord, validateQuery, validateRecords } from "./schema.js";
import { AUDIT_INSERT_COLUMNS, auditRowValues, auditTableDdl, validateTableName } from "./sql-table.js";
import type { AuditQuery, AuditRecord, AuditSink, AuditStore } from "./types.js";
import { AuditError, ErrorCode } from "../errors/index.js";
import { loadBetterSqlite3 } from "../optional/index.js";
import { prepareSqliteFile } from "../storage/sqlite-file.js";

export interface SqliteAuditSinkOptions {
  /** Table name (a plain SQL identifier); default `guarded_graph_audit`. */
  table?: string;
}

interface Row {
  record: string;
}

/**
 * Audit log in a SQLite file (WAL, synchronous=FULL so a committed batch survives power loss).
 * Duplicate ids are ignored by `INSERT OR IGNORE` on the primary key; ties in `at` keep write
 * order through the implicit rowid.
 */
export class SqliteAuditSink implements AuditSink {
  /** The file and table (a file's records can share an execution ledger's commits: `AuditStore`). */
  readonly store: AuditStore | undefined;
  readonly #db: Database.Database;
  readonly #insertBatch: (records: readonly AuditRecord[]) => void;
  readonly #table: string;

  private constructor(db: Database.Database, table: string, file: string) {
    this.store = file === ":memory:" ? undefined : { kind: "sqlite", path: file, table };
    this.#db = db;
    this.#table = table;
    const insert = db.prepare(
      `INSERT OR IGNORE INTO "${table}" (${AUDIT_INSERT_COLUMNS})
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#insertBatch = db.transaction((records: readonly AuditRecord[]) => {
      for (const r of records) insert.run(...auditRowValues(r));
    });
  }

  /** Opens (creating directories, file and table as needed) the SQLite audit log at `path` (`:memory:` works too). */
  static async open(path: string, options: SqliteAuditSinkOptions = {}): Promise<SqliteAuditSink> {
    if (typeof path !== "string" || path.length === 0) throw new AuditError(ErrorCode.AUDIT_CONFIG, "SQLite audit sink refused: path must be a non-empty string");
    const table = validateTableName(options.table);
    const file = path === ":memory:" ? path : resolve(path);
    if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
    const db = new (loadBetterSqlite3("the SQLite audit sink (sqlite:PATH)"))(file);
    try {
      const ddl = auditTableDdl(table, { id: "TEXT PRIMARY KEY NOT NULL", at: "INTEGER NOT NULL", record: "TEXT NOT NULL" });
      prepareSqliteFile(db, { wal: true, synced: true, schema: () => db.exec(ddl) });
      return new SqliteAuditSink(db, table, file);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  async write(records: readonly AuditRecord[]): Promise<void> {
    const valid = validateRecords(records);
    if (valid.length > 0) this.#insertBatch(valid);
  }

  async query(query?: AuditQuery): Promise<AuditRecord[]> {
    const q = validateQuery(query);
    const where: string[] = [];
    const params: (string | number)[] = [];
    if (q.threadId !== undefined) {
      where.push("thread_id = ?");
      params.push(q.threadId);
    }
    if (q.after !== undefined) {
      where.push("at > ?");
      params.push(q.after);
    }
    const filter = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
    // Without `after`, `limit` keeps the newest N (selected descending, then put back in order).
    const newest = q.limit !== undefined && q.after === undefined;
    const order = newest ? "at DESC, rowid DESC" : "at ASC, rowid ASC";
    const limit = q.limit !== undefined ? `LIMIT ${q.limit}` : "";
    const rows = this.#db.prepare(`SELECT record FROM "${this.#table}" ${filter} ORDER BY ${order} ${limit}`).all(...params) as Row[];
    if (newest) rows.reverse();
    return rows.flatMap((row) => {
      const record = parseStoredRecord(row.record);
      return record ? [record] : [];
    });
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
}
