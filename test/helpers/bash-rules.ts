import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parsePolicy, permissionPolicy } from "../../src/policy/index.js";

/** What a case expects of the guard: deny, ask, allow, or anything but allow. */
export type BashExpectation = "deny" | "ask" | "allow" | "not-allow";

/** A guard with deny rules, then allow rules, on Bash patterns (`rm:*`, `git config:*`), written as users write them. */
export function bashGuard(allow: readonly string[], deny: readonly string[], name: string) {
  const rules = [
    ...deny.map((pattern) => `  - { rule: ${JSON.stringify(`Bash(${pattern})`)}, mode: deny }`),
    ...allow.map((pattern) => `  - { rule: ${JSON.stringify(`Bash(${pattern})`)}, mode: allow }`),
  ];
  return permissionPolicy(parsePolicy(`version: 1\npermissions:\n${rules.join("\n")}\n`, "yaml", `${name}.yaml`));
}

/**
 * A deny list as users write one: the Bash tool low risk (a line no rule decides runs), and only the
 * given Bash patterns denied (`rm:*`, `git push:*`). A line the guard misreads here runs.
 */
export function denyListGuard(deny: readonly string[], name: string) {
  const rules = deny.map((pattern) => `  - { rule: ${JSON.stringify(`Bash(${pattern})`)}, mode: deny }`);
  return permissionPolicy(parsePolicy(`version: 1\npermissions:\n${rules.join("\n")}\ntools:\n  Bash: { risk: low }\n`, "yaml", `${name}.yaml`));
}

/** Checks a decision of `guard` on the command against the expectation, and that its reason names `reason`. */
export function expectBashDecision(guard: ReturnType<typeof bashGuard>, command: string, expected: BashExpectation, reason: RegExp | undefined): void {
  const decision = guard.decide("Bash", { command });
  if (expected === "not-allow") expect(decision.mode, decision.reason).not.toBe("allow");
  else expect(decision.mode, decision.reason).toBe(expected);
  if (reason !== undefined) expect(decision.reason).toMatch(reason);
}

/** A class of bypasses from one public source: the rules users write for it, and its cases. */
export interface BashClass {
  readonly name: string;
  readonly source: string;
  readonly allow: readonly string[];
  readonly cases: readonly { readonly command: string; readonly expect: BashExpectation; readonly reason?: RegExp | undefined }[];
}

/** One `describe` per class under `title`: each case's decision by a guard of the class's allows and `deny`. */
export function describeBashClasses(title: string, classes: readonly BashClass[], deny: readonly string[], name: string): void {
  describe(title, () => {
    for (const klass of classes) {
      describe(`${klass.name} [${klass.source}]`, () => {
        const guard = bashGuard(klass.allow, deny, name);
        it.each(klass.cases.map((c) => [c.command, c] as const))("%s", (_command, c) => expectBashDecision(guard, c.command, c.expect, c.reason));
      });
    }
  });
}

/** Whether `program` is on this machine's PATH. */
export const installed = (program: string): boolean => spawnSync("bash", ["-c", `command -v -- ${JSON.stringify(program)}`]).status === 0;

/**
 * Runs `line` with the real bash in a scratch directory (a.txt and a.csv in it, HOME there, standard
 * input from /dev/null) and says whether it left MARKER or OUT there: a payload whose inner command was
 * replaced by `touch MARKER`, or whose write was aimed at OUT, did what it says (25 s at most: python3 and
 * pytest start slowly when the whole suite loads the machine).
 */
export function leavesMarker(line: string, env: Readonly<Record<string, string>> = {}): { left: boolean; stderr: string } {
  const dir = mkdtempSync(path.join(tmpdir(), "marker-"));
  try {
    writeFileSync(path.join(dir, "a.txt"), "hello\nworld\n");
    writeFileSync(path.join(dir, "a.csv"), "a,b\n1,2\n");
    const run = spawnSync("bash", ["-c", line], { cwd: dir, timeout: 25_000, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, HOME: dir, TERM: "dumb", ...env } });
    return { left: existsSync(path.join(dir, "MARKER")) || existsSync(path.join(dir, "OUT")), stderr: String(run.stderr) };
  } finally {
    // A program the line started may still be writing there (sort's compressors): rmdir is retried on ENOTEMPTY.
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}
