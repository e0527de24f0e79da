import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { BaseChatModel, type BaseChatModelCallOptions, type BindToolsInput } from "@langchain/core/language_models/chat_models";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import { AIMessage, type AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";

export interface LoopModelFields {
  /** Model turns with tool calls per run (per user message); the next answer is final text. */
  turnsPerRun: number;
  /** Tool names called in every turn, one call each, in this order. */
  calls: readonly string[];
  /** Arguments of every call. */
  args?: Record<string, unknown>;
}

/**
 * The scripted model every contender gets: it answers from the conversation alone (AI messages since
 * the last user message), so it is stateless, replay-safe and costs the same for everyone.
 */
export class LoopModel extends BaseChatModel<BaseChatModelCallOptions, AIMessageChunk> {
  readonly turnsPerRun: number;
  readonly calls: readonly string[];
  readonly args: Record<string, unknown>;

  constructor(fields: LoopModelFields) {
    super({});
    this.turnsPerRun = fields.turnsPerRun;
    this.calls = fields.calls;
    this.args = fields.args ?? {};
  }

  _llmType(): string {
    return "bench-loop";
  }

  /** Tools are ignored: the same script plays whatever is bound. */
  override bindTools(_tools: BindToolsInput[]): Runnable<BaseLanguageModelInput, AIMessageChunk, BaseChatModelCallOptions> {
    return this as unknown as Runnable<BaseLanguageModelInput, AIMessageChunk, BaseChatModelCallOptions>;
  }

  async _generate(messages: BaseMessage[], _options: this["ParsedCallOptions"], _run?: CallbackManagerForLLMRun): Promise<ChatResult> {
    let turn = 0;
    let human = 0;
    for (let i = messages.length - 1; i >= 0; i--) {
      const type = messages[i]?.type;
      if (type === "human") {
        human = i;
        break;
      }
      if (type === "ai") turn++;
    }
    const prefix = `m${messages.length}_${human}`;
    const message =
      turn < this.turnsPerRun
        ? new AIMessage({
            id: prefix,
            content: "",
            tool_calls: this.calls.map((name, i) => ({ id: `${prefix}_${i}`, name, args: { ...this.args }, type: "tool_call" as const })),
          })
        : new AIMessage({ id: prefix, content: "done" });
    return { generations: [{ text: typeof message.content === "string" ? message.content : "", message }] };
  }
}
