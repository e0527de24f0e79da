import { ToolMessage, isBaseMessage } from "@langchain/core/messages";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { isGraphBubbleUp } from "@langchain/langgraph";
import { GUARD_SIGNAL_KEY, idempotencyKeyFor, isGuardedTool } from "../tools/define-tool.js";
import { CallAbortError, abortCauseOf, describeAbort, joinBatch, timeoutSignal } from "./abort.js";
import type { Guard } from "./guard.js";
import type { CallResult, ReviewedCall } from "./state.js";
import { truncateResult } from "./truncate.js";

export interface ExecutedCall {
  message: ToolMessage;
  result: CallResult;
}

type Settled =
  | { kind: "message"; message: ToolMessage }
  | { kind: "error"; error: unknown }
  | { kind: "abandoned" };

/** Ledger claim of a call without a timeout; a call with one holds its claim for timeout + grace. */
const LEDGER_LEASE_MS = 60_000;
const LEDGER_POLL_MS = 100;

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function threadIdOf(config: LangGraphRunnableConfig | undefined): string | undefined {
  const id = config?.configurable?.thread_id;
  return typeof id === "string" ? id : undefined;
}

/** Resolves when `signal` aborts and `graceMs` more have passed: a tool that ignores its signal is abandoned. */
function abandonAfter(signal: AbortSignal, graceMs: number, done: Promise<unknown>): Promise<Settled> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      timer = setTimeout(() => resolve({ kind: "abandoned" }), graceMs);
      timer.unref?.();
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    const cleanup = () => {
      signal.removeEventListener("abort", onAbort);
      if (timer) clearTimeout(timer);
    };
    done.then(cleanup, cleanup);
  });
}

/**
 * Runs one approved call under the abort hierarchy: the run's signal (level 1), the batch's
 * signal that a failing sibling aborts (level 2), and the call's own timeout. Never throws for a
 * tool failure: every call ends with exactly one ToolMessage.
 */
export async function executeCall(
  guard: Guard,
  call: ReviewedCall,
  batchKey: string,
  config: LangGraphRunnableConfig | undefined,
): Promise<ExecutedCall> {
  const tool = guard.tool(call.name);
  const spec = guard.spec(call.name);
  const idempotencyKey = idempotencyKeyFor(threadIdOf(config), call.id);
  const finish = (status: CallResult["status"], content: string, artifact?: unknown): ExecutedCall => ({
    message: new ToolMessage({
      content: truncateResult(content, spec?.maxResultChars ?? guard.maxResultChars),
      tool_call_id: call.id,
      name: call.name,
      status: status === "success" ? "success" : "error",
      ...(artifact !== undefined ? { artifact } : {}),
    }),
    result: {
      id: call.id,
      name: call.name,
      operation: call.operation,
      status,
      at: guard.now(),
      requestHeartbeat: call.requestHeartbeat,
    },
  });
  if (!tool || !spec) return finish("error", `Error: tool "${call.name}" is not registered with the guard`);

  const ledger = guard.options.ledger;
  const timeoutMs = spec.timeoutMs ?? guard.options.defaultTimeoutMs;
  if (ledger) {
    // A claim outlives the call by at most the grace period, so a call whose worker died is
    // claimable again soon after it could have finished (the lease cannot be renewed).
    const leaseMs = timeoutMs !== undefined ? timeoutMs + guard.abortGraceMs + LEDGER_POLL_MS : LEDGER_LEASE_MS;
    const claim = await claimOrWait(guard, idempotencyKey, leaseMs, config?.signal);
    if (claim.kind === "aborted") {
      return finish("cancelled", `Cancelled: ${call.name} did not run: ${describeAbort({ kind: "run" })}`);
    }
    if (claim.kind === "done") return fromLedger(claim.recorded, finish);
  }

  const batch = joinBatch(batchKey);
  const timeout = timeoutSignal(timeoutMs);
  const signals = [batch.signal, timeout.signal, config?.signal].filter((s): s is AbortSignal => s !== undefined);
  const signal = AbortSignal.any(signals);
  try {
    if (signal.aborted) {
      return finish("cancelled", `Cancelled: ${call.name} did not run: ${describeAbort(abortCauseOf(signal))}`);
    }
    // A guarded tool gets its signal through `configurable`: LangChain's own signal race would reject
    // at abort time and hide a tool that ignores its signal, which the grace period must catch.
    const guarded = isGuardedTool(tool);
    const invocation = tool.invoke(
      { id: call.id, name: call.name, args: call.args, type: "tool_call" },
      {
        ...config,
        signal: guarded ? undefined : signal,
        toolCall: { id: call.id, name: call.name, args: call.args, type: "tool_call" },
        configurable: {
          ...config?.configurable,
          tool_call_id: call.id,
          idempotency_key: idempotencyKey,
          ...(guarded ? { [GUARD_SIGNAL_KEY]: signal } : {}),
        },
      },
    );
    const settled: Settled = await Promise.race([
      invocation.then(
        (output: unknown): Settled => ({ kind: "message", message: asToolMessage(output, call) }),
        (error: unknown): Settled => ({ kind: "error", error }),
      ),
      abandonAfter(signal, guard.abortGraceMs, invocation),
    ]);
    const executed = classify(guard, call, settled, signal, finish);
    if (executed.result.status === "error" && spec.cancelSiblingsOnError && !signal.aborted) {
      batch.abort({ kind: "sibling", callId: call.id, tool: call.name, error: String(executed.message.content) });
    }
    if (ledger && executed.result.status === "success") {
      await ledger.complete(idempotencyKey, JSON.stringify({ content: executed.message.content }));
    }
    return executed;
  } finally {
    timeout.clear();
    batch.leave();
  }
}

function classify(
  guard: Guard,
  call: ReviewedCall,
  settled: Settled,
  signal: AbortSignal,
  finish: (status: CallResult["status"], content: string, artifact?: unknown) => ExecutedCall,
): ExecutedCall {
  if (settled.kind === "abandoned") {
    const cause = abortCauseOf(signal);
    return finish(
      cause.kind === "timeout" ? "error" : "cancelled",
      `${cause.kind === "timeout" ? "Error" : "Cancelled"}: ${call.name} ${describeAbort(cause)} and did not stop within ${guard.abortGraceMs} ms of its abort signal; it was abandoned`,
    );
  }
  if (settled.kind === "error") {
    if (isGraphBubbleUp(settled.error)) throw settled.error;
    if (signal.aborted) {
      const cause = abortCauseOf(signal);
      if (cause.kind === "timeout") return finish("error", `Error: ${call.name} ${describeAbort(cause)}`);
      return finish("cancelled", `Cancelled: ${call.name} stopped because ${describeAbort(cause)}`);
    }
    const text = settled.error instanceof CallAbortError ? settled.error.message : errorText(settled.error);
    return finish("error", `Error: ${call.name} failed: ${text}`);
  }
  const { message } = settled;
  const content = typeof message.content === "string" ? message.content : JSON.stringify(message.content);
  return finish(message.status === "error" ? "error" : "success", content, message.artifact);
}

function asToolMessage(output: unknown, call: ReviewedCall): ToolMessage {
  if (isBaseMessage(output) && ToolMessage.isInstance(output)) return output;
  const content = typeof output === "string" ? output : JSON.stringify(output);
  return new ToolMessage({ content, tool_call_id: call.id, name: call.name, status: "success" });
}

type LedgerClaim = { kind: "run" } | { kind: "done"; recorded: string } | { kind: "aborted" };

/**
 * Claims the call in the ledger: "run" it now, or it is "done" (another run completed it; here is
 * its recorded result). While another worker's claim is live, waits, unless the run is aborted.
 */
async function claimOrWait(
  guard: Guard,
  key: string,
  leaseMs: number,
  signal: AbortSignal | undefined,
): Promise<LedgerClaim> {
  const ledger = guard.options.ledger;
  if (!ledger) return { kind: "run" };
  for (;;) {
    if (signal?.aborted) return { kind: "aborted" };
    const claim = await ledger.claim(key, guard.workerId, leaseMs);
    if (claim === "claimed") return { kind: "run" };
    if (claim === "done") return { kind: "done", recorded: (await ledger.result(key)) ?? JSON.stringify({ content: "" }) };
    await new Promise((resolve) => setTimeout(resolve, LEDGER_POLL_MS));
  }
}

function fromLedger(
  recorded: string,
  finish: (status: CallResult["status"], content: string) => ExecutedCall,
): ExecutedCall {
  let content = recorded;
  try {
    const parsed = JSON.parse(recorded) as { content?: unknown };
    content = typeof parsed.content === "string" ? parsed.content : JSON.stringify(parsed.content);
  } catch {
    // a plain-text record is its own content
  }
  return finish("success", content);
}
