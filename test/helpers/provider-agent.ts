import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Annotation, Command, END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { createAgent } from "langchain";
import { createGuardedAgent } from "../../src/guard/agent.js";
import { heldForApproval, screenRunInput } from "../../src/guard/approval/screening.js";
import type { GuardOptions } from "../../src/guard/options.js";
import { GuardAnnotation } from "../../src/guard/state.js";
import { GuardedToolNode, guardedToolsRoute } from "../../src/guard/tool-node.js";
import { guardMiddleware } from "../../src/middleware/index.js";
import type { AnyTool } from "../../src/tools/types.js";

/**
 * A user's agent on each of the three entry points, driven by a scripted model that refuses a
 * history the chat providers refuse: the OpenAI chat API answers 400 ("An assistant message with
 * 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'") and Anthropic
 * answers 400 ("tool_use ids were found without tool_result blocks immediately after") when a model
 * call's input has a tool call without its result right after it, or a tool result whose call is
 * not right before it.
 */
export const ENTRIES = ["agent", "node", "middleware"] as const;
export type Entry = (typeof ENTRIES)[number];

/** One scripted model response: a message (or tool calls / text), checked against its input first. */
export type Reply = AIMessage | string | { name: string; args?: Record<string, unknown>; id: string }[];

/** The calls a provider sees in an AI message: the parsed ones; with none, the raw invalid ones (ChatOpenAI sends those). */
function providerCalls(message: AIMessage): string[] {
  const valid = (message.tool_calls ?? []).map((c) => c.id ?? "");
  if (valid.length > 0) return valid;
  return (message.invalid_tool_calls ?? []).map((c) => c.id ?? "");
}

/** What a chat provider would refuse in `messages`, or undefined when it would accept them. */
export function providerRefusal(messages: readonly BaseMessage[]): string | undefined {
  for (let i = 0; i < messages.length; i += 1) {
    const message = messages[i];
    if (message === undefined) continue;
    if (ToolMessage.isInstance(message)) {
      // Must answer a call of the AI message that opens this run of ToolMessages.
      let j = i - 1;
      while (j >= 0 && ToolMessage.isInstance(messages[j])) j -= 1;
      const opener = messages[j];
      if (!opener || !AIMessage.isInstance(opener) || !providerCalls(opener).includes(message.tool_call_id)) {
        return `messages.${i}: tool result ${message.tool_call_id} has no tool call right before it`;
      }
      continue;
    }
    if (!AIMessage.isInstance(message)) continue;
    const calls = providerCalls(message);
    if (calls.length === 0) continue;
    const answered = new Set<string>();
    for (let j = i + 1; j < messages.length && ToolMessage.isInstance(messages[j]); j += 1) {
      answered.add((messages[j] as ToolMessage).tool_call_id);
    }
    const missing = calls.filter((id) => !answered.has(id));
    if (missing.length > 0) return `messages.${i}: tool calls without a result right after them: ${missing.join(", ")}`;
  }
  return undefined;
}

export interface Agent {
  invoke(input: unknown, config?: Record<string, unknown>): Promise<Record<string, unknown>>;
  stream(input: unknown, config?: Record<string, unknown>): Promise<AsyncIterable<unknown>>;
  getState(config: unknown): Promise<{ values: Record<string, unknown>; next: string[]; tasks: { interrupts: { id?: string; value?: unknown }[] }[] }>;
  updateState(config: unknown, values: unknown, asNode?: string): Promise<unknown>;
}

export interface Built {
  graph: Agent;
  /** Every refusal a provider would have answered a model call with (the call then throws). */
  refusals: string[];
  /** The messages of each model call, in order. */
  modelInputs: BaseMessage[][];
}

export interface BuildOptions {
  tools: AnyTool[];
  /** The scripted replies (checked as a provider would), unless `model` is given. */
  replies?: Reply[];
  /** A real chat model instead (ChatOpenAI against a loopback server). */
  model?: BaseChatModel;
  guard?: Partial<Omit<GuardOptions, "tools">>;
  checkpointer?: BaseCheckpointSaver;
}

function toMessage(reply: Reply, n: number): AIMessage {
  if (typeof reply === "string") return new AIMessage({ content: reply, id: `ai-${n}` });
  if (Array.isArray(reply)) {
    return new AIMessage({ content: "", id: `ai-${n}`, tool_calls: reply.map((c) => ({ name: c.name, args: c.args ?? {}, id: c.id, type: "tool_call" as const })) });
  }
  return reply;
}

/** The scripted model: each reply in turn, after checking the input as a provider would. */
export function providerModel(replies: readonly Reply[], refusals: string[], modelInputs: BaseMessage[][]) {
  let model = fakeModel();
  replies.forEach((reply, n) => {
    model = model.respond((messages: BaseMessage[]) => {
      modelInputs.push([...messages]);
      const refusal = providerRefusal(messages);
      if (refusal) {
        refusals.push(refusal);
        return new Error(`400 ${refusal}`);
      }
      return toMessage(reply, n);
    });
  });
  return model;
}

export function build(entry: Entry, options: BuildOptions): Built {
  const refusals: string[] = [];
  const modelInputs: BaseMessage[][] = [];
  const model = options.model ?? providerModel(options.replies ?? [], refusals, modelInputs);
  const guardOptions = { tools: options.tools, ...options.guard };
  const checkpointer = options.checkpointer ?? new MemorySaver();
  let graph: Agent;
  if (entry === "agent") {
    graph = createGuardedAgent({ model, ...guardOptions, checkpointer }) as unknown as Agent;
  } else if (entry === "middleware") {
    graph = createAgent({ model, middleware: [guardMiddleware(guardOptions)], checkpointer }) as unknown as Agent;
  } else {
    // A user's own graph as docs/approvals.md builds it: the model node screens new input.
    const State = Annotation.Root({ ...MessagesAnnotation.spec, ...GuardAnnotation.spec });
    const node = new GuardedToolNode(guardOptions);
    const bound = model.bindTools?.(options.tools) ?? model;
    graph = new StateGraph(State)
      .addNode("agent", async (state, config) => {
        if (heldForApproval(state.guard.approvals, state.messages, { unreviewed: true })) return {};
        const screened = await screenRunInput(node.guard, state.guard.approvals, state.messages, { threadId: String(config.configurable?.thread_id), runId: state.guard.runId }, config, { unreviewed: true });
        const ai = await bound.invoke(screened?.messages ?? state.messages, config);
        return { messages: [...(screened?.update ?? []), ai], ...(screened ? { guard: { ...state.guard, approvals: screened.approvals } } : {}) };
      })
      .addNode("tools", node)
      .addEdge(START, "agent")
      // Calls the provider could not parse go to the guarded node too: it answers them (docs/guard.md).
      .addConditionalEdges("agent", (s) => { const ai = s.messages.at(-1) as AIMessage | undefined; return ai?.tool_calls?.length || ai?.invalid_tool_calls?.length ? "tools" : END; }, ["tools", END])
      .addConditionalEdges("tools", guardedToolsRoute("agent"), ["agent", END])
      .compile({ checkpointer }) as unknown as Agent;
  }
  return { graph, refusals, modelInputs };
}

let threadCounter = 0;
export const newThread = (label: string) => ({ configurable: { thread_id: `trouble-${label}-${threadCounter++}` } });

export const say = (text: string) => ({ messages: [new HumanMessage(text)] });
export const resume = (value: unknown) => new Command({ resume: value });

/** Tool calls of the thread's AI messages that have no ToolMessage anywhere after them. */
export function unanswered(messages: readonly BaseMessage[]): string[] {
  const answered = new Set(messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => m.tool_call_id));
  return messages.flatMap((m) => (AIMessage.isInstance(m) ? (m.tool_calls ?? []).map((c) => c.id ?? "") : [])).filter((id) => !answered.has(id));
}

export function toolText(messages: readonly BaseMessage[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of messages) if (ToolMessage.isInstance(m)) out[m.tool_call_id] = String(m.content);
  return out;
}

export function messagesOf(state: Record<string, unknown>): BaseMessage[] {
  return (state.messages as BaseMessage[] | undefined) ?? [];
}
