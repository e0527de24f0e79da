import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Annotation, Command, END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createGuardedAgent } from "../src/guard/agent.js";
import { GuardAnnotation } from "../src/guard/state.js";
import { GuardConfigError } from "../src/errors/index.js";
import { GuardedToolNode, guardedToolsRoute } from "../src/guard/tool-node.js";
import { defineTool } from "../src/tools/define-tool.js";
import { ExecutionLog, k8sTools, prodProtected } from "./helpers/guard-fixtures.js";

const thread = (id: string) => ({ configurable: { thread_id: id } });
const toolMessages = (messages: BaseMessage[]) => messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));

describe("GuardedToolNode in a user's own StateGraph", () => {
  function userGraph(model: ReturnType<typeof fakeModel>, log: ExecutionLog) {
    const State = Annotation.Root({ ...MessagesAnnotation.spec, ...GuardAnnotation.spec });
    const tools = new GuardedToolNode({ tools: k8sTools(log), permissions: prodProtected });
    return new StateGraph(State)
      .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
      .addNode("tools", tools)
      .addEdge(START, "agent")
      .addConditionalEdges("agent", (s) => ((s.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END), ["tools", END])
      .addConditionalEdges("tools", guardedToolsRoute("agent"), ["agent", END])
      .compile({ checkpointer: new MemorySaver() });
  }

  it("runs allowed calls, refuses denied ones and asks for risky ones, in place of ToolNode", async () => {
    const log = new ExecutionLog();
    const model = fakeModel()
      .respondWithTools([
        { name: "kubectl_get", args: { resource: "pods" }, id: "g" },
        { name: "kubectl_delete", args: { resource: "ns", name: "p", namespace: "production" }, id: "p" },
        { name: "kubectl_delete", args: { resource: "deploy", name: "web", namespace: "staging" }, id: "s" },
      ])
      .respond(new AIMessage("finished"));
    const graph = userGraph(model, log);
    const first = await graph.invoke({ messages: [new HumanMessage("tidy")] }, thread("node"));
    const interrupts = (first as { __interrupt__?: { value: { actionRequests: { toolCallId: string }[] } }[] }).__interrupt__;
    expect(interrupts?.[0]?.value.actionRequests.map((a) => a.toolCallId)).toEqual(["s"]);
    expect(log.entries).toHaveLength(0);
    const out = await graph.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), thread("node"));
    expect(log.names()).toEqual(["kubectl_get", "kubectl_delete"]);
    const byId = Object.fromEntries(toolMessages(out.messages).map((m) => [m.tool_call_id, m.status]));
    expect(byId).toEqual({ g: "success", p: "error", s: "success" });
    expect(out.guard.rules?.runCounts).toMatchObject({ kubectl_get: 1, kubectl_delete: 1 });
    expect(out.messages.at(-1)?.content).toBe("finished");
  });
});

describe("heartbeat mode", () => {
  const echo = (calls: string[]) =>
    defineTool({
      name: "note",
      description: "Write a note",
      schema: z.object({ text: z.string() }),
      risk: "low",
      execute: (input) => {
        calls.push(input.text);
        return "noted";
      },
    });
  const quick = defineTool({ name: "ping", description: "Ping", schema: z.object({}), risk: "low", execute: () => "pong" });

  it("adds request_heartbeat to tools that need it, and continues only when a call asks", async () => {
    const calls: string[] = [];
    const model = fakeModel()
      .respondWithTools([{ name: "note", args: { text: "one", request_heartbeat: true }, id: "h1" }])
      .respondWithTools([{ name: "note", args: { text: "two", request_heartbeat: false }, id: "h2" }])
      .respond(new AIMessage("never reached"));
    const bound: unknown[] = [];
    const original = model.bindTools.bind(model);
    model.bindTools = (tools: Parameters<typeof original>[0]) => {
      bound.push(tools);
      return original(tools);
    };
    const graph = createGuardedAgent({
      model,
      tools: [echo(calls), quick],
      heartbeat: true,
      rules: [{ tool: "ping", type: "NoHeartbeat" }],
      checkpointer: new MemorySaver(),
    });
    const out = await graph.invoke({ messages: [new HumanMessage("take notes")] }, thread("hb"));
    expect(calls).toEqual(["one", "two"]);
    expect(model.callCount).toBe(2);
    expect(out.messages.at(-1)).toBeInstanceOf(ToolMessage);
    const defs = bound[0] as { function: { name: string; parameters: { properties: Record<string, unknown> } } }[];
    const props = (name: string) => defs.find((d) => d.function.name === name)?.function.parameters.properties ?? {};
    expect(props("note")).toHaveProperty("request_heartbeat");
    expect(props("ping")).not.toHaveProperty("request_heartbeat");
  });

  it("a ContinueLoop tool keeps the loop going without a heartbeat", async () => {
    const calls: string[] = [];
    const model = fakeModel()
      .respondWithTools([{ name: "note", args: { text: "a" }, id: "c1" }])
      .respond(new AIMessage("summary"));
    const graph = createGuardedAgent({
      model,
      tools: [echo(calls)],
      heartbeat: true,
      rules: [{ tool: "note", type: "ContinueLoop" }],
      checkpointer: new MemorySaver(),
    });
    const out = await graph.invoke({ messages: [new HumanMessage("x")] }, thread("cl"));
    expect(out.messages.at(-1)?.content).toBe("summary");
  });
});

describe("GuardedToolNode without the guard's state channels", () => {
  // Routed with a plain edge, the graph compiles (only guardedToolsRoute's type checks the state:
  // test/guard-tool-node-types.test.ts); the first run is the backstop.
  it("refuses to run and says what to add (else MaxCalls 1 would let a tool run twice)", async () => {
    const log = new ExecutionLog();
    const model = fakeModel()
      .respondWithTools([{ name: "kubectl_get", args: { resource: "pods" }, id: "g1" }])
      .respondWithTools([{ name: "kubectl_get", args: { resource: "pods" }, id: "g2" }])
      .respond(new AIMessage("finished"));
    const tools = new GuardedToolNode({ tools: k8sTools(log), rules: [{ type: "MaxCalls", tool: "kubectl_get", max: 1 }] });
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
      .addNode("tools", tools)
      .addEdge(START, "agent")
      .addConditionalEdges("agent", (s) => ((s.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END), ["tools", END])
      .addEdge("tools", "agent")
      .compile();
    const error = await graph.invoke({ messages: [new HumanMessage("go")] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GuardConfigError);
    expect(error).toMatchObject({ code: "GG_ERR_GUARD_CONFIG", message: expect.stringMatching(/add `...GuardAnnotation.spec`/) });
    expect(log.entries).toHaveLength(0);
  });
});
