import { benchKillswitch } from "./killswitch.bench.js";
import { benchPolicy } from "./policy.bench.js";
import { benchRecall } from "./recall.bench.js";
import { benchRules } from "./rules.bench.js";
import { atLeast, atMost, type BenchRow } from "./lib/result.js";
import { round } from "./lib/stats.js";

/** The per-area benchmarks other modules own, as table rows. Each runs on its own; one failing does not stop the others. */
export const AREA_BENCHES: { id: string; title: string; run: (opts: { quick: boolean; postgresUrl?: string | undefined }) => Promise<BenchRow[]> }[] = [
  {
    id: "rules",
    title: "tool rules engine (bench/rules.bench.ts)",
    run: async ({ quick }) => {
      const r = await benchRules({ quick });
      return [{ workload: "rules", contender: r.name, metric: `checks per second (${r.rules} rules)`, value: r.checksPerSecond, unit: "/s" }];
    },
  },
  {
    id: "policy",
    title: "permission policy (bench/policy.bench.ts)",
    run: async ({ quick }) => {
      const r = await benchPolicy({ quick });
      return [
        { workload: "policy", contender: r.name, metric: "decisions per second", value: r.decisionsPerSecond, unit: "/s", ...atLeast(r.decisionsPerSecond, 100_000, "/s") },
        { workload: "policy", contender: "policy.decide", metric: "p50 / p99 latency", value: r.p50us, unit: "µs", note: `p99 ${r.p99us} µs` },
      ];
    },
  },
  {
    id: "killswitch",
    title: "killswitch (bench/killswitch.bench.ts)",
    run: async ({ quick }) => {
      const r = await benchKillswitch({ quick });
      return [{ workload: "killswitch", contender: r.name, metric: "latency ratio", value: round(r.ratio), unit: "×", ratio: round(r.ratio), ratioOf: "enabled/disabled", ...atMost(round(r.ratio, 2), 1.05), note: `${r.enabledNsPerDecision.toFixed(0)} vs ${r.disabledNsPerDecision.toFixed(0)} ns` }];
    },
  },
  {
    id: "recall",
    title: "recall search (bench/recall.bench.ts)",
    run: async (opts) => {
      const results = await benchRecall(opts.postgresUrl ? { quick: opts.quick, postgresUrl: opts.postgresUrl } : { quick: opts.quick });
      return results.map((r) => ({ workload: "recall", contender: `${r.backend}, ${r.entries.toLocaleString("en-US")} entries`, metric: "median search", value: r.medianMs, unit: "ms", ...atMost(r.medianMs, 20), note: `p99 ${r.p99Ms} ms` }));
    },
  },
];
