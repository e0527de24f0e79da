// A command tool's deny and ask rules hold for every tool that runs command lines. With `Bash(rm:*)` denied, an agent
// that has a second shell tool (Shell, run_shell, a deep agent's `execute`, a PowerShell tool) ran the same command
// there: 'When Bash tool calls are blocked by user-configured deny rules, Claude switches to the PowerShell tool to
// run the same commands' (anthropics/claude-code#60935 'Claude circumvents Bash permission restrictions by switching
// to PowerShell'; anomalyco/opencode#41970: deny patterns written for bash never matched under pwsh). Now a deny or ask
// rule whose only condition is a command tool's command (`Bash(rm:*)`) is a rule of every command tool of the policy:
// the same line is decided alike in each. Allow rules stay the tool's own.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parsePolicy, permissionPolicy } from "../src/policy/index.js";
import { ORACLE_SEED } from "./helpers/oracle.js";
import { analyzeShell } from "../src/policy/kinds/shell.js";

const TOOLS = "  Bash: { risk: low }\n  Shell: { risk: low }\n  run_shell: { risk: low }\n  execute: { risk: low, mainArgument: { field: command, kind: command } }\n  PowerShell: { risk: low, mainArgument: { field: command, kind: command } }\n  remote: { risk: low, mainArgument: { field: cmd, kind: command } }\n";
const OTHERS = [["Shell", "command"], ["run_shell", "command"], ["execute", "command"], ["PowerShell", "command"], ["remote", "cmd"]] as const;

function policy(rules: string) {
  return permissionPolicy(parsePolicy(`version: 1\npermissions:\n${rules}tools:\n${TOOLS}`, "yaml", "every-shell.yaml"));
}

describe("Bash's deny and ask rules hold for the other shell tools", () => {
  const p = policy(`  - { rule: "Bash(rm:*)", mode: deny }\n  - { rule: "Bash(git push:*)", mode: ask }\n  - { rule: "Bash(curl:*)", mode: allow }\n`);
  it.each(OTHERS)("%s: rm denied, git push asks, through wrappers and chains too", (tool, field) => {
    expect(p.decide(tool, { [field]: "rm -rf build" }).mode).toBe("deny");
    expect(p.decide(tool, { [field]: "echo hi && sudo rm -rf /" }).mode).toBe("deny");
    expect(p.decide(tool, { [field]: "git push origin main" }).mode).toBe("ask");
    expect(p.decide(tool, { [field]: "ls -la" }).mode).toBe("allow");
    const reason = p.decide(tool, { [field]: "rm x" }).reason;
    expect(reason).toMatch(/Bash\(rm:\*\), for every tool that runs commands/);
  });

  it("a rule on another shell tool holds for Bash too", () => {
    const q = policy(`  - { rule: "Shell(terraform destroy:*)", mode: deny }\n`);
    expect(q.decide("Bash", { command: "terraform destroy -auto-approve" }).mode).toBe("deny");
  });

  it("allow rules stay the tool's own: Bash(curl:*) allows nothing in Shell", () => {
    const q = permissionPolicy(parsePolicy(`version: 1\npermissions:\n  - { rule: "Bash(curl:*)", mode: allow }\ntools:\n  Bash: { risk: high }\n  Shell: { risk: high }\n`, "yaml", "allow.yaml"));
    expect(q.decide("Bash", { command: "curl https://x.example/" }).mode).toBe("allow");
    expect(q.decide("Shell", { command: "curl https://x.example/" }).mode).toBe("ask");
  });

  it("generated lines: each shell tool decides a line as Bash does under Bash's deny and ask rules", () => {
    const q = policy(`  - { rule: "Bash(rm:*)", mode: deny }\n  - { rule: "Bash(git push --force:*)", mode: deny }\n  - { rule: "Bash(chmod -R:*)", mode: ask }\n`);
    const word = fc.constantFrom("rm", "-rf", "-fr", "x", "git", "push", "--force", "-f", "origin", "chmod", "-R", "--recursive", "777", "sudo", "env", "timeout", "5", "echo", "ls", "&&", ";", "|", "$(rm x)", "'rm'", "\\rm");
    const lines = fc.sample(fc.array(word, { minLength: 1, maxLength: 7 }).map((words) => words.join(" ")), { numRuns: 400, seed: ORACLE_SEED });
    const differ: string[] = [];
    const rank = { allow: 0, ask: 1, deny: 2 } as const;
    for (const line of lines) {
      const bash = q.decide("Bash", { command: line }).mode;
      for (const [tool, field] of OTHERS) {
        const other = q.decide(tool, { [field]: line }).mode;
        // A PowerShell tool reads its line as PowerShell too (`-f x` is no command there, `Remove-Item x` is rm): it is at
        // least as strict as Bash on a line a POSIX shell parses, and reads a line only PowerShell parses on its own.
        if (tool === "PowerShell") {
          if (analyzeShell(line).ok && rank[other] < rank[bash]) differ.push(`${tool} ${JSON.stringify(line)}: ${other}, Bash ${bash}`);
        } else if (other !== bash) differ.push(`${tool} ${JSON.stringify(line)}: ${other}, Bash ${bash}`);
      }
    }
    expect(differ).toEqual([]);
  });
});
