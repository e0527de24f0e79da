import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { Guard, type RawToolCall } from "../src/guard/index.js";
import { PermissionPolicy } from "../src/policy/index.js";
import type { ToolRule } from "../src/rules/types.js";
import { defineTool } from "../src/tools/index.js";
import { benchmarkRules } from "./policy.bench.js";
import { rowsFromChild } from "./lib/child-rows.js";
import { localKillswitch } from "./lib/policy-server.js";
import { atLeast, type BenchRow } from "./lib/result.js";
import { percentile, round } from "./lib/stats.js";

const TOOLS = 100;

const Input = z.object({
  namespace: z.string(),
  path: z.string(),
  opts: z.object({ level: z.number(), verbose: z.boolean() }),
  query: z.string(),
  user: z.string().optional(),
});

/** W2's 100 tools (also the provenance cost bench's workload). */
export function w2Tools() {
  return Array.from({ length: TOOLS }, (_, i) =>
    defineTool({ name: `tool_${i}`, description: `tool ${i}`, schema: Input, risk: i % 10 === 9 ? "high" : "low", execute: () => "ok" }),
  );
}

/** 50 tool rules: limits, cooldowns, ordering and exclusive groups over the 100 tools. */
export function w2ToolRules(): ToolRule[] {
  const rules: ToolRule[] = [];
  for (let i = 0; rules.length < 50; i++) {
    const t = `tool_${(i * 7) % TOOLS}`;
    switch (i % 5) {
      case 0:
        rules.push({ id: `w2-${i}`, type: "MaxCalls", tool: t, max: 1_000_000 });
        break;
      case 1:
        rules.push({ id: `w2-${i}`, type: "MaxCalls", tool: t, max: 3, scope: "thread" });
        break;
      case 2:
        rules.push({ id: `w2-${i}`, type: "Cooldown", tool: t, durationMs: 5 });
        break;
      case 3:
        rules.push({ id: `w2-${i}`, type: "MustFollow", tool: t, conditions: ["tool_0"] });
        break;
      default:
        rules.push({ id: `w2-${i}`, type: "ExclusiveGroup", tool: t, conditions: [`tool_${(i * 7 + 1) % TOOLS}`] });
    }
  }
  return rules;
}

/** W2's 200 calls over the 100 tools. */
export function w2Calls(): (RawToolCall & { args: Record<string, unknown> })[] {
  return Array.from({ length: 200 }, (_, i) => ({
    id: `c${i}`,
    name: `tool_${i % TOOLS}`,
    args: {
      namespace: i % 7 === 0 ? "prod-8" : "staging",
      path: i % 5 === 0 ? "/srv/1/data.db" : `/workspace/2/file-${i}.txt`,
      opts: { level: i % 4, verbose: true },
      query: i % 9 === 0 ? "DROP  table_5;" : "select 1",
      ...(i % 3 === 0 ? { user: "alice" } : {}),
    },
  }));
}

/**
 * W2: the review alone (schema parse, killswitch, 1,000 permission rules, 50 tool rules), one call
 * per `reviewTurn`. Throughput over a tight loop; p50/p99 from a separately timed sample.
 */
export async function benchW2(opts: { quick: boolean }): Promise<BenchRow[]> {
  const ks = await localKillswitch({ denyTools: ["tool_9?"], askTools: ["tool_8?"] });
  try {
    const guard = new Guard({
      tools: w2Tools(),
      rules: w2ToolRules(),
      permissions: new PermissionPolicy(benchmarkRules()),
      killswitch: ks.killswitch,
    });
    let state = guard.initialRuleState();
    for (let i = 0; i < 30; i++) state = guard.engine.record(state, { tool: `tool_${i}`, callId: `w${i}`, success: true, at: 0 });
    const all = w2Calls();
    const outcomes = { run: 0, refuse: 0, ask: 0 };
    const review = async (i: number) => {
      const { reviewed } = await guard.reviewTurn(state, [all[i % all.length]!]);
      outcomes[reviewed[0]!.outcome]++;
    };
    for (let i = 0; i < 20_000; i++) await review(i); // warm-up

    // Process CPU time (user + system) in small blocks: other processes on a loaded machine take
    // wall time, not this process's CPU time. Median and p25–p75 of the per-block rates.
    const blocks = opts.quick ? 10 : 60;
    const perBlock = 5_000;
    const cpuRates: number[] = [];
    const wallRates: number[] = [];
    let next = 0;
    for (let b = 0; b < blocks; b++) {
      const cpu0 = process.cpuUsage();
      const wall0 = performance.now();
      // `reviewTurn` itself, awaited: no async wrapper per decision (a second promise that cost ≈ 5 %
      // in a fresh process and ≈ 18 % after W1, where LangChain's AsyncLocalStorage has turned on
      // Node's promise hooks; 3 alternating runs each, BENCHMARKS.md "Session 4").
      for (let i = 0; i < perBlock; i++) {
        const { reviewed } = await guard.reviewTurn(state, [all[next++ % all.length]!]);
        outcomes[reviewed[0]!.outcome]++;
      }
      const cpu = process.cpuUsage(cpu0);
      const wallMs = performance.now() - wall0;
      cpuRates.push(perBlock / ((cpu.user + cpu.system) / 1e6));
      wallRates.push(perBlock / (wallMs / 1000));
    }
    const perSecond = percentile(cpuRates, 0.5);
    const spread = `p25–p75 ${Math.round(percentile(cpuRates, 0.25)).toLocaleString("en-US")}–${Math.round(percentile(cpuRates, 0.75)).toLocaleString("en-US")}/CPU-s over ${blocks} blocks of ${perBlock}; wall median ${Math.round(percentile(wallRates, 0.5)).toLocaleString("en-US")}/s`;

    const samples: number[] = [];
    const sampleCount = opts.quick ? 10_000 : 50_000;
    for (let i = 0; i < sampleCount; i++) {
      const t0 = performance.now();
      await review(i);
      samples.push((performance.now() - t0) * 1000);
    }
    if (outcomes.run === 0 || outcomes.refuse === 0 || outcomes.ask === 0) throw new Error(`W2 mix lacks an outcome: ${JSON.stringify(outcomes)}`);
    const total = outcomes.run + outcomes.refuse + outcomes.ask;
    const mix = `run ${Math.round((outcomes.run / total) * 100)}% / refuse ${Math.round((outcomes.refuse / total) * 100)}% / ask ${Math.round((outcomes.ask / total) * 100)}%`;
    return [
      { workload: "W2", contender: "guard.reviewTurn", metric: "decisions per CPU-second (median block)", value: Math.round(perSecond), unit: "/s", ...atLeast(perSecond, 200_000, "/s"), note: `${mix}; ${spread}` },
      { workload: "W2", contender: "guard.reviewTurn", metric: "p50 latency", value: round(percentile(samples, 0.5), 2), unit: "µs" },
      { workload: "W2", contender: "guard.reviewTurn", metric: "p99 latency", value: round(percentile(samples, 0.99), 2), unit: "µs" },
    ];
  } finally {
    await ks.close();
  }
}

/**
 * W2 as `npm run bench` runs it: in a child process of its own, with Node's promise hooks on (the
 * child invokes one LangChain runnable first, as every LangGraph step does). Before, the full run
 * measured W2 after W1 in one process (hooks on, W1's heaps and compiled code there) while
 * `--only W2` measured a process without hooks: the same workload read ≈ 170,000–190,000 and
 * ≈ 210,000 per CPU-second (BENCHMARKS.md, "Session 6"). Now both measure the same process state.
 * `reviewTurn` makes 2 promises per call (its own and the caller's await).
 */
export async function benchW2InOwnProcess(opts: { quick: boolean }): Promise<BenchRow[]> {
  return rowsFromChild(fileURLToPath(new URL("./lib/w2-child.ts", import.meta.url)), W2_ROWS_MARKER, [opts.quick ? "1" : "0"]);
}

/** The line a W2 child prints its rows on. */
export const W2_ROWS_MARKER = "W2_ROWS ";
