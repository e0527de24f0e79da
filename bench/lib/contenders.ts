import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { createAgent, humanInTheLoopMiddleware, toolCallLimitMiddleware } from "langchain";
import { MemoryAuditSink } from "../../src/audit/index.js";
import type { AuditSink } from "../../src/audit/types.js";
import { createGuardedAgent } from "../../src/guard/index.js";
import type { ExecutionLedgerView } from "../../src/guard/interfaces.js";
import { PermissionPolicy } from "../../src/policy/index.js";
import type { GuardedTool } from "../../src/tools/types.js";
import { permissionRules, toolRules } from "./guard-rules.js";
import { LoopModel } from "./loop-model.js";
import { NOOP_ARGS, NOOP_TOOL_NAMES, noopTools, type NoopInput } from "./noop-tools.js";

/** What every contender exposes to the harness: run one user message on a thread to the end. */
export interface Contender {
  id: string;
  label: string;
  invoke(threadId: string, text: string): Promise<BaseMessage[]>;
}

export interface ContenderOptions {
  turnsPerRun: number;
  checkpointer: () => BaseCheckpointSaver;
  tools?: GuardedTool<NoopInput>[];
  calls?: readonly string[];
}

function loopModel(options: ContenderOptions): LoopModel {
  return new LoopModel({ turnsPerRun: options.turnsPerRun, calls: options.calls ?? NOOP_TOOL_NAMES, args: NOOP_ARGS });
}

const RECURSION_LIMIT = 1_000_000;

function runConfig(threadId: string) {
  return { configurable: { thread_id: threadId }, recursionLimit: RECURSION_LIMIT };
}

/** (a) The floor: a hand-written LangGraph agent ⇄ ToolNode loop, no guard. */
export function plainToolNode(options: ContenderOptions & { durability?: "sync" | "async" | "exit" }): Contender {
  const tools = options.tools ?? noopTools();
  const model = loopModel(options).bindTools(tools);
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state: typeof MessagesAnnotation.State) => ({ messages: [await model.invoke(state.messages)] }))
    .addNode("tools", new ToolNode(tools))
    .addEdge(START, "agent")
    .addConditionalEdges(
      "agent",
      (state: typeof MessagesAnnotation.State) => {
        const last = state.messages[state.messages.length - 1];
        return last && AIMessage.isInstance(last) && (last.tool_calls?.length ?? 0) > 0 ? "tools" : END;
      },
      ["tools", END],
    )
    .addEdge("tools", "agent")
    .compile({ checkpointer: options.checkpointer() });
  return {
    id: "a",
    label: "LangGraph ToolNode loop (no guard)",
    invoke: async (threadId, text) =>
      (await graph.invoke({ messages: [{ role: "user", content: text }] }, { ...runConfig(threadId), ...(options.durability ? { durability: options.durability } : {}) })).messages,
  };
}

/** (b) The nearest peer: LangChain v1 createAgent + HITL middleware (auto-approving) + tool call limits. */
export function langchainAgent(options: ContenderOptions): Contender {
  const tools = options.tools ?? noopTools();
  const never = () => false;
  const interruptOn = Object.fromEntries(
    tools.map((t) => [t.name, { allowedDecisions: ["approve", "edit", "reject"] as ("approve" | "edit" | "reject")[], when: never }]),
  );
  const agent = createAgent({
    model: loopModel(options),
    tools,
    middleware: [
      humanInTheLoopMiddleware({ interruptOn }),
      toolCallLimitMiddleware({ threadLimit: 100_000_000, runLimit: 10_000_000 }),
    ],
    checkpointer: options.checkpointer(),
  });
  return {
    id: "b",
    label: "LangChain createAgent + HITL (auto-approve) + toolCallLimit",
    invoke: async (threadId, text) => (await agent.invoke({ messages: [{ role: "user", content: text }] }, runConfig(threadId))).messages,
  };
}

export interface GuardedContender extends Contender {
  audit: AuditSink;
}

/** (c) Ours: createGuardedAgent with 200 permission rules, 20 tool rules and the audit log on. */
export function guardedAgent(options: ContenderOptions & { audit?: AuditSink; maxConcurrency?: number; ledger?: ExecutionLedgerView }): GuardedContender {
  const tools = options.tools ?? noopTools();
  const audit = options.audit ?? new MemoryAuditSink();
  const agent = createGuardedAgent({
    model: loopModel(options),
    tools,
    rules: toolRules(20),
    permissions: new PermissionPolicy(permissionRules(200)),
    audit,
    checkpointer: options.checkpointer(),
    maxConcurrency: options.maxConcurrency ?? 10,
    ...(options.ledger ? { ledger: options.ledger } : {}),
  });
  return {
    id: "c",
    label: "guarded-graph createGuardedAgent (200 permission + 20 tool rules, audit on)",
    audit,
    invoke: async (threadId, text) => (await agent.invoke({ messages: [{ role: "user", content: text }] }, runConfig(threadId))).messages,
  };
}

/** Ours without permission rules, tool rules or audit sink: what the guarded graph costs by itself (profiling). */
export function bareGuardedAgent(options: ContenderOptions): Contender {
  const agent = createGuardedAgent({ model: loopModel(options), tools: options.tools ?? noopTools(), checkpointer: options.checkpointer(), maxConcurrency: 10 });
  return {
    id: "c-bare",
    label: "guarded-graph createGuardedAgent, no rules, no audit",
    invoke: async (threadId, text) => (await agent.invoke({ messages: [{ role: "user", content: text }] }, runConfig(threadId))).messages,
  };
}

/**
 * Runs `turns` turns of W1 on `c` as threads of 10 (thread ids `${prefix}-0`, `${prefix}-1`, …), each
 * checked for its 52 messages (the input, 10 model turns of 4 calls and their results, the answer).
 */
export async function runW1Threads(c: Contender, prefix: string, turns: number): Promise<void> {
  for (let t = 0; t < turns / 10; t++) {
    const messages = await c.invoke(`${prefix}-${t}`, "go");
    if (messages.length !== 2 + 10 * 5) throw new Error(`W1 ${c.id}: ${messages.length} messages, expected ${2 + 10 * 5}`);
  }
}
