import type { AIMessage } from "@langchain/core/messages";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { Annotation, END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import type { Guard } from "../../src/guard/guard.js";
import { withBoundedArguments } from "../../src/guard/model-step.js";
import { GuardAnnotation } from "../../src/guard/state.js";
import { GuardedToolNode, guardedToolsRoute } from "../../src/guard/tool-node.js";

/**
 * A user's own StateGraph with GuardedToolNode, as docs/guard.md builds it: a model node that
 * checkpoints the model's message with its arguments bounded (`withBoundedArguments`: LangGraph
 * cannot read back a checkpoint nested deeper than 50 levels), the guarded tool node, and
 * `guardedToolsRoute` back to the model.
 */
export function toolNodeGraph(guard: Guard, model: Pick<BaseChatModel, "invoke">) {
  const State = Annotation.Root({ ...MessagesAnnotation.spec, ...GuardAnnotation.spec });
  return new StateGraph(State)
    .addNode("agent", async (state) => ({ messages: [withBoundedArguments(await model.invoke(state.messages))] }))
    .addNode("tools", new GuardedToolNode(guard))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", (st) => ((st.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END), ["tools", END])
    .addConditionalEdges("tools", guardedToolsRoute("agent"), ["agent", END])
    .compile({ checkpointer: new MemorySaver() });
}
