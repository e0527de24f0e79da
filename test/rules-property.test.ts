import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseRuleState, ToolRulesEngine, type RuleState, type ToolRule } from "../src/rules/index.js";

const TOOLS = ["a", "b", "c", "d"] as const;
const OPS = ["r", "w", "x"] as const;
/** "a" and "b" have operations, "c" and "d" have none (when the catalog is given). */
const CATALOG = new Map<string, readonly string[]>([["a", ["r", "w", "x"]], ["b", ["r", "w"]], ["c", []], ["d", []]]);
/** Operations the property checks try, including one no tool declares and "no operation". */
const PROBE_OPS: (string | undefined)[] = [undefined, ...OPS, "zz"];

const tool = fc.constantFrom(...TOOLS);
const subject = fc.oneof({ weight: 4, arbitrary: tool }, { weight: 1, arbitrary: fc.constant("*") });
const conditions = fc.uniqueArray(tool, { maxLength: 3 });
const priority = fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined });

const plainRule = fc.record({
  type: fc.constantFrom("NoHeartbeat", "ContinueLoop", "Terminal", "TerminalIf", "MustFollow"),
  tool: subject,
  conditions,
  priority,
});
const concreteRule = fc.record({
  type: fc.constantFrom("MustPrecede", "ExclusiveGroup", "InitialCall", "RequiredForExit", "RequiredForExitIf"),
  tool,
  conditions,
  priority,
});
const ruleArb: fc.Arbitrary<ToolRule> = fc.oneof(
  plainRule,
  concreteRule,
  fc.record({ type: fc.constant("MaxCalls" as const), tool: subject, max: fc.integer({ min: 0, max: 3 }), scope: fc.constantFrom("run" as const, "thread" as const), priority }),
  fc.record({ type: fc.constant("Cooldown" as const), tool: subject, durationMs: fc.integer({ min: 1, max: 50 }), priority }),
  fc.record({ type: fc.constant("Periodic" as const), tool, durationMs: fc.integer({ min: 1, max: 50 }), priority }),
  fc.record({ type: fc.constant("AllowedOperations" as const), tool: subject, operations: fc.uniqueArray(fc.constantFrom(...OPS), { maxLength: 3 }), priority }),
);

type Action =
  | { kind: "call"; tool: string; operation: string | undefined; success: boolean; force: boolean }
  | { kind: "wait"; ms: number }
  | { kind: "newRun" };

const actionArb: fc.Arbitrary<Action> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("call" as const), tool, operation: fc.constantFrom(...PROBE_OPS), success: fc.boolean(), force: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("wait" as const), ms: fc.integer({ min: 0, max: 40 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("newRun" as const) }) },
);

const scenario = fc.record({
  rules: fc.array(ruleArb, { maxLength: 8 }),
  withCatalog: fc.boolean(),
  actions: fc.array(actionArb, { maxLength: 25 }),
});

/** Walks a scenario: calls that pass checkCall are recorded; `force` records a refused one too (a buggy caller). */
function walk(
  engine: ToolRulesEngine,
  actions: Action[],
  visit: (state: RuleState, now: number) => void,
): void {
  let now = 1_000;
  let state = engine.initialState(now);
  let n = 0;
  visit(state, now);
  for (const action of actions) {
    const before = JSON.stringify(state);
    if (action.kind === "wait") now += action.ms;
    else if (action.kind === "newRun") state = engine.startRun(state, now);
    else if (action.force || engine.checkCall(state, action, now) === null) {
      const next = engine.record(state, { tool: action.tool, operation: action.operation, callId: `c${n++}`, success: action.success, at: now });
      expect(JSON.stringify(state)).toBe(before);
      state = next;
    }
    visit(state, now);
  }
}

function outcome(engine: ToolRulesEngine, state: RuleState, now: number) {
  return {
    checks: TOOLS.flatMap((t) => PROBE_OPS.map((operation) => engine.checkCall(state, { tool: t, operation }, now))),
    allowed: engine.allowedTools(state, TOOLS, now),
    terminate: engine.shouldTerminate(state),
    exit: engine.pendingExitTools(state),
    initial: engine.initialTools(state),
    due: engine.dueTools(state, now),
  };
}

describe("ToolRulesEngine properties", () => {
  it("allowedTools lists exactly the tools and operations checkCall lets through", () => {
    fc.assert(
      fc.property(scenario, ({ rules, withCatalog, actions }) => {
        const engine = new ToolRulesEngine(rules, withCatalog ? { tools: CATALOG } : {});
        walk(engine, actions, (state, now) => {
          const allowed = new Map(engine.allowedTools(state, TOOLS, now).map((info) => [info.name, info]));
          for (const t of TOOLS) {
            const listed = allowed.get(t);
            let somePass = false;
            for (const operation of PROBE_OPS) {
              const violation = engine.checkCall(state, { tool: t, operation }, now);
              const listedForOp =
                listed !== undefined &&
                (listed.operations === undefined || (operation !== undefined && listed.operations.includes(operation)));
              expect(violation === null, `${t}/${operation}: ${violation?.message}`).toBe(listedForOp);
              if (violation) {
                expect(violation.message).toContain(violation.ruleId);
                expect(violation.allowedNow.map((s) => s.split(" ")[0])).not.toContain(undefined);
              }
              somePass ||= violation === null;
            }
            for (const op of listed?.operations ?? []) expect(engine.checkCall(state, { tool: t, operation: op }, now)).toBeNull();
            expect(somePass).toBe(listed !== undefined);
          }
        });
      }),
      { numRuns: 400 },
    );
  });

  it("state round-trips through JSON with the same outcomes (also across a rebuilt engine)", () => {
    fc.assert(
      fc.property(scenario, ({ rules, withCatalog, actions }) => {
        const options = withCatalog ? { tools: CATALOG } : {};
        const engine = new ToolRulesEngine(rules, options);
        const rebuilt = new ToolRulesEngine(JSON.parse(JSON.stringify(engine.rules)) as ToolRule[], options);
        walk(engine, actions, (state, now) => {
          const copy = parseRuleState(JSON.parse(JSON.stringify(state)));
          expect(copy).toEqual(state);
          const expected = outcome(engine, state, now);
          expect(outcome(engine, copy, now)).toEqual(expected);
          expect(outcome(rebuilt, copy, now)).toEqual(expected);
        });
      }),
      { numRuns: 300 },
    );
  });
});
