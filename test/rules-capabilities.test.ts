import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parsePolicy } from "../src/policy/file.js";
import { play } from "./helpers/peer-harness.js";
import { executionPlan, ToolRulesEngine, validateRules } from "../src/rules/index.js";
import type { RuleState } from "../src/rules/index.js";

const at0 = { tools: new Map<string, string[]>([["login", []], ["api", []], ["health", []], ["a", []], ["b", []]]) };
const record = (e: ToolRulesEngine, s: RuleState, tool: string, at = 0, success = true) =>
  e.record(s, { tool, callId: `${tool}_${at}_${Math.random()}`, success, at });

describe('scope: "thread" keeps the seed\'s whole-conversation meaning', () => {
  it("MustFollow per thread: a prerequisite from an earlier run still counts; per run it does not", () => {
    const thread = new ToolRulesEngine([{ type: "MustFollow", tool: "api", conditions: ["login"], scope: "thread" }], at0);
    const run = new ToolRulesEngine([{ type: "MustFollow", tool: "api", conditions: ["login"] }], at0);
    const next = (e: ToolRulesEngine) => e.startRun(record(e, e.initialState(0), "login"), 1);
    expect(thread.checkCall(next(thread), { tool: "api" }, 1)).toBeNull();
    const refused = run.checkCall(next(run), { tool: "api" }, 1);
    expect(refused).toMatchObject({ required: ["login"], executed: [], scope: "run" });
  });

  it("ExclusiveGroup per thread names the thread in its refusal", () => {
    const e = new ToolRulesEngine([{ type: "ExclusiveGroup", tool: "a", conditions: ["b"], scope: "thread" }], at0);
    const s = e.startRun(record(e, e.initialState(0), "a"), 1);
    expect(e.checkCall(s, { tool: "b" }, 1)?.reason).toBe("only one of a, b may be used per thread, and a already was");
  });

  it("scope on a rule type without state is refused", () => {
    expect(() => new ToolRulesEngine([{ type: "Terminal", tool: "a", scope: "thread" } as never])).toThrow(
      "Terminal:a#0: scope has no meaning for Terminal (only for MustFollow, MustPrecede, ExclusiveGroup, MaxCalls, MaxTotalCalls)",
    );
  });
});

describe("MaxTotalCalls counts every tool together", () => {
  it("refuses any tool once the total is reached; MaxCalls '*' still counts each tool on its own", () => {
    const total = new ToolRulesEngine([{ type: "MaxTotalCalls", tool: "*", max: 2 }], at0);
    let s = record(total, record(total, total.initialState(0), "a"), "b");
    expect(total.checkCall(s, { tool: "api" }, 0)).toMatchObject({ ruleType: "MaxTotalCalls", max: 2, current: 2, exitBehavior: "continue" });
    const each = new ToolRulesEngine([{ type: "MaxCalls", tool: "*", max: 1 }], at0);
    s = record(each, record(each, each.initialState(0), "a"), "b");
    expect(each.checkCall(s, { tool: "api" }, 0)).toBeNull();
    expect(each.checkCall(s, { tool: "a" }, 0)?.ruleType).toBe("MaxCalls");
  });

  it("needs tool \"*\"", () => {
    expect(() => new ToolRulesEngine([{ type: "MaxTotalCalls", tool: "api", max: 1 }])).toThrow(/its tool must be "\*"/);
  });
});

describe("Periodic is forced after the reminders run out", () => {
  const e = new ToolRulesEngine([{ type: "Periodic", tool: "health", durationMs: 60_000, args: { deep: true } }], at0);
  it("due and reminded but ignored for one call: forced, with its prefilled args", () => {
    let s = record(e, e.initialState(0), "health", 0);
    expect(e.dueTools(s, 59_999)).toEqual([]);
    expect(e.forcedTool(s, 70_000)).toBeNull(); // due, but the model has not been reminded yet
    s = record(e, s, "api", 65_000); // a call made while health was due: the reminder was ignored
    expect(e.forcedTool(s, 70_000)).toEqual({ tool: "health", ruleId: "Periodic:health#0", ruleType: "Periodic", args: { deep: true } });
    s = record(e, s, "health", 71_000);
    expect(e.forcedTool(s, 72_000)).toBeNull();
  });
});

describe("validation of the new rule types", () => {
  it("names unknown children and mapped tools, and children all disabled", () => {
    const issues = validateRules(
      [
        { type: "ChildTools", tool: "a", children: ["nope"] },
        { type: "ConditionalNext", tool: "a", outputMapping: { yes: "ghost" } },
        { type: "ChildTools", tool: "b", children: ["api"] },
        { type: "MaxCalls", tool: "api", max: 0 },
      ],
      at0.tools,
    ).map((i) => i.message);
    expect(issues).toContain("rule ChildTools:a#0 names unknown tool nope; known tools: login, api, health, a, b");
    expect(issues).toContain("rule ConditionalNext:a#1 names unknown tool ghost; known tools: login, api, health, a, b");
    expect(issues).toContain("after b only api may run (ChildTools:b#2), and every one of them is disabled by MaxCalls 0");
  });
});

describe("usage sentences of the new rule types", () => {
  it("pins them", () => {
    const e = new ToolRulesEngine([
      { type: "MaxTotalCalls", tool: "*", max: 10, scope: "thread" },
      { type: "ChildTools", tool: "plan", children: ["act", "ask"] },
      { type: "ConditionalNext", tool: "check", outputMapping: { true: "ship" }, defaultChild: "fix" },
      { type: "InitialCall", tool: "start", alternatives: ["resume"] },
      { type: "MustFollow", tool: "api", conditions: ["login"], scope: "thread" },
    ]);
    expect(e.usageLines()).toEqual([
      "You can make at most 10 calls to all tools together in this conversation (call limit)",
      "After `plan`, call only one of `act`, `ask` next",
      'After `check`, the next tool depends on its output: "true" → `ship`; otherwise `fix`',
      "Your first call must be one of `start`, `resume`",
      "`api` can only be used after `login` succeeded in this conversation",
    ]);
  });
});

describe("policy-file form", () => {
  const load = (text: string) => parsePolicy(`version: 1\n${text}`, "yaml", "test.yaml");
  it("reads the new fields and refuses a field on the wrong type", () => {
    const ok = load(`
tool_rules:
  - { tool: "*", type: MaxTotalCalls, max: 5, scope: thread, exitBehavior: end }
  - { tool: plan, type: ChildTools, children: [act], childArgs: { act: { depth: 1 } } }
  - { tool: check, type: ConditionalNext, outputMapping: { "true": ship }, requireOutputMapping: true }
  - { tool: start, type: InitialCall, alternatives: [resume], args: { fresh: true } }
  - { tool: api, type: MustFollow, conditions: [login], scope: thread }
`);
    expect(ok.toolRules).toEqual([
      { tool: "*", type: "MaxTotalCalls", max: 5, scope: "thread", exitBehavior: "end" },
      { tool: "plan", type: "ChildTools", children: ["act"], childArgs: { act: { depth: 1 } } },
      { tool: "check", type: "ConditionalNext", outputMapping: { true: "ship" }, requireOutputMapping: true },
      { tool: "start", type: "InitialCall", alternatives: ["resume"], args: { fresh: true } },
      { tool: "api", type: "MustFollow", conditions: ["login"], scope: "thread" },
    ]);
    expect(() => load(`tool_rules:\n  - { tool: a, type: Terminal, exitBehavior: end }\n`)).toThrow(/exitBehavior.*has no meaning for Terminal/);
  });
});

describe("Periodic forcing through the agent and the middleware", () => {
  it.each([["agent"], ["middleware"]] as const)("%s: an ignored due reminder becomes a forced call with the rule's args", async (entry) => {
    let clock = 1_000_000;
    const outcome = await play(entry, {
      tools: [{ name: "health" }, { name: "api" }],
      rules: [{ type: "Periodic", tool: "health", durationMs: 60_000, args: { deep: true } }],
      guard: { now: () => (clock += 10) },
      replies: [[{ name: "api", id: "a" }], "ignores tool_choice", "done"],
      steps: [{ input: "go" }],
    });
    expect(outcome.toolChoices[0]).toBeUndefined(); // due, only reminded in the prompt
    expect(outcome.toolChoices[1]).toEqual(entry === "agent" ? "health" : { type: "function", function: { name: "health" } });
    expect(outcome.executed).toEqual([{ tool: "api", args: {} }, { tool: "health", args: { deep: true } }]);
    expect(outcome.toolChoices[2]).toBeUndefined(); // called: no longer due
  });
});

describe("executionPlan draws the Letta-style sequences", () => {
  it("ChildTools and ConditionalNext edges, init alternatives", () => {
    const plan = executionPlan([
      { type: "InitialCall", tool: "load", alternatives: ["resume"] },
      { type: "ChildTools", tool: "load", children: ["plan"] },
      { type: "ConditionalNext", tool: "plan", outputMapping: { ship: "deploy" }, defaultChild: "ask" },
    ]);
    expect(plan.initialTools).toEqual(["load", "resume"]);
    expect(plan.mermaid).toContain('t0_load ==>|"then"| t2_plan');
    expect(plan.mermaid).toContain('t2_plan ==>|"ship"| t3_deploy');
    expect(plan.mermaid).toContain('t2_plan ==>|"otherwise"| t4_ask');
  });
});

describe("ParentTools (Letta's ParentToolRule, parent_last_tool)", () => {
  const tools = { tools: new Map<string, string[]>([["plan", []], ["act", []], ["ask", []], ["read", []]]) };
  const e = new ToolRulesEngine([{ type: "ParentTools", tool: "plan", children: ["act", "ask"] }], tools);
  const names = (s: RuleState) => e.allowedTools(s, ["plan", "act", "ask", "read"], 0).map((a) => a.name);

  it("children are hidden and refused until the parent is the last call; then only they are offered", () => {
    let s = e.initialState(0);
    expect(names(s)).toEqual(["plan", "read"]);
    expect(e.checkCall(s, { tool: "act" }, 0)).toMatchObject({
      ruleType: "ParentTools",
      reason: "act may be called only right after plan, and plan was not the last call",
      required: ["plan"],
    });
    s = record(e, s, "plan");
    expect(names(s)).toEqual(["act", "ask"]);
    expect(e.checkCall(s, { tool: "read" }, 0)?.reason).toBe("after plan only act, ask may be called next");
    expect(e.checkCall(s, { tool: "act" }, 0)).toBeNull();
    // A child once: the next call is no longer right after plan.
    s = record(e, s, "act");
    expect(names(s)).toEqual(["plan", "read"]);
    expect(e.checkCall(s, { tool: "ask" }, 0)?.ruleType).toBe("ParentTools");
  });

  it("forces a single child after the parent, never a choice of two", () => {
    const one = new ToolRulesEngine([{ type: "ParentTools", tool: "plan", children: ["act"] }], tools);
    expect(one.forcedTool(record(one, one.initialState(0), "plan"), 0)).toMatchObject({ tool: "act", ruleType: "ParentTools" });
    expect(one.forcedTool(one.initialState(0), 0)).toBeNull();
    expect(e.forcedTool(record(e, e.initialState(0), "plan"), 0)).toBeNull();
  });

  it("usage sentence, policy-file form, validation, plan edge", () => {
    expect(e.usageLines()).toEqual(["`act`, `ask` may be called only right after `plan`, and right after `plan` only they"]);
    expect(new ToolRulesEngine([{ type: "ParentTools", tool: "plan", children: ["act"] }]).usageLines()).toEqual([
      "`act` may be called only right after `plan`, and right after `plan` only it",
    ]);
    const policy = parsePolicy("version: 1\ntool_rules:\n  - { tool: plan, type: ParentTools, children: [act] }\n", "yaml", "p.yaml");
    expect(policy.toolRules).toEqual([{ tool: "plan", type: "ParentTools", children: ["act"] }]);
    expect(() => parsePolicy("version: 1\ntool_rules:\n  - { tool: plan, type: ParentTools }\n", "yaml", "p.yaml")).toThrow(/children.*is required for ParentTools/);
    expect(() => new ToolRulesEngine([{ type: "ParentTools", tool: "*", children: ["act"] }])).toThrow('ParentTools needs a concrete tool, not "*"');
    expect(() => new ToolRulesEngine([{ type: "ParentTools", tool: "plan", children: [] }])).toThrow(/children.*must name at least one tool/);
    expect(validateRules([{ type: "ParentTools", tool: "plan", children: ["ghost"] }], tools.tools).map((i) => i.message)).toContain(
      "rule ParentTools:plan#0 names unknown tool ghost; known tools: plan, act, ask, read",
    );
    expect(executionPlan([{ type: "ParentTools", tool: "plan", children: ["act"] }]).mermaid).toMatch(/plan ==>\|"only then"\| t\d+_act/);
  });
});

describe("mustCallTool: a rule leaves a choice and some tool must be called (Letta's should_force_tool_call)", () => {
  const tools = { tools: new Map<string, string[]>([["s", []], ["a", []], ["b", []], ["x", []]]) };
  const after = (e: ToolRulesEngine, tool: string) => record(e, e.initialState(0), tool);

  it("a child or parent rule with two tools right after its tool; not before, not after a child ran", () => {
    for (const type of ["ChildTools", "ParentTools"] as const) {
      const e = new ToolRulesEngine([{ type, tool: "s", children: ["a", "b"] }], tools);
      expect(e.mustCallTool(e.initialState(0), 0)).toBe(false);
      expect(e.mustCallTool(after(e, "s"), 0)).toBe(true);
      expect(e.forcedTool(after(e, "s"), 0)).toBeNull();
      expect(e.mustCallTool(record(e, after(e, "s"), "a"), 0)).toBe(false);
    }
  });

  it("init alternatives until one ran; never when a single tool is forced, when only the rule's own tool is left, when nothing is, or when the rule asks", () => {
    const init = new ToolRulesEngine([{ type: "InitialCall", tool: "s", alternatives: ["a"] }], tools);
    expect(init.mustCallTool(init.initialState(0), 0)).toBe(true);
    expect(init.mustCallTool(after(init, "a"), 0)).toBe(false);
    const single = new ToolRulesEngine([{ type: "ChildTools", tool: "s", children: ["a"] }], tools);
    expect(single.mustCallTool(after(single, "s"), 0)).toBe(false);
    expect(single.forcedTool(after(single, "s"), 0)?.tool).toBe("a");
    const own = new ToolRulesEngine([{ type: "ChildTools", tool: "s", children: ["s", "x"] }, { type: "MaxCalls", tool: "x", max: 0 }], tools);
    expect(own.mustCallTool(after(own, "s"), 0)).toBe(false);
    const none = new ToolRulesEngine([{ type: "ConditionalNext", tool: "s", outputMapping: { yes: "a" }, requireOutputMapping: true }], tools);
    expect(none.mustCallTool(none.record(none.initialState(0), { tool: "s", callId: "1", success: true, at: 0, output: "no" }), 0)).toBe(false);
    const asks = new ToolRulesEngine([{ type: "ChildTools", tool: "s", children: ["a", "b"], onViolation: "ask" }], tools);
    expect(asks.mustCallTool(after(asks, "s"), 0)).toBe(false);
  });
});

describe("property: ParentTools against any call history", () => {
  // Random histories over a parent, its children and an outsider: a child is allowed exactly when
  // the parent was the last call, and right after the parent nothing but a child is; checkCall and
  // allowedTools agree.
  const names = ["plan", "act", "ask", "read"] as const;
  it("a child only right after the parent; only children right after it; the two views agree", () => {
    const e = new ToolRulesEngine([{ type: "ParentTools", tool: "plan", children: ["act", "ask"] }], {
      tools: new Map(names.map((n) => [n, [] as string[]])),
    });
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...names), { maxLength: 12 }), fc.constantFrom(...names), (history, next) => {
        let s = e.initialState(0);
        history.forEach((tool, i) => (s = e.record(s, { tool, callId: `c${i}`, success: true, at: 0 })));
        const afterParent = history.at(-1) === "plan";
        const isChild = next === "act" || next === "ask";
        const expected = afterParent ? isChild : !isChild;
        expect(e.checkCall(s, { tool: next }, 0) === null).toBe(expected);
        expect(e.allowedTools(s, [next], 0).length === 1).toBe(expected);
      }),
      { numRuns: 300, seed: 14 },
    );
  });
});
