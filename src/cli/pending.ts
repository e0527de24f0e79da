import { readApprovalRequest } from "../guard/approval.js";
import type { ApprovalRequest } from "../guard/approval.js";
import { threadProgress } from "../guard/durable.js";
import type { GuardedGraph } from "../../graphs/shared.js";

/** An interrupt value read back from a checkpoint, checked before the CLI trusts it. */
export function parseApprovalRequest(value: unknown): ApprovalRequest | undefined {
  return readApprovalRequest(value);
}

export interface ThreadStatus {
  /** The approval the thread waits for, if any. */
  pending: ApprovalRequest | undefined;
  /** Whether the graph has steps left (interrupted or crashed mid-run). */
  hasNext: boolean;
  /** Whether the thread has any checkpoint. */
  exists: boolean;
  values: Record<string, unknown>;
}

export async function threadStatus(graph: GuardedGraph, threadId: string): Promise<ThreadStatus> {
  const state = await graph.getState({ configurable: { thread_id: threadId } });
  let pending: ApprovalRequest | undefined;
  for (const task of state.tasks) {
    for (const item of task.interrupts ?? []) pending ??= parseApprovalRequest(item.value);
  }
  const values = (state.values ?? {}) as Record<string, unknown>;
  return { pending, hasNext: threadProgress(state) !== "done", exists: state.config.configurable?.checkpoint_id !== undefined, values };
}
