// The review's fast paths (session 4, W2) give the answers of the code they replace:
// - checkArgumentLimits' allocation-free walk says "within limits" exactly when measureArgs does;
// - someJsonToken renders numbers, booleans and null without JSON.stringify: the same answer as
//   searching the canonical JSON text (also for short texts whose escaped rendering is long);
// - compileGlob (a glob condition's test) answers as picomatch's matcher does;
// - a rule violation's "Allowed now" text, kept per rule state and clock value, is never stale, and
//   the violation has the keys, order and message the spread-built one had.
import fc from "fast-check";
import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { measureArgs } from "../src/audit/summary.js";
import { ruleRefusal } from "../src/messages/index.js";
import { canonicalize, someJsonToken } from "../src/policy/canonical.js";
import { compileGlob } from "../src/policy/glob.js";
import { checkArgumentLimits } from "../src/policy/limits.js";
import { ToolRulesEngine, type RuleViolation, type ToolRule } from "../src/rules/index.js";

const LIMITS = { maxDepth: 32, maxChars: 1_000_000 };

/** Nested arguments around the depth limit (32) and the size limit (1,000,000 characters). */
const deepOrLarge: fc.Arbitrary<unknown> = fc
  .record({
    depth: fc.integer({ min: 0, max: 36 }),
    // String sizes whose total lands within a few characters of the limit, or far below it.
    big: fc.oneof(fc.integer({ min: 999_900, max: 1_000_010 }), fc.integer({ min: 0, max: 50 })),
    split: fc.integer({ min: 0, max: 3 }),
    key: fc.string({ maxLength: 6 }),
    inArray: fc.boolean(),
    hole: fc.boolean(),
    extra: fc.array(fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.constant(null), fc.boolean()), { maxLength: 4 }),
  })
  .map(({ depth, big, split, key, inArray, hole, extra }) => {
    const parts = Array.from({ length: split + 1 }, (_, i) => "x".repeat(Math.floor(big / (split + 1)) + (i === 0 ? big % (split + 1) : 0)));
    let value: unknown = inArray ? [...parts, ...extra] : Object.fromEntries(parts.map((p, i) => [`${key}${i}`, p]));
    if (hole && Array.isArray(value)) value.length += 2; // holes read as undefined values
    for (let level = 0; level < depth; level++) value = level % 2 === 0 ? { [key]: value } : [value, ...extra];
    return value;
  });

function chainOf(n: number): unknown {
  let v: unknown = "leaf";
  for (let i = 0; i < n; i++) v = { a: v };
  return v;
}

describe("checkArgumentLimits' fast walk", () => {
  it("refuses exactly the arguments measureArgs finds too deep or too large, with its reason", () => {
    fc.assert(
      fc.property(deepOrLarge, (args) => {
        const shape = measureArgs(args, LIMITS);
        const oversized = checkArgumentLimits(args);
        expect(oversized === undefined).toBe(shape.exceeded === undefined);
        if (oversized !== undefined) expect(oversized.reason).toContain(shape.exceeded === "depth" ? "deeper" : "");
      }),
      { numRuns: 300 },
    );
  });

  it("counts one per value, key lengths and string lengths: the last character over the limit refuses", () => {
    // {k: s}: 1 (object) + 1 (key "k") + 1 (string) + s.length characters.
    expect(checkArgumentLimits({ k: "x".repeat(1_000_000 - 3) })).toBeUndefined();
    expect(checkArgumentLimits({ k: "x".repeat(1_000_000 - 2) })).toBeDefined();
    const chain = (n: number) => {
      let v: unknown = "leaf";
      for (let i = 0; i < n; i++) v = { a: v };
      return v;
    };
    expect(checkArgumentLimits(chain(32))).toBeUndefined();
    expect(checkArgumentLimits(chain(33))).toBeDefined();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(checkArgumentLimits(cyclic)).toBeDefined();
  });

  it("reads own keys only, as measureArgs does: an inherited enumerable key is not counted", () => {
    const inherited = Object.create({ big: "x".repeat(2_000_000), deep: chainOf(40) }) as Record<string, unknown>;
    inherited.k = "v";
    expect(measureArgs(inherited, LIMITS).exceeded).toBeUndefined();
    expect(checkArgumentLimits(inherited)).toBeUndefined();
    const own = Object.create({ k: "short" }) as Record<string, unknown>;
    Object.defineProperty(own, "k", { value: "x".repeat(2_000_000), enumerable: false });
    own.z = "x".repeat(999_990);
    expect(measureArgs(own, LIMITS).exceeded).toBeUndefined();
    expect(checkArgumentLimits(own)).toBeUndefined();
  });
});

describe("compileGlob", () => {
  const alphabet = ["a", "b", "A", "/", ".", "*", "?", "[", "]", "!", "{", "}", ",", "(", ")", "@", "+", "\\", "-", " ", "^", "$"];
  const text = fc.array(fc.constantFrom(...alphabet), { maxLength: 8 }).map((chars) => chars.join(""));
  it("answers as picomatch's matcher on generated globs and inputs (the glob itself and \"\" included)", () => {
    fc.assert(
      fc.property(text.filter((g) => g.length > 0), fc.array(text, { maxLength: 6 }), fc.boolean(), (glob, inputs, nocase) => {
        const options = { nocase, dot: true };
        let reference: (input: string) => boolean;
        try {
          reference = picomatch(glob, options);
        } catch {
          expect(() => compileGlob(glob, options)).toThrow();
          return;
        }
        const fast = compileGlob(glob, options);
        for (const input of [...inputs, glob, "", glob.toUpperCase(), `${glob}/x`]) expect(fast(input)).toBe(reference(input));
      }),
      { numRuns: 3_000 },
    );
  });
});

describe("rule violations keep the joined allowed list per state and clock", () => {
  const toolRules: ToolRule[] = [
    { id: "cool", type: "Cooldown", tool: "a", durationMs: 5 },
    { id: "excl", type: "ExclusiveGroup", tool: "b", conditions: ["c"] },
  ];
  const engine = new ToolRulesEngine(toolRules, { tools: new Map([["a", []], ["b", []], ["c", []], ["d", []]]) });
  let state = engine.initialState(0);
  state = engine.record(state, { tool: "c", callId: "1", success: true, at: 0 });
  state = engine.record(state, { tool: "a", callId: "2", success: true, at: 1_000 });

  /** The violation as it was built before (spreads, ruleRefusal on the list). */
  function reference(v: RuleViolation): RuleViolation {
    const { ruleId, ruleType, tool, operation, allowedNow, message: _message, ...detail } = v;
    const base = { ruleId, ruleType, tool, operation, allowedNow };
    return { ...detail, ...base, message: ruleRefusal({ ...base, reason: detail.reason }) };
  }

  it("a later clock value (cooldown over) or another state gets its own list, never the kept one", () => {
    const during = engine.checkCall(state, { tool: "b" }, 1_002)!;
    const again = engine.checkCall(state, { tool: "b" }, 1_002)!;
    const after = engine.checkCall(state, { tool: "b" }, 1_006)!;
    expect(during.allowedNow).toEqual(["c", "d"]);
    expect(during.message).toContain("Allowed now: c; d.");
    expect(again.message).toBe(during.message);
    expect(after.allowedNow).toEqual(["a", "c", "d"]);
    expect(after.message).toContain("Allowed now: a; c; d.");
    // Back to the earlier clock value: computed again, not the list of 1_006.
    expect(engine.checkCall(state, { tool: "b" }, 1_002)!.message).toBe(during.message);
    // A new state (a recorded at 1_004): its own facts.
    const later = engine.record(state, { tool: "a", callId: "3", success: true, at: 1_004 });
    expect(engine.checkCall(later, { tool: "b" }, 1_006)!.allowedNow).toEqual(["c", "d"]);
    for (const v of [during, again, after]) {
      const ref = reference(v);
      expect(Object.keys(v)).toEqual(Object.keys(ref));
      expect(v).toEqual(ref);
    }
  });

  it("each violation has its own allowedNow array", () => {
    const first = engine.checkCall(state, { tool: "b" }, 1_003)!;
    first.allowedNow.push("mutated");
    const second = engine.checkCall(state, { tool: "b" }, 1_003)!;
    expect(second.allowedNow).toEqual(["c", "d"]);
    expect(second.message).not.toContain("mutated");
  });
});

describe("someJsonToken's shortcuts", () => {
  // Short texts that JSON escapes into long ones (quotes, backslashes, control characters, lone surrogates).
  const char = fc.constantFrom("a", "u", "0", "1", "n", "\"", "\\", "\u0001", "\n", "\ud800", "e", "-", ".", "t");
  const str = fc.array(char, { maxLength: 4 }).map((cs) => cs.join(""));
  const leaf = fc.oneof(str, fc.integer({ min: -1000, max: 1000 }), fc.double({ noNaN: false }), fc.boolean(), fc.constant(null));
  const tree = fc.letrec((tie) => ({
    node: fc.oneof({ depthSize: "small" }, leaf, fc.array(tie("node"), { maxLength: 3 }), fc.dictionary(str, tie("node"), { maxKeys: 3 })),
  })).node;
  // Literals without JSON's structural characters (what `matchesWithinJsonTokens` admits).
  // Half of them parts of an escape (`\u0001`, `\ud800`), which only the rendering of a shorter text holds.
  const needle = fc.oneof(
    fc.array(fc.constantFrom("a", "u", "0", "1", "n", "e", "-", ".", "t", "r", "l", "f", "d", "8"), { minLength: 1, maxLength: 5 }).map((cs) => cs.join("")),
    fc.constantFrom("u00", "u0001", "001", "ud8", "d800", "800", "0001", "alse", "rue", "ull", "-0", "e+"),
  );
  it("finds a literal exactly when the canonical JSON text holds it", () => {
    fc.assert(
      fc.property(tree, needle, (args, literal) => {
        const view = canonicalize({ args });
        const text = JSON.stringify(view.value);
        expect(someJsonToken(view.value, (t) => t.includes(literal), literal.length)).toBe(text.includes(literal));
      }),
      { numRuns: 3_000 },
    );
  });
});
