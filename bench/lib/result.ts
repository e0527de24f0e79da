/** One line of the benchmark table. */
export interface BenchRow {
  workload: string;
  contender: string;
  metric: string;
  value: number;
  unit: string;
  /** Value relative to the row's baseline (e.g. (c)/(a)); undefined when the row has none. */
  ratio?: number | undefined;
  /** What the ratio is compared to, e.g. "(c)/(a)". */
  ratioOf?: string | undefined;
  /** Human-readable target, e.g. "≤ 1.2". */
  target?: string | undefined;
  /** Whether the target is met; undefined when the row has no target. */
  met?: boolean | undefined;
  note?: string | undefined;
}

export interface WorkloadResult {
  id: string;
  title: string;
  rows: BenchRow[];
  /** Set when the workload could not run (missing module, failure); the run continues. */
  error?: string | undefined;
  skipped?: string | undefined;
  seconds: number;
}

export function atMost(value: number, limit: number): { target: string; met: boolean } {
  return { target: `≤ ${limit}`, met: value <= limit };
}

export function atLeast(value: number, limit: number, unit = ""): { target: string; met: boolean } {
  return { target: `≥ ${limit.toLocaleString("en-US")}${unit}`, met: value >= limit };
}
