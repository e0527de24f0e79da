import type { BaseMessage } from "@langchain/core/messages";
import { finishTurn, inPlanOrder, startRunIfNew } from "../guard/engine.js";
import type { Guard } from "../guard/guard.js";
import type { CallResult, GuardState } from "../guard/state.js";

/** The last turn's real outcomes, recorded by the turn engine (plan order), then loop control. */
export function settleTurn(guard: Guard, g: GuardState, results: Record<string, CallResult>): GuardState {
  return finishTurn(guard, g, inPlanOrder(g.turn, results));
}

export function hasUnsettledTurn(g: GuardState, results: Record<string, CallResult>): boolean {
  return g.turn !== null || Object.keys(results).length > 0;
}

/** beforeAgent: a turn left unsettled is recorded, then new user input starts a run (the engine's run start). */
export function beforeAgentState(
  guard: Guard,
  g: GuardState,
  results: Record<string, CallResult>,
  messages: readonly BaseMessage[],
  threadId: string,
): GuardState {
  const settled = hasUnsettledTurn(g, results) ? settleTurn(guard, g, results) : g;
  return startRunIfNew(guard, settled, messages, threadId);
}
