import { HumanMessage } from "@langchain/core/messages";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseCheckpointSaver, BaseStore, LangGraphRunnableConfig } from "@langchain/langgraph";
import { END, START, Send, StateGraph } from "@langchain/langgraph";
import { z } from "zod";
import { auditOutcome, threadIdOf } from "./audit-trail.js";
import { executeCall } from "./execute.js";
import { Guard } from "./guard.js";
import { limitEndMessages, afterTurn, planTurn, recordBatch } from "./loop.js";
import { callModel, forcedToolFor, guardReminder, isGuardMessage } from "./model-step.js";
import type { GuardOptions } from "./options.js";
import { GuardedAgentState } from "./state.js";
import type { GuardedAgentStateType, GuardedAgentUpdate, GuardState, ReviewedCall } from "./state.js";
import { lastAIMessage, openToolCalls, reviewTurnWithApproval } from "./turn.js";
import { reminders } from "../messages/index.js";

/** Guard options (or a prebuilt `guard`) plus the model and the graph's persistence. */
export interface GuardedAgentOptions extends Partial<GuardOptions> {
  model: BaseChatModel;
  systemPrompt?: string;
  checkpointer?: BaseCheckpointSaver;
  store?: BaseStore;
  name?: string;
  /** A prebuilt Guard to share between graphs (its options win over the guard options given here). */
  guard?: Guard;
}

const ToolTaskSchema = z.object({
  guardCall: z.custom<ReviewedCall>((v) => typeof v === "object" && v !== null && "id" in v),
  guardBatchKey: z.string(),
  guardRunId: z.string(),
  guardMessageId: z.string(),
});
type ToolTask = z.infer<typeof ToolTaskSchema>;

/**
 * The guarded agent loop: agent ──▶ review ──(one interrupt if any call asks)──▶ tools (one task per
 * call, batch by batch) ──▶ collect ──▶ agent | END. Rule state lives in the checkpointed graph state.
 */
export function createGuardedAgent(options: GuardedAgentOptions) {
  const guard = options.guard ?? new Guard({ ...options, tools: requireTools(options.tools) });
  return buildGuardedGraph(guard, options).compile({
    checkpointer: options.checkpointer,
    store: options.store,
    name: options.name ?? "guarded_agent",
  });
}

function requireTools(tools: GuardOptions["tools"] | undefined): GuardOptions["tools"] {
  if (tools === undefined) throw new TypeError("createGuardedAgent needs `tools` (or a prebuilt `guard`)");
  return tools;
}

export function buildGuardedGraph(guard: Guard, options: Pick<GuardedAgentOptions, "model" | "systemPrompt">) {
  const rulesOf = (g: GuardState) => g.rules ?? guard.initialRuleState();

  // Without Terminal rules or heartbeats, loop control after a turn is always "back to the model":
  // the last batch's tasks then go straight to the agent, which records their results (one step fewer).
  const needsCollect =
    guard.options.heartbeat === true ||
    guard.engine.rules.some((r) => r.type === "Terminal" || r.type === "TerminalIf" || ("exitBehavior" in r && r.exitBehavior === "end"));

  const agent = async (state: GuardedAgentStateType, config: LangGraphRunnableConfig): Promise<GuardedAgentUpdate> => {
    let g: GuardState = { ...state.guard, rules: rulesOf(state.guard) };
    const pendingResults = g.turn !== null && Object.keys(state.guardResults).length > 0;
    if (pendingResults && g.turn) g = { ...g, rules: recordBatch(guard, rulesOf(g), g.turn, state.guardResults), turn: null };
    const last = state.messages[state.messages.length - 1];
    if (last && HumanMessage.isInstance(last) && !isGuardMessage(last)) {
      g = {
        ...g,
        rules: guard.engine.startRun(rulesOf(g), guard.now()),
        runId: last.id ?? `run_${state.messages.length}`,
        turn: null,
        forcedTool: null,
        terminatedBy: null,
        exitUnsatisfied: [],
      };
    }
    const rules = rulesOf(g);
    // What the rules force (an initial tool once per run, a single next choice, an overdue Periodic tool).
    const forced = forcedToolFor(guard, rules, state.messages, g.forcedTool);
    const ai = await callModel(guard, options.model, rules, state.messages, forced, options.systemPrompt, config);
    return {
      messages: [ai],
      guard: { ...g, forcedTool: null, next: "agent" },
      ...(pendingResults ? { guardResults: null } : {}),
    };
  };

  const review = async (state: GuardedAgentStateType, config: LangGraphRunnableConfig): Promise<GuardedAgentUpdate> => {
    const ai = lastAIMessage(state.messages);
    if (!ai) return {};
    const calls = openToolCalls(ai, state.messages);
    const messageId = ai.id ?? `ai_${state.messages.length}`;
    const ctx = { threadId: threadIdOf(config), runId: state.guard.runId, messageId };
    const { runnable, answered, endRun } = await reviewTurnWithApproval(guard, rulesOf(state.guard), calls, ctx, config);
    const turn = planTurn(messageId, runnable, answered.length, endRun);
    return { messages: answered, guard: { ...state.guard, turn, next: "dispatch" }, guardResults: null };
  };

  const tools = async (input: unknown, config: LangGraphRunnableConfig): Promise<GuardedAgentUpdate> => {
    const task: ToolTask = ToolTaskSchema.parse(input);
    const { message, result } = await executeCall(guard, task.guardCall, task.guardBatchKey, config);
    const ctx = { threadId: threadIdOf(config), runId: task.guardRunId, messageId: task.guardMessageId };
    await auditOutcome(guard, ctx, task.guardCall, result.status);
    return { messages: [message], guardResults: { [result.id]: result } };
  };

  const collect = (state: GuardedAgentStateType): GuardedAgentUpdate => {
    const turn = state.guard.turn;
    if (!turn) return { guard: { ...state.guard, next: "agent" } };
    const rules = recordBatch(guard, rulesOf(state.guard), turn, state.guardResults);
    const advanced = { ...turn, nextBatch: turn.nextBatch + 1 };
    if (advanced.nextBatch < advanced.batches.length) {
      return { guard: { ...state.guard, rules, turn: advanced, next: "dispatch" }, guardResults: null };
    }
    const allResults = state.guardResults;
    return { messages: limitEndMessages(advanced), guard: afterTurn(guard, state.guard, rules, advanced, allResults), guardResults: null };
  };

  /** The model wants to stop: pending RequiredForExit tools get a reminder, then a forced call, then the run ends. */
  const finish = (state: GuardedAgentStateType): GuardedAgentUpdate => {
    const rules = rulesOf(state.guard);
    const pending = guard.engine.pendingExitTools(rules);
    if (pending.length === 0) return { guard: { ...state.guard, next: "end" } };
    const attempts = rules.exitReminders;
    const noted = guard.engine.noteExitReminder(rules);
    if (attempts < guard.maxExitReminders) {
      return {
        messages: [guardReminder(reminders.exitPending(pending))],
        guard: { ...state.guard, rules: noted, next: "agent" },
      };
    }
    if (attempts === guard.maxExitReminders) {
      return { guard: { ...state.guard, rules: noted, forcedTool: pending[0] ?? null, next: "agent" } };
    }
    return { guard: { ...state.guard, next: "end", exitUnsatisfied: pending } };
  };

  const dispatch = (state: GuardedAgentStateType): Send[] | "collect" | "agent" => {
    const turn = state.guard.turn;
    const batch = turn?.batches[turn.nextBatch];
    if (!turn || !batch || batch.length === 0) return needsCollect || turn?.nextBatch !== 0 ? "collect" : "agent";
    const batchKey = `${turn.messageId}#${turn.nextBatch}`;
    return batch.flatMap((id) => {
      const call = turn.calls[id];
      if (!call) return [];
      return [
        new Send("tools", {
          guardCall: call,
          guardBatchKey: batchKey,
          guardRunId: state.guard.runId,
          guardMessageId: turn.messageId,
        }),
      ];
    });
  };

  return new StateGraph(GuardedAgentState)
    .addNode("agent", agent)
    .addNode("review", review)
    .addNode("tools", tools as unknown as (s: GuardedAgentStateType, c: LangGraphRunnableConfig) => Promise<GuardedAgentUpdate>)
    .addNode("collect", collect)
    .addNode("finish", finish)
    .addEdge(START, "agent")
    .addConditionalEdges(
      "agent",
      (state) => ((lastAIMessage(state.messages)?.tool_calls?.length ?? 0) > 0 ? "review" : "finish"),
      ["review", "finish"],
    )
    .addConditionalEdges("review", dispatch, ["tools", "collect", "agent"])
    .addConditionalEdges(
      "tools",
      (state) => {
        const turn = state.guard.turn;
        const lastBatch = turn !== null && turn.nextBatch + 1 >= turn.batches.length;
        return lastBatch && !needsCollect ? "agent" : "collect";
      },
      ["agent", "collect"],
    )
    .addConditionalEdges(
      "collect",
      (state) => {
        if (state.guard.next === "dispatch") return dispatch(state);
        return state.guard.next === "end" ? (state.guard.terminatedBy ? END : "finish") : "agent";
      },
      ["tools", "collect", "agent", "finish", END],
    )
    .addConditionalEdges("finish", (state) => (state.guard.next === "end" ? END : "agent"), ["agent", END]);
}
