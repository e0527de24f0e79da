import type { BaseMessage } from "@langchain/core/messages";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { auditId } from "../audit/record.js";
import { builtRecord } from "../audit/schema.js";
import { auditArgsText } from "../audit/summary.js";
import { MAX_MATCH_INPUT_CHARS } from "../policy/canonical.js";
import type { AuditRecord } from "../audit/types.js";
import type { Guard } from "./guard.js";
import type { ReviewedCall } from "./state.js";
import type { Evidence } from "../provenance/index-builder.js";

export interface TurnContext {
  threadId: string;
  runId: string;
  /** Id of the AIMessage whose calls are reviewed. */
  messageId: string;
  /** The thread's messages as checkpointed: provenance and context conditions are computed from them. */
  messages?: readonly BaseMessage[] | undefined;
}

export function threadIdOf(config: LangGraphRunnableConfig | undefined): string {
  const id = config?.configurable?.thread_id;
  return typeof id === "string" ? id : "";
}

/** A call's arguments as audited, per arguments object: its decision and its outcome record share one rendering. */
const argsTexts = new WeakMap<object, { redact: readonly string[]; text: string }>();
const NO_REDACT: readonly string[] = [];

function argsTextOf(guard: Guard, args: unknown): string {
  const redact = guard.options.redact ?? NO_REDACT;
  // A scalar sent as the arguments (refused): kept as sent, no cache (the WeakMap takes objects only).
  if (typeof args !== "object" || args === null) {
    const text = JSON.stringify(args) ?? "null";
    return text.length <= MAX_MATCH_INPUT_CHARS ? text : auditArgsText(args, redact);
  }
  const known = argsTexts.get(args);
  if (known && known.redact === redact) return known.text;
  const text = auditArgsText(args, redact);
  argsTexts.set(args, { redact, text });
  return text;
}

/** A call's fields in every record about it (thread, run, call, tool, arguments as audited, the rule and why). */
export function baseRecord(guard: Guard, ctx: TurnContext, call: ReviewedCall): Omit<AuditRecord, "id" | "event" | "decision"> {
  const { id: _id, event: _event, decision: _decision, detail: _detail, ...base } = recordOf(guard, ctx, call, "", "decision", "", undefined);
  return base;
}

/**
 * A call's record: `baseRecord`'s fields, then these, in that order, built as one object literal
 * (on V8 `{ ...baseRecord(…), id, … }` — a spread followed by keys it lacks — costs µs per record).
 */
function recordOf(guard: Guard, ctx: TurnContext, call: ReviewedCall, id: string, event: AuditRecord["event"], decision: string, detail: Record<string, unknown> | undefined): AuditRecord {
  return {
    at: guard.now(),
    threadId: ctx.threadId,
    runId: ctx.runId,
    toolCallId: call.id,
    tool: call.name,
    operation: call.operation,
    args: argsTextOf(guard, call.sentArgs !== undefined ? call.sentArgs : call.args),
    ruleId: call.ruleId,
    reason: call.reason,
    risk: call.risk,
    id,
    event,
    decision,
    detail,
  };
}

/** `recordOf`, kept by the sinks as the guard's own (`builtRecord`). */
function callRecord(guard: Guard, ctx: TurnContext, call: ReviewedCall, id: string, event: AuditRecord["event"], decision: string, detail: Record<string, unknown> | undefined): AuditRecord {
  return builtRecord(recordOf(guard, ctx, call, id, event, decision, detail));
}

/** Review's answer for a call as the audit log and the decision stream name it. */
export function reviewDecision(call: ReviewedCall): "allow" | "deny" | "ask" {
  return call.outcome === "run" ? "allow" : call.outcome === "refuse" ? "deny" : "ask";
}

/** Id of a call's review decision: its audit record and its stream event share it. */
export function decisionRecordId(ctx: TurnContext, call: ReviewedCall): string {
  return auditId([ctx.threadId, ctx.messageId, call.id, "decision", call.edited ? "edited" : "original"]);
}

/** Id of a human's answer to a call: its audit record and its stream event share it. */
export function humanRecordId(ctx: TurnContext, call: ReviewedCall): string {
  return auditId([ctx.threadId, ctx.messageId, call.id, "human"]);
}

/**
 * Writes audit records. Ids are derived from the thread, the model message, the call and the
 * event, so re-running review on resume writes nothing twice.
 */
export async function auditDecisions(guard: Guard, ctx: TurnContext, calls: readonly ReviewedCall[]): Promise<void> {
  const sink = guard.options.audit;
  if (!sink || calls.length === 0) return;
  await sink.write(decisionRecords(guard, ctx, calls));
}

/** The review decision records of `calls` (none without an audit sink). */
export function decisionRecords(guard: Guard, ctx: TurnContext, calls: readonly ReviewedCall[]): AuditRecord[] {
  if (!guard.options.audit) return [];
  return calls.map((call) => callRecord(guard, ctx, call, decisionRecordId(ctx, call), "decision", reviewDecision(call), decisionDetail(guard, ctx, call)));
}

/** Longest shadow reason a record keeps. */
const MAX_SHADOW_REASON = 500;

/**
 * The detail of a decision record: the provenance evidence; what a shadow policy would have decided
 * (`shadow`, with `changed` when it differs); and what `policy replay` needs to decide the call again
 * under another policy (`replay`: the model message that made the call, the risk the tool declares
 * itself, null when none, or `tool: "unknown"`; `edited` for a human's edit of the arguments). Bounded: a few short strings.
 */
function decisionDetail(guard: Guard, ctx: TurnContext, call: ReviewedCall): Record<string, unknown> {
  const detail: Record<string, unknown> = {};
  if (call.evidence !== undefined) detail.provenance = redactEvidence(call.evidence, guard.options.redact ?? []);
  if (call.shadow !== undefined) {
    const { decision, ruleId, reason } = call.shadow;
    const shown = reason.length > MAX_SHADOW_REASON ? `${reason.slice(0, MAX_SHADOW_REASON - 1)}…` : reason;
    detail.shadow = { decision, ruleId, reason: shown, changed: decision !== reviewDecision(call) };
  }
  const known = guard.spec(call.name) !== undefined;
  detail.replay = {
    messageId: ctx.messageId,
    ...(known ? { toolRisk: guard.toolOwnRisk(call.name, call.operation) ?? null } : { tool: "unknown" }),
    ...(call.edited === true ? { edited: true } : {}),
  };
  return detail;
}

/** Evidence names argument values: a redacted field's value is redacted here too. */
function redactEvidence(evidence: readonly Evidence[], redact: readonly string[]): Evidence[] {
  return evidence.map((item) => (redact.some((field) => item.field === field || item.field.endsWith(`.${field}`)) ? { ...item, value: "[REDACTED]" } : item));
}

export async function auditHuman(
  guard: Guard,
  ctx: TurnContext,
  call: ReviewedCall,
  decision: string,
  actor: string | undefined,
  detail?: Record<string, unknown>,
): Promise<void> {
  // The requester (approver rules) is a field of its own beside the actor, not part of the detail.
  const { requester, ...rest } = detail ?? {};
  await guard.options.audit?.write([
    builtRecord({
      ...baseRecord(guard, ctx, call),
      id: humanRecordId(ctx, call),
      event: "human",
      decision,
      actor,
      ...(typeof requester === "string" ? { requester } : {}),
      detail: detail === undefined || (requester !== undefined && Object.keys(rest).length === 0) ? undefined : requester === undefined ? detail : rest,
    }),
  ]);
}

/** The outcome record of one executed call (its id is deterministic: a re-run writes nothing twice). */
export function outcomeRecord(guard: Guard, ctx: TurnContext, call: ReviewedCall, status: string, detail?: Record<string, unknown>): AuditRecord {
  return callRecord(guard, ctx, call, auditId([ctx.threadId, ctx.messageId, call.id, "outcome"]), "outcome", status, detail);
}

export async function auditOutcome(
  guard: Guard,
  ctx: TurnContext,
  call: ReviewedCall,
  status: string,
  detail?: Record<string, unknown>,
): Promise<void> {
  await guard.options.audit?.write([outcomeRecord(guard, ctx, call, status, detail)]);
}

/**
 * The check at a call's start refused a call that review had let through: a decision record that
 * says so (review's record stays; this one names the re-check and the rule that refused).
 */
export async function auditRecheck(guard: Guard, ctx: TurnContext, refused: ReviewedCall): Promise<void> {
  await guard.options.audit?.write([
    callRecord(guard, ctx, refused, auditId([ctx.threadId, ctx.messageId, refused.id, "decision", "at-start"]), "decision", "deny", { recheck: "at-start", review: "allow", changed: true }),
  ]);
}
