// Claude Code settings as Claude Code's permissions pages say they act, where the guard refused them or read them
// otherwise:
//   - rules on tools whose specifier is a name, not a path or a command: `Agent(Explore)` ("matches the Explore
//     subagent"), `Task(Explore)` (the same tool before Claude Code renamed Task to Agent, anthropics/claude-code#29677),
//     `Skill(deploy)` / `Skill(deploy *)` ("exact match" / "prefix match with any arguments"; a deny on a skill must stop
//     the Skill tool: anthropics/claude-code#30567, #51386), `SlashCommand(/review-pr:*)` (the older tool, its
//     `command` "/review-pr 123"). The guard refused each ("has no declared main argument"). `WebSearch(x)` has no
//     specifier in Claude Code ("allow or deny the tool as a whole") and is refused with that reason.
//   - an allow rule written as a parameter (`Bash(run_in_background:true)`): Claude Code matches parameters in deny and
//     ask rules only, "allow rules continue to use each tool's own specifier syntax"; the guard read the allow as "any
//     background command", a hole. A path rule on Write, NotebookEdit, MultiEdit or Glob in `allow` is "accepted but
//     never consulted" by Claude Code; the guard allowed by it.
//   - `/path` is anchored at the settings source: the project for `.claude/settings.json`, `~/.claude` for the user's
//     own settings (a `Read(/secrets/**)` deny there "blocks ~/.claude/secrets/**, not a secrets directory in your
//     project").
//   - `defaultMode` and `additionalDirectories` (not read before): working directories widen where reads need no
//     approval, `acceptEdits` allows edits inside them (not to `.git` or `.claude`), `plan` holds edits for approval,
//     `dontAsk` denies whatever would ask, `bypassPermissions` allows what no deny or ask rule names ("Deny rules block
//     in every mode, including bypassPermissions"), not from project settings and not under
//     `disableBypassPermissionsMode: "disable"`.
//   - several settings files merged: managed > command line > local > project > user, lists merged so a deny at any
//     level wins and an ask at any level beats an allow (anthropics/claude-code#37730 for subagents ignoring settings;
//     the precedence table of Claude Code's settings page), `allowManagedPermissionRulesOnly`; the reported surprises
//     (anthropics/claude-code#12713: a local allow did not undo a user deny; #17017, #21851: a project's list seemed to
//     replace the user's; #45426, #60374, #86253: deny and ask rules under bypass, a managed disableBypassPermissionsMode).
//   - a directory where a policy file goes (`policy check PROJECT`, GUARDED_GRAPH_POLICY) is that project's settings.
//   - a Read deny also denies Edit and Write there; an Edit allow also allows Read there (Claude Code's tools reference).
// Before this round 65 of these 68 tests failed (the first 22 written: 19 failed; the 44 after them need the merged
// loader, which did not exist; the two on Read and Edit reaching each other failed against the loader).
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { checkPolicy, loadClaudeSettings, parseClaudeSettingsLayers, parsePolicy, permissionPolicy, type ClaudeSettingsScope } from "../src/policy/index.js";
import { PolicyError } from "../src/policy/errors.js";
import { claudeSettingsExample } from "../examples/claude-settings.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "gg-claude-modes-")));
const project = join(root, "project");
const home = join(root, "home");
const shared = join(root, "shared");
const elsewhere = join(root, "elsewhere");
afterAll(() => rmSync(root, { recursive: true, force: true }));
for (const file of ["project/src/a.ts", "project/.git/config", "project/.claude/settings.json", "project/secrets/k", "home/.claude/secrets/k", "shared/lib/b.ts", "elsewhere/c.ts"]) {
  mkdirSync(join(root, file, ".."), { recursive: true });
  writeFileSync(join(root, file), "x");
}

type Mode = "allow" | "deny" | "ask";
const settingsAt = (path: string, settings: unknown) => permissionPolicy(parsePolicy(JSON.stringify(settings), "json", path));
const projectSettings = (settings: unknown) => settingsAt(join(project, ".claude", "settings.json"), settings);
const refused = (settings: unknown, path = join(project, ".claude", "settings.json")): string => {
  try {
    parsePolicy(JSON.stringify(settings), "json", path);
  } catch (error) {
    expect(error).toBeInstanceOf(PolicyError);
    return String((error as Error).message);
  }
  throw new Error(`accepted ${JSON.stringify(settings)}`);
};

describe("rules on tools whose specifier is a name", () => {
  const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/);
  const plugin = fc.tuple(name, name).map(([p, n]) => `${p}:${n}`);

  it("Agent(NAME) and Task(NAME) hold for that subagent type, on the Agent tool and on the Task tool it was renamed from", () => {
    fc.assert(
      fc.property(fc.oneof(name, plugin, fc.constantFrom("Explore", "Plan", "general-purpose")), fc.oneof(name, plugin), fc.constantFrom("Agent", "Task"), fc.constantFrom<Mode>("deny", "ask", "allow"), (agent, other, written, mode) => {
        const guard = projectSettings({ permissions: { [mode]: [`${written}(${agent})`] } });
        for (const tool of ["Agent", "Task"]) {
          expect(guard.decide(tool, { subagent_type: agent, description: "d", prompt: "p" }, "high").mode, `${written}(${agent}) on ${tool}`).toBe(mode);
          if (other !== agent) expect(guard.decide(tool, { subagent_type: other, description: "d", prompt: "p" }, "high").mode, `${other} under ${written}(${agent})`).toBe("ask");
        }
      }),
      { seed: 29677, numRuns: 200 },
    );
  });

  it("a call without a subagent type runs general-purpose: Agent(general-purpose) holds for it", () => {
    const guard = projectSettings({ permissions: { deny: ["Agent(general-purpose)"], allow: ["Agent(Explore)"] } });
    expect(guard.decide("Agent", { description: "d", prompt: "p" }, "low").mode).toBe("deny");
    expect(guard.decide("Agent", { subagent_type: "Explore", description: "d", prompt: "p" }, "high").mode).toBe("allow");
    const explore = projectSettings({ permissions: { deny: ["Agent(Explore)"] } });
    expect(explore.decide("Agent", { description: "d", prompt: "p" }, "low").mode).toBe("allow");
  });

  it("a parameter rule on Agent (deny/ask) reads that parameter: Agent(model:opus), Agent(isolation:*)", () => {
    const guard = projectSettings({ permissions: { deny: ["Agent(model:opus)"], ask: ["Agent(isolation:*)"] } });
    expect(guard.decide("Agent", { subagent_type: "Explore", model: "opus", prompt: "p" }, "low").mode).toBe("deny");
    expect(guard.decide("Agent", { subagent_type: "Explore", isolation: "worktree", prompt: "p" }, "low").mode).toBe("ask");
    expect(guard.decide("Agent", { subagent_type: "Explore", prompt: "p" }, "low").mode).toBe("allow");
  });

  it("Skill(NAME) is that skill, Skill(NAME *) and Skill(NAME:*) that skill with any arguments; a leading / is the same skill", () => {
    fc.assert(
      fc.property(fc.oneof(name, plugin), name, fc.constantFrom("", " *", ":*"), fc.constantFrom<Mode>("deny", "ask", "allow"), fc.boolean(), (skill, suffix, form, mode, slash) => {
        const guard = projectSettings({ permissions: { [mode]: [`Skill(${skill}${form})`] } });
        const called = slash ? `/${skill}` : skill;
        expect(guard.decide("Skill", { skill: called }, "high").mode, `Skill(${skill}${form}) on ${called}`).toBe(mode);
        expect(guard.decide("Skill", { skill: called, args: "--force now" }, "high").mode, `with args`).toBe(mode);
        expect(guard.decide("Skill", { skill: `${skill}${suffix}` }, "high").mode, `${skill}${suffix}`).toBe("ask");
      }),
      { seed: 30567, numRuns: 200 },
    );
  });

  it("a bare Skill deny stops every skill; a glob names skills by pattern", () => {
    expect(projectSettings({ permissions: { deny: ["Skill"] } }).decide("Skill", { skill: "commit" }, "low").mode).toBe("deny");
    for (const [written, called] of [["Task", "Agent"], ["Agent", "Task"]] as const) {
      expect(projectSettings({ permissions: { deny: [written] } }).decide(called, { subagent_type: "Explore", prompt: "p" }, "low").mode, `${written} on ${called}`).toBe("deny");
    }
    const glob = projectSettings({ permissions: { deny: ["Skill(deploy-*)"] } });
    expect(glob.decide("Skill", { skill: "deploy-prod" }, "low").mode).toBe("deny");
    expect(glob.decide("Skill", { skill: "deployer" }, "low").mode).toBe("allow");
  });

  it("SlashCommand(/NAME) is that command, SlashCommand(/NAME:*) that command with any arguments", () => {
    const guard = projectSettings({ permissions: { deny: ["SlashCommand(/review-pr:*)"], allow: ["SlashCommand(/commit)"] } });
    expect(guard.decide("SlashCommand", { command: "/review-pr 123" }, "low").mode).toBe("deny");
    expect(guard.decide("SlashCommand", { command: "/review-pr" }, "low").mode).toBe("deny");
    expect(guard.decide("SlashCommand", { command: "/review-prx" }, "low").mode).toBe("allow");
    expect(guard.decide("SlashCommand", { command: "/commit" }, "high").mode).toBe("allow");
    expect(guard.decide("SlashCommand", { command: "/commit --amend" }, "high").mode).toBe("ask");
  });

  it("WebSearch takes no specifier: WebSearch loads, WebSearch(x) is refused saying why", () => {
    expect(projectSettings({ permissions: { deny: ["WebSearch"] } }).decide("WebSearch", { query: "x" }, "low").mode).toBe("deny");
    for (const rule of ["WebSearch(site:example.com)", "WebSearch(example)", "ExitPlanMode(x)"]) expect(refused({ permissions: { deny: [rule] } })).toMatch(/no specifier|only the bare tool name/);
  });

  it("NotebookEdit(path) in deny holds for the notebook's path", () => {
    const guard = projectSettings({ permissions: { deny: ["NotebookEdit(./secrets/**)"] } });
    expect(guard.decide("NotebookEdit", { notebook_path: join(project, "secrets/n.ipynb"), new_source: "x" }, "low").mode).toBe("deny");
    expect(guard.decide("NotebookEdit", { notebook_path: join(project, "src/n.ipynb"), new_source: "x" }, "low").mode).toBe("allow");
  });
});

describe("allow rules read as Claude Code reads them", () => {
  it("an allow written as a parameter is the tool's own specifier, not 'any call with that parameter'", () => {
    const guard = projectSettings({ permissions: { allow: ["Bash(run_in_background:true)", "Agent(model:haiku)", "Read(file_path:x)"] } });
    expect(guard.decide("Bash", { command: "rm -rf src", run_in_background: true }, "high").mode).toBe("ask");
    expect(guard.decide("Agent", { subagent_type: "x", model: "haiku", prompt: "p" }, "high").mode).toBe("ask");
    expect(guard.decide("Read", { file_path: join(elsewhere, "c.ts") }, "high").mode).toBe("ask");
    const deny = projectSettings({ permissions: { deny: ["Bash(run_in_background:true)"], ask: ["Agent(model:opus)"] } });
    expect(deny.decide("Bash", { command: "ls", run_in_background: true }, "low").mode).toBe("deny");
    expect(deny.decide("Bash", { command: "ls" }, "low").mode).toBe("allow");
    expect(deny.decide("Agent", { subagent_type: "x", model: "opus", prompt: "p" }, "low").mode).toBe("ask");
  });

  it("an allow path rule on Write, NotebookEdit, MultiEdit or Glob is not consulted; policy check says so", () => {
    for (const tool of ["Write", "NotebookEdit", "MultiEdit", "Glob"]) {
      const rule = `${tool}(/${elsewhere}/**)`;
      const loaded = parsePolicy(JSON.stringify({ permissions: { allow: [rule] } }), "json", join(project, ".claude", "settings.json"));
      const field = tool === "NotebookEdit" ? "notebook_path" : tool === "Glob" ? "path" : "file_path";
      expect(permissionPolicy(loaded).decide(tool, { [field]: join(elsewhere, "c.ts"), pattern: "*", content: "x" }, "high").mode, tool).toBe("ask");
      const said = checkPolicy(loaded).warnings.find((warning) => warning.includes(rule)) ?? "";
      expect(said, tool).toMatch(tool === "Glob" ? /never consults.*write Read\(/ : /never consults.*write Edit\(/);
    }
  });
});

describe("Read and Edit rules reach each other as Claude Code's tools reference says", () => {
  // "A Read(...) deny rule also blocks the Edit and Write tools on the same path, including creating a new file
  // there"; "An Edit(...) allow rule also grants read access to the same path".
  it("a Read deny also denies editing and writing there, even where acceptEdits or an Edit allow would allow", () => {
    for (const rule of ["Read(./secrets/**)", "Read(secrets)", "Read(/secrets/**)"]) {
      const guard = projectSettings({ permissions: { defaultMode: "acceptEdits", deny: [rule], allow: ["Edit(./**)"] } });
      expect(guard.decide("Edit", { file_path: join(project, "secrets/k"), old_string: "x", new_string: "y" }, "low").mode, rule).toBe("deny");
      expect(guard.decide("Write", { file_path: join(project, "secrets/new.txt"), content: "x" }, "low").mode, rule).toBe("deny");
      expect(guard.decide("Edit", { file_path: join(project, "src/a.ts"), old_string: "x", new_string: "y" }, "high").mode, rule).toBe("allow");
    }
  });

  it("an Edit allow also allows reading there", () => {
    // The user's own settings, read alone (no project: paths are read from /).
    const guard = permissionPolicy(parseClaudeSettingsLayers([{ scope: "user", source: join(home, ".claude", "settings.json"), settings: { permissions: { allow: [`Edit(/${elsewhere}/**)`] } } }], { home }));
    expect(guard.decide("Read", { file_path: join(elsewhere, "c.ts") }, "high").mode).toBe("allow");
    expect(guard.decide("Read", { file_path: join(shared, "lib/b.ts") }, "high").mode).toBe("ask");
  });

  it("an allow with an absolute path in an additional working directory allows there, with a project known", () => {
    const guard = projectSettings({ permissions: { additionalDirectories: [elsewhere], allow: [`Edit(/${elsewhere}/**)`] } });
    expect(guard.decide("Edit", { file_path: join(elsewhere, "c.ts"), old_string: "x", new_string: "y" }, "high").mode).toBe("allow");
    expect(guard.decide("Edit", { file_path: join(shared, "lib/b.ts"), old_string: "x", new_string: "y" }, "high").mode).toBe("ask");
  });
});

describe("/path is anchored at the settings source", () => {
  it("project settings: the project; the user's settings: ~/.claude", () => {
    const inProject = projectSettings({ permissions: { deny: ["Read(/secrets/**)"] } });
    expect(inProject.decide("Read", { file_path: join(project, "secrets/k") }, "low").mode).toBe("deny");
    const user = permissionPolicy(parseClaudeSettingsLayers([{ scope: "user", source: join(home, ".claude", "settings.json"), settings: { permissions: { deny: ["Read(/secrets/**)"] } } }], { project, home }));
    expect(user.decide("Read", { file_path: join(home, ".claude/secrets/k") }, "low").mode).toBe("deny");
    expect(user.decide("Read", { file_path: join(project, "secrets/k") }, "low").mode).toBe("allow");
  });
});

describe("working directories and defaultMode", () => {
  const inProject = join(project, "src/a.ts");
  const inShared = join(shared, "lib/b.ts");
  const outside = join(elsewhere, "c.ts");
  const edit = (path: string) => ({ file_path: path, old_string: "x", new_string: "y" });

  it("additionalDirectories: reads there need no approval, as in the project; elsewhere the tool's risk decides", () => {
    const guard = projectSettings({ permissions: { additionalDirectories: ["../shared"] } });
    for (const path of [inProject, inShared]) expect(guard.decide("Read", { file_path: path }, "high").mode, path).toBe("allow");
    expect(guard.decide("Grep", { pattern: "x", path: shared }, "high").mode).toBe("allow");
    expect(guard.decide("Read", { file_path: outside }, "high").mode).toBe("ask");
    expect(guard.decide("Edit", edit(inShared), "high").mode).toBe("ask");
  });

  it("additionalDirectories with path deny rules: a file there is placed, so a deny holds there only where its pattern matches", () => {
    const guard = projectSettings({ permissions: { additionalDirectories: ["../shared"], deny: ["Read(./.env)", "Read(./secrets/**)"] } });
    expect(guard.decide("Read", { file_path: inShared }, "high").mode).toBe("allow");
    expect(guard.decide("Read", { file_path: join(project, ".env") }, "low").mode).toBe("deny");
    expect(guard.decide("Read", { file_path: join(project, "secrets/k") }, "low").mode).toBe("deny");
    expect(guard.decide("Bash", { command: "cat .env" }, "low").mode).toBe("deny");
    expect(guard.decide("Bash", { command: "cat secrets/k" }, "low").mode).toBe("deny");
    expect(guard.decide("Read", { file_path: join(project, "../project/secrets/k") }, "low").mode).toBe("deny");
    expect(guard.decide("Read", { file_path: outside }, "low").mode).toBe("deny");
  });

  it("acceptEdits: edits in the working directories are allowed, not .git or .claude, not elsewhere; deny rules still hold", () => {
    const guard = projectSettings({ permissions: { defaultMode: "acceptEdits", additionalDirectories: [shared], deny: ["Edit(./src/secret.ts)"] } });
    for (const tool of ["Edit", "Write", "MultiEdit"]) {
      expect(guard.decide(tool, edit(inProject), "high").mode, tool).toBe("allow");
      expect(guard.decide(tool, edit(inShared), "high").mode, tool).toBe("allow");
      // Outside every working directory a path deny cannot place the file, and holds for it (the guard fails closed).
      expect(guard.decide(tool, edit(outside), "high").mode, tool).not.toBe("allow");
      expect(guard.decide(tool, edit(join(project, ".git/config")), "high").mode, tool).toBe("ask");
      expect(guard.decide(tool, edit(join(project, ".claude/settings.json")), "high").mode, tool).toBe("ask");
      expect(guard.decide(tool, edit(join(project, "src/secret.ts")), "high").mode, tool).toBe("deny");
    }
    expect(guard.decide("NotebookEdit", { notebook_path: join(project, "src/n.ipynb"), new_source: "x" }, "high").mode).toBe("allow");
    expect(guard.decide("Bash", { command: "curl https://example.com" }, "high").mode).toBe("ask");
  });

  it("plan: edits wait for approval even where an allow rule covers them", () => {
    const guard = projectSettings({ permissions: { defaultMode: "plan", allow: ["Edit(./src/**)", "Bash(npm test)"] } });
    expect(guard.decide("Edit", edit(inProject), "low").mode).toBe("ask");
    expect(guard.decide("Write", { file_path: inProject, content: "x" }, "low").mode).toBe("ask");
    expect(guard.decide("Read", { file_path: inProject }, "high").mode).toBe("allow");
  });

  it("dontAsk: what would ask is denied (ask rules and calls no rule decides); allow rules and reads in the project still allow", () => {
    const guard = projectSettings({ permissions: { defaultMode: "dontAsk", allow: ["Bash(npm test)"], ask: ["Bash(git push *)"] } });
    expect(guard.decide("Bash", { command: "npm test" }, "high").mode).toBe("allow");
    expect(guard.decide("Bash", { command: "git push origin main" }, "low").mode).toBe("deny");
    expect(guard.decide("Bash", { command: "make" }, "high").mode).toBe("deny");
    expect(guard.decide("Bash", { command: "make" }, "low").mode).toBe("deny");
    expect(guard.decide("Read", { file_path: inProject }, "high").mode).toBe("allow");
  });

  it("bypassPermissions (user settings): what no deny or ask rule names is allowed; deny and ask rules still hold; policy check warns", () => {
    const layer = (settings: unknown) => parseClaudeSettingsLayers([{ scope: "user", source: join(home, ".claude", "settings.json"), settings }], { project, home });
    const loaded = layer({ permissions: { defaultMode: "bypassPermissions", deny: ["Bash(rm *)"], ask: ["Bash(git push *)"] } });
    const guard = permissionPolicy(loaded);
    expect(guard.decide("Bash", { command: "make" }, "high").mode).toBe("allow");
    expect(guard.decide("Bash", { command: "rm -rf x" }, "low").mode).toBe("deny");
    expect(guard.decide("Bash", { command: "git push" }, "low").mode).toBe("ask");
    expect(checkPolicy(loaded).warnings.join("\n")).toMatch(/bypassPermissions/);
  });

  it("bypassPermissions does not apply from project or local settings, nor under disableBypassPermissionsMode", () => {
    expect(projectSettings({ permissions: { defaultMode: "bypassPermissions" } }).decide("Bash", { command: "make" }, "high").mode).toBe("ask");
    const local = settingsAt(join(project, ".claude", "settings.local.json"), { permissions: { defaultMode: "bypassPermissions" } });
    expect(local.decide("Bash", { command: "make" }, "high").mode).toBe("ask");
    const disabled = permissionPolicy(
      parseClaudeSettingsLayers(
        [
          { scope: "managed", source: "/etc/claude-code/managed-settings.json", settings: { permissions: { disableBypassPermissionsMode: "disable" } } },
          { scope: "user", source: join(home, ".claude", "settings.json"), settings: { permissions: { defaultMode: "bypassPermissions" } } },
        ],
        { project, home },
      ),
    );
    expect(disabled.decide("Bash", { command: "make" }, "high").mode).toBe("ask");
  });

  it("an unknown defaultMode is refused, naming the values", () => {
    expect(refused({ permissions: { defaultMode: "yolo" } })).toMatch(/defaultMode.*acceptEdits.*bypassPermissions/);
  });

  it("policy check no longer lists defaultMode and additionalDirectories as not read", () => {
    const loaded = parsePolicy(JSON.stringify({ permissions: { defaultMode: "acceptEdits", additionalDirectories: ["../shared"] }, env: {} }), "json", join(project, ".claude", "settings.json"));
    const notRead = checkPolicy(loaded).warnings.find((w) => w.includes("are not read by the guard")) ?? "";
    expect(notRead).toMatch(/env/);
    expect(notRead).not.toMatch(/defaultMode|additionalDirectories/);
  });
});

describe("several settings files, merged as Claude Code merges them", () => {
  const SCOPES: readonly ClaudeSettingsScope[] = ["managed", "commandLine", "local", "project", "user"];
  const POOL = ["Bash(npm test *)", "Bash(git push *)", "Bash(git *)", "Bash(rm *)", "Read(./secrets/**)", "Read(./src/**)", "WebFetch(domain:example.com)", "mcp__github", "Agent(Explore)", "Skill(deploy *)"];
  const CALLS: readonly (readonly [string, Record<string, unknown>])[] = [
    ["Bash", { command: "npm test -- -t x" }],
    ["Bash", { command: "git push origin main" }],
    ["Bash", { command: "git status" }],
    ["Bash", { command: "rm -rf build" }],
    ["Read", { file_path: join(project, "secrets/k") }],
    ["Read", { file_path: join(elsewhere, "c.ts") }],
    ["WebFetch", { url: "https://example.com/x", prompt: "p" }],
    ["mcp__github__create_issue", { title: "t" }],
    ["Agent", { subagent_type: "Explore", prompt: "p" }],
    ["Skill", { skill: "deploy", args: "prod" }],
  ];
  /** Whether `rule` alone in `list` decides the call: a policy holding only it, in that list. */
  const matches = new Map<string, boolean>();
  const matchesCall = (rule: string, index: number, list: Mode) => {
    const key = `${list}:${rule}#${index}`;
    let hit = matches.get(key);
    if (hit === undefined) {
      const [tool, args] = CALLS[index]!;
      // Calls no rule decides: asked at high risk, allowed at low; so an allow shows at high risk, a deny or ask at low.
      hit = projectSettings({ permissions: { [list]: [rule] } }).decide(tool, args, list === "allow" ? "high" : "low").mode === list;
      matches.set(key, hit);
    }
    return hit;
  };
  const lists = fc.record({ allow: fc.subarray([...POOL], { maxLength: 4 }), ask: fc.subarray([...POOL], { maxLength: 2 }), deny: fc.subarray([...POOL], { maxLength: 2 }) });

  it("generated lists in every file: deny anywhere wins, then ask anywhere, then allow anywhere (and only managed rules under allowManagedPermissionRulesOnly)", () => {
    fc.assert(
      fc.property(fc.array(lists, { minLength: 5, maxLength: 5 }), fc.boolean(), (perScope, managedOnly) => {
        const layers = SCOPES.map((scope, i) => ({
          scope,
          source: scope === "user" ? join(home, ".claude", "settings.json") : scope === "project" ? join(project, ".claude", "settings.json") : scope === "local" ? join(project, ".claude", "settings.local.json") : `${scope}.json`,
          settings: { ...(scope === "managed" && managedOnly ? { allowManagedPermissionRulesOnly: true } : {}), permissions: perScope[i]! },
        }));
        const guard = permissionPolicy(parseClaudeSettingsLayers(layers, { project, home }));
        const counted = managedOnly ? perScope.slice(0, 1) : perScope;
        CALLS.forEach(([tool, args], index) => {
          const any = (list: Mode) => counted.some((l) => l[list].some((rule) => matchesCall(rule, index, list)));
          const expected = any("deny") ? "deny" : any("ask") ? "ask" : any("allow") ? "allow" : tool === "Read" && index !== 5 ? "allow" : "ask";
          expect(guard.decide(tool, args, "high").mode, `${tool} ${JSON.stringify(args)} under ${JSON.stringify(counted)}`).toBe(expected);
        });
      }),
      { seed: 37730, numRuns: 60 },
    );
  });

  it("defaultMode: the highest file that sets it; additionalDirectories: every file's", () => {
    const guard = permissionPolicy(
      parseClaudeSettingsLayers(
        [
          { scope: "project", source: join(project, ".claude", "settings.json"), settings: { permissions: { defaultMode: "acceptEdits" } } },
          { scope: "user", source: join(home, ".claude", "settings.json"), settings: { permissions: { defaultMode: "dontAsk", additionalDirectories: [shared] } } },
        ],
        { project, home },
      ),
    );
    expect(guard.decide("Edit", { file_path: join(shared, "lib/b.ts"), old_string: "x", new_string: "y" }, "high").mode).toBe("allow");
    expect(guard.decide("Bash", { command: "make" }, "high").mode).toBe("ask");
  });

  it("loadClaudeSettings reads the files that exist: managed, local, project, user", async () => {
    mkdirSync(join(project, ".claude"), { recursive: true });
    mkdirSync(join(home, ".claude"), { recursive: true });
    const managed = join(root, "managed-settings.json");
    writeFileSync(managed, JSON.stringify({ permissions: { deny: ["Bash(curl *)"] } }));
    writeFileSync(join(project, ".claude", "settings.json"), JSON.stringify({ permissions: { allow: ["Bash(curl *)", "Bash(npm test *)"] } }));
    writeFileSync(join(project, ".claude", "settings.local.json"), JSON.stringify({ permissions: { ask: ["Bash(npm test *)"] } }));
    writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ permissions: { allow: ["Bash(make)"] } }));
    const loaded = await loadClaudeSettings({ project, home, managed });
    const guard = permissionPolicy(loaded);
    expect(guard.decide("Bash", { command: "curl https://x" }, "high").mode).toBe("deny");
    expect(guard.decide("Bash", { command: "npm test" }, "high").mode).toBe("ask");
    expect(guard.decide("Bash", { command: "make" }, "high").mode).toBe("allow");
    expect(guard.decide("Bash", { command: "curl https://x" }, "high").ruleId).toMatch(/^permission:managed:deny\[0\]$/);
  });
});

describe("reported precedence surprises, decided as Claude Code's settings pages say", () => {
  const SOURCES: Readonly<Record<ClaudeSettingsScope, string>> = {
    managed: "/etc/claude-code/managed-settings.json",
    commandLine: "command line",
    local: join(project, ".claude", "settings.local.json"),
    project: join(project, ".claude", "settings.json"),
    file: join(root, "extra-settings.json"),
    user: join(home, ".claude", "settings.json"),
  };
  const ORDER: readonly ClaudeSettingsScope[] = ["managed", "commandLine", "local", "project", "user"];
  const merged = (layers: readonly (readonly [ClaudeSettingsScope, unknown])[]) => permissionPolicy(parseClaudeSettingsLayers(layers.map(([scope, settings]) => ({ scope, source: SOURCES[scope], settings })), { project, home }));
  const pairs = ORDER.flatMap((a) => ORDER.filter((b) => b !== a).map((b) => [a, b] as const));

  // anthropics/claude-code#12713: a local allow did not override a user deny. Claude Code merges the lists and a deny
  // at any level wins, whichever file is higher; so does the guard, for every pair of files.
  it.each(pairs)("a deny in %s settings wins over an allow in %s settings", (denyIn, allowIn) => {
    const guard = merged([[denyIn, { permissions: { deny: ["Bash(rm *)"], ask: ["Bash(git push *)"] } }], [allowIn, { permissions: { allow: ["Bash(rm *)", "Bash(git push *)"] } }]]);
    expect(guard.decide("Bash", { command: "rm -rf build" }, "low").mode).toBe("deny");
    expect(guard.decide("Bash", { command: "git push origin main" }, "low").mode).toBe("ask");
  });

  // anthropics/claude-code#17017 and #21851: a project's own permissions block replaced the user's allow list. The lists
  // merge: an empty or different list in one file takes nothing from another's.
  it.each(pairs)("an allow in %s settings still holds beside a %s settings file with its own (or an empty) list", (allowIn, other) => {
    for (const list of [[], ["mcp__expo__search"]]) {
      const guard = merged([[allowIn, { permissions: { allow: ["mcp__atlassian__*"] } }], [other, { permissions: { allow: list } }]]);
      expect(guard.decide("mcp__atlassian__get_issue", { key: "X-1" }, "high").mode).toBe("allow");
    }
  });

  // anthropics/claude-code#45426: a project deny did not block once the user's settings skipped prompts; #60374: ask
  // rules still prompt under bypass (as documented); #86253: a managed disableBypassPermissionsMode did not stop a
  // bypass given on the command line.
  it("a deny and an ask hold under the user's bypassPermissions and whatever else the user's file sets; a managed disableBypassPermissionsMode stops a command-line bypass", () => {
    const bypass = merged([
      ["project", { permissions: { deny: ["Bash(python3 *)"], ask: ["Edit(./src/**)"] } }],
      ["user", { skipAutoPermissionPrompt: true, permissions: { defaultMode: "bypassPermissions", allow: ["Bash"] } }],
    ]);
    expect(bypass.decide("Bash", { command: "python3 -c 'print(1)'" }, "low").mode).toBe("deny");
    expect(bypass.decide("Edit", { file_path: join(project, "src/a.ts"), old_string: "x", new_string: "y" }, "low").mode).toBe("ask");
    expect(bypass.decide("Bash", { command: "make" }, "high").mode).toBe("allow");
    const stopped = merged([
      ["managed", { permissions: { disableBypassPermissionsMode: "disable" } }],
      ["commandLine", { permissions: { defaultMode: "bypassPermissions" } }],
    ]);
    expect(stopped.decide("Bash", { command: "make" }, "high").mode).toBe("ask");
  });
});

describe("examples/claude-settings.ts", () => {
  it("decides each call as the merged files say", async () => {
    const lines = await claudeSettingsExample();
    expect(lines.map((line) => line.replace(/^.* -> /, ""))).toEqual([
      "allow (permission:project:allow[0])",
      "deny (permission:user:deny[0])",
      "ask (permission:project:ask[0])",
      "deny (permission:project:deny[0])",
      "allow (permission:acceptEdits[0]:Edit)",
      "ask (permission:acceptEdits[0]:Edit:.git)",
      "allow (permission:project:allow[1])",
      "deny (permission:project:deny[1])",
    ]);
  });
});

describe("pointing guarded-graph at a project's Claude Code settings", () => {
  it("policy check PROJECT (or PROJECT/.claude) reads every settings file of the project, merged", async () => {
    const { runPolicyCommand } = await import("./helpers/policy-command.js");
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "gg-claude-dir-")));
    try {
      mkdirSync(join(dir, ".claude"), { recursive: true });
      writeFileSync(join(dir, ".claude", "settings.json"), JSON.stringify({ permissions: { allow: ["Bash(npm test *)"], defaultMode: "plan" }, hooks: {} }));
      writeFileSync(join(dir, ".claude", "settings.local.json"), JSON.stringify({ permissions: { deny: ["Bash(npm test *)"] } }));
      for (const target of [dir, join(dir, ".claude")]) {
        const { out } = await runPolicyCommand(["check", target]);
        const text = out.join("\n");
        expect(text, target).toMatch(/settings\.local\.json/);
        expect(text, target).toMatch(/defaultMode plan/);
        expect(text, target).toMatch(/hooks/);
        expect(text, target).not.toMatch(/duplicate id|reads like a/);
      }
      const { loadPolicyPath } = await import("../src/policy/file.js");
      const guard = permissionPolicy(await loadPolicyPath(dir));
      expect(guard.decide("Bash", { command: "npm test" }, "low").mode).toBe("deny");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
