import { describe, expect, it } from "vitest";
import { runBenchmarks, WORKLOAD_IDS } from "../bench/run.js";

// Keeps the benchmark harness from rotting: runs the quick version and checks only the shape of
// the results. No timing assertions: CI machines are too noisy for them.
describe("bench --quick", () => {
  it("runs every workload and reports finite numbers", async () => {
    const run = await runBenchmarks({ quick: true, postgresUrl: process.env.POSTGRES_URL || undefined, write: false });
    expect(run.workloads.map((w) => w.id)).toEqual(WORKLOAD_IDS);
    for (const workload of run.workloads) {
      expect(workload.error, `${workload.id}: ${workload.error}`).toBeUndefined();
      expect(workload.rows.length, workload.id).toBeGreaterThan(0);
      for (const row of workload.rows) {
        expect(Number.isFinite(row.value), `${row.workload} ${row.contender} ${row.metric}`).toBe(true);
        if (row.ratio !== undefined) expect(Number.isFinite(row.ratio)).toBe(true);
      }
    }
    expect(run.w1?.ratiosCA.length).toBeGreaterThan(0);
  }, 300_000);
});
