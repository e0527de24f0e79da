import { describe, expect, it } from "vitest";
import { rules, ToolRulesEngine, type RuleState, type ToolRule } from "../src/rules/index.js";

let callCounter = 0;

/** Seed 001's TestRuleAgent.simulate_tool_execution: check each call, then record it as successful. */
function simulate(engine: ToolRulesEngine, state: RuleState, tools: string[], at = 0): { state: RuleState; error?: string } {
  let current = state;
  for (const tool of tools) {
    const violation = engine.checkCall(current, { tool }, at);
    if (violation) return { state: current, error: violation.message };
    current = engine.record(current, { tool, callId: `test_${callCounter++}`, success: true, at });
  }
  return { state: current };
}

function run(engine: ToolRulesEngine, state: RuleState, tool: string, options: { success?: boolean; at?: number; operation?: string } = {}): RuleState {
  return engine.record(state, {
    tool,
    operation: options.operation,
    callId: `c${callCounter++}`,
    success: options.success ?? true,
    at: options.at ?? 0,
  });
}

describe("seed 001 tests", () => {
  it("test_must_follow_rule", () => {
    const engine = new ToolRulesEngine([{ type: "MustFollow", tool: "validate", conditions: ["load"], priority: 5 }]);
    const state = engine.initialState(0);
    const first = simulate(engine, state, ["validate"]);
    expect(first.error).toBe("Refused validate by rule MustFollow:validate#0: validate may only run after load succeeded, and load has not. Allowed now: load.");
    expect(first.error).toContain("MustFollow:validate#0");
    expect(simulate(engine, first.state, ["load", "validate"]).error).toBeUndefined();
  });

  it("test_terminal_rule", () => {
    const engine = new ToolRulesEngine([{ type: "Terminal", tool: "deploy", priority: 5 }]);
    const { state } = simulate(engine, engine.initialState(0), ["deploy"]);
    expect(engine.shouldTerminate(state)).toEqual({ terminate: true, ruleId: "Terminal:deploy#0" });
  });

  it("test_exclusive_group", () => {
    const engine = new ToolRulesEngine([
      { type: "ExclusiveGroup", tool: "format_json", conditions: ["format_xml", "format_yaml"], priority: 5 },
    ]);
    const { state, error } = simulate(engine, engine.initialState(0), ["format_xml"]);
    expect(error).toBeUndefined();
    const refused = simulate(engine, state, ["format_json"]);
    expect(refused.error).toMatch(/ExclusiveGroup.*format_xml already was/);
  });
});

describe("ToolRulesEngine rule types", () => {
  it("MustFollow is per run: a new user input needs the prerequisite again", () => {
    const engine = new ToolRulesEngine(rules().withToolDependency("validate", "load").build());
    let state = run(engine, engine.initialState(0), "load");
    expect(engine.checkCall(state, { tool: "validate" })).toBeNull();
    state = engine.startRun(state, 1);
    expect(engine.checkCall(state, { tool: "validate" })?.ruleType).toBe("MustFollow");
  });

  it("MustFollow counts only successful prerequisite calls", () => {
    const engine = new ToolRulesEngine(rules().withToolDependency("validate", "load").build());
    const state = run(engine, engine.initialState(0), "load", { success: false });
    expect(engine.checkCall(state, { tool: "validate" })).toMatchObject({ required: ["load"], executed: [] });
  });

  it("MustPrecede holds the other tools back until the tool succeeded", () => {
    const engine = new ToolRulesEngine(rules().withMustPrecede("auth", ["api_request", "upload"]).build());
    const state = engine.initialState(0);
    const violation = engine.checkCall(state, { tool: "upload" });
    expect(violation?.ruleType).toBe("MustPrecede");
    expect(violation?.message).toContain("auth must succeed before upload may run");
    expect(violation?.allowedNow).toEqual(["auth"]);
    expect(engine.checkCall(state, { tool: "auth" })).toBeNull();
    const after = run(engine, state, "auth");
    expect(engine.checkCall(after, { tool: "upload" })).toBeNull();
    expect(engine.checkCall(after, { tool: "api_request" })).toBeNull();
  });

  it("ExclusiveGroup is symmetric and lets the used member run again", () => {
    const engine = new ToolRulesEngine(rules().withExclusiveGroup("format_json", ["format_xml"]).build());
    const state = run(engine, engine.initialState(0), "format_json");
    expect(engine.checkCall(state, { tool: "format_xml" })?.ruleType).toBe("ExclusiveGroup");
    expect(engine.checkCall(state, { tool: "format_json" })).toBeNull();
    expect(engine.checkCall(engine.startRun(state), { tool: "format_xml" })).toBeNull();
  });

  it("MaxCalls counts attempts per run by default", () => {
    const engine = new ToolRulesEngine(rules().withMaxCalls("search", 2).build());
    let state = engine.initialState(0);
    state = run(engine, state, "search", { success: false });
    expect(engine.checkCall(state, { tool: "search" })).toBeNull();
    state = run(engine, state, "search");
    const violation = engine.checkCall(state, { tool: "search" });
    expect(violation?.message).toContain("call limit reached: search may be called at most 2 times per run and was called 2 times");
    expect(engine.checkCall(engine.startRun(state), { tool: "search" })).toBeNull();
  });

  it("MaxCalls with thread scope survives new runs", () => {
    const engine = new ToolRulesEngine(rules().withMaxCalls("send_email", 1, "thread").build());
    let state = run(engine, engine.initialState(0), "send_email");
    state = engine.startRun(state, 5);
    expect(engine.checkCall(state, { tool: "send_email" })?.message).toContain("per thread");
    expect(state.threadAttempts.send_email).toBe(1);
    expect(state.runAttempts.send_email).toBeUndefined();
  });

  it("Cooldown refuses until the duration passed (injected clock)", () => {
    let clock = 1_000;
    const engine = new ToolRulesEngine(rules().withCooldown("ping", 5_000).build(), { now: () => clock });
    let state = engine.initialState();
    expect(engine.checkCall(state, { tool: "ping" })).toBeNull();
    state = run(engine, state, "ping", { at: clock });
    clock = 3_000;
    expect(engine.checkCall(state, { tool: "ping" })?.message).toContain("3 s left of the 5 s needed between calls");
    expect(engine.allowedTools(state, ["ping"])).toEqual([]);
    clock = 6_000;
    expect(engine.checkCall(state, { tool: "ping" })).toBeNull();
    expect(engine.allowedTools(state, ["ping"])).toEqual([{ name: "ping" }]);
  });

  it("Cooldown survives a new run (last-call times are thread-wide)", () => {
    const engine = new ToolRulesEngine(rules().withCooldown("ping", 1_000).build());
    const state = engine.startRun(run(engine, engine.initialState(0), "ping", { at: 100 }), 200);
    expect(engine.checkCall(state, { tool: "ping" }, 500)?.ruleType).toBe("Cooldown");
  });

  it("Periodic never refuses and reports due tools", () => {
    const engine = new ToolRulesEngine(rules().withPeriodic("sync", 60_000).build());
    let state = engine.initialState(0);
    expect(engine.dueTools(state, 0)).toEqual(["sync"]);
    state = run(engine, state, "sync", { at: 10_000 });
    expect(engine.checkCall(state, { tool: "sync" }, 10_001)).toBeNull();
    expect(engine.dueTools(state, 69_999)).toEqual([]);
    expect(engine.dueTools(state, 70_000)).toEqual(["sync"]);
  });

  it("AllowedOperations refuses other operations and calls without an operation", () => {
    const engine = new ToolRulesEngine(rules().withAllowedOperations("file", ["read", "append"]).build(), {
      tools: new Map([["file", ["read", "append", "patch", "save"]], ["clock", []]]),
    });
    const state = engine.initialState(0);
    expect(engine.checkCall(state, { tool: "file", operation: "read" })).toBeNull();
    const patch = engine.checkCall(state, { tool: "file", operation: "patch" });
    expect(patch?.message).toContain("operation patch of file is not allowed; allowed operations: read, append");
    expect(patch?.allowedNow).toEqual(["file (read, append)", "clock"]);
    expect(engine.checkCall(state, { tool: "file" })?.message).toContain("must be called with an operation");
    expect(engine.allowedTools(state, ["file", "clock"])).toEqual([
      { name: "file", operations: ["read", "append"] },
      { name: "clock" },
    ]);
    expect(engine.allowedOperations("file")).toEqual(["read", "append"]);
    expect(engine.allowedOperations("clock")).toBeUndefined();
  });

  it("AllowedOperations from several rules intersect (most restrictive wins)", () => {
    const engine = new ToolRulesEngine([
      { type: "AllowedOperations", tool: "file", operations: ["read", "append", "save"] },
      { type: "AllowedOperations", tool: "file", operations: ["save", "read", "patch"] },
    ]);
    const state = engine.initialState(0);
    expect(engine.allowedOperations("file")).toEqual(["read", "save"]);
    expect(engine.checkCall(state, { tool: "file", operation: "append" })?.ruleId).toBe("AllowedOperations:file#1");
    expect(engine.checkCall(state, { tool: "file", operation: "patch" })?.ruleId).toBe("AllowedOperations:file#0");
    expect(engine.checkCall(state, { tool: "file", operation: "save" })).toBeNull();
  });

  it("AllowedOperations with no common operation hides the tool", () => {
    const engine = new ToolRulesEngine([
      { type: "AllowedOperations", tool: "file", operations: ["read"] },
      { type: "AllowedOperations", tool: "file", operations: ["save"] },
    ]);
    expect(engine.allowedTools(engine.initialState(0), ["file"])).toEqual([]);
  });

  it("InitialCall: only initial tools until they have run this run", () => {
    const engine = new ToolRulesEngine(rules().withInitialCall("connect").withInitialCall("load_memory").build());
    let state = engine.initialState(0);
    expect(engine.initialTools(state)).toEqual(["connect", "load_memory"]);
    const violation = engine.checkCall(state, { tool: "search" });
    expect(violation?.ruleType).toBe("InitialCall");
    expect(violation?.message).toContain("connect, load_memory must be called first, before any other tool");
    expect(engine.allowedTools(state, ["search", "connect", "load_memory"]).map((t) => t.name)).toEqual(["connect", "load_memory"]);
    state = run(engine, state, "connect");
    expect(engine.checkCall(state, { tool: "load_memory" })).toBeNull();
    expect(engine.checkCall(state, { tool: "search" })?.message).toContain("load_memory must be called first, before any other tool");
    state = run(engine, state, "load_memory", { success: false });
    expect(engine.initialTools(state)).toEqual([]);
    expect(engine.checkCall(state, { tool: "search" })).toBeNull();
    expect(engine.initialTools(engine.startRun(state))).toEqual(["connect", "load_memory"]);
  });

  it("Terminal ends the run; only pending exit tools may run after it", () => {
    const engine = new ToolRulesEngine(rules().withTerminalTool("send_email").withRequiredForExit("save_session").build());
    let state = engine.initialState(0);
    expect(engine.pendingExitTools(state)).toEqual(["save_session"]);
    state = run(engine, state, "send_email");
    expect(engine.shouldTerminate(state).terminate).toBe(true);
    const violation = engine.checkCall(state, { tool: "search" });
    expect(violation?.ruleType).toBe("Terminal");
    expect(violation?.message).toContain("only pending exit tools may run: save_session");
    expect(violation?.allowedNow).toEqual(["save_session"]);
    expect(engine.checkCall(state, { tool: "save_session" })).toBeNull();
    state = run(engine, state, "save_session");
    expect(engine.pendingExitTools(state)).toEqual([]);
    expect(engine.checkCall(state, { tool: "save_session" })?.message).toContain("pending exit tools may run: none");
    expect(engine.shouldTerminate(engine.startRun(state)).terminate).toBe(false);
  });

  it("a failed terminal call does not end the run", () => {
    const engine = new ToolRulesEngine(rules().withTerminalTool("deploy").build());
    const state = run(engine, engine.initialState(0), "deploy", { success: false });
    expect(engine.shouldTerminate(state)).toEqual({ terminate: false });
  });

  it("TerminalIf ends the run only when its conditions succeeded too", () => {
    const engine = new ToolRulesEngine(rules().withTerminalIf("reply", ["lookup"]).build());
    let state = run(engine, engine.initialState(0), "reply");
    expect(engine.shouldTerminate(state).terminate).toBe(false);
    state = run(engine, state, "lookup");
    expect(engine.shouldTerminate(state)).toEqual({ terminate: true, ruleId: "TerminalIf:reply#0" });
  });

  it("RequiredForExitIf is pending only once its conditions succeeded", () => {
    const engine = new ToolRulesEngine(rules().withRequiredForExitIf("close_db", ["open_db"]).build());
    let state = engine.initialState(0);
    expect(engine.pendingExitTools(state)).toEqual([]);
    state = run(engine, state, "open_db");
    expect(engine.pendingExitTools(state)).toEqual(["close_db"]);
    state = run(engine, state, "close_db", { success: false });
    expect(engine.pendingExitTools(state)).toEqual(["close_db"]);
    state = run(engine, state, "close_db");
    expect(engine.pendingExitTools(state)).toEqual([]);
  });

  it("NoHeartbeat and ContinueLoop are flags that never refuse", () => {
    const engine = new ToolRulesEngine(rules().withNoHeartbeatTool("cache_lookup").withContinueLoop("block").build());
    expect(engine.requiresHeartbeat("cache_lookup")).toBe(false);
    expect(engine.requiresHeartbeat("block")).toBe(true);
    expect(engine.continuesLoop("block")).toBe(true);
    expect(engine.continuesLoop("cache_lookup")).toBe(false);
    expect(engine.checkCall(engine.initialState(0), { tool: "cache_lookup" })).toBeNull();
  });

  it("exit reminders count per run", () => {
    const engine = new ToolRulesEngine([]);
    const state = engine.noteExitReminder(engine.noteExitReminder(engine.initialState(0)));
    expect(state.exitReminders).toBe(2);
    expect(engine.startRun(state).exitReminders).toBe(0);
  });
});

describe("wildcards", () => {
  it('NoHeartbeat "*" with conditions applies to the listed tools only (seed TOML example)', () => {
    const engine = new ToolRulesEngine([
      { type: "NoHeartbeat", tool: "*", conditions: ["calculate", "format_text"], priority: 1 },
    ]);
    expect(engine.requiresHeartbeat("calculate")).toBe(false);
    expect(engine.requiresHeartbeat("format_text")).toBe(false);
    expect(engine.requiresHeartbeat("search")).toBe(true);
    expect(engine.rules.map((r) => r.tool)).toEqual(["calculate", "format_text"]);
  });

  it('ContinueLoop "*" without conditions applies to every tool', () => {
    const engine = new ToolRulesEngine([{ type: "ContinueLoop", tool: "*" }]);
    expect(engine.continuesLoop("anything")).toBe(true);
  });

  it('MaxCalls "*" limits each tool separately', () => {
    const engine = new ToolRulesEngine([{ type: "MaxCalls", tool: "*", max: 1 }]);
    const state = run(engine, engine.initialState(0), "a");
    expect(engine.checkCall(state, { tool: "a" })?.ruleId).toBe("MaxCalls:*#0");
    expect(engine.checkCall(state, { tool: "b" })).toBeNull();
  });

  it('MustFollow "*" holds back every tool except its own prerequisites', () => {
    const engine = new ToolRulesEngine([{ type: "MustFollow", tool: "*", conditions: ["auth"] }]);
    const state = engine.initialState(0);
    expect(engine.checkCall(state, { tool: "auth" })).toBeNull();
    expect(engine.checkCall(state, { tool: "search" })?.message).toContain("search may only run after auth succeeded");
    expect(engine.checkCall(run(engine, state, "auth"), { tool: "search" })).toBeNull();
  });

  it('Terminal "*" ends the run after any successful call', () => {
    const engine = new ToolRulesEngine([{ type: "Terminal", tool: "*" }]);
    expect(engine.shouldTerminate(engine.initialState(0)).terminate).toBe(false);
    expect(engine.shouldTerminate(run(engine, engine.initialState(0), "x")).terminate).toBe(true);
  });

  it("rejects wildcards for rules that need a concrete tool", () => {
    expect(() => new ToolRulesEngine([{ type: "InitialCall", tool: "*" }])).toThrow(/InitialCall needs a concrete tool/);
    expect(() => new ToolRulesEngine([{ type: "MustFollow", tool: "a", conditions: ["*"] }])).toThrow(/conditions must name tools/);
  });
});

describe("priority, ids and input handling", () => {
  it("sorts by priority (higher first), stable, and assigns default ids", () => {
    const input: ToolRule[] = [
      { type: "MaxCalls", tool: "a", max: 1 },
      { type: "Cooldown", tool: "a", durationMs: 10, priority: 3 },
      { type: "MustFollow", tool: "a", conditions: ["b"], priority: 3, id: "custom" },
      { type: "Terminal", tool: "c", priority: 9 },
    ];
    const engine = new ToolRulesEngine(input);
    expect(engine.rules.map((r) => r.id)).toEqual(["Terminal:c#3", "Cooldown:a#1", "custom", "MaxCalls:a#0"]);
    expect(input[0]).toEqual({ type: "MaxCalls", tool: "a", max: 1 });
  });

  it("reports the highest-priority refusing rule", () => {
    const limits = (followPriority: number) =>
      new ToolRulesEngine([
        { type: "MaxCalls", tool: "a", max: 0, priority: 5 },
        { type: "MustFollow", tool: "a", conditions: ["b"], priority: followPriority },
      ]);
    const state = limits(1).initialState(0);
    expect(limits(1).checkCall(state, { tool: "a" })?.ruleType).toBe("MaxCalls");
    expect(limits(9).checkCall(state, { tool: "a" })?.ruleType).toBe("MustFollow");
  });

  it("rejects malformed rules with a message naming the field", () => {
    const bad = [{ type: "Cooldown", tool: "x", durationMs: 0 }] as ToolRule[];
    expect(() => new ToolRulesEngine(bad)).toThrow(/field "durationMs" must be a positive number/);
    const typo = [{ type: "Terminal", tool_name: "x" }] as unknown as ToolRule[];
    expect(() => new ToolRulesEngine(typo)).toThrow(/invalid tool rules/);
  });

  it("never mutates the state it is given", () => {
    const engine = new ToolRulesEngine(rules().withMaxCalls("a", 3).build());
    const state = Object.freeze(engine.initialState(0));
    const snapshot = JSON.stringify(state);
    const next = run(engine, state, "a");
    engine.startRun(next);
    engine.noteExitReminder(next);
    expect(JSON.stringify(state)).toBe(snapshot);
    expect(next.runAttempts.a).toBe(1);
  });
});

describe("bounded state", () => {
  it("stays under a fixed size over 10,000 recorded executions", () => {
    const tools = ["search", "file", "block", "recall", "send_message"];
    const engine = new ToolRulesEngine(rules().withMaxCalls("search", 1_000_000, "thread").build(), { historyLimit: 50 });
    let state = engine.initialState(0);
    let sizeAt1000 = 0;
    for (let i = 0; i < 10_000; i++) {
      if (i % 7 === 0) state = engine.startRun(state, i);
      state = run(engine, state, tools[i % tools.length]!, { at: i, success: i % 3 !== 0, operation: "op" });
      if (i === 999) sizeAt1000 = JSON.stringify(state).length;
    }
    const size = JSON.stringify(state).length;
    expect(state.history).toHaveLength(50);
    expect(state.threadAttempts.search).toBe(2_000);
    expect(size).toBeLessThan(8_000);
    // No growth between turn 1,000 and turn 10,000 beyond a few digits of the counters.
    expect(size - sizeAt1000).toBeLessThan(200);
  });
});

describe("usage text", () => {
  it("renders each rule's usage sentence", () => {
    const engine = new ToolRulesEngine(
      rules().withAllowedOperations("file", ["read", "append"]).withMaxCalls("search", 3).withCooldown("ping", 30_000).build(),
    );
    expect(engine.usageLines()).toEqual([
      "`search` can be called at most 3 times per response (call limit)",
      "`ping` needs at least 30 s between calls",
      "`file` is limited to these operations: read, append",
    ]);
  });

  it("renders a usage section with tool usage rules first, empty when nothing to say", () => {
    const engine = new ToolRulesEngine(rules().withTerminalTool("send_email").build());
    expect(engine.usageSection({ file: "Always read before you edit." })).toBe(
      "## Tool usage rules\n\n- `file`: Always read before you edit.\n- `send_email` ends your response when it succeeds\n",
    );
    expect(new ToolRulesEngine([]).usageSection()).toBe("");
    expect(new ToolRulesEngine([]).usageSection({ a: "  " })).toBe("");
  });
});
