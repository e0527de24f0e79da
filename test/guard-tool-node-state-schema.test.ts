// Issue 16 follow-up: users of LangGraph's StateSchema (not Annotation) add the guard's channels
// with `...GuardStateFields` (from the package root; no langchain import needed) and GuardedToolNode
// keeps its rule state across turns: MaxCalls 1 holds.
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { END, MemorySaver, MessagesValue, START, StateGraph, StateSchema } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, GuardedToolNode, guardedToolsRoute, GuardStateFields } from "../src/index.js";
import { GuardMiddlewareState } from "../src/middleware/index.js";
import { createPingGraph } from "../examples/state-schema-tool-node.js";

const toolMessages = (messages: BaseMessage[]) => messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));

function graphWith(model: ReturnType<typeof fakeModel>, ran: string[], scope: "run" | "thread") {
  const ping = defineTool({ name: "ping", description: "p", schema: z.object({ n: z.number() }), risk: "low", execute: ({ n }) => (ran.push(`ping ${n}`), `pong ${n}`) });
  const State = new StateSchema({ messages: MessagesValue, ...GuardStateFields });
  const tools = new GuardedToolNode({ tools: [ping], rules: [{ id: "once", type: "MaxCalls", tool: "ping", max: 1, scope }] });
  return new StateGraph(State)
    .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
    .addNode("tools", tools)
    .addEdge(START, "agent")
    .addConditionalEdges("agent", (s) => ((s.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END), ["tools", END])
    .addConditionalEdges("tools", guardedToolsRoute("agent"), ["agent", END])
    .compile({ checkpointer: new MemorySaver() });
}

describe("GuardedToolNode in a StateSchema graph", () => {
  it("MaxCalls 1 holds across two model turns of a run: the second call is refused, the tool ran once", async () => {
    const ran: string[] = [];
    const model = fakeModel()
      .respondWithTools([{ name: "ping", args: { n: 1 }, id: "p1" }])
      .respondWithTools([{ name: "ping", args: { n: 2 }, id: "p2" }])
      .respond(new AIMessage("done"));
    const graph = graphWith(model, ran, "run");
    const out = await graph.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: "ss-run" } });
    expect(ran).toEqual(["ping 1"]);
    const byId = Object.fromEntries(toolMessages(out.messages).map((m) => [m.tool_call_id, String(m.content)]));
    expect(byId.p1).toBe("pong 1");
    expect(byId.p2).toMatch(/once/);
    expect(byId.p2).not.toMatch(/^pong/);
    expect(out.guard.rules?.runCounts).toMatchObject({ ping: 1 });
  });

  it("MaxCalls 1 per thread holds across two invokes of the thread (the rule state is checkpointed)", async () => {
    const ran: string[] = [];
    const model = fakeModel()
      .respondWithTools([{ name: "ping", args: { n: 1 }, id: "q1" }])
      .respond(new AIMessage("first done"))
      .respondWithTools([{ name: "ping", args: { n: 2 }, id: "q2" }])
      .respond(new AIMessage("second done"));
    const graph = graphWith(model, ran, "thread");
    const config = { configurable: { thread_id: "ss-thread" } };
    await graph.invoke({ messages: [new HumanMessage("one")] }, config);
    const out = await graph.invoke({ messages: [new HumanMessage("two")] }, config);
    expect(ran).toEqual(["ping 1"]);
    const q2 = toolMessages(out.messages).find((m) => m.tool_call_id === "q2");
    expect(String(q2?.content)).toMatch(/once/);
    expect(out.messages.at(-1)?.content).toBe("second done");
  });

  it("the middleware's state is built from the same fields (one list of guard channels)", () => {
    expect(Object.keys(GuardStateFields).sort()).toEqual(["guard", "guardResults"]);
    for (const [name, field] of Object.entries(GuardStateFields)) expect(GuardMiddlewareState.fields[name as keyof typeof GuardStateFields]).toBe(field);
  });

  it("examples/state-schema-tool-node.ts: the second ping of the thread is refused, in the same run and in the next", async () => {
    const ran: string[] = [];
    const model = fakeModel()
      .respondWithTools([{ name: "ping", args: { host: "a" }, id: "a1" }])
      .respondWithTools([{ name: "ping", args: { host: "b" }, id: "b1" }])
      .respond(new AIMessage("done"))
      .respondWithTools([{ name: "ping", args: { host: "c" }, id: "c1" }])
      .respond(new AIMessage("done again"));
    const graph = createPingGraph(model, ran);
    const config = { configurable: { thread_id: "example" } };
    const first = await graph.invoke({ messages: [new HumanMessage("ping twice")] }, config);
    expect(String(toolMessages(first.messages).find((m) => m.tool_call_id === "b1")?.content)).toBe(
      "Refused ping by MaxCalls rule one-ping: call limit reached: ping may be called at most 1 time per thread and was called 1 time. Allowed now: no tool.",
    );
    const second = await graph.invoke({ messages: [new HumanMessage("once more")] }, config);
    expect(String(toolMessages(second.messages).find((m) => m.tool_call_id === "c1")?.content)).toMatch(/^Refused ping by MaxCalls rule one-ping/);
    expect(ran).toEqual(["a"]);
  });
});
