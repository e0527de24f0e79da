import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseCheckpointSaver, BaseStore, LangGraphRunnableConfig } from "@langchain/langgraph";
import { Command, END, REMOVE_ALL_MESSAGES, START, Send, StateGraph, messagesStateReducer } from "@langchain/langgraph";
import { Runnable } from "@langchain/core/runnables";
import type { RunnableConfig } from "@langchain/core/runnables";
import { z } from "zod";
import { threadIdOf } from "./audit-trail.js";
import { exitStep, throwIfLimitStopped, finishTurn, inPlanOrder, limitEndMessages, ledgerKeyFor, limitsMayEndRun, reviewModelTurn, rulesOf, runBatches, runCall, startRunIfNew } from "./engine.js";
import { auditCarriedBy, executionLedger, ProcessLedger } from "./ledger-claim.js";
import type { AuditRecord } from "../audit/types.js";
import type { CallSlot } from "./engine.js";
import { Guard } from "./guard.js";
import { assertChatModel, assertNotPromise, assertTools, guardOf } from "./accept.js";
import type { GuardLike } from "./accept.js";
import { forcedToolFor, callModel } from "./model-step.js";
import type { GuardOptions } from "./options.js";
import { hasForeignAnswer, heldForApproval, inputAfterWaiting, screenRunInput } from "./approval/screening.js";
import { settleLateAnswer } from "./answer-race.js";
import { hasNullResume } from "./langgraph-task.js";
import { toolAskedIn } from "./execute.js";
import { answerAbortedTurn } from "./aborted-turn.js";
import { GuardedAgentState } from "./state.js";
import type { GuardedAgentStateType, GuardedAgentUpdate, GuardState, ReviewedCall, TurnPlan } from "./state.js";
import { RemoveMessage, isBaseMessage } from "@langchain/core/messages";
import type { BaseMessage, ToolMessage } from "@langchain/core/messages";
import { openToolCalls, withEditedCalls } from "./turn.js";
import { lastAIMessage } from "./last-ai-message.js";
import { GuardConfigError } from "../errors/index.js";
import { keepWritesAfterTheirCheckpoint } from "../storage/write-order.js";
import { inGuardedAgent } from "../tools/command-result.js";
import { clientAnsweredCalls, plannedCallsOpen, unanswerableToolMessages, unrunClientAnswerRecords, withoutClientAnswers } from "./client-answered.js";

/** Guard options (or a prebuilt `guard`) plus the model and the graph's persistence. */
export interface GuardedAgentOptions extends Partial<GuardOptions> {
  model: BaseChatModel;
  systemPrompt?: string;
  /**
   * Text added to the system prompt at every model step, computed then (e.g. `memoryContext({ memory,
   * sources })` from the memory module: memory blocks in context and source notifications).
   */
  context?: (config: LangGraphRunnableConfig) => Promise<string | undefined> | string | undefined;
  checkpointer?: BaseCheckpointSaver;
  store?: BaseStore;
  name?: string;
  /**
   * A prebuilt guard to share between graphs (its options win over the guard options given here):
   * a `Guard`, or the result of `await guardFromPolicy(...)`.
   */
  guard?: GuardLike;
}

/** Node names of the guarded agent graph (the CLI and users read streams and snapshots by them). */
export const GUARDED_NODES = {
  agent: "agent",
  review: "review",
  tools: "tools",
  execute: "execute",
  collect: "collect",
  finish: "finish",
} as const;
export type GuardedNodeName = (typeof GUARDED_NODES)[keyof typeof GUARDED_NODES];

const ToolTaskSchema = z.lazy(() => z.object({
  guardCall: z.custom<ReviewedCall>((v) => typeof v === "object" && v !== null && "id" in v),
  guardSlot: z.custom<CallSlot>((v) => typeof v === "object" && v !== null && "ctx" in v && "base" in v),
}));
type ToolTask = z.infer<typeof ToolTaskSchema>;

/**
 * The guarded agent loop: agent ──▶ review ──(one interrupt if any call asks)──▶ tools (one task per
 * call, batch by batch) ──▶ collect ──▶ agent | END. Rule state lives in the checkpointed graph state.
 */
export function createGuardedAgent(options: GuardedAgentOptions) {
  assertNotPromise(options, WHERE, "Await what builds the options, then pass the object: `createGuardedAgent({ model, guard })`.");
  assertChatModel(options.model, WHERE);
  const guard = options.guard !== undefined ? guardOf(options.guard, WHERE) : new Guard({ ...options, tools: requireTools(options.tools) });
  const graph = buildGuardedGraph(guard, options).compile({
    checkpointer: options.checkpointer,
    store: options.store,
    name: options.name ?? "guarded_agent",
  });
  // Each step's checkpoint is saved before the next step starts ("sync"). Under LangGraph's default
  // ("async") a durable checkpointer can hold a task's writes — a finished call's ToolMessage, the
  // approval interrupt — before the step's checkpoint they belong to; a crash in that window resumed
  // from the checkpoint before, re-running finished calls (without a ledger) and leaving threads that
  // waited for an approval stuck (test/crash-boundaries.test.ts, "slow checkpoint writes"). A run that
  // passes its own `durability` still decides for itself. The checkpoint a run starts with is the
  // one LangGraph does not await under "sync": the checkpointer is wrapped so that it holds the run's
  // first writes back until that checkpoint is saved (write-order.ts; test/crash-boundaries.test.ts,
  // "first step"), and so is one LangGraph Platform assigns to the exported graph before each run.
  return keepWritesAfterTheirCheckpoint(graph.withConfig({ durability: "sync" }));
}

const WHERE = "createGuardedAgent";

function requireTools(tools: GuardOptions["tools"] | undefined): GuardOptions["tools"] {
  if (tools === undefined) throw new GuardConfigError("createGuardedAgent needs `tools` (or a prebuilt `guard`: a Guard, or the result of `await guardFromPolicy(...)`)");
  assertTools(tools, WHERE);
  return tools;
}

type Node = (state: GuardedAgentStateType, config: LangGraphRunnableConfig) => GuardedAgentUpdate | Promise<GuardedAgentUpdate>;

/** A step's update, and the Commands its tools returned for the graph that contains this agent (Command.PARENT). */
type TurnUpdate = GuardedAgentUpdate & { toParent?: Command[] };
type TurnNode = (state: GuardedAgentStateType, config: LangGraphRunnableConfig) => Promise<TurnUpdate>;

/**
 * The turn's last batch went straight to the next node: record the whole turn there. Its calls a
 * client's ToolMessage answered before they ran (a state update as the tools step, which leads here)
 * are audited as not run (client-answered.ts).
 */
async function settled(guard: Guard, state: GuardedAgentStateType, config: LangGraphRunnableConfig): Promise<GuardState> {
  const g = state.guard;
  if (g.turn === null) return g;
  const records = unrunClientAnswerRecords(guard, g.turn, state.messages, state.guardResults, { threadId: threadIdOf(config), runId: g.runId, messageId: g.turn.messageId });
  if (records.length > 0) await guard.options.audit?.write(records);
  // collect moved earlier batches into `done` and cleared `guardResults`: the two never overlap.
  return finishTurn(guard, g, [...(g.turn.done ?? []), ...inPlanOrder(g.turn, state.guardResults)]);
}

/** agent: records a finished turn, starts a run on new user input, calls the model with the allowed tools. */
function agentNode(guard: Guard, options: Pick<GuardedAgentOptions, "model" | "systemPrompt" | "context">, processLedger?: ProcessLedger): Node {
  return async (state, config) => {
    const hadTurn = state.guard.turn !== null;
    const before = await settled(guard, state, config);
    const started = startRunIfNew(guard, before, state.messages, threadIdOf(config));
    // The last turn crossed a limit with exitBehavior "error" (its calls are answered): the run stops here.
    throwIfLimitStopped(started);
    // New input while calls waited for approval: the guard rejects them and drops the input's results for them (approval/screening.ts).
    const approvalScreened = await screenRunInput(guard, started.approvals, state.messages, { threadId: threadIdOf(config), runId: started.runId }, config);
    // New input after an aborted run: the aborted turn's calls are answered first (aborted-turn.ts).
    const aborted =
      started.runId !== before.runId
        ? await answerAbortedTurn(guard, executionLedger(guard, processLedger, config), rulesOf(guard, before).run, approvalScreened?.messages ?? state.messages, threadIdOf(config), before.runId)
        : undefined;
    const screened = aborted ? { ...(approvalScreened ?? { approvals: started.approvals }), ...aborted } : approvalScreened;
    const screenedState = screened?.approvals ? { ...started, approvals: screened.approvals } : started;
    // An answer to an approval that was already settled (no interrupt waited for it): told it was superseded, changes nothing (answer-race.ts).
    const late = await settleLateAnswer(guard, screenedState.approvals, state.messages, { threadId: threadIdOf(config), runId: started.runId }, config);
    const g = late ? { ...screenedState, approvals: late } : screenedState;
    // A client's ToolMessage that answers no call of the last model message, or answers one a second time: dropped (client-answered.ts).
    const { messages, update: kept } = withoutUnanswerable(screened?.messages ?? state.messages, screened?.update);
    const rules = rulesOf(guard, g);
    // What the rules force (an initial tool once per run, a single next choice, an overdue Periodic tool).
    const forced = forcedToolFor(guard, rules, state.messages, g.forcedTool);
    const extra = options.context ? await options.context(config) : undefined;
    const prompt = [options.systemPrompt, extra].filter(Boolean).join("\n\n") || undefined;
    const ai = await callModel(guard, options.model, rules, messages, forced, prompt, config);
    const written = [...kept, ai];
    const cleared = hadTurn ? { guardResults: null } : {};
    const after: GuardState = { ...g, forcedTool: null, next: "agent" };
    // The model answered without calls and nothing is pending for exit: the run ends in this step
    // (the finish step runs only when RequiredForExit has something to remind or force).
    if ((ai.tool_calls?.length ?? 0) === 0) {
      const step = exitStep(guard, after);
      if (step.kind === "end") return { messages: written, guard: step.guard, ...cleared };
    }
    // Most model steps change nothing in the guard state: writing it anyway costs a serialised write per step.
    const b = state.guard;
    const unchanged = !hadTurn && !screened && !late && b.rules !== null && started.runId === b.runId && b.forcedTool === null && b.next === "agent";
    return { messages: written, ...(unchanged ? {} : { guard: after }), ...cleared };
  };
}

/**
 * The thread's messages without the ToolMessages a provider would refuse (`unanswerableToolMessages`),
 * and the `messages` update that comes before the model's message: `screened` (a rewrite of the
 * whole list) with them left out, else one removal per dropped message.
 */
function withoutUnanswerable(messages: BaseMessage[], screened: BaseMessage[] | undefined): { messages: BaseMessage[]; update: BaseMessage[] } {
  const dropped = unanswerableToolMessages(messages);
  if (dropped.length === 0) return { messages, update: screened ?? [] };
  const kept = messages.filter((m) => !dropped.includes(m as ToolMessage));
  if (screened !== undefined || dropped.some((m) => m.id === undefined)) return { messages: kept, update: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...kept] };
  return { messages: kept, update: dropped.map((m) => new RemoveMessage({ id: m.id as string })) };
}

/** review: the open calls of the last AIMessage, one approval interrupt, the plan. */
function reviewNode(guard: Guard): Node {
  return async (state, config) => {
    // New input reached the waiting step (a client's Command({ update }) with a message): it decides
    // nothing and leads nowhere (dispatch); the model step of the goto or of the next input refuses the calls.
    if (state.guard.turn === null && inputAfterWaiting(state.guard.approvals, state.messages)) return {};
    // A client's state update answered a waiting call (a ToolMessage in Command({ update }), with or
    // without a goto): dropped, every waiting call refused as superseded, once, here; then the model.
    if (state.guard.turn === null && hasForeignAnswer(state.guard.approvals, state.messages)) {
      const screened = await screenRunInput(guard, state.guard.approvals, state.messages, { threadId: threadIdOf(config), runId: state.guard.runId }, config);
      if (screened) return { messages: screened.update, guard: { ...state.guard, approvals: screened.approvals, next: "agent" }, guardResults: null };
    }
    const g = await settled(guard, state, config);
    const reviewed = await reviewModelTurn(guard, g, state.messages, config, { routeBack: true });
    if (!reviewed) return { guard: g, guardResults: null };
    const approvals = reviewed.approvals;
    // A resume that did not fit: this step ends with the error in the state; the calls are still open, so review runs again and asks again.
    // (A turn held for calls a partial answer left waiting keeps its end-of-run mark.)
    if (reviewed.retry) return { guard: { ...g, approvals }, guardResults: null };
    if (reviewed.limitError) {
      return { messages: reviewed.answered, guard: { ...g, approvals, turn: null, next: "agent", limitError: reviewed.limitError }, guardResults: null };
    }
    // A human's edits replace the model's arguments in its message (the originals stay in its metadata).
    const edited = reviewed.runnable.filter((c) => c.edited);
    const messages = edited.length > 0 ? [withEditedCalls(reviewed.ai, edited), ...reviewed.answered] : reviewed.answered;
    return { messages, guard: { ...g, approvals, turn: reviewed.turn, next: "dispatch" }, guardResults: null };
  };
}

/** tools: one approved call, authorized at its start, run and audited. */
function toolsNode(guard: Guard) {
  return async (input: unknown, config: LangGraphRunnableConfig): Promise<GuardedAgentUpdate> => {
    const parsed = ToolTaskSchema.safeParse(input);
    // Reached without a call review sent (a client's Command({ goto: "tools" })): nothing to run.
    if (!parsed.success) return {};
    const task: ToolTask = parsed.data;
    const executed = await runCall(guard, task.guardCall, task.guardSlot, config, { guardOwnsGraph: true });
    const { messages, toParent } = inGuardedAgent([executed]);
    const update = { messages, guardResults: { [executed.result.id]: executed.result } };
    // A Command for the parent graph: LangGraph leaves this graph's step and applies it there.
    return (toParent.length > 0 ? [update, ...toParent] : update) as GuardedAgentUpdate;
  };
}

/**
 * execute (the fast path): the turn's review, authorization at each call's start, execution and
 * recording in this one task. Reached straight from the model step: the review runs here (it is
 * pure and deterministic, so a re-run of this task after a crash reviews alike), and only when a
 * call asks for a human does the turn go to the review node (which raises the one interrupt) and
 * come back with the approved plan. Used only with an execution ledger, which keeps it
 * exactly-once across crashes (claim before a call, complete after): a re-run of this task after
 * a crash re-runs only the calls the ledger has not completed.
 */
function executeNode(guard: Guard, processLedger?: ProcessLedger): TurnNode {
  return async (state, config) => {
    let g = state.guard;
    let answered: ToolMessage[] = [];
    const ledger = executionLedger(guard, processLedger, config);
    // With a ledger that carries the audit, the decisions of calls that run commit with their claims.
    const deferred: AuditRecord[] | undefined = auditCarriedBy(guard, ledger) ? [] : undefined;
    if (g.turn !== null) {
      // The turn was approved in the review step: an answer that reached the thread since then is told
      // it was superseded (answer-race.ts). Not a resume for a tool of the turn that asked the user
      // (LangGraph's interrupt in this task): that one is the tool's.
      const turn = g.turn;
      const run = rulesOf(guard, g).run;
      const toolWaits = hasNullResume(config) && (await toolAskedIn(ledger, turn.batches.flat().map((id) => ledgerKeyFor(threadIdOf(config), run, turn.messageId, id))));
      const late = toolWaits ? undefined : await settleLateAnswer(guard, g.approvals, state.messages, { threadId: threadIdOf(config), runId: g.runId }, config);
      if (late) g = { ...g, approvals: late };
    }
    if (g.turn === null) {
      const reviewed = await reviewModelTurn(guard, g, state.messages, config, { routeBack: true, partial: true }, deferred);
      if (!reviewed) return { guard: { ...g, next: "agent" } };
      if ((reviewed.retry || reviewed.limitError) && deferred && deferred.length > 0) await guard.options.audit?.write(deferred);
      // Someone must decide: the approval state records what waits; the review node asks.
      if (reviewed.retry) return { guard: { ...g, approvals: reviewed.approvals, next: "agent" } };
      // A limit with exitBehavior "error": every call answered with its refusal, nothing runs; the next step throws.
      if (reviewed.limitError) {
        return { messages: reviewed.answered, guard: { ...g, approvals: reviewed.approvals, turn: null, next: "agent", limitError: reviewed.limitError } };
      }
      g = { ...g, approvals: reviewed.approvals, turn: reviewed.turn };
      answered = reviewed.answered;
    }
    const planned = g.turn as TurnPlan;
    const base = rulesOf(guard, g);
    const ctx = { threadId: threadIdOf(config), runId: g.runId, messageId: planned.messageId };
    // A client's ToolMessage for a planned call that has not run (updateState before the tools): its answer, the call does not run.
    const unanswered = withoutClientAnswers(guard, planned, state.messages, ctx);
    if (unanswered && unanswered.records.length > 0) await guard.options.audit?.write(unanswered.records);
    const turn = unanswered?.turn ?? planned;
    if (unanswered) g = { ...g, turn };
    const { executed, done, keys } = await runBatches(guard, turn, base, ctx, config, ledger, deferred, true);
    // This task returned: it never runs again, so the process ledger need not keep its calls. Not
    // when the run was aborted: LangGraph drops this return, so the task runs again (invoke(null))
    // or new input answers its calls, and both read the completed calls from the process ledger.
    if (ledger === processLedger && config.signal?.aborted !== true) processLedger?.forget(keys);
    const results = Object.keys(state.guardResults).length > 0 ? { guardResults: null } : {};
    // A tool's Command: its messages join the turn's answers; one for the parent graph goes there.
    const { messages, toParent } = inGuardedAgent(executed);
    return { messages: [...answered, ...messages, ...limitEndMessages(turn, g)], guard: finishTurn(guard, g, done), ...results, ...(toParent.length > 0 ? { toParent } : {}) };
  };
}

/** collect: the batch's results join the turn's; the next batch, or the turn is recorded and loop control decides. */
function collectNode(guard: Guard): Node {
  return async (state, config) => {
    // The turn's calls ran: an answer to its approval that reached the thread since then is told it was superseded (answer-race.ts).
    const late = await settleLateAnswer(guard, state.guard.approvals, state.messages, { threadId: threadIdOf(config), runId: state.guard.runId }, config);
    const current = late ? { ...state.guard, approvals: late } : state.guard;
    const turn = current.turn;
    if (!turn) return { guard: { ...current, next: "agent" } };
    const batch = turn.batches[turn.nextBatch] ?? [];
    const done = [...(turn.done ?? []), ...batch.flatMap((id) => (state.guardResults[id] ? [state.guardResults[id]] : []))];
    // Calls of the batch that dispatch did not send because a client's ToolMessage answered them: audited as not run.
    const records = unrunClientAnswerRecords(guard, turn, state.messages, state.guardResults, { threadId: threadIdOf(config), runId: current.runId, messageId: turn.messageId }, batch);
    if (records.length > 0) await guard.options.audit?.write(records);
    const advanced = { ...turn, nextBatch: turn.nextBatch + 1, done };
    if (advanced.nextBatch < advanced.batches.length) {
      return { guard: { ...current, turn: advanced, next: "dispatch" }, guardResults: null };
    }
    const ended = limitEndMessages(advanced, current);
    return { ...(ended.length > 0 ? { messages: ended } : {}), guard: finishTurn(guard, { ...current, turn: advanced }, done), guardResults: null };
  };
}

/** finish: the model wants to stop; RequiredForExit escalation decides whether it may. */
function finishNode(guard: Guard): Node {
  return (state) => {
    const step = exitStep(guard, state.guard);
    return step.kind === "end" ? { guard: step.guard } : { guard: step.guard, messages: step.messages };
  };
}

/**
 * The last AIMessage will still have calls without a ToolMessage once `answering` (the calls this
 * step answers) are in (e.g. a partial approval): they go back to review, not to the model. A routing
 * function after a Send task sees only that task's own writes, hence `answering`.
 */
function hasOpenCalls(state: GuardedAgentStateType, answering: readonly string[] = []): boolean {
  const ai = lastAIMessage(state.messages);
  if (ai === undefined) return false;
  return openToolCalls(ai, state.messages, ai.id ?? "").some((c) => !answering.includes(c.id));
}

/**
 * A routing function as LangGraph's edge runs it, minus the traced run LangGraph would wrap a plain
 * function in (`RunnableLambda`: a callback run, a run tree and an id per edge per step). The
 * function sees the step's state and config as before.
 */
class Route<O> extends Runnable<GuardedAgentStateType, O> {
  lc_namespace = ["guarded_graph", "route"];
  readonly #fn: (state: GuardedAgentStateType, config: LangGraphRunnableConfig) => O;

  constructor(fn: (state: GuardedAgentStateType, config: LangGraphRunnableConfig) => O) {
    super();
    this.#fn = fn;
  }

  override async invoke(state: GuardedAgentStateType, config?: RunnableConfig): Promise<O> {
    return this.#fn(state, (config ?? {}) as LangGraphRunnableConfig);
  }
}

function route<O>(fn: (state: GuardedAgentStateType, config: LangGraphRunnableConfig) => O): Route<O> {
  return new Route(fn);
}

/**
 * The thread's messages once `written` joins them, as the messages reducer will make them: the two
 * lists end to end when every written message is a new one (no id already in the thread, no
 * removal); otherwise the reducer itself decides, on the lists as they are.
 */
function messagesAfter(messages: readonly BaseMessage[], written: readonly BaseMessage[] | undefined): BaseMessage[] {
  if (written === undefined || written.length === 0) return messages as BaseMessage[];
  const ids = new Set<string>();
  for (const m of written) {
    if (!isBaseMessage(m) || RemoveMessage.isInstance(m)) return messagesStateReducer([...messages], [...written]);
    if (typeof m.id === "string") ids.add(m.id);
  }
  if (ids.size > 0 && messages.some((m) => typeof m.id === "string" && ids.has(m.id))) return messagesStateReducer([...messages], [...written]);
  return [...messages, ...written];
}

/**
 * A node that names its next node itself (a Command's goto), decided by `next` on the state as the
 * node's update leaves it: what a conditional edge would decide, without LangGraph reading the whole
 * state again after the step (a copy of every written channel and the messages reducer, once more
 * per step). Used for the nodes of every turn (the model step and the one-task turn).
 */
function routed(node: Node | TurnNode, next: (state: GuardedAgentStateType, config: LangGraphRunnableConfig) => string): (state: GuardedAgentStateType, config: LangGraphRunnableConfig) => Promise<Command | Command[]> {
  return async (state, config) => {
    const { toParent, ...update } = (await node(state, config)) as TurnUpdate;
    const after: GuardedAgentStateType = {
      messages: messagesAfter(state.messages, update.messages as BaseMessage[] | undefined),
      guard: update.guard !== undefined ? (update.guard as GuardState) : state.guard,
      guardResults: update.guardResults === null ? {} : update.guardResults !== undefined ? { ...state.guardResults, ...(update.guardResults as GuardedAgentStateType["guardResults"]) } : state.guardResults,
    };
    const command = new Command({ update, goto: next(after, config) });
    // Commands a tool returned for the parent graph: LangGraph leaves this graph's step and applies them there.
    return toParent !== undefined && toParent.length > 0 ? [command, ...toParent] : command;
  };
}

/**
 * The one-task turn, unless the turn's calls wait for a human in review (recorded there before it
 * asks, no plan yet): then neither review nor the model step sent it (a client's
 * `Command({ goto: "execute" })`), and it runs nothing and leads nowhere; the approval still waits.
 */
function outsideReview(node: (state: GuardedAgentStateType, config: LangGraphRunnableConfig) => Promise<Command | Command[]>) {
  return async (state: GuardedAgentStateType, config: LangGraphRunnableConfig): Promise<Command | Command[]> => {
    if (waitsInReview(state)) return new Command({ goto: END });
    return node(state, config);
  };
}

/**
 * The model step, unless a client's `Command({ goto })` sent it while the last model message's calls
 * wait for a human in review and nothing came after them (no new input, heldForApproval): then it
 * calls no model and leads nowhere, and the approval, raised again next to it, decides. (With new
 * input it refuses the waiting calls as superseded, as at any run start.)
 */
function heldInReview(node: (state: GuardedAgentStateType, config: LangGraphRunnableConfig) => Promise<Command | Command[]>) {
  return async (state: GuardedAgentStateType, config: LangGraphRunnableConfig): Promise<Command | Command[]> => {
    if (state.guard.turn === null && heldForApproval(state.guard.approvals, state.messages) !== undefined) return new Command({ goto: END });
    return node(state, config);
  };
}

/** collect and finish reached by a client's `Command({ goto })` while calls wait in review: nothing changes (their routes lead nowhere then). */
function whileInReview(node: Node): Node {
  return (state, config) => (waitsInReview(state) ? {} : node(state, config));
}

/** The last model message's calls wait for a human in review (recorded before it asks), with no plan yet. */
function waitsInReview(state: GuardedAgentStateType): boolean {
  const waiting = state.guard.approvals?.pending;
  return state.guard.turn === null && !!waiting && waiting.messageId === lastAIMessage(state.messages)?.id;
}

export function buildGuardedGraph(guard: Guard, options: Pick<GuardedAgentOptions, "model" | "systemPrompt" | "context">) {
  const N = GUARDED_NODES;
  // Without Terminal rules or heartbeats, loop control after a turn is always "back to the model":
  // the last batch's tasks then go straight to the agent, which records their results (one step fewer).
  // Read per step, not once: a watched policy file may swap the tool rules while the graph runs.
  const needsCollect = (): boolean =>
    guard.options.heartbeat === true ||
    limitsMayEndRun(guard) ||
    guard.engine.rules.some((r) => r.type === "Terminal" || r.type === "TerminalIf");

  // The one-task turn (execute) needs a ledger for exactly-once: the guard's, or, on LangGraph's
  // in-memory checkpointer, this graph's process ledger. Without one each call is its own task,
  // whose saved writes keep a completed call from running again.
  const processLedger = new ProcessLedger();
  const oneTask = (config: LangGraphRunnableConfig) => executionLedger(guard, processLedger, config) !== undefined;

  /** The next batch: the whole turn in one task (execute), or one Send per call carrying what its start check needs. */
  const dispatch = (state: GuardedAgentStateType, config: LangGraphRunnableConfig): Send[] | "collect" | "agent" | "review" | "execute" | typeof END => {
    const turn = state.guard.turn;
    const batch = turn?.batches[turn.nextBatch];
    if (!turn) return !hasOpenCalls(state) ? N.agent : inputAfterWaiting(state.guard.approvals, state.messages) ? END : N.review;
    if (!batch || batch.length === 0) {
      if (needsCollect() || turn.nextBatch !== 0) return N.collect;
      return hasOpenCalls(state) ? N.review : N.agent;
    }
    if (oneTask(config)) return N.execute;
    // A call a client's ToolMessage answered before it ran (updateState before the tools) is not sent: that is its answer (collect audits it).
    const answered = clientAnsweredCalls(turn, state.messages);
    const unanswered = answered.size === 0 ? batch : batch.filter((id) => !answered.has(id));
    if (unanswered.length === 0) return N.collect;
    const ctx = { threadId: threadIdOf(config), runId: state.guard.runId, messageId: turn.messageId };
    const guardSlot: CallSlot = { ctx, batch: turn.nextBatch, base: rulesOf(guard, state.guard), done: turn.done ?? [] };
    return unanswered.flatMap((id) => {
      const call = turn.calls[id];
      // The graph's state goes with the call, as LangGraph's ToolNode sends it: a tool reads it as `runtime.state`.
      return call ? [new Send(N.tools, { ...state, guardCall: call, guardSlot })] : [];
    });
  };

  /** The model's calls: reviewed and run in one task (execute) when a ledger allows it, else the review step first. */
  const afterAgent = (state: GuardedAgentStateType, config: LangGraphRunnableConfig) => {
    if ((lastAIMessage(state.messages)?.tool_calls?.length ?? 0) > 0) return oneTask(config) ? N.execute : N.review;
    // The model step decided the end itself (nothing pending for exit); else the finish step reminds or forces.
    return state.guard.next === "end" ? END : N.finish;
  };

  const afterTools = (state: GuardedAgentStateType, config: LangGraphRunnableConfig) => {
    const turn = state.guard.turn;
    // Not sent by dispatch (there is no plan): the step ran nothing (toolsNode). A client's Command({ goto })
    // while an approval waits leads nowhere (the approval decides). A client's `updateState(..., "tools")`
    // (LangGraph's "give the tool's result yourself") goes on: the calls it left open are reviewed, else the model reads the answers.
    // A client's updateState as the tools while calls wait in review (LangGraph ends the waiting step: no
    // interrupt is left): review refuses them as superseded now (its answer for a waiting call is
    // dropped), rather than leaving them open for the thread's next input.
    if (turn === null && waitsInReview(state)) return hasForeignAnswer(state.guard.approvals, state.messages) ? N.review : END;
    if (turn === null) return !lastAIMessage(state.messages) ? END : hasOpenCalls(state) ? N.review : N.agent;
    // A client's `updateState(..., "tools")` while planned calls have neither run nor been answered by it
    // (LangGraph runs this edge for the update too; a tools task runs it as "tools"): nothing of the
    // plan ran, so it is dispatched from its current batch (the client's answers left out) rather than
    // collected as if that batch had run (its other calls would never run).
    if (config.metadata?.langgraph_node !== N.tools && plannedCallsOpen(turn, state.messages, state.guardResults)) return dispatch(state, config);
    const lastBatch = turn.nextBatch + 1 >= turn.batches.length;
    if (!lastBatch || needsCollect()) return N.collect;
    return hasOpenCalls(state, turn.batches[turn.nextBatch] ?? []) ? N.review : N.agent;
  };

  /** After a turn was recorded: the end (Terminal), the exit check, review of calls still open, or the model. */
  const afterTurn = (state: GuardedAgentStateType) => {
    if (state.guard.next === "end") return state.guard.terminatedBy ? END : N.finish;
    return hasOpenCalls(state) ? N.review : N.agent;
  };

  const afterCollect = (state: GuardedAgentStateType, config: LangGraphRunnableConfig) =>
    state.guard.next === "dispatch" ? dispatch(state, config) : afterTurn(state);

  const afterFinish = (state: GuardedAgentStateType) => (state.guard.next === "end" ? END : N.agent);

  /**
   * A client's `updateState` attributed to the model step (asNode "agent", or unset when the run
   * stopped right after it: interruptBefore the tools on MemorySaver): LangGraph runs the node's edges,
   * not the Command the node returns, so without this edge nothing would run next (a client's result
   * for one planned call left the others unanswered). The turn goes on as after the model: its open
   * calls are dispatched (reviewed, or the plan's unanswered calls), else the model reads the answers.
   * In the node's own run its Command routes and this edge adds nothing.
   */
  const afterUpdateAsAgent = (state: GuardedAgentStateType, config: LangGraphRunnableConfig) => {
    if (config.metadata?.langgraph_node === N.agent) return [];
    if ((lastAIMessage(state.messages)?.tool_calls?.length ?? 0) > 0) return dispatch(state, config);
    return state.guard.next === "end" ? END : N.finish;
  };

  /**
   * The same for an update attributed to the one-task turn (asNode "execute", or unset while calls
   * wait in review: LangGraph ends the waiting step, no interrupt is left): a client's answer for a
   * waiting call goes to review, which refuses the waiting calls as superseded; an approved plan is
   * dispatched; otherwise as after the turn.
   */
  const afterUpdateAsExecute = (state: GuardedAgentStateType, config: LangGraphRunnableConfig) => {
    if (config.metadata?.langgraph_node === N.execute) return [];
    if (state.guard.turn !== null) return dispatch(state, config);
    if (waitsInReview(state)) return hasForeignAnswer(state.guard.approvals, state.messages) ? N.review : END;
    return afterTurn(state);
  };

  return new StateGraph(GuardedAgentState)
    .addNode(N.agent, heldInReview(routed(agentNode(guard, options, processLedger), afterAgent)), { ends: [N.review, N.execute, N.finish, END] })
    .addNode(N.review, reviewNode(guard))
    .addNode(N.tools, toolsNode(guard) as unknown as Node)
    .addNode(N.execute, outsideReview(routed(executeNode(guard, processLedger), afterTurn)), { ends: [N.agent, N.review, N.finish, END] })
    .addNode(N.collect, whileInReview(collectNode(guard)))
    .addNode(N.finish, whileInReview(finishNode(guard)))
    .addEdge(START, N.agent)
    .addConditionalEdges(N.agent, route(afterUpdateAsAgent), [N.tools, N.execute, N.collect, N.agent, N.review, N.finish, END])
    .addConditionalEdges(N.execute, route(afterUpdateAsExecute), [N.tools, N.execute, N.collect, N.agent, N.review, N.finish, END])
    .addConditionalEdges(N.review, route(dispatch), [N.tools, N.execute, N.collect, N.agent, N.review, END])
    .addConditionalEdges(N.tools, route(afterTools), [N.tools, N.execute, N.agent, N.collect, N.review, END])
    .addConditionalEdges(N.collect, route((state, config) => (waitsInReview(state) ? END : afterCollect(state, config))), [N.tools, N.execute, N.collect, N.agent, N.review, N.finish, END])
    .addConditionalEdges(N.finish, route((state) => (waitsInReview(state) ? END : afterFinish(state))), [N.agent, END]);
}
