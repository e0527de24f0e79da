// Arguments that are any JSON value — not only objects: a string, null, 0, false, "", an array, JSON
// text in a string — through every entry point (createGuardedAgent, GuardedToolNode, guardMiddleware)
// with an audit sink. Each call is refused with a sentence the model reads or decided by the rules,
// never thrown; each call is answered by exactly one ToolMessage; each call has an audit record.
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Command, MemorySaver } from "@langchain/langgraph";
import fc from "fast-check";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryAuditSink } from "../src/audit/memory.js";
import { auditArgsText } from "../src/audit/summary.js";
import { createGuardedAgent } from "../src/guard/agent.js";
import { Guard } from "../src/guard/guard.js";
import { emptyGuardState } from "../src/guard/state.js";
import { GuardedToolNode } from "../src/guard/tool-node.js";
import { guardMiddleware } from "../src/middleware/index.js";
import { refusals } from "../src/messages/index.js";
import { defineTool } from "../src/tools/define-tool.js";
import { toolNodeGraph } from "./helpers/tool-node-graph.js";

type Args = Record<string, unknown>;
interface Call {
  id: string;
  /** `t` runs without a human (risk low); `h` asks (risk high) and is approved. */
  name: "t" | "h";
  args: unknown;
}

/** Every JSON value, objects included, with the spellings a model has been seen to send. */
const anyArgs: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: fc.constantFrom<unknown>("x", null, 0, false, true, "", [], ["a"], -1.5, "{\"command\":\"rm -rf /\"}", "[1,2]", " {} ", "null") },
  { weight: 2, arbitrary: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }).map((o) => JSON.stringify(o)) },
  { weight: 2, arbitrary: fc.dictionary(fc.constantFrom("command", "path", "q"), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }) },
);
const turn: fc.Arbitrary<Call[]> = fc
  .array(fc.tuple(fc.constantFrom<"t" | "h">("t", "t", "h"), anyArgs), { minLength: 1, maxLength: 3 })
  .map((all) => all.map(([name, args], i) => ({ id: `c${i}`, name, args })));

const isObject = (v: unknown): v is Args => typeof v === "object" && v !== null && !Array.isArray(v);

function setup() {
  const ran: unknown[] = [];
  const audit = new MemoryAuditSink();
  const tool = (name: string, risk: "low" | "high") =>
    defineTool({
      name,
      description: "records its input",
      schema: z.looseObject({}),
      risk,
      execute: (input) => {
        ran.push(input);
        return "ran";
      },
    });
  const guard = new Guard({ tools: [tool("t", "low"), tool("h", "high")], audit });
  return { ran, audit, guard };
}

function modelFor(calls: readonly Call[]) {
  return fakeModel()
    .respondWithTools(calls.map((c) => ({ name: c.name, args: c.args as Args, id: c.id })))
    .respond(new AIMessage("done"));
}

/** The checks every entry point must pass for one generated turn. */
async function judge(calls: readonly Call[], messages: readonly BaseMessage[], audit: MemoryAuditSink, ran: readonly unknown[]): Promise<void> {
  const answers = messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
  for (const call of calls) {
    const mine = answers.filter((m) => m.tool_call_id === call.id);
    expect(mine, `one ToolMessage for ${call.id} (${JSON.stringify(call.args)})`).toHaveLength(1);
    if (!isObject(call.args)) {
      expect(mine[0]?.status).toBe("error");
      expect(mine[0]?.content).toBe(refusals.argumentsNotObject(call.name, refusals.argumentsKind(call.args)));
    }
  }
  // Nothing but an object ever reaches the tool.
  expect(ran.length).toBe(calls.filter((c) => isObject(c.args)).length);
  for (const input of ran) expect(isObject(input)).toBe(true);
  const records = await audit.query({});
  for (const call of calls) {
    const decision = records.find((r) => r.toolCallId === call.id && r.event === "decision");
    expect(decision, `an audit decision for ${call.id}`).toBeDefined();
    if (!isObject(call.args)) {
      expect(decision?.ruleId).toBe("schema");
      expect(decision?.decision).toBe("deny");
      // The audit keeps a scalar as sent, an array as every arguments object is kept.
      expect(decision?.args).toBe(Array.isArray(call.args) ? auditArgsText(call.args, []) : JSON.stringify(call.args));
    }
  }
}

interface Invokable {
  invoke(input: unknown, config: { configurable: { thread_id: string } }): Promise<{ messages: BaseMessage[]; __interrupt__?: { value: unknown }[] }>;
}

/** Runs a thread to its end, approving every call that asks (a human who says yes to everything). */
async function runApproving(graph: Invokable, thread_id: string): Promise<BaseMessage[]> {
  const config = { configurable: { thread_id } };
  let out = await graph.invoke({ messages: [new HumanMessage("go")] }, config);
  for (let round = 0; (out.__interrupt__ ?? []).length > 0; round += 1) {
    if (round > 3) throw new Error("still interrupted after 3 answers");
    const asked = (out.__interrupt__?.[0]?.value as { actionRequests: unknown[] }).actionRequests.length;
    out = await graph.invoke(new Command({ resume: { decisions: Array.from({ length: asked }, () => ({ type: "approve" })) } }), config);
  }
  return out.messages;
}

const RUNS = 40;
let thread = 0;

describe("any JSON value as a tool call's arguments: refused or decided, never thrown", () => {
  it("the sentence the model reads, per kind of value", () => {
    const text = (v: unknown) => refusals.argumentsNotObject("t", refusals.argumentsKind(v));
    expect(text("x")).toBe(
      'Refused t by rule schema: the arguments must be a JSON object of named fields, and a string was sent. Call again with the arguments as an object, for example {"field": "value"}.',
    );
    expect(text('{"command":"rm"}')).toBe(
      'Refused t by rule schema: the arguments must be a JSON object of named fields, and a string holding JSON text was sent. Call again with the arguments as an object (the object itself, not JSON text in a string), for example {"field": "value"}.',
    );
    expect([null, 0, false, "", [], undefined].map((v) => refusals.argumentsKind(v))).toEqual([
      "null",
      "a number",
      "a boolean",
      "an empty string",
      "an array",
      "no arguments",
    ]);
    expect(refusals.argumentsNotObjectReason("null")).toBe("invalid arguments: not a JSON object (null)");
  });

  it("createGuardedAgent", async () => {
    await fc.assert(
      fc.asyncProperty(turn, async (calls) => {
        const { ran, audit, guard } = setup();
        const graph = createGuardedAgent({ model: modelFor(calls), guard, checkpointer: new MemorySaver() });
        const messages = await runApproving(graph as unknown as Invokable, `a${thread++}`);
        await judge(calls, messages, audit, ran);
        expect(messages.at(-1)?.content).toBe("done");
      }),
      { numRuns: RUNS },
    );
  }, 120_000);

  it("GuardedToolNode in a user's StateGraph", async () => {
    await fc.assert(
      fc.asyncProperty(turn, async (calls) => {
        const { ran, audit, guard } = setup();
        const graph = toolNodeGraph(guard, modelFor(calls));
        const messages = await runApproving(graph as unknown as Invokable, `n${thread++}`);
        await judge(calls, messages, audit, ran);
        expect(messages.at(-1)?.content).toBe("done");
      }),
      { numRuns: RUNS },
    );
  }, 120_000);

  it("guardMiddleware on LangChain's createAgent", async () => {
    await fc.assert(
      fc.asyncProperty(turn, async (calls) => {
        const { ran, audit, guard } = setup();
        const agent = createAgent({ model: modelFor(calls), middleware: [guardMiddleware({ guard })], checkpointer: new MemorySaver() });
        const messages = await runApproving(agent as unknown as Invokable, `m${thread++}`);
        await judge(calls, messages, audit, ran);
        expect(messages.at(-1)?.content).toBe("done");
      }),
      { numRuns: RUNS },
    );
  }, 120_000);

  it("GuardedToolNode called directly, outside a graph (calls that need no human)", async () => {
    await fc.assert(
      fc.asyncProperty(turn.map((calls) => calls.map((c) => ({ ...c, name: "t" as const }))), async (calls) => {
        const { ran, audit, guard } = setup();
        const ai = new AIMessage({ content: "", id: "ai1", tool_calls: calls.map((c) => ({ id: c.id, name: c.name, args: c.args as Args, type: "tool_call" as const })) });
        const node = new GuardedToolNode(guard);
        const out = await node.invoke({ messages: [new HumanMessage({ content: "go", id: "h1" }), ai], guard: emptyGuardState() });
        if (!("messages" in out)) throw new Error("expected messages");
        await judge(calls, out.messages, audit, ran);
      }),
      { numRuns: RUNS },
    );
  }, 120_000);
});
