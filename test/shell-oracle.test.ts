// The real bash (and sh) as the judge of the guard's command matcher. Every case — the seed list of
// known bypass classes and GG_ORACLE_CASES generated ones (fixed seed, GG_ORACLE_SEED overrides) — is
// decided by the guard under two Claude-Code-style allow lists and a deny list (the Bash tool low risk, so a misread line runs), and run in the recording sandbox of
// test/helpers/bash-oracle.ts. Then, for every case:
//   - the guard allows  ⇒ every program that started (under bash and under sh) is covered by an allow
//     rule and none matches a deny rule;
//   - a program that matches a deny rule started ⇒ the guard does not allow; when the case is static
//     (every deciding word is written out) the guard denies — a mere ask of a dynamic case is counted
//     as a wrong ask, printed, not failed;
//   - the guard's own split of the line (analyzeShell) is compared with what bash started: every
//     started program must be one of the guard's commands (or a tail of one, as a wrapper runs it);
//     a disagreement is counted, and a disagreement where the guard allows is a failure.
// The rule semantics here are written independently of the guard: `x y:*` = argv starts with the
// words x y; otherwise argv equals the words; the program is compared by its last path component.
import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePolicy, permissionPolicy, type PermissionPolicy } from "../src/policy/index.js";
import { analyzeShell } from "../src/policy/kinds/shell.js";
import { oracleSupport, REQUIRE_ORACLES, ShellOracle, WORK_FILES, type Invocation, type ShellRun } from "./helpers/bash-oracle.js";
import { generateShellCases, SEED_CASES, type ShellCase } from "./helpers/shell-grammar.js";

const CASES = Number(process.env.GG_ORACLE_CASES ?? 1000);
const SEED = Number(process.env.GG_ORACLE_SEED ?? 20251127);
/** Wall-clock bound for running every case (seconds); exceeding it fails the test rather than running fewer. */
const TIME_BOUND_S = Number(process.env.GG_ORACLE_TIME_BOUND ?? 900);
const CONCURRENCY = Number(process.env.GG_ORACLE_CONCURRENCY ?? 4);

const ALLOW_COMMON = ["echo:*", "ls:*", "cat:*", "find:*", "npm run test:*", "grep:*"];
const DENY = ["rm:*", "curl:*", "wget:*", "git push:*", "git reset --hard:*", "chmod:*", "ssh:*", "nc:*"];

interface OraclePolicy {
  readonly name: string;
  readonly allow: readonly string[];
  readonly deny: readonly string[];
  /** A deny list: the Bash tool is low risk, so a line no rule decides runs; only the denies guard it. */
  readonly denyList?: boolean;
}

const POLICIES: readonly OraclePolicy[] = [
  { name: "narrow-git", allow: [...ALLOW_COMMON, "git status", "git log:*"], deny: DENY },
  { name: "git-star", allow: [...ALLOW_COMMON, "git:*"], deny: DENY },
  // A deny list, where a misread line runs instead of asking.
  { name: "deny-list", allow: [], deny: DENY, denyList: true },
];

function policyYaml(policy: OraclePolicy): string {
  const rules = [
    ...policy.deny.map((pattern, i) => `  - { id: deny-${i}, rule: ${JSON.stringify(`Bash(${pattern})`)}, mode: deny }`),
    ...policy.allow.map((pattern, i) => `  - { id: allow-${i}, rule: ${JSON.stringify(`Bash(${pattern})`)}, mode: allow }`),
  ];
  return `version: 1\npermissions:\n${rules.join("\n")}\n${policy.denyList === true ? "tools:\n  Bash: { risk: low }\n" : ""}`;
}

// ---- rule semantics, independent of the guard ----

const base = (word: string) => word.slice(word.lastIndexOf("/") + 1);

/**
 * git's options that only turn the pager or optional locks off run nothing and change nothing git
 * does (git(1)): a rule on `git status` is a rule on `git --no-pager status`, for allows and denies.
 */
const GIT_INERT_OPTIONS = new Set(["--no-pager", "-P", "--no-optional-locks"]);

/**
 * Claude Code strips its process wrappers before it matches a Bash rule ("a rule like `Bash(npm test *)` also
 * matches `timeout 30 npm test`": timeout, time, nice, nohup, stdbuf, and xargs), so a rule on a command is a rule on
 * the command such a wrapper runs: their options as GNU coreutils, findutils and time read them. A wrapper that does
 * more than wrap (`time -o FILE` writes a file, `xargs --process-slot-var` sets a variable) is not passed over.
 */
const WRAPPER_OPTIONS: Readonly<Record<string, { flags: RegExp; valued: RegExp; positionals?: number; opaque?: RegExp }>> = {
  timeout: { flags: /^(-v|--verbose|--preserve-status|--foreground|--signal=.*|--kill-after=.*|-[sk].+)$/, valued: /^(-[sk]|--signal|--kill-after)$/, positionals: 1 },
  nice: { flags: /^(-\d+|-n-?\d+|--adjustment=.*)$/, valued: /^(-n|--adjustment)$/ },
  nohup: { flags: /^$/, valued: /^$/ },
  stdbuf: { flags: /^(-[ioe].+|--(input|output|error)=.*)$/, valued: /^(-[ioe]|--(input|output|error))$/ },
  time: { flags: /^(-[pvqa]+|--(portability|verbose|quiet|append)|--format=.*)$/, valued: /^(-f|--format)$/, opaque: /^(-o|--output)/ },
  xargs: {
    flags: /^(-[0rtpxo]+|-[eil].*|-[adEILnPs].+|--(null|no-run-if-empty|verbose|interactive|exit|open-tty|show-limits)|--(arg-file|delimiter|max-lines|max-args|max-procs|max-chars|eof|replace)(=.*)?)$/,
    valued: /^(-[adEILnPs]|--(arg-file|delimiter|max-lines|max-args|max-procs|max-chars))$/,
    opaque: /^--process-slot-var/,
  },
};

function withoutWrappers(words: readonly string[]): readonly string[] {
  let out = words;
  for (let depth = 0; depth < 8; depth++) {
    const spec = WRAPPER_OPTIONS[out[0] ?? ""];
    if (spec === undefined) return out;
    let i = 1;
    while (i < out.length) {
      const word = out[i] ?? "";
      if (word === "--") {
        i += 1;
        break;
      }
      if (spec.opaque?.test(word) === true) return out;
      if (spec.valued.test(word)) i += 2;
      else if (word.startsWith("-") && word !== "-" && spec.flags.test(word)) i += 1;
      else break;
    }
    i += spec.positionals ?? 0;
    if (i >= out.length) return out;
    out = [base(out[i] ?? ""), ...out.slice(i + 1)];
  }
  return out;
}

function ruleWords(argv: readonly string[]): string[] {
  const words = [...withoutWrappers([base(argv[0] ?? ""), ...argv.slice(1)])];
  if (words[0] !== "git") return words;
  let i = 1;
  while (i < words.length && GIT_INERT_OPTIONS.has(words[i] ?? "")) i += 1;
  return ["git", ...words.slice(i)];
}

function patternMatches(pattern: string, argv: readonly string[]): boolean {
  const prefix = pattern.endsWith(":*");
  const words = (prefix ? pattern.slice(0, -2) : pattern).trim().split(/\s+/);
  const actual = ruleWords(argv);
  if (prefix ? actual.length < words.length : actual.length !== words.length) return false;
  return words.every((word, i) => actual[i] === word);
}

const anyMatch = (patterns: readonly string[], argv: readonly string[]) => patterns.find((pattern) => patternMatches(pattern, argv));

/**
 * sudo and doas are recorders that refuse (they stay modelled): the command they were given is
 * derived from their argv (options as sudo 1.9 / doas read them) and judged as if it had started.
 */
function modelledUnwrap(argv: readonly string[]): string[] | undefined {
  const name = base(argv[0] ?? "");
  if (name !== "sudo" && name !== "doas") return undefined;
  const valued = name === "sudo" ? /^-[aCcDgpRrTtUu]$/ : /^-[uCa]$/;
  const longValued = /^--(user|group|close-from|chdir|prompt|chroot|role|type|command-timeout|other-user|host|login-class|auth-type)$/;
  let i = 1;
  while (i < argv.length) {
    const word = argv[i] ?? "";
    if (word === "--") {
      i += 1;
      break;
    }
    if (!word.startsWith("-") || word === "-") break;
    if (/^-[sie]/.test(word) || /^--(shell|login|edit)$/.test(word)) return undefined; // runs a shell / edits: not a plain argv
    if (valued.test(word) || longValued.test(word)) i += 2;
    else if (/^-[A-Za-z]+$/.test(word) && valued.test(`-${word.slice(-1)}`) && word.length > 2) i += 2; // -nu root
    else i += 1;
  }
  return i < argv.length ? argv.slice(i) : undefined;
}

/** Everything that started, with sudo/doas commands added as if run. */
function startedPrograms(run: ShellRun): Invocation[] {
  const out: Invocation[] = [];
  for (const invocation of run.invocations) {
    out.push(invocation);
    let inner = modelledUnwrap(invocation.argv);
    while (inner !== undefined) {
      out.push({ path: `/modelled/${base(inner[0] ?? "")}`, argv: inner });
      inner = modelledUnwrap(inner);
    }
  }
  return out;
}

// ---- the guard's split against what bash started ----

const GLOB = /[*?[]/;

function globRegex(glob: string): RegExp {
  try {
    return globRegexWithClasses(glob, true);
  } catch {
    // A bracket expression a regex cannot hold (a range out of order, as `[$(git -c x)]` gives): read `[` as itself.
    return globRegexWithClasses(glob, false);
  }
}

function globRegexWithClasses(glob: string, classes: boolean): RegExp {
  let out = "";
  for (let i = 0; i < glob.length; i += 1) {
    const ch = glob[i] ?? "";
    if (ch === "*") out += "[^/]*";
    else if (ch === "?") out += "[^/]";
    else if (ch === "[" && classes) {
      const end = glob.indexOf("]", i + 2);
      if (end < 0) out += "\\[";
      else {
        out += `[${glob.slice(i + 1, end).replace(/^!/, "^").replace(/\\/g, "\\\\")}]`;
        i = end;
      }
    } else out += ch.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
  }
  return new RegExp(`^${out}$`, "s");
}

/** Whether `recorded` is a reading of the guard's `words` (a glob in an argument may expand to 1+ names; `~` is $HOME). */
function wordsAgree(words: readonly string[], recorded: readonly string[]): boolean {
  const home = (word: string) => (word === "~" || word.startsWith("~/") ? `/home${word.slice(1)}` : word);
  const go = (w: number, r: number): boolean => {
    if (w === words.length) return r === recorded.length;
    const word = home(words[w] ?? "");
    if (r < recorded.length && (w === 0 ? base(word) === recorded[r] : word === recorded[r])) {
      if (go(w + 1, r + 1)) return true;
    }
    if (w > 0 && GLOB.test(word)) {
      const regex = globRegex(word);
      for (let end = r + 1; end <= recorded.length && regex.test(recorded[end - 1] ?? ""); end += 1) if (go(w + 1, end)) return true;
    }
    return false;
  };
  return go(0, 0);
}

/**
 * A guard command accounts for a recorded argv when its words agree with it (from any start: wrappers); one that
 * xargs or parallel feed (`input.at`: its words from there on come from the input) when its known words agree with
 * the argv's first words, whatever words follow.
 */
function explained(guardCommands: readonly { readonly words: readonly string[]; readonly at: number | undefined }[], argv: readonly string[]): boolean {
  return guardCommands.some(({ words, at }) => {
    for (let start = 0; start < words.length; start += 1) {
      if (wordsAgree(words.slice(start), argv)) return true;
      if (at !== undefined && at > start) {
        const known = words.slice(start, at);
        for (let end = known.length; end <= argv.length; end += 1) if (wordsAgree(known, argv.slice(0, end))) return true;
      }
    }
    return false;
  });
}

const internal = (invocation: Invocation) => invocation.path.startsWith("/git-built-in/") || invocation.path.startsWith("/busybox-applet/") || invocation.path.startsWith("/modelled/");

/** Programs bash started that the guard's split does not account for (empty: they agree). */
function splitDisagreements(command: string, run: ShellRun): string[] {
  const analysis = analyzeShell(command);
  if (!analysis.ok) return run.invocations.length > 0 ? [`guard: unparseable (${analysis.reason}); bash ran ${run.invocations.map((i) => JSON.stringify(i.argv)).join(", ")}`] : [];
  const guardCommands = analysis.commands.map((c) => ({ words: c.words, at: c.input?.at }));
  return run.invocations.filter((invocation) => !internal(invocation) && !explained(guardCommands, invocation.argv)).map((invocation) => `bash ran ${JSON.stringify(invocation.argv)}, guard read ${JSON.stringify(guardCommands.map((c) => c.words))}`);
}

// ---- running and judging ----

interface Judged {
  readonly policy: string;
  readonly case: ShellCase;
  readonly mode: string;
  readonly reason: string;
  readonly problems: readonly string[];
  readonly deniedRan: boolean;
  readonly wrongAsk: boolean;
  /** Everything that started (bash and sh) is covered by an allow rule, nothing denied, the split agrees, yet no allow. */
  readonly allowable: boolean;
  readonly disagreements: readonly string[];
}

type Decider = (command: string) => { readonly mode: string; readonly reason: string };

const guardDecider = (guard: PermissionPolicy): Decider => (command) => guard.decide("Bash", { command });

function judge(policy: OraclePolicy, decide: Decider, c: ShellCase, bash: ShellRun, sh: ShellRun): Judged {
  const decision = decide(c.command);
  const problems: string[] = [];
  const disagreements = splitDisagreements(c.command, bash);
  let deniedRan = false;
  let wrongAsk = false;
  let covered = true;
  for (const run of [bash, sh]) {
    for (const invocation of startedPrograms(run)) {
      const denied = anyMatch(policy.deny, invocation.argv);
      if (denied !== undefined || anyMatch(policy.allow, invocation.argv) === undefined) covered = false;
      if (denied !== undefined) {
        deniedRan = true;
        if (decision.mode === "allow") problems.push(`allowed, but ${run.shell} ran ${JSON.stringify(invocation.argv)} which "${denied}" denies`);
        else if (decision.mode !== "deny" && run.shell === "bash") {
          if (c.static) problems.push(`static case asked, not denied: bash ran ${JSON.stringify(invocation.argv)} which "${denied}" denies`);
          else wrongAsk = true;
        }
      } else if (decision.mode === "allow" && policy.denyList !== true && anyMatch(policy.allow, invocation.argv) === undefined) {
        problems.push(`allowed, but ${run.shell} ran ${JSON.stringify(invocation.argv)} which no allow rule covers`);
      }
    }
  }
  // Under a deny list an allowed line may run anything but a denied program (checked above).
  if (decision.mode === "allow" && policy.denyList !== true) for (const d of disagreements) problems.push(`allowed although the split disagrees: ${d}`);
  const allowable = covered && disagreements.length === 0 && bash.invocations.length > 0 && decision.mode !== "allow";
  return { policy: policy.name, case: c, mode: decision.mode, reason: decision.reason, problems: [...new Set(problems)], deniedRan, wrongAsk, allowable, disagreements };
}

const support = oracleSupport();
if (!support.ok && !REQUIRE_ORACLES) console.log(`shell oracle skipped: ${support.reason}`);

describe.skipIf(!support.ok && !REQUIRE_ORACLES)("the real bash judges the guard's command matcher", () => {
  let oracle: ShellOracle | undefined;
  const results: Judged[] = [];
  const runs = new Map<string, { bash: ShellRun; sh: ShellRun }>();
  let cases: ShellCase[] = [];
  let seconds = 0;

  beforeAll(async () => {
    if (!support.ok) throw new Error(`CI=true / REQUIRE_ORACLES=1 but the shell oracle cannot run: ${support.reason}`);
    oracle = ShellOracle.create(support.mode, { concurrency: CONCURRENCY, limitSeconds: 5 });
    cases = [...SEED_CASES, ...generateShellCases(CASES, SEED)];
    const unique = [...new Set(cases.map((c) => c.command))];
    const started = performance.now();
    const deadline = started + TIME_BOUND_S * 1000;
    let overdue = false;
    let next = 0;
    const worker = async () => {
      while (next < unique.length) {
        if (performance.now() > deadline) {
          overdue = true;
          return;
        }
        const command = unique[next] ?? "";
        next += 1;
        const bash = await oracle!.run(command, "bash");
        const sh = await oracle!.run(command, "sh");
        runs.set(command, { bash, sh });
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    seconds = (performance.now() - started) / 1000;
    if (overdue) throw new Error(`the shell oracle ran ${runs.size} of ${unique.length} command lines within GG_ORACLE_TIME_BOUND=${TIME_BOUND_S}s`);
    for (const policy of POLICIES) {
      const guard = permissionPolicy(parsePolicy(policyYaml(policy), "yaml", `${policy.name}.yaml`));
      for (const c of cases) {
        const run = runs.get(c.command);
        if (run !== undefined) results.push(judge(policy, guardDecider(guard), c, run.bash, run.sh));
      }
    }
    printSummary(cases, results, runs, seconds);
  }, (TIME_BOUND_S + 120) * 1000);

  afterAll(async () => {
    await oracle?.dispose();
  });

  it("records what really starts (the harness itself)", () => {
    const rm = runs.get("find . -exec rm {} \\;");
    expect(rm?.bash.invocations.map((i) => i.argv[0])).toContain("rm");
    const continued = runs.get("echo ok \\\r\nrm -rf /");
    expect(continued?.bash.invocations.map((i) => i.argv)).toContainEqual(["rm", "-rf", "/"]);
    const git = runs.get("git -C . push");
    expect(git?.bash.invocations.map((i) => i.argv)).toContainEqual(["git", "push"]);
    // The working directory held its files: a glob expanded.
    const glob = runs.get("find . -name '*.txt' -exec rm -rf {} +");
    const removed = glob?.bash.invocations.find((i) => i.argv[0] === "rm")?.argv ?? [];
    expect(removed.length - 2).toBe(Object.keys(WORK_FILES).filter((name) => name.endsWith(".txt")).length);
    expect([...runs.values()].filter((r) => r.bash.timedOut).length, "runs that hit the time limit").toBeLessThan(Math.max(5, runs.size / 100));
  });

  it("judges: a guard that always denies passes, one that always allows or always asks fails", () => {
    const policy = POLICIES[0]!;
    const judgeAll = (decide: Decider) => cases.filter((c) => runs.has(c.command)).map((c) => judge(policy, decide, c, runs.get(c.command)!.bash, runs.get(c.command)!.sh));
    expect(judgeAll(() => ({ mode: "deny", reason: "always" })).filter((r) => r.problems.length > 0)).toEqual([]);
    const allowAll = judgeAll(() => ({ mode: "allow", reason: "always" }));
    expect(allowAll.filter((r) => r.problems.length > 0).length).toBeGreaterThanOrEqual(allowAll.filter((r) => r.deniedRan).length);
    const askAll = judgeAll(() => ({ mode: "ask", reason: "always" }));
    expect(askAll.flatMap((r) => r.problems).filter((p) => !p.startsWith("static case asked"))).toEqual([]);
    expect(askAll.filter((r) => r.problems.length > 0).length).toBeGreaterThan(0);
    expect(askAll.filter((r) => r.wrongAsk).length).toBeGreaterThan(0);
    // Three judgings of every case (10,000 and more in CI's long run) on a loaded machine.
  }, 180_000);

  it("keeps the commands inside the sandbox", async () => {
    const run = await oracle!.run("echo pwned > /bin/rm; echo pwned > /case.sh; echo pwned > /etc/passwd; touch /usr/local/bin/new; rm -rf /", "bash");
    expect(run.stderr).toMatch(/Read-only file system|Permission denied/);
    expect(run.invocations.map((i) => i.argv)).toEqual([["touch", "/usr/local/bin/new"], ["rm", "-rf", "/"]]);
    const after = await oracle!.run("rm x; /bin/rm y; cat /etc/passwd", "sh");
    expect(after.invocations.map((i) => i.argv)).toEqual([["rm", "x"], ["rm", "y"], ["cat", "/etc/passwd"]]);
    const net = await oracle!.run("exec 3<>/dev/tcp/127.0.0.1/9 && echo connected", "bash");
    expect(net.stderr).toMatch(/unreachable|No such file|Cannot assign|not permitted/i);
  });

  for (const policy of POLICIES) {
    const describeCases = (list: readonly Judged[]) =>
      list
        .slice(0, 40)
        .map((r) => `${JSON.stringify(r.case.command)} [${r.case.classes.join(",")}${r.case.static ? ",static" : ""}] guard: ${r.mode} (${r.reason})\n    ${r.problems.slice(0, 3).join("\n    ")}`)
        .join("\n");

    it(`under ${policy.name}: never allows anything bash or sh would run otherwise, and never lets a denied program through`, () => {
      const failing = results.filter((r) => r.policy === policy.name && r.problems.some((problem) => !problem.startsWith("static case asked")));
      expect(failing.length, `${failing.length} failing cases under ${policy.name}:\n${describeCases(failing)}`).toBe(0);
    });

    it(`under ${policy.name}: denies every seed case (the published bypasses) whose denied program bash runs`, () => {
      const failing = results.filter((r) => r.policy === policy.name && r.case.seed && r.problems.length > 0);
      expect(failing.length, `${failing.length} seed cases under ${policy.name}:\n${describeCases(failing)}`).toBe(0);
    });

    it(`under ${policy.name}: counts the generated static cases that only ask although bash runs a denied program (wrong asks)`, () => {
      // A deny the guard cannot read through (deeply nested eval/heredoc/subscript forms, a
      // continuation inside a nested script) asks instead: never runs without a human, but is not a
      // deny yet. Counted and printed, with the shortest examples, not failed.
      const asked = results.filter((r) => r.policy === policy.name && !r.case.seed && r.problems.length > 0);
      const examples = [...asked].sort((a, b) => a.case.command.length - b.case.command.length).slice(0, 5);
      console.log(`shell oracle, ${policy.name}: ${asked.length} generated static cases only asked where a deny applies${examples.length > 0 ? `; shortest:\n  ${examples.map((r) => JSON.stringify(r.case.command)).join("\n  ")}` : ""}`);
      expect(asked.every((r) => r.mode === "ask" && r.problems.every((problem) => problem.startsWith("static case asked")))).toBe(true);
    });
  }
});

function printSummary(cases: readonly ShellCase[], results: readonly Judged[], runs: Map<string, { bash: ShellRun; sh: ShellRun }>, seconds: number): void {
  const lines: string[] = [];
  const runCount = runs.size * 2;
  const timeouts = [...runs.values()].reduce((n, r) => n + (r.bash.timedOut ? 1 : 0) + (r.sh.timedOut ? 1 : 0), 0);
  lines.push(`shell oracle: ${cases.length} cases (${SEED_CASES.length} seeds + ${cases.length - SEED_CASES.length} generated, seed ${SEED}), ${runs.size} distinct command lines, ${runCount} shell runs in ${seconds.toFixed(1)}s (${(runCount / seconds).toFixed(1)} runs/s, ${CONCURRENCY} sandboxes), ${timeouts} hit the time limit`);
  for (const policy of POLICIES) {
    const mine = results.filter((r) => r.policy === policy.name);
    const count = (f: (r: Judged) => boolean) => mine.filter(f).length;
    lines.push(
      `  ${policy.name}: allow ${count((r) => r.mode === "allow")}, deny ${count((r) => r.mode === "deny")}, ask ${count((r) => r.mode === "ask")}; denied program ran ${count((r) => r.deniedRan)}; split disagreements ${count((r) => r.disagreements.length > 0)} (with allow ${count((r) => r.disagreements.length > 0 && r.mode === "allow")}); wrong asks ${count((r) => r.wrongAsk)}; not allowed although everything that ran is covered ${count((r) => r.allowable)}; failing ${count((r) => r.problems.length > 0)}`,
    );
    const classes = [...new Set(mine.flatMap((r) => r.case.classes))].sort();
    for (const klass of classes) {
      const inClass = mine.filter((r) => r.case.classes.includes(klass));
      const c = (f: (r: Judged) => boolean) => inClass.filter(f).length;
      lines.push(
        `    ${klass.padEnd(22)} ${String(inClass.length).padStart(5)} cases: allow ${c((r) => r.mode === "allow")}, deny ${c((r) => r.mode === "deny")}, ask ${c((r) => r.mode === "ask")}, disagreements ${c((r) => r.disagreements.length > 0)}, wrong asks ${c((r) => r.wrongAsk)}, failing ${c((r) => r.problems.length > 0)}`,
      );
    }
  }
  // Per class: the shortest failing command line and the shortest wrong ask (ask where a deny was due).
  for (const policy of POLICIES) {
    const mine = results.filter((r) => r.policy === policy.name);
    const shortest = (f: (r: Judged) => boolean, klass: string) =>
      mine.filter((r) => f(r) && r.case.classes.includes(klass)).sort((a, b) => a.case.command.length - b.case.command.length)[0];
    const classes = [...new Set(mine.flatMap((r) => r.case.classes))].sort();
    lines.push(`  ${policy.name}, shortest failing case per class:`);
    for (const klass of classes) {
      const failing = shortest((r) => r.problems.length > 0, klass);
      if (failing !== undefined) lines.push(`    ${klass}: ${JSON.stringify(failing.case.command)} -> ${failing.mode}: ${failing.problems[0] ?? ""}`);
    }
    const over = mine.filter((r) => r.allowable).sort((a, b) => a.case.command.length - b.case.command.length).slice(0, 8);
    if (over.length > 0) lines.push(`  ${policy.name}, shortest cases not allowed although everything that ran is covered (information): ${over.map((r) => `${JSON.stringify(r.case.command)} (${r.mode})`).join(", ")}`);
    lines.push(`  ${policy.name}, shortest wrong ask per class (a denied program ran; dynamic case, so asking is not failed):`);
    for (const klass of classes) {
      const ask = shortest((r) => r.wrongAsk, klass);
      if (ask !== undefined) lines.push(`    ${klass}: ${JSON.stringify(ask.case.command)}`);
    }
  }
  console.log(lines.join("\n"));
  const report = process.env.GG_ORACLE_REPORT;
  if (report !== undefined && report !== "") {
    const failing = results.filter((r) => r.problems.length > 0 || r.wrongAsk || r.allowable || r.disagreements.length > 0);
    writeFileSync(report, `${JSON.stringify({ summary: lines, failing: failing.map((r) => ({ policy: r.policy, command: r.case.command, classes: r.case.classes, static: r.case.static, seed: r.case.seed, mode: r.mode, reason: r.reason, problems: r.problems, wrongAsk: r.wrongAsk, allowable: r.allowable, disagreements: r.disagreements })) }, null, 1)}\n`);
  }
}
