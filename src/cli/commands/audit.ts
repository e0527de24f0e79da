import { z } from "zod";
import { followAudit } from "../../audit/record.js";
import type { AuditRecord } from "../../audit/types.js";
import { CliError } from "../errors.js";
import { parseFlags } from "../flags.js";
import { REMOTE_OPTIONS, remoteFlagsSchema, remoteTarget, remoteThreadGraph } from "../remote.js";
import { formatAuditRow, type Output } from "../render.js";
import { cliAuditSpec, describeAuditSpec, openCliAudit, parseThreadId, policyPathFlag } from "../session.js";

export const AUDIT_USAGE = "audit [THREAD] [--follow] [--json] [--limit N] [--audit SPEC] [--policy FILE] [--url URL [--api-key KEY]]";

const auditFlags = z.object({
  ...remoteFlagsSchema,
  audit: z.string().min(1).optional(),
  policy: z.string().min(1).optional(),
  follow: z.boolean().optional(),
  json: z.boolean().optional(),
  limit: z.coerce.number().int().positive().optional(),
});

/**
 * `audit [THREAD] [--follow] [--json]`: the audit log, oldest first; --follow keeps printing new records
 * until Ctrl-C. Finding nothing is said (stderr, exit 1) with the sink it read. With --url the thread is
 * first looked up on that server; the records come from the audit sink the server writes (--audit).
 */
export async function auditCommand(argv: string[], output: Output, signal?: AbortSignal): Promise<number> {
  const { flags, positionals } = parseFlags(
    "audit",
    argv,
    { ...REMOTE_OPTIONS, audit: { type: "string" }, policy: { type: "string" }, follow: { type: "boolean" }, json: { type: "boolean" }, limit: { type: "string" } },
    auditFlags,
  );
  if (positionals.length > 1) throw new CliError(`usage: ${AUDIT_USAGE}`, 2);
  const threadId = positionals[0] === undefined ? undefined : parseThreadId(positionals[0]);
  if (flags.url !== undefined && threadId === undefined) throw new CliError("audit --url reads one thread: give its id (guarded-graph threads --url lists them)", 2);
  const target = threadId === undefined ? undefined : remoteTarget(flags);
  const graph = target !== undefined && threadId !== undefined ? await remoteThreadGraph(target, threadId) : undefined;
  const spec = await cliAuditSpec(flags.audit, policyPathFlag(flags.policy));
  const where = describeAuditSpec(spec);
  const sink = await openCliAudit(flags.audit, undefined, spec);
  const print = (record: AuditRecord) => output.out(flags.json ? JSON.stringify(record) : formatAuditRow(record));
  try {
    const query = { ...(threadId ? { threadId } : {}), ...(flags.limit ? { limit: flags.limit } : {}) };
    const records = await sink.query(query);
    records.forEach(print);
    if (records.length === 0) {
      const subject = threadId === undefined ? "no audit records" : `no audit records for thread ${threadId}${target ? ` (graph ${graph ?? "?"} on ${target.url})` : ""}`;
      const hint =
        target !== undefined
          ? "; the server writes its audit log where its policy says, else its GUARDED_GRAPH_AUDIT, else .guarded-graph/audit.jsonl in its working directory: point --audit at that sink"
          : "; give the sink the graph writes to with --audit SPEC (or GUARDED_GRAPH_AUDIT)";
      output.err(`${subject} in ${where}${hint}${flags.follow ? "; waiting for new records (Ctrl-C stops)" : ""}`);
      if (!flags.follow) return 1;
    }
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
