import type { AuditRecord } from "./types.js";
import { AuditError, ErrorCode } from "../errors/index.js";

/** Unquoted SQL identifier; short enough that derived index names stay within PostgreSQL's 63 bytes. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,47}$/;

const DEFAULT_AUDIT_TABLE = "guarded_graph_audit";

/** Returns the table name, or throws naming why it was refused (it is interpolated into SQL). */
export function validateTableName(table: string | undefined): string {
  const name = table ?? DEFAULT_AUDIT_TABLE;
  if (typeof name !== "string" || !IDENTIFIER.test(name)) {
    throw new AuditError(
      ErrorCode.AUDIT_CONFIG,
      `audit table name refused: ${JSON.stringify(name)} is not a plain SQL identifier (letters, digits, underscore; not starting with a digit; at most 48 characters)`,
    );
  }
  return name;
}

/** The columns an audit row is inserted with, in the order `auditRowValues` gives their values. */
export const AUDIT_INSERT_COLUMNS = "id, at, thread_id, run_id, tool_call_id, tool, event, decision, rule_id, record";

/** A record's values for `AUDIT_INSERT_COLUMNS`: the fields queries filter on, and the whole record as JSON. */
export function auditRowValues(r: AuditRecord): unknown[] {
  return [r.id, r.at, r.threadId, r.runId, r.toolCallId, r.tool, r.event, r.decision, r.ruleId, JSON.stringify(r)];
}

/** The column types that differ between the SQL dialects; `leading` is a column defined before `id`. */
interface AuditColumnTypes {
  leading?: string;
  id: string;
  at: string;
  record: string;
}

/** The audit table and its indexes (by thread then time, by time), each created only if missing. */
export function auditTableDdl(table: string, types: AuditColumnTypes): string {
  return `CREATE TABLE IF NOT EXISTS "${table}" (${types.leading === undefined ? "" : `\n        ${types.leading},`}
        id ${types.id},
        at ${types.at},
        thread_id TEXT NOT NULL,
        run_id TEXT NOT NULL,
        tool_call_id TEXT NOT NULL,
        tool TEXT NOT NULL,
        event TEXT NOT NULL,
        decision TEXT NOT NULL,
        rule_id TEXT NOT NULL,
        record ${types.record}
      );
      CREATE INDEX IF NOT EXISTS "${table}_thread_at" ON "${table}" (thread_id, at);
      CREATE INDEX IF NOT EXISTS "${table}_at" ON "${table}" (at);`;
}
