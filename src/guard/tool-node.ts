import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { RunnableLambda } from "@langchain/core/runnables";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { END } from "@langchain/langgraph";
import type { RuleState } from "../rules/types.js";
import { auditOutcome, threadIdOf } from "./audit-trail.js";
import { executeCall } from "./execute.js";
import { Guard } from "./guard.js";
import { afterTurn, limitEndMessages, planTurn, recordBatch } from "./loop.js";
import { isGuardMessage } from "./model-step.js";
import type { GuardOptions } from "./options.js";
import { emptyGuardState } from "./state.js";
import type { CallResult, GuardState } from "./state.js";
import { lastAIMessage, openToolCalls, reviewTurnWithApproval } from "./turn.js";

export interface GuardedToolNodeInput {
  messages: BaseMessage[];
  guard?: GuardState;
}

export interface GuardedToolNodeOutput {
  /** One ToolMessage per call; then, when a limit with exitBehavior "end" ended the run, its closing AIMessage. */
  messages: (ToolMessage | AIMessage)[];
  guard: GuardState;
}

/** Id of the latest user message: a new one starts a new run for the per-run rules. */
function currentRunId(messages: readonly BaseMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const m = messages[i];
    if (m && HumanMessage.isInstance(m) && !isGuardMessage(m)) return m.id ?? `human_${i}`;
  }
  return "";
}

/**
 * A drop-in for LangGraph's ToolNode that guards every call: review → one approval interrupt →
 * concurrency-safe batches under the abort hierarchy → truncated results. Add `GuardAnnotation.spec`
 * to your state so the rule state is checkpointed with the thread.
 *
 * Unlike `createGuardedAgent`, all calls of a turn run inside this one node: a crash mid-turn
 * re-runs the whole node on resume. Give the guard a `ledger` for exactly-once side effects.
 */
export class GuardedToolNode extends RunnableLambda<GuardedToolNodeInput, GuardedToolNodeOutput> {
  readonly guard: Guard;

  constructor(options: GuardOptions | Guard) {
    const guard = options instanceof Guard ? options : new Guard(options);
    super({ func: (input: GuardedToolNodeInput, config?: LangGraphRunnableConfig) => runGuardedTools(guard, input, config) });
    this.guard = guard;
  }
}

async function runGuardedTools(
  guard: Guard,
  input: GuardedToolNodeInput,
  config: LangGraphRunnableConfig | undefined,
): Promise<GuardedToolNodeOutput> {
  let g: GuardState = input.guard ?? emptyGuardState();
  let rules: RuleState = g.rules ?? guard.initialRuleState();
  const runId = currentRunId(input.messages);
  if (runId !== g.runId) {
    rules = guard.engine.startRun(rules, guard.now());
    g = { ...g, runId, terminatedBy: null, exitUnsatisfied: [] };
  }
  const ai = lastAIMessage(input.messages);
  if (!ai) return { messages: [], guard: { ...g, rules } };
  const messageId = ai.id ?? `ai_${input.messages.length}`;
  const ctx = { threadId: threadIdOf(config), runId: g.runId, messageId };
  const calls = openToolCalls(ai, input.messages);
  const { runnable, answered, endRun } = await reviewTurnWithApproval(guard, rules, calls, ctx, config);
  let turn = planTurn(messageId, runnable, answered.length, endRun);
  const messages: (ToolMessage | AIMessage)[] = [...answered];
  const results: Record<string, CallResult> = {};
  for (const [index, batch] of turn.batches.entries()) {
    const executed = await Promise.all(
      batch.flatMap((id) => {
        const call = turn.calls[id];
        return call ? [executeCall(guard, call, `${messageId}#${index}`, config).then((e) => ({ call, ...e }))] : [];
      }),
    );
    for (const { call, message, result } of executed) {
      messages.push(message);
      results[result.id] = result;
      await auditOutcome(guard, ctx, call, result.status);
    }
    rules = recordBatch(guard, rules, { ...turn, nextBatch: index }, results);
    turn = { ...turn, nextBatch: index + 1 };
  }
  return { messages: [...messages, ...limitEndMessages(turn)], guard: afterTurn(guard, g, rules, turn, results) };
}

/** Routing after a GuardedToolNode: END when a Terminal rule ended the run, else back to `agentNode`. */
export function guardedToolsRoute(agentNode: string) {
  return (state: { guard?: GuardState }): string => (state.guard?.next === "end" && state.guard.terminatedBy ? END : agentNode);
}
