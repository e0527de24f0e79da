import { describe, expect, it } from "vitest";
import {
  assertValidRules,
  DEFAULT_PRIORITIES,
  executionPlan,
  rules,
  validateRules,
  type RuleValidationIssue,
  type ToolRule,
} from "../src/rules/index.js";

const catalog = new Map<string, readonly string[]>([
  ["connect", []],
  ["extract", []],
  ["validate", []],
  ["load", []],
  ["close", []],
  ["file", ["read", "append", "patch", "save"]],
  ["format_json", []],
  ["format_xml", []],
]);

const codes = (issues: RuleValidationIssue[]) => issues.map((i) => `${i.severity}:${i.code}`);
const only = (issues: RuleValidationIssue[], code: string) => issues.filter((i) => i.code === code);

describe("validateRules", () => {
  it("accepts a sound rule set", () => {
    const set = rules()
      .withInitialCall("connect")
      .withToolDependency("extract", "connect")
      .withToolDependency("validate", "extract")
      .withTerminalTool("load")
      .withRequiredForExit("close")
      .withAllowedOperations("file", ["read", "append"])
      .build();
    expect(validateRules(set, catalog)).toEqual([]);
    expect(() => assertValidRules(set, catalog)).not.toThrow();
  });

  it("reports unknown tools and unknown operations", () => {
    const issues = validateRules(
      [
        { type: "MustFollow", tool: "validate", conditions: ["lod"] },
        { type: "AllowedOperations", tool: "file", operations: ["read", "delete"] },
      ],
      catalog,
    );
    expect(only(issues, "unknown-tool")[0]?.message).toContain("unknown tool lod");
    expect(only(issues, "unknown-operation")[0]?.message).toBe(
      "rule AllowedOperations:file#1: file has no operation delete; its operations: read, append, patch, save",
    );
  });

  it("flags Terminal + RequiredForExit on one tool", () => {
    const issues = validateRules(rules().withTerminalTool("close").withRequiredForExit("close").build());
    expect(codes(issues)).toEqual(["error:conflict"]);
    expect(issues[0]?.ruleIds).toEqual(["Terminal:close#0", "RequiredForExit:close#1"]);
  });

  it("flags MaxCalls 0 with RequiredForExit or InitialCall", () => {
    const exit = validateRules(rules().withMaxCalls("close", 0).withRequiredForExit("close").build());
    expect(exit[0]?.message).toContain("close is disabled by MaxCalls 0 (MaxCalls:close#0) but RequiredForExit");
    const initial = validateRules(rules().withMaxCalls("connect", 0, "thread").withInitialCall("connect").build());
    expect(codes(initial)).toEqual(["error:conflict"]);
  });

  it("flags exclusive-group members that are all required for exit", () => {
    const issues = validateRules(
      rules().withExclusiveGroup("format_json", ["format_xml"]).withRequiredForExit("format_json").withRequiredForExit("format_xml").build(),
    );
    expect(codes(issues)).toEqual(["error:conflict"]);
    expect(issues[0]?.message).toContain("format_json and format_xml are in exclusive group");
  });

  it("flags AllowedOperations on a tool without operations, and empty intersections", () => {
    expect(validateRules(rules().withAllowedOperations("connect", ["read"]).build(), catalog)[0]?.message).toContain(
      "AllowedOperations on connect, which has no operations",
    );
    const empty = validateRules([
      { type: "AllowedOperations", tool: "file", operations: ["read"] },
      { type: "AllowedOperations", tool: "file", operations: ["save"] },
    ]);
    expect(empty[0]?.message).toBe("file can never be called: the AllowedOperations rules on it share no operation");
  });

  it("rejects non-positive durations and other malformed rules", () => {
    const issues = validateRules([
      { type: "Cooldown", tool: "a", durationMs: 0 },
      { type: "Periodic", tool: "b", durationMs: -5 },
      { type: "MaxCalls", tool: "c", max: 1.5 },
    ]);
    expect(codes(issues)).toEqual(["error:invalid-rule", "error:invalid-rule", "error:invalid-rule"]);
    expect(issues[0]?.message).toContain("rule Cooldown:a#0 is malformed: durationMs: must be a positive number");
  });

  it("reports MustFollow/MustPrecede cycles with their path", () => {
    const issues = validateRules([
      { type: "MustFollow", tool: "b", conditions: ["a"] },
      { type: "MustFollow", tool: "c", conditions: ["b"] },
      { type: "MustPrecede", tool: "c", conditions: ["a"] },
    ]);
    const cycles = only(issues, "cycle");
    expect(cycles).toHaveLength(1);
    expect(cycles[0]?.message).toMatch(/dependency cycle (a → b → c → a|b → c → a → b|c → a → b → c)/);
    expect(cycles[0]?.ruleIds.sort()).toEqual(["MustFollow:b#0", "MustFollow:c#1", "MustPrecede:c#2"]);
  });

  it("reports a tool that must follow itself", () => {
    expect(codes(validateRules([{ type: "MustFollow", tool: "a", conditions: ["a"] }]))).toEqual(["error:cycle"]);
  });

  it("reports tools that depend on a disabled or unknown tool", () => {
    const disabled = validateRules(rules().withMaxCalls("extract", 0).withToolDependency("validate", "extract").withToolDependency("load", "validate").build());
    const unreachable = only(disabled, "unreachable").map((i) => i.message);
    expect(unreachable).toContain("validate can never run: it needs extract, and extract is disabled by MaxCalls 0 (MaxCalls:extract#0)");
    expect(unreachable).toContain("load can never run: it needs validate, which needs extract, and extract is disabled by MaxCalls 0 (MaxCalls:extract#0)");
    const unknown = validateRules(rules().withToolDependency("validate", "ghost").build(), catalog);
    expect(codes(unknown)).toEqual(["error:unknown-tool", "error:unreachable"]);
  });

  it("reports an initial tool that waits for a non-initial tool (deadlock)", () => {
    const issues = validateRules(rules().withInitialCall("connect").withToolDependency("connect", "extract").build());
    expect(only(issues, "unreachable")[0]?.message).toContain("connect is an InitialCall tool but must run after extract");
  });

  it("reports a dependency between members of one exclusive group", () => {
    const issues = validateRules(rules().withExclusiveGroup("format_json", ["format_xml"]).withToolDependency("format_xml", "format_json").build());
    expect(only(issues, "unreachable")[0]?.message).toContain("format_xml must run after format_json, but both are in exclusive group");
  });

  it("reports unsupported wildcards, duplicate ids and rules without conditions", () => {
    const issues = validateRules([
      { type: "RequiredForExit", tool: "*" },
      { type: "Terminal", tool: "a", id: "same" },
      { type: "Terminal", tool: "b", id: "same" },
      { type: "MustFollow", tool: "c" },
    ]);
    expect(codes(issues)).toEqual(["error:duplicate-id", "error:wildcard", "warning:no-conditions"]);
  });

  it("refuses a run limit above the thread limit on the same calls (LangChain refuses runLimit > threadLimit)", () => {
    const limits = (list: ToolRule[]) => only(validateRules(list, catalog), "limit-scope");
    const total = limits([
      { type: "MaxTotalCalls", tool: "*", max: 2, scope: "thread" },
      { type: "MaxTotalCalls", tool: "*", max: 3 },
    ]);
    expect(total).toEqual([
      {
        severity: "error",
        code: "limit-scope",
        message: "rule MaxTotalCalls:*#1 allows 3 calls to all tools together per run, more than rule MaxTotalCalls:*#0 allows per thread (2): the run limit can never be reached. Make the run limit at most 2",
        ruleIds: ["MaxTotalCalls:*#1", "MaxTotalCalls:*#0"],
      },
    ]);
    expect(limits([{ type: "MaxCalls", tool: "load", max: 5, scope: "run", id: "run" }, { type: "MaxCalls", tool: "load", max: 1, scope: "thread", id: "thread" }])[0]?.message).toBe(
      "rule run allows 5 calls to load per run, more than rule thread allows per thread (1): the run limit can never be reached. Make the run limit at most 1",
    );
    expect(limits([{ type: "MaxCalls", tool: "*", max: 4 }, { type: "MaxCalls", tool: "*", max: 2, scope: "thread" }])[0]?.message).toMatch(/allows 4 calls to each tool per run/);
    // Equal limits, a lower run limit, different tools, or MaxCalls beside MaxTotalCalls: accepted.
    expect(limits([{ type: "MaxTotalCalls", tool: "*", max: 2, scope: "thread" }, { type: "MaxTotalCalls", tool: "*", max: 2 }])).toEqual([]);
    expect(limits([{ type: "MaxCalls", tool: "load", max: 1 }, { type: "MaxCalls", tool: "load", max: 3, scope: "thread" }])).toEqual([]);
    expect(limits([{ type: "MaxCalls", tool: "load", max: 5 }, { type: "MaxCalls", tool: "extract", max: 1, scope: "thread" }])).toEqual([]);
    expect(limits([{ type: "MaxCalls", tool: "load", max: 5 }, { type: "MaxTotalCalls", tool: "*", max: 1, scope: "thread" }])).toEqual([]);
    expect(() => assertValidRules([{ type: "MaxTotalCalls", tool: "*", max: 2, scope: "thread" }, { type: "MaxTotalCalls", tool: "*", max: 3 }])).toThrow(/\[limit-scope\]/);
  });

  it("assertValidRules lists every error and returns warnings", () => {
    expect(() => assertValidRules(rules().withTerminalTool("x").withRequiredForExit("x").withToolDependency("y", "y").build())).toThrow(
      /invalid tool rules \(2 errors\):\n- \[conflict\].*\n- \[cycle\]/,
    );
    expect(assertValidRules([{ type: "TerminalIf", tool: "x" }])).toEqual([
      expect.objectContaining({ severity: "warning", code: "no-conditions" }),
    ]);
  });
});

describe("executionPlan", () => {
  it("describes the ETL example from seed 001 with a Mermaid flowchart", () => {
    const etl: ToolRule[] = [
      { type: "InitialCall", tool: "connect_database", priority: 10 },
      { type: "MustFollow", tool: "extract_data", conditions: ["connect_database"], priority: 8 },
      { type: "MustFollow", tool: "validate_data", conditions: ["extract_data"], priority: 7 },
      { type: "MustPrecede", tool: "validate_data", conditions: ["load_warehouse"] },
      { type: "Terminal", tool: "load_warehouse", priority: 9 },
      { type: "RequiredForExit", tool: "close_database", priority: 10 },
      { type: "MaxCalls", tool: "extract_data", max: 3 },
      { type: "MaxCalls", tool: "extract_data", max: 2, scope: "thread" },
      { type: "AllowedOperations", tool: "file", operations: ["read", "save"] },
      { type: "AllowedOperations", tool: "file", operations: ["save"] },
    ];
    const plan = executionPlan(etl);
    expect(plan.initialTools).toEqual(["connect_database"]);
    expect(plan.dependencies).toEqual({
      extract_data: ["connect_database"],
      validate_data: ["extract_data"],
      load_warehouse: ["validate_data"],
    });
    expect(plan.terminalTools).toEqual(["load_warehouse"]);
    expect(plan.exitRequirements).toEqual(["close_database"]);
    expect(plan.maxCalls).toEqual({ extract_data: { max: 2, scope: "thread" } });
    expect(plan.allowedOperations).toEqual({ file: ["save"] });
    const lines = plan.mermaid.split("\n");
    expect(lines[0]).toBe("flowchart TD");
    expect(lines).toContain('  t0_connect_database(["connect_database"])');
    expect(lines).toContain("  t0_connect_database --> t1_extract_data");
    expect(lines).toContain("  t1_extract_data --> t2_validate_data");
    expect(lines).toContain("  t2_validate_data --> t3_load_warehouse");
    expect(lines).toContain('  t3_load_warehouse[["load_warehouse"]]');
    expect(lines).toContain("  t4_close_database -. required before .-> exit");
  });

  it("quotes tool names that are not Mermaid identifiers", () => {
    const plan = executionPlan([{ type: "MustFollow", tool: 'my "tool"', conditions: ["mcp.search"] }]);
    expect(plan.mermaid).toContain('t0_mcp_search["mcp.search"]');
    expect(plan.mermaid).toContain('t1_my__tool_["my #quot;tool#quot;"]');
  });
});

describe("rules() builder", () => {
  it("builds seed-001 style rules with the seed's default priorities", () => {
    const built = rules()
      .withToolDependency("api_request", "authenticate")
      .withNoHeartbeatTool("format_response")
      .withTerminalTool("send_notification")
      .withMaxCalls("api_request", 3)
      .withRule({ type: "Periodic", tool: "sync", durationMs: 1000, priority: 2 })
      .build();
    expect(built).toEqual([
      { type: "MustFollow", tool: "api_request", conditions: ["authenticate"], priority: 5 },
      { type: "NoHeartbeat", tool: "format_response", priority: 1 },
      { type: "Terminal", tool: "send_notification", priority: 8 },
      { type: "MaxCalls", tool: "api_request", max: 3, scope: "run", priority: 5 },
      { type: "Periodic", tool: "sync", durationMs: 1000, priority: 2 },
    ]);
    expect(DEFAULT_PRIORITIES.InitialCall).toBe(10);
    expect(DEFAULT_PRIORITIES.RequiredForExit).toBe(9);
    expect(DEFAULT_PRIORITIES.AllowedOperations).toBe(0);
  });

  it("build() returns a copy each time", () => {
    const builder = rules().withExclusiveGroup("a", ["b"]);
    const first = builder.build();
    first[0]!.conditions!.push("c");
    expect(builder.build()[0]?.conditions).toEqual(["b"]);
  });
});
