/**
 * Paths the real programs read differently from the guard, round 5, judged by the REAL thing:
 *
 * - Shell lines: a deny pattern that spells a path (`Bash(cat /srv/secrets/*)`,
 *   `Bash(dd if=/srv/secrets/*)`) against other spellings of that path — repeated slashes, `/./`,
 *   `dir/../`, a trailing `/.`, `/proc/self/root` and `/proc/thread-self/root` before it, a
 *   directory symlink on the way (`docs/up/secrets/key` where `docs/up` leads to the tree's root),
 *   `~/…` with HOME at the tree (also after `NAME=`, as in `dd if=~/…`, which bash expands too),
 *   the file fed as standard input (`cat < FILE`, `cat - < FILE`, `cat /dev/stdin < FILE`), an open
 *   descriptor (`cat /dev/fd/3 3< FILE`) and the shell's working directory (`/proc/self/cwd/..`).
 *   The judge: bash runs the command in the tree with that HOME and the secret's text appears on
 *   its output [gotgenes/pi-packages#493 and #645 (a symlink, a path inside `--file=`, past Bash
 *   path rules); JeongJaeSoon/agent-guard#132 (a symlink past a Bash path deny); dirge-code/dirge#82
 *   (`ln -s /etc/passwd benign-name`); falcosecurity/falco#2202 (`/proc/PID/root`, `/proc/PID/cwd`,
 *   `/dev/fd/..` past name-based rules); unslothai/unsloth#10895 (`/proc/self/cwd/../..` resolved by
 *   the kernel before the `..`); bash(1) 'Tilde Expansion': `NAME=~` words; path_resolution(7)].
 * - A file tool's path through another process's working directory or root
 *   (`/proc/PID/cwd/key`, `/proc/PID/task/TID/cwd/key`), which the guard cannot place without
 *   reading this machine's links: the judge is Node's fs reading the file through a process whose
 *   working directory is the denied one [proc(5): /proc/pid/cwd, /proc/pid/root].
 *
 * The property: the guard never ALLOWS what reached the secret; plain commands and paths elsewhere
 * stay allowed (the policies are not vacuous).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { parsePolicy, permissionPolicy, PermissionPolicy } from "../src/policy/index.js";
import { ORACLE_SEED, oracleCases } from "./helpers/oracle.js";

const BASH = spawnSync("bash", ["-c", "true"]).status === 0;
const root = realpathSync(mkdtempSync(path.join(tmpdir(), "gg-path5-")));
const MARK = "gg-path5-secret";
for (const [file, text] of [["secrets/key", MARK], ["secrets/sub/deep", MARK], ["docs/a.md", "doc"], ["docs/b.md", "doc"]] as const) {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
}
symlinkSync("..", path.join(root, "docs", "up"));
symlinkSync("../secrets", path.join(root, "docs", "s"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// ---- shell lines ----

const shellPolicy = permissionPolicy(
  parsePolicy(
    `version: 1
permissions:
  - { rule: ${JSON.stringify(`Bash(cat ${root}/secrets/key)`)}, mode: deny }
  - { rule: ${JSON.stringify(`Bash(cat ${root}/secrets/*)`)}, mode: deny }
  - { rule: ${JSON.stringify(`Bash(cat * ${root}/secrets/*)`)}, mode: deny }
  - { rule: ${JSON.stringify(`Bash(head -c 64 ${root}/secrets/*)`)}, mode: deny }
  - { rule: ${JSON.stringify(`Bash(dd status=none if=${root}/secrets/*)`)}, mode: deny }
  - { rule: "Bash(cat:*)", mode: allow }
  - { rule: "Bash(head:*)", mode: allow }
  - { rule: "Bash(dd:*)", mode: allow }
`,
    "yaml",
    "path5-shell.yaml",
  ),
);

/** bash runs `command` in the tree's docs directory with HOME at the tree: whether the secret's text came out. */
function reachesSecret(command: string): boolean {
  const result = spawnSync("bash", ["-c", command], { cwd: path.join(root, "docs"), env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root }, encoding: "utf8", timeout: 10_000 });
  return result.stdout.includes(MARK);
}

/** Spellings of `<root>/secrets/<file>`: each `/` as one of several equivalent runs, a prefix that leads to the same place. */
const SEPARATORS = ["/", "/", "/", "//", "/./", "///", "/.//", "/docs/../", "/docs/./../", "/secrets/../"];
const PREFIXES = ["", "", "", "/proc/self/root", "/proc/thread-self/root", "/proc/self/root/proc/self/root", "/."];
const spelledSecret = fc
  .tuple(fc.constantFrom(...PREFIXES), fc.array(fc.constantFrom(...SEPARATORS), { minLength: 8, maxLength: 8 }), fc.constantFrom("key", "sub/deep", "sub//deep", "sub/./deep", "sub/../key"), fc.constantFrom("", "", "", "/docs/up", "/docs/up/docs/up", "~", "~/docs/up"), fc.boolean())
  .map(([prefix, separators, file, start, trailingDot]) => {
    const names = [...root.split("/").filter((name) => name !== ""), "secrets"];
    let spelled = "";
    names.forEach((name, i) => {
      const separator = separators[i % separators.length]!;
      // `/secrets/../` before the first name would climb past the root: fine, `/..` is `/`.
      spelled += `${separator}${name}`;
    });
    // A start that replaces the root: `~` (HOME) or a symlink back to it, then the rest.
    if (start !== "") spelled = start.startsWith("~") ? `${start}/secrets` : `${root}${start}/secrets`;
    const full = `${start.startsWith("~") ? "" : prefix}${spelled}/${file}`;
    return trailingDot && !file.endsWith("key") ? `${full}/.` : full;
  });

const COMMANDS = ["cat W", "head -c 64 W", "dd status=none if=W", "cat docs/a.md W"];

describe.skipIf(!BASH)("path words in shell lines: bash and the programs judge the spellings of a denied path", () => {
  it("the policy is not vacuous: plain commands elsewhere are allowed, the plain spelling denied", () => {
    for (const command of [`cat ${root}/docs/a.md`, "cat a.md", `head -c 64 ${root}/docs/b.md`, `dd status=none if=${root}/docs/a.md`, `cat ${root}/docs//a.md`, `cat ${root}/docs/./a.md`, `cat < ${root}/docs/a.md`, `cat - < a.md`]) {
      expect(shellPolicy.decide("Bash", { command }).mode, command).toBe("allow");
    }
    expect(reachesSecret(`cat ${root}/secrets/key`)).toBe(true);
    expect(shellPolicy.decide("Bash", { command: `cat ${root}/secrets/key` }).mode).toBe("deny");
  });

  it.each([
    [`cat ${root}//secrets/key`, "repeated slashes"],
    [`cat ${root}/./secrets/key`, "a /./ segment"],
    [`cat ${root}/docs/../secrets/key`, "dir/../"],
    [`cat /proc/self/root${root}/secrets/key`, "/proc/self/root"],
    [`cat ${root}/docs/up/secrets/key`, "a symlink to the tree's root"],
    [`cat ${root}/docs/s/key`, "a symlink to the denied directory"],
    ["cat ~/secrets/key", "~ is HOME (bash's tilde expansion)"],
    ["dd status=none if=~/secrets/key", "bash expands ~ after NAME= too"],
    [`head -c 64 ${root}/secrets/sub/../key`, "a file's own ../"],
    [`cat < ${root}/secrets/key`, "the file fed as standard input"],
    [`cat - < ${root}/secrets//key`, "- is the standard input"],
    [`cat /dev/stdin < ${root}/secrets/key`, "/dev/stdin is the standard input"],
    [`cat /dev/fd/3 3< ${root}/secrets/key`, "an open descriptor"],
    ["cat /proc/self/cwd/../secrets/key", "the shell's working directory, then .."],
    ["cat ~/docs/../secrets/key", "a home directory, then .."],
  ])("%s (%s)", (command) => {
    expect(reachesSecret(command), `${command} should reach the secret`).toBe(true);
    const decision = shellPolicy.decide("Bash", { command });
    expect(decision.mode, `${command}: ${decision.reason ?? ""}`).not.toBe("allow");
  });

  it("the reason names the place the guard cannot tell (a home directory, a working directory, an open descriptor)", () => {
    const home = shellPolicy.decide("Bash", { command: "cat ~/secrets/key" });
    expect(home.mode).toBe("ask");
    expect(home.reason).toContain(`~/secrets/key starts at a place only known when the command runs (a home directory, a working directory or an open descriptor), and where it leads may match ${JSON.stringify(`cat ${root}/secrets/key`)}`);
    const descriptor = shellPolicy.decide("Bash", { command: "cat /dev/fd/3" });
    expect(descriptor.reason).toContain("/dev/fd/3 starts at a place only known when the command runs");
    // An expansion keeps its own reason.
    expect(shellPolicy.decide("Bash", { command: "cat $HOME/secrets/key" }).reason).toContain("the shell replaces $HOME/secrets/key when the command runs (an expansion or a file name pattern)");
  });

  const cases = [...new Set(fc.sample(fc.tuple(spelledSecret, fc.constantFrom(...COMMANDS)), { numRuns: Math.min(oracleCases(), 400), seed: ORACLE_SEED }).map(([word, form]) => form.replace("W", word)))];
  it.each(cases.map((command) => [command] as const))("generated: %s", (command) => {
    if (!reachesSecret(command)) return;
    const decision = shellPolicy.decide("Bash", { command });
    expect(decision.mode, `${command} reached the secret: ${decision.reason ?? ""}`).not.toBe("allow");
  });
  it(`the generated spellings reach the secret (not vacuous): ${cases.length} commands`, () => {
    expect(cases.filter((command) => reachesSecret(command)).length).toBeGreaterThan(cases.length / 4);
  }, 120_000);
});

// ---- a file tool's path through another process ----

describe("a file tool's path through another process's working directory (/proc/PID/cwd): Node's fs judges", () => {
  let sleeper: ChildProcess | undefined;
  afterAll(() => {
    if (sleeper?.pid !== undefined) process.kill(sleeper.pid);
  });
  const readPolicy = (followSymlinks: boolean) =>
    new PermissionPolicy(
      [
        { tool: "read", where: { path: { glob: "secrets/**" } }, mode: "deny" },
        { tool: "read", mode: "allow" },
      ],
      { pathBase: root, followSymlinks },
    );

  it("/proc/PID/cwd/... and /proc/PID/task/TID/cwd/... of a process working in the denied directory are never allowed", async () => {
    sleeper = spawn("sleep", ["60"], { cwd: path.join(root, "secrets"), stdio: "ignore" });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const pid = sleeper.pid!;
    for (const value of [`/proc/${pid}/cwd/key`, `/proc/${pid}/task/${pid}/cwd/key`, `/proc/${pid}/cwd/sub/deep`, `/proc/${pid}/cwd/../secrets/key`]) {
      let text = "";
      try {
        text = readFileSync(value, "utf8");
      } catch {
        // not readable here: the property says nothing
      }
      if (!text.includes(MARK)) continue;
      for (const follow of [true, false]) {
        const decision = readPolicy(follow).decide("read", { path: value });
        expect(decision.mode, `${value} (followSymlinks ${follow}) reads the secret: ${decision.reason ?? ""}`).not.toBe("allow");
      }
    }
    for (const follow of [true, false]) {
      expect(readPolicy(follow).decide("read", { path: "docs/a.md" }).mode).toBe("allow");
      expect(readPolicy(follow).decide("read", { path: `${root}/docs/b.md` }).mode).toBe("allow");
    }
  });
});
