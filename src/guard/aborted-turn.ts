import { AIMessage, HumanMessage, RemoveMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { abortCauses, execution } from "../messages/index.js";
import { outcomeRecord } from "./audit-trail.js";
import type { TurnContext } from "./audit-trail.js";
import { ledgerKeyFor, messageIdOf } from "./engine.js";
import type { Guard } from "./guard.js";
import type { ExecutionLedgerView } from "./interfaces.js";
import { keepNewest } from "./keep-newest.js";
import { ProcessLedger } from "./ledger-claim.js";
import { isGuardMessage } from "./model-step.js";
import type { ReviewedCall } from "./state.js";
import type { AuditRecord } from "../audit/types.js";
import type { ToolContent } from "../tools/tool-content.js";
import { truncateToolContent } from "./truncate.js";
import { readLedgerResult } from "./execute.js";

/**
 * New input after an aborted run. An abort (the run's `signal`) ends `invoke` at once: the turn's
 * task never returns, so its calls have no ToolMessage, and new input would otherwise start the
 * next run with the previous model message's calls unanswered. At the start of the next run every
 * such call is answered, right after its model message and before the new input:
 * - with its recorded result when the ledger (the guard's, or the graph's process ledger on
 *   MemorySaver) holds its completion — a tool that ignored its abort and finished anyway;
 * - after waiting up to `abortGraceMs` while the call is still running (its claim is held), with
 *   its result if it completes in that time;
 * - on the graph's process ledger, which knows whether the call was ever sent to start: with "did
 *   not run" when it never was, else saying whether it had any effect is unknown;
 * - else with "Cancelled: … did not finish" (still running: its result, if it completes, is
 *   recorded and it never runs again; the turn's calls are answered, so nothing runs them);
 * - without a ledger (a durable checkpointer, one task per call) the guard cannot know whether the
 *   call ran, and says so ("Whether it had any effect is unknown").
 */

const POLL_MS = 20;

interface AnsweredTurn {
  /** The thread's messages with the aborted turn's calls answered. */
  messages: BaseMessage[];
  /** The `messages` update that writes them (LangGraph's remove-all marker, then the whole list). */
  update: BaseMessage[];
}

/**
 * The model message before the latest user input whose calls have no ToolMessage, with those calls;
 * `endedAfter`: a later model message came before the input (the run went on past this turn and
 * ended: it was not aborted while the turn's calls ran).
 */
function abortedTurn(messages: readonly BaseMessage[]): { index: number; ai: AIMessage; open: { id: string; name: string; args: Record<string, unknown> }[]; endedAfter: boolean } | undefined {
  const input = messages.findLastIndex((m) => HumanMessage.isInstance(m) && !isGuardMessage(m));
  if (input < 0) return undefined;
  const index = messages.findLastIndex((m, i) => i < input && AIMessage.isInstance(m) && (m.tool_calls ?? []).length > 0);
  const ai = messages[index];
  if (index < 0 || !ai || !AIMessage.isInstance(ai)) return undefined;
  const answered = new Set(messages.slice(index + 1).flatMap((m) => (ToolMessage.isInstance(m) ? [m.tool_call_id] : [])));
  const open = (ai.tool_calls ?? []).flatMap((c) => (c.id !== undefined && !answered.has(c.id) ? [{ id: c.id, name: c.name, args: c.args }] : []));
  const endedAfter = messages.slice(index + 1, input).some((m) => AIMessage.isInstance(m) && !isGuardMessage(m));
  return open.length > 0 ? { index, ai, open, endedAfter } : undefined;
}

/** The call's recorded result, waiting up to `waitMs` while another task of this or a live process still runs it. */
async function recordedResult(guard: Guard, ledger: ExecutionLedgerView, key: string, waitMs: number): Promise<string | undefined> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const recorded = await ledger.result(key);
    if (recorded !== undefined) return recorded;
    const claim = await ledger.claim(key, guard.workerId, guard.ledgerLeaseMs);
    if (claim === "claimed") {
      // Nobody runs it and it never completed: it ends here, unanswered calls are never run later.
      await ledger.release(key, guard.workerId);
      return undefined;
    }
    if (claim === "done") return ledger.result(key);
    if (Date.now() >= deadline) return undefined;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * Answers the calls an aborted run left without a ToolMessage (see above); undefined when there
 * are none. `run` is the rule state's run index of the aborted run (its ledger keys). A call with
 * no recorded result, not known to have started, of a turn the run went on past (a later model
 * message: LangChain's createAgent ends the run when the same message has its structured-output
 * call) is answered as not run because the run ended: that run was not aborted.
 */
export async function answerAbortedTurn(
  guard: Guard,
  ledger: ExecutionLedgerView | undefined,
  run: number,
  messages: readonly BaseMessage[],
  threadId: string,
  runId: string,
): Promise<AnsweredTurn | undefined> {
  const turn = abortedTurn(messages);
  if (!turn) return undefined;
  const ctx: TurnContext = { threadId, runId, messageId: messageIdOf(turn.ai, threadId, messages) };
  const answers: ToolMessage[] = [];
  const records = [];
  for (const call of turn.open) {
    const key = ledgerKeyFor(threadId, run, ctx.messageId, call.id);
    // Read before `recordedResult`, whose own claim would count as a start.
    const started = ledger instanceof ProcessLedger ? ledger.started(key) : undefined;
    const recorded = ledger ? await recordedResult(guard, ledger, key, guard.abortGraceMs) : undefined;
    const result = recorded === undefined ? undefined : readLedgerResult(recorded);
    // A recorded failure: its tool returned a Command that could not be applied (command-result.ts).
    const status = result === undefined ? "cancelled" : result.failed ? "error" : "success";
    // The run went on past this turn (it was not aborted here) and the call never started: it did not run.
    // Else with the process ledger, whether it was sent to start; with another ledger, no completion
    // and no live claim means it did not finish; without one, nobody can tell.
    const endedFirst = turn.endedAfter && started !== true;
    const content =
      result !== undefined
        ? result.content
        : endedFirst
          ? execution.endedBeforeRun(call.name)
          : started === false
            ? execution.didNotRun(call.name, abortCauses.run())
            : ledger && started === undefined
              ? execution.unfinished(call.name)
              : execution.unknownAfterAbort(call.name);
    const why = endedFirst && recorded === undefined ? { ruleId: "run:ended", reason: "the run ended before this call was run" } : { ruleId: "run:aborted", reason: "the run was aborted before this call's result was written" };
    const { message, record } = answerWithoutRunning(guard, ctx, call, content, status, why);
    answers.push(message);
    if (record) records.push(record);
  }
  if (records.length > 0) await guard.options.audit?.write(records);
  const tail = messages.slice(turn.index + 1);
  const firstOther = tail.findIndex((m) => !ToolMessage.isInstance(m));
  const cut = firstOther < 0 ? tail.length : firstOther;
  const answeredList = [...messages.slice(0, turn.index + 1), ...tail.slice(0, cut), ...answers, ...tail.slice(cut)];
  return { messages: answeredList, update: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...answeredList] };
}

/**
 * A call answered without being run now: its ToolMessage (the recorded result, or why it did not
 * run; truncated as results are) and, with an audit sink, its outcome record under `why`.
 */
function answerWithoutRunning(
  guard: Guard,
  ctx: TurnContext,
  call: { readonly id: string; readonly name: string; readonly args: Record<string, unknown> },
  content: ToolContent,
  status: "success" | "error" | "cancelled",
  why: { readonly ruleId: string; readonly reason: string },
  kwargs?: Record<string, unknown>,
): { message: ToolMessage; record: AuditRecord | undefined } {
  const max = guard.spec(call.name)?.maxResultChars ?? guard.maxResultChars;
  const message = new ToolMessage({
    content: truncateToolContent(content, max),
    tool_call_id: call.id,
    name: call.name,
    status: status === "success" ? "success" : "error",
    ...(kwargs === undefined ? {} : { additional_kwargs: kwargs }),
  });
  const reviewed: ReviewedCall = { id: call.id, name: call.name, args: call.args, outcome: "run", ...why, risk: guard.riskOf(call.name), concurrencySafe: false, requestHeartbeat: false };
  return { message, record: guard.options.audit ? outcomeRecord(guard, ctx, reviewed, status) : undefined };
}

/** Marks the ToolMessages `answerSkippedCalls` writes (the middleware's afterModel then sends the run to the model). */
const SKIPPED = "guard_skipped";

/** Whether `message` is a guard's answer to a call another middleware's jump skipped (`answerSkippedCalls`). */
export function isSkippedAnswer(message: BaseMessage | undefined): boolean {
  return message !== undefined && ToolMessage.isInstance(message) && message.additional_kwargs[SKIPPED] === true;
}

/**
 * The calls of the turn planned for the last model message that have neither a ToolMessage nor a
 * result when the model is about to be called: another middleware's `jumpTo: "model"` after the
 * guard's review sent the run past the tools. Each is answered, with its recorded result if the
 * ledger holds one, else as not run (a call nobody runs is never run later: it is answered), and its
 * outcome audited; undefined when there is none.
 */
export async function answerSkippedCalls(
  guard: Guard,
  ledger: ExecutionLedgerView | undefined,
  run: number,
  messages: readonly BaseMessage[],
  plan: { readonly messageId: string; readonly batches: readonly (readonly string[])[] },
  results: Readonly<Record<string, unknown>>,
  ctx: TurnContext,
): Promise<ToolMessage[] | undefined> {
  const at = messages.findLastIndex((m) => AIMessage.isInstance(m));
  const ai = messages[at];
  if (!ai || !AIMessage.isInstance(ai) || ai.id !== plan.messageId) return undefined;
  const answered = new Set(messages.slice(at + 1).flatMap((m) => (ToolMessage.isInstance(m) ? [m.tool_call_id] : [])));
  const planned = new Set(plan.batches.flat());
  const open = (ai.tool_calls ?? []).flatMap((c) => (c.id !== undefined && planned.has(c.id) && !answered.has(c.id) && results[c.id] === undefined ? [{ ...c, id: c.id }] : []));
  if (open.length === 0) return undefined;
  const answers: ToolMessage[] = [];
  const records = [];
  for (const call of open) {
    const recorded = ledger ? await recordedResult(guard, ledger, ledgerKeyFor(ctx.threadId, run, plan.messageId, call.id), guard.abortGraceMs) : undefined;
    const result = recorded === undefined ? undefined : readLedgerResult(recorded);
    const content = result !== undefined ? result.content : execution.skippedByJump(call.name);
    const status = result === undefined ? "cancelled" : result.failed ? "error" : "success";
    const why = { ruleId: "run:skipped", reason: "the run went back to the model before this call was run" };
    const { message, record } = answerWithoutRunning(guard, ctx, call, content, status, why, { [SKIPPED]: true });
    answers.push(message);
    if (record) records.push(record);
  }
  if (records.length > 0) await guard.options.audit?.write(records);
  return answers;
}

// ─── turns run inside one step (GuardedToolNode) ──────────────────────────────────────────────────

/** Turns remembered per guard (oldest dropped first). */
const MAX_RUNNING_TURNS = 1024;

interface RunningTurn {
  runId: string;
  run: number;
  ledger: ExecutionLedgerView | undefined;
}

/** Per guard: turns reviewed and run by a step that writes nothing before it returns. */
const runningTurns = new WeakMap<Guard, Map<string, RunningTurn>>();

const turnKey = (threadId: string, messageId: string) => `${threadId}\u0000${messageId}`;

/**
 * GuardedToolNode reviews and runs a turn in one step: when the run is aborted during that step,
 * no checkpoint records that its calls were reviewed or sent to run, and new input would take them
 * for calls that waited for approval ("so it did not run"). The node notes the turn here (in this
 * process) when the step starts, and forgets it when review stops to ask a human (the calls then do
 * wait); `answerRunningTurn` answers a noted turn's calls as an aborted turn's.
 */
export function noteRunningTurn(guard: Guard, ctx: TurnContext, run: number, ledger: ExecutionLedgerView | undefined): void {
  let turns = runningTurns.get(guard);
  if (!turns) runningTurns.set(guard, (turns = new Map()));
  const key = turnKey(ctx.threadId, ctx.messageId);
  keepNewest(turns, key, { runId: ctx.runId, run, ledger }, MAX_RUNNING_TURNS);
}

/** The step stopped to ask a human about the turn's calls: they wait for approval. */
export function forgetRunningTurn(guard: Guard, ctx: TurnContext): void {
  runningTurns.get(guard)?.delete(turnKey(ctx.threadId, ctx.messageId));
}

/**
 * New input after the model message `messageId`, whose calls have no answer: when a step of this
 * process sent them to run (`noteRunningTurn`), they are answered as an aborted turn's calls (see
 * `answerAbortedTurn`); undefined when no step did (they waited for approval, or never reached it).
 */
export async function answerRunningTurn(guard: Guard, threadId: string, messageId: string, messages: readonly BaseMessage[]): Promise<AnsweredTurn | undefined> {
  const noted = runningTurns.get(guard)?.get(turnKey(threadId, messageId));
  if (!noted) return undefined;
  return answerAbortedTurn(guard, noted.ledger, noted.run, messages, threadId, noted.runId);
}
