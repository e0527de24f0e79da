import { z } from "zod";
import { resumeFromAnswers, parseArgsJson, type Answers } from "../decisions.js";
import { drive } from "../drive.js";
import { CliError } from "../errors.js";
import { parseFlags, STORAGE_OPTIONS, storageFlagsSchema } from "../flags.js";
import { localUser } from "../local-user.js";
import { threadStatus } from "../pending.js";
import { REMOTE_OPTIONS, remoteAnswer, remoteFlagsSchema, remoteTarget } from "../remote.js";
import type { Output } from "../render.js";
import { actorOf, localAnswerRoute, parseThreadId, registeredPlan, withThreadSession, type Session } from "../session.js";
import { APPROVAL_FLAG_OPTIONS, approvalMode } from "./run.js";

type AnswerKind = "approve" | "reject" | "edit";

export const ANSWER_USAGE = {
  approve: "approve THREAD [CALL_ID...] [--reject ID]... [--reject-rest | --leave-rest] [--message TEXT] [--sticky run|thread [--sticky-args JSON]]",
  reject: "reject THREAD CALL_ID... --message TEXT [--approve ID]... [--reject-rest | --leave-rest] [--sticky run|thread [--sticky-args JSON]]",
  edit: "edit THREAD CALL_ID --args JSON [--approve ID]... [--reject ID]... [--reject-rest | --leave-rest]",
} as const;

const answerFlags = z.object({
  ...storageFlagsSchema,
  ...remoteFlagsSchema,
  approve: z.array(z.string().min(1)).optional(),
  reject: z.array(z.string().min(1)).optional(),
  message: z.string().optional(),
  args: z.string().optional(),
  "reject-rest": z.boolean().optional(),
  "leave-rest": z.boolean().optional(),
  sticky: z.enum(["run", "thread"]).optional(),
  "sticky-args": z.string().optional(),
  yes: z.boolean().optional(),
  interactive: z.boolean().optional(),
  "no-interactive": z.boolean().optional(),
  actor: z.string().min(1).optional(),
});

/** `approve`, `reject` and `edit`: one decision per pending call, checked, then the run continues and streams. */
export async function answerCommand(kind: AnswerKind, argv: string[], output: Output): Promise<number> {
  const { flags, positionals } = parseFlags(
    kind,
    argv,
    {
      ...STORAGE_OPTIONS,
      ...REMOTE_OPTIONS,
      ...APPROVAL_FLAG_OPTIONS,
      approve: { type: "string", multiple: true },
      reject: { type: "string", multiple: true },
      message: { type: "string" },
      args: { type: "string" },
      "reject-rest": { type: "boolean" },
      "leave-rest": { type: "boolean" },
      sticky: { type: "string" },
      "sticky-args": { type: "string" },
    },
    answerFlags,
  );
  const usage = `Usage: ${ANSWER_USAGE[kind]}`;
  const [threadArg, ...ids] = positionals;
  if (threadArg === undefined) throw new CliError(`${kind}: which thread? ${usage}`, 2);
  const threadId = parseThreadId(threadArg);
  const answers: Answers = {
    approve: [...(flags.approve ?? [])],
    approveAll: false,
    reject: [...(flags.reject ?? [])],
    message: flags.message,
    edits: [],
    rejectRest: flags["reject-rest"] === true,
    leaveRest: flags["leave-rest"] === true,
  };
  if (answers.rejectRest && answers.leaveRest) throw new CliError(`${kind}: --reject-rest or --leave-rest, not both. ${usage}`, 2);
  if (kind === "approve") {
    if (ids.length === 0) answers.approveAll = true;
    answers.approve.push(...ids);
  } else if (kind === "reject") {
    if (ids.length === 0) throw new CliError(`reject: name the call(s) to reject. ${usage}`, 2);
    answers.reject.push(...ids);
  } else {
    const [id, ...more] = ids;
    if (id === undefined || more.length > 0 || flags.args === undefined) throw new CliError(`edit: name one call and give --args. ${usage}`, 2);
    answers.edits.push({ id, args: parseArgsJson(flags.args, id) });
  }
  if (kind !== "edit" && flags.args !== undefined) throw new CliError(`${kind}: --args only goes with edit. ${usage}`, 2);
  if (flags["sticky-args"] !== undefined && flags.sticky === undefined) throw new CliError(`${kind}: --sticky-args goes with --sticky run|thread. ${usage}`, 2);
  if (flags.sticky !== undefined) {
    if (kind === "edit") throw new CliError(`edit: an edit answers one call; --sticky goes with approve or reject. ${usage}`, 2);
    const args = flags["sticky-args"] === undefined ? undefined : parseArgsJson(flags["sticky-args"], "--sticky-args");
    answers.sticky = { on: kind, request: { scope: flags.sticky, ...(args ? { args } : {}) } };
  }
  const target = remoteTarget(flags);
  if (target) {
    if (flags.yes || flags.interactive) throw new CliError(`${kind} --url answers the pending calls once; --yes and --interactive work on local threads only`, 2);
    return remoteAnswer(target, threadId, answers, actorOf(flags.actor), output);
  }
  const mode = approvalMode(flags);

  const plan = async (session: Session) => {
    const entry = await session.registry.get(threadId);
    if (!entry) {
      const known = (await session.registry.list()).map((e) => e.threadId);
      throw new CliError(`no thread ${threadId} in ${session.spec}; threads: ${known.join(", ") || "(none)"}`);
    }
    return registeredPlan(entry);
  };
  return withThreadSession({ flags, threadId, plan }, async ({ session, plan: { graph }, ready }) => {
    const status = await threadStatus(ready.graph, threadId);
    if (!status.pending) throw new CliError(status.lost ? `thread ${threadId}: ${status.lost}` : `thread ${threadId} is not waiting for approval; nothing to ${kind}`);
    const resume = resumeFromAnswers(status.pending, answers, actorOf(flags.actor));
    output.out(`▶  thread ${threadId} · graph ${graph} · resuming`);
    await drive(ready, threadId, resume, { mode, actor: actorOf(flags.actor), output, route: localAnswerRoute(flags, session.spec), user: localUser(flags) });
    return 0;
  });
}
