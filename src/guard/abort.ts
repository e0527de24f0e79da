/** Why a call's signal fired: the run was cancelled, a sibling failed, or the call timed out. */
export type AbortCause =
  | { kind: "run" }
  | { kind: "sibling"; callId: string; tool: string; error: string }
  | { kind: "timeout"; ms: number };

export class CallAbortError extends Error {
  constructor(readonly abortCause: AbortCause) {
    super(describeAbort(abortCause));
    this.name = "CallAbortError";
  }
}

export function describeAbort(cause: AbortCause): string {
  switch (cause.kind) {
    case "run":
      return "the run was cancelled";
    case "sibling":
      return `sibling call ${cause.callId} (${cause.tool}) in the same batch failed: ${cause.error}`;
    case "timeout":
      return `timed out after ${cause.ms} ms`;
  }
}

export function abortCauseOf(signal: AbortSignal): AbortCause {
  const reason: unknown = signal.reason;
  if (reason instanceof CallAbortError) return reason.abortCause;
  return { kind: "run" };
}

/**
 * Level 2 of the abort hierarchy: one controller per batch, shared by the batch's tasks in this
 * process, so a failing call cancels only its siblings. Level 1 is the run's own signal.
 */
const batches = new Map<string, { controller: AbortController; users: number }>();

export function joinBatch(key: string): { signal: AbortSignal; abort(cause: AbortCause): void; leave(): void } {
  let entry = batches.get(key);
  if (!entry) {
    entry = { controller: new AbortController(), users: 0 };
    batches.set(key, entry);
  }
  entry.users += 1;
  const held = entry;
  return {
    signal: held.controller.signal,
    abort: (cause) => {
      if (!held.controller.signal.aborted) held.controller.abort(new CallAbortError(cause));
    },
    leave: () => {
      held.users -= 1;
      if (held.users === 0 && batches.get(key) === held) batches.delete(key);
    },
  };
}

/** A signal that fires after `ms`, carrying a timeout cause; `clear` stops the timer. */
export function timeoutSignal(ms: number | undefined): { signal: AbortSignal | undefined; clear(): void } {
  if (ms === undefined || !Number.isFinite(ms) || ms <= 0) return { signal: undefined, clear: () => undefined };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new CallAbortError({ kind: "timeout", ms })), ms);
  timer.unref?.();
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}
