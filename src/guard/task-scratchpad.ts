import type { LangGraphRunnableConfig } from "@langchain/langgraph";

/**
 * What the guard reads of the LangGraph task it runs in: the task's scratchpad
 * (`configurable.__pregel_scratchpad`, read by `interrupt()` in @langchain/langgraph 1.x). The one
 * module that knows its shape; where it is not there (a call outside a graph, another LangGraph)
 * nothing is counted, moved or taken.
 *
 * - The interrupt count. LangGraph matches a task's `interrupt()` calls to the human's answers by
 *   their order in the task: the n-th interrupt of a task run gets the n-th answer. A call the guard
 *   does not run again (its completion is in the ledger) asks nothing on the re-run, so the calls
 *   after it would read the answers one place early: the second tool's question would get the first
 *   one's answer. The guard records how many interrupts a call asked (all answered, since it
 *   completed) and, when it does not run the call again, moves the task's count past them.
 * - The resume no interrupt of the task has taken yet (a "null resume"): an answer that reached the
 *   thread while no interrupt waited for it (answer-race.ts takes it as a late answer).
 */
const SCRATCHPAD_KEY = "__pregel_scratchpad";

interface Scratchpad {
  interruptCounter?: unknown;
  nullResume?: unknown;
  consumeNullResume?: unknown;
}

function scratchpadOf(config: LangGraphRunnableConfig | undefined): Scratchpad | undefined {
  const scratchpad: unknown = config?.configurable?.[SCRATCHPAD_KEY];
  return typeof scratchpad === "object" && scratchpad !== null ? (scratchpad as Scratchpad) : undefined;
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
