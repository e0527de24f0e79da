import { createMiddleware } from "langchain";
import { Guard } from "../guard/guard.js";
import { assertNotPromise, assertTools, guardOf } from "../guard/accept.js";
import type { GuardLike } from "../guard/accept.js";
import type { PolicyGuard } from "../guard/from-policy.js";
import type { GuardOptions } from "../guard/options.js";
import { afterModelTurn, reviewOpenCalls } from "./after-model.js";
import { rulesOf } from "../guard/engine.js";
import { threadIdOf } from "../guard/audit-trail.js";
import { withForcedCall } from "../guard/model-step.js";
import { allowedToolsFor, forcedToolFor, promptFor, toolName } from "./model-call.js";
import { beforeAgentState, hasUnsettledTurn, settleTurn } from "./run-state.js";
import { GuardMiddlewareState } from "./state.js";
import { guardToolCall } from "./tool-call.js";
import { TurnGate } from "./turn-gate.js";
import { limitEndMessages, throwIfLimitStopped, waitingCalls } from "../guard/engine.js";
import { heldForApproval, inputAfterWaiting, openWaitingCalls, screenRunInput } from "../guard/approval/screening.js";
import { Command, REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { settleLateAnswer } from "../guard/answer-race.js";
import { answerAbortedTurn, answerSkippedCalls } from "../guard/aborted-turn.js";
import { executionLedger, ProcessLedger } from "../guard/ledger-claim.js";
import { GuardConfigError } from "../errors/index.js";
import { clientUpdatedPlan, plannedCallsOpen, unanswerableToolMessages } from "../guard/client-answered.js";
import { RemoveMessage } from "@langchain/core/messages";
import type { BaseMessage, ToolMessage } from "@langchain/core/messages";
import type { AnyTool } from "../tools/types.js";

/**
 * Guard options, or a prebuilt guard to share with other graphs: `{ guard }` with a `Guard` or the
 * result of `await guardFromPolicy(...)`, or that result itself.
 */
export type GuardMiddlewareOptions = (GuardOptions | { guard: GuardLike } | PolicyGuard) & AgentToolsOption;

/** Tools of the agent the guard reviews but does not run (they run through the agent's own tool handler). */
export interface AgentToolsOption {
  /**
   * Tools the agent gets elsewhere — another middleware's `tools` (`todoListMiddleware().tools`),
   * `createAgent({ tools })` — that the guard reviews like its own: listed here, permission rules,
   * tool rules and `toolRisk` may name them and their arguments. The guard does not register them
   * with the agent (their owner does) and runs them, once approved, through the agent's own tool
   * handler. Any other tool the agent has is reviewed too, when the guard is not a shared prebuilt
   * one: as a tool that declares no risk (a call no rule decides asks a human, unless `defaultRisk`
   * says otherwise).
   */
  agentTools?: readonly AnyTool[];
}

export const GUARD_MIDDLEWARE_NAME = "GuardMiddleware";

/**
 * Guards every tool call of a LangChain v1 `createAgent` agent:
 * - beforeAgent: new user input starts a run of the tool rules; the calls an aborted run left
 *   without a ToolMessage are answered first;
 * - beforeModel: records the last turn's real outcomes; a Terminal rule ends the run;
 * - wrapModelCall: binds only the tools (and operations) the rules allow now, forces an
 *   InitialCall / exit tool, and appends the "Tool usage rules" to the system prompt;
 * - afterModel: reviews the turn's calls, raising one approval interrupt for all that ask;
 * - wrapToolCall: gates, runs (timeout, abort, truncation), audits and records each call.
 *
 * The guard's tools are registered with the agent by the middleware. The agent's other tools
 * (another middleware's, `createAgent({ tools })`) are reviewed like the guard's own (`agentTools`
 * lets rules name them) and run, once approved, through the inner handler. Put it last in
 * `middleware` so no other wrapToolCall sits inside it: it runs its own tools itself rather than
 * calling the inner handler.
 */
export function guardMiddleware(options: GuardMiddlewareOptions) {
  const { guard, adopts } = middlewareGuard(options);
  const gate = new TurnGate();
  // On LangGraph's MemorySaver without the guard's ledger: the calls run here, for a second run
  // started from the same checkpoint (two answers to one approval) and for an aborted turn.
  const processLedger = new ProcessLedger();

  return createMiddleware({
    name: GUARD_MIDDLEWARE_NAME,
    stateSchema: GuardMiddlewareState,
    // The guard's own tools; tools it only reviews are registered by their owners.
    tools: guard.registry.list().filter((tool) => !guard.isDelegated(tool.name)),

    beforeAgent: async (state, runtime) => ownMessagesOnly(await (async () => {
      const threadId = threadIdOf({ configurable: runtime.configurable });
      const g = await beforeAgentState(guard, state.guard, state.guardResults, state.messages, threadId);
      // New input while calls waited for approval: the guard rejects them and drops the input's results for them (approval/screening.ts).
      // Not for a client's Command({ goto }) without input: the approval, raised again next to this step, decides.
      const held = heldForApproval(g.approvals, state.messages, { unreviewed: true }) !== undefined;
      const screened = held ? undefined : await screenRunInput(guard, g.approvals, state.messages, { threadId, runId: g.runId }, { configurable: runtime.configurable, writer: runtime.writer }, { unreviewed: true });
      // New input after an aborted run: the aborted turn's calls are answered first, with their
      // recorded results where the guard's ledger has them (aborted-turn.ts, as createGuardedAgent does).
      const aborted =
        g.runId !== state.guard.runId
          ? await answerAbortedTurn(guard, executionLedger(guard, processLedger, { configurable: runtime.configurable }), rulesOf(guard, state.guard).run, screened?.messages ?? state.messages, threadId, state.guard.runId)
          : undefined;
      const update = aborted?.update ?? screened?.update;
      return { guard: screened ? { ...g, approvals: screened.approvals } : g, guardResults: null, ...(update ? { messages: update } : {}) };
    })()),

    beforeModel: {
      canJumpTo: ["end", "tools", "model"],
      hook: async (state, runtime) => withoutUnanswerable(state.messages, ownMessagesOnly(await (async () => {
        // The last turn crossed a limit with exitBehavior "error" (its calls are answered): the run stops here.
        throwIfLimitStopped(state.guard);
        const config = { configurable: runtime.configurable, signal: runtime.signal, writer: runtime.writer };
        // An answer to an approval that was already settled (no interrupt waited for it): told it was superseded, changes nothing (answer-race.ts).
        const late = await settleLateAnswer(guard, state.guard.approvals, state.messages, { threadId: threadIdOf({ configurable: runtime.configurable }), runId: state.guard.runId }, config);
        const current = late ? { ...state.guard, approvals: late } : state.guard;
        // The approved calls have not run yet: this step runs next to the tools node that runs them (the
        // tools node a client's Command({ goto: "tools" }) ran while the approval waited leads here too).
        // A client gave some planned calls' results itself (interruptBefore the tools, then updateState as
        // the tools): no tools step runs the others, so they go there now (each then answered once).
        if (current.turn !== null && plannedCallsOpen(current.turn, state.messages, state.guardResults)) return { jumpTo: clientUpdatedPlan(current.turn, state.messages, state.guardResults) ? ("tools" as const) : ("end" as const) };
        if (!hasUnsettledTurn(current, state.guardResults)) {
          // Calls wait for the approval step, raised again next to this one (a client's Command({ goto })):
          // no model call, nothing changes; with new input in the goto's update, the calls are refused first.
          if (openWaitingCalls(current.approvals, state.messages, { unreviewed: true }) !== undefined) {
            if (!inputAfterWaiting(current.approvals, state.messages, { unreviewed: true })) return { jumpTo: "end" as const };
            const screened = await screenRunInput(guard, current.approvals, state.messages, { threadId: threadIdOf({ configurable: runtime.configurable }), runId: current.runId }, config, { unreviewed: true });
            if (screened) return { messages: screened.update, guard: { ...current, approvals: screened.approvals } };
          }
          return late ? { guard: current } : undefined;
        }
        const ended = limitEndMessages(current.turn, current);
        const settled = await settleTurn(guard, current, state.guardResults, state.messages, threadIdOf({ configurable: runtime.configurable }));
        if (waitingCalls(settled).length > 0) {
          // A partial answer left calls of the turn waiting: they are reviewed and asked again now;
          // the calls answered then are dispatched (or, if none runs, the model goes on).
          const again = await reviewOpenCalls(guard, { messages: state.messages, guard: settled }, config, undefined, executionLedger(guard, processLedger, config));
          if (!again) return { guard: { ...settled, turn: null, next: "agent" as const }, guardResults: null };
          const { jumpTo: after, ...update } = again;
          // "model" is where beforeModel goes anyway; otherwise the answered calls are dispatched first.
          const jumpTo = after === "end" ? ("end" as const) : after === "model" ? undefined : ("tools" as const);
          return { ...update, guardResults: null, ...(jumpTo ? { jumpTo } : {}) };
        }
        return {
          guard: settled,
          guardResults: null,
          ...(ended.length > 0 ? { messages: ended } : {}),
          ...(settled.next === "end" ? { jumpTo: "end" as const } : {}),
        };
      })())),
    },

    wrapModelCall: async (request, handler) => {
      // Backstop (beforeModel throws first): never call the model after a limit with exitBehavior "error".
      throwIfLimitStopped(request.state.guard);
      // Reached by a client's Command({ goto }) while calls wait for the approval step: the model is not
      // called on a history with unanswered calls, and nothing changes (afterModel, next, does nothing either).
      if (openWaitingCalls(request.state.guard.approvals, request.state.messages, { unreviewed: true }) !== undefined) return new Command({ update: {} });
      // Tools the agent has from elsewhere: reviewed like the guard's own, run by their owner.
      if (adopts) for (const tool of request.tools) if (isAgentTool(tool) && !guard.registry.has(tool.name)) guard.delegate(tool);
      // Another middleware's afterModel sent the run here past the tools (LangChain's humanInTheLoopMiddleware
      // on a reject): the calls the guard planned and that never ran are answered first; the guard's
      // afterModel, next, sends the run back here to call the model on the answered history.
      const turn = request.state.guard.turn;
      if (turn !== null) {
        const config = { configurable: request.runtime.configurable };
        const threadId = threadIdOf(config);
        const answers = await answerSkippedCalls(guard, executionLedger(guard, processLedger, config), rulesOf(guard, request.state.guard).run, request.state.messages, turn, request.state.guardResults, {
          threadId,
          runId: request.state.guard.runId,
          messageId: turn.messageId,
        });
        if (answers) return new Command({ update: { messages: answers, guard: await settleTurn(guard, request.state.guard, request.state.guardResults, request.state.messages, threadId), guardResults: null } });
      }
      const rules = rulesOf(guard, request.state.guard);
      const tools = allowedToolsFor(guard, rules, request.tools, { strict: guard.strictToolsFor(request.model) });
      const forced = forcedToolFor(guard, request.state.guard, rules, request.state.messages);
      const canForce = forced !== null && tools.some((t) => toolName(t) === forced);
      // A rule leaves a choice of tools and one of them must be called (Letta's should_force_tool_call).
      const mustCall = !canForce && forced === null && tools.length > 0 && guard.engine.mustCallTool(rules, guard.now());
      // A client's ToolMessage that answers no call of the last model message, or answers one a second time: the model does not read it (client-answered.ts).
      const dropped = unanswerableToolMessages(request.messages);
      const response = await handler({
        ...request,
        ...(dropped.length > 0 ? { messages: request.messages.filter((m) => !dropped.includes(m as ToolMessage)) } : {}),
        tools,
        systemPrompt: promptFor(guard, rules, request.systemPrompt),
        ...(canForce ? { toolChoice: { type: "function" as const, function: { name: forced } } } : mustCall ? { toolChoice: "required" as const } : {}),
      });
      return withForcedCall(guard, response, forced, rules);
    },

    afterModel: {
      canJumpTo: ["model", "end", "tools"],
      hook: (state, runtime) => {
        const config = { configurable: runtime.configurable, signal: runtime.signal, writer: runtime.writer };
        return afterModelTurn(guard, state, config, executionLedger(guard, processLedger, config)).then(ownMessagesOnly);
      },
    },

    wrapToolCall: (request, handler) => {
      // A tool the agent has from elsewhere that no model call of this process has shown yet (a resumed thread).
      if (adopts && isAgentTool(request.tool) && !guard.registry.has(request.tool.name)) guard.delegate(request.tool);
      return guardToolCall(guard, gate, processLedger, request, handler);
    },
  });
}

/**
 * LangChain's hook node returns the state it read merged with the hook's update, `messages`
 * included: a hook update without `messages` would write back every message it read, among them a
 * client's ToolMessage that a state update put there and the guard has since dropped (a
 * `Command({ goto, update })` while an approval waits). Each update of the guard's hooks therefore
 * names its own messages: none, when it adds none.
 */
function ownMessagesOnly<T extends object | undefined>(update: T): T {
  if (update === undefined || "messages" in update) return update;
  return { ...update, messages: [] };
}

/**
 * The hook's update with a removal for each ToolMessage a provider would refuse that a client put
 * after the last model message (`unanswerableToolMessages`: one for no call of it, a second answer to
 * a call), so the thread keeps one answer per call. Not when the update rewrites the whole list.
 */
function withoutUnanswerable<T extends { messages?: BaseMessage[] } | undefined>(messages: readonly BaseMessage[], update: T): T | { messages: BaseMessage[] } {
  const dropped = unanswerableToolMessages(messages).flatMap((m) => (m.id === undefined ? [] : [new RemoveMessage({ id: m.id })]));
  if (dropped.length === 0) return update;
  if (update === undefined) return { messages: dropped };
  const first = update.messages?.[0];
  if (RemoveMessage.isInstance(first) && first.id === REMOVE_ALL_MESSAGES) return update;
  return { ...update, messages: [...dropped, ...(update.messages ?? [])] };
}

/**
 * The middleware's guard, and whether it may take in the agent's other tools as it meets them
 * (`adopts`): only a guard of its own — a shared prebuilt guard is not changed by one agent's tools.
 */
function middlewareGuard(options: GuardMiddlewareOptions): { guard: Guard; adopts: boolean } {
  const where = "guardMiddleware";
  assertNotPromise(options, where, "guardFromPolicy is async: write `guardMiddleware({ guard: await guardFromPolicy(...) })`.");
  const agentTools = options.agentTools ?? [];
  if (agentTools.length > 0) assertTools(agentTools, `${where} agentTools`);
  if ("guard" in options) {
    const guard = guardOf(options.guard, where);
    const unknown = agentTools.filter((tool) => !guard.registry.has(tool.name)).map((tool) => tool.name);
    if (unknown.length > 0) throw new GuardConfigError(`guardMiddleware: agentTools ${unknown.join(", ")} are not among the prebuilt guard's tools; give them to the guard's own tools (they are then reviewed, and run by their owner)`);
    guard.markDelegated(agentTools.map((tool) => tool.name));
    return { guard, adopts: false };
  }
  assertTools((options as Partial<GuardOptions>).tools, where);
  const { agentTools: _given, ...guardOptions } = options as GuardOptions & AgentToolsOption;
  const guard = new Guard({ ...guardOptions, tools: [...guardOptions.tools, ...agentTools] });
  guard.markDelegated(agentTools.map((tool) => tool.name));
  return { guard, adopts: true };
}

/** A LangChain tool object (a client tool the agent runs; a provider's built-in tool has no `invoke`). */
function isAgentTool(tool: unknown): tool is AnyTool {
  return typeof tool === "object" && tool !== null && typeof (tool as { name?: unknown }).name === "string" && typeof (tool as { invoke?: unknown }).invoke === "function";
}
