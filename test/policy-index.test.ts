// Issue 11's W2 speed-ups must not change one decision. Each fast path is compared with the plain
// computation it replaces, over generated input chosen to hit the spellings normalisation merges:
// - the value index (rules keyed by `equals` / `in` value) against the linear scan of every rule;
// - a regex's required literal (checked before re2js runs) against re2js alone;
// - the plain-text fast path of normalisation and canonical objects against their definitions.
import { HumanMessage, ToolMessage, AIMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { RE2JS } from "re2js";
import { describe, expect, it } from "vitest";
import { canonicalize, someJsonToken } from "../src/policy/canonical.js";
import { isPlainText, normalizeString } from "../src/policy/normalize.js";
import { linearScanForTests, PermissionPolicy, type PermissionRule } from "../src/policy/permissions.js";
import { compileSafeRegex, matchesWithinJsonTokens, requiredLiteral } from "../src/policy/regex.js";
import type { FieldMatcher, PermissionMode } from "../src/policy/types.js";

const TOOLS = ["deploy", "Deploy", "read_file", "kubectl_delete"];
const FIELDS = ["namespace", "env", "opts.level", "meta.tags[0]", "path"];

/** Spellings of a few values that normalisation or case folding may merge (or must not). */
const VALUE_TEXTS = [
  "prod",
  "PROD",
  "Prod",
  "ｐｒｏｄ", // fullwidth
  "prоd", // Cyrillic о
  "pro\u200bd", // zero-width space
  "pro\u0000d", // NUL
  "pro\u0085d", // C1 control
  " prod ",
  "prod\t",
  "pr od",
  "pr  od",
  "staging",
  "STAGING",
  "straße",
  "STRASSE",
  "\u212Aube", // Kelvin sign
  "kube",
  "ſecret", // long s
  "secret",
  "/srv/../etc/passwd",
  "/etc/passwd",
  "./etc/passwd",
  "1",
  "01",
  "true",
  "null",
  "",
];

const scalar = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...VALUE_TEXTS) },
  { weight: 1, arbitrary: fc.constantFrom(1, 0, 2, -1, 1.5, true, false, null) },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
);

/** A field value: a scalar, a list, a nested object, or JSON inside a string (with duplicated keys). */
const value: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.record({ level: scalar }, { requiredKeys: [] }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(...VALUE_TEXTS.slice(0, 13)), fc.constantFrom(...VALUE_TEXTS.slice(0, 13)))
      .map(([a, b]) => `{"namespace":${JSON.stringify(a)},"namespace":${JSON.stringify(b)}}`),
  },
  { weight: 1, arbitrary: fc.constantFrom('["prod","staging"]', '"{\\"x\\":\\"prod\\"}"', "[1]") },
);

/** Arguments: top-level fields (some spelled so that two keys normalise alike), `opts.level`, `meta.tags`. */
const args = fc.record(
  {
    namespace: value,
    "ｎａｍｅｓｐａｃｅ": value,
    env: value,
    path: value,
    opts: fc.oneof(fc.record({ level: value }, { requiredKeys: [] }), value),
    meta: fc.record({ tags: fc.array(value, { maxLength: 2 }) }, { requiredKeys: [] }),
    blob: fc.constantFrom("secret", "token", "harmless", "x".repeat(70_000)),
  },
  { requiredKeys: [] },
);

const matchValue = fc.oneof(fc.constantFrom(...VALUE_TEXTS), fc.constantFrom(1, 0, true, false));

const matcher: fc.Arbitrary<FieldMatcher> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ equals: matchValue, caseSensitive: fc.boolean() }, { requiredKeys: ["equals"] }) },
  { weight: 6, arbitrary: fc.record({ in: fc.array(matchValue, { minLength: 1, maxLength: 4 }), caseSensitive: fc.boolean() }, { requiredKeys: ["in"] }) },
  { weight: 1, arbitrary: fc.record({ prefix: fc.constantFrom("pro", "st", "/srv"), caseSensitive: fc.boolean() }, { requiredKeys: ["prefix"] }) },
  { weight: 1, arbitrary: fc.record({ glob: fc.constantFrom("pro*", "*ing", "/etc/**"), caseSensitive: fc.boolean() }, { requiredKeys: ["glob"] }) },
  { weight: 1, arbitrary: fc.record({ regex: fc.constantFrom("^pro", "^st.*g$", "od\\b", "^\\s*prod"), caseSensitive: fc.boolean() }, { requiredKeys: ["regex"] }) },
  { weight: 1, arbitrary: fc.constant({ path: "/etc/**" }) },
  { weight: 1, arbitrary: fc.record({ exists: fc.boolean() }) },
);

/** A `where` condition: mostly a plain matcher, sometimes a connective (never indexed, must still agree). */
const condition = fc.oneof(
  { weight: 8, arbitrary: matcher },
  { weight: 1, arbitrary: matcher.filter((m) => !("exists" in m)).map((m) => ({ not: m })) },
  { weight: 1, arbitrary: fc.array(matcher.filter((m) => !("exists" in m)), { minLength: 1, maxLength: 2 }).map((anyOf) => ({ anyOf })) },
);

const rule: fc.Arbitrary<PermissionRule> = fc
  .record(
    {
      tool: fc.constantFrom("deploy", "Deploy", "*", "read_*", "kubectl_delete", "deploy*"),
      mode: fc.constantFrom<PermissionMode>("allow", "ask", "deny"),
      where: fc.dictionary(fc.constantFrom(...FIELDS), condition, { maxKeys: 3 }),
      args: fc.option(fc.constantFrom("secret|token", "^\\{\"blob", "prod"), { nil: undefined }),
      caseSensitive: fc.option(fc.boolean(), { nil: undefined }),
    },
    { requiredKeys: ["tool", "mode"] },
  )
  .map((r) => {
    const out: PermissionRule = { tool: r.tool, mode: r.mode };
    if (r.where !== undefined && Object.keys(r.where).length > 0) out.where = r.where as PermissionRule["where"];
    if (r.args !== undefined) out.args = r.args;
    if (r.caseSensitive !== undefined) out.caseSensitive = r.caseSensitive;
    return out;
  });

const policyInput = fc.record({
  rules: fc.array(rule, { minLength: 1, maxLength: 25 }).map((rules) => rules.map((r, i) => ({ ...r, id: `r${i}` }))),
  precedence: fc.constantFrom("deny-first" as const, "first-match" as const),
  pathBase: fc.constantFrom("/", "/srv"),
});

function policies(input: { rules: PermissionRule[]; precedence: "deny-first" | "first-match"; pathBase: string }) {
  const options = { precedence: input.precedence, pathBase: input.pathBase, toolRisk: { deploy: "high" as const } };
  return { indexed: new PermissionPolicy(input.rules, options), linear: linearScanForTests(new PermissionPolicy(input.rules, options)) };
}

describe("the value index decides exactly as the linear scan of every rule", () => {
  it("same decision, same explain trace (every rule tried, in order, with its verdict), same matching rules", () => {
    fc.assert(
      fc.property(policyInput, fc.array(fc.tuple(fc.constantFrom(...TOOLS), args), { minLength: 1, maxLength: 8 }), (input, calls) => {
        const { indexed, linear } = policies(input);
        for (const [tool, callArgs] of calls) {
          // `decide` stops at the deciding rule; `explain` tries them all: both paths are compared.
          expect(indexed.decide(tool, callArgs)).toEqual(linear.decide(tool, callArgs));
          expect(indexed.explain(tool, callArgs)).toEqual(linear.explain(tool, callArgs));
          expect(indexed.matchingRules(tool, callArgs)).toEqual(linear.matchingRules(tool, callArgs));
        }
      }),
      { numRuns: 400 },
    );
  });

  it("rules that read the thread are never left out: decisions, traces and provenance evidence stay those of the linear scan", () => {
    // A `from` condition records evidence while it is read, so a rule holding one is always evaluated,
    // even when its `equals` condition (before or after it) cannot match.
    const fromCondition = fc.constantFrom({ from: ["user"] }, { not: { from: ["user", "trusted"] } }, { from: ["read_file"] });
    const contextualRule = fc
      .tuple(fc.constantFrom<PermissionMode>("allow", "ask", "deny"), fc.constantFrom(...FIELDS), fromCondition, fc.constantFrom(...FIELDS), matchValue, fc.boolean())
      .map(([mode, fromField, from, eqField, want, fromFirst]): PermissionRule => {
        const where = fromFirst ? { [fromField]: from, [eqField]: { equals: want } } : { [eqField]: { equals: want }, [fromField]: from };
        return { tool: "deploy", mode, where: where as PermissionRule["where"] };
      });
    const input = fc.record({
      rules: fc.array(fc.oneof(rule, contextualRule), { minLength: 1, maxLength: 12 }).map((rules) => rules.map((r, i) => ({ ...r, id: `r${i}` }))),
      precedence: fc.constantFrom("deny-first" as const, "first-match" as const),
      pathBase: fc.constant("/"),
    });
    const thread = fc.tuple(fc.constantFrom(...VALUE_TEXTS.slice(0, 13)), fc.constantFrom(...VALUE_TEXTS.slice(0, 13))).map(([said, read]) => ({
      messages: [
        new HumanMessage({ content: `please deploy ${said} now`, id: "h1" }),
        new AIMessage({ content: "", id: "a1", tool_calls: [{ id: "c1", name: "read_file", args: { path: "/x" }, type: "tool_call" }] }),
        new ToolMessage({ content: `the file says ${read}`, tool_call_id: "c1", name: "read_file" }),
      ],
    }));
    fc.assert(
      fc.property(input, thread, fc.array(args, { minLength: 1, maxLength: 4 }), (policyInput, context, calls) => {
        const { indexed, linear } = policies(policyInput);
        for (const callArgs of calls) {
          expect(indexed.decide("deploy", callArgs, undefined, context)).toEqual(linear.decide("deploy", callArgs, undefined, context));
          expect(indexed.explain("deploy", callArgs, undefined, context)).toEqual(linear.explain("deploy", callArgs, undefined, context));
        }
      }),
      { numRuns: 300 },
    );
  });

  it("many `equals` rules on one field: only the rule whose value matches fires, whatever its position", () => {
    const rules: PermissionRule[] = Array.from({ length: 300 }, (_, i) => ({ id: `ns-${i}`, tool: "deploy", mode: i % 3 === 0 ? "deny" : "ask", where: { namespace: { equals: `team-${i}` } } }));
    rules.push({ id: "fallback", tool: "deploy", mode: "allow" });
    const indexed = new PermissionPolicy(rules);
    const linear = linearScanForTests(new PermissionPolicy(rules));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 310 }), fc.constantFrom("", "TEAM-", " team-", "team-\u0000", "ｔｅａｍ-"), (n, prefix) => {
        const call = { namespace: `${prefix === "" ? "team-" : prefix}${n}` };
        expect(indexed.explain("deploy", call)).toEqual(linear.explain("deploy", call));
      }),
      { numRuns: 300 },
    );
    // Hand-picked: a fullwidth and an upper-case spelling hit the rule; a NUL inside makes it ask, never allow.
    expect(indexed.decide("deploy", { namespace: "ｔｅａｍ-3" }).ruleId).toBe("permission:ns-3");
    expect(indexed.decide("deploy", { namespace: "TEAM-4" }).ruleId).toBe("permission:ns-4");
    expect(indexed.decide("deploy", { namespace: "team-\u00003" }).mode).toBe("deny");
    expect(indexed.decide("deploy", { namespace: "team-\u00004" }).mode).toBe("ask");
    expect(indexed.decide("deploy", { namespace: '{"a":1}' }).ruleId).toBe("permission:fallback");
    expect(indexed.decide("deploy", { namespace: ["x", "team-6"] }).ruleId).toBe("permission:ns-6");
  });
});

describe("a regex's required literal is checked before re2js, and never changes its answer", () => {
  const literalChar = fc.constantFrom(..."abkKsSzZ09_ -/:".split(""));
  const tail = fc.constantFrom("", "\\s+x", "\\d*", "[a-z]+", "(ab|cd)", "$", "*", "+", "?", "{0,2}", "\\b", ".*", "|z", "(?i)a", "(?m)^b", "\\Kx");
  const pattern = fc.tuple(fc.boolean(), fc.array(literalChar, { maxLength: 5 }), tail).map(([anchor, chars, rest]) => `${anchor ? "^" : ""}${chars.join("")}${rest}`);
  const inputChar = fc.constantFrom(..."abkKsSzZ09_ -/:xX\n".split(""), "\u212A", "\u017F", "é", "İ", "\uD800");

  it("test and testExact agree with re2js, case-sensitive or not", () => {
    fc.assert(
      fc.property(pattern, fc.boolean(), fc.array(inputChar, { maxLength: 12 }), fc.array(inputChar, { maxLength: 3 }), (source, caseSensitive, chars, lead) => {
        let compiled: RE2JS;
        try {
          compiled = RE2JS.compile(source, caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
        } catch {
          return; // not a pattern RE2 accepts: compileSafeRegex refuses it (tested elsewhere)
        }
        const safe = compileSafeRegex(source, { caseSensitive, where: "test" });
        // Inputs built around the literal, with its case flipped, so the literal is often there.
        const literal = requiredLiteral(source)?.literal ?? "";
        for (const input of [chars.join(""), lead.join("") + literal + chars.join(""), literal.toUpperCase() + chars.join(""), literal.replace(/k/g, "\u212A").replace(/s/g, "\u017F")]) {
          expect(safe.test(input)).toBe(compiled.test(input));
          expect(safe.testExact(input)).toBe(compiled.testExact(input));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("JavaScript's case-insensitive Unicode regexes fold printable ASCII exactly as RE2 does (every code point tried)", () => {
    // Plain literals are searched with a JavaScript /iu regex; RE2 is the reference.
    const re2 = RE2JS.compile("[\\x20-\\x7E]", RE2JS.CASE_INSENSITIVE);
    const js = /[\x20-\x7E]/iu;
    const foldsIn = { re2: [] as string[], js: [] as string[] };
    for (let cp = 0x80; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      if (re2.test(ch)) foldsIn.re2.push(ch);
      if (js.test(ch)) foldsIn.js.push(ch);
    }
    expect(foldsIn.re2).toEqual(["\u017F", "\u212A"]);
    expect(foldsIn.js).toEqual(foldsIn.re2);
    // Which ASCII character each of them (and each printable ASCII character) matches is the same too.
    const hex = (code: number) => `\\x${code.toString(16).padStart(2, "0")}`;
    for (let a = 0x20; a <= 0x7e; a++) {
      const one = { re2: RE2JS.compile(hex(a), RE2JS.CASE_INSENSITIVE), js: new RegExp(`^${hex(a)}$`, "iu") };
      for (const input of [...Array.from({ length: 0x5f }, (_, i) => String.fromCharCode(0x20 + i)), ...foldsIn.re2]) {
        expect(one.js.test(input)).toBe(one.re2.testExact(input));
      }
    }
  });

  it("plain literals (the JavaScript-regex path) answer as re2js does on any text", () => {
    const literal = fc.array(fc.constantFrom(..."akKsSz0 -_:".split("")), { minLength: 1, maxLength: 4 }).map((chars) => chars.join(""));
    const text = fc.array(fc.constantFrom(..."akKsSzx0 -_:".split(""), "\u212A", "\u017F", "İ", "ı", "é", "\uD800", "ẞ"), { maxLength: 10 }).map((chars) => chars.join(""));
    fc.assert(
      fc.property(fc.array(literal, { minLength: 1, maxLength: 3 }), fc.boolean(), text, (alternatives, caseSensitive, input) => {
        const source = alternatives.join("|");
        const reference = RE2JS.compile(source, caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
        const safe = compileSafeRegex(source, { caseSensitive, where: "test" });
        for (const candidate of [input, alternatives[0]!.replace(/k/gi, "\u212A").replace(/s/gi, "\u017F"), input + alternatives[0]!.toUpperCase()]) {
          expect(safe.test(candidate)).toBe(reference.test(candidate));
          expect(safe.testExact(candidate)).toBe(reference.testExact(candidate));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("takes a literal only where every match must contain it", () => {
    expect(requiredLiteral("^drop\\s+table_5\\b")).toEqual({ literal: "drop", anchored: true });
    expect(requiredLiteral("secret_\\d+")).toEqual({ literal: "secret_", anchored: false });
    expect(requiredLiteral("abc*")).toEqual({ literal: "ab", anchored: false });
    expect(requiredLiteral("^a?")).toBeUndefined();
    expect(requiredLiteral("drop|x")).toBeUndefined();
    expect(requiredLiteral("(?i)drop")).toBeUndefined();
    expect(requiredLiteral("^(drop)")).toBeUndefined();
    expect(requiredLiteral("\\.env")).toBeUndefined();
  });
});

describe("`args` literals searched token by token find what a search of the canonical text finds", () => {
  // Characters chosen to meet JSON escapes (\n, \u0000, \", \\), numbers (1e+21, -0), literals and folding.
  // `:`, `,` and `"` make a pattern one matchesWithinJsonTokens must refuse (fc.pre drops those).
  const needleChar = fc.oneof({ weight: 12, arbitrary: fc.constantFrom(..."anrtubfeslkK01_ -+u".split("")) }, { weight: 1, arbitrary: fc.constantFrom(":", ",", '"') });
  const needles = fc.array(fc.array(needleChar, { minLength: 1, maxLength: 4 }).map((c) => c.join("")), { minLength: 1, maxLength: 3 });
  const textChar = fc.constantFrom(..."anrtubfeslkK01_ -./+:,{}[]\"\\".split(""), "\n", "\t", "\u0000", "\u001f", "\u212A", "\u017F", "\uD800", "é");
  const text = fc.array(textChar, { maxLength: 8 }).map((c) => c.join(""));
  const tree: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: "small" },
      text,
      fc.constantFrom(1, -1, 0.5, 1e21, -0, 10, true, false, null),
      text.map((t) => `{"${t.replace(/["\\]/g, "")}":"x","a":"${t.replace(/["\\]/g, "")}"}`), // JSON in a string
      fc.array(tie("node"), { maxLength: 3 }),
      fc.dictionary(text, tie("node"), { maxKeys: 3 }),
    ),
  })).node;

  it("same answer on both views, case-sensitive or not, for every pattern matchesWithinJsonTokens accepts", () => {
    fc.assert(
      fc.property(needles, fc.boolean(), tree, (parts, caseSensitive, args) => {
        const pattern = parts.join("|");
        const minLength = matchesWithinJsonTokens(pattern);
        fc.pre(minLength !== undefined);
        const regex = compileSafeRegex(pattern, { caseSensitive, where: "test" });
        const view = canonicalize(args);
        fc.pre(!view.oversized);
        expect(someJsonToken(view.value, regex.test, minLength)).toBe(regex.test(view.text));
        expect(someJsonToken(view.literal, regex.test, minLength)).toBe(regex.test(view.literalText));
      }),
      { numRuns: 3000 },
    );
  });

  it("refuses patterns whose matches could cross a JSON delimiter or use the regex engine", () => {
    expect(matchesWithinJsonTokens("secret_3|token_3")).toBe(7);
    expect(matchesWithinJsonTokens("rm -rf /")).toBe(8);
    for (const pattern of ['"a"', "a:b", "a,b", "{a", "a]", "a\\b", "a.b", "^a", "a|"]) expect(matchesWithinJsonTokens(pattern)).toBeUndefined();
  });
});

describe("normalisation and canonical views keep their meaning on the fast paths", () => {
  const ALREADY_NORMAL_RE = /^(?:[\x21-\x7E]+(?: [\x21-\x7E]+)*)?$/;

  it("isPlainText is the 'already normal' pattern, and such text normalises to itself", () => {
    const text = fc.oneof(fc.string({ unit: fc.constantFrom("a", " ", "~", "\t", "\u007f", "\u00a0", "é", "\u0000"), maxLength: 8 }), fc.string({ unit: "binary", maxLength: 8 }));
    fc.assert(
      fc.property(text, (input) => {
        expect(isPlainText(input)).toBe(ALREADY_NORMAL_RE.test(input));
        if (isPlainText(input)) expect(normalizeString(input)).toBe(input);
      }),
      { numRuns: 1000 },
    );
  });

  it("canonical text is the arguments with keys sorted at every depth (a plain reference), whatever the key order or count", () => {
    const sortKeys = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(sortKeys);
      if (typeof value !== "object" || value === null) return value;
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(value).sort()) Object.defineProperty(out, key, { value: sortKeys((value as Record<string, unknown>)[key]), enumerable: true });
      return out;
    };
    const key = fc.string({ unit: fc.constantFrom("a", "b", "B", "_", "1", "~"), minLength: 1, maxLength: 3 });
    const plain = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: "small" }, fc.integer(), fc.boolean(), fc.constant(null), fc.string({ unit: fc.constantFrom("a", "Z", "1", "-"), maxLength: 4 }).filter((t) => !/^\s*["{[]/.test(t)), fc.array(tie("node"), { maxLength: 3 }), fc.dictionary(key, tie("node"), { maxKeys: 20 })),
    })).node;
    fc.assert(
      fc.property(fc.dictionary(key, plain, { maxKeys: 24 }), (args) => {
        expect(canonicalize(args).text).toBe(JSON.stringify(sortKeys(args)));
      }),
      { numRuns: 500 },
    );
    // Keys that normalise alike keep both values, in the order they were written.
    expect(canonicalize({ b: 1, "ｎａｍｅ": "x", name: "y", a: 2 }).text).toBe('{"a":2,"b":1,"name":["x","y"]}');
    expect(canonicalize({ name: "y", "ｎａｍｅ": "x" }).text).toBe('{"name":["y","x"]}');
  });

  it("canonical objects inherit nothing: __proto__, toString and constructor are plain keys", () => {
    const view = canonicalize(JSON.parse('{"__proto__":"x","toString":"y","nested":{"__proto__":{"constructor":1}},"b":1,"a":2}') as unknown);
    const value = view.value as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(["__proto__", "a", "b", "nested", "toString"]);
    expect(value.toString).toBe("y");
    expect(Object.hasOwn(value, "__proto__")).toBe(true);
    expect(view.text).toBe('{"__proto__":"x","a":2,"b":1,"nested":{"__proto__":{"constructor":1}},"toString":"y"}');
    const empty = canonicalize({}).value as Record<string, unknown>;
    for (const key of ["toString", "constructor", "hasOwnProperty", "__proto__", "valueOf"]) expect(key in empty).toBe(false);
  });
});
