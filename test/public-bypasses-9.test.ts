// Readings round 9, from public reports of agents' allow and deny lists bypassed: sed scripts read as GNU sed reads
// them (Claude Code's "Sed Command Validation Bypass Allows Arbitrary File Writes" advisory: addresses `first~step`,
// `addr,+N`, `\cREc` with its I flag, bracket expressions holding the delimiter, a/i/c text to the end of the line);
// git's diff options on every command that reads revisions as git log does (Trail of Bits' `git show --output`,
// Sonar's argument injection vectors for git blame and git log: `--output` on blame, stash show, reflog, shortlog,
// rev-list, fast-export, bundle; `--ext-diff`), git's short options in a cluster (`difftool -yxCMD`, `rebase -fx CMD`,
// `grep -iOCMD`), `archive --remote=ext::CMD`, `init --template`, aliases without `!` (`git -c alias.p=push p`);
// another spelling of a denied or allowed program (`python -m pip`, `python -m pytest`: CmdNeedle's alternative
// spellings), npm's configuration in the environment with a dash (`env 'npm_config_script-shell=CMD' npm test`),
// shells of other languages (PowerShell, Nushell, xonsh -c), vim's clusters (`ex -sc CMD`), and the outputs of
// pytest, go and cargo written outside the working directory, and an allow pattern's `*` after a directory spanning a way
// out of it (`cat docs/../.env` under `cat docs/*`: CVE-2025-54794's path confusion).
//   - deny: the line runs a command a deny rule names;
//   - not-allow: an allow pattern matches the words, but the line runs, loads or writes what the allow
//     does not vouch for; the reason names it;
//   - allow: the plain companion the allow rule is written for stays allowed.
// The last describe lets the real programs judge, where they are installed here (Debian 12 packages).
import { homedir } from "node:os";
import { describe, expect, it } from "vitest";
import { bashGuard, describeBashClasses, expectBashDecision, installed, leavesMarker, type BashClass, type BashExpectation } from "./helpers/bash-rules.js";

const X = "rm -rf /tmp/x";
const DENY = ["rm:*", "nc:*", "git push:*", "pip:*"];

const CLASSES: readonly BashClass[] = [
  {
    name: "sed scripts as GNU sed reads them: addresses first~step, addr,+N, addr,~N, \\cREc and /RE/I before e and w; bracket expressions that hold the delimiter (`s/[/]/x/e`); the text of a, i and c runs to the end of the line; -e scripts are joined by newlines",
    source: "Claude Code advisory 'Sed Command Validation Bypass Allows Arbitrary File Writes' (fixed in @anthropic-ai/claude-code 2.0.31; joesaby/astro-mermaid#25); GTFOBins sed (`sed -n '1e exec sh 1>&0' /etc/hosts`); GNU sed manual 'Addresses overview' ('first~step', 'addr1,+N', 'addr1,~N', '\\%regexp%', '/regexp/I'), 'Commands Requiring a newline' (a, i, c text; r, w file names; e command) and 'The s Command' (e and w flags); POSIX regular expressions (a bracket expression's characters are literal)",
    allow: ["sed:*"],
    cases: [
      { command: "sed '0~1e' a.txt", expect: "not-allow", reason: /sed's e command runs the input line/ },
      { command: `sed '1,+0e ${X}' a.txt`, expect: "deny" },
      { command: `sed '2,~4e ${X}' a.txt`, expect: "deny" },
      { command: `sed '\\%o%e ${X}' a.txt`, expect: "deny" },
      { command: `sed '/o/Ie ${X}' a.txt`, expect: "deny" },
      { command: `sed '/O/I,~2e ${X}' a.txt`, expect: "deny" },
      { command: "sed 's/[/]//e' c.txt", expect: "not-allow", reason: /s\/\/\/e/ },
      { command: "sed 's/[]/]/x/e' a.txt", expect: "not-allow", reason: /s\/\/\/e/ },
      { command: "sed 's/[]/]/x/w /etc/x' a.txt", expect: "not-allow", reason: /sed writes a file \(s\/\/\/w\)/ },
      { command: "sed -n '1~1w /etc/x' a.txt", expect: "not-allow", reason: /sed writes a file \(the w command\)/ },
      { command: "sed '/o/I,~2w /etc/x' a.txt", expect: "not-allow", reason: /sed writes a file \(the w command\)/ },
      { command: "sed -n '$!{/a/,+1w /etc/x\n}' a.txt", expect: "not-allow", reason: /sed writes a file/ },
      { command: "sed -n '/[/]/p' a.txt", expect: "allow" },
      { command: "sed '1~3d' a.txt", expect: "allow" },
      { command: "sed -n '/a/,+2p' a.txt", expect: "allow" },
      { command: "sed -e 'a\\' -e 'e' c.txt", expect: "allow" },
      { command: "sed 'a foo;e' c.txt", expect: "allow" },
      { command: "sed -e '1i\\' -e 'w /etc/x' a.txt", expect: "allow" },
      { command: "sed 's/[]]//g' a.txt", expect: "allow" },
    ],
  },
  {
    name: "git's diff options wherever git reads revisions as git log does: --output (it opens and truncates the file) on blame, annotate, stash show, reflog, shortlog, rev-list, fast-export and bundle create; --ext-diff and --textconv on stash show and reflog; init --template (hooks and config copied into the new repository)",
    source: "Trail of Bits, 'Prompt injection to RCE in AI agents' (2025: `git show --format=... --output=payload`); SonarSource argument-injection-vectors (git-log, git-blame: `--output`); git-diff(1) '--output=<file>: Output to a specific file instead of stdout'; git-stash(1) 'show [<diff-options>]', git-reflog(1) ('git reflog show is an alias for git log -g'), git-init(1) '--template=<template-directory>'; checked with git 2.39",
    allow: ["git blame:*", "git annotate:*", "git stash:*", "git reflog:*", "git shortlog:*", "git rev-list:*", "git fast-export:*", "git bundle:*", "git init:*"],
    cases: [
      { command: "git blame --output=/etc/x a.txt", expect: "not-allow", reason: /git blame writes a file through --output/ },
      { command: "git blame --out=/etc/x a.txt", expect: "not-allow", reason: /git blame writes a file through --output/ },
      { command: "git annotate --output=/etc/x a.txt", expect: "not-allow", reason: /git annotate writes a file through --output/ },
      { command: "git stash show -p --output=/etc/x", expect: "not-allow", reason: /git stash writes a file through --output/ },
      { command: "git reflog --output=/etc/x", expect: "not-allow", reason: /git reflog writes a file through --output/ },
      { command: "git shortlog --output=/etc/x HEAD", expect: "not-allow", reason: /git shortlog writes a file through --output/ },
      { command: "git rev-list --output=/etc/x HEAD", expect: "not-allow", reason: /git rev-list writes a file through --output/ },
      { command: "git fast-export --output=/etc/x HEAD", expect: "not-allow", reason: /git fast-export writes a file through --output/ },
      { command: "git bundle create x.bundle --output=/etc/x HEAD", expect: "not-allow", reason: /git bundle writes a file through --output/ },
      { command: "git stash show -p --ext-diff", expect: "not-allow", reason: /git stash runs a command through --ext-diff/ },
      { command: "git reflog -p --textc", expect: "not-allow", reason: /git reflog runs a command through --textconv/ },
      { command: "git init --template=/tmp/evil", expect: "not-allow", reason: /git init runs a command through --template/ },
      { command: "git init --templ=/tmp/evil r", expect: "not-allow", reason: /--template/ },
      { command: "git blame -L 1,20 a.txt", expect: "allow" },
      { command: "git stash show -p", expect: "allow" },
      { command: "git stash push -m wip", expect: "allow" },
      { command: "git reflog -n 5", expect: "allow" },
      { command: "git shortlog -sn", expect: "allow" },
      { command: "git rev-list --count HEAD", expect: "allow" },
      { command: "git bundle create x.bundle --all", expect: "allow" },
      { command: "git init", expect: "allow" },
    ],
  },
  {
    name: "git options that run a command, as git's parse-options reads them: a short option closing a cluster (`difftool -yxCMD`, `rebase -fx CMD`, `grep -iOCMD`); a repository given as an option's value (`archive --remote=ext::CMD`, `push --repo=ext::CMD`); an alias without `!` is the git command line it expands to (`git -c alias.p=push p`, `git config alias.p push`)",
    source: "SonarSource argument-injection-vectors (git: ext:: transport, --upload-pack, -c); git-remote-ext(1) ('ext::<command>[ <arguments>...]'); gitcli(7) ('short options can be stuck together: git rebase -fx CMD'); git-config(1) 'alias.*' ('git -c alias.p=push p'); GTFOBins git; anthropics/claude-code#4956 and GitHub Copilot CLI deny lists on `git push`",
    allow: ["git difftool:*", "git rebase:*", "git grep:*", "git archive:*"],
    cases: [
      { command: `git difftool -yx'${X}' HEAD`, expect: "deny" },
      { command: `git difftool -yx '${X}' HEAD`, expect: "deny" },
      { command: `git rebase -fx'${X}' HEAD~1`, expect: "deny" },
      { command: `git rebase -kx '${X}' HEAD~1`, expect: "deny" },
      { command: `git grep -iO'${X}' hello`, expect: "deny" },
      { command: "git grep -nIO./evil hello", expect: "not-allow", reason: /git grep runs a command through -O/ },
      { command: `git -c protocol.ext.allow=always archive --remote='ext::${X}' HEAD`, expect: "deny" },
      { command: "git archive --remote=ext::rm HEAD", expect: "deny" },
      { command: "git archive --remote='ext::./evil' HEAD", expect: "not-allow", reason: /git archive runs the command in an ext:: URL/ },
      { command: "git -c alias.p=push p origin main", expect: "deny" },
      { command: "git -c alias.P='push --force' P origin main", expect: "deny" },
      { command: "git config alias.p push", expect: "deny" },
      { command: "git rebase -Xours main", expect: "allow" },
      { command: "git rebase -i HEAD~3", expect: "allow" },
      { command: "git grep -nI foo", expect: "allow" },
      { command: "git grep -C3 -e-x foo", expect: "allow" },
      { command: "git difftool -yd HEAD", expect: "allow" },
      { command: "git archive --format=tar HEAD", expect: "allow" },
    ],
  },
  {
    name: "another spelling of the program: `python -m MODULE ARGS` runs as `MODULE ARGS` (python3 -m pip config --editor, -m pip install --target, -m mypy --python-executable, -m pytest --basetemp), and a deny rule on the program reads it",
    source: "CmdNeedle: Measuring the Incompleteness of Command Denylists for AI Agents (arXiv 2606.15549, 2026: denied commands reached by other spellings); Python docs 'Command line and environment' ('-m module-name: Search sys.path for the named module and execute its contents as the __main__ module'); pip docs ('python -m pip'); GTFOBins pip (config --editor)",
    allow: ["python -m pytest:*", "python3 -m pip:*", "python -m mypy:*"],
    cases: [
      { command: `python3 -m pip config --editor '${X}' edit`, expect: "deny" },
      { command: "python3 -m pip install requests", expect: "deny" },
      { command: "python3 -m pip install --target=/etc/x requests", expect: "deny" },
      { command: "python -m mypy --python-executable ./evil src", expect: "not-allow", reason: /mypy runs a command through --python-executable/ },
      { command: "python -m pytest --basetemp=/etc", expect: "not-allow", reason: /pytest writes a file through --basetemp/ },
      { command: "python -m pytest --junit-xml=/etc/x", expect: "not-allow", reason: /pytest writes a file through --junit-xml/ },
      { command: "python -m pytest -x tests/", expect: "allow" },
      { command: "python -m mypy --strict src", expect: "allow" },
    ],
  },
  {
    name: "package runners' exec after their own options and workspace selectors: `pnpm -r exec CMD`, `pnpm --filter app exec CMD`, `npm -w app exec -- CMD`, `yarn workspace app exec CMD`, `yarn workspaces foreach -A exec CMD`",
    source: "anomalyco/opencode#16714 and anthropics/claude-code#92542 (wrappers and runners whose command a deny rule must see); pnpm docs ('-r, --recursive', '--filter <package_selector>', 'pnpm exec'); npm docs 'npm exec' ('-w, --workspace'); Yarn docs 'yarn workspace <name> <command>', 'yarn workspaces foreach'",
    allow: ["pnpm -r exec tsc:*", "npm test:*"],
    cases: [
      { command: `pnpm -r exec ${X}`, expect: "deny" },
      { command: `pnpm --filter app exec ${X}`, expect: "deny" },
      { command: `pnpm -F app exec ${X}`, expect: "deny" },
      { command: `npm -w app exec -- ${X}`, expect: "deny" },
      { command: `npm --workspace=app exec ${X}`, expect: "deny" },
      { command: `yarn workspace app exec ${X}`, expect: "deny" },
      { command: `yarn workspaces foreach -A exec ${X}`, expect: "deny" },
      { command: "pnpm -r exec tsc --noEmit", expect: "allow" },
    ],
  },
  {
    name: "pytest's reports and ini file: --junit-xml, --debug=FILE, --cov-report TYPE:PATH and --report-log outside the working directory, an ini file from elsewhere (-c: its addopts and plugins)",
    source: "pytest docs 'Command-line Flags' ('--junit-xml=path: create junit-xml style report file at given path', '--debug=[DEBUG_FILE_NAME]', '-c FILE, --config-file=FILE: Load configuration from FILE instead of trying to locate one of the implicit configuration files'); pytest-cov ('--cov-report=TYPE:DEST'); pytest-reportlog ('--report-log=FILE'); GTFOBins pytest-style 'File write'",
    allow: ["pytest:*"],
    cases: [
      { command: "pytest --junitxml=/etc/x", expect: "not-allow", reason: /pytest writes a file through --junitxml/ },
      { command: "pytest --junit-xml ../x tests", expect: "not-allow", reason: /--junit-xml/ },
      { command: "pytest --debug=/etc/x", expect: "not-allow", reason: /pytest writes a file through --debug/ },
      { command: "pytest --cov=src --cov-report=html:/etc/x", expect: "not-allow", reason: /pytest writes a file through --cov-report/ },
      { command: "pytest --report-log=../x.json", expect: "not-allow", reason: /--report-log/ },
      { command: "pytest -c /tmp/evil.ini", expect: "not-allow", reason: /pytest runs the code in the file given with -c/ },
      { command: "pytest --junitxml=report.xml", expect: "allow" },
      { command: "pytest --cov=src --cov-report=html:coverage", expect: "allow" },
      { command: "pytest --cov=src --cov-report=term-missing", expect: "allow" },
      { command: "pytest -c pytest.ini", expect: "allow" },
      { command: "pytest -x -q tests/unit", expect: "allow" },
    ],
  },
  {
    name: "npm's configuration in the environment, spelled with a dash or in capitals (`env 'npm_config_script-shell=CMD' npm test`, `NPM_CONFIG_NODE-OPTIONS`), as npm reads it",
    source: "npm docs 'config' ('Any environment variables that start with npm_config_ will be interpreted as a configuration parameter'; script-shell, node-options); @npmcli/config (the name after the prefix, `_` read as `-`, in any case); GTFOBins npm; Dave-London/Pare#729 (scriptShell); checked with npm 11",
    allow: ["npm test:*", "npm:*", "env:*"],
    cases: [
      { command: `env 'npm_config_script-shell=rm' npm test`, expect: "deny" },
      { command: `env 'NPM_CONFIG_SCRIPT-SHELL=rm' npm test`, expect: "deny" },
      { command: "env 'npm_config_script-shell=./evil' npm test", expect: "not-allow", reason: /npm_config_script-shell/ },
      { command: "env 'npm_config_node-options=--require ./x.js' npm test", expect: "not-allow", reason: /npm_config_node-options/ },
      { command: "env npm_config_loglevel=silent npm test", expect: "allow" },
    ],
  },
  {
    name: "shells of other languages: PowerShell, Nushell and xonsh run the program a statement names (`pwsh -c 'rm -rf x'`, `xonsh -c CMD`, `nu -c CMD`; PowerShell's -EncodedCommand read as the text it decodes to); vim reads a cluster of its letters, the last taking the next word (`ex -sc '!CMD'`, `vim -esc '!CMD'`)",
    source: "anthropics/claude-code#92542 ('Bash deny rules bypassed by any wrapper program outside the unwrap list'); GTFOBins pwsh, vim and ex (Shell: `vim -c ':!/bin/sh'`, `ex` then `!/bin/sh`); PowerShell about_Pwsh ('-Command | -c', '-EncodedCommand | -e | -ec: Accepts a Base64-encoded string version of a command'); Backslash Security on Cursor's denylist (encoded payloads); xonsh docs ('xonsh -c COMMAND'; subprocess mode); Nushell 'nu --commands'; vim's main.c (`-es` is -e and -s; `ex -sc CMD`)",
    allow: ["pwsh:*", "xonsh:*", "vim:*", "ex:*"],
    cases: [
      { command: `pwsh -c '${X}'`, expect: "deny" },
      { command: `pwsh -NoProfile -Command 'Get-ChildItem; ${X}'`, expect: "deny" },
      { command: `pwsh -COMMAND '${X}'`, expect: "deny" },
      // PowerShell's -EncodedCommand (and its prefixes -e, -ec, -enc): base64 of the UTF-16LE text `rm -rf /tmp/x`.
      { command: "pwsh -EncodedCommand cgBtACAALQByAGYAIAAvAHQAbQBwAC8AeAA=", expect: "deny" },
      { command: "powershell -enc cgBtACAALQByAGYAIAAvAHQAbQBwAC8AeAA=", expect: "deny" },
      { command: "pwsh -NoProfile -ec cgBtACAALQByAGYAIAAvAHQAbQBwAC8AeAA=", expect: "deny" },
      { command: `xonsh -c '${X}'`, expect: "deny" },
      { command: `nu -c '${X}'`, expect: "deny" },
      { command: `vim -esc '!${X}' -c q`, expect: "deny" },
      { command: `vi -Nesc '!${X}'`, expect: "deny" },
      { command: `ex -sc '!${X}'`, expect: "deny" },
      { command: "xonsh -c 'ls'", expect: "not-allow", reason: /xonsh runs the code given with -c/ },
      { command: "vim -es a.txt", expect: "allow" },
      { command: "vim -R a.txt", expect: "allow" },
    ],
  },
  {
    name: "a build's outputs outside the working directory: go's -o (`-o=FILE` too) and test profiles outside it and /tmp, go -C DIR (another module's tests), cargo --target-dir and --artifact-dir outside it, cargo install --path of a package elsewhere",
    source: "Trail of Bits, 'Prompt injection to RCE in AI agents' (2025: `go test -exec`, a read-only allow on go test); go help build ('-o file', '-C dir: Change to dir before running the command'), go help testflag ('-coverprofile cover.out', '-cpuprofile', '-trace'); The Cargo Book ('--target-dir', '--artifact-dir', 'cargo install --path')",
    allow: ["go build:*", "go test:*", "cargo:*"],
    cases: [
      { command: "go build -o ~/.local/bin/git .", expect: "not-allow", reason: /go writes a file through -o/ },
      { command: "go build -o=/etc/x .", expect: "not-allow", reason: /go writes a file through -o/ },
      { command: "go test -c -o ../x ./...", expect: "not-allow", reason: /go writes a file through -o/ },
      { command: "go test -coverprofile=/etc/x ./...", expect: "not-allow", reason: /go writes a file through -coverprofile/ },
      { command: "go test -C /tmp/evil ./...", expect: "not-allow", reason: /given with -C/ },
      { command: "cargo build --target-dir /etc/x", expect: "not-allow", reason: /cargo writes a file through --target-dir/ },
      { command: "cargo test --target-dir=../x", expect: "not-allow", reason: /--target-dir/ },
      { command: "cargo install --path /tmp/evil", expect: "not-allow", reason: /given with --path/ },
      { command: "go build -o /tmp/app ./cmd/app", expect: "allow" },
      { command: "go build -o bin/app ./cmd/app", expect: "allow" },
      { command: "go test -coverprofile=cover.out ./...", expect: "allow" },
      { command: "cargo build --target-dir target/ci", expect: "allow" },
      { command: "cargo install --path .", expect: "allow" },
    ],
  },
  {
    name: "linters' and test runners' reports outside the working directory (eslint -o/--output-file, jest and vitest --outputFile, ruff -o, flake8 --output-file, pylint --output), and pylint's code options (--init-hook runs Python, --load-plugins imports modules, an rcfile from elsewhere sets both)",
    source: "SonarSource argument-injection-vectors ('file-write' vectors of tools' report options); ESLint CLI reference ('-o, --output-file: Specify file to write report to'); Jest and Vitest CLI ('--outputFile'); Ruff and Flake8 CLI ('--output-file'); pylint docs ('--init-hook: Python code to execute, usually for sys.path manipulation', '--load-plugins', '--rcfile', '--output'); GTFOBins pylint-style 'Shell' through a code option",
    allow: ["eslint:*", "npx eslint:*", "jest:*", "npx vitest:*", "ruff:*", "flake8:*", "pylint:*"],
    cases: [
      { command: "eslint -o /etc/x .", expect: "not-allow", reason: /eslint writes a file through -o/ },
      { command: "npx eslint --output-file=../x src", expect: "not-allow", reason: /eslint writes a file through --output-file/ },
      { command: "jest --json --outputFile=/etc/x", expect: "not-allow", reason: /jest writes a file through --outputFile/ },
      { command: "npx vitest run --outputFile=/etc/x", expect: "not-allow", reason: /vitest writes a file through --outputFile/ },
      { command: "ruff check -o /etc/x", expect: "not-allow", reason: /ruff writes a file through -o/ },
      { command: "flake8 --output-file=../x", expect: "not-allow", reason: /flake8 writes a file through --output-file/ },
      { command: "pylint --output=/etc/x src", expect: "not-allow", reason: /pylint writes a file through --output/ },
      { command: `pylint --init-hook='import os; os.system("${X}")' src`, expect: "deny" },
      { command: "pylint --init-hook='import sys' src", expect: "not-allow", reason: /pylint runs code given with --init-hook/ },
      { command: "pylint --load-plugins=evil src", expect: "not-allow", reason: /--load-plugins/ },
      { command: "pylint --rcfile=/tmp/evil.rc src", expect: "not-allow", reason: /--rcfile/ },
      { command: "eslint -o report.json .", expect: "allow" },
      { command: "npx vitest run --outputFile=results.json", expect: "allow" },
      { command: "ruff check --output-file=ruff.txt .", expect: "allow" },
      { command: "pylint --rcfile=.pylintrc src", expect: "allow" },
      { command: "pylint src", expect: "allow" },
    ],
  },
  {
    name: "an allow pattern's `*` after a directory it spells out stands for names in that directory: a `..` (`cat docs/../.env` under `cat docs/*`) or, the `*` spanning more words, an absolute or home path elsewhere (`cat docs/a /etc/passwd`) is outside it",
    source: "CVE-2025-54794 (Claude Code: a path restriction checked as a prefix, so `/project` admitted `/project_malicious`; Cymulate 'InversePrompt', 2025); anthropics/claude-code#6036 ('Security Permissions Bypass in Bash File Access Restrictions'); Claude Code docs, Bash rules ('the wildcard * matches any sequence of characters'); PayloadsAllTheThings 'Directory Traversal'",
    allow: ["cat /work/project/*", "cat ./docs/*", "cat docs/*.md", "cp a.txt docs/*", "ls *", "git log *"],
    cases: [
      { command: "cat /work/project/../secret", expect: "not-allow", reason: /outside the directory the pattern "cat \/work\/project\/\*" names/ },
      { command: "cat /work/project/a/../../secret", expect: "not-allow", reason: /outside the directory/ },
      { command: "cat ./docs/../.env", expect: "not-allow", reason: /outside the directory/ },
      { command: "cat docs/../notes.md", expect: "not-allow", reason: /outside the directory/ },
      { command: "cat /work/project/a /etc/passwd", expect: "not-allow", reason: /cat names \/etc\/passwd, outside the directory/ },
      { command: "cat ./docs/a.md ~/.ssh/id_rsa", expect: "not-allow", reason: /~\/\.ssh\/id_rsa, outside the directory/ },
      { command: "cp a.txt docs/../OUT", expect: "not-allow", reason: /outside the directory/ },
      { command: "cat /work/project/a.txt", expect: "allow" },
      { command: "cat /work/project/src/a.ts /work/project/b.ts", expect: "allow" },
      { command: "cat docs/guide.md", expect: "allow" },
      { command: "cat /work/project/x..y", expect: "allow" },
      { command: "ls ..", expect: "allow" },
      { command: "git log main..dev", expect: "allow" },
    ],
  },
];

describeBashClasses("public bypass classes (9): sed scripts, git's diff options and clusters, python -m, npm's environment, other shells, build outputs", CLASSES, DENY, "public-bypasses-9");

const EV = "printf '#!/bin/sh\\ntouch %s/MARKER\\nexec cat\\n' \"$PWD\" > ev && chmod +x ev";
const REPO = "git init -q && git config user.email a@b && git config user.name a && git add a.txt && git commit -qm 1";
const STASHED = `${REPO} && echo x >> a.txt && git stash -q`;
const CMDS = "printf 'touch MARKER/\\n' > c.txt";
const TEST_PY = "echo 'def test_a(): pass' > test_a.py && mkdir d && cd d";
const PKG = "echo '{\"name\":\"x\",\"version\":\"1.0.0\",\"scripts\":{\"test\":\"echo hi\"}}' > package.json";
const RUST_ENV = { RUSTUP_HOME: process.env.RUSTUP_HOME ?? `${homedir()}/.rustup`, CARGO_HOME: process.env.CARGO_HOME ?? `${homedir()}/.cargo` };

// The programs installed here judge the readings: `run` (the line with the denied command replaced by `touch MARKER`, or the
// file aimed at OUT, in a scratch directory) leaves MARKER or OUT when `left`; the guard's decision on `line` is `expect`.
const REAL: readonly { line: string; run: string; program: string; allow: readonly string[]; expect: BashExpectation; left?: false; env?: Readonly<Record<string, string>> }[] = [
  { line: "sed '0~1e' c.txt", run: "printf 'touch MARKER\\n' > c.txt && sed '0~1e' c.txt", program: "sed", allow: ["sed:*"], expect: "not-allow" },
  { line: `sed '1,+0e ${X}' a.txt`, run: "sed '1,+0e touch MARKER' a.txt", program: "sed", allow: ["sed:*"], expect: "deny" },
  { line: `sed '2,~4e ${X}' a.txt`, run: "sed '2,~4e touch MARKER' a.txt", program: "sed", allow: ["sed:*"], expect: "deny" },
  { line: `sed '\\%o%e ${X}' a.txt`, run: "sed '\\%o%e touch MARKER' a.txt", program: "sed", allow: ["sed:*"], expect: "deny" },
  { line: `sed '/O/I,~2e ${X}' a.txt`, run: "sed '/O/I,~2e touch MARKER' a.txt", program: "sed", allow: ["sed:*"], expect: "deny" },
  { line: "sed 's/[/]//e' c.txt", run: `${CMDS} && sed 's/[/]//e' c.txt`, program: "sed", allow: ["sed:*"], expect: "not-allow" },
  { line: "sed '/o/I,~2w /etc/x' a.txt", run: "sed '/o/I,~2w OUT' a.txt", program: "sed", allow: ["sed:*"], expect: "not-allow" },
  { line: "sed -n '1~1w /etc/x' a.txt", run: "sed -n '1~1w OUT' a.txt", program: "sed", allow: ["sed:*"], expect: "not-allow" },
  { line: "sed -e 'a\\' -e 'e' c.txt", run: "printf 'touch MARKER\\n' > c.txt && sed -e 'a\\' -e 'e' c.txt", program: "sed", allow: ["sed:*"], expect: "allow", left: false },
  { line: "sed -e '1i\\' -e 'w /etc/x' a.txt", run: "sed -e '1i\\' -e 'w OUT' a.txt", program: "sed", allow: ["sed:*"], expect: "allow", left: false },
  { line: "sed 'a foo;e' c.txt", run: "printf 'touch MARKER\\n' > c.txt && sed 'a foo;e' c.txt", program: "sed", allow: ["sed:*"], expect: "allow", left: false },
  { line: "git blame --output=/etc/x a.txt", run: `${REPO} && git blame --output=OUT a.txt`, program: "git", allow: ["git blame:*"], expect: "not-allow" },
  { line: "git annotate --output=/etc/x a.txt", run: `${REPO} && git annotate --output=OUT a.txt`, program: "git", allow: ["git annotate:*"], expect: "not-allow" },
  { line: "git stash show -p --output=/etc/x", run: `${STASHED} && git stash show -p --output=OUT`, program: "git", allow: ["git stash:*"], expect: "not-allow" },
  { line: "git reflog --output=/etc/x", run: `${REPO} && git reflog --output=OUT`, program: "git", allow: ["git reflog:*"], expect: "not-allow" },
  { line: "git shortlog --output=/etc/x HEAD", run: `${REPO} && git shortlog --output=OUT HEAD`, program: "git", allow: ["git shortlog:*"], expect: "not-allow" },
  { line: "git rev-list --output=/etc/x HEAD", run: `${REPO} && git rev-list --output=OUT HEAD`, program: "git", allow: ["git rev-list:*"], expect: "not-allow" },
  { line: "git fast-export --output=/etc/x HEAD", run: `${REPO} && git fast-export --output=OUT HEAD`, program: "git", allow: ["git fast-export:*"], expect: "not-allow" },
  { line: "git bundle create x.bundle --output=/etc/x HEAD", run: `${REPO} && git bundle create x.bundle --output=OUT HEAD`, program: "git", allow: ["git bundle:*"], expect: "not-allow" },
  { line: "git stash show -p --ext-diff", run: `${STASHED} && git stash show -p --ext-diff`, program: "git", allow: ["git stash:*"], expect: "not-allow", env: { GIT_EXTERNAL_DIFF: "touch MARKER #" } },
  { line: "git stash show -p", run: `${STASHED} && git stash show -p`, program: "git", allow: ["git stash:*"], expect: "allow", left: false, env: { GIT_EXTERNAL_DIFF: "touch MARKER #" } },
  { line: "git reflog -p --ext-diff", run: `${REPO} && git reflog -p -1 --ext-diff`, program: "git", allow: ["git reflog:*"], expect: "not-allow", env: { GIT_EXTERNAL_DIFF: "touch MARKER #" } },
  { line: "git reflog -p", run: `${REPO} && git reflog -p -1`, program: "git", allow: ["git reflog:*"], expect: "allow", left: false, env: { GIT_EXTERNAL_DIFF: "touch MARKER #" } },
  {
    line: "git init --template=/tmp/evil",
    run: "mkdir -p tpl/hooks && printf '#!/bin/sh\\ntouch ../MARKER\\n' > tpl/hooks/pre-commit && chmod +x tpl/hooks/pre-commit && git init -q --template=tpl r && cd r && git -c user.email=a@b -c user.name=a commit -q --allow-empty -m 1",
    program: "git",
    allow: ["git init:*"],
    expect: "not-allow",
  },
  { line: `git difftool -yx'${X}' HEAD`, run: `${REPO} && echo x >> a.txt && git difftool -yx'touch MARKER' HEAD`, program: "git", allow: ["git difftool:*"], expect: "deny" },
  { line: `git rebase -fx'${X}' HEAD~1`, run: `${REPO} && git commit -q --allow-empty -m 2 && git rebase -fx'touch MARKER' HEAD~1`, program: "git", allow: ["git rebase:*"], expect: "deny", env: { GIT_EDITOR: "true" } },
  { line: `git grep -iO'${X}' hello`, run: `${REPO} && git grep -iO'touch MARKER' hello`, program: "git", allow: ["git grep:*"], expect: "deny" },
  { line: `git -c protocol.ext.allow=always archive --remote='ext::${X}' HEAD`, run: `${REPO} && git -c protocol.ext.allow=always archive --remote='ext::touch MARKER' HEAD`, program: "git", allow: ["git archive:*"], expect: "deny" },
  // The alias runs the git command it expands to: here `git archive -o MARKER HEAD`, as `git -c alias.p=push p` runs git push.
  { line: "git -c alias.p=push p origin main", run: `${REPO} && git -c alias.p='archive -o MARKER' p HEAD`, program: "git", allow: ["git:*"], expect: "deny" },
  { line: `python3 -m pip config --editor '${X}' edit`, run: "python3 -m pip config --editor 'touch MARKER' edit", program: "python3", allow: ["python3 -m pip:*"], expect: "deny" },
  { line: "python3 -m pytest --junit-xml=/etc/x", run: `${TEST_PY} && python3 -m pytest -q -p no:cacheprovider --junit-xml=../OUT ../test_a.py`, program: "pytest", allow: ["python3 -m pytest:*"], expect: "not-allow" },
  { line: "pytest --junit-xml=/etc/x", run: `${TEST_PY} && pytest -q -p no:cacheprovider --junit-xml=../OUT ../test_a.py`, program: "pytest", allow: ["pytest:*"], expect: "not-allow" },
  { line: "pytest --debug=/etc/x", run: `${TEST_PY} && pytest -q -p no:cacheprovider --debug=../OUT ../test_a.py`, program: "pytest", allow: ["pytest:*"], expect: "not-allow" },
  { line: "pytest --junitxml=report.xml", run: `${TEST_PY} && pytest -q -p no:cacheprovider --junitxml=report.xml ../test_a.py`, program: "pytest", allow: ["pytest:*"], expect: "allow", left: false },
  { line: "env 'npm_config_script-shell=rm' npm test", run: `${EV} && ${PKG} && env "npm_config_script-shell=$PWD/ev" npm test --silent`, program: "npm", allow: ["npm test:*", "env:*"], expect: "deny" },
  { line: "env 'NPM_CONFIG_SCRIPT-SHELL=rm' npm test", run: `${EV} && ${PKG} && env "NPM_CONFIG_SCRIPT-SHELL=$PWD/ev" npm test --silent`, program: "npm", allow: ["npm test:*", "env:*"], expect: "deny" },
  {
    line: `npm -w app exec -- ${X}`,
    run: `mkdir app && echo '{"name":"root","private":true,"workspaces":["app"]}' > package.json && echo '{"name":"app","version":"1.0.0"}' > app/package.json && npm -w app exec -- touch "$PWD/MARKER"`,
    program: "npm",
    allow: ["npm:*"],
    expect: "deny",
  },
  { line: `xonsh -c '${X}'`, run: "xonsh --no-rc -c 'touch MARKER'", program: "xonsh", allow: ["xonsh:*"], expect: "deny" },
  { line: `vim -esc '!${X}' -c q`, run: "vim -Nu NONE -esc '!touch MARKER' -c q", program: "vim", allow: ["vim:*"], expect: "deny" },
  { line: `ex -sc '!${X}'`, run: "ex -u NONE -sc '!touch MARKER' -c q", program: "ex", allow: ["ex:*"], expect: "deny" },
  { line: `pylint --init-hook='import os; os.system("${X}")' src`, run: "echo 'x = 1' > a.py && pylint --init-hook='import os; os.system(\"touch MARKER\")' a.py", program: "pylint", allow: ["pylint:*"], expect: "deny" },
  { line: "pylint --output=/etc/x src", run: "echo 'x = 1' > a.py && mkdir d && cd d && pylint --output=../OUT ../a.py", program: "pylint", allow: ["pylint:*"], expect: "not-allow" },
  { line: "flake8 --output-file=../x", run: "echo 'x = 1' > a.py && mkdir d && cd d && flake8 --output-file=../OUT ../a.py", program: "flake8", allow: ["flake8:*"], expect: "not-allow" },
  { line: "cp a.txt docs/../OUT", run: "mkdir docs && cp a.txt docs/../OUT", program: "cp", allow: ["cp a.txt docs/*"], expect: "not-allow" },
  { line: "cp a.txt docs/b.txt", run: "mkdir docs && cp a.txt docs/b.txt", program: "cp", allow: ["cp a.txt docs/*"], expect: "allow", left: false },
  { line: "cargo build --target-dir /etc/x", run: "cargo new -q --vcs none p && cd p && cargo build -q --offline --target-dir ../OUT", program: "cargo", allow: ["cargo:*"], expect: "not-allow", env: RUST_ENV },
];

describe("public bypass classes (9): the real programs do what the guard reads", () => {
  for (const r of REAL) {
    describe(r.line, () => {
      it(`the guard: ${r.expect}`, () => expectBashDecision(bashGuard(r.allow, DENY, "public-bypasses-9-real"), r.line, r.expect, undefined));
      it.skipIf(!installed(r.program))(`${r.program} ${r.left === false ? "runs and writes nothing there" : "runs the command or writes the file"}`, () => {
        const run = leavesMarker(r.run, r.env);
        expect(run.left, `${r.run}: ${run.stderr}`).toBe(r.left !== false);
      }, 60_000);
    });
  }
});
