import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { PermissionPolicy, type PermissionRule } from "../src/policy/index.js";

const TOOL_COUNT = 100;
const RULE_COUNT = 1_000;

/**
 * 1,000 permission rules over 100 tools: per tool a mix of field selectors (equals / in / glob /
 * prefix / regex), args regexes and unconditional rules, plus a few glob rules spanning many tools.
 */
export function benchmarkRules(): PermissionRule[] {
  const rules: PermissionRule[] = [];
  for (let i = 0; rules.length < RULE_COUNT; i++) {
    const tool = `tool_${i % TOOL_COUNT}`;
    const k = Math.floor(i / TOOL_COUNT);
    switch (k % 8) {
      case 0:
        rules.push({ id: `r${i}`, tool, where: { namespace: { equals: `prod-${k}` } }, mode: "deny" });
        break;
      case 1:
        rules.push({ id: `r${i}`, tool, where: { path: { glob: `/srv/${k}/**` } }, mode: "ask" });
        break;
      case 2:
        rules.push({ id: `r${i}`, tool, where: { path: { prefix: `/workspace/${k}/` } }, mode: "allow" });
        break;
      case 3:
        rules.push({ id: `r${i}`, tool, args: `secret_${k}|token_${k}`, mode: "deny" });
        break;
      case 4:
        rules.push({ id: `r${i}`, tool, where: { "opts.level": { in: [k, k + 1, "max"] } }, mode: "ask" });
        break;
      case 5:
        rules.push({ id: `r${i}`, tool, where: { query: { regex: `^drop\\s+table_${k}\\b` } }, mode: "deny" });
        break;
      case 6:
        rules.push({ id: `r${i}`, tool: `tool_${i % 10}*`, where: { namespace: { equals: `kube-${k}` } }, mode: "deny" });
        break;
      default:
        rules.push({ id: `r${i}`, tool, where: { user: { exists: true } }, mode: "allow" });
    }
  }
  return rules;
}

function benchmarkCalls(): [string, Record<string, unknown>][] {
  const calls: [string, Record<string, unknown>][] = [];
  for (let i = 0; i < 200; i++) {
    calls.push([
      `tool_${i % TOOL_COUNT}`,
      {
        namespace: i % 7 === 0 ? "prod-8" : "staging",
        path: i % 5 === 0 ? "/srv/1/data.db" : `/workspace/2/file-${i}.txt`,
        opts: { level: i % 4, verbose: true },
        query: i % 9 === 0 ? "DROP  table_5;" : "select 1",
        ...(i % 3 === 0 ? { user: "alice" } : {}),
      },
    ]);
  }
  return calls;
}

export async function benchPolicy(opts: { quick: boolean }): Promise<{ name: string; decisionsPerSecond: number; p50us: number; p99us: number }> {
  const policy = new PermissionPolicy(benchmarkRules(), { toolRisk: { tool_0: "high" } });
  const calls = benchmarkCalls();
  const iterations = opts.quick ? 50_000 : 500_000;
  const modes = { allow: 0, deny: 0, ask: 0 };
  for (let i = 0; i < 20_000; i++) policy.decide(...calls[i % calls.length]!); // warm-up (fills the per-tool cache)

  const start = performance.now();
  for (let i = 0; i < iterations; i++) modes[policy.decide(...calls[i % calls.length]!).mode]++;
  const seconds = (performance.now() - start) / 1000;

  // Latency percentiles from a separate timed sample (timing every call would distort the throughput).
  const samples = new Float64Array(opts.quick ? 10_000 : 50_000);
  for (let i = 0; i < samples.length; i++) {
    const call = calls[i % calls.length]!;
    const t0 = performance.now();
    policy.decide(call[0], call[1]);
    samples[i] = (performance.now() - t0) * 1000;
  }
  samples.sort();
  const percentile = (p: number) => Math.round((samples[Math.min(samples.length - 1, Math.floor(samples.length * p))] ?? 0) * 100) / 100;
  if (modes.deny === 0 || modes.allow === 0 || modes.ask === 0) throw new Error(`benchmark mix should produce every mode, got ${JSON.stringify(modes)}`);
  return {
    name: `policy.decide (${RULE_COUNT} rules, ${TOOL_COUNT} tools; ${Math.round((modes.deny / iterations) * 100)}% deny, ${Math.round((modes.ask / iterations) * 100)}% ask)`,
    decisionsPerSecond: Math.round(iterations / seconds),
    p50us: percentile(0.5),
    p99us: percentile(0.99),
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await benchPolicy({ quick: process.argv.includes("--quick") });
  console.log(`${result.name}: ${result.decisionsPerSecond.toLocaleString("en")} decisions/s, p50 ${result.p50us} µs, p99 ${result.p99us} µs`);
}
