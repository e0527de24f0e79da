import { z } from "zod";
import type { PermissionDecider } from "../../src/guard/interfaces.js";
import { noRuleDecision } from "../../src/policy/defaults.js";
import type { PolicyDecision } from "../../src/policy/types.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { RiskLevel } from "../../src/tools/types.js";

/** Records every execution so tests can assert what actually ran. */
export class ExecutionLog {
  readonly entries: { tool: string; args: Record<string, unknown>; key: string }[] = [];
  names(): string[] {
    return this.entries.map((e) => e.tool);
  }
}

export function k8sTools(log: ExecutionLog) {
  const target = { resource: z.string(), name: z.string().optional(), namespace: z.string().default("default") };
  const get = defineTool({
    name: "kubectl_get",
    description: "List resources",
    schema: z.object(target),
    risk: "low",
    isConcurrencySafe: () => true,
    execute: (input, ctx) => {
      log.entries.push({ tool: "kubectl_get", args: input, key: ctx.idempotencyKey });
      return `pods in ${input.namespace}: web-1, web-2`;
    },
  });
  const del = defineTool({
    name: "kubectl_delete",
    description: "Delete a resource",
    schema: z.object({ ...target, name: z.string() }),
    risk: "high",
    execute: (input, ctx) => {
      log.entries.push({ tool: "kubectl_delete", args: input, key: ctx.idempotencyKey });
      return `deleted ${input.resource}/${input.name} in ${input.namespace}`;
    },
  });
  return [get, del];
}

/** A minimal permission decider: production is protected, everything else by the declared risk (none declared: ask). */
export const prodProtected: PermissionDecider = {
  decide(tool: string, args: unknown, declared?: RiskLevel): PolicyDecision {
    const risk = declared ?? "medium";
    const ns = (args as { namespace?: unknown }).namespace;
    if (tool.startsWith("kubectl_") && tool !== "kubectl_get" && ns === "production") {
      return { mode: "deny", ruleId: "permission:prod-protected", reason: "production namespace is protected", risk };
    }
    return noRuleDecision(tool, declared);
  },
};
