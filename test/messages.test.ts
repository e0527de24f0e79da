import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Command, MemorySaver } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createGuardedAgent } from "../src/guard/agent.js";
import { pendingApproval } from "../src/guard/approval/payload.js";
import { PermissionPolicy } from "../src/policy/permissions.js";
import { parseToolRules } from "../src/rules/schema.js";
import { ToolRulesEngine } from "../src/rules/engine.js";
import { defineTool } from "../src/tools/define-tool.js";
import * as messages from "../src/messages/index.js";

/**
 * Exact text of every sentence the model or a reviewer reads, observed through the code that
 * produces it (engine, review, approval, schema), not only through the builders.
 */

const thread = (id: string) => ({ configurable: { thread_id: id } });
const toolText = (all: BaseMessage[], id: string) =>
  all.find((m): m is ToolMessage => ToolMessage.isInstance(m) && m.tool_call_id === id)?.content;

function tools() {
  const api = defineTool({ name: "api", description: "Call the API", schema: z.object({ q: z.string() }), risk: "low", execute: () => "ok" });
  const search = defineTool({ name: "search", description: "Search", schema: z.object({ q: z.string() }), risk: "low", execute: () => "found" });
  const deploy = defineTool({ name: "deploy", description: "Deploy", schema: z.object({ env: z.string() }), risk: "high", execute: () => "deployed" });
  return [api, search, deploy];
}

describe("rule refusals: one sentence, the rule once, the limit named", () => {
  it("MaxCalls refusal as the model reads it in its ToolMessage", async () => {
    const model = fakeModel()
      .respondWithTools([{ name: "api", args: { q: "a" }, id: "c1" }])
      .respondWithTools([{ name: "api", args: { q: "b" }, id: "c2" }])
      .respond(new AIMessage("done"));
    const graph = createGuardedAgent({ model, tools: tools(), rules: [{ type: "MaxCalls", tool: "api", max: 1 }], checkpointer: new MemorySaver() });
    const out = await graph.invoke({ messages: [new HumanMessage("go")] }, thread("max"));
    expect(toolText(out.messages, "c2")).toBe(
      "Refused api by rule MaxCalls:api#0: call limit reached: api may be called at most 1 time per run and was called 1 time. Allowed now: search; deploy.",
    );
  });

  it("a custom rule id is named with its type; no tool allowed says so", () => {
    const engine = new ToolRulesEngine([{ type: "MaxCalls", tool: "api", max: 0, id: "no-api", scope: "thread" }], {
      tools: new Map([["api", []]]),
    });
    const v = engine.checkCall(engine.initialState(0), { tool: "api" }, 0);
    expect(v?.message).toBe("Refused api by MaxCalls rule no-api: call limit reached: api is disabled (limit 0 per thread). Allowed now: no tool.");
    expect(v).toMatchObject({ max: 0, current: 0, scope: "thread", reason: "call limit reached: api is disabled (limit 0 per thread)" });
  });

  it("each gate rule type's sentence", () => {
    const catalog = new Map<string, string[]>([
      ["load", []],
      ["validate", []],
      ["auth", []],
      ["upload", []],
      ["json", []],
      ["xml", []],
      ["file", ["read", "write", "delete"]],
      ["poll", []],
    ]);
    const engine = new ToolRulesEngine(
      [
        { type: "MustFollow", tool: "validate", conditions: ["load"] },
        { type: "MustPrecede", tool: "auth", conditions: ["upload"] },
        { type: "ExclusiveGroup", tool: "json", conditions: ["xml"] },
        { type: "AllowedOperations", tool: "file", operations: ["read"] },
        { type: "Cooldown", tool: "poll", durationMs: 30_000 },
      ],
      { tools: catalog },
    );
    let s = engine.initialState(0);
    expect(engine.checkCall(s, { tool: "validate" }, 0)?.message).toBe(
      "Refused validate by rule MustFollow:validate#0: validate may only run after load succeeded, and load has not. Allowed now: load; auth; json; xml; file (read); poll.",
    );
    expect(engine.checkCall(s, { tool: "upload" }, 0)?.message).toBe(
      "Refused upload by rule MustPrecede:auth#1: auth must succeed before upload may run, and it has not. Allowed now: load; auth; json; xml; file (read); poll.",
    );
    expect(engine.checkCall(s, { tool: "file", operation: "delete" }, 0)?.message).toBe(
      "Refused file (delete) by rule AllowedOperations:file#3: operation delete of file is not allowed; allowed operations: read. Allowed now: load; auth; json; xml; file (read); poll.",
    );
    s = engine.record(s, { tool: "xml", callId: "x", success: true, at: 0 });
    s = engine.record(s, { tool: "poll", callId: "p", success: true, at: 0 });
    expect(engine.checkCall(s, { tool: "json" }, 0)?.message).toBe(
      "Refused json by rule ExclusiveGroup:json#2: only one of json, xml may be used per run, and xml already was. Allowed now: load; auth; xml; file (read).",
    );
    const cooling = engine.checkCall(s, { tool: "poll" }, 12_500);
    expect(cooling?.message).toBe(
      "Refused poll by rule Cooldown:poll#4: poll is cooling down: 17500 ms left of the 30 s needed between calls. Allowed now: load; auth; xml; file (read).",
    );
    expect(cooling?.remainingMs).toBe(17_500);
  });

  it("InitialCall sentence", () => {
    const engine = new ToolRulesEngine([{ type: "InitialCall", tool: "connect" }], { tools: new Map([["connect", []], ["load", []]]) });
    expect(engine.checkCall(engine.initialState(0), { tool: "load" }, 0)?.message).toBe(
      "Refused load by rule InitialCall:connect#0: connect must be called first, before any other tool. Allowed now: connect.",
    );
  });
});

describe("other refusals as the model reads them", () => {
  it("unknown tool, invalid arguments, policy deny and a human reject", async () => {
    const model = fakeModel()
      .respondWithTools([
        { name: "nope", args: {}, id: "u" },
        { name: "api", args: { q: 3 }, id: "s" },
        { name: "deploy", args: { env: "prod" }, id: "d" },
        { name: "deploy", args: { env: "staging" }, id: "r" },
      ])
      .respond(new AIMessage("done"));
    const permissions = new PermissionPolicy([
      { tool: "deploy", mode: "deny", where: { env: { equals: "prod" } }, reason: "production is frozen", id: "freeze" },
      { tool: "deploy", mode: "ask", reason: "deploys need a second pair of eyes", id: "review-deploys" },
    ] );
    const graph = createGuardedAgent({ model, tools: tools(), permissions, checkpointer: new MemorySaver() });
    const first = await graph.invoke({ messages: [new HumanMessage("go")] }, thread("refusals"));
    const request = pendingApproval(first);
    expect(request?.actionRequests.map((a) => a.description)).toEqual([
      "deploy needs approval by rule permission:review-deploys: deploys need a second pair of eyes (high risk).",
    ]);
    const out = await graph.invoke(
      new Command({ resume: { decisions: [{ type: "reject", message: "not today." }] } }),
      thread("refusals"),
    );
    expect(toolText(out.messages, "u")).toBe(
      'Refused "nope" by rule unknown-tool: there is no tool with that name. Available tools: api, search, deploy.',
    );
    expect(toolText(out.messages, "s")).toBe(
      "Refused api by rule schema: invalid arguments (q: Invalid input: expected string, received number). Fix the arguments and call again.",
    );
    expect(toolText(out.messages, "d")).toBe("Refused deploy by rule permission:freeze: production is frozen.");
    expect(toolText(out.messages, "r")).toBe("Refused deploy by a human reviewer: not today. Do not retry this call unchanged.");
  });
});

describe("reminders and usage text", () => {
  it("pins the reminder and usage sentences", () => {
    expect(messages.reminders.exitPending(["close", "save"])).toBe("Before you finish, you must call: close, save (rule RequiredForExit).");
    expect(messages.reminders.exitForced("close")).toBe("You must call close now (rule RequiredForExit).");
    expect(messages.reminders.periodicDue(["health"])).toBe("Periodic tools due now: health. Call them as part of this step.");
    const engine = new ToolRulesEngine([
      { type: "MaxCalls", tool: "api", max: 3 },
      { type: "MaxCalls", tool: "web", max: 1, scope: "thread" },
      { type: "InitialCall", tool: "connect" },
      { type: "Cooldown", tool: "poll", durationMs: 90_000 },
      { type: "Periodic", tool: "health", durationMs: 300_000 },
    ]);
    expect(engine.usageSection({ api: "Use for lookups only." })).toBe(
      [
        "## Tool usage rules",
        "",
        "- `api`: Use for lookups only.",
        "- `api` can be called at most 3 times per response (call limit)",
        "- `web` can be called at most 1 time in this conversation (call limit)",
        "- Call `connect` first, before any other tool",
        "- `poll` needs at least 90 s between calls",
        "- `health` should be called every 5 min",
        "",
      ].join("\n"),
    );
  });
});

describe("rule files: the bad field is named", () => {
  const errorOf = (input: unknown) => {
    try {
      parseToolRules(input);
      return "parsed";
    } catch (error) {
      return (error as Error).message;
    }
  };
  it("missing max on MaxCalls", () => {
    expect(errorOf([{ type: "MaxCalls", tool: "api" }])).toBe(
      'invalid tool rules: rule 0 (MaxCalls on api): field "max" is required (a whole number, 0 or more)',
    );
  });
  it("unknown type, stray field, negative max, missing tool", () => {
    expect(errorOf([{ type: "Maxcalls", tool: "api", max: 1 }])).toMatch(
      /^invalid tool rules: rule 0 \(Maxcalls on api\): unknown rule type "Maxcalls"; known types: NoHeartbeat, /,
    );
    expect(errorOf([{ type: "Terminal", tool: "x", max: 1 }])).toBe('invalid tool rules: rule 0 (Terminal on x): field "max" is not part of a Terminal rule');
    expect(errorOf([{ type: "MaxCalls", tool: "a", max: -1 }])).toBe('invalid tool rules: rule 0 (MaxCalls on a): field "max" must not be negative');
    expect(errorOf([{ type: "Terminal" }])).toBe('invalid tool rules: rule 0 (Terminal): field "tool" is required (a tool name, or "*")');
  });
});

describe("execution outcomes as the model reads them", () => {
  it("pins the failure, timeout, cancel and abandon sentences", () => {
    expect(messages.execution.failed("api", "HTTP 500")).toBe("Error: api failed: HTTP 500");
    expect(messages.execution.timedOut("api", messages.abortCauses.timeout(500))).toBe("Error: api timed out after 500 ms");
    expect(messages.execution.didNotRun("api", messages.abortCauses.run())).toBe("Cancelled: api did not run: the run was cancelled");
    expect(messages.execution.stopped("api", messages.abortCauses.sibling("c1", "db", "boom"))).toBe(
      "Cancelled: api stopped because sibling call c1 (db) in the same batch failed: boom",
    );
    expect(messages.execution.abandoned("api", messages.abortCauses.timeout(50), 1000, true)).toBe(
      "Error: api timed out after 50 ms and did not stop within 1000 ms of its abort signal; it was abandoned",
    );
    expect(messages.execution.notRegistered("ghost")).toBe('Error: tool "ghost" is not registered with the guard');
  });

  it("a failing tool's ToolMessage, through the agent", async () => {
    const broken = defineTool({ name: "broken", description: "Fails", schema: z.object({}), risk: "low", execute: () => { throw new Error("disk full"); } });
    const model = fakeModel().respondWithTools([{ name: "broken", args: {}, id: "b" }]).respond(new AIMessage("sorry"));
    const graph = createGuardedAgent({ model, tools: [broken], checkpointer: new MemorySaver() });
    const out = await graph.invoke({ messages: [new HumanMessage("go")] }, thread("exec"));
    expect(toolText(out.messages, "b")).toBe("Error: broken failed: disk full");
  });
});

describe("limit endings", () => {
  it("pins the run-ending message and the error text", () => {
    expect(messages.limitEndings.ended("MaxCalls:api#0", "call limit reached: api may be called at most 1 time per run and was called 1 time")).toBe(
      "Stopped: call limit reached: api may be called at most 1 time per run and was called 1 time (rule MaxCalls:api#0), so this run ends here.",
    );
    expect(messages.limitEndings.error("MaxTotalCalls:*#0", "call limit reached: at most 2 calls to all tools together per run, and 2 were made")).toBe(
      "Tool call limit exceeded by rule MaxTotalCalls:*#0: call limit reached: at most 2 calls to all tools together per run, and 2 were made.",
    );
  });
});
