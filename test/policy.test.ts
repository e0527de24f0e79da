import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  canonicalArgs,
  canonicalArgsFolded,
  canonicalize,
  compileSafeRegex,
  MAX_MATCH_INPUT_CHARS,
  PermissionPolicy,
  PolicyError,
  selectField,
  type PermissionRule,
} from "../src/policy/index.js";
import { inlinePolicyExample } from "../examples/policy-inline.js";

// Seed 003's DEVOPS_RULES, transcribed as written (tool regex, args regex over the arguments).
const SEED_DEVOPS_RULES: PermissionRule[] = [
  { tool: "kubectl_.*", toolRegex: true, args: "(get|describe|logs|top|diff)", mode: "allow", reason: "read-only kubectl" },
  { tool: "kubectl_.*", toolRegex: true, args: "(delete|drain|cordon|taint)", mode: "ask", reason: "destructive cluster operation" },
  { tool: "kubectl_.*", toolRegex: true, args: "namespace.*production", mode: "deny", reason: "production namespace is protected" },
  { tool: "bash", args: "rm\\s+-rf\\s+/", mode: "deny", reason: "dangerous filesystem operation" },
];
const prodDelete = { command: "delete deployment web", namespace: "production" };

describe("precedence", () => {
  it("denies a production delete by default even though an ask rule also matches (the seed's flaw fixed)", () => {
    const policy = new PermissionPolicy(SEED_DEVOPS_RULES);
    const decision = policy.decide("kubectl_run", prodDelete);
    expect(decision.mode).toBe("deny");
    expect(decision.ruleId).toBe("permission:permissions[2]");
    expect(decision.reason).toContain("production namespace is protected");
    expect(policy.matchingRules("kubectl_run", prodDelete)).toEqual(["permission:permissions[2]", "permission:permissions[1]"]);
  });

  it("first-match is opt-in and reproduces the seed's order (the ask rule wins)", () => {
    const policy = new PermissionPolicy(SEED_DEVOPS_RULES, { precedence: "first-match" });
    expect(policy.decide("kubectl_run", prodDelete)).toMatchObject({ mode: "ask", ruleId: "permission:permissions[1]" });
    // The seed's other flaw under first-match: "get" anywhere in the args makes a delete read-only.
    expect(policy.decide("kubectl_run", { command: "delete pod get-worker", namespace: "production" }).mode).toBe("allow");
  });

  it("orders deny > ask > allow whatever the declaration order, and keeps file order within a mode", () => {
    const rules: PermissionRule[] = [
      { id: "a1", tool: "t", mode: "allow" },
      { id: "q1", tool: "t", mode: "ask" },
      { id: "d1", tool: "*", where: { x: { equals: 1 } }, mode: "deny" },
      { id: "d2", tool: "t", mode: "deny" },
    ];
    const policy = new PermissionPolicy(rules);
    expect(policy.effectiveOrder().map((r) => r.id)).toEqual(["d1", "d2", "q1", "a1"]);
    expect(policy.decide("t", { x: 1 }).ruleId).toBe("permission:d1");
    expect(policy.decide("t", { x: 2 }).ruleId).toBe("permission:d2");
    expect(new PermissionPolicy(rules, { precedence: "first-match" }).decide("t", {}).ruleId).toBe("permission:a1");
  });
});

describe("risk categories when no rule matches", () => {
  const policy = new PermissionPolicy([], { toolRisk: { rm_everything: "always-deny", read_file: "low" } });

  it("low allows, medium allows, high asks, always-deny denies", () => {
    expect(policy.decide("read_file", {})).toMatchObject({ mode: "allow", ruleId: "risk:low", risk: "low" });
    expect(policy.decide("write_file", {}, "medium")).toMatchObject({ mode: "allow", ruleId: "risk:medium" });
    expect(policy.decide("deploy", {}, "high")).toMatchObject({ mode: "ask", ruleId: "risk:high" });
    expect(policy.decide("rm_everything", {})).toMatchObject({ mode: "deny", ruleId: "risk:always-deny" });
  });

  it("the policy's toolRisk raises a tool's declared risk, lowers it only with lowerRisk; undeclared tools ask unless defaultRisk is set", () => {
    expect(policy.decide("read_file", {}, "high").mode).toBe("ask");
    expect(policy.decide("read_file", {}, "low").mode).toBe("allow");
    expect(new PermissionPolicy([], { toolRisk: { read_file: "low" }, lowerRisk: ["read_file"] }).decide("read_file", {}, "high").mode).toBe("allow");
    // Seed 003: no matching rule and no declared risk → ask; a policy's defaultRisk changes that.
    expect(policy.decide("unknown_risk", {})).toMatchObject({ mode: "ask", ruleId: "default:ask" });
    expect(new PermissionPolicy([], { defaultRisk: "high" }).decide("x", {}).mode).toBe("ask");
    expect(new PermissionPolicy([], { defaultRisk: "medium" }).decide("x", {})).toMatchObject({ mode: "allow", ruleId: "risk:medium" });
  });

  it("riskModes change what a level decides", () => {
    const strict = new PermissionPolicy([], { riskModes: { medium: "ask" } });
    expect(strict.decide("x", {}, "medium").mode).toBe("ask");
    expect(strict.decide("x", {}, "low").mode).toBe("allow");
  });
});

describe("tool name matching", () => {
  it("globs by default, case-insensitively unless caseSensitive", () => {
    const policy = new PermissionPolicy([
      { id: "k", tool: "kubectl_{get,logs}", mode: "deny" },
      { id: "cs", tool: "Exact", caseSensitive: true, mode: "deny" },
    ]);
    expect(policy.decide("kubectl_get", {}).ruleId).toBe("permission:k");
    expect(policy.decide("KUBECTL_LOGS", {}).ruleId).toBe("permission:k");
    expect(policy.decide("kubectl_delete", {}, "medium").ruleId).toBe("risk:medium");
    expect(policy.decide("Exact", {}).ruleId).toBe("permission:cs");
    expect(policy.decide("exact", {}, "medium").ruleId).toBe("risk:medium");
  });

  it("regex tool patterns must match the whole name", () => {
    const policy = new PermissionPolicy([{ id: "r", tool: "db_(drop|truncate)", toolRegex: true, mode: "deny" }]);
    expect(policy.decide("db_drop", {}).mode).toBe("deny");
    expect(policy.decide("db_drop_view", {}, "low").mode).toBe("allow");
    expect(policy.decide("my_db_drop", {}, "low").mode).toBe("allow");
  });
});

describe("field selectors", () => {
  const decide = (where: PermissionRule["where"], args: unknown, mode: PermissionRule["mode"] = "deny") =>
    new PermissionPolicy([{ id: "r", tool: "t", where, mode }]).decide("t", args).ruleId === "permission:r";

  it("equals / in / glob / regex / prefix / exists", () => {
    expect(decide({ "a.b[1].c": { equals: "X" } }, { a: { b: [{}, { c: "x" }] } })).toBe(true);
    expect(decide({ n: { equals: 3 } }, { n: "3" })).toBe(true);
    expect(decide({ n: { in: ["a", "b"] } }, { n: "B" })).toBe(true);
    expect(decide({ n: { in: ["a", "b"] } }, { n: "c" })).toBe(false);
    expect(decide({ path: { glob: "/etc/**" } }, { path: "/etc/ssh/sshd_config" })).toBe(true);
    expect(decide({ path: { glob: "/etc/**" } }, { path: "/home/etc" })).toBe(false);
    expect(decide({ q: { regex: "^drop\\s" } }, { q: "DROP table" })).toBe(true);
    expect(decide({ p: { prefix: "/var/" } }, { p: "/VAR/log" })).toBe(true);
    expect(decide({ p: { exists: true } }, { p: 0 })).toBe(true);
    expect(decide({ p: { exists: true } }, { q: 0 })).toBe(false);
    expect(decide({ p: { exists: false } }, { q: 0 })).toBe(true);
  });

  it("caseSensitive matchers do not fold case", () => {
    expect(decide({ n: { equals: "Prod", caseSensitive: true } }, { n: "prod" })).toBe(false);
    expect(decide({ n: { equals: "Prod", caseSensitive: true } }, { n: "Prod" })).toBe(true);
  });

  it("wildcard selectors: deny if any value matches, allow only if all do", () => {
    const args = { containers: [{ image: "nginx" }, { image: "evil/miner" }] };
    expect(decide({ "containers[*].image": { prefix: "evil/" } }, args, "deny")).toBe(true);
    expect(decide({ "containers[*].image": { in: ["nginx", "redis"] } }, args, "allow")).toBe(false);
    expect(decide({ "containers[*].image": { in: ["nginx", "evil/miner"] } }, args, "allow")).toBe(true);
  });

  it("allow rules need the literal arguments to match too: normalisation never widens an allow", () => {
    const allowLs = [{ id: "ls", tool: "bash", where: { command: { regex: "^ls( [^;&|\\n]*)?$" } }, mode: "allow" as const }];
    const policy = new PermissionPolicy(allowLs, { toolRisk: { bash: "high" } });
    expect(policy.decide("bash", { command: "ls -la" }).mode).toBe("allow");
    // A newline is a command separator in a shell; collapsed it would look like one ls command.
    expect(policy.decide("bash", { command: "ls -la\nrm -rf ~/x" }).mode).toBe("ask");
    expect(policy.decide("bash", { command: "ls\u200B -la" }).mode).toBe("ask");
  });

  it("an invalid selector is refused when the policy is built, naming the rule", () => {
    expect(() => new PermissionPolicy([{ id: "bad", tool: "t", where: { "a..b": { equals: 1 } }, mode: "deny" }])).toThrow(
      /permissions\[0\]\.where\["a\.\.b"\].*empty path segment.*rule id "bad"/,
    );
  });
});

describe("argument size limit", () => {
  const rules: PermissionRule[] = [
    { id: "deny-secret", tool: "t", args: "secret", mode: "deny" },
    { id: "allow-short", tool: "u", where: { text: { regex: "^[a-z]+$" } }, mode: "allow" },
  ];
  const policy = new PermissionPolicy(rules, { toolRisk: { u: "high" } });
  const huge = "a".repeat(MAX_MATCH_INPUT_CHARS + 1);

  it("oversized input triggers conditional deny rules and can never be allowed by an args rule", () => {
    expect(policy.decide("t", { text: huge })).toMatchObject({ mode: "deny", ruleId: "permission:deny-secret" });
    expect(policy.decide("t", { text: huge }).reason).toContain("cannot be inspected");
    expect(policy.decide("u", { text: "abc" }).mode).toBe("allow");
    expect(policy.decide("u", { text: huge }).mode).toBe("ask");
  });

  it("deeply nested input counts as oversized", () => {
    let deep: unknown = "x";
    for (let i = 0; i < 40; i++) deep = { d: deep };
    expect(canonicalize(deep).oversized).toBe(true);
    expect(policy.decide("t", deep).mode).toBe("deny");
  });
});

describe("canonical arguments", () => {
  it("sorts keys at every depth and normalises strings", () => {
    expect(canonicalArgs({ b: 1, a: { d: "x\t\u00A0 y", c: "ｆｕｌｌ" } })).toBe('{"a":{"c":"full","d":"x y"},"b":1}');
    expect(canonicalArgs({ a: 1, b: 2 })).toBe(canonicalArgs({ b: 2, a: 1 }));
  });

  it("folds look-alikes and removes invisible characters", () => {
    expect(canonicalArgs(["раураl", "a\u200Bb\u2060c", "Ρrod"])).toBe('["paypal","abc","Prod"]');
    expect(canonicalArgsFolded({ K: "MiXeD" })).toBe('{"k":"mixed"}');
  });

  it("parses JSON objects and arrays inside strings, recursively", () => {
    const nested = { outer: JSON.stringify({ z: 1, inner: JSON.stringify(["b", { y: "Q" }]) }) };
    expect(canonicalArgs(nested)).toBe('{"outer":{"inner":["b",{"y":"Q"}],"z":1}}');
    expect(canonicalArgs({ s: "{not json" })).toBe('{"s":"{not json"}');
  });

  it("keeps both values when two keys normalise alike", () => {
    expect(canonicalize({ namespace: "dev", ["name\u200Bspace"]: "production" }).text).toBe('{"namespace":["dev","production"]}');
  });

  it("selectField reads dotted paths, indexes, quoted keys and wildcards", () => {
    const args = { a: { b: [{ c: 1 }, { c: 2 }] }, labels: { "app.kubernetes.io/name": "web" } };
    expect(selectField(args, "a.b[1].c")).toBe(2);
    expect(selectField(args, "a.b[*].c")).toEqual([1, 2]);
    expect(selectField(args, 'labels["app.kubernetes.io/name"]')).toBe("web");
    expect(selectField(args, "a.missing")).toBeUndefined();
    expect(() => selectField(args, "a.")).toThrow(/ends with \./);
  });
});

describe("linear-time regexes", () => {
  it("runs a catastrophic pattern like (a+)+$ in linear time", () => {
    const regex = compileSafeRegex("(a+)+$", { where: "test" });
    const input = `${"a".repeat(50_000)}!`;
    // A backtracking engine takes exponential time to fail on this input; RE2 fails in one linear pass.
    expect(regex.test(input)).toBe(false);
    expect(regex.test("aaa")).toBe(true);
  });

  it("literal alternatives (searched with indexOf) agree with RE2", () => {
    const word = fc.stringMatching(/^[a-zA-Z0-9 _\-\/:"]{1,6}$/);
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 3 }), fc.string({ maxLength: 30 }), fc.boolean(), (words, input, caseSensitive) => {
        const pattern = words.join("|");
        const fast = compileSafeRegex(pattern, { where: "t", caseSensitive });
        const re2 = compileSafeRegex(`(?:)${pattern}`, { where: "t", caseSensitive }); // the group forces the RE2 path
        const haystack = `${input}${words[0]!.toUpperCase()}`;
        expect(fast.test(haystack)).toBe(re2.test(haystack));
        expect(fast.test(input)).toBe(re2.test(input));
      }),
    );
  });

  it("refuses lookbehind, lookahead and backreferences at load, naming the rule and pattern", () => {
    const build = (args: string) => () => new PermissionPolicy([{ id: "bad", tool: "t", args, mode: "deny" }]);
    expect(build("(?<=secret)key")).toThrow(PolicyError);
    expect(build("(?<=secret)key")).toThrow(/permissions\[0\]\.args: regex "\(\?<=secret\)key" refused: lookbehind is not supported.*rule id "bad"/);
    expect(build("foo(?!bar)")).toThrow(/lookahead is not supported/);
    expect(build("(a)\\1")).toThrow(/backreferences are not supported/);
    expect(() => new PermissionPolicy([{ tool: "t", where: { q: { regex: "(x" } }, mode: "deny" }])).toThrow(/permissions\[0\]\.where\["q"\]\.regex: regex "\(x" refused/);
  });
});

describe("rules entering from code are validated", () => {
  it("refuses a matcher with two conditions and an unknown mode", () => {
    const bad = [{ tool: "t", mode: "maybe" }] as unknown as PermissionRule[];
    expect(() => new PermissionPolicy(bad)).toThrow(/permissions\[0\]\.mode: expected one of allow\|deny\|ask, got "maybe"/);
    const two = [{ tool: "t", where: { a: { equals: 1, prefix: "x" } }, mode: "deny" }] as unknown as PermissionRule[];
    expect(() => new PermissionPolicy(two)).toThrow(/expected exactly one of equals\|in\|glob\|regex\|prefix\|exists\|path\|command\|url\|domain\|email, got equals and prefix/);
  });
});

describe("examples/policy-inline.ts", () => {
  it("decides as its comments say", () => {
    const result = inlinePolicyExample();
    expect(result.workspace).toMatchObject({ mode: "allow", ruleId: "permission:workspace" });
    expect(result.secret).toMatchObject({ mode: "deny", ruleId: "permission:secrets" });
    expect(result.etc).toMatchObject({ mode: "ask", ruleId: "permission:read-etc" });
    expect(result.other).toMatchObject({ mode: "ask", ruleId: "risk:high" });
    expect(result.escape).toMatchObject({ mode: "ask", ruleId: "risk:high" });
  });
});
