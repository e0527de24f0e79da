/**
 * What importing the package costs a process, against importing `@langchain/langgraph` alone
 * (not part of `npm run bench`; BENCHMARKS.md, "Import cost"). Each run is a whole `node`
 * process that imports one module and exits; the runs alternate between the modules. Prints, per
 * module, the median over runs of the process's wall time (spawn to exit), CPU time (user + system)
 * and peak resident memory, and each module's ratio to the baseline: the median and p25–p75 of the
 * per-round ratios (each round runs every module once, back to back), then the machine's load.
 * Needs a build (`npm run build`): `guarded-graph` resolves to this package's dist/ by its own name.
 *   npx tsx bench/import-cost.ts [runs] [module ...]
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { loadavg } from "node:os";
import { median, spread } from "./lib/stats.js";

const ROOT = join(import.meta.dirname, "..");
const runs = Number(process.argv[2] ?? 10);
const BASELINE = "@langchain/langgraph";
const modules = [BASELINE, ...(process.argv.length > 3 ? process.argv.slice(3) : ["guarded-graph"])];

// The child reports its own CPU time and peak RSS once the import has finished.
const child = (specifier: string): string =>
  `import(${JSON.stringify(specifier)}).then(() => { const r = process.resourceUsage(); ` +
  `process.stdout.write(JSON.stringify({ cpu: (r.userCPUTime + r.systemCPUTime) / 1000, rss: r.maxRSS / 1024 })); })`;

interface Sample {
  wall: number;
  cpu: number;
  rss: number;
}

function once(specifier: string): Sample {
  const start = performance.now();
  const result = spawnSync(process.execPath, ["-e", child(specifier)], { cwd: ROOT, encoding: "utf8" });
  const wall = performance.now() - start;
  if (result.status !== 0) throw new Error(`importing ${specifier} failed: ${result.stderr}`);
  const { cpu, rss } = JSON.parse(result.stdout) as { cpu: number; rss: number };
  return { wall, cpu, rss };
}

const samples = new Map<string, Sample[]>(modules.map((m) => [m, []]));
for (const m of modules) once(m); // warm the file cache
for (let i = 0; i < runs; i++) {
  for (const m of i % 2 === 0 ? modules : [...modules].reverse()) samples.get(m)?.push(once(m));
}

const summary = modules.map((m) => {
  const s = samples.get(m) ?? [];
  return { module: m, wall: median(s.map((x) => x.wall)), cpu: median(s.map((x) => x.cpu)), rss: median(s.map((x) => x.rss)) };
});
const base = summary[0];
console.log(`node ${process.version}, ${runs} runs per module, medians`);
console.log("module".padEnd(28) + "wall ms".padStart(10) + "CPU ms".padStart(10) + "max RSS MiB".padStart(13) + "   ratio of medians wall / CPU / RSS");
for (const row of summary) {
  const ratio = base === undefined ? "" : `${(row.wall / base.wall).toFixed(3)} / ${(row.cpu / base.cpu).toFixed(3)} / ${(row.rss / base.rss).toFixed(3)}`;
  console.log(row.module.padEnd(28) + row.wall.toFixed(0).padStart(10) + row.cpu.toFixed(0).padStart(10) + row.rss.toFixed(1).padStart(13) + "   " + ratio);
}
// Per-round ratios against the baseline's run of the same round: median (p25–p75).
const baseRuns = samples.get(BASELINE) ?? [];
const fmt = (s: { median: number; p25: number; p75: number }) => `${s.median.toFixed(3)} (${s.p25.toFixed(3)}–${s.p75.toFixed(3)})`;
for (const m of modules.slice(1)) {
  const runs = samples.get(m) ?? [];
  const per = (key: keyof Sample) => spread(runs.map((s, i) => s[key] / (baseRuns[i]?.[key] ?? Number.NaN)));
  console.log(`${m}: per-round ratio, median (p25–p75): wall ${fmt(per("wall"))}, CPU ${fmt(per("cpu"))}, RSS ${fmt(per("rss"))}`);
}
console.log(`load average at the end: ${loadavg().map((l) => l.toFixed(2)).join(", ")}`);
