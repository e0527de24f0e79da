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
