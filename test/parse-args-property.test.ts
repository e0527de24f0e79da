import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, guardSpecOf } from "../src/tools/index.js";
import { formatIssues, parseToolArguments } from "../src/tools/parse-args.js";

// parseToolArguments runs a zod 4 schema's own parse step and finalises only the issues it shows:
// its answer must be safeParse's (the data, or the text of the first five issues) for every input.

const flatTool = defineTool({
  name: "orders",
  description: "Orders",
  schema: z.discriminatedUnion("operation", [
    z.object({ operation: z.literal("get"), id: z.uint64() }),
    z.object({ operation: z.literal("list"), limit: z.number().int().nonnegative().optional(), cursor: z.string().optional() }),
    z.object({ operation: z.literal("refund"), id: z.uint64(), amount: z.uint32(), reason: z.object({ code: z.enum(["damaged", "late"]), note: z.string().max(20).optional() }) }),
  ]),
  execute: () => "ok",
});

const SCHEMAS: Record<string, z.ZodType> = {
  shell: z.object({ command: z.string(), cwd: z.string().optional(), env: z.record(z.string(), z.string()).optional(), timeout: z.number().optional() }),
  file: z.object({ operation: z.enum(["read", "write", "delete"]), file_path: z.string(), options: z.object({ recursive: z.boolean(), encoding: z.string().optional() }).optional() }),
  db: z.object({ database: z.string(), query: z.string(), params: z.array(z.union([z.string(), z.number()])).optional(), opts: z.object({ timeoutMs: z.number(), readonly: z.boolean() }) }),
  strictObject: z.strictObject({ a: z.string(), b: z.number().int().min(0).max(10) }),
  messages: z.object({
    name: z.string({ error: "a name, please" }).min(2, "too short"),
    age: z.number().refine((n) => n % 2 === 0, { message: "even ages only" }),
    tags: z.array(z.string().regex(/^[a-z]+$/)).max(3),
  }),
  transformed: z.object({ n: z.string().transform((s) => s.length), when: z.coerce.number() }),
  defaults: z.object({ mode: z.enum(["a", "b"]).default("a"), list: z.array(z.number()).default([]) }),
  nested: z.object({ outer: z.object({ inner: z.array(z.object({ k: z.literal("x"), v: z.boolean() })) }) }),
  record: z.record(z.string(), z.unknown()),
  flat: guardSpecOf(flatTool).inputSchema as z.ZodType,
  superRefined: z.object({ a: z.number(), b: z.number() }).superRefine((v, ctx) => {
    if (v.a > v.b) ctx.addIssue({ code: "custom", message: "a after b", path: ["a"] });
    if (v.a === v.b) for (let i = 0; i < 7; i++) ctx.addIssue({ code: "custom", message: `same ${i}`, path: [i] });
  }),
};

const keys = fc.constantFrom("command", "cwd", "env", "timeout", "operation", "file_path", "options", "recursive", "database", "query", "params", "opts", "timeoutMs", "readonly", "a", "b", "name", "age", "tags", "n", "when", "mode", "list", "outer", "inner", "k", "v", "id", "limit", "cursor", "amount", "reason", "code", "note", "__proto__", "constructor");
const leaf = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.constantFrom("read", "write", "get", "list", "refund", "damaged", "x", "abc", "a", "b", "12", ""),
  fc.integer({ min: -5, max: 30 }),
  fc.double({ noNaN: false }),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.bigInt({ min: -3n, max: 3n }),
);
const value = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof({ depthSize: "small", withCrossShrink: true }, leaf, fc.array(tie("v"), { maxLength: 4 }), fc.dictionary(keys, tie("v"), { maxKeys: 6 })),
})).v;
/** Objects with the schemas' own keys (so many parse, and many fail one field deep) and anything else. */
const input = fc.oneof(fc.dictionary(keys, value, { maxKeys: 8 }), value);

function viaSafeParse(schema: z.ZodType, args: unknown) {
  const parsed = schema.safeParse(args);
  return parsed.success ? { success: true as const, data: parsed.data } : { success: false as const, detail: formatIssues(parsed.error.issues) };
}

describe("parseToolArguments equals safeParse", () => {
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    it(`${name}: the same data or the same issue text`, () => {
      fc.assert(
        fc.property(input, (args) => {
          expect(parseToolArguments(schema, args)).toEqual(viaSafeParse(schema, args));
        }),
        { numRuns: 400, seed: 2611 + name.length },
      );
    });
  }

  it("calls that fail: more than five issues are cut to five, custom messages and paths kept", () => {
    const schema = SCHEMAS.superRefined!;
    const got = parseToolArguments(schema, { a: 1, b: 1 });
    expect(got).toEqual(viaSafeParse(schema, { a: 1, b: 1 }));
    expect(got).toEqual({ success: false, detail: "0: same 0; 1: same 1; 2: same 2; 3: same 3; 4: same 4" });
    expect(parseToolArguments(SCHEMAS.messages!, { name: "a", age: 3, tags: ["x"] })).toEqual({ success: false, detail: "name: too short; age: even ages only" });
    expect(parseToolArguments(SCHEMAS.shell!, "text")).toEqual(viaSafeParse(SCHEMAS.shell!, "text"));
  });

  it("a locale or custom error map in zod's configuration is read as safeParse reads it", () => {
    const schema = SCHEMAS.db!;
    const args = { database: 3, query: "q" };
    try {
      z.config({ customError: (issue) => `custom ${issue.code}` });
      expect(parseToolArguments(schema, args)).toEqual(viaSafeParse(schema, args));
      expect(parseToolArguments(schema, args)).toEqual({ success: false, detail: "database: custom invalid_type; opts: custom invalid_type" });
    } finally {
      z.config({ customError: undefined });
    }
  });

  it("an async schema throws as safeParse does", () => {
    const schema = z.object({ a: z.string().refine(async () => true) });
    expect(() => schema.safeParse({ a: "x" })).toThrow();
    expect(() => parseToolArguments(schema, { a: "x" })).toThrow(z.core.$ZodAsyncError);
  });
});
