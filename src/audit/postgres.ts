import type pg from "pg";
import { auditRecordSchema, validateQuery, validateRecords } from "./schema.js";
import { AUDIT_INSERT_COLUMNS, auditRowValues, auditTableDdl, validateTableName } from "./sql-table.js";
import type { AuditQuery, AuditRecord, AuditSink, AuditStore } from "./types.js";
import { AuditError, ErrorCode } from "../errors/index.js";
import { loadPg } from "../optional/index.js";
import { withDdlLock } from "../storage/ddl-lock.js";
import type { PgPool } from "../optional/types.js";

export interface PostgresAuditSinkOptions {
  /** Connection string; a pool is created and ended by `close()`. */
  url?: string;
  /** An existing pool to use instead (left open by `close()`). */
  pool?: PgPool;
  /** Table name (a plain SQL identifier); default `guarded_graph_audit`. */
  table?: string;
}

const COLUMNS = 10;
/** Rows per INSERT: keeps the statement well under PostgreSQL's 65,535 bind parameters. */
const ROWS_PER_INSERT = 1000;

/**
 * Audit log in PostgreSQL, for several workers sharing one log. Duplicate ids are ignored by
 * `ON CONFLICT (id) DO NOTHING`; each batch is written with multi-row inserts in one transaction.
 */
export class PostgresAuditSink implements AuditSink {
  /** The database (by URL; a sink on a pool of yours has none) and table: see `AuditStore`. */
  readonly store: AuditStore | undefined;
  readonly #pool: pg.Pool;
  readonly #ownsPool: boolean;
  readonly #table: string;
  #closed = false;

  private constructor(pool: pg.Pool, ownsPool: boolean, table: string, url: string | undefined) {
    this.store = url === undefined ? undefined : { kind: "postgres", url, table };
    this.#pool = pool;
    this.#ownsPool = ownsPool;
    this.#table = table;
  }

  static async open(options: PostgresAuditSinkOptions): Promise<PostgresAuditSink> {
    const table = validateTableName(options.table);
    if (!options.pool && !options.url) throw new AuditError(ErrorCode.AUDIT_CONFIG, "PostgreSQL audit sink refused: give a connection `url` or a `pool`");
    const ownsPool = !options.pool;
    const pool = (options.pool as pg.Pool | undefined) ?? new (loadPg("the PostgreSQL audit sink (postgres://URL)")).Pool({ connectionString: options.url, max: 4 });
    const sink = new PostgresAuditSink(pool, ownsPool, table, options.pool ? undefined : options.url);
    try {
      await sink.#createTable();
    } catch (error) {
      if (ownsPool) await pool.end();
      throw error;
    }
    return sink;
  }

  async #createTable(): Promise<void> {
    const ddl = auditTableDdl(this.#table, { leading: "seq BIGSERIAL NOT NULL", id: "TEXT PRIMARY KEY", at: "DOUBLE PRECISION NOT NULL", record: "JSON NOT NULL" });
    // json (not jsonb) keeps strings with \u0000 that a model may put in arguments.
    // Workers opening a fresh table at once would race on CREATE (duplicate pg_type rows): the DDL
    // runs under guarded-graph's DDL lock, the one the checkpointer and the execution ledger take.
    await withDdlLock(this.#pool, () => this.#pool.query(ddl));
  }

  async write(records: readonly AuditRecord[]): Promise<void> {
    if (this.#closed) throw new AuditError(ErrorCode.AUDIT_WRITE, `audit write refused: the PostgreSQL sink for table ${this.#table} is closed`);
    const valid = validateRecords(records);
    if (valid.length === 0) return;
    const statements: { text: string; values: unknown[] }[] = [];
    for (let start = 0; start < valid.length; start += ROWS_PER_INSERT) {
      const chunk = valid.slice(start, start + ROWS_PER_INSERT);
      const placeholders = chunk.map((_, row) => `(${Array.from({ length: COLUMNS }, (_, col) => `$${row * COLUMNS + col + 1}`).join(", ")})`);
      statements.push({
        text: `INSERT INTO "${this.#table}" (${AUDIT_INSERT_COLUMNS})
               VALUES ${placeholders.join(", ")} ON CONFLICT (id) DO NOTHING`,
        values: chunk.flatMap(auditRowValues),
      });
    }
    const [only] = statements;
    if (statements.length === 1 && only) {
      await this.#pool.query(only.text, only.values);
      return;
    }
    const client = await this.#pool.connect();
    try {
      await client.query("BEGIN");
      for (const statement of statements) await client.query(statement.text, statement.values);
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async query(query?: AuditQuery): Promise<AuditRecord[]> {
    const q = validateQuery(query);
    const where: string[] = [];
    const values: (string | number)[] = [];
    if (q.threadId !== undefined) {
      values.push(q.threadId);
      where.push(`thread_id = $${values.length}`);
    }
    if (q.after !== undefined) {
      values.push(q.after);
      where.push(`at > $${values.length}`);
    }
    const filter = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
    // Without `after`, `limit` keeps the newest N (selected descending, then put back in order).
    const newest = q.limit !== undefined && q.after === undefined;
    const order = newest ? "at DESC, seq DESC" : "at ASC, seq ASC";
    const limit = q.limit !== undefined ? `LIMIT ${q.limit}` : "";
    const result = await this.#pool.query<{ record: unknown }>(`SELECT record FROM "${this.#table}" ${filter} ORDER BY ${order} ${limit}`, values);
    const rows = newest ? result.rows.reverse() : result.rows;
    return rows.flatMap((row) => {
      const parsed = auditRecordSchema.safeParse(row.record);
      return parsed.success ? [parsed.data] : [];
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ownsPool) await this.#pool.end();
  }
}
