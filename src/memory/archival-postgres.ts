import type pg from "pg";
import { z } from "zod";
import { namespaceKey, newArchivalEntry, searchLimit, tokenize } from "./archival.js";
import type { ArchivalIndex, ArchivalInsert, ArchivalSearchOptions } from "./archival.js";
import { jsonValueSchema, type ArchivalEntry, type ArchivalSearchResult } from "./types.js";
import { loadPg } from "../optional/index.js";
import type { PgPool } from "../optional/types.js";
import { ErrorCode, GuardedGraphError } from "../errors/index.js";
import { DDL_LOCK } from "../storage/ddl-lock.js";

const rowSchema = z.object({
  id: z.string(),
  content: z.string(),
  label: z.string().nullable(),
  metadata: z.record(z.string(), jsonValueSchema),
  created_at: z.union([z.string(), z.number()]).transform(Number),
});
const rankedRowSchema = rowSchema.extend({ rank: z.number() });

function toEntry(row: z.infer<typeof rowSchema>): ArchivalEntry {
  return { id: row.id, content: row.content, label: row.label ?? undefined, metadata: row.metadata, createdAt: row.created_at };
}

/** A tsquery matching any of the query's words; words are quoted lexemes, so no tsquery syntax gets through. */
function tsQuery(query: string): string | undefined {
  const terms = [...new Set(tokenize(query))];
  return terms.length === 0 ? undefined : terms.map((t) => `'${t}'`).join(" | ");
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface PostgresArchivalOptions {
  /** A connection string or an existing pool (then `close()` leaves it open). */
  connection: string | PgPool;
  /** Schema for the table (created when missing). Default "public". */
  schema?: string;
  table?: string;
  /** Text search configuration. Default "english". */
  language?: string;
}

/**
 * Archival entries in PostgreSQL: a stored tsvector column with a GIN index, ranked by ts_rank.
 * A trigger makes entries immutable (UPDATE and DELETE raise).
 */
export class PostgresArchivalIndex implements ArchivalIndex {
  readonly #pool: pg.Pool;
  readonly #ownsPool: boolean;
  readonly #qualified: string;
  readonly #schema: string;
  readonly #table: string;
  readonly #language: string;
  #ready: Promise<void> | undefined;

  constructor(options: PostgresArchivalOptions) {
    const schema = options.schema ?? "public";
    const table = options.table ?? "archival_entries";
    const language = options.language ?? "english";
    for (const name of [schema, table, language]) {
      if (!IDENTIFIER.test(name)) throw new GuardedGraphError(ErrorCode.MEMORY_CONFIG, `PostgresArchivalIndex: "${name}" is not a plain identifier`);
    }
    this.#ownsPool = typeof options.connection === "string";
    this.#pool = typeof options.connection === "string" ? new (loadPg("PostgreSQL memory (postgres://URL)")).Pool({ connectionString: options.connection }) : (options.connection as pg.Pool);
    this.#schema = schema;
    this.#table = table;
    this.#language = language;
    this.#qualified = `"${schema}"."${table}"`;
  }

  /** Creates the schema, table, index and trigger when missing. Called before first use. */
  setup(): Promise<void> {
    this.#ready ??= this.#createTables().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  async #createTables(): Promise<void> {
    const t = this.#qualified;
    const guardFn = `"${this.#schema}"."${this.#table}_immutable"`;
    // Serialised by the advisory lock guarded-graph's DDL takes (ledger, checkpointer): two
    // processes creating one fresh schema at once would otherwise collide (pg_namespace, pg_type).
    await this.#pool.query(`
      BEGIN;
      SELECT pg_advisory_xact_lock(hashtext('${DDL_LOCK}'));
      CREATE SCHEMA IF NOT EXISTS "${this.#schema}";
      CREATE TABLE IF NOT EXISTS ${t} (
        id TEXT PRIMARY KEY,
        ns TEXT NOT NULL,
        label TEXT,
        content TEXT NOT NULL,
        metadata JSONB NOT NULL,
        created_at BIGINT NOT NULL,
        tsv TSVECTOR GENERATED ALWAYS AS (to_tsvector('${this.#language}', coalesce(label, '') || ' ' || content)) STORED
      );
      CREATE INDEX IF NOT EXISTS "${this.#table}_tsv" ON ${t} USING GIN (tsv);
      CREATE INDEX IF NOT EXISTS "${this.#table}_ns" ON ${t} (ns);
      CREATE OR REPLACE FUNCTION ${guardFn}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'archival entries are immutable'; END $$;
      DROP TRIGGER IF EXISTS "${this.#table}_immutable" ON ${t};
      CREATE TRIGGER "${this.#table}_immutable" BEFORE UPDATE OR DELETE ON ${t}
        FOR EACH ROW EXECUTE FUNCTION ${guardFn}();
      COMMIT;
    `);
  }

  async insert(namespace: readonly string[], input: ArchivalInsert): Promise<ArchivalEntry> {
    return (await this.insertMany(namespace, [input]))[0] as ArchivalEntry;
  }

  /** Inserts many entries in one statement per 1,000 (bulk loads, benchmarks). */
  async insertMany(namespace: readonly string[], inputs: readonly ArchivalInsert[]): Promise<ArchivalEntry[]> {
    await this.setup();
    const ns = namespaceKey(namespace);
    const entries = inputs.map(newArchivalEntry);
    for (let start = 0; start < entries.length; start += 1000) {
      const chunk = entries.slice(start, start + 1000);
      const values: unknown[] = [];
      const rows = chunk.map((e, i) => {
        values.push(e.id, ns, e.label ?? null, e.content, JSON.stringify(e.metadata), e.createdAt);
        const b = i * 6;
        return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6})`;
      });
      await this.#pool.query(
        `INSERT INTO ${this.#qualified} (id, ns, label, content, metadata, created_at) VALUES ${rows.join(", ")}`,
        values,
      );
    }
    return entries;
  }

  async search(namespace: readonly string[], query: string, options?: ArchivalSearchOptions): Promise<ArchivalSearchResult[]> {
    const q = tsQuery(query);
    if (!q) return [];
    await this.setup();
    const { rows } = await this.#pool.query(
      `SELECT id, content, label, metadata, created_at, ts_rank(tsv, q)::float8 AS rank
       FROM ${this.#qualified}, to_tsquery('${this.#language}', $1) q
       WHERE tsv @@ q AND ns = $2
       ORDER BY rank DESC, created_at DESC
       LIMIT $3`,
      [q, namespaceKey(namespace), searchLimit(options)],
    );
    return rows.map((raw: unknown) => {
      const row = rankedRowSchema.parse(raw);
      return { ...toEntry(row), score: row.rank };
    });
  }

  async get(namespace: readonly string[], id: string): Promise<ArchivalEntry | undefined> {
    await this.setup();
    const { rows } = await this.#pool.query(
      `SELECT id, content, label, metadata, created_at FROM ${this.#qualified} WHERE ns = $1 AND id = $2`,
      [namespaceKey(namespace), id],
    );
    return rows[0] === undefined ? undefined : toEntry(rowSchema.parse(rows[0]));
  }

  async count(namespace: readonly string[]): Promise<number> {
    await this.setup();
    const { rows } = await this.#pool.query(`SELECT count(*)::int AS n FROM ${this.#qualified} WHERE ns = $1`, [
      namespaceKey(namespace),
    ]);
    return z.object({ n: z.number() }).parse(rows[0]).n;
  }

  async close(): Promise<void> {
    if (this.#ownsPool) await this.#pool.end();
  }
}
