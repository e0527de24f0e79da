/**
 * Runs every benchmark workload in one process, prints the table, writes bench/results/latest.json,
 * the W1 ratio chart and the results section of BENCHMARKS.md.
 *   npm run bench                 full run (PostgreSQL parts when POSTGRES_URL is set)
 *   npm run bench -- --quick      small version for CI (no timing assertions anywhere)
 *   npm run bench -- --only W1,W3 only these workloads (W1..W6, W2h, rules, policy, killswitch, recall)
 */
import { setMaxListeners } from "node:events";
import { mkdir, writeFile } from "node:fs/promises";
import { cpus, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { AREA_BENCHES } from "./areas.js";
import { w1RatioChart } from "./chart.js";
import { markdownTable, rewriteResults, textTable } from "./lib/report.js";
import type { BenchRow, WorkloadResult } from "./lib/result.js";
import { median } from "./lib/stats.js";
import { benchW1, type W1Result } from "./w1-loop.js";
import { benchW2InOwnProcess } from "./w2-decisions.js";
import { benchW2HeteroInOwnProcess } from "./w2-hetero.js";
import { benchW3 } from "./w3-parallel.js";
import { benchW4 } from "./w4-durability.js";
import { benchW5 } from "./w5-memory.js";
import { benchW6 } from "./w6-audit.js";

export interface RunOptions {
  quick: boolean;
  /** Workload ids to run (default all). */
  only?: readonly string[];
  postgresUrl?: string | undefined;
  /** Write latest.json, the chart and BENCHMARKS.md (default true for the CLI, false otherwise). */
  write?: boolean;
  log?: (line: string) => void;
}

export interface BenchmarkRun {
  quick: boolean;
  startedAt: string;
  seconds: number;
  machine: { cpu: string; cores: number; memoryGiB: number; node: string; platform: string };
  postgres: boolean;
  workloads: WorkloadResult[];
  w1?: { ratiosCA: number[]; ratiosCB: number[] } | undefined;
}

type Runner = (opts: { quick: boolean; postgresUrl?: string | undefined }) => Promise<BenchRow[]>;

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const RESULTS = join(ROOT, "bench", "results");

export const WORKLOAD_IDS = ["W1", "W2", "W2h", "W3", "W4", "W5", "W6", ...AREA_BENCHES.map((a) => a.id)];

export function machine(): BenchmarkRun["machine"] {
  return {
    cpu: cpus()[0]?.model ?? "unknown",
    cores: cpus().length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
}

export async function runBenchmarks(options: RunOptions): Promise<BenchmarkRun> {
  const log = options.log ?? (() => undefined);
  const only = options.only?.map((id) => id.toLowerCase());
  const wanted = (id: string) => !only || only.includes(id.toLowerCase());
  const postgresUrl = options.postgresUrl;
  // 16 concurrent calls (W3) each listen to the run's abort signal: more than Node's default warning level.
  setMaxListeners(64);
  const started = performance.now();
  let w1: W1Result | undefined;
  const plan: { id: string; title: string; run: Runner }[] = [
    { id: "W1", title: "loop overhead: 1,000 turns × 4 no-op calls, MemorySaver", run: async (o) => (w1 = await benchW1(o)).rows },
    { id: "W2", title: "decision throughput: review alone, in a process of its own", run: benchW2InOwnProcess },
    { id: "W2h", title: "decision throughput on a heterogeneous policy (interleaved with W2), and at 10,000 / 100,000 rules", run: benchW2HeteroInOwnProcess },
    { id: "W3", title: "parallel batches: 16 safe calls × 50 ms, maxConcurrency 8", run: benchW3 },
    { id: "W4", title: "durability: approval round trips; 4 workers on PostgreSQL", run: benchW4 },
    { id: "W5", title: "memory: guard state and RSS over a 10,000-turn thread", run: benchW5 },
    { id: "W6", title: "audit: records per second per sink", run: benchW6 },
    ...AREA_BENCHES,
  ];
  const workloads: WorkloadResult[] = [];
  for (const step of plan) {
    if (!wanted(step.id)) continue;
    log(`bench: ${step.id} ${step.title} ...`);
    const t0 = performance.now();
    const result: WorkloadResult = { id: step.id, title: step.title, rows: [], seconds: 0 };
    try {
      result.rows = await step.run({ quick: options.quick, postgresUrl });
      if (!postgresUrl && (step.id === "W4" || step.id === "W6" || step.id === "recall")) result.skipped = "PostgreSQL parts skipped: POSTGRES_URL is not set";
    } catch (error) {
      result.error = error instanceof Error ? `${error.message}` : String(error);
      log(`bench: ${step.id} failed: ${result.error}`);
    }
    result.seconds = Math.round((performance.now() - t0) / 100) / 10;
    workloads.push(result);
    log(`bench: ${step.id} done in ${result.seconds} s`);
  }
  const run: BenchmarkRun = {
    quick: options.quick,
    startedAt: new Date().toISOString(),
    seconds: Math.round((performance.now() - started) / 100) / 10,
    machine: machine(),
    postgres: postgresUrl !== undefined,
    workloads,
    w1: w1 ? { ratiosCA: w1.ratiosCA, ratiosCB: w1.ratiosCB } : undefined,
  };
  if (options.write) await writeOutputs(run);
  return run;
}

function chartOf(run: BenchmarkRun): string | undefined {
  if (!run.w1) return undefined;
  return w1RatioChart(
    [
      { label: "(c)/(a)", target: 1.2, perRound: run.w1.ratiosCA, median: median(run.w1.ratiosCA) },
      { label: "(c)/(b)", target: 1.0, perRound: run.w1.ratiosCB, median: median(run.w1.ratiosCB) },
    ],
    `W1 loop overhead ratios (${run.quick ? "quick" : "full"} run, ${run.machine.cores} cores, Node ${run.machine.node})`,
  );
}

async function writeOutputs(run: BenchmarkRun): Promise<void> {
  await mkdir(RESULTS, { recursive: true });
  const suffix = run.quick ? "-quick" : "";
  await writeFile(join(RESULTS, `latest${suffix}.json`), `${JSON.stringify(run, null, 2)}\n`);
  const chart = chartOf(run);
  if (chart) await writeFile(join(RESULTS, `w1-ratios${suffix}.svg`), `${chart}\n`);
  if (run.quick) return; // BENCHMARKS.md holds the full run only
  const m = run.machine;
  const generated = [
    `Latest full run: ${run.startedAt}, ${run.seconds} s in all${run.postgres ? ", PostgreSQL on" : ", PostgreSQL parts skipped (POSTGRES_URL unset)"}.`,
    "",
    `Machine: ${m.cpu}, ${m.cores} cores (\`nproc\`), ${m.memoryGiB} GiB RAM, Node ${m.node}, ${m.platform}. Shared with other jobs during the run, so read ratios (taken within one round) rather than absolute times.`,
    "",
    "Command: `POSTGRES_URL=postgres://postgres@127.0.0.1:5432/test npm run bench`",
    "",
    chart ? "![W1 ratios](bench/results/w1-ratios.svg)\n" : "",
    markdownTable(run.workloads),
  ].join("\n");
  await rewriteResults(join(ROOT, "BENCHMARKS.md"), generated);
}

function parseArgs(argv: readonly string[]): { quick: boolean; only?: string[] } {
  const quick = argv.includes("--quick");
  const at = argv.findIndex((a) => a === "--only" || a.startsWith("--only="));
  if (at < 0) return { quick };
  const value = argv[at]!.includes("=") ? argv[at]!.split("=")[1] : argv[at + 1];
  const only = (value ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  const unknown = only.filter((id) => !WORKLOAD_IDS.some((w) => w.toLowerCase() === id.toLowerCase()));
  if (unknown.length > 0) throw new Error(`--only: unknown workload ${unknown.join(", ")}; known: ${WORKLOAD_IDS.join(", ")}`);
  return { quick, only };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = parseArgs(process.argv.slice(2));
  const run = await runBenchmarks({ ...args, postgresUrl: process.env.POSTGRES_URL || undefined, write: true, log: (l) => console.error(l) });
  console.log(textTable(run.workloads));
  console.log(`\n${run.quick ? "quick" : "full"} run: ${run.seconds} s; results in bench/results/`);
}
