import { z } from "zod";
import { JsonlAuditSink, outcomeSyncMsSchema } from "./jsonl.js";
import { MemoryAuditSink } from "./memory.js";
import { PostgresAuditSink } from "./postgres.js";
import { SqliteAuditSink } from "./sqlite.js";
import type { AuditSink } from "./types.js";
import { AuditError, ErrorCode } from "../errors/index.js";

/** Where the audit log goes when nothing is configured: a JSON Lines file in the working directory. */
export const DEFAULT_AUDIT_SPEC = "jsonl:.guarded-graph/audit.jsonl";

const nonEmpty = z.lazy(() => z.string().min(1));

const auditSinkSpecSchema = z.lazy(() =>
  z.discriminatedUnion("sink", [
    z.object({ sink: z.literal("jsonl"), path: nonEmpty, outcomeSyncMs: outcomeSyncMsSchema.optional() }).strict(),
    z.object({ sink: z.literal("sqlite"), path: nonEmpty, table: nonEmpty.optional() }).strict(),
    z.object({ sink: z.literal("postgres"), url: nonEmpty, table: nonEmpty.optional() }).strict(),
    z.object({ sink: z.literal("memory") }).strict(),
  ]),
);

type AuditSinkSpec = z.infer<typeof auditSinkSpecSchema>;

/** The object form as configuration files give it; checked at run time against `auditSinkSpecSchema`. */
export interface AuditSinkOptions {
  sink: "jsonl" | "sqlite" | "postgres" | "memory";
  path?: string;
  url?: string;
  table?: string;
  /** JSONL only: see `JsonlAuditSinkOptions.outcomeSyncMs`. */
  outcomeSyncMs?: number;
}

/** `jsonl:PATH`, `sqlite:PATH`, `postgres://...` (or `postgresql://...`), `memory:`. */
export function parseAuditSpec(spec: string): AuditSinkSpec {
  const text = spec.trim();
  if (/^postgres(ql)?:\/\//i.test(text)) return { sink: "postgres", url: text };
  const match = /^(jsonl|sqlite|memory):(.*)$/is.exec(text);
  if (!match) {
    throw new AuditError(
      ErrorCode.AUDIT_CONFIG,
      `audit sink spec refused: ${JSON.stringify(spec)} is not one of jsonl:PATH, sqlite:PATH, postgres://URL, memory:`,
    );
  }
  const kind = (match[1] ?? "").toLowerCase();
  const rest = match[2] ?? "";
  if (kind === "memory") {
    if (rest !== "") throw new AuditError(ErrorCode.AUDIT_CONFIG, `audit sink spec refused: "memory:" takes nothing after the colon, got ${JSON.stringify(rest)}`);
    return { sink: "memory" };
  }
  if (rest === "") throw new AuditError(ErrorCode.AUDIT_CONFIG, `audit sink spec refused: ${JSON.stringify(spec)} names no file path`);
  return kind === "jsonl" ? { sink: "jsonl", path: rest } : { sink: "sqlite", path: rest };
}

/** Opens the audit sink a spec names (a string form, or an object validated by `auditSinkSpecSchema`). */
export async function openAuditSink(spec: string | AuditSinkOptions): Promise<AuditSink> {
  let parsed: AuditSinkSpec;
  if (typeof spec === "string") {
    parsed = parseAuditSpec(spec);
  } else {
    const result = auditSinkSpecSchema.safeParse(spec);
    if (!result.success) throw new AuditError(ErrorCode.AUDIT_CONFIG, `audit sink spec refused: ${z.prettifyError(result.error)}`);
    parsed = result.data;
  }
  switch (parsed.sink) {
    case "jsonl":
      return JsonlAuditSink.open(parsed.path, parsed.outcomeSyncMs === undefined ? {} : { outcomeSyncMs: parsed.outcomeSyncMs });
    case "sqlite":
      return SqliteAuditSink.open(parsed.path, { table: parsed.table });
    case "postgres":
      return PostgresAuditSink.open({ url: parsed.url, table: parsed.table });
    case "memory":
      return new MemoryAuditSink();
  }
}
