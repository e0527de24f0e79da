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

/**
 * The state after finished calls, in the order given: what recording them one by one gives, with
 * each map copied once. Size is bounded: per-tool maps plus the last `historyLimit` records.
 */
export function recordExecutions(state: RuleState, executions: readonly ExecutionRecord[], historyLimit: number): RuleState {
  if (executions.length === 0) return state;
  const runAttempts = { ...state.runAttempts };
  const threadAttempts = { ...state.threadAttempts };
  let runCounts = state.runCounts;
  let threadCounts = state.threadCounts;
  const lastCallAt = { ...state.lastCallAt };
  let calledThisRun = state.calledThisRun;
  const history = [...state.history];
  for (const execution of executions) {
    const { tool, success } = execution;
    const entry: ExecutionRecord = { tool, callId: execution.callId, success, at: execution.at };
    if (execution.operation !== undefined) entry.operation = execution.operation;
    history.push(entry);
    runAttempts[tool] = (runAttempts[tool] ?? 0) + 1;
    threadAttempts[tool] = (threadAttempts[tool] ?? 0) + 1;
    if (success) {
      if (runCounts === state.runCounts) runCounts = { ...runCounts };
      if (threadCounts === state.threadCounts) threadCounts = { ...threadCounts };
      runCounts[tool] = (runCounts[tool] ?? 0) + 1;
      threadCounts[tool] = (threadCounts[tool] ?? 0) + 1;
      if (!calledThisRun.includes(tool)) calledThisRun = [...calledThisRun, tool];
    }
    lastCallAt[tool] = Math.max(lastCallAt[tool] ?? -Infinity, execution.at);
  }
  if (history.length > historyLimit) history.splice(0, history.length - historyLimit);
  return { ...state, runAttempts, threadAttempts, runCounts, threadCounts, lastCallAt, calledThisRun, history };
}
