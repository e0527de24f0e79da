/**
 * What the durable turn's two commits cost, apart from the graph (not part of `npm run bench`): the
 * ledger calls of 20 real guarded W1 turns (claims with their decision records, completions with
 * their outcome records, as `createGuardedAgent` makes them) are captured once, then replayed turn by
 * turn with fresh keys and record ids against SQLite files set up in different ways, interleaved in
 * blocks, process CPU per turn, median (p25–p75):
 *   npx tsx bench/lib/ledger-commits.ts [blocks]
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { AuditRecord, AuditSink } from "../../src/audit/index.js";
import { builtRecord } from "../../src/audit/schema.js";
import { AUDIT_INSERT_COLUMNS, auditRowValues } from "../../src/audit/sql-table.js";
import { openAuditSink } from "../../src/audit/open.js";
import { openCheckpointer } from "../../src/storage/checkpointer.js";
import { type ExecutionLedger, type LedgerCompletion, openLedger } from "../../src/storage/ledger.js";
import { guardedAgent, runW1Threads } from "./contenders.js";
import { cpuAndWallMs, rotation, spread } from "./stats.js";

const blocks = Number(process.argv[2] ?? 20);
const dir = mkdtempSync(join(tmpdir(), "gg-ledger-commits-"));

type Step =
  | { kind: "claim"; keys: readonly string[]; records: readonly AuditRecord[] }
  | { kind: "complete"; completions: readonly LedgerCompletion[]; records: readonly AuditRecord[] };

/** The ledger calls of 20 W1 turns (two threads of ten) on a SQLite file, captured in order. */
async function capture(): Promise<Step[]> {
  const file = join(dir, "capture.db");
  const opened = await openCheckpointer(`sqlite:${file}`);
  const inner = await openLedger(`sqlite:${file}`);
  const sink = await openAuditSink(`sqlite:${file}`);
  const steps: Step[] = [];
  // The ledger is a plain object of closures: a copy with two methods wrapped records what they are given.
  const ledger: ExecutionLedger = {
    ...inner,
    claimMany: (keys, owner, leaseMs, audit) => {
      steps.push({ kind: "claim", keys: [...keys], records: [...(audit?.records ?? [])] });
      return inner.claimMany(keys, owner, leaseMs, audit);
    },
    completeMany: (completions, audit) => {
      steps.push({ kind: "complete", completions: [...completions], records: [...(audit?.records ?? [])] });
      return inner.completeMany(completions, audit);
    },
  };
  const c = guardedAgent({ turnsPerRun: 10, checkpointer: () => opened.checkpointer, audit: sink, ledger });
  await runW1Threads(c, "capture", 20);
  await sink.close();
  await inner.close();
  await opened.close();
  return steps;
}

const fresh = (value: string, n: number) => createHash("sha256").update(`${value}\u0000${n}`).digest("hex").slice(0, 32);

interface Variant {
  id: string;
  ledger: ExecutionLedger;
  sink: AuditSink;
  n: number;
}

async function variant(id: string, setUp?: (file: string) => void): Promise<Variant> {
  const file = join(dir, `${id}.db`);
  const ledger = await openLedger(`sqlite:${file}`);
  const sink = await openAuditSink(`sqlite:${file}`);
  setUp?.(file);
  return { id, ledger, sink, n: 0 };
}

async function replay(v: Variant, steps: readonly Step[]): Promise<void> {
  v.n += 1;
  const n = v.n;
  const thread = `t${n}`;
  for (const step of steps) {
    const records = step.records.map((r) => builtRecord({ ...r, id: fresh(r.id, n), threadId: `${r.threadId}-${thread}` }));
    if (step.kind === "claim") await v.ledger.claimMany(step.keys.map((k) => fresh(k, n)), "owner", 60_000, { sink: v.sink, records });
    else await v.ledger.completeMany(step.completions.map((c) => ({ key: fresh(c.key, n), result: c.result })), { sink: v.sink, records });
  }
}

/**
 * The ledger's and the audit sink's SQL on a file of its own, with the journal's sync and the audit
 * table's layout as given: what each part of the two commits costs.
 */
function rawVariant(id: string, opts: { synced: boolean; audit: "id-key" | "thread-id-key" | "none" }): Variant {
  const db = new Database(join(dir, `${id}.db`));
  db.pragma("journal_mode = WAL");
  db.pragma(`synchronous = ${opts.synced ? "FULL" : "NORMAL"}`);
  db.exec(`CREATE TABLE ledger (key TEXT PRIMARY KEY, owner TEXT NOT NULL, state TEXT NOT NULL CHECK (state IN ('running', 'done')), expires_at INTEGER NOT NULL, result TEXT, updated_at INTEGER NOT NULL)`);
  const idColumn = opts.audit === "id-key" ? "id TEXT PRIMARY KEY NOT NULL" : "id TEXT NOT NULL";
  db.exec(`CREATE TABLE audit (${idColumn}, at INTEGER NOT NULL, thread_id TEXT NOT NULL, run_id TEXT NOT NULL, tool_call_id TEXT NOT NULL, tool TEXT NOT NULL, event TEXT NOT NULL, decision TEXT NOT NULL, rule_id TEXT NOT NULL, record TEXT NOT NULL);
    CREATE INDEX audit_thread_at ON audit (thread_id, at); CREATE INDEX audit_at ON audit (at);`);
  if (opts.audit === "thread-id-key") db.exec("CREATE UNIQUE INDEX audit_thread_id ON audit (thread_id, id)");
  const claim = db.prepare(`INSERT INTO ledger AS l (key, owner, state, expires_at, result, updated_at) VALUES (?, ?, 'running', ?, NULL, ?)
     ON CONFLICT(key) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at, updated_at = excluded.updated_at
     WHERE l.state = 'running' AND l.expires_at <= ? RETURNING 1`).pluck();
  const complete = db.prepare(`INSERT INTO ledger (key, owner, state, expires_at, result, updated_at) VALUES (?, '', 'done', 0, ?, ?)
     ON CONFLICT(key) DO UPDATE SET state = 'done', result = excluded.result, updated_at = excluded.updated_at WHERE ledger.state = 'running'`);
  const insert = db.prepare(`INSERT OR IGNORE INTO audit (${AUDIT_INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const write = (records: readonly AuditRecord[]) => {
    if (opts.audit !== "none") for (const r of records) insert.run(...auditRowValues(r));
  };
  const claimTx = db.transaction((keys: readonly string[], records: readonly AuditRecord[]) => {
    write(records);
    const now = Date.now();
    return keys.map((k) => (claim.get(k, "owner", now + 60_000, now, now) !== undefined ? "claimed" : "busy"));
  });
  const completeTx = db.transaction((completions: readonly LedgerCompletion[], records: readonly AuditRecord[]) => {
    const now = Date.now();
    for (const c of completions) complete.run(c.key, c.result, now);
    write(records);
  });
  const refuse = () => Promise.reject(new Error("not used"));
  const ledger: ExecutionLedger = {
    kind: "sqlite",
    claim: refuse,
    complete: refuse,
    result: refuse,
    release: refuse,
    renew: refuse,
    carriesAudit: () => true,
    claimMany: async (keys, _owner, _lease, audit) => claimTx.immediate(keys, audit?.records ?? []) as never,
    completeMany: async (completions, audit) => completeTx.immediate(completions, audit?.records ?? []),
    close: async () => {
      db.close();
    },
  };
  return { id, ledger, sink: { write: async () => undefined, query: async () => [], close: async () => undefined } as unknown as AuditSink, n: 0 };
}

const steps = await capture();
const turns = steps.filter((s) => s.kind === "claim").length;
console.log(`captured ${steps.length} ledger calls for ${turns} batches; ${steps.reduce((n, s) => n + s.records.length, 0) / turns} records per batch`);
const variants = [
  await variant("current"),
  rawVariant("raw", { synced: true, audit: "id-key" }),
  rawVariant("raw-nosync", { synced: false, audit: "id-key" }),
  rawVariant("raw-thread", { synced: true, audit: "thread-id-key" }),
  rawVariant("raw-noaudit", { synced: true, audit: "none" }),
  rawVariant("raw-noaudit-nosync", { synced: false, audit: "none" }),
];
for (const v of variants) for (let w = 0; w < 5; w++) await replay(v, steps);
const cpu: Record<string, number[]> = {};
for (let r = 0; r < blocks; r++) {
  for (const v of rotation(variants, r)) (cpu[v.id] ??= []).push((await cpuAndWallMs(() => replay(v, steps))).cpu / turns);
}
for (const v of variants) {
  const s = spread(cpu[v.id]!);
  console.log(`${v.id.padEnd(20)} ${(s.median * 1000).toFixed(0)} µs CPU per batch (claim + complete) (p25–p75 ${(s.p25 * 1000).toFixed(0)}–${(s.p75 * 1000).toFixed(0)})`);
  await v.sink.close();
  await v.ledger.close();
}
rmSync(dir, { recursive: true, force: true });
