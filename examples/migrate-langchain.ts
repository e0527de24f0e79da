// Migrating from humanInTheLoopMiddleware + toolCallLimitMiddleware to guardMiddleware.
//
// Before (LangChain v1):
//   createAgent({ model, tools: [search, deploy], middleware: [
//     humanInTheLoopMiddleware({ interruptOn: { deploy: true } }),
//     toolCallLimitMiddleware({ runLimit: 3, exitBehavior: "end" }),
//     toolCallLimitMiddleware({ toolName: "search", threadLimit: 5 }),
//   ] })
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { fileURLToPath } from "node:url";
import { Command, MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { z } from "zod";
import { defineTool, pendingApproval, type ToolRule } from "guarded-graph";
import { guardMiddleware } from "guarded-graph/middleware";

const search = defineTool({
  name: "search",
  description: "Search the docs",
  schema: z.object({ query: z.string() }),
  risk: "low", // runs without asking
  execute: ({ query }) => `results for ${query}`,
});

const deploy = defineTool({
  name: "deploy",
  description: "Deploy a service",
  schema: z.object({ service: z.string() }),
  risk: "high", // interruptOn: { deploy: true } — high risk asks a human by default
  execute: ({ service }) => `deployed ${service}`,
});

export const limits: ToolRule[] = [
  // toolCallLimitMiddleware({ runLimit: 3, exitBehavior: "end" }): all tools together, per run.
  { type: "MaxTotalCalls", tool: "*", max: 3, exitBehavior: "end" },
  // toolCallLimitMiddleware({ toolName: "search", threadLimit: 5 }): one tool, per thread.
  { type: "MaxCalls", tool: "search", max: 5, scope: "thread" },
];

export function createMigratedAgent(model: BaseChatModel) {
  return createAgent({
    model,
    middleware: [guardMiddleware({ tools: [search, deploy], rules: limits })],
    checkpointer: new MemorySaver(),
  });
}

/** One request; every approval is answered with `decide` (the same resume shape as LangChain's HITL). */
export async function runMigrated(model: BaseChatModel, text: string, decide: "approve" | "reject") {
  const agent = createMigratedAgent(model);
  const config = { configurable: { thread_id: "migrate-langchain" } };
  let result = await agent.invoke({ messages: [new HumanMessage(text)] }, config);
  for (let request = pendingApproval(result); request; request = pendingApproval(result)) {
    const decisions = request.actionRequests.map(() => ({ type: decide }));
    result = await agent.invoke(new Command({ resume: { decisions } }), config);
  }
  return result.messages;
}

/** A scripted model that searches twice, deploys, then searches again past the run limit. */
export function scriptedModel() {
  return fakeModel()
    .respondWithTools([{ name: "search", args: { query: "a" }, id: "s1" }, { name: "search", args: { query: "b" }, id: "s2" }])
    .respondWithTools([{ name: "deploy", args: { service: "web" }, id: "d1" }])
    .respondWithTools([{ name: "search", args: { query: "c" }, id: "s3" }])
    .respond(new AIMessage("not reached"));
}

// Run directly: the scripted model's deploy is approved, its last search hits the run limit.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const messages = await runMigrated(scriptedModel(), "ship it", "approve");
  for (const message of messages) if (message.getType() === "tool") console.log(`tool: ${message.text}`);
  console.log(`last: ${messages.at(-1)?.text}`);
}
