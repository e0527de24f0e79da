import { z } from "zod";
import { followAudit } from "../../audit/record.js";
import type { AuditRecord } from "../../audit/types.js";
import { CliError } from "../errors.js";
import { summariseShadow, type ShadowSummary } from "../../audit/shadow-summary.js";
import { shadowSummaryText } from "../../messages/index.js";
import { parseFlags } from "../flags.js";
import { REMOTE_OPTIONS, remoteFlagsSchema, remoteTarget, remoteThreadGraph } from "../remote.js";
import { formatAuditRow, type Output } from "../render.js";
import { cliAuditSpec, describeAuditSpec, openCliAudit, parseThreadId, policyPathFlag } from "../session.js";

export const AUDIT_USAGE = "audit [THREAD] [--follow | --shadow] [--json] [--limit N] [--audit SPEC] [--policy FILE] [--url URL [--api-key KEY]]";

const auditFlags = z.object({
  ...remoteFlagsSchema,
  audit: z.string().min(1).optional(),
  policy: z.string().min(1).optional(),
  follow: z.boolean().optional(),
  shadow: z.boolean().optional(),
  json: z.boolean().optional(),
  limit: z.coerce.number().int().positive().optional(),
});

/** `audit --shadow`: the would-be changes of the shadow rules and policies, by change and by rule. */
function renderShadowSummary(summary: ShadowSummary, json: boolean): string[] {
  const sorted = (map: ReadonlyMap<string, number>) => [...map].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (json) {
    const { byChange, byRule, ...counts } = summary;
    return [JSON.stringify({ ...counts, byChange: Object.fromEntries(sorted(byChange)), byRule: Object.fromEntries(sorted(byRule)) }, null, 2)];
  }
  const lines = [shadowSummaryText.header(summary.decisions, summary.shadowed, summary.changed)];
  if (summary.shadowed === 0) return [...lines, shadowSummaryText.none];
  if (summary.changed === 0) return lines;
  lines.push(shadowSummaryText.byChange, ...sorted(summary.byChange).map(([key, n]) => `  ${key}: ${n}`));
  lines.push(shadowSummaryText.byRule, ...sorted(summary.byRule).map(([key, n]) => `  ${key}: ${n}`));
  return lines;
}

/**
 * `audit [THREAD] [--follow] [--json]`: the audit log, oldest first; --follow keeps printing new records
 * until Ctrl-C. Finding nothing is said (stderr, exit 1) with the sink it read. With --url the thread is
 * first looked up on that server; the records come from the audit sink the server writes (--audit).
 */
export async function auditCommand(argv: string[], output: Output, signal?: AbortSignal): Promise<number> {
  const { flags, positionals } = parseFlags(
    "audit",
    argv,
    { ...REMOTE_OPTIONS, audit: { type: "string" }, policy: { type: "string" }, follow: { type: "boolean" }, shadow: { type: "boolean" }, json: { type: "boolean" }, limit: { type: "string" } },
    auditFlags,
  );
  if (positionals.length > 1) throw new CliError(`usage: ${AUDIT_USAGE}`, 2);
  const threadId = positionals[0] === undefined ? undefined : parseThreadId(positionals[0]);
  if (flags.shadow === true && flags.follow === true) throw new CliError("audit: --shadow counts the records there are; it cannot be combined with --follow", 2);
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
    if (flags.shadow === true) {
      for (const line of renderShadowSummary(summariseShadow(records), flags.json === true)) output.out(line);
      return 0;
    }
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
