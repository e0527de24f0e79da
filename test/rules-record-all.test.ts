import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ToolRulesEngine, type ExecutionRecord, type RuleState } from "../src/rules/index.js";

const TOOLS = ["a", "b", "c", "d"] as const;

const execution: fc.Arbitrary<ExecutionRecord> = fc.record(
  {
    tool: fc.constantFrom(...TOOLS),
    operation: fc.option(fc.constantFrom("r", "w"), { nil: undefined }),
    callId: fc.string({ maxLength: 6 }),
    success: fc.boolean(),
    at: fc.integer({ min: 0, max: 10_000 }),
    output: fc.option(fc.string({ maxLength: 30 }), { nil: undefined }),
  },
  { requiredKeys: ["tool", "callId", "success", "at"] },
);

/** Recording one call, written out as the rule state defines it: the reference both ways of recording must give. */
function reference(state: RuleState, x: ExecutionRecord, historyLimit: number, keepsOutput: (tool: string) => boolean): RuleState {
  const inc = (counts: Record<string, number>) => ({ ...counts, [x.tool]: (counts[x.tool] ?? 0) + 1 });
  const entry: ExecutionRecord = { tool: x.tool, callId: x.callId, success: x.success, at: x.at, ...(x.operation !== undefined ? { operation: x.operation } : {}) };
  const history = [...state.history, entry].slice(-historyLimit);
  return {
    ...state,
    runAttempts: inc(state.runAttempts),
    threadAttempts: inc(state.threadAttempts),
    runCounts: x.success ? inc(state.runCounts) : state.runCounts,
    threadCounts: x.success ? inc(state.threadCounts) : state.threadCounts,
    lastCallAt: { ...state.lastCallAt, [x.tool]: Math.max(state.lastCallAt[x.tool] ?? -Infinity, x.at) },
    calledThisRun: x.success && !state.calledThisRun.includes(x.tool) ? [...state.calledThisRun, x.tool] : state.calledThisRun,
    history,
    lastCall: { tool: x.tool, success: x.success, ...(keepsOutput(x.tool) && x.output !== undefined ? { output: x.output.slice(0, 2_000) } : {}) },
  };
}

/** An engine whose ConditionalNext rule keeps "b"'s output, with a short history so the bound is crossed. */
function engine(): ToolRulesEngine {
  return new ToolRulesEngine(
    [
      { type: "ConditionalNext", tool: "b", outputMapping: { x: "c" } },
      { type: "MaxCalls", tool: "a", max: 3 },
    ],
    { historyLimit: 5 },
  );
}

describe("recording a batch of finished calls", () => {
  it("gives the state recording them one by one gives, whatever the calls and the state before", () => {
    fc.assert(
      fc.property(fc.array(execution, { maxLength: 6 }), fc.array(execution, { maxLength: 8 }), fc.boolean(), (before, batch, newRun) => {
        const e = engine();
        let state: RuleState = e.initialState(0);
        for (const x of before) state = e.record(state, x);
        if (newRun) state = e.startRun(state, 1);
        let oneByOne = state;
        for (const x of batch) oneByOne = e.record(oneByOne, x);
        let expected = state;
        for (const x of batch) expected = reference(expected, x, 5, (tool) => e.needsOutput(tool));
        const frozen = structuredClone(state);
        const all = e.recordAll(state, batch);
        expect(all).toEqual(expected);
        expect(oneByOne).toEqual(expected);
        // The state before is not changed (states are shared by the turns that read them).
        expect(state).toEqual(frozen);
      }),
      { numRuns: 400, seed: 20261129 },
    );
  });

  it("refuses a malformed record as recording it alone does, naming the field", () => {
    const e = engine();
    const state = e.initialState(0);
    const bad = [
      { tool: "", callId: "1", success: true, at: 1 },
      { tool: "a", callId: 1, success: true, at: 1 },
      { tool: "a", callId: "1", success: "yes", at: 1 },
      { tool: "a", callId: "1", success: true, at: Number.NaN },
      { tool: "a", callId: "1", success: true, at: 1, output: 3 },
      { tool: "a", callId: "1", success: true, at: 1, operation: null },
      null,
    ] as unknown as ExecutionRecord[];
    for (const record of bad) {
      expect(() => e.record(state, record)).toThrow();
      expect(() => e.recordAll(state, [{ tool: "a", callId: "0", success: true, at: 0 }, record])).toThrow();
    }
  });
});
