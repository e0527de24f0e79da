import { execution } from "../messages/index.js";

/** What a LangGraph `Command` carries that this module reads (duck-typed: LangGraph's own `isCommand` test). */
interface CommandLike {
  lg_name: "Command";
  update?: unknown;
  goto?: unknown;
  graph?: unknown;
}

function isCommandLike(value: unknown): value is CommandLike {
  return typeof value === "object" && value !== null && (value as { lg_name?: unknown }).lg_name === "Command";
}

/** The text of the first message in a Command's `messages` update (what the tool meant the model to read). */
function messageText(update: Record<string, unknown>): string | undefined {
  const messages = update.messages;
  const first = Array.isArray(messages) ? (messages[0] as { content?: unknown } | undefined) : undefined;
  if (first === undefined) return undefined;
  return typeof first.content === "string" ? first.content : JSON.stringify(first.content);
}

/**
 * Why a tool's result cannot be its answer, when the tool returned a LangGraph `Command` (state
 * update, goto) instead of a result: a guarded call's only effect on the graph is its ToolMessage
 * (recorded exactly once, audited, truncated, replayed from the ledger), so nothing of the Command
 * is applied, and the call is reported as failed rather than turned into JSON the model would read
 * as its result. Undefined for any other value.
 */
export function commandResultError(output: unknown): string | undefined {
  if (!isCommandLike(output)) return undefined;
  const update = typeof output.update === "object" && output.update !== null && !Array.isArray(output.update) ? (output.update as Record<string, unknown>) : {};
  const parts = Object.keys(update);
  if (output.goto !== undefined && !(Array.isArray(output.goto) && output.goto.length === 0)) parts.push("goto");
  return execution.commandNotApplied(parts, messageText(update));
}
