import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { parseEffectLines } from "./fixtures/workers/effects.js";
import type { WorkerConfig } from "./fixtures/workers/agent-worker.js";
import { CRASH_LABELS, approvalScenario, crashCallId, crashScenario, expectedKey, tally } from "./fixtures/workers/scenarios.js";
import { killAllWorkers, spawnWorker, waitUntil } from "./fixtures/workers/spawn.js";

const tmp = mkdtempSync(join(tmpdir(), "gg-durable-"));
afterEach(killAllWorkers);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let counter = 0;
/** A fresh SQLite file, effects file and thread per test. */
function sqliteCase(name: string) {
  counter += 1;
  const db = `sqlite:${join(tmp, `${name}-${counter}.db`)}`;
  const effectsPath = join(tmp, `${name}-${counter}.log`);
  const threadId = `${name}-${counter}`;
  const base = { db, threadId, effects: { kind: "file" as const, path: effectsPath }, leaseMs: 1_000 };
  const events = () => (existsSync(effectsPath) ? parseEffectLines(readFileSync(effectsPath, "utf8")) : []);
  return { base, threadId, events };
}

function config(base: ReturnType<typeof sqliteCase>["base"], extra: Omit<WorkerConfig, keyof typeof base>): WorkerConfig {
  return { ...base, ...extra };
}

describe("durable threads on a SQLite file, across processes", () => {
  it("runs into the approval interrupt in one process and resumes it in another: approved calls run exactly once", async () => {
    const { base, threadId, events } = sqliteCase("resume");
    const first = await spawnWorker(config(base, { mode: "start", scenario: approvalScenario, workerId: "A" })).done;
    expect(first.status).toBe("ran");
    expect(first.pending).toEqual(["call_0_0", "call_0_2"]);
    expect(events()).toEqual([]);

    const decisions = { decisions: [{ type: "approve" }, { type: "reject", message: "not d2" }] };
    const second = await spawnWorker(config(base, { mode: "resume", resume: decisions, scenario: approvalScenario, workerId: "B" })).done;
    expect(second.status).toBe("ran");
    expect(second.finished).toBe(true);
    expect(second.finalText).toBe("all done");
    expect([...second.toolMessages.map((m) => m.id)].sort()).toEqual([...second.toolCalls].sort());
    expect(second.toolMessages.find((m) => m.id === "call_0_2")?.content).toContain("not d2");

    // A third worker answering the same approval again finds nothing to resume and runs nothing.
    const third = await spawnWorker(config(base, { mode: "resume", resume: decisions, scenario: approvalScenario, workerId: "C" })).done;
    expect(third.status).toBe("idle");

    const counts = tally(events());
    expect([...counts.keys()].sort()).toEqual(["d1", "e1"]);
    expect(counts.get("d1")).toMatchObject({ starts: 1, ends: 1 });
    expect(counts.get("e1")).toMatchObject({ starts: 1, ends: 1 });
    expect([...(counts.get("d1")?.keys ?? [])]).toEqual([expectedKey(threadId, approvalScenario.name, "call_0_0")]);
  });

  /** Runs the crash batch in A, SIGKILLs A once the fast calls are recorded and the slow ones run, continues in B. */
  async function crashAndContinue(name: string, options: { ledger: boolean; loseToolWrites: boolean }) {
    const { base, threadId, events } = sqliteCase(name);
    const common = { scenario: crashScenario("effect"), ledger: options.ledger, toolTimeoutMs: 5_000 };
    const a = spawnWorker(config(base, { ...common, mode: "start", loseToolWrites: options.loseToolWrites, workerId: "A" }));
    const doneMark = options.loseToolWrites ? "ends" : "recorded";
    const settled = (label: string) => {
      const entry = tally(events()).get(label);
      return (entry?.[doneMark] ?? 0) > 0 && (!options.ledger || (entry?.ledgerDone ?? 0) > 0);
    };
    await waitUntil(
      () => ["fast1", "fast2"].every(settled) && ["slow1", "slow2", "slow3"].every((l) => (tally(events()).get(l)?.starts ?? 0) > 0),
      30_000,
      "the fast calls to finish while the slow ones run",
    );
    a.child.kill("SIGKILL");
    expect((await a.exited).signal).toBe("SIGKILL");
    // The precondition of the test: the slow calls were still in flight when A died.
    const atKill = tally(events());
    for (const label of ["slow1", "slow2", "slow3"]) expect(atKill.get(label)?.ends, label).toBe(0);

    // B waits out A's lock lease (and, with the ledger, A's claims on the slow calls), then finishes the thread.
    const b = await spawnWorker(config(base, { ...common, mode: "continue", waitMs: 20_000, workerId: "B" })).done;
    expect(b.status).toBe("ran");
    expect(b.finished).toBe(true);
    expect(b.finalText).toBe("batch finished");

    const counts = tally(events());
    for (const label of CRASH_LABELS) {
      // Same key in both processes: thread + tool call id.
      expect([...(counts.get(label)?.keys ?? [])], label).toEqual([expectedKey(threadId, crashScenario("effect").name, crashCallId(label))]);
    }
    for (const label of ["slow1", "slow2", "slow3"]) {
      expect(counts.get(label), label).toMatchObject({ starts: 2, ends: 1 });
      expect(counts.get(label)?.startPids.size, label).toBe(2);
    }
    expect(counts.get("after")).toMatchObject({ starts: 1, ends: 1 });
    // Exactly one ToolMessage per tool call, each with its call's own result.
    expect(b.toolCalls).toHaveLength(CRASH_LABELS.length);
    expect(b.toolMessages.map((m) => m.id).sort()).toEqual([...b.toolCalls].sort());
    for (const label of CRASH_LABELS) {
      expect(b.toolMessages.find((m) => m.id === crashCallId(label))).toMatchObject({ content: `${label} ok`, status: "success" });
    }
    return counts;
  }

  it("after SIGKILL mid-batch, calls whose writes were saved are not re-run; in-flight ones re-run with the same key", async () => {
    const counts = await crashAndContinue("crash", { ledger: false, loseToolWrites: false });
    for (const label of ["fast1", "fast2"]) expect(counts.get(label), label).toMatchObject({ starts: 1, ends: 1 });
  }, 90_000);

  it("with the ledger, a call that completed is not re-run even when its checkpoint write was lost", async () => {
    const counts = await crashAndContinue("crash-ledger", { ledger: true, loseToolWrites: true });
    for (const label of ["fast1", "fast2"]) expect(counts.get(label), label).toMatchObject({ starts: 1, ends: 1, ledgerDone: 1 });
  }, 90_000);

  it("without the ledger, a call whose checkpoint write was lost runs again (what the ledger is for)", async () => {
    const counts = await crashAndContinue("crash-lost", { ledger: false, loseToolWrites: true });
    for (const label of ["fast1", "fast2"]) expect(counts.get(label), label).toMatchObject({ starts: 2, ends: 2 });
  }, 90_000);
});
