import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { PolicyDecision } from "../policy/types.js";
import type { RuleState } from "../rules/types.js";
import type { Guard, RawToolCall } from "./guard.js";
import { riskDecision } from "./risk.js";
import type { ReviewedCall } from "./state.js";

function formatIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length ? issue.path.map(String).join(".") : "(root)"}: ${issue.message}`)
    .join("; ");
}

function operationOf(args: Record<string, unknown>, key: string | undefined): string | undefined {
  if (key === undefined) return undefined;
  const value = args[key];
  return typeof value === "string" ? value : undefined;
}

/**
 * Reviews one call. Pure: no side effects, so LangGraph may run it again on resume.
 * Order: parse and validate → killswitch → permission rules → tool rules and allowed operations
 * → the tool's own consent check. Deny beats ask beats allow; the outcome names its rule.
 */
export async function reviewCall(
  guard: Guard,
  state: RuleState,
  call: RawToolCall,
  config?: LangGraphRunnableConfig,
): Promise<ReviewedCall> {
  const spec = guard.spec(call.name);
  const base = { id: call.id, name: call.name, concurrencySafe: false, requestHeartbeat: false };
  if (!spec) {
    const available = guard.registry.names().join(", ");
    return {
      ...base,
      args: call.args,
      outcome: "refuse",
      ruleId: "unknown-tool",
      reason: `unknown tool "${call.name}"`,
      risk: "always-deny",
      message: `Refused: unknown tool "${call.name}" (rule unknown-tool). Available tools: ${available}.`,
    };
  }
  const { args, heartbeat } = guard.splitHeartbeat(call.name, call.args);
  const operation = operationOf(args, spec.operationKey);
  const risk = guard.riskOf(call.name, operation);
  const reviewed = { ...base, args, operation, risk, requestHeartbeat: heartbeat };

  const parsed = spec.inputSchema.safeParse(args);
  if (!parsed.success) {
    const detail = formatIssues(parsed.error.issues);
    return {
      ...reviewed,
      outcome: "refuse",
      ruleId: "schema",
      reason: `invalid arguments: ${detail}`,
      message: `Refused: invalid arguments for ${call.name} (rule schema): ${detail}. Fix the arguments and call again.`,
    };
  }
  reviewed.concurrencySafe = safeConcurrency(() => spec.isConcurrencySafe(parsed.data));

  const kill = guard.options.killswitch?.decide(call.name, risk) ?? null;
  if (kill?.mode === "deny") return refuse(reviewed, kill.ruleId, kill.reason);

  const permission: PolicyDecision =
    guard.options.permissions?.decide(call.name, args, risk) ?? riskDecision(risk, guard.options.riskModes);
  if (permission.mode === "deny") return refuse(reviewed, permission.ruleId, permission.reason);

  const violation = guard.engine.checkCall(state, { tool: call.name, operation }, guard.now());
  if (violation) {
    return {
      ...reviewed,
      outcome: "refuse",
      ruleId: `rule:${violation.ruleId}`,
      reason: violation.message,
      message: `Refused by tool rule ${violation.ruleId}: ${violation.message}. Allowed now: ${violation.allowedNow.join(", ") || "nothing"}.`,
    };
  }

  if (kill?.mode === "ask") return ask(guard, reviewed, kill.ruleId, kill.reason);
  if (permission.mode === "ask") return ask(guard, reviewed, permission.ruleId, permission.reason);
  const consent = await spec.requiresApproval?.(parsed.data, config);
  if (consent !== undefined) return ask(guard, reviewed, `tool:${call.name}:consent`, consent);
  return { ...reviewed, outcome: "run", ruleId: permission.ruleId, reason: permission.reason };
}

type Draft = Omit<ReviewedCall, "outcome" | "ruleId" | "reason">;

function refuse(call: Draft, ruleId: string, reason: string): ReviewedCall {
  return {
    ...call,
    outcome: "refuse",
    ruleId,
    reason,
    message: `Refused ${call.name} (rule ${ruleId}): ${reason}.`,
  };
}

function ask(guard: Guard, call: Draft, ruleId: string, reason: string): ReviewedCall {
  const bypass = guard.options.bypass === true && (guard.options.killswitch?.bypassAllowed() ?? true);
  if (bypass) return { ...call, outcome: "run", ruleId, reason: `${reason} (auto-approved: bypass mode)` };
  return { ...call, outcome: "ask", ruleId, reason };
}

/** A concurrency check that throws means "not safe". */
function safeConcurrency(check: () => boolean): boolean {
  try {
    return check() === true;
  } catch {
    return false;
  }
}
