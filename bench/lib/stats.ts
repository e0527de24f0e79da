import { performance } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

export function median(values: readonly number[]): number {
  return percentile(values, 0.5);
}

/** Nearest-rank percentile (`p` in 0..1) of unsorted values; NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  if (p === 0.5 && sorted.length % 2 === 0) {
    const mid = sorted.length / 2;
    return ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
  }
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? Number.NaN;
}

/** Milliseconds taken by `fn`. */
export async function timeMs(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** Process CPU time (user + system, ms) and wall time (ms) taken by `fn`: CPU is what a loaded, shared machine distorts least. */
export async function cpuAndWallMs(fn: () => Promise<unknown>): Promise<{ cpu: number; wall: number }> {
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  await fn();
  const wall = performance.now() - wall0;
  const used = process.cpuUsage(cpu0);
  return { cpu: (used.user + used.system) / 1_000, wall };
}

/** Median and the p25–p75 spread, for ratios of interleaved blocks. */
export function spread(values: readonly number[]): { median: number; p25: number; p75: number } {
  return { median: median(values), p25: percentile(values, 0.25), p75: percentile(values, 0.75) };
}

export function round(value: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Contenders in a different order each round (rotation), so drift in machine load hits all alike. */
export function rotation<T>(items: readonly T[], roundIndex: number): T[] {
  const k = roundIndex % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

let collect: (() => void) | undefined;

/** A full garbage collection (exposed at run time through V8 flags), so memory readings compare like with like. */
export async function fullGc(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  if (!collect) {
    setFlagsFromString("--expose-gc");
    collect = runInNewContext("gc") as () => void;
  }
  collect();
}
