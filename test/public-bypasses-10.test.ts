// Readings round 10, from public reports of agents' allow and deny lists bypassed: names a shell rebinds before it
// runs them (the user's zsh with its aliases and functions rewriting allowlisted command words: vercel-labs/fx#259;
// bash's aliases with expand_aliases, as agents' shell snapshots set it): an alias whose value names another alias,
// an alias ending in a blank (the next word is expanded too), zsh's global aliases (any word) and suffix aliases
// (`a.txt` runs `CMD a.txt`), zsh's `hash NAME=PATH` and its tables `aliases`, `galiases`, `saliases`, `functions`,
// `commands`; git settings that load more settings or name a command not read before (`include.path`,
// `includeIf.*.path`: avala-ai/agent-code#506 and affaan-m/ECC#2858; `imap.tunnel`; a remote's `url` with `ext::`);
// wrappers outside the unwrap list (anthropics/claude-code#92542): ifne, nq, runcon, proot, scl enable, podman and
// buildah unshare.
//   - deny: the line runs a command a deny rule names;
//   - ask: the deny rule cannot tell (what runs is in a file the guard does not read);
//   - not-allow: an allow pattern matches the words, but the line runs what the allow does not vouch for;
//   - allow: the plain companion the allow rule is written for stays allowed.
// The last describe lets the real programs judge, where they are installed here (Debian 12 packages).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bashGuard, denyListGuard, describeBashClasses, expectBashDecision, installed, leavesMarker, type BashClass, type BashExpectation } from "./helpers/bash-rules.js";

const X = "rm -rf /tmp/x";
const DENY = ["rm:*", "nc:*", "git push:*", "pip:*"];
/** zsh runs a script read from its standard input line by line, as a file: an alias defined on one line applies to the next. */
const zsh = (lines: readonly string[]) => `zsh -f <<'EOF'\n${lines.join("\n")}\nEOF`;
/** bash reads a script from its standard input line by line too; aliases are expanded with expand_aliases (agents' shell snapshots set it). */
const bashAliases = (lines: readonly string[]) => `bash <<'EOF'\nshopt -s expand_aliases\n${lines.join("\n")}\nEOF`;

const CLASSES: readonly BashClass[] = [
  {
    name: "names a shell rebinds: an alias whose value is another alias, an alias ending in a blank (the next word is an alias too), zsh's global aliases (`alias -g`, any word) and suffix aliases (`alias -s txt=CMD`: `a.txt` runs `CMD a.txt`), zsh's `hash NAME=PATH`, and zsh's tables aliases, galiases, saliases, functions and commands",
    source: "vercel-labs/fx#259 ('zsh still runs with -l -i -c, allowing .zshrc aliases/functions to rewrite auto-allowlisted command words'); anthropics/claude-code#92542; bash manual 'Aliases' ('If the last character of the alias value is a blank, then the next command word following the alias is also checked for alias expansion'; 'The first word of the replacement text is tested for aliases'); zsh manual 'Aliasing' (global and suffix aliases), 'Shell Builtin Commands' (`hash name=value`) and 'The zsh/parameter Module' (aliases, galiases, saliases, functions, commands); checked with bash 5.2 and zsh 5.9",
    allow: ["ls:*", "echo:*", "alias:*", "hash:*", "touch:*"],
    cases: [
      { command: `alias y=x x='${X}'\ny`, expect: "deny" },
      { command: `alias c=b b=a a='${X}'\nc`, expect: "deny" },
      { command: "alias s='command ' r=rm\ns r -rf /tmp/x", expect: "deny" },
      { command: "alias s='nice ' r='rm -rf'\ns r /tmp/x", expect: "deny" },
      { command: `alias -g G='; ${X}'\nls G`, expect: "deny" },
      { command: `alias -g G='| xargs ${X}'\nls G`, expect: "deny" },
      { command: "alias -s txt='rm -rf'\na.txt", expect: "deny" },
      { command: "alias -s txt=rm\n./docs/a.txt", expect: "deny" },
      { command: "hash z=/bin/rm\nz -rf /tmp/x", expect: "deny" },
      { command: `aliases[x]='${X}'\nx`, expect: "ask" },
      { command: `galiases[G]='; ${X}'\nls G`, expect: "ask" },
      { command: "saliases[txt]=rm\na.txt", expect: "ask" },
      { command: `functions[y]='${X}'\ny`, expect: "ask" },
      { command: "commands[z]=/bin/rm\nz -rf /tmp/x", expect: "ask" },
      { command: "alias -g G=a.txt\nls G", expect: "not-allow", reason: /rebinds a command name/ },
      { command: "alias l='ls -la'\nl", expect: "not-allow", reason: /rebinds a command name/ },
      { command: "alias", expect: "allow" },
      { command: "ls -la", expect: "allow" },
      { command: "echo G", expect: "allow" },
      { command: "touch a.txt", expect: "allow" },
    ],
  },
  {
    name: "git settings that load more settings from a file (`include.path`, `includeIf.COND.path`, in -c, --config-env and git config: a deny cannot tell what the file sets) or name a command or a program not read before (`imap.tunnel`, a remote's `url`/`pushurl` with `ext::CMD`, `browser.NAME.path`)",
    source: "avala-ai/agent-code#506 (`GIT_CONFIG_PARAMETERS=\"'include.path'='/tmp/g'\" git p`: the included alias runs a force push); affaan-m/ECC#2858 (`git -c include.path=… commit` redirects core.hooksPath); git-config(1) 'Includes', 'imap.tunnel' ('Command used to set up a tunnel to the IMAP server through which commands will be piped instead of using a direct network connection'), 'remote.<name>.url'; git-remote-ext(1); checked with git 2.39",
    allow: ["git status:*", "git commit:*", "git imap-send:*", "git fetch:*", "git config:*", "git help:*"],
    cases: [
      { command: "git -c include.path=/tmp/g status", expect: "ask" },
      { command: "git -c INCLUDE.PATH=/tmp/g commit -m x", expect: "ask" },
      { command: "git -c includeIf.onbranch:main.path=/tmp/g status", expect: "ask" },
      { command: "git --config-env=include.path=EVIL status", expect: "ask" },
      { command: "git config --global include.path /tmp/g", expect: "ask" },
      { command: "git config includeIf.gitdir:~/.path /tmp/g", expect: "ask" },
      { command: `git -c imap.tunnel='${X}' imap-send`, expect: "deny" },
      { command: `git config imap.tunnel '${X}'`, expect: "deny" },
      { command: "git -c imap.tunnel='./evil' imap-send", expect: "not-allow" },
      { command: "git -c protocol.ext.allow=always -c remote.o.url='ext::rm -rf /tmp/x' fetch o", expect: "deny" },
      { command: "git config remote.origin.pushurl 'ext::rm -rf /tmp/x'", expect: "deny" },
      { command: "git -c web.browser=b -c browser.b.path=rm help -w log", expect: "deny" },
      { command: "git status", expect: "allow" },
      { command: "git commit -m x", expect: "allow" },
      { command: "git config user.name me", expect: "allow" },
      { command: "git fetch origin", expect: "allow" },
    ],
  },
  {
    name: "wrappers outside the unwrap list that run the command after their options: ifne (moreutils), nq, runcon (SELinux context, with or without -t), proot (and its -q emulator command), scl enable, podman unshare, buildah unshare",
    source: "anthropics/claude-code#92542 ('Bash deny rules bypassed by any wrapper program outside ax()'s 8-item unwrap list'); CmdNeedle (arXiv 2606.15549: denied commands reached through wrappers); ifne(1) ('Run command if the standard input is not empty'); nq(1); runcon(1) ('runcon CONTEXT COMMAND [args]', 'runcon [ -c ] [-u USER] [-r ROLE] [-t TYPE] [-l RANGE] COMMAND [args]'); proot(1) ('-q command'); scl(1) ('scl enable <collection> <command>'); podman-unshare(1); buildah-unshare(1)",
    allow: ["ifne:*", "nq:*", "runcon:*", "proot:*", "scl enable:*", "podman unshare:*", "sort:*", "make:*"],
    cases: [
      { command: `ifne ${X}`, expect: "deny" },
      { command: `ifne -n ${X}`, expect: "deny" },
      { command: `nq ${X}`, expect: "deny" },
      { command: `nq -c -q ${X}`, expect: "deny" },
      { command: `runcon -t unconfined_t ${X}`, expect: "deny" },
      { command: `runcon -u u -r r ${X}`, expect: "deny" },
      { command: `runcon system_u:system_r:unconfined_t:s0 ${X}`, expect: "deny" },
      { command: `proot -0 ${X}`, expect: "deny" },
      { command: `proot -r /srv/root -b /dev -w / ${X}`, expect: "deny" },
      { command: `proot -q '${X}' ls`, expect: "deny" },
      { command: `scl enable devtoolset-12 '${X}'`, expect: "deny" },
      { command: `podman unshare ${X}`, expect: "deny" },
      { command: `buildah unshare ${X}`, expect: "deny" },
      { command: "ifne ./evil", expect: "not-allow" },
      { command: "podman unshare ./evil", expect: "not-allow" },
      { command: "ifne sort a.txt", expect: "allow" },
      { command: "nq make", expect: "allow" },
      { command: "nq -w", expect: "allow" },
      { command: "runcon -t t sort a.txt", expect: "allow" },
    ],
  },

  {
    name: "a directory change earlier in the line moves the relative words after it: under an allow pattern whose `*` follows a directory it spells out (`cat ./*`, `cat docs/*`), `cd /etc && cat ./shadow` names /etc/shadow, and `cd -`, `popd`, `cd $DIR` a place the guard cannot tell; a deny pattern that spells a path is also tried with the words placed where the line moved (`cd secrets && cat key` is `cat secrets/key`)",
    source: "dirge-code/dirge#280 ('cd /etc && echo pwned > passwd wrote outside the project with no prompt'); EverMind-AI/Raven#527 ('Without it the rest is bypassed by cd /etc; cat shadow'; pushd); anthropics/claude-code#91683 and #91853 (Claude Code 2.1.259 reads `cd DIR && …` against Read() deny rules); bash manual 'cd', 'pushd', 'popd', CDPATH",
    allow: ["cd:*", "pushd:*", "popd:*", "cat ./*", "cat docs/*", "ls ./*", "git log:*"],
    cases: [
      { command: "cd /etc && cat ./shadow", expect: "not-allow", reason: /changes the working directory \(to \/etc\)/ },
      { command: "cd /etc; cat ./shadow", expect: "not-allow", reason: /changes the working directory/ },
      { command: "cd ~/.ssh && cat ./id_rsa", expect: "not-allow", reason: /changes the working directory \(to ~\/.ssh\)/ },
      { command: "cd && cat ./.bash_history", expect: "not-allow", reason: /changes the working directory \(to ~\)/ },
      { command: "cd .. && cat ./other/secret", expect: "not-allow", reason: /changes the working directory/ },
      { command: "pushd /etc && cat ./shadow", expect: "not-allow", reason: /changes the working directory/ },
      { command: "cd - && cat ./x", expect: "not-allow", reason: /one the guard cannot place/ },
      { command: "popd && cat ./x", expect: "not-allow", reason: /one the guard cannot place/ },
      { command: "cd $HOME && cat ./x", expect: "not-allow" },
      { command: "(cd /etc && cat ./shadow)", expect: "not-allow", reason: /changes the working directory/ },
      { command: "builtin cd -P /etc && cat docs/x", expect: "not-allow", reason: /changes the working directory/ },
      { command: "cd / && ls ./", expect: "not-allow", reason: /changes the working directory/ },
      { command: "cd src && cat ./a.ts", expect: "allow" },
      { command: "cd docs && cat ./guide.md", expect: "allow" },
      { command: "cat ./a.txt && cd /tmp", expect: "allow" },
      { command: "cd /tmp/repo && git log", expect: "allow" },
      { command: "cat ./a.txt", expect: "allow" },
    ],
  },

  {
    name: "file and documentation tools on read-only lists that run code or write a file: Perl's rename runs its first operand (or each -e/-E value) as Perl code for every name (only a plain s///, y///, tr///, lc or uc without code in it is a rename alone); GNU info -o/--output (any unique prefix, in a cluster) writes the selected nodes; zsh's --emulate MODE takes the next word before -c",
    source: "rename(1) of Debian's rename package ('The first argument is a Perl expression which is expected to modify the $_ string'; -e, -E); perlop ('s/PATTERN/REPLACEMENT/e' evaluates the replacement; `@{[ … ]}` interpolates code); SonarSource argument-injection-vectors and GTFOBins ('File write' through an output option); info(1) ('-o, --output=FILE output selected nodes to FILE'); zsh(1) ('--emulate mode'); CmdNeedle (arXiv 2606.15549)",
    allow: ["rename:*", "info:*", "zsh:*"],
    cases: [
      { command: `rename 'system("${X}")' a.txt`, expect: "deny" },
      { command: `rename -n -e 'qx(${X})' a.txt`, expect: "deny" },
      { command: "rename 's/a/`rm -rf \\/tmp\\/x`/e' a.txt", expect: "deny" },
      { command: `prename '$_ = qx{${X}}' a.txt`, expect: "deny" },
      { command: "rename 'unlink' a.txt", expect: "not-allow", reason: /rename runs the Perl code it is given/ },
      { command: "rename --expr='unlink' a.txt", expect: "not-allow", reason: /rename runs the Perl code/ },
      { command: "rename 's/a/b/e' a.txt", expect: "not-allow", reason: /rename runs the Perl code/ },
      { command: "rename 's/a/@{[ `id` ]}/' a.txt", expect: "not-allow" },
      { command: "info -o /etc/x ls", expect: "not-allow", reason: /info writes a file through -o/ },
      { command: "info --out=/etc/x ls", expect: "not-allow", reason: /info writes a file through --output/ },
      { command: "info -ao /etc/x ls", expect: "not-allow", reason: /info writes a file through -o/ },
      { command: `zsh --emulate sh -c '${X}'`, expect: "deny" },
      { command: "rename 's/\\.htm$/.html/' *.htm", expect: "allow" },
      { command: "rename -n 's/ /_/g' *", expect: "allow" },
      { command: "rename 'y/A-Z/a-z/' *", expect: "allow" },
      { command: "rename .htm .html *.htm", expect: "allow" },
      { command: "info ls", expect: "allow" },
      { command: "info --subnodes -f ./doc.info", expect: "allow" },
    ],
  },
];

describeBashClasses("public bypass classes (10): rebound names, git's included settings, more wrappers", CLASSES, DENY, "public-bypasses-10");

// Under a deny list (the Bash tool low risk: what no rule decides runs), a line whose effect is in a table or a file the guard
// does not read is not run without a human: the deny rule cannot tell.
const CANNOT_TELL = [
  `aliases[x]='${X}'\nx`,
  `galiases[G]='; ${X}'\nls G`,
  "saliases[txt]=rm\na.txt",
  `functions[y]='${X}'\ny`,
  "commands[z]=/bin/rm\nz -rf /tmp/x",
  "git -c include.path=/tmp/g status",
  "git -c INCLUDE.PATH=/tmp/g p origin main",
  "git -c includeIf.onbranch:main.path=/tmp/g status",
  "git --config-env=include.path=EVIL status",
  "git --config-env include.path=EVIL status",
  "git config --global include.path /tmp/g",
  "git config set includeIf.gitdir:~/.path /tmp/g",
];

describe("public bypass classes (10): a deny pattern that spells a path reads the words where the line moved", () => {
  const guard = denyListGuard(["cat secrets/*", "cat /etc/shadow", "rm:*"], "public-bypasses-10-cd-deny");
  it.each(["cd secrets && cat key", "cd /etc && cat shadow", "cd /etc; cat shadow", "pushd secrets && cat api.key", "cd ./secrets && cat key"])("%s is denied", (command) => {
    const decision = guard.decide("Bash", { command });
    expect(decision.mode, decision.reason).toBe("deny");
  });
  it.each(["cd docs && cat key", "cat key", "cd /tmp && cat shadow"])("%s stays allowed", (command) => expect(guard.decide("Bash", { command }).mode).toBe("allow"));
});

// The real bash judges where a relative word lands after the line's directory change: whenever the guard allows
// `cd TARGET && cat WORD` under `cat ./*` (and `cd:*`), the file bash opens is inside the directory the line started in.
describe("public bypass classes (10): bash places the words after cd where the guard reads them", () => {
  const TARGETS = ["sub", "sub/deeper", "..", "/tmp", "~", "-", "sub/..", "../base/sub", "./sub", "/", "$HOME"];
  const WORDS = ["./x", "x", "sub/x", "../x", "./sub/../x"];
  const guard = bashGuard(["cd:*", "cat ./*"], DENY, "public-bypasses-10-cd-oracle");
  it.skipIf(!installed("bash"))("every allowed line opens a file inside the starting directory, and `cd sub && cat ./x` is allowed", () => {
    const dir = mkdtempSync(path.join(realpathSync(tmpdir()), "cd-oracle-"));
    try {
      const base = path.join(dir, "base");
      mkdirSync(path.join(base, "sub", "deeper"), { recursive: true });
      let allowed = 0;
      for (const target of TARGETS) {
        for (const word of WORDS) {
          const line = `cd ${target} && cat ${word}`;
          const decision = guard.decide("Bash", { command: line });
          // OLDPWD is the home directory here, so `cd -` goes there, as `cd` alone does.
          const run = spawnSync("bash", ["-c", `cd ${target} >/dev/null && realpath -m -- ${word}`], { cwd: base, env: { ...process.env, HOME: dir, OLDPWD: dir }, encoding: "utf8" });
          const landed = run.stdout.trim();
          const inside = run.status === 0 && landed.startsWith(`${base}/`);
          if (decision.mode === "allow") {
            allowed += 1;
            expect(inside, `${line} lands at ${landed}`).toBe(true);
          }
        }
      }
      expect(guard.decide("Bash", { command: "cd sub && cat ./x" }).mode).toBe("allow");
      expect(allowed).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("public bypass classes (10): under a deny list, what the guard cannot read asks", () => {
  const guard = denyListGuard(DENY, "public-bypasses-10-deny-list");
  it.each(CANNOT_TELL)("%s", (command) => {
    const decision = guard.decide("Bash", { command });
    expect(decision.mode, decision.reason).toBe("ask");
    expect(decision.reason).toMatch(/cannot tell/);
  });
  it.each(["git status", "git -c user.name=me commit -m x", "git config user.name me", "ls -la", "echo G"])("%s stays allowed", (command) => expect(guard.decide("Bash", { command }).mode).toBe("allow"));
});

describe("generated: a deny rule holds through any chain of aliases, through an alias ending in a blank, and through a global or suffix alias", () => {
  const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,6}$/).filter((n) => !["rm", "ls", "echo", "alias", "hash", "do", "if", "fi", "in", "for", "then", "done", "case", "esac", "while", "until", "elif", "else", "select", "function", "time", "coproc"].includes(n));
  const guard = denyListGuard(DENY, "public-bypasses-10-generated");
  it("alias chains end at the denied command", () => {
    fc.assert(
      fc.property(fc.uniqueArray(name, { minLength: 1, maxLength: 5 }), fc.constantFrom("", "-- "), (names, dashdash) => {
        // alias n0=n1 n1=n2 … n(k-1)='rm -rf /tmp/x'; then n0.
        const bindings = names.map((n, i) => (i + 1 < names.length ? `${n}=${names[i + 1]!}` : `${n}='${X}'`));
        const line = `alias ${dashdash}${bindings.reverse().join(" ")}\n${names[0]!}`;
        expect(guard.decide("Bash", { command: line }).mode, line).toBe("deny");
      }),
      { numRuns: 150 },
    );
  });
  it("a blank-ended alias expands the next word; global and suffix aliases expand where zsh does", () => {
    fc.assert(
      fc.property(name, name, fc.constantFrom("command ", "nice ", "nohup ", "env "), fc.constantFrom("-g", "-s"), fc.constantFrom("txt", "md", "sh"), (a, b, wrapper, kind, suffix) => {
        fc.pre(a !== b);
        const lines =
          kind === "-g"
            ? [`alias -g ${b.toUpperCase()}='; ${X}'\nls ${b.toUpperCase()}`, `alias ${a}='${wrapper}' ${b}=rm\n${a} ${b} -rf /tmp/x`]
            : [`alias -s ${suffix}='rm -rf'\n${a}.${suffix}`, `alias ${a}='${wrapper}' ${b}='rm -rf'\n${a} ${b} /tmp/x`];
        for (const line of lines) expect(guard.decide("Bash", { command: line }).mode, line).toBe("deny");
      }),
      { numRuns: 150 },
    );
  });
});

describe("public bypass classes (10): aliases that expand into themselves are read in bounded time and ask", () => {
  const guard = denyListGuard(DENY, "public-bypasses-10-alias-loops");
  it.each([
    "alias -g A='A A A'\nls A A A",
    `alias -g A='A A'\nls ${"A ".repeat(200)}`,
    "alias a='a a'\na x",
    `alias x='alias y=rm; y -rf /tmp/x'\nx`,
    "alias -g A='; alias -g A=\"A A\"; ls A'\nls A",
  ])("%s", (command) => {
    const started = Date.now();
    const decision = guard.decide("Bash", { command });
    expect(decision.mode, decision.reason).toBe("ask");
    // Bounded, not fast: the 200-word line takes 1–2 s on a quiet machine and 5–6 s on a slow one under load (a loop would never end).
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 60_000);
  it("a name bound to another in a loop runs nothing more: `alias a=b b=a` (bash stops at a name being expanded)", () => expect(guard.decide("Bash", { command: "alias a=b b=a\na" }).mode).toBe("allow"));
});

const REPO = "git init -q && git config user.email a@b && git config user.name a && git add a.txt && git commit -qm 1";
const MBOX = "printf 'From 0 Mon Sep 17 00:00:00 2001\\nFrom: a <a@b>\\nDate: Mon, 1 Jan 2024 00:00:00 +0000\\nSubject: y\\n\\nbody\\n' > m";

// The programs installed here judge the readings: `run` (the line with the denied command replaced by `touch MARKER`, in a
// scratch directory) leaves MARKER when `left`; the guard's decision on `line` is `expect`.
const REAL: readonly { line: string; run: string; program: string; allow: readonly string[]; expect: BashExpectation; left?: false }[] = [
  { line: `alias y=x x='${X}'\ny`, run: bashAliases(["alias y=x x='touch MARKER'", "y"]), program: "bash", allow: ["alias:*"], expect: "deny" },
  { line: "alias s='command ' r=rm\ns r -rf /tmp/x", run: bashAliases(["alias s='command ' r=touch", "s r MARKER"]), program: "bash", allow: ["alias:*"], expect: "deny" },
  { line: "alias s='command' r=rm\ns r -rf /tmp/x", run: bashAliases(["alias s='command' r=touch", "s r MARKER"]), program: "bash", allow: ["alias:*"], expect: "not-allow", left: false },
  { line: `alias y=x x='${X}'\ny`, run: zsh(["alias y=x x='touch MARKER'", "y"]), program: "zsh", allow: ["alias:*"], expect: "deny" },
  { line: `alias -g G='; ${X}'\nls G`, run: zsh(["alias -g G='; touch MARKER'", "ls G"]), program: "zsh", allow: ["alias:*", "ls:*"], expect: "deny" },
  { line: "alias -s txt='rm -rf'\na.txt", run: zsh(["alias -s txt='touch MARKER'", "a.txt"]), program: "zsh", allow: ["alias:*"], expect: "deny" },
  { line: "hash z=/bin/rm\nz -rf /tmp/x", run: zsh(["hash z=/usr/bin/touch", "z MARKER"]), program: "zsh", allow: ["hash:*"], expect: "deny" },
  { line: `aliases[x]='${X}'\nx`, run: zsh(["aliases[x]='touch MARKER'", "x"]), program: "zsh", allow: [], expect: "ask" },
  { line: `galiases[G]='; ${X}'\nls G`, run: zsh(["galiases[G]='; touch MARKER'", "ls G"]), program: "zsh", allow: ["ls:*"], expect: "ask" },
  { line: "saliases[txt]=rm\na.txt", run: zsh(["saliases[txt]='touch MARKER'", "a.txt"]), program: "zsh", allow: [], expect: "ask" },
  { line: `functions[y]='${X}'\ny`, run: zsh(["functions[y]='touch MARKER'", "y"]), program: "zsh", allow: [], expect: "ask" },
  { line: "commands[z]=/bin/rm\nz -rf /tmp/x", run: zsh(["commands[z]=/usr/bin/touch", "z MARKER"]), program: "zsh", allow: [], expect: "ask" },
  // The included file defines an alias that runs a shell command (it could as well set core.hooksPath or core.pager).
  { line: "git -c include.path=/tmp/g status", run: `${REPO} && printf '[alias]\\n\\tstatus2 = !touch MARKER\\n' > g.cfg && git -c include.path="$PWD/g.cfg" status2`, program: "git", allow: ["git status:*"], expect: "ask" },
  { line: `git -c imap.tunnel='${X}' imap-send`, run: `${MBOX} && git -c imap.folder=x -c imap.tunnel='touch MARKER' imap-send < m`, program: "git", allow: ["git imap-send:*"], expect: "deny" },
  {
    line: "git -c protocol.ext.allow=always -c remote.o.url='ext::rm -rf /tmp/x' fetch o",
    run: `${REPO} && git -c protocol.ext.allow=always -c remote.o.url='ext::touch MARKER' -c remote.o.fetch='+refs/heads/*:refs/remotes/o/*' fetch o`,
    program: "git",
    allow: ["git fetch:*"],
    expect: "deny",
  },
  { line: `ifne ${X}`, run: "echo x | ifne touch MARKER", program: "ifne", allow: ["ifne:*"], expect: "deny" },
  { line: `nq ${X}`, run: "NQDIR=$PWD/q nq touch MARKER >/dev/null && sleep 1", program: "nq", allow: ["nq:*"], expect: "deny" },
  { line: `proot -0 ${X}`, run: "proot -0 touch MARKER", program: "proot", allow: ["proot:*"], expect: "deny" },
  { line: `rename 'system("${X}")' a.txt`, run: "rename 'system(\"touch MARKER\")' a.txt", program: "rename", allow: ["rename:*"], expect: "deny" },
  { line: "rename 's/a/`rm -rf \\/tmp\\/x`/e' a.txt", run: "rename 's/a/`touch MARKER`/e' a.txt", program: "rename", allow: ["rename:*"], expect: "deny" },
  { line: "rename 'unlink' a.txt", run: "cp a.txt MARKER && rename 'unlink' MARKER && test ! -e MARKER && touch OUT", program: "rename", allow: ["rename:*"], expect: "not-allow" },
  { line: "rename 's/a/b/' a.txt", run: "rename 's/a/b/' a.txt && test -e b.txt && ! test -e MARKER", program: "rename", allow: ["rename:*"], expect: "allow", left: false },
  { line: "info -o /etc/x ls", run: "info -o OUT ls", program: "info", allow: ["info:*"], expect: "not-allow" },
  { line: "info --out=/etc/x ls", run: "info --out=OUT ls", program: "info", allow: ["info:*"], expect: "not-allow" },
  { line: `zsh --emulate sh -c '${X}'`, run: "zsh --emulate sh -c 'touch MARKER'", program: "zsh", allow: ["zsh:*"], expect: "deny" },
];

describe("public bypass classes (10): the real programs do what the guard reads", () => {
  for (const r of REAL) {
    describe(`${r.program}: ${r.line}`, () => {
      it(`the guard: ${r.expect}`, () => expectBashDecision(bashGuard(r.allow, DENY, "public-bypasses-10-real"), r.line, r.expect, undefined));
      it.skipIf(!installed(r.program))(`${r.program} ${r.left === false ? "runs nothing there" : "runs the command"}`, () => {
        const run = leavesMarker(r.run);
        expect(run.left, `${r.run}: ${run.stderr}`).toBe(r.left !== false);
      }, 60_000);
    });
  }
});
