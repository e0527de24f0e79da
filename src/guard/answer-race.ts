import { auditId } from "../audit/record.js";
import { hasNullResume, takeNullResume } from "./langgraph-task.js";
import { builtRecord } from "../audit/schema.js";
import type { AuditRecord } from "../audit/types.js";
import { idempotencyKeyFor } from "../tools/define-tool.js";
import { baseRecord } from "./audit-trail.js";
import type { TurnContext } from "./audit-trail.js";
import type { Guard } from "./guard.js";
import type { ReviewedCall } from "./state.js";
import type { ApprovalState, SupersededAnswer } from "./approval/state.js";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { BaseMessage } from "@langchain/core/messages";
import { approverOf } from "./approval/approver.js";
import { reviewEvent, writerOf } from "./approval/events.js";
import type { DecisionEvent } from "./approval/events.js";
import { matchDecisions, ResumeSchema } from "./approval/resume.js";
import type { ApprovalResume } from "./approval/resume.js";
import { lastAIMessage } from "./last-ai-message.js";

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

/** Audits the losing answer (`supersededRecords`) and writes a `superseded` decision event per record to the custom stream. */
export async function recordSuperseded(
  guard: Guard,
  ctx: TurnContext,
  calls: readonly ReviewedCall[],
  report: SupersededAnswer,
  mine: RecordedAnswer,
  config: LangGraphRunnableConfig | undefined,
): Promise<void> {
  const records = supersededRecords(guard, ctx, calls, report, mine);
  if (records.length > 0) await guard.options.audit?.write(records);
  const writer = writerOf(config);
  for (const record of records) {
    const call = calls.find((c) => c.id === record.toolCallId);
    if (call) writer?.({ ...reviewEvent(ctx, call), id: record.id, source: "human", decision: "superseded", actor: record.actor } satisfies DecisionEvent);
  }
}

/**
 * One audit record per call the losing answer decided (event `human`, decision `superseded`, its
 * own sender as actor, what it asked for and which answer was applied in `detail`). Ids derive from
 * the losing answer, so a re-run writes nothing twice and two different losers get a record each.
 */
function supersededRecords(guard: Guard, ctx: TurnContext, calls: readonly ReviewedCall[], report: SupersededAnswer, mine: RecordedAnswer): AuditRecord[] {
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
        reason: `${report.late ? "this approval was already answered and its calls had run when this answer arrived" : "another answer to this approval won the ledger's claim first and was applied"}${applied ? ` (${applied}${report.appliedAnswer.actor !== undefined ? ` by ${report.appliedAnswer.actor}` : ""})` : report.late ? "" : " (it left this call waiting)"}; this ${yours} changed nothing`,
        actor: mine.approver.actor,
        detail: { ...mine.approver.detail, yours, ...(applied ? { applied } : {}), ...(report.appliedAnswer.actor !== undefined ? { appliedBy: report.appliedAnswer.actor } : {}) },
      }),
    ];
  });
}

const DECISION_TYPES = ["approve", "edit", "reject"] as const;

/**
 * An answer that reached the thread after the approval it answers was settled: another answer was
 * applied and its calls ran, and the run that applied it had not ended yet (two processes without the
 * thread lock). No interrupt waits for it, so LangGraph keeps it as a resume for whatever asks next
 * and runs the next step (the model's). The model step calls this first: the answer is taken (never
 * handed to a later approval) and recorded as superseded exactly like a losing answer at the approval
 * step (audit `human` record with decision `superseded` by its sender, a `superseded` stream event,
 * `guard.approvals.superseded` for `supersededAnswer`), naming the applied answer when the ledger
 * recorded it. Nothing else changes. Returns the approval state to keep, or undefined when no answer came.
 */
export async function settleLateAnswer(
  guard: Guard,
  approvals: ApprovalState | null | undefined,
  messages: readonly BaseMessage[],
  turn: { threadId: string; runId: string },
  config: LangGraphRunnableConfig | undefined,
): Promise<ApprovalState | undefined> {
  if (!hasNullResume(config)) return undefined;
  // Calls wait for a human (asked again after a refused or partial answer): the resume is theirs, the step that asks takes it.
  if ((approvals?.pending?.callIds.length ?? 0) > 0) return undefined;
  const raw = takeNullResume(config);
  // The approval it answers: the one a human's answer last settled, else the last model message's calls.
  const ai = lastAIMessage(messages);
  const answered = approvals?.answered ?? (ai ? { messageId: approvals?.reviewed?.messageId ?? ai.id ?? "", run: -1, callIds: (ai.tool_calls ?? []).flatMap((c) => (c.id ? [c.id] : [])) } : undefined);
  if (answered === undefined) return undefined;
  const callsById = new Map((ai?.tool_calls ?? []).map((c) => [c.id ?? "", c]));
  const calls: ReviewedCall[] = answered.callIds.map((id) => {
    const call = callsById.get(id);
    const name = call?.name ?? "";
    const args = call?.args && typeof call.args === "object" ? (call.args as Record<string, unknown>) : {};
    return { id, name, args, outcome: "ask", ruleId: "approval:answer-superseded", reason: "", risk: guard.riskOf(name), concurrencySafe: false, requestHeartbeat: false };
  });
  const ctx: TurnContext = { ...turn, messageId: answered.messageId };
  const decisionsOf = (value: unknown) => {
    const parsed = ResumeSchema.safeParse(value);
    if (!parsed.success) return { actor: undefined, decisions: new Map<string, { type: "approve" | "edit" | "reject" }>() };
    const match = matchDecisions(calls, parsed.data as ApprovalResume, DECISION_TYPES, { partial: true });
    return { actor: parsed.data.actor, decisions: match.ok ? match.decisions : new Map<string, { type: "approve" | "edit" | "reject" }>() };
  };
  const own = decisionsOf(raw);
  const mine: RecordedAnswer = { resume: raw, approver: approverOf(config, own.actor) };
  // Which answer was applied: the ledger recorded it under the approval's key.
  const ledger = guard.options.ledger;
  const recorded = ledger && answered.run >= 0 ? await ledger.result(answerKey(ctx, answered.run, answered.callIds)) : undefined;
  // The same answer delivered again (it is the one that was applied): nothing was superseded.
  if (recorded !== undefined && recorded === JSON.stringify(mine)) return approvals ?? undefined;
  const applied: RecordedAnswer = recorded !== undefined ? (JSON.parse(recorded) as RecordedAnswer) : { resume: undefined, approver: { actor: undefined, detail: {} } };
  const theirs = recorded !== undefined ? decisionsOf(applied.resume).decisions : new Map<string, { type: "approve" | "edit" | "reject" }>();
  const report: SupersededAnswer = { ...supersededReport(ctx, mine, own.decisions, applied, theirs), late: true };
  await recordSuperseded(guard, ctx, calls, report, mine, config);
  return { ...(approvals ?? { refused: null, pending: null, sticky: [] }), superseded: report };
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
