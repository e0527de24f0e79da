// withoutStrictNulls runs on every reviewed call; W2 made it skip scalars before any schema lookup.
// This compares it with the plain definition (kept here as the reference) over generated schemas
// and arguments: the same output, and the same object back when nothing is dropped (a list too: the
// review no longer copies a call's arguments because they hold a list).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { withoutStrictNulls } from "../src/tools/schema.js";
import type { JsonSchema } from "../src/tools/types.js";

type Node = Record<string, unknown>;

function acceptsNull(node: Node): boolean {
  if (node.type === "null" || (Array.isArray(node.type) && node.type.includes("null"))) return true;
  if (Array.isArray(node.enum) && node.enum.includes(null)) return true;
  if (node.const === null) return true;
  for (const key of ["anyOf", "oneOf"]) {
    const branches = node[key];
    if (Array.isArray(branches) && branches.some((b) => b !== null && typeof b === "object" && acceptsNull(b as Node))) return true;
  }
  return Object.keys(node).length === 0;
}

/** The definition: every optional field whose schema does not accept null loses its null, at every depth. */
function reference(value: unknown, node: Node): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const items = node.items;
    if (items === null || typeof items !== "object" || Array.isArray(items)) return value;
    // A list whose items all come back as they are is the same list (nothing dropped).
    const mapped = value.map((v) => reference(v, items as Node));
    return mapped.every((v, i) => v === value[i]) ? value : mapped;
  }
  const props = node.properties;
  if (props === null || typeof props !== "object") return value;
  const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
  let out: Record<string, unknown> | undefined;
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
    const sub = (props as Record<string, unknown>)[key];
    if (sub === null || typeof sub !== "object") continue;
    const next = field === null && !required.has(key) && !acceptsNull(sub as Node) ? undefined : reference(field, sub as Node);
    if (next === field) continue;
    out ??= { ...(value as Record<string, unknown>) };
    if (next === undefined) delete out[key];
    else out[key] = next;
  }
  return out ?? value;
}

const KEYS = ["a", "b", "c", "constructor", "__proto__"];

/** Same keys in the same order, same prototypes, same leaves (toStrictEqual reads an own `constructor` key as the class). */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length || keysA.some((key, i) => key !== keysB[i])) return false;
  return keysA.every((key) => same((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

const schema: fc.Arbitrary<Node> = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom<Node>({ type: "string" }, { type: ["string", "null"] }, { enum: ["x", null] }, { const: null }, {}, { anyOf: [{ type: "number" }, { type: "null" }] }),
    fc.record({ type: fc.constant("object"), properties: fc.dictionary(fc.constantFrom(...KEYS), tie("node") as fc.Arbitrary<Node>, { maxKeys: 3 }), required: fc.subarray(KEYS) }),
    fc.record({ type: fc.constant("array"), items: tie("node") as fc.Arbitrary<Node> }),
  ),
})).node as fc.Arbitrary<Node>;

const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom(null, null, "s", 1, true, undefined),
    fc.array(tie("node"), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom(...KEYS), tie("node"), { maxKeys: 4 }),
  ),
})).node;

describe("withoutStrictNulls", () => {
  it("gives what the plain definition gives, and the same object when nothing is dropped", () => {
    fc.assert(
      fc.property(schema, value, (node, args) => {
        const got = withoutStrictNulls(args, node as JsonSchema);
        const want = reference(args, node);
        expect(same(got, want)).toBe(true);
        if (want === args) expect(got).toBe(args);
      }),
      { numRuns: 2000 },
    );
  });

  it("reads own keys only: a null inherited from the prototype is not a field of the arguments", () => {
    fc.assert(
      fc.property(schema, value, value, (node, proto, args) => {
        if (proto === null || typeof proto !== "object" || Array.isArray(proto) || args === null || typeof args !== "object" || Array.isArray(args)) return;
        const withProto = Object.assign(Object.create(proto) as Record<string, unknown>, args);
        const got = withoutStrictNulls(withProto, node as JsonSchema);
        expect(same(got, reference(withProto, node))).toBe(true);
        if (reference(withProto, node) === withProto) expect(got).toBe(withProto);
      }),
      { numRuns: 1000 },
    );
  });
});
