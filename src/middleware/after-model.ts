import type { AIMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { threadIdOf } from "../guard/audit-trail.js";
import type { Guard } from "../guard/guard.js";
import { guardReminder, withToolCalls } from "../guard/model-step.js";
import { limitEndMessages, planTurn } from "../guard/loop.js";
import type { GuardState, ReviewedCall } from "../guard/state.js";
import { lastAIMessage, openToolCalls, reviewTurnWithApproval } from "../guard/turn.js";
import { rulesOf } from "./model-call.js";
import { reminders } from "../messages/index.js";

export interface AfterModelUpdate {
  messages?: BaseMessage[];
  guard?: GuardState;
  guardResults?: null;
  jumpTo?: "model" | "end";
}

/**
 * Reviews the open calls of the model's last message (one approval interrupt for all that ask).
 * Refused and rejected calls get their error ToolMessage now, so LangChain dispatches only the
 * approved ones; a reject answers only its own call. When nothing may run, the model goes again.
 */
export async function reviewModelTurn(
  guard: Guard,
  state: { messages: BaseMessage[]; guard: GuardState },
  config: LangGraphRunnableConfig | undefined,
): Promise<AfterModelUpdate | undefined> {
  const ai = lastAIMessage(state.messages);
  if (!ai) return undefined;
  if ((ai.tool_calls ?? []).length === 0) return exitCheck(guard, state.guard);
  const calls = openToolCalls(ai, state.messages);
  if (calls.length === 0) return undefined;

  const rules = rulesOf(guard, state.guard);
  const messageId = ai.id ?? `ai_${state.messages.length}`;
  const ctx = { threadId: threadIdOf(config), runId: state.guard.runId, messageId };
  const { runnable, answered, endRun } = await reviewTurnWithApproval(guard, rules, calls, ctx, config);
  const turn = planTurn(messageId, runnable, answered.length, endRun);
  const edited = runnable.filter((c) => c.edited);
  const nothingRuns = runnable.length === 0;
  if (nothingRuns && endRun) {
    // A limit with exitBehavior "end" refused the only calls: the run ends here, every call answered.
    return {
      messages: [...answered, ...limitEndMessages(turn)],
      guard: { ...state.guard, rules, turn: null, forcedTool: null, next: "end", terminatedBy: endRun.ruleId, exitUnsatisfied: [] },
      guardResults: null,
      jumpTo: "end" as const,
    };
  }
  return {
    messages: [...(edited.length > 0 ? [withEditedCalls(ai, edited)] : []), ...answered],
    guard: { ...state.guard, rules, turn: nothingRuns ? null : turn, forcedTool: null, next: "dispatch" },
    guardResults: null,
    ...(nothingRuns ? { jumpTo: "model" as const } : {}),
  };
}

/** The same message (same id, so it replaces the original) with the human's edits as the calls that run. */
function withEditedCalls(ai: AIMessage, edited: readonly ReviewedCall[]): AIMessage {
  const byId = new Map(edited.map((c) => [c.id, c]));
  return withToolCalls(
    ai,
    (ai.tool_calls ?? []).map((call) => {
      const edit = call.id === undefined ? undefined : byId.get(call.id);
      return edit ? { ...call, name: edit.name, args: edit.args } : call;
    }),
  );
}

/**
 * The model wants to stop while RequiredForExit tools are pending: a reminder first, then the
 * next model call is forced to call the tool, then the run may end (recorded in `exitUnsatisfied`).
 */
function exitCheck(guard: Guard, g: GuardState): AfterModelUpdate | undefined {
  const rules = rulesOf(guard, g);
  const pending = guard.engine.pendingExitTools(rules);
  if (pending.length === 0) return undefined;
  const attempts = rules.exitReminders;
  const noted = guard.engine.noteExitReminder(rules);
  if (attempts < guard.maxExitReminders) {
    return {
      messages: [guardReminder(reminders.exitPending(pending))],
      guard: { ...g, rules: noted, next: "agent" },
      jumpTo: "model",
    };
  }
  const forced = pending[0];
  if (attempts === guard.maxExitReminders && forced !== undefined) {
    // The reminder keeps the last message a non-AI one, which LangChain needs to honour the jump.
    return {
      messages: [guardReminder(reminders.exitForced(forced))],
      guard: { ...g, rules: noted, forcedTool: forced, next: "agent" },
      jumpTo: "model",
    };
  }
  return { guard: { ...g, next: "end", exitUnsatisfied: pending } };
}
