// LangChain's humanInTheLoopMiddleware next to guardMiddleware (a team that moves tools to the guard
// one at a time keeps HITL for the rest): in either order, both ask, nothing runs before both are
// answered, each approved call runs once and a call the guard's reviewer rejects never runs.
import type { BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { Command, MemorySaver } from "@langchain/langgraph";
import { createAgent, humanInTheLoopMiddleware, toolRetryMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryAuditSink } from "../src/index.js";
import { guardMiddleware } from "../src/middleware/index.js";
import { providerModel, say, toolText } from "./helpers/provider-agent.js";

interface Asked {
  value: { actionRequests: { name: string }[] };
}

function agentWith(order: "guard-last" | "guard-first", ran: string[], refusals: string[]) {
  const a = tool(({ q }) => (ran.push(`a ${q}`), "a ok"), { name: "a_tool", description: "a", schema: z.object({ q: z.string() }) });
  const b = tool(({ q }) => (ran.push(`b ${q}`), "b ok"), { name: "b_tool", description: "b", schema: z.object({ q: z.string() }) });
  const model = providerModel([[{ name: "a_tool", args: { q: "1" }, id: "c1" }, { name: "b_tool", args: { q: "2" }, id: "c2" }], "done"], refusals, []);
  const hitl = humanInTheLoopMiddleware({ interruptOn: { a_tool: true } });
  const guard = guardMiddleware({ tools: [a, b], permissions: [{ tool: "b_tool", mode: "ask" }], defaultRisk: "low" });
  return createAgent({ model, tools: [], middleware: order === "guard-last" ? [hitl, guard] : [guard, hitl], checkpointer: new MemorySaver() });
}

describe.each(["guard-last", "guard-first"] as const)("humanInTheLoopMiddleware and guardMiddleware (%s)", (order) => {
  it.each([
    ["both approve", "approve", ["a 1", "b 2"], { c1: "a ok", c2: "b ok" }],
    ["the guard's reviewer rejects", "reject", ["a 1"], { c1: "a ok", c2: "Refused b_tool by a human reviewer: not now. Do not retry this call unchanged." }],
  ] as const)("%s: both ask before anything runs; the answers decide what runs, once", async (_label, guardAnswer, expectRan, expectText) => {
    const ran: string[] = [];
    const refusals: string[] = [];
    const agent = agentWith(order, ran, refusals);
    const config = { configurable: { thread_id: `hitl-${order}-${guardAnswer}` } };
    let out = (await agent.invoke(say("go"), config)) as Record<string, unknown>;
    const asked: string[] = [];
    for (let i = 0; i < 2; i++) {
      const [pending] = (out.__interrupt__ as Asked[] | undefined) ?? [];
      expect(pending, `interrupt ${i}`).toBeDefined();
      expect(ran).toEqual([]);
      const names = pending!.value.actionRequests.map((r) => r.name);
      asked.push(...names);
      const decisions = names.map((name) => (name === "b_tool" && guardAnswer === "reject" ? { type: "reject", message: "not now" } : { type: "approve" }));
      out = (await agent.invoke(new Command({ resume: { decisions } }), config)) as Record<string, unknown>;
    }
    expect(asked.sort()).toEqual(["a_tool", "b_tool"]);
    expect(out.__interrupt__).toBeUndefined();
    expect([...ran].sort()).toEqual(expectRan);
    expect(toolText(out.messages as never)).toEqual(expectText);
    expect(refusals).toEqual([]);
  });
});

describe("a reject in humanInTheLoopMiddleware, with the guard listed last", () => {
  it("the guard's approved call that the jump to the model passed over is answered as not run before the model reads the history, and never runs", async () => {
    const ran: string[] = [];
    const refusals: string[] = [];
    const audit = new MemoryAuditSink();
    const a = tool(({ q }) => (ran.push(`a ${q}`), "a ok"), { name: "a_tool", description: "a", schema: z.object({ q: z.string() }) });
    const b = tool(({ q }) => (ran.push(`b ${q}`), "b ok"), { name: "b_tool", description: "b", schema: z.object({ q: z.string() }) });
    const modelInputs: BaseMessage[][] = [];
    const model = providerModel([[{ name: "a_tool", args: { q: "1" }, id: "c1" }, { name: "b_tool", args: { q: "2" }, id: "c2" }], "understood", "next"], refusals, modelInputs);
    const hitl = humanInTheLoopMiddleware({ interruptOn: { a_tool: true } });
    const guard = guardMiddleware({ tools: [a, b], permissions: [{ tool: "b_tool", mode: "ask" }], defaultRisk: "low", audit });
    const agent = createAgent({ model, tools: [], middleware: [hitl, guard], checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "hitl-reject" } };
    let out = (await agent.invoke(say("go"), config)) as Record<string, unknown>;
    // The guard's afterModel runs first (listed last): it asks about b_tool; then humanInTheLoopMiddleware about a_tool.
    expect(((out.__interrupt__ as Asked[])[0]!.value.actionRequests.map((r) => r.name))).toEqual(["b_tool"]);
    out = (await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), config)) as Record<string, unknown>;
    expect(((out.__interrupt__ as Asked[])[0]!.value.actionRequests.map((r) => r.name))).toEqual(["a_tool"]);
    out = (await agent.invoke(new Command({ resume: { decisions: [{ type: "reject", message: "not a" }] } }), config)) as Record<string, unknown>;
    expect(out.__interrupt__).toBeUndefined();
    expect(refusals).toEqual([]);
    expect(ran).toEqual([]);
    expect(toolText(out.messages as never)).toEqual({
      c1: "not a",
      c2: "Cancelled: b_tool did not run: the run went back to the model before this call was run (another middleware sent it there). It will not run; call it again if it is still needed.",
    });
    // The model read both answers, once each, right after its message.
    expect(modelInputs.length).toBe(2);
    expect(modelInputs[1]!.map((m) => m.getType())).toEqual(["human", "ai", "tool", "tool"]);
    expect(String((out.messages as BaseMessage[]).at(-1)?.content)).toBe("understood");
    const outcomes = (await audit.query({ threadId: "hitl-reject" })).filter((r) => r.event === "outcome").map((r) => `${r.toolCallId} ${r.decision} ${r.ruleId}`);
    // c1, which the guard allowed and humanInTheLoopMiddleware's reject answered, did not run either: its
    // outcome says so (answered by a ToolMessage the guard did not write).
    expect(outcomes).toEqual(["c2 cancelled run:skipped", "c1 cancelled run:answered"]);
    // The thread goes on.
    const next = (await agent.invoke(say("and now?"), config)) as Record<string, unknown>;
    expect(String((next.messages as BaseMessage[]).at(-1)?.content)).toBe("next");
    expect(ran).toEqual([]);
    expect(refusals).toEqual([]);
  });
});

describe("toolRetryMiddleware next to the guard", () => {
  it.each(["retry listed before the guard", "retry listed after the guard"] as const)("%s: a failing call runs once and the model reads its error (the guard never runs a call twice)", async (order) => {
    const ran: string[] = [];
    const flaky = tool(
      ({ q }) => {
        ran.push(`try ${ran.length + 1}`);
        if (ran.length < 2) throw new Error("transient");
        return `ok ${q}`;
      },
      { name: "flaky", description: "f", schema: z.object({ q: z.string() }) },
    );
    const refusals: string[] = [];
    const model = providerModel([[{ name: "flaky", args: { q: "x" }, id: "f1" }], "done"], refusals, []);
    const retry = toolRetryMiddleware({ maxRetries: 2, initialDelayMs: 1, backoffFactor: 1, jitter: false });
    const guard = guardMiddleware({ tools: [flaky], defaultRisk: "low" });
    const agent = createAgent({ model, tools: [], middleware: order === "retry listed before the guard" ? [retry, guard] : [guard, retry], checkpointer: new MemorySaver() });
    const out = (await agent.invoke(say("go"), { configurable: { thread_id: `retry-${order}` } })) as Record<string, unknown>;
    expect(ran).toEqual(["try 1"]);
    expect(toolText(out.messages as never)).toEqual({ f1: "Error: flaky failed: transient" });
    expect(refusals).toEqual([]);
  });
});
