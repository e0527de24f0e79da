// Building a guard and checking its policy grow linearly with the number of rules: four times the
// rules cost well under five and a half times the CPU (a quadratic step would cost sixteen times).
// Measured on the heterogeneous generator's policies (rules that repeat conditions across tools, as
// big policies do) and on the same policies with every condition made distinct (nothing shared),
// sizes interleaved, the least of five runs each (of up to fifteen while a ratio is over the bound:
// a loaded machine only ever adds time).
import { describe, expect, it } from "vitest";
import { heteroTools, heteroWorkload, withDistinctConditions, type HeteroWorkload } from "../bench/lib/hetero.js";
import { Guard } from "../src/guard/index.js";
import { checkPolicy } from "../src/policy/check.js";
import { loadedPolicyOf } from "../src/policy/file.js";
import { PermissionPolicy, type PermissionRule } from "../src/policy/permissions.js";

const SEED = 20261127;
const TOOLS = 1_000;

function cpuMs(run: () => void): number {
  const t0 = process.cpuUsage();
  run();
  const used = process.cpuUsage(t0);
  return (used.user + used.system) / 1000;
}


interface Point {
  workload: HeteroWorkload;
  rules: readonly PermissionRule[];
}

function build(point: Point): { guard: Guard; policy: PermissionPolicy } {
  const policy = new PermissionPolicy(point.rules, { mainArguments: point.workload.mainArguments });
  const guard = new Guard({ tools: heteroTools(point.workload), rules: point.workload.toolRules, permissions: policy, now: () => point.workload.now });
  return { guard, policy };
}

const BOUND = 5.5;

/**
 * Least CPU ms of five runs of build and of check per size, the sizes interleaved; five runs more
 * (up to fifteen in all) while a ratio is over the bound. A busy machine (other test files run
 * beside this one) only ever adds time, more to the large size's collections than to the small's;
 * a step that grows faster than the rules stays over the bound however many runs are taken.
 */
function measure(points: readonly Point[]): { build: number[]; check: number[] } {
  const builds = points.map(() => Number.POSITIVE_INFINITY);
  const checks = points.map(() => Number.POSITIVE_INFINITY);
  const over = () => builds[1]! / builds[0]! >= BOUND || checks[1]! / checks[0]! >= BOUND;
  for (let run = 0; run < 5 || (run < 15 && over()); run++) {
    points.forEach((point, i) => {
      let built: ReturnType<typeof build> | undefined;
      builds[i] = Math.min(builds[i]!, cpuMs(() => (built = build(point))));
      const { guard, policy } = built!;
      checks[i] = Math.min(checks[i]!, cpuMs(() => checkPolicy(loadedPolicyOf(policy), guard.registry.catalog(), undefined, guard.registry.argumentNames())));
    });
  }
  return { build: builds, check: checks };
}

describe("a guard's build and its policy check grow linearly with the rules", () => {
  const small = heteroWorkload({ seed: SEED, rules: 10_000, tools: TOOLS, calls: 10 });
  const large = heteroWorkload({ seed: SEED, rules: 40_000, tools: TOOLS, calls: 10 });

  it("10,000 and 40,000 heterogeneous rules over 1,000 tools", () => {
    const { build: b, check: c } = measure([
      { workload: small, rules: small.permissions },
      { workload: large, rules: large.permissions },
    ]);
    expect(b[1]! / b[0]!, `build ${b.map(Math.round).join(" → ")} ms`).toBeLessThan(BOUND);
    expect(c[1]! / c[0]!, `check ${c.map(Math.round).join(" → ")} ms`).toBeLessThan(BOUND);
  }, 120_000);

  it("the same policies with every condition distinct (nothing shared between rules)", () => {
    const { build: b, check: c } = measure([
      { workload: small, rules: withDistinctConditions(small.permissions) },
      { workload: large, rules: withDistinctConditions(large.permissions) },
    ]);
    expect(b[1]! / b[0]!, `build ${b.map(Math.round).join(" → ")} ms`).toBeLessThan(BOUND);
    expect(c[1]! / c[0]!, `check ${c.map(Math.round).join(" → ")} ms`).toBeLessThan(BOUND);
  }, 120_000);

  it("building compiles no rule's conditions: a tool's first decision compiles the rules it may match, and the rest stay uncompiled", () => {
    const { policy } = build({ workload: small, rules: small.permissions });
    const compiledCount = () => (policy as unknown as { rules: { compiled?: unknown }[] }).rules.filter((entry) => entry.compiled !== undefined).length;
    expect(compiledCount()).toBe(0);
    const tool = small.calls[0]!.name;
    policy.decide(tool, small.calls[0]!.args);
    const after = compiledCount();
    expect(after).toBeGreaterThan(0);
    // Only rules whose tool pattern matches this tool: a small share of the policy.
    expect(after).toBeLessThan(small.permissions.length / 20);
  });
});
