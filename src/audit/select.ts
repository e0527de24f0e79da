import type { AuditQuery, AuditRecord } from "./types.js";

/**
 * The query semantics every sink shares: ascending `at` (ties in write order). With `after`,
 * `limit` keeps the oldest N (so paging forward never skips); without it, the newest N.
 */
export function selectRecords(inWriteOrder: readonly AuditRecord[], query: AuditQuery): AuditRecord[] {
  const matching = inWriteOrder.filter(
    (record) =>
      (query.threadId === undefined || record.threadId === query.threadId) &&
      (query.after === undefined || record.at > query.after),
  );
  // Array.prototype.sort is stable, so equal `at` keeps write order.
  matching.sort((a, b) => a.at - b.at);
  if (query.limit === undefined || matching.length <= query.limit) return matching;
  return query.after === undefined ? matching.slice(matching.length - query.limit) : matching.slice(0, query.limit);
}
