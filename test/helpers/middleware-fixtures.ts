import { AIMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import type { fakeModel } from "@langchain/core/testing";
import { expect } from "vitest";
import { z } from "zod";
import { defineTool } from "../../src/tools/define-tool.js";

export type FakeModel = ReturnType<typeof fakeModel>;

export const thread = (id: string) => ({ configurable: { thread_id: id } });

export function toolMessages(messages: BaseMessage[]): ToolMessage[] {
  return messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
}

/** Every tool call of every AIMessage has exactly one ToolMessage. */
export function expectNoOrphans(messages: BaseMessage[]) {
  const answers = toolMessages(messages).map((m) => m.tool_call_id);
  const calls = messages.flatMap((m) => (AIMessage.isInstance(m) ? (m.tool_calls ?? []).map((c) => c.id) : []));
  expect([...answers].sort()).toEqual([...calls].sort());
}

export interface Binding {
  /** Tool names bound for one model call, in order. */
  names: string[];
  tools: unknown[];
  toolChoice: unknown;
}

function boundName(tool: unknown): string {
  const t = tool as { name?: unknown; function?: { name?: unknown } };
  return String(t.name ?? t.function?.name);
}

/** Records what each model call is bound with: the tools the model really sees, and tool_choice. */
export function recordBindings(model: FakeModel): Binding[] {
  const bindings: Binding[] = [];
  const original = model.bindTools.bind(model);
  model.bindTools = (tools: Parameters<FakeModel["bindTools"]>[0], kwargs?: Record<string, unknown>) => {
    bindings.push({ names: tools.map(boundName), tools: [...tools], toolChoice: kwargs?.tool_choice });
    return original(tools);
  };
  return bindings;
}

/** Tools with no arguments that record when they run. */
export function counterTool(name: string, calls: string[]) {
  return defineTool({
    name,
    description: `${name} step`,
    schema: z.object({}),
    risk: "low",
    execute: () => {
      calls.push(name);
      return `${name} ok`;
    },
  });
}
