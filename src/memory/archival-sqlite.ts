import type Database from "better-sqlite3";
import type { SqliteDatabase } from "../optional/types.js";
import { z } from "zod";
import { namespaceKey, newArchivalEntry, searchLimit, tokenize } from "./archival.js";
import type { ArchivalIndex, ArchivalInsert, ArchivalSearchOptions } from "./archival.js";
import { jsonValueSchema, type ArchivalEntry, type ArchivalSearchResult } from "./types.js";
import { ErrorCode, GuardedGraphError } from "../errors/index.js";

const rowSchema = z.object({
  id: z.string(),
  content: z.string(),
  label: z.string().nullable(),
  metadata: z.string(),
  created_at: z.number(),
});
const rankedRowSchema = rowSchema.extend({ rank: z.number() });
const metadataSchema = z.record(z.string(), jsonValueSchema);

function toEntry(row: z.infer<typeof rowSchema>): ArchivalEntry {
  return {
    id: row.id,
    content: row.content,
    label: row.label ?? undefined,
    metadata: metadataSchema.parse(JSON.parse(row.metadata)),
    createdAt: row.created_at,
  };
}

/** An FTS5 query matching any of the query's words; each word is quoted, so no FTS syntax gets through. */
function fts5Query(query: string): string | undefined {
  const terms = [...new Set(tokenize(query))];
  return terms.length === 0 ? undefined : terms.map((t) => `"${t}"`).join(" OR ");
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Archival entries in SQLite with an FTS5 index (porter stemming, bm25 ranking). Triggers keep the
 * index in step and make entries immutable: UPDATE and DELETE abort.
 */
export class SqliteArchivalIndex implements ArchivalIndex {
  readonly #db: Database.Database;
  readonly #table: string;
  readonly #insert: Database.Statement;
  readonly #search: Database.Statement;
  readonly #get: Database.Statement;
  readonly #count: Database.Statement;

  constructor(database: SqliteDatabase, options: { table?: string } = {}) {
    const db = database as Database.Database;
    const table = options.table ?? "archival_entries";
    if (!IDENTIFIER.test(table)) throw new GuardedGraphError(ErrorCode.MEMORY_CONFIG, `SqliteArchivalIndex: table name "${table}" is not a plain identifier`);
    this.#db = db;
    this.#table = table;
    db.exec(`
      CREATE TABLE IF NOT EXISTS ${table} (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        ns TEXT NOT NULL,
        label TEXT,
        content TEXT NOT NULL,
        metadata TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX IF NOT EXISTS ${table}_ns ON ${table}(ns);
      CREATE VIRTUAL TABLE IF NOT EXISTS ${table}_fts USING fts5(
        label, content, content='${table}', content_rowid='rowid', tokenize='porter unicode61'
      );
      CREATE TRIGGER IF NOT EXISTS ${table}_ai AFTER INSERT ON ${table} BEGIN
        INSERT INTO ${table}_fts(rowid, label, content) VALUES (new.rowid, new.label, new.content);
      END;
      CREATE TRIGGER IF NOT EXISTS ${table}_no_update BEFORE UPDATE ON ${table} BEGIN
        SELECT RAISE(ABORT, 'archival entries are immutable');
      END;
      CREATE TRIGGER IF NOT EXISTS ${table}_no_delete BEFORE DELETE ON ${table} BEGIN
        SELECT RAISE(ABORT, 'archival entries are immutable');
      END;
    `);
    this.#insert = db.prepare(
      `INSERT INTO ${table} (id, ns, label, content, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
    );
    this.#search = db.prepare(`
      SELECT e.id, e.content, e.label, e.metadata, e.created_at, bm25(${table}_fts) AS rank
      FROM ${table}_fts JOIN ${table} e ON e.rowid = ${table}_fts.rowid
      WHERE ${table}_fts MATCH ? AND e.ns = ?
      ORDER BY rank, e.created_at DESC
      LIMIT ?`);
    this.#get = db.prepare(`SELECT id, content, label, metadata, created_at FROM ${table} WHERE ns = ? AND id = ?`);
    this.#count = db.prepare(`SELECT count(*) AS n FROM ${table} WHERE ns = ?`);
  }

  get table(): string {
    return this.#table;
  }

  async insert(namespace: readonly string[], input: ArchivalInsert): Promise<ArchivalEntry> {
    const entry = newArchivalEntry(input);
    this.#insert.run(entry.id, namespaceKey(namespace), entry.label ?? null, entry.content, JSON.stringify(entry.metadata), entry.createdAt);
    return entry;
  }

  /** Inserts many entries in one transaction (bulk loads, benchmarks). */
  insertMany(namespace: readonly string[], inputs: readonly ArchivalInsert[]): ArchivalEntry[] {
    const ns = namespaceKey(namespace);
    const entries = inputs.map(newArchivalEntry);
    this.#db.transaction(() => {
      for (const e of entries) this.#insert.run(e.id, ns, e.label ?? null, e.content, JSON.stringify(e.metadata), e.createdAt);
    })();
    return entries;
  }

  async search(namespace: readonly string[], query: string, options?: ArchivalSearchOptions): Promise<ArchivalSearchResult[]> {
    const match = fts5Query(query);
    if (!match) return [];
    const rows = this.#search.all(match, namespaceKey(namespace), searchLimit(options));
    // bm25() is lower-is-better and negative; flip it so higher means more relevant everywhere.
    return rows.map((raw) => {
      const row = rankedRowSchema.parse(raw);
      return { ...toEntry(row), score: -row.rank };
    });
  }

  async get(namespace: readonly string[], id: string): Promise<ArchivalEntry | undefined> {
    const row = this.#get.get(namespaceKey(namespace), id);
    return row === undefined ? undefined : toEntry(rowSchema.parse(row));
  }

  async count(namespace: readonly string[]): Promise<number> {
    return z.object({ n: z.number() }).parse(this.#count.get(namespaceKey(namespace))).n;
  }

  /** The database belongs to whoever opened it. */
  async close(): Promise<void> {}
}
