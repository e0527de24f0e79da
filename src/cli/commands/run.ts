import { HumanMessage } from "@langchain/core/messages";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { GRAPH_NAMES } from "../../../graphs/shared.js";
import { drive, type ApprovalMode } from "../drive.js";
import { CliError } from "../errors.js";
import { parseFlags, STORAGE_OPTIONS, storageFlagsSchema } from "../flags.js";
import { threadStatus } from "../pending.js";
import type { Output } from "../render.js";
import { actorOf, localAnswerRoute, parseThreadId, policyPathFlag, scenarioFromEnv, withThreadSession, type Session } from "../session.js";
import { localUser } from "../local-user.js";

export const RUN_USAGE = 'run GRAPH "message" [--thread ID] [--policy FILE] [--yes | --interactive | --no-interactive] [--db SPEC] [--audit SPEC] [--api-key KEY]';

const runFlags = z.object({
  ...storageFlagsSchema,
  thread: z.string().optional(),
  policy: z.string().min(1).optional(),
  yes: z.boolean().optional(),
  interactive: z.boolean().optional(),
  "no-interactive": z.boolean().optional(),
  actor: z.string().min(1).optional(),
  "api-key": z.string().min(1).optional(),
});

export const APPROVAL_FLAG_OPTIONS = {
  yes: { type: "boolean" },
  interactive: { type: "boolean" },
  "no-interactive": { type: "boolean" },
  actor: { type: "string" },
} as const;

/** --yes, --interactive, else ask at the prompt only when stdin and stdout are terminals. */
export function approvalMode(flags: { yes?: boolean | undefined; interactive?: boolean | undefined; "no-interactive"?: boolean | undefined }): ApprovalMode {
  if (flags.yes && flags.interactive) throw new CliError("--yes and --interactive contradict each other: pick one", 2);
  if (flags.yes) return "yes";
  if (flags.interactive) return "interactive";
  if (flags["no-interactive"]) return "stop";
  return process.stdin.isTTY === true && process.stdout.isTTY === true ? "interactive" : "stop";
}

export async function runCommand(argv: string[], output: Output): Promise<number> {
  const { flags, positionals } = parseFlags(
    "run",
    argv,
    { ...STORAGE_OPTIONS, ...APPROVAL_FLAG_OPTIONS, thread: { type: "string" }, policy: { type: "string" }, "api-key": { type: "string" } },
    runFlags,
  );
  const [graphArg, message, ...extra] = positionals;
  const graphName = z.enum(GRAPH_NAMES).safeParse(graphArg);
  if (!graphName.success) throw new CliError(`run: unknown graph ${JSON.stringify(graphArg ?? "")}; graphs: ${GRAPH_NAMES.join(", ")}. Usage: ${RUN_USAGE}`, 2);
  if (!message?.trim() || extra.length > 0) throw new CliError(`run: give the message as one quoted argument. Usage: ${RUN_USAGE}`, 2);
  const mode = approvalMode(flags);
  const threadId = flags.thread === undefined ? `${graphName.data}-${randomUUID().slice(0, 8)}` : parseThreadId(flags.thread);
  const policyFlag = policyPathFlag(flags.policy);

  const plan = async (session: Session) => {
    const known = await session.registry.get(threadId);
    if (known && known.graph !== graphName.data) {
      throw new CliError(`thread ${threadId} belongs to graph ${known.graph}, not ${graphName.data}; use another --thread`);
    }
    if (known && policyFlag && known.policy !== policyFlag) {
      throw new CliError(`thread ${threadId} runs under policy ${known.policy ?? "(default)"}; a thread keeps its policy, start a new --thread for ${policyFlag}`);
    }
    const policy = known ? (known.policy ?? undefined) : policyFlag;
    return { graph: graphName.data, policy, scenario: known ? known.scenario : scenarioFromEnv() };
  };
  return withThreadSession({ flags, threadId, plan }, async ({ session, plan: { policy, scenario }, ready }) => {
    const status = await threadStatus(ready.graph, threadId);
    if (status.pending) {
      throw new CliError(`thread ${threadId} is waiting for approval; answer it first (guarded-graph show ${threadId})`);
    }
    await session.registry.register({ threadId, graph: graphName.data, policy: policy ?? null, scenario });
    output.out(`▶  thread ${threadId} · graph ${graphName.data} · policy ${ready.policy?.source ?? "(none)"}`);
    output.out(`${"you".padEnd(8)} ${message}`);
    await drive(ready, threadId, { messages: [new HumanMessage(message)] }, { mode, actor: actorOf(flags.actor), output, route: localAnswerRoute(flags, session.spec), user: localUser(flags) });
    return 0;
  });
}
