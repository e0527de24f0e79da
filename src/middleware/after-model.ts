import type { AIMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { exitStep, limitEndMessages, messageIdOf, reviewModelTurn, rulesOf, waitingCalls } from "../guard/engine.js";
import type { Guard } from "../guard/guard.js";
import type { GuardState } from "../guard/state.js";
import { withEditedCalls } from "../guard/turn.js";
import { lastAIMessage } from "../guard/last-ai-message.js";
import { isSkippedAnswer } from "../guard/aborted-turn.js";
import { inputAfterWaiting, screenRunInput, screensForeignAnswer } from "../guard/approval/screening.js";
import { threadIdOf } from "../guard/audit-trail.js";
import type { ExecutionLedgerView } from "../guard/interfaces.js";
import { clientUpdatedPlan, plannedCallsOpen } from "../guard/client-answered.js";

interface AfterModelUpdate {
  messages?: BaseMessage[];
  guard?: GuardState;
  guardResults?: null;
  jumpTo?: "model" | "end" | "tools";
}

/** What the afterModel review reads: the thread's messages and the guard's state. */
interface TurnState {
  messages: BaseMessage[];
  guard: GuardState;
  /** Results of the turn's calls that ran (the middleware's channel), when the caller has them. */
  guardResults?: Readonly<Record<string, unknown>>;
}

/**
 * afterModel: the turn engine's review and plan (one approval interrupt for all that ask).
 * Refused and rejected calls get their error ToolMessage now, so LangChain dispatches only the
 * approved ones; a reject answers only its own call. When nothing may run, the model goes again.
 * A message without tool calls goes to the RequiredForExit escalation.
 */
export async function afterModelTurn(guard: Guard, state: TurnState, config: LangGraphRunnableConfig | undefined, ledger?: ExecutionLedgerView): Promise<AfterModelUpdate | undefined> {
  const ai = lastAIMessage(state.messages);
  if (!ai) return undefined;
  if ((ai.tool_calls ?? []).length === 0) {
    const step = exitStep(guard, state.guard);
    if (step.kind === "end") return step.guard.exitUnsatisfied.length > 0 ? { guard: step.guard } : undefined;
    // The reminder keeps the last message a non-AI one, which LangChain needs to honour the jump.
    return { messages: step.messages, guard: step.guard, jumpTo: "model" };
  }
  // The model step answered the calls another middleware's jump skipped (answerSkippedCalls): the
  // model goes now, on the answered history (unless the turn's rules ended the run).
  if (isSkippedAnswer(state.messages.at(-1))) return { jumpTo: state.guard.next === "end" ? "end" : "model" };
  // This message's review completed already: afterModel runs again only after a model step that a
  // client's Command({ goto }) started while the approval waited (it called no model); the approval
  // step has routed the turn. New input that reached the waiting step through a state update: it
  // decides nothing (the model step refuses the waiting calls, now or at the thread's next input).
  // A client gave some planned calls' results itself (interruptBefore the tools, then updateState as the
  // model step): no tools step runs the others, so they go there now (each then answered once).
  if (state.guard.approvals?.reviewed?.messageId === ai.id || inputAfterWaiting(state.guard.approvals, state.messages, { unreviewed: true })) return { jumpTo: leftByClient(state) ? "tools" : "end" };
  return reviewOpenCalls(guard, state, config, ai, ledger);
}

/** The turn's plan has calls a client answered and calls nobody answered yet (they must still run). */
function leftByClient(state: TurnState): boolean {
  const turn = state.guard.turn;
  const results = state.guardResults ?? {};
  return turn !== null && plannedCallsOpen(turn, state.messages, results) && clientUpdatedPlan(turn, state.messages, results);
}

/**
 * The open calls of the last model message: reviewed, one approval interrupt for all that ask.
 * A partial answer leaves calls waiting (`approvals.pending`, no ToolMessage): LangChain dispatches
 * the answered calls (when none runs, `jumpTo: "tools"` sends the turn there all the same); the
 * waiting ones pass through wrapToolCall without a result, and beforeModel asks again for them.
 * `ai` is the last AI message of `state.messages`, when the caller has looked it up already.
 */
export async function reviewOpenCalls(
  guard: Guard,
  state: TurnState,
  config: LangGraphRunnableConfig | undefined,
  ai: AIMessage | undefined = lastAIMessage(state.messages),
  ledger?: ExecutionLedgerView,
): Promise<AfterModelUpdate | undefined> {
  if (!ai) return undefined;
  // A client's state update answered calls that wait for the guard (a ToolMessage in Command({ update })):
  // as for new input, it is dropped and the waiting calls are refused (approval/screening.ts). Not when
  // the calls open now are those the reviewer was asked about, or nobody was asked: a middleware whose
  // afterModel runs before the guard's (listed after it, as toolCallLimitMiddleware answering the
  // calls over its limit) answered them in the model step, and the guard reviews the others.
  const threadId = threadIdOf(config);
  const messageId = messageIdOf(ai, threadId, state.messages);
  if (await screensForeignAnswer(state.guard.approvals, state.messages, ai, { threadId, messageId }, rulesOf(guard, state.guard).run, ledger)) {
    const screened = await screenRunInput(guard, state.guard.approvals, state.messages, { threadId, runId: state.guard.runId }, config, { unreviewed: true });
    if (screened) {
      return { messages: screened.update, guard: { ...state.guard, approvals: screened.approvals, turn: null, forcedTool: null, next: "agent" }, guardResults: null, jumpTo: "model" as const };
    }
  }
  const reviewed = await reviewModelTurn(guard, state.guard, state.messages, config, { partial: true, ledger });
  if (!reviewed) return undefined;
  if (reviewed.limitError) {
    // A limit with exitBehavior "error": every call answered now; through the (empty) tools step to
    // beforeModel, which throws (LangChain passes a hook's error on as it is; wrapModelCall's it wraps).
    return {
      messages: reviewed.answered,
      guard: { ...state.guard, approvals: reviewed.approvals, turn: null, forcedTool: null, next: "agent", limitError: reviewed.limitError },
      guardResults: null,
      jumpTo: "tools" as const,
    };
  }
  const decided: GuardState = { ...state.guard, approvals: reviewed.approvals, turn: reviewed.turn, forcedTool: null, next: "dispatch" };
  const nothingRuns = reviewed.runnable.length === 0;
  const edited = reviewed.runnable.filter((c) => c.edited);
  const messages = [...(edited.length > 0 ? [withEditedCalls(ai, edited)] : []), ...reviewed.answered];
  if (waitingCalls(decided).length > 0) {
    return { messages, guard: decided, guardResults: null, ...(nothingRuns ? { jumpTo: "tools" as const } : {}) };
  }
  const endRun = reviewed.turn.endRun;
  if (nothingRuns && endRun) {
    // A limit with exitBehavior "end" refused the only calls: the run ends here, every call answered.
    return {
      messages: [...reviewed.answered, ...limitEndMessages(reviewed.turn)],
      guard: { ...state.guard, approvals: reviewed.approvals, turn: null, forcedTool: null, next: "end", terminatedBy: endRun.ruleId, exitUnsatisfied: [] },
      guardResults: null,
      jumpTo: "end" as const,
    };
  }
  return {
    messages,
    guard: { ...decided, turn: nothingRuns ? null : reviewed.turn },
    guardResults: null,
    ...(nothingRuns ? { jumpTo: "model" as const } : {}),
  };
}

