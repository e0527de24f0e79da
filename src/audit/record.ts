import { sleep } from "../deps/builtins.js";
import { z } from "zod";
import type { AuditQuery, AuditRecord, AuditSink } from "./types.js";
import { AuditError, ErrorCode } from "../errors/index.js";
import { sha256Hex } from "../sha256.js";

/**
 * Deterministic record id: the same parts (e.g. thread, tool call id, event) give the same id,
 * so a decision re-computed on resume is written once. sha256 of the parts joined by NUL, 32 hex chars.
 */
export function auditId(parts: readonly string[]): string {
  if (!Array.isArray(parts) || parts.length === 0 || parts.some((part) => typeof part !== "string")) {
    throw new AuditError(ErrorCode.AUDIT_INVALID, "auditId refused: parts must be a non-empty array of strings");
  }
  return sha256Hex(parts.join("\0")).slice(0, 32);
}

export interface FollowAuditOptions {
  /** Stops following; `followAudit` then resolves. */
  signal: AbortSignal;
  /** Pause between polls (default 500 ms). */
  intervalMs?: number;
  /**
   * Records can arrive late (several writers, clock skew): each poll looks back this far behind
   * the newest `at` seen and drops ids already delivered (default 5000 ms).
   */
  lookbackMs?: number;
}

const followOptionsSchema = z.lazy(() =>
  z.object({
    intervalMs: z.number().finite().positive().default(500),
    lookbackMs: z.number().finite().nonnegative().default(5000),
  }),
);

/**
 * Polls `sink.query` and calls `onRecord` once per new record, in order, until `signal` aborts
 * (for `guarded-graph audit --follow`). `query.after` sets the starting point; without it every
 * existing record is delivered first. Rejects if the sink or `onRecord` throws.
 */
export async function followAudit(
  sink: AuditSink,
  query: Omit<AuditQuery, "limit">,
  onRecord: (record: AuditRecord) => void | Promise<void>,
  options: FollowAuditOptions,
): Promise<void> {
  const { intervalMs, lookbackMs } = followOptionsSchema.parse({ intervalMs: options.intervalMs, lookbackMs: options.lookbackMs });
  const { signal } = options;
  let newest = query.after ?? Number.NEGATIVE_INFINITY;
  const start = query.after;
  /** Ids delivered within the look-back window, with their `at`. */
  const delivered = new Map<string, number>();
  while (!signal.aborted) {
    const cursor = newest - lookbackMs;
    const after = Number.isFinite(cursor) ? Math.max(cursor, start ?? cursor) : start;
    const records = await sink.query(after === undefined ? { threadId: query.threadId } : { threadId: query.threadId, after });
    for (const record of records) {
      if (signal.aborted) return;
      if (delivered.has(record.id)) continue;
      delivered.set(record.id, record.at);
      if (record.at > newest) newest = record.at;
      await onRecord(record);
    }
    for (const [id, at] of delivered) if (at <= newest - lookbackMs) delivered.delete(id);
    try {
      await sleep(intervalMs, undefined, { signal });
    } catch {
      return; // aborted while waiting
    }
  }
}
