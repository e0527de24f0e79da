import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { AIMessage } from "@langchain/core/messages";
import { Annotation, END, MessagesAnnotation, START, StateGraph, type BaseCheckpointSaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { createGuardedAgent } from "../../src/guard/agent.js";
import { GuardAnnotation } from "../../src/guard/state.js";
import { GuardedToolNode, guardedToolsRoute } from "../../src/guard/tool-node.js";
import { guardMiddleware } from "../../src/middleware/index.js";

/** The three ways to run the guard: createGuardedAgent, LangChain's createAgent with guardMiddleware, a StateGraph with GuardedToolNode. */
export type Entry = "agent" | "middleware" | "node";

/** The same model, tools and guard options behind one entry point (the StateGraph: model node ⇄ GuardedToolNode). */
export function entryGraph(entry: Entry, model: BaseChatModel, guarded: Parameters<typeof guardMiddleware>[0] & ConstructorParameters<typeof GuardedToolNode>[0], checkpointer: BaseCheckpointSaver): unknown {
  if (entry === "agent") return createGuardedAgent({ model, ...guarded, checkpointer } as Parameters<typeof createGuardedAgent>[0]);
  if (entry === "middleware") return createAgent({ model, middleware: [guardMiddleware(guarded)], checkpointer });
  const State = Annotation.Root({ ...MessagesAnnotation.spec, ...GuardAnnotation.spec });
  return new StateGraph(State)
    .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
    .addNode("tools", new GuardedToolNode(guarded))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", (s) => ((s.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END), ["tools", END])
    .addConditionalEdges("tools", guardedToolsRoute("agent"), ["agent", END])
    .compile({ checkpointer });
}
