// One guard from a policy file, used by every entry point: createGuardedAgent, GuardedToolNode, guardMiddleware.
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { createGuardedAgent, guardFromPolicy, GuardedToolNode } from "guarded-graph";
import { createDevopsTools, DEVOPS_POLICY } from "guarded-graph/graphs";
import { guardMiddleware } from "guarded-graph/middleware";
import { fileURLToPath } from "node:url";

// The model is scripted here; use ChatOpenAI or any LangChain chat model instead.
const scripted = () =>
  fakeModel()
    .respondWithTools([
      { name: "kubectl_get", args: { resource: "pods", namespace: "staging" }, id: "call_get" },
      { name: "kubectl_delete", args: { resource: "pod", name: "web-1", namespace: "production" }, id: "call_prod" },
    ])
    .respond(new AIMessage("Listed staging; production is protected."));

export async function guardFromPolicyExample(log: (line: string) => void = console.log) {
  // Audit sink, killswitch, permission and tool rules, all from the file (DEVOPS_POLICY: the bundled
  // policies/devops.yaml; use your own file path). Await it: it reads the file and checks it against the tools.
  const policyGuard = await guardFromPolicy(DEVOPS_POLICY, { tools: createDevopsTools() });
  try {
    // What guardFromPolicy returns is accepted wherever a guard is (so is its `.guard`).
    const agent = createGuardedAgent({ model: scripted(), guard: policyGuard, checkpointer: new MemorySaver() });
    const node = new GuardedToolNode(policyGuard); // in your own StateGraph
    const middleware = createAgent({ model: scripted(), middleware: [guardMiddleware({ guard: policyGuard })], checkpointer: new MemorySaver() });

    const out = await agent.invoke({ messages: [new HumanMessage("look at staging, clean production")] }, { configurable: { thread_id: "from-policy" } });
    for (const m of out.messages) if (m.getType() === "tool") log(`agent tool: ${String(m.content)}`);
    const viaMiddleware = await middleware.invoke({ messages: [new HumanMessage("same again")] }, { configurable: { thread_id: "from-policy-mw" } });
    log(`middleware: ${String(viaMiddleware.messages.at(-1)?.content)}`);
    return { answer: String(out.messages.at(-1)?.content), nodeGuard: node.guard === policyGuard.guard };
  } finally {
    await policyGuard.close(); // releases the killswitch and closes an audit sink the file opened
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(await guardFromPolicyExample());
