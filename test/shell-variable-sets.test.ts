// A variable can be set without `NAME=value`: by a builtin (`read`, `printf -v`, `mapfile`,
// `getopts`, a declaration through `builtin`/`command`), by a loop (`for NAME in ...`), by an
// expansion (`${NAME:=WORD}`), or, for bash's own tables, by an array assignment (`BASH_CMDS[ls]=PATH`
// makes `ls` run PATH). And bash evaluates a variable named in arithmetic (`$((x))`, `[[ x -lt 2 ]]`,
// `${a[x]}`, `let`, ...) as arithmetic in turn, running the command substitutions of an array
// subscript in its value (`x='a[$(cmd)]'; echo $((x))`). Under a deny list (the Bash tool low risk,
// `rm` denied) the guard allowed every line below while bash ran the payload; each line is also run by
// the real bash with the payload replaced by `touch MARKER`.
import { describe, expect, it } from "vitest";
import { bashGuard, denyListGuard, installed, leavesMarker } from "./helpers/bash-rules.js";

const denyList = denyListGuard(["rm:*"], "variable-sets");
const allowList = bashGuard(["echo:*", "ls:*", "printf:*", "git ls-remote:*", "cat:*", "bash -c true"], ["rm:*"], "variable-sets-allow");

/** `{P}` is the payload: `rm -rf /tmp/x` for the guard, `touch MARKER` for the real bash. */
interface Line {
  readonly line: string;
  /** What the guard must decide under the deny list: `deny` when every word is written out, else at least an ask. */
  readonly expect: "deny" | "not-allow";
  /** Run before the line by the real bash only (files the payload reaches through). */
  readonly setup?: string;
  /** Needs git for the real run. */
  readonly git?: boolean;
  /** Not run by the real bash: bash makes the variable an array, which it neither exports nor searches as PATH (the guard reads it all the same). */
  readonly array?: boolean;
}

const SSH = "git ls-remote ssh://example.invalid/r";

const SETS: readonly Line[] = [
  // A builtin sets a variable a program runs as a command (GIT_SSH_COMMAND: git runs it through sh).
  { line: `read GIT_SSH_COMMAND <<< '{P};'; export GIT_SSH_COMMAND; ${SSH}`, expect: "not-allow", git: true },
  { line: `IFS= read -r GIT_SSH_COMMAND <<< '{P};'; export GIT_SSH_COMMAND; ${SSH}`, expect: "not-allow", git: true },
  { line: `read -r -a GIT_SSH_COMMAND <<< '{P};'; export GIT_SSH_COMMAND; ${SSH}`, expect: "not-allow" },
  { line: `read 'GIT_SSH_COMMAND[0]' <<< '{P};'; export GIT_SSH_COMMAND; ${SSH}`, expect: "not-allow", array: true },
  { line: `printf -v GIT_SSH_COMMAND '{P};'; export GIT_SSH_COMMAND; ${SSH}`, expect: "deny", git: true },
  { line: `printf -vGIT_SSH_COMMAND '{P};'; export GIT_SSH_COMMAND; ${SSH}`, expect: "deny", git: true },
  { line: `printf -v GIT_SSH_COMMAND '%s;' '{P}'; export GIT_SSH_COMMAND; ${SSH}`, expect: "not-allow", git: true },
  { line: `: \${GIT_SSH_COMMAND:={P};}; export GIT_SSH_COMMAND; ${SSH}`, expect: "deny", git: true },
  { line: `export GIT_SSH_COMMAND; : \${GIT_SSH_COMMAND={P};}; ${SSH}`, expect: "deny", git: true },
  { line: `for GIT_SSH_COMMAND in '{P};'; do export GIT_SSH_COMMAND; ${SSH}; done`, expect: "deny", git: true },
  { line: `command export GIT_SSH_COMMAND='{P};'; ${SSH}`, expect: "deny", git: true },
  { line: `builtin declare -x GIT_SSH_COMMAND='{P};'; ${SSH}`, expect: "deny", git: true },
  { line: `GIT_SSH_COMMAND[0]='{P};'; export GIT_SSH_COMMAND; ${SSH}`, expect: "deny", array: true },
  { line: `getopts p GIT_SSH_COMMAND -p; export GIT_SSH_COMMAND; ${SSH}`, expect: "not-allow" },
  // BASH_ENV: a bash it starts expands the value (command substitutions included).
  { line: `read BASH_ENV <<< '$({P})'; export BASH_ENV; bash -c true`, expect: "not-allow" },
  { line: `printf -v BASH_ENV '$({P})'; export BASH_ENV; bash -c true`, expect: "not-allow" },
  // PATH set by a builtin: which program a name runs is not known.
  { line: `mapfile -t PATH <<< "$PWD/b"; ls`, expect: "not-allow", array: true },
  { line: `read PATH <<< "$PWD/b"; ls`, expect: "not-allow", setup: "mkdir -p b && printf '#!/bin/sh\\n/usr/bin/{P}\\n' > b/ls && chmod +x b/ls" },
  { line: `printf -v PATH '%s' "$PWD/b"; ls`, expect: "not-allow", setup: "mkdir -p b && printf '#!/bin/sh\\n/usr/bin/{P}\\n' > b/ls && chmod +x b/ls" },
];

/** bash's table of command paths: `ls` runs the program the entry names. The payload is the program and its arguments. */
const TABLES: readonly string[] = [
  "BASH_CMDS[ls]={PROGRAM}; ls {ARGS}",
  "BASH_CMDS=([ls]={PROGRAM}); ls {ARGS}",
  "BASH_CMDS+=([ls]={PROGRAM}); ls {ARGS}",
  "declare -A BASH_CMDS=([ls]={PROGRAM}); ls {ARGS}",
  "read 'BASH_CMDS[ls]' <<< {PROGRAM}; ls {ARGS}",
  "printf -v 'BASH_CMDS[ls]' {PROGRAM}; ls {ARGS}",
];

const ARITHMETIC_STATIC: readonly string[] = [
  "x='a[$({P})]'; echo $((x))",
  "x='a[$({P})]'; echo $[x]",
  "x='a[$({P})]'; (( x ))",
  "x='a[$({P})]'; [[ x -lt 2 ]]",
  "x='a[$({P})]'; [[ $x -eq 1 ]]",
  "x='a[$({P})]'; let y=x",
  "x='a[$({P})]'; declare -i y=x",
  "x='a[$({P})]'; typeset -i y; y=x",
  "x='a[$({P})]'; for ((i=x;0;)); do :; done",
  "x='a[$({P})]'; echo ${arr[x]}",
  "x='a[$({P})]'; y[x]=1",
  "x='a[$({P})]'; y=([x]=1)",
  "x='a[$({P})]'; set -- 1 2; echo ${!x}",
  "x='a[$({P})]'; case 1 in $((x))) ;; esac",
  "x='a[$({P})]'; echo ${@:x}",
  "x='a[`{P}`]'; echo $((x))",
];

const ARITHMETIC_RUNTIME: readonly Line[] = [
  { line: "read x <<< 'a[$({P})]'; echo $((x))", expect: "not-allow" },
  { line: "printf -v x '%s' 'a[$({P})]'; echo $((x))", expect: "not-allow" },
  { line: "x='a[$'; y='({P})]'; z=\"$x$y\"; echo $((z))", expect: "not-allow" },
  { line: "x=$(cat v.txt); echo $((x))", expect: "not-allow", setup: "printf '%s' 'a[$({P})]' > v.txt" },
  { line: "x=$(cat v.txt); [[ $x -gt 0 ]]", expect: "not-allow", setup: "printf '%s' 'a[$({P})]' > v.txt" },
  { line: "while read -r x; do echo $((x)); done < v.txt", expect: "not-allow", setup: "printf '%s\\n' 'a[$({P})]' > v.txt" },
];

const GUARD_PAYLOAD = "rm -rf /tmp/x";
const RUN_PAYLOAD = "touch MARKER";
const fill = (text: string, payload: string) => text.replaceAll("{P}", payload);
const hasGit = installed("git");

describe("a variable set by a builtin, a loop or an expansion reaches the commands after it", () => {
  it.each(SETS.map((c) => [fill(c.line, GUARD_PAYLOAD), c] as const))("%s", (line, c) => {
    const decision = denyList.decide("Bash", { command: line });
    if (c.expect === "deny") expect(decision.mode, decision.reason).toBe("deny");
    else expect(decision.mode, decision.reason).not.toBe("allow");
    expect(allowList.decide("Bash", { command: line }).mode).not.toBe("allow");
  });

  it.each(TABLES.map((c) => [c.replace("{PROGRAM}", "/bin/rm").replace("{ARGS}", "-rf /tmp/x")] as const))("%s is not allowed", (line) => {
    const decision = denyList.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).not.toBe("allow");
    expect(decision.reason).toMatch(/BASH_CMDS/);
    expect(allowList.decide("Bash", { command: line }).mode).not.toBe("allow");
  });

  it("says which variable and what reads it", () => {
    const decision = denyList.decide("Bash", { command: `read GIT_SSH_COMMAND <<< 'x'; export GIT_SSH_COMMAND; ${SSH}` });
    expect(decision.reason).toMatch(/sets GIT_SSH_COMMAND to a value only known when it runs, and a program runs it as a command/);
  });
});

describe("a variable named in arithmetic is evaluated, array subscripts in its value included", () => {
  it.each(ARITHMETIC_STATIC.map((line) => [fill(line, GUARD_PAYLOAD)] as const))("%s is denied", (line) => {
    const decision = denyList.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe("deny");
    expect(allowList.decide("Bash", { command: line }).mode).not.toBe("allow");
  });

  it.each(ARITHMETIC_RUNTIME.map((c) => [fill(c.line, GUARD_PAYLOAD)] as const))("%s is not allowed", (line) => {
    const decision = denyList.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).not.toBe("allow");
    expect(allowList.decide("Bash", { command: line }).mode).not.toBe("allow");
  });

  it("names the variable and why", () => {
    expect(denyList.decide("Bash", { command: "read x < v.txt; echo $((x))" }).reason).toMatch(
      /bash evaluates x as arithmetic, and its value is only known when the line runs: an array subscript in it \(a\[\$\(cmd\)\]\) runs the commands in it/,
    );
  });

  it("numbers, counters and values never read as arithmetic stay allowed under the deny list", () => {
    for (const line of [
      "count=0; for f in *.ts; do count=$((count+1)); done; echo $count",
      "len=${#arr[@]}; echo $((len-1))",
      "for i in 1 2 3; do echo $((i*2)); done",
      "while read -r line; do echo \"$line\"; done < a.txt",
      "i=0; while [ $i -lt 3 ]; do i=$((i+1)); done",
      'read -r name <<< "x"; echo "$name"',
      "printf -v now '%s' hi; echo $now",
      "for f in *.md; do wc -l \"$f\"; done",
      ": ${TMPDIR:=/tmp}; echo $TMPDIR",
      "x=$(git rev-parse HEAD); echo ${x:0:7}",
    ]) {
      const decision = denyList.decide("Bash", { command: line });
      expect(decision.mode, `${line}: ${decision.reason}`).toBe("allow");
    }
  });
});

describe("the real bash runs the payload of each line", () => {
  const run = (line: string, setup: string | undefined) => leavesMarker(setup === undefined ? line : `${fill(setup, RUN_PAYLOAD)}; ${line}`);
  it.each(SETS.filter((c) => c.array !== true && (c.expect === "deny" || c.setup !== undefined || c.git === true)).map((c) => [fill(c.line, RUN_PAYLOAD), c] as const))("%s", (line, c) => {
    if (c.git === true && !hasGit) return;
    const result = run(line, c.setup);
    expect(result.left, result.stderr).toBe(true);
  });

  it.each(TABLES.map((c) => [c.replace("{PROGRAM}", "/usr/bin/touch").replace("{ARGS}", "MARKER")] as const))("%s", (line) => {
    const result = leavesMarker(line);
    expect(result.left, result.stderr).toBe(true);
  });

  it.each(ARITHMETIC_STATIC.map((line) => [fill(line, RUN_PAYLOAD)] as const))("%s", (line) => {
    const result = leavesMarker(line);
    expect(result.left, result.stderr).toBe(true);
  });

  it.each(ARITHMETIC_RUNTIME.map((c) => [fill(c.line, RUN_PAYLOAD), c] as const))("%s", (line, c) => {
    const result = run(line, c.setup);
    expect(result.left, result.stderr).toBe(true);
  });

  it("BASH_ENV set by read is expanded by the bash it starts", () => {
    const result = leavesMarker(`read BASH_ENV <<< '$(${RUN_PAYLOAD})'; export BASH_ENV; bash -c true`);
    expect(result.left, result.stderr).toBe(true);
  });
});
