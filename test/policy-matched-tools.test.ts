// A rule whose tool pattern matches several tools (a glob, a brace list) is judged against all of them
// at once, by one function for compact rules and `where` conditions alike: reading an argument is an
// error only when none of the matched tools has it and none takes any argument (an open schema may
// have it). A rule that fires on one of its tools is not a typo. Compact rules used to be judged tool
// by tool, so `mcp__*(path:x)` was an error as soon as one mcp__ tool lacked `path`, though it fires
// on the others.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { GuardedGraphError } from "../src/errors/index.js";
import { Guard } from "../src/guard/guard.js";
import { checkPolicy } from "../src/policy/check.js";
import { parseCompactRule } from "../src/policy/compact.js";
import { loadedPolicyOf } from "../src/policy/file.js";
import { normalizeString } from "../src/policy/normalize.js";
import { parsePermissionRules, PermissionPolicy, type PermissionRule } from "../src/policy/permissions.js";
import { parseSelector, topArgument } from "../src/policy/selector.js";
import { defineTool } from "../src/tools/define-tool.js";
import { witness } from "./helpers/selector-witness.js";


const NAMES = ["path", "ｐａｔｈ", "раth", "url", "env", "Env", "a.b", "cmd", "id"];
const name = fc.oneof(fc.constantFrom(...NAMES), fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_-]{0,5}$/));
const plainName = name.filter((n) => !/[.[\]]/.test(n) && n.trim() !== "*" && n.trim() !== "");
const quotedKey = name.filter((n) => !n.includes("]"));
const first = fc.oneof(
  plainName.map((raw) => ({ text: raw, raw: raw as string | undefined })),
  quotedKey.map((raw) => ({ text: `[${JSON.stringify(raw)}]`, raw: raw as string | undefined })),
  fc.constantFrom("*", "[*]", "[0]").map((text) => ({ text, raw: undefined as string | undefined })),
);
const restStep = fc.oneof(plainName.map((n) => `.${n}`), fc.constantFrom(".*", "[*]", "[0]"));
const selector = fc.tuple(first, fc.array(restStep, { maxLength: 2 })).map(([head, rest]) => ({ text: head.text + rest.join(""), raw: head.raw }));

/** One generated tool: whether the rule's pattern matches it, and its arguments or an open schema (withOwn: it also takes the selector's argument). */
const tool = fc.record({ matched: fc.boolean(), open: fc.integer({ min: 0, max: 3 }).map((n) => n === 0), args: fc.uniqueArray(name, { maxLength: 3 }), withOwn: fc.boolean() });
const toolSet = fc.tuple(fc.array(tool, { minLength: 2, maxLength: 5 }), fc.integer({ min: 0, max: 4 })).map(([set, forced]) => {
  const copy = set.map((t) => ({ ...t }));
  copy[forced % copy.length]!.matched = true; // the pattern matches at least one tool
  return copy;
});

/** The tool names and a tool pattern matching exactly the matched ones: a prefix glob (mcp__*) or a brace list ({t0,t2}). */
function naming(set: readonly { matched: boolean }[], glob: boolean): { names: string[]; pattern: string } {
  if (glob) return { names: set.map((t, i) => (t.matched ? `mcp__${i}` : `other_${i}`)), pattern: "mcp__*" };
  const names = set.map((_, i) => `t${i}`);
  const matched = names.filter((_, i) => set[i]!.matched);
  return { names, pattern: matched.length === 1 ? matched[0]! : `{${matched.join(",")}}` };
}

const has = (args: readonly string[], field: string) => args.some((arg) => arg === field || normalizeString(arg) === normalizeString(field));

describe("a rule matching several tools, or tools with open schemas: compact rules and where conditions judged alike", () => {
  it("generated: an error exactly when the top argument is a plain key, no matched tool has it and none is open; a reported rule never fires", () => {
    fc.assert(
      fc.property(toolSet, fc.boolean(), selector, (set, glob, sel) => {
        const { names, pattern } = naming(set, glob);
        const tools = set.map((t, i) => ({ name: names[i]!, matched: t.matched, args: t.open ? ("open" as const) : t.withOwn && sel.raw !== undefined ? [...t.args, sel.raw] : t.args }));
        const catalog = new Map(tools.map((t) => [t.name, [] as string[]]));
        const toolArguments = new Map(tools.flatMap((t) => (t.args === "open" ? [] : [[t.name, t.args] as const])));
        const matched = tools.filter((t) => t.matched);
        const top = topArgument(sel.text);
        const expectError = top !== undefined && matched.every((t) => t.args !== "open" && !has(t.args, top));

        const mainArguments = { [pattern]: { field: sel.text, kind: "command" as const } };
        const forms: { label: string; rules: PermissionRule[]; policy: PermissionPolicy }[] = [];
        const whereRules: PermissionRule[] = [{ tool: pattern, mode: "deny", where: { [sel.text]: { exists: true } } }];
        forms.push({ label: "where", rules: whereRules, policy: new PermissionPolicy(whereRules) });
        const mainRules = parsePermissionRules([{ rule: `${pattern}(x)`, mode: "deny" }], mainArguments);
        forms.push({ label: "compact mainArgument", rules: mainRules, policy: new PermissionPolicy(mainRules, { mainArguments }) });
        const fieldForm = `${pattern}(${sel.text}:*)`;
        let readsField = false;
        try {
          readsField = parseCompactRule(fieldForm, "x").where?.[sel.text] !== undefined;
        } catch {
          readsField = false; // the FIELD:PATTERN grammar wants a plain first name
        }
        if (readsField) {
          const fieldRules = parsePermissionRules([{ rule: fieldForm, mode: "deny" }]);
          forms.push({ label: "compact FIELD:*", rules: fieldRules, policy: new PermissionPolicy(fieldRules) });
        }

        const rest = parseSelector(sel.text).slice(1);
        for (const form of forms) {
          // tools.<pattern>.mainArgument names no tool when the pattern is a glob: that entry's own error is not this check's.
          const errors = checkPolicy(loadedPolicyOf(form.policy), catalog, undefined, toolArguments).errors.filter((error) => error.startsWith("permissions["));
          expect(errors.length, `${form.label}: ${errors.join(" | ")}`).toBe(expectError ? 1 : 0);
          // Each matched tool called with every one of its own arguments (a value the selector reaches).
          const firesOn = matched.filter((t) => t.args !== "open" && form.policy.matchingRules(t.name, Object.fromEntries(t.args.map((arg) => [arg, witness(rest)]))).length > 0);
          if (expectError) {
            // The rule really can never fire on its tools' real arguments.
            expect(firesOn, form.label).toEqual([]);
            const error = errors[0]!;
            const argument = JSON.stringify(top);
            if (matched.length === 1) {
              expect(error).toContain(`but tool ${matched[0]!.name} has no argument ${argument} (its arguments: `);
            } else {
              expect(error).toContain(`but none of its tools (${matched.map((t) => t.name).join(", ")}) has an argument ${argument}; the rule would never fire`);
              for (const t of matched) expect(error).toContain(`${t.name} takes ${t.args.length === 0 ? "no arguments" : (t.args as string[]).join(", ")}`);
            }
          } else if (top !== undefined && matched.every((t) => t.args !== "open")) {
            // Not reported: it fires on at least one of its tools.
            expect(firesOn.length, form.label).toBeGreaterThan(0);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("mcp__*(path:x) over tools where one lacks path", () => {
  const read = defineTool({ name: "mcp__fs_read", description: "r", schema: z.object({ path: z.string() }), risk: "low", execute: () => "ok" });
  const fetchUrl = defineTool({ name: "mcp__web_fetch", description: "f", schema: z.object({ url: z.string() }), risk: "low", execute: () => "ok" });
  const search = defineTool({ name: "mcp__search", description: "s", schema: z.object({ query: z.string(), limit: z.number() }), risk: "low", execute: () => "ok" });
  const anything = defineTool({ name: "mcp__any", description: "a", schema: z.looseObject({ id: z.string() }), risk: "low", execute: () => "ok" });
  type AnyTool = NonNullable<ConstructorParameters<typeof Guard>[0]["tools"]>[number];
  const buildError = (tools: AnyTool[], rules: PermissionRule[]): GuardedGraphError | undefined => {
    try {
      new Guard({ tools, permissions: new PermissionPolicy(rules) });
    } catch (error) {
      expect(error).toBeInstanceOf(GuardedGraphError);
      return error as GuardedGraphError;
    }
    return undefined;
  };
  const compact = parsePermissionRules([{ rule: "mcp__*(path:/etc/**)", mode: "deny" }]);

  it("builds (it fires on mcp__fs_read), and denies there", () => {
    expect(buildError([read, fetchUrl, search], compact)).toBeUndefined();
    expect(buildError([read, fetchUrl, search], [{ tool: "mcp__*", mode: "deny", where: { path: { path: "/etc/**" } } }])).toBeUndefined();
    const policy = new PermissionPolicy(compact);
    expect(policy.decide("mcp__fs_read", { path: "/etc/passwd" }, "low").mode).toBe("deny");
    expect(policy.matchingRules("mcp__web_fetch", { url: "https://x" })).toEqual([]);
  });

  it("when none of its tools has path: one error naming the rule, the argument, every tool and its arguments", () => {
    const error = buildError([fetchUrl, search], compact);
    expect(error?.message).toContain(
      'permissions[0]: mcp__*(path:/etc/**) reads the argument "path", but none of its tools (mcp__web_fetch, mcp__search) has an argument "path"; the rule would never fire: name one of its arguments (mcp__web_fetch takes url; mcp__search takes query, limit)',
    );
    expect(error?.message.match(/permissions\[0\]/g)).toHaveLength(1);
  });

  it("a tool taking any argument (open schema) among them: not judged, as for where conditions", () => {
    expect(buildError([fetchUrl, search, anything], compact)).toBeUndefined();
    expect(buildError([fetchUrl, search, anything], [{ tool: "mcp__*", mode: "deny", where: { path: { path: "/etc/**" } } }])).toBeUndefined();
  });

  it("many tools: the message lists at most 5 tools and 8 arguments each, and says how many more", () => {
    const many = Array.from({ length: 7 }, (_, i) =>
      defineTool({ name: `mcp__t${i}`, description: "t", schema: z.object(Object.fromEntries(Array.from({ length: 10 }, (_, j) => [`a${j}`, z.string()]))), risk: "low", execute: () => "ok" }),
    );
    const message = buildError(many, compact)?.message ?? "";
    expect(message).toContain('none of its tools (mcp__t0, mcp__t1, mcp__t2, mcp__t3, mcp__t4, and 2 more) has an argument "path"');
    expect(message).toContain("(mcp__t0 takes a0, a1, a2, a3, a4, a5, a6, a7, 2 more; mcp__t1 takes");
    expect(message).toContain("mcp__t4 takes a0, a1, a2, a3, a4, a5, a6, a7, 2 more; 2 more tools)");
  });

  it("a single-tool typo is still reported as before", () => {
    expect(buildError([read, fetchUrl], parsePermissionRules([{ rule: "mcp__web_fetch(path:/etc/**)", mode: "deny" }]))?.message).toContain(
      'permissions[0]: mcp__web_fetch(path:/etc/**) reads the argument "path", but tool mcp__web_fetch has no argument "path" (its arguments: url); the rule would never fire: name one of its arguments',
    );
  });
});
