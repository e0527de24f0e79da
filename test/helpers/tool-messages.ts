import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";

/** ToolMessages as `id=content`, in thread order. */
export const answers = (messages: readonly BaseMessage[]): string[] => messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => `${m.tool_call_id}=${String(m.content)}`);

/**
 * What a provider would refuse in `messages`: a call of an AI message without exactly one ToolMessage after it
 * (`id:count`), and a ToolMessage there that answers no call of it (`stray:id`). Empty when every call has one answer.
 */
export function oneAnswerPerCall(messages: readonly BaseMessage[]): string[] {
  const problems: string[] = [];
  messages.forEach((m, i) => {
    if (!AIMessage.isInstance(m)) return;
    const next = messages.findIndex((n, j) => j > i && !ToolMessage.isInstance(n));
    const tail = messages.slice(i + 1, next < 0 ? undefined : next).filter((n): n is ToolMessage => ToolMessage.isInstance(n));
    for (const call of m.tool_calls ?? []) {
      const count = tail.filter((t) => t.tool_call_id === call.id).length;
      if (count !== 1) problems.push(`${call.id}:${count}`);
    }
    const ids = new Set((m.tool_calls ?? []).map((c) => c.id));
    for (const t of tail) if (!ids.has(t.tool_call_id)) problems.push(`stray:${t.tool_call_id}`);
  });
  return problems;
}
