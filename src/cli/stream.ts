import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { Command } from "@langchain/langgraph";
import type { AuditSink } from "../audit/types.js";
import type { ApprovalRequest } from "../guard/approval/payload.js";
import { GUARDED_NODES, type GuardedNodeName } from "../guard/agent.js";
import type { GuardedGraph } from "../../graphs/shared.js";
import { threadStatus } from "./pending.js";
import { Progress } from "./progress.js";
import { compactJson, excerpt, formatAuditLine, label, type Output } from "./render.js";
import { asUser, type AuthUserInput } from "../principal/principal.js";

export type RunOutcome =
  | { kind: "approval"; request: ApprovalRequest }
  | { kind: "done"; answer: string };

/** Prints the audit records of a thread that were not printed yet. */
export class AuditPrinter {
  readonly #seen = new Set<string>();
  /** Tool calls whose model turn was printed: their decisions may be printed now. */
  readonly #calls = new Set<string>();
  constructor(
    readonly sink: AuditSink,
    readonly threadId: string,
  ) {}

  /** Marks what is already in the log as seen, so a resumed run prints only new decisions. */
  async skipExisting(): Promise<void> {
    for (const record of await this.sink.query({ threadId: this.threadId })) this.#seen.add(record.id);
  }

  /** The graph runs ahead of the printed stream: decisions wait until their model turn is shown. */
  showCalls(ids: readonly string[]): void {
    for (const id of ids) this.#calls.add(id);
  }

  async flush(output: Output, all = false): Promise<void> {
    const records = await this.sink.query({ threadId: this.threadId });
    for (const record of records) {
      if (this.#seen.has(record.id)) continue;
      if (!all && !this.#calls.has(record.toolCallId)) continue;
      this.#seen.add(record.id);
      // Outcomes are shown by the tool results themselves.
      if (record.event !== "outcome") output.out(formatAuditLine(record));
    }
  }
}

function messagesOf(update: unknown): BaseMessage[] {
  if (typeof update !== "object" || update === null) return [];
  const messages = (update as { messages?: unknown }).messages;
  return Array.isArray(messages) ? (messages as BaseMessage[]) : [];
}

function printModelTurn(message: BaseMessage, output: Output): void {
  if (!AIMessage.isInstance(message)) return;
  const text = message.text.trim();
  output.out(`${label("model")} ${text || "(no text)"}`);
  for (const call of message.tool_calls ?? []) output.out(`${label("")}  → ${call.name} ${compactJson(call.args)}`);
}

function printToolResult(message: BaseMessage, output: Output): void {
  if (!ToolMessage.isInstance(message)) return;
  const ok = message.status !== "error";
  output.out(`${label("tool")} ${ok ? "✓" : "✗"} ${message.name ?? "tool"} (${message.tool_call_id})`);
  for (const line of excerpt(message.text)) output.out(line);
}

const NEXT_STEP: Record<GuardedNodeName, string> = {
  [GUARDED_NODES.agent]: "guard reviewing the calls",
  [GUARDED_NODES.review]: "running tools",
  [GUARDED_NODES.tools]: "running tools",
  [GUARDED_NODES.execute]: "waiting for the model",
  [GUARDED_NODES.collect]: "waiting for the model",
  [GUARDED_NODES.finish]: "waiting for the model",
};

/**
 * Streams one run (a new message or a resume) and prints each step as it completes: model turns,
 * guard decisions with their rules (from the audit log), tool results. Ends at an approval or the end.
 */
export async function streamRun(
  graph: GuardedGraph,
  input: { messages: BaseMessage[] } | Command,
  threadId: string,
  printer: AuditPrinter,
  output: Output,
  user?: AuthUserInput,
  progress = new Progress(),
): Promise<RunOutcome> {
  const plain = { configurable: { thread_id: threadId }, streamMode: ["updates" as const] };
  const config = user === undefined ? plain : asUser(plain, user);
  progress.start("waiting for the model");
  try {
    const stream = await graph.stream(input as Parameters<GuardedGraph["stream"]>[0], config);
    for await (const [, chunk] of stream as AsyncIterable<[string, Record<string, unknown>]>) {
      progress.stop();
      for (const [node, update] of Object.entries(chunk)) {
        if (node === GUARDED_NODES.agent) {
          for (const m of messagesOf(update)) {
            printModelTurn(m, output);
            if (AIMessage.isInstance(m)) printer.showCalls((m.tool_calls ?? []).flatMap((c) => (c.id ? [c.id] : [])));
          }
        }
        await printer.flush(output);
        if (node === GUARDED_NODES.tools || node === GUARDED_NODES.execute) for (const m of messagesOf(update)) printToolResult(m, output);
        if (node === GUARDED_NODES.finish) for (const m of messagesOf(update)) output.out(`${label("guard")} ${m.text}`);
        progress.start(NEXT_STEP[node as GuardedNodeName] ?? "working");
      }
    }
  } finally {
    progress.stop();
  }
  await printer.flush(output, true);
  const status = await threadStatus(graph, threadId);
  if (status.pending) return { kind: "approval", request: status.pending };
  const messages = (status.values.messages ?? []) as BaseMessage[];
  const last = messages.findLast((m) => AIMessage.isInstance(m));
  return { kind: "done", answer: last?.text.trim() ?? "" };
}
