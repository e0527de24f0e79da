// Issue 14 follow-up: prefilled `args` of tool rules (InitialCall, plain rules, Periodic) and
// `childArgs` of ChildTools are checked against the tool's zod schema when the guard is built and
// by `policy check` with the tools known, not first when the call is made.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { GuardedGraphError, ErrorCode } from "../src/errors/index.js";
import { Guard } from "../src/guard/guard.js";
import { guardFromPolicy } from "../src/guard/from-policy.js";
import { checkPolicy } from "../src/policy/check.js";
import { parsePolicy } from "../src/policy/file.js";
import type { ToolRule } from "../src/rules/types.js";
import { defineTool } from "../src/tools/define-tool.js";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runPolicyCommand } from "./helpers/policy-command.js";

const deploy = defineTool({
  name: "deploy",
  description: "d",
  schema: z.object({ env: z.enum(["staging", "production"]), replicas: z.number().int() }),
  risk: "low",
  execute: () => "ok",
});
const kubectl = defineTool({
  name: "kubectl",
  description: "k",
  schema: z.discriminatedUnion("operation", [
    z.object({ operation: z.literal("get"), name: z.string() }),
    z.object({ operation: z.literal("delete"), name: z.string(), force: z.boolean().optional() }),
  ]),
  risk: "low",
  execute: () => "ok",
});
const plan = defineTool({ name: "plan", description: "p", schema: z.object({}), risk: "low", execute: () => "ok" });
const open = defineTool({ name: "fetch", description: "f", schema: z.looseObject({ url: z.string() }), risk: "low", execute: () => "ok" });
const tools = [deploy, kubectl, plan, open];

function buildError(rules: ToolRule[]): GuardedGraphError {
  try {
    new Guard({ tools, rules });
  } catch (error) {
    expect(error).toBeInstanceOf(GuardedGraphError);
    return error as GuardedGraphError;
  }
  throw new Error("the guard was built");
}

describe("prefilled rule arguments are checked against the tool's schema at build", () => {
  it("InitialCall args with a value the schema rejects: error naming rule, tool and field", () => {
    const error = buildError([{ id: "start", type: "InitialCall", tool: "deploy", args: { env: "prod" } }]);
    expect(error.code).toBe(ErrorCode.RULES);
    expect(error.message).toMatch(/\[invalid-prefilled-args\] rule start: prefilled argument "env" of deploy is rejected by its schema: /);
  });

  it("ChildTools childArgs: each child's prefilled arguments against that child's schema", () => {
    const error = buildError([{ id: "after-plan", type: "ChildTools", tool: "plan", children: ["deploy"], childArgs: { deploy: { replicas: "three" } } }]);
    expect(error.message).toMatch(/rule after-plan: prefilled argument "replicas" of deploy is rejected by its schema: /);
  });

  it("a prefilled field the tool does not have (its schema would drop it) is an error", () => {
    const error = buildError([{ id: "start", type: "InitialCall", tool: "deploy", args: { region: "eu" } }]);
    expect(error.message).toContain('rule start: prefilled argument "region" of deploy: deploy has no argument "region" (its arguments: env, replicas)');
  });

  it("a multi-operation tool: a field every operation rejects is an error; one some operation accepts is not", () => {
    expect(buildError([{ id: "k", type: "InitialCall", tool: "kubectl", args: { force: "yes" } }]).message).toMatch(/rule k: prefilled argument "force" of kubectl is rejected by its schema/);
    expect(buildError([{ id: "k", type: "InitialCall", tool: "kubectl", args: { operation: "get", name: 5 } }]).message).toMatch(/rule k: prefilled argument "name" of kubectl/);
    expect(buildError([{ id: "k", type: "InitialCall", tool: "kubectl", args: { operation: "scale" } }]).message).toMatch(/rule k: prefilled argument "operation" of kubectl/);
    expect(() => new Guard({ tools, rules: [{ id: "k", type: "InitialCall", tool: "kubectl", args: { force: true } }] })).not.toThrow();
    expect(() => new Guard({ tools, rules: [{ id: "k", type: "InitialCall", tool: "kubectl", args: { operation: "delete", name: "web" } }] })).not.toThrow();
  });

  it("valid partial prefills build: the model supplies the rest; open schemas accept any field", () => {
    expect(
      () =>
        new Guard({
          tools,
          rules: [
            { id: "start", type: "InitialCall", tool: "deploy", args: { env: "staging" } },
            { id: "after-plan", type: "ChildTools", tool: "plan", children: ["deploy", "fetch"], childArgs: { deploy: { replicas: 2 }, fetch: { anything: 1 } } },
          ],
        }),
    ).not.toThrow();
  });

  it("every bad field is listed", () => {
    const error = buildError([{ id: "start", type: "InitialCall", tool: "deploy", args: { env: "prod", replicas: 1.5 } }]);
    expect(error.message).toContain('prefilled argument "env"');
    expect(error.message).toContain('prefilled argument "replicas"');
  });

  it("policy check with the tools known, and guardFromPolicy, report it too", async () => {
    const text = "tool_rules:\n  - { id: start, type: InitialCall, tool: deploy, args: { env: prod } }\n";
    const loaded = parsePolicy(text, "yaml", "p.yaml");
    const guard = new Guard({ tools });
    const withTools = checkPolicy(loaded, guard.registry.catalog(), undefined, guard.registry.argumentNames(), guard.registry.inputSchemas());
    expect(withTools.errors.some((e) => /tool_rules: \[invalid-prefilled-args\] rule start: prefilled argument "env" of deploy is rejected by its schema/.test(e))).toBe(true);
    // Without the tools nothing can be said about their schemas.
    expect(checkPolicy(loaded).errors).toEqual([]);
    await expect(guardFromPolicy(loaded, { tools })).rejects.toThrow(/rule start: prefilled argument "env" of deploy is rejected by its schema/);
  });

  it("the CLI: policy check --graph devops reports a prefilled argument the graph's tool rejects; without --graph it cannot tell", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gg-prefill-"));
    const file = join(dir, "p.yaml");
    writeFileSync(file, "tool_rules:\n  - { id: start, type: InitialCall, tool: kubectl_logs, args: { namespace: 7 } }\n");
    expect((await runPolicyCommand(["check", file])).code).toBe(0);
    const graph = await runPolicyCommand(["check", file, "--graph", "devops"]);
    expect(graph.code).toBe(1);
    expect(graph.out.filter((line) => line.startsWith("error:"))).toEqual([
      expect.stringMatching(/^error: tool_rules: \[invalid-prefilled-args\] rule start: prefilled argument "namespace" of kubectl_logs is rejected by its schema: /),
    ]);
  }, 60_000);
});
