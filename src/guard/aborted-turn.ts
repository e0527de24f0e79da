import { AIMessage, HumanMessage, RemoveMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { execution } from "../messages/index.js";
import { outcomeRecord } from "./audit-trail.js";
import type { TurnContext } from "./audit-trail.js";
import { ledgerKeyFor } from "./engine.js";
import type { Guard } from "./guard.js";
import type { ExecutionLedgerView } from "./interfaces.js";
import { isGuardMessage } from "./model-step.js";
import type { ReviewedCall } from "./state.js";
import { truncateResult } from "./truncate.js";

/**
 * New input after an aborted run. An abort (the run's `signal`) ends `invoke` at once: the turn's
 * task never returns, so its calls have no ToolMessage, and new input would otherwise start the
 * next run with the previous model message's calls unanswered. At the start of the next run every
 * such call is answered, right after its model message and before the new input:
 * - with its recorded result when the ledger (the guard's, or the graph's process ledger on
 *   MemorySaver) holds its completion — a tool that ignored its abort and finished anyway;
 * - after waiting up to `abortGraceMs` while the call is still running (its claim is held), with
 *   its result if it completes in that time;
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

/** The model message before the latest user input whose calls have no ToolMessage, with those calls. */
function abortedTurn(messages: readonly BaseMessage[]): { index: number; ai: AIMessage; open: { id: string; name: string; args: Record<string, unknown> }[] } | undefined {
  const input = messages.findLastIndex((m) => HumanMessage.isInstance(m) && !isGuardMessage(m));
  if (input < 0) return undefined;
  const index = messages.findLastIndex((m, i) => i < input && AIMessage.isInstance(m) && (m.tool_calls ?? []).length > 0);
  const ai = messages[index];
  if (index < 0 || !ai || !AIMessage.isInstance(ai)) return undefined;
  const answered = new Set(messages.slice(index + 1).flatMap((m) => (ToolMessage.isInstance(m) ? [m.tool_call_id] : [])));
  const open = (ai.tool_calls ?? []).flatMap((c) => (c.id !== undefined && !answered.has(c.id) ? [{ id: c.id, name: c.name, args: c.args }] : []));
  return open.length > 0 ? { index, ai, open } : undefined;
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

function contentOf(recorded: string): string {
  try {
    const parsed = JSON.parse(recorded) as { content?: unknown };
    return typeof parsed.content === "string" ? parsed.content : JSON.stringify(parsed.content);
  } catch {
    return recorded;
  }
}

/**
 * Answers the calls an aborted run left without a ToolMessage (see above); undefined when there
 * are none. `run` is the rule state's run index of the aborted run (its ledger keys).
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
  const ctx: TurnContext = { threadId, runId, messageId: turn.ai.id ?? "" };
  const answers: ToolMessage[] = [];
  const records = [];
  for (const call of turn.open) {
    const recorded = ledger ? await recordedResult(guard, ledger, ledgerKeyFor(threadId, run, call.id), guard.abortGraceMs) : undefined;
    const status = recorded !== undefined ? "success" : "cancelled";
    // With a ledger, no completion and no live claim means it did not finish; without one, nobody can tell.
    const content = recorded !== undefined ? contentOf(recorded) : ledger ? execution.unfinished(call.name) : execution.unknownAfterAbort(call.name);
    const max = guard.spec(call.name)?.maxResultChars ?? guard.maxResultChars;
    answers.push(new ToolMessage({ content: truncateResult(content, max), tool_call_id: call.id, name: call.name, status: status === "success" ? "success" : "error" }));
    const reviewed: ReviewedCall = {
      id: call.id,
      name: call.name,
      args: call.args,
      outcome: "run",
      ruleId: "run:aborted",
      reason: "the run was aborted before this call's result was written",
      risk: guard.riskOf(call.name),
      concurrencySafe: false,
      requestHeartbeat: false,
    };
    if (guard.options.audit) records.push(outcomeRecord(guard, ctx, reviewed, status));
  }
  if (records.length > 0) await guard.options.audit?.write(records);
  const tail = messages.slice(turn.index + 1);
  const firstOther = tail.findIndex((m) => !ToolMessage.isInstance(m));
  const cut = firstOther < 0 ? tail.length : firstOther;
  const answeredList = [...messages.slice(0, turn.index + 1), ...tail.slice(0, cut), ...answers, ...tail.slice(cut)];
  return { messages: answeredList, update: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...answeredList] };
}
