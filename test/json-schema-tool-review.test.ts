// Tools described by a plain JSON schema (MCP tools, StructuredTool with a JSON-schema object): an
// invalid call is refused at review, as a zod tool's is, by the validator the tool itself runs.
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import fc from "fast-check";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { createGuardedAgent } from "../src/guard/agent.js";
import { Guard } from "../src/guard/guard.js";
import { guardMiddleware } from "../src/middleware/index.js";
import { parseToolArguments } from "../src/tools/parse-args.js";
import { guardSpecOf } from "../src/tools/registry.js";
import { toolNodeGraph } from "./helpers/tool-node-graph.js";

const SCHEMA = {
  type: "object",
  properties: {
    name: { type: "string" },
    replicas: { type: "integer", minimum: 0 },
    mode: { enum: ["fast", "safe"] },
    tags: { type: "array", items: { type: "string" } },
    target: { type: "object", properties: { zone: { type: "string" } }, required: ["zone"], additionalProperties: false },
  },
  required: ["name", "replicas"],
  additionalProperties: false,
} as const;

function jsonTool(ran: unknown[]) {
  return tool(
    async (input: Record<string, unknown>) => {
      ran.push(input);
      return "scaled";
    },
    { name: "scale", description: "Scale a service", schema: SCHEMA as unknown as Record<string, unknown> },
  );
}

/** Whether the tool itself refuses the arguments (its own schema check). */
async function toolRefuses(args: unknown): Promise<boolean> {
  const t = jsonTool([]) as unknown as { invoke(input: unknown): Promise<unknown> };
  try {
    await t.invoke(args);
    return false;
  } catch {
    return true;
  }
}

const value = fc.oneof(fc.string({ maxLength: 4 }), fc.integer({ min: -3, max: 3 }), fc.double({ noNaN: true, min: -2, max: 2 }), fc.boolean(), fc.constant(null), fc.constantFrom("fast", "safe", "slow"), fc.array(fc.oneof(fc.string({ maxLength: 2 }), fc.integer()), { maxLength: 2 }), fc.record({ zone: fc.oneof(fc.string({ maxLength: 2 }), fc.integer()) }, { requiredKeys: [] }), fc.record({ zone: fc.string({ maxLength: 2 }), extra: fc.integer() }));
const args = fc.dictionary(fc.constantFrom("name", "replicas", "mode", "tags", "target", "other"), value, { maxKeys: 6 });

describe("a JSON-schema tool's arguments at review", () => {
  it("the guard refuses exactly what the tool itself refuses (generated calls)", async () => {
    const spec = guardSpecOf(jsonTool([]));
    await fc.assert(
      fc.asyncProperty(args, async (a) => {
        const guardRefuses = !parseToolArguments(spec.inputSchema, a).success;
        expect(guardRefuses).toBe(await toolRefuses(a));
      }),
      { numRuns: 400 },
    );
  });

  it("a schema the validator cannot use refuses, naming why, and does not crash", () => {
    const broken = tool(async () => "x", { name: "broken", description: "b", schema: { type: "object", properties: { a: { $ref: "#/nowhere" } } } as unknown as Record<string, unknown> });
    const parsed = parseToolArguments(guardSpecOf(broken).inputSchema, { a: 1 });
    expect(parsed.success).toBe(false);
    if (!parsed.success) expect(parsed.detail).toMatch(/JSON schema cannot be checked/);
  });
});

interface Invokable {
  invoke(input: unknown, config: unknown): Promise<{ messages: BaseMessage[] }>;
}

const INVALID = [
  { name: "scale", args: { name: "api" }, id: "missing" },
  { name: "scale", args: { name: "api", replicas: "3" }, id: "type" },
  { name: "scale", args: { name: "api", replicas: 3, extra: 1 }, id: "extra" },
  { name: "scale", args: { name: "api", replicas: 3, mode: "slow" }, id: "enum" },
  { name: "scale", args: { name: "api", replicas: 3, target: {} }, id: "nested" },
  { name: "scale", args: { name: "api", replicas: 3, tags: [1] }, id: "array" },
];

function setup() {
  const ran: unknown[] = [];
  // no declared risk: a valid call would ask; an invalid one must be refused without asking.
  const guard = new Guard({ tools: [jsonTool(ran)] });
  const model = fakeModel().respondWithTools(INVALID).respond(new AIMessage("done"));
  return { ran, guard, model };
}

async function expectRefusedAtReview(graph: Invokable, ran: unknown[], thread: string) {
  const out = await graph.invoke({ messages: [new HumanMessage("scale")] }, { configurable: { thread_id: thread } });
  expect((out as { __interrupt__?: unknown }).__interrupt__).toBeUndefined();
  expect(ran).toEqual([]);
  const answers = out.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
  expect(answers.map((m) => m.tool_call_id).sort()).toEqual(INVALID.map((c) => c.id).sort());
  for (const a of answers) expect(a.status).toBe("error");
}

describe("invalid calls of a JSON-schema tool are refused at review, not asked", () => {
  it("createGuardedAgent", async () => {
    const { ran, guard, model } = setup();
    await expectRefusedAtReview(createGuardedAgent({ model, guard, checkpointer: new MemorySaver() }) as unknown as Invokable, ran, "js-agent");
  });
  it("GuardedToolNode", async () => {
    const { ran, guard, model } = setup();
    const graph = toolNodeGraph(guard, model);
    await expectRefusedAtReview(graph as unknown as Invokable, ran, "js-node");
  });
  it("guardMiddleware", async () => {
    const { ran, guard, model } = setup();
    const agent = createAgent({ model, middleware: [guardMiddleware({ guard })], checkpointer: new MemorySaver() });
    await expectRefusedAtReview(agent as unknown as Invokable, ran, "js-mw");
  });
});
