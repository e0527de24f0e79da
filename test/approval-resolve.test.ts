// "Mark as Resolved" in Agent Chat UI sends `{ goto: "__end__" }` as a command without a resume.
// What happens is pinned here, as docs/approvals.md describes it: the waiting calls are neither run
// nor refused, the thread asks again (same calls, a new interrupt id); new input then ends them as
// refusals (approval:superseded), each answered by one ToolMessage.
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Command, END, MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryAuditSink } from "../src/audit/memory.js";
import { pendingApproval } from "../src/guard/approval/payload.js";
import { createGuardedAgent } from "../src/guard/agent.js";
import { Guard } from "../src/guard/guard.js";
import { guardMiddleware } from "../src/middleware/index.js";
import { defineTool } from "../src/tools/define-tool.js";

interface Out {
  messages: BaseMessage[];
  __interrupt__?: { id: string; value: unknown }[];
}
interface Invokable {
  invoke(input: unknown, config: unknown): Promise<Out>;
}

function setup() {
  const ran: string[] = [];
  const audit = new MemoryAuditSink();
  const scale = defineTool({ name: "scale", description: "Scale", schema: z.object({ name: z.string() }), risk: "high", execute: ({ name }) => { ran.push(name); return "scaled"; } });
  const guard = new Guard({ tools: [scale], audit });
  const model = fakeModel()
    .respondWithTools([{ name: "scale", args: { name: "api" }, id: "s1" }, { name: "scale", args: { name: "db" }, id: "s2" }])
    .respond(new AIMessage("understood, nothing was scaled"));
  return { ran, audit, guard, model };
}

async function resolveThenType(graph: Invokable, id: string, ran: string[], audit: MemoryAuditSink) {
  const config = { configurable: { thread_id: id } };
  const first = await graph.invoke({ messages: [new HumanMessage("scale api and db")] }, config);
  const asked = pendingApproval(first)?.actionRequests.map((a) => a.toolCallId);
  expect(asked).toEqual(["s1", "s2"]);

  // "Mark as Resolved": nothing runs, nothing is answered, nothing is audited, the same calls are asked for again.
  const audited = (await audit.query({})).length;
  const resolved = await graph.invoke(new Command({ goto: END }), config);
  expect(ran).toEqual([]);
  expect((await audit.query({})).length).toBe(audited);
  expect(resolved.messages.filter((m) => ToolMessage.isInstance(m))).toEqual([]);
  expect(pendingApproval(resolved)?.actionRequests.map((a) => a.toolCallId)).toEqual(["s1", "s2"]);
  expect(resolved.__interrupt__?.[0]?.id).not.toBe(first.__interrupt__?.[0]?.id);

  // New input ends the waiting calls as refusals, each answered once; the model answers the input.
  const next = await graph.invoke({ messages: [new HumanMessage("never mind")] }, config);
  expect(ran).toEqual([]);
  const answers = next.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
  expect(answers.map((m) => [m.tool_call_id, m.status])).toEqual([["s1", "error"], ["s2", "error"]]);
  for (const m of answers) expect(String(m.content)).toMatch(/^Refused scale by rule approval:superseded: new input arrived while this turn waited for a human's approval/);
  expect(next.messages.at(-1)?.content).toBe("understood, nothing was scaled");
  const superseded = (await audit.query({})).filter((r) => r.ruleId === "approval:superseded");
  expect(superseded.map((r) => [r.toolCallId, r.decision])).toEqual([["s1", "deny"], ["s2", "deny"]]);
}

describe("Agent Chat UI's \"Mark as Resolved\" ({ goto: \"__end__\" }) while calls wait for approval", () => {
  it("createGuardedAgent", async () => {
    const { ran, audit, guard, model } = setup();
    const graph = createGuardedAgent({ model, guard, checkpointer: new MemorySaver() });
    await resolveThenType(graph as unknown as Invokable, "resolve-agent", ran, audit);
  });

  it("guardMiddleware", async () => {
    const { ran, audit, guard, model } = setup();
    const agent = createAgent({ model, middleware: [guardMiddleware({ guard })], checkpointer: new MemorySaver() });
    await resolveThenType(agent as unknown as Invokable, "resolve-mw", ran, audit);
  });
});
