import { AIMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";

/** The last AI message of `messages`, if any. */
export function lastAIMessage(messages: readonly BaseMessage[]): AIMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i];
    if (message && AIMessage.isInstance(message)) return message;
  }
  return undefined;
}
