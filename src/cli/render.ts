import type { AuditRecord } from "../audit/types.js";
import type { ActionRequest, ApprovalRequest } from "../guard/approval/payload.js";
import { shadowPart } from "../audit/shadow-summary.js";
import { wouldBe } from "../messages/index.js";

/** Where the CLI writes: results on `out`, progress and notices on `err`. */
export interface Output {
  out: (line: string) => void;
  err: (line: string) => void;
}

export const stdOutput: Output = {
  out: (line) => void process.stdout.write(`${line}\n`),
  err: (line) => void process.stderr.write(`${line}\n`),
};

let pipeHandled = false;

/**
 * A reader that stops early (`guarded-graph audit --json | head`) closes the pipe; every command then
 * ends quietly, as Unix tools do, instead of dying with an EPIPE stack trace. Other stream errors are
 * rethrown.
 */
export function endQuietlyOnBrokenPipe(): void {
  if (pipeHandled) return;
  pipeHandled = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") throw error;
      process.exit(typeof process.exitCode === "number" ? process.exitCode : 0);
    });
  }
}

const INDENT = "         ";

export function compactJson(value: unknown, max = 200): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** First lines of a tool result, indented under its heading. */
export function excerpt(text: string, maxLines = 6): string[] {
  const lines = text.trimEnd().split("\n");
  const shown = lines.slice(0, maxLines).map((line) => `${INDENT}${line}`);
  if (lines.length > maxLines) shown.push(`${INDENT}… (${lines.length - maxLines} more lines)`);
  return shown;
}

export function label(kind: string): string {
  return kind.padEnd(INDENT.length - 1);
}

/** One guard decision or human answer from the audit log. */
export function formatAuditLine(record: AuditRecord): string {
  if (record.event === "human") {
    const who = `${record.actor ? ` by ${record.actor}` : ""}${record.requester ? ` (asked by ${record.requester})` : ""}`;
    const note = typeof record.detail?.message === "string" ? `: ${record.detail.message}` : "";
    return `${label("human")} ${record.decision.padEnd(6)} ${record.tool} (${record.toolCallId})${who}${note}`;
  }
  if (record.event === "outcome") return `${label("outcome")} ${record.decision.padEnd(6)} ${record.tool} (${record.toolCallId})`;
  return `${label("guard")} ${record.decision.padEnd(6)} ${record.tool} (${record.toolCallId})  rule ${record.ruleId}: ${record.reason}${shadowNote(record)}`;
}

/** `  [shadow: would deny by RULE]` when a shadow rule or policy would have decided the call otherwise, else "". */
function shadowNote(record: AuditRecord): string {
  const shadow = shadowPart(record);
  return shadow === undefined || shadow.decision === record.decision ? "" : `  [shadow: ${wouldBe(shadow.decision, shadow.ruleId, "")}]`;
}

/** A full audit row for `guarded-graph audit`. */
export function formatAuditRow(record: AuditRecord): string {
  const time = new Date(record.at).toISOString();
  const who = `${record.actor ? ` actor=${record.actor}` : ""}${record.requester ? ` requester=${record.requester}` : ""}`;
  return `${time}  ${record.threadId}  ${record.event.padEnd(8)} ${record.decision.padEnd(8)} ${record.tool} ${record.args}  rule=${record.ruleId}${who}  ${record.reason}${shadowNote(record)}`;
}

export function formatAction(action: ActionRequest, index: number): string[] {
  return [
    `  ${index + 1}. ${action.name}   call id: ${action.toolCallId}`,
    `     args:   ${JSON.stringify(action.args)}`,
    `     risk:   ${action.risk}`,
    `     rule:   ${action.ruleId}`,
    `     reason: ${action.reason}`,
  ];
}

/** A word as a POSIX shell reads it back unchanged: bare when safe, else single-quoted. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** How the suggested answer commands reach the thread: the flags it needs, or why it cannot be answered later. */
export interface AnswerRoute {
  /** Flags every suggested command carries (`--db sqlite:x.db`, `--url … --api-key …`), already shell-quoted. */
  flags?: readonly string[];
  /** Set when no later command can answer (an in-memory thread): said instead of the commands. */
  unanswerable?: string;
}

/** The pending calls and the commands that answer them, each working as printed. */
export function formatPending(threadId: string, request: ApprovalRequest, route: AnswerRoute = {}): string[] {
  const n = request.actionRequests.length;
  const lines = [`⏸  approval needed on thread ${threadId}: ${n} pending call${n === 1 ? "" : "s"}`];
  // Asked again: the last answer was refused (it did not fit, or its sender may not give it).
  if (request.error !== undefined) lines.push(`   the last answer was refused and nothing was done: ${request.error}`);
  request.actionRequests.forEach((action, i) => lines.push(...formatAction(action, i)));
  if (route.unanswerable !== undefined) {
    lines.push(`  ${route.unanswerable}`);
    return lines;
  }
  const first = request.actionRequests[0]?.toolCallId ?? "CALL_ID";
  const tail = (route.flags ?? []).map((flag) => ` ${flag}`).join("");
  const thread = shellWord(threadId);
  lines.push(
    "  answer with one of:",
    `    guarded-graph approve ${thread}${tail}${n > 1 ? "            # approves every pending call" : ""}`,
    `    guarded-graph reject ${thread} ${shellWord(first)} --message "why"${tail}`,
    `    guarded-graph edit ${thread} ${shellWord(first)} --args ${shellWord(JSON.stringify(request.actionRequests[0]?.args ?? {}))}${tail}`,
  );
  return lines;
}
