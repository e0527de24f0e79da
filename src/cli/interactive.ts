import { createInterface, type Interface } from "node:readline";
import type { Readable } from "node:stream";
import type { ApprovalRequest } from "../guard/approval/payload.js";
import type { ApprovalResume, Decision } from "../guard/approval/resume.js";
import { allowedDecisionsOf, parseArgsJson } from "./decisions.js";
import { CliError } from "./errors.js";
import { formatAction, type Output } from "./render.js";

/** Lines from stdin, queued so answers piped in ahead of the prompt are not lost. */
export class Prompter {
  readonly #rl: Interface;
  readonly #lines: string[] = [];
  readonly #waiting: ((line: string | undefined) => void)[] = [];
  #closed = false;

  constructor(input: Readable = process.stdin) {
    this.#rl = createInterface({ input, terminal: false });
    this.#rl.on("line", (line) => {
      const waiter = this.#waiting.shift();
      if (waiter) waiter(line);
      else this.#lines.push(line);
    });
    this.#rl.on("close", () => {
      this.#closed = true;
      for (const waiter of this.#waiting.splice(0)) waiter(undefined);
    });
  }

  async ask(question: string, output: Output): Promise<string> {
    process.stderr.write(question);
    const queued = this.#lines.shift();
    const line = queued ?? (this.#closed ? undefined : await new Promise<string | undefined>((r) => this.#waiting.push(r)));
    if (line === undefined) throw new CliError("stdin ended before every pending call was answered; nothing was sent");
    if (process.stdin.isTTY !== true) output.err(line);
    return line.trim();
  }

  close(): void {
    this.#rl.close();
  }
}

/** Asks y/n/e for each pending call and returns the resume value. */
export async function askDecisions(request: ApprovalRequest, prompter: Prompter, output: Output, actor: string): Promise<ApprovalResume> {
  const allowed = allowedDecisionsOf(request);
  const choices = [allowed.includes("approve") && "y=approve", allowed.includes("reject") && "n=reject", allowed.includes("edit") && "e=edit"]
    .filter(Boolean)
    .join(", ");
  const decisions: Record<string, Decision> = {};
  for (const [index, action] of request.actionRequests.entries()) {
    for (const line of formatAction(action, index)) output.err(line);
    for (;;) {
      const answer = (await prompter.ask(`  approve ${action.name}? [y/n/e] (${choices}) `, output)).toLowerCase();
      if ((answer === "y" || answer === "yes") && allowed.includes("approve")) {
        decisions[action.toolCallId] = { type: "approve" };
      } else if ((answer === "n" || answer === "no") && allowed.includes("reject")) {
        const message = await prompter.ask("  reason for the model (optional): ", output);
        decisions[action.toolCallId] = { type: "reject", ...(message ? { message } : {}) };
      } else if ((answer === "e" || answer === "edit") && allowed.includes("edit")) {
        const text = await prompter.ask(`  new args as JSON [${JSON.stringify(action.args)}]: `, output);
        try {
          const args = text === "" ? action.args : parseArgsJson(text, action.toolCallId);
          decisions[action.toolCallId] = { type: "edit", editedAction: { name: action.name, args } };
        } catch (error) {
          output.err(`  ${(error as Error).message}`);
          continue;
        }
      } else {
        output.err(`  please answer ${choices}`);
        continue;
      }
      break;
    }
  }
  return { decisions, actor };
}
