// GuardedToolNode in a graph whose state is a LangGraph StateSchema: spread GuardStateFields into it.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { END, MemorySaver, MessagesValue, START, StateGraph, StateSchema } from "@langchain/langgraph";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { defineTool, GuardedToolNode, guardedToolsRoute, GuardStateFields } from "guarded-graph";
import { ScriptedChatModel } from "guarded-graph/testing";

export function createPingGraph(model: BaseChatModel, ran: string[]) {
  const ping = defineTool({
    name: "ping",
    description: "Ping a host",
    schema: z.object({ host: z.string() }),
    risk: "low",
    execute: ({ host }) => {
      ran.push(host);
      return `pong from ${host}`;
    },
  });
  // The guard's channels (rule state, the turn's results) are checkpointed with the thread.
  const State = new StateSchema({ messages: MessagesValue, ...GuardStateFields });
  const tools = new GuardedToolNode({ tools: [ping], rules: [{ id: "one-ping", type: "MaxCalls", tool: "ping", max: 1, scope: "thread" }] });
  const bound = model.bindTools?.([ping]) ?? model;
  return new StateGraph(State)
    .addNode("agent", async (state) => ({ messages: [await bound.invoke(state.messages)] }))
    .addNode("tools", tools)
    .addEdge(START, "agent")
    .addConditionalEdges("agent", (state) => ((state.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END), ["tools", END])
    .addConditionalEdges("tools", guardedToolsRoute("agent"), ["agent", END])
    .compile({ checkpointer: new MemorySaver() });
}

// Run directly: two turns ask for a ping; MaxCalls 1 (per thread) lets the first run and refuses the second.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const model = new ScriptedChatModel({
    scenario: {
      name: "state-schema-example",
      turns: [
        { tool_calls: [{ name: "ping", args: { host: "a.example" } }] },
        { tool_calls: [{ name: "ping", args: { host: "b.example" } }] },
        { text: "Done." },
      ],
    },
  });
  const ran: string[] = [];
  const result = await createPingGraph(model, ran).invoke({ messages: [new HumanMessage("ping twice")] }, { configurable: { thread_id: "example" } });
  for (const message of result.messages) console.log(`${message.getType()}: ${message.text}`);
  console.log(`the tool ran for: ${ran.join(", ")}`);
}
