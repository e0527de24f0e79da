import type { RuleState } from "../rules/types.js";
import type { Guard } from "./guard.js";
import { partitionCalls } from "./partition.js";
import type { CallResult, GuardState, ReviewedCall, TurnPlan } from "./state.js";
import { AIMessage } from "@langchain/core/messages";
import { limitEndings } from "../messages/index.js";

/** Records the results of the given calls, in that order, into the rule state: the tools' real outcomes. */
export function recordResults(
  guard: Guard,
  rules: RuleState,
  ids: readonly string[],
  results: Readonly<Record<string, CallResult>>,
): RuleState {
  let next = rules;
  for (const id of ids) {
    const result = results[id];
    if (!result) continue;
    next = guard.engine.record(next, {
      tool: result.name,
      operation: result.operation,
      callId: result.id,
      success: result.status === "success",
      at: result.at,
      output: result.output,
    });
  }
  return next;
}

/** Records the batch that just ran (`turn.nextBatch`). */
export function recordBatch(guard: Guard, rules: RuleState, turn: TurnPlan, results: Record<string, CallResult>): RuleState {
  return recordResults(guard, rules, turn.batches[turn.nextBatch] ?? [], results);
}

/** The execution plan of a reviewed turn: approved calls in batches, in model order. */
export function planTurn(
  messageId: string,
  runnable: readonly ReviewedCall[],
  refused: number,
  endRun?: { ruleId: string; reason: string },
): TurnPlan {
  return {
    messageId,
    calls: Object.fromEntries(runnable.map((c) => [c.id, c])),
    batches: partitionCalls(runnable),
    nextBatch: 0,
    refused,
    ...(endRun ? { endRun } : {}),
  };
}

/** The AI message that closes a run a limit ended (`exitBehavior: "end"`), as LangChain's toolCallLimit adds one. */
export function limitEndMessages(turn: TurnPlan | null | undefined): AIMessage[] {
  if (!turn?.endRun) return [];
  return [new AIMessage({ content: limitEndings.ended(turn.endRun.ruleId, turn.endRun.reason), name: "guard" })];
}

/**
 * Loop control after a turn's calls ran: Terminal / TerminalIf end the run once the exit tools have
 * run (a pending exit tool is forced first); in heartbeat mode the loop continues only when a call
 * asked for it, a ContinueLoop tool ran, or something failed; otherwise back to the model.
 */
export function afterTurn(
  guard: Guard,
  state: GuardState,
  rules: RuleState,
  turn: TurnPlan,
  results: Record<string, CallResult>,
): GuardState {
  if (turn.endRun) {
    return { ...state, rules, turn, forcedTool: null, next: "end", terminatedBy: turn.endRun.ruleId, exitUnsatisfied: [] };
  }
  const termination = guard.engine.shouldTerminate(rules);
  if (termination.terminate) {
    const pending = guard.engine.pendingExitTools(rules);
    if (pending.length > 0 && state.forcedTool !== pending[0]) {
      return { ...state, rules, turn, forcedTool: pending[0] ?? null, next: "agent" };
    }
    return {
      ...state,
      rules,
      turn,
      forcedTool: null,
      next: "end",
      terminatedBy: termination.ruleId ?? "terminal",
      exitUnsatisfied: pending,
    };
  }
  if (guard.options.heartbeat === true) {
    const ran = Object.values(results);
    const keepGoing =
      turn.refused > 0 ||
      ran.some((r) => r.status !== "success" || r.requestHeartbeat || guard.engine.continuesLoop(r.name));
    if (!keepGoing) return { ...state, rules, turn, forcedTool: null, next: "end" };
  }
  return { ...state, rules, turn, forcedTool: null, next: "agent" };
}
