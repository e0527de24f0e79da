import { z } from "zod";
import { ensureSqliteDirectory, parseStorageSpec, sqlIdentifier } from "./spec.js";
import { ErrorCode, StorageError } from "../errors/index.js";
import { loadBetterSqlite3, loadPg } from "../optional/index.js";
import { DDL_LOCK } from "./ddl-lock.js";
import type Database from "better-sqlite3";
import { validateRecords } from "../audit/schema.js";
import { AUDIT_INSERT_COLUMNS, auditRowValues } from "../audit/sql-table.js";
import type { AuditRecord, AuditSink, AuditStore } from "../audit/types.js";
import { prepareSqliteFile } from "./sqlite-file.js";

/** "claimed": run the call now. "done": it already ran, read `result`. "busy": a live worker is running it. */
export type ClaimOutcome = "claimed" | "done" | "busy";

/** Audit records to write in the ledger's own transaction, into `sink`'s table (`carriesAudit(sink)` must be true). */
export interface LedgerAuditWrite {
  sink: AuditSink;
  records: readonly AuditRecord[];
}

/** One completed call: its key and recorded result. */
export interface LedgerCompletion {
  key: string;
  result: string;
}

/**
 * Exactly-once bookkeeping for tool side effects across processes, keyed by idempotency key.
 * A call is claimed with a lease before it runs and completed with its result after; a claim whose
 * lease ran out (the worker died mid-call) can be claimed again, so the call re-runs with the same key.
 */
export interface ExecutionLedger {
  readonly kind: "sqlite" | "postgres" | "memory";
  claim(key: string, owner: string, leaseMs: number): Promise<ClaimOutcome>;
  /** Records the result. The first completion wins; a later one (a taken-over duplicate) is ignored. */
  complete(key: string, result: string): Promise<void>;
  /** The recorded result of a completed call, else undefined. */
  result(key: string): Promise<string | undefined>;
  /** Drops an unfinished claim held by `owner` (e.g. the call failed before any side effect) so it can run again. */
  release(key: string, owner: string): Promise<void>;
  /** Extends `owner`'s live claim by `leaseMs` from now; false when the claim is gone or done. */
  renew(key: string, owner: string, leaseMs: number): Promise<boolean>;
  /**
   * Claims every key (as `claim` does, each its own outcome) in one transaction — one commit for a
   * batch of calls — with `audit`'s records written in that same transaction (the decisions the
   * calls run on): both are on disk, or neither, before any of the calls may start.
   */
  claimMany(keys: readonly string[], owner: string, leaseMs: number, audit?: LedgerAuditWrite): Promise<ClaimOutcome[]>;
  /** Completes every call (as `complete` does) in one transaction, with `audit`'s records (their outcomes). */
  completeMany(completions: readonly LedgerCompletion[], audit?: LedgerAuditWrite): Promise<void>;
  /** Whether `sink` keeps its records in this ledger's database, so `claimMany`/`completeMany` can write them in their commit. */
  carriesAudit(sink: AuditSink): boolean;
  close(): Promise<void>;
}

export interface OpenLedgerOptions {
  /** PostgreSQL schema for the ledger table (default "public"); created when missing. */
  schema?: string;
  /**
   * SQLite: how long a completion (a call's recorded result, and the outcome records written with
   * it) may wait to be synced to disk, in milliseconds (whole, 0 to 60,000; default 50; 0 syncs
   * every completion before it returns). A completion is committed at once, so a crash of the
   * process loses none; its sync is taken by the next synced commit (the next batch's claims) or,
   * at the latest, after this long. Claims are always synced before their calls start. PostgreSQL
   * commits each completion as its server's `synchronous_commit` says.
   */
  completionSyncMs?: number;
}

/** Default of `OpenLedgerOptions.completionSyncMs`. */
const DEFAULT_COMPLETION_SYNC_MS = 50;

const claimSchema = z.lazy(() =>
  z.object({
    key: z.string().min(1, "ledger key is empty"),
    owner: z.string().min(1, "ledger owner is empty"),
    leaseMs: z.number().int().positive("leaseMs must be a positive integer"),
  }),
);
const keySchema = z.lazy(() => z.string().min(1, "ledger key is empty"));
const keysSchema = z.lazy(() => z.array(keySchema));
const completionsSchema = z.lazy(() => z.array(z.object({ key: keySchema, result: z.string() })));
const resultSchema = z.lazy(() => z.string());
const completionSyncMsSchema = z.lazy(() => z.number().int().min(0).max(60_000));

const TABLE = "guarded_graph_ledger";

/**
 * Opens the execution ledger named by a storage spec (`sqlite:PATH`, `postgres://…`, `memory:NAME`),
 * creating its table when missing. Give it to the guard (`ledger`) so a tool call interrupted by a
 * crash is not run twice when the thread continues: a completed call's recorded result is replayed.
 */
export async function openLedger(spec: string, options: OpenLedgerOptions = {}): Promise<ExecutionLedger> {
  const parsed = parseStorageSpec(spec);
  const completionSyncMs = completionSyncMsSchema.parse(options.completionSyncMs ?? DEFAULT_COMPLETION_SYNC_MS);
  switch (parsed.kind) {
    case "memory":
      return memoryLedger(parsed.name);
    case "sqlite":
      return sqliteLedger(parsed.path, completionSyncMs);
    case "postgres":
      return postgresLedger(parsed.url, sqlIdentifier(options.schema ?? "public", "PostgreSQL schema"));
  }
}

interface Entry {
  owner: string;
  expiresAt: number;
  done: boolean;
  result: string | undefined;
}

const memorySpaces = new Map<string, Map<string, Entry>>();

/** In-process ledger; every `memory:NAME` of one process shares its entries. */
function memoryLedger(space: string): ExecutionLedger {
  let entries = memorySpaces.get(space);
  if (!entries) memorySpaces.set(space, (entries = new Map()));
  const table = entries;
  const ledger: ExecutionLedger = {
    kind: "memory",
    async claim(key, owner, leaseMs) {
      claimSchema.parse({ key, owner, leaseMs });
      const now = Date.now();
      const entry = table.get(key);
      if (entry?.done) return "done";
      if (entry && entry.expiresAt > now) return "busy";
      table.set(key, { owner, expiresAt: now + leaseMs, done: false, result: undefined });
      return "claimed";
    },
    async complete(key, result) {
      keySchema.parse(key);
      resultSchema.parse(result);
      const entry = table.get(key);
      if (entry?.done) return;
      table.set(key, { owner: entry?.owner ?? "", expiresAt: 0, done: true, result });
    },
    async result(key) {
      const entry = table.get(keySchema.parse(key));
      return entry?.done ? entry.result : undefined;
    },
    async release(key, owner) {
      const entry = table.get(keySchema.parse(key));
      if (entry && !entry.done && entry.owner === owner) table.delete(key);
    },
    async renew(key, owner, leaseMs) {
      claimSchema.parse({ key, owner, leaseMs });
      const entry = table.get(key);
      if (!entry || entry.done || entry.owner !== owner) return false;
      entry.expiresAt = Date.now() + leaseMs;
      return true;
    },
    async claimMany(keys, owner, leaseMs, audit) {
      refuseAudit("an in-memory", audit);
      const outcomes: ClaimOutcome[] = [];
      for (const key of keysSchema.parse(keys)) outcomes.push(await ledger.claim(key, owner, leaseMs));
      return outcomes;
    },
    async completeMany(completions, audit) {
      refuseAudit("an in-memory", audit);
      for (const { key, result } of completionsSchema.parse(completions)) await ledger.complete(key, result);
    },
    carriesAudit: () => false,
    async close() {},
  };
  return ledger;
}

/** A ledger that cannot write `audit` in its transactions refuses it (the caller writes it to its sink). */
function refuseAudit(what: string, audit: LedgerAuditWrite | undefined): void {
  if (audit && audit.records.length > 0) throw new StorageError(ErrorCode.STORAGE_SPEC, `${what} execution ledger cannot write audit records in its commits: write them to the sink`);
}

/** The sink's table when it lives in this ledger's database (`same`), else undefined. */
function auditTableIn(sink: AuditSink, same: (store: AuditStore) => boolean): string | undefined {
  const store = sink.store;
  return store && same(store) ? store.table : undefined;
}

function sqliteLedger(path: string, completionSyncMs: number): ExecutionLedger {
  ensureSqliteDirectory(path);
  const db = new (loadBetterSqlite3("SQLite storage (sqlite:PATH)"))(path);
  // Synced commits: a claim (and the audit records that ride in its transaction) must survive a power
  // loss, or a call whose side effect began could be claimed and run again after it.
  prepareSqliteFile(db, {
    wal: true,
    synced: true,
    schema: () =>
      db.exec(`CREATE TABLE IF NOT EXISTS ${TABLE} (
    key TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('running', 'done')),
    expires_at INTEGER NOT NULL,
    result TEXT,
    updated_at INTEGER NOT NULL
  )`),
  });
  const stateOf = db.prepare(`SELECT state FROM ${TABLE} WHERE key = ?`).pluck();
  // One statement decides in the common case: a new key is inserted, an expired running claim taken
  // over; a done or live claim is left as it is (no row returned) and read once more to say which.
  const claimRunning = db.prepare(
    `INSERT INTO ${TABLE} AS l (key, owner, state, expires_at, result, updated_at) VALUES (?, ?, 'running', ?, NULL, ?)
     ON CONFLICT(key) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at, updated_at = excluded.updated_at
     WHERE l.state = 'running' AND l.expires_at <= ?
     RETURNING 1`,
  ).pluck();
  /** Claims `key`; run inside a transaction (one per claim, or one for a batch's claims). */
  const claimIn = (key: string, owner: string, leaseMs: number): ClaimOutcome => {
    const now = Date.now();
    if (claimRunning.get(key, owner, now + leaseMs, now, now) !== undefined) return "claimed";
    return stateOf.get(key) === "done" ? "done" : "busy";
  };
  const claimTx = db.transaction(claimIn);
  // Completions commit without a sync of their own (`synchronous = NORMAL` for their transaction):
  // committed, so a killed process loses none, and synced by the next synced commit on this file's
  // write-ahead log — the next claims — or by `syncNow`'s touch when the timer fires at the latest.
  const deferSync = completionSyncMs > 0;
  // Executed each time: SQLite applies this pragma when the statement is compiled, not when it runs.
  const syncOff = () => db.exec("PRAGMA synchronous = NORMAL");
  const syncOn = () => db.exec("PRAGMA synchronous = FULL");
  const touchStmt = db.prepare(`UPDATE ${TABLE} SET updated_at = ? WHERE key = ?`);
  /** The last key completed without a sync, while no synced commit has covered it yet. */
  let unsynced: string | undefined;
  let syncTimer: NodeJS.Timeout | undefined;
  /** A deferred sync that failed: every later write refuses with it (its completions may not be on disk). */
  let syncFailure: Error | undefined;
  const synced = (): void => {
    unsynced = undefined;
    if (syncTimer) clearTimeout(syncTimer);
    syncTimer = undefined;
  };
  /** A synced commit rewriting the last unsynced completion's row: its sync covers every earlier commit in the log. */
  const syncNow = (): void => {
    if (unsynced === undefined) return;
    const key = unsynced;
    synced();
    try {
      touchStmt.run(Date.now(), key);
    } catch (error) {
      syncFailure ??= new StorageError(ErrorCode.STORAGE_WRITE, `the SQLite execution ledger at ${path} could not sync its completions: ${(error as Error).message}`, { cause: error });
    }
  };
  const checkSync = (): void => {
    if (syncFailure) throw syncFailure;
  };
  /** Runs `write` (a completion) unsynced, to be synced within `completionSyncMs`; synced at once when that is 0. */
  const completing = (lastKey: string | undefined, write: () => void): void => {
    checkSync();
    if (!deferSync || lastKey === undefined) return write();
    syncOff();
    try {
      write();
    } finally {
      syncOn();
    }
    unsynced = lastKey;
    if (!syncTimer) {
      syncTimer = setTimeout(syncNow, completionSyncMs);
      syncTimer.unref?.();
    }
  };
  const completeStmt = db.prepare(
    `INSERT INTO ${TABLE} (key, owner, state, expires_at, result, updated_at) VALUES (?, '', 'done', 0, ?, ?)
     ON CONFLICT(key) DO UPDATE SET state = 'done', result = excluded.result, updated_at = excluded.updated_at
     WHERE ${TABLE}.state = 'running'`,
  );
  const resultStmt = db.prepare(`SELECT result FROM ${TABLE} WHERE key = ? AND state = 'done'`);
  const releaseStmt = db.prepare(`DELETE FROM ${TABLE} WHERE key = ? AND owner = ? AND state = 'running'`);
  const renewStmt = db.prepare(
    `UPDATE ${TABLE} SET expires_at = ?, updated_at = ? WHERE key = ? AND owner = ? AND state = 'running'`,
  );
  const sameFile = (store: AuditStore) => store.kind === "sqlite" && store.path === path;
  const auditInserts = new Map<string, Database.Statement>();
  /** Inserts `audit`'s records into its sink's table, inside the caller's transaction. */
  const insertAudit = (audit: LedgerAuditWrite | undefined): void => {
    if (!audit || audit.records.length === 0) return;
    const table = auditTableIn(audit.sink, sameFile);
    if (table === undefined) throw new StorageError(ErrorCode.STORAGE_SPEC, `the SQLite execution ledger at ${path} cannot write this audit sink's records: it does not keep them in this file`);
    let insert = auditInserts.get(table);
    if (!insert) auditInserts.set(table, (insert = db.prepare(`INSERT OR IGNORE INTO "${table}" (${AUDIT_INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)));
    for (const record of audit.records) insert.run(...auditRowValues(record));
  };
  const claimManyTx = db.transaction((keys: readonly string[], owner: string, leaseMs: number, audit: LedgerAuditWrite | undefined): ClaimOutcome[] => {
    insertAudit(audit);
    return keys.map((key) => claimIn(key, owner, leaseMs));
  });
  const completeManyTx = db.transaction((completions: readonly LedgerCompletion[], audit: LedgerAuditWrite | undefined): void => {
    const now = Date.now();
    for (const { key, result } of completions) completeStmt.run(key, result, now);
    insertAudit(audit);
  });
  return {
    kind: "sqlite",
    async claim(key, owner, leaseMs) {
      const input = claimSchema.parse({ key, owner, leaseMs });
      checkSync();
      const outcome = claimTx.immediate(input.key, input.owner, input.leaseMs);
      synced();
      return outcome;
    },
    async complete(key, result) {
      const checked = keySchema.parse(key);
      const recorded = resultSchema.parse(result);
      completing(checked, () => completeStmt.run(checked, recorded, Date.now()));
    },
    async result(key) {
      const row = resultStmt.get(keySchema.parse(key)) as { result: string | null } | undefined;
      return row?.result ?? undefined;
    },
    async release(key, owner) {
      releaseStmt.run(keySchema.parse(key), owner);
    },
    async renew(key, owner, leaseMs) {
      const input = claimSchema.parse({ key, owner, leaseMs });
      const now = Date.now();
      return renewStmt.run(now + input.leaseMs, now, input.key, input.owner).changes > 0;
    },
    async claimMany(keys, owner, leaseMs, audit) {
      const input = claimSchema.parse({ key: "batch", owner, leaseMs });
      const checked = keysSchema.parse(keys);
      const records = audit ? { sink: audit.sink, records: validateRecords(audit.records) } : undefined;
      checkSync();
      const outcomes = claimManyTx.immediate(checked, input.owner, input.leaseMs, records);
      synced();
      return outcomes;
    },
    async completeMany(completions, audit) {
      const checked = completionsSchema.parse(completions);
      const records = audit ? { sink: audit.sink, records: validateRecords(audit.records) } : undefined;
      completing(checked.at(-1)?.key, () => completeManyTx.immediate(checked, records));
    },
    carriesAudit: (sink) => auditTableIn(sink, sameFile) !== undefined,
    async close() {
      if (!db.open) return;
      syncNow();
      db.close();
      if (syncFailure) throw syncFailure;
    },
  };
}

async function postgresLedger(url: string, schema: string): Promise<ExecutionLedger> {
  const pool = new (loadPg("PostgreSQL storage (postgres://URL)")).Pool({ connectionString: url, max: 5 });
  pool.on("error", () => undefined);
  const table = `"${schema}".${TABLE}`;
  try {
    // Serialised by an advisory lock: two workers creating the table at once would otherwise collide.
    await pool.query(`BEGIN;
      SELECT pg_advisory_xact_lock(hashtext('${DDL_LOCK}'));
      CREATE SCHEMA IF NOT EXISTS "${schema}";
      CREATE TABLE IF NOT EXISTS ${table} (
        key TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('running', 'done')),
        expires_at TIMESTAMPTZ NOT NULL,
        result TEXT,
        updated_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
      );
      COMMIT;`);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new StorageError(ErrorCode.STORAGE_OPEN, `cannot open PostgreSQL execution ledger: ${(error as Error).message}`, { cause: error });
  }
  const sameDatabase = (store: AuditStore) => store.kind === "postgres" && store.url === url;
  /**
   * A data-modifying WITH clause that inserts `audit`'s records into its sink's table (one row per
   * record, from arrays bound at `first`…`first + 9`), so they commit with the statement it opens.
   */
  const auditClause = (audit: LedgerAuditWrite | undefined, first: number): { sql: string; values: unknown[] } => {
    if (!audit || audit.records.length === 0) return { sql: "", values: [] };
    const auditTable = auditTableIn(audit.sink, sameDatabase);
    if (auditTable === undefined) throw new StorageError(ErrorCode.STORAGE_SPEC, "the PostgreSQL execution ledger cannot write this audit sink's records: the sink is not on the ledger's database URL");
    const rows = validateRecords(audit.records).map(auditRowValues);
    const types = ["text", "float8", "text", "text", "text", "text", "text", "text", "text", "json"];
    const arrays = types.map((type, column) => `$${first + column}::${type}[]`);
    return {
      sql: `audit AS (INSERT INTO "${auditTable}" (${AUDIT_INSERT_COLUMNS}) SELECT * FROM unnest(${arrays.join(", ")}) ON CONFLICT (id) DO NOTHING), `,
      values: types.map((_, column) => rows.map((row) => row[column])),
    };
  };
  return {
    kind: "postgres",
    async claimMany(keys, owner, leaseMs, audit) {
      const input = claimSchema.parse({ key: "batch", owner, leaseMs });
      const unique = [...new Set(keysSchema.parse(keys))];
      if (unique.length === 0 && !audit) return [];
      const records = auditClause(audit, 4);
      // One statement, one commit: the audit rows, the claims (insert, or take over an expired
      // running claim, as `claim` does), and each key's outcome read from the statement's snapshot.
      const result = await pool.query<{ key: string; claimed: boolean; state: string | null }>(
        `WITH ${records.sql}claimed AS (
           INSERT INTO ${table} AS l (key, owner, state, expires_at)
           SELECT k, $2, 'running', clock_timestamp() + $3 * interval '1 millisecond' FROM unnest($1::text[]) AS k
           ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at, updated_at = clock_timestamp()
           WHERE l.state = 'running' AND l.expires_at <= clock_timestamp()
           RETURNING key)
         SELECT k.key, EXISTS (SELECT 1 FROM claimed c WHERE c.key = k.key) AS claimed, (SELECT s.state FROM ${table} s WHERE s.key = k.key) AS state
         FROM unnest($1::text[]) AS k(key)`,
        [unique, input.owner, input.leaseMs, ...records.values],
      );
      const outcome = new Map(result.rows.map((row): [string, ClaimOutcome] => [row.key, row.claimed ? "claimed" : row.state === "done" ? "done" : "busy"]));
      // A key given twice is claimed once, as two `claim` calls would have it: the repeat reads "busy".
      const seen = new Set<string>();
      return keys.map((key) => {
        const first = !seen.has(key);
        seen.add(key);
        const got = outcome.get(key) ?? "busy";
        return got === "claimed" && !first ? "busy" : got;
      });
    },
    async completeMany(completions, audit) {
      // One row per key (a statement's upsert may not touch a row twice); the first completion wins, as in `complete`.
      const checked = [...new Map(completionsSchema.parse(completions).reverse().map((c): [string, LedgerCompletion] => [c.key, c])).values()];
      if (checked.length === 0 && !audit) return;
      const records = auditClause(audit, 3);
      await pool.query(
        `WITH ${records.sql}done AS (
           INSERT INTO ${table} AS l (key, owner, state, expires_at, result)
           SELECT k, '', 'done', clock_timestamp(), r FROM unnest($1::text[], $2::text[]) AS c(k, r)
           ON CONFLICT (key) DO UPDATE SET state = 'done', result = excluded.result, updated_at = clock_timestamp()
           WHERE l.state = 'running'
           RETURNING 1)
         SELECT count(*) FROM done`,
        [checked.map((c) => c.key), checked.map((c) => c.result), ...records.values],
      );
    },
    carriesAudit: (sink) => auditTableIn(sink, sameDatabase) !== undefined,
    async claim(key, owner, leaseMs) {
      const input = claimSchema.parse({ key, owner, leaseMs });
      // One statement decides atomically: insert, or take over an expired running claim. The
      // database clock is the only clock, so workers on different hosts agree on expiry.
      const claimed = await pool.query(
        `INSERT INTO ${table} AS l (key, owner, state, expires_at)
         VALUES ($1, $2, 'running', clock_timestamp() + $3 * interval '1 millisecond')
         ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at,
           updated_at = clock_timestamp()
         WHERE l.state = 'running' AND l.expires_at <= clock_timestamp()
         RETURNING key`,
        [input.key, input.owner, input.leaseMs],
      );
      if (claimed.rowCount === 1) return "claimed";
      const state = await pool.query<{ state: string }>(`SELECT state FROM ${table} WHERE key = $1`, [input.key]);
      return state.rows[0]?.state === "done" ? "done" : "busy";
    },
    async complete(key, result) {
      await pool.query(
        `INSERT INTO ${table} AS l (key, owner, state, expires_at, result) VALUES ($1, '', 'done', clock_timestamp(), $2)
         ON CONFLICT (key) DO UPDATE SET state = 'done', result = excluded.result, updated_at = clock_timestamp()
         WHERE l.state = 'running'`,
        [keySchema.parse(key), resultSchema.parse(result)],
      );
    },
    async result(key) {
      const rows = await pool.query<{ result: string | null }>(
        `SELECT result FROM ${table} WHERE key = $1 AND state = 'done'`,
        [keySchema.parse(key)],
      );
      return rows.rows[0]?.result ?? undefined;
    },
    async release(key, owner) {
      await pool.query(`DELETE FROM ${table} WHERE key = $1 AND owner = $2 AND state = 'running'`, [
        keySchema.parse(key),
        owner,
      ]);
    },
    async renew(key, owner, leaseMs) {
      const input = claimSchema.parse({ key, owner, leaseMs });
      const renewed = await pool.query(
        `UPDATE ${table} SET expires_at = clock_timestamp() + $3 * interval '1 millisecond', updated_at = clock_timestamp()
         WHERE key = $1 AND owner = $2 AND state = 'running'`,
        [input.key, input.owner, input.leaseMs],
      );
      return renewed.rowCount === 1;
    },
    async close() {
      await pool.end();
    },
  };
}
