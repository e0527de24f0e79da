import { ToolMessage, isBaseMessage } from "@langchain/core/messages";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { isGraphBubbleUp, isGraphInterrupt } from "@langchain/langgraph";
import { GUARD_SIGNAL_KEY, directRunOf, isGuardedTool } from "../tools/define-tool.js";
import { abortCauseOf, describeAbort, joinBatch, timeoutSignal } from "./abort.js";
import type { Guard } from "./guard.js";
import type { CallResult, ReviewedCall } from "./state.js";
import { claimCall } from "./ledger-claim.js";
import type { ExecutionLedgerView } from "./interfaces.js";
import { truncateToolContent } from "./truncate.js";
import { contentText, toolContent, type ToolContent } from "../tools/tool-content.js";
import { interruptCount, skipAnsweredInterrupts, toolStateOf } from "./langgraph-task.js";
import { commandWith, isCommandLike, loadCommand, readToolCommand, storeCommand } from "../tools/command-result.js";
import type { StoredCommand, ToolCommand } from "../tools/command-result.js";
import type { Command } from "@langchain/langgraph";
import { GUARD_CHANNELS } from "./state.js";
import type { AuditRecord } from "../audit/types.js";
import { execution, refusals } from "../messages/index.js";

export interface ExecutedCall {
  message: ToolMessage;
  result: CallResult;
  /**
   * The tool returned a LangGraph Command: it, with `message` (the call's answer) in its update's
   * messages, for the entry point to apply as LangGraph's ToolNode does (command-result.ts).
   */
  command?: Command;
  /** Its outcome audit record was committed with its ledger completion (the caller writes no other). */
  outcomeAudited?: true;
}

type Settled =
  /** `command`: the tool returned a Command to apply; `ran`: it returned one that cannot be (`message` says why). */
  | { kind: "message"; message: ToolMessage; command?: ToolCommand; ran?: true }
  | { kind: "error"; error: unknown }
  | { kind: "abandoned" };

type Finish = (status: CallResult["status"], content: ToolContent, artifact?: unknown) => ExecutedCall;

/** Builds a call's one ToolMessage (truncated) and its result record. */
function finisher(guard: Guard, call: ReviewedCall): Finish {
  const spec = guard.spec(call.name);
  return (status, content, artifact) => ({
    message: new ToolMessage({
      content: truncateToolContent(content, spec?.maxResultChars ?? guard.maxResultChars),
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
      // A ConditionalNext rule picks the next tool from this output (t14 rules hook).
      ...(status !== "refused" && guard.engine.needsOutput(call.name) ? { output: contentText(content).slice(0, 2_000) } : {}),
    },
  });
}

/** A call refused at its start: its one error ToolMessage; it did not run. */
export function refusedCall(guard: Guard, call: ReviewedCall): ExecutedCall {
  return finisher(guard, call)("refused", call.message ?? refusals.generic(call.name, call.ruleId, call.reason));
}

/**
 * Whether a tool's error is LangGraph's own (an interrupt, a parent command), which goes up to the
 * graph. LangGraph's check reads a property of what it is given: a tool may throw anything (`throw
 * null`, a Proxy whose reads throw), and that is the tool's failure, answered as such.
 */
function bubblesUp(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  try {
    return isGraphBubbleUp(error);
  } catch {
    return false;
  }
}

/** What a tool threw, as text: an Error's message, anything else as `String` gives it; never throws. */
function errorText(error: unknown): string {
  try {
    if (error instanceof Error) return typeof error.message === "string" ? error.message : String(error.message);
    return String(error);
  } catch {
    return execution.unreadableError(error === null ? "null" : typeof error === "object" ? "an object" : `a ${typeof error}`);
  }
}

/**
 * How the tool's invocation settles, or `abandoned` when `signal` aborts and `graceMs` more pass
 * first (a tool that ignores its signal). One promise for both, where `Promise.race` of the two took
 * four more per call. `read` turns the tool's output into what the call settles with; when it
 * throws, so does the call.
 */
function settleOrAbandon(invocation: Promise<unknown>, signal: AbortSignal, graceMs: number, read: (output: unknown) => Settled): Promise<Settled> {
  return new Promise<Settled>((resolve, reject) => {
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
    invocation.then(
      (output: unknown) => {
        cleanup();
        try {
          resolve(read(output));
        } catch (error) {
          reject(error);
        }
      },
      (error: unknown) => {
        cleanup();
        resolve({ kind: "error", error });
      },
    );
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
  idempotencyKey: string,
  config: LangGraphRunnableConfig | undefined,
  ledger: ExecutionLedgerView | undefined = guard.options.ledger,
  batchClaim?: {
    first: "claimed" | "done" | "busy" | undefined;
    outcome?: ((status: CallResult["status"]) => AuditRecord) | undefined;
    /** The call runs alone in its task (a batch of one): the interrupts it asks are counted and kept with its result (langgraph-task.ts). */
    alone?: boolean | undefined;
    /** The call runs in the guard's own graph (createGuardedAgent): what a tool's Command may do there (command-result.ts). */
    guardOwnsGraph?: boolean | undefined;
    /** Runs a tool the guard reviews but does not own (`Guard.delegate`): the agent's own tool handler. */
    delegated?: (() => Promise<unknown>) | undefined;
  },
): Promise<ExecutedCall> {
  const tool = guard.tool(call.name);
  const spec = guard.spec(call.name);
  const finish = finisher(guard, call);
  // A delegated tool runs only through the handler of the agent that owns it.
  const delegated = guard.isDelegated(call.name) ? batchClaim?.delegated : undefined;
  if (!tool || !spec || (guard.isDelegated(call.name) && !delegated)) return finish("error", execution.notRegistered(call.name));

  const timeoutMs = spec.timeoutMs ?? guard.options.defaultTimeoutMs;
  const claim = await claimCall(guard, ledger, idempotencyKey, config?.signal, batchClaim?.first);
  if (claim.kind === "aborted") {
    return finish("cancelled", execution.didNotRun(call.name, describeAbort({ kind: "run" })));
  }
  if (claim.kind === "done") return fromLedger(call.name, claim.recorded, finish, config);
  const scope = { reserved: GUARD_CHANNEL_KEYS, guardOwnsGraph: batchClaim?.guardOwnsGraph === true };

  const batch = joinBatch(batchKey, config?.signal);
  const waitSignal = batch.signal;
  const freeSlot = await batch.slot(guard.maxConcurrency, waitSignal);
  // The timeout starts when the call gets its slot, not while it waits for one.
  const timeout = timeoutSignal(timeoutMs);
  const signal = timeout.signal ? AbortSignal.any([waitSignal, timeout.signal]) : waitSignal;
  try {
    if (signal.aborted) {
      // It never started: the claim is freed, so a continued run may run it.
      await claim.settle(false);
      return finish("cancelled", execution.didNotRun(call.name, describeAbort(abortCauseOf(signal))));
    }
    // A guarded tool gets its signal through `configurable`: LangChain's own signal race would reject
    // at abort time and hide a tool that ignores its signal, which the grace period must catch. It
    // gets a signal of its own that never fires: without one, LangChain takes the task's signal
    // from the surrounding run, and every call of a turn run in one task would listen to that one.
    const guarded = isGuardedTool(tool);
    const toolCall = { id: call.id, name: call.name, args: call.args, type: "tool_call" as const };
    // A `defineTool` tool runs without LangChain's tool wrapper when nothing would see that wrapper's
    // callbacks (no handler, no tracing): same parse, same context, same result, ≈ 40 µs less per call.
    const direct = guarded && !toolRunsObserved(tool as ObservableTool, config) ? directRunOf(tool) : undefined;
    // Copied, then set: `{ ...config, toolCall }` (a spread followed by keys it lacks) costs µs per call on V8.
    const configurable: Record<string, unknown> = Object.assign({}, config?.configurable);
    configurable.tool_call_id = call.id;
    configurable.idempotency_key = idempotencyKey;
    if (guarded) configurable[GUARD_SIGNAL_KEY] = signal;
    // What LangChain's ToolNode gives a tool as its ToolRuntime besides the config: the call's id, the
    // graph state (`runtime.state`) and the config itself (`runtime.config`).
    const toolConfig: LangGraphRunnableConfig & { toolCall: typeof toolCall; toolCallId: string; state: unknown; config: LangGraphRunnableConfig | undefined } = Object.assign({}, config, { toolCall, toolCallId: call.id, state: toolStateOf(config), config });
    // Run directly, nothing reads this signal (the tool's own is in `configurable`): one that never fires serves every call.
    toolConfig.signal = direct ? NEVER_ABORTED : guarded ? new AbortController().signal : signal;
    toolConfig.configurable = configurable;
    // The task's interrupt count before the tool runs: what it asks is kept with its result.
    const asking = batchClaim?.alone === true ? interruptCount(config) : undefined;
    let invocation: Promise<unknown>;
    try {
      invocation = delegated ? delegated() : direct ? direct(call.args, toolConfig) : tool.invoke(toolCall, toolConfig);
    } catch (error) {
      invocation = Promise.reject(error);
    }
    const settled: Settled = await settleOrAbandon(invocation, signal, guard.abortGraceMs, (output) => asToolMessage(output, call, scope));
    let classified: Classified;
    try {
      classified = classify(guard, call, settled, signal, finish);
    } catch (error) {
      await claim.interrupted();
      // The tool asked the user (LangGraph's interrupt): the next resume of this task is its answer (toolAskedIn).
      if (isGraphInterrupt(error)) await ledger?.complete(toolAskedKey(idempotencyKey), "1");
      throw error;
    }
    const checked = recordable(classified, finish, call);
    const executed = checked.executed;
    if (executed.result.status === "error" && spec.cancelSiblingsOnError && !signal.aborted) {
      batch.abort({ kind: "sibling", callId: call.id, tool: call.name, error: contentText(executed.message.content) });
    }
    if (settled.kind === "abandoned") {
      // The tool ignored its abort and may still finish its side effect: its claim is kept until it
      // ends, and a completion is recorded, so a continued run, or new input, gets its result and
      // never runs it again (a re-run waits while the claim is held).
      void invocation.then(
        (output) => {
          const late = recordable(classify(guard, call, asToolMessage(output, call, scope), signal, finish), finish, call);
          const keep = late.executed.result.status === "success" || late.ran;
          return claim.settle(keep, keep ? JSON.stringify(late.record) : undefined);
        },
        () => claim.settle(false),
      ).catch(() => undefined);
      return executed;
    }
    // A success is recorded; so is any call whose tool returned a Command (it ran, and what it
    // returned is applied or refused now: a replay must do the same without running it again).
    const keep = executed.result.status === "success" || checked.ran;
    // A kept call's outcome record commits with its completion when the ledger carries the audit.
    const outcome = keep ? batchClaim?.outcome?.(executed.result.status) : undefined;
    const asked = asking === undefined ? 0 : (interruptCount(config) ?? asking) - asking;
    const recorded = asked > 0 ? { ...checked.record, interrupts: asked } : checked.record;
    const { outcomeAudited } = await claim.settle(keep, keep ? JSON.stringify(recorded) : undefined, outcome);
    return outcomeAudited ? { ...executed, outcomeAudited: true } : executed;
  } finally {
    timeout.clear();
    freeSlot();
    batch.leave();
  }
}

/** Where the ledger notes that a call's tool asked the user with LangGraph's interrupt. */
function toolAskedKey(idempotencyKey: string): string {
  return `${idempotencyKey}\u0000asked`;
}

/**
 * Whether a tool of these calls (their ledger keys) asked the user with LangGraph's interrupt: a
 * resume that reaches their task then answers the tool, and is not an approval's late answer.
 */
export async function toolAskedIn(ledger: ExecutionLedgerView | undefined, keys: readonly string[]): Promise<boolean> {
  if (!ledger) return false;
  const asked = await Promise.all(keys.map((key) => ledger.result(toolAskedKey(key))));
  return asked.some((value) => value !== undefined);
}

/** The signal of a guarded tool's run config when it runs directly: its controller is never reachable, so it never fires. */
const NEVER_ABORTED = new AbortController().signal;

/** What a LangChain tool may carry that makes its runs observed. */
type ObservableTool = { callbacks?: unknown; verbose?: boolean };

const TRACING_ENV = ["LANGSMITH_TRACING_V2", "LANGCHAIN_TRACING_V2", "LANGSMITH_TRACING", "LANGCHAIN_TRACING"];

function hasHandlers(callbacks: unknown): boolean {
  if (callbacks === undefined || callbacks === null) return false;
  if (Array.isArray(callbacks)) return callbacks.length > 0;
  const manager = callbacks as { handlers?: unknown[]; inheritableHandlers?: unknown[] };
  return (manager.handlers?.length ?? 0) > 0 || (manager.inheritableHandlers?.length ?? 0) > 0;
}

/**
 * Whether anything would see a tool run's callbacks: a callback handler of the run (a tracer,
 * `streamEvents`, LangGraph's "messages"/"tools" stream modes), the tool's own callbacks or
 * verbosity, or LangSmith tracing switched on by the environment. Then the tool goes through
 * LangChain's wrapper, which reports its start and end.
 */
export function toolRunsObserved(tool: ObservableTool, config: LangGraphRunnableConfig | undefined): boolean {
  if (hasHandlers(config?.callbacks) || hasHandlers(tool.callbacks) || tool.verbose === true) return true;
  return TRACING_ENV.some((name) => process.env[name] === "true");
}

/** A settled call's result; `command`: the Command its tool returned, to record and apply; `ran`: it returned one that cannot be applied. */
interface Classified {
  executed: ExecutedCall;
  command?: ToolCommand;
  ran?: true;
}

function classify(
  guard: Guard,
  call: ReviewedCall,
  settled: Settled,
  signal: AbortSignal,
  finish: Finish,
): Classified {
  return { executed: classifyResult(guard, call, settled, signal, finish), ...(settled.kind === "message" && settled.command ? { command: settled.command } : {}), ...(settled.kind === "message" && settled.ran ? { ran: true as const } : {}) };
}

function classifyResult(
  guard: Guard,
  call: ReviewedCall,
  settled: Settled,
  signal: AbortSignal,
  finish: Finish,
): ExecutedCall {
  if (settled.kind === "abandoned") {
    const cause = abortCauseOf(signal);
    return finish(
      cause.kind === "timeout" ? "error" : "cancelled",
      execution.abandoned(call.name, describeAbort(cause), guard.abortGraceMs, cause.kind === "timeout"),
    );
  }
  if (settled.kind === "error") {
    if (bubblesUp(settled.error)) throw settled.error;
    if (signal.aborted) {
      const cause = abortCauseOf(signal);
      if (cause.kind === "timeout") return finish("error", execution.timedOut(call.name, describeAbort(cause)));
      return finish("cancelled", execution.stopped(call.name, describeAbort(cause)));
    }
    // A CallAbortError is an Error: its message, as errorText reads it.
    const text = errorText(settled.error);
    return finish("error", execution.failed(call.name, text));
  }
  const { message, command } = settled;
  const executed = finish(message.status === "error" ? "error" : "success", toolContent(message.content), message.artifact);
  // The Command carries the guard's answer (truncated) in its update's messages.
  return command ? { ...executed, command: commandWith(command, executed.message) } : executed;
}

/** The guard's channels: no tool's Command may update them. */
const GUARD_CHANNEL_KEYS = Object.keys(GUARD_CHANNELS);

/** A tool's output as its answer; a Command's answer comes with the Command to apply (command-result.ts). */
function asToolMessage(output: unknown, call: ReviewedCall, scope: Parameters<typeof readToolCommand>[3]): Settled {
  if (isBaseMessage(output) && ToolMessage.isInstance(output)) return { kind: "message", message: output };
  if (isCommandLike(output)) {
    const read = readToolCommand(output, call.name, call.id, scope);
    if (!read.ok) return { kind: "message", message: new ToolMessage({ content: execution.failed(call.name, read.reason), tool_call_id: call.id, name: call.name, status: "error" }), ran: true };
    const { content, status, artifact } = read.answer;
    const message = new ToolMessage({ content: toolContent(content), tool_call_id: call.id, name: call.name, status, ...(artifact !== undefined ? { artifact } : {}) });
    return { kind: "message", message, command: read.command };
  }
  return { kind: "message", message: new ToolMessage({ content: toolContent(output), tool_call_id: call.id, name: call.name, status: "success" }) };
}

/** What the ledger keeps of a completed call (`{ content, command?, failed? }`, plus `interrupts` when the tool asked). */
interface LedgerRecord {
  content: ToolContent;
  command?: StoredCommand;
  failed?: true;
}

/**
 * A call's result and its ledger record. `ran`: its tool returned a Command, so it is recorded even
 * when its answer is an error. A Command that cannot be recorded is not applied: the call fails
 * with the reason, and that failure is what the ledger keeps (never run twice, never replayed as
 * something else).
 */
function recordable(classified: Classified, finish: Finish, call: ReviewedCall): { executed: ExecutedCall; record: LedgerRecord; ran: boolean } {
  const { executed: rest, command: pending } = classified;
  if (pending === undefined) {
    const refused = classified.ran === true;
    return { executed: rest, record: refused ? { content: rest.message.content, failed: true } : { content: rest.message.content }, ran: refused };
  }
  const stored = storeCommand(pending);
  if (!stored.ok) {
    const failed = finish("error", execution.failed(call.name, execution.commandNotRecorded(stored.reason)));
    return { executed: failed, record: { content: failed.message.content, failed: true }, ran: true };
  }
  return { executed: rest, record: { content: rest.message.content, command: stored.stored, ...(rest.result.status === "error" ? { failed: true as const } : {}) }, ran: true };
}

function fromLedger(
  name: string,
  recorded: string,
  finish: (status: CallResult["status"], content: ToolContent) => ExecutedCall,
  config: LangGraphRunnableConfig | undefined,
): ExecutedCall {
  const { content, interrupts, command, failed } = readLedgerResult(recorded);
  // Not run again: the interrupts it asked (and had answered) are passed over in this task's count.
  if (interrupts !== undefined) skipAnsweredInterrupts(config, interrupts);
  if (command === undefined) return finish(failed === true ? "error" : "success", content);
  // Its tool returned a Command: applied again, as recorded, with the same answer; a record that
  // cannot be read back applies nothing (fail closed), and the call is not run again either.
  const loaded = loadCommand(command);
  if (!loaded) return finish("error", execution.failed(name, execution.commandRecordUnreadable()));
  const executed = finish(failed === true ? "error" : "success", content);
  return { ...executed, command: commandWith(loaded, executed.message) };
}

/**
 * A completed call's result as the ledger keeps it (`{ content, interrupts?, command?, failed? }`,
 * written above); a plain-text record is its own content.
 */
export function readLedgerResult(recorded: string): { content: ToolContent; interrupts?: number; command?: unknown; failed?: true } {
  try {
    const parsed = JSON.parse(recorded) as { content?: unknown; interrupts?: unknown; command?: unknown; failed?: unknown };
    return {
      content: toolContent(parsed.content),
      ...(typeof parsed.interrupts === "number" ? { interrupts: parsed.interrupts } : {}),
      ...(parsed.command !== undefined ? { command: parsed.command } : {}),
      ...(parsed.failed === true ? { failed: true as const } : {}),
    };
  } catch {
    return { content: recorded };
  }
}
