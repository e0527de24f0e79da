// Session 4 (W2, second pass) fast paths give the answers of the code they replace, on generated input:
// - needsJsonEscape (a loop) answers as the regex it replaced, on every kind of UTF-16 text;
// - someJsonToken (arrays by index, canonical objects by for-in) tests the same texts, in the same
//   order, as the Object.keys walk it replaced, and finds what the rendered canonical text holds;
// - the unrolled single-key getter of compileDirectGetter answers as the general loop;
// - refusals.denied's fast path gives the sentence the trim/strip/sentence path gives.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { refusals } from "../src/messages/index.js";
import { canonicalize, needsJsonEscape, someJsonToken } from "../src/policy/canonical.js";
import { DuplicateValues, EmbeddedJson } from "../src/policy/json-dup.js";
import { compileDirectGetter, parseSelector } from "../src/policy/selector.js";
import { referenceGetter } from "./helpers/reference-getter.js";

const RUNS = 2_000;

/** Texts mixing ASCII, quotes, backslashes, control characters, lone and paired surrogates, Unicode spaces. */
const anyText = fc
  .array(
    fc.oneof(
      fc.constantFrom("a", "Z", " ", ".", "!", "?", '"', "\\", "\u0000", "\u001f", "\u0020", "\u007f", "\u00a0", "\u2028", "\ufeff", "\t", "\n", "\ud800", "\udfff", "\ud83d\ude00", "{", "["),
      fc.string({ unit: "grapheme", maxLength: 3 }),
      fc.string({ unit: "binary", maxLength: 3 }),
    ),
    { maxLength: 8 },
  )
  .map((parts) => parts.join(""));

/** Arguments with nested objects, arrays, JSON inside strings, duplicate-after-normalisation keys, odd keys. */
const argsArb: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    anyText,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom('{"a":1,"b":["x"]}', '["secret", 2]', '"{\\"k\\":\\"v\\"}"', '{"a":1,"a":2}'),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(anyText, fc.constantFrom("__proto__", "toString", "0", "10", "ｋｅｙ", "key", "a")), tie("value"), { maxKeys: 5 }),
  ),
})).value;

/** The someJsonToken walk before this change (Object.keys for every object), as the reference. */
function referenceTokens(tree: unknown, test: (text: string) => boolean, minLength: number): boolean {
  const tokenText = (text: string) => (/["\\\u0000-\u001F\uD800-\uDFFF]/.test(text) ? JSON.stringify(text) : text);
  const token = (raw: string) => {
    const text = tokenText(raw);
    return text.length >= minLength && test(text);
  };
  if (typeof tree === "string") return token(tree);
  if (typeof tree === "number" || typeof tree === "boolean" || tree === null) {
    const text = typeof tree === "number" ? (Number.isFinite(tree) ? String(tree) : "null") : tree === null ? "null" : tree ? "true" : "false";
    return text.length >= minLength && test(text);
  }
  if (typeof tree !== "object") return false;
  if (tree instanceof EmbeddedJson) return referenceTokens(tree.parsed, test, minLength);
  const items = tree instanceof DuplicateValues ? tree.values : Array.isArray(tree) ? (tree as unknown[]) : undefined;
  if (items !== undefined) {
    for (const item of items) if (referenceTokens(item, test, minLength)) return true;
    return false;
  }
  for (const key of Object.keys(tree)) if (token(key) || referenceTokens((tree as Record<string, unknown>)[key], test, minLength)) return true;
  return false;
}

describe("needsJsonEscape", () => {
  it("answers as /[\"\\\\\\u0000-\\u001F\\uD800-\\uDFFF]/ on generated texts and on every code unit", () => {
    const re = /["\\\u0000-\u001F\uD800-\uDFFF]/;
    for (let code = 0; code <= 0xffff; code++) {
      const text = `ab${String.fromCharCode(code)}c`;
      expect(needsJsonEscape(text), `U+${code.toString(16)}`).toBe(re.test(text));
    }
    fc.assert(fc.property(anyText, (text) => needsJsonEscape(text) === re.test(text)), { numRuns: RUNS });
  });
});

describe("someJsonToken's walk", () => {
  it("tests the same texts in the same order as the Object.keys walk, on both canonical views and raw trees", () => {
    fc.assert(
      fc.property(argsArb, fc.integer({ min: 0, max: 12 }), fc.nat(), (args, minLength, stopAt) => {
        const view = canonicalize(args);
        for (const tree of [view.value, view.literal, args]) {
          const seen: string[] = [];
          const expected: string[] = [];
          // Stops at the stopAt-th text tested: both walks must stop at the same place with the same answer.
          const fast = someJsonToken(tree, (text) => seen.push(text) > stopAt % 20, minLength);
          const reference = referenceTokens(tree, (text) => expected.push(text) > stopAt % 20, minLength);
          expect(fast).toBe(reference);
          expect(seen).toEqual(expected);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it("finds a literal in some token exactly when the canonical text holds it inside one token", () => {
    fc.assert(
      fc.property(argsArb, fc.constantFrom("a", "secret", "null", "true", "1", "\\u", "é"), (args, needle) => {
        const view = canonicalize(args);
        if (view.oversized) return;
        const found = someJsonToken(view.value, (text) => text.includes(needle));
        expect(found).toBe(referenceTokens(view.value, (text) => text.includes(needle), 0));
        if (found) expect(view.text.includes(needle)).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });
});

describe("compileDirectGetter's one-key getter", () => {
  it("answers as the general loop on canonical views, raw trees, arrays, duplicated keys and embedded JSON", () => {
    const keys = ["a", "key", "0", "10", "__proto__", "toString", "constructor", "length", "x.y"];
    const trees = fc.oneof(
      argsArb,
      argsArb.map((args) => canonicalize(args).value),
      argsArb.map((args) => canonicalize(args).literal),
      fc.array(argsArb, { maxLength: 3 }).map((values) => new DuplicateValues(values)),
      argsArb.map((parsed) => new EmbeddedJson("{}", parsed)),
      fc.constantFrom(...keys).chain((key) => argsArb.map((value) => ({ [key]: value }))),
      fc.constantFrom(...keys).chain((key) => argsArb.map((value) => canonicalize({ [key]: value }).value)),
    );
    for (const key of keys) {
      const selector = `[${JSON.stringify(key)}]`;
      const segments = parseSelector(selector);
      const fast = compileDirectGetter(segments)!;
      const reference = referenceGetter(segments.map((segment) => ("key" in segment ? segment.key : (segment as { index: number }).index)));
      fc.assert(fc.property(trees, (tree) => Object.is(fast(tree), reference(tree))), { numRuns: RUNS / 4 });
      expect(fast({ [key]: 1 })).toBe(1);
      expect(fast(Object.create({ [key]: 1 }))).toBe(undefined);
    }
  });
});

describe("refusals.denied's fast path", () => {
  it("gives the sentence of trim, strip trailing dots and spaces, and sentence()", () => {
    const reference = (tool: string, ruleId: string, reason: string) => {
      const text = `Refused ${tool} by rule ${ruleId}: ${reason.trim().replace(/[.\s]+$/, "")}`.trim();
      return /[.!?]$/.test(text) ? text : `${text}.`;
    };
    const ends = fc.constantFrom("", " ", ".", "!", "?", "a", "\u00a0", "\n", "\u2028", "..", ". ", "\ud800", "é", "~", "\u007f");
    fc.assert(
      fc.property(anyText, anyText, ends, anyText, ends, (tool, ruleId, start, middle, end) => {
        const reason = `${start}${middle}${end}`;
        expect(refusals.denied(tool, ruleId, reason)).toBe(reference(tool, ruleId, reason));
      }),
      { numRuns: RUNS * 5 },
    );
  });
});
