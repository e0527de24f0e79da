// A PermissionPolicy checks every pattern when it is built but compiles a rule's conditions only on
// the first decision of a tool the rule matches, shares field conditions of equal content between
// rules, and validates each distinct `where` condition once. Compared here with the eager reference
// (every rule compiled up front, in order, each condition on its own, the linear scan) and with the
// whole zod schema: the same decisions, `explain` traces and matching rules; the same error for a
// bad policy; the same parsed rules; and a guard's errors-only check reports what `policy check` does.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { heteroWorkload } from "../bench/lib/hetero.js";
import { assertPolicyFits, checkPolicy } from "../src/policy/check.js";
import { loadedPolicyOf } from "../src/policy/file.js";
import { eagerLinearScanForTests, parsePermissionRules, PermissionPolicy, readPermissionRules, type PermissionRule } from "../src/policy/permissions.js";
import { validRulesOnce } from "../src/policy/rules-once.js";
import { PermissionRuleSchema } from "../src/policy/schema.js";

/** The error message building a policy throws, or undefined. */
function buildError(build: () => unknown): string | undefined {
  try {
    build();
    return undefined;
  } catch (error) {
    return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  }
}

describe("lazy compilation decides as the eager reference does", () => {
  it("generated heterogeneous policies: decide, explain and matchingRules, first decisions and later ones", () => {
    let compared = 0;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.constantFrom("deny-first" as const, "first-match" as const), fc.boolean(), (seed, precedence, declareKinds) => {
        const w = heteroWorkload({ seed, rules: 250, tools: 20, calls: 150 });
        // Declared kinds that differ from the field-name conventions: those rules compile per tool.
        const fieldKinds = declareKinds ? Object.fromEntries(w.tools.filter((_, i) => i % 2 === 0).map((t) => [t.name, { url: "text" as const, subject: "text" as const, query: "text" as const }])) : undefined;
        const options = { mainArguments: w.mainArguments, precedence, ...(fieldKinds === undefined ? {} : { fieldKinds }) };
        const lazy = new PermissionPolicy(w.permissions, options);
        const eager = eagerLinearScanForTests(w.permissions, options);
        const risk = new Map(w.tools.map((t) => [t.name, t.risk]));
        for (let pass = 0; pass < 2; pass++) {
          for (const call of w.calls) {
            const label = `seed ${seed} pass ${pass} ${call.name} ${JSON.stringify(call.args)}`;
            expect(lazy.decide(call.name, call.args, risk.get(call.name)), label).toEqual(eager.decide(call.name, call.args, risk.get(call.name)));
            compared++;
          }
        }
        // A fresh policy per call: every decision is a first decision of its tool.
        for (const call of w.calls.slice(0, 25)) {
          const fresh = new PermissionPolicy(w.permissions, options);
          expect(fresh.explain(call.name, call.args, risk.get(call.name)), `seed ${seed} ${call.name}`).toEqual(eager.explain(call.name, call.args, risk.get(call.name)));
          expect(fresh.matchingRules(call.name, call.args)).toEqual(eager.matchingRules(call.name, call.args));
        }
        expect(lazy.effectiveOrder()).toEqual(eager.effectiveOrder());
        expect(lazy.usageLines()).toEqual(eager.usageLines());
      }),
      { numRuns: 12, seed: 26 },
    );
    expect(compared).toBe(12 * 2 * 150);
  }, 180_000);

  it("a rule that repeats another's conditions on other tools and modes shares them and still gets its own verdicts", () => {
    const where = { path: { glob: "/etc/**" }, mode: { in: ["r", "w"] } };
    const rules: PermissionRule[] = [
      { id: "a", tool: "read_*", mode: "allow", where },
      { id: "d", tool: "write_file", mode: "deny", where: { ...where } },
      { id: "q", tool: "*", mode: "ask", where: { path: { glob: "/etc/**" } } },
      { id: "n", tool: "read_x", mode: "deny", where: { path: { not: { glob: "/etc/**" } } } },
    ];
    const lazy = new PermissionPolicy(rules, { toolRisk: { read_x: "low", write_file: "low", other: "low" } });
    const eager = eagerLinearScanForTests(rules, { toolRisk: { read_x: "low", write_file: "low", other: "low" } });
    for (const tool of ["read_x", "write_file", "other"]) {
      for (const path of ["/etc/passwd", "/srv/x", "/etc/\u0007x", ["/etc/a", "/srv/b"], undefined]) {
        for (const mode of ["r", "w", "x", undefined]) {
          const args = { ...(path === undefined ? {} : { path }), ...(mode === undefined ? {} : { mode }) };
          expect(lazy.explain(tool, args), `${tool} ${JSON.stringify(args)}`).toEqual(eager.explain(tool, args));
        }
      }
    }
  });
});

/** Pieces of rules, good and bad, repeated across generated policies. */
const CONDITIONS: unknown[] = [
  { equals: "a" },
  { in: ["a", 1, true] },
  { prefix: "SELECT" },
  { glob: "**/*.pem" },
  { regex: "^ab+c" },
  { regex: "(?<=a)b" }, // lookbehind: refused
  { regex: "(a" }, // unbalanced: refused
  { exists: true },
  { not: { exists: true } }, // exists inside not: refused
  { not: { glob: "/etc/**" } },
  { anyOf: [{ prefix: "x" }, { regex: "\\1" }] }, // backreference: refused
  { allOf: [{ prefix: "x" }, { glob: "x*y" }] },
  { path: "./secrets/**" },
  { command: "npm run test:*" },
  { url: "https://api.example.com/v1/**" },
  { domain: "*.example.com" },
  { email: "*@example.com" },
  { gt: 10 },
];
const SELECTORS = ["a", "b.c", "items[*].name", "url", "command", "file_path", "to", "a..b", "x["];
const TOOLS: Pick<PermissionRule, "tool" | "toolRegex">[] = [{ tool: "t1" }, { tool: "t*" }, { tool: "t.*", toolRegex: true }, { tool: "(?=t)x", toolRegex: true }, { tool: "db_{1,2}" }];

const ruleArb: fc.Arbitrary<PermissionRule> = fc.record(
  {
    id: fc.constantFrom("r1", "r2", "r3"),
    tool: fc.constantFrom(...TOOLS),
    mode: fc.constantFrom("allow" as const, "deny" as const, "ask" as const),
    where: fc.dictionary(fc.constantFrom(...SELECTORS), fc.constantFrom(...CONDITIONS), { maxKeys: 2 }),
    args: fc.constantFrom("token_[a-z]+", "(?!x)y"),
    budget: fc.constantFrom({ max: 3, sum: "amount" }, { max: 1, sum: "a..b" }, { max: 2 }),
  },
  { requiredKeys: ["tool", "mode"] },
).map(({ tool, ...rest }) => ({ ...tool, ...rest }) as PermissionRule);

describe("a policy is refused when it is built, exactly as the eager compilation refused it", () => {
  it("generated policies with bad regexes, selectors, globs and conditions: the same error, naming the same rule", () => {
    let refused = 0;
    fc.assert(
      fc.property(fc.array(ruleArb, { minLength: 1, maxLength: 8 }), (rules) => {
        const eager = buildError(() => eagerLinearScanForTests(rules));
        const lazy = buildError(() => new PermissionPolicy(rules));
        expect(lazy).toBe(eager);
        if (eager !== undefined) refused++;
      }),
      { numRuns: 600, seed: 2026 },
    );
    expect(refused).toBeGreaterThan(100);
  });
});

/** Condition spellings plain-data keying must tell apart (undefined keys, -0, NaN, class instances, toJSON). */
class Matcher {
  equals = "a";
}
const TRICKY: unknown[] = [
  ...CONDITIONS,
  { equals: "a", prefix: "b" },
  { equals: undefined, glob: "x*" },
  { equals: "a", not: undefined },
  { bogus: 1 },
  { in: [] },
  { equals: -0 },
  { equals: 0 },
  { equals: Number.NaN },
  { gt: Number.POSITIVE_INFINITY },
  new Matcher(),
  { equals: "a", toJSON: () => ({ equals: "a" }) },
  { in: ["a", undefined] },
  null,
  "a",
];

describe("each distinct where condition is validated once, with the whole schema's answer", () => {
  it("generated rule lists: accepted exactly when the schema accepts them, with the data it returns", () => {
    let accepted = 0;
    const full = z.array(PermissionRuleSchema);
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            tool: fc.constantFrom("t", "u*", ""),
            mode: fc.constantFrom("allow", "deny", "maybe"),
            where: fc.dictionary(fc.constantFrom("a", "b", "__proto__", ""), fc.constantFrom(...TRICKY), { maxKeys: 3 }),
          }, { requiredKeys: ["tool", "mode"] }),
          { maxLength: 6 },
        ),
        (input) => {
          const once = validRulesOnce(input);
          const reference = full.safeParse(input);
          if (!reference.success) expect(once).toBeUndefined();
          if (once !== undefined) {
            expect(once).toStrictEqual(reference.data);
            accepted++;
          }
        },
      ),
      { numRuns: 1_500, seed: 7 },
    );
    expect(accepted).toBeGreaterThan(100);
  });

  it("rule shells read without the schema (plain strings, booleans, mode, where) are accepted exactly when the schema accepts them", () => {
    const full = z.array(PermissionRuleSchema);
    const nullProto = Object.assign(Object.create(null) as object, { tool: "t", mode: "deny" });
    const withSymbol = { tool: "t", mode: "deny", [Symbol("s")]: 1 };
    const inherited = Object.create({ tool: "t" }) as Record<string, unknown>;
    inherited.mode = "allow";
    const hidden = { tool: "t", mode: "deny", where: { a: { equals: "x" } } };
    Object.defineProperty(hidden.where, "b", { value: { bogus: 1 }, enumerable: false });
    const odd: unknown[] = [nullProto, withSymbol, inherited, hidden, new Matcher(), [], "rule", null, undefined];
    let accepted = 0;
    let refused = 0;
    // A rule the schema accepts, then at most two keys set to a value of any kind (accepted or not).
    const good = fc.oneof(
      fc.record({ tool: fc.constantFrom("t", "u*"), mode: fc.constantFrom("allow", "deny", "ask"), where: fc.constantFrom(undefined, {}, { a: { equals: "x" } }, { b: { prefix: "y" }, c: { exists: false } }) }, { requiredKeys: ["tool", "mode"] }),
      fc.record({ rule: fc.constantFrom("Bash(npm run test:*)", "t(a:1)", "Read(./x/**)"), mode: fc.constantFrom("allow", "deny", "ask") }),
    );
    const anyValue: Record<string, unknown[]> = {
      id: [undefined, "", "r1", 3],
      rule: [undefined, "", "t(a:1)"],
      tool: [undefined, "", "t", 1],
      toolRegex: [undefined, true, false, "yes"],
      args: [undefined, "", "a", 1],
      where: [undefined, {}, { a: { equals: "x" } }, { "": { equals: "x" } }, { a: { bogus: 1 } }, null, [], "x", new Matcher(), Object.assign(Object.create(null) as object, { a: { equals: "x" } })],
      mode: [undefined, "allow", "maybe", 1],
      reason: [undefined, "", "why", 1],
      shadow: [undefined, true, "no"],
      caseSensitive: [undefined, false, 0],
      after: [undefined, ["web"], [], "web"],
      afterScope: [undefined, "thread", "ever"],
      budget: [undefined, { max: 3 }, { max: -1 }],
      principal: [undefined, { identity: { equals: "a" } }, { identity: 1 }],
      extra: [undefined, 1],
    };
    const change = fc.constantFrom(...Object.keys(anyValue)).chain((key) => fc.constantFrom(...anyValue[key]!).map((value) => [key, value] as const));
    const shell = fc
      .tuple(good, fc.array(change, { maxLength: 2 }), fc.boolean())
      .map(([rule, changes, absent]) => {
        const out: Record<string, unknown> = { ...rule };
        for (const [key, value] of changes) {
          if (value === undefined && absent) delete out[key];
          else out[key] = value;
        }
        return out;
      });
    fc.assert(
      fc.property(fc.array(fc.oneof({ weight: 12, arbitrary: shell }, { weight: 1, arbitrary: fc.constantFrom(...odd) }), { maxLength: 3 }), (input) => {
        const once = validRulesOnce(input);
        const reference = full.safeParse(input);
        if (!reference.success) {
          expect(once).toBeUndefined();
          refused++;
        } else if (once !== undefined) {
          expect(once).toStrictEqual(reference.data);
          // The rules a policy reads from them (validShellsOnce, no shell copied) equal those read from the schema's output.
          expect(parsePermissionRules(input)).toStrictEqual(readPermissionRules(reference.data));
          accepted++;
        }
      }),
      { numRuns: 3_000, seed: 11 },
    );
    expect(accepted).toBeGreaterThan(300);
    expect(refused).toBeGreaterThan(300);
  });

  it("a condition whose JSON text equals an accepted one's (undefined keys, -0, NaN, instances, toJSON) is judged on its own", () => {
    const full = z.array(PermissionRuleSchema);
    let differing = 0;
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...TRICKY), { minLength: 1, maxLength: 4 }), (conditions) => {
        // Each condition after its plain-data twin (the same JSON text), which is seen first.
        const twins = conditions.map((condition) => JSON.parse(JSON.stringify(condition) ?? "null") as unknown);
        const input = [...twins, ...conditions].map((condition) => ({ tool: "t", mode: "deny", where: { a: condition } }));
        const once = validRulesOnce(input);
        const reference = full.safeParse(input);
        if (!reference.success) expect(once).toBeUndefined();
        else if (once !== undefined) expect(once).toStrictEqual(reference.data);
        if (full.safeParse(twins.map((c) => ({ tool: "t", mode: "deny", where: { a: c } }))).success && !reference.success) differing++;
      }),
      { numRuns: 800, seed: 8 },
    );
    // Inputs whose twins alone are accepted but which are refused: where a shared verdict would be wrong.
    expect(differing).toBeGreaterThan(50);
  });
});

describe("a guard's build judges the errors policy check reports", () => {
  it("generated policies over generated tools: the same errors, in the same order", () => {
    const names = ["db_1", "db_2", "shell", "web", "k8s_1"];
    let failing = 0;
    fc.assert(
      fc.property(
        fc.array(
          fc.record(
            {
              tool: fc.constantFrom("db_1", "db_*", "nothing", "sh*", "k8s_?", "*"),
              mode: fc.constantFrom("allow" as const, "deny" as const, "ask" as const),
              where: fc.dictionary(fc.constantFrom("query", "cmd", "missing", "a.b"), fc.constantFrom<unknown>({ equals: "x" }, { exists: false }, { not: { prefix: "y" } }), { maxKeys: 2 }),
            },
            { requiredKeys: ["tool", "mode"] },
          ),
          { minLength: 1, maxLength: 10 },
        ),
        fc.subarray(names, { minLength: 1 }),
        (rules, known) => {
          const loaded = loadedPolicyOf(new PermissionPolicy(rules as PermissionRule[]));
          const tools = new Map(known.map((name) => [name, [] as string[]]));
          const args = new Map(known.filter((name) => name !== "web").map((name) => [name, name.startsWith("db") ? ["query"] : ["cmd"]]));
          const { errors } = checkPolicy(loaded, tools, undefined, args);
          const thrown = buildError(() => assertPolicyFits(loaded, tools, undefined, args));
          if (errors.length === 0) expect(thrown).toBeUndefined();
          else {
            failing++;
            expect(thrown).toBeDefined();
            expect(thrown).toContain(errors.length === 1 ? errors[0] : `\n  ${errors.join("\n  ")}`);
          }
        },
      ),
      { numRuns: 400, seed: 11 },
    );
    expect(failing).toBeGreaterThan(50);
  });
});
