import { setImmediate as nextMacrotask } from "node:timers/promises";
import type { CallResult } from "../guard/state.js";

/** Turns whose results are kept for their later batches' start checks (oldest dropped first). */
const MAX_REMEMBERED_TURNS = 1024;

interface Entry {
  batch: number;
  done: Promise<void>;
}

/**
 * Keeps a turn's batches in order inside this process. LangChain starts every tool call of a turn
 * at once; a call waits here until the calls of earlier batches that are running have finished,
 * so a call that is not concurrency-safe never overlaps another call of its turn.
 *
 * It only waits for calls it has seen (one macrotask lets the turn's calls arrive): a call that
 * finished before a crash is never waited for, so a resumed turn cannot deadlock.
 */
export class TurnGate {
  readonly #turns = new Map<string, Map<string, Entry>>();
  readonly #results = new Map<string, Map<string, CallResult>>();

  /** Records a finished call's result for the start checks of its turn's later batches. */
  record(turnKey: string, result: CallResult): void {
    let turn = this.#results.get(turnKey);
    if (!turn) {
      turn = new Map();
      this.#results.set(turnKey, turn);
      if (this.#results.size > MAX_REMEMBERED_TURNS) {
        const oldest = this.#results.keys().next().value;
        if (oldest !== undefined) this.#results.delete(oldest);
      }
    }
    turn.set(result.id, result);
  }

  /** The result of a call of this turn that finished in this process, if any. */
  result(turnKey: string, callId: string): CallResult | undefined {
    return this.#results.get(turnKey)?.get(callId);
  }

  /** Waits for this call's turn; the returned function must be called when the call has ended. */
  async enter(turnKey: string, callId: string, batch: number): Promise<() => void> {
    let turn = this.#turns.get(turnKey);
    if (!turn) {
      turn = new Map();
      this.#turns.set(turnKey, turn);
    }
    let release!: () => void;
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    turn.set(callId, { batch, done });
    const held = turn;
    const leave = () => {
      held.delete(callId);
      if (held.size === 0 && this.#turns.get(turnKey) === held) this.#turns.delete(turnKey);
      release();
    };
    try {
      await nextMacrotask();
      await Promise.all([...held.values()].filter((e) => e.batch < batch).map((e) => e.done));
    } catch (error) {
      leave();
      throw error;
    }
    return leave;
  }
}
