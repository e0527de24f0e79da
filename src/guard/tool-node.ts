import { RemoveMessage } from "@langchain/core/messages";
import type { AIMessage, BaseMessage, ToolMessage } from "@langchain/core/messages";
import { RunnableLambda } from "@langchain/core/runnables";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { Command, END, REMOVE_ALL_MESSAGES, Send, isGraphInterrupt } from "@langchain/langgraph";
import { threadIdOf } from "./audit-trail.js";
import { auditCarriedBy, executionLedger, ProcessLedger } from "./ledger-claim.js";
import { forgetRunningTurn, noteRunningTurn } from "./aborted-turn.js";
import type { AuditRecord } from "../audit/types.js";
import { screenRunInput, screensForeignAnswer } from "./approval/screening.js";
import { throwIfLimitStopped, finishTurn, limitEndMessages, messageIdOf, reviewModelTurn, runBatches, rulesOf, startRunIfNew, waitingCalls } from "./engine.js";
import { GuardConfigError, ToolCallLimitError } from "../errors/index.js";
import { Guard } from "./guard.js";
import { assertNotPromise, assertTools, guardOf } from "./accept.js";
import type { GuardLike } from "./accept.js";
import type { GuardOptions } from "./options.js";
import { emptyGuardState } from "./state.js";
import { openToolCalls, withEditedCalls } from "./turn.js";
import type { GuardState } from "./state.js";
import { lastAIMessage } from "./last-ai-message.js";
import { unanswerableToolMessages } from "./client-answered.js";
import { combineOutputs } from "../tools/command-result.js";
import type { ExecutedCall } from "./execute.js";
import { withBoundedArguments, withDistinctIds } from "./model-step.js";

/**
 * `messages` with the last model message's unparsed calls made reviewable and its calls given
 * distinct ids (`rewritten` when it changed: the node writes the message back, same id).
 */
function withUnparsedCallsAnswerable(messages: BaseMessage[]): { messages: BaseMessage[]; rewritten: boolean } {
  const ai = lastAIMessage(messages);
  if (!ai || ((ai.invalid_tool_calls ?? []).length === 0 && withDistinctIds(ai.tool_calls ?? [], ai.id) === undefined)) return { messages, rewritten: false };
  const folded = withBoundedArguments(ai);
  return { messages: messages.map((m) => (m === ai ? folded : m)), rewritten: true };
}

export interface GuardedToolNodeInput {
  messages: BaseMessage[];
  guard?: GuardState;
}

export interface GuardedToolNodeOutput {
  /**
   * One ToolMessage per call; then, when a limit with exitBehavior "end" ended the run, its closing
   * AIMessage. First, a RemoveMessage for each ToolMessage a client put in the thread that answers no
   * call of the model message, or answers one a second time.
   */
  messages: (ToolMessage | AIMessage | RemoveMessage)[];
  guard: GuardState;
}

/**
 * What the node returns when a tool returned a LangGraph Command, as LangGraph's ToolNode does: a
 * list of updates applied in order — the guard's own update first, then one per call (a plain
 * answer as `{ messages }`, a Command with the call's answer in its update), then what ends the turn.
 */
export type GuardedToolNodeOutputs = (Partial<GuardedToolNodeOutput> | Command)[];

/**
 * A drop-in for LangGraph's ToolNode that guards every call: review → one approval interrupt →
 * batches (concurrency-safe calls together, a call that needs an earlier call of the turn later),
 * each call authorized at its start, under the abort hierarchy → truncated results. Add
 * `GuardAnnotation.spec` to your state so the rule state is checkpointed with the thread.
 *
 * Unlike `createGuardedAgent`, all calls of a turn run inside this one node: a crash mid-turn
 * re-runs the whole node on resume. Give the guard a `ledger` for exactly-once side effects (on
 * LangGraph's MemorySaver, the node keeps one in this process, as the checkpoints are).
 */
export class GuardedToolNode extends RunnableLambda<GuardedToolNodeInput, GuardedToolNodeOutput | Command | GuardedToolNodeOutputs> {
  readonly guard: Guard;

  /** Guard options, or a prebuilt guard: a `Guard`, or the result of `await guardFromPolicy(...)`. */
  constructor(options: GuardOptions | GuardLike) {
    const guard = guardOfNodeOptions(options);
    // On LangGraph's MemorySaver without the guard's ledger: this node's calls, for a second run
    // started from the same checkpoint (two answers to one approval) and for an aborted turn.
    const processLedger = new ProcessLedger();
    super({
      func: async (input: GuardedToolNodeInput, config?: LangGraphRunnableConfig) => withoutUnanswerable(input, await runGuardedTools(guard, processLedger, input, config)),
    });
    this.guard = guard;
  }

  /**
   * LangGraph's `createReactAgent({ tools: toolNode })` reads a ToolNode's `tools` to bind them to
   * the model and then wires a fixed edge from the tools back to the model. This node cannot work
   * behind that edge (the model would be called while calls wait for approval, and a Terminal rule
   * could not end the run), so reading `tools` stops the build with what to use instead.
   */
  get tools(): never {
    throw new GuardConfigError(NOT_A_REACT_AGENT_TOOL_NODE);
  }
}

const ONE_CALL_SENT =
  "GuardedToolNode reviews the calls of a model message together (one approval interrupt for all that ask) and was sent one call (LangGraph's Send({ ...state, lg_tool_call }), as createReactAgent's version \"v2\" routes): route the model's message to it with an edge, or with guardedToolsRoute after it, not with one Send per call";

const NOT_A_REACT_AGENT_TOOL_NODE =
  "GuardedToolNode cannot be the tool node of LangGraph's createReactAgent: its fixed edge from the tools back to the model would call the model while calls wait for approval, and a Terminal rule could not end the run. Use createGuardedAgent({ model, tools, ... }) (the same agent loop, guarded), LangChain's createAgent with guardMiddleware, or GuardedToolNode in your own StateGraph routed by guardedToolsRoute(\"agent\")";

function guardOfNodeOptions(options: GuardOptions | GuardLike): Guard {
  const where = "GuardedToolNode";
  assertNotPromise(options, where, "guardFromPolicy is async: write `new GuardedToolNode(await guardFromPolicy(...))`.");
  if (options instanceof Guard || "guard" in options) return guardOf(options, where);
  assertTools((options as Partial<GuardOptions>).tools, where);
  return new Guard(options);
}

async function runGuardedTools(
  guard: Guard,
  processLedger: ProcessLedger,
  input: GuardedToolNodeInput,
  config: LangGraphRunnableConfig | undefined,
): Promise<GuardedToolNodeOutput | Command | GuardedToolNodeOutputs> {
  if (!input.guard) throw missingChannels();
  // LangGraph's Send({ ...state, lg_tool_call }) (createReactAgent's version "v2"): one task per call,
  // each of which would review and answer the whole turn.
  if ((input as { lg_tool_call?: unknown }).lg_tool_call !== undefined) throw new GuardConfigError(ONE_CALL_SENT);
  const g = startRunIfNew(guard, input.guard ?? emptyGuardState(), input.messages, threadIdOf(config));
  // The last pass answered every call of a turn that crossed a limit with exitBehavior "error": throw it now.
  throwIfLimitStopped(g);
  // Partial answers: calls left unanswered stay open and this node comes back for them (by its name in the graph).
  const self = config?.metadata?.langgraph_node;
  const ledger = executionLedger(guard, processLedger, config);
  // A client's state update answered calls that wait for the guard (a ToolMessage in Command({ update }),
  // with or without a goto): dropped, every waiting call refused as superseded, once; then the model.
  // Not a result a client gave for a call nobody was asked about (interruptBefore this node, then
  // updateState): that is the call's one answer, and the turn's other calls are reviewed below.
  const last = lastAIMessage(input.messages);
  const threadId = threadIdOf(config);
  if (last && (await screensForeignAnswer(g.approvals, input.messages, last, { threadId, messageId: messageIdOf(last, threadId, input.messages) }, rulesOf(guard, g).run, ledger))) {
    const screened = await screenRunInput(guard, g.approvals, input.messages, { threadId, runId: g.runId }, config, { unreviewed: true });
    // The whole list is written again (the refusals go right after the model message): a Command's update.
    if (screened) return new Command({ update: { messages: screened.update, guard: { ...g, approvals: screened.approvals, next: "agent" } } });
  }
  // With a ledger that carries the audit, the decisions of calls that run commit with their claims.
  const deferred: AuditRecord[] | undefined = auditCarriedBy(guard, ledger) ? [] : undefined;
  // Calls the provider could not parse (invalid_tool_calls) become calls review refuses; the message is rewritten in place.
  const { messages: turnMessages, rewritten: unparsed } = withUnparsedCallsAnswerable(input.messages);
  // The turn's calls are reviewed and run inside this step: if the run is aborted, no checkpoint says
  // so, and new input (screenRunInput) must not take them for calls that waited for approval. Noted
  // here, in this process, unless review stops to ask a human (aborted-turn.ts).
  const ai = lastAIMessage(turnMessages);
  const noted = ai?.id !== undefined ? { threadId: threadIdOf(config), runId: g.runId, messageId: ai.id } : undefined;
  if (noted) noteRunningTurn(guard, noted, rulesOf(guard, g).run, ledger);
  let reviewed: Awaited<ReturnType<typeof reviewModelTurn>>;
  try {
    reviewed = await reviewModelTurn(guard, g, turnMessages, config, { partial: typeof self === "string", ledger }, deferred);
  } catch (error) {
    if (noted && isGraphInterrupt(error)) forgetRunningTurn(guard, noted);
    throw error;
  }
  // Nothing to run (no call of the last model message is open): this node leads nowhere
  // (`guardedToolsRoute` ends on "dispatch"). It is reached so when your model node returned nothing
  // because a client's Command({ goto }) ran it while an approval waited (heldForApproval): its edge to
  // this node was kept, and the approval step has already sent the run back to the model.
  if (!reviewed) return { messages: [], guard: { ...g, next: "dispatch" } };
  if (reviewed.limitError) {
    if (deferred && deferred.length > 0) await guard.options.audit?.write(deferred);
    const stopped: GuardState = { ...g, approvals: reviewed.approvals, turn: null, next: "dispatch", limitError: reviewed.limitError };
    // Every call answered first; this node runs again and throws (without a name in a graph: at once).
    if (typeof self !== "string") throw new ToolCallLimitError(reviewed.limitError);
    return new Command({ update: { messages: [...(unparsed ? [reviewed.ai] : []), ...reviewed.answered], guard: stopped }, goto: self });
  }
  const { executed, done, keys } = await runBatches(guard, reviewed.turn, rulesOf(guard, g), reviewed.ctx, config, ledger, deferred);
  // This step returned: its calls' results move to the process ledger's returned entries (ledger-claim.ts).
  if (ledger === processLedger && config?.signal?.aborted !== true) processLedger.forget(keys);
  const decided: GuardState = { ...g, approvals: reviewed.approvals, turn: reviewed.turn };
  // A human's edits replace the model's arguments in its message (the originals stay in its metadata).
  const edited = reviewed.runnable.filter((c) => c.edited);
  const rewritten = edited.length > 0 ? [withEditedCalls(reviewed.ai, edited)] : unparsed ? [reviewed.ai] : [];
  const finished = finishTurn(guard, decided, done);
  const partial = waitingCalls(decided).length > 0 && typeof self === "string";
  // A tool returned a Command: applied as LangGraph's ToolNode applies it (command-result.ts).
  if (executed.some((e) => e.command !== undefined)) return withCommands([...rewritten, ...reviewed.answered], executed, limitEndMessages(reviewed.turn, decided), partial ? { ...finished, next: "dispatch" } : finished, partial ? self : undefined);
  const messages = [...rewritten, ...reviewed.answered, ...executed.map((e) => e.message), ...limitEndMessages(reviewed.turn, decided)];
  if (partial && typeof self === "string") {
    // A partial answer: the answered calls ran; this node runs again for the calls still waiting
    // (reviewed and asked again). `guardedToolsRoute` sees `next: "dispatch"` and adds no edge.
    return new Command({ update: { messages, guard: { ...finished, next: "dispatch" } }, goto: self });
  }
  return { messages, guard: finished };
}

/**
 * The node's output with the ToolMessages a provider would refuse removed from the thread first
 * (`unanswerableToolMessages`: a client's answer for a call the last model message never made, or a
 * second answer to a call), so the model reads exactly one ToolMessage per call. Not after the
 * screening of a client's answer sent while an approval waited: that rewrites the whole list itself.
 */
function withoutUnanswerable(input: GuardedToolNodeInput, out: GuardedToolNodeOutput | Command | GuardedToolNodeOutputs): GuardedToolNodeOutput | Command | GuardedToolNodeOutputs {
  if (!Array.isArray(input.messages)) return out;
  const dropped = unanswerableToolMessages(input.messages).flatMap((m) => (m.id === undefined ? [] : [new RemoveMessage({ id: m.id })]));
  if (dropped.length === 0 || rewritesAll(out)) return out;
  if (Array.isArray(out)) return [{ messages: dropped }, ...out];
  if (out instanceof Command) return [{ messages: dropped }, out];
  return { ...out, messages: [...dropped, ...out.messages] };
}

/** A Command whose update writes the whole message list again (LangGraph's remove-all marker first). */
function rewritesAll(out: GuardedToolNodeOutput | Command | GuardedToolNodeOutputs): boolean {
  if (!(out instanceof Command)) return false;
  const first = (out.update as { messages?: unknown[] } | undefined)?.messages?.[0];
  return RemoveMessage.isInstance(first) && first.id === REMOVE_ALL_MESSAGES;
}

/**
 * The node's outputs when a call's tool returned a Command: the guard's update with the messages
 * before the calls' answers, one output per call in call order (combined as ToolNode combines them),
 * the turn's closing messages, and the node's own goto for calls a partial answer left waiting.
 */
function withCommands(first: (ToolMessage | AIMessage)[], executed: readonly ExecutedCall[], last: AIMessage[], guard: GuardState, self: string | undefined): GuardedToolNodeOutputs {
  const outputs: GuardedToolNodeOutputs = [{ messages: first, guard }, ...combineOutputs(executed.map((e) => e.command ?? e.message))];
  if (last.length > 0) outputs.push({ messages: last });
  if (self !== undefined) outputs.push(new Command({ goto: self }));
  return outputs;
}

/**
 * Without the guard's channels in the graph state, the rule state would be dropped after every
 * step (MaxCalls 1 would let a tool run twice): refuse to run and say what to add. The build-time
 * check is the type of `guardedToolsRoute`; this catches a graph that routes some other way.
 */
function missingChannels(): Error {
  return new GuardConfigError(
    "GuardedToolNode needs the guard's state channels: add `...GuardAnnotation.spec` to your graph's Annotation.Root, or `...GuardStateFields` to your StateSchema (import { GuardAnnotation, GuardStateFields } from \"guarded-graph\"), so the rule state is checkpointed with the thread",
  );
}

/**
 * What `guardedToolsRoute` requires of the graph's state: the guard's channel, as `...GuardAnnotation.spec`
 * adds it. A state without it fails to compile where the route is added, with "Property 'guard' is
 * missing … but required in type 'StateWithGuardAnnotationSpec'".
 */
interface StateWithGuardAnnotationSpec {
  guard: GuardState;
}

/** Options of `guardedToolsRoute`. */
export interface GuardedToolsRouteOptions {
  /**
   * The GuardedToolNode's name in your graph, where a turn whose calls are still open goes back to
   * (default: the node the route runs after, as LangGraph names it, else "tools").
   */
  toolsNode?: string;
}

/**
 * Routing after a GuardedToolNode: END when a Terminal rule ended the run, or when the node goes
 * back to itself for calls a partial answer left waiting (no edge: the node's own `goto` runs it);
 * back to the tools node when the last model message still has calls without a ToolMessage (a
 * client gave one call's result with `updateState(config, { messages: [toolMessage] }, "tools")`:
 * the others are reviewed and run there before the model reads the turn), and when a ToolMessage a
 * client added answers none of its calls or one a second time (the node removes it, and the run ends
 * there); else back to `agentNode`.
 * Its parameter type requires the guard's channel, so a graph whose state lacks
 * `...GuardAnnotation.spec` fails to compile where this route is added.
 */
export function guardedToolsRoute(agentNode: string, options: GuardedToolsRouteOptions = {}) {
  return (state: StateWithGuardAnnotationSpec, config?: LangGraphRunnableConfig): string | Send => {
    // Only the types require it: a JavaScript caller or a cast can still pass a state without `guard`.
    const guard = state.guard as GuardState | undefined;
    if (guard?.next === "dispatch") return END;
    if (guard?.next === "end" && guard.terminatedBy) return END;
    // A Send, not a name: the graph's path map for this route lists the model node and END only.
    // Also for a client's ToolMessage that answers no open call (a second answer to a call that ran):
    // the node removes it before your model node reads the thread, and the run ends there.
    if (hasOpenCalls(state) || hasUnanswerable(state)) return new Send(toolsNodeOf(options, config), state);
    return agentNode;
  };
}

/** The tools node's name: the option, else the node this route runs after (LangGraph's task metadata), else "tools". */
function toolsNodeOf(options: GuardedToolsRouteOptions, config: LangGraphRunnableConfig | undefined): string {
  const node = config?.metadata?.langgraph_node;
  return options.toolsNode ?? (typeof node === "string" ? node : "tools");
}

/** A ToolMessage after the last model message answers none of its calls, or one a second time (`unanswerableToolMessages`). */
function hasUnanswerable(state: object): boolean {
  const messages = (state as { messages?: unknown }).messages;
  return Array.isArray(messages) && unanswerableToolMessages(messages as BaseMessage[]).length > 0;
}

/** The last model message of the state has a call with no ToolMessage after it. */
function hasOpenCalls(state: object): boolean {
  const messages = (state as { messages?: unknown }).messages;
  if (!Array.isArray(messages)) return false;
  const ai = lastAIMessage(messages as BaseMessage[]);
  return ai !== undefined && openToolCalls(ai, messages as BaseMessage[], ai.id ?? "").length > 0;
}
