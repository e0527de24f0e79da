// `tools.<glob>.mainArgument` (`mcp__*`): a compact rule written with that exact tool text
// (`mcp__*(./secrets/**)`) reads its bare pattern as the declared argument and fires on every tool
// the glob matches. With the tools known (policy check --graph, guardFromPolicy, a PermissionPolicy
// handed to a Guard) the glob key is an error only when it matches no known tool; a glob key with
// risk or operations is an error, since risk is looked up by exact tool name.
import fc from "fast-check";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { guardFromPolicy } from "../src/guard/from-policy.js";
import { Guard } from "../src/guard/guard.js";
import { checkPolicy, type ToolArguments, type ToolCatalog } from "../src/policy/check.js";
import { parsePolicy } from "../src/policy/file.js";
import { PermissionPolicy } from "../src/policy/permissions.js";
import { defineTool } from "../src/tools/define-tool.js";
import { runPolicyCommand } from "./helpers/policy-command.js";

const POLICY = `
pathBase: /work
tools:
  "mcp__*": { mainArgument: { field: path, kind: path } }
permissions:
  - { rule: "mcp__*(./secrets/**)", mode: deny }
`;

function catalogOf(entries: Record<string, readonly string[]>): { tools: ToolCatalog; args: ToolArguments } {
  return { tools: new Map(Object.keys(entries).map((name) => [name, [] as string[]])), args: new Map(Object.entries(entries)) };
}

const WITH_MCP = catalogOf({ mcp__fs_read: ["path"], mcp__search: ["query"], kubectl_get: ["name"] });
const WITHOUT_MCP = catalogOf({ kubectl_get: ["name"], bash: ["command"] });

function mcpTools(ran: string[]) {
  return [
    defineTool({
      name: "mcp__fs_read",
      description: "Read a file",
      schema: z.object({ path: z.string() }),
      risk: "low",
      execute: ({ path }) => {
        ran.push(path);
        return "contents";
      },
    }),
    defineTool({ name: "mcp__search", description: "Search", schema: z.object({ query: z.string() }), risk: "low", execute: () => "hits" }),
  ];
}

describe("tools.<glob>.mainArgument with the tools known", () => {
  const loaded = parsePolicy(POLICY, "yaml", "glob.yaml");

  it("a glob key matching a known tool (mcp__fs_read has path) is no error", () => {
    const result = checkPolicy(loaded, WITH_MCP.tools, undefined, WITH_MCP.args);
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.readings).toEqual([
      'permissions[0]: mcp__*(./secrets/**) → mcp__* where path is a path matching "./secrets/**" (resolved against the policy\'s pathBase) (main argument path, from tools.mcp__*.mainArgument)',
    ]);
  });

  it("a glob key matching no known tool is an error that says so and lists the known tools", () => {
    const { errors } = checkPolicy(loaded, WITHOUT_MCP.tools, undefined, WITHOUT_MCP.args);
    expect(errors).toContain('tools.mcp__*.mainArgument: the glob "mcp__*" matches no known tool (known: kubectl_get, bash)');
    expect(errors.some((error) => error.includes("no tool named"))).toBe(false);
  });

  it("a glob key declaring risk or operations is an error: risk is looked up by exact tool name", () => {
    const risky = parsePolicy('tools:\n  "mcp__*": { risk: high, mainArgument: { field: path, kind: path } }\n', "yaml", "p.yaml");
    expect(checkPolicy(risky, WITH_MCP.tools, undefined, WITH_MCP.args).errors).toEqual(["tools.mcp__*.risk: risk is looked up by exact tool name, so a glob key applies to no tool; name each tool"]);
    const ops = parsePolicy('tools:\n  "mcp__*": { operations: { read: high } }\n', "yaml", "p.yaml");
    expect(checkPolicy(ops, WITH_MCP.tools, undefined, WITH_MCP.args).errors).toEqual(["tools.mcp__*.operations: operation risk is looked up by exact tool name, so a glob key applies to no tool; name each tool"]);
    // Indeed: the policy's risk under the glob key is not the risk of mcp__fs_read.
    const policy = new PermissionPolicy([], { toolRisk: { "mcp__*": "high" } });
    expect(policy.riskOf("mcp__fs_read", "low")).toBe("low");
  });

  it("an exact-name key for an unknown tool keeps its message", () => {
    const exact = parsePolicy('tools:\n  mcp__fs_raed: { mainArgument: { field: path, kind: path } }\n', "yaml", "p.yaml");
    expect(checkPolicy(exact, WITH_MCP.tools, undefined, WITH_MCP.args).errors).toEqual(['tools.mcp__fs_raed: no tool named "mcp__fs_raed" exists (known: mcp__fs_read, mcp__search, kubectl_get)']);
  });

  it("the rule fires on mcp__fs_read's path through PermissionPolicy", () => {
    const policy = new PermissionPolicy([{ rule: "mcp__*(./secrets/**)", mode: "ask" } as never], { pathBase: "/work", mainArguments: { "mcp__*": { field: "path", kind: "path" } } });
    expect(policy.decide("mcp__fs_read", { path: "./secrets/a" }, "low")).toMatchObject({ mode: "ask", ruleId: "permission:permissions[0]" });
    expect(policy.decide("mcp__fs_read", { path: "./public/a" }, "low").mode).toBe("allow");
    expect(policy.decide("mcp__fs_read", { path: "./public/a" }, "low").ruleId).not.toBe("permission:permissions[0]");
    // A PermissionPolicy built in code and handed to a Guard is checked the same way: no error.
    expect(() => new Guard({ tools: mcpTools([]), permissions: policy })).not.toThrow();
    const elsewhere = new PermissionPolicy([], { mainArguments: { "other__*": { field: "path", kind: "path" } } });
    expect(() => new Guard({ tools: mcpTools([]), permissions: elsewhere })).toThrow(/tools\.other__\*\.mainArgument: the glob "other__\*" matches no known tool/);
  });

  it("through guardFromPolicy: ./secrets/a is refused, ./public/a runs", async () => {
    const ran: string[] = [];
    const ready = await guardFromPolicy(loaded, { tools: mcpTools(ran) });
    try {
      const { reviewed } = await ready.guard.reviewTurn(ready.guard.initialRuleState(), [
        { id: "a", name: "mcp__fs_read", args: { path: "./secrets/a" } },
        { id: "b", name: "mcp__fs_read", args: { path: "./public/a" } },
      ]);
      expect(reviewed[0]).toMatchObject({ outcome: "refuse", ruleId: "permission:permissions[0]" });
      expect(reviewed[1]?.outcome).toBe("run");
    } finally {
      await ready.close();
    }
    const onlyOthers = [defineTool({ name: "kubectl_get", description: "k", schema: z.object({ name: z.string() }), risk: "low", execute: () => "x" })];
    await expect(guardFromPolicy(loaded, { tools: onlyOthers })).rejects.toThrow(/tools\.mcp__\*\.mainArgument: the glob "mcp__\*" matches no known tool \(known: kubectl_get\)/);
  });

  it("policy check --graph devops: kubectl_* passes, mcp__* matches no known tool", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gg-glob-main-"));
    const good = join(dir, "good.yaml");
    writeFileSync(good, 'tools:\n  "kubectl_*": { mainArgument: { field: name, kind: path } }\npermissions:\n  - { rule: "kubectl_*(./secrets/**)", mode: deny }\n');
    const ok = await runPolicyCommand(["check", good, "--graph", "devops"]);
    expect(ok.out.filter((line) => line.startsWith("error:"))).toEqual([]);
    expect(ok.code).toBe(0);
    const bad = join(dir, "bad.yaml");
    writeFileSync(bad, POLICY);
    const refused = await runPolicyCommand(["check", bad, "--graph", "devops"]);
    expect(refused.code).toBe(1);
    expect(refused.out.some((line) => /^error: tools\.mcp__\*\.mainArgument: the glob "mcp__\*" matches no known tool \(known: kubectl_get, /.test(line))).toBe(true);
  });
});

describe("mcp__*(PATTERN) read through tools.mcp__*.mainArgument is judged as mcp__*(path:PATTERN)", () => {
  const header = 'pathBase: /work\ntools:\n  "mcp__*": { mainArgument: { field: path, kind: path } }\npermissions:\n';
  const bare = parsePolicy(`${header}  - { rule: "mcp__*(./secrets/**)", mode: deny }\n`, "yaml", "p.yaml");
  const named = parsePolicy(`${header}  - { rule: "mcp__*(path:./secrets/**)", mode: deny }\n`, "yaml", "p.yaml");
  /** The judgement of an unread-argument error without the rule text and the fix advice, which name how the rule was written. */
  const judged = (errors: readonly string[]) => errors.map((error) => /, but (.*?); the rule would never fire/.exec(error)?.[1] ?? error);

  it("the same condition", () => {
    expect(bare.permissions[0]?.where).toEqual(named.permissions[0]?.where);
  });

  it.each([
    ["some mcp__ tools lack path", { mcp__fs_read: ["path"], mcp__search: ["query"] }, 0],
    ["one mcp__ tool, without path", { mcp__search: ["query"], bash: ["command"] }, 1],
    ["several mcp__ tools, none with path", { mcp__search: ["query"], mcp__list: [], bash: ["command"] }, 1],
    ["no mcp__ tool (the rule and the key match no known tool instead)", { bash: ["command"] }, 0],
  ] as const)("%s: the same errors and warnings", (_, entries, unread) => {
    const { tools, args } = catalogOf(entries);
    const a = checkPolicy(bare, tools, undefined, args);
    const b = checkPolicy(named, tools, undefined, args);
    expect(a.warnings).toEqual(b.warnings);
    expect(judged(a.errors)).toEqual(judged(b.errors));
    expect(a.errors.filter((error) => error.includes("reads the argument"))).toHaveLength(unread);
  });

  it("the same decisions", () => {
    for (const path of ["./secrets/a", "/work/secrets/x/y", "./public/a"]) {
      expect(new PermissionPolicy(bare.permissions, { pathBase: "/work" }).decide("mcp__fs_read", { path }, "low").mode).toBe(
        new PermissionPolicy(named.permissions, { pathBase: "/work" }).decide("mcp__fs_read", { path }, "low").mode,
      );
    }
  });
});

describe("generated glob keys and tool names", () => {
  const part = fc.oneof(fc.stringMatching(/^[a-cA-C_]{1,3}$/), fc.constantFrom("*", "?"));
  const globKey = fc.array(part, { minLength: 1, maxLength: 4 }).map((parts) => parts.join("")).filter((key) => /[*?]/.test(key));
  const toolName = fc.stringMatching(/^[a-cA-C_]{1,6}$/);
  /** The oracle, independent of picomatch: `*` any run of characters, `?` one, case-insensitive (rules' default). */
  const matchesGlob = (key: string, name: string) => new RegExp(`^${key.replace(/\*+/g, ".*").replace(/\?/g, ".")}$`, "i").test(name);

  it("the glob key is reported iff it matches none of the known tools (and so is the rule using it)", () => {
    fc.assert(
      fc.property(globKey, fc.uniqueArray(toolName, { minLength: 1, maxLength: 5 }), (key, names) => {
        const loaded = parsePolicy(JSON.stringify({ tools: { [key]: { mainArgument: { field: "path", kind: "path" } } }, permissions: [{ rule: `${key}(./secrets/**)`, mode: "deny" }] }), "json", "p.json");
        const { tools, args } = catalogOf(Object.fromEntries(names.map((name) => [name, ["path"]])));
        const { errors } = checkPolicy(loaded, tools, undefined, args);
        const none = !names.some((name) => matchesGlob(key, name));
        expect(errors.filter((error) => error.startsWith(`tools.${key}`))).toEqual(none ? [`tools.${key}.mainArgument: the glob ${JSON.stringify(key)} matches no known tool (known: ${names.join(", ")})`] : []);
        expect(errors.some((error) => error.includes("matches no known tool") && error.startsWith("permissions[0]"))).toBe(none);
      }),
      { numRuns: 300 },
    );
  });
});
