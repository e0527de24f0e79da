import { auditId } from "../audit/record.js";
import { builtRecord } from "../audit/schema.js";
import type { AuditRecord } from "../audit/types.js";
import { idempotencyKeyFor } from "../tools/define-tool.js";
import { baseRecord } from "./audit-trail.js";
import type { TurnContext } from "./audit-trail.js";
import type { Guard } from "./guard.js";
import type { ReviewedCall } from "./state.js";
import type { SupersededAnswer } from "./approval/state.js";

/**
 * Two answers to one approval at once. With the thread lock only one worker ever resumes an
 * approval; without it (a plain `Command({ resume })` from two processes) both review steps get
 * their own answer. The ledger decides which answer counts: each answer claims the approval's key
 * (thread, run, model message and the calls it answers) before anything of it is applied; the first
 * claim records the answer, every other one reads it back and applies THAT answer instead of its
 * own. So the human record, the ToolMessages and what runs all come from one answer, whichever
 * process writes them; the other answer is audited as superseded and reported in its run's result
 * (`supersededAnswer`), and changes nothing.
 */

/** An answer as the ledger records it: the resume value and who answered (as the guard determined it). */
interface RecordedAnswer {
  resume: unknown;
  approver: { actor: string | undefined; detail: Record<string, unknown> };
}

/** A claimed answer is recorded right after its claim; a claim older than this whose answer never came was a worker that died in between. */
const ANSWER_LEASE_MS = 5_000;
const ANSWER_POLL_MS = 20;

function answerKey(ctx: TurnContext, run: number, callIds: readonly string[]): string {
  return idempotencyKeyFor(ctx.threadId, `run${run}\u0000answer\u0000${ctx.messageId}\u0000${[...callIds].sort().join("\u0000")}`);
}

/**
 * Claims the approval of `callIds` for `mine` in the guard's ledger. Returns the answer to apply:
 * `mine` when it won (or when no ledger is configured, or the recorded answer is this same answer
 * applied again, e.g. a re-run of its step), else the recorded winner with `lost: true`.
 */
export async function claimAnswer(
  guard: Guard,
  ctx: TurnContext,
  run: number,
  callIds: readonly string[],
  mine: RecordedAnswer,
): Promise<{ applied: RecordedAnswer; lost: boolean }> {
  const ledger = guard.options.ledger;
  if (!ledger) return { applied: mine, lost: false };
  const key = answerKey(ctx, run, callIds);
  const text = JSON.stringify(mine);
  for (;;) {
    const claim = await ledger.claim(key, guard.workerId, ANSWER_LEASE_MS);
    if (claim === "claimed") {
      await ledger.complete(key, text);
      return { applied: mine, lost: false };
    }
    if (claim === "done") {
      const recorded = await ledger.result(key);
      if (recorded === undefined || recorded === text) return { applied: mine, lost: false };
      return { applied: JSON.parse(recorded) as RecordedAnswer, lost: true };
    }
    await new Promise((resolve) => setTimeout(resolve, ANSWER_POLL_MS));
  }
}

/** The losing answer's report, kept in the approval state its run returns. */
export function supersededReport(
  ctx: TurnContext,
  mine: RecordedAnswer,
  yours: ReadonlyMap<string, { type: "approve" | "edit" | "reject" }>,
  applied: RecordedAnswer,
  theirs: ReadonlyMap<string, { type: "approve" | "edit" | "reject" }>,
): SupersededAnswer {
  const types = (m: ReadonlyMap<string, { type: "approve" | "edit" | "reject" }>) => Object.fromEntries([...m].map(([id, d]) => [id, d.type]));
  return {
    messageId: ctx.messageId,
    yours: types(yours),
    ...(mine.approver.actor !== undefined ? { actor: mine.approver.actor } : {}),
    appliedAnswer: { ...(applied.approver.actor !== undefined ? { actor: applied.approver.actor } : {}), decisions: types(theirs) },
  };
}

/**
 * One audit record per call the losing answer decided (event `human`, decision `superseded`, its
 * own sender as actor, what it asked for and which answer was applied in `detail`). Ids derive from
 * the losing answer, so a re-run writes nothing twice and two different losers get a record each.
 */
export function supersededRecords(guard: Guard, ctx: TurnContext, calls: readonly ReviewedCall[], report: SupersededAnswer, mine: RecordedAnswer): AuditRecord[] {
  const answerText = JSON.stringify(mine);
  return calls.flatMap((call) => {
    const yours = report.yours[call.id];
    if (yours === undefined) return [];
    const applied = report.appliedAnswer.decisions[call.id];
    return [
      builtRecord({
        ...baseRecord(guard, ctx, call),
        id: auditId([ctx.threadId, ctx.messageId, call.id, "superseded", answerText]),
        event: "human",
        decision: "superseded",
        ruleId: "approval:answer-superseded",
        reason: `another answer to this approval won the ledger's claim first and was applied${applied ? ` (${applied}${report.appliedAnswer.actor !== undefined ? ` by ${report.appliedAnswer.actor}` : ""})` : " (it left this call waiting)"}; this ${yours} changed nothing`,
        actor: mine.approver.actor,
        detail: { ...mine.approver.detail, yours, ...(applied ? { applied } : {}), ...(report.appliedAnswer.actor !== undefined ? { appliedBy: report.appliedAnswer.actor } : {}) },
      }),
    ];
  });
}

/**
 * The report of a run whose answer to an approval lost to another answer sent at the same time
 * (without the thread lock): pass `graph.invoke(new Command({ resume }), config)`'s result, or a
 * state snapshot's `values`. Undefined when the run's answer was the one applied.
 */
export function supersededAnswer(result: unknown): SupersededAnswer | undefined {
  if (typeof result !== "object" || result === null) return undefined;
  const values = "values" in result && typeof (result as { values?: unknown }).values === "object" ? (result as { values: unknown }).values : result;
  const guard = (values as { guard?: { approvals?: { superseded?: SupersededAnswer | null } } } | null)?.guard;
  return guard?.approvals?.superseded ?? undefined;
}
