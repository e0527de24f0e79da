import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BaseChatModelParams,
  type BindToolsInput,
  type ToolChoice,
} from "@langchain/core/language_models/chat_models";
import { AIMessage, type AIMessageChunk, type BaseMessage, type ToolCall } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { parseScenario, type PlainTurn, type Scenario, type ScenarioInput, type TurnCondition } from "./scenario.js";

/** A tool definition as the scripted model received it from `bindTools`, in OpenAI function form. */
interface BoundToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** One model invocation, recorded for tests and demos. */
export interface ScriptedCall {
  messages: BaseMessage[];
  tools: BoundToolDefinition[];
  toolChoice: ToolChoice | undefined;
  /** Scripted turn played, or undefined when the call was forced by `tool_choice` or the script had ended. */
  turn: number | undefined;
}

interface ScriptedChatModelCallOptions extends BaseChatModelCallOptions {
  tool_choice?: ToolChoice;
}

export interface ScriptedChatModelFields extends BaseChatModelParams {
  scenario: Scenario | ScenarioInput;
  /** Text answered once the script has no turns left. */
  finishedText?: string;
}

/** Marker in `response_metadata` of every message this model produces. */
const TURN_KEY = "scripted_turn";

function textOf(message: BaseMessage): string {
  return typeof message.content === "string" ? message.content : message.text;
}

function toDefinition(tool: BindToolsInput): BoundToolDefinition {
  const converted = convertToOpenAITool(tool as Parameters<typeof convertToOpenAITool>[0]);
  return {
    name: converted.function.name,
    description: converted.function.description ?? "",
    parameters: (converted.function.parameters ?? {}) as Record<string, unknown>,
  };
}

/** The tool that `tool_choice` forces: a name, "any"/"required" (some tool), or undefined. */
function forcedBy(toolChoice: ToolChoice | undefined): { name: string } | "any" | undefined {
  if (toolChoice === undefined || toolChoice === "auto" || toolChoice === "none") return undefined;
  if (toolChoice === "any" || toolChoice === "required") return "any";
  if (typeof toolChoice === "string") return { name: toolChoice };
  const named = toolChoice as { name?: unknown; function?: { name?: unknown } };
  const name = named.function?.name ?? named.name;
  return typeof name === "string" ? { name } : undefined;
}

/**
 * A chat model that plays a scenario, so the demo and tests run offline without a key. It picks its
 * next turn from the conversation it receives (the turns it already played carry a marker), never
 * from an internal counter: re-running the model node from a checkpoint gives the same answer,
 * with the same message and tool call ids (`call_<turn>_<index>`).
 */
export class ScriptedChatModel extends BaseChatModel<ScriptedChatModelCallOptions, AIMessageChunk> {
  readonly scenario: Scenario;
  readonly finishedText: string;
  /** Tools given to `bindTools`, in OpenAI function form. */
  readonly boundTools: BoundToolDefinition[];
  readonly toolChoice: ToolChoice | undefined;
  readonly #calls: ScriptedCall[];

  constructor(fields: ScriptedChatModelFields, bound?: { tools: BoundToolDefinition[]; toolChoice: ToolChoice | undefined; calls: ScriptedCall[] }) {
    super(fields);
    this.scenario = parseScenario(fields.scenario);
    this.finishedText = fields.finishedText ?? `Scenario "${this.scenario.name}" is finished.`;
    this.boundTools = bound?.tools ?? [];
    this.toolChoice = bound?.toolChoice;
    this.#calls = bound?.calls ?? [];
  }

  /** Every invocation of this model and of the models `bindTools` derived from it. */
  get calls(): readonly ScriptedCall[] {
    return this.#calls;
  }

  _llmType(): string {
    return "scripted";
  }

  override bindTools(
    tools: BindToolsInput[],
    kwargs?: Partial<ScriptedChatModelCallOptions>,
  ): Runnable<BaseLanguageModelInput, AIMessageChunk, ScriptedChatModelCallOptions> {
    return new ScriptedChatModel(
      { scenario: this.scenario, finishedText: this.finishedText },
      { tools: tools.map(toDefinition), toolChoice: kwargs?.tool_choice ?? this.toolChoice, calls: this.#calls },
    ) as unknown as Runnable<BaseLanguageModelInput, AIMessageChunk, ScriptedChatModelCallOptions>;
  }

  /** The scripted turn the conversation has reached: one past the last turn this model played. */
  static nextTurn(messages: readonly BaseMessage[]): number {
    let next = 0;
    for (const message of messages) {
      if (message.type !== "ai") continue;
      const turn = (message.response_metadata as Record<string, unknown> | undefined)?.[TURN_KEY];
      if (typeof turn === "number" && turn + 1 > next) next = turn + 1;
    }
    return next;
  }

  #matches(condition: TurnCondition, messages: readonly BaseMessage[]): boolean {
    const lastAi = messages.findLastIndex((message) => message.type === "ai");
    if (condition.lastToolResultContains !== undefined) {
      const results = messages.slice(lastAi + 1).filter((message) => message.type === "tool");
      const needle = condition.lastToolResultContains.toLowerCase();
      if (!results.some((message) => textOf(message).toLowerCase().includes(needle))) return false;
    }
    if (condition.lastHumanMessageContains !== undefined) {
      const human = messages.findLast((message) => message.type === "human");
      const needle = condition.lastHumanMessageContains.toLowerCase();
      if (!human || !textOf(human).toLowerCase().includes(needle)) return false;
    }
    return true;
  }

  /** The turn to play from `index`: a conditional turn without `else` whose condition fails is skipped. */
  #turnFrom(index: number, messages: readonly BaseMessage[]): { index: number; turn: PlainTurn } | undefined {
    for (let at = index; at < this.scenario.turns.length; at++) {
      const turn = this.scenario.turns[at];
      if (turn === undefined) break;
      if (!("when" in turn)) return { index: at, turn };
      if (this.#matches(turn.when, messages)) return { index: at, turn: turn.then };
      if (turn.else) return { index: at, turn: turn.else };
    }
    return undefined;
  }

  #forcedMessage(name: string, aiCount: number): AIMessage {
    const id = `call_f${aiCount}_0`;
    return new AIMessage({
      id: `scripted-${this.scenario.name}-forced-${aiCount}`,
      content: "",
      tool_calls: [{ id, name, args: structuredClone(this.scenario.forced?.[name] ?? {}), type: "tool_call" }],
      response_metadata: { model_provider: "scripted", forced: true },
    });
  }

  async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    _runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    const toolChoice = options.tool_choice ?? this.toolChoice;
    const next = this.#turnFrom(ScriptedChatModel.nextTurn(messages), messages);
    const turn = next?.turn;
    const index = next?.index ?? -1;
    const aiCount = messages.filter((message) => message.type === "ai").length;
    const forced = forcedBy(toolChoice);
    const calls = turn && "tool_calls" in turn ? turn.tool_calls : [];
    let message: AIMessage;
    let played: number | undefined = index;
    const forcedName =
      forced === "any"
        ? calls.length > 0
          ? undefined
          : (this.boundTools.find((tool) => this.scenario.forced?.[tool.name] !== undefined) ?? this.boundTools[0])?.name
        : forced !== undefined && !calls.some((call) => call.name === forced.name)
          ? forced.name
          : undefined;
    if (forcedName !== undefined) {
      message = this.#forcedMessage(forcedName, aiCount);
      played = undefined;
    } else if (turn === undefined) {
      message = new AIMessage({
        id: `scripted-${this.scenario.name}-end-${aiCount}`,
        content: this.finishedText,
        response_metadata: { model_provider: "scripted" },
      });
      played = undefined;
    } else {
      const toolCalls: ToolCall[] = calls.map((call, i) => ({
        id: `call_${index}_${i}`,
        name: call.name,
        args: structuredClone(call.args),
        type: "tool_call",
      }));
      message = new AIMessage({
        id: `scripted-${this.scenario.name}-${index}`,
        content: turn.text ?? "",
        tool_calls: toolCalls,
        response_metadata: { model_provider: "scripted", [TURN_KEY]: index },
      });
    }
    this.#calls.push({ messages: [...messages], tools: this.boundTools, toolChoice, turn: played });
    return { generations: [{ text: textOf(message), message }] };
  }
}
