// A Claude Code settings file read as a policy: `.claude/settings.json`'s permission lists (`allow`, `ask`, `deny`,
// rule strings as Claude Code writes them) decide as the same rules written in a policy file, the project being the
// directory that holds `.claude` (where Claude Code reads `./` and `/`-rooted patterns from); the file's other settings
// are named by `policy check` as not read; a malformed list is refused, naming where.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { checkPolicy, loadPolicyFile, parsePolicy, permissionPolicy } from "../src/policy/index.js";
import { PolicyError } from "../src/policy/errors.js";

const project = realpathSync(mkdtempSync(join(tmpdir(), "gg-claude-settings-")));
afterAll(() => rmSync(project, { recursive: true, force: true }));
for (const file of ["secrets/k", "docs/a.md", "src/a.ts", ".env"]) {
  mkdirSync(join(project, file, ".."), { recursive: true });
  writeFileSync(join(project, file), "x");
}

// As Claude Code's permissions page writes them, with settings the guard does not read beside them.
const SETTINGS = {
  $schema: "https://json.schemastore.org/claude-code-settings.json",
  permissions: {
    allow: ["Bash(npm run test *)", "Bash(git diff *)", "Bash(git status)", "Read(/docs/**)", "WebFetch(domain:docs.python.org)", "mcp__github"],
    ask: ["Bash(git push *)", "Edit(/src/**)"],
    deny: ["Read(./.env)", "Read(/secrets/**)", "Bash(curl *)", "Bash(rm *)", "WebFetch(domain:169.254.169.254)"],
    disableBypassPermissionsMode: "disable",
  },
  env: { CLAUDE_CODE_ENABLE_TELEMETRY: "0" },
  hooks: {},
};

function writeSettings(name: string, settings: unknown): string {
  mkdirSync(join(project, ".claude"), { recursive: true });
  const path = join(project, ".claude", name);
  writeFileSync(path, JSON.stringify(settings, null, 2));
  return path;
}

/**
 * Claude Code reads files in the working directory without asking: Read, Grep and Glob allowed in the project (each
 * rule string's own reading still wins over it, deny and ask first).
 */
const WORKING_DIRECTORY = [
  `  - { tool: Read, where: { file_path: { path: "**", base: ${JSON.stringify(project)} } }, mode: allow }`,
  `  - { tool: Grep, where: { path: { path: "**", base: ${JSON.stringify(project)} } }, mode: allow }`,
  `  - { tool: Glob, where: { path: { path: "**", base: ${JSON.stringify(project)} } }, mode: allow }`,
];

/** The same rules as a policy file writes them, with the project as pathBase (a `/path` anchored there). */
const asPolicyFile = () => {
  const lines = [
    ...SETTINGS.permissions.deny.map((rule) => [rule, "deny"]),
    ...SETTINGS.permissions.ask.map((rule) => [rule, "ask"]),
    ...SETTINGS.permissions.allow.map((rule) => [rule, "allow"]),
  ].map(([rule, mode]) => `  - { rule: ${JSON.stringify(rule)}, mode: ${mode} }`);
  return permissionPolicy(parsePolicy(`version: 1\npathBase: ${JSON.stringify(project)}\npermissions:\n${[...lines, ...WORKING_DIRECTORY].join("\n")}\n`, "yaml", "same-rules.yaml"));
};

const CALLS: readonly (readonly [string, Record<string, unknown>])[] = [
  ["Bash", { command: "npm run test" }],
  ["Bash", { command: "npm run test -- -t parse" }],
  ["Bash", { command: "timeout 60 npm run test" }],
  ["Bash", { command: "git status" }],
  ["Bash", { command: "git diff HEAD~1" }],
  ["Bash", { command: "git push origin main" }],
  ["Bash", { command: "curl https://example.com" }],
  ["Bash", { command: "rm -rf build" }],
  ["Bash", { command: "cat .env" }],
  ["Bash", { command: "cat secrets/k" }],
  ["Bash", { command: "ls" }],
  ["Read", { file_path: join(project, ".env") }],
  ["Read", { file_path: "secrets/k" }],
  ["Read", { file_path: join(project, "docs/a.md") }],
  ["Read", { file_path: "src/a.ts" }],
  ["Edit", { file_path: "src/a.ts", old_string: "x", new_string: "y" }],
  ["Write", { file_path: join(project, "src/b.ts"), content: "x" }],
  ["WebFetch", { url: "https://docs.python.org/3/", prompt: "read" }],
  ["WebFetch", { url: "http://0xa9fea9fe/latest/meta-data/", prompt: "read" }],
  ["mcp__github__create_issue", { title: "t" }],
  ["mcp__gitlab__create_issue", { title: "t" }],
];

describe("a Claude Code settings file is a policy", () => {
  it("its lists decide as the same rules in a policy file, the project being the directory that holds .claude", async () => {
    const loaded = await loadPolicyFile(writeSettings("settings.json", SETTINGS));
    expect(loaded.pathBase).toBe(project);
    const fromSettings = permissionPolicy(loaded);
    const reference = asPolicyFile();
    const modes: Record<string, string> = {};
    for (const [tool, args] of CALLS) {
      for (const risk of ["low", "high"] as const) {
        const got = fromSettings.decide(tool, args, risk);
        expect(got.mode, `${tool} ${JSON.stringify(args)} ${risk}`).toBe(reference.decide(tool, args, risk).mode);
        if (risk === "high") modes[`${tool} ${JSON.stringify(args)}`] = got.mode;
      }
    }
    // What the lists say, as Claude Code reads them.
    expect(modes[`Bash {"command":"timeout 60 npm run test"}`]).toBe("allow");
    expect(modes[`Bash {"command":"git push origin main"}`]).toBe("ask");
    expect(modes[`Bash {"command":"cat secrets/k"}`]).toBe("deny");
    expect(modes[`Read {"file_path":"${join(project, "docs/a.md")}"}`]).toBe("allow");
    expect(modes[`Read {"file_path":"src/a.ts"}`]).toBe("allow");
    expect(modes[`Write {"file_path":"${join(project, "src/b.ts")}","content":"x"}`]).toBe("ask");
    expect(modes[`WebFetch {"url":"http://0xa9fea9fe/latest/meta-data/","prompt":"read"}`]).toBe("deny");
    expect(modes[`mcp__github__create_issue {"title":"t"}`]).toBe("allow");
    expect(fromSettings.decide("Bash", { command: "rm -rf build" }).ruleId).toBe("permission:deny[3]");
  });

  it("generated lists: decided as the policy file that writes the same rules", () => {
    const rule = fc.constantFrom(...SETTINGS.permissions.allow, ...SETTINGS.permissions.ask, ...SETTINGS.permissions.deny, "Bash(npm test:*)", "Read(*.pem)", "Edit(./docs/**)");
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 4 }), fc.array(rule, { maxLength: 3 }), fc.array(rule, { maxLength: 4 }), (allow, ask, deny) => {
        const settings = parsePolicy(JSON.stringify({ permissions: { allow, ask, deny } }), "json", join(project, ".claude", "settings.local.json"));
        const lines = [...deny.map((r) => [r, "deny"]), ...ask.map((r) => [r, "ask"]), ...allow.map((r) => [r, "allow"])].map(([r, m]) => `  - { rule: ${JSON.stringify(r)}, mode: ${m} }`);
        const file = parsePolicy(`version: 1\npathBase: ${JSON.stringify(project)}\npermissions:\n${[...lines, ...WORKING_DIRECTORY].join("\n")}\n`, "yaml", "same.yaml");
        const [a, b] = [permissionPolicy(settings), permissionPolicy(file)];
        for (const [tool, args] of CALLS) expect(a.decide(tool, args, "high").mode, `${tool} ${JSON.stringify(args)}`).toBe(b.decide(tool, args, "high").mode);
      }),
      { seed: 1129, numRuns: 60 },
    );
  });

  it("policy check names the settings the guard does not read", async () => {
    const loaded = await loadPolicyFile(writeSettings("settings.json", SETTINGS));
    const notRead = checkPolicy(loaded).warnings.find((warning) => warning.includes("read as Claude Code's settings"));
    expect(notRead).toMatch(/env, hooks/);
    expect(notRead).not.toMatch(/\$schema|disableBypassPermissionsMode/);
  });

  it("the user's own settings (~/.claude) and a settings file outside a .claude directory set no pathBase; a policy file is read as before", () => {
    const userSettings = join(homedir(), ".claude", "settings.json");
    expect(parsePolicy(JSON.stringify({ permissions: { deny: ["Read(./.env)"] } }), "json", userSettings).pathBase).toBeUndefined();
    expect(parsePolicy(JSON.stringify({ permissions: { deny: ["Bash(rm *)"] } }), "json", join(project, "claude-settings.json")).pathBase).toBeUndefined();
    const policy = parsePolicy(JSON.stringify({ version: 1, permissions: [{ rule: "Bash(rm *)", mode: "deny" }] }), "json", join(project, ".claude", "settings.json"));
    expect(policy.pathBase).toBeUndefined();
    expect(policy.notRead).toBeUndefined();
  });

  it("a malformed list is refused, naming where", () => {
    const refused = (permissions: unknown) => {
      try {
        parsePolicy(JSON.stringify({ permissions }), "json", "settings.json");
      } catch (error) {
        expect(error).toBeInstanceOf(PolicyError);
        return String((error as Error).message);
      }
      throw new Error(`accepted ${JSON.stringify(permissions)}`);
    };
    expect(refused({ allow: "Bash(ls)" })).toMatch(/allow/);
    expect(refused({ deny: ["Bash(rm *)", 3] })).toMatch(/deny/);
    expect(refused({ ask: [""] })).toMatch(/empty/);
    expect(refused({ deny: ["Bash(rm *"] })).toMatch(/cannot read the rule/);
  });
});
