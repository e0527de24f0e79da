import { MemorySaver } from "@langchain/langgraph";
import { MemoryAuditSink } from "../src/audit/index.js";
import { createGuardedAgent } from "../src/guard/index.js";
import { plainToolNode, type Contender } from "./lib/contenders.js";
import { LoopModel } from "./lib/loop-model.js";
import { NOOP_ARGS, PhaseClock, sleepTool } from "./lib/noop-tools.js";
import { atMost, type BenchRow } from "./lib/result.js";
import { median, rotation, round, spread, timeMs } from "./lib/stats.js";

const CALLS = 16;
const SLEEP_MS = 50;
const MAX_CONCURRENCY = 8;
const IDEAL_MS = Math.ceil(CALLS / MAX_CONCURRENCY) * SLEEP_MS;

/**
 * W3: one model turn with 16 concurrency-safe calls that each sleep 50 ms. Ours runs them in batches
 * of maxConcurrency 8 (ideal 100 ms); LangGraph's ToolNode runs all 16 at once (ideal 50 ms).
 * Measured: the tool phase (first call start to last call end, which includes the step between
 * batches) and the whole run (model turns, review, tools, final answer); medians of interleaved rounds.
 */
export async function benchW3(opts: { quick: boolean }): Promise<BenchRow[]> {
  const rounds = opts.quick ? 3 : 15;
  const clock = new PhaseClock();
  const tools = [sleepTool("sleep_50", SLEEP_MS, clock)];
  const calls = Array.from({ length: CALLS }, () => "sleep_50");
  const toolNode = plainToolNode({ turnsPerRun: 1, checkpointer: () => new MemorySaver(), tools, calls });
  const agent = createGuardedAgent({
    model: new LoopModel({ turnsPerRun: 1, calls, args: NOOP_ARGS }),
    tools,
    audit: new MemoryAuditSink(),
    checkpointer: new MemorySaver(),
    maxConcurrency: MAX_CONCURRENCY,
  });
  const guarded: Contender = {
    id: "c",
    label: "guarded",
    invoke: async (threadId, text) =>
      (await agent.invoke({ messages: [{ role: "user", content: text }] }, { configurable: { thread_id: threadId } })).messages,
  };
  const expected = 3 + CALLS;
  const once = async (c: Contender, thread: string) => {
    const messages = await c.invoke(thread, "go");
    if (messages.length !== expected) throw new Error(`W3 ${c.id}: ${messages.length} messages, expected ${expected}`);
  };
  await once(toolNode, "warm-a");
  await once(guarded, "warm-c");
  const run: Record<string, number[]> = { a: [], c: [] };
  const phase: Record<string, number[]> = { a: [], c: [] };
  for (let r = 0; r < rounds; r++) {
    for (const c of rotation([toolNode, guarded], r)) {
      clock.reset();
      run[c.id]!.push(await timeMs(() => once(c, `r${r}`)));
      phase[c.id]!.push(clock.spanMs);
    }
  }
  const perRound = spread(phase.c!.map((ms) => ms / IDEAL_MS));
  const ours = median(phase.c!);
  const theirs = median(phase.a!);
  const ourRun = median(run.c!);
  const theirRun = median(run.a!);
  return [
    { workload: "W3", contender: "(c) guarded, maxConcurrency 8", metric: "tool phase, 16 × 50 ms", value: round(ours, 1), unit: "ms", ratio: round(ours / IDEAL_MS), ratioOf: `/ ideal ${IDEAL_MS} ms`, note: `per-round ratio median ${round(perRound.median, 3)}, p25–p75 ${round(perRound.p25, 3)}–${round(perRound.p75, 3)}, ${rounds} interleaved rounds (wall time: sleeping tools)`, ...atMost(round(ours / IDEAL_MS, 2), 1.05) },
    { workload: "W3", contender: "(a) ToolNode, unbounded Promise.all", metric: "tool phase, 16 × 50 ms", value: round(theirs, 1), unit: "ms", ratio: round(theirs / SLEEP_MS), ratioOf: `/ ideal ${SLEEP_MS} ms` },
    { workload: "W3", contender: "(c) vs (a)", metric: "tool phase ratio", value: round(ours / theirs), unit: "×", ratio: round(ours / theirs), ratioOf: "(c)/(a)", note: `bounded to 8: ideal ratio ${IDEAL_MS / SLEEP_MS}` },
    { workload: "W3", contender: "(c) guarded, maxConcurrency 8", metric: "whole run", value: round(ourRun, 1), unit: "ms", ratio: round(ourRun / IDEAL_MS), ratioOf: `/ ideal ${IDEAL_MS} ms`, note: "incl. 2 model turns, review, checkpoints" },
    { workload: "W3", contender: "(a) ToolNode, unbounded Promise.all", metric: "whole run", value: round(theirRun, 1), unit: "ms", ratio: round(theirRun / SLEEP_MS), ratioOf: `/ ideal ${SLEEP_MS} ms` },
  ];
}
