/**
 * The decision cache's cost when it never helps: W2h (`Guard.reviewTurn`, 1,000 rules) on calls
 * whose arguments are all distinct (each call of bench/lib/hetero.ts with a `request_id` of its
 * own added, 200,000 calls), this checkout against another (`--base DIR`), interleaved blocks as in
 * bench/w2-hetero-ab.ts. Prints the median and p25–p75 per-block rates and per-round ratio.
 *   npx tsx bench/lib/w2-unique-ab.ts --base DIR [--rounds 40] [--block 2000]
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
if (baseDir === "") throw new Error("usage: w2-unique-ab.ts --base DIR [--rounds N] [--block N]");
const rounds = Number(option("--rounds", "40"));
const perBlock = Number(option("--block", "2000"));
const TOTAL = 200_000;

async function side(root: string) {
  const at = (path: string) => pathToFileURL(resolve(root, path)).href;
  const bench = (await import(at("bench/w2-hetero.ts"))) as typeof import("../w2-hetero.js");
  const hetero = (await import(at("bench/lib/hetero.ts"))) as typeof import("./hetero.js");
  const workload = hetero.heteroWorkload({ seed: bench.HETERO_SEED, rules: 1_000, tools: 100, calls: 1_000 });
  const calls = Array.from({ length: TOTAL }, (_, i) => {
    const call = workload.calls[i % workload.calls.length]!;
    const args = call.args as Record<string, unknown>;
    return { ...call, args: { ...args, request_id: `r${i}` } };
  });
  const { guard, state } = bench.heteroGuard(workload);
  let next = 0;
  return async (n: number) => {
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < n; i++) await guard.reviewTurn(state, [calls[next++ % TOTAL]!]);
    const cpu = process.cpuUsage(cpu0);
    return n / ((cpu.user + cpu.system) / 1e6);
  };
}

await RunnableLambda.from((x: number) => x + 1).invoke(1);
const base = await side(baseDir);
const own = await side(resolve(import.meta.dirname, "../.."));
await base(10_000);
await own(10_000);
const rates = { base: [] as number[], this: [] as number[] };
const ratios: number[] = [];
for (let r = 0; r < rounds; r++) {
  const b = r % 2 === 0 ? await base(perBlock) : 0;
  const o = await own(perBlock);
  const b2 = r % 2 === 0 ? b : await base(perBlock);
  rates.base.push(b2);
  rates.this.push(o);
  ratios.push(o / b2);
}
const fmt = (v: number[]) => {
  const { median, p25, p75 } = spread(v);
  return `${Math.round(median).toLocaleString("en-US")} [${Math.round(p25).toLocaleString("en-US")}–${Math.round(p75).toLocaleString("en-US")}]`;
};
const ratio = spread(ratios);
console.log(`reviewTurn, all arguments distinct, ${rounds} rounds of ${perBlock}: base ${fmt(rates.base)}/CPU-s, this ${fmt(rates.this)}/CPU-s, ratio this/base ${ratio.median.toFixed(3)} [${ratio.p25.toFixed(3)}–${ratio.p75.toFixed(3)}]`);
