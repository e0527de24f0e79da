import { Command } from "@langchain/langgraph";
import type { BaseMessage } from "@langchain/core/messages";
import type { ApprovalResume } from "../guard/approval/resume.js";
import type { ReadyGraph } from "../../graphs/shared.js";
import { CliError } from "./errors.js";
import type { AuthUserInput } from "../principal/principal.js";
import { askDecisions, Prompter } from "./interactive.js";
import { formatAction, formatPending, label, type AnswerRoute, type Output } from "./render.js";
import { AuditPrinter, streamRun, type RunOutcome } from "./stream.js";

/** What happens at an approval: stop and print it, approve everything (--yes), or ask at the prompt. */
export type ApprovalMode = "stop" | "yes" | "interactive";

interface DriveOptions {
  mode: ApprovalMode;
  actor: string;
  output: Output;
  /** How the printed answer commands reach this thread (mode "stop"). */
  route?: AnswerRoute;
  /** The authenticated user the run or the answers are made as (local-user.ts); none: no user. */
  user?: AuthUserInput | undefined;
}

/** Runs (or resumes) a thread and keeps going through approvals as the mode says. */
export async function drive(
  ready: ReadyGraph,
  threadId: string,
  input: { messages: BaseMessage[] } | ApprovalResume,
  options: DriveOptions,
): Promise<RunOutcome> {
  const { output } = options;
  if (!ready.audit) throw new CliError("the CLI needs an audit sink to show guard decisions");
  const printer = new AuditPrinter(ready.audit, threadId);
  await printer.skipExisting();
  if (!("messages" in input)) printer.showCalls(decidedCalls(input));
  const prompter = options.mode === "interactive" ? new Prompter() : undefined;
  try {
    let next: { messages: BaseMessage[] } | Command = "messages" in input ? input : new Command({ resume: input });
    for (;;) {
      const outcome = await streamRun(ready.graph, next, threadId, printer, output, options.user);
      if (outcome.kind === "done") {
        output.out(`${label("result")} ${outcome.answer || "(the model gave no final text)"}`);
        return outcome;
      }
      if (options.mode === "stop") {
        for (const line of formatPending(threadId, outcome.request, options.route)) output.out(line);
        return outcome;
      }
      let resume: ApprovalResume;
      if (options.mode === "yes") {
        output.out(`⏸  approval needed on thread ${threadId}:`);
        outcome.request.actionRequests.forEach((action, i) => formatAction(action, i).forEach((line) => output.out(line)));
        output.out("   auto-approved (--yes)");
        const decisions = Object.fromEntries(outcome.request.actionRequests.map((a) => [a.toolCallId, { type: "approve" as const }]));
        resume = { decisions, actor: options.actor };
      } else {
        output.err(`⏸  approval needed on thread ${threadId}:`);
        resume = await askDecisions(outcome.request, prompter ?? new Prompter(), output, options.actor);
      }
      printer.showCalls(decidedCalls(resume));
      next = new Command({ resume });
    }
  } finally {
    prompter?.close();
  }
}

function decidedCalls(resume: ApprovalResume): string[] {
  return Array.isArray(resume.decisions) ? resume.decisions.flatMap((d) => (d.toolCallId ? [d.toolCallId] : [])) : Object.keys(resume.decisions);
}
