import { MemorySaver } from "@langchain/langgraph";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { Guard } from "./guard.js";
import type { ExecutionLedgerView } from "./interfaces.js";

const POLL_MS = 100;

type LedgerClaim =
  | {
      kind: "run";
      settle(success: boolean, recorded?: string): Promise<void>;
      /** The tool interrupted from inside its body: a leased claim is kept until its lease runs out; the process ledger's is freed. */
      interrupted(): Promise<void>;
    }
  | { kind: "done"; recorded: string }
  | { kind: "aborted" };

const NO_LEDGER: LedgerClaim = { kind: "run", settle: async () => undefined, interrupted: async () => undefined };

/**
 * Claims a call in the execution ledger: "run" it now (then `settle` records a success or frees the
 * claim), or it is "done" (another run completed it; here is its recorded result). While another
 * worker's claim is live, waits, unless the run is aborted.
 */
export async function claimCall(
  guard: Guard,
  ledger: ExecutionLedgerView | undefined,
  key: string,
  signal: AbortSignal | undefined,
): Promise<LedgerClaim> {
  if (!ledger) return NO_LEDGER;
  const owner = guard.workerId;
  const leaseMs = guard.ledgerLeaseMs;
  // The process ledger has no leases: it dies with the only worker that could hold its claims.
  const leased = !(ledger instanceof ProcessLedger);
  for (;;) {
    if (signal?.aborted) return { kind: "aborted" };
    const claim = await ledger.claim(key, owner, leaseMs);
    if (claim === "done") return { kind: "done", recorded: (await ledger.result(key)) ?? JSON.stringify({ content: "" }) };
    if (claim === "claimed") {
      const renewal = leased ? setInterval(() => void ledger.renew(key, owner, leaseMs).catch(() => false), leaseMs / 3) : undefined;
      renewal?.unref?.();
      return {
        kind: "run",
        settle: async (success, recorded) => {
          if (renewal) clearInterval(renewal);
          if (success && recorded !== undefined) await ledger.complete(key, recorded);
          else await ledger.release(key, owner);
        },
        interrupted: async () => {
          if (!leased) await ledger.release(key, owner);
        },
      };
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Results kept by a process ledger for turns whose task did not return (interrupted, failed, aborted). */
const PROCESS_LEDGER_ENTRIES = 2_048;

/**
 * The ledger of a graph whose checkpoints live in this process only (LangGraph's MemorySaver): it
 * is exactly as durable as the checkpoints it protects, so it gives the one-task turn the same
 * guarantee a durable ledger gives with a durable checkpointer. A re-run of a turn's task in this
 * process (a tool's interrupt resumed, an aborted or failed run continued) gets the results of the
 * calls that completed instead of running them again. The entries of a turn whose task returned
 * are dropped (`forget`): that task never runs again; at most PROCESS_LEDGER_ENTRIES others are kept.
 */
export class ProcessLedger implements ExecutionLedgerView {
  readonly #done = new Map<string, string>();
  /** Calls running now in this process (a tool that ignores its abort keeps its claim until it ends). */
  readonly #running = new Set<string>();

  async claim(key: string): Promise<"claimed" | "done" | "busy"> {
    if (this.#done.has(key)) return "done";
    if (this.#running.has(key)) return "busy";
    this.#running.add(key);
    return "claimed";
  }

  async complete(key: string, result: string): Promise<void> {
    this.#running.delete(key);
    if (this.#done.has(key)) return;
    this.#done.set(key, result);
    if (this.#done.size > PROCESS_LEDGER_ENTRIES) {
      const oldest = this.#done.keys().next();
      if (oldest.done !== true) this.#done.delete(oldest.value);
    }
  }

  async result(key: string): Promise<string | undefined> {
    return this.#done.get(key);
  }

  async release(key: string, _owner?: string): Promise<void> {
    this.#running.delete(key);
  }

  async renew(): Promise<boolean> {
    return true;
  }

  forget(keys: Iterable<string>): void {
    for (const key of keys) this.#done.delete(key);
  }

  get size(): number {
    return this.#done.size;
  }
}

/** The checkpointer LangGraph runs this task with (absent when the graph has none). */
function checkpointerOf(config: LangGraphRunnableConfig | undefined): unknown {
  return config?.configurable?.__pregel_checkpointer;
}

/**
 * The ledger that makes a turn's one task exactly-once, or undefined when there is none and each
 * call must be its own task: the guard's `ledger`; else, when the run's checkpointer is LangGraph's
 * in-memory MemorySaver itself (not a subclass, which may persist), the graph's process ledger.
 * Any other checkpointer, or none the guard can see, gets no process ledger (fail closed).
 */
export function executionLedger(
  guard: Guard,
  processLedger: ProcessLedger | undefined,
  config: LangGraphRunnableConfig | undefined,
): ExecutionLedgerView | undefined {
  if (guard.options.ledger) return guard.options.ledger;
  if (!processLedger) return undefined;
  const checkpointer = checkpointerOf(config);
  return checkpointer instanceof MemorySaver && Object.getPrototypeOf(checkpointer) === MemorySaver.prototype ? processLedger : undefined;
}
