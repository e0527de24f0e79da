/**
 * W2h before/after in one process: the heterogeneous workload (bench/lib/hetero.ts) reviewed by a
 * guard built from another checkout of the project (`--base DIR`, e.g. an earlier commit unpacked
 * with `git archive <commit> src bench vendor package.json tsconfig.json | tar -x -C DIR`) and by this checkout's, in small
 * interleaved blocks (order alternated each round), process CPU time per block. Both sides build
 * their own workload from the same seed, so they decide the same calls. Prints each side's median
 * and p25–p75 decisions per CPU-second and the median and p25–p75 of the per-round ratio (this / base),
 * and the ratio of the two sides' 90th-percentile block rates (the least disturbed blocks on a shared machine).
 *   npx tsx bench/w2-hetero-ab.ts --base DIR [--rules 1000] [--rounds 40] [--block 2000] [--decide] [--this-first]
 * `--decide` compares `PermissionPolicy.decide` alone instead of `Guard.reviewTurn`. `--calls N` sets how
 * many calls the workload has (default 1,000 at 1,000 rules, 2,000 above): the blocks go round them, so
 * with the default each call is decided again every 1,000; a count above rounds × block × 2 (plus the
 * warm-up) decides no call twice (the generator repeats about 8 % of its calls of itself).
 */
import { resolve } from "node:path";
import { RunnableLambda } from "@langchain/core/runnables";
import { HETERO_SEED } from "./w2-hetero.js";
import { percentile, spread } from "./lib/stats.js";
import { modulesAt, type Modules } from "./lib/checkout-modules.js";

interface Side {
  name: string;
  run: (n: number) => Promise<void>;
}

function side(name: string, m: Modules, rules: number, decideOnly: boolean, callCount: number): Side {
  const tools = Math.min(1_000, Math.max(100, rules / 10));
  const workload = m.hetero.heteroWorkload({ seed: HETERO_SEED, rules, tools, calls: callCount });
  const calls = workload.calls;
  let next = 0;
  if (decideOnly) {
    const policy = new m.policy.PermissionPolicy(workload.permissions, { mainArguments: workload.mainArguments });
    const risk = new Map(workload.tools.map((t) => [t.name, t.risk]));
    return {
      name,
      run: async (n) => {
        for (let i = 0; i < n; i++) {
          const call = calls[next++ % calls.length]!;
          policy.decide(call.name, call.args, risk.get(call.name));
        }
      },
    };
  }
  const { guard, state } = m.bench.heteroGuard(workload);
  return {
    name,
    run: async (n) => {
      for (let i = 0; i < n; i++) await guard.reviewTurn(state, [calls[next++ % calls.length]!]);
    },
  };
}

async function rate(s: Side, n: number): Promise<number> {
  const cpu0 = process.cpuUsage();
  await s.run(n);
  const cpu = process.cpuUsage(cpu0);
  return n / ((cpu.user + cpu.system) / 1e6);
}

const argv = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = argv.indexOf(name);
  return at >= 0 ? (argv[at + 1] ?? fallback) : fallback;
};
const baseDir = option("--base", "");
if (baseDir === "") throw new Error("usage: w2-hetero-ab.ts --base DIR [--rules N] [--rounds N] [--block N] [--calls N] [--decide] [--this-first]");
const rules = Number(option("--rules", "1000"));
const callCount = Number(option("--calls", rules > 1_000 ? "2000" : "1000"));
const rounds = Number(option("--rounds", "40"));
const perBlock = Number(option("--block", "2000"));
const decideOnly = argv.includes("--decide");

// Node's promise hooks on, as in a process that runs guarded graphs (and as W2's child does).
await RunnableLambda.from((x: number) => x + 1).invoke(1);
// The side built second reads slower even against an identical tree (an A/A run at load 6 read 0.90–0.97
// at 1,000 rules, 0.87 at 100,000): `--this-first` builds this checkout's side first, so the two orders
// can be run and their ratios compared.
const thisFirst = argv.includes("--this-first");
const baseModules = thisFirst ? undefined : await modulesAt(baseDir);
const ownModules = await modulesAt(resolve(import.meta.dirname, ".."));
const own0 = thisFirst ? side("this", ownModules, rules, decideOnly, callCount) : undefined;
const base = side("base", baseModules ?? (await modulesAt(baseDir)), rules, decideOnly, callCount);
const own = own0 ?? side("this", ownModules, rules, decideOnly, callCount);
for (const s of thisFirst ? [own, base] : [base, own]) await s.run(Math.max(20_000, rules > 1_000 ? 20_000 : 10_000));
const rates = { base: [] as number[], this: [] as number[] };
const ratios: number[] = [];
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? [base, own] : [own, base];
  const got = new Map<string, number>();
  for (const s of order) got.set(s.name, await rate(s, perBlock));
  rates.base.push(got.get("base")!);
  rates.this.push(got.get("this")!);
  ratios.push(got.get("this")! / got.get("base")!);
}
const fmt = (v: number[]) => {
  const { median, p25, p75 } = spread(v);
  return `${Math.round(median).toLocaleString("en-US")} [${Math.round(p25).toLocaleString("en-US")}–${Math.round(p75).toLocaleString("en-US")}]`;
};
const ratio = spread(ratios);
// On a shared machine the fastest blocks are the least disturbed: their rates compare the code with less noise.
const p90 = (v: number[]) => percentile(v, 0.9);
console.log(
  `${decideOnly ? "decide" : "reviewTurn"}${thisFirst ? " (this side built first)" : ""}, ${rules.toLocaleString("en-US")} rules, ${callCount.toLocaleString("en-US")} calls, ${rounds} rounds of ${perBlock}: base ${fmt(rates.base)}/CPU-s, this ${fmt(rates.this)}/CPU-s, ratio this/base ${ratio.median.toFixed(3)} [${ratio.p25.toFixed(3)}–${ratio.p75.toFixed(3)}]; p90 rates: base ${Math.round(p90(rates.base)).toLocaleString("en-US")}, this ${Math.round(p90(rates.this)).toLocaleString("en-US")}, ratio ${(p90(rates.this) / p90(rates.base)).toFixed(3)}`,
);
