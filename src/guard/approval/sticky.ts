import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { z } from "zod";
import { auditId } from "../../audit/record.js";
import type { AuditSink } from "../../audit/types.js";
import { ErrorCode, GuardedGraphError } from "../../errors/index.js";
import { stickyRevokedReason, stickyUnknown, stickyWhileWaiting } from "../../messages/approval.js";
import { approvalNotes, refusals } from "../../messages/index.js";
import { canonicalArgs } from "../../policy/canonical.js";
import type { TurnContext } from "../audit-trail.js";
import type { Guard } from "../guard.js";
import type { ReviewedCall } from "../state.js";
import { recordHuman, writerOf } from "./events.js";
import { pendingApproval } from "./payload.js";
import { emptyApprovalState } from "./state.js";
import type { ApprovalState, StickyDecision } from "./state.js";

// ─── standing decisions ("don't ask again") ───────────────────────────────────────────────────

/** The standing decisions of a thread's guard state (e.g. `(await graph.getState(config)).values.guard`), in the order made. */
export function stickyDecisions(guardState: { approvals?: ApprovalState | undefined } | undefined): StickyDecision[] {
  return [...(guardState?.approvals?.sticky ?? [])];
}

function stickyHolds(s: StickyDecision, call: Pick<ReviewedCall, "name" | "args" | "ruleId">, runId: string): boolean {
  if (s.tool !== call.name || call.ruleId.startsWith("killswitch:")) return false;
  if (s.scope === "run" && s.runId !== runId) return false;
  return Object.entries(s.args ?? {}).every(([key, value]) => canonicalArgs({ v: call.args[key] }) === canonicalArgs({ v: value }));
}

/** The standing decision for a call that asks: a standing reject wins over a standing approve. */
export function stickyFor(list: readonly StickyDecision[], call: ReviewedCall, runId: string): StickyDecision | undefined {
  const holding = list.filter((s) => stickyHolds(s, call, runId));
  return holding.find((s) => s.decision === "reject") ?? holding[0];
}

/** Calls answered by a standing decision: decided like a human's answer, audited with the decision's id. */
export async function applyStanding(
  guard: Guard,
  reviewed: readonly ReviewedCall[],
  byStanding: ReadonlyMap<string, StickyDecision>,
  ctx: TurnContext,
  config: LangGraphRunnableConfig | undefined,
): Promise<ReviewedCall[]> {
  const out: ReviewedCall[] = [];
  const writer = writerOf(config);
  for (const call of reviewed) {
    const standing = byStanding.get(call.id);
    if (!standing) {
      out.push(call);
      continue;
    }
    const decided: ReviewedCall =
      standing.decision === "approve"
        ? // Not a human's look at this call: a killswitch that asks by the time it starts still stops it.
          { ...call, outcome: "run", reason: approvalNotes.approved(call.reason), approved: false }
        : { ...call, outcome: "refuse", message: refusals.humanRejected(call.name, standing.message) };
    out.push(decided);
    await recordHuman(guard, ctx, call, standing.decision, standing.actor, { sticky: { id: standing.id, scope: standing.scope, madeFor: standing.toolCallId } }, writer);
  }
  return out;
}

/**
 * The guard state without one standing decision (unknown id: unchanged, `revoked` false). Write the
 * result back with `graph.updateState(config, { guard })` on a thread that is not waiting for an
 * approval, and audit it with `auditStickyRevoked`.
 */
export function revokeSticky<G extends { approvals?: ApprovalState | undefined }>(guardState: G, id: string): { guard: G; revoked: StickyDecision | undefined } {
  const list = guardState.approvals?.sticky ?? [];
  const revoked = list.find((s) => s.id === id);
  if (!revoked) return { guard: guardState, revoked: undefined };
  const approvals: ApprovalState = { ...(guardState.approvals ?? emptyApprovalState()), sticky: list.filter((s) => s.id !== id) };
  return { guard: { ...guardState, approvals }, revoked };
}

/** The audit record of a revoked standing decision (event "human", decision "revoke"). */
export async function auditStickyRevoked(
  audit: AuditSink | undefined,
  threadId: string,
  revoked: StickyDecision,
  actor: string | undefined,
  at: number = Date.now(),
): Promise<void> {
  await audit?.write([
    {
      id: auditId([threadId, revoked.id, "revoke"]),
      at,
      threadId,
      runId: revoked.runId,
      toolCallId: revoked.toolCallId,
      tool: revoked.tool,
      args: canonicalArgs(revoked.args ?? {}),
      event: "human",
      decision: "revoke",
      ruleId: `sticky:${revoked.id}`,
      reason: stickyRevokedReason(revoked.decision, revoked.scope),
      actor,
      detail: { sticky: { id: revoked.id, scope: revoked.scope } },
    },
  ]);
}

/** A standing decision could not be revoked (unknown id, or the thread waits for an approval). Nothing was changed. */
export class StickyRevokeError extends GuardedGraphError {
  override name = "StickyRevokeError";
  constructor(message: string) {
    super(ErrorCode.STICKY_REVOKE, message);
  }
}

/** What `listSticky` / `revokeStickyDecision` need of a compiled graph with the guard's state (createGuardedAgent, or a graph with `GuardAnnotation`). */
export interface StickyThreadGraph {
  getState(config: LangGraphRunnableConfig): Promise<{ values: unknown; tasks: readonly { interrupts?: readonly unknown[] }[] }>;
  updateState(config: LangGraphRunnableConfig, values: Record<string, unknown>): Promise<unknown>;
}

const GuardValues = z.lazy(() => z.object({ guard: z.object({ approvals: z.object({ sticky: z.array(z.unknown()).optional() }).loose().optional() }).loose().optional() }).loose());

function guardStateOf(values: unknown): { approvals?: ApprovalState } & Record<string, unknown> {
  const parsed = GuardValues.safeParse(values);
  return (parsed.success ? (parsed.data.guard ?? {}) : {}) as { approvals?: ApprovalState } & Record<string, unknown>;
}

/** The standing decisions of a thread, read from its latest checkpoint, in the order made. */
export async function listSticky(graph: StickyThreadGraph, threadId: string): Promise<StickyDecision[]> {
  const state = await graph.getState({ configurable: { thread_id: threadId } });
  return stickyDecisions(guardStateOf(state.values));
}

/**
 * Revokes one standing decision of a thread: the guard state without it is written as a new
 * checkpoint, then one `revoke` audit record (event "human") names who revoked it. Refused, with
 * nothing changed, when the id is unknown or the thread waits for an approval. Later calls that
 * the decision answered ask again.
 */
export async function revokeStickyDecision(
  graph: StickyThreadGraph,
  threadId: string,
  id: string,
  options: { audit?: AuditSink | undefined; actor?: string | undefined; at?: number } = {},
): Promise<StickyDecision> {
  const config = { configurable: { thread_id: threadId } };
  const state = await graph.getState(config);
  if (pendingApproval(state) !== undefined) throw new StickyRevokeError(stickyWhileWaiting(threadId));
  const guard = guardStateOf(state.values);
  const { guard: without, revoked } = revokeSticky(guard, id);
  if (!revoked) throw new StickyRevokeError(stickyUnknown(threadId, id, stickyDecisions(guard).map((s) => s.id)));
  await graph.updateState(config, { guard: without });
  await auditStickyRevoked(options.audit, threadId, revoked, options.actor, options.at ?? Date.now());
  return revoked;
}
