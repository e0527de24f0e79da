import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { PolicyDecision } from "../policy/types.js";
import type { RuleState } from "../rules/types.js";
import type { RiskLevel, ToolGuardSpec } from "../tools/types.js";
import type { Guard, RawToolCall } from "./guard.js";
import { checkArgumentLimits } from "../policy/limits.js";
import { noRuleDecision } from "../policy/defaults.js";
import type { CallOutcome, ReviewedCall } from "./state.js";
import type { DecisionContext } from "../provenance/context.js";
import type { Evidence } from "../provenance/index-builder.js";
import { approvalNotes, refusals } from "../messages/index.js";
import { ToolCallLimitError } from "../errors/index.js";
import { principalOf } from "../principal/principal.js";

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

/** What is known about a call before its outcome; outcomes are built from it as one literal (object spread is slow on this hot path). */
interface Facts {
  id: string;
  name: string;
  args: Record<string, unknown>;
  operation: string | undefined;
  risk: RiskLevel;
  concurrencySafe: boolean;
  requestHeartbeat: boolean;
  evidence?: Evidence[] | undefined;
  /** A tool rule that asks (onViolation "ask") made this call ask: its id. */
  askedRule?: string | undefined;
}

function outcome(facts: Facts, result: CallOutcome, ruleId: string, reason: string, message?: string): ReviewedCall {
  return {
    id: facts.id,
    name: facts.name,
    args: facts.args,
    operation: facts.operation,
    outcome: result,
    ruleId,
    reason,
    risk: facts.risk,
    concurrencySafe: facts.concurrencySafe,
    requestHeartbeat: facts.requestHeartbeat,
    message,
    evidence: facts.evidence,
    ...(facts.askedRule === undefined ? {} : { askedRule: facts.askedRule }),
  };
}

/**
 * Reviews one call. Pure: no side effects, so LangGraph may run it again on resume.
 * Order: parse and validate → killswitch → permission rules → tool rules and allowed operations
 * → the tool's own consent check. Deny beats ask beats allow; the outcome names its rule.
 * Synchronous unless the tool has a consent check.
 */
export function reviewCall(
  guard: Guard,
  state: RuleState,
  call: RawToolCall,
  config?: LangGraphRunnableConfig,
  context?: DecisionContext,
): ReviewedCall | Promise<ReviewedCall> {
  const spec = guard.spec(call.name);
  const object = argsObject(call.args);
  if (!spec) {
    const facts: Facts = { id: call.id, name: call.name, args: object ?? {}, operation: undefined, risk: "always-deny", concurrencySafe: false, requestHeartbeat: false, evidence: undefined };
    const message = refusals.unknownTool(call.name, guard.registry.names());
    return withSentArgs(outcome(facts, "refuse", "unknown-tool", `unknown tool "${call.name}"`, message), object, call.args);
  }
  // Arguments that are not an object (a string, null, a number, an array, JSON text in a string)
  // are refused before anything reads them: no rule, matcher or schema sees them.
  if (object === undefined) {
    const facts: Facts = { id: call.id, name: call.name, args: {}, operation: undefined, risk: guard.riskOf(call.name), concurrencySafe: false, requestHeartbeat: false };
    const received = refusals.argumentsKind(call.args);
    return withSentArgs(outcome(facts, "refuse", "schema", refusals.argumentsNotObjectReason(received), refusals.argumentsNotObject(call.name, received)), object, call.args);
  }
  // Deep or huge arguments are refused before anything reads them (t12 hook: nothing below recurses into them).
  const oversized = checkArgumentLimits(object);
  if (oversized !== undefined) {
    const facts: Facts = { id: call.id, name: call.name, args: oversized.summary, operation: undefined, risk: guard.riskOf(call.name), concurrencySafe: false, requestHeartbeat: false };
    return outcome(facts, "refuse", "oversized-arguments", oversized.reason, oversized.message(call.name));
  }
  // A strict-mode model writes null for an optional field it leaves out: read as absent (splitHeartbeat).
  const split = guard.splitHeartbeat(call.name, object);
  const heartbeat = split.heartbeat;
  // Arguments a rule prefills (Letta's init / child args) replace the model's values for those keys.
  const prefilled = guard.engine.prefillsArgs ? guard.engine.prefilledArgs(state, call.name) : undefined;
  const args = prefilled !== undefined && Object.keys(prefilled).length > 0 ? { ...split.args, ...prefilled } : split.args;
  const operation = operationOf(args, spec.operationKey);
  // Without a permission policy the same default holds: the declared risk decides, and a tool whose
  // risk nobody declared asks (fail closed; `defaultRisk` in the guard's options or the policy changes it).
  const declared = guard.declaredRisk(call.name, operation);
  const facts: Facts = {
    id: call.id,
    name: call.name,
    args,
    operation,
    risk: declared ?? "medium", // guard.riskOf
    concurrencySafe: false,
    requestHeartbeat: heartbeat,
  };

  const parsed = spec.inputSchema.safeParse(args);
  if (!parsed.success) {
    const detail = formatIssues(parsed.error.issues);
    return outcome(facts, "refuse", "schema", refusals.invalidArgumentsReason(detail), refusals.invalidArguments(call.name, detail));
  }
  facts.concurrencySafe = safeConcurrency(spec, parsed.data);

  const kill = guard.options.killswitch?.decide(call.name, facts.risk) ?? null;
  if (kill?.mode === "deny") return refuse(facts, kill.ruleId, kill.reason);

  const permissions = guard.options.permissions;
  // Who runs the call is read from the run's config only for a policy with rules on it.
  const principal = permissions?.readsPrincipal === true ? principalOf(config) : undefined;
  const permission: PolicyDecision = permissions?.decide(call.name, args, declared, context, principal) ?? noRuleDecision(call.name, declared, guard.options.riskModes);
  if (permission.evidence !== undefined) facts.evidence = permission.evidence;
  if (permission.mode === "deny") return refuse(facts, permission.ruleId, permission.reason);

  const violation = guard.engine.checkCall(state, { tool: call.name, operation }, guard.now());
  // A tool rule with onViolation "ask" puts the call to a human (after deny, beside other asks).
  const ruleAsks = violation?.onViolation === "ask" ? violation : null;
  if (violation && !ruleAsks) {
    if (violation.exitBehavior === "error") throw new ToolCallLimitError(violation, { callId: call.id, refusal: violation.message });
    const refused = outcome(facts, "refuse", `rule:${violation.ruleId}`, violation.reason, violation.message);
    if (violation.exitBehavior === "end") refused.endsRun = true;
    return refused;
  }

  if (ruleAsks) facts.askedRule = ruleAsks.ruleId;
  if (kill?.mode === "ask") return ask(guard, facts, kill.ruleId, ruleAsks ? `${kill.reason}; ${ruleAsks.reason}` : kill.reason);
  if (permission.mode === "ask") return ask(guard, facts, permission.ruleId, ruleAsks ? `${permission.reason}; ${ruleAsks.reason}` : permission.reason);
  if (ruleAsks) return ask(guard, facts, `rule:${ruleAsks.ruleId}`, ruleAsks.reason);
  if (!spec.requiresApproval) return outcome(facts, "run", permission.ruleId, permission.reason);
  // Only a tool with its own consent check makes the review asynchronous.
  return Promise.resolve(spec.requiresApproval(parsed.data, config)).then((consent) =>
    consent === undefined
      ? outcome(facts, "run", permission.ruleId, permission.reason)
      : ask(guard, facts, `tool:${call.name}:consent`, consent),
  );
}

/** The model's arguments when they are a JSON object (not an array, not null), else undefined. */
export function argsObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** A refusal of arguments that were not an object keeps the value as sent, for the audit. */
function withSentArgs(call: ReviewedCall, object: Record<string, unknown> | undefined, sent: unknown): ReviewedCall {
  return object === undefined ? { ...call, sentArgs: sent === undefined ? null : sent } : call;
}

function refuse(facts: Facts, ruleId: string, reason: string): ReviewedCall {
  return outcome(facts, "refuse", ruleId, reason, refusals.denied(facts.name, ruleId, reason));
}

function ask(guard: Guard, facts: Facts, ruleId: string, reason: string): ReviewedCall {
  const bypass = guard.options.bypass === true && (guard.options.killswitch?.bypassAllowed() ?? true);
  if (bypass) return outcome(facts, "run", ruleId, approvalNotes.autoApproved(reason));
  return outcome(facts, "ask", ruleId, reason);
}

/** A concurrency check that throws means "not safe". */
function safeConcurrency(spec: ToolGuardSpec, input: unknown): boolean {
  try {
    return spec.isConcurrencySafe(input) === true;
  } catch {
    return false;
  }
}
