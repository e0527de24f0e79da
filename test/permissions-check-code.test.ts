// Issue 12 follow-up: a PermissionPolicy built in code is checked against the guard's tools when the
// guard is built, by the same check `policy check --graph` and guardFromPolicy run.
import { fakeModel } from "@langchain/core/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ErrorCode, GuardedGraphError } from "../src/errors/index.js";
import { createGuardedAgent } from "../src/guard/agent.js";
import { Guard } from "../src/guard/guard.js";
import { GuardedToolNode } from "../src/guard/tool-node.js";
import { guardMiddleware } from "../src/middleware/guard-middleware.js";
import { parsePermissionRules, PermissionPolicy } from "../src/policy/permissions.js";
import { defineTool } from "../src/tools/define-tool.js";

const deploy = defineTool({ name: "deploy", description: "d", schema: z.object({ env: z.string() }), risk: "low", execute: () => "ok" });
const shell = defineTool({ name: "shell", description: "s", schema: z.object({ cmd: z.string() }), risk: "medium", execute: () => "ok" });
const tools = [deploy, shell];

/** Compact rules as code writes them (a JSON or YAML list read at run time): parsed as a policy file's are. */
const compact = (rules: unknown[]) => parsePermissionRules(rules);

const builders: Record<string, (permissions: PermissionPolicy) => unknown> = {
  "new Guard": (permissions) => new Guard({ tools, permissions }),
  createGuardedAgent: (permissions) => createGuardedAgent({ model: fakeModel(), tools, permissions }),
  GuardedToolNode: (permissions) => new GuardedToolNode({ tools, permissions }),
  guardMiddleware: (permissions) => guardMiddleware({ tools, permissions }),
};

function buildError(build: () => unknown): GuardedGraphError {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(GuardedGraphError);
    return error as GuardedGraphError;
  }
  throw new Error("the guard was built");
}

describe("a PermissionPolicy built in code is checked against the tools", () => {
  for (const [name, build] of Object.entries(builders)) {
    it(`${name}: a rule naming an unknown tool fails at build, naming the rule and the tool`, () => {
      const error = buildError(() => build(new PermissionPolicy([{ id: "ok", tool: "deploy", mode: "allow" }, { id: "typo", tool: "deploi", mode: "deny" }])));
      expect(error.code).toBe(ErrorCode.POLICY);
      expect(error.message).toContain('permissions[1] (typo) names tool "deploi", which matches no known tool (known: deploy, shell); the rule would never fire');
    });

    it(`${name}: a compact rule reading an argument the tool lacks fails at build`, () => {
      const error = buildError(() => build(new PermissionPolicy(compact([{ rule: "deploy(namespace:production)", mode: "deny" }]))));
      expect(error.code).toBe(ErrorCode.POLICY);
      expect(error.message).toContain('permissions[0]: deploy(namespace:production) reads the argument "namespace", but tool deploy has no argument "namespace" (its arguments: env); the rule would never fire');
    });
  }

  it("a compact rule whose main argument (by convention) the tool lacks fails; declaring mainArgument fixes it", () => {
    const bash = defineTool({ name: "Bash", description: "b", schema: z.object({ cmd: z.string() }), risk: "medium", execute: () => "ok" });
    const error = buildError(() => new Guard({ tools: [bash], permissions: new PermissionPolicy(compact([{ rule: "Bash(rm:*)", mode: "deny" }])) }));
    expect(error.message).toMatch(/permissions\[0\]: Bash\(rm:\*\) reads the argument "command" \(Claude Code's convention for Bash\), but tool Bash has no argument "command"/);
    const fixed = new PermissionPolicy(compact([{ rule: "Bash(rm:*)", mode: "deny" }]), { mainArguments: { Bash: { field: "cmd", kind: "command" } } });
    expect(() => new Guard({ tools: [bash], permissions: fixed })).not.toThrow();
  });

  it("every error is listed, not only the first", () => {
    const rules = compact([
      { tool: "deploi", mode: "deny" },
      { rule: "shell(command:rm *)", mode: "deny" },
    ]);
    const error = buildError(() => new Guard({ tools, permissions: new PermissionPolicy(rules) }));
    expect(error.message).toContain('permissions[0] names tool "deploi"');
    expect(error.message).toContain('tool shell has no argument "command"');
  });

  it("warnings stay warnings: a shadowed rule, a glob matching some tool and fields of open schemas build", () => {
    const open = defineTool({ name: "fetch", description: "f", schema: z.looseObject({ url: z.string() }), risk: "low", execute: () => "ok" });
    const policy = new PermissionPolicy(
      compact([
        { tool: "*", mode: "deny" },
        { tool: "deploy", mode: "allow" },
        { tool: "sh*", mode: "ask" },
        { rule: "fetch(host:example.com)", mode: "allow" },
        { tool: "deploy", mode: "deny", where: { env: { equals: "production" } } },
      ]),
    );
    expect(() => new Guard({ tools: [...tools, open], permissions: policy })).not.toThrow();
  });

  it("a custom decider (not a PermissionPolicy) is not checked: the guard cannot read its rules", () => {
    expect(() => new Guard({ tools, permissions: { decide: () => ({ mode: "allow", ruleId: "mine", reason: "mine", risk: "low" }) } })).not.toThrow();
  });
});
