import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { auditId } from "../../audit/record.js";
import { approverText } from "../../messages/principal.js";
import { ApproverGate } from "../../principal/approvers.js";
import { configAs } from "../../principal/principal.js";
import { builtRecord } from "../../audit/schema.js";
import { baseRecord } from "../audit-trail.js";
import type { TurnContext } from "../audit-trail.js";
import type { Guard } from "../guard.js";
import type { ReviewedCall } from "../state.js";
import { reviewEvent, writerOf } from "./events.js";
import type { DecisionEvent } from "./events.js";
import type { ApprovalState } from "./state.js";

// ─── approver rules at the approval step ──────────────────────────────────────────────────────

/**
 * The approver rules of the guard's policy for one approval step (src/principal/approvers.ts), or
 * undefined when the policy has none and reads no principal (nothing changes for such a guard).
 */
export function approverGateOf(guard: Guard, ctx: TurnContext, approvals: ApprovalState, config: LangGraphRunnableConfig | undefined, partial: boolean): ApproverGate | undefined {
  const permissions = guard.options.permissions;
  const rules = permissions?.approverRules?.() ?? [];
  const readsPrincipal = permissions?.readsPrincipal === true;
  return rules.length === 0 && !readsPrincipal ? undefined : new ApproverGate(rules, ctx.messageId, approvals.approvers, config, partial, readsPrincipal);
}

/**
 * The config a turn's calls are reviewed with: on resume, the principal of the run that asked (as
 * the approval step recorded it), not the answering user's; as it is otherwise.
 */
export function reviewConfigOf(config: LangGraphRunnableConfig | undefined, approvals: ApprovalState | undefined, messageId: string): LangGraphRunnableConfig | undefined {
  const record = approvals?.approvers;
  if (config === undefined || record === null || record === undefined || record.messageId !== messageId || record.principal === undefined) return config;
  return configAs(config, record.principal);
}

/**
 * Approvals that counted but did not complete their call's count are taken out of `decisions` (the
 * call stays waiting and is asked again); each is audited (decision "countersign", the approver as
 * actor, the requester beside) and written to the custom stream.
 */
export async function settleApprovals(
  guard: Guard,
  ctx: TurnContext,
  gate: ApproverGate,
  pending: readonly ReviewedCall[],
  decisions: Map<string, { type: "approve" | "edit" | "reject" }>,
  config: LangGraphRunnableConfig | undefined,
  /** The answer applied won the ledger's claim in another process (answer-race.ts): that process counts it. */
  lost = false,
): Promise<void> {
  const counted = gate.settle(pending, decisions, !lost);
  if (counted.length === 0) return;
  const records = counted.flatMap((one) => {
    const call = pending.find((c) => c.id === one.callId);
    if (call === undefined) return [];
    return [
      builtRecord({
        ...baseRecord(guard, ctx, call),
        id: auditId([ctx.threadId, ctx.messageId, call.id, "countersign", one.approver]),
        event: "human" as const,
        decision: "countersign",
        reason: one.reason,
        actor: one.approver,
        ...requesterOf(gate, call.id),
        detail: { approvals: one.have, needed: one.needed },
      }),
    ];
  });
  await guard.options.audit?.write(records);
  const writer = writerOf(config);
  for (const record of records) {
    const call = pending.find((c) => c.id === record.toolCallId);
    if (call) writer?.({ ...reviewEvent(ctx, call), id: record.id, source: "human", decision: "approve", reason: record.reason, actor: record.actor } satisfies DecisionEvent);
  }
}

function requesterOf(gate: ApproverGate, callId: string): { requester?: string } {
  const { requester } = gate.detail(callId);
  return requester === undefined ? {} : { requester };
}

/** An answer an approver rule refused: one audit record (decision "refused") naming the answering user and the requester. */
export async function auditApproverRefusal(guard: Guard, ctx: TurnContext, gate: ApproverGate, pending: readonly ReviewedCall[]): Promise<void> {
  const refused = gate.lastRefusal;
  const call = pending.find((c) => c.id === refused?.callId);
  if (refused === undefined || call === undefined) return;
  gate.lastRefusal = undefined;
  await guard.options.audit?.write([
    builtRecord({
      ...baseRecord(guard, ctx, call),
      id: auditId([ctx.threadId, ctx.messageId, call.id, "approver-refused", gate.answerer ?? "", refused.why]),
      event: "human" as const,
      decision: "refused",
      ruleId: refused.ruleId,
      reason: approverText.refusedRecord(refused.why),
      actor: gate.answerer,
      ...requesterOf(gate, call.id),
    }),
  ]);
}
