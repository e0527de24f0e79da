import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { auditId } from "../../audit/record.js";
import { auditHuman, decisionRecordId, humanRecordId, reviewDecision } from "../audit-trail.js";
import type { TurnContext } from "../audit-trail.js";
import type { Guard } from "../guard.js";
import type { ReviewedCall, ShadowDecision } from "../state.js";

// ─── decision events in the custom stream ──────────────────────────────────────────────────────

/**
 * Written through LangGraph's custom stream mode (`config.writer`) as each decision is made:
 * the guard's review (allow / deny / ask) before any interrupt, then each human decision.
 * `id` equals the audit record's id: events re-emitted when review re-runs on resume carry the same id.
 */
export interface DecisionEvent {
  type: "guarded-graph/decision";
  id: string;
  /** `review` for the guard's own decision, `human` for a reviewer's, `resume-refused` for a resume that did not fit. */
  source: "review" | "human" | "resume-refused";
  decision: "allow" | "deny" | "ask" | "approve" | "edit" | "reject" | "refused" | "superseded";
  toolCallId: string;
  tool: string;
  ruleId: string;
  reason: string;
  risk: string;
  threadId: string;
  runId: string;
  messageId: string;
  actor?: string | undefined;
  /** Review events only, when a shadow rule or policy runs: what it would have decided (never enforced). */
  shadow?: ShadowDecision | undefined;
  /** On a human answer under approver rules or rules on who is asking: the user who ran the call. */
  requester?: string | undefined;
}

type Writer = (chunk: unknown) => void;

export function writerOf(config: LangGraphRunnableConfig | undefined): Writer | undefined {
  const w = (config as { writer?: unknown } | undefined)?.writer;
  return typeof w === "function" ? (w as Writer) : undefined;
}

/** A human's (or a standing decision's) answer to one call: one audit record and one decision event. */
export async function recordHuman(
  guard: Guard,
  ctx: TurnContext,
  call: ReviewedCall,
  decision: "approve" | "edit" | "reject",
  actor: string | undefined,
  detail: Parameters<typeof auditHuman>[5],
  writer: Writer | undefined,
): Promise<void> {
  await auditHuman(guard, ctx, call, decision, actor, detail);
  writer?.({
    ...reviewEvent(ctx, call),
    id: humanRecordId(ctx, call),
    source: "human",
    decision,
    actor,
    shadow: undefined,
    ...(typeof detail?.requester === "string" ? { requester: detail.requester } : {}),
  } satisfies DecisionEvent);
}

export function reviewEvent(ctx: TurnContext, call: ReviewedCall): DecisionEvent {
  return {
    type: "guarded-graph/decision",
    id: decisionRecordId(ctx, call),
    source: "review",
    decision: reviewDecision(call),
    toolCallId: call.id,
    tool: call.name,
    ruleId: call.ruleId,
    reason: call.reason,
    risk: call.risk,
    threadId: ctx.threadId,
    runId: ctx.runId,
    messageId: ctx.messageId,
    ...(call.shadow === undefined ? {} : { shadow: call.shadow }),
  };
}

/** Writes one review event per call (allow / deny / ask) to the custom stream, in model order. */
export function emitReviewEvents(ctx: TurnContext, reviewed: readonly ReviewedCall[], config: LangGraphRunnableConfig | undefined): void {
  const writer = writerOf(config);
  if (!writer) return;
  for (const call of reviewed) writer(reviewEvent(ctx, call));
}

export function emitRefused(ctx: TurnContext, pending: readonly ReviewedCall[], error: string, config: LangGraphRunnableConfig | undefined): void {
  const writer = writerOf(config);
  if (!writer) return;
  for (const call of pending) {
    writer({
      ...reviewEvent(ctx, call),
      id: auditId([ctx.threadId, ctx.messageId, call.id, "resume-refused", error]),
      source: "resume-refused",
      decision: "refused",
      reason: error,
      shadow: undefined,
    } satisfies DecisionEvent);
  }
}

/**
 * An edited call is reviewed again from the start, in its place in the turn, so an edit can never
 * reach a denied tool or argument. If it would only ask, the human's edit is the approval.
 */
