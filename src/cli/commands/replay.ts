import { isBaseMessage, type BaseMessage } from "@langchain/core/messages";
import { z } from "zod";
import { loadPolicyFile, permissionPolicy, type LoadedPolicy } from "../../policy/file.js";
import { replayAudit, summariseReplay, type ReplayedCall, type ReplaySummary } from "../../replay/replay.js";
import { openCheckpointer } from "../../storage/checkpointer.js";
import { replayText } from "../../messages/index.js";
import { CliError } from "../errors.js";
import { parseFlags } from "../flags.js";
import type { Output } from "../render.js";
import { describeAuditSpec, openCliAudit } from "../session.js";

export const REPLAY_USAGE = "policy replay --audit SPEC --policy NEW [--threads SPEC] [--fail-on N|PCT%] [--assume-asks approved|rejected] [--json]";

/** `--fail-on 5` (more than 5 changes fail) or `--fail-on 2%` (more than 2% of the calls re-decided). */
const FailOnSchema = z
  .string()
  .regex(/^(\d+|\d+(\.\d+)?%)$/, "expected a count (5) or a percentage (2%) of the calls re-decided")
  .transform((text) => (text.endsWith("%") ? { pct: Number(text.slice(0, -1)), text } : { count: Number(text), text }));

const replayFlags = z.object({
  audit: z.string().min(1),
  policy: z.string().min(1),
  threads: z.string().min(1).optional(),
  "fail-on": FailOnSchema.optional(),
  "assume-asks": z.enum(["approved", "rejected"]).optional(),
  json: z.boolean().optional(),
});

/** The messages of a thread's latest checkpoint, or undefined when it has none. */
async function checkpointMessages(checkpointer: Awaited<ReturnType<typeof openCheckpointer>>["checkpointer"], threadId: string): Promise<BaseMessage[] | undefined> {
  const tuple = await checkpointer.getTuple({ configurable: { thread_id: threadId } });
  const messages = (tuple?.checkpoint.channel_values as { messages?: unknown } | undefined)?.messages;
  return Array.isArray(messages) ? messages.filter((m): m is BaseMessage => isBaseMessage(m)) : undefined;
}

function percent(part: number, whole: number): string {
  return whole === 0 ? "0%" : `${Math.round((part / whole) * 1000) / 10}%`;
}

/** Whether the changes exceed `--fail-on`. */
function exceeds(summary: ReplaySummary, failOn: { count: number } | { pct: number }): boolean {
  return "count" in failOn ? summary.changed > failOn.count : summary.redecided > 0 && (summary.changed / summary.redecided) * 100 > failOn.pct;
}

function sorted(map: ReadonlyMap<string, number>): [string, number][] {
  return [...map].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

/** The report: changes by transition, by rule and by thread, then the calls that could not be re-decided, by reason. */
function renderReplay(summary: ReplaySummary, audit: string, policy: LoadedPolicy, threads: number): string[] {
  const lines = [replayText.header(audit, policy.source, summary.calls, threads), replayText.unchanged(summary.redecided - summary.changed), replayText.changed(summary.changed, percent(summary.changed, summary.redecided))];
  if (summary.changed > 0) {
    lines.push(replayText.byChange, ...sorted(summary.byChange).map(([key, n]) => `  ${key}: ${n}`));
    lines.push(replayText.byRule, ...sorted(summary.byRule).map(([key, n]) => `  ${key}: ${n}`));
    lines.push(replayText.byThread, ...sorted(summary.byThread).map(([key, n]) => `  ${key}: ${n}`));
  }
  const cannot = [...summary.cannot.values()].reduce((a, b) => a + b, 0);
  lines.push(replayText.cannot(cannot), ...sorted(summary.cannot).map(([why, n]) => `  ${n}: ${why}`));
  return lines;
}

/**
 * `policy replay --audit SPEC --policy NEW`: every recorded review of the audit log decided again
 * under NEW; prints what would change. Exit 1 when the changes exceed `--fail-on`.
 */
export async function replayCommand(argv: string[], output: Output): Promise<number> {
  const { flags, positionals } = parseFlags(
    "policy replay",
    argv,
    { audit: { type: "string" }, policy: { type: "string" }, threads: { type: "string" }, "fail-on": { type: "string" }, "assume-asks": { type: "string" }, json: { type: "boolean" } },
    replayFlags,
  );
  if (positionals.length > 0) throw new CliError(`usage: ${REPLAY_USAGE}`, 2);
  let policy: LoadedPolicy;
  try {
    policy = await loadPolicyFile(flags.policy);
  } catch (error) {
    output.err(`✗ ${flags.policy}: ${(error as Error).message}`);
    return 1;
  }
  const sink = await openCliAudit(flags.audit, undefined, flags.audit);
  let calls: ReplayedCall[];
  try {
    const records = await sink.query({});
    // Thread messages are read only when the new policy's conditions need them.
    const opened = permissionPolicy(policy).needsThread ? await openCheckpointer(flags.threads) : undefined;
    try {
      calls = await replayAudit(records, policy, {
        ...(opened === undefined ? {} : { messages: (threadId: string) => checkpointMessages(opened.checkpointer, threadId) }),
        ...(flags["assume-asks"] === undefined ? {} : { assumeAsks: flags["assume-asks"] }),
      });
    } finally {
      await opened?.close();
    }
  } finally {
    await sink.close();
  }
  const summary = summariseReplay(calls);
  const failed = flags["fail-on"] !== undefined && exceeds(summary, flags["fail-on"]);
  if (flags.json) {
    const counts = (map: ReadonlyMap<string, number>) => Object.fromEntries(sorted(map));
    output.out(
      JSON.stringify(
        {
          audit: describeAuditSpec(flags.audit),
          policy: policy.source,
          calls: summary.calls,
          redecided: summary.redecided,
          changed: summary.changed,
          byChange: counts(summary.byChange),
          byRule: counts(summary.byRule),
          byThread: counts(summary.byThread),
          cannot: counts(summary.cannot),
          changes: calls.filter((c) => c.replayed !== undefined && c.replayed.decision !== c.recorded.decision),
          failed,
        },
        null,
        2,
      ),
    );
  } else {
    const threads = new Set(calls.map((c) => c.threadId)).size;
    for (const line of renderReplay(summary, describeAuditSpec(flags.audit), policy, threads)) output.out(line);
    if (flags["fail-on"] !== undefined) output.out(failed ? replayText.threshold(summary.changed, flags["fail-on"].text) : replayText.withinThreshold(summary.changed, flags["fail-on"].text));
  }
  return failed ? 1 : 0;
}
