import { AIMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import type { AuditRecord } from "../audit/types.js";
import { outcomeRecord } from "./audit-trail.js";
import type { TurnContext } from "./audit-trail.js";
import type { Guard } from "./guard.js";
import type { ReviewedCall, TurnPlan } from "./state.js";
import { lastAIMessage } from "./last-ai-message.js";

/**
 * A client answered a call the turn planned to run but had not run yet: LangGraph's "give the tool's
 * result yourself" (`interruptBefore` the tools, then `updateState` with a ToolMessage for the call,
 * then `invoke(null)`). That ToolMessage is the call's one answer: the call does not run (it would
 * get a second ToolMessage, which providers refuse), and its outcome is audited as not run.
 */

// Not only a client's update: with guardMiddleware another middleware may answer a call the guard planned
// (humanInTheLoopMiddleware's reject, listed before the guard). Either way the guard did not run it.
const WHY = { ruleId: "run:answered", reason: "a ToolMessage the guard did not write answered this call before it ran" } as const;

/** The calls of the plan's batches not yet run that have a ToolMessage after the plan's model message. */
export function clientAnsweredCalls(turn: TurnPlan, messages: readonly BaseMessage[]): Set<string> {
  const at = messages.findLastIndex((m) => AIMessage.isInstance(m) && m.id === turn.messageId);
  if (at < 0) return new Set();
  const pending = new Set(turn.batches.slice(turn.nextBatch).flat());
  const answered = new Set<string>();
  for (const m of messages.slice(at + 1)) if (ToolMessage.isInstance(m) && pending.has(m.tool_call_id)) answered.add(m.tool_call_id);
  return answered;
}

/** The audit records of calls a client answered: each ended without running. */
function clientAnsweredRecords(guard: Guard, ctx: TurnContext, calls: readonly ReviewedCall[]): AuditRecord[] {
  if (!guard.options.audit) return [];
  return calls.map((call) => outcomeRecord(guard, ctx, { ...call, ...WHY }, "cancelled"));
}

/**
 * The audit records of the plan's calls a client answered that did not run (no result): each ended
 * without running. `within`: only these of them (the batch a step settles). Every entry point writes
 * these when it settles the calls it planned, so the audit ends each such call alike.
 */
export function unrunClientAnswerRecords(
  guard: Guard,
  turn: TurnPlan,
  messages: readonly BaseMessage[],
  results: Readonly<Record<string, unknown>>,
  ctx: TurnContext,
  within?: readonly string[],
): AuditRecord[] {
  if (!guard.options.audit) return [];
  // Every call left to run has its result (the usual turn): no scan of the thread.
  if (turn.batches.slice(turn.nextBatch).every((batch) => batch.every((id) => results[id] !== undefined))) return [];
  const answered = [...clientAnsweredCalls(turn, messages)].filter((id) => results[id] === undefined && (within === undefined || within.includes(id)));
  return clientAnsweredRecords(guard, ctx, answered.flatMap((id) => (turn.calls[id] ? [turn.calls[id]] : [])));
}

/** The plan without the calls a client answered (undefined when there are none), and their audit records. */
export function withoutClientAnswers(guard: Guard, turn: TurnPlan, messages: readonly BaseMessage[], ctx: TurnContext): { turn: TurnPlan; records: AuditRecord[] } | undefined {
  const answered = clientAnsweredCalls(turn, messages);
  if (answered.size === 0) return undefined;
  const batches = turn.batches.map((batch, index) => (index < turn.nextBatch ? batch : batch.filter((id) => !answered.has(id))));
  const calls = [...answered].flatMap((id) => (turn.calls[id] ? [turn.calls[id]] : []));
  return { turn: { ...turn, batches }, records: clientAnsweredRecords(guard, ctx, calls) };
}

/** A call the turn planned to run has neither a ToolMessage after the turn's model message nor a result. */
export function plannedCallsOpen(turn: TurnPlan, messages: readonly BaseMessage[], results: Readonly<Record<string, unknown>>): boolean {
  const ai = lastAIMessage(messages);
  if (ai === undefined || ai.id !== turn.messageId) return false;
  const at = messages.lastIndexOf(ai);
  const answered = new Set(messages.slice(at + 1).flatMap((m) => (ToolMessage.isInstance(m) ? [m.tool_call_id] : [])));
  return turn.batches.some((batch) => batch.some((id) => !answered.has(id) && results[id] === undefined));
}

/**
 * A client's state update reached the turn before its tools ran: a call the turn planned to run has a
 * ToolMessage that no tool call of the guard wrote (no result), or a ToolMessage answers no call of
 * the model message or answers one twice (`unanswerableToolMessages`).
 */
export function clientUpdatedPlan(turn: TurnPlan, messages: readonly BaseMessage[], results: Readonly<Record<string, unknown>>): boolean {
  return [...clientAnsweredCalls(turn, messages)].some((id) => results[id] === undefined) || unanswerableToolMessages(messages).length > 0;
}

/**
 * ToolMessages after the last model message that a provider would refuse and that answer none of its
 * calls: one for a call id that message never made (a client's update for a call that does not
 * exist, or for an earlier turn's call), or a second answer to a call (two client updates for one
 * call). The first answer of each call is its one answer; these are dropped before the model reads
 * the thread, so it reads exactly one ToolMessage per call. Empty when there are none.
 */
export function unanswerableToolMessages(messages: readonly BaseMessage[]): ToolMessage[] {
  const at = messages.findLastIndex((m) => AIMessage.isInstance(m));
  const ai = messages[at];
  if (!ai || !AIMessage.isInstance(ai)) return [];
  // A call without id is answered under an id the guard makes up (turn.ts openToolCalls): not judged here.
  if ((ai.tool_calls ?? []).some((c) => typeof c.id !== "string")) return [];
  const calls = new Set((ai.tool_calls ?? []).map((c) => c.id));
  const seen = new Set<string>();
  const dropped: ToolMessage[] = [];
  for (const m of messages.slice(at + 1)) {
    if (!ToolMessage.isInstance(m)) continue;
    if (!calls.has(m.tool_call_id) || seen.has(m.tool_call_id)) dropped.push(m);
    else seen.add(m.tool_call_id);
  }
  return dropped;
}
