import { readApprovalRequest } from "../guard/approval/payload.js";
import type { ApprovalRequest } from "../guard/approval/payload.js";
import { readThreadProgress } from "../guard/durable.js";
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
  /** Whether the thread has any checkpoint (or writes of a lost run). */
  exists: boolean;
  /** Why the thread's last run was lost (writes saved under checkpoints that never were: see readThreadProgress). */
  lost?: string;
  values: Record<string, unknown>;
}

export async function threadStatus(graph: GuardedGraph, threadId: string): Promise<ThreadStatus> {
  const report = await readThreadProgress(graph, threadId);
  const state = report.snapshot;
  let pending: ApprovalRequest | undefined;
  for (const task of state.tasks) {
    for (const item of task.interrupts ?? []) pending ??= parseApprovalRequest(item.value);
  }
  const values = (state.values ?? {}) as Record<string, unknown>;
  const lost = report.progress === "run-lost" ? { lost: report.reason } : {};
  return { pending, hasNext: report.progress === "has-work" || report.progress === "waits-for-approval", exists: state.config.configurable?.checkpoint_id !== undefined || report.progress === "run-lost", values, ...lost };
}
