// Command lines that reach a command through something other than its words: bash's `compgen -W`
// expands its word list (command substitutions included), `history -s TEXT` stores a command line that
// `fc -e -`/`fc -s` run again, task-spooler (`tsp CMD`) queues and runs its command, and a line can write
// a script and run it (`echo CMD > s.sh; . s.sh`). Under a deny list (the Bash tool low risk, `rm`
// denied) the guard allowed each of these while bash ran the payload; the real bash runs each line with
// the payload replaced by `touch MARKER`.
import { describe, expect, it } from "vitest";
import { bashGuard, denyListGuard, installed, leavesMarker } from "./helpers/bash-rules.js";

const denyList = denyListGuard(["rm:*"], "written-scripts");
const allowList = bashGuard(["echo:*", "cat:*", "printf:*", "chmod:*", "compgen:*", "history:*", "fc:*"], ["rm:*"], "written-scripts-allow");

interface Case {
  readonly line: string;
  readonly expect: "deny" | "not-allow";
  /** Run by the real bash (a program it needs may be missing). */
  readonly needs?: string;
  /** Not run by the real bash (nothing of the line's own is run again). */
  readonly noRun?: true;
}

const CASES: readonly Case[] = [
  { line: "compgen -W '$({P})' foo", expect: "deny" },
  { line: "compgen -W '`{P}`' -- x", expect: "deny" },
  { line: "history -s '{P}'; fc -e - {W}", expect: "deny" },
  { line: "fc -e - {W}", expect: "not-allow", noRun: true },
  { line: "tsp {P}", expect: "deny", needs: "tsp" },
  { line: "tsp -L job {P}", expect: "deny", needs: "tsp" },
  { line: "echo '{P}' > s.sh; . s.sh", expect: "not-allow" },
  { line: "echo '{P}' > s.sh && bash s.sh", expect: "not-allow" },
  { line: "echo '{P}' >> ./s.sh; source s.sh", expect: "not-allow" },
  { line: "printf '%s\\n' '{P}' > s.sh; sh -e s.sh", expect: "not-allow" },
  { line: "cat > s.sh <<'EOF'\n{P}\nEOF\nbash s.sh", expect: "not-allow" },
  { line: "printf '{P}' | tee s.sh > /dev/null; sh s.sh", expect: "not-allow" },
  { line: "printf '#!/bin/sh\\n{P}\\n' > s.sh; chmod +x s.sh; ./s.sh", expect: "not-allow" },
  { line: "echo '{P}' > a.tmp; cp a.tmp run.sh; bash run.sh", expect: "not-allow" },
  // awk runs input lines or built strings as commands (system() of an expression, a pipe to a shell or from a built command).
  { line: "echo '{P}' | awk '{system($0)}'", expect: "not-allow" },
  { line: "awk '{system($0)}' <<< '{P}'", expect: "not-allow" },
  { line: "printf '%s\\n' '{P}' | awk '{cmd=$0; system(cmd)}'", expect: "not-allow" },
  { line: "printf '%s\\n' '{P}' | awk '{print | \"sh\"}'", expect: "not-allow" },
  { line: "echo '{P}' | awk '{print $0 | \"bash\"}'", expect: "not-allow" },
  { line: "echo '{P}' | awk '{ $0 | getline x }'", expect: "not-allow" },
  { line: "echo '{P}' | awk '{print | \"s\\\\h\"}'", expect: "not-allow" },
  { line: "echo '{P}' | awk '{print | \"env sh\"}'", expect: "not-allow" },
  { line: "awk '{print | \"{P}\"}' a.txt", expect: "deny" },
  // A program given a process substitution as its code file runs the text the line writes into it.
  { line: "python3 <(echo 'import os; os.system(\"{P}\")')", expect: "deny" },
  { line: "perl <(echo 'system(\"{P}\")')", expect: "deny" },
  // (Node.js cannot open a pipe's /dev/fd path as its script, so bash's run of this one fails before any code runs.)
  { line: "node <(echo 'require(\"child_process\").execSync(\"{P}\")')", expect: "deny", noRun: true },
  { line: "awk -f <(echo 'BEGIN{system(\"{P}\")}')", expect: "deny" },
  { line: "sed -n -f <(echo '1e {P}') a.txt", expect: "deny" },
  { line: "make -s -f <(printf 'all:\\n\\t{P}\\n')", expect: "deny" },
  // A shell reading its commands from a process substitution reads what it writes.
  { line: "sh < <(echo '{P}')", expect: "deny" },
  { line: "bash < <(printf '{P}')", expect: "deny" },
  { line: "sh 0< <(echo '{P}')", expect: "deny" },
];

const fill = (line: string, payload: string, word: string) => line.replaceAll("{P}", payload).replaceAll("{W}", word);

describe("commands reached through expansion, history, a spooler or a script the line writes", () => {
  it.each(CASES.map((c) => [fill(c.line, "rm -rf /tmp/x", "rm"), c] as const))("%s", (line, c) => {
    const decision = denyList.decide("Bash", { command: line });
    if (c.expect === "deny") expect(decision.mode, decision.reason).toBe("deny");
    else expect(decision.mode, decision.reason).not.toBe("allow");
    expect(allowList.decide("Bash", { command: line }).mode).not.toBe("allow");
  });

  it("an awk program that prints into a command with a backslash or a quote in its literal is read, not thrown on", () => {
    for (const line of ["awk '{print | \"s\\$h\"}' a.txt", "awk '{print | \"so\\\\rt\"}' a.txt", "awk '{print | \"\\x\"}' a.txt"]) expect(() => denyList.decide("Bash", { command: line })).not.toThrow();
  });

  it("says that the line runs a script it writes", () => {
    expect(denyList.decide("Bash", { command: "echo x > s.sh; bash s.sh" }).reason).toMatch(/the line writes s\.sh and then runs it as a script, and what it holds is only known when the line runs/);
  });

  it("lines that write files and run other scripts, or run scripts they do not write, stay as allowed as before", () => {
    for (const line of [
      "echo hi > out.txt; cat out.txt",
      "bash build.sh > build.log",
      "echo x > log.txt; bash -c 'ls'",
      "compgen -W 'start stop' -- st",
      "fc -l",
      "./gradlew build > out.txt",
      "awk '{print $0 | \"sort -u\"}' a.txt",
      "awk 'BEGIN{while((\"ls\" | getline l)>0) print l}'",
      "awk '$1 > 0 || $2 < 1' a.txt",
      "awk -F'|' '{print $1}' a.txt",
      "awk '{print \"a|b\"}' a.txt",
      "cat < <(echo hi)",
      "python3 <(echo 'print(1)')",
      "awk -f <(echo '{print}') a.txt",
      "diff <(echo a) <(echo b)",
    ]) {
      const decision = denyList.decide("Bash", { command: line });
      expect(decision.mode, `${line}: ${decision.reason}`).toBe("allow");
    }
  });
});

describe("the real bash runs the payload of each line", () => {
  it.each(CASES.filter((c) => c.noRun !== true).map((c) => [fill(c.line, "touch MARKER", "touch"), c] as const))("%s", (line, c) => {
    if (c.needs !== undefined && !installed(c.needs)) return;
    // task-spooler runs the job in its server, after the line returns: the run waits for it (a socket of its own).
    const result = leavesMarker(c.needs === "tsp" ? `export TS_SOCKET=$PWD/ts.socket; ${line}; tsp -w >/dev/null 2>&1; tsp -K 2>/dev/null` : line);
    expect(result.left, result.stderr).toBe(true);
  });
});
