import type { BaseMessage } from "@langchain/core/messages";
import { HumanMessage } from "@langchain/core/messages";
import { Command, MemorySaver } from "@langchain/langgraph";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createDevopsTools, createSandbox } from "../graphs/tools/devops.js";
import { createGuardedAgent } from "../src/guard/agent.js";
import { guardFromPolicy, type PolicyGuard } from "../src/guard/from-policy.js";
import { createModel } from "../src/model/index.js";

const DEVOPS_POLICY = fileURLToPath(new URL("../policies/devops.yaml", import.meta.url));
const opened: PolicyGuard[] = [];
afterEach(async () => {
  for (const guard of opened.splice(0)) await guard.close();
});

async function playDemo(decision: { type: "approve" } | { type: "reject"; message: string }) {
  const sandbox = createSandbox();
  const policyGuard = await guardFromPolicy(DEVOPS_POLICY, { tools: createDevopsTools(sandbox) });
  opened.push(policyGuard);
  const graph = createGuardedAgent({
    model: await createModel({ env: {}, scenario: "devops-demo" }),
    guard: policyGuard.guard,
    tools: [],
    checkpointer: new MemorySaver(),
  });
  const config = { configurable: { thread_id: "demo" } };
  const first = await graph.invoke({ messages: [new HumanMessage("Tidy up the cluster")] }, config);
  const interrupt = (first as { __interrupt__?: { value: { actionRequests: { name: string; args: unknown }[] } }[] }).__interrupt__;
  const out = await graph.invoke(new Command({ resume: { decisions: [decision] } }), config);
  return { sandbox, asked: interrupt?.[0]?.value.actionRequests ?? [], messages: out.messages as BaseMessage[] };
}

describe("scenarios/devops-demo.yaml through the guarded agent and policies/devops.yaml", () => {
  it("reads, is refused in production, asks for staging, and summarises the approved delete", async () => {
    const { sandbox, asked, messages } = await playDemo({ type: "approve" });
    expect(asked).toEqual([
      expect.objectContaining({ name: "kubectl_delete", args: { resource: "deployment", name: "worker", namespace: "staging" } }),
    ]);
    const tools = messages.filter((m) => m.type === "tool").map((m) => m.text);
    expect(tools[0]).toMatch(/^NAME\s+READY/);
    expect(tools[1]).toMatch(/refused/i);
    expect(tools[2]).toBe('deployment.apps "worker" deleted');
    expect(messages.at(-1)?.text).toMatch(/worker deployment was deleted after approval/);
    expect(sandbox.snapshot().namespaces.production?.deployments.api).toBeDefined();
    expect(sandbox.snapshot().namespaces.staging?.deployments.worker).toBeUndefined();
  });

  it("summarises a rejected staging delete without changing the cluster", async () => {
    const { sandbox, messages } = await playDemo({ type: "reject", message: "not today" });
    expect(messages.at(-1)?.text).toMatch(/was not approved, so nothing changed/);
    expect(sandbox.snapshot().namespaces.staging?.deployments.worker).toBeDefined();
  });
});
