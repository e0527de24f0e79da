import { AIMessage, ToolMessage, coerceMessageLikeToMessage, isBaseMessage, mapChatMessagesToStoredMessages, mapStoredMessagesToChatMessages } from "@langchain/core/messages";
import type { BaseMessage, StoredMessage } from "@langchain/core/messages";
import { Command, Send } from "@langchain/langgraph";
import { z } from "zod";
import { execution } from "../messages/index.js";

/**
 * A tool's result that is a LangGraph `Command` (a state update, a `goto`, possibly to the parent
 * graph): read, checked and recorded here, the one owner of that concern. The guard applies such a
 * result as LangGraph's ToolNode does — the update merges into the state, its messages carry the
 * call's answer, the goto routes — after the same review, approval and audit as any call; the call's
 * answer inside the update is the guard's own ToolMessage (truncated like any result), and the
 * Command is recorded in the ledger so a replay re-applies it without running the tool again.
 */

/** What a LangGraph `Command` carries that this module reads (duck-typed: LangGraph's own `isCommand` test). */
interface CommandLike {
  lg_name: "Command";
  update?: unknown;
  goto?: unknown;
  graph?: unknown;
}

export function isCommandLike(value: unknown): value is CommandLike {
  return typeof value === "object" && value !== null && (value as { lg_name?: unknown }).lg_name === "Command";
}

type Goto = string | Send | (string | Send)[];

/** A tool's Command as the guard applies it: the update without the call's answer, which the guard writes at `answerAt`. */
export interface ToolCommand {
  /** The update's keys other than `messages`, as the tool wrote them. */
  state: Record<string, unknown>;
  /** The update's messages other than the call's answer, in order. */
  messages: BaseMessage[];
  /** Where the call's answer goes among `messages` (undefined: the update had none and goes to the parent graph, so none is added). */
  answerAt: number | undefined;
  /** Whether the update named `messages` at all. */
  hasMessages: boolean;
  goto: Goto | undefined;
  /** `Command.PARENT`, or undefined for the graph the call runs in. */
  graph: string | undefined;
}

/** A Command read from a tool's result: the call's answer (what the model reads) and the rest to apply, or why it cannot be applied. */
type ReadCommand =
  | { ok: true; command: ToolCommand; answer: { content: unknown; status: "success" | "error"; artifact?: unknown } }
  | { ok: false; reason: string };

interface CommandScope {
  /** State keys no tool may update (the guard's own channels). */
  reserved: readonly string[];
  /**
   * The call runs inside the guard's own graph (`createGuardedAgent`): its state holds only the
   * messages and the guard's routing picks the next node, so a Command for that graph may update
   * `messages` only and may not route; one for the parent graph may do anything.
   */
  guardOwnsGraph?: boolean;
}

function updateObject(update: unknown): Record<string, unknown> | undefined {
  if (update === undefined || update === null) return {};
  if (Array.isArray(update)) {
    // Command's tuple form: [key, value] pairs.
    if (!update.every((pair) => Array.isArray(pair) && pair.length === 2 && typeof pair[0] === "string")) return undefined;
    return Object.fromEntries(update as [string, unknown][]);
  }
  return typeof update === "object" ? { ...(update as Record<string, unknown>) } : undefined;
}

function hasGoto(goto: unknown): boolean {
  return goto !== undefined && goto !== null && !(Array.isArray(goto) && goto.length === 0);
}

function toMessages(value: unknown): BaseMessage[] {
  const list: unknown[] = Array.isArray(value) ? value : [value];
  return list.map((m) => (isBaseMessage(m) ? m : coerceMessageLikeToMessage(m as Parameters<typeof coerceMessageLikeToMessage>[0])));
}

/**
 * Reads a tool's Command for call `callId` of tool `tool`. The call's answer is the update's
 * ToolMessage for that call; with none, the guard answers the call itself (a Command for the
 * parent graph goes as the tool wrote it: the call's model message may not be in that graph).
 */
export function readToolCommand(output: CommandLike, tool: string, callId: string, scope: CommandScope): ReadCommand {
  const update = updateObject(output.update);
  const routes = hasGoto(output.goto);
  const parent = output.graph === Command.PARENT;
  if (update === undefined) return { ok: false, reason: execution.commandUnreadable("its update is neither an object nor [key, value] pairs") };
  const keys = Object.keys(update);
  const parts = [...keys, ...(routes ? ["goto"] : [])];
  const reserved = keys.filter((k) => scope.reserved.includes(k));
  if (reserved.length > 0) return { ok: false, reason: execution.commandTouchesGuard(reserved) };
  if (scope.guardOwnsGraph === true && !parent) {
    const refused = [...keys.filter((k) => k !== "messages"), ...(routes ? ["goto"] : [])];
    if (refused.length > 0) return { ok: false, reason: execution.commandInGuardedAgent(parts) };
  }
  if (output.graph !== undefined && output.graph !== null && !parent) return { ok: false, reason: execution.commandUnreadable(`it names the graph ${JSON.stringify(output.graph)}; only the parent graph (Command.PARENT) can be named`) };
  if (routes && !isGoto(output.goto)) return { ok: false, reason: execution.commandUnreadable("its goto is not a node name, a Send, or a list of them") };
  const { messages: rawMessages, ...state } = update;
  const hasMessages = "messages" in update;
  let messages: BaseMessage[];
  try {
    messages = hasMessages ? toMessages(rawMessages) : [];
  } catch (error) {
    return { ok: false, reason: execution.commandUnreadable(`its messages are not messages (${error instanceof Error ? error.message : String(error)})`) };
  }
  const answers = messages.flatMap((m, i) => (ToolMessage.isInstance(m) && m.tool_call_id === callId ? [i] : []));
  if (answers.length > 1) return { ok: false, reason: execution.commandAnswersTwice(answers.length) };
  // In the graph the call runs in, an answer to another call is a second answer to a sibling, or one
  // to no call at all (providers refuse the thread then: every tool message must follow its call);
  // unless the update also holds the model message that made that call (a tool that writes a whole
  // exchange, or the history, back).
  const asked = new Set(messages.flatMap((m) => (AIMessage.isInstance(m) ? (m.tool_calls ?? []).flatMap((c) => (c.id === undefined ? [] : [c.id])) : [])));
  const others = parent ? [] : messages.flatMap((m) => (ToolMessage.isInstance(m) && m.tool_call_id !== callId && !asked.has(m.tool_call_id) ? [m.tool_call_id] : []));
  if (others.length > 0) return { ok: false, reason: execution.commandAnswersOthers(others) };
  const at = answers[0];
  const goto = routes ? (output.goto as Goto) : undefined;
  const graph = parent ? Command.PARENT : undefined;
  if (at !== undefined) {
    const found = messages[at] as ToolMessage;
    const rest = messages.filter((_, i) => i !== at);
    return {
      ok: true,
      command: { state, messages: rest, answerAt: at, hasMessages: true, goto, graph },
      answer: { content: found.content, status: found.status === "error" ? "error" : "success", ...(found.artifact !== undefined ? { artifact: found.artifact } : {}) },
    };
  }
  // No answer in the update. For this graph the guard answers the call (every call gets exactly one
  // ToolMessage); one for the parent graph goes as written.
  const command: ToolCommand = { state, messages, answerAt: parent ? undefined : messages.length, hasMessages: hasMessages || !parent, goto, graph };
  return { ok: true, command, answer: { content: execution.commandWithoutAnswer(tool, parts), status: "success" } };
}

function isGoto(goto: unknown): goto is Goto {
  const one = (g: unknown) => typeof g === "string" || g instanceof Send;
  return one(goto) || (Array.isArray(goto) && goto.every(one));
}

/** The LangGraph Command to return, with `answer` (the guard's ToolMessage for the call) in its messages. */
export function commandWith(command: ToolCommand, answer: ToolMessage | undefined): Command {
  const messages = [...command.messages];
  if (answer !== undefined && command.answerAt !== undefined) messages.splice(command.answerAt, 0, answer);
  const update = { ...command.state, ...(command.hasMessages ? { messages } : {}) };
  return new Command({ update, ...(command.goto !== undefined ? { goto: command.goto } : {}), ...(command.graph !== undefined ? { graph: command.graph } : {}) });
}

// ─── recording ─────────────────────────────────────────────────────────────────────────────────

/** A tool's Command as the ledger keeps it (plain JSON): messages in LangChain's stored-message form. Built on first use (importing the package builds no schema). */
function storedCommandSchema() {
  const goto = z.union([z.string(), z.object({ node: z.string(), args: z.unknown() })]);
  return z.object({
    state: z.record(z.string(), z.unknown()),
    messages: z.array(z.object({ type: z.string(), data: z.record(z.string(), z.unknown()) })),
    answerAt: z.number().int().nonnegative().optional(),
    hasMessages: z.boolean(),
    goto: z.union([goto, z.array(goto)]).optional(),
    graph: z.literal(Command.PARENT).optional(),
  });
}
let storedCommand: ReturnType<typeof storedCommandSchema> | undefined;
const StoredCommandSchema = { safeParse: (value: unknown) => (storedCommand ??= storedCommandSchema()).safeParse(value) };
export type StoredCommand = z.infer<ReturnType<typeof storedCommandSchema>>;

/** Where `value` is not plain JSON data (what a JSON record would change), or undefined when it is. */
function notPlain(value: unknown, path: string): string | undefined {
  if (value === null || typeof value === "string" || typeof value === "boolean") return undefined;
  if (typeof value === "number") return Number.isFinite(value) ? undefined : `${path} is ${String(value)}`;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const found = notPlain(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof value === "object") {
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) {
      const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
      return `${path} is a ${typeof name === "string" ? name : "class instance"}, not plain data`;
    }
    for (const [key, v] of Object.entries(value)) {
      const found = notPlain(v, `${path}.${key}`);
      if (found) return found;
    }
    return undefined;
  }
  return `${path} is a ${typeof value}`;
}

function storedGoto(goto: string | Send): StoredCommand["goto"] & (string | { node: string; args: unknown }) {
  return typeof goto === "string" ? goto : { node: goto.node, args: goto.args };
}

/**
 * The Command as plain JSON for the ledger, or why it cannot be recorded (a value that is not plain
 * data, a message LangChain cannot serialise): then the call must fail closed rather than be replayed wrong.
 */
export function storeCommand(command: ToolCommand): { ok: true; stored: StoredCommand } | { ok: false; reason: string } {
  for (const [key, value] of Object.entries(command.state)) {
    const found = notPlain(value, key);
    if (found) return { ok: false, reason: found };
  }
  const gotos = command.goto === undefined ? [] : Array.isArray(command.goto) ? command.goto : [command.goto];
  for (const g of gotos) {
    if (typeof g !== "string") {
      const found = notPlain(g.args, `goto Send("${g.node}") args`);
      if (found) return { ok: false, reason: found };
    }
  }
  let messages: StoredMessage[];
  try {
    messages = mapChatMessagesToStoredMessages(command.messages);
    // A message LangChain cannot read back is not recorded: it would be replayed as something else.
    mapStoredMessagesToChatMessages(JSON.parse(JSON.stringify(messages)) as StoredMessage[]);
  } catch (error) {
    return { ok: false, reason: `its messages cannot be serialised (${error instanceof Error ? error.message : String(error)})` };
  }
  const found = messages.map((m, i) => notPlain(JSON.parse(JSON.stringify(m)), `messages[${i}]`)).find((f) => f !== undefined);
  if (found) return { ok: false, reason: found };
  const stored: StoredCommand = {
    state: command.state,
    messages: JSON.parse(JSON.stringify(messages)) as StoredCommand["messages"],
    hasMessages: command.hasMessages,
    ...(command.answerAt !== undefined ? { answerAt: command.answerAt } : {}),
    ...(command.goto !== undefined ? { goto: Array.isArray(command.goto) ? command.goto.map(storedGoto) : storedGoto(command.goto) } : {}),
    ...(command.graph !== undefined ? { graph: Command.PARENT } : {}),
  };
  return { ok: true, stored };
}

/** A recorded Command read back from the ledger; undefined when the record holds none or is not one (then the call is answered from its content alone). */
export function loadCommand(recorded: unknown): ToolCommand | undefined {
  const parsed = StoredCommandSchema.safeParse(recorded);
  if (!parsed.success) return undefined;
  const s = parsed.data;
  const goto = s.goto === undefined ? undefined : Array.isArray(s.goto) ? s.goto.map(loadedGoto) : loadedGoto(s.goto);
  return {
    state: s.state,
    messages: mapStoredMessagesToChatMessages(s.messages as unknown as StoredMessage[]),
    answerAt: s.answerAt,
    hasMessages: s.hasMessages,
    goto,
    graph: s.graph,
  };
}

function loadedGoto(goto: string | { node: string; args?: unknown }): string | Send {
  return typeof goto === "string" ? goto : new Send(goto.node, goto.args);
}

/**
 * LangGraph's ToolNode, for a batch whose results include Commands: each call's output is one
 * update (a plain answer as `{ messages: [answer] }`, a Command as it is), in call order, and the
 * parent-graph Commands that only send (`goto` of Sends) are combined into one.
 */
export function combineOutputs(outputs: readonly (ToolMessage | Command)[]): ({ messages: ToolMessage[] } | Command)[] {
  const combined: ({ messages: ToolMessage[] } | Command)[] = [];
  let parentSends: Send[] | undefined;
  for (const output of outputs) {
    if (!(output instanceof Command)) {
      combined.push({ messages: [output] });
      continue;
    }
    if (output.graph === Command.PARENT && Array.isArray(output.goto) && output.goto.every((g) => g instanceof Send)) {
      parentSends = [...(parentSends ?? []), ...(output.goto as Send[])];
      continue;
    }
    combined.push(output);
  }
  if (parentSends) combined.push(new Command({ graph: Command.PARENT, goto: parentSends }));
  return combined;
}

/**
 * In the guard's own graph (createGuardedAgent): what a call's result writes there — its
 * Command's messages (the only key such a Command may update), or its answer when the Command
 * goes to the parent graph (then this graph's step is left, as LangGraph leaves it) — and the
 * Commands for the parent graph, combined as ToolNode combines them.
 */
export function inGuardedAgent(results: readonly { message: ToolMessage; command?: Command | undefined }[]): { messages: BaseMessage[]; toParent: Command[] } {
  const messages: BaseMessage[] = [];
  const parent: Command[] = [];
  for (const { message, command } of results) {
    if (command === undefined) messages.push(message);
    else if (command.graph === Command.PARENT) {
      messages.push(message);
      parent.push(command);
    } else {
      const update = command.update as { messages?: BaseMessage[] } | undefined;
      messages.push(...(update?.messages ?? [message]));
    }
  }
  return { messages, toParent: combineOutputs(parent) as Command[] };
}
