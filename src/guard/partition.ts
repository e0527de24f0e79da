import type { ReviewedCall } from "./state.js";

/**
 * Batches in model order (seed 003 `partition_tool_calls`): consecutive concurrency-safe calls share a
 * batch; any other call runs alone. Input that failed to parse is never safe. Within a batch at most
 * `maxConcurrency` calls run at once, as a sliding window (execute.ts), rather than as sub-batches
 * that would each wait for their slowest call.
 *
 * `needsEarlier(call, batchesSoFar)` says that a safe call must not share a batch with the calls
 * before it (the turn engine passes the tool rules' same-turn dependencies); it is asked only when
 * the current batch is not empty.
 */
export function partitionCalls<C extends Pick<ReviewedCall, "id" | "concurrencySafe">>(
  calls: readonly C[],
  needsEarlier?: (call: C, closed: readonly C[]) => boolean,
): string[][] {
  const batches: string[][] = [];
  const closed: C[] = [];
  let current: C[] = [];
  const close = () => {
    if (current.length === 0) return;
    batches.push(current.map((c) => c.id));
    closed.push(...current);
    current = [];
  };
  for (const call of calls) {
    if (!call.concurrencySafe) {
      close();
      current = [call];
      close();
      continue;
    }
    if (current.length > 0 && needsEarlier?.(call, closed) === true) close();
    current.push(call);
  }
  close();
  return batches;
}
