import { BaseStore, validateNamespace } from "@langchain/langgraph-checkpoint";
import type {
  GetOperation,
  Item,
  ListNamespacesOperation,
  MatchCondition,
  Operation,
  OperationResults,
  PutOperation,
  SearchItem,
  SearchOperation,
} from "@langchain/langgraph-checkpoint";
import type Database from "better-sqlite3";
import { z } from "zod";
import { loadBetterSqlite3 } from "../optional/index.js";
import type { SqliteDatabase } from "../optional/types.js";
import { ErrorCode, GuardedGraphError } from "../errors/index.js";
import { prepareSqliteFile } from "../storage/sqlite-file.js";

const rowSchema = z.object({ ns: z.string(), key: z.string(), value: z.string(), created_at: z.number(), updated_at: z.number() });
type Row = z.infer<typeof rowSchema>;

// Namespace labels may not contain "." (LangGraph's rule), so it is a safe separator.
const SEP = ".";

function toItem(row: Row): Item {
  return {
    namespace: row.ns.split(SEP),
    key: row.key,
    value: z.record(z.string(), z.unknown()).parse(JSON.parse(row.value)),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

type Comparable = string | number | boolean | null | undefined;

function matchesFilter(value: Record<string, unknown>, filter: Record<string, unknown> | undefined): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([key, expected]) => compare(value[key], expected));
}

function compare(actual: unknown, expected: unknown): boolean {
  if (expected !== null && typeof expected === "object" && !Array.isArray(expected)) {
    return Object.entries(expected).every(([op, operand]) => {
      const a = actual as Comparable;
      switch (op) {
        case "$eq": return actual === operand;
        case "$ne": return actual !== operand;
        case "$gt": return Number(a) > Number(operand);
        case "$gte": return Number(a) >= Number(operand);
        case "$lt": return Number(a) < Number(operand);
        case "$lte": return Number(a) <= Number(operand);
        case "$in": return Array.isArray(operand) && operand.includes(actual);
        case "$nin": return !Array.isArray(operand) || !operand.includes(actual);
        default: return false;
      }
    });
  }
  return actual === expected;
}

function conditionMatches(condition: MatchCondition, ns: string[]): boolean {
  const { path } = condition;
  if (path.length > ns.length) return false;
  const offset = condition.matchType === "suffix" ? ns.length - path.length : 0;
  return path.every((label, i) => label === "*" || ns[offset + i] === label);
}

/**
 * LangGraph's store interface on SQLite (better-sqlite3), the embedded default: items live in one
 * table keyed by (namespace, key). Search filters like InMemoryStore; `query` is ignored (no embeddings).
 */
export class SqliteStore extends BaseStore {
  /** @internal */
  readonly db: Database.Database;
  readonly #ownsDb: boolean;
  readonly #table: string;
  readonly #get: Database.Statement;
  readonly #put: Database.Statement;
  readonly #delete: Database.Statement;
  readonly #prefix: Database.Statement;
  readonly #namespaces: Database.Statement;

  /** `database`: a file path (":memory:" for a private in-memory database) or an open better-sqlite3 database. */
  constructor(database: string | SqliteDatabase = ":memory:", options: { table?: string } = {}) {
    super();
    const table = options.table ?? "store_items";
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(table)) throw new GuardedGraphError(ErrorCode.MEMORY_CONFIG, `SqliteStore: table name "${table}" is not a plain identifier`);
    this.#ownsDb = typeof database === "string";
    this.db = typeof database === "string" ? new (loadBetterSqlite3("the SQLite memory store"))(database) : (database as Database.Database);
    this.#table = table;
    const ddl = `CREATE TABLE IF NOT EXISTS ${table} (
      ns TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
      created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
      PRIMARY KEY (ns, key))`;
    const db = this.db;
    if (this.#ownsDb) prepareSqliteFile(db, { wal: true, schema: () => db.exec(ddl) });
    else db.exec(ddl);
    this.#get = this.db.prepare(`SELECT * FROM ${table} WHERE ns = ? AND key = ?`);
    this.#put = this.db.prepare(`INSERT INTO ${table} (ns, key, value, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (ns, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`);
    this.#delete = this.db.prepare(`DELETE FROM ${table} WHERE ns = ? AND key = ?`);
    this.#prefix = this.db.prepare(
      `SELECT * FROM ${table} WHERE ? = '' OR ns = ? OR substr(ns, 1, length(?) + 1) = ? || '${SEP}' ORDER BY updated_at DESC, key`,
    );
    this.#namespaces = this.db.prepare(`SELECT DISTINCT ns FROM ${table} ORDER BY ns`);
  }

  get table(): string {
    return this.#table;
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const results: unknown[] = [];
    this.db.transaction(() => {
      for (const op of operations) results.push(this.#run(op));
    })();
    return results as OperationResults<Op>;
  }

  #run(op: Operation): unknown {
    if ("namespacePrefix" in op) return this.#search(op);
    if (!("namespace" in op)) return this.#listNamespaces(op);
    if ("value" in op) return this.#putOp(op as PutOperation);
    return this.#getOp(op as GetOperation);
  }

  #getOp(op: GetOperation): Item | null {
    const row = this.#get.get(op.namespace.join(SEP), op.key);
    return row === undefined ? null : toItem(rowSchema.parse(row));
  }

  #putOp(op: PutOperation): void {
    validateNamespace(op.namespace);
    const ns = op.namespace.join(SEP);
    if (op.value === null) {
      this.#delete.run(ns, op.key);
      return;
    }
    const now = Date.now();
    this.#put.run(ns, op.key, JSON.stringify(op.value), now, now);
  }

  #search(op: SearchOperation): SearchItem[] {
    const prefix = op.namespacePrefix.join(SEP);
    const offset = op.offset ?? 0;
    const limit = op.limit ?? 10;
    const out: SearchItem[] = [];
    let skipped = 0;
    for (const raw of this.#prefix.iterate(prefix, prefix, prefix, prefix)) {
      const item = toItem(rowSchema.parse(raw));
      if (!matchesFilter(item.value, op.filter)) continue;
      if (skipped++ < offset) continue;
      out.push(item);
      if (out.length >= limit) break;
    }
    return out;
  }

  #listNamespaces(op: ListNamespacesOperation): string[][] {
    const rows = z.array(z.object({ ns: z.string() })).parse(this.#namespaces.all());
    let namespaces = rows.map((r) => r.ns.split(SEP));
    if (op.matchConditions?.length) {
      namespaces = namespaces.filter((ns) => op.matchConditions?.every((c) => conditionMatches(c, ns)));
    }
    if (op.maxDepth !== undefined) {
      const depth = op.maxDepth;
      namespaces = [...new Set(namespaces.map((ns) => ns.slice(0, depth).join(SEP)))].map((ns) => ns.split(SEP));
    }
    return namespaces.slice(op.offset ?? 0, (op.offset ?? 0) + (op.limit ?? namespaces.length));
  }

  override stop(): void {
    if (this.#ownsDb && this.db.open) this.db.close();
  }
}
