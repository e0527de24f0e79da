import { z } from "zod";
import type { ApprovalRequest } from "../guard/approval/payload.js";
import type { ApprovalResume, Decision, StickyRequest } from "../guard/approval/resume.js";
import { ApprovalResumeError, checkResume } from "../guard/approval/resume.js";
import type { HumanDecisionType } from "../guard/options.js";
import { CliError } from "./errors.js";

/** What `approve` / `reject` / `edit` were told, before it is matched to the pending calls. */
export interface Answers {
  approve: string[];
  /** `approve THREAD` with no call ids: approve every call not otherwise answered. */
  approveAll: boolean;
  reject: string[];
  message?: string | undefined;
  edits: { id: string; args: Record<string, unknown> }[];
  rejectRest: boolean;
  /** `--leave-rest`: a partial answer; the calls not answered stay pending and are asked again after these ran. */
  leaveRest?: boolean | undefined;
  /** `--sticky SCOPE [--sticky-args JSON]`: the command's own decisions (its approvals, or its rejections) stand for later calls. */
  sticky?: { on: "approve" | "reject"; request: StickyRequest } | undefined;
}

const argsJsonSchema = z.record(z.string(), z.unknown());

/** `--args` must be a JSON object. */
export function parseArgsJson(text: string, callId: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(`--args for ${callId} refused: not valid JSON (${(error as Error).message}); expected an object like '{"namespace":"staging"}'`, 2);
  }
  const parsed = argsJsonSchema.safeParse(value);
  if (!parsed.success) throw new CliError(`--args for ${callId} refused: expected a JSON object, got ${JSON.stringify(value)}`, 2);
  return parsed.data;
}

export function allowedDecisionsOf(request: ApprovalRequest): HumanDecisionType[] {
  const [first, ...rest] = request.reviewConfigs.map((c) => c.allowedDecisions);
  return (first ?? ["approve", "edit", "reject"]).filter((d) => rest.every((other) => other.includes(d)));
}

/**
 * One decision per pending call, keyed by tool call id. Refuses (naming what is missing and how
 * to answer it) unless every pending call is answered, or `--reject-rest` rejects the others.
 */
export function resumeFromAnswers(request: ApprovalRequest, answers: Answers, actor: string): ApprovalResume {
  const pending = request.actionRequests;
  const ids = pending.map((a) => a.toolCallId);
  const listing = pending.map((a) => `${a.toolCallId} (${a.name})`).join(", ");
  const decisions = new Map<string, Decision>();
  const add = (id: string, decision: Decision) => {
    if (!ids.includes(id)) throw new CliError(`no pending call "${id}" on this thread; pending: ${listing}`);
    if (decisions.has(id)) throw new CliError(`call ${id} was answered twice; give one decision per pending call`, 2);
    decisions.set(id, decision);
  };
  const stickyFor = (on: "approve" | "reject") => (answers.sticky?.on === on ? { sticky: answers.sticky.request } : {});
  for (const id of answers.approve) add(id, { type: "approve", ...stickyFor("approve") });
  for (const id of answers.reject) add(id, { type: "reject", ...(answers.message ? { message: answers.message } : {}), ...stickyFor("reject") });
  for (const edit of answers.edits) {
    const name = pending.find((a) => a.toolCallId === edit.id)?.name ?? "";
    add(edit.id, { type: "edit", editedAction: { name, args: edit.args } });
  }
  for (const id of ids) {
    if (decisions.has(id)) continue;
    if (answers.approveAll) decisions.set(id, { type: "approve", ...stickyFor("approve") });
    else if (answers.rejectRest) decisions.set(id, { type: "reject", message: answers.message ?? "rejected with --reject-rest" });
  }
  const missing = pending.filter((a) => !decisions.has(a.toolCallId));
  if (missing.length > 0 && answers.leaveRest !== true) {
    const names = missing.map((a) => `${a.toolCallId} (${a.name})`).join(", ");
    throw new CliError(
      `refused: every pending call needs a decision and ${names} has none. Answer ${missing.length === 1 ? "it" : "them"} in the same command (--approve ID, --reject ID), or pass --reject-rest to reject the rest (--leave-rest: answer them later). Nothing was sent.`,
    );
  }
  const resume = { decisions: Object.fromEntries(decisions), actor };
  try {
    return checkResume(pending.map((a) => ({ id: a.toolCallId, name: a.name })), resume, allowedDecisionsOf(request), { partial: answers.leaveRest === true });
  } catch (error) {
    if (error instanceof ApprovalResumeError) throw new CliError(`${error.message}. Nothing was sent.`);
    throw error;
  }
}
