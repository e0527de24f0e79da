import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Annotation, Command, END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { z } from "zod";
import { createGuardedAgent } from "../../src/guard/agent.js";
import { pendingApproval } from "../../src/guard/approval/payload.js";
import type { ApprovalRequest } from "../../src/guard/approval/payload.js";
import type { GuardOptions } from "../../src/guard/options.js";
import { GuardAnnotation } from "../../src/guard/state.js";
import { GuardedToolNode, guardedToolsRoute } from "../../src/guard/tool-node.js";
import { guardMiddleware } from "../../src/middleware/index.js";
import type { ToolRule } from "../../src/rules/types.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { RiskLevel } from "../../src/tools/types.js";
import { recordBindings } from "./middleware-fixtures.js";

/**
 * Runs one scripted conversation through each of the three entry points (createGuardedAgent,
 * GuardedToolNode in a user's own graph, guardMiddleware in LangChain's createAgent), so a peer's
 * documented behaviour can be checked against all three with one scenario.
 */
export const ENTRIES = ["agent", "node", "middleware"] as const;
export type Entry = (typeof ENTRIES)[number];

export interface Call {
  name: string;
  args?: Record<string, unknown>;
  id: string;
}

/** One model response: tool calls, or a final text. */
export type Reply = Call[] | string;

export type Step = { input: string } | { resume: unknown };

export interface ToolSpec {
  name: string;
  risk?: RiskLevel;
  /** The tool's output (default `${name} ok`); a function sees the arguments. */
  output?: string | ((args: Record<string, unknown>) => string);
  /** Throws instead of returning. */
  fails?: boolean;
}

export interface Outcome {
  entry: Entry;
  /** Tools that really ran, in order, with the arguments they got. */
  executed: { tool: string; args: Record<string, unknown> }[];
  messages: BaseMessage[];
  /** ToolMessage content by tool call id. */
  toolText: Record<string, string>;
  /** Content of the last message. */
  lastText: string;
  lastIsAI: boolean;
  /** The first error a step threw (later steps still run), or the error that refused to build the graph. */
  error: unknown;
  /** Building the graph (createGuardedAgent, guardMiddleware, GuardedToolNode) threw `error`. */
  buildError: boolean;
  /** tool_choice of each model call (agent and middleware only). */
  toolChoices: unknown[];
  /** Whether the last invoke stopped at an approval interrupt. */
  interrupted: boolean;
  /** The approval request it stopped at, if any. */
  request: ApprovalRequest | undefined;
}

export interface Scenario {
  tools: ToolSpec[];
  rules?: ToolRule[];
  guard?: Partial<Omit<GuardOptions, "tools" | "rules">>;
  replies: Reply[];
  steps: Step[];
}

function buildTools(specs: readonly ToolSpec[], executed: Outcome["executed"]) {
  return specs.map((spec) =>
    defineTool({
      name: spec.name,
      description: `${spec.name} tool`,
      schema: z.looseObject({}),
      risk: spec.risk ?? "low",
      execute: (args: Record<string, unknown>) => {
        executed.push({ tool: spec.name, args: { ...args } });
        if (spec.fails) throw new Error(`${spec.name} failed`);
        const out = spec.output ?? `${spec.name} ok`;
        return typeof out === "function" ? out(args) : out;
      },
    }),
  );
}

function scriptedModel(replies: readonly Reply[]) {
  let model = fakeModel();
  for (const reply of replies) {
    model =
      typeof reply === "string"
        ? model.respond(new AIMessage(reply))
        : model.respondWithTools(reply.map((c) => ({ name: c.name, args: c.args ?? {}, id: c.id })));
  }
  return model;
}

interface Invokable {
  invoke(input: unknown, config: unknown): Promise<unknown>;
  getState(config: unknown): Promise<{ values: unknown }>;
}

function graphFor(entry: Entry, scenario: Scenario, executed: Outcome["executed"]) {
  const model = scriptedModel(scenario.replies);
  const bindings = recordBindings(model);
  const tools = buildTools(scenario.tools, executed);
  const options = { tools, rules: scenario.rules ?? [], ...scenario.guard };
  let graph: Invokable;
  if (entry === "agent") {
    graph = createGuardedAgent({ model, ...options, checkpointer: new MemorySaver() }) as unknown as Invokable;
  } else if (entry === "middleware") {
    graph = createAgent({ model, middleware: [guardMiddleware(options)], checkpointer: new MemorySaver() }) as unknown as Invokable;
  } else {
    const State = Annotation.Root({ ...MessagesAnnotation.spec, ...GuardAnnotation.spec });
    const node = new GuardedToolNode(options);
    graph = new StateGraph(State)
      .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
      .addNode("tools", node)
      .addEdge(START, "agent")
      .addConditionalEdges("agent", (s) => ((s.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END), ["tools", END])
      .addConditionalEdges("tools", guardedToolsRoute("agent"), ["agent", END])
      .compile({ checkpointer: new MemorySaver() }) as unknown as Invokable;
  }
  return { graph, bindings };
}

let threadCounter = 0;

export async function play(entry: Entry, scenario: Scenario): Promise<Outcome> {
  const executed: Outcome["executed"] = [];
  let built: ReturnType<typeof graphFor>;
  try {
    built = graphFor(entry, scenario, executed);
  } catch (caught) {
    // Refused when the agent is built (as LangChain refuses some options when its middleware is made).
    return { entry, executed, messages: [], toolText: {}, lastText: "", lastIsAI: false, error: caught, buildError: true, toolChoices: [], interrupted: false, request: undefined };
  }
  const { graph, bindings } = built;
  const config = { configurable: { thread_id: `peer-${entry}-${threadCounter++}` }, recursionLimit: 60 };
  let state: { messages?: BaseMessage[]; __interrupt__?: unknown[] } = {};
  let error: unknown;
  for (const step of scenario.steps) {
    try {
      const input = "input" in step ? { messages: [new HumanMessage(step.input)] } : new Command({ resume: step.resume });
      state = (await graph.invoke(input, config)) as typeof state;
    } catch (caught) {
      error ??= caught;
      // What the thread kept: the state of its last checkpoint.
      state = (await graph.getState(config)).values as typeof state;
    }
  }
  const messages = state.messages ?? [];
  const toolText: Record<string, string> = {};
  for (const m of messages) if (ToolMessage.isInstance(m)) toolText[m.tool_call_id] = String(m.content);
  const last = messages.at(-1);
  return {
    entry,
    executed,
    messages,
    toolText,
    lastText: last ? String(last.content) : "",
    lastIsAI: last !== undefined && AIMessage.isInstance(last),
    error,
    buildError: false,
    toolChoices: bindings.map((b) => b.toolChoice),
    interrupted: Array.isArray(state.__interrupt__) && state.__interrupt__.length > 0,
    request: pendingApproval(state),
  };
}

/** Every tool call of every AIMessage has exactly one ToolMessage. */
export function orphans(messages: readonly BaseMessage[]): string[] {
  const answered = new Set(messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => m.tool_call_id));
  return messages.flatMap((m) => (AIMessage.isInstance(m) ? (m.tool_calls ?? []).map((c) => c.id ?? "") : [])).filter((id) => !answered.has(id));
}

export function ran(outcome: Outcome): string[] {
  return outcome.executed.map((e) => e.tool);
}
