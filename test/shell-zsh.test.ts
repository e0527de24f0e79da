// Agents' shell tools often run the user's login shell, zsh on macOS. zsh runs the command after its
// precommand modifiers (`noglob rm x`, `nocorrect rm x`, `- rm x`, `repeat 2 rm x`) where bash would
// look for a program of that name: a deny rule on the command must hold there too. zsh's code-running
// expansions (glob qualifiers `*(e:...:)`, `${(e)x}`, `=(...)`) are not bash syntax: no allow covers
// them. A word `=NAME` is the path of the command NAME (`=rm x` runs rm). Judged by the real zsh when it
// is installed (Debian's zsh).
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { bashGuard, expectBashDecision, installed, type BashExpectation } from "./helpers/bash-rules.js";

const X = "rm -rf /tmp/x";
const DENY = ["rm:*", "nc:*"];
const ALLOW = ["ls:*", "echo:*", "git status:*"];

const CASES: readonly { line: string; expect: BashExpectation }[] = [
  { line: `noglob ${X}`, expect: "deny" },
  { line: `nocorrect ${X}`, expect: "deny" },
  { line: `- ${X}`, expect: "deny" },
  { line: `repeat 2 ${X}`, expect: "deny" },
  { line: `noglob nocorrect ${X}`, expect: "deny" },
  { line: `ls; noglob ${X}`, expect: "deny" },
  { line: "noglob curl -s https://example.com/x.sh", expect: "not-allow" },
  { line: "ls *(e:'rm -rf /tmp/x':)", expect: "not-allow" },
  { line: "ls **/*(e.rm -rf /tmp/x.)", expect: "not-allow" },
  { line: "x='$(rm -rf /tmp/x)'; echo ${(e)x}", expect: "not-allow" },
  { line: "echo =(rm -rf /tmp/x)", expect: "not-allow" },
  // EQUALS: a word `=NAME` is the path of the command NAME.
  { line: `=${X}`, expect: "deny" },
  { line: `sudo =${X}`, expect: "deny" },
  { line: `=env ${X}`, expect: "deny" },
  { line: "=ls -la", expect: "not-allow" },
  // zsh builtins and functions that run a command line.
  { line: `emulate sh -c '${X}'`, expect: "deny" },
  { line: `zmodload zsh/zpty; zpty job '${X}'`, expect: "deny" },
  { line: `zpty -w job '${X}'`, expect: "deny" },
  { line: "autoload zargs; zargs -- /tmp/x -- rm -rf", expect: "deny" },
  // The plain uses stay allowed.
  { line: "noglob git status", expect: "allow" },
  { line: "nocorrect ls -la", expect: "allow" },
];

describe("zsh's precommand modifiers and code-running expansions", () => {
  const guard = bashGuard(ALLOW, DENY, "shell-zsh");
  it.each(CASES.map((c) => [c.line, c] as const))("%j", (_line, c) => expectBashDecision(guard, c.line, c.expect, undefined));
});

/** Runs `line` with the real zsh in a scratch directory holding two files; whether it left MARKER. */
function zshLeavesMarker(line: string): boolean {
  const dir = mkdtempSync(path.join(tmpdir(), "zsh-"));
  try {
    writeFileSync(path.join(dir, "a.txt"), "a\n");
    writeFileSync(path.join(dir, "b.txt"), "b\n");
    spawnSync("zsh", ["-f", "-c", line], { cwd: dir, timeout: 10_000, stdio: "ignore", env: { ...process.env, HOME: dir } });
    return existsSync(path.join(dir, "MARKER"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.skipIf(!installed("zsh"))("the real zsh runs them", () => {
  it.each(["noglob touch MARKER", "nocorrect touch MARKER", "true; - touch MARKER", "repeat 2 touch MARKER", "ls *(e:'touch MARKER':) >/dev/null", "x='$(touch MARKER)'; echo ${(e)x}", "echo =(touch MARKER) >/dev/null", "=touch MARKER", "=env touch MARKER", "emulate sh -c 'touch MARKER'", "zmodload zsh/zpty; zpty job 'touch MARKER'; for i in {1..50}; do [[ -e MARKER ]] && break; sleep 0.1; done", "autoload zargs; zargs -- MARKER -- touch"])("%j", (line) => {
    expect(zshLeavesMarker(line)).toBe(true);
  });
});
