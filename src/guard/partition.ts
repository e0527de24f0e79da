import type { ReviewedCall } from "./state.js";

/**
 * Batches in model order (seed 003 `partition_tool_calls`): consecutive concurrency-safe calls share a
 * batch of at most `maxConcurrency`; any other call runs alone. Input that failed to parse is never safe.
 */
export function partitionCalls(calls: readonly ReviewedCall[], maxConcurrency: number): string[][] {
  const batches: string[][] = [];
  let current: string[] = [];
  for (const call of calls) {
    if (call.concurrencySafe) {
      current.push(call.id);
      if (current.length >= maxConcurrency) {
        batches.push(current);
        current = [];
      }
      continue;
    }
    if (current.length > 0) batches.push(current);
    current = [];
    batches.push([call.id]);
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
