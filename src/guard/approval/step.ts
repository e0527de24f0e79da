import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { interrupt } from "@langchain/langgraph";
import { auditId } from "../../audit/record.js";
import { callsChangedRefused, resumeMatchRefused } from "../../messages/approval.js";
import { approvalDescription, approvalNotes, refusals } from "../../messages/index.js";
import { decisionContextOf } from "../../provenance/context.js";
import type { RuleState } from "../../rules/types.js";
import { claimAnswer, recordSuperseded, supersededReport } from "../answer-race.js";
import { auditDecisions } from "../audit-trail.js";
import type { TurnContext } from "../audit-trail.js";
import type { Guard } from "../guard.js";
import type { RawToolCall } from "../review.js";
import type { ExecutionLedgerView } from "../interfaces.js";
import type { ReviewedCall } from "../state.js";
import { approverOf } from "./approver.js";
import { emitRefused, emitReviewEvents, recordHuman, reviewEvent, writerOf } from "./events.js";
import { reviewSettingsOf } from "./interrupt-on.js";
import type { ReviewSettings } from "./interrupt-on.js";
import { savedInterruptValues } from "../langgraph-task.js";
import { approvalRequest, readApprovalRequest } from "./payload.js";
import { ApprovalResumeError, matchDecisions, ResumeSchema, resumeSchemaFor } from "./resume.js";
import type { ApprovalResume } from "./resume.js";
import { callsChangedSince, callsDigest, emptyApprovalState, samePending } from "./state.js";
import type { ApprovalState, StickyDecision } from "./state.js";
import { applyStanding, stickyFor } from "./sticky.js";
import { approverGateOf, auditApproverRefusal, reviewConfigOf, settleApprovals } from "./approvers.js";

// ─── the approval step ────────────────────────────────────────────────────────────────────────

interface ApprovalStep {
  /** The turn's calls in order, every answered "ask" replaced by its decided outcome (unanswered ones stay "ask"). */
  calls: ReviewedCall[];
  /** The approval state to checkpoint with the guard state. */
  approvals: ApprovalState;
  /**
   * The resume did not fit and `routeBack` was set: nothing was decided; the caller must finish
   * its step with `approvals` written and run the review step again (which asks again).
   */
  retry: boolean;
}

export interface ApprovalStepOptions {
  /** Approval state from the checkpointed guard state (absent in checkpoints older than it). */
  approvals?: ApprovalState | undefined;
  /**
   * Whether the caller's graph runs review again while the model message still has open calls
   * (createGuardedAgent does; GuardedToolNode and the middleware cannot). When it does:
   * - a resume that does not fit ends the step with `retry` (nothing decided) and review asks again
   *   in the next step, so the head checkpoint keeps no trace of the refused value;
   * - partial answers: calls left unanswered stay pending (no ToolMessage) and are asked again
   *   after the answered ones ran.
   * When it does not (default), a resume that does not fit raises the same interrupt again at once,
   * inside the same task, unless `partial` is set (the caller comes back: the step ends, see below).
   */
  routeBack?: boolean;
  /**
   * Whether the caller comes back for calls a partial answer left open (default: `routeBack`):
   * answered calls go ahead, the others stay pending (no ToolMessage, `pending` lists them) and are
   * reviewed and asked again by the caller's next review. Without it every pending call needs a
   * decision. All three entry points set it (GuardedToolNode goes back to itself, the middleware
   * asks again in beforeModel). A resume that does not fit is then a partial answer of none: the step
   * ends with `retry` and every call waiting, so LangGraph's pending `__resume__` write of the
   * refused value goes with the step and nothing is left to replay.
   */
  partial?: boolean;
  /**
   * Where the calls a human is asked about are noted before the interrupt, when the caller does not
   * record them in the checkpoint first (no `routeBack`): the execution ledger. On resume, calls that
   * changed since they were asked (a client's state update, alone or in the Command that carries the
   * answer) are not decided by the answer: they are asked again. Without a ledger, what was asked is
   * read back from the approval request LangGraph saved with the step's checkpoint (replaced when a
   * tool of the same task asks the user afterwards, see `changedSinceShown`).
   */
  ledger?: ExecutionLedgerView | undefined;
}

/**
 * The approval step of one model turn: raises ONE approval interrupt for every reviewed call that
 * asks, parses the human's resume strictly, applies each decision (approve; edit, reviewed again;
 * reject), audits it and writes it to the custom stream. A resume that does not fit is asked again
 * with its error, never fails the run. Everything before `interrupt` is pure apart from idempotent
 * audit writes and stream events, so LangGraph can run it again on resume.
 */
export async function resolveApprovals(
  guard: Guard,
  state: RuleState,
  calls: readonly RawToolCall[],
  reviewedInput: readonly ReviewedCall[],
  ctx: TurnContext,
  config: LangGraphRunnableConfig | undefined,
  options: ApprovalStepOptions = {},
): Promise<ApprovalStep> {
  let reviewed: readonly ReviewedCall[] = reviewedInput;
  const approvals = options.approvals ?? emptyApprovalState();
  const standing = approvals.sticky ?? [];
  const asking = reviewed.filter((c) => c.outcome === "ask");
  const partial = options.partial ?? options.routeBack === true;
  // Approver rules (undefined without any): who may answer; who ran the calls is recorded before the interrupt.
  const gate = approverGateOf(guard, ctx, approvals, config, partial);
  const byStanding = new Map(asking.flatMap((c) => {
    const s = stickyFor(standing, c, ctx.runId);
    return s && gate?.standingHolds(c, s.decision) !== false ? [[c.id, s] as const] : [];
  }));
  const pending = asking.filter((c) => !byStanding.has(c.id));
  // What the run keeps across its approvals: a superseded answer's report (until the run ends) and the approval last answered.
  const kept: Pick<ApprovalState, "superseded" | "answered"> = {
    ...(approvals.superseded ? { superseded: approvals.superseded } : {}),
    ...(approvals.answered ? { answered: approvals.answered } : {}),
  };
  const settled: ApprovalState = { refused: null, pending: null, sticky: standing, reviewed: { messageId: ctx.messageId }, ...kept };
  // Every open call of the turn waits while the human decides (the guard has answered none of them yet).
  // What they are is recorded with them: an answer decides the calls the reviewer was shown.
  // What waits is written down only when something does (the digest reads every call's arguments).
  const waiting = pending.length > 0 ? { messageId: ctx.messageId, callIds: calls.map((c) => c.id), digest: callsDigest(calls) } : undefined;
  if (waiting !== undefined && (options.routeBack === true || (partial && gate?.mustRecord(pending) === true)) && (!samePending(approvals.pending, waiting) || gate?.mustRecord(pending) === true)) {
    // Record what waits for a human in the checkpoint first; the next review step raises the interrupt.
    // Calls of this message recorded before and rewritten since (a client's state update, alone or in
    // the Command that carries the answer): the answer is not taken for them; they are asked again, saying why.
    const refused = callsChangedSince(approvals.pending, waiting) ? { messageId: ctx.messageId, error: callsChangedRefused } : (approvals.refused ?? null);
    return { calls: [...reviewed], approvals: { refused, pending: waiting, sticky: standing, ...kept, ...gate?.state(pending) }, retry: true };
  }
  emitReviewEvents(ctx, reviewed, config);
  const afterStanding = await applyStanding(guard, reviewed, byStanding, ctx, config);
  if (waiting === undefined) return { calls: afterStanding, approvals: settled, retry: false };
  reviewed = afterStanding;

  const settings = new Map<string, ReviewSettings>();
  for (const call of pending) settings.set(call.id, await reviewSettingsOf(guard, call, ctx, config));
  const allowed = new Map(pending.map((c) => [c.id, settings.get(c.id)?.allowed ?? guard.allowedDecisions]));
  const allowedOf = (call: ReviewedCall) => allowed.get(call.id) ?? guard.allowedDecisions;
  const descriptionOf = (call: ReviewedCall) => {
    const own = settings.get(call.id)?.description;
    return gate === undefined ? own : gate.note(call, own ?? approvalDescription({ tool: call.name, risk: call.risk, ruleId: call.ruleId, reason: call.reason }));
  };
  const schemaByName = new Map(pending.map((c) => [c.name, settings.get(c.id)?.argsSchema]));
  const argsSchemaOf = (name: string) => schemaByName.get(name);
  const shownError = approvals.refused?.messageId === ctx.messageId ? approvals.refused.error : undefined;
  const responseSchema = resumeSchemaFor(pending, allowed, { partial, config, gate });
  // What the reviewer is shown: recorded in the approval state, else noted in the ledger (first note wins).
  const recordedShown = approvals.pending?.messageId === ctx.messageId ? approvals.pending.digest : undefined;
  const shownKey = askedKey(ctx, state.run);
  if (recordedShown === undefined && options.ledger !== undefined) await options.ledger.complete(shownKey, waiting.digest);
  // Nothing decided: every call of the turn stays waiting, asked again in a new step with `reason` shown.
  const askAgain = (reason: string): ApprovalStep => ({ calls: [...reviewed], approvals: { refused: { messageId: ctx.messageId, error: reason }, pending: waiting, sticky: standing, ...kept, ...gate?.state() }, retry: true });
  let raw: unknown;
  let error = shownError;
  for (;;) {
    try {
      raw = interrupt(approvalRequest(pending, allowedOf, argsSchemaOf, error, descriptionOf), { responseSchema });
      break;
    } catch (caught) {
      if (!(caught instanceof ApprovalResumeError)) throw caught;
      error = caught.message;
      emitRefused(ctx, pending, error, config);
      if (gate !== undefined) await auditApproverRefusal(guard, ctx, gate, pending);
      if (partial) {
        // Nothing was decided: every call of the turn stays waiting and the caller comes back for it
        // (review again, GuardedToolNode's goto itself, the middleware's beforeModel) in a NEW step.
        // Ending this step is what drops the refused value: LangGraph keeps a plain resume as a
        // pending write of the head checkpoint until a step completes, and invoke(null) or a resume
        // keyed by another interrupt id would hand it back (test/refused-resume-replay.test.ts).
        return askAgain(error);
      }
      // A caller that cannot come back (GuardedToolNode run outside a graph): LangGraph did not add
      // the refused value to this task's resume values; the next interrupt has the same id as the
      // first and waits for the next answer (GraphInterrupt ends the task).
    }
  }
  // The calls changed since the reviewer was shown them: the answer decides nothing; they are asked
  // again in a new step (which drops this answer), saying why.
  if (await changedSinceShown(recordedShown ?? (options.ledger !== undefined ? await options.ledger.result(shownKey) : undefined), waiting.digest, pending, config)) {
    emitRefused(ctx, pending, callsChangedRefused, config);
    return askAgain(callsChangedRefused);
  }
  const resume = ResumeSchema.parse(raw) as ApprovalResume;
  const own = matchDecisions(pending, resume, allowed, { partial });
  if (!own.ok) throw new ApprovalResumeError(resumeMatchRefused(own.error));
  // Another answer sent at the same time without the thread lock: the one that won the ledger's claim is applied (answer-race.ts).
  const mine = { resume, approver: approverOf(config, resume.actor) };
  const race = await claimAnswer(guard, ctx, state.run, pending.map((c) => c.id), mine);
  const match = race.lost ? matchDecisions(pending, race.applied.resume as ApprovalResume, allowed, { partial }) : own;
  if (!match.ok) throw new ApprovalResumeError(resumeMatchRefused(match.error));
  const superseded = race.lost ? supersededReport(ctx, mine, own.decisions, race.applied, match.decisions) : undefined;

  const approver = race.applied.approver;
  // Approvals that count but do not complete their call's count leave the call waiting (asked again).
  if (gate !== undefined) await settleApprovals(guard, ctx, gate, pending, match.decisions, config, race.lost);
  const decided = new Map<string, ReviewedCall>(reviewed.map((c) => [c.id, c]));
  const added: StickyDecision[] = [];
  const writer = writerOf(config);
  for (const call of pending) {
    const decision = match.decisions.get(call.id);
    if (!decision) continue;
    const detail: Record<string, unknown> = { ...approver.detail, ...gate?.detail(call.id) };
    if (decision.type === "approve") {
      decided.set(call.id, { ...call, outcome: "run", reason: approvalNotes.approved(call.reason) });
    } else if (decision.type === "reject") {
      decided.set(call.id, { ...call, outcome: "refuse", message: refusals.humanRejected(call.name, decision.message) });
      if (decision.message) detail.message = decision.message;
    } else {
      const edited = await reviewEdit(guard, state, calls, call, decision.editedAction, reviewConfigOf(config, approvals, ctx.messageId), ctx);
      decided.set(call.id, edited);
      detail.editedAction = decision.editedAction;
      detail.result = edited.outcome === "refuse" ? `refused by ${edited.ruleId}` : "approved";
    }
    if (decision.type !== "edit" && decision.sticky !== undefined) {
      const made: StickyDecision = {
        id: auditId([ctx.threadId, ctx.messageId, call.id, "sticky"]),
        decision: decision.type,
        tool: call.name,
        ...(decision.sticky.args !== undefined ? { args: decision.sticky.args } : {}),
        scope: decision.sticky.scope,
        runId: ctx.runId,
        toolCallId: call.id,
        ...(approver.actor !== undefined ? { actor: approver.actor } : {}),
        at: guard.now(),
        ...(decision.type === "reject" && decision.message ? { message: decision.message } : {}),
      };
      added.push(made);
      detail.sticky = { id: made.id, scope: made.scope, ...(made.args ? { args: made.args } : {}) };
    }
    await recordHuman(guard, ctx, call, decision.type, approver.actor, Object.keys(detail).length > 0 ? detail : undefined, writer);
  }
  if (superseded) await recordSuperseded(guard, ctx, pending, superseded, mine, config);
  const edits = [...decided.values()].filter((c) => c.edited);
  await auditDecisions(guard, ctx, edits);
  for (const edit of edits) writer?.(reviewEvent(ctx, edit));
  // Partial answer: the calls left unanswered are still waiting (review asks again after the others ran).
  const leftIds = new Set(pending.filter((c) => !match.decisions.has(c.id)).map((c) => c.id));
  const left = calls.filter((c) => leftIds.has(c.id));
  const sticky = [...standing, ...added.filter((a) => !standing.some((s) => s.id === a.id))];
  const after: ApprovalState = {
    refused: null,
    pending: left.length > 0 ? { messageId: ctx.messageId, callIds: left.map((c) => c.id), digest: callsDigest(left) } : null,
    sticky,
    reviewed: { messageId: ctx.messageId },
    ...kept,
    ...(superseded ? { superseded } : {}),
    answered: { messageId: ctx.messageId, run: state.run, callIds: pending.map((c) => c.id) },
    ...gate?.state(),
  };
  return { calls: reviewed.map((c) => decided.get(c.id) ?? c), approvals: after, retry: false };
}

/**
 * Whether the calls waiting now are not those the reviewer was shown. What was shown comes from the
 * approval state or the ledger's note (`noted`, a digest of every open call of the message), else
 * from the approval request LangGraph saved with the waiting step's checkpoint (the asked calls as the
 * reviewer saw them): that is what a GuardedToolNode or guardMiddleware on a checkpointer without the
 * guard's ledger has. Nothing found (no checkpointer to read): not known to have changed.
 */
async function changedSinceShown(noted: string | undefined, now: string, pending: readonly ReviewedCall[], config: LangGraphRunnableConfig | undefined): Promise<boolean> {
  if (noted !== undefined) return noted !== now;
  const saved = (await savedInterruptValues(config, readApprovalRequest)).at(-1);
  if (saved === undefined) return false;
  const shown = saved.actionRequests.map((a) => ({ id: a.toolCallId, name: a.name, args: a.args }));
  return callsDigest(asSaved(shown)) !== callsDigest(asSaved(pending.map((c) => ({ id: c.id, name: c.name, args: c.args }))));
}

/** Calls as a checkpoint keeps them (JSON): a value that JSON writes as text compares as that text. */
function asSaved(calls: { id: string; name: string; args: unknown }[]): { id: string; name: string; args: unknown }[] {
  return calls.map((c) => ({ ...c, args: JSON.parse(JSON.stringify(c.args ?? {})) as unknown }));
}

/** The ledger key under which the calls first shown to a reviewer for a model message are noted. */
function askedKey(ctx: Pick<TurnContext, "threadId" | "messageId">, run: number): string {
  return auditId([ctx.threadId, `run${run}`, ctx.messageId, "approval-asked"]);
}

/**
 * Whether the calls of a model message may have been answered or rewritten by someone else since a
 * reviewer was asked about them in this run (a client's state update while the approval waited): the
 * ledger's note of the calls asked about differs from the calls open now (`openNow`). Nobody was asked
 * (no note): no, whatever answered a call did so before the guard's review (a middleware whose
 * afterModel runs before the guard's). Without a ledger nobody can tell: yes.
 */
export async function changedSinceAsked(ledger: ExecutionLedgerView | undefined, ctx: Pick<TurnContext, "threadId" | "messageId">, run: number, openNow: readonly RawToolCall[]): Promise<boolean> {
  if (ledger === undefined) return true;
  const noted = await ledger.result(askedKey(ctx, run));
  return noted !== undefined && noted !== callsDigest(openNow);
}

async function reviewEdit(
  guard: Guard,
  state: RuleState,
  calls: readonly RawToolCall[],
  original: ReviewedCall,
  editedAction: { name: string; args: Record<string, unknown> },
  config: LangGraphRunnableConfig | undefined,
  ctx: TurnContext,
): Promise<ReviewedCall> {
  const substituted = calls.map((c) => (c.id === original.id ? { id: c.id, ...editedAction } : c));
  const upTo = substituted.slice(0, substituted.findIndex((c) => c.id === original.id) + 1);
  const { reviewed } = await guard.reviewTurn(state, upTo, config, decisionContextOf(ctx));
  const again = reviewed[reviewed.length - 1];
  if (!again) throw new Error(`edited call ${original.id} vanished from its turn`);
  if (again.outcome === "refuse") {
    return { ...again, edited: true, message: refusals.editRefused(again.message ?? refusals.generic(again.name, again.ruleId, again.reason)) };
  }
  return { ...again, outcome: "run", edited: true, reason: approvalNotes.editedAndApproved(again.reason) };
}
