// A LangChain tool with `returnDirect: true` ends the run once it succeeded: LangChain's createAgent
// and LangGraph's createReactAgent return its result without calling the model again. The guarded
// agent called the model again ("model spoke again" below) on every entry point but the middleware.
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { build, ENTRIES, messagesOf, newThread } from "./helpers/provider-agent.js";

function tools(ran: string[]) {
  const lookup = tool(
    ({ q }) => {
      ran.push(`lookup ${q}`);
      if (q === "fail") throw new Error("no such entry");
      return `answer to ${q}`;
    },
    { name: "lookup", description: "Look up an answer", schema: z.object({ q: z.string() }), returnDirect: true },
  );
  const note = tool(({ q }) => (ran.push(`note ${q}`), `noted ${q}`), { name: "note", description: "Take a note", schema: z.object({ q: z.string() }) });
  return [lookup, note];
}

const texts = (out: Record<string, unknown>) => messagesOf(out).map((m) => `${m.getType()}:${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}`);

describe.each(ENTRIES)("%s", (entry) => {
  it("the run ends with the returnDirect tool's result; the next input goes on", async () => {
    const ran: string[] = [];
    const { graph, modelInputs } = build(entry, {
      tools: tools(ran),
      replies: [[{ name: "note", args: { q: "a" }, id: "n1" }], [{ name: "lookup", args: { q: "b" }, id: "l1" }], "model spoke again", "second run"],
      guard: { defaultRisk: "low" },
    });
    const config = newThread("return-direct");
    const out = await graph.invoke({ messages: [new HumanMessage("find b")] }, config);
    expect(ran).toEqual(["note a", "lookup b"]);
    expect(texts(out).at(-1)).toBe("tool:answer to b");
    expect(modelInputs.length).toBe(2);
    const next = await graph.invoke({ messages: [new HumanMessage("and now?")] }, config);
    expect(texts(next).at(-1)).toBe("ai:model spoke again");
  });

  it("a returnDirect tool that fails does not end the run: the model reads the error", async () => {
    const ran: string[] = [];
    const { graph } = build(entry, {
      tools: tools(ran),
      replies: [[{ name: "lookup", args: { q: "fail" }, id: "l1" }], "could not find it"],
      guard: { defaultRisk: "low" },
    });
    const out = await graph.invoke({ messages: [new HumanMessage("find")] }, newThread("return-direct-fail"));
    const failed = messagesOf(out).find((m): m is ToolMessage => ToolMessage.isInstance(m));
    expect(failed?.status).toBe("error");
    expect(texts(out).at(-1)).toBe("ai:could not find it");
  });

  it("a Terminal rule of the user's own on that tool is the one in force (no second rule)", async () => {
    const ran: string[] = [];
    const { graph } = build(entry, {
      tools: tools(ran),
      replies: [[{ name: "lookup", args: { q: "b" }, id: "l1" }], "model spoke again"],
      guard: { defaultRisk: "low", rules: [{ tool: "lookup", type: "Terminal", id: "mine" }] },
    });
    const out = await graph.invoke({ messages: [new HumanMessage("find b")] }, newThread("return-direct-own"));
    expect(texts(out).at(-1)).toBe("tool:answer to b");
  });
});
