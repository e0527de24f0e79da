import { AIMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { RuleState } from "../rules/types.js";
import { applyInterruptOn } from "./approval/interrupt-on.js";
import { resolveApprovals } from "./approval/step.js";
import type { ApprovalState } from "./approval/state.js";
import type { ApprovalStepOptions } from "./approval/step.js";
import { auditDecisions, decisionRecords } from "./audit-trail.js";
import type { AuditRecord } from "../audit/types.js";
import type { TurnContext } from "./audit-trail.js";
import type { Guard } from "./guard.js";
import type { RawToolCall } from "./review.js";
import type { ReviewedCall } from "./state.js";
import { decisionContextOf } from "../provenance/context.js";
import { refusals } from "../messages/index.js";
import { withToolCalls } from "./model-step.js";
import { reviewConfigOf } from "./approval/approvers.js";

/**
 * Tool calls of `ai` that have no ToolMessage after it yet (a call answered before a crash is not
 * reviewed again). Only the ToolMessages after `ai` count: providers that number their calls per
 * response (`call_0` in every turn) reuse ids, and an earlier turn's result answers nothing here.
 * A call without id gets `${messageId}_${index}` (the message id is thread-scoped and unique).
 */
export function openToolCalls(ai: AIMessage, messages: readonly BaseMessage[], messageId: string): RawToolCall[] {
  const answered = new Set(
    messagesAfter(ai, messages).filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => m.tool_call_id),
  );
  return (ai.tool_calls ?? [])
    .map((call, index) => ({ id: call.id ?? `${messageId}_${index}`, name: call.name, args: call.args }))
    .filter((call) => !answered.has(call.id));
}

/** The messages after `ai` in `messages` (found by identity, else by id); all of them when it is not there. */
function messagesAfter(ai: AIMessage, messages: readonly BaseMessage[]): readonly BaseMessage[] {
  let at = messages.lastIndexOf(ai);
  if (at < 0 && ai.id !== undefined) at = messages.findLastIndex((m) => m.id === ai.id);
  return at < 0 ? messages : messages.slice(at + 1);
}

/** Where an edited message keeps the model's own calls: `additional_kwargs[ORIGINAL_CALLS_KEY][callId]`. */
const ORIGINAL_CALLS_KEY = "guard_original_tool_calls";

/**
 * The same message (same id, so it replaces the original in the thread) with the human's edits as
 * its calls, as LangChain's human-in-the-loop middleware rewrites them: the model and a client read
 * what ran. The model's own name and arguments of each edited call are kept in
 * `additional_kwargs.guard_original_tool_calls` (and in the audit log).
 */
export function withEditedCalls(ai: AIMessage, edited: readonly ReviewedCall[]): AIMessage {
  const byId = new Map(edited.map((c) => [c.id, c]));
  const kept = ai.additional_kwargs?.[ORIGINAL_CALLS_KEY];
  const originals: Record<string, { name: string; args: unknown }> = kept !== null && typeof kept === "object" ? { ...(kept as Record<string, { name: string; args: unknown }>) } : {};
  const calls = (ai.tool_calls ?? []).map((call) => {
    const edit = call.id === undefined ? undefined : byId.get(call.id);
    if (!edit || call.id === undefined) return call;
    originals[call.id] ??= { name: call.name, args: call.args };
    return { ...call, name: edit.name, args: edit.args };
  });
  return withToolCalls(ai, calls, { ...ai.additional_kwargs, [ORIGINAL_CALLS_KEY]: originals });
}

export function refusalMessage(call: ReviewedCall, content: string): ToolMessage {
  return new ToolMessage({ content, tool_call_id: call.id, name: call.name, status: "error" });
}

interface ReviewedTurn {
  /** Calls to execute, in model order (approved and edited ones included). */
  runnable: ReviewedCall[];
  /** One error ToolMessage per refused or rejected call. */
  answered: ToolMessage[];
  /** Approval state to write into the guard state. */
  approvals: ApprovalState;
  /** The resume did not fit (routeBack): write `approvals` and run review again; nothing else changed. */
  retry: boolean;
  /** A limit with `exitBehavior: "end"` refused a call: the run ends once the other calls ran. */
  endRun?: { ruleId: string; reason: string } | undefined;
}

/**
 * Reviews the open calls of one model turn; the approval step (one interrupt for every call that
 * asks, decisions applied and audited) is `resolveApprovals` in approval/step.ts.
 */
export async function reviewTurnWithApproval(
  guard: Guard,
  state: RuleState,
  calls: readonly RawToolCall[],
  ctx: TurnContext,
  config: LangGraphRunnableConfig | undefined,
  approval: ApprovalStepOptions = {},
  deferDecisions?: AuditRecord[],
): Promise<ReviewedTurn> {
  // On resume the calls are judged for the user of the run that asked, not for the one who answers.
  const asked = reviewConfigOf(config, approval.approvals, ctx.messageId);
  const reviewed = await applyInterruptOn(guard, (await guard.reviewTurn(state, calls, asked, decisionContextOf(ctx))).reviewed, ctx, asked);
  // Held back for the batch's claim (one commit, `runBatches`): the decisions of calls that run,
  // when no call of the turn asks (so no interrupt comes between review and execution).
  if (deferDecisions && !reviewed.some((c) => c.outcome === "ask")) {
    deferDecisions.push(...decisionRecords(guard, ctx, reviewed.filter((c) => c.outcome === "run")));
    await auditDecisions(guard, ctx, reviewed.filter((c) => c.outcome !== "run"));
  } else await auditDecisions(guard, ctx, reviewed);
  const asking = new Set(reviewed.filter((c) => c.outcome === "ask").map((c) => c.id));
  const step = await resolveApprovals(guard, state, calls, reviewed, ctx, config, approval);
  if (step.retry) return { runnable: [], answered: [], approvals: step.approvals, retry: true };
  const decided = new Map<string, ReviewedCall>(
    step.calls.map((c) => [
      c.id,
      // A human let this call through: the check at its start knows not to ask again.
      // (A standing decision is not a human's look at this call: it says approved: false.)
      asking.has(c.id) && c.outcome === "run" && c.approved !== false ? { ...c, approved: true } : c,
    ]),
  );
  const runnable: ReviewedCall[] = [];
  const answered: ToolMessage[] = [];
  for (const call of calls) {
    const result = decided.get(call.id);
    if (!result) continue;
    if (result.outcome === "run") runnable.push(result);
    // Left unanswered by a partial answer: no ToolMessage, the call stays open and is asked again.
    else if (result.outcome === "ask") continue;
    else answered.push(refusalMessage(result, result.message ?? refusals.generic(result.name, result.ruleId, result.reason)));
  }
  const ending = [...decided.values()].find((c) => c.endsRun === true && c.outcome === "refuse");
  const endRun = ending ? { endRun: { ruleId: ending.ruleId.replace(/^rule:/, ""), reason: ending.reason } } : {};
  return { runnable, answered, approvals: step.approvals, retry: false, ...endRun };
}
