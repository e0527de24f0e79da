import { pathToFileURL } from "node:url";
import { auditCommand } from "./commands/audit.js";
import { ANSWER_USAGE, answerCommand } from "./commands/answer.js";
import { demoCommand } from "./commands/demo.js";
import { policyCommand } from "./commands/policy.js";
import { RUN_USAGE, runCommand } from "./commands/run.js";
import { STICKY_USAGE, stickyCommand } from "./commands/sticky.js";
import { showCommand, threadsCommand } from "./commands/threads.js";
import { CliError, reportError } from "./errors.js";
import { endQuietlyOnBrokenPipe, stdOutput, type Output } from "./render.js";

const USAGE = `guarded-graph — run guarded LangGraph agents, answer their approvals, read the audit log

Usage:
  guarded-graph ${RUN_USAGE}
  guarded-graph threads [--json]
  guarded-graph show THREAD [--json]
  guarded-graph ${ANSWER_USAGE.approve}
  guarded-graph ${ANSWER_USAGE.reject}
  guarded-graph ${ANSWER_USAGE.edit}
  guarded-graph ${STICKY_USAGE.list}
  guarded-graph ${STICKY_USAGE.revoke}
  guarded-graph audit [THREAD] [--follow] [--json] [--limit N]
  guarded-graph policy check FILE [--graph devops|etl|memory] [--mcp CONFIG] [--json]
  guarded-graph policy plan FILE
  guarded-graph policy explain FILE --tool T --args JSON [--state JSON] [--risk LEVEL] [--operation OP] [--graph NAME] [--mcp CONFIG] [--thread ID [--db SPEC]]
  guarded-graph demo [--yes | --interactive]

Graphs: devops, etl, memory.
Storage: --db sqlite:PATH | postgres://... (or GUARDED_GRAPH_DB); default sqlite:.guarded-graph/checkpoints.db
Audit:   --audit jsonl:PATH | sqlite:PATH | postgres://... (or GUARDED_GRAPH_AUDIT); default jsonl:.guarded-graph/audit.jsonl
Server:  threads, show, approve, reject and edit take --url URL (or GUARDED_GRAPH_URL) and --api-key KEY
         (or GUARDED_GRAPH_API_KEY) to answer approvals on a LangGraph server (langgraph dev, a deployment)
Model:   OPENAI_API_KEY / OPENAI_BASE_URL / MODEL; without them a scripted model plays the graph's scenario offline.`;

/** Runs one CLI invocation and returns its exit code (0 ok, 1 refused or failed, 2 usage). */
export async function main(argv: string[], output: Output = stdOutput): Promise<number> {
  const [command, ...rest] = argv;
  if (output === stdOutput) endQuietlyOnBrokenPipe();
  try {
    switch (command) {
      case "run":
        return await runCommand(rest, output);
      case "threads":
        return await threadsCommand(rest, output);
      case "show":
        return await showCommand(rest, output);
      case "approve":
      case "reject":
      case "edit":
        return await answerCommand(command, rest, output);
      case "sticky":
        return await stickyCommand(rest, output);
      case "audit":
        return await auditCommand(rest, output);
      case "policy":
        return await policyCommand(rest, output);
      case "demo":
        return await demoCommand(rest, output);
      case undefined:
      case "help":
      case "--help":
      case "-h":
        output.out(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new CliError(`unknown command ${JSON.stringify(command)}\n\n${USAGE}`, 2);
    }
  } catch (error) {
    return reportError(error, output);
  }
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (invokedDirectly || process.env.GUARDED_GRAPH_CLI_MAIN === "1") {
  const code = await main(process.argv.slice(2));
  // Open handles (pools, timers) must not keep a finished command alive.
  process.exitCode = code;
  setTimeout(() => process.exit(code), 200).unref();
}
