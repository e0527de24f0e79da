// examples/cli-sdk-approval.ts — the LangGraph SDK against `langgraph dev` (or a deployment):
// run the DevOps graph into its approval interrupt, read it from the thread state, answer it.
import { Client } from "@langchain/langgraph-sdk";

// apiKey: one of the server's keys (GUARDED_GRAPH_API_KEYS); the SDK sends it as x-api-key.
export async function approveThroughSdk(apiUrl: string, apiKey: string) {
  const client = new Client({ apiUrl, apiKey });
  const thread = await client.threads.create();
  await client.runs.wait(thread.thread_id, "devops", {
    input: { messages: [{ type: "human", content: "Tidy up the cluster" }] },
  });

  // The run stopped at the guard's interrupt: one request covering every call that asks.
  const state = await client.threads.getState(thread.thread_id);
  const request = state.tasks.flatMap((task) => task.interrupts ?? [])[0]?.value as {
    type: "guarded-graph/approval";
    actionRequests: { name: string; args: Record<string, unknown>; toolCallId: string; risk: string; ruleId: string }[];
  };

  // One decision per pending call (approve | edit | reject), keyed by tool call id.
  const decisions = Object.fromEntries(request.actionRequests.map((call) => [call.toolCallId, { type: "approve" }]));
  await client.runs.wait(thread.thread_id, "devops", { command: { resume: { decisions, actor: "sdk-example" } } });

  const final = await client.threads.getState(thread.thread_id);
  return { threadId: thread.thread_id, pending: request.actionRequests, next: final.next, values: final.values };
}
