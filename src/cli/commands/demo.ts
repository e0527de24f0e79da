import { HumanMessage } from "@langchain/core/messages";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { drive, type ApprovalMode } from "../drive.js";
import { CliError } from "../errors.js";
import { parseFlags, STORAGE_OPTIONS, storageFlagsSchema } from "../flags.js";
import type { Output } from "../render.js";
import { actorOf, withThreadSession } from "../session.js";
import type { Sandbox } from "../../../graphs/tools/devops.js";

const DEMO_MESSAGE = "Tidy up the cluster: remove deployments nobody uses.";

const demoFlags = z.object({
  ...storageFlagsSchema,
  yes: z.boolean().optional(),
  interactive: z.boolean().optional(),
  actor: z.string().min(1).optional(),
});

function deployments(sandbox: Sandbox | undefined, namespace: string): string {
  const names = Object.keys(sandbox?.snapshot().namespaces[namespace]?.deployments ?? {});
  return names.length > 0 ? names.join(", ") : "(none)";
}

/**
 * `npm start`: the DevOps demo end to end on a fresh thread, offline with the scripted model unless
 * OPENAI_API_KEY / OPENAI_BASE_URL is set. Asks at the prompt in a terminal; with --yes, or when stdin
 * is not a terminal (CI), approves automatically and says so.
 */
export async function demoCommand(argv: string[], output: Output): Promise<number> {
  const { flags, positionals } = parseFlags("demo", argv, { ...STORAGE_OPTIONS, yes: { type: "boolean" }, interactive: { type: "boolean" }, actor: { type: "string" } }, demoFlags);
  if (positionals.length > 0) throw new CliError("demo takes no arguments; flags: --yes, --interactive, --db, --audit", 2);
  if (flags.yes && flags.interactive) throw new CliError("--yes and --interactive contradict each other: pick one", 2);
  let mode: ApprovalMode = flags.yes ? "yes" : "interactive";
  if (!flags.yes && !flags.interactive && process.stdin.isTTY !== true) {
    output.err("note: stdin is not a terminal, so the demo approves the call that asks automatically (pass --yes to silence this note).");
    mode = "yes";
  }
  const threadId = `demo-${randomUUID().slice(0, 8)}`;
  const plan = async () => ({ graph: "devops", policy: undefined, scenario: null }) as const;
  return withThreadSession({ flags, threadId, plan }, async ({ session, audit, ready }) => {
    const sandbox = "sandbox" in ready ? (ready.sandbox as Sandbox) : undefined;
    await session.registry.register({ threadId, graph: "devops", policy: null, scenario: null });
    output.out("guarded-graph demo: a DevOps agent on a sandbox cluster, guarded by policies/devops.yaml");
    output.out(`model: ${process.env.OPENAI_API_KEY || process.env.OPENAI_BASE_URL ? "ChatOpenAI (from the environment)" : "scripted (scenarios/devops-demo.yaml, offline)"} · storage: ${session.spec}`);
    output.out(`before: staging deployments ${deployments(sandbox, "staging")}; production deployments ${deployments(sandbox, "production")}`);
    output.out("");
    output.out(`▶  thread ${threadId} · graph devops · policy ${ready.policy?.source ?? "(none)"}`);
    output.out(`${"you".padEnd(8)} ${DEMO_MESSAGE}`);
    const outcome = await drive(ready, threadId, { messages: [new HumanMessage(DEMO_MESSAGE)] }, { mode, actor: actorOf(flags.actor), output });
    const records = await audit.query({ threadId });
    const count = (event: string, decision: string) => records.filter((r) => r.event === event && r.decision === decision).length;
    output.out("");
    output.out(`after:  staging deployments ${deployments(sandbox, "staging")}; production deployments ${deployments(sandbox, "production")}`);
    output.out(
      `audit:  ${count("decision", "allow")} allowed, ${count("decision", "deny")} denied, ${count("decision", "ask")} asked, ` +
        `${records.filter((r) => r.event === "human").length} human answer(s) — see: guarded-graph audit ${threadId}`,
    );
    return outcome.kind === "done" ? 0 : 1;
  });
}
