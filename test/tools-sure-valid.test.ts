// surelyValid (src/tools/sure-valid.ts) is one-sided: whenever it says a schema surely accepts a
// value, zod's own parse of that value succeeds. Checked on generated schemas of the plain kinds
// and of kinds it must leave to zod, and on generated values (JSON-like, odd objects, look-alikes).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { surelyValid } from "../src/tools/sure-valid.js";

enum Numeric {
  A = 0,
  B = 1,
}

class Instance {
  a = "x";
  n = 1;
}

const leaves: z.ZodType[] = [
  z.string(), z.number(), z.boolean(), z.null(), z.unknown(), z.any(), z.enum(["a", "b"]), z.literal("x"), z.literal(1), z.literal(true),
  z.enum(Numeric), z.string().min(2), z.email(), z.uuid(), z.int(), z.number().int(), z.string().refine((s) => s !== "a"), z.nan(),
  z.string().describe("d"), z.string({ error: "no" }), z.string().brand<"B">(), z.string().default("d"), z.coerce.number(), z.url(),
];

const schema: fc.Arbitrary<z.ZodType> = fc.letrec<{ node: z.ZodType }>((tie) => ({
  node: fc.oneof(
    { maxDepth: 3 },
    fc.constantFrom(...leaves),
    tie("node").map((s) => s.optional()),
    tie("node").map((s) => s.nullable()),
    tie("node").map((s) => z.array(s)),
    tie("node").map((s) => z.array(s).min(1)),
    tie("node").map((s) => z.record(z.string(), s)),
    tie("node").map((s) => z.record(z.string().min(2), s)),
    fc.tuple(tie("node"), tie("node")).map(([a, b]) => z.union([a, b])),
    fc.tuple(tie("node"), tie("node")).map(([a, b]) => z.xor([a, b])),
    fc.tuple(tie("node"), tie("node")).map(([a, b]) => z.object({ a, b })),
    fc.tuple(tie("node"), tie("node")).map(([a, b]) => z.strictObject({ a, b })),
    fc.tuple(tie("node"), tie("node")).map(([a, b]) => z.looseObject({ a, b })),
    fc.tuple(tie("node"), tie("node")).map(([a, b]) => z.discriminatedUnion("k", [z.object({ k: z.literal("p"), a }), z.object({ k: z.literal("q"), b })])),
    tie("node").map((s) => s.transform((v) => v)),
  ),
})).node;

const value: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { maxDepth: 3 },
    fc.constantFrom<unknown>("a", "b", "x", "", "p", "q", "A", "B", "0", "1", "user@example.com", "not an email", 0, 1, 1.5, -0, Number.NaN, Number.POSITIVE_INFINITY, true, false, null, undefined, 10n, Symbol.for("s"), new Instance(), new Date(0), new String("a"), []),
    fc.array(tie("v"), { maxLength: 3 }),
    fc.record({ a: tie("v"), b: tie("v") }, { requiredKeys: [] }),
    fc.record({ k: fc.constantFrom("p", "q", "r"), a: tie("v"), b: tie("v") }, { requiredKeys: ["k"] }),
    fc.dictionary(fc.constantFrom("a", "b", "c", "constructor", "__proto__"), tie("v"), { maxKeys: 3 }),
    tie("v").map((inner) => Object.assign(Object.create(null) as object, { a: inner })),
    tie("v").map((inner) => ({ a: inner, [Symbol.for("k")]: 1 })),
  ),
})).v;

describe("surelyValid", () => {
  it("never says a value is valid that zod refuses (generated schemas and values)", () => {
    let sure = 0;
    fc.assert(
      fc.property(schema, fc.array(value, { minLength: 1, maxLength: 8 }), (s, values) => {
        for (const v of values) {
          if (!surelyValid(s, v)) continue;
          sure += 1;
          expect(s.safeParse(v).success, fc.stringify(v)).toBe(true);
        }
      }),
      { numRuns: 5_000 },
    );
    expect(sure).toBeGreaterThan(150); // the check answers often enough to matter
  });

  it("leaves formats, checks, refinements, coercion, defaults, transforms, strict and exclusive schemas to zod", () => {
    for (const [s, v] of [
      [z.email(), "x"], [z.int(), 1.5], [z.number().int(), 1.5], [z.string().min(2), "a"], [z.string().refine(() => false), "a"],
      [z.coerce.number(), "x"], [z.string().default("d"), undefined], [z.string().transform((x) => x), "a"], [z.strictObject({ a: z.string() }), { a: "x", b: 1 }],
      [z.xor([z.string(), z.string()]), "a"], [z.enum(Numeric), "A"], [z.record(z.string(), z.string()), { a: "x", [Symbol.for("k")]: "y" }],
    ] as [z.ZodType, unknown][]) {
      expect(surelyValid(s, v), JSON.stringify(v)).toBe(false);
    }
    const plain = z.object({ command: z.string(), env: z.record(z.string(), z.string()).optional(), mode: z.enum(["a", "b"]), n: z.number().optional(), tags: z.array(z.string()) });
    expect(surelyValid(plain, { command: "ls", env: { A: "1" }, mode: "a", tags: ["x"], extra: 1 })).toBe(true);
    expect(surelyValid(plain, { command: "ls", mode: "c", tags: [] })).toBe(false);
  });
});
