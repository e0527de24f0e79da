import type { ExecutionRecord, RuleState } from "./types.js";

export const DEFAULT_HISTORY_LIMIT = 50;

export function emptyRuleState(now: number): RuleState {
  return {
    version: 1,
    run: 0,
    runStartedAt: now,
    runCounts: {},
    threadCounts: {},
    runAttempts: {},
    threadAttempts: {},
    lastCallAt: {},
    calledThisRun: [],
    history: [],
    exitReminders: 0,
  };
}

/** A new user input: per-run counters reset, thread counters and last-call times kept. */
export function nextRun(state: RuleState, now: number): RuleState {
  const { lastCall: _lastCall, ...rest } = state;
  return {
    ...rest,
    run: state.run + 1,
    runStartedAt: now,
    runCounts: {},
    runAttempts: {},
    calledThisRun: [],
    exitReminders: 0,
  };
}

function increment(counts: Record<string, number>, tool: string): Record<string, number> {
  return { ...counts, [tool]: (counts[tool] ?? 0) + 1 };
}

/** The state after one finished call. Size is bounded: per-tool maps plus the last `historyLimit` records. */
export function recordExecution(state: RuleState, execution: ExecutionRecord, historyLimit: number): RuleState {
  const { tool, success } = execution;
  const entry: ExecutionRecord = { tool, callId: execution.callId, success, at: execution.at };
  if (execution.operation !== undefined) entry.operation = execution.operation;
  const history = [...state.history, entry];
  if (history.length > historyLimit) history.splice(0, history.length - historyLimit);
  return {
    ...state,
    runAttempts: increment(state.runAttempts, tool),
    threadAttempts: increment(state.threadAttempts, tool),
    runCounts: success ? increment(state.runCounts, tool) : state.runCounts,
    threadCounts: success ? increment(state.threadCounts, tool) : state.threadCounts,
    lastCallAt: { ...state.lastCallAt, [tool]: Math.max(state.lastCallAt[tool] ?? -Infinity, execution.at) },
    calledThisRun: success && !state.calledThisRun.includes(tool) ? [...state.calledThisRun, tool] : state.calledThisRun,
    history,
  };
}
