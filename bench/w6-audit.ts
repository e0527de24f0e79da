import { benchAudit } from "./audit.bench.js";
import type { BenchRow } from "./lib/result.js";

/** W6: records per second to the durable audit sinks (bench/audit.bench.ts: batches of 4, each synced). */
export async function benchW6(opts: { quick: boolean; postgresUrl?: string | undefined }): Promise<BenchRow[]> {
  const results = await benchAudit(opts.postgresUrl ? { quick: opts.quick, postgresUrl: opts.postgresUrl } : { quick: opts.quick });
  return results.map((r) => ({
    workload: "W6",
    contender: `audit sink: ${r.sink}`,
    metric: "records per second",
    value: r.recordsPerSecond,
    unit: "/s",
    note: "batches of 4 records (one turn), each fsynced/committed",
  }));
}
