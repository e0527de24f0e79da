import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { packageRoot } from "../package-root.js";
import { AUDIT_USAGE, auditCommand } from "./commands/audit.js";
import { ANSWER_USAGE, answerCommand } from "./commands/answer.js";
import { demoCommand } from "./commands/demo.js";
import { INIT_USAGE, initCommand } from "./commands/init.js";
import { policyCommand } from "./commands/policy.js";
import { REPLAY_USAGE } from "./commands/replay.js";
import { RUN_USAGE, runCommand } from "./commands/run.js";
import { STICKY_USAGE, stickyCommand } from "./commands/sticky.js";
import { showCommand, threadsCommand } from "./commands/threads.js";
import { CliError, reportError } from "./errors.js";
import { endQuietlyOnBrokenPipe, stdOutput, type Output } from "./render.js";

/** One line per command form, as `guarded-graph <line>`; per-command help prints the lines of its command. */
const COMMAND_LINES: readonly string[] = [
  RUN_USAGE,
  "threads [--json] [--db SPEC | --url URL [--api-key KEY]]",
  "show THREAD [--json] [--db SPEC | --url URL [--api-key KEY]]",
  ANSWER_USAGE.approve,
  ANSWER_USAGE.reject,
  ANSWER_USAGE.edit,
  STICKY_USAGE.list,
  STICKY_USAGE.revoke,
  AUDIT_USAGE,
  "policy check FILE [--graph devops|etl|memory] [--json]",
  "policy plan FILE",
  "policy explain FILE --tool T --args JSON [--state JSON] [--risk LEVEL] [--operation OP] [--graph NAME] [--thread ID [--db SPEC]] [--user JSON] [--configurable JSON]",
  REPLAY_USAGE,
  "demo [--yes | --interactive] [--db SPEC] [--audit SPEC]",
  INIT_USAGE,
];

const COMMANDS = ["run", "threads", "show", "approve", "reject", "edit", "sticky", "audit", "policy", "demo", "init"] as const;

/** Notes that apply to a command, keyed by the flag that brings them in. */
const NOTES: readonly { readonly when: RegExp; readonly text: string }[] = [
  { when: /--db\b/, text: "Storage: --db sqlite:PATH | postgres://... | memory: (or GUARDED_GRAPH_DB); default sqlite:.guarded-graph/checkpoints.db" },
  { when: /--audit\b/, text: "Audit:   --audit jsonl:PATH | sqlite:PATH | postgres://... (or GUARDED_GRAPH_AUDIT); default jsonl:.guarded-graph/audit.jsonl" },
  {
    when: /--url\b|^(approve|reject|edit) /,
    text: "Server:  --url URL (or GUARDED_GRAPH_URL) and --api-key KEY (or GUARDED_GRAPH_API_KEY) answer approvals on a LangGraph server (langgraph dev, a deployment)",
  },
  {
    when: /^(run|approve|reject|edit) /,
    text: "Users:   on a local thread, --api-key KEY (or GUARDED_GRAPH_API_KEY) runs or answers as that key's user in GUARDED_GRAPH_API_KEYS\n         (with GUARDED_GRAPH_API_USERS): the user policy rules and approver rules read",
  },
  { when: /^(run|demo) /, text: "Model:   OPENAI_API_KEY / OPENAI_BASE_URL / MODEL; without them a scripted model plays the graph's scenario offline." },
  { when: /^init /, text: "Writes langgraph.json, graph.ts (your tools under your policy, audit log on) and auth.ts (API keys) in DIR (default: here);\n         a tools module (exporting `tools`) or policy file that does not exist yet is written as a starter." },
];

/** `guarded-graph COMMAND --help`: the command's forms and the notes about its flags. */
function commandHelp(command: string): string {
  const lines = COMMAND_LINES.filter((line) => line === command || line.startsWith(`${command} `));
  const notes = NOTES.filter((note) => lines.some((line) => note.when.test(line))).map((note) => note.text);
  return [`Usage:`, ...lines.map((line) => `  guarded-graph ${line}`), ...(notes.length > 0 ? ["", ...notes] : [])].join("\n");
}

/** True when argv asks for help before any `--` (after it, `--help` is an argument). */
function asksForHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  return (end < 0 ? argv : argv.slice(0, end)).some((arg) => arg === "--help" || arg === "-h");
}

/** The installed package's version. */
function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version: string }).version;
}

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
  guarded-graph ${AUDIT_USAGE}
  guarded-graph policy check FILE [--graph devops|etl|memory] [--mcp CONFIG] [--json]
  guarded-graph policy plan FILE
  guarded-graph policy explain FILE --tool T --args JSON [--state JSON] [--risk LEVEL] [--operation OP] [--graph NAME] [--mcp CONFIG] [--thread ID [--db SPEC]]
                                          [--user JSON] [--configurable JSON]
  guarded-graph ${REPLAY_USAGE}
  guarded-graph demo [--yes | --interactive]
  guarded-graph ${INIT_USAGE}
  guarded-graph COMMAND --help | --version

Graphs: devops, etl, memory.
Storage: --db sqlite:PATH | postgres://... (or GUARDED_GRAPH_DB); default sqlite:.guarded-graph/checkpoints.db
Audit:   --audit jsonl:PATH | sqlite:PATH | postgres://... (or GUARDED_GRAPH_AUDIT); default jsonl:.guarded-graph/audit.jsonl
Server:  threads, show, approve, reject, edit and audit take --url URL (or GUARDED_GRAPH_URL) and --api-key KEY
         (or GUARDED_GRAPH_API_KEY) to answer approvals on a LangGraph server (langgraph dev, a deployment)
Model:   OPENAI_API_KEY / OPENAI_BASE_URL / MODEL; without them a scripted model plays the graph's scenario offline.`;

/** Runs one CLI invocation and returns its exit code (0 ok, 1 refused or failed, 2 usage). */
export async function main(argv: string[], output: Output = stdOutput): Promise<number> {
  const [command, ...rest] = argv;
  if (output === stdOutput) endQuietlyOnBrokenPipe();
  try {
    if (command !== undefined && (COMMANDS as readonly string[]).includes(command) && asksForHelp(rest)) {
      output.out(commandHelp(command));
      return 0;
    }
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
      case "init":
        return await initCommand(rest, output);
      case "--version":
      case "-v":
      case "version":
        output.out(packageVersion());
        return 0;
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
  void main(process.argv.slice(2)).then((code) => {
    // Open handles (pools, timers) must not keep a finished command alive.
    process.exitCode = code;
    setTimeout(() => process.exit(code), 200).unref();
  });
}
