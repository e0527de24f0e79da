import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Annotation, Command, END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import fc from "fast-check";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryAuditSink } from "../src/audit/memory.js";
import { createGuardedAgent } from "../src/guard/agent.js";
import { pendingApproval } from "../src/guard/approval/payload.js";
import { Guard } from "../src/guard/guard.js";
import { GuardAnnotation } from "../src/guard/state.js";
import { GuardedToolNode, guardedToolsRoute } from "../src/guard/tool-node.js";
import { ruleReasons, usage } from "../src/messages/index.js";
import { guardMiddleware } from "../src/middleware/index.js";
import { parsePolicy } from "../src/policy/file.js";
import { ToolRulesEngine as RuleEngine } from "../src/rules/engine.js";
import { parseToolRules } from "../src/rules/schema.js";
import type { ToolRule } from "../src/rules/types.js";
import { defineTool } from "../src/tools/define-tool.js";
import type { AnyTool } from "../src/tools/types.js";

/**
 * Issue 17, Build 2: tool rules may ask, not only refuse (`onViolation: "ask"`). Each test tries to
 * get a call that breaks an asking rule to run without a human, and checks that a refusing rule
 * still refuses.
 */

const thread = (id: string) => ({ configurable: { thread_id: id } });
const toolMessages = (messages: BaseMessage[]) => messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));

function tools(ran: string[]): AnyTool[] {
  const fetch = defineTool({ name: "fetch", description: "Fetch a page", risk: "low", schema: z.object({ url: z.string() }), execute: ({ url }) => (ran.push(`fetch:${url}`), "page") });
  const login = defineTool({ name: "login", description: "Log in", risk: "low", schema: z.object({}), execute: () => (ran.push("login"), "ok") });
  return [fetch, login];
}

const rules: ToolRule[] = [{ id: "two-fetches", tool: "fetch", type: "MaxCalls", max: 2, onViolation: "ask" }];
const three = [1, 2, 3].map((i) => ({ name: "fetch", args: { url: `u${i}` }, id: `f${i}` }));

function asked(result: unknown): { toolCallId: string; ruleId: string; reason: string }[] {
  return (pendingApproval(result)?.actionRequests ?? []).map((a) => ({ toolCallId: a.toolCallId, ruleId: a.ruleId, reason: a.reason }));
}

const MAX_REASON = ruleReasons.maxCalls("fetch", 2, 2, "run");

describe("onViolation: ask in the rule engine", () => {
  it("a call past an asking limit is a violation that asks; a refusing rule on the same call wins", () => {
    const engine = new RuleEngine(rules);
    let state = engine.initialState(0);
    for (const id of ["a", "b"]) state = engine.record(state, { tool: "fetch", callId: id, success: true, at: 0 });
    expect(engine.checkCall(state, { tool: "fetch" }, 0)).toMatchObject({ ruleId: "two-fetches", onViolation: "ask", max: 2, current: 2 });
    // The tool stays offered to the model: calling it asks, it is not hidden.
    expect(engine.allowedTools(state, ["fetch"], 0)).toEqual([{ name: "fetch" }]);
    const both = new RuleEngine([...rules, { id: "hard", tool: "fetch", type: "MaxCalls", max: 2 }]);
    const refused = both.checkCall(state, { tool: "fetch" }, 0);
    expect(refused).toMatchObject({ ruleId: "hard" });
    expect(refused?.onViolation).toBeUndefined();
    expect(both.allowedTools(state, ["fetch"], 0)).toEqual([]);
  });

  it("an asking InitialCall or ChildTools rule forces nothing; a refusing one still does", () => {
    const asking = new RuleEngine([{ tool: "login", type: "InitialCall", onViolation: "ask" }]);
    expect(asking.forcedTool(asking.initialState(0), 0)).toBeNull();
    expect(asking.checkCall(asking.initialState(0), { tool: "fetch" }, 0)).toMatchObject({ ruleType: "InitialCall", onViolation: "ask" });
    const refusing = new RuleEngine([{ tool: "login", type: "InitialCall" }]);
    expect(refusing.forcedTool(refusing.initialState(0), 0)?.tool).toBe("login");
  });

  it("an asking AllowedOperations rule does not narrow the operations offered", () => {
    const engine = new RuleEngine([{ tool: "db", type: "AllowedOperations", operations: ["read"], onViolation: "ask" }]);
    expect(engine.allowedOperations("db")).toBeUndefined();
    expect(engine.checkCall(engine.initialState(0), { tool: "db", operation: "drop" }, 0)).toMatchObject({ onViolation: "ask", allowedOperations: ["read"] });
  });

  it("onViolation is refused where it has no meaning, and with exitBehavior end or error", () => {
    expect(() => new RuleEngine([{ tool: "fetch", type: "Terminal", onViolation: "ask" }])).toThrow(/onViolation has no meaning for Terminal/);
    expect(() => new RuleEngine([{ tool: "fetch", type: "MaxCalls", max: 1, exitBehavior: "end", onViolation: "ask" }])).toThrow(/cannot be combined with exitBehavior "end"/);
    expect(() => parseToolRules([{ tool: "fetch", type: "MaxCalls", max: 1, onViolation: "maybe" }])).toThrow(/onViolation/);
  });

  it("the usage sentence says a human is asked (exact text)", () => {
    const engine = new RuleEngine(rules);
    expect(engine.usageLines()).toEqual([usage.asksInstead(usage.maxCalls("`fetch`", 2, "run"))]);
    expect(usage.asksInstead("X")).toBe("X; a call that breaks this rule waits for a human's approval instead of being refused");
  });

  it("property: a call breaking only asking rules never runs unasked; with any refusing rule broken it is refused", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 5 }), async (askMax, refuseMax, done) => {
        const guard = new Guard({
          tools: tools([]),
          rules: [
            { id: "ask", tool: "fetch", type: "MaxCalls", max: askMax, onViolation: "ask" },
            { id: "refuse", tool: "fetch", type: "MaxCalls", max: refuseMax + askMax },
          ],
        });
        let state = guard.initialRuleState();
        for (let i = 0; i < done; i++) state = guard.engine.record(state, { tool: "fetch", callId: `d${i}`, success: true, at: 0 });
        const { reviewed } = await guard.reviewTurn(state, [{ id: "c", name: "fetch", args: { url: "x" } }]);
        const expected = done >= refuseMax + askMax ? ["refuse", "rule:refuse"] : done >= askMax ? ["ask", "rule:ask"] : ["run", "risk:low"];
        expect([reviewed[0]?.outcome, reviewed[0]?.ruleId]).toEqual(expected);
      }),
      { numRuns: 120 },
    );
  });
});

describe("onViolation: ask beside permission asks", () => {
  it("a permission rule that asks too keeps its id and adds the tool rule's sentence; a deny still refuses", async () => {
    const { PermissionPolicy } = await import("../src/policy/permissions.js");
    let state = new Guard({ tools: tools([]), rules }).initialRuleState();
    const make = (mode: "ask" | "deny") => new Guard({ tools: tools([]), rules, permissions: new PermissionPolicy([{ id: "fetch", tool: "fetch", mode, reason: "fetches are reviewed" }]) });
    const guard = make("ask");
    for (const id of ["a", "b"]) state = guard.engine.record(state, { tool: "fetch", callId: id, success: true, at: 0 });
    const { reviewed } = await guard.reviewTurn(state, [{ id: "c", name: "fetch", args: { url: "x" } }]);
    expect(reviewed[0]).toMatchObject({ outcome: "ask", ruleId: "permission:fetch", reason: `fetches are reviewed; ${MAX_REASON}`, askedRule: "two-fetches" });
    const denied = await make("deny").reviewTurn(state, [{ id: "c", name: "fetch", args: { url: "x" } }]);
    expect(denied.reviewed[0]).toMatchObject({ outcome: "refuse", ruleId: "permission:fetch" });
  });
});

describe("onViolation: ask through the approval flow at every entry point", () => {
  it("createGuardedAgent: the third fetch asks naming the rule; approved it runs, rejected it does not", async () => {
    for (const decision of ["approve", "reject"] as const) {
      const ran: string[] = [];
      const audit = new MemoryAuditSink();
      const model = fakeModel().respondWithTools(three).respond(new AIMessage("done"));
      const agent = createGuardedAgent({ model, tools: tools(ran), rules, audit, checkpointer: new MemorySaver() });
      const first = await agent.invoke({ messages: [new HumanMessage("read three pages")] }, thread(`agent-${decision}`));
      expect(asked(first)).toEqual([{ toolCallId: "f3", ruleId: "rule:two-fetches", reason: MAX_REASON }]);
      expect(ran).toEqual([]);
      const out = await agent.invoke(new Command({ resume: { decisions: [{ type: decision }] } }), thread(`agent-${decision}`));
      expect(ran).toEqual(decision === "approve" ? ["fetch:u1", "fetch:u2", "fetch:u3"] : ["fetch:u1", "fetch:u2"]);
      const statuses = toolMessages((out as { messages: BaseMessage[] }).messages).map((m) => [m.tool_call_id, m.status ?? "success"]);
      expect(statuses.sort()).toEqual([["f1", "success"], ["f2", "success"], ["f3", decision === "approve" ? "success" : "error"]]);
      const records = (await audit.query({ threadId: `agent-${decision}` })).filter((r) => r.toolCallId === "f3" && r.event !== "outcome");
      expect(records[0]).toMatchObject({ decision: "ask", ruleId: "rule:two-fetches", reason: MAX_REASON });
    }
  });

  it("GuardedToolNode in a user's graph asks for the call past the limit and runs it once approved", async () => {
    const ran: string[] = [];
    const model = fakeModel().respondWithTools(three).respond(new AIMessage("done"));
    const State = Annotation.Root({ ...MessagesAnnotation.spec, ...GuardAnnotation.spec });
    const graph = new StateGraph(State)
      .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
      .addNode("tools", new GuardedToolNode({ tools: tools(ran), rules }))
      .addEdge(START, "agent")
      .addConditionalEdges("agent", (s) => ((s.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END), ["tools", END])
      .addConditionalEdges("tools", guardedToolsRoute("agent"), ["agent", END])
      .compile({ checkpointer: new MemorySaver() });
    const first = await graph.invoke({ messages: [new HumanMessage("go")] }, thread("node"));
    expect(asked(first)).toEqual([{ toolCallId: "f3", ruleId: "rule:two-fetches", reason: MAX_REASON }]);
    expect(ran).toEqual([]);
    await graph.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), thread("node"));
    expect(ran).toEqual(["fetch:u1", "fetch:u2", "fetch:u3"]);
  });

  it("guardMiddleware asks for the call past the limit; approved it runs, rejected it never runs", async () => {
    for (const decision of ["approve", "reject"] as const) {
      const ran: string[] = [];
      const model = fakeModel().respondWithTools(three).respond(new AIMessage("done"));
      const agent = createAgent({ model, middleware: [guardMiddleware({ tools: tools(ran), rules })], checkpointer: new MemorySaver() });
      const first = await agent.invoke({ messages: [new HumanMessage("go")] }, thread(`mw-${decision}`));
      expect(asked(first)).toEqual([{ toolCallId: "f3", ruleId: "rule:two-fetches", reason: MAX_REASON }]);
      expect(ran).toEqual([]);
      await agent.invoke(new Command({ resume: { decisions: [{ type: decision }] } }), thread(`mw-${decision}`));
      expect(ran).toEqual(decision === "approve" ? ["fetch:u1", "fetch:u2", "fetch:u3"] : ["fetch:u1", "fetch:u2"]);
    }
  });

  it("an asking MustFollow rule: the call before its prerequisite asks instead of being refused", async () => {
    const ran: string[] = [];
    const model = fakeModel().respondWithTools([{ name: "fetch", args: { url: "private" }, id: "p1" }]).respond(new AIMessage("done"));
    const agent = createGuardedAgent({ model, tools: tools(ran), rules: [{ id: "login-first", tool: "fetch", type: "MustFollow", conditions: ["login"], onViolation: "ask" }], checkpointer: new MemorySaver() });
    const first = await agent.invoke({ messages: [new HumanMessage("go")] }, thread("follow"));
    expect(asked(first)).toEqual([{ toolCallId: "p1", ruleId: "rule:login-first", reason: expect.stringContaining("login") }]);
    expect(ran).toEqual([]);
    await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), thread("follow"));
    expect(ran).toEqual(["fetch:private"]);
  });
});

describe("onViolation in a policy file", () => {
  it("loads from YAML, and names the field when it is misplaced", () => {
    const policy = parsePolicy("version: 1\ntool_rules:\n  - { id: two, tool: fetch, type: MaxCalls, max: 2, onViolation: ask }\n", "yaml", "p.yaml");
    expect(policy.toolRules).toEqual([{ id: "two", tool: "fetch", type: "MaxCalls", max: 2, onViolation: "ask" }]);
    expect(() => parsePolicy("version: 1\ntool_rules:\n  - { tool: fetch, type: Terminal, onViolation: ask }\n", "yaml", "p.yaml")).toThrow(/onViolation: has no meaning for Terminal/);
    expect(() => parsePolicy("version: 1\ntool_rules:\n  - { tool: fetch, type: MaxCalls, max: 1, exitBehavior: end, onViolation: ask }\n", "yaml", "p.yaml")).toThrow(/ask cannot be combined with exitBehavior end/);
  });
});
