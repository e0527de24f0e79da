// Readings round 15, from public reports of agents' deny lists bypassed: shell spellings the guard read differently
// from the real shell, and commands with rm's effect.
//   1. A redirection with no command inside a substitution or a script given to a shell: `$(<F)` (bash and zsh read F and
//      substitute its text: `x=$(<.env)`; DataDog/rshell#192: 'The `$(<file)` POSIX shortcut in cmdSubst read files
//      directly, skipping AllowedCommands'; anthropics/claude-code#89055: 'permissions.deny does not intercept a file read
//      inside a command substitution', `export SOME_TOKEN="$(cat ~/.config/app/token)"`), `$(> F)` (empties F), and
//      `bash -c '< F'`, `eval '> F'`, `zsh -c '< F'` (zsh runs $READNULLCMD, a pager, on F: it prints the file). The guard
//      read the redirections of a statement, but not one standing alone in `$(…)`, nor one in a script a shell is given.
//   2. Destroying a file's content or moving it to the trash under a rule on rm. Agents blocked on rm empty files
//      instead (PostHog/wizard#834: 'agents burn turns on delete-vs-empty workarounds' when rm is denied); the idioms are
//      a known list (SigmaHQ/sigma#5600: `:>`, `cat /dev/null >`, `cp /dev/null`, `truncate -s 0`, `ln -sf /dev/null`,
//      `shred`); `trash` moves files to the Trash 'without invoking rm or unlink, evading deletion-focused detections'
//      (infosecB/LOOBins#264), and `mv F ~/.Trash/` is that move by hand. Round 14 left emptying to Edit rules; a user who
//      denies rm to keep files loses them all the same, so these lines now ask (a reviewer decides), as the deleters do.
//      Writing new content (`echo x > F`), appending, copying a file over another and renaming stay allowed.
//   3. One option reader: same-effect.ts read options with a small reader of its own, which missed what getopt and git's
//      parse-options read: an option's value that looks like an option (`git clean -f -e -n` and `git clean -fen` delete:
//      `-n` is the exclude pattern), unique abbreviations (`shred --rem F` deletes, `git clean -f --dry` does not),
//      negations (`git clean -n --no-dry-run -f` deletes). It now reads through the option tables of programs.ts.
//   4. GNU tools under another name: Homebrew installs GNU coreutils, findutils and grep on macOS with a `g` before the
//      names macOS already has (Homebrew/homebrew-core#36494: "Commands also provided by macOS have been installed with
//      the prefix g"), so `grm -rf x` is GNU rm; a deny on rm did not hold for it, nor the deleters for `gshred -u`,
//      `gfind -delete`, `gxargs rm`.
// Before the fix (this file on the unchanged code): 167 of 246 tests failed (redirections alone 27 of 34, destroying and
// trashing 32 of 50, the deleters' options 9 of 18, g-prefixed GNU tools 13 of 18, sourced files' functions 0 of 9 (a
// decision pinned, already held), reasons 6 of 6, the real programs' runs 79 of 110, git's generated option spellings 1
// of 1). After: none.
// The real programs judge (bash 5.2, zsh, dash, git 2.39, GNU coreutils, shred, rsync, under strace or by what they
// left): whenever a line read a protected file or destroyed a planted one, the guard did not allow it; the benign lines
// stay allowed.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { parsePolicy, permissionPolicy } from "../src/policy/index.js";
import { REQUIRE_ORACLES } from "./helpers/bash-oracle.js";
import { denyListGuard, installed } from "./helpers/bash-rules.js";
import { ORACLE_SEED } from "./helpers/oracle.js";
import { straceOpens } from "./helpers/strace.js";

type Expect = "deny" | "ask" | "allow" | "not-allow";

const FILE_RULES = [
  { rule: "Read(.env)", mode: "deny" },
  { rule: "Read(./secrets/**)", mode: "deny" },
  { rule: "Edit(./src/**)", mode: "deny" },
];

/** The file rules for Bash (low risk: a line no rule decides runs), relative paths from `base`. */
function fileGuard(base: string, name: string) {
  const lines = FILE_RULES.map((rule) => `  - ${JSON.stringify(rule)}`);
  return permissionPolicy(parsePolicy(`version: 1\npathBase: ${JSON.stringify(base)}\npermissions:\n${lines.join("\n")}\ntools:\n  Bash: { risk: low }\n`, "yaml", `${name}.yaml`));
}

function expectMode(mode: string, reason: string | undefined, expected: Expect, line: string): void {
  if (expected === "not-allow") expect(mode, `${line}: ${reason}`).not.toBe("allow");
  else expect(mode, `${line}: ${reason}`).toBe(expected);
}

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

// ---------------------------------------------------------------------------------------------------
// 1. A redirection alone in `$(…)`, `<(…)` and in a script given to a shell.

const BARE_SOURCE =
  "DataDog/rshell#192 (the `$(<file)` shortcut read files, skipping the command allowlist); anthropics/claude-code#89055 (permissions.deny does not intercept a file read inside a command substitution); bash(1) 'Command Substitution' ($(< file)); zshmisc(1) 'REDIRECTIONS WITH NO COMMAND' (READNULLCMD)";

const BARE_CASES: readonly (readonly [string, Expect])[] = [
  ["echo $(<.env)", "deny"],
  ['echo "$(< .env)"', "deny"],
  ["x=$(<.env)", "deny"],
  ["export $(<.env)", "deny"],
  ['echo "${x:=$(<.env)}"', "deny"],
  ['printf %s "$(<secrets/api.key)"', "deny"],
  ["[[ $(<.env) == x ]]", "deny"],
  ['cat <<< "$(<.env)"', "deny"],
  ["ls $(<./.env)", "deny"],
  ["x=$(<.env) ls", "deny"],
  ["echo $( < secrets/api.key )", "deny"],
  ["cat <(<.env)", "deny"],
  ["echo $(( $(<.env) ))", "deny"],
  ["for l in $(<.env); do echo $l; done", "deny"],
  ["case $(<.env) in x) ;; esac", "deny"],
  ['declare x="$(<.env)"', "deny"],
  ["f() { echo $(<.env); }; f", "deny"],
  ["cat <<EOF\n$(<secrets/api.key)\nEOF", "deny"],
  ["bash -c '< .env'", "deny"],
  ["sh -c 'echo $(<.env)'", "deny"],
  ["zsh -c '< .env'", "deny"],
  ["eval '< .env'", "deny"],
  ["bash -c 'echo \"$(<secrets/api.key)\"'", "deny"],
  ["echo $(> src/a.ts)", "deny"],
  ["echo $(>>src/a.ts)", "deny"],
  ["bash -c '> src/a.ts'", "deny"],
  ["eval ': ; > src/a.ts'", "deny"],
  ["echo $(<README.md)", "allow"],
  ["x=$(<docs/a.md)", "allow"],
  ["bash -c '< README.md'", "allow"],
  ["echo $(> /tmp/gg15-out)", "allow"],
  ["zsh -c 'echo hi'", "allow"],
];

describe(`public bypass classes (15): a redirection with no command, in a substitution or a script given to a shell [${BARE_SOURCE}]`, () => {
  const guard = fileGuard("/work/proj", "public-bypasses-15-bare");
  it.each(BARE_CASES.map(([line, expected]) => [line, expected] as const))("%s", (line, expected) => {
    const decision = guard.decide("Bash", { command: line });
    expectMode(decision.mode, decision.reason, expected, line);
  });

  it("generated: `<F` and `>F` spelled alone in `$(…)`, `<(…)`, backquotes, and scripts given to bash, sh, zsh and eval, are read as the file they open", () => {
    const file = fc.constantFrom(".env", "./.env", "secrets/api.key", "./secrets/api.key", "'.env'", '"secrets/api.key"');
    const read = fc.tuple(fc.constantFrom("<", "< ", "0<"), file).map(([op, f]) => `${op}${f}`);
    const write = fc.tuple(fc.constantFrom(">", "> ", ">>", ">|", "1>"), fc.constantFrom("src/a.ts", "./src/b.ts", "'src/c.ts'")).map(([op, f]) => `${op}${f}`);
    const substitution = fc.constantFrom((r: string) => `echo $(${r})`, (r: string) => `x=$(${r})`, (r: string) => `echo "$(${r})"`, (r: string) => `: "\${x:-$(${r})}"`, (r: string) => `cat <(${r})`, (r: string) => `echo \`${r}\``, (r: string) => `ls $(${r}) docs`);
    const shell = fc.constantFrom((l: string) => l, (l: string) => `bash -c ${shellQuote(l)}`, (l: string) => `sh -c ${shellQuote(l)}`, (l: string) => `zsh -c ${shellQuote(l)}`, (l: string) => `eval ${shellQuote(l)}`, (l: string) => `echo ok && ${l}`);
    fc.assert(
      fc.property(fc.oneof(read, write), substitution, shell, (redirect, inner, outer) => {
        const line = outer(inner(redirect));
        const decision = guard.decide("Bash", { command: line });
        expectMode(decision.mode, decision.reason, "deny", line);
        const bare = outer(redirect);
        const alone = guard.decide("Bash", { command: bare });
        expectMode(alone.mode, alone.reason, "deny", bare);
      }),
      { numRuns: 250, seed: ORACLE_SEED },
    );
  });

  it("generated: the same spellings of an unprotected file stay allowed", () => {
    const redirect = fc.tuple(fc.constantFrom("<", "< ", ">", ">>"), fc.constantFrom("README.md", "docs/a.md", "/tmp/gg15-x", "'docs/b.md'")).map(([op, f]) => `${op}${f}`);
    const substitution = fc.constantFrom((r: string) => `echo $(${r})`, (r: string) => `x=$(${r})`, (r: string) => `echo "$(${r})"`, (r: string) => `cat <(${r})`);
    const shell = fc.constantFrom((l: string) => l, (l: string) => `bash -c ${shellQuote(l)}`, (l: string) => `zsh -c ${shellQuote(l)}`, (l: string) => `eval ${shellQuote(l)}`);
    fc.assert(
      fc.property(redirect, substitution, shell, (r, inner, outer) => {
        const line = outer(inner(r));
        const decision = guard.decide("Bash", { command: line });
        expectMode(decision.mode, decision.reason, "allow", line);
      }),
      { numRuns: 120, seed: ORACLE_SEED },
    );
  });
});

// ---------------------------------------------------------------------------------------------------
// 2. Destroying a file's content, or moving it to the trash, under a rule on rm.

const EMPTY_SOURCE =
  "PostHog/wizard#834 (agents denied rm 'burn turns on delete-vs-empty workarounds'); SigmaHQ/sigma#5600 (file-emptying idioms: `:>`, `cat /dev/null >`, `cp /dev/null`, `truncate -s 0`, `ln -sf /dev/null`, `shred`); infosecB/LOOBins#264 (`trash` moves files into the Trash without rm or unlink); FreeDesktop.org Trash specification ($XDG_DATA_HOME/Trash/files); coreutils truncate(1) SIZE";

/** Lines that destroy VICTIM's content or move it to the trash (ask under a rule on rm), with benign companions. */
const DESTROYERS: readonly string[] = [
  "truncate -s 0 VICTIM",
  "truncate -s0 VICTIM",
  "truncate --size=0 VICTIM",
  "truncate --size 0 VICTIM",
  "truncate -c -s 0 VICTIM",
  "truncate -s -3 VICTIM",
  "truncate -s 2 VICTIM",
  "truncate -r EMPTYFILE VICTIM",
  ": > VICTIM",
  "true > VICTIM",
  "> VICTIM",
  ">| VICTIM",
  "cat /dev/null > VICTIM",
  "echo -n > VICTIM",
  "printf '' > VICTIM",
  "echo -n '' > VICTIM",
  "printf '%s' '' > VICTIM",
  "install /dev/null VICTIM",
  "cp /dev/null VICTIM",
  "cp -f /dev/null VICTIM",
  "dd if=/dev/null of=VICTIM",
  "dd if=/dev/zero of=VICTIM bs=1 count=3 conv=notrunc",
  "shred VICTIM",
  "shred -n1 VICTIM",
  "ln -sf /dev/null VICTIM",
  "mv VICTIM ~/.Trash/",
  "mv VICTIM ~/.local/share/Trash/files/",
  'mv VICTIM "$HOME/.local/share/Trash/files/"',
  "mv -t ~/.Trash VICTIM",
  "mv -f VICTIM /tmp/.Trash-0/files/",
];

const KEEPS: readonly string[] = [
  "truncate -s +1K VICTIM",
  "truncate -s '>100' VICTIM",
  "echo hi >> VICTIM",
  ": >> VICTIM",
  "echo hi > OUT",
  "cat README.md > OUT",
  "cp README.md OUT",
  "mv VICTIM KEPT",
  "mv VICTIM /tmp/gg15-kept.txt",
  ": > /dev/null",
  "cat /dev/null",
  "printf '%s' x > OUT",
  "echo -n x > OUT",
  "install README.md OUT",
  "dd if=VICTIM of=/dev/null",
  "ln -s /dev/null LINK",
  "ls ~/.Trash",
];

const fill = (line: string) => line.replace(/VICTIM/g, "victim.txt").replace(/EMPTYFILE/g, "empty.txt").replace(/KEPT/g, "kept.txt").replace(/OUT/g, "out.txt").replace(/LINK/g, "link.txt");

describe(`public bypass classes (15): under a deny on rm, lines that destroy a file's content or move it to the trash ask [${EMPTY_SOURCE}]`, () => {
  const guard = denyListGuard(["rm:*"], "public-bypasses-15-emptiers");
  it.each(DESTROYERS.map(fill))("%s", (line) => {
    const decision = guard.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe("ask");
    expect(decision.reason).toMatch(/like rm/);
  });
  it.each(KEEPS.map(fill))("%s (keeps the file's content: allowed)", (line) => {
    const decision = guard.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe("allow");
  });

  it("generated: each destroyer through wrappers, shells and lists asks or denies; the keepers there stay allowed", () => {
    const wrapper = fc.constantFrom((l: string) => l, (l: string) => `sudo ${l}`, (l: string) => `timeout 5 ${l}`, (l: string) => `nice ${l}`, (l: string) => `bash -c ${shellQuote(l)}`, (l: string) => `sh -c ${shellQuote(l)}`, (l: string) => `echo hi && ${l}`, (l: string) => `(${l})`, (l: string) => `{ ${l}; }`);
    const redirectOnly = (l: string) => /^(?:>|>\||:|true|cat \/dev\/null|echo -n|printf ')/.test(l);
    fc.assert(
      fc.property(fc.constantFrom(...DESTROYERS.map(fill)), fc.constantFrom(...KEEPS.map(fill)), wrapper, (bad, good, wrap) => {
        // (sudo, timeout and nice run a program: a redirection stays the shell's, and `sudo :` is no command.)
        if (!(redirectOnly(bad) && /^(?:sudo|timeout|nice) /.test(wrap("x")))) {
          const line = wrap(bad);
          const decision = guard.decide("Bash", { command: line });
          expectMode(decision.mode, decision.reason, "not-allow", line);
        }
        if (!(redirectOnly(good) && /^(?:sudo|timeout|nice) /.test(wrap("x")))) {
          const kept = wrap(good);
          const benign = guard.decide("Bash", { command: kept });
          expectMode(benign.mode, benign.reason, "allow", kept);
        }
      }),
      { numRuns: 200, seed: ORACLE_SEED },
    );
  });

  it("a narrower rule on rm (`rm -rf:*`) does not match emptying one file; moving to the trash is read as `trash` is (recursive)", () => {
    const narrow = denyListGuard(["rm -rf:*"], "public-bypasses-15-emptiers-narrow");
    expect(narrow.decide("Bash", { command: "truncate -s 0 victim.txt" }).mode).toBe("allow");
    expect(narrow.decide("Bash", { command: ": > victim.txt" }).mode).toBe("allow");
    expect(narrow.decide("Bash", { command: "mv tree ~/.Trash/" }).mode).toBe("ask");
  });

  it("rules on other commands are not touched: emptying a file under a deny on git push stays allowed", () => {
    const other = denyListGuard(["git push:*"], "public-bypasses-15-emptiers-other");
    for (const line of DESTROYERS.map(fill)) expect(other.decide("Bash", { command: line }).mode, line).toBe("allow");
  });
});

// ---------------------------------------------------------------------------------------------------
// 3. The deleters' options read as the programs read them (one option reader).

const OPTION_SOURCE =
  "git's parse-options (an option's value may start with a dash; unique abbreviations of long options; `--no-` negations); GNU getopt_long (unique abbreviations: `shred --rem`); git-clean(1) -e, -n, --dry-run; shred(1) --remove[=HOW]; rsync(1) --exclude PATTERN; checked with git 2.39, coreutils shred and rsync 3";

const OPTION_CASES: readonly (readonly [string, "ask" | "allow"])[] = [
  ["git clean -f -e -n", "ask"],
  ["git clean -fen", "ask"],
  ["git clean --exclude -n -f", "ask"],
  ["git clean -n --no-dry-run -f", "ask"],
  ["git clean --for -d", "ask"],
  ["git -C docs clean --force", "ask"],
  ["shred --rem VICTIM", "ask"],
  ["shred --remo=unlink VICTIM", "ask"],
  ["shred -vzu VICTIM", "ask"],
  ["shred --frobnicate -u VICTIM", "ask"],
  ["git clean --frobnicate -f", "ask"],
  ["rsync -a --delete --exclude x EMPTY/ TREE/", "ask"],
  ["git clean -f --dry", "allow"],
  ["git clean --dry-r -d", "allow"],
  ["git clean -fn", "allow"],
  ["git clean -f -e x -n", "allow"],
  ["rsync -a --exclude --delete EMPTY/ TREE/", "allow"],
  ["rsync -a --exclude=--delete EMPTY/ TREE/", "allow"],
];

const fillTree = (line: string) => fill(line).replace(/TREE/g, "tree").replace(/EMPTY/g, "empty");

describe(`public bypass classes (15): the deleters' options read through the option tables [${OPTION_SOURCE}]`, () => {
  const guard = denyListGuard(["rm:*"], "public-bypasses-15-options");
  it.each(OPTION_CASES.map(([line, expected]) => [fillTree(line), expected] as const))("%s", (line, expected) => {
    const decision = guard.decide("Bash", { command: line });
    expect(decision.mode, `${line}: ${decision.reason}`).toBe(expected);
  });
});

const GNU_SOURCE = "Homebrew/homebrew-core#36494 and the coreutils formula's caveat (commands also provided by macOS installed with the prefix g: grm, gshred, gmv, gfind, gxargs)";

/** g-prefixed spellings of the lines above, for the programs Homebrew installs so. */
const GNU_NAMED: readonly (readonly [string, Expect])[] = [
  ["grm -rf tree", "deny"],
  ["grm victim.txt", "deny"],
  ["/opt/homebrew/bin/grm victim.txt", "deny"],
  ["sudo grm victim.txt", "deny"],
  ["ls | gxargs grm", "deny"],
  ["gfind tree -exec rm {} +", "deny"],
  ["gshred -u victim.txt", "ask"],
  ["gunlink victim.txt", "ask"],
  ["gfind tree -delete", "ask"],
  ["gtruncate -s 0 victim.txt", "ask"],
  ["gmv victim.txt ~/.Trash/", "ask"],
  ["gcp /dev/null victim.txt", "ask"],
  ["gls -la", "allow"],
  ["gcat README.md", "allow"],
  ["gmv victim.txt kept.txt", "allow"],
  ["gawk 1 README.md", "allow"],
  ["ggrep -r TODO docs", "allow"],
];

describe(`public bypass classes (15): GNU tools under Homebrew's g-prefixed names are the tools [${GNU_SOURCE}]`, () => {
  const guard = denyListGuard(["rm:*"], "public-bypasses-15-gnu");
  it.each(GNU_NAMED.map(([line, expected]) => [line, expected] as const))("%s", (line, expected) => {
    const decision = guard.decide("Bash", { command: line });
    expectMode(decision.mode, decision.reason, expected, line);
  });

  it("generated: every deleter and destroyer above spelled with the g-prefixed name of its GNU program asks or denies, as the program does", () => {
    const gnu = new Set(["rm", "unlink", "rmdir", "shred", "truncate", "mv", "cp", "ln", "dd", "find"]);
    const lines = [...DESTROYERS.map(fill), "unlink victim.txt", "shred -u victim.txt", "find tree -delete", "rm -f victim.txt"].filter((line) => gnu.has(line.split(" ")[0]!));
    fc.assert(
      fc.property(fc.constantFrom(...lines), fc.constantFrom((l: string) => l, (l: string) => `sudo ${l}`, (l: string) => `bash -c ${shellQuote(l)}`, (l: string) => `/usr/local/bin/${l}`), (line, wrap) => {
        const plain = guard.decide("Bash", { command: wrap(line) });
        const prefixed = wrap(`g${line}`);
        const decision = guard.decide("Bash", { command: prefixed });
        expect(decision.mode, `${prefixed}: ${decision.reason}`).toBe(plain.mode);
      }),
      { numRuns: 150, seed: ORACLE_SEED },
    );
  });
});

// Functions and aliases a sourced file defines. The guard does not read a file the line sources: what the file defines
// is code from it, which the line runs anyway when it sources it, as it does when it runs `./x.sh`. So a name the file
// may define is judged as the name it is (an allowed `source FILE` vouches for the file, a denied command stays denied),
// except when the line itself wrote the file first (then what it holds is only known when the line runs: ask).
const SOURCED: readonly (readonly [string, "allow-rules" | "deny-list", Expect])[] = [
  ["source ./env.sh && ls", "allow-rules", "allow"],
  ["source .venv/bin/activate && pytest -q", "allow-rules", "allow"],
  ["source ./env.sh && foo", "allow-rules", "ask"],
  ["source ./x.sh; foo", "deny-list", "allow"],
  ["./x.sh", "deny-list", "allow"],
  ["source ./x.sh; rm x", "deny-list", "deny"],
  ["source ./x.sh; command rm x", "deny-list", "deny"],
  ["echo 'ls(){ rm -rf x; }' > x.sh; . ./x.sh; ls", "deny-list", "ask"],
  ["printf 'alias ls=rm\\n' > a.sh; shopt -s expand_aliases; source a.sh; ls x", "deny-list", "ask"],
];

describe("public bypass classes (15): functions and aliases of a sourced file [conda-archive/conda-env#67 (a sourced script runs with the shell's aliases and functions); bash(1) 'source', 'ALIASES', 'FUNCTIONS']", () => {
  const allowRules = permissionPolicy(parsePolicy(`version: 1\npermissions:\n${[["Bash(rm:*)", "deny"], ["Bash(source ./env.sh)", "allow"], ["Bash(ls:*)", "allow"], ["Bash(pytest:*)", "allow"], ["Bash(source .venv/bin/activate)", "allow"]].map(([rule, mode]) => `  - { rule: ${JSON.stringify(rule)}, mode: ${mode} }`).join("\n")}\n`, "yaml", "public-bypasses-15-sourced.yaml"));
  const denyList = denyListGuard(["rm:*"], "public-bypasses-15-sourced-deny");
  it.each(SOURCED.map(([line, guard, expected]) => [line, guard, expected] as const))("%s (%s)", (line, guard, expected) => {
    const decision = (guard === "allow-rules" ? allowRules : denyList).decide("Bash", { command: line });
    expectMode(decision.mode, decision.reason, expected, line);
  });
});

describe("public bypass classes (15): the reasons a reviewer reads", () => {
  const guard = denyListGuard(["rm:*"], "public-bypasses-15-reasons");
  const prefix = 'the deny rule cannot tell whether it applies (Bash where command command "rm:*"): ';
  it.each([
    ["truncate -s 0 victim.txt", "`truncate -s 0 victim.txt` destroys files' content like rm (truncate), and a rule on rm holds for the commands that destroy files as it does"],
    [": > victim.txt", "`: > victim.txt` destroys files' content like rm (a redirection that empties it), and a rule on rm holds for the commands that destroy files as it does"],
    ["> victim.txt", "`> victim.txt` destroys files' content like rm (a redirection that empties it), and a rule on rm holds for the commands that destroy files as it does"],
    ["mv victim.txt ~/.Trash/", "`mv victim.txt ~/.Trash/` deletes files like rm (mv into the trash), and a rule on rm holds for the commands that delete files as it does"],
    ["git clean -fen", "`git clean -fen` deletes files like rm (git clean), and a rule on rm holds for the commands that delete files as it does"],
    ["shred --frobnicate -u victim.txt", "`shred --frobnicate -u victim.txt` may delete files like rm (shred), and its words cannot be read (shred has an option the guard does not know (--frobnicate)), so a rule on rm cannot tell what it deletes"],
  ] as const)("%s", (line, reason) => {
    const decision = guard.decide("Bash", { command: line });
    expect(decision.mode).toBe("ask");
    expect(decision.reason).toBe(prefix + reason);
  });
});

// ---------------------------------------------------------------------------------------------------
// The real programs judge, in a scratch tree (the policy's pathBase, HOME there): under strace for what a line opened,
// and by what it left for what it destroyed. A line that read a protected file, wrote one under src/, or destroyed the
// content of a planted file must not be allowed; the benign lines must be allowed and do none of it.

const straceReady = installed("strace") && spawnSync("strace", ["-f", "-o", "/dev/null", "true"]).status === 0;
if (REQUIRE_ORACLES && !straceReady) throw new Error("REQUIRE_ORACLES=1 but strace cannot run here");

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "gg-bypass15-")));
const work = path.join(scratch, "w");
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  for (const file of ["/tmp/gg15-out", "/tmp/gg15-x", "/tmp/gg15-kept.txt", "/tmp/.Trash-0/files/victim.txt"]) rmSync(file, { recursive: true, force: true });
});

const GIT_ENV = { GIT_AUTHOR_NAME: "a", GIT_AUTHOR_EMAIL: "a@example.com", GIT_COMMITTER_NAME: "a", GIT_COMMITTER_EMAIL: "a@example.com", GIT_CONFIG_NOSYSTEM: "1" };
const PLANTED: Readonly<Record<string, string>> = { "victim.txt": "victim\n", "docs/untracked.tmp": "tmp\n", "untracked.tmp": "tmp\n", "tree/a.o": "o\n" };

function plant(): void {
  rmSync(work, { recursive: true, force: true });
  for (const dir of ["secrets", "src", "docs", "tree", "empty", ".Trash", ".local/share/Trash/files"]) mkdirSync(path.join(work, dir), { recursive: true });
  writeFileSync(path.join(work, ".env"), "API_KEY=canary-env\n");
  writeFileSync(path.join(work, "secrets", "api.key"), "KEY=canary-secret\n");
  writeFileSync(path.join(work, "src", "a.ts"), "export const a = 1;\n");
  writeFileSync(path.join(work, "README.md"), "# readme\n");
  writeFileSync(path.join(work, "docs", "a.md"), "# a\n");
  writeFileSync(path.join(work, "empty.txt"), "");
  const env = { ...process.env, ...GIT_ENV, HOME: work };
  spawnSync("bash", ["-c", "git init -q . && git add README.md docs && git commit -q -m a"], { cwd: work, env });
  for (const [file, text] of Object.entries(PLANTED)) writeFileSync(path.join(work, file), text);
}

/** What one run of `line` by `shell` did: protected files read or written (strace), planted files destroyed or emptied. */
/** A directory of g-prefixed names for this machine's GNU programs, as Homebrew installs them on macOS. */
const gbin = path.join(scratch, "gbin");
mkdirSync(gbin, { recursive: true });
for (const program of ["rm", "unlink", "shred", "truncate", "mv", "cp", "find", "xargs", "ls", "cat", "grep"]) {
  const where = spawnSync("bash", ["-c", `command -v ${program}`], { encoding: "utf8" }).stdout.trim();
  if (where !== "") symlinkSync(where, path.join(gbin, `g${program}`));
}

function run(line: string, shell = "bash"): { touched: string[]; destroyed: string[] } {
  plant();
  const log = path.join(scratch, "trace.log");
  rmSync(log, { force: true });
  spawnSync("strace", ["-f", "-y", "-qq", "-e", "trace=open,openat,openat2,creat,truncate", "-o", log, shell, "-c", line], {
    cwd: work,
    timeout: 20_000,
    stdio: ["ignore", "ignore", "ignore"],
    env: { PATH: `${gbin}:${process.env.PATH ?? "/usr/bin:/bin"}`, HOME: work, LC_ALL: "C", PAGER: "cat", READNULLCMD: "cat", ...GIT_ENV },
  });
  const { read, wrote } = straceOpens(existsSync(log) ? readFileSync(log, "utf8") : "");
  const isProtected = (file: string) => file === path.join(work, ".env") || file.startsWith(`${path.join(work, "secrets")}/`);
  const touched = [...[...read].filter(isProtected), ...[...wrote].filter((file) => isProtected(file) || file.startsWith(`${path.join(work, "src")}/`))];
    // Destroyed: gone, or its content no longer starts with what was planted (appending and growing keep it).
  const destroyed = Object.entries(PLANTED).filter(([file, text]) => !existsSync(path.join(work, file)) || !readFileSync(path.join(work, file), "utf8").startsWith(text)).map(([file]) => file);
  return { touched, destroyed };
}

/** Lines run here: [line, the shell that runs it, whether it must stay allowed]. */
const REAL_LINES: readonly (readonly [string, string, boolean])[] = [
  ...BARE_CASES.filter(([line]) => !line.includes("/tmp/")).map(([line, expected]) => [line, "bash", expected === "allow"] as const),
  ...(installed("zsh") ? (["echo $(<.env)", "< .env", "x=$(< secrets/api.key)"] as const).map((line) => [line, "zsh", false] as const) : []),
  ...(installed("dash") ? [["x=$(<.env)", "dash", false] as const, ["> src/a.ts", "dash", false] as const] : []),
  ...DESTROYERS.map(fill).filter((line) => !line.includes("/tmp/")).map((line) => [line, "bash", false] as const),
  // (A rename keeps the content under another name: not run here, where the planted name is what is checked.)
  ...KEEPS.map(fill).filter((line) => !line.includes("/tmp/") && !line.startsWith("mv ")).map((line) => [line, "bash", true] as const),
  // (An option the programs refuse makes them do nothing: the guard asks because it cannot read it, not run here.)
  ["echo 'ls(){ rm -f victim.txt; }' > x.sh; . ./x.sh; ls", "bash", false],
  ...GNU_NAMED.filter(([line]) => !line.startsWith("/opt/") && !line.startsWith("sudo") && !line.startsWith("gmv victim.txt kept") && !line.startsWith("gawk")).map(([line, expected]) => [line, "bash", expected === "allow"] as const),
  ...OPTION_CASES.filter(([line]) => !line.includes("frobnicate")).map(([line, expected]) => [fillTree(line).replace("git -C docs clean", "git clean"), "bash", expected === "allow"] as const),
];

describe.skipIf(!straceReady)("public bypass classes (15): the real programs judge (bash 5.2, zsh, dash, git, coreutils, shred, rsync)", () => {
  const fileRules = () => fileGuard(work, "public-bypasses-15-real-files");
  const rmRule = () => denyListGuard(["rm:*"], "public-bypasses-15-real-rm");
  it.each(REAL_LINES.map(([line, shell, benign]) => [`${shell}: ${line}`, line, shell, benign] as const))("%s", (_title, line, shell, benign) => {
    const did = run(line, shell);
    // The line as the agent's tool runs it: given to that shell (`zsh -c LINE` when the shell is zsh).
    const asRun = shell === "bash" ? line : `${shell} -c ${shellQuote(line)}`;
    const byFiles = fileRules().decide("Bash", { command: asRun });
    const byRm = rmRule().decide("Bash", { command: asRun });
    if (benign) {
      expect(did.touched, `${line} touched a protected file`).toEqual([]);
      expect(did.destroyed, `${line} destroyed`).toEqual([]);
      expect(byFiles.mode, `${asRun}: ${byFiles.reason}`).toBe("allow");
      expect(byRm.mode, `${asRun}: ${byRm.reason}`).toBe("allow");
    } else {
      expect(did.touched.length + did.destroyed.length, `${line} neither touched a protected file nor destroyed a planted one here`).toBeGreaterThan(0);
      if (did.touched.length > 0) expect(byFiles.mode, `${asRun}: ${byFiles.reason}`).not.toBe("allow");
      if (did.destroyed.length > 0) expect(byRm.mode, `${asRun}: ${byRm.reason}`).not.toBe("allow");
    }
  });
});

/** A scratch repository with one untracked file, for git clean's generated option spellings. */
function cleanRepo(): string {
  const dir = path.join(scratch, "clean");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const env = { ...process.env, ...GIT_ENV, HOME: scratch };
  spawnSync("bash", ["-c", "git init -q . && echo a > t.txt && git add t.txt && git commit -q -m a && echo u > u.txt"], { cwd: dir, env });
  return dir;
}

describe.skipIf(!installed("git"))("public bypass classes (15): git judges generated spellings of git clean's options (values that look like options, abbreviations, negations)", () => {
  it("whenever git clean deleted the untracked file, the line was not allowed under a deny on rm; when it kept it, the line was allowed", () => {
    const guard = denyListGuard(["rm:*"], "public-bypasses-15-clean-oracle");
    // (-f first: without it git refuses by default, which the guard does not assume.)
    const option = fc.constantFrom("-d", "-x", "-q", "-n", "--dry-run", "--dry", "--dry-r", "--no-dry-run", "--no-dry", "-e -n", "-e x", "--exclude -n", "--exclude=-n", "--exclude --dry-run", "-en", "-dn", "-nd", "--for", "--force", "--quiet");
    fc.assert(
      fc.property(fc.array(option, { minLength: 1, maxLength: 4 }), (options) => {
        const line = `git clean -f ${options.join(" ")}`;
        const dir = cleanRepo();
        spawnSync("bash", ["-c", line], { cwd: dir, env: { ...process.env, ...GIT_ENV, HOME: scratch }, stdio: "ignore", timeout: 20_000 });
        const deleted = !existsSync(path.join(dir, "u.txt"));
        const decision = guard.decide("Bash", { command: line });
        if (deleted) expect(decision.mode, `${line} deleted: ${decision.reason}`).not.toBe("allow");
        else expect(decision.mode, `${line} kept the file: ${decision.reason}`).toBe("allow");
      }),
      { numRuns: 60, seed: ORACLE_SEED },
    );
  }, 120_000);
});
