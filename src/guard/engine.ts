import { AIMessage as AIMessageClass, HumanMessage } from "@langchain/core/messages";
import type { AIMessage, BaseMessage, ToolMessage } from "@langchain/core/messages";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { createHash } from "node:crypto";
import { killswitchAsksNow, refusedAtStart } from "../messages/engine.js";
import { limitEndings, refusals, reminders } from "../messages/index.js";
import type { RuleState } from "../rules/types.js";
import { auditId } from "../audit/record.js";
import { auditOutcome, auditRecheck, outcomeRecord, threadIdOf } from "./audit-trail.js";
import type { AuditRecord } from "../audit/types.js";
import type { TurnContext } from "./audit-trail.js";
import type { ApprovalState } from "./approval/state.js";
import type { ApprovalStepOptions } from "./approval/step.js";
import { executeCall, refusedCall } from "./execute.js";
import { auditCarriedBy, claimBatch } from "./ledger-claim.js";
import type { ExecutedCall } from "./execute.js";
import type { ExecutionLedgerView } from "./interfaces.js";
import type { Guard } from "./guard.js";
import { guardReminder, isGuardMessage } from "./model-step.js";
import { partitionCalls } from "./partition.js";
import { idempotencyKeyFor } from "../tools/define-tool.js";
import type { CallResult, GuardState, ReviewedCall, TurnPlan } from "./state.js";
import { openToolCalls, refusalMessage, reviewTurnWithApproval } from "./turn.js";
import { lastAIMessage } from "./last-ai-message.js";
import type { RawToolCall } from "./review.js";
import { argsObject } from "./review.js";
import { auditDecisions } from "./audit-trail.js";
import { emptyApprovalState } from "./approval/state.js";
import { ToolCallLimitError } from "../errors/index.js";
import type { ToolCallLimitStop } from "../errors/index.js";

/**
 * The turn engine: the one place where a run starts, a turn is planned, each call is authorized
 * immediately before it starts, runs and is recorded, and where loop control (Terminal, heartbeats,
 * RequiredForExit escalation) is decided. The three entry points (createGuardedAgent's nodes,
 * GuardedToolNode, guardMiddleware) are adapters that move state in and out of these functions.
 */

// ─── identities ────────────────────────────────────────────────────────────────────────────────

/**
 * Everything that coordinates calls (batch membership and abort scope, ledger keys, audit ids) is
 * keyed by thread + run + model message, never by a message id alone: two threads whose model
 * repeats message ids never share a batch.
 */
export function batchKey(ctx: TurnContext, batch: number): string {
  return `${ctx.threadId}\u0000${ctx.runId}\u0000${ctx.messageId}#${batch}`;
}

/**
 * The ledger's key for a call: thread + run + model message + tool call id, so a model that repeats
 * call ids (across runs, or across the turns of one run: providers that number their calls per
 * response, `call_0` in every turn) still runs each call, and no call is answered with another's
 * result. The run is the rule state's run index and the message id the turn's (`messageIdOf`): both
 * are what the checkpoint holds, so a step re-run after a crash finds the same key.
 */
export function ledgerKeyFor(threadId: string, run: number, messageId: string, callId: string): string {
  return idempotencyKeyFor(threadId, `run${run}\u0000${messageId}\u0000${callId}`);
}

/**
 * Id for an AIMessage that has none (LangGraph's message reducer always gives one; a user's own
 * reducer may not, as a plain `concat`): derived from the message's place in the thread, its content
 * and calls, so a re-run of the step finds the same id, and two messages never share one — not even
 * a model's same answer given twice (the same call, with ids it numbers per response), which would
 * otherwise be answered with the first one's result and leave no record of its own.
 */
export function messageIdOf(ai: AIMessage, threadId: string, messages: readonly BaseMessage[]): string {
  if (ai.id) return ai.id;
  const calls = (ai.tool_calls ?? []).map((c) => [c.id ?? "", c.name, c.args]);
  const body = JSON.stringify([threadId, messages.lastIndexOf(ai), typeof ai.content === "string" ? ai.content : ai.content, calls]);
  return `ai_${createHash("sha256").update(body).digest("hex").slice(0, 24)}`;
}

/** The id of the latest user message (not a guard reminder): a new one starts a new run. */
function runIdOf(messages: readonly BaseMessage[], threadId: string): string {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const m = messages[i];
    if (m && HumanMessage.isInstance(m) && !isGuardMessage(m)) {
      if (m.id) return m.id;
      const content = typeof m.content === "string" ? m.content : JSON.stringify(m.content);
      return `human_${auditId([threadId, String(i), content])}`;
    }
  }
  return "";
}

// ─── run start ─────────────────────────────────────────────────────────────────────────────────

export function rulesOf(guard: Guard, g: GuardState): RuleState {
  return g.rules ?? guard.initialRuleState();
}

/** New user input: per-run rules reset; forced, terminated and turn state cleared. The one run start. */
function startRun(guard: Guard, g: GuardState, runId: string): GuardState {
  return {
    ...g,
    rules: guard.engine.startRun(rulesOf(guard, g), guard.now()),
    runId,
    turn: null,
    forcedTool: null,
    terminatedBy: null,
    next: "agent",
    exitUnsatisfied: [],
    limitError: null,
    // A report that an earlier answer was superseded belongs to the run that sent it.
    ...(g.approvals?.superseded ? { approvals: { ...g.approvals, superseded: null } } : {}),
  };
}

/** Starts a run when the latest user message is not the one the current run started from. */
export function startRunIfNew(guard: Guard, g: GuardState, messages: readonly BaseMessage[], threadId: string): GuardState {
  const runId = runIdOf(messages, threadId);
  return runId !== "" && runId !== g.runId ? startRun(guard, g, runId) : { ...g, rules: rulesOf(guard, g) };
}

// ─── planning ──────────────────────────────────────────────────────────────────────────────────

/**
 * The execution plan of a reviewed turn: approved calls in batches, in model order. Consecutive
 * concurrency-safe calls share a batch (seed 003), an unsafe call runs alone, AND a call that the
 * rules allow only after an earlier call of the same turn (MustFollow, MustPrecede, InitialCall, …)
 * starts a later batch, so it starts after that call has finished and its result is known.
 */
function planTurn(
  guard: Guard,
  rules: RuleState,
  messageId: string,
  runnable: readonly ReviewedCall[],
  refused: number,
  endRun?: { ruleId: string; reason: string },
): TurnPlan {
  // The rule state at the start of the current batch: the turn's earlier batches counted as run.
  let counted = 0;
  let atBatchStart = rules;
  const needsEarlier = guard.hasPrerequisiteRules
    ? (call: ReviewedCall, closed: readonly ReviewedCall[]) => {
        for (; counted < closed.length; counted += 1) atBatchStart = provisional(guard, atBatchStart, closed[counted] as ReviewedCall);
        return guard.engine.checkCall(atBatchStart, { tool: call.name, operation: call.operation }, guard.now()) !== null;
      }
    : undefined;
  const batches = partitionCalls(runnable, needsEarlier);
  const plan: TurnPlan = { messageId, calls: Object.fromEntries(runnable.map((c) => [c.id, c])), batches, nextBatch: 0, refused, done: [] };
  return endRun ? { ...plan, endRun } : plan;
}

function provisional(guard: Guard, rules: RuleState, call: ReviewedCall): RuleState {
  return guard.engine.record(rules, { tool: call.name, operation: call.operation, callId: call.id, success: true, at: guard.now() });
}

// ─── turn set-up ───────────────────────────────────────────────────────────────────────────────

interface ReviewedModelTurn {
  ai: AIMessage;
  ctx: TurnContext;
  /** The plan of the approved calls (empty batches when none may run). */
  turn: TurnPlan;
  /** One error ToolMessage per refused or rejected call. */
  answered: ToolMessage[];
  /** Approved calls, in model order (edited ones carry the human's arguments). */
  runnable: ReviewedCall[];
  /** The approval step's state to write into the guard state (approval/step.ts). */
  approvals: ApprovalState;
  /** The resume did not fit and review must run again (routeBack): nothing was decided. */
  retry: boolean;
  /** A limit with exitBehavior "error" stopped the run: `answered` answers every call; write it, then throw at the next step. */
  limitError?: ToolCallLimitStop | undefined;
}

/**
 * Turn set-up, the same for every entry point: the last AIMessage's open calls are reviewed, the
 * approval step (t13a's `resolveApprovals`, one interrupt) decides those that ask, and the approved
 * calls are planned. Undefined when there is no AIMessage or no open call. `deferDecisions`: given
 * by an entry point that runs the turn's calls next in the same task with a ledger that carries the
 * audit (`auditCarriedBy`): the decisions of calls that run are put there, not written, for
 * `runBatches` to commit with the first batch's claims.
 */
export async function reviewModelTurn(
  guard: Guard,
  g: GuardState,
  messages: readonly BaseMessage[],
  config: LangGraphRunnableConfig | undefined,
  approval: Pick<ApprovalStepOptions, "routeBack" | "partial" | "ledger"> = {},
  deferDecisions?: AuditRecord[],
): Promise<ReviewedModelTurn | undefined> {
  const { routeBack = false, partial = routeBack, ledger } = approval;
  const ai = lastAIMessage(messages);
  if (!ai) return undefined;
  const threadId = threadIdOf(config);
  const messageId = messageIdOf(ai, threadId, messages);
  const calls = openToolCalls(ai, messages, messageId);
  if (calls.length === 0) return undefined;
  const ctx: TurnContext = { threadId, runId: g.runId, messageId };
  const rules = rulesOf(guard, g);
  // Review reads the thread's messages (provenance conditions); the context kept for execution does not carry them.
  let reviewed: Awaited<ReturnType<typeof reviewTurnWithApproval>>;
  try {
    reviewed = await reviewTurnWithApproval(guard, rules, calls, { threadId, runId: g.runId, messageId, messages }, config, { approvals: g.approvals, routeBack, partial, ledger }, deferDecisions);
  } catch (error) {
    if (!(error instanceof ToolCallLimitError)) throw error;
    return limitStopTurn(guard, g, ai, ctx, calls, error);
  }
  const { runnable, answered, approvals, retry } = reviewed;
  // The calls a partial answer left open are this turn's too: what its earlier part decided (a limit ending the run, refusals) still holds.
  const held = g.turn?.messageId === messageId ? g.turn : undefined;
  const endRun = reviewed.endRun ?? held?.endRun;
  const refused = answered.length + (held?.refused ?? 0);
  return { ai, ctx, turn: planTurn(guard, rules, messageId, runnable, refused, endRun), answered, runnable, approvals, retry };
}

/**
 * A limit with exitBehavior "error" refused a call of this turn (review threw): nothing of the turn
 * runs, every open call gets its refusal ToolMessage (the crossing call its rule's sentence), the
 * refusals are audited, and `limitError` is set: the entry point writes this step, and its next
 * step throws the ToolCallLimitError (`throwIfLimitStopped`). The thread never keeps a call without
 * a ToolMessage (LangChain's toolCallLimit leaves them).
 */
async function limitStopTurn(
  guard: Guard,
  g: GuardState,
  ai: AIMessage,
  ctx: TurnContext,
  calls: readonly RawToolCall[],
  error: ToolCallLimitError,
): Promise<ReviewedModelTurn> {
  const refused: ReviewedCall[] = calls.map((call) => ({
    id: call.id,
    name: call.name,
    args: argsObject(call.args) ?? {},
    outcome: "refuse",
    ruleId: `rule:${error.ruleId}`,
    reason: error.reason,
    risk: guard.riskOf(call.name),
    concurrencySafe: false,
    requestHeartbeat: false,
    message: call.id === error.callId && error.refusal !== undefined ? error.refusal : refusals.stoppedAtLimit(call.name, error.ruleId),
  }));
  await auditDecisions(guard, ctx, refused);
  const answered = refused.map((call) => refusalMessage(call, call.message ?? refusals.stoppedAtLimit(call.name, error.ruleId)));
  const approvals = { ...(g.approvals ?? emptyApprovalState()), refused: null, pending: null, reviewed: { messageId: ctx.messageId } };
  return {
    ai,
    ctx,
    turn: planTurn(guard, rulesOf(guard, g), ctx.messageId, [], answered.length),
    answered,
    runnable: [],
    approvals,
    retry: false,
    limitError: error.toStop(),
  };
}

/** The step after a limit with exitBehavior "error" stopped the run (its refusals are in the thread): throws it. */
export function throwIfLimitStopped(g: GuardState): void {
  if (g.limitError) throw new ToolCallLimitError(g.limitError);
}

/** Calls of this turn a partial answer left waiting for a human (`approvals.pending`); empty when none. */
export function waitingCalls(g: GuardState): string[] {
  const waiting = g.approvals?.pending;
  return g.turn !== null && waiting && waiting.messageId === g.turn.messageId ? waiting.callIds : [];
}

// ─── authorization at start ────────────────────────────────────────────────────────────────────

/**
 * The last word before a call starts — first run, after an approval, after a crash: the killswitch
 * as it is now, and the tool rules against the rule state that includes the real results of the
 * earlier batches of the same turn (`done`). A call whose same-turn prerequisite failed is refused
 * naming the rule. Returns null when the call may start, else the refused call.
 */
function authorizeAtStart(
  guard: Guard,
  call: ReviewedCall,
  base: RuleState,
  done: readonly CallResult[],
): ReviewedCall | null {
  const kill = guard.options.killswitch?.decide(call.name, call.risk) ?? null;
  if (kill?.mode === "deny") return refusedNow(call, kill.ruleId, kill.reason);
  if (kill?.mode === "ask" && call.approved !== true) return refusedNow(call, kill.ruleId, killswitchAsksNow(kill.reason));
  if (done.length === 0) return null;
  const info = { tool: call.name, operation: call.operation };
  const now = guard.now();
  const real = recordResults(guard, base, done);
  let violation = guard.engine.checkCall(real, info, now);
  // Rules counting attempts (InitialCall) pass after a failed prerequisite: check once more as if
  // the calls that did not succeed had never been made.
  if (!violation && done.some((r) => r.status !== "success")) {
    const succeeded = done.filter((r) => r.status === "success");
    violation = guard.engine.checkCall(recordResults(guard, base, succeeded), info, now);
  }
  if (violation?.onViolation === "ask" && violation.ruleId === call.askedRule && (call.approved !== undefined || (guard.options.bypass === true && (guard.options.killswitch?.bypassAllowed() ?? true)))) {
    // The rule asked at review and the call was approved (by a human, a standing decision or bypass).
    return null;
  }
  return violation ? refusedNow(call, `rule:${violation.ruleId}`, violation.reason) : null;
}

function refusedNow(call: ReviewedCall, ruleId: string, reason: string): ReviewedCall {
  return { ...call, outcome: "refuse", ruleId, reason, message: refusedAtStart(call.name, ruleId, reason) };
}

// ─── execution of one call ─────────────────────────────────────────────────────────────────────

export interface CallSlot {
  ctx: TurnContext;
  batch: number;
  /** Rule state before the turn. */
  base: RuleState;
  /** Results of the turn's earlier batches, in model order. */
  done: readonly CallResult[];
}

interface RunOptions {
  /** Collects the outcome records for one append by the caller (else each call appends its own). */
  outcomes?: AuditRecord[];
  /** Collects the ledger key of each call that ran (the caller may drop them from a process ledger). */
  keys?: string[];
  /** The ledger that keeps the call exactly-once (default: the guard's). */
  ledger?: ExecutionLedgerView | undefined;
  /** The call runs in the guard's own graph (createGuardedAgent): a tool's Command may only update its messages or go to the parent graph. */
  guardOwnsGraph?: boolean;
  /** Runs a tool the guard reviews but does not own (guardMiddleware: the agent's tool handler). */
  delegated?: () => Promise<unknown>;
}

/**
 * Authorizes one call at its start, runs it (ledger, abort hierarchy, timeout, truncation) and
 * audits the outcome. Every entry point runs calls through here; never throws for a tool failure.
 */
export async function runCall(
  guard: Guard,
  call: ReviewedCall,
  slot: CallSlot,
  config: LangGraphRunnableConfig | undefined,
  options: RunOptions = {},
): Promise<ExecutedCall> {
  const refused = authorizeAtStart(guard, call, slot.base, slot.done);
  if (refused) return refuseAtStart(guard, slot, refused);
  return runAuthorized(guard, call, slot, config, options);
}

async function refuseAtStart(guard: Guard, slot: CallSlot, refused: ReviewedCall): Promise<ExecutedCall> {
  await auditRecheck(guard, slot.ctx, refused);
  return refusedCall(guard, refused);
}

/** A call authorized at its start: runs it and audits its outcome. `first`: its batch's claim (`claimBatch`). */
async function runAuthorized(
  guard: Guard,
  call: ReviewedCall,
  slot: CallSlot,
  config: LangGraphRunnableConfig | undefined,
  options: RunOptions & { first?: "claimed" | "done" | "busy" | undefined; carried?: boolean; key?: string; alone?: boolean },
): Promise<ExecutedCall> {
  const { outcomes, ledger = guard.options.ledger } = options;
  const key = options.key ?? ledgerKeyFor(slot.ctx.threadId, slot.base.run, slot.ctx.messageId, call.id);
  options.keys?.push(key);
  // When the ledger carries the audit, a success's outcome record commits with its completion.
  const outcome = options.carried ? (status: string) => outcomeRecord(guard, slot.ctx, call, status) : undefined;
  const executed = await executeCall(guard, call, batchKey(slot.ctx, slot.batch), key, config, ledger, { first: options.first, outcome, alone: options.alone, guardOwnsGraph: options.guardOwnsGraph, delegated: options.delegated });
  if (executed.outcomeAudited) return executed;
  // In one task, a batch's outcomes go to the sink in one append (the caller writes `outcomes`).
  if (!outcomes) await auditOutcome(guard, slot.ctx, call, executed.result.status);
  else if (guard.options.audit) outcomes.push(outcomeRecord(guard, slot.ctx, call, executed.result.status));
  return executed;
}

/**
 * Runs a planned turn's batches in order inside one task (GuardedToolNode, and the graph's fast
 * path): each batch's calls start together, each authorized at its start against the results of the
 * earlier batches. Exactly-once across crashes comes from the ledger (claim before, complete after).
 *
 * One commit per batch: a ledger that claims many at once (`openLedger`'s) claims the batch's
 * calls in one commit, and when it carries the guard's audit (the same SQLite file or PostgreSQL
 * database) `decisions` — the turn's review records held back for it (`reviewModelTurn`'s
 * `deferDecisions`) — commit in that same transaction, before any call starts; calls that end
 * together complete in one commit with their outcome records. Decisions no claim carried are
 * written to the sink before the batch's calls start.
 */
export async function runBatches(
  guard: Guard,
  turn: TurnPlan,
  base: RuleState,
  ctx: TurnContext,
  config: LangGraphRunnableConfig | undefined,
  ledger: ExecutionLedgerView | undefined = guard.options.ledger,
  decisions: readonly AuditRecord[] = [],
  guardOwnsGraph = false,
): Promise<{ executed: ExecutedCall[]; done: CallResult[]; keys: string[] }> {
  const done: CallResult[] = [...(turn.done ?? [])];
  const keys: string[] = [];
  const executed: ExecutedCall[] = [];
  const carried = auditCarriedBy(guard, ledger) !== undefined;
  let unwritten = decisions;
  for (let index = turn.nextBatch; index < turn.batches.length; index += 1) {
    const batch = turn.batches[index] ?? [];
    const earlier = [...done];
    const outcomes: AuditRecord[] = [];
    const slot: CallSlot = { ctx, batch: index, base, done: earlier };
    const starts = batch.flatMap((id) => {
      const call = turn.calls[id];
      return call ? [{ call, refused: authorizeAtStart(guard, call, base, earlier) }] : [];
    });
    const claimed = starts.filter((s) => s.refused === null);
    const claimKeys = claimed.map((s) => ledgerKeyFor(ctx.threadId, base.run, ctx.messageId, s.call.id));
    // Decisions the ledger cannot carry reach the sink first; the claims are one commit either way.
    if (!carried && unwritten.length > 0) {
      await guard.options.audit?.write(unwritten);
      unwritten = [];
    }
    const firsts = await claimBatch(guard, ledger, claimKeys, config?.signal, unwritten);
    // Not claimed in one commit (nothing to claim, an aborted run): the decisions go to the sink before any call starts.
    if (!firsts && unwritten.length > 0) await guard.options.audit?.write(unwritten);
    unwritten = [];
    // Every call of the batch settles before the task goes on or ends: a call that throws (a tool's
    // interrupt, a failing audit sink) never leaves its siblings running after the task is gone,
    // and the ledger has recorded each sibling that completed before the task runs again.
    const settled = await Promise.allSettled(
      starts.map(({ call, refused }) => {
        if (refused) return refuseAtStart(guard, slot, refused);
        const at = claimed.findIndex((s) => s.call === call);
        return runAuthorized(guard, call, slot, config, { outcomes, ledger, keys, carried, first: firsts?.[at], key: claimKeys[at], alone: starts.length === 1, guardOwnsGraph });
      }),
    );
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
    if (failed) {
      if (outcomes.length > 0) await guard.options.audit?.write(outcomes);
      throw failed.reason;
    }
    const ran = settled.map((s) => (s as PromiseFulfilledResult<ExecutedCall>).value);
    // One append per batch. A crash before it loses no record: completed calls come back from the
    // ledger on the re-run and their outcome records (same ids) are written then.
    if (outcomes.length > 0) await guard.options.audit?.write(outcomes);
    for (const e of ran) {
      executed.push(e);
      done.push(e.result);
    }
  }
  // A turn with no batch to run: its held-back decisions are written all the same.
  if (unwritten.length > 0) await guard.options.audit?.write(unwritten);
  return { executed, done, keys };
}

// ─── recording and loop control ────────────────────────────────────────────────────────────────

/** Records results, in the given order, into the rule state: the tools' real outcomes. Refused calls did not run. */
function recordResults(guard: Guard, rules: RuleState, results: readonly CallResult[]): RuleState {
  const ran = results.filter((result) => result.status !== "refused");
  return guard.engine.recordAll(
    rules,
    ran.map((result) => ({ tool: result.name, operation: result.operation, callId: result.id, success: result.status === "success", at: result.at, output: result.output })),
  );
}

/** Results of a turn in plan order, then any the plan did not know (unplanned middleware calls). */
export function inPlanOrder(turn: TurnPlan | null, results: Readonly<Record<string, CallResult>>): CallResult[] {
  const planned = turn?.batches.flat() ?? [];
  const seen = new Set(planned);
  const ordered = planned.flatMap((id) => (results[id] ? [results[id]] : []));
  for (const [id, r] of Object.entries(results)) if (!seen.has(id)) ordered.push(r);
  return ordered;
}

/**
 * The one place a finished turn is recorded and loop control decided: results into the rule state,
 * then Terminal / TerminalIf (after pending exit tools, forced first), heartbeats, else back to the
 * model. The turn is cleared.
 */
export function finishTurn(guard: Guard, g: GuardState, results: readonly CallResult[]): GuardState {
  const rules = recordResults(guard, rulesOf(guard, g), results);
  const refused = (g.turn?.refused ?? 0) + results.filter((r) => r.status === "refused").length;
  if (g.turn !== null && waitingCalls(g).length > 0) {
    // A partial answer left calls of this turn waiting: their results are recorded; loop control
    // (Terminal, a limit ending the run, heartbeats) waits until the rest of the turn is answered.
    // The held turn has no calls left to run; it keeps the turn's end-of-run mark and refusals.
    const held: TurnPlan = { messageId: g.turn.messageId, calls: {}, batches: [], nextBatch: 0, refused, done: [] };
    return { ...g, rules, turn: g.turn.endRun ? { ...held, endRun: g.turn.endRun } : held, forcedTool: null, next: "agent" };
  }
  // A limit with exitBehavior "end" refused a call of this turn: the run ends now (the other calls ran).
  if (g.turn?.endRun) {
    return { ...g, rules, turn: null, forcedTool: null, next: "end", terminatedBy: g.turn.endRun.ruleId, exitUnsatisfied: [] };
  }
  const termination = guard.engine.shouldTerminate(rules);
  if (termination.terminate) {
    const pending = guard.engine.pendingExitTools(rules);
    if (pending.length > 0 && g.forcedTool !== pending[0]) {
      return { ...g, rules, turn: null, forcedTool: pending[0] ?? null, next: "agent" };
    }
    return { ...g, rules, turn: null, forcedTool: null, next: "end", terminatedBy: termination.ruleId ?? "terminal", exitUnsatisfied: pending };
  }
  if (guard.options.heartbeat === true) {
    const keepGoing =
      refused > 0 || results.some((r) => r.status !== "success" || r.requestHeartbeat || guard.engine.continuesLoop(r.name));
    if (!keepGoing) return { ...g, rules, turn: null, forcedTool: null, next: "end" };
  }
  return { ...g, rules, turn: null, forcedTool: null, next: "agent" };
}

/** The AI message that closes a run a limit ended (`exitBehavior: "end"`), as LangChain's toolCallLimit adds one. */
export function limitEndMessages(turn: TurnPlan | null | undefined, g?: GuardState): AIMessage[] {
  if (!turn?.endRun) return [];
  // Not while calls of the turn still wait for a human: the closing message comes after their answers.
  if (g !== undefined && waitingCalls(g).length > 0) return [];
  return [new AIMessageClass({ content: limitEndings.ended(turn.endRun.ruleId, turn.endRun.reason), name: "guard" })];
}

/** Whether a limit may end a run (exitBehavior "end"): loop control must then run after every turn. */
export function limitsMayEndRun(guard: Guard): boolean {
  return guard.engine.rules.some((r) => "exitBehavior" in r && r.exitBehavior === "end");
}

type ExitStep =
  /** Nothing pending: the run may end. */
  | { kind: "end"; guard: GuardState }
  /** Ask the model again, with a reminder (and, on escalation, a forced tool). */
  | { kind: "again"; guard: GuardState; messages: BaseMessage[] };

/**
 * The model answered without tool calls. Pending RequiredForExit tools get a reminder, then the
 * next model call is forced to call the first one, then the run ends with them recorded in
 * `exitUnsatisfied` (bounded escalation). The one RequiredForExit escalation.
 */
export function exitStep(guard: Guard, g: GuardState): ExitStep {
  const rules = rulesOf(guard, g);
  const pending = guard.engine.pendingExitTools(rules);
  if (pending.length === 0) return { kind: "end", guard: { ...g, next: "end" } };
  const attempts = rules.exitReminders;
  const noted = guard.engine.noteExitReminder(rules);
  if (attempts < guard.maxExitReminders) {
    return { kind: "again", guard: { ...g, rules: noted, next: "agent" }, messages: [guardReminder(reminders.exitPending(pending))] };
  }
  const forced = pending[0];
  if (attempts === guard.maxExitReminders && forced !== undefined) {
    return {
      kind: "again",
      guard: { ...g, rules: noted, forcedTool: forced, next: "agent" },
      messages: [guardReminder(reminders.exitForced(forced))],
    };
  }
  return { kind: "end", guard: { ...g, next: "end", exitUnsatisfied: pending } };
}
