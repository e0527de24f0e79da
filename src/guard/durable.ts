import type { RunnableConfig } from "@langchain/core/runnables";
import { Command } from "@langchain/langgraph";
import type { Interrupt, StateSnapshot } from "@langchain/langgraph";
import { acquireThreadLock } from "../storage/lock.js";
import type { ThreadLock } from "../storage/lock.js";
import { resolveStorageSpec } from "../storage/spec.js";

/** What durable runs need of a compiled graph (any `createGuardedAgent` graph with a checkpointer). */
export interface DurableGraph<Output, Input = never> {
  invoke(input: Input | Command | null, config: RunnableConfig): Promise<Output>;
  getState(config: RunnableConfig): Promise<StateSnapshot>;
}

export interface DurableRunOptions {
  /** Storage spec naming the thread lock; default `GUARDED_GRAPH_DB`, else the embedded SQLite file. */
  lockSpec?: string;
  /** SQLite lock lease (renewed while held); a crashed holder's lock is free once it runs out. */
  leaseMs?: number;
  /** Identity recorded with the lock; default host:pid:random. */
  owner?: string;
  /** How long to keep trying when another worker holds the lock (ms). Default 0: answer "busy" at once. */
  waitMs?: number;
  /** Extra run config (signal, recursionLimit, configurable); `thread_id` is always `threadId`. */
  config?: RunnableConfig;
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

/** Where a thread stands, read from its latest checkpoint. */
export type ThreadProgress = "waits-for-approval" | "has-work" | "done";

/**
 * Decides from the checkpoint's tasks and their saved writes, as `graph.invoke(null)` does, never
 * from `next` alone: `next` leaves out tasks whose writes were saved, so a worker killed after a
 * step's last task saved its writes and before the next checkpoint leaves `next` empty while the
 * step is not committed yet. Any task of the next step, with or without saved writes, is work left.
 */
export function threadProgress(snapshot: Pick<StateSnapshot, "tasks" | "next">): ThreadProgress {
  if (snapshot.tasks.some((task) => (task.interrupts ?? []).length > 0)) return "waits-for-approval";
  return snapshot.tasks.length > 0 || snapshot.next.length > 0 ? "has-work" : "done";
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
export async function runThreadLocked<Output, Input = never>(
  graph: DurableGraph<Output, Input>,
  threadId: string,
  options: DurableRunOptions,
  step: (snapshot: StateSnapshot, interrupts: Interrupt[]) => { input: Input | Command | null } | { idle: string },
): Promise<DurableOutcome<Output>> {
  const lock = await lockThread(threadId, options);
  if (lock === null) return { status: "busy" };
  try {
    const config = threadConfig(threadId, options);
    const before = await graph.getState(config);
    const decided = step(before, pendingInterrupts(before));
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
  return runThreadLocked(graph, threadId, options, (_snapshot, interrupts) =>
    interrupts.length === 0 ? { idle: "the thread has no pending interrupt to resume" } : { input: new Command({ resume }) },
  );
}

/**
 * Continues a thread whose worker stopped mid-step (crash, kill, lost connection): runs the
 * unfinished tasks of its latest checkpoint. Calls whose writes were saved are not run again.
 */
export function continueThread<Output, Input = never>(
  graph: DurableGraph<Output, Input>,
  threadId: string,
  options: DurableRunOptions = {},
): Promise<DurableOutcome<Output>> {
  return runThreadLocked(graph, threadId, options, (snapshot, interrupts) => {
    const progress = threadProgress(snapshot);
    if (progress === "waits-for-approval" || interrupts.length > 0) {
      return { idle: "the thread waits for an approval: resume it with decisions" };
    }
    if (progress === "done") return { idle: "the thread has nothing left to run" };
    return { input: null };
  });
}
