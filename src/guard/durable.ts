import type { RunnableConfig } from "@langchain/core/runnables";
import { Command } from "@langchain/langgraph";
import type { BaseCheckpointSaver, Interrupt, StateSnapshot } from "@langchain/langgraph";
import { ErrorCode, StorageError } from "../errors/index.js";
import { acquireThreadLock } from "../storage/lock.js";
import type { ThreadLock } from "../storage/lock.js";
import { resolveStorageSpec } from "../storage/spec.js";
import { unsavedCheckpointWrites } from "../storage/threads.js";
import type { UnsavedWrites } from "../storage/threads.js";

/** What durable runs need of a compiled graph (any `createGuardedAgent` graph with a checkpointer). */
export interface DurableGraph<Output, Input = never> {
  invoke(input: Input | Command | null, config: RunnableConfig): Promise<Output>;
  getState(config: RunnableConfig): Promise<StateSnapshot>;
  /** The compiled graph's checkpointer: read for writes saved under checkpoints that never were. */
  checkpointer?: BaseCheckpointSaver | boolean;
}

/** Options of `startThread`, `resumeThread`, `continueThread` and `runThreadLocked`: the lock, how long to wait for it, and the run's config. */
export interface DurableRunOptions {
  /** Storage spec naming the thread lock; default `GUARDED_GRAPH_DB`, else the embedded SQLite file. */
  lockSpec?: string;
  /** SQLite lock lease (renewed while held); a crashed holder's lock is free once it runs out. */
  leaseMs?: number;
  /** Identity recorded with the lock; default host:pid:random. */
  owner?: string;
  /** How long to keep trying when another worker holds the lock (ms). Default 0: answer "busy" at once. */
  waitMs?: number;
  /** Extra run config (signal, recursionLimit, configurable, LangGraph's `durability`); `thread_id` is always `threadId`. */
  config?: RunnableConfig & { durability?: "sync" | "async" | "exit" };
}

export type DurableOutcome<Output> =
  /** Another live worker holds the thread: nothing ran. */
  | { status: "busy" }
  /** Nothing to do (no pending approval to answer, or nothing left to run): nothing ran. */
  | { status: "idle"; reason: string; interrupts: Interrupt[] }
  /** The thread ran until it finished or stopped at a new interrupt (`interrupts`). */
  | { status: "ran"; output: Output; interrupts: Interrupt[] };

const LOCK_POLL_MS = 100;

function pendingInterrupts(snapshot: StateSnapshot): Interrupt[] {
  return snapshot.tasks.flatMap((task) => task.interrupts ?? []);
}

/**
 * Where a thread stands, read from its latest checkpoint. `"run-lost"`: nothing is left to run from
 * the latest checkpoint, but writes of a later run were saved under checkpoints that never were (a
 * crash under `durability: "async"`, or in a run's first step of a graph createGuardedAgent did not
 * build: docs/durability.md): that run is gone, not done.
 */
export type ThreadProgress = "waits-for-approval" | "has-work" | "done" | "run-lost";

/**
 * Decides from the checkpoint's tasks and their saved writes, as `graph.invoke(null)` does, never
 * from `next` alone: `next` leaves out tasks whose writes were saved, so a worker killed after a
 * step's last task saved its writes and before the next checkpoint leaves `next` empty while the
 * step is not committed yet. Any task of the next step, with or without saved writes, is work left.
 * `unsaved` (from `readThreadProgress`): writes newer than the latest checkpoint, under checkpoint
 * ids the checkpointer never saved; with nothing left to run, they make the thread `"run-lost"`.
 */
export function threadProgress(snapshot: Pick<StateSnapshot, "tasks" | "next">, unsaved?: UnsavedWrites): ThreadProgress {
  if (snapshot.tasks.some((task) => (task.interrupts ?? []).length > 0)) return "waits-for-approval";
  if (snapshot.tasks.length > 0 || snapshot.next.length > 0) return "has-work";
  return unsaved ? "run-lost" : "done";
}

/** Why a thread is `"run-lost"`: what was saved, and what to do. */
function runLostReason(snapshot: Pick<StateSnapshot, "config">, unsaved: UnsavedWrites): string {
  const latest = snapshot.config.configurable?.checkpoint_id as string | undefined;
  return (
    `the thread's last run was lost: its writes (${unsaved.channels.join(", ")}) were saved under ${unsaved.checkpointIds.length} checkpoint(s) ` +
    `the checkpointer never saved (${unsaved.checkpointIds[0]}${unsaved.checkpointIds.length > 1 ? ", …" : ""}), newer than ` +
    `${latest ? `the latest saved checkpoint ${latest}, which has nothing left to run` : "any saved checkpoint (the thread has none)"}. ` +
    `A crash leaves this when a step's writes are saved before its checkpoint: under durability "async" (each checkpoint is saved in the background, ` +
    `its tasks' writes at once), or in a run's first step of a graph compiled on a checkpointer not wrapped by writesAfterTheirCheckpoint (createGuardedAgent wraps its own). ` +
    `Start the run again with its input; run createGuardedAgent's graph with durability "sync" to avoid it`
  );
}

function checkpointerOf(graph: Pick<DurableGraph<unknown>, "checkpointer">): BaseCheckpointSaver | undefined {
  const saver = graph.checkpointer;
  return typeof saver === "object" && saver !== null ? saver : undefined;
}

async function unsavedWritesFor(graph: Pick<DurableGraph<unknown>, "checkpointer">, threadId: string, snapshot: StateSnapshot): Promise<UnsavedWrites | undefined> {
  const saver = checkpointerOf(graph);
  if (!saver) return undefined;
  return unsavedCheckpointWrites(saver, threadId, snapshot.config.configurable?.checkpoint_id as string | undefined);
}

export interface ThreadReport {
  progress: ThreadProgress;
  /** Why, when `progress` is `"run-lost"`. */
  reason?: string;
  snapshot: StateSnapshot;
}

/**
 * `threadProgress` of a thread's latest checkpoint, plus the writes a crash under `durability:
 * "async"` left under checkpoints that were never saved (SQLite and PostgreSQL checkpointers opened
 * by `openCheckpointer`; other savers cannot be asked, and such a thread reads `"done"`).
 */
export async function readThreadProgress<Output, Input = never>(graph: DurableGraph<Output, Input>, threadId: string, config: RunnableConfig = {}): Promise<ThreadReport> {
  const snapshot = await graph.getState({ ...config, configurable: { ...config.configurable, thread_id: threadId } });
  return reportOf(snapshot, threadProgress(snapshot) === "done" ? await unsavedWritesFor(graph, threadId, snapshot) : undefined);
}

function reportOf(snapshot: StateSnapshot, unsaved: UnsavedWrites | undefined): ThreadReport {
  const progress = threadProgress(snapshot, unsaved);
  return progress === "run-lost" && unsaved ? { progress, reason: runLostReason(snapshot, unsaved), snapshot } : { progress, snapshot };
}

function runLostError(threadId: string, reason: string): StorageError {
  return new StorageError(ErrorCode.THREAD_RUN_LOST, `thread ${threadId}: ${reason}`);
}

function threadConfig(threadId: string, options: DurableRunOptions): RunnableConfig {
  return {
    ...options.config,
    configurable: { ...options.config?.configurable, thread_id: threadId },
  };
}

async function lockThread(threadId: string, options: DurableRunOptions): Promise<ThreadLock | null> {
  const spec = resolveStorageSpec(options.lockSpec);
  const lockOptions = { leaseMs: options.leaseMs, owner: options.owner };
  const deadline = Date.now() + (options.waitMs ?? 0);
  for (;;) {
    const lock = await acquireThreadLock(spec, threadId, lockOptions);
    if (lock !== null || Date.now() >= deadline) return lock;
    await new Promise((resolve) => setTimeout(resolve, Math.min(LOCK_POLL_MS, Math.max(1, deadline - Date.now()))));
  }
}

/**
 * Runs `step` while holding the thread's execution lock, so no two workers run one thread at once.
 * `step` sees the thread's latest checkpoint (read after the lock is taken) and returns the input
 * to run, or a reason to run nothing.
 */
export function runThreadLocked<Output, Input = never>(
  graph: DurableGraph<Output, Input>,
  threadId: string,
  options: DurableRunOptions,
  step: (snapshot: StateSnapshot, interrupts: Interrupt[]) => { input: Input | Command | null } | { idle: string },
): Promise<DurableOutcome<Output>> {
  return runLocked(graph, threadId, options, false, (report, interrupts) => step(report.snapshot, interrupts));
}

/** `runThreadLocked`; with `inspect`, `step` also learns whether the thread's last run was lost. */
async function runLocked<Output, Input = never>(
  graph: DurableGraph<Output, Input>,
  threadId: string,
  options: DurableRunOptions,
  inspect: boolean,
  step: (report: ThreadReport, interrupts: Interrupt[]) => { input: Input | Command | null } | { idle: string },
): Promise<DurableOutcome<Output>> {
  const lock = await lockThread(threadId, options);
  if (lock === null) return { status: "busy" };
  try {
    const config = threadConfig(threadId, options);
    const before = await graph.getState(config);
    const unsaved = inspect && threadProgress(before) === "done" ? await unsavedWritesFor(graph, threadId, before) : undefined;
    const decided = step(reportOf(before, unsaved), pendingInterrupts(before));
    if ("idle" in decided) return { status: "idle", reason: decided.idle, interrupts: pendingInterrupts(before) };
    const output = await graph.invoke(decided.input, config);
    const after = await graph.getState(config);
    return { status: "ran", output, interrupts: pendingInterrupts(after) };
  } finally {
    await lock.release();
  }
}

/** Runs new input (e.g. `{ messages: [new HumanMessage(...)] }`) on a thread under its lock, unless it waits for an approval. */
export function startThread<Output, Input>(
  graph: DurableGraph<Output, Input>,
  threadId: string,
  input: Input,
  options: DurableRunOptions = {},
): Promise<DurableOutcome<Output>> {
  return runThreadLocked(graph, threadId, options, (_snapshot, interrupts) =>
    interrupts.length > 0 ? { idle: "the thread waits for an approval: resume it with decisions" } : { input },
  );
}

/**
 * Answers a thread's pending approval interrupt under the thread lock. When another worker holds
 * the lock the answer is "busy"; when the thread no longer waits for an answer (another worker
 * already resumed it) the answer is "idle". Either way nothing runs, so a resume is never applied twice.
 */
export function resumeThread<Output, Input = never>(
  graph: DurableGraph<Output, Input>,
  threadId: string,
  resume: unknown,
  options: DurableRunOptions = {},
): Promise<DurableOutcome<Output>> {
  return runLocked(graph, threadId, options, true, (report, interrupts) => {
    if (interrupts.length > 0) return { input: new Command({ resume }) };
    // The run that asked for the approval was lost (its interrupt saved under a checkpoint that never was).
    if (report.progress === "run-lost") throw runLostError(threadId, report.reason ?? "");
    return { idle: "the thread has no pending interrupt to resume" };
  });
}

/**
 * Continues a thread whose worker stopped mid-step (crash, kill, lost connection): runs the
 * unfinished tasks of its latest checkpoint. Calls whose writes were saved are not run again.
 * Throws `GG_ERR_THREAD_RUN_LOST` (a `StorageError`) when the thread's last run was lost — its
 * writes saved under checkpoints that never were, a crash under `durability: "async"` — rather than
 * answering that nothing is left to run: start that run again with its input.
 */
export function continueThread<Output, Input = never>(
  graph: DurableGraph<Output, Input>,
  threadId: string,
  options: DurableRunOptions = {},
): Promise<DurableOutcome<Output>> {
  return runLocked(graph, threadId, options, true, (report, interrupts) => {
    const progress = report.progress;
    if (progress === "waits-for-approval" || interrupts.length > 0) {
      return { idle: "the thread waits for an approval: resume it with decisions" };
    }
    if (progress === "run-lost") throw runLostError(threadId, report.reason ?? "");
    if (progress === "done") return { idle: "the thread has nothing left to run" };
    return { input: null };
  });
}
