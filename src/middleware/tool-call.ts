import type { ToolMessage } from "@langchain/core/messages";
import type { ToolCall } from "@langchain/core/messages/tool";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { Command, getConfig } from "@langchain/langgraph";
import { auditDecisions, auditOutcome, threadIdOf } from "../guard/audit-trail.js";
import { executeCall } from "../guard/execute.js";
import type { Guard } from "../guard/guard.js";
import type { GuardState, ReviewedCall } from "../guard/state.js";
import { refusalMessage } from "../guard/turn.js";
import { rulesOf } from "./model-call.js";
import type { TurnGate } from "./turn-gate.js";
import { refusals } from "../messages/index.js";

export interface ToolCallContext {
  toolCall: ToolCall;
  state: { guard: GuardState };
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
): Promise<ReviewedCall> {
  const earlier = Object.values(g.turn?.calls ?? {})
    .filter((c) => c.id !== id)
    .map((c) => ({ id: c.id, name: c.name, args: c.args }));
  const { reviewed } = await guard.reviewTurn(rulesOf(guard, g), [...earlier, { id, name: call.name, args: call.args }], config);
  const last = reviewed[reviewed.length - 1];
  if (!last) throw new Error(`review of tool call ${id} returned nothing`);
  if (last.outcome !== "ask") return last;
  return {
    ...last,
    outcome: "refuse",
    message: refusals.unreviewedAsk(call.name, last.ruleId, last.reason),
  };
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
 * Gates, runs, audits and records one tool call. Runs the tool itself through the guard's executor
 * (abort hierarchy, timeout, truncation, ledger) instead of calling the inner handler, so the guard
 * should be the last middleware that wraps tool calls.
 */
export async function guardToolCall(guard: Guard, gate: TurnGate, request: ToolCallContext): Promise<ToolMessage | Command> {
  const g = request.state.guard;
  const call = request.toolCall;
  const id = call.id ?? `${call.name}_call`;
  const config = currentConfig(request.runtime);
  const threadId = threadIdOf(config);
  const messageId = g.turn?.messageId ?? "unplanned";
  const ctx = { threadId, runId: g.runId, messageId };

  let reviewed = plannedCall(guard, g, id, call);
  let batch = g.turn?.batches.findIndex((b) => b.includes(id)) ?? -1;
  if (!reviewed) {
    reviewed = await reviewUnplanned(guard, g, id, call, config);
    await auditDecisions(guard, ctx, [reviewed]);
    if (reviewed.outcome !== "run") {
      return refusalMessage(reviewed, reviewed.message ?? refusals.generic(reviewed.name, reviewed.ruleId, reviewed.reason));
    }
    batch = g.turn?.batches.length ?? 0;
  }

  const turnKey = `${threadId}\u0000${messageId}`;
  const leave = await gate.enter(turnKey, id, batch);
  try {
    const { message, result } = await executeCall(guard, reviewed, `${turnKey}#${batch}`, config);
    await auditOutcome(guard, ctx, reviewed, result.status);
    return new Command({ update: { messages: [message], guardResults: { [result.id]: result } } });
  } finally {
    leave();
  }
}
