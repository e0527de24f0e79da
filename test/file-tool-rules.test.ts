// A file tool's deny and ask rules hold for every tool that reads or writes files the same way. An Edit rule holds for
// Write, MultiEdit and NotebookEdit: Claude Code reads `Edit(path)` as covering every file-editing tool and warns that a
// `Write(path)` rule is matched by none, and users reported the Write tool writing past their Edit deny
// (anthropics/claude-code#59099 'Deny List not Honored for Edit/Write', #84697 'deny rule for a specific path is
// silently not enforced for Write/Edit tools', #26315, #57640; laurigates/dotfiles#327 and AtB-AS/mittatb-app#6313
// quote Claude Code's 'Edit rules cover all file-editing tools'). Here a Write or MultiEdit rule holds for every
// writing tool too. And a Read rule holds for the search tools. Claude Code applies its Read rules to the
// built-in Grep and Glob tools; a guard that stops `Read(.env)` while `Grep(pattern: "KEY", path: ".env")` returns the
// file's lines, or `Grep(pattern: ".")` over a denied directory returns every line in it, does not hold
// (anthropics/claude-code#57525 'Ignores Read Permissions when Using Grep'; karanb192/claude-code-hooks#47 and #48: the
// built-in Grep tool was never inspected, `Grep(pattern=..., path=".env")` returned matching lines;
// anthropics/claude-code#28008: Glob listed the names inside a denied directory; anomalyco/opencode#17073: grep and
// glob results read past the read rules). LangChain's deep agents name the same tools `grep` and `glob`, and read
// and write files with `read_file`, `write_file` and `edit_file`.
//
// The real programs judge: Claude Code's Grep runs ripgrep (hidden files and directories skipped, its `glob` and
// `type` filters; a glob that names a hidden file has ripgrep search it), a deep agent's grep is read as `grep -r`
// (hidden files searched: without ripgrep it walks with hidden files included, from the directory of a file it is given). Each generated call runs as that program in a scratch tree whose covered files
// hold a canary; a call the guard allows must not print a canary (a listing must not name a file inside a covered
// directory).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { parsePolicy, permissionPolicy } from "../src/policy/index.js";
import { REQUIRE_ORACLES } from "./helpers/bash-oracle.js";
import { installed } from "./helpers/bash-rules.js";
import { ORACLE_SEED } from "./helpers/oracle.js";

const root = realpathSync(mkdtempSync(path.join(tmpdir(), "gg-search-tools-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const CANARY = "CANARY_7f3a";
const FILES: Record<string, string> = {
  ".env": `API_KEY=${CANARY}\n`,
  "sub/.env": `TOKEN=${CANARY}\n`,
  "secrets/key.txt": `key ${CANARY}\n`,
  "secrets/deep/more.txt": `more ${CANARY}\n`,
  "src/app.ts": "export const app = 1; // TODO\n",
  "src/util.ts": "export const util = 2;\n",
  "docs/readme.md": "# readme TODO\n",
  ".env.example": "API_KEY=changeme\n",
};
for (const [name, text] of Object.entries(FILES)) {
  mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
  writeFileSync(path.join(root, name), text);
}

const haveRg = installed("rg");
const haveGrep = installed("grep");

function policy(tools: string) {
  const text = `version: 1\npathBase: ${JSON.stringify(root)}\npermissions:\n  - { rule: "Read(.env)", mode: deny }\n  - { rule: "Read(./secrets/**)", mode: deny }\ntools:\n${tools}`;
  return permissionPolicy(parsePolicy(text, "yaml", "search-tools.yaml"));
}
const claude = policy("  Grep: { risk: low }\n  Glob: { risk: low }\n");
const deep = policy("  grep: { risk: low }\n  glob: { risk: low }\n  read_file: { risk: low }\n  write_file: { risk: low }\n  edit_file: { risk: low }\n  execute: { risk: low, mainArgument: { field: command, kind: command } }\n");

describe("Claude Code's Grep and Glob tools under Read(.env) and Read(./secrets/**)", () => {
  it.each([
    [{ pattern: "KEY", path: ".env" }, "deny"],
    [{ pattern: ".", path: "secrets" }, "deny"],
    [{ pattern: ".", path: "secrets/deep/more.txt" }, "deny"],
    [{ pattern: ".", path: `${root}/secrets` }, "deny"],
    [{ pattern: "TOKEN", path: "sub/.env" }, "deny"],
    [{ pattern: "." }, "not-allow"],
    [{ pattern: ".", path: "." }, "not-allow"],
    [{ pattern: "TODO", path: "src" }, "allow"],
    [{ pattern: "TODO", path: "docs/readme.md" }, "allow"],
    // ripgrep searches a hidden file a glob names (`rg -g '*' KEY` prints .env's lines).
    [{ pattern: "KEY", glob: "*" }, "not-allow"],
    [{ pattern: "TOKEN", path: "sub", glob: ".env" }, "not-allow"],
    [{ pattern: "KEY", path: ".env.example" }, "allow"],
  ] as const)("Grep %j: %s", (args, expected) => {
    const decision = claude.decide("Grep", args);
    if (expected === "not-allow") expect(decision.mode, decision.reason).not.toBe("allow");
    else expect(decision.mode, decision.reason).toBe(expected);
    if (expected === "deny") expect(decision.reason).toMatch(/Grep/);
  });

  it.each([
    [{ pattern: "secrets/**" }, "deny"],
    [{ pattern: "**/*", path: "secrets" }, "deny"],
    [{ pattern: "*.txt", path: `${root}/secrets/deep` }, "deny"],
    [{ pattern: "src/**/*.ts" }, "allow"],
    [{ pattern: "*.md", path: "docs" }, "allow"],
    // From above secrets/, a recursive listing may name what secrets/ holds (secrets/notes.md): it cannot tell.
    [{ pattern: "**/*.md" }, "not-allow"],
    [{ pattern: "**/.env" }, "not-allow"],
  ] as const)("Glob %j: %s", (args, expected) => {
    const decision = claude.decide("Glob", args);
    if (expected === "not-allow") expect(decision.mode, decision.reason).not.toBe("allow");
    else expect(decision.mode, decision.reason).toBe(expected);
  });
});

describe("an Edit or Write rule holds for every tool that writes files", () => {
  const editors = permissionPolicy(parsePolicy(`version: 1\npathBase: ${JSON.stringify(root)}\npermissions:\n  - { rule: "Edit(./src/**)", mode: deny }\n  - { rule: "Write(**/.github/**)", mode: ask }\ntools:\n  Edit: { risk: low }\n  Write: { risk: low }\n  MultiEdit: { risk: low }\n  NotebookEdit: { risk: low }\n  Read: { risk: low }\n  write_file: { risk: low }\n  edit_file: { risk: low }\n`, "yaml", "editors.yaml"));
  it.each([
    ["Write", { file_path: "src/new.ts", content: "x" }, "deny"],
    ["Write", { file_path: `${root}/src/app.ts`, content: "x" }, "deny"],
    ["MultiEdit", { file_path: "src/app.ts", edits: [{ old_string: "a", new_string: "b" }] }, "deny"],
    ["NotebookEdit", { notebook_path: "src/n.ipynb", new_source: "x" }, "deny"],
    ["write_file", { file_path: "src/app.ts", content: "x" }, "deny"],
    ["edit_file", { file_path: "src/app.ts", old_string: "a", new_string: "b" }, "deny"],
    ["write_file", { path: "src/app.ts", content: "x" }, "deny"],
    ["Edit", { file_path: ".github/workflows/ci.yml", old_string: "a", new_string: "b" }, "ask"],
    ["Write", { file_path: "docs/new.md", content: "x" }, "allow"],
    ["Read", { file_path: "src/app.ts" }, "allow"],
  ] as const)("%s %j: %s", (tool, args, expected) => {
    const decision = editors.decide(tool, args);
    expect(decision.mode, decision.reason).toBe(expected);
    if (expected === "deny") expect(decision.reason).toMatch(/Edit\(\.\/src\/\*\*\)/);
  });
});

describe("ripgrep in a command line searches a hidden file its glob names", () => {
  // `rg -g '*' KEY` prints .env's lines: a glob given to ripgrep (`-g`, `--glob`, `--iglob`) makes it search the hidden
  // files the glob matches. Before, the guard read `rg -g GLOB` as skipping hidden files and allowed it under Read(.env).
  const shell = permissionPolicy(parsePolicy(`version: 1\npathBase: ${JSON.stringify(root)}\npermissions:\n  - { rule: "Read(.env)", mode: deny }\n  - { rule: "Bash(rg:*)", mode: allow }\ntools:\n  Bash: { risk: medium }\n`, "yaml", "rg.yaml"));
  it.each(["rg -g '*' KEY", "rg --glob='*' KEY .", "rg --iglob .ENV KEY", "rg -g '**/*' TOKEN sub", "rg -uu KEY"])("%s is not allowed", (command) => {
    expect(shell.decide("Bash", { command }).mode).not.toBe("allow");
  });
  it.each(["rg KEY", "rg -t ts KEY src", "rg --files", "rg --files -g '*.ts'"])("%s stays allowed", (command) => {
    expect(shell.decide("Bash", { command }).mode).toBe("allow");
  });
  it.runIf(haveRg)("the real ripgrep prints .env's canary for the glob forms", () => {
    for (const command of ["rg --no-config -g '*' -e API_KEY .", "rg --no-config --iglob .ENV -e API_KEY ."]) {
      expect(spawnSync("bash", ["-c", command], { cwd: root, encoding: "utf8" }).stdout).toContain(CANARY);
    }
    expect(spawnSync("bash", ["-c", "rg --no-config -e API_KEY ."], { cwd: root, encoding: "utf8" }).stdout).not.toContain(CANARY);
  });
});

describe("a file: URL a fetcher reads is the file it names", () => {
  // curl and wget read `file:` URLs as files on this machine, on the host `localhost` too, percent-decoded.
  const shell = permissionPolicy(parsePolicy(`version: 1\npathBase: ${JSON.stringify(root)}\npermissions:\n  - { rule: "Read(.env)", mode: deny }\n  - { rule: "Read(./secrets/**)", mode: deny }\n  - { rule: "Bash(curl:*)", mode: allow }\ntools:\n  Bash: { risk: medium }\n`, "yaml", "file-url.yaml"));
  const LINES = [`curl -s file://${root}/.env`, `curl -s file://localhost${root}/secrets/key.txt`, `curl -s 'file://${root}/%2eenv'`, `curl -s FILE://LOCALHOST${root}/secrets/deep/more.txt`, `curl -s 'file://${root}/secrets/%6bey.txt'`];
  it.each(LINES)("%s is not allowed", (command) => {
    expect(shell.decide("Bash", { command }).mode).not.toBe("allow");
  });
  it.runIf(installed("curl"))("the real curl prints the canary for each", () => {
    for (const command of LINES) expect(spawnSync("bash", ["-c", command], { encoding: "utf8" }).stdout, command).toContain(CANARY);
  });
  it("a file: URL of another file stays allowed", () => {
    expect(shell.decide("Bash", { command: `curl -s file://${root}/src/app.ts` }).mode).toBe("allow");
  });
});

describe("a deep agent's file tools under the same rules", () => {
  it.each([
    ["read_file", { file_path: ".env" }, "deny"],
    ["read_file", { file_path: "secrets/key.txt" }, "deny"],
    ["read_file", { file_path: "src/app.ts" }, "allow"],
    // The MCP filesystem server names the same tools, with the file in `path`.
    ["read_file", { path: ".env" }, "deny"],
    ["read_file", { path: "secrets/key.txt" }, "deny"],
    ["read_file", { path: "src/app.ts" }, "allow"],
    ["grep", { pattern: "KEY", path: ".env" }, "deny"],
    ["grep", { pattern: "." }, "not-allow"],
    // What a deep agent's grep skips is not known: a directory that may hold a .env at any depth cannot be told.
    ["grep", { pattern: "TODO", path: "src" }, "not-allow"],
    // Without ripgrep, a deep agent's grep searches the directory of a file it is given (and hidden files in it).
    ["grep", { pattern: "TODO", path: "src/app.ts" }, "not-allow"],
    ["glob", { pattern: "secrets/*" }, "deny"],
    ["glob", { pattern: "**/*.ts" }, "not-allow"],
    ["glob", { pattern: "src/**/*.ts" }, "allow"],
    ["execute", { command: "cat .env" }, "deny"],
    ["execute", { command: "grep -r KEY secrets" }, "deny"],
    ["execute", { command: "ls src" }, "allow"],
  ] as const)("%s %j: %s", (tool, args, expected) => {
    const decision = deep.decide(tool, args);
    if (expected === "not-allow") expect(decision.mode, decision.reason).not.toBe("allow");
    else expect(decision.mode, decision.reason).toBe(expected);
  });

  it("read_file, write_file and edit_file rules reach the shell, as Read and Edit rules do", () => {
    const p = permissionPolicy(parsePolicy(`version: 1\npathBase: ${JSON.stringify(root)}\npermissions:\n  - { rule: "read_file(file_path:.env)", mode: deny }\n  - { rule: "edit_file(file_path:./src/**)", mode: deny }\ntools:\n  execute: { risk: low, mainArgument: { field: command, kind: command } }\n  read_file: { risk: low }\n  edit_file: { risk: low }\n`, "yaml", "deep.yaml"));
    expect(p.decide("execute", { command: "cat .env" }).mode).toBe("deny");
    expect(p.decide("execute", { command: "echo x > src/app.ts" }).mode).toBe("deny");
    expect(p.decide("execute", { command: "cat src/app.ts" }).mode).toBe("allow");
  });
});

const quote = (word: string) => `'${word.replace(/'/g, "'\\''")}'`;

describe.runIf(REQUIRE_ORACLES || (haveRg && haveGrep))("the real ripgrep and grep judge generated searches: an allowed search prints no canary", () => {
  const PATTERNS = [".", "KEY", CANARY, "TODO", "export", "^"];
  const PATHS = [undefined, ".", "src", "docs", "sub", "secrets", "secrets/deep", ".env", "sub/.env", "src/app.ts", "docs/readme.md", ".env.example", `${root}`, `${root}/secrets`, "./secrets/../src", "src/../secrets", "./sub"];
  const GLOBS = [undefined, "*.ts", "*.txt", "*.env", ".env", "**/*", "*.md"];
  const calls = fc.sample(fc.record({ pattern: fc.constantFrom(...PATTERNS), path: fc.constantFrom(...PATHS), glob: fc.constantFrom(...GLOBS) }), { numRuns: 160, seed: ORACLE_SEED });

  it("ripgrep runs here", () => {
    expect(haveRg, "install Debian's ripgrep").toBe(true);
  });

  it.each(["Grep", "grep"] as const)("%s: no allowed call prints a canary; the allowed share is reported", (tool) => {
    const p = tool === "Grep" ? claude : deep;
    const leaks: string[] = [];
    let allowed = 0;
    for (const call of calls) {
      const args = Object.fromEntries(Object.entries(call).filter(([, v]) => v !== undefined));
      const decision = p.decide(tool, args);
      if (decision.mode !== "allow") continue;
      allowed++;
      const argv =
        tool === "Grep"
          ? ["rg", "--no-config", ...(call.glob ? ["--glob", call.glob] : []), "-e", call.pattern, "--", call.path ?? "."]
          : ["grep", "-r", ...(call.glob ? [`--include=${call.glob}`] : []), "-e", call.pattern, "--", call.path ?? "."];
      const out = spawnSync("bash", ["-c", argv.map(quote).join(" ")], { cwd: root, encoding: "utf8" }).stdout;
      if (out.includes(CANARY)) leaks.push(`${JSON.stringify(args)}: ${out.trim().split("\n")[0]}`);
    }
    expect(leaks).toEqual([]);
    // ripgrep skips hidden files: most searches of directories stay allowed; grep -r may read them: only files named.
    if (tool === "Grep") expect(allowed, "some searches stay allowed").toBeGreaterThan(0);
  });

  it("Glob: no allowed listing names a file inside secrets/", () => {
    const GLOB_PATTERNS = ["**/*", "*", "secrets/*", "secrets/**", "**/*.txt", "src/*.ts", "s*/*", "*/deep/*", "**/key.txt"];
    const GLOB_PATHS = [undefined, ".", "secrets", "src", root, `${root}/secrets/deep`];
    const leaks: string[] = [];
    for (const pattern of GLOB_PATTERNS) {
      for (const where of GLOB_PATHS) {
        const args = where === undefined ? { pattern } : { pattern, path: where };
        if (claude.decide("Glob", args).mode !== "allow") continue;
        const base = where === undefined ? root : path.resolve(root, where);
        const out = spawnSync("rg", ["--no-config", "--files", "--hidden", "--glob", pattern], { cwd: base, encoding: "utf8" }).stdout;
        const inside = out.split("\n").filter((line) => line !== "" && path.resolve(base, line).startsWith(`${root}/secrets/`));
        // A listing from above secrets/ names what it matches anywhere (as `ls -R` or `find` does): only a listing
        // rooted inside the covered directory is the directory read.
        if (inside.length > 0 && path.resolve(base).startsWith(`${root}/secrets`)) leaks.push(`${JSON.stringify(args)}: ${inside[0]}`);
      }
    }
    expect(leaks).toEqual([]);
  });
});
