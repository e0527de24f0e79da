/**
 * W2h as a user's process runs it: ONE guard in the process (the A/B runner, bench/w2-hetero-ab.ts,
 * keeps two guards and two workloads in one process and alternates them every block, which keeps
 * the CPU's caches cold for both: good for a ratio, not for an absolute rate — on the same machine
 * it reads 2–2.5× lower). The heterogeneous workload (bench/lib/hetero.ts) reviewed by
 * `Guard.reviewTurn`, one call per review, process CPU time per block; median and p25–p75 of the
 * blocks' rates.
 *   npx tsx bench/w2-hetero-alone.ts [--calls cycled|first-seen] [--rounds 60] [--block 2000] [--dir DIR]
 *   npx tsx bench/w2-hetero-alone.ts --base DIR [--processes 6] [...]   (this checkout and DIR, one process each, alternated)
 * `cycled`: the benchmark's 1,000 calls decided over and over (what W2h has always measured);
 * `first-seen`: no call decided twice — each block's calls are parsed from their JSON text just
 * before the block (outside the timing), as a model's tool calls arrive, and never seen before.
 * `--dir` runs another checkout of the project (unpacked as for the A/B runner's `--base`).
 */
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { RunnableLambda } from "@langchain/core/runnables";
import { HETERO_SEED } from "./w2-hetero.js";
import { spread } from "./lib/stats.js";
import { modulesAt } from "./lib/checkout-modules.js";

const argv = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = argv.indexOf(name);
  return at >= 0 ? (argv[at + 1] ?? fallback) : fallback;
};
const mode = option("--calls", "first-seen");
if (mode !== "cycled" && mode !== "first-seen") throw new Error("--calls is cycled or first-seen");
const rounds = Number(option("--rounds", "60"));
const perBlock = Number(option("--block", "2000"));
const WARM = Number(process.env.W2H_WARM ?? 20_000);
const RESULT = "W2H-ALONE ";

const fmt = (v: readonly number[]) => {
  const { median, p25, p75 } = spread([...v]);
  return `${Math.round(median).toLocaleString("en-US")} [${Math.round(p25).toLocaleString("en-US")}–${Math.round(p75).toLocaleString("en-US")}]`;
};

async function alone(dir: string): Promise<number[]> {
  const m = await modulesAt(dir);
  // Node's promise hooks on, as in a process that runs guarded graphs.
  await RunnableLambda.from((x: number) => x + 1).invoke(1);
  const count = mode === "cycled" ? 1_000 : WARM + rounds * perBlock;
  const workload = m.hetero.heteroWorkload({ seed: HETERO_SEED, rules: 1_000, tools: 100, calls: count });
  const texts = mode === "cycled" ? [] : workload.calls.map((call) => JSON.stringify(call));
  const { guard, state } = m.bench.heteroGuard(workload);
  let next = 0;
  for (let i = 0; i < WARM; i++) await guard.reviewTurn(state, [workload.calls[next++ % workload.calls.length]!]);
  const rates: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const block = mode === "cycled" ? undefined : texts.slice(next, next + perBlock).map((text) => JSON.parse(text) as (typeof workload.calls)[number]);
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < perBlock; i++) await guard.reviewTurn(state, [block === undefined ? workload.calls[next++ % workload.calls.length]! : block[i]!]);
    const cpu = process.cpuUsage(cpu0);
    if (block !== undefined) next += perBlock;
    rates.push(perBlock / ((cpu.user + cpu.system) / 1e6));
  }
  return rates;
}

const here = resolve(fileURLToPath(import.meta.url), "../..");
const baseDir = option("--base", "");
if (baseDir === "") {
  const rates = await alone(resolve(option("--dir", here)));
  console.log(`${RESULT}${JSON.stringify(rates)}`);
  console.log(`reviewTurn alone, 1,000 rules, ${mode}, ${rounds} blocks of ${perBlock}: ${fmt(rates)}/CPU-s`);
} else {
  const processes = Number(option("--processes", "6"));
  const passOn = ["--calls", mode, "--rounds", String(rounds), "--block", String(perBlock)];
  const run = (dir: string): number[] => {
    const out = execFileSync(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), ...passOn, "--dir", dir], { encoding: "utf8", maxBuffer: 1 << 26 });
    const line = out.split("\n").find((l) => l.startsWith(RESULT));
    if (line === undefined) throw new Error(`no result from ${dir}:\n${out}`);
    return JSON.parse(line.slice(RESULT.length)) as number[];
  };
  const medians = { base: [] as number[], this: [] as number[] };
  const ratios: number[] = [];
  for (let p = 0; p < processes; p++) {
    const order = p % 2 === 0 ? ["base", "this"] : ["this", "base"];
    const got = new Map<string, number>();
    for (const side of order) got.set(side, spread(run(side === "base" ? resolve(baseDir) : here)).median);
    medians.base.push(got.get("base")!);
    medians.this.push(got.get("this")!);
    ratios.push(got.get("this")! / got.get("base")!);
  }
  const ratio = spread(ratios);
  console.log(
    `reviewTurn alone, 1,000 rules, ${mode}, ${processes} processes per side (alternated), ${rounds} blocks of ${perBlock} each: process medians base ${fmt(medians.base)}/CPU-s, this ${fmt(medians.this)}/CPU-s; ratio this/base per pair ${ratio.median.toFixed(3)} [${ratio.p25.toFixed(3)}–${ratio.p75.toFixed(3)}]`,
  );
}
