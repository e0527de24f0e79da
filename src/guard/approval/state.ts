import type { ApproverRecord } from "../../principal/approvers.js";
import { sha256Hex } from "../../sha256.js";

// ─── the approval state ───────────────────────────────────────────────────────────────────────

/** What the approval step keeps in the checkpointed guard state (`GuardState.approvals`). */
export interface ApprovalState {
  /** The last resume that did not fit, for the model message whose calls are pending: shown when asked again. */
  refused: { messageId: string; error: string } | null;
  /**
   * The open calls of a turn waiting for a human (those that ask and the others of the turn, which
   * the guard has not answered yet), recorded before the interrupt is raised (graphs that route back
   * only): at run start, new input finds them here, so no ToolMessage of the input is taken as their result.
   */
  pending?: WaitingCalls | null | undefined;
  /** The model message whose review last completed (its decisions were written with the turn): at run start, a later one with open calls was never answered by the guard. */
  reviewed?: { messageId: string } | null | undefined;
  /** Standing decisions ("don't ask again"), checkpointed with the thread; see `stickyDecisions`. */
  sticky?: StickyDecision[] | undefined;
  /** Set by the step whose answer lost to another answer sent at the same time (answer-race.ts); read it with `supersededAnswer`. */
  superseded?: SupersededAnswer | null | undefined;
  /** Approver rules: who ran the calls waiting for a human, and the approvals counted so far (src/principal/approvers.ts). */
  approvers?: ApproverRecord | null | undefined;
  /**
   * The approval a human's answer last settled (its model message, rule-state run and the calls it
   * answered): an answer that reaches the thread after it was settled is recorded against it (answer-race.ts).
   */
  answered?: { messageId: string; run: number; callIds: string[] } | null | undefined;
}

/**
 * A standing decision a reviewer made: later calls of `tool` (with `args`' values, if given) that
 * would ask are approved or rejected without asking, for the run it was made in or for the thread.
 * Only asks are answered this way: a deny is never overridden, and neither is a killswitch ask.
 */
export interface StickyDecision {
  /** Stable id (revoke with it). */
  id: string;
  decision: "approve" | "reject";
  tool: string;
  args?: Record<string, unknown> | undefined;
  scope: "run" | "thread";
  /** The run it was made in (a "run" decision holds only there). */
  runId: string;
  /** The call whose decision made it. */
  toolCallId: string;
  actor?: string | undefined;
  at: number;
  /** A standing reject's note to the model. */
  message?: string | undefined;
}

export function emptyApprovalState(): ApprovalState {
  return { refused: null, pending: null, sticky: [] };
}

/** The open calls of a turn that wait for a human, as recorded before the interrupt is raised. */
interface WaitingCalls {
  messageId: string;
  callIds: string[];
  /**
   * What the calls were when they were recorded (`callsDigest` of their ids, names and arguments):
   * a human's answer decides the calls the reviewer was shown, so calls rewritten after that (a
   * client's state update, with or without the resume in the same command) are asked again.
   * Absent in checkpoints older than it.
   */
  digest?: string | undefined;
}

export function samePending(a: ApprovalState["pending"], b: WaitingCalls): boolean {
  return a !== null && a !== undefined && a.messageId === b.messageId && a.callIds.join("\u0000") === b.callIds.join("\u0000") && (a.digest === undefined || a.digest === b.digest);
}

/** The same message's calls were recorded waiting, and they have changed since (names, arguments or which calls). */
export function callsChangedSince(a: ApprovalState["pending"], b: WaitingCalls): boolean {
  return a !== null && a !== undefined && a.messageId === b.messageId && !samePending(a, b);
}

/** A digest of calls' ids, names and arguments: the same for the same calls, whatever the order of keys in their arguments. */
export function callsDigest(calls: readonly { id: string; name: string; args: unknown }[]): string {
  return sha256Hex(calls.map((c) => sortedJson([c.id, c.name, c.args])).join("\n"));
}

/** JSON text with object keys sorted at every depth (undefined values dropped, as JSON drops them). */
function sortedJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(",")}]`;
  const entries = Object.keys(value)
    .sort()
    .flatMap((key) => {
      const item = (value as Record<string, unknown>)[key];
      return item === undefined ? [] : [`${JSON.stringify(key)}:${sortedJson(item)}`];
    });
  return `{${entries.join(",")}}`;
}

/** What the losing answer's run reports (`guard.approvals.superseded`, read with `supersededAnswer`). */
export interface SupersededAnswer {
  /** The model message whose calls the approval was for. */
  messageId: string;
  /** The calls the losing answer decided, with its decision for each. */
  yours: Record<string, "approve" | "edit" | "reject">;
  /** Who sent the losing answer (as the guard determined it), when known. */
  actor?: string | undefined;
  /** The answer that was applied: its approver and its decision for each call (empty when the guard has no ledger that recorded it). */
  appliedAnswer: { actor?: string | undefined; decisions: Record<string, "approve" | "edit" | "reject"> };
  /** The answer reached the thread after the approval was settled and its calls had run (no interrupt waited for it). */
  late?: true | undefined;
}
