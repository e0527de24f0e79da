import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FieldConditionSchema } from "../src/policy/schema.js";
import { parsePermissionRules } from "../src/policy/permissions.js";
import { plainCondition } from "../src/policy/rules-once.js";

/**
 * Building a policy reads plain `where` conditions without the schema (plainCondition). It must
 * never accept what FieldConditionSchema refuses, and what it accepts it must output exactly as the
 * schema does (same data, same key order). The conditions are generated near the schema's edges:
 * every leaf key with right and wrong values, two matchers at once, caseSensitive with exists, base
 * without path, numeric bounds out of order, connectives with empty or bad lists.
 */

const scalars = fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.double(), fc.boolean(), fc.constant(""), fc.constant(null));
const anyValue = fc.oneof(scalars, fc.array(scalars, { maxLength: 3 }), fc.constant(undefined), fc.constant({}), fc.constant(["a", ""]));
const leafKey = fc.constantFrom("equals", "in", "glob", "regex", "prefix", "exists", "path", "base", "command", "url", "domain", "email", "caseSensitive", "sameAs", "from", "lt", "between", "bogus");

function valueFor(key: string): fc.Arbitrary<unknown> {
  switch (key) {
    case "equals":
      return fc.oneof(scalars, anyValue);
    case "in":
      return fc.oneof(fc.array(scalars, { maxLength: 3 }), anyValue);
    case "exists":
    case "caseSensitive":
      return fc.oneof(fc.boolean(), anyValue);
    case "path":
    case "command":
    case "url":
    case "domain":
    case "email":
      return fc.oneof(fc.string({ maxLength: 4 }), fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }), anyValue);
    case "lt":
      return fc.oneof(fc.double(), fc.integer(), anyValue);
    case "between":
      return fc.oneof(fc.tuple(fc.integer({ min: -3, max: 3 }), fc.integer({ min: -3, max: 3 })), fc.array(fc.double(), { maxLength: 3 }), anyValue);
    default:
      return fc.oneof(fc.string({ maxLength: 4 }), anyValue);
  }
}

const leaf: fc.Arbitrary<Record<string, unknown>> = fc
  .uniqueArray(leafKey, { minLength: 0, maxLength: 3 })
  .chain((keys) => fc.tuple(...keys.map((key) => valueFor(key))).map((values) => Object.fromEntries(keys.map((key, i) => [key, values[i]]))));

/** A leaf the schema accepts (one matcher, right values), with caseSensitive and base sometimes where they mean something. */
const validLeaf: fc.Arbitrary<Record<string, unknown>> = fc
  .record({
    key: fc.constantFrom("equals", "in", "glob", "regex", "prefix", "exists", "path", "command", "url", "domain", "email"),
    text: fc.string({ minLength: 1, maxLength: 4 }),
    list: fc.array(fc.string({ minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }),
    scalar: fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.boolean()),
    caseSensitive: fc.option(fc.boolean(), { nil: undefined }),
    base: fc.option(fc.constant("/w"), { nil: undefined }),
    caseFirst: fc.boolean(),
  })
  .map(({ key, text, list, scalar, caseSensitive, base, caseFirst }) => {
    const value = key === "equals" ? scalar : key === "in" ? list : key === "exists" ? true : ["glob", "regex", "prefix"].includes(key) ? text : caseFirst ? list : text;
    const out: Record<string, unknown> = {};
    if (caseFirst && caseSensitive !== undefined && key !== "exists") out.caseSensitive = caseSensitive;
    out[key] = value;
    if (key === "path" && base !== undefined) out.base = base;
    if (!caseFirst && caseSensitive !== undefined && key !== "exists") out.caseSensitive = caseSensitive;
    return out;
  });

const condition: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: "small", withCrossShrink: true }, { arbitrary: validLeaf, weight: 3 }, { arbitrary: leaf, weight: 2 }, { arbitrary: tie("not"), weight: 1 }, { arbitrary: tie("list"), weight: 1 }, { arbitrary: scalars, weight: 1 }),
  not: fc.record({ not: tie("node") }),
  list: fc.tuple(fc.constantFrom("anyOf", "allOf"), fc.array(tie("node"), { maxLength: 3 })).map(([key, items]) => ({ [key]: items })),
})).node;

describe("plain conditions read without the schema", () => {
  it("accept only what FieldConditionSchema accepts, and output the same, key order included", () => {
    let taken = 0;
    let refused = 0;
    fc.assert(
      fc.property(condition, (value) => {
        const fast = plainCondition(value);
        const parsed = FieldConditionSchema.safeParse(value);
        if (!parsed.success) refused += 1;
        if (fast === undefined) return;
        taken += 1;
        expect(parsed.success, JSON.stringify(value)).toBe(true);
        if (!parsed.success) return;
        expect(JSON.stringify(fast)).toBe(JSON.stringify(parsed.data));
        expect(fast).toStrictEqual(parsed.data);
      }),
      { numRuns: 4000, seed: 20261129 },
    );
    // Not vacuous: both sides of the edge are generated.
    expect(taken).toBeGreaterThan(300);
    expect(refused).toBeGreaterThan(300);
  });

  it("the usual shapes are taken without the schema, and a policy built from them reads the same rules", () => {
    const conditions = [
      { equals: "a" },
      { in: ["a", 1, true] },
      { regex: "x", caseSensitive: true },
      { caseSensitive: false, glob: "*.md" },
      { path: ["/etc/**"], base: "/w" },
      { command: "git push:*" },
      { not: { prefix: "b" } },
      { anyOf: [{ equals: "a" }, { allOf: [{ gt: 1 }, { lte: 5 }] }] },
      { between: [1, 2] },
      { exists: false },
    ];
    for (const value of conditions) {
      const fast = plainCondition(value);
      expect(fast, JSON.stringify(value)).toBeDefined();
      expect(fast).toStrictEqual(FieldConditionSchema.parse(value));
    }
    const rules = conditions.map((value, i) => ({ tool: `t${i}`, where: { f: value }, mode: "deny" as const }));
    const read = parsePermissionRules(rules);
    expect(read.map((rule) => rule.where?.f)).toStrictEqual(conditions.map((value) => FieldConditionSchema.parse(value)));
  });

  it("what the schema refuses is still refused with its own message", () => {
    expect(() => parsePermissionRules([{ tool: "t", where: { f: { glob: "a", base: "/w" } }, mode: "deny" }])).toThrow(/base only has a meaning with path/);
    expect(() => parsePermissionRules([{ tool: "t", where: { f: { exists: true, caseSensitive: true } }, mode: "deny" }])).toThrow(/caseSensitive has no meaning with exists/);
    expect(() => parsePermissionRules([{ tool: "t", where: { f: { between: [3, 1] } }, mode: "deny" }])).toThrow(/low bound is above the high bound/);
    expect(() => parsePermissionRules([{ tool: "t", where: { f: { equals: "a", prefix: "b" } }, mode: "deny" }])).toThrow(/expected exactly one of/);
  });
});
