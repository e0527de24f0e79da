import { AIMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { randomUUID } from "node:crypto";
import type { RuleState } from "../rules/types.js";
import type { ToolDefinition } from "../tools/registry.js";
import { boundedArgs } from "../policy/limits.js";
import type { Guard } from "./guard.js";
import { reminders } from "../messages/index.js";
import { asUnreadable, unparsedCallsAsCalls } from "./invalid-calls.js";

const GUARD_MESSAGE_NAME = "guard";

/** A message the guard adds to the conversation (an exit reminder), told apart from user input. */
export function isGuardMessage(message: BaseMessage): boolean {
  return HumanMessage.isInstance(message) && message.name === GUARD_MESSAGE_NAME;
}

export function guardReminder(text: string): HumanMessage {
  return new HumanMessage({ content: `[guard] ${text}`, name: GUARD_MESSAGE_NAME });
}

/** The system prompt for this step: the user's prompt, the "Tool usage rules" section and due periodic tools. */
export function systemPromptFor(guard: Guard, rules: RuleState, base: string | undefined): string {
  const parts: string[] = [];
  if (base) parts.push(base);
  const usage = guard.usageSection();
  if (usage) parts.push(usage);
  const due = guard.engine.dueTools(rules, guard.now());
  if (due.length > 0) parts.push(reminders.periodicDue(due));
  return parts.join("\n\n");
}

/** Arguments for a forced call: the rule's `metadata.args` (older form), then the rules' prefilled args. */
function forcedArgs(guard: Guard, tool: string, rules?: RuleState): Record<string, unknown> {
  let legacy: Record<string, unknown> = {};
  for (const rule of guard.engine.rules) {
    const args = rule.metadata?.args;
    if (rule.tool === tool && args !== null && typeof args === "object") {
      legacy = args as Record<string, unknown>;
      break;
    }
  }
  return rules ? { ...legacy, ...guard.engine.prefilledArgs(rules, tool) } : legacy;
}

/**
 * The tool the next model call must call: an escalated exit tool (`escalated`), else what the rules
 * force (a pending InitialCall tool, the single tool a ChildTools / ConditionalNext rule leaves, an
 * overdue Periodic tool). A rule-forced tool the model's last message already called (and that was
 * refused, rejected or failed) is not forced again, so a refusal can never loop.
 */
export function forcedToolFor(
  guard: Guard,
  rules: RuleState,
  messages: readonly BaseMessage[],
  escalated: string | null,
): string | null {
  if (escalated) return escalated;
  const forced = guard.engine.forcedTool(rules, guard.now());
  if (!forced) return null;
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i];
    if (message && AIMessage.isInstance(message)) {
      // The model's last call to it did not run (refused, rejected): the model has seen why; do not loop.
      const refused = message.tool_calls?.some((c) => c.name === forced.tool) && rules.lastCall?.tool !== forced.tool;
      return refused ? null : forced.tool;
    }
    if (message && HumanMessage.isInstance(message) && !isGuardMessage(message)) break;
  }
  return forced.tool;
}

type Bindable = BaseChatModel & {
  bindTools?: (tools: ToolDefinition[], kwargs?: Record<string, unknown>) => { invoke: BaseChatModel["invoke"] };
};

/**
 * One model call with only the allowed tools bound (operation enums filtered). A forced tool is
 * requested through `tool_choice`; a model that cannot or does not comply gets a synthetic call.
 */
export async function callModel(
  guard: Guard,
  model: BaseChatModel,
  rules: RuleState,
  messages: readonly BaseMessage[],
  forced: string | null,
  systemPrompt: string | undefined,
  config: LangGraphRunnableConfig | undefined,
): Promise<AIMessage> {
  const definitions = guard.definitions(rules, { strict: guard.strictToolsFor(model) });
  const bindable = model as Bindable;
  let runnable: { invoke: BaseChatModel["invoke"] } = model;
  if (typeof bindable.bindTools === "function" && definitions.length > 0) {
    // One tool forced by name; or a rule leaves a choice of tools and one of them must be called.
    const choice = forced ?? (guard.engine.mustCallTool(rules, guard.now()) ? "any" : undefined);
    try {
      runnable = bindable.bindTools(definitions, choice ? { tool_choice: choice } : {});
    } catch {
      runnable = bindable.bindTools(definitions);
    }
  }
  const prompt = systemPromptFor(guard, rules, systemPrompt);
  const input = prompt ? [new SystemMessage(prompt), ...messages] : [...messages];
  const response = await runnable.invoke(input, config);
  const ai = AIMessage.isInstance(response) ? response : new AIMessage({ content: (response as BaseMessage).content });
  return withForcedCall(guard, ai, forced, rules);
}

/** A model that ignored `tool_choice` still makes the forced call: it is put first, with the rule's arguments. */
export function withForcedCall(guard: Guard, message: AIMessage, forced: string | null, rules?: RuleState): AIMessage {
  // t12 hook: oversized arguments never enter the state (they would break checkpointing); review refuses the marker.
  const ai = withBoundedArguments(message);
  if (!forced || ai.tool_calls?.some((c) => c.name === forced)) return ai;
  const call = { id: `guard_${forced}_${randomUUID().slice(0, 8)}`, name: forced, args: forcedArgs(guard, forced, rules), type: "tool_call" as const };
  return withToolCalls(ai, [call, ...(ai.tool_calls ?? [])], { ...ai.additional_kwargs, guard_forced: forced });
}

/**
 * The message with every tool call whose arguments are deeper than MAX_ARGS_DEPTH or longer than
 * MAX_ARGS_CHARS replaced by `{ $oversizedArguments: summary }` (review refuses it), every call
 * the provider could not parse (`invalid_tool_calls`) added as a call review refuses, and every call
 * whose arguments cannot be read as JSON data refused the same way; each call's id a string of its own. The guarded
 * agent and the middleware apply it to every model answer; in your own StateGraph with
 * GuardedToolNode, apply it in your model node, or LangGraph may be unable to read the checkpoint back.
 */
export function withBoundedArguments(message: AIMessage): AIMessage {
  // Calls the provider could not parse become calls review refuses (invalid-calls.ts), so each gets its ToolMessage.
  const unparsed = unparsedCallsAsCalls(message);
  const calls = unparsed ?? message.tool_calls ?? [];
  // One reading of each call's arguments: the limits walk, then (within them) the JSON text they must have.
  let changed = false;
  const read = calls.map((call) => {
    try {
      const replaced = boundedArgs(call.args);
      if (replaced === undefined) {
        JSON.stringify(call.args);
        return call;
      }
      changed = true;
      return { ...call, args: replaced };
    } catch (error) {
      changed = true;
      return asUnreadable(call, error);
    }
  });
  const bounded = changed ? read : unparsed;
  const distinct = withDistinctIds(bounded ?? calls, message.id) ?? bounded;
  return distinct === undefined ? message : withToolCalls(message, distinct, message.additional_kwargs);
}

/**
 * The calls with an id each, none repeated in the message (undefined when they have): a call
 * without an id (or with "", or one that is not a string or a number) gets `<message id>_<index>`, a
 * number its decimal text, a repeated id gets `<id>_<index>`.
 * Providers that leave ids out or repeat them in one response (some OpenAI-compatible servers,
 * older Gemini integrations) would otherwise get ToolMessages their calls cannot be matched to, or
 * one result for two calls. Deterministic, so a step that runs again after an interrupt names them alike.
 */
export function withDistinctIds(calls: ToolCalls, messageId: string | undefined): ToolCalls | undefined {
  const seen = new Set<string>();
  let changed = false;
  const out = calls.map((call, index) => {
    const given: unknown = call.id;
    let id = typeof given === "number" && Number.isFinite(given) ? String(given) : typeof given !== "string" || given === "" ? `${messageId ?? "call"}_${index}` : given;
    if (seen.has(id)) id = `${id}_${index}`;
    while (seen.has(id)) id = `${id}_`;
    seen.add(id);
    if (id === call.id) return call;
    changed = true;
    return { ...call, id };
  });
  return changed ? out : undefined;
}

type ToolCalls = NonNullable<AIMessage["tool_calls"]>;

/** Content block types that carry a call's name and arguments: Anthropic's (a streamed one too) and LangChain's standard block. */
const CALL_BLOCK_TYPES: ReadonlySet<string> = new Set(["tool_use", "input_json_delta", "tool_call"]);

/**
 * `content` with each block that carries a call of `toolCalls` (by id) rewritten to that call's name
 * and arguments, and a block added for each call no block carries. When a message's content is a
 * list, ChatAnthropic sends its blocks and not `tool_calls`: without this an edited call would reach
 * the model with the model's own arguments, and a call the guard added (a forced call) would not reach
 * it at all, so its result would be refused ("unexpected tool_use_id found in tool_result blocks").
 * Providers that read `tool_calls` (ChatOpenAI) drop these blocks. Text content is left as it is.
 */
function contentWithCalls(ai: AIMessage, toolCalls: ToolCalls): AIMessage["content"] {
  const content = ai.content;
  if (!Array.isArray(content)) return content;
  const byId = new Map(toolCalls.flatMap((c) => (c.id === undefined ? [] : [[c.id, c] as const])));
  const carried = new Set<string>();
  const blocks = content.map((block) => {
    const b = block as { type?: unknown; id?: unknown };
    if (typeof b.type !== "string" || !CALL_BLOCK_TYPES.has(b.type) || typeof b.id !== "string") return block;
    const call = byId.get(b.id);
    if (call === undefined) return block;
    carried.add(b.id);
    return b.type === "tool_call" ? { ...block, name: call.name, args: call.args } : { ...block, type: "tool_use", name: call.name, input: call.args };
  });
  const standard = ai.response_metadata?.output_version === "v1";
  const added = toolCalls
    .filter((c) => c.id !== undefined && !carried.has(c.id))
    .map((c) => (standard ? { type: "tool_call", id: c.id, name: c.name, args: c.args } : { type: "tool_use", id: c.id, name: c.name, input: c.args }));
  return [...blocks, ...added] as AIMessage["content"];
}

/**
 * The same message (same id, so it replaces the original in state) with other tool calls; list
 * content's tool-call blocks say the same (`contentWithCalls`).
 */
export function withToolCalls(
  ai: AIMessage,
  toolCalls: ToolCalls,
  additionalKwargs?: AIMessage["additional_kwargs"],
): AIMessage {
  return new AIMessage({
    content: contentWithCalls(ai, toolCalls),
    id: ai.id,
    name: ai.name,
    response_metadata: ai.response_metadata,
    usage_metadata: ai.usage_metadata,
    ...(additionalKwargs ? { additional_kwargs: additionalKwargs } : {}),
    tool_calls: toolCalls,
  });
}
