/**
 * Where W1's CPU goes, by contender and by thread (not part of `npm run bench`): a, c (W1's
 * contender: 200 permission + 20 tool rules, JSONL audit sink), c-memaudit (the same with the
 * in-memory audit sink: no file, no fdatasync), c-bare (no rules, no audit) and, with `b`, (b) too.
 * Interleaved blocks of 2 threads × 10 turns, order rotated per block; per block, each contender's
 * CPU per turn from process.cpuUsage and, split by thread, from /proc/self/task/<tid>/stat (main
 * thread vs the others: V8's GC and compiler threads, libuv's pool). Prints medians of blocks and
 * the median (p25–p75) of per-block ratios to (a).
 *   npx tsx bench/lib/w1-split.ts [blocks] [a,c,c-memaudit,c-bare[,b]]
 */
import { MemorySaver } from "@langchain/langgraph";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryAuditSink } from "../../src/audit/index.js";
import { openAuditSink } from "../../src/audit/open.js";
import { bareGuardedAgent, guardedAgent, langchainAgent, plainToolNode, type Contender } from "./contenders.js";
import { median, rotation, spread } from "./stats.js";
import { W1_WARMUP_THREADS } from "../w1-loop.js";

const blocks = Number(process.argv[2] ?? 30);
const wanted = (process.argv[3] ?? "a,c,c-memaudit,c-bare").split(",");
const dir = mkdtempSync(join(tmpdir(), "gg-w1-split-"));
const jsonl = await openAuditSink(`jsonl:${join(dir, "audit.jsonl")}`);
const options = { turnsPerRun: 10, checkpointer: () => new MemorySaver() };
const make: Record<string, () => Contender> = {
  a: () => plainToolNode(options),
  b: () => langchainAgent(options),
  c: () => guardedAgent({ ...options, audit: jsonl }),
  "c-memaudit": () => ({ ...guardedAgent({ ...options, audit: new MemoryAuditSink() }), id: "c-memaudit" }),
  "c-bare": () => bareGuardedAgent(options),
};
if (!wanted.includes("a")) throw new Error("w1-split: (a) is the reference; include it");
const contenders = wanted.map((id) => {
  const build = make[id];
  if (!build) throw new Error(`w1-split: unknown contender ${id}; known: ${Object.keys(make).join(", ")}`);
  return build();
});

/** CPU ms so far of the main thread and of all other threads (clock ticks of /proc, 10 ms each). */
function threadCpuMs(): { main: number; others: number } {
  let main = 0;
  let others = 0;
  for (const tid of readdirSync("/proc/self/task")) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
    } catch {
      continue; // the thread ended between readdir and read
    }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ms = (Number(fields[11]) + Number(fields[12])) * 10;
    if (tid === String(process.pid)) main += ms;
    else others += ms;
  }
  return { main, others };
}

const TURNS = 20;
const run = async (c: Contender, prefix: string) => {
  for (let t = 0; t < TURNS / 10; t++) await c.invoke(`${prefix}-${t}`, "go");
};
// As many warm-up threads as W1 runs (W1_WARMUP_THREADS): V8's compiler threads settle first.
for (const c of contenders) for (let w = 0; w < W1_WARMUP_THREADS / (TURNS / 10); w++) await run(c, `warm${w}-${c.id}`);
const total: Record<string, number[]> = {};
const main: Record<string, number[]> = {};
const others: Record<string, number[]> = {};
const ratio: Record<string, number[]> = {};
for (let r = 0; r < blocks; r++) {
  const here: Record<string, number> = {};
  for (const c of rotation(contenders, r)) {
    const t0 = threadCpuMs();
    const cpu0 = process.cpuUsage();
    await run(c, `r${r}-${c.id}`);
    const cpu = process.cpuUsage(cpu0);
    const t1 = threadCpuMs();
    here[c.id] = (cpu.user + cpu.system) / 1000 / TURNS;
    (total[c.id] ??= []).push(here[c.id]!);
    (main[c.id] ??= []).push((t1.main - t0.main) / TURNS);
    (others[c.id] ??= []).push((t1.others - t0.others) / TURNS);
  }
  for (const c of contenders) (ratio[c.id] ??= []).push(here[c.id]! / here.a!);
}
const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
console.log(`${blocks} blocks of ${TURNS} turns × 4 calls per contender; CPU ms per turn (process: median of blocks; threads: mean of blocks, /proc ticks of 10 ms)`);
for (const c of contenders) {
  const s = spread(ratio[c.id]!);
  console.log(
    `${c.id.padEnd(11)} process ${median(total[c.id]!).toFixed(3)}  main thread ${mean(main[c.id]!).toFixed(3)}  other threads ${mean(others[c.id]!).toFixed(3)}  ×a ${s.median.toFixed(3)} (p25–p75 ${s.p25.toFixed(2)}–${s.p75.toFixed(2)})`,
  );
}
await jsonl.close();
rmSync(dir, { recursive: true, force: true });
