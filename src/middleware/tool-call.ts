import type { BaseMessage } from "@langchain/core/messages";
import type { ToolMessage } from "@langchain/core/messages";
import type { ToolCall } from "@langchain/core/messages/tool";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { Command, getConfig } from "@langchain/langgraph";
import { auditDecisions, threadIdOf } from "../guard/audit-trail.js";
import { batchKey, ledgerKeyFor, rulesOf, runCall, waitingCalls } from "../guard/engine.js";
import type { Guard } from "../guard/guard.js";
import { executionLedger } from "../guard/ledger-claim.js";
import type { ProcessLedger } from "../guard/ledger-claim.js";
import type { ExecutionLedgerView } from "../guard/interfaces.js";
import type { CallResult, GuardState, ReviewedCall } from "../guard/state.js";
import { refusalMessage } from "../guard/turn.js";
import type { TurnGate } from "./turn-gate.js";
import { refusals } from "../messages/index.js";
import { reviewConfigOf } from "../guard/approval/approvers.js";
import { openWaitingCalls } from "../guard/approval/screening.js";
import { decisionContextOf, type DecisionContext } from "../provenance/context.js";

interface ToolCallContext {
  toolCall: ToolCall;
  /** The agent's tool for the call (LangChain's request.tool), when it has one. */
  tool?: unknown;
  /** The agent's state; its messages (when present) feed provenance and context conditions. */
  state: { guard: GuardState; messages?: readonly BaseMessage[] };
  runtime: { configurable?: Record<string, unknown> | undefined; signal?: AbortSignal | undefined };
}

/** JSON with keys sorted: equal text means the same arguments (no normalisation, unlike policy matching). */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** The call as reviewed in afterModel, unless something changed its name or arguments since. */
function plannedCall(guard: Guard, g: GuardState, id: string, call: ToolCall): ReviewedCall | undefined {
  const planned = g.turn?.calls[id];
  if (!planned || planned.name !== call.name) return undefined;
  const { args } = guard.splitHeartbeat(call.name, call.args);
  return stableJson(args) === stableJson(planned.args) ? planned : undefined;
}

/** A call afterModel did not approve (added or changed after review): reviewed now, after the turn's approved calls. */
async function reviewUnplanned(
  guard: Guard,
  g: GuardState,
  id: string,
  call: ToolCall,
  config: LangGraphRunnableConfig,
  context?: Omit<DecisionContext, "turnCalls">,
): Promise<ReviewedCall> {
  const earlier = Object.values(g.turn?.calls ?? {})
    .filter((c) => c.id !== id)
    .map((c) => ({ id: c.id, name: c.name, args: c.args }));
  // Judged for the user of the run that asked (recorded with the approval state), as afterModel judged the turn.
  const asked = reviewConfigOf(config, g.approvals, g.turn?.messageId ?? "") ?? config;
  const { reviewed } = await guard.reviewTurn(rulesOf(guard, g), [...earlier, { id, name: call.name, args: call.args }], asked, context);
  const last = reviewed[reviewed.length - 1];
  if (!last) throw new Error(`review of tool call ${id} returned nothing`);
  if (last.outcome !== "ask") return last;
  return {
    ...last,
    outcome: "refuse",
    message: refusals.unreviewedAsk(call.name, last.ruleId, last.reason),
  };
}

/**
 * A call of a model message whose review never completed, still waiting for the approval step: the
 * tools node was reached by a client's `Command({ goto: "tools" })` while the approval waits (it is
 * raised again next to this step). The approval step alone decides and answers it.
 */
function heldCall(g: GuardState, messages: readonly BaseMessage[] | undefined, id: string): boolean {
  if (messages === undefined || g.turn !== null) return false;
  return openWaitingCalls(g.approvals, messages, { unreviewed: true })?.callIds.includes(id) === true;
}

/** The tools node's own config (callbacks, signal, thread); the runtime's parts when there is none. */
function currentConfig(runtime: ToolCallContext["runtime"]): LangGraphRunnableConfig {
  try {
    return getConfig();
  } catch {
    return { configurable: runtime.configurable, signal: runtime.signal };
  }
}

/**
 * Results of the turn's batches before `batch`, in plan order. A call that finished in this process
 * is known to the gate; one that finished before a crash is known to the ledger when it succeeded;
 * otherwise its outcome is unknown and counts as not successful (fail closed: a call that depends on
 * it is refused, naming the rule).
 */
async function earlierResults(
  guard: Guard,
  ledger: ExecutionLedgerView | undefined,
  gate: TurnGate,
  g: GuardState,
  turnKey: string,
  batch: number,
  threadId: string,
): Promise<CallResult[]> {
  const turn = g.turn;
  if (!turn) return [];
  const out: CallResult[] = [];
  for (const ids of turn.batches.slice(0, batch)) {
    for (const id of ids) {
      const call = turn.calls[id];
      if (!call) continue;
      const known = gate.result(turnKey, id);
      if (known) {
        out.push(known);
        continue;
      }
      const key = ledgerKeyFor(threadId, rulesOf(guard, g).run, turn.messageId, id);
      const completed = ledger ? (await ledger.result(key)) !== undefined : false;
      out.push({ id, name: call.name, operation: call.operation, status: completed ? "success" : "cancelled", at: guard.now(), requestHeartbeat: call.requestHeartbeat });
    }
  }
  return out;
}

/**
 * A tool's Command (its update carries the call's answer), as createAgent applies it, with the
 * call's result for the guard's rule state. One for the parent graph goes as it is: this agent's
 * step is left, and the parent's state has no result of this agent's guard to merge it into.
 */
function withResult(command: Command, result: CallResult): Command {
  if (command.graph === Command.PARENT) return command;
  const update = (command.update ?? {}) as Record<string, unknown>;
  return new Command({ update: { ...update, guardResults: { [result.id]: result } }, ...(command.goto !== undefined ? { goto: command.goto } : {}) });
}

/**
 * wrapToolCall: the turn engine's `runCall` for one call LangChain dispatched. The gate keeps the
 * turn's batches in order inside this process; the call is authorized at its start against the
 * results of the earlier batches. Runs the tool itself (abort hierarchy, timeout, truncation,
 * ledger: the guard's, or the middleware's process ledger on MemorySaver) instead of calling the inner handler, so the guard should be the last middleware that
 * wraps tool calls.
 */
export async function guardToolCall<R extends ToolCallContext>(guard: Guard, gate: TurnGate, processLedger: ProcessLedger, request: R, handler?: (request: R) => unknown): Promise<ToolMessage | Command> {
  const g = request.state.guard;
  const call = request.toolCall;
  const config = currentConfig(request.runtime);
  const ledger = executionLedger(guard, processLedger, config);
  const threadId = threadIdOf(config);
  const messageId = g.turn?.messageId ?? "unplanned";
  const ctx = { threadId, runId: g.runId, messageId };
  const id = call.id ?? `${messageId}_${call.name}`;

  let reviewed = plannedCall(guard, g, id, call);
  let batch = g.turn?.batches.findIndex((b) => b.includes(id)) ?? -1;
  if (!reviewed && (waitingCalls(g).includes(id) || heldCall(g, request.state.messages, id))) {
    // Left waiting by a partial answer: it neither runs nor gets a result now (beforeModel asks again).
    return new Command({ update: {} });
  }
  if (!reviewed) {
    reviewed = await reviewUnplanned(guard, g, id, call, config, decisionContextOf({ messages: request.state.messages, threadId }));
    await auditDecisions(guard, ctx, [reviewed]);
    if (reviewed.outcome !== "run") {
      return refusalMessage(reviewed, reviewed.message ?? refusals.generic(reviewed.name, reviewed.ruleId, reviewed.reason));
    }
    batch = g.turn?.batches.length ?? 0;
  }

  const turnKey = batchKey(ctx, -1);
  const leave = await gate.enter(turnKey, id, batch);
  try {
    const done = await earlierResults(guard, ledger, gate, g, turnKey, batch, threadId);
    const keys: string[] = [];
    // A tool the guard reviews but does not own (another middleware's, createAgent's) runs through the
    // agent's own handler once approved, with the reviewed arguments (a human's edit included).
    const delegated = handler && guard.isDelegated(call.name) ? async () => handler({ ...request, toolCall: { ...call, args: reviewed.args } }) : undefined;
    const { message, result, command } = await runCall(guard, reviewed, { ctx, batch, base: rulesOf(guard, g), done }, config, { ledger, keys, ...(delegated ? { delegated } : {}) });
    gate.record(turnKey, result);
    // This call's task returned: its result moves to the process ledger's returned entries (ledger-claim.ts).
    if (ledger === processLedger && config.signal?.aborted !== true) processLedger.forget(keys);
    return command === undefined ? new Command({ update: { messages: [message], guardResults: { [result.id]: result } } }) : withResult(command, result);
  } finally {
    leave();
  }
}
