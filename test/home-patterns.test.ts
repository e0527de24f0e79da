// `~` in a Read/Edit path pattern is the home directory, as Claude Code's rules read it (`Read(~/.ssh/**)`,
// `Edit(~/.bashrc)`) and as bash expands `~/…` in the words of a command: the home of the process the tools
// run in (`os.homedir()`), or the policy's `home`. Before, such a policy was refused when it was loaded
// ("~ is not supported"), so settings written for Claude Code could not be used as they are. `~NAME/…`
// (another user's home) is still refused, naming why. The real bash judges: it expands `~/SUFFIX` with HOME
// set to the home, and the guard must deny the path bash produces (and only paths under it).
import { spawnSync } from "node:child_process";
import { homedir } from "node:os";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parsePolicy, permissionPolicy, PermissionPolicy } from "../src/policy/index.js";
import { ORACLE_SEED } from "./helpers/oracle.js";

function policy(rules: readonly string[], home?: string) {
  const lines = rules.map((rule) => `  - { rule: ${JSON.stringify(rule)}, mode: deny }`).join("\n");
  const text = `version: 1\n${home === undefined ? "" : `home: ${JSON.stringify(home)}\n`}permissions:\n${lines}\n  - { rule: "Bash(cat:*)", mode: allow }\ntools:\n  Read: { risk: low }\n  Edit: { risk: low }\n  Bash: { risk: medium }\n`;
  return permissionPolicy(parsePolicy(text, "yaml", "home.yaml"));
}

const HOME = homedir();

describe("`~` in a path pattern is the home directory", () => {
  it("Read(~/.aws/**) loads and denies what is under the process's home, and nothing beside it", () => {
    const p = policy(["Read(~/.aws/**)"]);
    expect(p.decide("Read", { file_path: `${HOME}/.aws/credentials` }).mode).toBe("deny");
    expect(p.decide("Read", { file_path: `${HOME}/.aws` }).mode).toBe("deny");
    expect(p.decide("Read", { file_path: `${HOME}//.aws/./config` }).mode).toBe("deny");
    expect(p.decide("Read", { file_path: `${HOME}/.awsx/credentials` }).mode).toBe("allow");
    expect(p.decide("Read", { file_path: `/srv/other/.aws/credentials` }).mode).toBe("allow");
  });

  it("a policy's `home` names the home of the tools (a container's user, another account)", () => {
    const p = policy(["Read(~/.ssh/**)", "Edit(~/.bashrc)"], "/home/agent");
    expect(p.decide("Read", { file_path: "/home/agent/.ssh/id_ed25519" }).mode).toBe("deny");
    expect(p.decide("Edit", { file_path: "/home/agent/.bashrc" }).mode).toBe("deny");
    expect(p.decide("Edit", { file_path: "/home/agent/.bashrc.bak" }).mode).toBe("allow");
    expect(p.decide("Read", { file_path: `${HOME === "/home/agent" ? "/nowhere" : HOME}/.ssh/id_ed25519` }).mode).toBe("allow");
  });

  it("the same in code: PermissionPolicy's `home` option, and a long-hand path condition", () => {
    const p = new PermissionPolicy(
      [
        { tool: "read_file", mode: "deny", where: { path: { path: "~/.config/gcloud/**" } } },
        { tool: "read_file", mode: "allow" },
      ],
      { home: "/home/svc" },
    );
    expect(p.decide("read_file", { path: "/home/svc/.config/gcloud/credentials.db" }).mode).toBe("deny");
    expect(p.decide("read_file", { path: "/home/svc/.config/other" }).mode).toBe("allow");
  });

  it("`~` alone is the home itself, and a deny on it holds for everything in it", () => {
    const p = policy(["Read(~)"], "/home/agent");
    expect(p.decide("Read", { file_path: "/home/agent" }).mode).toBe("deny");
    expect(p.decide("Read", { file_path: "/home/agent/notes.txt" }).mode).toBe("deny");
    expect(p.decide("Read", { file_path: "/home/agents/notes.txt" }).mode).toBe("allow");
  });

  it("another user's home (`~root/…`) is refused when the policy is loaded, naming why", () => {
    expect(() => policy(["Read(~root/.ssh/**)"])).toThrow(/another user's home/);
  });

  it("a relative `home` is refused", () => {
    expect(() => policy(["Read(~/.ssh/**)"], "home/agent")).toThrow(/home.*absolute/);
  });

  it("the rule reaches the shell: `cat` of the file under the home is denied, a `~` word still asks", () => {
    const p = policy(["Read(~/.aws/**)"], "/home/agent");
    expect(p.decide("Bash", { command: "cat /home/agent/.aws/credentials" }).mode).toBe("deny");
    expect(p.decide("Bash", { command: "cat ~/.aws/credentials" }).mode).not.toBe("allow");
    expect(p.decide("Bash", { command: "cat /home/agent/notes.txt" }).mode).toBe("allow");
  });

  describe.runIf(spawnSync("bash", ["--version"]).status === 0)("bash judges: the path `~/SUFFIX` expands to is denied under Read(~/PATTERN)", () => {
    const NAMES = [".ssh", ".aws", "id_rsa", "config", ".env", "a b", "x.pem"];
    const suffixes = fc.sample(fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 3 }).map((parts) => parts.join("/")), { numRuns: 60, seed: ORACLE_SEED });
    const home = "/home/judge";
    it.each([...new Set(suffixes)])("~/%s", (suffix) => {
      const expanded = spawnSync("bash", ["-c", 'printf %s ~/"$1"', "bash", suffix], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home }, encoding: "utf8" }).stdout;
      expect(expanded).toBe(`${home}/${suffix}`);
      const p = policy([`Read(~/${suffix})`], home);
      expect(p.decide("Read", { file_path: expanded }).mode).toBe("deny");
      expect(p.decide("Read", { file_path: `${expanded}/inside` }).mode).toBe("deny");
      expect(p.decide("Read", { file_path: `/srv${expanded}` }).mode).toBe("allow");
    });
  });
});
