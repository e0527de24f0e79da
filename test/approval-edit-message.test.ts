// An approval edit rewrites the tool call's arguments in the model's message, as LangChain's
// human-in-the-loop middleware does, through all three entry points: the model and a client (Agent
// Chat UI) read the arguments that ran; the model's own arguments stay in the message's metadata
// (additional_kwargs.guard_original_tool_calls) and in the audit log.
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Annotation, Command, END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryAuditSink } from "../src/audit/memory.js";
import { createGuardedAgent } from "../src/guard/agent.js";
import { Guard } from "../src/guard/guard.js";
import { GuardAnnotation } from "../src/guard/state.js";
import { GuardedToolNode, guardedToolsRoute } from "../src/guard/tool-node.js";
import { guardMiddleware } from "../src/middleware/index.js";
import { defineTool } from "../src/tools/define-tool.js";

const ORIGINAL = { name: "api", replicas: 3 };
const EDITED = { name: "worker", replicas: 1 };

function setup() {
  const ran: unknown[] = [];
  const audit = new MemoryAuditSink();
  const scale = defineTool({
    name: "scale",
    description: "Scale a deployment",
    schema: z.object({ name: z.string(), replicas: z.number() }),
    risk: "high",
    execute: (input) => {
      ran.push(input);
      return `scaled ${input.name} to ${input.replicas}`;
    },
  });
  const read = defineTool({ name: "read", description: "Read", schema: z.object({}), risk: "low", execute: () => "read" });
  const guard = new Guard({ tools: [scale, read], audit });
  const model = fakeModel()
    .respondWithTools([
      { name: "scale", args: ORIGINAL, id: "s1" },
      { name: "read", args: {}, id: "r1" },
    ])
    .respond(new AIMessage("done"));
  return { ran, audit, guard, model };
}

interface Invokable {
  invoke(input: unknown, config: unknown): Promise<{ messages: BaseMessage[] }>;
}

async function editThrough(graph: Invokable, id: string): Promise<BaseMessage[]> {
  const config = { configurable: { thread_id: id } };
  await graph.invoke({ messages: [new HumanMessage("scale api")] }, config);
  const out = await graph.invoke(new Command({ resume: { decisions: [{ type: "edit", editedAction: { name: "scale", args: EDITED } }] } }), config);
  return out.messages;
}

async function expectRewritten(messages: BaseMessage[], ran: unknown[], audit: MemoryAuditSink) {
  expect(ran).toEqual([EDITED]);
  const ais = messages.filter((m): m is AIMessage => AIMessage.isInstance(m) && (m.tool_calls?.length ?? 0) > 0);
  // One model message, rewritten in place (same id), not a second copy.
  expect(ais).toHaveLength(1);
  const ai = ais[0] as AIMessage;
  expect(ai.tool_calls?.map((c) => [c.id, c.name, c.args])).toEqual([
    ["s1", "scale", EDITED],
    ["r1", "read", {}],
  ]);
  expect(ai.additional_kwargs.guard_original_tool_calls).toEqual({ s1: { name: "scale", args: ORIGINAL } });
  // Every call answered once, the edited one with the edited run's result.
  const answers = messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
  expect(answers.map((m) => m.tool_call_id).sort()).toEqual(["r1", "s1"]);
  expect(answers.find((m) => m.tool_call_id === "s1")?.content).toBe("scaled worker to 1");
  // The audit keeps the model's arguments (its decision) and the human's edit.
  const records = await audit.query({});
  const decisions = records.filter((r) => r.toolCallId === "s1");
  expect(decisions.some((r) => r.event === "decision" && JSON.parse(r.args).name === "api")).toBe(true);
  expect(decisions.some((r) => JSON.parse(r.args).name === "worker")).toBe(true);
}

describe("an approval edit rewrites the call's arguments in the model's message", () => {
  it("createGuardedAgent", async () => {
    const { ran, audit, guard, model } = setup();
    const graph = createGuardedAgent({ model, guard, checkpointer: new MemorySaver() });
    await expectRewritten(await editThrough(graph as unknown as Invokable, "edit-agent"), ran, audit);
  });

  it("GuardedToolNode in a user's StateGraph", async () => {
    const { ran, audit, guard, model } = setup();
    const State = Annotation.Root({ ...MessagesAnnotation.spec, ...GuardAnnotation.spec });
    const graph = new StateGraph(State)
      .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
      .addNode("tools", new GuardedToolNode(guard))
      .addEdge(START, "agent")
      .addConditionalEdges("agent", (s) => ((s.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END), ["tools", END])
      .addConditionalEdges("tools", guardedToolsRoute("agent"), ["agent", END])
      .compile({ checkpointer: new MemorySaver() });
    await expectRewritten(await editThrough(graph as unknown as Invokable, "edit-node"), ran, audit);
  });

  it("guardMiddleware", async () => {
    const { ran, audit, guard, model } = setup();
    const agent = createAgent({ model, middleware: [guardMiddleware({ guard })], checkpointer: new MemorySaver() });
    await expectRewritten(await editThrough(agent as unknown as Invokable, "edit-mw"), ran, audit);
  });
});
