export type * from "./types.js";
export { JsonlAuditSink } from "./jsonl.js";
export { SqliteAuditSink } from "./sqlite.js";
export { PostgresAuditSink } from "./postgres.js";
export { MemoryAuditSink } from "./memory.js";
export { openAuditSink, parseAuditSpec, DEFAULT_AUDIT_SPEC } from "./open.js";
export { redactArgs, auditArgs, REDACTED } from "./redact.js";
export { auditId, followAudit } from "./record.js";
