// A guarded agent in a few lines: typed tools, permission rules, tool rules, one approval.
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Command, MemorySaver } from "@langchain/langgraph";
import { createGuardedAgent, defineTool, MemoryAuditSink, pendingApproval, PermissionPolicy } from "guarded-graph";
import { fileURLToPath } from "node:url";
import { z } from "zod";

const deployments = new Map([["web", 3], ["db", 1]]);

const kubectl = defineTool({
  name: "kubectl",
  description: "Inspect or change deployments",
  schema: z.discriminatedUnion("operation", [
    z.object({ operation: z.literal("get"), namespace: z.string() }),
    z.object({ operation: z.literal("scale"), namespace: z.string(), name: z.string(), replicas: z.number().int() }),
    z.object({ operation: z.literal("delete"), namespace: z.string(), name: z.string() }),
  ]),
  operationRisk: { get: "low", scale: "medium", delete: "high" },
  isConcurrencySafe: (input) => input.operation === "get",
  execute: (input) => {
    if (input.operation === "get") return JSON.stringify(Object.fromEntries(deployments));
    if (input.operation === "scale") deployments.set(input.name, input.replicas);
    else deployments.delete(input.name);
    return `${input.operation} ${input.name}: ok`;
  },
});

const permissions = new PermissionPolicy([
  { id: "prod", tool: "kubectl", where: { namespace: { equals: "production" }, operation: { in: ["scale", "delete"] } }, mode: "deny", reason: "production is protected" },
]);

// The model is scripted here; use ChatOpenAI or any LangChain chat model instead.
const model = fakeModel()
  .respondWithTools([
    { name: "kubectl", args: { operation: "get", namespace: "staging" }, id: "call_get" },
    { name: "kubectl", args: { operation: "delete", namespace: "production", name: "db" }, id: "call_prod" },
    { name: "kubectl", args: { operation: "delete", namespace: "staging", name: "web" }, id: "call_staging" },
  ])
  .respond(new AIMessage("Deleted web in staging; production is protected."));

export async function quickstart() {
  const audit = new MemoryAuditSink();
  const agent = createGuardedAgent({
    model,
    tools: [kubectl],
    permissions,
    rules: [{ tool: "kubectl", type: "MaxCalls", max: 5 }],
    audit,
    checkpointer: new MemorySaver(),
  });
  const config = { configurable: { thread_id: "quickstart" } };

  // Runs until the high-risk delete in staging needs a human: one interrupt for the whole turn.
  const paused = await agent.invoke({ messages: [new HumanMessage("clean up web")] }, config);
  const pending = (pendingApproval(paused)?.actionRequests ?? []).map((a) => `${a.toolCallId}: ${a.description}`);

  // Approve it (decisions in order, or keyed by tool call id).
  const done = await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), config);
  const decisions = (await audit.query({ threadId: "quickstart" }))
    .filter((r) => r.event !== "outcome")
    .map((r) => `${r.toolCallId} ${r.decision} (${r.ruleId})`);
  return { pending, answer: String(done.messages.at(-1)?.content), decisions, deployments: Object.fromEntries(deployments) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(await quickstart());
