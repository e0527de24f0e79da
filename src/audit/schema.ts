import { z } from "zod";
import type { AuditQuery, AuditRecord } from "./types.js";
import { AuditError, ErrorCode } from "../errors/index.js";

/** Validates records entering a sink (from callers) or coming back from storage. */
export const auditRecordSchema = z.lazy(() =>
  z.object({
    id: z.string().min(1),
    at: z.number().finite(),
    threadId: z.string(),
    runId: z.string(),
    toolCallId: z.string(),
    tool: z.string(),
    operation: z.string().optional(),
    args: z.string(),
    event: z.enum(["decision", "human", "outcome", "killswitch", "policy"]),
    decision: z.string(),
    ruleId: z.string(),
    reason: z.string(),
    risk: z.string().optional(),
    actor: z.string().optional(),
    requester: z.string().optional(),
    detail: z.record(z.string(), z.unknown()).optional(),
  }),
);

const auditQuerySchema = z.lazy(() =>
  z
    .object({
      threadId: z.string().optional(),
      after: z.number().finite().optional(),
      limit: z.number().int().positive().optional(),
    })
    .strict(),
);

/** Records the guard built itself from typed values (`builtRecord`): a sink does not parse them again. */
const built = new WeakSet<object>();

/**
 * Marks a record the guard built from its own typed values, so sinks skip re-parsing it (about a
 * tenth of a turn's audit cost). Records from anywhere else are parsed at the sink as before.
 */
export function builtRecord<T extends AuditRecord>(record: T): T {
  built.add(record);
  return record;
}

/** Whether the guard built `record` itself (`builtRecord`): nobody else holds or changes it after the write. */
export function isBuiltRecord(record: AuditRecord): boolean {
  return built.has(record);
}

/** Throws naming the offending record when a batch contains an invalid one. */
export function validateRecords(records: readonly AuditRecord[]): AuditRecord[] {
  if (!Array.isArray(records)) throw new AuditError(ErrorCode.AUDIT_INVALID, "audit write refused: records must be an array");
  return records.map((record, index) => {
    if (built.has(record)) return record;
    const parsed = auditRecordSchema.safeParse(record);
    if (!parsed.success) {
      const id = typeof (record as { id?: unknown } | null)?.id === "string" ? ` (id ${(record as { id: string }).id})` : "";
      throw new AuditError(ErrorCode.AUDIT_INVALID, `audit write refused: record #${index}${id} is invalid: ${z.prettifyError(parsed.error)}`);
    }
    return parsed.data;
  });
}

export function validateQuery(query: AuditQuery | undefined): AuditQuery {
  const parsed = auditQuerySchema.safeParse(query ?? {});
  if (!parsed.success) throw new AuditError(ErrorCode.AUDIT_INVALID, `audit query refused: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** Parses one stored line with `schema`; undefined when it is not JSON or not what the schema wants (torn line, foreign data). */
export function parseStoredLine<T>(json: string, schema: z.ZodType<T>): T | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** Parses one stored record; undefined when it is not a valid record (torn line, foreign data). */
export function parseStoredRecord(json: string): AuditRecord | undefined {
  return parseStoredLine(json, auditRecordSchema);
}
