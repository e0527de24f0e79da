// ToolRulesEngine.checkCall keeps its answer per state, clock value, tool and operation (states are
// never mutated; a turn checks many calls against one state). Compared with an engine that has seen
// nothing yet, over the heterogeneous workload's tool rules (eight types, state from earlier calls),
// many seeds, states after each recorded call and several clock values; and what one caller does to
// the violation it got never reaches the next caller.
import { describe, expect, it } from "vitest";
import { heteroWorkload } from "../bench/lib/hetero.js";
import { ToolRulesEngine } from "../src/rules/engine.js";
import type { RuleState, RuleViolation } from "../src/rules/types.js";

function catalogOf(w: ReturnType<typeof heteroWorkload>): Map<string, string[]> {
  return new Map(w.tools.map((t) => [t.name, t.family === "file" ? ["read", "write", "delete"] : t.family === "k8s" ? ["get", "apply", "delete", "scale"] : []]));
}

const operationOf = (args: unknown): string | undefined => {
  const op = (args as { operation?: unknown }).operation;
  return typeof op === "string" ? op : undefined;
};

describe("checkCall's kept answers", () => {
  it("equal a fresh engine's answer for every state, clock value, tool and operation", () => {
    let compared = 0;
    let refused = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const w = heteroWorkload({ seed, rules: 50, tools: 30, toolRules: 40, calls: 80 });
      const options = { tools: catalogOf(w) };
      const kept = new ToolRulesEngine(w.toolRules, options);
      let state: RuleState = kept.initialState(w.now - 700_000);
      const states: RuleState[] = [state];
      for (const record of w.history) states.push((state = kept.record(state, record)));
      for (const at of [w.now, w.now + 1_500, w.now + 200_000]) {
        for (const s of states.filter((_, i) => i % 5 === 0 || i === states.length - 1)) {
          for (let pass = 0; pass < 2; pass++) {
            for (const call of w.calls) {
              const info = { tool: call.name, operation: operationOf(call.args) };
              const got = kept.checkCall(s, info, at);
              const want = new ToolRulesEngine(w.toolRules, options).checkCall(s, info, at);
              expect(got).toEqual(want);
              compared++;
              if (got !== null) refused++;
            }
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(10_000);
    // Many calls are refused (a kept null for every call would prove little).
    expect(refused).toBeGreaterThan(compared / 10);
  }, 120_000);

  it("hands each caller its own violation: changing one does not change the next", () => {
    const w = heteroWorkload({ seed: 3, rules: 50, tools: 30, toolRules: 40, calls: 200 });
    const engine = new ToolRulesEngine(w.toolRules, { tools: catalogOf(w) });
    let state = engine.initialState(w.now - 700_000);
    for (const record of w.history) state = engine.record(state, record);
    let checked = 0;
    for (const call of w.calls) {
      const info = { tool: call.name, operation: operationOf(call.args) };
      const first = engine.checkCall(state, info, w.now);
      if (first === null) continue;
      const copy = structuredClone(first);
      const lists = ["allowedNow", "required", "executed", "group", "alreadyCalled", "allowedOperations"] as const;
      for (const key of lists) (first[key] as string[] | undefined)?.push("tampered");
      (first as { message: string }).message = "tampered";
      const second: RuleViolation | null = engine.checkCall(state, info, w.now);
      expect(second).toEqual(copy);
      checked++;
    }
    expect(checked).toBeGreaterThan(20);
  });

  it("a cooldown reads the clock: the same state and call at a later time is answered anew", () => {
    const engine = new ToolRulesEngine([{ id: "c", type: "Cooldown", tool: "t", durationMs: 1_000 }], { tools: new Map([["t", []]]) });
    const state = engine.record(engine.initialState(0), { tool: "t", callId: "1", success: true, at: 10_000 });
    expect(engine.checkCall(state, { tool: "t" }, 10_500)?.ruleId).toBe("c");
    expect(engine.checkCall(state, { tool: "t" }, 11_000)).toBeNull();
    expect(engine.checkCall(state, { tool: "t" }, 10_500)?.ruleId).toBe("c");
  });

  it("keptViolation: one answer per tool and operation (none, each operation), still right after the kept answers are cleared", () => {
    const rules = [
      { id: "ops", type: "AllowedOperations" as const, tool: "k", operations: ["get"] },
      { id: "cool", type: "Cooldown" as const, tool: "t", durationMs: 1_000 },
    ];
    const tools = new Map([["k", ["get", "delete"]], ["t", []], ["k:delete", []]]);
    const engine = new ToolRulesEngine(rules, { tools });
    const fresh = () => new ToolRulesEngine(rules, { tools });
    const state = engine.record(engine.initialState(0), { tool: "t", callId: "1", success: true, at: 10_000 });
    const probes: [string, string | undefined][] = [["k", "get"], ["k", "delete"], ["k", undefined], ["k:delete", undefined], ["t", undefined], ["t", "get"], ["k", "get"]];
    const check = () => {
      for (const [tool, operation] of probes) {
        const want = fresh().checkCall(state, { tool, operation }, 10_500);
        expect(engine.keptViolation(state, tool, operation, 10_500)).toEqual(want);
        expect(engine.checkCall(state, { tool, operation }, 10_500)).toEqual(want);
      }
    };
    check();
    expect(engine.keptViolation(state, "k", "delete", 10_500)?.ruleId).toBe("ops");
    expect(engine.keptViolation(state, "k", "get", 10_500)).toBeNull();
    // More distinct operations than the engine keeps answers for (a model inventing them): cleared, then answered anew.
    for (let i = 0; i < 5_000; i++) expect(engine.keptViolation(state, "k", `op${i}`, 10_500)?.ruleId).toBe("ops");
    check();
  });
});

