import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { HumanMessage } from "@langchain/core/messages";
import { Command, MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { defineTool } from "guarded-graph";
import { guardMiddleware, type ApprovalRequest } from "guarded-graph/middleware";
import { ScriptedChatModel } from "guarded-graph/testing";

const getPods = defineTool({
  name: "get_pods",
  description: "List the pods of a namespace",
  schema: z.object({ namespace: z.string() }),
  risk: "low",
  execute: ({ namespace }) => `pods in ${namespace}: web-1, web-2`,
});

const deleteDeployment = defineTool({
  name: "delete_deployment",
  description: "Delete a deployment",
  schema: z.object({ namespace: z.string(), name: z.string() }),
  risk: "high", // asks a human by default
  execute: ({ namespace, name }) => `deleted ${namespace}/${name}`,
});

export function createOpsAgent(model: BaseChatModel) {
  return createAgent({
    model,
    systemPrompt: "You operate a Kubernetes cluster.",
    // The guard registers its tools with the agent; keep it last in the list.
    middleware: [
      guardMiddleware({
        tools: [getPods, deleteDeployment],
        rules: [
          { tool: "delete_deployment", type: "MustFollow", conditions: ["get_pods"] },
          { tool: "delete_deployment", type: "MaxCalls", max: 1 },
        ],
      }),
    ],
    checkpointer: new MemorySaver(),
  });
}

/** Runs one user request, asking `review` about every approval interrupt until the agent finishes. */
export async function runWithReview(
  agent: ReturnType<typeof createOpsAgent>,
  threadId: string,
  text: string,
  review: (request: ApprovalRequest) => "approve" | "reject",
) {
  const config = { configurable: { thread_id: threadId } };
  let result = await agent.invoke({ messages: [new HumanMessage(text)] }, config);
  for (;;) {
    const pending = (result as { __interrupt__?: { value: ApprovalRequest }[] }).__interrupt__?.[0];
    if (!pending) return result;
    const decision = review(pending.value);
    const decisions = pending.value.actionRequests.map(() => ({ type: decision }));
    result = await agent.invoke(new Command({ resume: { decisions } }), config);
  }
}

// Run directly: a scripted model lists the pods, then deletes a deployment; the delete asks and is approved.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const model = new ScriptedChatModel({
    scenario: {
      name: "middleware-example",
      turns: [
        { tool_calls: [{ name: "get_pods", args: { namespace: "staging" } }] },
        { tool_calls: [{ name: "delete_deployment", args: { namespace: "staging", name: "web" } }] },
        { text: "Deleted staging/web." },
      ],
    },
  });
  const result = await runWithReview(createOpsAgent(model), "example", "Remove web from staging", (request) => {
    console.log(`asked: ${request.actionRequests.map((a) => a.description).join("; ")}`);
    return "approve";
  });
  for (const message of result.messages) console.log(`${message.getType()}: ${message.text}`);
}
