import type { LangGraphRunnableConfig } from "@langchain/langgraph";

/**
 * LangGraph matches a task's `interrupt()` calls to the human's answers by their order in the task:
 * the n-th interrupt of a task run gets the n-th answer. A call the guard does not run again (its
 * completion is in the ledger) asks nothing on the re-run, so the calls after it would read the
 * answers one place early: the second tool's question would get the first one's answer. The guard
 * records how many interrupts a call asked (all answered, since it completed) and, when it does not
 * run the call again, moves the task's count past them.
 *
 * The count is LangGraph's own (the task's scratchpad, `configurable.__pregel_scratchpad`, read by
 * `interrupt()` in @langchain/langgraph 1.x); where it is not there (a call outside a graph, another
 * LangGraph) nothing is counted or moved.
 */
const SCRATCHPAD_KEY = "__pregel_scratchpad";

interface InterruptCounter {
  interruptCounter: number;
}

function counterOf(config: LangGraphRunnableConfig | undefined): InterruptCounter | undefined {
  const scratchpad: unknown = config?.configurable?.[SCRATCHPAD_KEY];
  if (typeof scratchpad !== "object" || scratchpad === null) return undefined;
  const counter = (scratchpad as { interruptCounter?: unknown }).interruptCounter;
  return typeof counter === "number" && Number.isInteger(counter) ? (scratchpad as InterruptCounter) : undefined;
}

/** The task's interrupt count now (undefined outside a LangGraph task). */
export function interruptCount(config: LangGraphRunnableConfig | undefined): number | undefined {
  return counterOf(config)?.interruptCounter;
}

/** A call that is not run again asked `answered` interrupts when it ran: the task's count moves past them. */
export function skipAnsweredInterrupts(config: LangGraphRunnableConfig | undefined, answered: number): void {
  const counter = counterOf(config);
  if (counter !== undefined && Number.isInteger(answered) && answered > 0) counter.interruptCounter += answered;
}
