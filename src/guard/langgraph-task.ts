import type { LangGraphRunnableConfig } from "@langchain/langgraph";

/**
 * What the guard reads of the LangGraph task it runs in: the task's scratchpad
 * (`configurable.__pregel_scratchpad`, read by `interrupt()` in @langchain/langgraph 1.x), and the
 * interrupt the task saved with its step's checkpoint. The one module that knows their shape; where
 * they are not there (a call outside a graph, another LangGraph) nothing is counted, moved, taken or read.
 *
 * - The interrupt count. LangGraph matches a task's `interrupt()` calls to the human's answers by
 *   their order in the task: the n-th interrupt of a task run gets the n-th answer. A call the guard
 *   does not run again (its completion is in the ledger) asks nothing on the re-run, so the calls
 *   after it would read the answers one place early: the second tool's question would get the first
 *   one's answer. The guard records how many interrupts a call asked (all answered, since it
 *   completed) and, when it does not run the call again, moves the task's count past them.
 * - The resume no interrupt of the task has taken yet (a "null resume"): an answer that reached the
 *   thread while no interrupt waited for it (answer-race.ts takes it as a late answer).
 * - The interrupt an answer was given for. When a task interrupts, LangGraph saves the interrupt's
 *   value as a pending write of the step's checkpoint (channel `__interrupt__`, keyed by the task's
 *   id; a later interrupt of the same task replaces it), and on resume runs the task again in that
 *   checkpoint. The value read back is what the human was shown, whatever the state now holds.
 */
const SCRATCHPAD_KEY = "__pregel_scratchpad";
const CHECKPOINTER_KEY = "__pregel_checkpointer";
const TASK_ID_KEY = "__pregel_task_id";
const CHECKPOINT_MAP_KEY = "checkpoint_map";
const INTERRUPT_CHANNEL = "__interrupt__";
/** Between the namespaces of a nested task's parents and its own (`parent|node:taskId`). */
const NAMESPACE_SEPARATOR = "|";

interface Scratchpad {
  currentTaskInput?: unknown;
  interruptCounter?: unknown;
  nullResume?: unknown;
  consumeNullResume?: unknown;
}

function scratchpadOf(config: LangGraphRunnableConfig | undefined): Scratchpad | undefined {
  const scratchpad: unknown = config?.configurable?.[SCRATCHPAD_KEY];
  return typeof scratchpad === "object" && scratchpad !== null ? (scratchpad as Scratchpad) : undefined;
}

/**
 * The input of the task: the graph's state as the node reads it (LangChain's ToolNode hands it to a
 * tool as `runtime.state`); undefined outside a LangGraph task.
 */
function taskInput(config: LangGraphRunnableConfig | undefined): unknown {
  return scratchpadOf(config)?.currentTaskInput;
}

/**
 * The graph state a tool reads as `runtime.state`: the task's input, without what the guard's
 * per-call task adds to it (the call and its slot, sent with the state by createGuardedAgent).
 */
export function toolStateOf(config: LangGraphRunnableConfig | undefined): unknown {
  const input = taskInput(config);
  if (typeof input !== "object" || input === null || !("guardCall" in input)) return input;
  const { guardCall: _call, guardSlot: _slot, ...state } = input as Record<string, unknown>;
  return state;
}

/** The task's interrupt count now (undefined outside a LangGraph task). */
export function interruptCount(config: LangGraphRunnableConfig | undefined): number | undefined {
  const counter = scratchpadOf(config)?.interruptCounter;
  return typeof counter === "number" && Number.isInteger(counter) ? counter : undefined;
}

/** A call that is not run again asked `answered` interrupts when it ran: the task's count moves past them. */
export function skipAnsweredInterrupts(config: LangGraphRunnableConfig | undefined, answered: number): void {
  const scratchpad = scratchpadOf(config);
  const counter = interruptCount(config);
  if (scratchpad !== undefined && counter !== undefined && Number.isInteger(answered) && answered > 0) scratchpad.interruptCounter = counter + answered;
}

/** Whether LangGraph hands this task a resume that no interrupt of it has taken yet. */
export function hasNullResume(config: LangGraphRunnableConfig | undefined): boolean {
  return scratchpadOf(config)?.nullResume !== undefined;
}

/** Takes the task's null resume (no later interrupt gets it); undefined when there is none. */
export function takeNullResume(config: LangGraphRunnableConfig | undefined): unknown {
  const scratchpad = scratchpadOf(config);
  if (scratchpad?.nullResume === undefined) return undefined;
  const consume = scratchpad.consumeNullResume;
  const value = typeof consume === "function" ? (consume as () => unknown).call(scratchpad) : scratchpad.nullResume;
  delete scratchpad.nullResume;
  return value;
}

interface CheckpointReader {
  getTuple(config: { configurable: Record<string, unknown> }): Promise<{ pendingWrites?: unknown } | undefined>;
}

function isCheckpointReader(value: unknown): value is CheckpointReader {
  return typeof value === "object" && value !== null && typeof (value as { getTuple?: unknown }).getTuple === "function";
}

/**
 * The values of the interrupts this task saved with its step's checkpoint that `read` takes (returns
 * defined for), newest last; an empty list when there are none or they cannot be read (no
 * checkpointer, a call outside a graph, a checkpointer that fails to read).
 */
export async function savedInterruptValues<T>(config: LangGraphRunnableConfig | undefined, read: (value: unknown) => T | undefined): Promise<T[]> {
  const configurable = config?.configurable;
  const checkpointer: unknown = configurable?.[CHECKPOINTER_KEY];
  const taskId: unknown = configurable?.[TASK_ID_KEY];
  const namespace: unknown = configurable?.checkpoint_ns;
  const map: unknown = configurable?.[CHECKPOINT_MAP_KEY];
  if (!isCheckpointReader(checkpointer) || typeof taskId !== "string" || typeof namespace !== "string" || typeof map !== "object" || map === null) return [];
  const cut = namespace.lastIndexOf(NAMESPACE_SEPARATOR);
  const parent = cut < 0 ? "" : namespace.slice(0, cut);
  const checkpointId: unknown = (map as Record<string, unknown>)[parent];
  if (typeof checkpointId !== "string") return [];
  let tuple: { pendingWrites?: unknown } | undefined;
  try {
    tuple = await checkpointer.getTuple({ configurable: { thread_id: configurable?.thread_id, checkpoint_ns: parent, checkpoint_id: checkpointId } });
  } catch {
    return [];
  }
  const writes = Array.isArray(tuple?.pendingWrites) ? (tuple.pendingWrites as unknown[]) : [];
  const values: T[] = [];
  for (const write of writes) {
    if (!Array.isArray(write) || write[0] !== taskId || write[1] !== INTERRUPT_CHANNEL || !Array.isArray(write[2])) continue;
    for (const saved of write[2] as unknown[]) {
      const value: unknown = typeof saved === "object" && saved !== null ? (saved as { value?: unknown }).value : undefined;
      const taken = read(value);
      if (taken !== undefined) values.push(taken);
    }
  }
  return values;
}
