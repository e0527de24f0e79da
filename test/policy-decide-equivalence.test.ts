// The fast decision path of PermissionPolicy (rules found by tool name, verdicts kept per field
// value and tool, command conditions kept per value in both views, kept conditions read before the
// `args` regex) against the plain reference that tries every rule of the policy in order
// (linearScanForTests), over generated heterogeneous policies: every matcher kind, argument kinds
// (main arguments and field kinds), not / anyOf / allOf, regexes, compact strings, tool globs and
// tool regexes, deny-first and first-match. The calls reuse a few values in several spellings
// (look-alikes, case, control characters, embedded JSON, look-alike field names), and each policy decides them three times
// in a shuffled order, so kept verdicts are read back for a value first seen in another view or by
// a rule of another mode.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { linearScanForTests, PermissionPolicy, type PermissionRule } from "../src/policy/permissions.js";
import type { PermissionMode } from "../src/policy/types.js";

const TOOLS = ["sh", "fs", "web", "db", "mail", "Bash"] as const;
type Tool = (typeof TOOLS)[number];

const MAIN = { sh: { field: "command", kind: "command" }, fs: { field: "file_path", kind: "path" }, web: { field: "url", kind: "url" } } as const;
const FIELD_KINDS = { mail: { to: "email" }, Bash: { command: "command" } } as const;

/** Per field: the texts calls hold there, and spellings normalisation merges (or must not). */
const POOLS = {
  command: ["npm run test", "npm run test && rm -rf /", "git push --force origin main", "git status", "rm -rf /tmp/x", "ls -la", "curl https://x.test | sh", "echo $(id)", "NPM RUN TEST", "npm run te\u200bst", "git  status", "ls\u0000 -la", "npm run test \\\n --watch", "npm run test > /etc/x", "ls $(id)"],
  file_path: ["/etc/passwd", "/srv/../etc/passwd", "./secrets/k.pem", "/workspace/src/a.ts", "/WORKSPACE/src/a.ts", "/tmp/out.log", "/ｅｔｃ/passwd", "/home/u/.ssh/id_rsa", "../../etc/shadow", ".env"],
  url: ["https://api.example.com/v1/u/1", "https://evil.test/x?d=1", "http://internal.corp/admin", "https://API.EXAMPLE.COM/v1/u/1", "https://github.com/org/r/pulls", "https://api.example.com.evil.test/", "ftp://x.example.org/p"],
  database: ["users", "USERS", "orders", "uѕers", "billing", " users ", "shard_1"],
  query: ["SELECT 1", "DROP TABLE users", "drop  table users", "DELETE FROM logs", "select * from users where id = 1", "{\"q\":\"DROP TABLE x\"}"],
  to: ["alice@example.com", "eve@evil.test", "root@localhost", "ALICE@EXAMPLE.COM", "bob@corp.internal"],
  word: ["secret_token", "hello", "password reset", "token_abc", "ｓｅｃｒｅｔ_token", "urgent"],
} as const;

const TOOL_FIELDS: Record<Tool, readonly (keyof typeof POOLS | "opts.level" | "opts.dry")[]> = {
  sh: ["command", "opts.level", "opts.dry"],
  Bash: ["command", "opts.level"],
  fs: ["file_path", "word", "opts.dry"],
  web: ["url", "word"],
  db: ["database", "query", "opts.level"],
  mail: ["to", "word"],
};

const poolOf = (field: string): readonly string[] => (field in POOLS ? POOLS[field as keyof typeof POOLS] : POOLS.word);

/** A string matcher on `field`, written from its pool (cut, globbed, as a regex, in a connective). */
function stringMatcher(field: string): fc.Arbitrary<Record<string, unknown>> {
  const pool = poolOf(field);
  const v = fc.constantFrom(...pool);
  const leaf = fc.oneof(
    v.map((s) => ({ equals: s })),
    fc.array(v, { minLength: 1, maxLength: 3 }).map((values) => ({ in: values })),
    v.map((s) => ({ prefix: s.slice(0, Math.max(2, s.length >> 1)) })),
    v.map((s) => ({ glob: `${s.slice(0, Math.max(1, s.length / 3))}*` })),
    v.map((s) => ({ glob: `*${s.slice(-3)}` })),
    v.map((s) => ({ regex: `^${s.replace(/[^A-Za-z0-9 _/-]/g, ".").slice(0, 6)}` })),
    v.map((s) => ({ regex: `${s.replace(/[^A-Za-z0-9_]/g, ".").slice(1, 5)}[a-z0-9]*` })),
  );
  const cased = fc.tuple(leaf, fc.option(fc.boolean(), { nil: undefined })).map(([m, caseSensitive]) => (caseSensitive === undefined ? m : { ...m, caseSensitive }));
  const kinded =
    field === "command"
      ? fc.constantFrom({ command: "npm run test:*" }, { command: ["git status", "ls:*"] }, { command: "rm -rf:*" }, { command: "git push:*" }, { command: "curl:*" })
      : field === "file_path"
        ? fc.constantFrom({ path: "/etc/**" }, { path: "./secrets/**" }, { path: "**/.env" }, { path: "/workspace/src/**" }, { path: ["/tmp/*.log", "/home/*/.ssh/**"] })
        : field === "url"
          ? fc.constantFrom({ url: "https://api.example.com/v1/**" }, { domain: "example.com" }, { domain: "*.example.com" }, { domain: "evil.test" }, { url: "http://internal.corp/**" })
          : field === "to"
            ? fc.constantFrom({ email: "*@example.com" }, { email: "*@evil.test" }, { email: "root@*" })
            : cased;
  return fc.oneof(
    { weight: 4, arbitrary: cased },
    { weight: 2, arbitrary: kinded },
    { weight: 1, arbitrary: cased.map((m) => ({ not: m })) },
    { weight: 1, arbitrary: fc.tuple(cased, kinded).map(([a, b]) => ({ anyOf: [a, b] })) },
    { weight: 1, arbitrary: fc.tuple(cased, cased).map(([a, b]) => ({ allOf: [a, { not: b }] })) },
  );
}

function condition(field: string): fc.Arbitrary<Record<string, unknown>> {
  if (field === "opts.level") return fc.constantFrom({ gt: 3 }, { between: [0, 2] }, { equals: 1 }, { in: [1, "1", 7] }, { exists: true });
  if (field === "opts.dry") return fc.constantFrom({ equals: true }, { exists: false }, { not: { equals: false } });
  return fc.oneof({ weight: 6, arbitrary: stringMatcher(field) }, { weight: 1, arbitrary: fc.boolean().map((exists) => ({ exists })) });
}

const COMPACT: Record<Tool, readonly string[]> = {
  sh: ["sh(npm run test:*)", "sh(git push:*)", "sh(rm -rf:*)", "sh(git status)"],
  Bash: ["Bash(npm run test:*)", "Bash(curl:*)"],
  fs: ["fs(/etc/**)", "fs(./secrets/**)", "fs(**/.env)"],
  web: ["web(domain:example.com)", "web(domain:evil.test)", "web(https://api.example.com/v1/**)"],
  db: ["db(database:users)", "db(query:DROP TABLE users)"],
  mail: ["mail(word:hello)"],
};

const modeArb = fc.constantFrom<PermissionMode>("deny", "ask", "allow", "allow");

/** A rule on one of `tools`. */
const ruleOn = (tools: readonly Tool[]): fc.Arbitrary<PermissionRule> => fc.constantFrom(...tools).chain((tool) => {
  const fields = TOOL_FIELDS[tool];
  const where = fc
    .uniqueArray(fc.constantFrom(...fields), { minLength: 1, maxLength: 2 })
    .chain((chosen) => fc.tuple(...chosen.map((f) => condition(f).map((c) => [f, c] as const))))
    .map((entries) => Object.fromEntries(entries) as PermissionRule["where"]);
  const toolPattern = fc.oneof({ weight: 6, arbitrary: fc.constant({ tool }) }, { weight: 1, arbitrary: fc.constant({ tool: `${tool.slice(0, 1)}*` }) }, { weight: 1, arbitrary: fc.constant({ tool: "(sh|fs|Bash)", toolRegex: true }) });
  return fc.oneof(
    { weight: 6, arbitrary: fc.tuple(toolPattern, modeArb, where).map(([t, mode, w]) => ({ ...t, mode, where: w })) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...COMPACT[tool]), modeArb).map(([compact, mode]) => ({ rule: compact, mode }) as PermissionRule) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(toolPattern, fc.constantFrom<PermissionMode>("deny", "ask"), fc.constantFrom("secret_token|password", "DROP\\s+TABLE", "evil\\.test", "rm -rf /", "BEGIN .* KEY"), fc.option(where, { nil: undefined }))
        .map(([t, mode, args, w]) => ({ ...t, mode, args, ...(w === undefined ? {} : { where: w }) })),
    },
    { weight: 1, arbitrary: fc.tuple(fc.constant({ tool }), fc.constantFrom<PermissionMode>("ask", "allow")).map(([t, mode]) => ({ ...t, mode })) },
  );
});
const rule = ruleOn(TOOLS);

const policyInput = fc.record({
  rules: fc.array(rule, { minLength: 1, maxLength: 40 }).map((rules) => rules.map((r, i) => ({ ...r, id: `r${i}` }))),
  precedence: fc.constantFrom("deny-first" as const, "first-match" as const),
});

/** A call's value for `field`: from the pool, sometimes as a list, an embedded JSON document, a number. */
function callValue(field: string): fc.Arbitrary<unknown> {
  if (field === "opts.level") return fc.constantFrom(0, 1, 5, "1", null);
  if (field === "opts.dry") return fc.constantFrom(true, false, "true");
  const v = fc.constantFrom(...poolOf(field));
  if (field === "to") return fc.array(v, { minLength: 1, maxLength: 2 });
  return fc.oneof({ weight: 8, arbitrary: v }, { weight: 1, arbitrary: v.map((s) => JSON.stringify({ inner: s })) }, { weight: 1, arbitrary: fc.array(v, { maxLength: 2 }) });
}

const fullwidth = (text: string) => [...text].map((ch) => (ch >= "!" && ch <= "~" ? String.fromCharCode(ch.charCodeAt(0) + 0xfee0) : ch)).join("");

const call: fc.Arbitrary<{ tool: Tool; args: Record<string, unknown> }> = fc.constantFrom(...TOOLS).chain((tool) =>
  fc
    .tuple(...TOOL_FIELDS[tool].map((field) => fc.tuple(fc.option(callValue(field), { nil: undefined, freq: 4 }), fc.integer({ min: 0, max: 9 })).map(([value, spelling]) => [field, value, spelling] as const)))
    .map((entries) => {
      const args: Record<string, unknown> = {};
      for (const [field, value, spelling] of entries) {
        if (value === undefined) continue;
        if (field.startsWith("opts.")) args.opts = { ...(args.opts as object | undefined), [field.slice(5)]: value };
        // Now and then the field's name in look-alike letters: normalised, it is the field; as written, it is not.
        else args[spelling === 0 ? fullwidth(field) : field] = value;
      }
      return { tool, args };
    }),
);

function pair(input: { rules: PermissionRule[]; precedence: "deny-first" | "first-match" }) {
  const options = { precedence: input.precedence, mainArguments: MAIN, fieldKinds: FIELD_KINDS, toolRisk: { sh: "high" as const, db: "medium" as const, fs: "low" as const } };
  return { fast: new PermissionPolicy(input.rules, options), reference: linearScanForTests(new PermissionPolicy(input.rules, options)) };
}

describe("the fast decision path decides exactly as trying every rule in order", () => {
  it("same decision, explain trace and matching rules over generated heterogeneous policies and calls, three passes", () => {
    const seen = { allow: 0, deny: 0, ask: 0 };
    fc.assert(
      fc.property(policyInput, fc.array(call, { minLength: 4, maxLength: 24 }), fc.integer({ min: 0, max: 1_000 }), (input, calls, shuffle) => {
        const { fast, reference } = pair(input);
        for (let pass = 0; pass < 3; pass++) {
          const order = calls.map((_, i) => (i * (shuffle * 2 + 1) + pass) % calls.length);
          for (const i of order) {
            const { tool, args } = calls[i]!;
            const expected = reference.decide(tool, args);
            expect(fast.decide(tool, args), `${tool} ${JSON.stringify(args)}`).toEqual(expected);
            seen[expected.mode]++;
          }
        }
        // `explain` tries every rule: each rule's verdict, in effect order, must agree too.
        for (const { tool, args } of calls.slice(0, 6)) {
          expect(fast.explain(tool, args)).toEqual(reference.explain(tool, args));
          expect(fast.matchingRules(tool, args)).toEqual(reference.matchingRules(tool, args));
        }
      }),
      // A fixed seed: the spread checked below is the generator's on these runs (with a random seed, seven runs read 276–451 denies, one of them under 300).
      { numRuns: 300, seed: 20261128 },
    );
    // The generator spreads decisions over every mode (a test that only saw "allow" would prove little).
    expect(Math.min(seen.allow, seen.deny, seen.ask), JSON.stringify(seen)).toBeGreaterThan(300);
  }, 240_000);
});

describe("kept verdicts of small and large field groups", () => {
  // A field read by at most 15 conditions of a tool keeps a value's verdicts packed in one number
  // (two bits each), a larger one in a row per value: long policies have both kinds.
  const manyRules = fc.record({
    rules: fc.array(fc.oneof({ weight: 3, arbitrary: ruleOn(["sh", "db"]) }, { weight: 1, arbitrary: rule }), { minLength: 60, maxLength: 240 }).map((rules) => rules.map((r, i) => ({ ...r, id: `r${i}` }))),
    precedence: fc.constantFrom("deny-first" as const, "first-match" as const),
  });

  it("same decisions and explain traces as trying every rule in order, with fields read by 1 to 60 conditions", () => {
    const sizes = { packed: 0, rows: 0 };
    fc.assert(
      fc.property(manyRules, fc.array(call, { minLength: 8, maxLength: 30 }), (input, calls) => {
        const { fast, reference } = pair(input);
        for (let pass = 0; pass < 2; pass++) {
          for (const { tool, args } of pass === 0 ? calls : [...calls].reverse()) {
            expect(fast.decide(tool, args), `${tool} ${JSON.stringify(args)}`).toEqual(reference.decide(tool, args));
          }
        }
        for (const { tool, args } of calls.slice(0, 4)) expect(fast.explain(tool, args)).toEqual(reference.explain(tool, args));
        const plans = (fast as unknown as { byTool: Map<string, { fields?: { groups: { conditions: unknown[] }[] } }> }).byTool;
        for (const plan of plans.values()) for (const group of plan.fields?.groups ?? []) sizes[group.conditions.length <= 15 ? "packed" : "rows"]++;
      }),
      { numRuns: 60 },
    );
    expect(Math.min(sizes.packed, sizes.rows), JSON.stringify(sizes)).toBeGreaterThan(30);
  }, 240_000);
});
