// What a LangChain v1 tool reads from its second argument (ToolRuntime) when LangChain's ToolNode runs
// it: the call's id, the graph state, the run's context, the store and the stream writer. Run by the
// guard, a tool read `runtime.state` as undefined under guardMiddleware (a tool that reads the
// conversation or custom state failed there).
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { InMemoryStore } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { build, ENTRIES, messagesOf, newThread } from "./helpers/provider-agent.js";

interface SeenRuntime {
  toolCallId?: unknown;
  state?: { messages?: unknown[] };
  context?: unknown;
  writer?: unknown;
}

describe.each(ENTRIES)("%s", (entry) => {
  it("a tool's runtime has the call id, the graph state and the run's context", async () => {
    const seen: SeenRuntime[] = [];
    const who = tool(
      (_input, runtime) => {
        seen.push(runtime as SeenRuntime);
        return "ok";
      },
      { name: "who", description: "Who am I", schema: z.object({}) },
    );
    const { graph } = build(entry, { tools: [who], replies: [[{ name: "who", args: {}, id: "w1" }], "done"], guard: { defaultRisk: "low" } });
    const config = { ...newThread(`runtime-${entry}`), context: { userId: "u1" }, store: new InMemoryStore() };
    const out = await graph.invoke({ messages: [new HumanMessage("who?")] }, config);
    expect(messagesOf(out).filter((m) => ToolMessage.isInstance(m)).map((m) => m.content)).toEqual(["ok"]);
    const runtime = seen[0];
    expect(runtime?.toolCallId).toBe("w1");
    // The state as the tools step reads it: the user's message and the model's call.
    expect(runtime?.state?.messages?.length).toBeGreaterThanOrEqual(2);
    expect(runtime?.context).toEqual({ userId: "u1" });
    expect(typeof runtime?.writer).toBe("function");
  });
});
