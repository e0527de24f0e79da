import { setMaxListeners } from "node:events";
import { abortCauses } from "../messages/index.js";

/** Why a call's signal fired: the run was cancelled, a sibling failed, or the call timed out. */
type AbortCause =
  | { kind: "run" }
  | { kind: "sibling"; callId: string; tool: string; error: string }
  | { kind: "timeout"; ms: number };

class CallAbortError extends Error {
  constructor(readonly abortCause: AbortCause) {
    super(describeAbort(abortCause));
    this.name = "CallAbortError";
  }
}

export function describeAbort(cause: AbortCause): string {
  switch (cause.kind) {
    case "run":
      return abortCauses.run();
    case "sibling":
      return abortCauses.sibling(cause.callId, cause.tool, cause.error);
    case "timeout":
      return abortCauses.timeout(cause.ms);
  }
}

export function abortCauseOf(signal: AbortSignal): AbortCause {
  const reason: unknown = signal.reason;
  if (reason instanceof CallAbortError) return reason.abortCause;
  return { kind: "run" };
}

/**
 * Level 2 of the abort hierarchy, and the batch's concurrency cap: one entry per batch, shared by
 * the batch's tasks in this process, so a failing call cancels only its siblings and at most
 * `maxConcurrency` of them run at once (a sliding window: a call starts as soon as a slot frees).
 */
interface BatchEntry {
  controller: AbortController;
  users: number;
  active: number;
  waiting: (() => void)[];
  unlinkRun: () => void;
}

const batches = new Map<string, BatchEntry>();

interface BatchMembership {
  signal: AbortSignal;
  abort(cause: AbortCause): void;
  /** Waits for one of `limit` slots (or for `signal` to abort); returns the function that frees it. */
  slot(limit: number, signal: AbortSignal): Promise<() => void>;
  leave(): void;
}

/** Joins the batch `key`; the run's signal (level 1) is linked into the batch's once, not once per call. */
export function joinBatch(key: string, runSignal?: AbortSignal): BatchMembership {
  let entry = batches.get(key);
  if (!entry) {
    const controller = new AbortController();
    // Every call of the batch listens to this signal: a batch of 16 must not warn about "leaks".
    setMaxListeners(0, controller.signal);
    const onRunAbort = () => controller.abort(new CallAbortError({ kind: "run" }));
    if (runSignal?.aborted) onRunAbort();
    else runSignal?.addEventListener("abort", onRunAbort, { once: true });
    const unlinkRun = () => runSignal?.removeEventListener("abort", onRunAbort);
    entry = { controller, users: 0, active: 0, waiting: [], unlinkRun };
    batches.set(key, entry);
  }
  entry.users += 1;
  const held = entry;
  const free = () => {
    held.active -= 1;
    held.waiting.shift()?.();
  };
  return {
    signal: held.controller.signal,
    abort: (cause) => {
      if (!held.controller.signal.aborted) held.controller.abort(new CallAbortError(cause));
    },
    slot: (limit, signal) => {
      if (held.active < limit || signal.aborted) {
        if (signal.aborted) return Promise.resolve(() => undefined);
        held.active += 1;
        return Promise.resolve(free);
      }
      return new Promise((resolve) => {
        const take = () => {
          signal.removeEventListener("abort", giveUp);
          held.active += 1;
          resolve(free);
        };
        const giveUp = () => {
          held.waiting = held.waiting.filter((w) => w !== take);
          resolve(() => undefined);
        };
        held.waiting.push(take);
        signal.addEventListener("abort", giveUp, { once: true });
      });
    },
    leave: () => {
      held.users -= 1;
      if (held.users === 0 && batches.get(key) === held) {
        batches.delete(key);
        held.unlinkRun();
      }
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
