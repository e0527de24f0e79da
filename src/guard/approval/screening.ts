import { AIMessage, RemoveMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { auditId } from "../../audit/record.js";
import { foreignAnswerReason, supersededByInput, supersededReason } from "../../messages/approval.js";
import { answerRunningTurn } from "../aborted-turn.js";
import { baseRecord } from "../audit-trail.js";
import type { TurnContext } from "../audit-trail.js";
import type { Guard } from "../guard.js";
import type { ReviewedCall } from "../state.js";
import { reviewEvent, writerOf } from "./events.js";
import type { DecisionEvent } from "./events.js";
import { quote } from "./quote.js";
import { changedSinceAsked } from "./step.js";
import { openToolCalls } from "../turn.js";
import type { ExecutionLedgerView } from "../interfaces.js";
import { emptyApprovalState } from "./state.js";
import type { ApprovalState } from "./state.js";

// ─── new input while an approval is pending ────────────────────────────────────────────────────

/**
 * Entry points that cannot record `pending` before they interrupt (the middleware, `unreviewed`),
 * where every model message with calls is reviewed right after it is made: the last model
 * message with calls whose review never completed (it is not `approvals.reviewed`) had none of its
 * calls answered by the guard, so all of them wait.
 */
function unreviewedTurn(approvals: ApprovalState | undefined, messages: readonly BaseMessage[]): ApprovalState["pending"] {
  const index = messages.findLastIndex((m) => AIMessage.isInstance(m));
  const ai = messages[index];
  if (!ai || !AIMessage.isInstance(ai) || ai.id === undefined) return null;
  const callIds = (ai.tool_calls ?? []).flatMap((c) => (c.id === undefined ? [] : [c.id]));
  if (callIds.length === 0 || approvals?.reviewed?.messageId === ai.id) return null;
  return { messageId: ai.id, callIds };
}

/**
 * Whether a ToolMessage in `messages` answers a call that waits for the guard (as `screenRunInput`
 * finds them): one the guard did not write, which a client put there with a state update
 * (`Command({ update })`, `updateState`) while the calls waited. `screenRunInput` drops it.
 */
export function hasForeignAnswer(approvals: ApprovalState | undefined, messages: readonly BaseMessage[], options: { unreviewed?: boolean } = {}): boolean {
  const at = waitingAt(approvals, messages, options);
  return at !== undefined && messages.slice(at.index + 1).some((m) => ToolMessage.isInstance(m) && at.waiting.callIds.includes(m.tool_call_id));
}

/**
 * A client's ToolMessage for a call of `ai` (the last model message, whose review never completed)
 * to be screened as an answer sent while a reviewer was asked (`hasForeignAnswer`, `unreviewed`):
 * dropped, every open call refused as superseded. Not when nobody was asked about the calls open now
 * (the execution ledger's note, `changedSinceAsked`): the run stopped before the tools
 * (`interruptBefore`) and the client gave a call's result itself (its one answer), or a middleware
 * whose afterModel runs before the guard's answered it. Without a ledger nobody can tell: screened.
 */
export async function screensForeignAnswer(
  approvals: ApprovalState | undefined,
  messages: readonly BaseMessage[],
  ai: AIMessage,
  ctx: Pick<TurnContext, "threadId" | "messageId">,
  run: number,
  ledger: ExecutionLedgerView | undefined,
): Promise<boolean> {
  if (!hasForeignAnswer(approvals, messages, { unreviewed: true })) return false;
  // Calls recorded waiting (approvals.pending) were asked about: the note is the record itself.
  if (approvals?.pending?.messageId === ctx.messageId) return true;
  return changedSinceAsked(ledger, ctx, run, openToolCalls(ai, messages, ctx.messageId));
}

/** The calls waiting for the guard (`approvals.pending`, or with `unreviewed` the turn whose review never completed), where their model message is. */
function waitingAt(approvals: ApprovalState | undefined, messages: readonly BaseMessage[], options: { unreviewed?: boolean }): { waiting: { messageId: string; callIds: string[] }; index: number } | undefined {
  const waiting = approvals?.pending ?? (options.unreviewed === true ? unreviewedTurn(approvals, messages) : null);
  if (!waiting || waiting.callIds.length === 0) return undefined;
  const index = messages.findLastIndex((m) => AIMessage.isInstance(m) && m.id === waiting.messageId);
  return index < 0 ? undefined : { waiting, index };
}

/**
 * The calls that wait for the guard (as `screenRunInput` finds them) when at least one of them has no
 * ToolMessage yet: the model must not be called on this history, and no other path may answer them.
 */
export function openWaitingCalls(approvals: ApprovalState | undefined, messages: readonly BaseMessage[], options: { unreviewed?: boolean } = {}): { messageId: string; callIds: string[] } | undefined {
  const at = waitingAt(approvals, messages, options);
  if (!at) return undefined;
  const answered = new Set(messages.slice(at.index + 1).flatMap((m) => (ToolMessage.isInstance(m) ? [m.tool_call_id] : [])));
  return at.waiting.callIds.some((id) => !answered.has(id)) ? at.waiting : undefined;
}

/**
 * New input after the calls that wait for the guard: a message other than a ToolMessage after their
 * model message. The approval step itself sees it only through a client's state update
 * (`Command({ update })` with a message, alone or with a goto; plain input drops the waiting step):
 * it then decides nothing and leads nowhere, and the model step of the goto or of the thread's next
 * input refuses the waiting calls as superseded, once (`screenRunInput`).
 */
export function inputAfterWaiting(approvals: ApprovalState | undefined, messages: readonly BaseMessage[], options: { unreviewed?: boolean } = {}): boolean {
  const at = waitingAt(approvals, messages, options);
  return at !== undefined && messages.slice(at.index + 1).some((m) => !ToolMessage.isInstance(m));
}

/**
 * A client's `Command({ goto })` while calls wait for a human: a node that LangGraph runs next to the
 * waiting approval step (which raises its interrupt again in the same step) finds calls waiting and
 * nothing after their model message but the guard's own answers to the turn's other calls: no input
 * from anyone (a ToolMessage for a waiting call is a client's: input, which `screenRunInput` drops).
 * It must then run nothing, answer nothing and lead nowhere: the approval step is the one path that
 * decides and answers those calls. Undefined otherwise.
 */
export function heldForApproval(approvals: ApprovalState | undefined, messages: readonly BaseMessage[], options: { unreviewed?: boolean } = {}): { messageId: string; callIds: string[] } | undefined {
  const at = waitingAt(approvals, messages, options);
  if (!at) return undefined;
  const quiet = messages.slice(at.index + 1).every((m) => ToolMessage.isInstance(m) && !at.waiting.callIds.includes(m.tool_call_id));
  return quiet ? at.waiting : undefined;
}

export interface ScreenedInput {
  /** The thread's messages as the model must see them: the pending calls answered by the guard's refusal, foreign results gone. */
  messages: BaseMessage[];
  /** The `messages` update that writes that list (put it first in the node's `messages` update). */
  update: BaseMessage[];
  approvals: ApprovalState;
}

/**
 * Run start: new user input arrived while calls waited for a human (`approvals.pending`). The guard
 * alone answers guarded calls: a ToolMessage in the input for a pending call (Agent Chat UI adds
 * "Successfully handled tool call." when the user types instead of clicking) is dropped and never
 * taken as its result; each pending call is rejected instead, with an audit record and a ToolMessage
 * saying why, placed right after the model message (before the new input) so the thread stays valid.
 * Undefined when nothing waits.
 */
export async function screenRunInput(
  guard: Guard,
  approvals: ApprovalState | undefined,
  messages: readonly BaseMessage[],
  ctx: Omit<TurnContext, "messageId">,
  config: LangGraphRunnableConfig | undefined,
  options: { unreviewed?: boolean } = {},
): Promise<ScreenedInput | undefined> {
  const unreviewed = approvals?.pending ? null : options.unreviewed === true ? unreviewedTurn(approvals, messages) : null;
  const waiting = approvals?.pending ?? unreviewed;
  if (!waiting || waiting.callIds.length === 0) return undefined;
  if (unreviewed) {
    // Reviewed and sent to run in a step that was aborted (GuardedToolNode): they did not wait for approval.
    const aborted = await answerRunningTurn(guard, ctx.threadId, unreviewed.messageId, messages);
    if (aborted) return { ...aborted, approvals: { ...(approvals ?? emptyApprovalState()), refused: null, pending: null, reviewed: { messageId: unreviewed.messageId } } };
  }
  const index = messages.findLastIndex(
    (m) => AIMessage.isInstance(m) && (m.id === waiting.messageId || (m.tool_calls ?? []).some((c) => c.id !== undefined && waiting.callIds.includes(c.id))),
  );
  const ai = messages[index];
  if (index < 0 || !ai || !AIMessage.isInstance(ai)) return undefined;
  // The model step runs while calls wait only when a client sent input instead of an answer
  // (user text, ToolMessages, or a state update): whatever came, the waiting calls are settled here.
  const tail = messages.slice(index + 1);
  // The calls that wait, and any call a state update added to their message since (it has no
  // ToolMessage, and the guard never reviewed it): all are refused, so none is left unanswered.
  const answeredInTail = new Set(tail.flatMap((m) => (ToolMessage.isInstance(m) ? [m.tool_call_id] : [])));
  const settles = new Set([...waiting.callIds, ...(ai.tool_calls ?? []).flatMap((c) => (c.id !== undefined && !answeredInTail.has(c.id) ? [c.id] : []))]);
  const foreign = new Map<string, ToolMessage>();
  for (const m of tail) {
    if (ToolMessage.isInstance(m) && waiting.callIds.includes(m.tool_call_id)) foreign.set(m.tool_call_id, m);
  }
  const turn: TurnContext = { ...ctx, messageId: waiting.messageId };
  const refusals: ToolMessage[] = [];
  const records = [];
  for (const call of ai.tool_calls ?? []) {
    if (call.id === undefined || !settles.has(call.id)) continue;
    const risk = guard.riskOf(call.name);
    const dropped = foreign.get(call.id);
    const reason = dropped ? foreignAnswerReason(quote(dropped.content)) : supersededReason;
    const refused: ReviewedCall = {
      id: call.id,
      name: call.name,
      args: call.args,
      outcome: "refuse",
      ruleId: "approval:superseded",
      reason,
      risk,
      concurrencySafe: false,
      requestHeartbeat: false,
      message: supersededByInput(call.name),
    };
    refusals.push(new ToolMessage({ content: supersededByInput(call.name), tool_call_id: call.id, name: call.name, status: "error" }));
    records.push({
      ...baseRecord(guard, turn, refused),
      id: auditId([turn.threadId, turn.messageId, call.id, "superseded"]),
      event: "decision" as const,
      decision: "deny",
    });
    writerOf(config)?.({ ...reviewEvent(turn, refused), id: auditId([turn.threadId, turn.messageId, call.id, "superseded"]) } satisfies DecisionEvent);
  }
  if (records.length > 0) await guard.options.audit?.write(records);
  // Every ToolMessage for a waiting call is foreign (the guard answered none of them), however many came.
  const kept = tail.filter((m) => !(ToolMessage.isInstance(m) && waiting.callIds.includes(m.tool_call_id)));
  // After the guard's own answers of the turn (a partial answer's results), before the new input.
  const answeredFirst = kept.findIndex((m) => !ToolMessage.isInstance(m));
  const cut = answeredFirst < 0 ? kept.length : answeredFirst;
  const newTail = [...kept.slice(0, cut), ...refusals, ...kept.slice(cut)];
  const screened = [...messages.slice(0, index + 1), ...newTail];
  return {
    messages: screened,
    // The refusals must sit right after the model message, before the new input: the whole list is
    // written again (LangGraph's remove-all marker), every message keeping its id.
    update: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...screened],
    approvals: { ...(approvals ?? emptyApprovalState()), refused: null, pending: null, reviewed: { messageId: waiting.messageId } },
  };
}
