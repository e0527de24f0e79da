import type { BaseMessage } from "@langchain/core/messages";
import { finishTurn, inPlanOrder, startRunIfNew } from "../guard/engine.js";
import type { Guard } from "../guard/guard.js";
import type { CallResult, GuardState } from "../guard/state.js";
import { unrunClientAnswerRecords } from "../guard/client-answered.js";

/**
 * The last turn's real outcomes, recorded by the turn engine (plan order), then loop control. A
 * planned call a client's ToolMessage answered before it ran (interruptBefore the tools, then
 * updateState) is audited as not run (client-answered.ts), as createGuardedAgent audits it.
 */
export async function settleTurn(guard: Guard, g: GuardState, results: Record<string, CallResult>, messages: readonly BaseMessage[], threadId: string): Promise<GuardState> {
  if (g.turn !== null) {
    const records = unrunClientAnswerRecords(guard, g.turn, messages, results, { threadId, runId: g.runId, messageId: g.turn.messageId });
    if (records.length > 0) await guard.options.audit?.write(records);
  }
  return finishTurn(guard, g, inPlanOrder(g.turn, results));
}

export function hasUnsettledTurn(g: GuardState, results: Record<string, CallResult>): boolean {
  return g.turn !== null || Object.keys(results).length > 0;
}

/** beforeAgent: a turn left unsettled is recorded, then new user input starts a run (the engine's run start). */
export async function beforeAgentState(
  guard: Guard,
  g: GuardState,
  results: Record<string, CallResult>,
  messages: readonly BaseMessage[],
  threadId: string,
): Promise<GuardState> {
  const settled = hasUnsettledTurn(g, results) ? await settleTurn(guard, g, results, messages, threadId) : g;
  return startRunIfNew(guard, settled, messages, threadId);
}
