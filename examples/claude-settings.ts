// A project's Claude Code settings files, merged as Claude Code merges them, guarding the same tool calls.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadClaudeSettings, permissionPolicy } from "guarded-graph";

export async function claudeSettingsExample() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "claude-settings-example-")));
  try {
    const project = join(root, "app");
    const home = join(root, "home");
    const write = (path: string, settings: unknown) => {
      mkdirSync(join(path, ".."), { recursive: true });
      writeFileSync(path, JSON.stringify(settings));
    };
    // Your own settings: a deny that every project keeps.
    write(join(home, ".claude", "settings.json"), { permissions: { deny: ["Bash(curl *)"], allow: ["Bash(git status)"] } });
    // The project's shared settings, and your local overrides (which cannot take back a deny).
    write(join(project, ".claude", "settings.json"), {
      permissions: { defaultMode: "acceptEdits", allow: ["Bash(npm test *)", "Agent(Explore)"], ask: ["Bash(git push *)"], deny: ["Read(./.env)", "Skill(deploy *)"] },
    });
    write(join(project, ".claude", "settings.local.json"), { permissions: { allow: ["Bash(curl *)"] } });
    const policy = permissionPolicy(await loadClaudeSettings({ project, home, managed: false }));
    const calls: [string, Record<string, unknown>][] = [
      ["Bash", { command: "timeout 60 npm test -- --watch=false" }],
      ["Bash", { command: "curl https://example.com" }],
      ["Bash", { command: "git push origin main" }],
      ["Read", { file_path: join(project, ".env") }],
      ["Edit", { file_path: join(project, "src/app.ts"), old_string: "a", new_string: "b" }],
      ["Edit", { file_path: join(project, ".git/config"), old_string: "a", new_string: "b" }],
      ["Agent", { subagent_type: "Explore", description: "find", prompt: "where is X" }],
      ["Skill", { skill: "deploy", args: "production" }],
    ];
    return calls.map(([tool, args]) => {
      const decision = policy.decide(tool, args, "high");
      return `${tool} ${JSON.stringify(args)} -> ${decision.mode} (${decision.ruleId})`;
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) void claudeSettingsExample().then((lines) => console.log(lines.join("\n")));
