import { AIMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { interrupt } from "@langchain/langgraph";
import type { RuleState } from "../rules/types.js";
import { approvalRequest, matchDecisions, resumeSchemaFor, ResumeSchema } from "./approval.js";
import { auditDecisions, auditHuman } from "./audit-trail.js";
import type { TurnContext } from "./audit-trail.js";
import type { Guard, RawToolCall } from "./guard.js";
import type { ReviewedCall } from "./state.js";
import type { DecisionContext } from "../provenance/context.js";

export function lastAIMessage(messages: readonly BaseMessage[]): AIMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i];
    if (message && AIMessage.isInstance(message)) return message;
  }
  return undefined;
}

/** Tool calls of `ai` that have no ToolMessage yet (a call answered before a crash is not reviewed again). */
export function openToolCalls(ai: AIMessage, messages: readonly BaseMessage[]): RawToolCall[] {
  const answered = new Set(
    messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => m.tool_call_id),
  );
  return (ai.tool_calls ?? [])
    .map((call, index) => ({ id: call.id ?? `${ai.id ?? "call"}_${index}`, name: call.name, args: call.args }))
    .filter((call) => !answered.has(call.id));
}

export function refusalMessage(call: ReviewedCall, content: string): ToolMessage {
  return new ToolMessage({ content, tool_call_id: call.id, name: call.name, status: "error" });
}

export interface ReviewedTurn {
  /** Calls to execute, in model order (approved and edited ones included). */
  runnable: ReviewedCall[];
  /** One error ToolMessage per refused or rejected call. */
  answered: ToolMessage[];
}

/**
 * Reviews the open calls of one model turn, raises ONE approval interrupt for every call that asks,
 * and applies the human's decisions. Everything before `interrupt` is pure apart from idempotent
 * audit writes, so LangGraph can run it again on resume.
 */
export async function reviewTurnWithApproval(
  guard: Guard,
  state: RuleState,
  calls: readonly RawToolCall[],
  ctx: TurnContext,
  config: LangGraphRunnableConfig | undefined,
): Promise<ReviewedTurn> {
  const decisionContext = ctx.messages === undefined ? undefined : { messages: ctx.messages, threadId: ctx.threadId || undefined };
  const { reviewed } = await guard.reviewTurn(state, calls, config, decisionContext);
  await auditDecisions(guard, ctx, reviewed);
  const pending = reviewed.filter((c) => c.outcome === "ask");
  const decided = new Map<string, ReviewedCall>(reviewed.map((c) => [c.id, c]));
  const answered: ToolMessage[] = [];

  if (pending.length > 0) {
    const request = approvalRequest(pending, guard.allowedDecisions, (name) => guard.spec(name)?.jsonSchema);
    const raw: unknown = interrupt(request, { responseSchema: resumeSchemaFor(pending, guard.allowedDecisions) });
    const resume = ResumeSchema.parse(raw);
    const match = matchDecisions(pending, resume, guard.allowedDecisions);
    if (!match.ok) throw new Error(match.error);
    for (const call of pending) {
      const decision = match.decisions.get(call.id);
      if (!decision) continue;
      if (decision.type === "approve") {
        decided.set(call.id, { ...call, outcome: "run", reason: `${call.reason} (approved by a human)` });
        await auditHuman(guard, ctx, call, "approve", resume.actor);
      } else if (decision.type === "reject") {
        const note = decision.message ? `: ${decision.message}` : "";
        decided.set(call.id, { ...call, outcome: "refuse", message: `Rejected by a human reviewer${note}. Do not retry this call unchanged.` });
        await auditHuman(guard, ctx, call, "reject", resume.actor, decision.message ? { message: decision.message } : undefined);
      } else {
        const edited = await reviewEdit(guard, state, calls, call, decision.editedAction, config, decisionContext);
        decided.set(call.id, edited);
        await auditHuman(guard, ctx, call, "edit", resume.actor, {
          editedAction: decision.editedAction,
          result: edited.outcome === "refuse" ? `refused by ${edited.ruleId}` : "approved",
        });
      }
    }
    const edits = [...decided.values()].filter((c) => c.edited);
    await auditDecisions(guard, ctx, edits);
  }

  const runnable: ReviewedCall[] = [];
  for (const call of calls) {
    const result = decided.get(call.id);
    if (!result) continue;
    if (result.outcome === "run") runnable.push(result);
    else answered.push(refusalMessage(result, result.message ?? `Refused by ${result.ruleId}: ${result.reason}`));
  }
  return { runnable, answered };
}

/**
 * An edited call is reviewed again from the start, in its place in the turn, so an edit can never
 * reach a denied tool or argument. If it would only ask, the human's edit is the approval.
 */
async function reviewEdit(
  guard: Guard,
  state: RuleState,
  calls: readonly RawToolCall[],
  original: ReviewedCall,
  editedAction: { name: string; args: Record<string, unknown> },
  config: LangGraphRunnableConfig | undefined,
  context: Omit<DecisionContext, "turnCalls"> | undefined,
): Promise<ReviewedCall> {
  const substituted = calls.map((c) => (c.id === original.id ? { id: c.id, ...editedAction } : c));
  const upTo = substituted.slice(0, substituted.findIndex((c) => c.id === original.id) + 1);
  const { reviewed } = await guard.reviewTurn(state, upTo, config, context);
  const again = reviewed[reviewed.length - 1];
  if (!again) throw new Error(`edited call ${original.id} vanished from its turn`);
  if (again.outcome === "refuse") {
    return {
      ...again,
      edited: true,
      message: `The human's edit of this call was refused by ${again.ruleId}: ${again.reason}. ${again.message ?? ""}`.trim(),
    };
  }
  return { ...again, outcome: "run", edited: true, reason: `${again.reason} (edited and approved by a human)` };
}
