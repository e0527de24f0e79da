import type { ReviewedCall } from "./state.js";

/**
 * Batches in model order (seed 003 `partition_tool_calls`): consecutive concurrency-safe calls share a
 * batch; any other call runs alone. Input that failed to parse is never safe. Within a batch at most
 * `maxConcurrency` calls run at once, as a sliding window (execute.ts), rather than as sub-batches
 * that would each wait for their slowest call.
 */
export function partitionCalls(calls: readonly ReviewedCall[]): string[][] {
  const batches: string[][] = [];
  let current: string[] = [];
  for (const call of calls) {
    if (call.concurrencySafe) {
      current.push(call.id);
      continue;
    }
    if (current.length > 0) batches.push(current);
    current = [];
    batches.push([call.id]);
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
