// Seed 001's debug mode (issue 15): `guarded-graph policy explain FILE --tool T --args JSON [--state ...]`.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { policyCommand } from "../src/cli/commands/policy.js";
import { explainDecision } from "../src/policy/explain.js";
import { loadPolicyFile, parsePolicy } from "../src/policy/index.js";

const root = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url));

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await policyCommand(argv, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

describe("policy explain", () => {
  it("lists every rule tried, in order, with its verdict, and why the decision is what it is", async () => {
    const { code, out } = await cli(["explain", root("policies/devops.yaml"), "--tool", "kubectl_delete", "--args", '{"resource":"pod","name":"x","namespace":"PRODUCTION"}', "--graph", "devops"]);
    expect(code).toBe(0);
    expect(out).toContain('Arguments as the rules read them: {"name":"x","namespace":"PRODUCTION","resource":"pod"}');
    expect(out).toContain('  1. deny  permission:prod-protected: match — kubectl_!(get|describe|logs|top|diff) where namespace equals "production"');
    expect(out).toContain("  2. ask   permission:k8s-destructive: match — kubectl_{delete,drain,cordon,taint}");
    expect(out).toContain("Decision: deny by permission:prod-protected — production namespace is protected");
    expect(out).toContain("  risk high");
  });

  it("shows the simple commands of a shell command and the rule that cannot tell", () => {
    const loaded = parsePolicy('permissions:\n  - { id: test, rule: "Bash(npm run test:*)", mode: allow }\n  - { id: no-rm, rule: "Bash(rm:*)", mode: deny }\n', "yaml", "p.yaml");
    const text = explainDecision(loaded, { tool: "Bash", args: { command: "npm run test && rm -rf ~" } });
    expect(text).toContain('command splits into simple commands: "npm run test", "rm -rf ~"');
    expect(text).toContain("1. deny  permission:no-rm: match");
    expect(text).toContain("2. allow permission:test: no match");
    expect(text).toContain("Decision: deny by permission:no-rm");
    const unparseable = explainDecision(loaded, { tool: "Bash", args: { command: "npm run test ((" } });
    expect(unparseable).toContain("1. deny  permission:no-rm: cannot tell");
    expect(unparseable).toContain("Decision: ask by permission:no-rm");
  });

  it("applies the tool rules to the state given with --state", async () => {
    const etl = root("policies/etl.toml");
    const before = await cli(["explain", etl, "--tool", "validate_data", "--args", "{}", "--state", '{"calls":["connect_database"]}']);
    expect(before.out).toMatch(/refused by .*\(MustFollow\)/);
    expect(before.out).toMatch(/^Decision: deny by rule:/m);
    const after = await cli(["explain", etl, "--tool", "validate_data", "--args", "{}", "--state", '{"calls":["connect_database","extract_data"]}']);
    expect(after.out).toContain("none refuses this call");
    expect(after.out).toContain("Decision: allow by risk:low");
    const loaded = await loadPolicyFile(etl);
    expect(explainDecision(loaded, { tool: "validate_data", args: {}, state: { calls: ["connect_database", { tool: "extract_data", success: false }] } })).toMatch(/refused by/);
  });

  it("refuses bad flags with a clear message", async () => {
    await expect(cli(["explain", root("policies/devops.yaml"), "--tool", "x", "--args", "{nope"])).rejects.toThrow(/--args is not JSON/);
    await expect(cli(["explain", root("policies/devops.yaml"), "--args", "{}"])).rejects.toThrow(/--tool/);
  });
});
