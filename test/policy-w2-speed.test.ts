// Session 5 (W2, third pass) fast paths give the answers of the code they replace, on generated input:
// - an `args` literal search first looks for a character every literal holds and no other character
//   folds onto (re2js is the reference; every code point is tried for the folding claim);
// - a `prefix` matcher compares the first characters folded instead of folding the whole text;
// - the direct getters read a canonical object's key without the checks other trees need;
// - a condition on a field holding a string skips `judge`'s list / duplicate / embedded-JSON checks;
// - the value index also keys `prefix` / `glob` / `regex` rules by the characters their matches start
//   with (globLiteralStart, SafeRegex.start): decisions and explain traces equal the linear scan's.
import fc from "fast-check";
import { RE2JS } from "re2js";
import { describe, expect, it } from "vitest";
import { canonicalize } from "../src/policy/canonical.js";
import { globLiteralStart } from "../src/policy/glob.js";
import { DuplicateValues, EmbeddedJson } from "../src/policy/json-dup.js";
import { linearScanForTests, PermissionPolicy, type PermissionRule } from "../src/policy/permissions.js";
import picomatch from "picomatch";
import { compileFieldCondition, startsWithFolded, YES } from "../src/policy/matchers.js";
import type { FieldMatcher, PermissionMode } from "../src/policy/types.js";
import type { ConditionSpec } from "../src/provenance/schema.js";
import { foldCase } from "../src/policy/normalize.js";
import { compileSafeRegex, sharedCaselessChar } from "../src/policy/regex.js";
import { compileDirectGetter, parseSelector } from "../src/policy/selector.js";
import { referenceGetter } from "./helpers/reference-getter.js";

const RUNS = 2_000;

/** Printable ASCII that is not a letter: the characters `sharedCaselessChar` may pick. */
const CASELESS = Array.from({ length: 0x5f }, (_, i) => String.fromCharCode(0x20 + i)).filter((ch) => !/[A-Za-z]/.test(ch));

describe("an `args` literal search looks for a shared caseless character first", () => {
  it("no other code point folds onto printable ASCII that is not a letter (JavaScript `iu` on every code point, re2js on the BMP)", () => {
    const escape = (ch: string) => ch.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
    const js = new RegExp(`[${CASELESS.map(escape).join("")}]`, "iu");
    const re2 = RE2JS.compile(`[${CASELESS.map((ch) => (/[\w ]/.test(ch) ? ch : `\\${ch}`)).join("")}]`, RE2JS.CASE_INSENSITIVE);
    const own = new Set(CASELESS.map((ch) => ch.codePointAt(0)!));
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      if (js.test(ch) !== own.has(cp)) throw new Error(`U+${cp.toString(16)} folds onto a caseless character (JavaScript)`);
      if (cp <= 0xffff && re2.test(ch) !== own.has(cp)) throw new Error(`U+${cp.toString(16)} folds onto a caseless character (re2js)`);
    }
  });

  it("picks only a caseless character every literal holds", () => {
    expect(sharedCaselessChar(["secret_3", "token_3"])).toBe("_");
    expect(sharedCaselessChar(["a-b", "c-d", "e1-"])).toBe("-");
    expect(sharedCaselessChar(["secret", "token"])).toBeUndefined(); // letters only: K and ſ fold onto k and s
    expect(sharedCaselessChar(["a_1", "b1"])).toBe("1");
    expect(sharedCaselessChar(["x_", "y"])).toBeUndefined();
    fc.assert(
      fc.property(fc.array(fc.string({ unit: fc.constantFrom(..."akKsS01_ -:".split("")), minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 4 }), (needles) => {
        const shared = sharedCaselessChar(needles);
        if (shared === undefined) return;
        expect(CASELESS).toContain(shared);
        for (const needle of needles) expect(needle).toContain(shared);
      }),
      { numRuns: RUNS },
    );
  });

  it("answers as re2js on texts with and without the shared character, case-sensitive or not", () => {
    const literal = fc.string({ unit: fc.constantFrom(..."akKsS0_ -".split("")), minLength: 1, maxLength: 4 });
    const textUnit = fc.constantFrom(..."akKsSx0_ -".split(""), "\u212A", "\u017F", "İ", "ı", "é", "\uD800", "\u0000", "＿");
    fc.assert(
      fc.property(fc.array(literal, { minLength: 1, maxLength: 3 }), fc.boolean(), fc.string({ unit: textUnit, maxLength: 10 }), (literals, caseSensitive, input) => {
        // Literals sharing "_" (the fast path) half of the time.
        const alternatives = literals.map((l, i) => (i % 2 === 0 || input.length % 2 === 0 ? `${l}_` : l));
        const source = alternatives.join("|");
        const reference = RE2JS.compile(source, caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
        const safe = compileSafeRegex(source, { caseSensitive, where: "test" });
        const folded = alternatives[0]!.replace(/k/gi, "\u212A").replace(/s/gi, "\u017F");
        for (const candidate of [input, folded, `${input}${folded}`, `${input}${alternatives[0]!.toUpperCase()}`, input.replaceAll("_", "＿")]) {
          expect(safe.test(candidate), `${source} in ${JSON.stringify(candidate)}`).toBe(reference.test(candidate));
        }
      }),
      { numRuns: RUNS * 2 },
    );
  });
});

describe("a `prefix` matcher folds only the characters it compares", () => {
  it("answers as foldCase(text).startsWith(want) on ASCII, non-ASCII and case-changing texts", () => {
    const unit = fc.constantFrom(..."aAzZ/._- 0".split(""), "İ", "ẞ", "ß", "Σ", "σ", "\u212A", "\u017F", "é", "\uD800", "ﬀ", "\u0130x");
    const wants = fc.oneof(fc.string({ unit, maxLength: 4 }).map(foldCase), fc.constantFrom("", "/srv/", "i̇", "ss", "k"));
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 8 }), wants, (text, want) => {
        expect(startsWithFolded(text, want), `${JSON.stringify(text)} starts with ${JSON.stringify(want)}`).toBe(foldCase(text).startsWith(want));
      }),
      { numRuns: RUNS * 5 },
    );
    expect(startsWithFolded("İx", "i̇")).toBe(true); // U+0130 folds to two characters
    expect(startsWithFolded("/SRV/1", "/srv/")).toBe(true);
    expect(startsWithFolded("/sr", "/srv/")).toBe(false);
  });
});

describe("the direct getters read canonical objects directly", () => {
  const keys = ["a", "key", "0", "__proto__", "toString", "constructor", "hasOwnProperty", "length", "ｋｅｙ"];
  const leaf: fc.Arbitrary<unknown> = fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.constant(null), fc.boolean(), fc.constant('{"a":1,"a":2}'), fc.constant('["key"]'));
  const tree: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
    node: fc.oneof({ depthSize: "small" }, leaf, fc.array(tie("node"), { maxLength: 3 }), fc.dictionary(fc.constantFrom(...keys), tie("node"), { maxKeys: 4 })),
  })).node;
  const trees = fc.oneof(
    tree,
    tree.map((args) => canonicalize(args).value),
    tree.map((args) => canonicalize(args).literal),
    fc.array(tree, { maxLength: 3 }).map((values) => new DuplicateValues(values)),
    tree.map((parsed) => new EmbeddedJson("{}", parsed)),
  );

  it("one key, several keys and indexes: the answers of the general loop, on canonical views and raw trees", () => {
    const selectors = [...keys.map((key) => `[${JSON.stringify(key)}]`), "a.key", "a[0]", "a[0].key", '["__proto__"].toString', "key.a.a", "a[1][0]"];
    for (const selector of selectors) {
      const segments = parseSelector(selector);
      const fast = compileDirectGetter(segments)!;
      const reference = referenceGetter(segments.map((segment) => ("key" in segment ? segment.key : (segment as { index: number }).index)));
      fc.assert(fc.property(trees, (value) => Object.is(fast(value), reference(value))), { numRuns: RUNS / 4 });
    }
    const view = canonicalize(JSON.parse('{"__proto__":{"toString":"x"},"a":[{"key":1}]}') as unknown);
    expect(compileDirectGetter(parseSelector('["__proto__"].toString'))!(view.value)).toBe("x");
    expect(compileDirectGetter(parseSelector("a[0].key"))!(view.value)).toBe(1);
    expect(compileDirectGetter(parseSelector("constructor"))!(view.value)).toBeUndefined();
  });
});

describe("a condition on a field holding a string", () => {
  it("gives the verdict `judge` gives the same string as the only value of a duplicated key", () => {
    const matchers: ConditionSpec<FieldMatcher>[] = [
      { equals: "prod" },
      { in: ["prod", "STAGING"], caseSensitive: true },
      { prefix: "/srv/" },
      { prefix: "/Srv/", caseSensitive: true },
      { glob: "/srv/**" },
      { regex: "^drop\\s+table" },
      { path: "/etc/**" },
      { command: "rm *" },
      { url: "https://example.com/**" },
      { domain: "*.example.com" },
      { email: "*@example.com" },
      { not: { prefix: "/srv/" } },
      { anyOf: [{ equals: "prod" }, { glob: "*.env" }] },
    ];
    const unit = fc.constantFrom(..."prodPROD/srv.env @ex-amplecomhtps:".split(""), "\u0000", "\u0085", "\u200b", "İ", "ｐ", "\n", "..", "rm -rf /", "DROP  table");
    fc.assert(
      fc.property(fc.constantFrom(...matchers), fc.string({ unit, maxLength: 8 }), fc.boolean(), (matcher, text, restrictive) => {
        const condition = compileFieldCondition("f", matcher, "test");
        const fast = condition.evaluate({ f: text }, restrictive);
        const reference = condition.evaluate({ f: new DuplicateValues([text]) }, restrictive);
        // One value: combine() keeps a restricting verdict as it is and an allowing one as YES or NO.
        if (restrictive) expect(fast).toBe(reference);
        else expect(fast === YES).toBe(reference === YES);
      }),
      { numRuns: RUNS * 3 },
    );
  });
});

describe("the value index keys prefix, glob and regex rules by the characters their matches start with", () => {
  const GLOBS = ["/srv/1/**", "/srv/1/*", "/SRV/9/**", "/srv/{a,b}/**", "/srv/[ab]/x", "/srv/a|b/**", "pro*", "prod-*", "*ing", "./etc/**", "/etc/**", "/s?v/**", "a+(b)/c", "/srv/1", "**/x", "/w*/2/**"];
  const PREFIXES = ["/srv/", "/SRV/1", "/workspace/2/", "pro", "P", "ſrv", "\u212Aube", "/srv/1/da"];
  const REGEXES = ["^drop\\s+table_5\\b", "^/srv/1", "^pro", "^PROD-\\d", "^ſ", "^st.*g$", "od\\b", "^(?i)x", "^a|^b", "^/w?ork"];
  const VALUES = ["/srv/1/data.db", "/SRV/1/x", "/srv/1", "/srv/10", "/srv/a/x", "/srv/b/q/r", "/workspace/2/file-1.txt", "/WORKSPACE/2/", "/srv\u0000/1", "/ſrv/1", "/\u212Arv", "\u212Aube",
    "prod-8", "PROD-8", "prod", "pro", "staging", "DROP  table_5;", "drop table_5", "dröp", "", "/", "/s", "x", "İ/srv", "/etc/passwd", "etc/x", "./etc/x", "a/c", "abbb/c", "/w/2/x", "/srv/1/\u0085", "b", "b/x", "B/y"];
  const matcher: fc.Arbitrary<FieldMatcher> = fc.oneof(
    fc.record({ glob: fc.constantFrom(...GLOBS), caseSensitive: fc.boolean() }, { requiredKeys: ["glob"] }),
    fc.record({ prefix: fc.constantFrom(...PREFIXES), caseSensitive: fc.boolean() }, { requiredKeys: ["prefix"] }),
    fc.record({ regex: fc.constantFrom(...REGEXES), caseSensitive: fc.boolean() }, { requiredKeys: ["regex"] }),
    fc.record({ equals: fc.constantFrom(...VALUES.slice(0, 8)) }),
  );
  const rule: fc.Arbitrary<PermissionRule> = fc
    .record({
      tool: fc.constantFrom("t", "t*", "*"),
      mode: fc.constantFrom<PermissionMode>("allow", "ask", "deny"),
      where: fc.dictionary(fc.constantFrom("path", "query", "opts.path"), fc.oneof({ weight: 6, arbitrary: matcher }, { weight: 1, arbitrary: matcher.map((m) => ({ not: m })) }), { minKeys: 1, maxKeys: 2 }),
    })
    .map((r) => ({ tool: r.tool, mode: r.mode, where: r.where as PermissionRule["where"] }));
  const value = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...VALUES) }, { weight: 1, arbitrary: fc.constantFrom(1, null, true) }, { weight: 1, arbitrary: fc.array(fc.constantFrom(...VALUES), { maxLength: 2 }) }, { weight: 1, arbitrary: fc.constantFrom(...VALUES).map((v) => JSON.stringify({ path: v })) });
  const args = fc.record({ path: value, query: value, opts: fc.record({ path: value }, { requiredKeys: [] }) }, { requiredKeys: [] });

  it("same decision, explain trace and matching rules as the linear scan", () => {
    fc.assert(
      fc.property(fc.array(rule, { minLength: 1, maxLength: 16 }), fc.constantFrom("deny-first" as const, "first-match" as const), fc.array(args, { minLength: 1, maxLength: 6 }), (rules, precedence, calls) => {
        const withIds = rules.map((r, i) => ({ ...r, id: `r${i}` }));
        const indexed = new PermissionPolicy(withIds, { precedence });
        const linear = linearScanForTests(new PermissionPolicy(withIds, { precedence }));
        for (const callArgs of calls) {
          expect(indexed.decide("t", callArgs)).toEqual(linear.decide("t", callArgs));
          expect(indexed.explain("t", callArgs)).toEqual(linear.explain("t", callArgs));
          expect(indexed.matchingRules("t", callArgs)).toEqual(linear.matchingRules("t", callArgs));
        }
      }),
      { numRuns: 600 },
    );
  });

  it("a glob's literal start: every text picomatch accepts starts with it (folded as the glob folds)", () => {
    expect(globLiteralStart("/srv/1/**", { nocase: true, dot: true })).toBe("/srv/1");
    expect(globLiteralStart("/SRV/**", { nocase: false, dot: true })).toBe("/SRV");
    for (const glob of ["/srv/a|b/**", "./etc/**", "*ing", "**/x", "(a|b)/c", "!/srv/x"]) expect(globLiteralStart(glob, { nocase: true, dot: true })).toBeUndefined();
    const text = fc.string({ unit: fc.constantFrom(..."/srvSRV19abx.-*".split(""), "\u212A", "\u017F", "İ"), maxLength: 9 });
    fc.assert(
      fc.property(fc.constantFrom(...GLOBS, "/s*/1/**", "/srv/**/x", "/srv/?/y", "ab.c/*"), fc.boolean(), text, (glob, nocase, input) => {
        const literal = globLiteralStart(glob, { nocase, dot: true });
        if (literal === undefined) return;
        const fold = (t: string) => (nocase ? t.toLowerCase() : t);
        for (const candidate of [input, literal + input, glob, fold(glob) + input]) {
          if (candidate !== "" && picomatch(glob, { nocase, dot: true })(candidate)) expect(fold(candidate).startsWith(literal), `${glob} accepts ${candidate}`).toBe(true);
        }
      }),
      { numRuns: RUNS * 2 },
    );
  });
});
