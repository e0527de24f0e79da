// Readings round 14, from public reports of agents' deny lists bypassed: shell and command spellings the guard read
// differently from the real program.
//   1. PowerShell tools. A `Bash(rm:*)` deny already held for a PowerShell tool's `rm`, but PowerShell spells it
//      Remove-Item, ri, del, erase, rd, rmdir (any case, parameters by a unique prefix), reads files with Get-Content, gc,
//      type, Select-String, writes with Set-Content, sc, Add-Content, Out-File, `>`, and fetches with Invoke-WebRequest,
//      iwr, irm, curl, wget (use-agent-os/agent-os#2100 and #2339: `rm`, `ri -Recurse -Force C:\data` ran unblocked;
//      anthony-chaudhary/fak#3938: a PowerShell tool's Remove-Item read by a raw regex, not as rm). The aliases are data
//      from Microsoft's PowerShell-Docs "Compatibility Aliases" (learn/Compatibility-Aliases.md) and the cmdlets' own
//      aliases (Windows PowerShell 5.1's curl, wget, sc). pwsh itself is not installable here (the npm and Debian
//      registries only), so the PowerShell cases are judged against that documentation, not a run. What cannot be read
//      (Invoke-Expression of a value, `&` with a variable, .NET calls, an encoded command that decodes to one) asks.
//   2. Lines whose reading depends on a file or variable the line names: `GIT_DIR=`, `GIT_WORK_TREE=`, `HOME=`,
//      `XDG_CONFIG_HOME=`, `GIT_CONFIG_GLOBAL=`, `GIT_INDEX_FILE=`, `WGETRC=`, `BASH_ENV=` name files the program reads
//      (vfarcic/dot-agent-deck#834: ambient GIT_DIR/GIT_WORK_TREE/GIT_INDEX_FILE 'read escape'); `RIPGREP_CONFIG_PATH`
//      names options that add paths, --hidden and --pre commands (anthropic-experimental/sandbox-runtime#178;
//      GTFOBins/GTFOBins.github.io#599: rg --pre runs commands); `LD_PRELOAD` and a relative PATH load code that may open
//      anything; `source FILE` may `cd` (conda-archive/conda-env#67: a sourced file runs in the shell, with its aliases and
//      functions; ustclug/Linux101-docs#70: `cd` among source's effects).
//   3. The same effect through another command: under a deny of rm, agents deleted with `find -delete`, `unlink`,
//      `shred -u`, `rsync --delete`, `git clean`, interpreter code (ldayton/Dippy#130: 'I used find -delete as an
//      alternative — which went through without any check'; dwarvesf/dwarves-kit#262: `find … -mindepth 1 -delete` wiped
//      a global install; Dicklesworthstone/destructive_command_guard#469: unlink/shred/truncate siblings of rm;
//      poe-platform/poe-code#651: `find -L … -delete`). A rule on rm now holds for them as an ask: "deletes files like rm"
//      (same-effect.ts). Moving (`mv x /tmp/trash`) is not deleting: Edit rules speak. (Emptying and shredding, `truncate
//      -s 0`, `shred x`, were kept here too; round 15 reads them as rm, with the reports for it: public-bypasses-15.)
//   4. New: wrappers outside the guard's list that exec their command (anthropics/claude-code#92542: 'Bash deny rules
//      bypassed by any wrapper program outside [the] unwrap list'): run-one and its family, with-contenv, catatonit,
//      host-spawn, distrobox-enter, mpirun/mpiexec/srun. And a protected file named inside another program's own syntax:
//      git's index spellings `:F` and `:N:F` (`git show :.env` prints the staged file), and a text of several words a
//      program reads as its own commands (sqlite3's `.import .env t`), as anthropics/claude-code#70369 and #6036 report
//      Read denies circumvented through commands that name the file indirectly.
// Before the fix (this file on the unchanged code): 164 of 229 tests failed (PowerShell 56 of 69, files and variables
// 27 of 41, deleters 26 of 37, wrappers 9 of 13, names inside another program's syntax 7 of 9, the real programs' runs
// 39 of 60). After: none.
// The real programs judge classes 2 and 3 (bash 5.2, git 2.39, ripgrep 13, wget, perl, python3, node, GNU find, shred,
// rsync, tar, zip, traced by strace or by what they left): whenever a run read a protected file or deleted a planted
// one, the guard did not allow the line; the benign lines stay allowed.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { parsePolicy, permissionPolicy } from "../src/policy/index.js";
import { REQUIRE_ORACLES } from "./helpers/bash-oracle.js";
import { describeBashClasses, denyListGuard, installed, type BashClass } from "./helpers/bash-rules.js";
import { ORACLE_SEED } from "./helpers/oracle.js";
import { straceOpens } from "./helpers/strace.js";

type Expect = "deny" | "ask" | "allow" | "not-allow";

const RULES = [
  { rule: "Bash(rm:*)", mode: "deny" },
  { rule: "Read(.env)", mode: "deny" },
  { rule: "Read(./secrets/**)", mode: "deny" },
  { rule: "Edit(./src/**)", mode: "deny" },
  { rule: "WebFetch(domain:169.254.169.254)", mode: "deny" },
];

/** The rules above for Bash and a PowerShell tool (its command in `command`), both low risk; relative paths from `base`. */
function policy(base: string, name: string, rules: readonly { rule: string; mode: string }[] = RULES) {
  const lines = rules.map((rule) => `  - ${JSON.stringify(rule)}`);
  return permissionPolicy(parsePolicy(`version: 1\npathBase: ${JSON.stringify(base)}\npermissions:\n${lines.join("\n")}\ntools:\n  Bash: { risk: low }\n  PowerShell: { risk: low, mainArgument: { field: command, kind: command } }\n`, "yaml", `${name}.yaml`));
}

function expectMode(mode: string, reason: string | undefined, expected: Expect, line: string): void {
  if (expected === "not-allow") expect(mode, `${line}: ${reason}`).not.toBe("allow");
  else expect(mode, `${line}: ${reason}`).toBe(expected);
}

// ---------------------------------------------------------------------------------------------------
// 1. PowerShell.

const PS_SOURCE =
  "use-agent-os/agent-os#2100 and #2339 (PowerShell's rm and ri aliases of Remove-Item unblocked); anthony-chaudhary/fak#3938 (PowerShell Remove-Item -Recurse/-Force judged by a raw regex); Microsoft PowerShell-Docs 'Compatibility Aliases' (ri, del, erase, rd, rm, rmdir; gc, cat, type; cpi, cp, copy; mi, mv, move; sl, cd, chdir); the cmdlets' documented aliases (sc, ac, iwr, irm, sls, saps, iex; curl and wget in Windows PowerShell 5.1)";

interface PsClass {
  readonly name: string;
  readonly cases: readonly (readonly [line: string, expect: Expect, reason?: RegExp])[];
}

const PS_CLASSES: readonly PsClass[] = [
  {
    name: "Remove-Item and its aliases delete as rm does: a deny on rm holds in any case, with its parameters by prefix, in pipelines, script blocks, subexpressions and Invoke-Expression of a literal",
    cases: [
      ["Remove-Item -Recurse -Force build", "deny"],
      ["remove-item build", "deny"],
      ["REMOVE-ITEM -LiteralPath 'build'", "deny"],
      ["ri -r -fo C:\\data", "deny"],
      ["del build", "deny"],
      ["erase build", "deny"],
      ["rd /s /q build", "deny"],
      ["rmdir build", "deny"],
      ["Microsoft.PowerShell.Management\\Remove-Item build", "deny"],
      ["Get-ChildItem -Recurse *.o | Remove-Item", "deny"],
      ["Get-ChildItem | ForEach-Object { Remove-Item $_ -Force }", "deny"],
      ["foreach ($f in Get-ChildItem) { del $f }", "deny"],
      ["if ($true) { ri build }", "deny"],
      ["Write-Output $(Remove-Item build)", "deny"],
      ["& 'Remove-Item' build", "deny"],
      ["& rm build", "deny"],
      ["iex 'Remove-Item build'", "deny"],
      ["Invoke-Expression \"del build\"", "deny"],
      ["Start-Process rm -ArgumentList '-rf','build'", "deny"],
      ["cmd /c del build", "deny"],
      ["Remove-Item build -WhatIf", "allow"],
      ["Get-ChildItem -Recurse -Filter *.ts", "allow"],
      ["Get-Process | Sort-Object CPU", "allow"],
      ["Write-Output 'rm -rf build'", "allow"],
    ],
  },
  {
    name: "Get-Content, gc, type, cat and Select-String read files; Set-Content, sc, Add-Content, ac, Out-File, New-Item, Copy-Item and `>` write them; Set-Location moves the statements after it",
    cases: [
      ["Get-Content .env", "deny"],
      ["gc -Path .env -Tail 5", "deny"],
      ["type .env", "deny"],
      ["Get-Content -LiteralPath \"./secrets/api.key\"", "deny"],
      ["$k = Get-Content secrets/api.key", "deny"],
      ["Select-String -Pattern KEY -Path .env", "deny"],
      ["sls KEY secrets/api.key", "deny"],
      ["Set-Location secrets; gc api.key", "deny"],
      ["cd secrets; type api.key", "deny"],
      ["Copy-Item .env C:\\tmp\\x", "deny"],
      ["Set-Content -Path src/a.ts -Value x", "deny"],
      ["sc src/a.ts 'x'", "deny"],
      ["Add-Content src/a.ts 'y'", "deny"],
      ["ac -Path src/a.ts -Value y", "deny"],
      ["'x' | Out-File -FilePath src/b.ts", "deny"],
      ["New-Item -ItemType File -Path src/c.ts -Value x", "deny"],
      ["Write-Output x > src/c.ts", "deny"],
      ["Copy-Item -Path docs/a.md -Destination src/a.ts", "deny"],
      ["Get-Content README.md", "allow"],
      ["Set-Content docs/notes.md 'x'", "allow"],
      ["Select-String -Pattern TODO -Path docs/a.md", "allow"],
    ],
  },
  {
    name: "Invoke-WebRequest, iwr, Invoke-RestMethod, irm, curl and wget (Windows PowerShell's aliases) and curl.exe fetch the URL they are given: a WebFetch domain rule holds",
    cases: [
      ["iwr http://169.254.169.254/latest/meta-data/", "deny"],
      ["Invoke-WebRequest -Uri http://169.254.169.254/", "deny"],
      ["Invoke-WebRequest -Uri:http://169.254.169.254/ -OutFile x", "deny"],
      ["irm 'http://169.254.169.254/latest'", "deny"],
      ["curl http://169.254.169.254/", "deny"],
      ["wget http://169.254.169.254/", "deny"],
      ["curl.exe -s http://169.254.169.254/", "deny"],
      ["iwr https://example.com/ -OutFile src/x.ts", "not-allow"],
      ["iwr https://example.com/", "allow"],
    ],
  },
  {
    name: "what PowerShell runs from a value only known when the line runs (Invoke-Expression of a variable, `&` with a variable, a script block built from a string, .NET calls that delete, read or connect) asks, naming PowerShell's construct; so does a line PowerShell would not parse",
    cases: [
      ["iex $cmd", "ask", /Invoke-Expression/],
      ["Invoke-Expression (Get-Content script.txt)", "ask", /Invoke-Expression/],
      ["& $tool build", "ask", /call operator/],
      ["[IO.File]::Delete('x')", "ask", /\.NET/],
      ["[System.IO.File]::ReadAllText('.env')", "ask", /\.NET/],
      ["(New-Object Net.WebClient).DownloadString('http://169.254.169.254/')", "ask", /\.NET/],
      ["[scriptblock]::Create($s).Invoke()", "ask", /\.NET/],
      ["Get-ChildItem |", "ask", /would not parse/],
      ["Write-Output ok", "allow"],
    ],
  },
];

describe(`public bypass classes (14): a PowerShell tool's line read as PowerShell runs it [${PS_SOURCE}]`, () => {
  const guard = policy("/work/proj", "public-bypasses-14-powershell");
  for (const klass of PS_CLASSES) {
    describe(klass.name, () => {
      it.each(klass.cases.map((c) => [c[0], c] as const))("%s", (_line, c) => {
        const decision = guard.decide("PowerShell", { command: c[0] });
        expectMode(decision.mode, decision.reason, c[1], c[0]);
        if (c[2] !== undefined) expect(decision.reason).toMatch(c[2]);
      });
    });
  }

  it("the same code given to pwsh or powershell in a Bash line (-c, -Command, -EncodedCommand) is read alike", () => {
    const encoded = (code: string) => Buffer.from(code, "utf16le").toString("base64");
    const cases: [string, Expect][] = [
      ["pwsh -c 'Remove-Item -Recurse build'", "deny"],
      ["powershell -Command \"gc .env\"", "deny"],
      [`pwsh -EncodedCommand ${encoded("ri build")}`, "deny"],
      [`powershell -enc ${encoded("iex $x")}`, "ask"],
      ["pwsh -NoProfile -c 'iwr http://169.254.169.254/'", "deny"],
      ["pwsh.exe -c 'ri build'", "deny"],
      ["PowerShell.exe -Command \"del build\"", "deny"],
      ["pwsh -c 'Get-Process'", "allow"],
    ];
    for (const [line, expected] of cases) {
      const decision = guard.decide("Bash", { command: line });
      expectMode(decision.mode, decision.reason, expected, line);
    }
  });
});

/** A PowerShell word in single quotes (a `'` doubled). */
const psQuote = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** A statement placed in PowerShell's contexts: alone, after another, in a block, a pipeline's block, a subexpression, iex of a literal. */
const psContext = fc.constantFrom(
  (s: string) => s,
  (s: string) => `Write-Output a; ${s}`,
  (s: string) => `if ($true) { ${s} }`,
  (s: string) => `Get-ChildItem | ForEach-Object { ${s} }`,
  (s: string) => `& { ${s} }`,
  (s: string) => `$null = $(${s})`,
  (s: string) => `iex ${psQuote(s)}`,
  (s: string) => `try { ${s} } catch { }`,
);

/** A cmdlet name in one of the cases PowerShell accepts. */
const anyCase = (name: string) => fc.constantFrom(name, name.toLowerCase(), name.toUpperCase(), name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase()));

/** A path parameter in its spellings: positional, -Path x, -Path:x, a unique prefix, quoted. */
const pathWord = (file: string, names: readonly string[]) =>
  fc.constantFrom(file, `'${file}'`, `"${file}"`, ...names.flatMap((name) => [`-${name} ${file}`, `-${name}:${file}`, `-${name.slice(0, Math.max(3, name.length - 2))} '${file}'`]));

describe("public bypass classes (14): generated PowerShell spellings of deleting, reading, writing and fetching", () => {
  const guard = policy("/work/proj", "public-bypasses-14-powershell-generated");
  const check = (arbitrary: fc.Arbitrary<string>, expected: Expect) =>
    fc.assert(
      fc.property(arbitrary, (line) => {
        const decision = guard.decide("PowerShell", { command: line });
        expectMode(decision.mode, decision.reason, expected, line);
      }),
      { numRuns: 250, seed: ORACLE_SEED },
    );

  it("Remove-Item's spellings are denied under Bash(rm:*)", () => {
    const name = fc.oneof(anyCase("Remove-Item"), fc.constantFrom("ri", "rm", "del", "erase", "rd", "rmdir", "RI", "Del", "RmDir"));
    const flags = fc.constantFrom("", "-Recurse", "-Force", "-Recurse -Force", "-r -fo", "-Recurse:$true", "-Confirm:$false");
    check(fc.tuple(psContext, name, pathWord("build", ["Path", "LiteralPath"]), flags).map(([at, n, p, f]) => at(`${n} ${p} ${f}`.trim())), "deny");
  });

  it("Get-Content's and Select-String's spellings of a protected file are denied", () => {
    const reader = fc.oneof(anyCase("Get-Content"), fc.constantFrom("gc", "cat", "type", "GC", "Type"));
    const file = fc.constantFrom(".env", "./.env", "secrets/api.key", "./secrets/api.key", "secrets\\api.key");
    const read = fc.tuple(reader, file).chain(([r, f]) => pathWord(f, ["Path", "LiteralPath"]).map((p) => `${r} ${p}`));
    const search = fc.tuple(fc.oneof(anyCase("Select-String"), fc.constant("sls")), file).map(([s, f]) => `${s} -Pattern KEY -Path ${f}`);
    check(fc.tuple(psContext, fc.oneof(read, search)).map(([at, s]) => at(s)), "deny");
  });

  it("Set-Content's, Add-Content's, Out-File's and `>`'s spellings of a protected file are denied", () => {
    const file = fc.constantFrom("src/a.ts", "./src/a.ts", "src\\a.ts", "src/new.ts");
    const writer = fc.tuple(fc.oneof(anyCase("Set-Content"), anyCase("Add-Content"), fc.constantFrom("sc", "ac", "SC")), file).chain(([w, f]) => pathWord(f, ["Path", "LiteralPath"]).map((p) => `${w} ${p} -Value x`));
    const out = fc.tuple(fc.oneof(anyCase("Out-File"), fc.constant("out-file")), file).map(([o, f]) => `'x' | ${o} -FilePath ${f}`);
    const redirect = fc.tuple(fc.constantFrom(">", ">>", "*>", "2>"), file).map(([r, f]) => `Write-Output x ${r} ${f}`);
    check(fc.tuple(psContext, fc.oneof(writer, out, redirect)).map(([at, s]) => at(s)), "deny");
  });

  it("Invoke-WebRequest's and Invoke-RestMethod's spellings of a denied domain are denied", () => {
    const fetcher = fc.oneof(anyCase("Invoke-WebRequest"), anyCase("Invoke-RestMethod"), fc.constantFrom("iwr", "irm", "curl", "wget", "IWR", "Iwr"));
    const url = fc.constantFrom("http://169.254.169.254/", "http://169.254.169.254/latest/meta-data/", "'http://169.254.169.254/x'");
    const given = fc.tuple(url, fc.constantFrom("%u", "-Uri %u", "-Uri:%u", "-uri %u -UseBasicParsing", "%u -OutFile x")).map(([u, form]) => form.replace("%u", u));
    check(fc.tuple(psContext, fetcher, given).map(([at, f, g]) => at(`${f} ${g}`)), "deny");
  });

  it("read-only and harmless statements in the same contexts stay allowed", () => {
    const benign = fc.constantFrom("Get-ChildItem", "Get-Content README.md", "Get-Process", "Write-Output 'rm -rf /'", "Select-String -Pattern x -Path docs/a.md", "Set-Content docs/b.md 'x'", "iwr https://example.com/", "Remove-Item build -WhatIf");
    check(fc.tuple(psContext, benign).map(([at, s]) => at(s)), "allow");
  });
});

// ---------------------------------------------------------------------------------------------------
// 2. Files and variables the line names.

interface FileClass {
  readonly name: string;
  readonly source: string;
  readonly cases: readonly (readonly [line: string, expect: Expect, reason?: RegExp])[];
}

const ENV_CLASSES: readonly FileClass[] = [
  {
    name: "variables that name the repository, work tree, index or configuration git reads (GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE, GIT_CONFIG_GLOBAL, and HOME or XDG_CONFIG_HOME for its configuration): a protected place there is read, as a prefix, after export, or through env and sudo",
    source: "vfarcic/dot-agent-deck#834 ('GIT_DIR, GIT_WORK_TREE, … GIT_INDEX_FILE … left ambient': read escape); git(1) 'ENVIRONMENT VARIABLES'; checked with git 2.39 under strace",
    cases: [
      ["GIT_DIR=secrets/repo.git git log", "deny"],
      ["GIT_WORK_TREE=secrets git diff", "deny"],
      ["export GIT_DIR=secrets/repo.git; git log", "deny"],
      ["env GIT_DIR=secrets/repo.git git log", "deny"],
      ["sudo GIT_DIR=secrets/repo.git git log", "deny"],
      ["GIT_DIR=secrets/repo.git timeout 5 git log", "deny"],
      ["GIT_INDEX_FILE=.env git status", "deny"],
      ["GIT_CONFIG_GLOBAL=.env git log", "deny"],
      ["HOME=secrets git log", "deny"],
      ["XDG_CONFIG_HOME=secrets git log", "deny"],
      ["GIT_DIR=$D git log", "ask"],
      ["HOME=/tmp/h git log", "allow"],
      ["HOME=. git log", "allow"],
      ["GIT_WORK_TREE=. git diff", "allow"],
      ["XDG_CONFIG_HOME=./cfg git log", "allow"],
    ],
  },
  {
    name: "variables that name a file a program reads (WGETRC, BASH_ENV, ENV, CURL_HOME's .curlrc), options that may name any file (RIPGREP_CONFIG_PATH: paths, --hidden, --pre commands), or code that may open any file (LD_PRELOAD, a PATH with a relative directory)",
    source: "anthropic-experimental/sandbox-runtime#178 (RIPGREP_CONFIG_PATH: the configuration can be anywhere); GTFOBins/GTFOBins.github.io#599 (rg --pre runs commands, reads files); ripgrep GUIDE 'Configuration file' (arguments prepended); wget(1) WGETRC; bash(1) BASH_ENV; checked with ripgrep 13, wget and bash 5.2",
    cases: [
      ["RIPGREP_CONFIG_PATH=.env rg KEY docs", "deny"],
      ["RIPGREP_CONFIG_PATH=rgc rg KEY docs", "ask", /RIPGREP_CONFIG_PATH/],
      ["env RIPGREP_CONFIG_PATH=rgc rg -l KEY", "ask"],
      ["WGETRC=.env wget -q http://127.0.0.1:9/", "deny"],
      ["BASH_ENV=.env bash -c true", "deny"],
      ["ENV=secrets/api.key sh -i", "deny"],
      ["CURL_HOME=secrets curl -s http://127.0.0.1:9/", "deny"],
      ["LD_PRELOAD=./x.so cat docs/README.md", "ask", /LD_PRELOAD/],
      ["PATH=.:$PATH cat docs/README.md", "ask", /PATH/],
      ["PATH=node_modules/.bin:$PATH cat docs/README.md", "ask"],
      ["PATH=$HOME/bin:$PATH cat docs/README.md", "allow"],
      ["PATH=/usr/bin:/bin cat docs/README.md", "allow"],
      ["rg KEY docs", "allow"],
      // A runner's own file of variables (`--env-file`), read before the command it runs.
      ["uv run --env-file .env pytest", "deny"],
      ["docker run --env-file=secrets/api.key alpine", "deny"],
      ["bun --env-file .env x.ts", "deny"],
      ["uv run --env-file docs/x.env pytest", "allow"],
    ],
  },
  {
    name: "`source FILE` and `. FILE` run the file in the shell, which may change its directory: a relative word after it names a place only known when it runs; CDPATH makes `cd` look elsewhere",
    source: "conda-archive/conda-env#67 (a sourced script runs with the shell's aliases and functions); ustclug/Linux101-docs#70 (`cd` among source's effects); bash(1) 'source', 'CDPATH'; checked with bash 5.2",
    cases: [
      ["source ./env.sh && cat api.key", "ask"],
      [". ./env.sh; cat api.key", "ask"],
      ["source env.sh; cat ../.env", "not-allow"],
      ["CDPATH=.. cd secrets && cat api.key", "ask"],
      ["cd sub && CDPATH=.. cd secrets && cat api.key", "ask"],
      ["cat README.md; source ./env.sh", "allow"],
      ["source ./env.sh", "allow"],
    ],
  },
];

describe("public bypass classes (14): files and variables the line names", () => {
  // The file rules alone (a deny on a command makes a prefix that loads code, such as PATH, ask on its own).
  const guard = policy("/work/proj", "public-bypasses-14-env", RULES.filter((rule) => !rule.rule.startsWith("Bash(")));
  for (const klass of ENV_CLASSES) {
    describe(`${klass.name} [${klass.source}]`, () => {
      it.each(klass.cases.map((c) => [c[0], c] as const))("%s", (_line, c) => {
        const decision = guard.decide("Bash", { command: c[0] });
        expectMode(decision.mode, decision.reason, c[1], c[0]);
        if (c[2] !== undefined) expect(decision.reason).toMatch(c[2]);
      });
    });
  }

  it("generated: each variable through which programs read a place, set to a protected one by a prefix, export, env or sudo, is not allowed", () => {
    const setting = fc.constantFrom("GIT_DIR=secrets/repo.git", "GIT_WORK_TREE=secrets", "GIT_INDEX_FILE=.env", "GIT_CONFIG_GLOBAL=./.env", "HOME=secrets", "HOME=./secrets", "XDG_CONFIG_HOME=secrets", "WGETRC=.env", "RIPGREP_CONFIG_PATH=secrets/api.key", "BASH_ENV=.env");
    const program = fc.constantFrom("git log", "git status", "rg x docs", "wget -q http://127.0.0.1:9/", "bash -c true", "curl -s http://127.0.0.1:9/");
    const form = fc.constantFrom((s: string, p: string) => `${s} ${p}`, (s: string, p: string) => `export ${s}; ${p}`, (s: string, p: string) => `env ${s} ${p}`, (s: string, p: string) => `${s} timeout 5 ${p}`, (s: string, p: string) => `sudo ${s} ${p}`, (s: string, p: string) => `${s} nice ${p}`);
    fc.assert(
      fc.property(setting, program, form, (s, p, f) => {
        const line = f(s, p);
        const decision = guard.decide("Bash", { command: line });
        expectMode(decision.mode, decision.reason, "not-allow", line);
      }),
      { numRuns: 200, seed: ORACLE_SEED },
    );
  });

  it("under a deny on a command, a variable that makes the program run a command it names (RIPGREP_CONFIG_PATH's --pre, BASH_ENV, GIT_SSH_COMMAND) asks or denies", () => {
    const deny = denyListGuard(["rm:*"], "public-bypasses-14-env-commands");
    for (const [line, expected] of [
      ["RIPGREP_CONFIG_PATH=rgc rg hello docs", "ask"],
      ["BASH_ENV=./x.sh bash -c true", "ask"],
      ["GIT_SSH_COMMAND='rm -rf x' git fetch", "deny"],
      ["rg hello docs", "allow"],
    ] as const) {
      const decision = deny.decide("Bash", { command: line });
      expectMode(decision.mode, decision.reason, expected, line);
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// 3. Commands that delete files as rm does.

const DELETE_SOURCE =
  "ldayton/Dippy#130 (Claude Code, blocked on rm -r, used find -delete instead); dwarvesf/dwarves-kit#262 (`find … -mindepth 1 -delete` passed a gate keyed on rm); Dicklesworthstone/destructive_command_guard#469 (unlink, shred -u, truncate as rm's siblings); poe-platform/poe-code#651 (find -L … -delete)";

/** A command that deletes VICTIM (a file) or TREE (a directory), and a benign companion that deletes nothing. */
const DELETERS: readonly string[] = [
  "unlink VICTIM",
  "rmdir EMPTY",
  "find TREE -delete",
  "find TREE -name '*.o' -delete",
  "find -L TREE -type f -delete",
  "find . -maxdepth 1 -name VICTIM -delete",
  "shred -u VICTIM",
  "shred -fuz VICTIM",
  "shred --remove VICTIM",
  "shred -zu -n1 VICTIM",
  "rsync -a --delete EMPTY/ TREE/",
  "rsync -a --delete-after EMPTY/ TREE/",
  "rsync -a --remove-source-files TREE/ /tmp/gg14-rsync-out/",
  "git clean -fdx",
  "git clean -f -d TREE",
  "git -C docs clean -fx",
  "perl -e 'unlink \"VICTIM\"'",
  "python3 -c 'import os; os.remove(\"VICTIM\")'",
  "python3 -c 'import shutil; shutil.rmtree(\"TREE\")'",
  "node -e 'require(\"fs\").unlinkSync(\"VICTIM\")'",
  "node -e 'require(\"fs\").rmSync(\"TREE\", {recursive: true})'",
  "tar --remove-files -cf /tmp/gg14.tar VICTIM",
  "zip -qm /tmp/gg14.zip VICTIM",
  "gio trash VICTIM",
];

const KEEPERS: readonly string[] = [
  "find TREE -name '*.o'",
  "find TREE -type f -print",
  "rsync -a EMPTY/ TREE/",
  "git clean -n",
  "git clean --dry-run -d",
  "python3 -c 'print(1)'",
  "perl -e 'print 1'",
  "zip -q /tmp/gg14.zip VICTIM",
  "mv VICTIM KEPT",
];

const fill = (line: string) => line.replace(/VICTIM/g, "victim.txt").replace(/TREE/g, "tree").replace(/EMPTY/g, "empty").replace(/KEPT/g, "kept.txt");

describe(`public bypass classes (14): under a deny on rm, commands that delete files as rm does ask [${DELETE_SOURCE}]`, () => {
  const guard = denyListGuard(["rm:*"], "public-bypasses-14-deleters");
  it.each(DELETERS.map(fill))("%s", (line) => {
    const decision = guard.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe("ask");
    expect(decision.reason).toMatch(/deletes files like rm/);
  });
  it.each(KEEPERS.map(fill))("%s (deletes nothing: allowed)", (line) => {
    const decision = guard.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe("allow");
  });

  it("generated: each deleter through the wrappers and shells that run it asks; `rm` itself stays denied", () => {
    const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
    const wrapper = fc.constantFrom((l: string) => l, (l: string) => `sudo ${l}`, (l: string) => `env ${l}`, (l: string) => `timeout 5 ${l}`, (l: string) => `nice -n 5 ${l}`, (l: string) => `nohup ${l}`, (l: string) => `command ${l}`, (l: string) => `bash -c ${shellQuote(l)}`, (l: string) => `sh -c ${shellQuote(l)}`, (l: string) => `echo hi && ${l}`, (l: string) => `(${l})`);
    fc.assert(
      fc.property(fc.constantFrom(...DELETERS.map(fill)), wrapper, (line, wrap) => {
        const wrapped = wrap(line);
        const decision = guard.decide("Bash", { command: wrapped });
        expectMode(decision.mode, decision.reason, "not-allow", wrapped);
        const rm = wrap("rm -rf tree");
        expect(guard.decide("Bash", { command: rm }).mode, rm).toBe("deny");
      }),
      { numRuns: 200, seed: ORACLE_SEED },
    );
  });

  it("a narrower rule on rm (`rm -rf:*`) reads a recursive deleter as `rm -r -f`; a one-file deleter does not match it", () => {
    const narrow = denyListGuard(["rm -rf:*"], "public-bypasses-14-deleters-narrow");
    expect(narrow.decide("Bash", { command: "find tree -delete" }).mode).toBe("ask");
    expect(narrow.decide("Bash", { command: "git clean -fdx" }).mode).toBe("ask");
    expect(narrow.decide("Bash", { command: "unlink victim.txt" }).mode).toBe("allow");
  });
});

// ---------------------------------------------------------------------------------------------------
// 4. Wrappers that exec their command.

const WRAPPER_CLASSES: readonly BashClass[] = [
  {
    name: "wrappers that exec the command after their options (run-one and its family, with-contenv, catatonit, host-spawn, distrobox-enter after --); launchers whose options the guard does not read (mpirun, mpiexec, srun) ask unless the command follows --",
    source: "anthropics/claude-code#92542 ('Bash deny rules bypassed by any wrapper program outside … [the] unwrap list'); run-one(1); s6-overlay's with-contenv; catatonit(1); host-spawn's README; distrobox-enter(1); mpirun(1)",
    allow: ["run-one:*", "with-contenv:*", "ls:*"],
    cases: [
      { command: "run-one rm -rf build", expect: "deny" },
      { command: "run-this-one rm x", expect: "deny" },
      { command: "keep-one-running rm x", expect: "deny" },
      { command: "run-one-until-success rm x", expect: "deny" },
      { command: "with-contenv rm x", expect: "deny" },
      { command: "catatonit -g -- rm x", expect: "deny" },
      { command: "host-spawn rm x", expect: "deny" },
      { command: "distrobox-enter --name box -- rm x", expect: "deny" },
      { command: "mpirun -n 4 -- rm x", expect: "deny" },
      { command: "mpirun -n 4 rm x", expect: "ask" },
      { command: "srun -N1 rm x", expect: "ask" },
      { command: "run-one ls", expect: "allow" },
      { command: "with-contenv ls", expect: "allow" },
    ],
  },
];

describeBashClasses("public bypass classes (14): wrappers outside the known list", WRAPPER_CLASSES, ["rm:*"], "public-bypasses-14-wrappers");

const INDIRECT: readonly (readonly [string, Expect])[] = [
  ["git show :.env", "not-allow"],
  ["git show :0:.env", "not-allow"],
  ["git cat-file blob :.env", "not-allow"],
  ["git show :secrets/api.key", "not-allow"],
  ["git cat-file -p :0:secrets/api.key", "not-allow"],
  ["sqlite3 :memory: '.import .env t' '.schema'", "not-allow"],
  ["sqlite3 db '.read secrets/api.key'", "not-allow"],
  ["git show :README.md", "allow"],
  ["sqlite3 :memory: 'select 1;'", "allow"],
];

describe("public bypass classes (14): a protected file named inside another program's own syntax (git's index spellings `:F`, `:N:F`; a text of several words sqlite3 reads as its commands) [anthropics/claude-code#70369 and #6036 (Read denies circumvented by commands that reach the file indirectly); gitrevisions(7) ':[<n>:]<path>'; sqlite3's .import and .read]", () => {
  const guard = policy("/work/proj", "public-bypasses-14-indirect", RULES.filter((rule) => !rule.rule.startsWith("Bash(")));
  it.each(INDIRECT.map(([line, expected]) => [line, expected] as const))("%s", (line, expected) => {
    const decision = guard.decide("Bash", { command: line });
    expectMode(decision.mode, decision.reason, expected, line);
  });
});

// ---------------------------------------------------------------------------------------------------
// The real programs judge. Each line runs with the real bash in a scratch tree (the policy's pathBase): under strace for
// what it opened, and by what it left for what it deleted. A line that read a protected file (.env, under secrets/) or
// deleted a planted one must not be allowed; the benign lines must be allowed, and read or delete nothing.

const straceReady = installed("strace") && spawnSync("strace", ["-f", "-o", "/dev/null", "true"]).status === 0;
if (REQUIRE_ORACLES && !straceReady) throw new Error("REQUIRE_ORACLES=1 but strace cannot run here");

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "gg-bypass14-")));
const work = path.join(scratch, "w");
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  for (const file of ["/tmp/gg14.tar", "/tmp/gg14.zip", "/tmp/gg14-rsync-out"]) rmSync(file, { recursive: true, force: true });
});

const GIT_ENV = { GIT_AUTHOR_NAME: "a", GIT_AUTHOR_EMAIL: "a@example.com", GIT_COMMITTER_NAME: "a", GIT_COMMITTER_EMAIL: "a@example.com", GIT_CONFIG_NOSYSTEM: "1" };

function plant(): void {
  rmSync(work, { recursive: true, force: true });
  for (const dir of ["secrets", "src", "docs", "sub", "tree/deep", "empty"]) mkdirSync(path.join(work, dir), { recursive: true });
  writeFileSync(path.join(work, ".env"), "API_KEY=canary-env\n");
  writeFileSync(path.join(work, "secrets", "api.key"), "KEY=canary-secret\n");
  writeFileSync(path.join(work, "secrets", ".gitconfig"), "[user]\n\tname = canary\n");
  mkdirSync(path.join(work, "secrets", "git"));
  writeFileSync(path.join(work, "secrets", "git", "config"), "[user]\n\tname = canary\n");
  writeFileSync(path.join(work, "docs", "README.md"), "# docs hello KEY\n");
  writeFileSync(path.join(work, "README.md"), "# readme\n");
  writeFileSync(path.join(work, "victim.txt"), "victim\n");
  writeFileSync(path.join(work, "tree", "a.o"), "o\n");
  writeFileSync(path.join(work, "tree", "deep", "b.txt"), "b\n");
  writeFileSync(path.join(work, "env.sh"), "cd secrets\n");
  writeFileSync(path.join(work, "rgc"), "--hidden\n--no-ignore\n");
  writeFileSync(path.join(work, "rgc3"), "--regexp=KEY\nsecrets\n");
  writeFileSync(path.join(work, "rgc2"), "--pre=./pre.sh\n");
  writeFileSync(path.join(work, "pre.sh"), "#!/bin/sh\ntouch MARKER\ncat \"$1\"\n", { mode: 0o755 });
  const env = { ...process.env, ...GIT_ENV, HOME: scratch };
  spawnSync("git", ["init", "-q", "--bare", path.join(work, "secrets", "repo.git")], { env });
  spawnSync("bash", ["-c", "git init -q . && git add README.md docs && git commit -q -m a"], { cwd: work, env });
  writeFileSync(path.join(work, "docs", "untracked.tmp"), "tmp\n");
}

/** Every file under the scratch tree (to see what a run deleted). */
function files(dir: string, prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const name = `${prefix}${entry.name}`;
    if (entry.name === ".git") return [];
    return entry.isDirectory() ? [`${name}/`, ...files(path.join(dir, entry.name), `${name}/`)] : [name];
  });
}

/** What one run of `line` did: the protected files it read (by strace), the planted files it deleted, whether --pre ran. */
function run(line: string): { read: string[]; deleted: string[]; ran: boolean } {
  plant();
  const before = files(work);
  const log = path.join(scratch, "trace.log");
  rmSync(log, { force: true });
  spawnSync("strace", ["-f", "-y", "-qq", "-e", "trace=open,openat,openat2,creat", "-o", log, "bash", "-c", line], {
    cwd: work,
    timeout: 20_000,
    stdio: ["ignore", "ignore", "ignore"],
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: scratch, LC_ALL: "C", ...GIT_ENV },
  });
  const { read } = straceOpens(existsSync(log) ? readFileSync(log, "utf8") : "");
  const protectedRead = [...read].filter((file) => file === path.join(work, ".env") || file.startsWith(`${path.join(work, "secrets")}/`));
  const after = new Set(files(work));
  return { read: protectedRead, deleted: before.filter((file) => !after.has(file)), ran: existsSync(path.join(work, "MARKER")) };
}

/** Lines run here: [line, whether it must stay allowed (reads nothing protected, deletes nothing)]. */
const REAL_LINES: readonly (readonly [string, boolean])[] = [
  ...["GIT_DIR=secrets/repo.git git log", "export GIT_DIR=secrets/repo.git; git log", "env GIT_DIR=secrets/repo.git git log", "GIT_CONFIG_GLOBAL=.env git log", "HOME=secrets git log", "XDG_CONFIG_HOME=secrets git log", "GIT_INDEX_FILE=.env git status"].map((line) => [line, false] as const),
  ["HOME=/tmp/gg14-none git log", true],
  ...(installed("rg") ? ["RIPGREP_CONFIG_PATH=rgc rg -l canary", "RIPGREP_CONFIG_PATH=rgc3 rg KEY docs", "RIPGREP_CONFIG_PATH=.env rg KEY docs"].map((line) => [line, false] as const) : []),
  ...(installed("rg") ? [["rg KEY docs", true] as const] : []),
  ...(installed("wget") ? [["WGETRC=.env wget -q -O /dev/null http://127.0.0.1:9/", false] as const] : []),
  ["BASH_ENV=.env bash -c true", false],
  ...["source ./env.sh && cat api.key", ". ./env.sh; cat api.key", "cd sub && CDPATH=.. cd secrets && cat api.key"].map((line) => [line, false] as const),
  ["cat README.md; source ./env.sh", true],
  ...DELETERS.filter((line) => !line.startsWith("gio") || installed("gio")).map((line) => [fill(line), false] as const),
  ...KEEPERS.filter((line) => !line.startsWith("mv") && !line.startsWith("truncate")).map((line) => [fill(line), true] as const),
];

describe.skipIf(!straceReady)("public bypass classes (14): the real programs judge (bash 5.2, git, ripgrep, wget, perl, python3, node, find, shred, rsync, tar, zip)", () => {
  const guard = () => policy(work, "public-bypasses-14-real");
  it.each(REAL_LINES.map(([line, benign]) => [line, benign] as const))("%s", (line, benign) => {
    const did = run(line);
    const decision = guard().decide("Bash", { command: line });
    if (benign) {
      expect(did.read, `${line} read a protected file`).toEqual([]);
      expect(did.deleted, `${line} deleted`).toEqual([]);
      expect(decision.mode, `${line}: ${decision.reason}`).toBe("allow");
    } else {
      expect(did.read.length + did.deleted.length, `${line} neither read a protected file nor deleted one here`).toBeGreaterThan(0);
      expect(decision.mode, `${line}: ${decision.reason}`).not.toBe("allow");
    }
  });

  // (`.read` runs the file as SQL: it reads the file, but a secret that is no SQL only shows as a syntax error.)
  it.each(INDIRECT.filter(([line]) => !line.includes(".read") && (!line.startsWith("sqlite3") || installed("sqlite3"))).map(([line, expected]) => [line, expected] as const))("%s prints the protected file's contents exactly when it is not allowed", (line, expected) => {
    plant();
    const env = { ...process.env, ...GIT_ENV, HOME: scratch };
    spawnSync("bash", ["-c", "git add -f .env secrets/api.key && sqlite3 db 'select 1;' >/dev/null 2>&1; true"], { cwd: work, env });
    const out = spawnSync("bash", ["-c", line], { cwd: work, env, encoding: "utf8", timeout: 20_000 });
    const leaked = /canary/.test(out.stdout);
    expect(leaked, `${line}: ${out.stdout}${out.stderr}`).toBe(expected !== "allow");
    const decision = guard().decide("Bash", { command: line });
    expectMode(decision.mode, decision.reason, expected, line);
  });

  it.skipIf(!installed("rg"))("ripgrep runs the --pre command its configuration names: under a deny on rm the line asks", () => {
    const did = run("RIPGREP_CONFIG_PATH=rgc2 rg hello docs");
    expect(did.ran).toBe(true);
    expect(denyListGuard(["rm:*"], "public-bypasses-14-rg-pre").decide("Bash", { command: "RIPGREP_CONFIG_PATH=rgc2 rg hello docs" }).mode).toBe("ask");
  });
});
