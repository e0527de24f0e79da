/**
 * SIGKILL at every step boundary of a guarded turn, on SQLite and PostgreSQL: the worker kills
 * itself right after the boundary (after a tool's side effect, after the ledger completes a call,
 * after a call's checkpoint write, after the n-th full checkpoint, during the approval wait), then
 * one fresh worker recovers every crashed thread: continueThread while it has work, resumeThread
 * (approving) when it waits for an approval.
 *
 * Counted over all runs: double executions of calls that had completed before the kill (ledger or
 * checkpoint write), lost calls, stuck threads, tool calls without exactly one ToolMessage — all 0.
 * Under durability "async" a thread can also read "run-lost" (readThreadProgress): counted apart,
 * with its reason, then started again with its input; a thread left unfinished is stuck. Under
 * createGuardedAgent's "sync" no thread may read "run-lost"; one killed before anything of its run
 * was saved is empty and is started again with its input (counted as emptyRestarted).
 *
 * GG_CRASH_RUNS sets the runs per boundary and database (default 2, so `npm test` stays short;
 * .ci/run sets 8).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { KillPoint, WorkerConfig, WorkerSummary } from "./fixtures/workers/agent-worker.js";
import { parseEffectLines } from "./fixtures/workers/effects.js";
import type { EffectEvent, EffectPhase, EffectsTarget } from "./fixtures/workers/effects.js";
import { approvalScenario, expectedKey } from "./fixtures/workers/scenarios.js";
import { killAllWorkers, spawnWorker } from "./fixtures/workers/spawn.js";
import { postgresConfigured, postgresForTests, uniqueName } from "./helpers/postgres.js";
import type { ScenarioInput } from "../src/model/scenario.js";
import { openCheckpointer } from "../src/storage/checkpointer.js";
import { openLedger } from "../src/storage/ledger.js";
import { openAuditSink } from "../src/audit/open.js";
import type { AuditRecord } from "../src/audit/types.js";

/** Every audit record of a thread, read through a sink of its own. */
async function auditRecordsIn(spec: NonNullable<WorkerConfig["audit"]>, threadId: string): Promise<AuditRecord[]> {
  const sink = await openAuditSink(spec);
  try {
    return await sink.query({ threadId });
  } finally {
    await sink.close();
  }
}

const RUNS = Math.max(1, Number(process.env.GG_CRASH_RUNS ?? 2));
/** Crashing workers started at once (the machine is shared). */
const PARALLEL = 4;

const tmp = mkdtempSync(join(tmpdir(), "gg-crash-"));
afterEach(killAllWorkers);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** One turn of two batches: two fast safe calls and a slower one in parallel, then an unsafe call alone. With the ledger the whole turn is one task. */
const boundaryScenario: ScenarioInput = {
  name: "boundary",
  turns: [
    {
      tool_calls: [
        { name: "effect", args: { label: "fast1", ms: 20, safe: true } },
        { name: "effect", args: { label: "fast2", ms: 60, safe: true } },
        { name: "effect", args: { label: "slow", ms: 250, safe: true } },
        { name: "effect", args: { label: "after", ms: 20, safe: false } },
      ],
    },
    { text: "boundary done" },
  ],
};
const BOUNDARY_LABELS = ["fast1", "fast2", "slow", "after"];

/** One parallel batch only. */
const oneBatchScenario: ScenarioInput = {
  name: "one-batch",
  turns: [
    {
      tool_calls: [
        { name: "effect", args: { label: "fast1", ms: 20, safe: true } },
        { name: "effect", args: { label: "fast2", ms: 60, safe: true } },
        { name: "effect", args: { label: "slow", ms: 250, safe: true } },
      ],
    },
    { text: "boundary done" },
  ],
};
const ONE_BATCH_LABELS = ["fast1", "fast2", "slow"];
const APPROVAL_LABELS = ["d1", "e1", "d2"];

interface Boundary {
  name: string;
  scenario: ScenarioInput;
  labels: string[];
  finalText: string;
  killAt: (run: number) => KillPoint;
  /** Whether the workers have the execution ledger (default true): without it, each call is its own task. */
  ledger?: boolean;
  /** Delay each checkpoint write (ms) in the crashing workers. */
  slowCheckpointMs?: number;
  /** The runs' own LangGraph durability (run config), over createGuardedAgent's "sync" default. */
  durability?: "async";
  /** Build the graph without a checkpointer and assign it afterwards, as LangGraph Platform's server does. */
  assignCheckpointer?: boolean;
  /** Runs: GG_CRASH_RUNS divided by this (rounded up; default 1), for boundaries whose runs all reach one state. */
  runsDivisor?: number;
  /**
   * The audit log in the database of the ledger (SQLite: the same file; PostgreSQL: the same URL):
   * a batch's claims commit with its decisions, completions with their outcomes. Then counted too:
   * calls that started without their decision on record, and calls left without an outcome record.
   */
  audit?: boolean;
}

const runsOf = (boundary: Boundary) => Math.max(1, Math.ceil(RUNS / (boundary.runsDivisor ?? 1)));

const BOUNDARIES: Boundary[] = [
  { name: "after a tool's side effect", scenario: boundaryScenario, labels: BOUNDARY_LABELS, finalText: "boundary done", killAt: (run) => ({ phase: "effect-end", label: BOUNDARY_LABELS[run % 4] }) },
  { name: "after the ledger completed a call", scenario: boundaryScenario, labels: BOUNDARY_LABELS, finalText: "boundary done", killAt: (run) => ({ phase: "ledger-done", label: BOUNDARY_LABELS[run % 4] }) },
  { name: "after a call's checkpoint write", scenario: boundaryScenario, labels: BOUNDARY_LABELS, finalText: "boundary done", killAt: (run) => ({ phase: "write-saved", label: BOUNDARY_LABELS[run % 4] }) },
  // With the ledger the run writes 4 checkpoints (input, model step, the one-task turn, the final
  // model step): the kill comes after the 2nd, 3rd or 4th, varying with the run.
  { name: "after a full checkpoint write", scenario: boundaryScenario, labels: BOUNDARY_LABELS, finalText: "boundary done", killAt: (run) => ({ phase: "checkpoint", nth: 2 + (run % 3) }) },
  { name: "after the ledger completed a call, slow checkpoint writes", scenario: boundaryScenario, labels: BOUNDARY_LABELS, finalText: "boundary done", slowCheckpointMs: 150, killAt: (run) => ({ phase: "ledger-done", label: BOUNDARY_LABELS[run % 4] }) },
  { name: "one-batch turn, after the ledger completed a call", scenario: oneBatchScenario, labels: ONE_BATCH_LABELS, finalText: "boundary done", killAt: (run) => ({ phase: "ledger-done", label: ONE_BATCH_LABELS[run % 3] }) },
  { name: "one-batch turn, after a tool's side effect", scenario: oneBatchScenario, labels: ONE_BATCH_LABELS, finalText: "boundary done", killAt: (run) => ({ phase: "effect-end", label: ONE_BATCH_LABELS[run % 3] }) },
  { name: "during the approval wait", scenario: approvalScenario, labels: APPROVAL_LABELS, finalText: "all done", killAt: () => ({ phase: "approval-wait" }) },
  // The same with every checkpoint write 150 ms late: the interrupt's write is saved while its step's checkpoint is still on its way.
  { name: "during the approval wait, slow checkpoint writes", scenario: approvalScenario, labels: APPROVAL_LABELS, finalText: "all done", slowCheckpointMs: 150, killAt: () => ({ phase: "approval-wait" }) },
  // Killed right after the run's input was saved by the graph's first step (__start__) while the
  // input checkpoint is still on its way (every checkpoint write 150 ms late): LangGraph does not
  // await the input checkpoint before the first step's tasks run, even under "sync".
  // All runs reach one state, so half the runs. Killed halfway through that late input checkpoint
  // write instead, nothing of the run is saved now (the thread is empty: started again).
  { name: "first step, its input write saved, input checkpoint slow", scenario: boundaryScenario, labels: BOUNDARY_LABELS, finalText: "boundary done", slowCheckpointMs: 150, runsDivisor: 2, killAt: () => ({ phase: "input-write-saved" }) },
  { name: "first step, input checkpoint write half done", scenario: boundaryScenario, labels: BOUNDARY_LABELS, finalText: "boundary done", slowCheckpointMs: 150, runsDivisor: 2, killAt: () => ({ phase: "checkpoint-pending" }) },
  // The same with the checkpointer assigned to the compiled graph afterwards, as LangGraph
  // Platform's server assigns its own before each run (createGuardedAgent wraps it then too).
  { name: "first step, its input write saved, input checkpoint slow, checkpointer assigned as LangGraph Platform does", scenario: boundaryScenario, labels: BOUNDARY_LABELS, finalText: "boundary done", slowCheckpointMs: 150, runsDivisor: 2, assignCheckpointer: true, killAt: () => ({ phase: "input-write-saved" }) },
  // Without a ledger (and on a durable checkpointer) each call is its own task: its saved writes keep it from running again.
  // The same under LangGraph's "async" durability, passed in the run config (as a graph compiled by
  // the user runs by default): every checkpoint is saved in the background, chained after the one
  // before, while task writes are saved at once. Killed at the interrupt write, the checkpointer held
  // no checkpoint of the thread, only writes under the 4 checkpoint ids the run never saved (input,
  // model step, execute, review's __interrupt__): the latest checkpoint read as "nothing left to run".
  // readThreadProgress reports the run lost instead; the supervisor starts it again with its input.
  // All runs reach one state, so half the runs. After the ledger completed a call (a fifth of the
  // runs: each label once at 20): a lost run started again gets the same call ids from the scripted
  // model, so the ledger returns the completed calls' results (a real model's new ids would not).
  { name: "during the approval wait, slow checkpoint writes, durability async", scenario: approvalScenario, labels: APPROVAL_LABELS, finalText: "all done", slowCheckpointMs: 150, durability: "async", runsDivisor: 2, killAt: () => ({ phase: "approval-wait" }) },
  { name: "after the ledger completed a call, slow checkpoint writes, durability async", scenario: boundaryScenario, labels: BOUNDARY_LABELS, finalText: "boundary done", slowCheckpointMs: 150, durability: "async", runsDivisor: 5, killAt: (run) => ({ phase: "ledger-done", label: BOUNDARY_LABELS[run % 4] }) },
  // One commit per batch: the ledger and the audit log in one database. Killed right after a batch's
  // claims and decisions committed, before any of its calls started (the first batch or the second),
  // after a completion and its outcome committed, and after a side effect whose completion had not.
  { name: "ledger and audit in one database, after a batch's claims and decisions committed", scenario: boundaryScenario, labels: BOUNDARY_LABELS, finalText: "boundary done", audit: true, killAt: (run) => ({ phase: "batch-claimed", nth: 1 + (run % 2) }) },
  { name: "ledger and audit in one database, after a completion and its outcome committed", scenario: boundaryScenario, labels: BOUNDARY_LABELS, finalText: "boundary done", audit: true, killAt: (run) => ({ phase: "ledger-done", label: BOUNDARY_LABELS[run % 4] }) },
  { name: "ledger and audit in one database, after a tool's side effect", scenario: boundaryScenario, labels: BOUNDARY_LABELS, finalText: "boundary done", audit: true, killAt: (run) => ({ phase: "effect-end", label: BOUNDARY_LABELS[run % 4] }) },
  { name: "no ledger (one task per call), after a call's checkpoint write", scenario: boundaryScenario, labels: BOUNDARY_LABELS, finalText: "boundary done", ledger: false, killAt: (run) => ({ phase: "write-saved", label: BOUNDARY_LABELS[run % 4] }) },
  { name: "no ledger (one task per call), after a full checkpoint write", scenario: boundaryScenario, labels: BOUNDARY_LABELS, finalText: "boundary done", ledger: false, killAt: (run) => ({ phase: "checkpoint", nth: 2 + (run % 6) }) },
  // The same with every checkpoint write 150 ms late: a call's writes are saved while its step's
  // checkpoint is still on its way. Under LangGraph's default "async" durability a crash there ran
  // finished calls again (createGuardedAgent without a ledger now runs with "sync" by default).
  { name: "no ledger, slow checkpoint writes, after a call's checkpoint write", scenario: boundaryScenario, labels: BOUNDARY_LABELS, finalText: "boundary done", ledger: false, slowCheckpointMs: 150, killAt: (run) => ({ phase: "write-saved", label: BOUNDARY_LABELS[run % 4] }) },
];

const approveAll = { decisions: [{ type: "approve" }, { type: "approve" }] };
const callIdOf = (labels: string[], label: string) => `call_0_${labels.indexOf(label)}`;

interface Store {
  name: string;
  base: (threadId: string) => Omit<WorkerConfig, "mode" | "scenario" | "workerId">;
  events: () => Promise<EffectEvent[]>;
  /** The audit spec in the ledger's database, and the records it holds for a thread. */
  audit: { spec: NonNullable<WorkerConfig["audit"]>; records: (threadId: string) => Promise<AuditRecord[]> };
}

interface Counts {
  runs: number;
  completedBeforeKill: number;
  doubleExecutionsOfCompleted: number;
  rerunAfterSideEffect: number;
  lost: number;
  stuck: number;
  badAnswers: number;
  /** Threads readThreadProgress reported "run-lost" (then started again with their input). */
  runLost: number;
  /** Threads with nothing of their run saved (empty: started again with their input). */
  emptyRestarted: number;
  /** With the audit in the ledger's database: calls that started without their decision on record. */
  startedWithoutDecision: number;
  /** With the audit in the ledger's database: calls without an outcome record after the recovery. */
  withoutOutcome: number;
}

async function crashRuns(store: Store, boundary: Boundary): Promise<Counts> {
  const threads = Array.from({ length: runsOf(boundary) }, (_, i) => `${store.name}-${uniqueName("t")}-${i}`);
  // 1. Each thread in its own worker, which SIGKILLs itself at the boundary.
  for (let i = 0; i < threads.length; i += PARALLEL) {
    const wave = threads.slice(i, i + PARALLEL).map((threadId, j) =>
      spawnWorker({ ...store.base(threadId), ...(boundary.audit ? { audit: store.audit.spec } : {}), mode: "start", scenario: boundary.scenario, workerId: `A${i + j}`, ledger: boundary.ledger ?? true, ledgerLeaseMs: 1_000, killAt: boundary.killAt(i + j), ...(boundary.slowCheckpointMs ? { slowCheckpointMs: boundary.slowCheckpointMs } : {}), ...(boundary.durability ? { durability: boundary.durability } : {}), ...(boundary.assignCheckpointer ? { assignCheckpointer: true } : {}) }),
    );
    const exits = await Promise.all(wave.map((w) => w.exited));
    // The precondition: every worker died at its boundary (none ran to the end).
    for (const [k, exit] of exits.entries()) expect(exit.signal, wave[k]?.stderr()).toBe("SIGKILL");
  }
  const beforeContinue = await store.events();
  // 2. One fresh worker picks every thread up.
  const b = await spawnWorker(
    {
      ...store.base(threads[0] as string),
      ...(boundary.audit ? { audit: store.audit.spec } : {}),
      mode: "recover",
      resume: approveAll,
      scenario: boundary.scenario,
      workerId: "B",
      ledger: boundary.ledger ?? true,
      ledgerLeaseMs: 1_000,
      waitMs: 20_000,
      threadIds: threads,
      ...(boundary.durability ? { durability: boundary.durability } : {}),
      ...(boundary.assignCheckpointer ? { assignCheckpointer: true } : {}),
    },
    180_000,
  ).done;
  const after = await store.events();
  const counts: Counts = { runs: threads.length, completedBeforeKill: 0, doubleExecutionsOfCompleted: 0, rerunAfterSideEffect: 0, lost: 0, stuck: 0, badAnswers: 0, runLost: 0, emptyRestarted: 0, startedWithoutDecision: 0, withoutOutcome: 0 };
  for (const [i, threadId] of threads.entries()) {
    const summary = b.threads?.[i] as WorkerSummary;
    expect(summary.threadId).toBe(threadId);
    if (summary.runLost !== undefined) {
      counts.runLost += 1;
      // Reported with its cause, never read as "done".
      expect(summary.runLost).toMatch(/last run was lost: .* never saved/);
      if (counts.runLost === 1) process.stdout.write(`run lost ${threadId}: ${summary.runLost}\n`);
    }
    if (summary.emptyRestarted) counts.emptyRestarted += 1;
    if (!summary.finished || summary.finalText !== boundary.finalText) {
      counts.stuck += 1;
      process.stdout.write(`stuck ${threadId}: ${JSON.stringify({ status: summary.status, reason: summary.reason, pending: summary.pending, finalText: summary.finalText })}\n`);
    }
    const answers = summary.toolMessages.map((m) => m.id).sort();
    if (JSON.stringify(answers) !== JSON.stringify([...summary.toolCalls].sort()) || summary.toolCalls.length !== boundary.labels.length) counts.badAnswers += 1;
    for (const label of boundary.labels) {
      const key = expectedKey(threadId, boundary.scenario.name, callIdOf(boundary.labels, label));
      const phases = (events: EffectEvent[], phase: EffectPhase) => events.filter((e) => e.key === key && e.phase === phase).length;
      const completed = phases(beforeContinue, "ledger-done") > 0 || phases(beforeContinue, "recorded") > 0;
      const starts = phases(after, "start");
      if (completed) {
        counts.completedBeforeKill += 1;
        if (starts > 1) counts.doubleExecutionsOfCompleted += 1;
      } else if (phases(beforeContinue, "end") > 0 && starts > 1) {
        // killed after the side effect and before any record of it: re-run with the same idempotency key
        counts.rerunAfterSideEffect += 1;
      }
      if (phases(after, "end") === 0 || summary.toolMessages.find((m) => m.id === callIdOf(boundary.labels, label))?.status !== "success") counts.lost += 1;
    }
    if (boundary.audit) {
      const records = await store.audit.records(threadId);
      for (const label of boundary.labels) {
        const callId = callIdOf(boundary.labels, label);
        const key = expectedKey(threadId, boundary.scenario.name, callId);
        const allowed = records.some((r) => r.toolCallId === callId && r.event === "decision" && r.decision === "allow");
        if (after.some((e) => e.key === key && e.phase === "start") && !allowed) counts.startedWithoutDecision += 1;
        if (!records.some((r) => r.toolCallId === callId && r.event === "outcome" && r.decision === "success")) counts.withoutOutcome += 1;
      }
    }
  }
  return counts;
}

function expectClean(store: string, boundary: Boundary, counts: Counts) {
  // One line per boundary and database: the counts the issue asks for.
  process.stdout.write(`crash-boundaries ${store} | ${boundary.name} | ${JSON.stringify(counts)}\n`);
  expect(counts).toMatchObject({ doubleExecutionsOfCompleted: 0, lost: 0, stuck: 0, badAnswers: 0, startedWithoutDecision: 0, withoutOutcome: 0 });
  // Under createGuardedAgent's "sync" default a killed run is never lost: it resumes, or nothing of it was saved.
  if (boundary.durability !== "async") expect(counts.runLost).toBe(0);
}

describe("SIGKILL at every step boundary, on a SQLite file", () => {
  let n = 0;
  const store = (): Store => {
    n += 1;
    const path = join(tmp, `effects-${n}.log`);
    const db = `sqlite:${join(tmp, `crash-${n}.db`)}`;
    const effects: EffectsTarget = { kind: "file", path };
    const file = join(tmp, `crash-${n}.db`);
    return {
      name: "sqlite",
      base: (threadId) => ({ db, threadId, effects, leaseMs: 500 }),
      events: async () => (existsSync(path) ? parseEffectLines(readFileSync(path, "utf8")) : []),
      audit: { spec: `sqlite:${file}`, records: (threadId) => auditRecordsIn(`sqlite:${file}`, threadId) },
    };
  };
  for (const boundary of BOUNDARIES) {
    it(`${boundary.name}: ${runsOf(boundary)} run(s)`, async () => {
      expectClean("sqlite", boundary, await crashRuns(store(), boundary));
    }, 120_000 + RUNS * 20_000);
  }
});

describe.runIf(postgresConfigured)("SIGKILL at every step boundary, on PostgreSQL", () => {
  const schema = uniqueName("gg_crash");
  const table = `"${schema}".effects`;
  const auditTable = uniqueName("gg_crash_audit");
  let pool: pg.Pool | undefined;
  let ready: Promise<string | undefined> | undefined;
  const database = () =>
    (ready ??= (async () => {
      const url = await postgresForTests();
      if (!url) return undefined;
      pool = new pg.Pool({ connectionString: url, max: 2 });
      await pool.query(`CREATE SCHEMA "${schema}"`);
      await pool.query(`CREATE TABLE ${table} (id BIGSERIAL PRIMARY KEY, key TEXT NOT NULL, label TEXT NOT NULL, phase TEXT NOT NULL, pid INTEGER NOT NULL)`);
      // Create the checkpoint and ledger tables once: workers started together on a fresh schema
      // race on the checkpointer's migrations ("duplicate key … checkpoint_migrations_pkey").
      const checkpoints = await openCheckpointer(url, { schema });
      await checkpoints.close();
      const ledger = await openLedger(url, { schema });
      await ledger.close();
      return url;
    })());
  afterAll(async () => {
    await pool?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool?.query(`DROP TABLE IF EXISTS "${auditTable}"`);
    await pool?.end();
  });
  for (const boundary of BOUNDARIES) {
    it(`${boundary.name}: ${runsOf(boundary)} run(s)`, async () => {
      const url = await database();
      if (!url || !pool) return;
      const client = pool;
      const store: Store = {
        name: "postgres",
        base: (threadId) => ({ db: url, schema, threadId, effects: { kind: "postgres", url, table } }),
        events: async () => (await client.query<EffectEvent>(`SELECT key, label, phase, pid FROM ${table} ORDER BY id`)).rows,
        audit: { spec: { sink: "postgres", url, table: auditTable }, records: (threadId) => auditRecordsIn({ sink: "postgres", url, table: auditTable }, threadId) },
      };
      expectClean("postgres", boundary, await crashRuns(store, boundary));
    }, 120_000 + RUNS * 20_000);
  }
});
