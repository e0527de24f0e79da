// A tool may throw anything JavaScript can throw: null, undefined, a string, a symbol, an object
// without a prototype, an object whose toString or message throws, a Proxy whose every trap throws.
// Each is that tool's failure: the call is answered once with an error ToolMessage that says so, the
// audit records it, and the run goes on to the model's next turn. Before, `throw null` made
// LangGraph's own error check (`isGraphBubbleUp`) throw a TypeError and the whole run failed, and a
// thrown value String() cannot convert did the same.
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryAuditSink } from "../src/audit/index.js";
import { createGuardedAgent } from "../src/guard/agent.js";
import { Guard } from "../src/guard/guard.js";
import { guardMiddleware } from "../src/middleware/index.js";
import { defineTool } from "../src/tools/define-tool.js";
import { toolNodeGraph } from "./helpers/tool-node-graph.js";

const throwing = (value: () => unknown) => () => {
  throw value();
};

/** What each tool throws, and what its ToolMessage says of it. */
const THROWN: readonly (readonly [string, () => unknown, RegExp])[] = [
  ["null", () => null, /weird failed: null$/],
  ["undefined", () => undefined, /weird failed: undefined$/],
  ["a string", () => "boom", /weird failed: boom$/],
  ["a symbol", () => Symbol("s"), /weird failed: Symbol\(s\)$/],
  ["a number", () => 0, /weird failed: 0$/],
  ["an object without a prototype", () => Object.create(null), /weird failed: it threw an object that cannot be read as text$/],
  [
    "an object whose toString throws",
    () => ({
      toString() {
        throw new Error("no text");
      },
    }),
    /weird failed: it threw an object that cannot be read as text$/,
  ],
  [
    "an Error whose message getter throws",
    () => {
      const error = new Error("x");
      Object.defineProperty(error, "message", {
        get() {
          throw new Error("no message");
        },
      });
      return error;
    },
    /weird failed: it threw an object that cannot be read as text$/,
  ],
  [
    "a Proxy whose every trap throws",
    () =>
      new Proxy(
        {},
        {
          get() {
            throw new Error("trap");
          },
          getPrototypeOf() {
            throw new Error("trap");
          },
        },
      ),
    /weird failed: it threw an object that cannot be read as text$/,
  ],
];

function weirdTool(thrown: () => unknown) {
  return defineTool({ name: "weird", description: "Fails oddly", schema: z.object({}), risk: "low", execute: throwing(thrown) });
}

const model = () => fakeModel().respondWithTools([{ name: "weird", args: {}, id: "c1" }]).respond(new AIMessage("done"));

function expectAnsweredAsFailure(messages: readonly BaseMessage[], text: RegExp) {
  const answers = messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
  expect(answers).toHaveLength(1);
  expect(answers[0]?.status).toBe("error");
  expect(String(answers[0]?.content)).toMatch(text);
  expect(String(messages.at(-1)?.content)).toBe("done");
}

describe("a tool that throws anything is answered as failed, and the run goes on", () => {
  describe.each(THROWN)("it throws %s", (_name, thrown, text) => {
    it("createGuardedAgent", async () => {
      const audit = new MemoryAuditSink();
      const agent = createGuardedAgent({ model: model(), tools: [weirdTool(thrown)], audit, checkpointer: new MemorySaver() });
      const out = await agent.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: "agent" } });
      expectAnsweredAsFailure(out.messages, text);
      const outcomes = (await audit.query({ threadId: "agent" })).filter((r) => r.event === "outcome");
      expect(outcomes.map((r) => r.decision)).toEqual(["error"]);
    });

    it("GuardedToolNode", async () => {
      const graph = toolNodeGraph(new Guard({ tools: [weirdTool(thrown)] }), model());
      const out = await graph.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: "node" } });
      expectAnsweredAsFailure(out.messages, text);
    });

    it("guardMiddleware", async () => {
      const agent = createAgent({ model: model(), middleware: [guardMiddleware({ tools: [weirdTool(thrown)] })], checkpointer: new MemorySaver() });
      const out = await agent.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: "mw" } });
      expectAnsweredAsFailure(out.messages, text);
    });
  });
});
