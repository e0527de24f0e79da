import { z } from "zod";
import { followAudit } from "../../audit/record.js";
import type { AuditRecord } from "../../audit/types.js";
import { CliError } from "../errors.js";
import { parseFlags } from "../flags.js";
import { formatAuditRow, type Output } from "../render.js";
import { openCliAudit, parseThreadId, policyPathFlag } from "../session.js";

const auditFlags = z.object({
  audit: z.string().min(1).optional(),
  policy: z.string().min(1).optional(),
  follow: z.boolean().optional(),
  json: z.boolean().optional(),
  limit: z.coerce.number().int().positive().optional(),
});

/** `audit [THREAD] [--follow] [--json]`: the audit log, oldest first; --follow keeps printing new records until Ctrl-C. */
export async function auditCommand(argv: string[], output: Output, signal?: AbortSignal): Promise<number> {
  const { flags, positionals } = parseFlags(
    "audit",
    argv,
    { audit: { type: "string" }, policy: { type: "string" }, follow: { type: "boolean" }, json: { type: "boolean" }, limit: { type: "string" } },
    auditFlags,
  );
  if (positionals.length > 1) throw new CliError("usage: audit [THREAD] [--follow] [--json] [--limit N] [--audit SPEC]", 2);
  const threadId = positionals[0] === undefined ? undefined : parseThreadId(positionals[0]);
  const sink = await openCliAudit(flags.audit, policyPathFlag(flags.policy));
  const print = (record: AuditRecord) => output.out(flags.json ? JSON.stringify(record) : formatAuditRow(record));
  try {
    const query = { ...(threadId ? { threadId } : {}), ...(flags.limit ? { limit: flags.limit } : {}) };
    const records = await sink.query(query);
    records.forEach(print);
    if (!flags.follow) return 0;
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
    signal?.addEventListener("abort", onSignal, { once: true });
    const newest = records.reduce((max, r) => Math.max(max, r.at), Number.NEGATIVE_INFINITY);
    const seen = new Set(records.map((r) => r.id));
    try {
      await followAudit(
        sink,
        { ...(threadId ? { threadId } : {}), ...(Number.isFinite(newest) ? { after: newest - 1 } : {}) },
        (record) => {
          if (seen.has(record.id)) return;
          seen.add(record.id);
          print(record);
        },
        { signal: stop.signal },
      );
    } finally {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    }
    return 0;
  } finally {
    await sink.close();
  }
}
