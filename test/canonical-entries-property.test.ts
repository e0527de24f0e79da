import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalArgs, canonicalize } from "../src/policy/canonical.js";
import { normalizeString } from "../src/policy/normalize.js";

// canonicalize builds every object's entries on one stack shared by all levels. Compared here with
// a plain recursive build (its own arrays per object, Array.prototype.sort, which is stable): keys
// sorted at every depth, keys normalised, keys that normalise alike keep all their values in order.

/** The canonical tree of `value` for strings that hold no JSON, written the obvious way. */
function reference(value: unknown): unknown {
  if (typeof value === "string") return normalizeString(value);
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value !== "object" || value === null) return value === undefined ? undefined : value;
  if (Array.isArray(value)) return value.map((item) => reference(item) ?? null);
  const entries: [string, unknown][] = [];
  for (const key of Object.keys(value)) {
    const built = reference((value as Record<string, unknown>)[key]);
    if (built !== undefined) entries.push([normalizeString(key), built]);
  }
  entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const seen = new Map<string, unknown[]>();
  for (const [key, built] of entries) seen.set(key, [...(seen.get(key) ?? []), built]);
  for (const [key, values] of seen) out[key] = values.length === 1 ? values[0] : values;
  return out;
}

// Look-alike keys (fullwidth, Cyrillic, zero-width, spaced) normalise onto plain ones: duplicates after normalisation.
const key = fc.oneof(
  fc.constantFrom("a", "b", "c", "cmd", "ｃｍｄ", "сmd", "c\u200bmd", " cmd ", "z", "Z", "aa", "__proto__", "10", "2", "path", "раth"),
  fc.string({ maxLength: 4 }).filter((k) => !/^\s*[[{"]/.test(k)),
);
const text = fc.oneof(fc.constantFrom("ls -la", "ｒｍ -rf", "x\u00a0y", "  a  b ", "é", "e\u0301"), fc.string({ maxLength: 6 })).filter((s) => !/^\s*[[{"]/.test(s) && !/^\s*[[{"]/.test(normalizeString(s)));
const tree = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small" },
    text,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("v"), { maxLength: 4 }),
    // Up to 24 keys: the sort above 16 entries takes another path.
    fc.dictionary(key, tie("v"), { maxKeys: 24 }),
  ),
})).v;

describe("canonicalize on one shared entry stack", () => {
  it("equals a plain recursive build (sorted keys, normalised keys, duplicates kept in order)", () => {
    fc.assert(
      fc.property(fc.dictionary(key, tree, { maxKeys: 24 }), (args) => {
        expect(JSON.parse(canonicalArgs(args))).toEqual(JSON.parse(JSON.stringify(reference(args))));
        const view = canonicalize(args);
        expect(JSON.parse(view.text)).toEqual(JSON.parse(JSON.stringify(reference(args))));
      }),
      { numRuns: 600, seed: 20261127 },
    );
  });

  it("a build that throws midway (a toJSON, nesting too deep) does not change the next one", () => {
    fc.assert(
      fc.property(fc.dictionary(key, tree, { maxKeys: 12 }), fc.dictionary(key, tree, { maxKeys: 12 }), (before, after) => {
        const throwing = { ...before, zz: { toJSON: () => { throw new Error("boom"); } } };
        expect(() => canonicalize(throwing)).toThrow("boom");
        let deep: unknown = "x";
        for (let i = 0; i < 40; i++) deep = { k: deep, [`s${i}`]: i };
        expect(canonicalize({ ...before, deep }).oversized).toBe(true);
        expect(JSON.parse(canonicalize(after).text)).toEqual(JSON.parse(JSON.stringify(reference(after))));
      }),
      { numRuns: 200, seed: 7 },
    );
  });

  it("reads own enumerable keys only, as Object.keys lists them", () => {
    fc.assert(
      fc.property(fc.dictionary(key, tree, { maxKeys: 8 }), fc.dictionary(key, tree, { maxKeys: 8 }), (proto, own) => {
        const args = Object.assign(Object.create(proto) as Record<string, unknown>, own);
        Object.defineProperty(args, "hidden", { value: "not enumerable", enumerable: false });
        expect(JSON.parse(canonicalArgs(args))).toEqual(JSON.parse(JSON.stringify(reference(args))));
      }),
      { numRuns: 300, seed: 11 },
    );
  });

  it("a toJSON that canonicalises again while an object is being built", () => {
    const inner = { b: 1, a: { d: 2, c: 3 } };
    const args = { z: 1, m: { toJSON: () => JSON.parse(canonicalArgs(inner)) as unknown }, a: 2 };
    expect(canonicalArgs(args)).toBe('{"a":2,"m":{"a":{"c":3,"d":2},"b":1},"z":1}');
  });
});
