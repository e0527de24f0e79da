// Which top-level argument does a selector read? One function answers it (topArgument, on
// parseSelector, which the matcher uses at match time), for both checks that judge a rule against its
// tools' arguments: compact rules (`shell(rm:*)`, `tools.X.mainArgument`) and `where` conditions.
// They used to disagree: compact rules took the text before the first `.` or `[`, so `*`, `[0]`,
// `["a.b"]` and a fullwidth `ｃｍｄ` were reported as arguments the tool lacks, on rules that fire.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { GuardedGraphError } from "../src/errors/index.js";
import { Guard } from "../src/guard/guard.js";
import { checkPolicy } from "../src/policy/check.js";
import { parseCompactRule, type MainArguments } from "../src/policy/compact.js";
import { loadedPolicyOf } from "../src/policy/file.js";
import { parsePermissionRules, PermissionPolicy, type PermissionRule } from "../src/policy/permissions.js";
import { parseSelector, topArgument } from "../src/policy/selector.js";
import { defineTool } from "../src/tools/define-tool.js";
import { witness } from "./helpers/selector-witness.js";

/** checkPolicy's errors for `rules` on one tool `t` whose schema has exactly the arguments `args`. */
function errorsFor(rules: PermissionRule[], args: readonly string[], mainArguments?: MainArguments): string[] {
  const policy = new PermissionPolicy(rules, mainArguments === undefined ? {} : { mainArguments });
  return checkPolicy(loadedPolicyOf(policy), new Map([["t", []]]), undefined, new Map([["t", args]])).errors;
}

/** The argument an error says the tool lacks (`has no argument "X"`), or undefined when there is no error. */
function lackedArgument(errors: readonly string[]): string | undefined {
  expect(errors.length).toBeLessThanOrEqual(1);
  if (errors.length === 0) return undefined;
  const match = /has no argument ("(?:[^"\\]|\\.)*")/.exec(errors[0]!);
  expect(match, errors[0]).not.toBeNull();
  return JSON.parse(match![1]!) as string;
}


// Names as tools and policies write them: plain, fullwidth, look-alike (Cyrillic е), zero-width,
// trailing space, with dots (only readable quoted), and generated ones.
const NAMES = ["env", "ｅｎｖ", "еnv", "e\u200bnv", "env ", "Env", "cmd", "ｃｍｄ", "a.b", "a", "b", "app.kubernetes.io/name"];
const name = fc.oneof(fc.constantFrom(...NAMES), fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_-]{0,6}$/));
const plainName = name.filter((n) => !/[.[\]]/.test(n) && n.trim() !== "*" && n.trim() !== "");
const quoted = (key: string) => `[${JSON.stringify(key)}]`;
const quotedKey = name.filter((n) => !n.includes("]"));
/** The first step: a plain name, a quoted key, or one that is not a plain key (`*`, `[*]`, `[n]`). */
const first = fc.oneof(
  plainName.map((raw) => ({ text: raw, raw })),
  quotedKey.map((raw) => ({ text: quoted(raw), raw })),
  fc.constantFrom("*", "[*]", "[0]", "[2]").map((text) => ({ text, raw: undefined as string | undefined })),
);
const restStep = fc.oneof(plainName.map((n) => `.${n}`), quotedKey.map(quoted), fc.constantFrom(".*", "[*]", "[0]", "[1]"));
const selector = fc.tuple(first, fc.array(restStep, { maxLength: 3 })).map(([head, rest]) => ({ text: head.text + rest.join(""), raw: head.raw }));

describe("topArgument: the argument a selector reads, as the matcher reads it", () => {
  it("plain and quoted keys (normalised), not wildcards, indexes or invalid selectors", () => {
    expect(topArgument("request.url")).toBe("request");
    expect(topArgument('["a.b"].c')).toBe("a.b");
    expect(topArgument("items[*].name")).toBe("items");
    expect(topArgument("ｅｎｖ")).toBe("env");
    for (const text of ["*", "*.x", "[*]", "[0]", "[0].a", "a..b", ""]) expect(topArgument(text), text).toBeUndefined();
  });
});

describe("compact rules and where conditions judge a selector's argument the same way", () => {
  it("generated: both checks name the same lacking argument, and report one exactly when no argument of the tool lets the rule fire", () => {
    fc.assert(
      fc.property(selector, fc.uniqueArray(name, { maxLength: 3 }), fc.boolean(), (sel, others, withOwn) => {
        const args = withOwn && sel.raw !== undefined ? [...others, sel.raw] : others;
        const top = topArgument(sel.text);
        const whereRule: PermissionRule = { tool: "t", mode: "deny", where: { [sel.text]: { exists: true } } };
        const mainArguments = { t: { field: sel.text, kind: "command" as const } };
        const compactRules = parsePermissionRules([{ rule: "t(x)", mode: "deny" }], mainArguments);

        const whereLacks = lackedArgument(errorsFor([whereRule], args));
        const compactLacks = lackedArgument(errorsFor(compactRules, args, mainArguments));
        expect(compactLacks).toBe(whereLacks);
        // `t(FIELD:*)` when the compact grammar takes the selector as a field.
        const fieldForm = `t(${sel.text}:*)`;
        let fieldRules: PermissionRule[] | undefined;
        try {
          if (parseCompactRule(fieldForm, "x").where?.[sel.text] !== undefined) fieldRules = parsePermissionRules([{ rule: fieldForm, mode: "deny" }]);
        } catch {
          fieldRules = undefined; // not a FIELD:PATTERN form (the grammar wants a plain first name)
        }
        if (fieldRules !== undefined) expect(lackedArgument(errorsFor(fieldRules, args))).toBe(whereLacks);

        // At match time, on arguments holding exactly one of the tool's arguments.
        const rest = parseSelector(sel.text).slice(1);
        const fires = (rules: PermissionRule[], policyOptions: { mainArguments?: MainArguments }, arg: string) =>
          new PermissionPolicy(rules, policyOptions).matchingRules("t", Object.fromEntries([[arg, witness(rest)]])).length > 0;
        const firesOn = args.filter((arg) => fires([whereRule], {}, arg));
        expect(args.filter((arg) => fires(compactRules, { mainArguments }, arg))).toEqual(firesOn);
        if (top !== undefined) {
          // The argument the checks name is the one the matcher reads.
          expect(fires([whereRule], {}, top)).toBe(true);
          expect(whereLacks === undefined).toBe(firesOn.length > 0);
          if (whereLacks !== undefined) expect(whereLacks).toBe(top);
        } else {
          expect(whereLacks).toBeUndefined(); // `*`, `[n]`: not judged
        }
      }),
      { numRuns: 400 },
    );
  });
});

describe("compact rules on selectors the old first-segment regex misread", () => {
  type AnyTool = NonNullable<ConstructorParameters<typeof Guard>[0]["tools"]>[number];
  const buildError = (tool: AnyTool, field: string, rule = "kv(rm:*)"): GuardedGraphError | undefined => {
    try {
      new Guard({ tools: [tool], permissions: new PermissionPolicy(parsePermissionRules([{ rule, mode: "deny" }], { kv: { field, kind: "command" } }), { mainArguments: { kv: { field, kind: "command" } } }) });
    } catch (error) {
      expect(error).toBeInstanceOf(GuardedGraphError);
      return error as GuardedGraphError;
    }
    return undefined;
  };
  const dotted = defineTool({ name: "kv", description: "k", schema: z.object({ "a.b": z.string() }), risk: "medium", execute: () => "ok" });

  it('mainArgument ["a.b"] on a tool with the argument "a.b": builds, and the rule fires', () => {
    expect(buildError(dotted, '["a.b"]')).toBeUndefined();
    const policy = new PermissionPolicy(parsePermissionRules([{ rule: "kv(rm:*)", mode: "deny" }], { kv: { field: '["a.b"]', kind: "command" } }), { mainArguments: { kv: { field: '["a.b"]', kind: "command" } } });
    expect(policy.decide("kv", { "a.b": "ls; rm -rf /" }, "medium").mode).toBe("deny");
  });

  it('a typo in a quoted key is still reported, naming the key the matcher reads ("a.c")', () => {
    expect(buildError(dotted, '["a.c"]')?.message).toContain('reads the argument "[\\"a.c\\"]" (tools.kv.mainArgument), but tool kv has no argument "a.c" (its arguments: a.b); the rule would never fire');
  });

  it("mainArgument * (every argument) and [0]: not judged, as where conditions are not; * fires", () => {
    expect(buildError(dotted, "*")).toBeUndefined();
    expect(buildError(dotted, "[0]")).toBeUndefined();
    const policy = new PermissionPolicy(parsePermissionRules([{ rule: "kv(rm:*)", mode: "deny" }], { kv: { field: "*", kind: "command" } }), { mainArguments: { kv: { field: "*", kind: "command" } } });
    expect(policy.decide("kv", { "a.b": "rm -rf /" }, "medium").mode).toBe("deny");
  });

  it("names compare normalised, as where conditions compare them: fullwidth ｃｍｄ is cmd, both ways", () => {
    const wide = defineTool({ name: "kv", description: "k", schema: z.object({ "ｃｍｄ": z.string() }), risk: "medium", execute: () => "ok" });
    expect(buildError(wide, "cmd")).toBeUndefined();
    expect(buildError(wide, "x", "kv(cmd:rm *)")).toBeUndefined();
    const plain = defineTool({ name: "kv", description: "k", schema: z.object({ cmd: z.string() }), risk: "medium", execute: () => "ok" });
    expect(buildError(plain, "ｃｍｄ")).toBeUndefined();
    expect(new PermissionPolicy(parsePermissionRules([{ rule: "kv(cmd:rm *)", mode: "deny" }])).decide("kv", { "ｃｍｄ": "rm -rf /" }, "medium").mode).toBe("deny");
    expect(buildError(plain, "cmnd")?.message).toContain('but tool kv has no argument "cmnd" (its arguments: cmd)');
  });
});
