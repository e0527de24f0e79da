import type { AIMessage, BaseMessage, ToolMessage } from "@langchain/core/messages";
import { RunnableLambda } from "@langchain/core/runnables";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { END } from "@langchain/langgraph";
import { threadIdOf } from "./audit-trail.js";
import { finishTurn, limitEndMessages, reviewModelTurn, runBatches, rulesOf, startRunIfNew } from "./engine.js";
import { Guard } from "./guard.js";
import type { GuardOptions } from "./options.js";
import { emptyGuardState } from "./state.js";
import type { GuardState } from "./state.js";

export interface GuardedToolNodeInput {
  messages: BaseMessage[];
  guard?: GuardState;
}

export interface GuardedToolNodeOutput {
  /** One ToolMessage per call; then, when a limit with exitBehavior "end" ended the run, its closing AIMessage. */
  messages: (ToolMessage | AIMessage)[];
  guard: GuardState;
}

/**
 * A drop-in for LangGraph's ToolNode that guards every call: review → one approval interrupt →
 * batches (concurrency-safe calls together, a call that needs an earlier call of the turn later),
 * each call authorized at its start, under the abort hierarchy → truncated results. Add
 * `GuardAnnotation.spec` to your state so the rule state is checkpointed with the thread.
 *
 * Unlike `createGuardedAgent`, all calls of a turn run inside this one node: a crash mid-turn
 * re-runs the whole node on resume. Give the guard a `ledger` for exactly-once side effects.
 */
export class GuardedToolNode extends RunnableLambda<GuardedToolNodeInput, GuardedToolNodeOutput> {
  readonly guard: Guard;

  constructor(options: GuardOptions | Guard) {
    const guard = options instanceof Guard ? options : new Guard(options);
    super({
      func: (input: GuardedToolNodeInput, config?: LangGraphRunnableConfig) => runGuardedTools(guard, input, config),
    });
    this.guard = guard;
  }
}

async function runGuardedTools(
  guard: Guard,
  input: GuardedToolNodeInput,
  config: LangGraphRunnableConfig | undefined,
): Promise<GuardedToolNodeOutput> {
  if (!input.guard) throw missingChannels();
  const g = startRunIfNew(guard, input.guard ?? emptyGuardState(), input.messages, threadIdOf(config));
  const reviewed = await reviewModelTurn(guard, g, input.messages, config);
  if (!reviewed) return { messages: [], guard: g };
  const { executed, done } = await runBatches(guard, reviewed.turn, rulesOf(guard, g), reviewed.ctx, config);
  const messages = [...reviewed.answered, ...executed.map((e) => e.message), ...limitEndMessages(reviewed.turn)];
  return { messages, guard: finishTurn(guard, { ...g, approvals: reviewed.approvals, turn: reviewed.turn }, done) };
}

/**
 * Without the guard's channels in the graph state, the rule state would be dropped after every
 * step (MaxCalls 1 would let a tool run twice): refuse to run and say what to add.
 */
function missingChannels(): Error {
  return new TypeError(
    "GuardedToolNode needs the guard's state channels: add `...GuardAnnotation.spec` to your graph's Annotation.Root (import { GuardAnnotation } from \"guarded-graph\"), so the rule state is checkpointed with the thread",
  );
}

/** Routing after a GuardedToolNode: END when a Terminal rule ended the run, else back to `agentNode`. */
export function guardedToolsRoute(agentNode: string) {
  return (state: { guard?: GuardState }): string => (state.guard?.next === "end" && state.guard.terminatedBy ? END : agentNode);
}
