import type { StructuredToolInterface } from "@langchain/core/tools";

/** Invokes a tool as the model would (a tool call), returning the ToolMessage text. Throws on tool errors. */
export async function callTool(tool: StructuredToolInterface, args: Record<string, unknown>, id = `call_${Math.random().toString(36).slice(2)}`): Promise<string> {
  const message = (await tool.invoke({ id, name: tool.name, args, type: "tool_call" })) as { content: unknown };
  return typeof message.content === "string" ? message.content : JSON.stringify(message.content);
}

export async function callToolJson<T = Record<string, unknown>>(tool: StructuredToolInterface, args: Record<string, unknown>): Promise<T> {
  return JSON.parse(await callTool(tool, args)) as T;
}
