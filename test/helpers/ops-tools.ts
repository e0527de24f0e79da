import { ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { z } from "zod";
import { defineTool } from "../../src/tools/define-tool.js";

/** A small ops agent's read tool (low risk, concurrency-safe); `ran` records what really ran. */
export function readFileTool(ran: string[]) {
  return defineTool({
    name: "read_file",
    description: "Read a file",
    schema: z.object({ path: z.string() }),
    risk: "low",
    isConcurrencySafe: () => true,
    execute: ({ path }) => {
      ran.push(`read ${path}`);
      return `contents of ${path}`;
    },
  });
}

/** A small ops agent's deploy tool (high risk: asks a human); `ran` records what really ran, with its arguments. */
export function deployTool(ran: string[]) {
  return defineTool({
    name: "deploy",
    description: "Deploy a service",
    schema: z.object({ service: z.string(), env: z.string().default("staging") }),
    risk: "high", // asks a human
    execute: ({ service, env }) => {
      ran.push(`deploy ${service} ${env}`);
      return `deployed ${service} to ${env}`;
    },
  });
}

/** How many ToolMessages answer each tool call id. */
export function answersPerCall(messages: readonly BaseMessage[]): Record<string, number> {
  const count: Record<string, number> = {};
  for (const m of messages) if (ToolMessage.isInstance(m)) count[m.tool_call_id] = (count[m.tool_call_id] ?? 0) + 1;
  return count;
}
