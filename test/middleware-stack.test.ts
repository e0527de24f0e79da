// guardMiddleware stacked with LangChain's own middleware in one createAgent, in either order. LangChain
// runs afterModel hooks from the last middleware of the list to the first: with the guard listed
// first, toolCallLimitMiddleware's afterModel answers the calls over its limit before the guard's
// review. The guard took those ToolMessages for a client's state update while an approval waited and
// refused every call of the turn "approval:superseded: new input arrived while this turn waited for a
// human's approval" (no approval had been asked); the call within the limit never ran.
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Command, MemorySaver } from "@langchain/langgraph";
import { createAgent, modelCallLimitMiddleware, toolCallLimitMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { pendingApproval } from "../src/guard/approval/payload.js";
import { guardMiddleware } from "../src/middleware/index.js";
import { defineTool } from "../src/tools/define-tool.js";
import { expectNoOrphans } from "./helpers/middleware-fixtures.js";

function deployTool(ran: string[], risk: "low" | "high") {
  return defineTool({ name: "deploy", description: "Deploy a service", schema: z.object({ service: z.string() }), risk, execute: ({ service }) => (ran.push(service), `deployed ${service}`) });
}

const byCall = (messages: BaseMessage[]) => Object.fromEntries(messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => [m.tool_call_id, String(m.content)]));

const ORDERS = ["guard first", "guard last"] as const;

describe.each(ORDERS)("toolCallLimitMiddleware with the %s", (order) => {
  function agent(risk: "low" | "high", ran: string[]) {
    const model = fakeModel()
      .respondWithTools([{ name: "deploy", args: { service: "web" }, id: "c1" }, { name: "deploy", args: { service: "db" }, id: "c2" }])
      .respond(new AIMessage("done"));
    const guard = guardMiddleware({ tools: [deployTool(ran, risk)] });
    const limit = toolCallLimitMiddleware({ runLimit: 1 });
    return createAgent({ model, middleware: order === "guard first" ? [guard, limit] : [limit, guard], checkpointer: new MemorySaver() });
  }

  it("the call within the limit runs; the one over it gets the limit's answer, once", async () => {
    const ran: string[] = [];
    const out = await agent("low", ran).invoke({ messages: [new HumanMessage("deploy both")] }, { configurable: { thread_id: `limit-${order}` } });
    expect(ran).toEqual(["web"]);
    const texts = byCall(out.messages);
    expect(texts.c1).toBe("deployed web");
    expect(texts.c2).toMatch(/limit/i);
    expect(texts.c2).not.toMatch(/superseded|approval/);
    expectNoOrphans(out.messages);
    expect(String(out.messages.at(-1)?.content)).toBe("done");
  });

  it("with an approval: asked about the call the limit let through (and no more), approved, it runs", async () => {
    const ran: string[] = [];
    const graph = agent("high", ran);
    const config = { configurable: { thread_id: `limit-approval-${order}` } };
    const first = await graph.invoke({ messages: [new HumanMessage("deploy both")] }, config);
    const asked = pendingApproval(first)?.actionRequests.map((a) => a.toolCallId) ?? [];
    // Listed first, the guard reviews after the limit answered c2; listed last, before (and c2 is asked about, then blocked by the limit).
    expect(asked).toEqual(order === "guard first" ? ["c1"] : ["c1", "c2"]);
    const out = await graph.invoke(new Command({ resume: { decisions: asked.map(() => ({ type: "approve" })) } }), config);
    expect(ran).toEqual(["web"]);
    const texts = byCall(out.messages);
    expect(texts.c1).toBe("deployed web");
    expect(texts.c2).toMatch(/limit/i);
    expectNoOrphans(out.messages);
  });
});

describe.each(ORDERS)("modelCallLimitMiddleware with the %s", (order) => {
  it("the run ends at the model limit with every call of the turn answered once", async () => {
    const ran: string[] = [];
    const model = fakeModel()
      .respondWithTools([{ name: "deploy", args: { service: "web" }, id: "c1" }])
      .respondWithTools([{ name: "deploy", args: { service: "db" }, id: "c2" }])
      .respond(new AIMessage("done"));
    const guard = guardMiddleware({ tools: [deployTool(ran, "low")] });
    const limit = modelCallLimitMiddleware({ runLimit: 1, exitBehavior: "end" });
    const graph = createAgent({ model, middleware: order === "guard first" ? [guard, limit] : [limit, guard], checkpointer: new MemorySaver() });
    const out = await graph.invoke({ messages: [new HumanMessage("deploy")] }, { configurable: { thread_id: `model-limit-${order}` } });
    expect(ran).toEqual(["web"]);
    expectNoOrphans(out.messages);
    expect(model.callCount).toBe(1);
  });
});
