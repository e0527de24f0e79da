// What LangGraph users write first and what it did:
//  - permission rules given as a list (`permissions: [{ tool: "deploy", mode: "ask" }]`, as a Letta
//    user writes RequiresApprovalToolRule, or as `rules` takes tool rules): the graph was built and
//    crashed at the first call with "permissions?.decide is not a function";
//  - GuardedToolNode handed to LangGraph's createReactAgent as its ToolNode: "Cannot read properties
//    of undefined (reading 'filter')"; and in a graph shaped like it (a fixed edge back to the model),
//    a partial answer to an approval called the model with a call still unanswered (a provider's 400).
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { Annotation, Command, END, MemorySaver, MessagesAnnotation, Send, START, StateGraph } from "@langchain/langgraph";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Guard, GuardAnnotation, GuardConfigError, GuardedToolNode, PermissionPolicy, PolicyError, createGuardedAgent, guardedToolsRoute } from "../src/index.js";
import { guardMiddleware } from "../src/middleware/index.js";
import type { ApprovalRequest, PermissionRule } from "../src/index.js";
import { build, ENTRIES, newThread, providerModel, say, toolText } from "./helpers/provider-agent.js";
import { deployTool, readFileTool } from "./helpers/ops-tools.js";
import { fakeModel } from "@langchain/core/testing";

const interruptsOf = (out: Record<string, unknown>) => (out.__interrupt__ as { id: string; value: ApprovalRequest }[] | undefined) ?? [];

describe.each(ENTRIES)("permission rules given as a list (%s)", (entry) => {
  it("an ask rule asks, a deny rule refuses, an allow rule runs a high-risk tool: as the same rules in a PermissionPolicy", async () => {
    const ran: string[] = [];
    const permissions: PermissionRule[] = [
      { id: "no-rm", tool: "read_file", where: { path: { prefix: "/etc" } }, mode: "deny", reason: "not /etc" },
      { id: "ask-read", tool: "read_file", mode: "ask" },
      { id: "web-ok", tool: "deploy", where: { service: { equals: "web" } }, mode: "allow" },
    ];
    const { graph, refusals } = build(entry, {
      tools: [readFileTool(ran), deployTool(ran)],
      replies: [[{ name: "read_file", args: { path: "/etc/shadow" }, id: "r1" }, { name: "deploy", args: { service: "web" }, id: "d1" }, { name: "read_file", args: { path: "notes" }, id: "r2" }], "done"],
      guard: { permissions },
    });
    const config = newThread(`list-${entry}`);
    const paused = await graph.invoke(say("go"), config);
    const asked = interruptsOf(paused).flatMap((i) => i.value.actionRequests.map((a) => `${a.name} ${JSON.stringify(a.args)}`));
    expect(asked).toEqual([expect.stringMatching(/^read_file \{"path":"notes"\}/)]);
    // The turn waits for the answer: nothing of it runs before.
    expect(ran).toEqual([]);
    const out = await graph.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), config);
    expect(ran).toEqual(["deploy web staging", "read notes"]);
    expect(toolText(out.messages as never).r1).toMatch(/not \/etc/);
    expect(refusals).toEqual([]);
  });
});

describe("permission rules given as a list: checked when the guard is built", () => {
  const tools = () => [readFileTool([]), deployTool([])];
  it("a list is built into a PermissionPolicy, whose decisions the guard uses", () => {
    const guard = new Guard({ tools: tools(), permissions: [{ tool: "deploy", mode: "deny" }] });
    expect(guard.options.permissions).toBeInstanceOf(PermissionPolicy);
    expect(guard.options.permissions?.decide("deploy", { service: "web" }).mode).toBe("deny");
  });

  it("an invalid rule stops the build with the policy's own error, naming the rule", () => {
    expect(() => new Guard({ tools: tools(), permissions: [{ tool: "deploy", mode: "maybe" } as never] })).toThrow(PolicyError);
    expect(() => new Guard({ tools: tools(), permissions: [{ tool: "deploy", mode: "maybe" } as never] })).toThrow(/permissions\[0\]|mode/);
  });

  it("a rule on a tool the guard does not have stops the build as it does for a PermissionPolicy", () => {
    expect(() => new Guard({ tools: tools(), permissions: [{ tool: "delpoy", mode: "deny" }] })).toThrow(/delpoy/);
  });

  it.each([
    ["an object without decide", { rules: [] }],
    ["a string", "permissions.yaml"],
    ["null", null],
  ])("%s is refused when the guard is built, on every entry point, not at the first call", (_label, value) => {
    const bad = { tools: tools(), permissions: value as never };
    expect(() => new Guard(bad)).toThrow(GuardConfigError);
    expect(() => new Guard(bad)).toThrow(/permissions must be a PermissionPolicy .*, a list of permission rules, or an object with a decide\(tool, args\) method/);
    expect(() => new GuardedToolNode(bad)).toThrow(GuardConfigError);
    expect(() => guardMiddleware(bad)).toThrow(GuardConfigError);
    expect(() => createGuardedAgent({ model: fakeModel(), ...bad })).toThrow(GuardConfigError);
  });

  it("shadowPermissions takes a list too: audited as what it would decide, never enforced", async () => {
    const guard = new Guard({ tools: tools(), permissions: [{ tool: "read_file", mode: "allow" }], shadowPermissions: [{ tool: "read_file", mode: "deny" }] });
    expect(guard.shadowPermissions).toBeInstanceOf(PermissionPolicy);
    const { reviewed: [reviewed] } = await guard.reviewTurn(guard.initialRuleState(), [{ id: "r1", name: "read_file", args: { path: "a" } }]);
    expect(reviewed?.outcome).toBe("run");
    expect(reviewed?.shadow?.decision).toBe("deny");
  });
});

describe("GuardedToolNode and LangGraph's createReactAgent", () => {
  const tools = (ran: string[]) => [
    tool(({ q }) => (ran.push(`a ${q}`), `a ${q}`), { name: "a_tool", description: "a", schema: z.object({ q: z.string() }) }),
    tool(({ q }) => (ran.push(`b ${q}`), `b ${q}`), { name: "b_tool", description: "b", schema: z.object({ q: z.string() }) }),
  ];
  const State = Annotation.Root({ ...MessagesAnnotation.spec, ...GuardAnnotation.spec });

  it.each(["v1", "v2"] as const)("createReactAgent({ tools: guardedToolNode, version: %s }) stops at the build and names what to use", (version) => {
    const node = new GuardedToolNode({ tools: tools([]), defaultRisk: "low" });
    const llm = providerModel(["done"], [], []);
    const attempt = () => createReactAgent({ llm, tools: node as never, stateSchema: State, checkpointer: new MemorySaver(), version });
    expect(attempt).toThrow(GuardConfigError);
    expect(attempt).toThrow(/cannot be the tool node of LangGraph's createReactAgent.*createGuardedAgent\(\{ model, tools, \.\.\. \}\).*guardMiddleware.*guardedToolsRoute/);
  });

  it("why: behind a fixed edge back to the model, a partial answer to an approval calls the model with a call unanswered", async () => {
    // The graph createReactAgent builds, with the node in it (what the error above prevents).
    const ran: string[] = [];
    const refusals: string[] = [];
    const llm = providerModel([[{ name: "a_tool", args: { q: "1" }, id: "c1" }, { name: "b_tool", args: { q: "2" }, id: "c2" }], "done"], refusals, []);
    const node = new GuardedToolNode({ tools: tools(ran), permissions: [{ tool: "*", mode: "ask" }], defaultRisk: "low" });
    const graph = new StateGraph(State)
      .addNode("agent", async (s) => ({ messages: [await llm.invoke(s.messages)] }))
      .addNode("tools", node)
      .addEdge(START, "agent")
      .addConditionalEdges("agent", (s) => ((s.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END), ["tools", END])
      .addEdge("tools", "agent")
      .compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "fixed-edge" } };
    await graph.invoke({ messages: [new HumanMessage("go")] }, config);
    await expect(graph.invoke(new Command({ resume: { decisions: [{ type: "approve", toolCallId: "c1" }] } }), config)).rejects.toThrow(/tool calls without a result right after them: c2/);
    expect(refusals).toEqual(["messages.1: tool calls without a result right after them: c2"]);
  });

  it("one Send per call to the node stops at the first such step with what to do, and runs nothing (each task would have answered the whole turn: every call twice)", async () => {
    const ran: string[] = [];
    const llm = providerModel([[{ name: "a_tool", args: { q: "1" }, id: "c1" }, { name: "b_tool", args: { q: "2" }, id: "c2" }], "done"], [], []);
    const node = new GuardedToolNode({ tools: tools(ran), defaultRisk: "low" });
    const graph = new StateGraph(State)
      .addNode("agent", async (s) => ({ messages: [await llm.invoke(s.messages)] }))
      .addNode("tools", node)
      .addEdge(START, "agent")
      .addConditionalEdges("agent", (s) => ((s.messages.at(-1) as AIMessage).tool_calls ?? []).map((call) => new Send("tools", { ...s, lg_tool_call: call })), ["tools"])
      .addConditionalEdges("tools", guardedToolsRoute("agent"), ["agent", END])
      .compile({ checkpointer: new MemorySaver() });
    const error = await graph.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: "sent" } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    const errors = ((error as { errors?: unknown[] } | undefined)?.errors ?? [error]) as unknown[];
    expect(errors.length).toBe(2);
    for (const one of errors) {
      expect(one).toBeInstanceOf(GuardConfigError);
      expect((one as Error).message).toMatch(/reviews the calls of a model message together .* was sent one call \(LangGraph's Send\(\{ \.\.\.state, lg_tool_call \}\)/);
    }
    expect(ran).toEqual([]);
  });
});

