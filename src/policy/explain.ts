import type { BaseMessage } from "@langchain/core/messages";
import { z } from "zod";
import { evidenceLine, threadHeader } from "../messages/provenance.js";
import { ToolRulesEngine } from "../rules/engine.js";
import type { RiskLevel } from "../tools/types.js";
import { canonicalize } from "./canonical.js";
import { describeCommand } from "./kinds/command.js";
import type { LoadedPolicy } from "./file.js";
import { permissionPolicy } from "./file.js";
import type { ToolCatalog } from "./check.js";
import { RiskLevelSchema } from "./schema.js";
import type { PermissionPolicy } from "./permissions.js";
import type { PolicyDecision } from "./types.js";
import type { RuleViolation } from "../rules/types.js";
import type { Principal } from "../principal/principal.js";

/** `--state`: the calls made so far in the run (oldest first), as the tool rules count them. */
export const ExplainStateSchema = z.strictObject({
  calls: z
    .array(
      z.union([
        z.string().min(1),
        z.strictObject({ tool: z.string().min(1), operation: z.string().optional(), success: z.boolean().default(true), at: z.number().optional() }),
      ]),
    )
    .default([]),
  now: z.number().optional().describe("Epoch ms of the explained call (default: after the last call)."),
});
type ExplainState = z.input<typeof ExplainStateSchema>;

interface ExplainInput {
  tool: string;
  args: unknown;
  state?: ExplainState | undefined;
  /** The risk the tool declares itself (from --graph's tools or --risk). */
  declaredRisk?: RiskLevel | undefined;
  operation?: string | undefined;
  tools?: ToolCatalog | undefined;
  /** A thread's checkpointed messages (`--thread`): provenance conditions are judged against them, and the evidence shown. */
  thread?: { id: string; messages: readonly BaseMessage[] } | undefined;
  /** Who runs the call (`--user`, `--configurable`): rules on the principal are judged for it. */
  principal?: Principal | undefined;
}

/** The principal line of `policy explain`: who runs the call, as the rules read it. */
function describePrincipal(principal: Principal | undefined): string {
  const user = principal?.user;
  const values = Object.entries(principal?.configurable ?? {});
  const run = values.length === 0 ? "no configurable values" : `configurable ${values.map(([key, value]) => `${key}=${JSON.stringify(value)}`).join(", ")}`;
  if (user === undefined) return `Principal: no authenticated user (give --user JSON); ${run}`;
  const attributes = Object.entries(user.attributes).map(([key, value]) => `metadata.${key}=${JSON.stringify(value)}`);
  return `Principal: ${user.identity} (permissions ${JSON.stringify(user.permissions ?? null)}${attributes.length === 0 ? "" : `, ${attributes.join(", ")}`}); ${run}`;
}

/** Ids of the policy's shadow rules (`shadow: true`), as decisions name them. */
function shadowRuleIds(loaded: LoadedPolicy): string[] {
  return loaded.permissions.flatMap((rule, index) => (rule.shadow === true ? [`permission:${rule.id ?? `permissions[${index}]`}`] : []));
}

/** The decision the guard takes from the permission decision and the tool rules' violation (deny beats ask beats allow). */
function finalDecision(decision: PolicyDecision, violation: RuleViolation | null, shadow = false): string {
  const asks = violation?.onViolation === "ask";
  const mode = (text: string) => (shadow ? `would ${text}` : text);
  if (violation !== null && !asks && decision.mode !== "deny") {
    return `${mode("deny")} by rule:${violation.ruleId} — ${violation.reason} (the permission rules said ${decision.mode} by ${decision.ruleId})`;
  }
  if (violation !== null && asks && decision.mode === "allow") {
    return `${mode("ask")} by rule:${violation.ruleId} — ${violation.reason} (the permission rules said allow by ${decision.ruleId})`;
  }
  return `${mode(decision.mode)} by ${decision.ruleId} — ${decision.reason}`;
}

/**
 * Seed 001's debug mode: every permission rule tried for one call, in order, with its verdict; the
 * tool rules against the given state; and why the decision is what it is. Plain text, one fact a line.
 */
export function explainDecision(loaded: LoadedPolicy, input: ExplainInput): string {
  const policy = permissionPolicy(loaded);
  const risk = input.declaredRisk === undefined ? undefined : RiskLevelSchema.parse(input.declaredRisk);
  const context = input.thread === undefined ? undefined : { messages: input.thread.messages, threadId: `explain:${input.thread.id}` };
  const { decision, trace } = policy.explain(input.tool, input.args, risk, context, input.principal);
  const view = canonicalize(input.args);
  const lines = [`Explaining ${input.tool} against ${loaded.source} (precedence ${loaded.precedence})`];
  if (policy.readsPrincipal || input.principal !== undefined) lines.push(describePrincipal(input.principal));
  lines.push(`Arguments as the rules read them: ${view.oversized ? "(too large or deep to inspect)" : view.text}`);
  if (view.changed) lines.push(`  as written (before normalisation): ${view.literalText}`);
  if (view.controlChar !== undefined) lines.push(`  control character at ${view.controlChar}: no allow rule may hold`);
  const command = (input.args as { command?: unknown } | null)?.command;
  if (typeof command === "string") lines.push(`  command splits into simple commands: ${describeCommand(command)}`);
  lines.push("", "Permission rules for this tool, in the order they are tried:");
  if (trace.length === 0) lines.push("  (none names this tool)");
  trace.forEach((entry, i) => lines.push(`  ${i + 1}. ${entry.mode.padEnd(5)} ${entry.ruleId}: ${entry.verdict} — ${entry.description}`));

  const engine = new ToolRulesEngine([...loaded.toolRules], input.tools === undefined ? {} : { tools: input.tools });
  const state = ExplainStateSchema.parse(input.state ?? {});
  let ruleState = engine.initialState(0);
  let clock = 0;
  for (const call of state.calls) {
    const record = typeof call === "string" ? { tool: call, success: true } : call;
    clock = record.at ?? clock + 1;
    ruleState = engine.record(ruleState, { tool: record.tool, operation: record.operation, callId: `explain-${clock}`, success: record.success, at: clock });
  }
  const operation = input.operation ?? (typeof (input.args as { operation?: unknown } | null)?.operation === "string" ? String((input.args as { operation: string }).operation) : undefined);
  const violation = loaded.toolRules.length === 0 ? null : engine.checkCall(ruleState, { tool: input.tool, operation }, state.now ?? clock + 1);
  lines.push("", `Tool rules (${loaded.toolRules.length}) after ${state.calls.length} earlier call(s):`);
  const asks = violation?.onViolation === "ask";
  lines.push(violation === null ? "  none refuses this call" : `  ${asks ? "asks (onViolation: ask) by" : "refused by"} ${violation.ruleId} (${violation.ruleType}): ${violation.reason}`);

  lines.push("", `Decision: ${finalDecision(decision, violation)}`);
  // Shadow rules and a shadow policy: decided the same way, shown as what they would do, never enforced.
  const shadows: [string, PermissionPolicy][] = [];
  if (policy.shadow !== undefined) shadows.push(["Shadow rules (never enforced)", policy.shadow]);
  if (loaded.shadow !== undefined) shadows.push([`Shadow policy ${loaded.shadow.source} (never enforced)`, permissionPolicy(loaded.shadow)]);
  for (const [label, shadow] of shadows) {
    const would = shadow.explain(input.tool, input.args, risk, context);
    const ids = new Set(shadow === policy.shadow ? shadowRuleIds(loaded) : would.trace.map((entry) => entry.ruleId));
    const tried = would.trace.filter((entry) => ids.has(entry.ruleId));
    lines.push(`${label}: ${finalDecision(would.decision, violation, true)}`);
    tried.forEach((entry) => lines.push(`  ${entry.mode.padEnd(5)} ${entry.ruleId}: ${entry.verdict} — ${entry.description}`));
  }
  if (input.thread !== undefined) {
    lines.push("", threadHeader(input.thread.id, input.thread.messages.length));
    if ((decision.evidence ?? []).length === 0) lines.push("  (no value of this call is traced by the policy's provenance conditions)");
    for (const item of decision.evidence ?? []) lines.push(`  ${evidenceLine(item)}`);
  }
  const unknownRisk = risk === undefined && policy.riskOf(input.tool) === undefined;
  lines.push(`  risk ${unknownRisk ? "not declared (pass --graph NAME or --risk LEVEL for the tool's own)" : decision.risk}`);
  lines.push("  (deny beats ask beats allow; a deny or ask rule that cannot tell asks; a call no rule matches falls to its risk, and asks when no risk is declared)");
  return lines.join("\n");
}
