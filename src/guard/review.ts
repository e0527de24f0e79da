import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { PolicyDecision } from "../policy/types.js";
import type { RuleState } from "../rules/types.js";
import type { RiskLevel, ToolGuardSpec } from "../tools/types.js";
import type { ToolRulesEngine } from "../rules/engine.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { GuardSettings } from "./options.js";
import type { PermissionDecider } from "./interfaces.js";
import { argumentLimitsShape, checkArgumentLimits, PERHAPS_OVER, WITHIN_NO_NULL } from "../policy/limits.js";
import { noRuleDecision } from "../policy/defaults.js";
import type { CallOutcome, ReviewedCall, ShadowDecision } from "./state.js";
import type { DecisionContext } from "../provenance/context.js";
import type { Evidence } from "../provenance/index-builder.js";
import { approvalNotes, refusals } from "../messages/index.js";
import { ToolCallLimitError } from "../errors/index.js";
import { principalOf } from "../principal/principal.js";
import { unparsedArgumentsOf } from "./invalid-calls.js";
import { parseToolArguments } from "../tools/parse-args.js";

/** The tool call as the model wrote it. */
export interface RawToolCall {
  id: string;
  name: string;
  /** As the model sent them: any JSON value (review refuses anything but an object). */
  args: unknown;
}

/** What reviewing a call reads of the guard (a `Guard` is one). */
interface CallReviewer {
  readonly options: Pick<GuardSettings, "killswitch" | "permissions" | "riskModes" | "bypass">;
  readonly registry: Pick<ToolRegistry, "names">;
  readonly engine: Pick<ToolRulesEngine, "prefillsArgs" | "prefilledArgs" | "keptViolation">;
  spec(name: string): ToolGuardSpec | undefined;
  riskOf(name: string, operation?: string): RiskLevel;
  declaredRisk(name: string, operation?: string): RiskLevel | undefined;
  splitHeartbeat(name: string, modelArgs: Record<string, unknown>, noNulls?: boolean): { args: Record<string, unknown>; heartbeat: boolean };
  now(): number;
  /** The decider run in shadow, when there is one. */
  readonly shadowPermissions: PermissionDecider | undefined;
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
  const out: ReviewedCall = {
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
  };
  // Added last, as a spread would (no empty object spread per call).
  if (facts.askedRule !== undefined) out.askedRule = facts.askedRule;
  return out;
}

/**
 * Reviews one call. Pure: no side effects, so LangGraph may run it again on resume.
 * Order: parse and validate → killswitch → permission rules → tool rules and allowed operations
 * → the tool's own consent check. Deny beats ask beats allow; the outcome names its rule.
 * Synchronous unless the tool has a consent check.
 */
export function reviewCall(
  guard: CallReviewer,
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
    return beforePolicy(guard, withSentArgs(outcome(facts, "refuse", "unknown-tool", `unknown tool "${call.name}"`, message), object, call.args));
  }
  // Arguments that are not an object (a string, null, a number, an array, JSON text in a string)
  // are refused before anything reads them: no rule, matcher or schema sees them.
  if (object === undefined) {
    const facts: Facts = { id: call.id, name: call.name, args: {}, operation: undefined, risk: guard.riskOf(call.name), concurrencySafe: false, requestHeartbeat: false };
    const received = refusals.argumentsKind(call.args);
    return beforePolicy(guard, withSentArgs(outcome(facts, "refuse", "schema", refusals.argumentsNotObjectReason(received), refusals.argumentsNotObject(call.name, received)), object, call.args));
  }
  // Arguments the provider could not parse (invalid_tool_calls, moved into the calls by withBoundedArguments).
  const unparsed = unparsedArgumentsOf(object);
  if (unparsed !== undefined) {
    const facts: Facts = { id: call.id, name: call.name, args: object, operation: undefined, risk: guard.riskOf(call.name), concurrencySafe: false, requestHeartbeat: false };
    return beforePolicy(guard, outcome(facts, "refuse", "schema", refusals.unparsedArgumentsReason(unparsed.error), refusals.unparsedArguments(call.name, unparsed.error)));
  }
  // Deep or huge arguments are refused before anything reads them (t12 hook: nothing below recurses into them).
  // One walk says the arguments are within limits, and whether they hold a null (strict mode's "absent") at all.
  const shape = argumentLimitsShape(object);
  const oversized = shape === PERHAPS_OVER ? checkArgumentLimits(object) : undefined;
  if (oversized !== undefined) {
    const facts: Facts = { id: call.id, name: call.name, args: oversized.summary, operation: undefined, risk: guard.riskOf(call.name), concurrencySafe: false, requestHeartbeat: false };
    return beforePolicy(guard, outcome(facts, "refuse", "oversized-arguments", oversized.reason, oversized.message(call.name)));
  }
  // A strict-mode model writes null for an optional field it leaves out: read as absent (splitHeartbeat).
  const split = guard.splitHeartbeat(call.name, object, shape === WITHIN_NO_NULL);
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

  const parsed = parseToolArguments(spec.inputSchema, args);
  if (!parsed.success) {
    const detail = parsed.detail;
    return beforePolicy(guard, outcome(facts, "refuse", "schema", refusals.invalidArgumentsReason(detail), refusals.invalidArguments(call.name, detail)));
  }
  facts.concurrencySafe = safeConcurrency(spec, parsed.data);

  const kill = guard.options.killswitch?.decide(call.name, facts.risk) ?? null;
  if (kill?.mode === "deny") return beforePolicy(guard, refuse(facts, kill.ruleId, kill.reason));

  const permissions = guard.options.permissions;
  // Who runs the call is read from the run's config only for a policy with rules on it.
  const principal = permissions?.readsPrincipal === true || guard.shadowPermissions?.readsPrincipal === true ? principalOf(config) : undefined;
  const permission: PolicyDecision = permissions?.decide(call.name, args, declared, context, principal) ?? noRuleDecision(call.name, declared, guard.options.riskModes);
  const shadow = guard.shadowPermissions;
  if (shadow === undefined) return decideFrom(guard, state, call, facts, spec, parsed.data, kill, permission, config);
  // Shadow: the same review with the shadow decider's answer in place of the policy's; audited, never enforced.
  // The policy's own shadow rules, when none names this tool, decide as the policy does.
  const shadowPermission = permissions !== undefined && shadow === permissions.shadow && permissions.shadowCovers?.(call.name) === false ? permission : shadow.decide(call.name, args, declared, context, principal);
  const same = shadowPermission.mode === permission.mode && shadowPermission.ruleId === permission.ruleId;
  const shadowFacts: Facts = { ...facts };
  const enforced = decideFrom(guard, state, call, facts, spec, parsed.data, kill, permission, config);
  const would = same ? enforced : shadowReview(() => decideFrom(guard, state, call, shadowFacts, spec, parsed.data, kill, shadowPermission, config));
  if (!(enforced instanceof Promise) && !(would instanceof Promise)) return withShadow(enforced, would);
  return Promise.all([enforced, would]).then(([real, other]) => withShadow(real, other));
}

/** A refusal made before any permission rule reads the call: a shadow, when one runs, would have made it too. */
function beforePolicy(guard: CallReviewer, refused: ReviewedCall): ReviewedCall {
  if (guard.shadowPermissions !== undefined) refused.shadow = shadowOf(refused);
  return refused;
}

/** A review's answer as a shadow decision (what the call would have got). */
function shadowOf(call: ReviewedCall): ShadowDecision {
  return { decision: call.outcome === "run" ? "allow" : call.outcome === "refuse" ? "deny" : "ask", ruleId: call.ruleId, reason: call.reason };
}

/** The enforced review with the shadow's answer beside it. */
function withShadow(enforced: ReviewedCall, would: ReviewedCall | ShadowDecision): ReviewedCall {
  enforced.shadow = "outcome" in would ? shadowOf(would) : would;
  return enforced;
}

/** A shadow review: a tool rule whose violation throws (exitBehavior "error") would have denied the call; the real review decides whether it throws. */
function shadowReview(run: () => ReviewedCall | Promise<ReviewedCall>): ReviewedCall | ShadowDecision | Promise<ReviewedCall | ShadowDecision> {
  const limit = (error: unknown): ShadowDecision => {
    if (error instanceof ToolCallLimitError) return { decision: "deny", ruleId: `rule:${error.ruleId}`, reason: error.reason };
    throw error;
  };
  try {
    const result = run();
    return result instanceof Promise ? result.catch(limit) : result;
  } catch (error) {
    return limit(error);
  }
}

/** Review after the permission rules decided: tool rules and allowed operations, then the tool's own consent check. */
function decideFrom(
  guard: CallReviewer,
  state: RuleState,
  call: RawToolCall,
  facts: Facts,
  spec: ToolGuardSpec,
  input: unknown,
  kill: { mode: "deny" | "ask"; ruleId: string; reason: string } | null,
  permission: PolicyDecision,
  config: LangGraphRunnableConfig | undefined,
): ReviewedCall | Promise<ReviewedCall> {
  const operation = facts.operation;
  if (permission.evidence !== undefined) facts.evidence = permission.evidence;
  if (permission.mode === "deny") return refuse(facts, permission.ruleId, permission.reason);

  // Read, never changed or kept: the engine's own answer for this state, without a copy.
  const violation = guard.engine.keptViolation(state, call.name, operation, guard.now());
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
  return Promise.resolve(spec.requiresApproval(input, config)).then((consent) =>
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

function ask(guard: CallReviewer, facts: Facts, ruleId: string, reason: string): ReviewedCall {
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
