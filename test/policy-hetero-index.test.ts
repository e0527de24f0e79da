// The fast paths of PermissionPolicy (rules found by tool name, field verdicts kept per value, the
// value index) against the reference that tries every rule of the policy on every call, on the
// heterogeneous workload the W2h benchmark generates (every matcher kind, compact strings, tool
// globs and regexes, look-alike spellings), over many seeds. Each policy decides the calls twice,
// so the second pass reads kept verdicts.
import { describe, expect, it } from "vitest";
import { heteroWorkload, seeded } from "../bench/lib/hetero.js";
import { linearScanForTests, PermissionPolicy } from "../src/policy/permissions.js";
import { ToolNameIndex } from "../src/policy/rule-index.js";
import { compileToolMatcher } from "../src/policy/permissions.js";

function pair(seed: number, rules: number, tools: number, precedence: "deny-first" | "first-match") {
  const w = heteroWorkload({ seed, rules, tools, calls: 300 });
  const options = { mainArguments: w.mainArguments, precedence };
  return { w, fast: new PermissionPolicy(w.permissions, options), naive: linearScanForTests(new PermissionPolicy(w.permissions, options)) };
}

describe("heterogeneous policies: the fast decision equals the naive all-rules decision", () => {
  it("over 40 seeds, both precedences, decide and explain, twice over the calls", () => {
    let compared = 0;
    const modes = { allow: 0, deny: 0, ask: 0 };
    for (let seed = 1; seed <= 40; seed++) {
      const { w, fast, naive } = pair(seed, 150 + (seed % 5) * 50, 12 + (seed % 4) * 6, seed % 3 === 0 ? "first-match" : "deny-first");
      const risk = new Map(w.tools.map((t) => [t.name, t.risk]));
      for (let pass = 0; pass < 2; pass++) {
        for (const call of w.calls) {
          const expected = naive.decide(call.name, call.args, risk.get(call.name));
          expect(fast.decide(call.name, call.args, risk.get(call.name)), `seed ${seed} ${call.name} ${JSON.stringify(call.args)}`).toEqual(expected);
          modes[expected.mode]++;
          compared++;
        }
      }
      // explain tries every rule: the verdict of each must agree too.
      for (const call of w.calls.slice(0, 60)) {
        expect(fast.explain(call.name, call.args).trace, `seed ${seed} ${call.name}`).toEqual(naive.explain(call.name, call.args).trace);
      }
    }
    expect(compared).toBe(40 * 2 * 300);
    // The generator really spreads decisions (a test that only ever saw "allow" would prove little).
    expect(Math.min(modes.allow, modes.deny, modes.ask)).toBeGreaterThan(1_000);
  }, 120_000);

  it("a value seen first by one rule and then by another (of the other mode) gets each rule's own verdict", () => {
    // allow (restrictive = false) and deny (restrictive = true) read the same field: a list value is
    // not kept, a string is; the UNKNOWN of a deny on a value with a control character is kept apart from an allow's NO.
    const rules = [
      { id: "d", tool: "t", mode: "deny" as const, where: { p: { path: "/etc/**" } } },
      { id: "a", tool: "t", mode: "allow" as const, where: { p: { path: "/etc/**" } } },
      { id: "q", tool: "t", mode: "ask" as const, where: { p: { not: { prefix: "/srv" } } } },
    ];
    const fast = new PermissionPolicy(rules, { toolRisk: { t: "low" } });
    const naive = linearScanForTests(new PermissionPolicy(rules, { toolRisk: { t: "low" } }));
    const values: unknown[] = ["/etc/passwd", "/srv/x", "/etc/\u0007x", "/srv/\u0000y", ["/srv/a", "/etc/b"], 7, null, true, "null", "7", undefined, { nested: "/etc/x" }];
    for (let pass = 0; pass < 3; pass++) {
      for (const p of values) {
        const args = p === undefined ? {} : { p };
        expect(fast.decide("t", args), JSON.stringify(args)).toEqual(naive.decide("t", args));
      }
    }
  });
});

describe("ToolNameIndex never leaves out a rule whose tool pattern matches", () => {
  it("globs, literal names and regexes, case-sensitive or not, against generated names", () => {
    const rand = seeded(7);
    const alphabet = ["a", "b", "A", "B", "_", "1", "k", "K", "\u212A", "s", "S", "\u017F", "*", "?", "[ab]", "{a,b}", "**", ".", "é"];
    const word = (n: number) => Array.from({ length: n }, () => alphabet[Math.floor(rand() * alphabet.length)]!).join("");
    for (let round = 0; round < 200; round++) {
      const patterns = Array.from({ length: 20 }, () => ({ tool: word(1 + Math.floor(rand() * 6)) || "a", caseSensitive: rand() < 0.3, toolRegex: rand() < 0.1 }));
      const index = new ToolNameIndex<number>();
      const matchers: ((tool: string) => boolean)[] = [];
      patterns.forEach((p, i) => {
        let m: (tool: string) => boolean;
        try {
          m = compileToolMatcher({ ...p, mode: "deny" }, "test");
        } catch {
          m = () => false;
        }
        matchers.push(m);
        index.add(i, p);
      });
      for (let n = 0; n < 50; n++) {
        const name = word(1 + Math.floor(rand() * 7)).replace(/[*?[\]{},]/g, "") || "x";
        const candidates = new Set(index.candidates(name));
        matchers.forEach((m, i) => {
          if (m(name)) expect(candidates.has(i), `${JSON.stringify(patterns[i])} matches ${JSON.stringify(name)}`).toBe(true);
        });
      }
    }
  });
});
