import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, schemaFor, ToolRegistry } from "../src/tools/index.js";

const fileTool = defineTool({
  name: "file",
  description: "Read and write files",
  schema: z.object({
    operation: z.enum(["read", "append", "patch", "save"]),
    path: z.string(),
    content: z.string().optional(),
    position: z.uint32().optional(),
  }),
  isConcurrencySafe: (input) => input.operation === "read",
  execute: (input) => `${input.operation} ${input.path}`,
});

const blockTool = defineTool({
  name: "block",
  description: "Block lifecycle",
  schema: z.discriminatedUnion("op", [
    z.object({ op: z.literal("load"), label: z.string() }),
    z.object({ op: z.literal("pin"), label: z.string() }),
    z.object({ op: z.literal("info"), label: z.string(), verbose: z.boolean().optional() }),
  ]),
  execute: (input) => input.op,
});

const described = defineTool({
  name: "described",
  description: "Operations described with oneOf consts",
  schema: z.object({
    operation: z.union([z.literal("a").describe("first"), z.literal("b").describe("second"), z.literal("c")]),
  }),
  execute: () => "ok",
});

describe("defineTool", () => {
  it("derives operations from the schema", () => {
    expect(fileTool.guard.operations).toEqual(["read", "append", "patch", "save"]);
    expect(fileTool.guard.operationKey).toBe("operation");
    expect(blockTool.guard.operations).toEqual(["load", "pin", "info"]);
    expect(blockTool.guard.operationKey).toBe("op");
    expect(described.guard.operations).toEqual(["a", "b", "c"]);
  });

  it("is a real LangChain tool", async () => {
    const message = await fileTool.invoke({
      id: "call_1",
      name: "file",
      args: { operation: "read", path: "a.txt" },
      type: "tool_call",
    });
    expect(message.content).toBe("read a.txt");
    expect(message.tool_call_id).toBe("call_1");
  });

  it("decides concurrency safety per input", () => {
    expect(fileTool.guard.isConcurrencySafe({ operation: "read", path: "x" })).toBe(true);
    expect(fileTool.guard.isConcurrencySafe({ operation: "save", path: "x" })).toBe(false);
    expect(blockTool.guard.isConcurrencySafe({ op: "load", label: "x" })).toBe(false);
  });

  it("emits inlined MCP-compatible schemas without unsigned formats", () => {
    const text = JSON.stringify(fileTool.guard.jsonSchema);
    expect(text).not.toContain("$ref");
    expect(text).not.toContain("$schema");
    expect(text).not.toMatch(/"format":"uint/);
    expect(blockTool.guard.jsonSchema.type).toBe("object");
  });

  it("refuses an operationKey with no values", () => {
    expect(() =>
      defineTool({
        name: "bad",
        description: "x",
        schema: z.object({ mode: z.string() }),
        operationKey: "mode",
        execute: () => "",
      }),
    ).toThrow(/operationKey "mode"/);
  });
});

describe("schemaFor", () => {
  it("filters a plain enum", () => {
    const schema = schemaFor(fileTool, ["read", "append"]);
    expect((schema.properties as Record<string, { enum: string[] }>).operation?.enum).toEqual(["read", "append"]);
  });

  it("filters oneOf/anyOf consts", () => {
    const schema = schemaFor(described, ["b"]);
    const field = (schema.properties as Record<string, { anyOf: { const: string }[] }>).operation;
    expect(field?.anyOf.map((v) => v.const)).toEqual(["b"]);
  });

  it("a discriminated union is published flat; filtering keeps the allowed operations and only their fields", () => {
    const full = schemaFor(blockTool);
    expect(full.oneOf ?? full.anyOf ?? full.allOf).toBeUndefined();
    const schema = schemaFor(blockTool, ["info"]);
    const properties = schema.properties as Record<string, { enum?: string[] }>;
    expect(properties.op?.enum).toEqual(["info"]);
    expect(Object.keys(properties).sort()).toEqual(["label", "op", "verbose"]);
    expect(Object.keys(schemaFor(blockTool, ["pin"]).properties as object).sort()).toEqual(["label", "op"]); // verbose is info's only
  });

  it("returns the full schema without a filter and never mutates the tool's schema", () => {
    schemaFor(fileTool, ["read"]);
    expect(schemaFor(fileTool)).toEqual(fileTool.guard.jsonSchema);
    expect((fileTool.guard.jsonSchema.properties as Record<string, { enum: string[] }>).operation?.enum).toHaveLength(4);
  });
});

describe("ToolRegistry", () => {
  it("registers, gets, lists and produces gated definitions", () => {
    const registry = new ToolRegistry([fileTool, blockTool]);
    expect(registry.names()).toEqual(["file", "block"]);
    expect(registry.get("file")).toBe(fileTool);
    expect(() => registry.register(fileTool)).toThrow(/already registered/);
    const defs = registry.definitions([{ name: "file", operations: ["read"] }]);
    expect(defs).toHaveLength(1);
    expect(defs[0]?.function.name).toBe("file");
    expect(JSON.stringify(defs[0]?.function.parameters)).not.toContain("append");
    expect(registry.catalog().get("block")).toEqual(["load", "pin", "info"]);
  });
});
