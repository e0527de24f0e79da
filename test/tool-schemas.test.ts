import { tool } from "@langchain/core/tools";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createEtlTools } from "../graphs/tools/etl.js";
import { createDevopsTools } from "../graphs/tools/devops.js";
import { createBuiltinTools, createFileTool, InMemoryConversationLog, MessageRouter } from "../src/builtin/index.js";
import { inMemoryMemory } from "../src/memory/index.js";
import { FileSource, SourceManager } from "../src/sources/index.js";
import { defineTool, guardSpecOf, schemaFor, strictSchemaFor, toToolJsonSchema, ToolRegistry, type AnyTool } from "../src/tools/index.js";
import { checkAnthropic, checkMcp, checkOpenAI } from "./helpers/provider-schema.js";

const dir = mkdtempSync(path.join(tmpdir(), "gg-schemas-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What a user writes: a discriminated union with nested objects, unsigned and 64-bit integers, optional fields. */
const userTool = defineTool({
  name: "orders",
  description: "Orders: get, list, refund.",
  schema: z.discriminatedUnion("operation", [
    z.object({ operation: z.literal("get"), id: z.uint64().describe("Order id") }).describe("Fetch one order"),
    z.object({ operation: z.literal("list"), limit: z.number().int().nonnegative().optional(), cursor: z.string().optional() }).describe("List orders"),
    z
      .object({
        operation: z.literal("refund"),
        id: z.uint64(),
        amount: z.uint32().describe("Cents"),
        reason: z.object({ code: z.enum(["damaged", "late"]), note: z.string().max(200).optional() }),
      })
      .describe("Refund an order"),
  ]),
  execute: (input) => input.operation,
});

/** A plain LangChain tool whose JSON schema has a root oneOf (what a hand-written MCP-style union looks like). */
const plainJsonTool = tool(async (input: Record<string, unknown>) => JSON.stringify(input), {
  name: "tickets",
  description: "Tickets: open or close.",
  schema: {
    type: "object",
    oneOf: [
      { type: "object", description: "Open a ticket", properties: { action: { const: "open" }, title: { type: "string" } }, required: ["action", "title"] },
      { type: "object", description: "Close a ticket", properties: { action: { const: "close" }, id: { type: "integer", format: "uint32", minimum: 0 } }, required: ["action", "id"] },
    ],
  },
});

function allTools(): AnyTool[] {
  const { memory } = inMemoryMemory({ namespace: ["schemas"] });
  const source = new FileSource({ id: "repo", baseDir: dir, rules: [{ pattern: "**", permission: "read-write" }], memory });
  const sources = new SourceManager().register(source);
  return [
    ...createBuiltinTools({ memory, sources, superseded: true, conversations: new InMemoryConversationLog(), router: new MessageRouter() }),
    createFileTool({ source }),
    ...createDevopsTools(),
    ...createEtlTools(),
    userTool,
  ];
}

/** Tools whose schema the guard publishes (plain LangChain tools included); LangChain's own conversion is checked for ours. */
const guardOnly: AnyTool[] = [plainJsonTool];

const tools = allTools();

describe("every tool's schema against OpenAI, Anthropic and MCP (test/helpers/provider-schema.ts)", () => {
  it("covers the built-ins, the demo graphs' tools and a user-style union", () => {
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(["block", "block_edit", "recall", "source", "context", "search", "send_message", "file", "orders"]),
    );
    expect(tools.length).toBeGreaterThan(12);
  });

  it.each([...tools, ...guardOnly].map((t) => [t.name, t] as const))("%s: the guard's definitions (all operations and each one alone)", (_name, tool) => {
    const registry = new ToolRegistry([tool]);
    const ops = guardSpecOf(tool).operations;
    const selections = [undefined, ...ops.map((op) => [op])];
    for (const operations of selections) {
      const [definition] = registry.definitions([{ name: tool.name, operations }]);
      if (!definition) throw new Error("no definition");
      const { name, description, parameters } = definition.function;
      expect(checkOpenAI({ name, description, parameters })).toEqual([]);
      expect(checkAnthropic({ name, input_schema: parameters })).toEqual([]);
      expect(checkMcp({ name, inputSchema: parameters })).toEqual([]);
    }
  });

  it.each(tools.map((t) => [t.name, t] as const))("%s: what LangChain itself sends (createAgent / middleware users)", (_name, tool) => {
    const { function: fn } = convertToOpenAITool(tool);
    const parameters = fn.parameters as Record<string, unknown>;
    const { $schema: _s, ...schema } = parameters;
    expect(checkOpenAI({ name: fn.name, parameters: schema })).toEqual([]);
    expect(checkAnthropic({ name: fn.name, input_schema: schema })).toEqual([]);
    expect(checkMcp({ name: fn.name, inputSchema: schema })).toEqual([]);
  });

  it.each(tools.map((t) => [t.name, t] as const))("%s: strict mode, or a named reason it is sent with strict: false", (_name, tool) => {
    const strict = strictSchemaFor(tool);
    if (strict.schema) {
      expect(checkOpenAI({ name: tool.name, parameters: strict.schema, strict: true })).toEqual([]);
    } else {
      expect(strict.reason).toMatch(/free-form|any JSON value/);
      const [definition] = new ToolRegistry([tool]).definitions(undefined, { strict: true });
      expect(definition?.function.strict).toBe(false);
    }
  });

  it("reports which tools are strict-capable (the free-form JSON fields are the exceptions)", () => {
    const reasons = Object.fromEntries(tools.map((t) => [t.name, strictSchemaFor(t).reason ?? "strict"]));
    console.log(`strict mode: ${JSON.stringify(reasons, null, 1)}`);
    expect(reasons.file).toBe("strict");
    expect(reasons.block).toBe("strict");
    expect(reasons.orders).toBe("strict");
  });

  it("the checkers refuse what the providers refuse (the old root oneOf, {} for uint64, strict without required)", () => {
    const rootOneOf = { type: "object", oneOf: [{ type: "object", properties: { op: { const: "a" } } }] };
    expect(checkAnthropic({ name: "t", input_schema: rootOneOf })).toContain("anthropic:t: root uses oneOf");
    expect(checkOpenAI({ name: "t", parameters: rootOneOf })).toContain("openai:t: root uses oneOf");
    expect(checkMcp({ name: "t", inputSchema: { oneOf: [] } })).toEqual(['mcp:t: root type is undefined, not "object"', "mcp:t: root uses oneOf"]);
    expect(checkOpenAI({ name: "t", parameters: { type: "object", properties: { id: {} } }, strict: true })).toEqual([
      "openai:t: object without additionalProperties: false",
      "openai:t.id: not in required (strict mode needs every field required)",
      "openai:t.id: no type",
    ]);
    expect(checkOpenAI({ name: "bad name", parameters: { type: "object" } })).toContain("openai:bad name: name does not match ^[a-zA-Z0-9_-]{1,64}$");
  });
});

describe("flat schemas keep exact validation at run time", () => {
  it("a plain LangChain tool with a root oneOf JSON schema is published flat by the guard", () => {
    const spec = guardSpecOf(plainJsonTool);
    expect(spec.operations).toEqual(["open", "close"]);
    expect(spec.jsonSchema).toEqual({
      type: "object",
      properties: {
        action: { type: "string", enum: ["open", "close"], description: "The operation. open: Open a ticket; close: Close a ticket" },
        title: { type: "string", description: "(used by action open; required for open)" },
        id: { type: "integer", minimum: 0, description: "(used by action close; required for close)" },
      },
      required: ["action"],
    });
    expect(Object.keys(schemaFor(plainJsonTool, ["close"]).properties as object)).toEqual(["action", "id"]);
  });

  it("publishes one flat object: the operation enum, every field described with its operations", () => {
    const schema = schemaFor(userTool);
    expect(Object.keys(schema).sort()).toEqual(["properties", "required", "type"]);
    expect(schema.required).toEqual(["operation"]);
    const props = schema.properties as Record<string, { enum?: string[]; description?: string; type?: string; minimum?: number }>;
    expect(props.operation?.enum).toEqual(["get", "list", "refund"]);
    expect(props.operation?.description).toContain("refund: Refund an order");
    expect(props.id).toMatchObject({ type: "integer", minimum: 0 });
    expect(props.id?.description).toBe("Order id (used by operation get, refund; required for get, refund)");
    expect(props.amount).toMatchObject({ type: "integer", minimum: 0 });
    expect(props.limit).toMatchObject({ type: "integer", minimum: 0 });
    expect(JSON.stringify(schema)).not.toContain("{}");
    // Outside a union too: a 64-bit field is an integer, never `{}`.
    expect(toToolJsonSchema(z.object({ n: z.uint64(), m: z.int64() })).properties).toEqual({ n: { type: "integer", minimum: 0 }, m: { type: "integer" } });
  });

  it("refuses what the operation does not take, as before (zod, per operation)", async () => {
    const spec = guardSpecOf(userTool);
    expect(spec.inputSchema.safeParse({ operation: "get" }).success).toBe(false); // id is required for get
    expect(spec.inputSchema.safeParse({ operation: "get", id: 7 }).data).toEqual({ operation: "get", id: 7n }); // a uint64 arrives as a JSON integer
    expect(spec.inputSchema.safeParse({ operation: "get", id: -1 }).success).toBe(false);
    expect(spec.inputSchema.safeParse({ operation: "list" }).success).toBe(true);
    expect(spec.inputSchema.safeParse({ operation: "list", limit: -1 }).success).toBe(false);
    expect(spec.inputSchema.safeParse({ operation: "list", cursor: null, limit: null }).success).toBe(true); // strict mode's null = absent
    expect(spec.inputSchema.safeParse({ operation: "delete" }).success).toBe(false);
    const file = tools.find((t) => t.name === "file") as AnyTool;
    await expect(file.invoke({ op: "replace", path: "a.txt", old: "x" })).rejects.toThrow(/did not match expected schema/);
    expect(guardSpecOf(file).inputSchema.safeParse({ op: "load", path: "a.txt" }).data).toEqual({ op: "load", path: "a.txt" });
  });
});
