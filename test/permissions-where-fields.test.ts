// A `where` condition reading an argument none of the rule's tools has never sees a value: the rule
// would never fire (a deny with a typo'd field is a silent hole), or under `not` / `exists: false`
// fire on every call (an allow that allows everything). With the tools known, every entry point
// refuses such a policy when the guard is built — the same check `policy check --graph` runs.
import { fakeModel } from "@langchain/core/testing";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ErrorCode, GuardedGraphError } from "../src/errors/index.js";
import { createGuardedAgent } from "../src/guard/agent.js";
import { guardFromPolicy } from "../src/guard/from-policy.js";
import { Guard } from "../src/guard/guard.js";
import { GuardedToolNode } from "../src/guard/tool-node.js";
import { guardMiddleware } from "../src/middleware/guard-middleware.js";
import { parsePolicy } from "../src/policy/file.js";
import { normalizeString } from "../src/policy/normalize.js";
import { PermissionPolicy, type PermissionRule } from "../src/policy/permissions.js";
import { defineTool } from "../src/tools/define-tool.js";
import { runPolicyCommand } from "./helpers/policy-command.js";

const deploy = defineTool({ name: "deploy", description: "d", schema: z.object({ env: z.string(), target: z.object({ host: z.string() }).optional() }), risk: "low", execute: () => "ok" });
const shell = defineTool({ name: "shell", description: "s", schema: z.object({ cmd: z.string() }), risk: "medium", execute: () => "ok" });
const tools = [deploy, shell];

const builders: Record<string, (permissions: PermissionPolicy) => unknown> = {
  "new Guard": (permissions) => new Guard({ tools, permissions }),
  createGuardedAgent: (permissions) => createGuardedAgent({ model: fakeModel(), tools, permissions }),
  GuardedToolNode: (permissions) => new GuardedToolNode({ tools, permissions }),
  guardMiddleware: (permissions) => guardMiddleware({ tools, permissions }),
};

function buildError(build: () => unknown): GuardedGraphError | undefined {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(GuardedGraphError);
    return error as GuardedGraphError;
  }
  return undefined;
}

const guardWith = (rules: PermissionRule[]) => () => new Guard({ tools, permissions: new PermissionPolicy(rules) });

describe("where conditions reading an argument the rule's tools lack", () => {
  for (const [name, build] of Object.entries(builders)) {
    it(`${name}: a deny reading a typo'd field fails at build, naming rule, field, tool and its arguments`, () => {
      const error = buildError(() => build(new PermissionPolicy([{ id: "no-prod", tool: "deploy", mode: "deny", where: { enviroment: { equals: "production" } } }])));
      expect(error?.code).toBe(ErrorCode.POLICY);
      expect(error?.message).toContain(
        'permissions[0] (no-prod): where "enviroment" reads the argument "enviroment", but tool deploy has no argument "enviroment" (its arguments: env, target); the rule would never fire: name one of its arguments',
      );
    });
  }

  it("a negated condition or exists:false on a missing field would hold for every call: refused, saying so", () => {
    const allowAll = buildError(guardWith([{ id: "not-etc", tool: "deploy", mode: "allow", where: { pth: { not: { prefix: "/etc" } } } }]));
    expect(allowAll?.message).toContain('but tool deploy has no argument "pth" (its arguments: env, target); the condition would hold for every call, so the rule would allow them all');
    const absent = buildError(guardWith([{ id: "no-user", tool: "deploy", mode: "deny", where: { user: { exists: false } } }]));
    expect(absent?.message).toContain("the condition would hold for every call, so the rule would deny them all");
    const anyOf = buildError(guardWith([{ tool: "deploy", mode: "ask", where: { pth: { anyOf: [{ prefix: "/a" }, { not: { prefix: "/b" } }] } } }]));
    expect(anyOf?.message).toContain("so the rule would ask them all");
  });

  it("every spelling of a selector that starts at a missing argument is refused; selectors that cannot be judged (*, [0]) build", () => {
    for (const selector of ["pth", '["pth"]', "pth.a", "pth[0]", "pth[*].x", 'pth["a.b"]']) {
      expect(buildError(guardWith([{ tool: "deploy", mode: "deny", where: { [selector]: { prefix: "/etc" } } }]))?.message, selector).toContain('reads the argument "pth"');
    }
    for (const selector of ["*", "[0]", "[*]"]) expect(buildError(guardWith([{ tool: "deploy", mode: "deny", where: { [selector]: { prefix: "/etc" } } }])), selector).toBeUndefined();
  });

  it("spellings of a present argument build: nested paths, brackets, and forms the policy normalises to the same key (fullwidth)", () => {
    for (const selector of ["env", '["env"]', "target.host", 'target["host"]', "ｅｎｖ"]) {
      expect(buildError(guardWith([{ tool: "deploy", mode: "deny", where: { [selector]: { equals: "production" } } }])), selector).toBeUndefined();
    }
  });

  it("an argument whose name the policy normalises (fullwidth) counts as the field it normalises to, and the rule does fire", () => {
    const odd = defineTool({ name: "odd", description: "o", schema: z.object({ "ｅｎｖ": z.string() }), risk: "low", execute: () => "ok" });
    const rule: PermissionRule = { tool: "odd", mode: "deny", where: { env: { equals: "production" } } };
    expect(() => new Guard({ tools: [odd], permissions: new PermissionPolicy([rule]) })).not.toThrow();
    expect(new PermissionPolicy([rule]).matchingRules("odd", { "ｅｎｖ": "production" })).toHaveLength(1);
  });

  it("a glob rule builds when any tool it names has the field, and names all of them when none has", () => {
    expect(buildError(guardWith([{ tool: "*", mode: "deny", where: { cmd: { prefix: "rm" } } }]))).toBeUndefined();
    const error = buildError(guardWith([{ tool: "*", mode: "deny", where: { command: { prefix: "rm" } } }]));
    expect(error?.message).toContain('where "command" reads the argument "command", but none of its tools (deploy, shell) has an argument "command"; the rule would never fire');
  });

  it("a tool taking any argument (open schema) is not judged", () => {
    const open = defineTool({ name: "fetch", description: "f", schema: z.looseObject({ url: z.string() }), risk: "low", execute: () => "ok" });
    expect(() => new Guard({ tools: [open], permissions: new PermissionPolicy([{ tool: "fetch", mode: "deny", where: { host: { equals: "evil.example" } } }]) })).not.toThrow();
  });

  it("a policy file goes through the same check (guardFromPolicy)", async () => {
    const loaded = parsePolicy("version: 1\npermissions:\n  - id: no-prod\n    tool: deploy\n    mode: deny\n    where:\n      enviroment: { equals: production }\n", "yaml", "inline.yaml");
    await expect(guardFromPolicy(loaded, { tools })).rejects.toThrow(/permissions\[0\] \(no-prod\): where "enviroment" reads the argument "enviroment", but tool deploy has no argument "enviroment"/);
  });

  it("guarded-graph policy check --graph NAME reports it as an error against the graph's real tools (exit 1); without --graph it is not judged", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "gg-where-")), "p.yaml");
    writeFileSync(file, "version: 1\npermissions:\n  - id: no-prod-delete\n    tool: kubectl_delete\n    mode: deny\n    where:\n      namespce: { equals: production }\n");
    expect((await runPolicyCommand(["check", file])).code).toBe(0);
    const graph = await runPolicyCommand(["check", file, "--graph", "devops"]);
    expect(graph.code).toBe(1);
    expect(graph.out.filter((line) => line.startsWith("error:"))).toEqual([
      expect.stringMatching(/^error: permissions\[0\] \(no-prod-delete\): where "namespce" reads the argument "namespce", but tool kubectl_delete has no argument "namespce" \(its arguments: [^)]*namespace[^)]*\); the rule would never fire: name one of its arguments$/),
    ]);
  });

  it("generated: a rule is refused exactly when its field is none of the tool's arguments, and a refused positive rule never fires", () => {
    const field = fc.oneof(fc.constantFrom("env", "target", "ｅｎｖ", "Env", "env ", "e\u200bnv"), fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,8}$/));
    const value = fc.string({ maxLength: 12 });
    fc.assert(
      fc.property(field, value, fc.record({ env: fc.string({ maxLength: 12 }) }), (key, wanted, args) => {
        const rule: PermissionRule = { tool: "deploy", mode: "deny", where: { [`["${key}"]`]: { equals: wanted } } };
        const refused = buildError(guardWith([rule])) !== undefined;
        const present = ["env", "target"].some((arg) => arg === key || normalizeString(arg) === normalizeString(key));
        expect(refused).toBe(!present);
        // The same rule, not checked against the tools (a bare PermissionPolicy), on arguments the tool accepts.
        if (refused) expect(new PermissionPolicy([rule]).matchingRules("deploy", args)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
