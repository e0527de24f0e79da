import { HumanMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import type { Guard } from "../guard/guard.js";
import { afterTurn, recordResults } from "../guard/loop.js";
import { isGuardMessage } from "../guard/model-step.js";
import type { CallResult, GuardState } from "../guard/state.js";
import { rulesOf } from "./model-call.js";

/**
 * Records the real outcomes of the last turn's calls into the rule state, in model order, then
 * applies the loop rules (Terminal, pending exit tools, heartbeat). The turn is cleared.
 */
export function settleTurn(guard: Guard, g: GuardState, results: Record<string, CallResult>): GuardState {
  const planned = g.turn?.batches.flat() ?? [];
  const unplanned = Object.keys(results).filter((id) => !planned.includes(id));
  const rules = recordResults(guard, rulesOf(guard, g), [...planned, ...unplanned], results);
  const turn = g.turn ?? { messageId: "", calls: {}, batches: [], nextBatch: 0, refused: 0 };
  const settled = afterTurn(guard, g, rules, { ...turn, nextBatch: turn.batches.length }, results);
  return { ...settled, turn: null };
}

export function hasUnsettledTurn(g: GuardState, results: Record<string, CallResult>): boolean {
  return g.turn !== null || Object.keys(results).length > 0;
}

/** New user input starts a run: per-run rules reset, a forced or terminated state is cleared. */
export function startRun(
  guard: Guard,
  g: GuardState,
  results: Record<string, CallResult>,
  messages: readonly BaseMessage[],
): GuardState {
  const settled = hasUnsettledTurn(g, results) ? settleTurn(guard, g, results) : g;
  let runId = `run_${messages.length}`;
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const m = messages[i];
    if (m && HumanMessage.isInstance(m) && !isGuardMessage(m)) {
      runId = m.id ?? `human_${i}`;
      break;
    }
  }
  return {
    ...settled,
    rules: guard.engine.startRun(rulesOf(guard, settled), guard.now()),
    runId,
    turn: null,
    forcedTool: null,
    terminatedBy: null,
    next: "agent",
    exitUnsatisfied: [],
  };
}
