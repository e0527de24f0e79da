import { HumanMessage, ToolMessage, type AIMessage, type BaseMessage } from "@langchain/core/messages";
import { fileURLToPath } from "node:url";
import { createModel } from "guarded-graph";
import { createDevopsTools, createSandbox } from "guarded-graph/graphs";

/**
 * The model and the sandbox tools, with no guard in between: with no OPENAI_API_KEY or
 * OPENAI_BASE_URL, `createModel` plays the scripted DevOps demo offline.
 */
export async function offlineModelExample(env: Record<string, string | undefined> = {}) {
  const sandbox = createSandbox(); // a fake cluster + virtual filesystem; never the real machine
  const tools = createDevopsTools(sandbox);
  const model = (await createModel({ env, scenario: "devops-demo" })).bindTools!(tools);

  const messages: BaseMessage[] = [new HumanMessage("Tidy up the cluster")];
  const reply = (await model.invoke(messages)) as AIMessage;
  messages.push(reply);
  for (const call of reply.tool_calls ?? []) {
    const tool = tools.find((t: { name: string }) => t.name === call.name)!;
    messages.push(new ToolMessage({ tool_call_id: call.id!, content: String(await tool.invoke(call.args)) }));
  }
  return messages;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const message of await offlineModelExample()) console.log(`${message.getType()}: ${message.text || JSON.stringify((message as AIMessage).tool_calls)}`);
}
