/**
 * W2 on a heterogeneous policy (bench/lib/hetero.ts): 1,000 permission rules of every matcher kind
 * over 100 tools of seven argument schemas, 50 tool rules whose state comes from earlier calls, and
 * 1,000 calls whose decisions spread over about twelve outcomes. Measured against the project's W2
 * (bench/w2-decisions.ts) in the same process: small blocks of `Guard.reviewTurn` per contender,
 * interleaved (order rotated each round), process CPU time per block; per-block rates and the
 * per-round ratio, median and p25–p75.
 *
 * The scale rows (`benchW2Scale`) build the same kind of policy with 10,000 and 100,000 rules over
 * 1,000 tools: guard build, `policy check`, YAML load, the first decision per tool name, warm
 * decisions per CPU-second and heap per rule.
 *   npx tsx bench/w2-hetero.ts [--quick] [--scale 10000,100000] [--seed N]
 */
import { fileURLToPath, pathToFileURL } from "node:url";
import { stringify as stringifyYaml } from "yaml";
import { Guard, type RawToolCall } from "../src/guard/index.js";
import { checkPolicy } from "../src/policy/check.js";
import { loadedPolicyOf, parsePolicy } from "../src/policy/file.js";
import { PermissionPolicy } from "../src/policy/index.js";
import type { RuleState } from "../src/rules/types.js";
import { benchmarkRules } from "./policy.bench.js";
import { firstDecisions } from "./lib/first-decisions.js";
import { heteroTools, heteroWorkload, outcomeClass, type HeteroWorkload } from "./lib/hetero.js";
import { rowsFromChild } from "./lib/child-rows.js";
import { localKillswitch } from "./lib/policy-server.js";
import { atLeast, atMost, type BenchRow } from "./lib/result.js";
import { fullGc, percentile, rotation, round } from "./lib/stats.js";
import { w2Calls, w2ToolRules, w2Tools } from "./w2-decisions.js";

export const HETERO_SEED = 20261127;

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

interface Contender {
  name: string;
  guard: Guard;
  state: RuleState;
  calls: readonly RawToolCall[];
  next: number;
}

/** The guard a heterogeneous workload describes, and its rule state after the earlier calls. */
export function heteroGuard(workload: HeteroWorkload): { guard: Guard; state: RuleState } {
  const guard = new Guard({
    tools: heteroTools(workload),
    rules: workload.toolRules,
    permissions: new PermissionPolicy(workload.permissions, { mainArguments: workload.mainArguments }),
    now: () => workload.now,
  });
  let state = guard.initialRuleState();
  for (const record of workload.history) state = guard.engine.record(state, record);
  return { guard, state };
}

/** How the workload's calls are decided: outcome class → share. */
export async function outcomeMix(guard: Guard, state: RuleState, workload: HeteroWorkload): Promise<Map<string, number>> {
  const mix = new Map<string, number>();
  for (const call of workload.calls) {
    const { reviewed } = await guard.reviewTurn(state, [call]);
    const key = outcomeClass(reviewed[0]!, workload.ruleTypes);
    mix.set(key, (mix.get(key) ?? 0) + 1);
  }
  return new Map([...mix.entries()].sort((a, b) => b[1] - a[1]));
}

async function block(c: Contender, n: number): Promise<number> {
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    await c.guard.reviewTurn(c.state, [c.calls[c.next++ % c.calls.length]!]);
  }
  return n / (cpuMs(process.cpuUsage(cpu0)) / 1000);
}

export async function benchW2Hetero(opts: { quick: boolean; seed?: number }): Promise<BenchRow[]> {
  const workload = heteroWorkload({ seed: opts.seed ?? HETERO_SEED });
  const ks = await localKillswitch({ denyTools: ["tool_9?"], askTools: ["tool_8?"] });
  try {
    const hetero = heteroGuard(workload);
    const w2Guard = new Guard({ tools: w2Tools(), rules: w2ToolRules(), permissions: new PermissionPolicy(benchmarkRules()), killswitch: ks.killswitch });
    let w2State = w2Guard.initialRuleState();
    for (let i = 0; i < 30; i++) w2State = w2Guard.engine.record(w2State, { tool: `tool_${i}`, callId: `w${i}`, success: true, at: 0 });
    const contenders: Contender[] = [
      { name: "hetero", guard: hetero.guard, state: hetero.state, calls: workload.calls, next: 0 },
      { name: "w2", guard: w2Guard, state: w2State, calls: w2Calls(), next: 0 },
    ];
    const mix = await outcomeMix(hetero.guard, hetero.state, workload);
    for (const c of contenders) await block(c, 20_000); // warm-up
    const rounds = opts.quick ? 10 : 40;
    const perBlock = 2_000;
    const rates = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
    const ratios: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const got = new Map<string, number>();
      for (const c of rotation(contenders, r)) got.set(c.name, await block(c, perBlock));
      for (const [name, rate] of got) rates.get(name)!.push(rate);
      ratios.push(got.get("hetero")! / got.get("w2")!);
    }
    const h = rates.get("hetero")!;
    const w = rates.get("w2")!;
    const total = workload.calls.length;
    const mixText = [...mix.entries()].map(([k, n]) => `${k} ${round((n / total) * 100, 1)}%`).join(", ");
    const spreadOf = (v: number[]) => `p25–p75 ${fmt(percentile(v, 0.25))}–${fmt(percentile(v, 0.75))}/CPU-s over ${rounds} interleaved blocks of ${perBlock}`;
    const perSecond = percentile(h, 0.5);
    return [
      {
        workload: "W2h",
        contender: "guard.reviewTurn, heterogeneous policy",
        metric: "decisions per CPU-second (median block)",
        value: Math.round(perSecond),
        unit: "/s",
        ...atLeast(perSecond, 300_000, "/s"),
        note: `${workload.permissions.length} rules over ${workload.tools.length} tools, ${workload.toolRules.length} tool rules, seed ${opts.seed ?? HETERO_SEED}; ${mix.size} outcomes: ${mixText}; ${spreadOf(h)}`,
      },
      { workload: "W2h", contender: "guard.reviewTurn, project W2 (interleaved)", metric: "decisions per CPU-second (median block)", value: Math.round(percentile(w, 0.5)), unit: "/s", note: spreadOf(w) },
      {
        workload: "W2h",
        contender: "heterogeneous / project W2",
        metric: "per-round ratio (median)",
        value: round(percentile(ratios, 0.5)),
        unit: "×",
        ratio: round(percentile(ratios, 0.5)),
        ratioOf: "W2h/W2",
        note: `p25–p75 ${round(percentile(ratios, 0.25))}–${round(percentile(ratios, 0.75))}`,
      },
    ];
  } finally {
    await ks.close();
  }
}

/** The policy document of a workload, as a user would write it in YAML. */
export function policyYaml(workload: HeteroWorkload): string {
  const tools: Record<string, unknown> = {};
  for (const tool of workload.tools) {
    const main = workload.mainArguments[tool.name];
    if (tool.risk !== undefined || main !== undefined) tools[tool.name] = { ...(tool.risk === undefined ? {} : { risk: tool.risk }), ...(main === undefined ? {} : { mainArgument: main }) };
  }
  return stringifyYaml({ version: 1, tools, permissions: workload.permissions, tool_rules: workload.toolRules }, { aliasDuplicateObjects: false });
}

export interface ScaleFigures {
  rules: number;
  tools: number;
  buildCpuMs: number;
  checkCpuMs: number;
  yamlCpuMs: number;
  firstDecisionMs: { median: number; p99: number; max: number };
  warmPerCpuSecond: { median: number; p25: number; p75: number };
  heapBytesPerRule: number;
}

/** One scale point: `rules` rules over `tools` tools (the heterogeneous generator), measured once each. */
export async function scalePoint(rules: number, tools: number, opts: { quick: boolean; seed?: number; skipCheck?: boolean; skipYaml?: boolean }): Promise<ScaleFigures> {
  const workload = heteroWorkload({ seed: opts.seed ?? HETERO_SEED, rules, tools, calls: 2_000 });
  await fullGc();
  const heap0 = process.memoryUsage().heapUsed;
  let cpu0 = process.cpuUsage();
  const policy = new PermissionPolicy(workload.permissions, { mainArguments: workload.mainArguments });
  const guardTools = heteroTools(workload);
  const guard = new Guard({ tools: guardTools, rules: workload.toolRules, permissions: policy, now: () => workload.now });
  const buildCpuMs = cpuMs(process.cpuUsage(cpu0));
  await fullGc();
  const heapBytesPerRule = (process.memoryUsage().heapUsed - heap0) / rules;

  let checkCpuMs = Number.NaN;
  if (opts.skipCheck !== true) {
    cpu0 = process.cpuUsage();
    checkPolicy(loadedPolicyOf(policy), guard.registry.catalog(), undefined, guard.registry.argumentNames());
    checkCpuMs = cpuMs(process.cpuUsage(cpu0));
  }
  let yamlCpuMs = Number.NaN;
  if (opts.skipYaml !== true) {
    const text = policyYaml(workload);
    cpu0 = process.cpuUsage();
    parsePolicy(text, "yaml", "scale.yaml");
    yamlCpuMs = cpuMs(process.cpuUsage(cpu0));
  }

  let state = guard.initialRuleState();
  for (const record of workload.history) state = guard.engine.record(state, record);
  // The first decision for each tool name (nothing cached for it yet).
  const first = (await firstDecisions(guard, state, workload.calls)).ms;
  const c: Contender = { name: "scale", guard, state, calls: workload.calls, next: 0 };
  await block(c, 10_000);
  const warm: number[] = [];
  for (let b = 0; b < (opts.quick ? 5 : 20); b++) warm.push(await block(c, 2_000));
  return {
    rules: workload.permissions.length,
    tools,
    buildCpuMs,
    checkCpuMs,
    yamlCpuMs,
    firstDecisionMs: { median: percentile(first, 0.5), p99: percentile(first, 0.99), max: Math.max(...first) },
    warmPerCpuSecond: { median: percentile(warm, 0.5), p25: percentile(warm, 0.25), p75: percentile(warm, 0.75) },
    heapBytesPerRule,
  };
}

export function scaleRows(f: ScaleFigures): BenchRow[] {
  const w = `W2 scale ${fmt(f.rules)}`;
  const big = f.rules >= 100_000;
  return [
    { workload: w, contender: `${fmt(f.rules)} rules, ${fmt(f.tools)} tools`, metric: "warm decisions per CPU-second", value: Math.round(f.warmPerCpuSecond.median), unit: "/s", ...(big ? atLeast(f.warmPerCpuSecond.median, 100_000, "/s") : {}), note: `p25–p75 ${fmt(f.warmPerCpuSecond.p25)}–${fmt(f.warmPerCpuSecond.p75)}` },
    { workload: w, contender: "first decision per tool name", metric: "CPU ms (median)", value: round(f.firstDecisionMs.median, 3), unit: "ms", note: `p99 ${round(f.firstDecisionMs.p99, 3)} ms, max ${round(f.firstDecisionMs.max, 3)} ms` },
    { workload: w, contender: "guard build (policy + Guard)", metric: "CPU ms", value: Math.round(f.buildCpuMs), unit: "ms", ...(big ? atMost(Math.round(f.buildCpuMs), 2_000) : {}) },
    { workload: w, contender: "policy check", metric: "CPU ms", value: Math.round(f.checkCpuMs), unit: "ms", ...(big ? atMost(Math.round(f.checkCpuMs), 2_000) : {}) },
    { workload: w, contender: "YAML load (parsePolicy)", metric: "CPU ms", value: Math.round(f.yamlCpuMs), unit: "ms" },
    { workload: w, contender: "heap per rule (after GC)", metric: "bytes", value: Math.round(f.heapBytesPerRule), unit: "B" },
  ];
}

export async function benchW2Scale(opts: { quick: boolean; sizes?: readonly number[] }): Promise<BenchRow[]> {
  const sizes = opts.sizes ?? (opts.quick ? [2_000] : [10_000, 100_000]);
  const rows: BenchRow[] = [];
  for (const size of sizes) rows.push(...scaleRows(await scalePoint(size, Math.min(1_000, Math.max(100, size / 10)), opts)));
  return rows;
}

/** The line a W2h child prints its rows on. */
export const W2H_ROWS_MARKER = "W2H_ROWS ";

/** W2h (and its scale rows) in a child process of its own, as W2 runs (promise hooks on). */
export async function benchW2HeteroInOwnProcess(opts: { quick: boolean }): Promise<BenchRow[]> {
  return rowsFromChild(fileURLToPath(new URL("./lib/w2-hetero-child.ts", import.meta.url)), W2H_ROWS_MARKER, [opts.quick ? "1" : "0"]);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const argv = process.argv.slice(2);
  const quick = argv.includes("--quick");
  const at = argv.indexOf("--scale");
  const seedAt = argv.indexOf("--seed");
  const seed = seedAt >= 0 ? Number(argv[seedAt + 1]) : HETERO_SEED;
  if (at >= 0) {
    const sizes = (argv[at + 1] ?? "10000").split(",").map(Number);
    for (const size of sizes) {
      const f = await scalePoint(size, Math.min(1_000, Math.max(100, size / 10)), { quick, seed, skipCheck: argv.includes("--no-check"), skipYaml: argv.includes("--no-yaml") });
      console.log(JSON.stringify(f));
    }
  } else {
    const { RunnableLambda } = await import("@langchain/core/runnables");
    await RunnableLambda.from((x: number) => x + 1).invoke(1);
    for (const row of await benchW2Hetero({ quick, seed })) console.log(`${row.contender}: ${row.value.toLocaleString("en-US")} ${row.unit}${row.note ? ` (${row.note})` : ""}`);
  }
}
