// Readings round 12, from public reports of agents' allow and deny lists bypassed: deny rules that name an option
// (`rm -rf:*`, `git push --force:*`, `git commit --no-verify:*`) against the same options spelled otherwise — reordered,
// clustered or split, long or short, abbreviated, after the operands, or as an operand that means the option (git push's
// `+REF`, `--mirror`) (anthropics/claude-code#18613, pfBlockerNG/pfBlockerNG#1292, Kilo-Org/kilocode#11848), and the branch a
// forced push names spelled as a refspec (Fmarzochi/EGC#1403, DobermanCore/Doberman-Core#103, gradle/gradle#39066); git's push
// run by its other names (`git send-pack`, `git http-push`, the dashed `git-push` programs in git's exec path:
// PrimeIntellect-ai/prime-agent#2395); git settings a shell runs without `!` (a credential helper's name or path,
// `url.ext::CMD.insteadOf`: SigmaHQ/sigma#6218, trpc-group/trpc-agent-go#2329, gke-labs/kube-agents#952); bash's `fc -e EDITOR`, whose value is a command line (bigduu/Bamboo-agent#558);
// javac's annotation processors and JVM options (kirodotdev/KiroCrew#5037).
//   - deny: the line runs a command a deny rule names;
//   - ask: the deny rule cannot tell (what runs is only known when the line runs);
//   - not-allow: an allow pattern matches the words, but the line runs what the allow does not vouch for;
//   - allow: the plain companion the rule is written for stays allowed.
// The last describes let the real programs judge (git, rm, bash, javac: Debian 12 packages).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bashGuard, denyListGuard, describeBashClasses, expectBashDecision, installed, leavesMarker, type BashClass, type BashExpectation } from "./helpers/bash-rules.js";

const X = "rm -rf /tmp/x";
const DENY = ["rm:*", "nc:*", "git push:*"];
/** Deny rules that name options, as users write them to keep the dangerous forms out while the rest runs. */
const OPTION_DENY = ["rm -rf:*", "git push --force:*", "git push -f:*", "git commit --no-verify:*", "git clean -fd:*", "git reset --hard:*", "git branch -D:*", "docker rm -f:*", "podman rm -f:*"];

const OPTION_CLASSES: readonly BashClass[] = [
  {
    name: "a deny rule that names options holds however the program reads the same options: reordered (`rm -fr`), split (`rm -r -f`), clustered (`git push -uf`, `git commit -anm`), with more options (`rm -rfv`), long or short (`rm --recursive --force`, `git commit -n`, `git branch --delete --force` for -D), abbreviated to a unique prefix (`rm --rec --for`, `git reset --har`, `git commit --no-verif`), after the operands (`git push origin main --force`, `git reset HEAD --hard`), or an operand that means the option (git push's `+REF` and `--mirror` force the update); an option the program reads as only sometimes forcing (`--force-with-lease`) and a program whose options the guard has no table for (`podman rm abc -f`) make the deny cannot tell (docker's options it reads: `docker rm abc -f` is denied)",
    source: "anthropics/claude-code#18613 ('Deny rules can be bypassed by flag reordering/insertion': `rm -fr /`, `rm -rfi /`, `rm -rfv /`, `rm --recursive --force /` against `Bash(rm -rf /:*)`); pfBlockerNG/pfBlockerNG#1292 ('misses the short commit bypass flag' -n and the cluster -anm; 'misses +refspec force pushes'); Kilo-Org/kilocode#11848 (deny patterns on flags `--force`, `-f` do not bind); kubestellar/console#9136 review ('easy to bypass (e.g., git push -f ..., --force-with-lease'); rm(1) and git's parse-options (options in any order, after operands, unique prefixes of long options); checked with coreutils 9.1 and git 2.39",
    allow: ["rm:*", "sudo:*", "git push:*", "git commit:*", "git clean:*", "git branch:*", "git reset:*", "docker rm:*", "podman rm:*"],
    cases: [
      { command: "rm -fr /", expect: "deny" },
      { command: "rm -rfv /", expect: "deny" },
      { command: "rm -rfi /", expect: "deny" },
      { command: "rm --recursive --force /", expect: "deny" },
      { command: "rm -r -f /", expect: "deny" },
      { command: "rm / -rf", expect: "deny" },
      { command: "rm -R --force d", expect: "deny" },
      { command: "rm --rec --for d", expect: "deny" },
      { command: "sudo rm -fr /", expect: "deny" },
      { command: "git push origin main --force", expect: "deny" },
      { command: "git push -uf origin main", expect: "deny" },
      { command: "git push origin +main", expect: "deny" },
      { command: "git push origin +HEAD:main", expect: "deny" },
      { command: "git push --mirror origin", expect: "deny" },
      { command: "git push --mir origin", expect: "deny" },
      { command: "git -C . push origin main -f", expect: "deny" },
      { command: "git push --force-with-lease origin main", expect: "ask" },
      { command: "git commit -n -m x", expect: "deny" },
      { command: "git commit -anm x", expect: "deny" },
      { command: "git commit -m x --no-verify", expect: "deny" },
      { command: "git commit --no-verif -m x", expect: "deny" },
      { command: "git clean -df", expect: "deny" },
      { command: "git clean -d -f", expect: "deny" },
      { command: "git clean --force -d", expect: "deny" },
      { command: "git branch --delete --force b", expect: "deny" },
      { command: "git branch -df b", expect: "deny" },
      { command: "git branch -d -f b", expect: "deny" },
      { command: "git reset --har", expect: "deny" },
      { command: "git reset HEAD --hard", expect: "deny" },
      { command: "docker rm abc -f", expect: "deny" },
      { command: "docker rm --force abc", expect: "deny" },
      { command: "podman rm abc -f", expect: "ask" },
      { command: "podman rm --force abc", expect: "ask" },
      // The benign neighbours: a branch name holding -f (akaszubski/autonomous-dev#1405), a message holding -n, one option of two.
      { command: "git push origin batch/1442-obs-fixes", expect: "allow" },
      { command: "git push -u origin feature-fix", expect: "allow" },
      { command: "git push origin main", expect: "allow" },
      { command: "git commit -mn", expect: "allow" },
      { command: "git commit -m 'x -n'", expect: "allow" },
      { command: "git clean -n -d", expect: "allow" },
      { command: "git branch --delete b", expect: "allow" },
      { command: "git reset --soft HEAD~1", expect: "allow" },
      { command: "rm -r d", expect: "allow" },
      { command: "rm -f a.txt", expect: "allow" },
      { command: "rm -- -rf", expect: "allow" },
      { command: "docker rm abc", expect: "allow" },
    ],
  },
];

/** Deny rules that name a branch as well as the force. */
const BRANCH_DENY = ["git push --force origin main:*", "git push -f origin main:*"];

const BRANCH_CLASSES: readonly BashClass[] = [
  {
    name: "a deny rule that names a forced push to a branch holds however git push names that branch: a refspec `+SRC:DST`, `HEAD:main`, `refs/heads/main`; `HEAD`, or a remote and branch left out (which git takes from the checkout and the configuration), make it cannot tell",
    source: "Fmarzochi/EGC#1403 ('block git refspec force pushes'); DobermanCore/Doberman-Core#103 ('git push --force origin refs/heads/main (and src:refs/heads/main) no longer bypasses the protected-branch force-push block'); gradle/gradle#39066 ('a bare git push with master checked out matches none of these'); git-push(1) '<refspec>… +<src>:<dst>'; checked with git 2.39",
    allow: ["git push:*"],
    cases: [
      { command: "git push origin main --force", expect: "deny" },
      { command: "git push -f origin refs/heads/main", expect: "deny" },
      { command: "git push -f origin HEAD:main", expect: "deny" },
      { command: "git push -f origin HEAD:refs/heads/main", expect: "deny" },
      { command: "git push origin +feature:main", expect: "deny" },
      { command: "git push -f origin HEAD", expect: "ask" },
      { command: "git push --force", expect: "ask" },
      { command: "git push -f origin feature", expect: "allow" },
      { command: "git push origin main", expect: "allow" },
      { command: "git push origin +feature", expect: "allow" },
    ],
  },
];

const CLASSES: readonly BashClass[] = [
  {
    name: "git's push run by its other names: `git send-pack` and `git http-push` (the plumbing push runs) are read as `git push`, and the dashed programs in git's exec path (`/usr/lib/git-core/git-push`, `git-send-pack`) as the git subcommand they are",
    source: "PrimeIntellect-ai/prime-agent#2395 ('Plumbing commands skip the guard: send-pack and http-push sit in _FP_GIT_COMMANDS, so they are trusted as real git builtins, but only the push subcommand is parsed'); git-send-pack(1) ('Push objects over Git protocol to another repository'); git-http-push(1); git(1) '--exec-path' (git's programs, git-push among them); checked with git 2.39",
    allow: ["git status:*", "git fetch:*", "git stash:*", "ls:*"],
    cases: [
      { command: "git send-pack ../r.git main", expect: "deny" },
      { command: "git send-pack --force origin main", expect: "deny" },
      { command: "git http-push https://example.com/r.git/ main", expect: "deny" },
      { command: "/usr/lib/git-core/git-push origin main", expect: "deny" },
      { command: "git-push origin main", expect: "deny" },
      { command: "/usr/lib/git-core/git-send-pack ../r.git main", expect: "deny" },
      { command: "cd /usr/lib/git-core && ./git-push origin main", expect: "deny" },
      { command: "/usr/lib/git-core/git-status", expect: "not-allow" },
      { command: "git stash push", expect: "allow" },
      { command: "git fetch origin", expect: "allow" },
    ],
  },
  {
    name: "git settings whose value git hands to a shell though it has no `!`: a credential helper NAME runs `git credential-NAME` through a shell (`x; CMD` runs CMD) and an absolute path runs as the command line it is; `url.NEW.insteadOf=OLD` rewrites every URL starting with OLD to start with NEW, so an `ext::CMD` NEW runs CMD",
    source: "SigmaHQ/sigma#6218 ('Git executes the values of … and treats a credential.helper or alias.<name> value beginning with ! as a shell snippet'); trpc-group/trpc-agent-go#2329 (git `-c url.*.insteadOf` read for destinations while other keys that select an executable were not); gke-labs/kube-agents#952 (`git -c protocol.ext.allow=always clone \"ext::sh -c id\"` ran id); git's credential.c (`git credential-` prepended to a helper that is neither `!…` nor an absolute path, run with use_shell); git-config(1) 'url.<base>.insteadOf'; git-remote-ext(1); checked with git 2.39",
    allow: ["git fetch:*", "git ls-remote:*", "git config:*", "git credential:*"],
    cases: [
      { command: `git -c credential.helper='x; ${X}' fetch`, expect: "deny" },
      { command: `git -c credential.helper='/bin/${X}' ls-remote https://example.com/r`, expect: "deny" },
      { command: `git config --global credential.helper 'store; ${X}'`, expect: "deny" },
      { command: `git -c protocol.ext.allow=always -c 'url.ext::${X} #.insteadOf=https://' ls-remote https://example.com/r`, expect: "deny" },
      { command: `git config 'url.ext::${X} #.insteadOf' https://`, expect: "deny" },
      { command: `git config --global url.ext::${X.replace(/ /g, "%20")}.pushInsteadOf git@`, expect: "not-allow" },
      { command: "git -c credential.helper=./evil fetch", expect: "not-allow" },
      { command: "git fetch origin", expect: "allow" },
      { command: "git ls-remote https://example.com/r", expect: "allow" },
    ],
  },
  {
    name: "bash's `fc -e EDITOR`: bash runs `EDITOR FILE` as a command line (the value's words, `;` and all), then the edited commands",
    source: "bigduu/Bamboo-agent#558 (fc among the builtins that evaluate a command line); bash's builtins/fc.def ('sprintf (command, \"%s %s\", ename, fn); … parse_and_execute (command, \"fc\", …)'); bash(1) 'fc [-e ename] …'; checked with bash 5.2",
    allow: ["fc:*", "set:*", "echo:*"],
    cases: [
      { command: `fc -e '${X}' -1`, expect: "deny" },
      { command: `set -o history; echo a; fc -e '${X};:' -1`, expect: "deny" },
      { command: "fc -e 'nc -l 4444 #' -1", expect: "deny" },
      { command: "fc -e'rm -rf /tmp/x' -1", expect: "deny" },
      { command: "fc -e './evil x' -1", expect: "not-allow" },
      { command: "fc -l", expect: "allow" },
    ],
  },
  {
    name: "javac runs the annotation processors it is given (`-processorpath`, `--processor-path`, `-processor`, `--processor-module-path`) and hands `-J` options to the JVM that runs it (`-J-javaagent:`): an allow on javac does not vouch for that code",
    source: "kirodotdev/KiroCrew#5037 ('`javac -version` admits arbitrary compilation … with -processorpath runs arbitrary code at compile time'); javac(1) ('-processorpath path: Specifies where to find annotation processors', '-Joption: Passes option to the runtime system'); checked with OpenJDK 17",
    allow: ["javac:*", "ls:*"],
    cases: [
      { command: "javac -processorpath p -processor Evil T.java", expect: "not-allow", reason: /-processorpath/ },
      { command: "javac --processor-path=p T.java", expect: "not-allow" },
      { command: "javac -version -processorpath p -processor Evil -d out T.java", expect: "not-allow" },
      { command: "javac --processor-module-path m T.java", expect: "not-allow" },
      { command: "javac -J-javaagent:a.jar T.java", expect: "not-allow", reason: /-J/ },
      { command: "javac -d out T.java", expect: "allow" },
      { command: "javac -proc:none -d out T.java", expect: "allow" },
    ],
  },
];

describeBashClasses("public bypass classes (12): deny rules that name options, read as the program reads its options", OPTION_CLASSES, OPTION_DENY, "public-bypasses-12-options");
describeBashClasses("public bypass classes (12): deny rules that name a forced push to a branch", BRANCH_CLASSES, BRANCH_DENY, "public-bypasses-12-branch");
describeBashClasses("public bypass classes (12): git's push by its other names, fc -e, javac's processors", CLASSES, DENY, "public-bypasses-12");

describe("public bypass classes (12): under a deny list, what the guard cannot read asks", () => {
  const guard = denyListGuard(OPTION_DENY, "public-bypasses-12-deny-list");
  it.each(["git push --force-with-lease origin main", "git push --force-w origin main", "podman rm abc -f", "podman rm -vf abc"])("%s", (command) => {
    const decision = guard.decide("Bash", { command });
    expect(decision.mode, decision.reason).toBe("ask");
    expect(decision.reason).toMatch(/cannot tell/);
  });
});

// Generated spellings of rm's -r and -f: each letter alone or in a cluster (with -v, -d), long or abbreviated, before or after the operand.
const R_SPELLINGS = ["-r", "-R", "--recursive", "--recursiv", "--rec", "--r"];
const F_SPELLINGS = ["-f", "--force", "--forc", "--f"];
const rmSpelling = fc
  .record({
    r: fc.constantFrom(...R_SPELLINGS),
    f: fc.constantFrom(...F_SPELLINGS),
    cluster: fc.boolean(),
    extra: fc.subarray(["v", "d"]),
    fFirst: fc.boolean(),
    operandAt: fc.nat(2),
  })
  .map(({ r, f, cluster, extra, fFirst, operandAt }) => {
    const letters = r.startsWith("--") || f.startsWith("--") || !cluster ? undefined : `-${[...(fFirst ? [f[1], r[1]] : [r[1], f[1]]), ...extra].join("")}`;
    const options = letters !== undefined ? [letters] : [...(fFirst ? [f, r] : [r, f]), ...extra.map((letter) => `-${letter}`)];
    const words = [...options];
    words.splice(Math.min(operandAt, words.length), 0, "d");
    return `rm ${words.join(" ")} nothere`;
  });

describe("public bypass classes (12): generated spellings of rm -r -f, judged by the real rm", () => {
  const guard = denyListGuard(OPTION_DENY, "public-bypasses-12-generated");
  it("every spelling rm reads as recursive and forced is denied", () => {
    fc.assert(
      fc.property(rmSpelling, (line) => {
        const decision = guard.decide("Bash", { command: line });
        expect(decision.mode, `${line}: ${decision.reason}`).toBe("deny");
      }),
      { numRuns: 200 },
    );
  });
  it.skipIf(!installed("rm"))("the real rm removes the tree and ignores the missing operand for each spelling", () => {
    fc.assert(
      fc.property(rmSpelling, (line) => {
        const run = leavesMarker(`mkdir -p d/e && touch d/e/f && ${line} </dev/null && [ ! -e d ] && touch MARKER`);
        expect(run.left, `${line}: ${run.stderr}`).toBe(true);
      }),
      { numRuns: 25 },
    );
  }, 60_000);
});

/** A bare repository r.git whose main the work tree w has rewritten (amended): a push of main succeeds only when forced. */
const PUSH_SETUP = "git init -q --bare r.git && git init -q -b main w && cd w && git commit -q --allow-empty -m a && git push -q ../r.git HEAD:main && git commit -q --amend --allow-empty -m b && git remote add origin ../r.git";
/** A bare repository r.git without commits and a work tree w with one: a push creates r.git's main. */
const FRESH_SETUP = "git init -q --bare r.git && git init -q -b main w && cd w && git commit -q --allow-empty -m a && git remote add origin ../r.git";
const PUSHED = '[ "$(git rev-parse HEAD)" = "$(git -C ../r.git rev-parse main)" ] && touch ../MARKER';
/** A repository whose pre-commit hook refuses every commit: a commit is made only when the hooks are skipped. */
const HOOK_SETUP = "git init -q -b main c && cd c && printf '#!/bin/sh\\nexit 1\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && touch f && git add f";
const COMMITTED = "git rev-parse -q --verify HEAD >/dev/null && touch ../MARKER";
const CLEAN_SETUP = "git init -q -b main c && cd c && mkdir -p u/v && touch u/v/f";
const BRANCH_SETUP = "git init -q -b main c && cd c && git commit -q --allow-empty -m a && git checkout -q -b b && git commit -q --allow-empty -m b && git checkout -q main";
const RESET_SETUP = "git init -q -b main c && cd c && echo 1 > f && git add f && git commit -q -m a && echo 2 > f";
const GIT_ENV = { GIT_AUTHOR_NAME: "a", GIT_AUTHOR_EMAIL: "a@example.com", GIT_COMMITTER_NAME: "a", GIT_COMMITTER_EMAIL: "a@example.com", GIT_CONFIG_NOSYSTEM: "1" };

// The programs installed here judge the readings: `run` does what `line` does in a scratch directory and leaves MARKER when
// the denied effect happened (`left`); the guard's decision on `line` under `deny` is `expect`.
const REAL: readonly { line: string; run: string; program: string; deny: readonly string[]; expect: BashExpectation; left: boolean }[] = [
  ...["git push origin main --force", "git push -uf origin main", "git push origin +main", "git push origin +HEAD:main", "git push --mirror origin", "git -C . push origin main -f"].map((line) => ({ line, run: `${PUSH_SETUP} && ${line}; ${PUSHED}`, program: "git", deny: OPTION_DENY, expect: "deny" as const, left: true })),
  ...["git push origin main", "git push --no-force origin main"].map((line) => ({ line, run: `${PUSH_SETUP} && ${line}; ${PUSHED}`, program: "git", deny: OPTION_DENY, expect: "allow" as const, left: false })),
  ...["git push -f origin HEAD:refs/heads/main", "git push origin +HEAD:main", "git push -f origin refs/heads/main"].map((line) => ({ line, run: `${PUSH_SETUP} && ${line}; ${PUSHED}`, program: "git", deny: BRANCH_DENY, expect: "deny" as const, left: true })),
  { line: "git push -f origin HEAD", run: `${PUSH_SETUP} && git push -f origin HEAD; ${PUSHED}`, program: "git", deny: BRANCH_DENY, expect: "ask", left: true },
  { line: "git push -f origin feature", run: `${PUSH_SETUP} && git push -f origin main:feature; ${PUSHED}`, program: "git", deny: BRANCH_DENY, expect: "allow", left: false },
  { line: "git send-pack --force ../r.git main", run: `${PUSH_SETUP} && git send-pack --force ../r.git main; ${PUSHED}`, program: "git", deny: OPTION_DENY, expect: "deny", left: true },
  { line: "git send-pack ../r.git +main", run: `${PUSH_SETUP} && git send-pack ../r.git +main; ${PUSHED}`, program: "git", deny: OPTION_DENY, expect: "deny", left: true },
  { line: "/usr/lib/git-core/git-push -f origin main", run: `${PUSH_SETUP} && /usr/lib/git-core/git-push -f origin main; ${PUSHED}`, program: "/usr/lib/git-core/git-push", deny: OPTION_DENY, expect: "deny", left: true },
  ...["git commit -n -m x", "git commit -anm x", "git commit -m x --no-verify", "git commit --no-verif -m x"].map((line) => ({ line, run: `${HOOK_SETUP} && ${line}; ${COMMITTED}`, program: "git", deny: OPTION_DENY, expect: "deny" as const, left: true })),
  ...["git commit -mn", "git commit -n --verify -m x"].map((line) => ({ line, run: `${HOOK_SETUP} && ${line}; ${COMMITTED}`, program: "git", deny: OPTION_DENY, expect: "allow" as const, left: false })),
  ...["git clean -df", "git clean -d -f", "git clean --force -d"].map((line) => ({ line, run: `${CLEAN_SETUP} && ${line}; [ ! -e u ] && touch ../MARKER`, program: "git", deny: OPTION_DENY, expect: "deny" as const, left: true })),
  { line: "git clean -n -d", run: `${CLEAN_SETUP} && git clean -n -d; [ ! -e u ] && touch ../MARKER`, program: "git", deny: OPTION_DENY, expect: "allow", left: false },
  ...["git branch --delete --force b", "git branch -df b", "git branch -d -f b"].map((line) => ({ line, run: `${BRANCH_SETUP} && ${line}; git rev-parse -q --verify b >/dev/null || touch ../MARKER`, program: "git", deny: OPTION_DENY, expect: "deny" as const, left: true })),
  { line: "git branch --delete b", run: `${BRANCH_SETUP} && git branch --delete b; git rev-parse -q --verify b >/dev/null || touch ../MARKER`, program: "git", deny: OPTION_DENY, expect: "allow", left: false },
  ...["git reset --har", "git reset HEAD --hard"].map((line) => ({ line, run: `${RESET_SETUP} && ${line}; [ "$(cat f)" = 1 ] && touch ../MARKER`, program: "git", deny: OPTION_DENY, expect: "deny" as const, left: true })),
  { line: "git send-pack ../r.git main", run: `${FRESH_SETUP} && git send-pack ../r.git main; ${PUSHED}`, program: "git", deny: DENY, expect: "deny", left: true },
  { line: "/usr/lib/git-core/git-push origin main", run: `${FRESH_SETUP} && /usr/lib/git-core/git-push origin main; ${PUSHED}`, program: "/usr/lib/git-core/git-push", deny: DENY, expect: "deny", left: true },
  { line: `git -c credential.helper='x; ${X}' credential fill`, run: "printf 'protocol=https\\nhost=example.com\\n\\n' | GIT_TERMINAL_PROMPT=0 git -c credential.helper='x; touch MARKER' credential fill", program: "git", deny: DENY, expect: "deny", left: true },
  { line: `git -c credential.helper='/bin/${X}' credential fill`, run: "printf 'protocol=https\\nhost=example.com\\n\\n' | GIT_TERMINAL_PROMPT=0 git -c credential.helper='/usr/bin/touch MARKER' credential fill", program: "git", deny: DENY, expect: "deny", left: true },
  { line: `git -c protocol.ext.allow=always -c 'url.ext::${X} #.insteadOf=https://' ls-remote https://example.com/r`, run: "git -c protocol.ext.allow=always -c 'url.ext::touch MARKER #.insteadOf=https://' ls-remote https://example.com/r", program: "git", deny: DENY, expect: "deny", left: true },
  { line: `fc -e '${X}' -1`, run: "set -o history\necho a\nfc -e 'touch MARKER; true' -1", program: "bash", deny: DENY, expect: "deny", left: true },
  { line: `set -o history; echo a; fc -e '${X};:' -1`, run: "set -o history; echo a\nfc -e 'touch MARKER;:' -1", program: "bash", deny: DENY, expect: "deny", left: true },
];

describe("public bypass classes (12): the real programs do what the guard reads", () => {
  for (const r of REAL) {
    describe(`${r.program}: ${r.line}`, () => {
      it(`the guard: ${r.expect}`, () => {
        const decision = denyListGuard(r.deny, "public-bypasses-12-real").decide("Bash", { command: r.line });
        if (r.expect === "not-allow") expect(decision.mode, decision.reason).not.toBe("allow");
        else expect(decision.mode, decision.reason).toBe(r.expect);
      });
      it.skipIf(!installed(r.program))(`${r.program} ${r.left ? "does" : "does not do"} what the deny names`, () => {
        const run = leavesMarker(r.run, GIT_ENV);
        expect(run.left, `${r.run}: ${run.stderr}`).toBe(r.left);
      }, 60_000);
    });
  }
});

// javac runs an annotation processor from -processorpath: its init() touches MARKER.
const PROCESSOR = `import javax.annotation.processing.*; import javax.lang.model.element.TypeElement; import java.util.Set;
@SupportedAnnotationTypes("*") public class Evil extends AbstractProcessor {
  public synchronized void init(ProcessingEnvironment env) { super.init(env); try { new java.io.File("MARKER").createNewFile(); } catch (Exception e) { throw new RuntimeException(e); } }
  public boolean process(Set<? extends TypeElement> a, RoundEnvironment r) { return false; }
}
`;

describe("public bypass classes (12): javac runs the processors it is given", () => {
  const line = "javac -processorpath p -processor Evil -d out T.java";
  it("the guard: not allowed by javac:*", () => expectBashDecision(bashGuard(["javac:*"], DENY, "public-bypasses-12-javac"), line, "not-allow", undefined));
  it.skipIf(!installed("javac"))("javac runs Evil's code", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "javac-"));
    try {
      mkdirSync(path.join(dir, "p"));
      writeFileSync(path.join(dir, "Evil.java"), PROCESSOR);
      writeFileSync(path.join(dir, "T.java"), "class T {}\n");
      const built = spawnSync("javac", ["-d", "p", "Evil.java"], { cwd: dir, timeout: 50_000 });
      expect(built.status, String(built.stderr)).toBe(0);
      const run = spawnSync("bash", ["-c", line], { cwd: dir, timeout: 50_000 });
      expect(spawnSync("test", ["-e", path.join(dir, "MARKER")]).status, String(run.stderr)).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
