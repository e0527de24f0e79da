/**
 * Two processes answer one approval at once WITHOUT the thread lock (a plain
 * `graph.invoke(new Command({ resume }))` in each), with the execution ledger on: the decision that
 * wins the ledger's claim is the one that runs, the one the audit's human record names and the one
 * every ToolMessage of the thread (and of each process's own result) reports; the other answer is
 * told it was superseded, audited as such, and changes nothing.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { PostgresAuditSink } from "../src/audit/postgres.js";
import { SqliteAuditSink } from "../src/audit/sqlite.js";
import type { AuditRecord, AuditSink } from "../src/audit/types.js";
import type { ScenarioInput } from "../src/model/scenario.js";
import type { WorkerConfig } from "./fixtures/workers/agent-worker.js";
import { parseEffectLines } from "./fixtures/workers/effects.js";
import type { EffectEvent } from "./fixtures/workers/effects.js";
import { expectedKey } from "./fixtures/workers/scenarios.js";
import { killAllWorkers, spawnWorker } from "./fixtures/workers/spawn.js";
import { postgresConfigured, postgresForTests, uniqueName } from "./helpers/postgres.js";

const TRIALS = Number(process.env.GG_RACE_TRIALS ?? 10);
const tmp = mkdtempSync(join(tmpdir(), "gg-answer-race-"));
afterEach(killAllWorkers);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** One call that asks (deploy is high risk), then a final answer. */
const scenario: ScenarioInput = {
  name: "answer-race",
  turns: [{ tool_calls: [{ name: "deploy", args: { label: "d1", ms: 150 } }] }, { text: "done" }],
};
const CALL = "call_0_0";

type Kind = "approve" | "reject" | "edit";
function answer(kind: Kind, actor: string): unknown {
  const decision =
    kind === "approve"
      ? { type: "approve" }
      : kind === "reject"
        ? { type: "reject", message: `no from ${actor}` }
        : { type: "edit", editedAction: { name: "deploy", args: { label: "d1e", ms: 150 } } };
  return { decisions: [decision], actor };
}

/** What the thread must show for the decision that ran. */
function expectedFor(kind: Kind, actor: string): { starts: string[]; content: (c: string) => boolean; describe: string } {
  if (kind === "approve") return { starts: ["d1"], content: (c) => c === "d1 ok", describe: "d1 ok" };
  if (kind === "edit") return { starts: ["d1e"], content: (c) => c === "d1e ok", describe: "d1e ok" };
  return { starts: [], content: (c) => c.startsWith("Refused deploy by a human reviewer: no from " + actor), describe: `refused by ${actor}` };
}

interface Backend {
  base(name: string): Pick<WorkerConfig, "db" | "schema" | "effects" | "audit"> & { threadId: string };
  events(): Promise<EffectEvent[]>;
  audit(): Promise<AuditSink>;
}

async function runRace(backend: Backend, name: string, first: Kind, second: Kind) {
  const base = backend.base(name);
  const threadIds = Array.from({ length: TRIALS }, (_, i) => `${base.threadId}-${i}`);
  const common = { ...base, scenario, ledger: true, threadIds, toolTimeoutMs: 5_000, hardLimitMs: 290_000 };
  const started = await spawnWorker({ ...common, mode: "start", workerId: "starter" }, 300_000).done;
  for (const t of started.threads ?? []) expect(t.pending, t.threadId).toEqual([CALL]);

  const barrier = join(tmp, uniqueName("barrier"));
  mkdirSync(barrier);
  const racers = [
    spawnWorker({ ...common, mode: "resume-unlocked", resume: answer(first, "W1"), workerId: "W1", barrier: { dir: barrier, parties: 2 } }, 300_000),
    spawnWorker({ ...common, mode: "resume-unlocked", resume: answer(second, "W2"), workerId: "W2", barrier: { dir: barrier, parties: 2 } }, 300_000),
  ];
  const [w1, w2] = await Promise.all(racers.map((r) => r.done));
  const inspected = await spawnWorker({ ...common, mode: "inspect", workerId: "inspector" }, 300_000).done;

  const sink = await backend.audit();
  const events = await backend.events();
  const kinds: Record<string, Kind> = { W1: first, W2: second };
  const wins = { W1: 0, W2: 0 };
  let lateLosers = 0;
  // Losers whose answer reached the thread after the winner's answer was applied, while its run went on (told in a later step).
  let toldLater = 0;
  const unreachedLosers = new Set<number>();
  const late = (i: number) => [w1, w2].some((w, k) => w?.threads?.[i]?.stepsRun === 0 && (human(i) ?? "") !== `W${k + 1}`);
  const humanActors: (string | undefined)[] = [];
  const human = (i: number) => humanActors[i];
  const problems: string[] = [];
  try {
    for (const [i, threadId] of threadIds.entries()) {
      const records: AuditRecord[] = await sink.query({ threadId });
      const human = records.filter((r) => r.event === "human" && r.toolCallId === CALL && r.decision !== "superseded");
      const superseded = records.filter((r) => r.event === "human" && r.decision === "superseded");
      expect(human, `${threadId}: one human record`).toHaveLength(1);
      const winner = human[0]?.actor ?? "";
      humanActors[i] = winner;
      const loser = winner === "W1" ? "W2" : "W1";
      if (winner === "W1" || winner === "W2") wins[winner] += 1;
      const kind = kinds[winner] as Kind;
      const expected = expectedFor(kind, winner);
      if (human[0]?.decision !== kind) problems.push(`${threadId}: human record ${human[0]?.decision} by ${winner}, but ${winner} answered ${kind}`);
      const key = expectedKey(threadId, scenario.name, CALL);
      const starts = events.filter((e) => e.key === key && e.phase === "start").map((e) => e.label);
      if (JSON.stringify(starts) !== JSON.stringify(expected.starts)) problems.push(`${threadId}: ran ${JSON.stringify(starts)}, the record names ${kind} by ${winner}`);
      const finalMessages = (inspected.threads?.[i]?.toolMessages ?? []).filter((m) => m.id === CALL);
      if (finalMessages.length !== 1 || !expected.content(finalMessages[0]?.content ?? "")) {
        problems.push(`${threadId}: thread's ToolMessages ${JSON.stringify(finalMessages.map((m) => m.content))}, expected ${expected.describe}`);
      }
      for (const [who, summary] of [["W1", w1], ["W2", w2]] as const) {
        const own = (summary?.threads?.[i]?.ownToolMessages ?? []).filter((m) => m.id === CALL);
        if (own.length !== 1 || !expected.content(own[0]?.content ?? "")) {
          problems.push(`${threadId}: ${who}'s result says ${JSON.stringify(own.map((m) => m.content))}, expected ${expected.describe}`);
        }
        const told = summary?.threads?.[i]?.superseded;
        // A loser whose answer came after the winner's whole run (no step ran: LangGraph applies no
        // resume to a thread that no longer waits) is not a race; it is counted, and decided nothing.
        const late = who === loser && summary?.threads?.[i]?.stepsRun === 0;
        if (late) lateLosers += 1;
        // A loser whose run made steps but no guard step of it read its answer: LangGraph found the
        // approval's task already completed by the winner on the same checkpoint, reused its writes
        // and handed this answer to no step (the guard cannot see it). Counted and printed; it
        // decided nothing (the checks above and below hold for it).
        const unreached = who === loser && !late && told === undefined && !(summary?.threads?.[i]?.guardEvents ?? []).includes(CALL);
        if (unreached) unreachedLosers.add(i);
        if (who === loser && (told as { late?: boolean } | undefined)?.late === true) toldLater += 1;
        if (who === loser && told === undefined && !late && !unreached) problems.push(`${threadId}: the loser ${who} was not told its answer was superseded`);
        if (who === winner && told !== undefined) problems.push(`${threadId}: the winner ${who} was told it was superseded`);
      }
      if (superseded.length !== (late(i) || unreachedLosers.has(i) ? 0 : 1) || (superseded[0] !== undefined && superseded[0].actor !== loser)) {
        problems.push(`${threadId}: superseded records ${JSON.stringify(superseded.map((r) => r.actor))}, expected one by ${loser}`);
      }
      expect(inspected.threads?.[i]?.finished, threadId).toBe(true);
    }
  } finally {
    await sink.close();
  }
  expect(problems).toEqual([]);
  // Most trials must be real races (both answers reviewed), or the test shows nothing.
  expect(lateLosers, "losers whose answer came after the winner's whole run").toBeLessThanOrEqual(Math.floor(TRIALS / 4));
  expect(lateLosers + unreachedLosers.size, "losers whose answer no guard step read").toBeLessThanOrEqual(Math.floor(TRIALS / 2));
  return { ...wins, late: lateLosers, toldLater, unreached: unreachedLosers.size };
}

const PAIRS: [Kind, Kind][] = [
  ["approve", "approve"],
  ["approve", "reject"],
  ["approve", "edit"],
];

describe("two processes answer one approval at once without the lock (SQLite, ledger on)", () => {
  let n = 0;
  const backend: Backend = {
    base(name) {
      n += 1;
      const file = join(tmp, `${name}-${n}`);
      this.events = async () => (existsSync(`${file}.log`) ? parseEffectLines(readFileSync(`${file}.log`, "utf8")) : []);
      this.audit = () => SqliteAuditSink.open(`${file}-audit.db`);
      return { db: `sqlite:${file}.db`, threadId: `${name}-${n}`, effects: { kind: "file", path: `${file}.log` }, audit: `sqlite:${file}-audit.db` };
    },
    events: async () => [],
    audit: () => Promise.reject(new Error("no case")),
  };
  for (const [a, b] of PAIRS) {
    it(`${a} + ${b}: one execution, and the audit and every ToolMessage name the decision that ran; the loser is told`, async () => {
      const wins = await runRace(backend, `${a}-${b}`, a, b);
      expect(wins.W1 + wins.W2).toBe(TRIALS);
      console.log(`SQLite ${a}+${b}: ${TRIALS} trials, W1 (${a}) won ${wins.W1}, W2 (${b}) won ${wins.W2}, late losers ${wins.late}, losers told after the approval was settled ${wins.toldLater}, losers whose answer no guard step read ${wins.unreached}`);
    }, 420_000);
  }
});

describe.runIf(postgresConfigured)("two processes answer one approval at once without the lock (PostgreSQL, ledger on)", () => {
  const schema = uniqueName("gg_answer_race");
  const effectsTable = `"${schema}".effects`;
  const auditTable = uniqueName("gg_race_audit");
  let pool: pg.Pool | undefined;
  let setup: Promise<string | undefined> | undefined;
  const database = () =>
    (setup ??= (async () => {
      const url = await postgresForTests();
      if (!url) return undefined;
      pool = new pg.Pool({ connectionString: url, max: 2 });
      await pool.query(`CREATE SCHEMA "${schema}"`);
      await pool.query(`CREATE TABLE ${effectsTable} (id BIGSERIAL PRIMARY KEY, key TEXT NOT NULL, label TEXT NOT NULL, phase TEXT NOT NULL, pid INTEGER NOT NULL)`);
      return url;
    })());
  afterAll(async () => {
    await pool?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool?.query(`DROP TABLE IF EXISTS "${auditTable}"`);
    await pool?.end();
  });

  for (const [a, b] of PAIRS) {
    it(`${a} + ${b}: one execution, and the audit and every ToolMessage name the decision that ran; the loser is told`, async (context) => {
      const url = await database();
      if (!url || !pool) return context.skip();
      const client = pool;
      const backend: Backend = {
        base: (name) => ({ db: url, schema, threadId: uniqueName(`${a}_${b}_${name}`), effects: { kind: "postgres", url, table: effectsTable }, audit: { sink: "postgres", url, table: auditTable } }),
        events: async () => (await client.query<EffectEvent>(`SELECT key, label, phase, pid FROM ${effectsTable} ORDER BY id`)).rows,
        audit: () => PostgresAuditSink.open({ url, table: auditTable }),
      };
      const wins = await runRace(backend, "race", a, b);
      expect(wins.W1 + wins.W2).toBe(TRIALS);
      console.log(`PostgreSQL ${a}+${b}: ${TRIALS} trials, W1 (${a}) won ${wins.W1}, W2 (${b}) won ${wins.W2}, late losers ${wins.late}, losers told after the approval was settled ${wins.toldLater}, losers whose answer no guard step read ${wins.unreached}`);
    }, 420_000);
  }
});
