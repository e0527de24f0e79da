/**
 * The project's W2 (bench/w2-decisions.ts: `Guard.reviewTurn`, 1,000 permission rules, 50 tool
 * rules, a killswitch, 200 calls over 100 tools) before/after in one process: the guard built from
 * another checkout (`--base DIR`, unpacked as for bench/w2-hetero-ab.ts) and this checkout's, in
 * interleaved blocks (order alternated each round), process CPU time per block. Prints each side's
 * median and p25–p75 decisions per CPU-second and the median and p25–p75 of the per-round ratio.
 *   npx tsx bench/lib/w2-decisions-ab.ts --base DIR [--rounds 100] [--block 5000]
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { RunnableLambda } from "@langchain/core/runnables";
import { spread } from "./stats.js";

const argv = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = argv.indexOf(name);
  return at >= 0 ? (argv[at + 1] ?? fallback) : fallback;
};
const baseDir = option("--base", "");
if (baseDir === "") throw new Error("usage: w2-decisions-ab.ts --base DIR [--rounds N] [--block N]");
const rounds = Number(option("--rounds", "100"));
const perBlock = Number(option("--block", "5000"));

const closers: (() => Promise<void>)[] = [];

async function side(root: string): Promise<(n: number) => Promise<number>> {
  const at = (path: string) => pathToFileURL(resolve(root, path)).href;
  const w2 = (await import(at("bench/w2-decisions.ts"))) as typeof import("../w2-decisions.js");
  const rules = (await import(at("bench/policy.bench.ts"))) as typeof import("../policy.bench.js");
  const server = (await import(at("bench/lib/policy-server.ts"))) as typeof import("./policy-server.js");
  const guardModule = (await import(at("src/guard/index.ts"))) as typeof import("../../src/guard/index.js");
  const policyModule = (await import(at("src/policy/index.ts"))) as typeof import("../../src/policy/index.js");
  const ks = await server.localKillswitch({ denyTools: ["tool_9?"], askTools: ["tool_8?"] });
  closers.push(() => ks.close());
  const guard = new guardModule.Guard({ tools: w2.w2Tools(), rules: w2.w2ToolRules(), permissions: new policyModule.PermissionPolicy(rules.benchmarkRules()), killswitch: ks.killswitch });
  let state = guard.initialRuleState();
  for (let i = 0; i < 30; i++) state = guard.engine.record(state, { tool: `tool_${i}`, callId: `w${i}`, success: true, at: 0 });
  const calls = w2.w2Calls();
  let next = 0;
  return async (n) => {
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < n; i++) await guard.reviewTurn(state, [calls[next++ % calls.length]!]);
    const cpu = process.cpuUsage(cpu0);
    return n / ((cpu.user + cpu.system) / 1e6);
  };
}

await RunnableLambda.from((x: number) => x + 1).invoke(1);
try {
  const base = await side(baseDir);
  const own = await side(resolve(import.meta.dirname, "../.."));
  await base(20_000);
  await own(20_000);
  const rates = { base: [] as number[], this: [] as number[] };
  const ratios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const first = r % 2 === 0 ? await base(perBlock) : await own(perBlock);
    const second = r % 2 === 0 ? await own(perBlock) : await base(perBlock);
    const [b, o] = r % 2 === 0 ? [first, second] : [second, first];
    rates.base.push(b);
    rates.this.push(o);
    ratios.push(o / b);
  }
  const fmt = (v: number[]) => {
    const { median, p25, p75 } = spread(v);
    return `${Math.round(median).toLocaleString("en-US")} [${Math.round(p25).toLocaleString("en-US")}–${Math.round(p75).toLocaleString("en-US")}]`;
  };
  const ratio = spread(ratios);
  console.log(`W2 reviewTurn, ${rounds} rounds of ${perBlock}: base ${fmt(rates.base)}/CPU-s, this ${fmt(rates.this)}/CPU-s, ratio this/base ${ratio.median.toFixed(3)} [${ratio.p25.toFixed(3)}–${ratio.p75.toFixed(3)}]`);
} finally {
  for (const close of closers) await close();
}
