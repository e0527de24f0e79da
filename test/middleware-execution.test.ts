import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { guardMiddleware } from "../src/middleware/index.js";
import { TurnGate } from "../src/middleware/turn-gate.js";
import { defineTool } from "../src/tools/define-tool.js";
import { expectNoOrphans, thread, toolMessages } from "./helpers/middleware-fixtures.js";

describe("TurnGate", () => {
  it("a later batch waits until the earlier batch has left", async () => {
    const gate = new TurnGate();
    const leaveFirst = await gate.enter("t", "a", 0);
    let secondIn = false;
    const second = gate.enter("t", "b", 1).then((leave) => {
      secondIn = true;
      return leave;
    });
    await sleep(10);
    expect(secondIn).toBe(false);
    leaveFirst();
    (await second)();
    expect(secondIn).toBe(true);
  });

  it("calls of one batch, and of other turns, do not wait for each other", async () => {
    const gate = new TurnGate();
    const [a, b, other] = await Promise.all([gate.enter("t", "a", 0), gate.enter("t", "b", 0), gate.enter("u", "c", 1)]);
    for (const leave of [a, b, other]) leave();
  });

  it("never waits for an earlier call it has not seen (one that finished before a crash)", async () => {
    const gate = new TurnGate();
    const leave = await gate.enter("t", "b", 3);
    leave();
  });
});

describe("guardMiddleware: execution", () => {
  function timedTools(events: string[], safe: boolean) {
    return ["first", "second"].map((name) =>
      defineTool({
        name,
        description: name,
        schema: z.object({}),
        risk: "low",
        isConcurrencySafe: () => safe,
        execute: async () => {
          events.push(`${name}:start`);
          await sleep(20);
          events.push(`${name}:end`);
          return `${name} ok`;
        },
      }),
    );
  }

  const twoCalls = () =>
    fakeModel()
      .respondWithTools([
        { name: "first", args: {}, id: "t1" },
        { name: "second", args: {}, id: "t2" },
      ])
      .respond(new AIMessage("done"));

  it("calls that are not concurrency-safe run one after another, in model order", async () => {
    const events: string[] = [];
    const agent = createAgent({ model: twoCalls(), middleware: [guardMiddleware({ tools: timedTools(events, false) })], checkpointer: new MemorySaver() });
    const out = await agent.invoke({ messages: [new HumanMessage("go")] }, thread("mw-serial"));
    expect(events).toEqual(["first:start", "first:end", "second:start", "second:end"]);
    expectNoOrphans(out.messages);
  });

  it("concurrency-safe calls of one batch run in parallel", async () => {
    const events: string[] = [];
    const agent = createAgent({ model: twoCalls(), middleware: [guardMiddleware({ tools: timedTools(events, true) })], checkpointer: new MemorySaver() });
    await agent.invoke({ messages: [new HumanMessage("go")] }, thread("mw-parallel"));
    expect(events.slice(0, 2).sort()).toEqual(["first:start", "second:start"]);
  });

  it("a tool past its timeout ends with an error result, truncated output is bounded, and failures are recorded", async () => {
    const hang = defineTool({
      name: "hang",
      description: "never returns",
      schema: z.object({}),
      risk: "low", // runs without asking: this test is about execution, not approval
      timeoutMs: 20,
      execute: (_input, ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener("abort", () => reject(new Error("aborted")))),
    });
    const chatty = defineTool({
      name: "chatty",
      description: "talks a lot",
      schema: z.object({}),
      risk: "low",
      maxResultChars: 200,
      execute: () => "line\n".repeat(5_000),
    });
    const model = fakeModel()
      .respondWithTools([
        { name: "hang", args: {}, id: "h1" },
        { name: "chatty", args: {}, id: "c1" },
      ])
      .respond(new AIMessage("ok"));
    const agent = createAgent({ model, middleware: [guardMiddleware({ tools: [hang, chatty] })], checkpointer: new MemorySaver() });
    const out = await agent.invoke({ messages: [new HumanMessage("go")] }, thread("mw-timeout"));
    const byId = new Map(toolMessages(out.messages).map((m) => [m.tool_call_id, m]));
    expect(byId.get("h1")?.status).toBe("error");
    expect(byId.get("h1")?.content).toMatch(/timed out after 20 ms/);
    expect(String(byId.get("c1")?.content).length).toBeLessThanOrEqual(200);
    expect(out.guard.rules?.runAttempts.hang).toBe(1);
    expect(out.guard.rules?.runCounts.hang).toBeUndefined();
    expect(out.guard.rules?.runCounts.chatty).toBe(1);
  });
});

describe("guardMiddleware: createAgent tool behaviour v1", () => {
  it("guards calls when one tools node runs the whole turn", async () => {
    const events: string[] = [];
    const tools = ["first", "second"].map((name) =>
      defineTool({
        name,
        description: name,
        schema: z.object({}),
        risk: name === "second" ? "always-deny" : "low",
        execute: () => {
          events.push(name);
          return `${name} ok`;
        },
      }),
    );
    const model = fakeModel()
      .respondWithTools([
        { name: "first", args: {}, id: "v1" },
        { name: "second", args: {}, id: "v2" },
      ])
      .respond(new AIMessage("done"));
    const agent = createAgent({ model, version: "v1", middleware: [guardMiddleware({ tools })], checkpointer: new MemorySaver() });
    const out = await agent.invoke({ messages: [new HumanMessage("go")] }, thread("mw-v1"));
    expect(events).toEqual(["first"]);
    expect(out.guard.rules?.runCounts).toEqual({ first: 1 });
    expect(out.messages.at(-1)?.content).toBe("done");
    expectNoOrphans(out.messages);
  });
});
