import { MemorySaver } from "@langchain/langgraph";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { Guard } from "./guard.js";
import type { ExecutionLedgerView } from "./interfaces.js";
import { keepNewest } from "./keep-newest.js";
import type { AuditRecord, AuditSink } from "../audit/types.js";

const POLL_MS = 100;

type ClaimOutcome = "claimed" | "done" | "busy";

type LedgerClaim =
  | {
      kind: "run";
      /**
       * Records a success (and, with `outcome`, its audit record in the same commit when the ledger
       * carries the guard's audit: see `auditCarriedBy`), or frees the claim.
       */
      settle(success: boolean, recorded?: string, outcome?: AuditRecord): Promise<{ outcomeAudited: boolean }>;
      /** The tool interrupted from inside its body (it asked the user): the claim is freed, the resumed task runs it again. */
      interrupted(): Promise<void>;
    }
  | { kind: "done"; recorded: string }
  | { kind: "aborted" };

const NOT_AUDITED = { outcomeAudited: false };
const AUDITED = { outcomeAudited: true };
const NO_LEDGER: LedgerClaim = { kind: "run", settle: async () => NOT_AUDITED, interrupted: async () => undefined };

/**
 * The guard's audit sink when `ledger` keeps its records in its own database (SQLite file or
 * PostgreSQL URL of both the same): a batch's decisions then commit with its claims, and calls'
 * outcomes with their completions. Undefined otherwise.
 */
export function auditCarriedBy(guard: Guard, ledger: ExecutionLedgerView | undefined): AuditSink | undefined {
  const sink = guard.options.audit;
  return sink && ledger?.claimMany && ledger.completeMany && ledger.carriesAudit?.(sink) === true ? sink : undefined;
}

/**
 * Claims a batch's calls in one commit (`claimMany`), with `decisions` in that commit when the
 * ledger carries the guard's audit. Undefined when the ledger cannot (each call claims on its own
 * in `claimCall`), when there is nothing to claim, or when the run is already aborted; then
 * `decisions` were not written.
 */
export async function claimBatch(
  guard: Guard,
  ledger: ExecutionLedgerView | undefined,
  keys: readonly string[],
  signal: AbortSignal | undefined,
  decisions: readonly AuditRecord[] = [],
): Promise<ClaimOutcome[] | undefined> {
  if (!ledger?.claimMany || keys.length === 0 || signal?.aborted) return undefined;
  const sink = decisions.length > 0 ? auditCarriedBy(guard, ledger) : undefined;
  if (decisions.length > 0 && !sink) return undefined;
  return ledger.claimMany(keys, guard.workerId, guard.ledgerLeaseMs, sink ? { sink, records: decisions } : undefined);
}

/**
 * Claims a call in the execution ledger: "run" it now (then `settle` records a success or frees the
 * claim), or it is "done" (another run completed it; here is its recorded result). While another
 * worker's claim is live, waits, unless the run is aborted. `first`: the outcome of the batch's
 * claim (`claimBatch`), taken as this call's first attempt.
 */
export async function claimCall(
  guard: Guard,
  ledger: ExecutionLedgerView | undefined,
  key: string,
  signal: AbortSignal | undefined,
  first?: ClaimOutcome,
): Promise<LedgerClaim> {
  if (!ledger) return NO_LEDGER;
  const owner = guard.workerId;
  const leaseMs = guard.ledgerLeaseMs;
  // The process ledger has no leases: it dies with the only worker that could hold its claims.
  const leased = !(ledger instanceof ProcessLedger);
  let known = first;
  for (;;) {
    if (known === undefined && signal?.aborted) return { kind: "aborted" };
    const claim = known ?? (await ledger.claim(key, owner, leaseMs));
    known = undefined;
    if (claim === "done") return { kind: "done", recorded: (await ledger.result(key)) ?? JSON.stringify({ content: "" }) };
    if (claim === "claimed") {
      const renewal = leased ? setInterval(() => void ledger.renew(key, owner, leaseMs).catch(() => false), leaseMs / 3) : undefined;
      renewal?.unref?.();
      return {
        kind: "run",
        settle: async (success, recorded, outcome) => {
          if (renewal) clearInterval(renewal);
          if (success && recorded !== undefined) return completeCall(guard, ledger, key, recorded, outcome);
          await ledger.release(key, owner);
          return NOT_AUDITED;
        },
        interrupted: async () => {
          // The tool asked the user (LangGraph's interrupt) and ends here: the resumed task runs it
          // again from its start, so its claim is freed now (a kept claim would make that run wait
          // for the lease, which this process went on renewing).
          if (renewal) clearInterval(renewal);
          await ledger.release(key, owner);
        },
      };
    }
    if (signal?.aborted) return { kind: "aborted" };
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

interface PendingCompletion {
  key: string;
  result: string;
  outcome: AuditRecord | undefined;
  resolve(): void;
  reject(error: unknown): void;
}

/** Completions waiting for their ledger's next shared commit, per ledger, per audit sink carried (null: none). */
const completionRounds = new WeakMap<ExecutionLedgerView, Map<AuditSink | null, PendingCompletion[]>>();

/**
 * Records a call's completion. A ledger that completes many at once (`completeMany`) gets one
 * commit for every call of this process that completes before the end of the current turn of the
 * event loop (calls that end together: a batch of fast calls), with their outcome records when it
 * carries the guard's audit; the call goes on once its own completion is committed, as before.
 */
async function completeCall(guard: Guard, ledger: ExecutionLedgerView, key: string, result: string, outcome: AuditRecord | undefined): Promise<{ outcomeAudited: boolean }> {
  if (!ledger.completeMany) {
    await ledger.complete(key, result);
    return NOT_AUDITED;
  }
  const sink = (outcome && auditCarriedBy(guard, ledger)) || null;
  await new Promise<void>((resolve, reject) => {
    let round = completionRounds.get(ledger);
    if (!round) {
      const groups: Map<AuditSink | null, PendingCompletion[]> = (round = new Map());
      completionRounds.set(ledger, groups);
      setImmediate(() => {
        completionRounds.delete(ledger);
        for (const [carried, pending] of groups) void commitCompletions(ledger, carried, pending);
      });
    }
    let pending = round.get(sink);
    if (!pending) round.set(sink, (pending = []));
    pending.push({ key, result, outcome: sink ? outcome : undefined, resolve, reject });
  });
  return sink ? AUDITED : NOT_AUDITED;
}

async function commitCompletions(ledger: ExecutionLedgerView, sink: AuditSink | null, pending: readonly PendingCompletion[]): Promise<void> {
  const records = pending.flatMap((p) => (p.outcome ? [p.outcome] : []));
  try {
    await ledger.completeMany?.(
      pending.map(({ key, result }) => ({ key, result })),
      sink && records.length > 0 ? { sink, records } : undefined,
    );
  } catch (error) {
    for (const p of pending) p.reject(error);
    return;
  }
  for (const p of pending) p.resolve();
}

/** Results kept by a process ledger for turns whose task did not return (interrupted, failed, aborted). */
const PROCESS_LEDGER_ENTRIES = 2_048;

/** Results kept by a process ledger for turns whose task returned (the most recent ones). */
const PROCESS_LEDGER_RETURNED = 2_048;


/**
 * The ledger of a graph whose checkpoints live in this process only (LangGraph's MemorySaver): it
 * is exactly as durable as the checkpoints it protects, so it gives the one-task turn the same
 * guarantee a durable ledger gives with a durable checkpointer. A re-run of a turn's task in this
 * process (a tool's interrupt resumed, an aborted or failed run continued) gets the results of the
 * calls that completed instead of running them again. The entries of a turn whose task returned
 * (`forget`) are kept apart, the most recent PROCESS_LEDGER_RETURNED of them: that task does not
 * run again from its own run, but a second run started from the same checkpoint at the same time
 * (two answers to one approval sent at once, a double click) runs it again and must read them, or
 * an approved call would run twice. At most PROCESS_LEDGER_ENTRIES others are kept.
 */
export class ProcessLedger implements ExecutionLedgerView {
  readonly #done = new Map<string, string>();
  readonly #returned = new Map<string, string>();
  /** Calls running now in this process (a tool that ignores its abort keeps its claim until it ends). */
  readonly #running = new Set<string>();
  /** Calls ever claimed (sent to start), the most recent PROCESS_LEDGER_ENTRIES: see `started`. */
  readonly #claimed = new Map<string, string>();

  async claim(key: string): Promise<"claimed" | "done" | "busy"> {
    if (this.#done.has(key) || this.#returned.has(key)) return "done";
    if (this.#running.has(key)) return "busy";
    this.#running.add(key);
    keepNewest(this.#claimed, key, "", PROCESS_LEDGER_ENTRIES);
    return "claimed";
  }

  /**
   * Whether the call was ever claimed here: a call is claimed right before it starts (and freed when
   * it fails or stops), so false means it never started in this process; true, that it may have.
   */
  started(key: string): boolean {
    return this.#claimed.has(key) || this.#done.has(key) || this.#returned.has(key);
  }

  async complete(key: string, result: string): Promise<void> {
    this.#running.delete(key);
    if (this.#done.has(key) || this.#returned.has(key)) return;
    keepNewest(this.#done, key, result, PROCESS_LEDGER_ENTRIES);
  }

  async result(key: string): Promise<string | undefined> {
    return this.#done.get(key) ?? this.#returned.get(key);
  }

  async release(key: string, _owner?: string): Promise<void> {
    this.#running.delete(key);
  }

  async renew(): Promise<boolean> {
    return true;
  }

  /** The task of these calls returned: their results move to the returned entries (see above). */
  forget(keys: Iterable<string>): void {
    for (const key of keys) {
      const result = this.#done.get(key);
      if (result === undefined) continue;
      this.#done.delete(key);
      keepNewest(this.#returned, key, result, PROCESS_LEDGER_RETURNED);
    }
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
 * The ledger every entry point runs a turn's calls with (createGuardedAgent, GuardedToolNode,
 * guardMiddleware: each keeps one ProcessLedger per graph, node or middleware), so that a re-run of
 * a turn in this process, or a second run started from the same checkpoint (two answers to one
 * approval), reads the calls that completed instead of running them again. For createGuardedAgent
 * it is also what makes the turn's one task exactly-once; undefined when there is none (each call
 * is then its own task there): the guard's `ledger`; else, when the run's checkpointer is LangGraph's
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
