import { HumanMessage, ToolMessage, type AIMessage, type BaseMessage } from "@langchain/core/messages";
import { createDevopsTools, createSandbox } from "../graphs/tools/devops.js";
import { createModel } from "guarded-graph";

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
    const tool = tools.find((t) => t.name === call.name)!;
    messages.push(new ToolMessage({ tool_call_id: call.id!, content: String(await tool.invoke(call.args)) }));
  }
  return messages;
}
