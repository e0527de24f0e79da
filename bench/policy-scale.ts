/**
 * Big policies: the heterogeneous generator's policy (bench/lib/hetero.ts) at several sizes over
 * 1,000 tools (100 at 1,000 rules), each phase timed in process CPU time; each run in a process of
 * its own (nothing compiled yet, as a user's process starts), the sizes interleaved; median and
 * p25–p75 per phase over the runs:
 *   - build: `new PermissionPolicy(rules)` + `new Guard({ tools, permissions })` (validation, the
 *     tool-name index, the guard's check of the rules against its tools)
 *   - check: `checkPolicy` with the guard's tools and argument names (what `policy check --graph` runs)
 *   - YAML: `parsePolicy` of the policy written as YAML, and the `yaml` library's own parse of it
 *     (same options) — the floor the rest is added to
 *   - first decision per tool name (nothing compiled for it yet), median and p99 over the tools
 *   - heap per rule after the build and after every tool has decided once (its rules compiled)
 *   npx tsx bench/policy-scale.ts [--sizes 1000,10000,100000] [--runs 5] [--no-yaml] [--distinct]
 * `--distinct` makes every `where` condition of the policy distinct (nothing shared between rules).
 */
import { parse as parseYaml } from "yaml";
import { Guard } from "../src/guard/index.js";
import { checkPolicy } from "../src/policy/check.js";
import { loadedPolicyOf, parsePolicy } from "../src/policy/file.js";
import { PermissionPolicy, type PermissionRule } from "../src/policy/permissions.js";
import { firstDecisions } from "./lib/first-decisions.js";
import { heteroTools, heteroWorkload, withDistinctConditions, type HeteroWorkload } from "./lib/hetero.js";
import { fullGc, percentile } from "./lib/stats.js";
import { HETERO_SEED, policyYaml } from "./w2-hetero.js";

const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

function timed<T>(run: () => T): { value: T; ms: number } {
  const t0 = process.cpuUsage();
  const value = run();
  return { value, ms: cpuMs(process.cpuUsage(t0)) };
}


interface Run {
  buildMs: number;
  checkMs: number;
  yamlMs: number;
  yamlLibraryMs: number;
  firstMedianMs: number;
  firstP99Ms: number;
  heapPerRuleBuilt: number;
  heapPerRuleCompiled: number;
}

async function run(workload: HeteroWorkload, rules: readonly PermissionRule[], yaml: string | undefined): Promise<Run> {
  await fullGc();
  const heap0 = process.memoryUsage().heapUsed;
  const built = timed(() => {
    const policy = new PermissionPolicy(rules, { mainArguments: workload.mainArguments });
    const guard = new Guard({ tools: heteroTools(workload), rules: workload.toolRules, permissions: policy, now: () => workload.now });
    return { policy, guard };
  });
  const { policy, guard } = built.value;
  await fullGc();
  const heapPerRuleBuilt = (process.memoryUsage().heapUsed - heap0) / rules.length;
  const check = timed(() => checkPolicy(loadedPolicyOf(policy), guard.registry.catalog(), undefined, guard.registry.argumentNames()));
  let yamlMs = Number.NaN;
  let yamlLibraryMs = Number.NaN;
  if (yaml !== undefined) {
    yamlLibraryMs = timed(() => parseYaml(yaml, { uniqueKeys: true, prettyErrors: true })).ms;
    yamlMs = timed(() => parsePolicy(yaml, "yaml", "scale.yaml")).ms;
  }
  let state = guard.initialRuleState();
  for (const record of workload.history) state = guard.engine.record(state, record);
  const { ms: first, seen } = await firstDecisions(guard, state, workload.calls);
  // Every tool decided once: the rules of each compiled.
  for (const tool of workload.tools) if (!seen.has(tool.name)) policy.decide(tool.name, {});
  await fullGc();
  const heapPerRuleCompiled = (process.memoryUsage().heapUsed - heap0) / rules.length;
  return {
    buildMs: built.ms,
    checkMs: check.ms,
    yamlMs,
    yamlLibraryMs,
    firstMedianMs: percentile(first, 0.5),
    firstP99Ms: percentile(first, 0.99),
    heapPerRuleBuilt,
    heapPerRuleCompiled,
  };
}

function summary(values: readonly number[], digits = 0): string {
  const f = (n: number) => n.toFixed(digits);
  return `${f(percentile(values, 0.5))} [${f(percentile(values, 0.25))}–${f(percentile(values, 0.75))}]`;
}

const argv = process.argv.slice(2);
const option = (name: string, fallback: string) => (argv.includes(name) ? (argv[argv.indexOf(name) + 1] ?? fallback) : fallback);
const isDistinct = argv.includes("--distinct");
const noYaml = argv.includes("--no-yaml");

/** One size in this process: the workload generated, then one run (what a fresh process pays: no pattern compiled yet). */
async function child(size: number): Promise<void> {
  const workload = heteroWorkload({ seed: HETERO_SEED, rules: size, tools: Math.min(1_000, Math.max(100, size / 10)), calls: 2_000 });
  const rules = isDistinct ? withDistinctConditions(workload.permissions) : workload.permissions;
  const yaml = noYaml ? undefined : policyYaml({ ...workload, permissions: rules });
  console.log(`${CHILD_MARKER}${JSON.stringify({ tools: workload.tools.length, yamlChars: yaml?.length, run: await run(workload, rules, yaml) })}`);
}

const CHILD_MARKER = "POLICY_SCALE ";

if (argv.includes("--child")) await child(Number(option("--child", "1000")));
else {
  const { execFileSync, execSync } = await import("node:child_process");
  const { fileURLToPath } = await import("node:url");
  const sizes = option("--sizes", "1000,10000,100000").split(",").map(Number);
  const runs = Number(option("--runs", "5"));
  const script = fileURLToPath(import.meta.url);
  const done = new Map<number, { tools: number; yamlChars?: number; runs: Run[] }>(sizes.map((size) => [size, { tools: 0, runs: [] }]));
  console.log(`uptime at start: ${execSync("uptime").toString().trim()}`);
  // Each run in a process of its own, the sizes interleaved.
  for (let r = 0; r < runs; r++) {
    for (const size of sizes) {
      const out = execFileSync(process.execPath, ["--import", "tsx", script, "--child", String(size), ...(isDistinct ? ["--distinct"] : []), ...(noYaml ? ["--no-yaml"] : [])], { encoding: "utf8", maxBuffer: 1 << 24 });
      const line = out.split("\n").find((l) => l.startsWith(CHILD_MARKER));
      if (line === undefined) throw new Error(`no result from the child for ${size}: ${out.slice(-500)}`);
      const got = JSON.parse(line.slice(CHILD_MARKER.length)) as { tools: number; yamlChars?: number; run: Run };
      const entry = done.get(size)!;
      entry.tools = got.tools;
      if (got.yamlChars !== undefined) entry.yamlChars = got.yamlChars;
      entry.runs.push(got.run);
    }
  }
  console.log(`uptime at end: ${execSync("uptime").toString().trim()}`);
  for (const [size, entry] of done) {
    const of = (key: keyof Run, digits = 0) => summary(entry.runs.map((one) => one[key]), digits);
    console.log(
      JSON.stringify({
        rules: size,
        tools: entry.tools,
        runs: entry.runs.length,
        distinct: isDistinct,
        yamlChars: entry.yamlChars,
        buildCpuMs: of("buildMs"),
        checkCpuMs: of("checkMs"),
        yamlLoadCpuMs: of("yamlMs"),
        yamlLibraryCpuMs: of("yamlLibraryMs"),
        firstDecisionMs: `median ${of("firstMedianMs", 3)}, p99 ${of("firstP99Ms", 3)}`,
        heapPerRuleBuilt: of("heapPerRuleBuilt"),
        heapPerRuleAllToolsCompiled: of("heapPerRuleCompiled"),
      }),
    );
  }
}
