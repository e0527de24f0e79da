import { MemorySaver } from "@langchain/langgraph";
import { guardedAgent, langchainAgent, plainToolNode, type Contender } from "./lib/contenders.js";
import { atMost, type BenchRow } from "./lib/result.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAuditSink } from "../src/audit/open.js";
import { cpuAndWallMs, median, rotation, round, spread } from "./lib/stats.js";

export const W1_TURNS_PER_THREAD = 10;
export const W1_CALLS_PER_TURN = 4;
/**
 * Threads each contender runs before the timed blocks. V8 compiles on other threads of the process
 * (counted in process CPU time) for a while after a function turns hot; with 2 warm-up threads the
 * guarded contender (more code) still paid for that compilation in the timed blocks (BENCHMARKS.md,
 * "Session 6": CPU of the threads other than the main one, per turn).
 */
export const W1_WARMUP_THREADS = 60;

export interface W1Result {
  rows: BenchRow[];
  /** Per-round ratios, for the chart. */
  ratiosCA: number[];
  ratiosCB: number[];
  msPerTurn: Record<"a" | "b" | "c", number>;
}

/**
 * W1: model turns with 4 calls to no-op tools each, on MemorySaver. Contenders run in small
 * interleaved blocks (one block = 2 threads of 10 turns = 20 turns per contender, the order rotated
 * every block), timed by process CPU time with wall time beside; the ratios are taken per block and
 * reported as median and p25–p75. Ours runs with 200 permission rules, 20 tool rules and the durable
 * JSONL audit sink (fsynced appends).
 */
export async function benchW1(opts: { quick: boolean }): Promise<W1Result> {
  const blocks = opts.quick ? 3 : 50;
  const threadsPerBlock = 2;
  const options = { turnsPerRun: W1_TURNS_PER_THREAD, checkpointer: () => new MemorySaver() };
  const dir = mkdtempSync(join(tmpdir(), "gg-bench-w1-"));
  const audit = await openAuditSink(`jsonl:${join(dir, "audit.jsonl")}`);
  const contenders: Contender[] = [plainToolNode(options), langchainAgent(options), guardedAgent({ ...options, audit })];
  const guarded = contenders[2] as ReturnType<typeof guardedAgent>;

  const expected = 2 + W1_TURNS_PER_THREAD * (1 + W1_CALLS_PER_TURN);
  const runThreads = async (c: Contender, prefix: string, count: number) => {
    for (let t = 0; t < count; t++) {
      const messages = await c.invoke(`${prefix}-${t}`, "go");
      if (messages.length !== expected) throw new Error(`W1 ${c.id}: ${messages.length} messages, expected ${expected}`);
    }
  };
  for (const c of contenders) await runThreads(c, `warm-${c.id}`, opts.quick ? 2 : W1_WARMUP_THREADS);

  const turnsPerBlock = threadsPerBlock * W1_TURNS_PER_THREAD;
  const cpuPerTurn: Record<string, number[]> = { a: [], b: [], c: [] };
  const wallPerTurn: Record<string, number[]> = { a: [], b: [], c: [] };
  const ratiosCA: number[] = [];
  const ratiosCB: number[] = [];
  const wallCA: number[] = [];
  const wallCB: number[] = [];
  for (let r = 0; r < blocks; r++) {
    const cpu: Record<string, number> = {};
    const wall: Record<string, number> = {};
    for (const c of rotation(contenders, r)) {
      const t = await cpuAndWallMs(() => runThreads(c, `r${r}-${c.id}`, threadsPerBlock));
      cpu[c.id] = t.cpu / turnsPerBlock;
      wall[c.id] = t.wall / turnsPerBlock;
      cpuPerTurn[c.id]!.push(cpu[c.id]!);
      wallPerTurn[c.id]!.push(wall[c.id]!);
    }
    ratiosCA.push(cpu.c! / cpu.a!);
    ratiosCB.push(cpu.c! / cpu.b!);
    wallCA.push(wall.c! / wall.a!);
    wallCB.push(wall.c! / wall.b!);
  }

  const audited = await guarded.audit.query();
  await audit.close();
  rmSync(dir, { recursive: true, force: true });
  const denied = audited.filter((r) => r.event === "decision" && r.decision !== "allow").length;
  if (denied > 0) throw new Error(`W1 (c): ${denied} calls were not allowed; the contenders would not do the same work`);
  const outcomes = audited.filter((r) => r.event === "outcome").length;

  const msPerTurn = { a: median(cpuPerTurn.a!), b: median(cpuPerTurn.b!), c: median(cpuPerTurn.c!) };
  const wallMs = { a: median(wallPerTurn.a!), b: median(wallPerTurn.b!), c: median(wallPerTurn.c!) };
  const ca = spread(ratiosCA);
  const cb = spread(ratiosCB);
  const wca = spread(wallCA);
  const wcb = spread(wallCB);
  const turns = turnsPerBlock * blocks;
  const range = (s: { p25: number; p75: number }) => `p25–p75 ${round(s.p25, 2)}–${round(s.p75, 2)}`;
  const rows: BenchRow[] = [
    { workload: "W1", contender: "(a) ToolNode loop", metric: "CPU ms per turn", value: round(msPerTurn.a), unit: "ms", note: `${turns} turns × 4 calls; wall ${round(wallMs.a)} ms` },
    { workload: "W1", contender: "(b) createAgent + HITL + limit", metric: "CPU ms per turn", value: round(msPerTurn.b), unit: "ms", ratio: round(msPerTurn.b / msPerTurn.a), ratioOf: "(b)/(a)", note: `wall ${round(wallMs.b)} ms` },
    { workload: "W1", contender: "(c) guarded-graph", metric: "CPU ms per turn", value: round(msPerTurn.c), unit: "ms", note: `200 permission + 20 tool rules, JSONL audit (${outcomes} outcome records); wall ${round(wallMs.c)} ms` },
    { workload: "W1", contender: "(c) vs (a)", metric: "CPU ratio (median of blocks)", value: round(ca.median), unit: "×", ratio: round(ca.median), ratioOf: "(c)/(a)", note: `${range(ca)}; wall ${round(wca.median, 2)} (${range(wca)}); ${blocks} blocks of ${turnsPerBlock} turns`, ...atMost(round(ca.median, 2), 1.2) },
    { workload: "W1", contender: "(c) vs (b)", metric: "CPU ratio (median of blocks)", value: round(cb.median), unit: "×", ratio: round(cb.median), ratioOf: "(c)/(b)", note: `${range(cb)}; wall ${round(wcb.median, 2)} (${range(wcb)})`, ...atMost(round(cb.median, 2), 0.6) },
  ];
  return { rows, ratiosCA, ratiosCB, msPerTurn };
}
