import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Command, MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { MemoryAuditSink } from "../src/audit/memory.js";
import type { ApprovalRequest } from "../src/guard/approval.js";
import type { GuardOptions } from "../src/guard/options.js";
import { guardMiddleware } from "../src/middleware/index.js";
import { ExecutionLog, k8sTools, prodProtected } from "./helpers/guard-fixtures.js";

type FakeModel = ReturnType<typeof fakeModel>;

function toolMessages(messages: BaseMessage[]): ToolMessage[] {
  return messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
}

function expectNoOrphans(messages: BaseMessage[]) {
  const answers = toolMessages(messages).map((m) => m.tool_call_id);
  const calls = messages.flatMap((m) => (AIMessage.isInstance(m) ? (m.tool_calls ?? []).map((c) => c.id) : []));
  expect([...answers].sort()).toEqual([...calls].sort());
}

const thread = (id: string) => ({ configurable: { thread_id: id } });

function k8sAgent(model: FakeModel, extra: Partial<GuardOptions> = {}) {
  const log = new ExecutionLog();
  const audit = new MemoryAuditSink();
  const agent = createAgent({
    model,
    middleware: [guardMiddleware({ tools: k8sTools(log), permissions: prodProtected, audit, ...extra })],
    checkpointer: new MemorySaver(),
  });
  return { agent, log, audit };
}

describe("guardMiddleware: smoke", () => {
  it("allows a low-risk call", async () => {
    const model = fakeModel()
      .respondWithTools([{ name: "kubectl_get", args: { resource: "pods" }, id: "c1" }])
      .respond(new AIMessage("two pods"));
    const { agent, log } = k8sAgent(model);
    const out = await agent.invoke({ messages: [new HumanMessage("list pods")] }, thread("allow"));
    console.log(out.messages.map((m) => `${m.getType()}: ${JSON.stringify(m.content)}`));
    expect(log.names()).toEqual(["kubectl_get"]);
    expectNoOrphans(out.messages);
  });
});
