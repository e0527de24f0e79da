// xargs (and GNU parallel) add the words they read from their input to the command they run:
// `echo push --force | xargs git` runs `git push --force`. The guard read the command as `git` alone,
// so under a deny list (the Bash tool low risk, `git push:*` denied) the line was allowed and git
// pushed. The command such a wrapper runs has known leading words and words only known when it
// runs: a prefix rule matches when the known words start with its words, a deny whose words the
// known words could grow into cannot tell (the call asks), an exact allow never holds. In replace
// mode (`xargs -I{} CMD … {} …`) a word holding the replace string is read from the input. find -exec
// puts the paths it finds where `{}` stands, the first being a starting point (`find push -exec git
// {} \;` runs `git push`).
// Every line is also run by the real bash (and xargs) in the recording sandbox of
// test/helpers/bash-oracle.ts: when a denied program starts, no policy may allow the line.
import { describe, expect, it } from "vitest";
import { cannotTellReason, inputOptionsReason, inputProgramReason, inputWordsReason } from "../src/messages/index.js";
import { explainDecision } from "../src/policy/explain.js";
import { parsePolicy, permissionPolicy } from "../src/policy/index.js";
import { describeWithOracle } from "./helpers/oracle-describe.js";
import { installed, leavesMarker } from "./helpers/bash-rules.js";

type Mode = "allow" | "deny" | "ask";

const DENY = ["rm:*", "git push:*", "curl:*", "git reset --hard"];

const loaded = (allow: readonly string[], lowRisk: boolean, name: string, deny: readonly string[] = DENY) =>
    parsePolicy(
      `version: 1\npermissions:\n${[
        ...deny.map((p, i) => `  - { id: deny-${i}, rule: ${JSON.stringify(`Bash(${p})`)}, mode: deny }`),
        ...allow.map((p, i) => `  - { id: allow-${i}, rule: ${JSON.stringify(`Bash(${p})`)}, mode: allow }`),
      ].join("\n")}\n${lowRisk ? "tools:\n  Bash: { risk: low }\n" : ""}`,
      "yaml",
      `${name}.yaml`,
    );
const guard = (allow: readonly string[], lowRisk: boolean, name: string, deny: readonly string[] = DENY) => permissionPolicy(loaded(allow, lowRisk, name, deny));

/** A deny list: a line no rule decides runs. */
const denyList = guard([], true, "xargs-deny-list");
/** An allow list of prefix rules. */
const prefixAllow = guard(["xargs grep:*", "grep:*", "echo:*", "printf:*", "find:*", "cat:*", "ls:*"], false, "xargs-prefix-allow");
/** An allow list with exact rules on the command xargs runs. */
const exactAllow = guard(["xargs:*", "git status", "xargs git status", "grep -l alpha", "echo:*", "printf:*", "find:*", "ls:*"], false, "xargs-exact-allow");

interface Case {
  readonly line: string;
  /** Under the deny list, the prefix allow list, the exact allow list. */
  readonly deny: Mode;
  readonly prefix: Mode;
  readonly exact: Mode;
}

const c = (line: string, deny: Mode, prefix: Mode, exact: Mode): Case => ({ line, deny, prefix, exact });

const CASES: readonly Case[] = [
  // Words appended from a pipe.
  c("echo push --force | xargs git", "ask", "ask", "ask"),
  c("echo push | xargs git", "ask", "ask", "ask"),
  c("echo x | xargs rm", "deny", "deny", "deny"),
  c("echo x | xargs rm -f", "deny", "deny", "deny"),
  c("echo origin main | xargs git push", "deny", "deny", "deny"),
  c("echo --hard | xargs git reset", "ask", "ask", "ask"),
  c("echo x | xargs git reset --hard", "ask", "ask", "ask"),
  c("echo --short | xargs git status", "ask", "ask", "ask"),
  c("echo main | xargs git log", "ask", "ask", "ask"),
  // xargs with no command runs echo.
  c("printf 'rm\\n-rf\\nx' | xargs", "allow", "ask", "allow"),
  c("printf 'rm\\n-rf\\nx' | xargs -n1", "allow", "ask", "allow"),
  c("printf 'rm\\n-rf\\nx' | xargs xargs", "ask", "ask", "ask"),
  // sh -c rm -rf x: sh runs rm (with $0 -rf); the guard reads the piped text as sh's script.
  c("printf 'rm -rf x' | xargs sh -c", "deny", "deny", "deny"),
  c("echo x | xargs sh -c", "ask", "ask", "ask"),
  c("echo x | xargs sh -c 'rm \"$@\"' _", "deny", "deny", "deny"),
  c("echo push | xargs env git", "ask", "ask", "ask"),
  c("echo x | xargs env rm", "deny", "deny", "deny"),
  c("echo x | xargs timeout 5 rm", "deny", "deny", "deny"),
  c("echo push | xargs timeout 5 git", "ask", "ask", "ask"),
  c("echo alpha | xargs timeout 5 grep", "allow", "allow", "ask"),
  // Benign: programs whose arguments run nothing.
  c("find . -name '*.txt' | xargs grep -l alpha", "allow", "allow", "ask"),
  c("ls | xargs -n1 echo", "allow", "allow", "allow"),
  c("echo x | xargs echo", "allow", "allow", "allow"),
  c("echo a.txt | xargs -I{} grep alpha {}", "allow", "allow", "ask"),
  c("cat list.txt | xargs grep -l alpha", "allow", "allow", "ask"),
  // xargs need not be named (Claude Code strips it before matching): grep:* covers the grep it runs, whatever the input adds;
  // an exact allow (`grep -l alpha`) never covers a command the input adds words to.
  c("find . -name '*.txt' -print0 | xargs -0 grep -l alpha", "allow", "allow", "ask"),
  // Replace mode.
  c("echo push | xargs -I{} git {}", "ask", "ask", "ask"),
  c("echo push | xargs -I{} git {} --force", "ask", "ask", "ask"),
  c("echo x | xargs -I{} rm {}", "deny", "deny", "deny"),
  c("echo x | xargs -I {} rm -f {}", "deny", "deny", "deny"),
  c("echo rm | xargs -I{} {} -rf x", "ask", "ask", "ask"),
  c("echo m | xargs -I{} r{} -rf x", "ask", "ask", "ask"),
  c("echo x | xargs -i rm {}", "deny", "deny", "deny"),
  c("echo push | xargs -i git {}", "ask", "ask", "ask"),
  c("echo push | xargs -i@ git @", "ask", "ask", "ask"),
  c("echo push | xargs --replace git {}", "ask", "ask", "ask"),
  c("echo push | xargs --replace=@ git @", "ask", "ask", "ask"),
  c("echo x | xargs -I @ rm @", "deny", "deny", "deny"),
  c("echo x | xargs -I{} git status", "allow", "ask", "allow"),
  c("echo push | xargs -I{} sh -c 'git {}'", "ask", "ask", "ask"),
  // Words read from a file, and the other options.
  c("xargs -a list.txt git", "ask", "ask", "ask"),
  c("xargs -a list.txt rm", "deny", "deny", "deny"),
  c("xargs --arg-file=list.txt git push", "deny", "deny", "deny"),
  c("xargs --arg-file list.txt grep alpha", "allow", "allow", "ask"),
  c("xargs -0 -a zero.list rm", "deny", "deny", "deny"),
  c("xargs -0 -a zero.list git", "ask", "ask", "ask"),
  c("echo push | xargs -0 git", "ask", "ask", "ask"),
  c("echo push | xargs -n1 git", "ask", "ask", "ask"),
  c("echo push | xargs -n 1 git", "ask", "ask", "ask"),
  c("echo push | xargs -L1 git", "ask", "ask", "ask"),
  c("echo push | xargs -P4 git", "ask", "ask", "ask"),
  c("echo push | xargs -r git", "ask", "ask", "ask"),
  c("echo push | xargs -d ' ' git", "ask", "ask", "ask"),
  c("echo push | xargs -s 100 git", "ask", "ask", "ask"),
  c("echo push | xargs -E END git", "ask", "ask", "ask"),
  c("echo push | xargs -t git", "ask", "ask", "ask"),
  c("echo push | xargs --max-args=1 git", "ask", "ask", "ask"),
  c("echo push | xargs --max-procs 4 --no-run-if-empty git", "ask", "ask", "ask"),
  c("echo push | xargs --delimiter=, git", "ask", "ask", "ask"),
  c("echo push | xargs -- git", "ask", "ask", "ask"),
  c("echo x | xargs -- rm", "deny", "deny", "deny"),
  c("xargs git <<< 'push --force'", "ask", "ask", "ask"),
  c("xargs rm <<< x", "deny", "deny", "deny"),
  c("xargs git < list.txt", "ask", "ask", "ask"),
  // Around xargs, and xargs inside scripts and substitutions.
  c("echo push | env xargs git", "ask", "ask", "ask"),
  c("echo push | nohup xargs git", "ask", "ask", "ask"),
  c("echo push | sudo xargs git", "ask", "ask", "ask"),
  c("echo x | sudo xargs rm", "deny", "deny", "deny"),
  c("bash -c 'echo push | xargs git'", "ask", "ask", "ask"),
  c("sh -c 'echo push | xargs git'", "ask", "ask", "ask"),
  c("echo $(echo push | xargs git)", "ask", "ask", "ask"),
  c("echo push | xargs xargs git", "ask", "ask", "ask"),
  // GNU parallel reads its arguments from its input too (or from ::: lists).
  c("echo push | parallel git", "ask", "ask", "ask"),
  c("echo x | parallel rm", "deny", "deny", "deny"),
  c("parallel rm ::: x", "deny", "deny", "deny"),
  c("parallel git ::: push", "deny", "deny", "deny"),
  c("parallel git ::: status push", "deny", "deny", "deny"),
  c("parallel -a list.txt git", "ask", "ask", "ask"),
  c("parallel --arg-file list.txt rm", "deny", "deny", "deny"),
  c("echo push | parallel -j4 git {}", "ask", "ask", "ask"),
  c("echo 'rm x' | parallel", "ask", "ask", "ask"),
  c("parallel ::: 'rm x'", "deny", "deny", "deny"),
  // find -exec puts the paths it finds where {} stands, the first being a starting point itself.
  c("find push -exec git {} \\;", "deny", "deny", "deny"),
  c("find push -maxdepth 0 -exec git {} +", "deny", "deny", "deny"),
  c("find * -maxdepth 0 -name push -exec git {} \\;", "ask", "ask", "ask"),
  c("find . -name '*.txt' -exec grep -l alpha {} +", "allow", "ask", "ask"),
  c("find . -name push -exec git {} \\;", "allow", "ask", "ask"),
];

describe("words xargs and parallel read from their input are words of the command they run", () => {
  it.each(CASES.map((k) => [k.line, k] as const))("%s", (_line, k) => {
    const got = {
      deny: denyList.decide("Bash", { command: k.line }),
      prefix: prefixAllow.decide("Bash", { command: k.line }),
      exact: exactAllow.decide("Bash", { command: k.line }),
    };
    expect({ deny: got.deny.mode, prefix: got.prefix.mode, exact: got.exact.mode }, JSON.stringify({ deny: got.deny.reason, prefix: got.prefix.reason, exact: got.exact.reason })).toEqual({
      deny: k.deny,
      prefix: k.prefix,
      exact: k.exact,
    });
  });

  it("a deny that the input's words could make match asks, and says why", () => {
    const decision = guard([], true, "xargs-push", ["git push:*"]).decide("Bash", { command: "echo push --force | xargs git" });
    expect(decision.mode).toBe("ask");
    expect(decision.reason).toContain(inputWordsReason("xargs"));
    expect(guard([], true, "xargs-rm").decide("Bash", { command: "echo -c alias.x=!rm | xargs git" }).reason).toContain(inputOptionsReason("xargs", "git"));
    expect(denyList.decide("Bash", { command: "echo rm | xargs -I{} {} -rf x" }).reason).toContain(inputProgramReason("xargs"));
    expect(inputOptionsReason("xargs", "git")).toBe("xargs adds words it reads from its input to git, whose arguments may make it run another command, which the guard cannot know");
    expect(inputProgramReason("xargs")).toBe("xargs reads the name of the program it runs from its input, which the guard cannot know");
    expect(inputWordsReason("xargs")).toBe("xargs adds words it reads from its input to the command it runs, which the guard cannot know");
    expect(cannotTellReason("deny", "Bash(git push:*)", inputWordsReason("xargs"))).toBe(
      "the deny rule cannot tell whether it applies (Bash(git push:*)): xargs adds words it reads from its input to the command it runs, which the guard cannot know",
    );
  });

  it("policy explain shows the words read from the input", () => {
    const text = explainDecision(loaded([], true, "xargs-explain"), { tool: "Bash", args: { command: "echo push | xargs git" } });
    expect(text).toContain("cannot tell");
    expect(text).toContain('"git" + words xargs reads from its input');
  });

  it("glob patterns: a deny that could match with some input words cannot tell; an allow holds only when it matches any", () => {
    const globs = permissionPolicy(
      parsePolicy(
        `version: 1
permissions:
  - { rule: "Bash(git * --force)", mode: deny }
  - { rule: "Bash(xargs *)", mode: allow }
  - { rule: "Bash(grep *)", mode: allow }
  - { rule: "Bash(git status *)", mode: allow }
  - { rule: "Bash(find:*)", mode: allow }
`,
        "yaml",
        "xargs-globs.yaml",
      ),
    );
    expect(globs.decide("Bash", { command: "echo push | xargs git" }).mode).toBe("ask");
    expect(globs.decide("Bash", { command: "find . | xargs grep foo" }).mode).toBe("allow");
    // `grep *` is `grep:*` (a trailing ` *` also matches no more words): grep with whatever the input adds.
    expect(globs.decide("Bash", { command: "find . | xargs grep" }).mode).toBe("allow");
    // `git status *` holds whatever follows `git status`; `git *` with other words after it never does.
    expect(globs.decide("Bash", { command: "echo -s | xargs git status" }).mode).toBe("ask");
    expect(globs.decide("Bash", { command: "echo --force | xargs git push" }).mode).toBe("ask");
  });
});

describe("plain string matchers on the command field read it as deny and allow patterns do", () => {
  const policy = (rule: string, risk: string) => permissionPolicy(parsePolicy(`version: 1\npermissions:\n  - ${rule}\ntools:\n  Bash: { risk: ${risk} }\n`, "yaml", "xargs-string-matchers.yaml"));
  it("a deny the input's words could make match cannot tell", () => {
    const deny = policy('{ id: no-push, tool: Bash, where: { command: { regex: "^git push" } }, mode: deny }', "low");
    expect(deny.decide("Bash", { command: "echo push | xargs git" }).mode).toBe("ask");
    expect(deny.decide("Bash", { command: "echo x | xargs git push" }).mode).toBe("deny");
  });
  it("an allow does not hold for words it cannot see", () => {
    const allow = policy('{ id: grep-only, tool: Bash, where: { command: { regex: "^(find|xargs|grep)( |$)" } }, mode: allow }', "high");
    expect(allow.decide("Bash", { command: "find . | xargs grep foo" }).mode).toBe("ask");
    expect(allow.decide("Bash", { command: "find . -name x" }).mode).toBe("allow");
  });
});

describeWithOracle("the real bash and xargs: when a denied program starts, no policy allows the line", (oracle) => {
  const deniedBy = (argv: readonly string[]) => {
    const words = [argv[0]?.slice(argv[0].lastIndexOf("/") + 1) ?? "", ...argv.slice(1)];
    return DENY.find((pattern) => {
      const prefix = pattern.endsWith(":*");
      const want = (prefix ? pattern.slice(0, -2) : pattern).split(" ");
      return (prefix ? words.length >= want.length : words.length === want.length) && want.every((w, i) => words[i] === w);
    });
  };
  // parallel is a recorder in the sandbox (it does not run its command): its lines are judged above only.
  it.each(CASES.filter((k) => !k.line.includes("parallel")).map((k) => [k.line, k] as const))("%s", async (_line, k) => {
    const run = await oracle().run(k.line, "bash");
    const started = run.invocations.map((i) => i.argv);
    // sudo is modelled (it refuses): the command it was given counts as started.
    const withSudo = started.flatMap((argv) => (argv[0] === "sudo" && argv.length > 1 ? [argv, argv.slice(1)] : [argv]));
    const denied = withSudo.map(deniedBy).filter((d) => d !== undefined);
    if (denied.length > 0) {
      for (const policy of [denyList, prefixAllow, exactAllow]) {
        expect(policy.decide("Bash", { command: k.line }).mode, `bash ran ${JSON.stringify(started)}`).not.toBe("allow");
      }
    }
    // The table says deny where a denied program is sure to start: the real run agrees.
    if (k.deny === "deny" && !k.line.includes("sudo")) expect(denied.length, `bash ran ${JSON.stringify(started)}; ${run.stderr}`).toBeGreaterThan(0);
  }, 30_000);
});

/** GNU parallel's lines (its recorder in the sandbox does not run them): the line, and the same with the denied command replaced by `touch MARKER`. */
const PARALLEL_RUNS: readonly (readonly [string, string])[] = [
  ["echo x | parallel rm", "echo MARKER | parallel touch"],
  ["parallel rm ::: x", "parallel touch ::: MARKER"],
  ["parallel --arg-file list.txt rm", "echo MARKER > list.txt; parallel --arg-file list.txt touch"],
  ["echo 'rm x' | parallel", "echo 'touch MARKER' | parallel"],
  ["parallel ::: 'rm x'", "parallel ::: 'touch MARKER'"],
];

describe.skipIf(!installed("parallel"))("the real GNU parallel runs its command with the arguments it reads", () => {
  it.each(PARALLEL_RUNS.map(([line, run]) => [line, run] as const))("%s", (line, run) => {
    const ran = leavesMarker(run);
    expect(ran.left, ran.stderr).toBe(true);
    expect(denyList.decide("Bash", { command: line }).mode).not.toBe("allow");
  });

  it("quotes each argument: one read from the input is one word, never a command line", () => {
    const ran = leavesMarker("echo 'x; touch MARKER' | parallel echo");
    expect(ran.left, ran.stderr).toBe(false);
  });
});
