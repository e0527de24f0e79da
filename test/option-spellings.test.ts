// Deny and ask patterns that name an option (`chmod -R:*`, `git checkout --force:*`, `terraform apply -auto-approve:*`) hold
// for every spelling the program reads as that option: the long form or the short one (`chmod --recursive`), an
// abbreviation (`--rec`), `--opt=value`, a cluster (`-vR`), the option after the operands, and an option that implies the
// named one (`cp -a` copies recursively, `git switch -f` discards changes like `--discard-changes`). The guard reads
// the options of chmod, chown, chgrp, cp, mv, ln, git checkout/switch/restore/tag/add/rm/rebase, docker, kubectl,
// terraform, helm, npm, pip and apt-get as those programs read them; for any other program a pattern's option met by a
// spelling that may be it (a long option against a short one, or the other way round) makes the rule cannot tell: it asks.
//
// Public reports: anthropics/claude-code#30519 ("deny rules slipping past reordered flags"), anthropics/claude-code#18613.
//
// The real programs judge: coreutils 9.1 and git 2.39 run each generated line in a scratch tree, and every line whose real
// effect is the one the pattern names (the mode changed below the directory, the copy was recursive, the changes were
// discarded, ...) must be denied or asked; terraform 1.11 applies an empty configuration (its state file appears only when
// the apply was approved). docker, kubectl and helm need a daemon or a cluster: their tables come from their documented
// option lists (docker 28 and kubectl 1.32 `--help`, helm 3 docs), and the installed docker and kubectl only judge
// which spellings their option parser (spf13/pflag: no abbreviations) accepts at all.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { denyListGuard, installed, type BashExpectation } from "./helpers/bash-rules.js";
import { REQUIRE_ORACLES } from "./helpers/bash-oracle.js";

interface OptionClass {
  readonly deny: readonly string[];
  readonly cases: readonly { readonly command: string; readonly expect: BashExpectation; readonly reason?: RegExp }[];
}

const d = (command: string) => ({ command, expect: "deny" as const });
const a = (command: string, reason?: RegExp) => ({ command, expect: "ask" as const, ...(reason === undefined ? {} : { reason }) });
const ok = (command: string) => ({ command, expect: "allow" as const });

/** Before this change: 58 of these cases failed (each an allowed line the program reads as the denied option, or a deny that only asked). */
const CLASSES: readonly OptionClass[] = [
  {
    deny: ["chmod -R:*"],
    cases: [
      d("chmod --recursive 777 /"),
      d("chmod --rec 777 /"),
      d("chmod --recur 777 /"),
      d("chmod 777 / -R"),
      d("chmod -vR 777 /"),
      d("chmod -Rv 777 /"),
      d("chmod -cfR 777 /"),
      d("chmod --verbose 777 / --recursive"),
      d("sudo chmod --recursive 777 /"),
      d("/bin/chmod --recursive 777 /"),
      ok("chmod 777 x"),
      ok("chmod -v 644 x"),
      ok("chmod -w x"),
      ok("chmod -- 644 -R"),
      ok("chmod --reference=r x"),
      ok("ls -R /"),
      ok("chown --recursive u x"),
    ],
  },
  { deny: ["chmod --recursive:*"], cases: [d("chmod -R 777 /"), d("chmod 777 -R /"), d("chmod -fR 777 /"), ok("chmod 777 /")] },
  { deny: ["chmod -R 777:*"], cases: [d("chmod --recursive 777 /"), d("chmod 777 / -R"), ok("chmod --recursive 755 /")] },
  { deny: ["chmod --no-preserve-root:*"], cases: [d("chmod --no-preserve 777 /"), d("chmod -R 777 / --no-preserve-root"), ok("chmod -R 777 /")] },
  { deny: ["chown -R:*"], cases: [d("chown --recursive u /srv"), d("chown u /srv -R"), d("chown -hR u x"), d("chown --recur u:g x"), ok("chown u x"), ok("chown --from=u:g v x")] },
  { deny: ["chgrp -R:*"], cases: [d("chgrp --recursive g /srv"), d("chgrp g /srv -Rv"), ok("chgrp g x")] },
  {
    deny: ["cp -r:*"],
    cases: [d("cp -R a b"), d("cp --recursive a b"), d("cp --recur a b"), d("cp -a a b"), d("cp --archive a b"), d("cp --arch a b"), d("cp a b -r"), d("cp -vr a b"), d("cp -pR a b"), ok("cp a b"), ok("cp -v a b"), ok("cp -t r a")],
  },
  { deny: ["cp -R:*"], cases: [d("cp -r a b"), d("cp --recursive a b"), d("cp -av a b")] },
  { deny: ["mv -f:*"], cases: [d("mv --force a b"), d("mv --forc a b"), d("mv a b -f"), d("mv -vf a b"), ok("mv a b"), ok("mv -v a b"), ok("mv -S f a b")] },
  {
    deny: ["ln -sf:*"],
    cases: [d("ln -fs a b"), d("ln --symbolic --force a b"), d("ln -s -f a b"), d("ln --sym --forc a b"), d("ln a b -sf"), d("ln -vsf a b"), ok("ln -s a b"), ok("ln a b"), ok("ln -f a b")],
  },
  {
    deny: ["git checkout -f:*"],
    cases: [d("git checkout --force main"), d("git checkout --forc main"), d("git checkout main -f"), d("git checkout -qf main"), d("git -C . checkout --force main"), ok("git checkout main"), ok("git checkout -b f"), ok("git checkout -bf main")],
  },
  { deny: ["git checkout --force:*"], cases: [d("git checkout -f main"), d("git checkout main -qf"), ok("git checkout main")] },
  { deny: ["git checkout -- .:*"], cases: [d("git checkout ."), d("git checkout -q -- ."), d("git checkout -f ."), ok("git checkout main"), ok("git checkout -- src")] },
  {
    deny: ["git switch --discard-changes:*"],
    cases: [d("git switch -f main"), d("git switch --force main"), d("git switch --disc main"), d("git switch main --discard-changes"), ok("git switch main"), ok("git switch -c feature"), ok("git switch -C f")],
  },
  { deny: ["git switch -f:*"], cases: [d("git switch --discard-changes main"), d("git switch --force main"), ok("git switch main")] },
  { deny: ["git restore --staged:*"], cases: [d("git restore -S f"), d("git restore --stag f"), d("git restore f --staged"), ok("git restore f"), ok("git restore -s HEAD f")] },
  { deny: ["git rebase -i:*"], cases: [d("git rebase --interactive main"), d("git rebase --inter main"), d("git rebase main -i"), d("git rebase -qi main"), ok("git rebase main"), ok("git rebase -x i main")] },
  { deny: ["git rebase --onto:*"], cases: [d("git rebase --onto=main x"), d("git rebase --ont main x"), d("git rebase x --onto main"), ok("git rebase main")] },
  { deny: ["git tag -d:*"], cases: [d("git tag --delete v1"), d("git tag v1 -d"), d("git tag --del v1"), ok("git tag v1"), ok("git tag -md v1")] },
  { deny: ["git tag -f:*"], cases: [d("git tag --force v1"), d("git tag -af -m x v1"), ok("git tag -a v1 -m f")] },
  { deny: ["git add -f:*"], cases: [d("git add --force x"), d("git add x -f"), d("git add --forc x"), d("git add -vf x"), ok("git add x")] },
  { deny: ["git add -A:*"], cases: [d("git add --all"), d("git add --al"), d("git add . -A"), ok("git add ."), ok("git add -u")] },
  { deny: ["git rm -r:*"], cases: [d("git rm -rf x"), d("git rm x -r"), d("git rm -qr x"), ok("git rm x"), ok("git rm --cached x")] },
  { deny: ["git rm --cached:*"], cases: [d("git rm --cach x"), d("git rm x --cached"), ok("git rm x")] },
  {
    deny: ["npm install -g:*"],
    cases: [
      d("npm install --global x"),
      d("npm i --global x"),
      d("npm install x -g"),
      d("npm install --global=true x"),
      d("npm install -global x"),
      d("npm install -gf x"),
      d("npm install --location=global x"),
      d("npm install --location global x"),
      d("npm -g install x"),
      d("npm --global i x"),
      // npm takes unique abbreviations of its many options; the guard's table holds some of them.
      a("npm install --glob x", /abbreviation of --global/),
      ok("npm install x"),
      ok("npm install --global=false x"),
      ok("npm install --no-global x"),
      ok("npm install --location=project x"),
    ],
  },
  { deny: ["npm install --global:*"], cases: [d("npm install -g x"), d("npm i -g x"), ok("npm install -D x")] },
  { deny: ["npm publish --force:*"], cases: [d("npm publish -f"), d("npm publish --forc"), ok("npm publish")] },
  {
    deny: ["pip install --break-system-packages:*"],
    cases: [d("pip install --break-system x"), d("pip install x --break-system-packages"), d("pip3 install --break x"), ok("pip install x"), ok("pip install -r req.txt")],
  },
  { deny: ["pip install --user:*"], cases: [d("pip install x --user"), ok("pip install x")] },
  // `--upgr` is ambiguous to pip (--upgrade, --upgrade-strategy): pip refuses it.
  { deny: ["pip install -U:*"], cases: [d("pip install --upgrade x"), d("pip install --upgrade-s eager x -U"), d("pip install x -U"), ok("pip install x"), ok("pip install --upgr x")] },
  {
    deny: ["apt-get install -y:*"],
    cases: [d("apt-get install --yes x"), d("apt-get install --assume-yes x"), d("apt-get install x -y"), d("apt-get install -qy x"), d("apt-get -y install x"), d("apt-get --YES install x"), d("apt-get install --yes=true x"), d("apt-get install --assume-yes on x"), ok("apt-get install --yes=no x"), ok("apt-get install --ye x"), ok("apt-get install x"), ok("apt-get install -q x")],
  },
  { deny: ["apt-get remove --purge:*"], cases: [d("apt-get remove x --purge"), ok("apt-get remove x")] },
  {
    deny: ["docker rm -f:*"],
    cases: [d("docker rm --force x"), d("docker rm x -f"), d("docker rm -vf x"), d("docker rm --force=true x"), ok("docker rm x"), ok("docker rm -v x"), ok("docker rm --force=false x"), ok("docker rm --forc x")],
  },
  { deny: ["docker rmi -f:*"], cases: [d("docker rmi --force img"), d("docker rmi img -f"), ok("docker rmi img")] },
  {
    deny: ["docker system prune -a:*"],
    cases: [d("docker system prune --all"), d("docker system prune -af"), d("docker system prune --force --all"), d("docker system prune --volumes -a"), ok("docker system prune"), ok("docker system prune -f")],
  },
  { deny: ["docker volume prune -f:*"], cases: [d("docker volume prune --force"), d("docker volume prune -af"), ok("docker volume prune")] },
  { deny: ["docker run --privileged:*"], cases: [d("docker run --privileged=true x"), d("docker run -it --privileged x"), ok("docker run x"), ok("docker run x --privileged"),
      // docker's command-word reading (subcommands.ts) refuses a value after a flag of docker run, so the line asks.
      a("docker run --privileged=false x")] },
  {
    deny: ["kubectl delete --all:*"],
    cases: [d("kubectl delete pods --all"), d("kubectl delete --all=true pods"), d("kubectl delete pods --all -n x"), ok("kubectl delete pod x"), ok("kubectl delete --all=false pods x"), ok("kubectl delete pods --al")],
  },
  { deny: ["kubectl delete -A:*"], cases: [d("kubectl delete pods --all-namespaces --all"), d("kubectl delete pods --all -A"), ok("kubectl delete pods x")] },
  { deny: ["kubectl delete --grace-period=0:*"], cases: [d("kubectl delete pod x --grace-period 0"), d("kubectl delete pod x --grace-period=0 --force"), ok("kubectl delete pod x --grace-period=30"), ok("kubectl delete pod x")] },
  { deny: ["kubectl delete --force:*"], cases: [d("kubectl delete pod x --force=true"), d("kubectl delete pod x --force"), ok("kubectl delete pod x")] },
  { deny: ["kubectl delete -n kube-system:*"], cases: [d("kubectl delete pod x --namespace=kube-system"), d("kubectl delete pod x -nkube-system"), d("kubectl delete pod x --namespace kube-system"), d("kubectl -n kube-system delete pod x"), ok("kubectl -n default delete pod x"), ok("kubectl delete pod x -n default")] },
  {
    deny: ["terraform apply -auto-approve:*"],
    cases: [d("terraform apply --auto-approve"), d("terraform apply -auto-approve=true"), d("terraform apply -input=false -auto-approve"), d("terraform apply --auto-approve=1"), ok("terraform apply"), ok("terraform apply -auto-approve=false"), ok("terraform plan -auto-approve")],
  },
  { deny: ["terraform destroy -auto-approve:*"], cases: [d("terraform destroy --auto-approve"), d("terraform destroy -auto-approve=t"), ok("terraform destroy")] },
  { deny: ["helm uninstall --no-hooks:*"], cases: [d("helm uninstall x --no-hooks"), d("helm --namespace n uninstall x --no-hooks"), d("helm uninstall --no-hooks=true x"), ok("helm uninstall x")] },
  // A program the guard has no table for: a pattern's short option met by a long one, or its long option met by a short one, may be the same option.
  {
    deny: ["mytool -R:*"],
    cases: [a("mytool --recursive x", /--recursive.*-R|-R.*--recursive/), a("mytool --rec x"), d("mytool -R x"), ok("mytool -v x"), ok("mytool x"), ok("othertool --recursive x")],
  },
  { deny: ["mytool --recursive:*"], cases: [a("mytool -R x", /-R.*--recursive|--recursive.*-R/), a("mytool --rec x"), ok("mytool x"), ok("othertool -R x")] },
  { deny: ["rsync --delete:*"], cases: [a("rsync -a --del src/ dst/"), a("rsync -a src/ dst/"), ok("rsync src/ dst/")] },
];

describe("deny patterns that name an option hold for every spelling the program reads as it", () => {
  for (const klass of CLASSES) {
    describe(klass.deny.join(", "), () => {
      const guard = denyListGuard(klass.deny, "option-spellings");
      it.each(klass.cases.map((c) => [c.command, c] as const))("%s", (_command, c) => {
        const decision = guard.decide("Bash", { command: c.command });
        expect(decision.mode, decision.reason).toBe(c.expect);
        if (c.reason !== undefined) expect(decision.reason).toMatch(c.reason);
      });
    });
  }
});

// ---------------------------------------------------------------------------------------------------------------------
// Generated lines, judged by the real programs.

/** Runs `script` with the real bash in a scratch directory (git's identity set, stdin /dev/null); whether it left MARKER there. */
function leaves(script: string, env: Readonly<Record<string, string>> = {}): { left: boolean; stderr: string } {
  const dir = mkdtempSync(path.join(tmpdir(), "option-spellings-"));
  try {
    const run = spawnSync("bash", ["-c", script], {
      cwd: dir,
      timeout: 30_000,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, HOME: dir, GIT_AUTHOR_NAME: "a", GIT_AUTHOR_EMAIL: "a@example.com", GIT_COMMITTER_NAME: "a", GIT_COMMITTER_EMAIL: "a@example.com", GIT_CONFIG_NOSYSTEM: "1", TF_IN_AUTOMATION: "1", ...env },
    });
    return { left: existsSync(path.join(dir, "MARKER")), stderr: String(run.stderr) };
  } finally {
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

/** A word as the line spells it: plain, single-quoted or double-quoted (the shell hands the program the same word). */
const quoted = (word: string, how: number) => (how === 1 ? `'${word}'` : how === 2 ? `"${word}"` : word);

/**
 * One option's spellings (its short letter and its long names), other options that may go with it (short letters cluster with
 * it), and where they go among the operands: the line the guard judges.
 */
function spellingLine(program: string, spellings: readonly string[], others: readonly string[], operands: readonly string[]) {
  return fc
    .record({
      spelling: fc.constantFrom(...spellings),
      extra: fc.subarray([...others]),
      cluster: fc.boolean(),
      at: fc.nat(operands.length),
      late: fc.nat(operands.length),
      dashdash: fc.boolean(),
      quote: fc.nat(2),
    })
    .map(({ spelling, extra, cluster, at, late, dashdash, quote }) => {
      const shorts = extra.filter((one) => /^-[^-]$/.test(one));
      const clustered = cluster && /^-[^-]$/.test(spelling) && shorts.length > 0 ? [`-${shorts.map((one) => one[1]).join("")}${spelling[1]}`] : undefined;
      const options = clustered !== undefined ? [...clustered, ...extra.filter((one) => !shorts.includes(one))] : [spelling, ...extra];
      const words = [...operands];
      // Options before the operands end at `--` (an option after it would be an operand); else anywhere among them.
      if (dashdash && at === 0 && late === 0) words.unshift(...options.map((one, i) => (i === 0 ? quoted(one, quote) : one)), "--");
      else {
        words.splice(late, 0, ...options.slice(1));
        words.splice(Math.min(at, words.length), 0, quoted(options[0]!, quote));
      }
      return `${program} ${words.join(" ")}`;
    });
}

interface Oracle {
  readonly name: string;
  readonly program: string;
  readonly deny: string;
  readonly lines: fc.Arbitrary<string>;
  /** A script that runs `line` in a fresh scratch directory and leaves MARKER when the effect the deny names happened. */
  readonly run: (line: string) => string;
  readonly env?: Readonly<Record<string, string>>;
  readonly runs: number;
}

const TREE = "mkdir -p d/e && touch d/e/f && chmod 644 d/e/f";
const GIT_REPO = "git init -q -b main r && cd r && echo 1 > f && git add f && git commit -q -m a";

const ORACLES: readonly Oracle[] = [
  {
    name: "chmod changes the mode below the directory",
    program: "chmod",
    deny: "chmod -R:*",
    lines: spellingLine("chmod", ["-R", "--recursive", "--recursiv", "--recur", "--rec"], ["-v", "-c", "-f"], ["600", "d"]),
    run: (line) => `${TREE} && ${line} >/dev/null; [ "$(stat -c %a d/e/f)" = 600 ] && touch MARKER`,
    runs: 25,
  },
  {
    name: "chown changes the owner below the directory",
    program: "chown",
    deny: "chown -R:*",
    lines: spellingLine("chown", ["-R", "--recursive", "--recurs", "--rec"], ["-v", "-c", "-f", "-h"], ["1234", "d"]),
    run: (line) => `${TREE} && ${line} >/dev/null; [ "$(stat -c %u d/e/f)" = 1234 ] && touch MARKER`,
    runs: 15,
  },
  {
    name: "chgrp changes the group below the directory",
    program: "chgrp",
    deny: "chgrp -R:*",
    lines: spellingLine("chgrp", ["-R", "--recursive", "--recur", "--rec"], ["-v", "-c", "-f"], ["1234", "d"]),
    run: (line) => `${TREE} && ${line} >/dev/null; [ "$(stat -c %g d/e/f)" = 1234 ] && touch MARKER`,
    runs: 15,
  },
  {
    name: "cp copies the tree",
    program: "cp",
    deny: "cp -r:*",
    lines: spellingLine("cp", ["-r", "-R", "--recursive", "--recur", "--rec", "-a", "--archive", "--arch"], ["-v", "-f", "-p"], ["d", "d2"]),
    run: (line) => `${TREE} && ${line} >/dev/null; [ -e d2/e/f ] && touch MARKER`,
    runs: 25,
  },
  {
    name: "mv overwrites without asking (after -i)",
    program: "mv",
    deny: "mv -f:*",
    lines: spellingLine("mv -i", ["-f", "--force", "--forc", "--fo"], ["-v"], ["a", "b"]),
    run: (line) => `echo new > a && echo old > b && ${line} >/dev/null; [ "$(cat b)" = new ] && touch MARKER`,
    runs: 15,
  },
  {
    name: "ln replaces the name with a symbolic link",
    program: "ln",
    deny: "ln -sf:*",
    lines: fc
      .tuple(fc.constantFrom("-s", "--symbolic", "--sym", "--symb"), fc.constantFrom("-f", "--force", "--forc", "--fo"), fc.boolean(), fc.nat(2), fc.boolean())
      .map(([s, f, cluster, at, swap]) => {
        const options = cluster && s.length === 2 && f.length === 2 ? [`-${swap ? "fs" : "sf"}`] : swap ? [f, s] : [s, f];
        const words = ["a", "b"];
        words.splice(at, 0, ...options);
        return `ln ${words.join(" ")}`;
      }),
    run: (line) => `touch a b && ${line}; [ -L b ] && touch MARKER`,
    runs: 20,
  },
  {
    name: "git checkout discards the local change",
    program: "git",
    deny: "git checkout -f:*",
    lines: spellingLine("git checkout", ["-f", "--force", "--forc", "--for"], ["-q", "--progress"], ["other"]),
    run: (line) => `${GIT_REPO} && git branch other && echo 2 > f && ${line} 2>/dev/null; [ "$(cat f)" = 1 ] && touch ../MARKER`,
    runs: 15,
  },
  {
    name: "git switch discards the local change",
    program: "git",
    deny: "git switch --discard-changes:*",
    lines: spellingLine("git switch", ["-f", "--force", "--discard-changes", "--disc", "--discard", "--forc"], ["-q"], ["other"]),
    run: (line) => `${GIT_REPO} && git branch other && echo 2 > f && ${line} 2>/dev/null; [ "$(cat f)" = 1 ] && touch ../MARKER`,
    runs: 15,
  },
  {
    name: "git tag deletes the tag",
    program: "git",
    deny: "git tag -d:*",
    lines: spellingLine("git tag", ["-d", "--delete", "--del", "--dele"], [], ["v1"]),
    run: (line) => `${GIT_REPO} && git tag v1 && ${line} >/dev/null; git rev-parse -q --verify refs/tags/v1 >/dev/null || touch ../MARKER`,
    runs: 10,
  },
  {
    name: "git add adds the ignored file",
    program: "git",
    deny: "git add -f:*",
    lines: spellingLine("git add", ["-f", "--force", "--forc", "--for"], ["-v"], ["x"]),
    run: (line) => `${GIT_REPO} && echo x > .gitignore && touch x && ${line} >/dev/null 2>&1; git ls-files --error-unmatch x >/dev/null 2>&1 && touch ../MARKER`,
    runs: 10,
  },
  {
    name: "git rm removes the directory",
    program: "git",
    deny: "git rm -r:*",
    lines: spellingLine("git rm", ["-r"], ["-q", "--cached", "-f"], ["d"]),
    run: (line) => `${GIT_REPO} && mkdir d && touch d/g && git add d && git commit -q -m d && ${line} >/dev/null 2>&1; git ls-files --error-unmatch d/g >/dev/null 2>&1 || touch ../MARKER`,
    runs: 10,
  },
  {
    name: "git rebase runs the sequence editor",
    program: "git",
    deny: "git rebase -i:*",
    lines: spellingLine("git rebase", ["-i", "--interactive", "--inter", "--interactiv"], ["-q"], ["HEAD~1"]),
    run: (line) => `${GIT_REPO} && echo 2 > f && git commit -q -am b && GIT_SEQUENCE_EDITOR='touch ../MARKER; :' ${line} >/dev/null 2>&1; true`,
    runs: 10,
  },
  {
    name: "terraform applies without asking",
    program: "terraform",
    deny: "terraform apply -auto-approve:*",
    lines: fc
      .record({ spelling: fc.constantFrom("-auto-approve", "--auto-approve", "-auto-approve=true", "--auto-approve=1", "-auto-approve=t", "-auto-approve=false"), input: fc.boolean(), first: fc.boolean() })
      .map(({ spelling, input, first }) => `terraform apply ${input ? (first ? `${spelling} -input=false` : `-input=false ${spelling}`) : spelling}`),
    run: (line) => `echo 'output "x" { value = 1 }' > main.tf && ${line} >/dev/null 2>&1; [ -e terraform.tfstate ] && touch MARKER`,
    runs: 8,
  },
];

describe("generated spellings, judged by the real programs: a line that does what the deny names is denied or asked", () => {
  for (const oracle of ORACLES) {
    it.runIf(installed(oracle.program) || REQUIRE_ORACLES)(`${oracle.name} (${oracle.deny})`, () => {
      const guard = denyListGuard([oracle.deny], "option-spellings-oracle");
      let effects = 0;
      fc.assert(
        fc.property(oracle.lines, (line) => {
          const decision = guard.decide("Bash", { command: line });
          const run = leaves(oracle.run(line), oracle.env);
          if (run.left) effects++;
          if (run.left) expect(decision.mode, `${line} did what ${oracle.deny} names, and was ${decision.mode}: ${decision.reason}`).not.toBe("allow");
        }),
        { numRuns: oracle.runs },
      );
      // Each generator reaches the effect at all (else the oracle says nothing).
      expect(effects).toBeGreaterThan(0);
    }, 240_000);
  }
});

describe("the real option parsers of docker and kubectl (spf13/pflag) take no abbreviation of a long option", () => {
  const cases = [
    { program: "docker", args: ["rm", "--forc", "x"] },
    { program: "docker", args: ["system", "prune", "--al"] },
    { program: "kubectl", args: ["delete", "pods", "--al"] },
  ];
  for (const c of cases) {
    it.runIf(installed(c.program) || REQUIRE_ORACLES)(`${c.program} ${c.args.join(" ")}`, () => {
      const run = spawnSync(c.program, c.args, { timeout: 30_000, env: { ...process.env, DOCKER_HOST: "unix:///nonexistent.sock", KUBECONFIG: "/nonexistent" }, encoding: "utf8" });
      expect(`${run.stdout}${run.stderr}`).toMatch(/unknown flag/);
    });
  }
});
