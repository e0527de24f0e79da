import { MemorySaver } from "@langchain/langgraph";
import { guardedAgent, langchainAgent, plainToolNode, type Contender } from "./lib/contenders.js";
import { atMost, type BenchRow } from "./lib/result.js";
import { median, rotation, round, timeMs } from "./lib/stats.js";

export const W1_TURNS_PER_THREAD = 10;
export const W1_CALLS_PER_TURN = 4;

export interface W1Result {
  rows: BenchRow[];
  /** Per-round ratios, for the chart. */
  ratiosCA: number[];
  ratiosCB: number[];
  msPerTurn: Record<"a" | "b" | "c", number>;
}

/**
 * W1: `totalTurns` model turns per contender, each with 4 calls to no-op tools, on MemorySaver.
 * Turns run as threads of 10 (a user message, 10 tool turns, a final answer), in `rounds` rounds;
 * each round runs every contender in a rotated order and ratios are taken within the round.
 */
export async function benchW1(opts: { quick: boolean }): Promise<W1Result> {
  const totalTurns = opts.quick ? 60 : 1_000;
  const rounds = opts.quick ? 3 : 5;
  const threadsPerRound = Math.max(1, Math.round(totalTurns / rounds / W1_TURNS_PER_THREAD));
  const options = { turnsPerRun: W1_TURNS_PER_THREAD, checkpointer: () => new MemorySaver() };
  const contenders: Contender[] = [plainToolNode(options), langchainAgent(options), guardedAgent(options)];
  const guarded = contenders[2] as ReturnType<typeof guardedAgent>;

  const expected = 2 + W1_TURNS_PER_THREAD * (1 + W1_CALLS_PER_TURN);
  const runThreads = async (c: Contender, prefix: string, count: number) => {
    for (let t = 0; t < count; t++) {
      const messages = await c.invoke(`${prefix}-${t}`, "go");
      if (messages.length !== expected) throw new Error(`W1 ${c.id}: ${messages.length} messages, expected ${expected}`);
    }
  };
  for (const c of contenders) await runThreads(c, `warm-${c.id}`, 2);

  const perTurn: Record<string, number[]> = { a: [], b: [], c: [] };
  const ratiosCA: number[] = [];
  const ratiosCB: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const ms: Record<string, number> = {};
    for (const c of rotation(contenders, r)) {
      ms[c.id] = (await timeMs(() => runThreads(c, `r${r}-${c.id}`, threadsPerRound))) / (threadsPerRound * W1_TURNS_PER_THREAD);
      perTurn[c.id]!.push(ms[c.id]!);
    }
    ratiosCA.push(ms.c! / ms.a!);
    ratiosCB.push(ms.c! / ms.b!);
  }

  const audited = await guarded.audit.query();
  const denied = audited.filter((r) => r.event === "decision" && r.decision !== "allow").length;
  if (denied > 0) throw new Error(`W1 (c): ${denied} calls were not allowed; the contenders would not do the same work`);
  const outcomes = audited.filter((r) => r.event === "outcome").length;

  const msPerTurn = { a: median(perTurn.a!), b: median(perTurn.b!), c: median(perTurn.c!) };
  const ca = median(ratiosCA);
  const cb = median(ratiosCB);
  const turns = threadsPerRound * W1_TURNS_PER_THREAD * rounds;
  const rows: BenchRow[] = [
    { workload: "W1", contender: "(a) ToolNode loop", metric: "ms per turn", value: round(msPerTurn.a), unit: "ms", note: `${turns} turns × 4 calls` },
    { workload: "W1", contender: "(b) createAgent + HITL + limit", metric: "ms per turn", value: round(msPerTurn.b), unit: "ms", ratio: round(msPerTurn.b / msPerTurn.a), ratioOf: "(b)/(a)" },
    { workload: "W1", contender: "(c) guarded-graph", metric: "ms per turn", value: round(msPerTurn.c), unit: "ms", note: `audit: MemoryAuditSink, ${outcomes} outcome records` },
    { workload: "W1", contender: "(c) vs (a)", metric: "ratio (median of rounds)", value: round(ca), unit: "×", ratio: round(ca), ratioOf: "(c)/(a)", ...atMost(round(ca, 2), 1.2) },
    { workload: "W1", contender: "(c) vs (b)", metric: "ratio (median of rounds)", value: round(cb), unit: "×", ratio: round(cb), ratioOf: "(c)/(b)", ...atMost(round(cb, 2), 1.0) },
  ];
  return { rows, ratiosCA, ratiosCB, msPerTurn };
}
