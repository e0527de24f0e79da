import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { WorkerConfig, WorkerSummary } from "./fixtures/workers/agent-worker.js";
import type { EffectEvent, EffectPhase } from "./fixtures/workers/effects.js";
import { CRASH_LABELS, approvalScenario, crashCallId, crashScenario, expectedKey, tally } from "./fixtures/workers/scenarios.js";
import { killAllWorkers, spawnWorker, waitUntil } from "./fixtures/workers/spawn.js";
import { postgresConfigured, postgresForTests, uniqueName } from "./helpers/postgres.js";

const tmp = mkdtempSync(join(tmpdir(), "gg-durable-pg-"));
afterEach(killAllWorkers);

describe.runIf(postgresConfigured)("durable threads on PostgreSQL with racing worker processes", () => {
  const schema = uniqueName("gg_durable");
  const table = `"${schema}".effects`;
  let pool: pg.Pool | undefined;
  let setup: Promise<string | undefined> | undefined;

  /** The server URL once the effects table exists; undefined to skip. Under REQUIRE_POSTGRES=1 an unreachable server fails the test. */
  function database(): Promise<string | undefined> {
    setup ??= (async () => {
      const url = await postgresForTests();
      if (!url) return undefined;
      pool = new pg.Pool({ connectionString: url, max: 2 });
      await pool.query(`CREATE SCHEMA "${schema}"`);
      await pool.query(
        `CREATE TABLE ${table} (id BIGSERIAL PRIMARY KEY, key TEXT NOT NULL, label TEXT NOT NULL, phase TEXT NOT NULL, pid INTEGER NOT NULL)`,
      );
      return url;
    })();
    return setup;
  }

  afterAll(async () => {
    await pool?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool?.end();
    rmSync(tmp, { recursive: true, force: true });
  });

  /** A fresh thread; its effects are the rows under its own idempotency keys (keys hash the thread id). */
  async function pgCase(name: string) {
    const url = await database();
    if (!url || !pool) return undefined;
    const threadId = uniqueName(name);
    const base = { db: url, schema, threadId, effects: { kind: "postgres" as const, url, table } };
    const client = pool;
    // Every scenario here (approval, crash) has one tool turn of at most six calls: call_0_0 … call_0_5.
    const keys = [approvalScenario.name, crashScenario("effect").name].flatMap((scenario) => [0, 1, 2, 3, 4, 5].map((i) => expectedKey(threadId, scenario, `call_0_${i}`)));
    const events = async (): Promise<EffectEvent[]> => {
      const rows = await client.query<{ key: string; label: string; phase: EffectPhase; pid: number }>(
        `SELECT key, label, phase, pid FROM ${table} WHERE key = ANY($1) ORDER BY id`,
        [keys],
      );
      return rows.rows;
    };
    return { base, threadId, events };
  }
  type PgCase = NonNullable<Awaited<ReturnType<typeof pgCase>>>;

  const worker = (base: PgCase["base"], extra: Omit<WorkerConfig, keyof PgCase["base"]>) =>
    spawnWorker({ ...base, ...extra });

  /** Starts two workers that block on a go-file, then releases both at once. */
  async function race(configs: [WorkerConfig, WorkerConfig]): Promise<WorkerSummary[]> {
    const goFile = join(tmp, `${uniqueName("go")}`);
    const workers = configs.map((c) => spawnWorker({ ...c, goFile }));
    await Promise.all(workers.map((w) => w.ready));
    writeFileSync(goFile, "go");
    return Promise.all(workers.map((w) => w.done));
  }

  const approveAll = (n: number) => ({ decisions: Array.from({ length: n }, () => ({ type: "approve" })) });

  it("two workers resume the same interrupted thread at once: the thread lock lets one run, calls run once", async (context) => {
    const found = await pgCase("race");
    if (!found) return context.skip();
    const { base, events } = found;
    const started = await worker(base, { mode: "start", scenario: approvalScenario, workerId: "starter" }).done;
    expect(started.pending).toEqual(["call_0_0", "call_0_2"]);

    const resume = { mode: "resume" as const, resume: approveAll(2), scenario: approvalScenario };
    const outcomes = await race([
      { ...base, ...resume, workerId: "W1" },
      { ...base, ...resume, workerId: "W2" },
    ]);
    const statuses = outcomes.map((o) => o.status).sort();
    // The loser either found the lock held ("busy") or, if it came second, nothing left to resume ("idle").
    expect(statuses.filter((s) => s === "ran")).toHaveLength(1);
    expect(statuses.every((s) => s === "ran" || s === "busy" || s === "idle")).toBe(true);

    const counts = tally(await events());
    expect([...counts.keys()].sort()).toEqual(["d1", "d2", "e1"]);
    for (const [label, entry] of counts) expect(entry, label).toMatchObject({ starts: 1, ends: 1 });

    const final = await worker(base, { mode: "inspect", scenario: approvalScenario, workerId: "inspector" }).done;
    expect(final.finished).toBe(true);
    expect(final.finalText).toBe("all done");
    expect(final.toolMessages.map((m) => m.id).sort()).toEqual([...final.toolCalls].sort());
  }, 90_000);

  it("two workers resume without the thread lock: the ledger alone keeps each call to one execution", async (context) => {
    const found = await pgCase("race-ledger");
    if (!found) return context.skip();
    const { base, events } = found;
    const scenario = crashScenario("deploy", 300);
    const started = await worker(base, { mode: "start", scenario, workerId: "starter" }).done;
    expect(started.pending).toHaveLength(CRASH_LABELS.length);

    const resume = { mode: "resume-unlocked" as const, resume: approveAll(CRASH_LABELS.length), scenario, ledger: true, toolTimeoutMs: 3_000 };
    const outcomes = await race([
      { ...base, ...resume, workerId: "W1" },
      { ...base, ...resume, workerId: "W2" },
    ]);
    // Each worker read the thread as soon as its own invoke returned, while the other one may still
    // have been writing (no lock): so the thread is judged once both have exited.
    expect(outcomes).toHaveLength(2);
    const final = await worker(base, { mode: "inspect", scenario, workerId: "inspector" }).done;
    expect(final.finished).toBe(true);
    // Every call has exactly its own result, whichever worker ran it or read it from the ledger.
    for (const label of CRASH_LABELS) {
      expect(final.toolMessages.filter((m) => m.id === crashCallId(label)).map((m) => m.content)).toEqual([`${label} ok`]);
    }
    expect(final.toolMessages.map((m) => m.id).sort()).toEqual([...final.toolCalls].sort());
    const counts = tally(await events());
    for (const label of CRASH_LABELS) expect(counts.get(label), label).toMatchObject({ starts: 1, ends: 1, ledgerDone: 1 });
  }, 90_000);

  it("a worker killed mid-batch is replaced by another: completed calls are not re-run", async (context) => {
    const found = await pgCase("crash");
    if (!found) return context.skip();
    const { base, threadId, events } = found;
    const scenario = crashScenario("deploy");
    const started = await worker(base, { mode: "start", scenario, workerId: "starter" }).done;
    expect(started.pending).toHaveLength(CRASH_LABELS.length);

    const w1 = worker(base, { mode: "resume", resume: approveAll(CRASH_LABELS.length), scenario, workerId: "W1" });
    await waitUntil(
      async () => {
        const counts = tally(await events());
        return ["fast1", "fast2"].every((l) => (counts.get(l)?.recorded ?? 0) > 0) &&
          ["slow1", "slow2", "slow3"].every((l) => (counts.get(l)?.starts ?? 0) > 0);
      },
      30_000,
      "the fast calls to be recorded while the slow ones run",
      25,
    );
    w1.child.kill("SIGKILL");
    expect((await w1.exited).signal).toBe("SIGKILL");
    const atKill = tally(await events());
    for (const label of ["slow1", "slow2", "slow3"]) expect(atKill.get(label)?.ends, label).toBe(0);

    // The server frees W1's advisory lock when its connection drops; W2 waits for that if needed.
    const w2 = await worker(base, { mode: "continue", scenario, waitMs: 20_000, workerId: "W2" }).done;
    expect(w2.status).toBe("ran");
    expect(w2.finished).toBe(true);
    expect(w2.finalText).toBe("batch finished");
    expect(w2.toolMessages.map((m) => m.id).sort()).toEqual([...w2.toolCalls].sort());

    const counts = tally(await events());
    for (const label of CRASH_LABELS) {
      expect([...(counts.get(label)?.keys ?? [])], label).toEqual([expectedKey(threadId, crashScenario("effect").name, crashCallId(label))]);
      expect(counts.get(label)?.ends, label).toBe(1);
    }
    for (const label of ["fast1", "fast2", "after"]) expect(counts.get(label)?.starts, label).toBe(1);
    for (const label of ["slow1", "slow2", "slow3"]) expect(counts.get(label)?.starts, label).toBe(2);
  }, 90_000);
});
