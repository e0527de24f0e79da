// `cd` in a subshell — `( … )`, `$( … )`, backquotes, a pipeline's parts but the last — changes the
// directory of the commands inside it only: `(cd /etc) && cat ./shadow` reads ./shadow where the line
// started. The guard moved every later command, so an allow for `cat ./*` asked needlessly; it must
// never allow more than the shells keep inside, though: a group `{ cd …; }` and a pipeline's last
// part (zsh runs it in the current shell) move the commands after them.
//
// Real bash and zsh judge: each line runs in a directory holding `shadow` ("start"), with T an
// absolute directory holding another `shadow` ("moved"); what `cat` printed says where it ran.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bashGuard, installed } from "./helpers/bash-rules.js";

const root = mkdtempSync(path.join(tmpdir(), "gg-cd-scope-"));
const T = path.join(root, "t");
mkdirSync(T);
writeFileSync(path.join(root, "shadow"), "start\n");
writeFileSync(path.join(T, "shadow"), "moved\n");
afterAll(() => rmSync(root, { recursive: true, force: true }));

const guard = bashGuard(["cat ./*", "cd:*", "echo:*", "true", "ls:*"], [], "shell-cd-scope");

/** Lines and whether the guard should allow them (`stays`: cat runs where the line started in bash and zsh alike). */
const CASES: readonly { line: string; stays: boolean }[] = [
  { line: "(cd T) && cat ./shadow", stays: true },
  { line: "(cd T; true) && cat ./shadow", stays: true },
  { line: "(cd T); cat ./shadow", stays: true },
  { line: "cd T | true; cat ./shadow", stays: true },
  { line: "cd T | cat ./shadow", stays: true },
  { line: "(cd T) ; (cd /); cat ./shadow", stays: true },
  { line: "( (cd T) ) && cat ./shadow", stays: true },
  { line: "(cd T && cat ./shadow)", stays: false },
  { line: "cd T && (cat ./shadow)", stays: false },
  { line: "(cd T; (cat ./shadow))", stays: false },
  { line: "(cd T; echo $(cat ./shadow))", stays: false },
  { line: "{ cd T; } && cat ./shadow", stays: false },
  { line: "echo $(cd T; cat ./shadow)", stays: false },
  { line: "true | cd T; cat ./shadow", stays: false },
  { line: "(cd /) && cd T && cat ./shadow", stays: false },
  { line: "cd T; (cd /); cat ./shadow", stays: false },
];

/** Where `cat` ran in this shell: "start", "moved", or undefined when the shell is missing. */
function ranIn(shell: string, line: string): string | undefined {
  if (!installed(shell)) return undefined;
  const run = spawnSync(shell, ["-c", line], { cwd: root, encoding: "utf8", timeout: 10_000 });
  return /moved/.test(run.stdout) ? "moved" : /start/.test(run.stdout) ? "start" : "none";
}

// A command substitution makes its command one no allow covers (its words are known only when it
// runs), so these are judged for the property alone: never allowed where a shell ran cat in T.
const SUBSTITUTIONS = ["echo $(cd T) && cat ./shadow", 'echo "$(cd T; ls)"; cat ./shadow', "echo `cd T` && cat ./shadow", "echo $(cd T; cat ./shadow)", "cat $(cd T; echo ./shadow)"];

describe("cd inside a command substitution", () => {
  it.each(SUBSTITUTIONS)("%s", (text) => {
    const line = text.replaceAll("T", T);
    const decision = guard.decide("Bash", { command: line });
    if (["bash", "zsh"].some((shell) => ranIn(shell, line) === "moved")) expect(decision.mode, decision.reason).not.toBe("allow");
    expect(decision.mode).not.toBe("allow");
  });
});

describe("cd inside a subshell: the directory of later commands, as bash and zsh keep it", () => {
  it.each(CASES.map((c) => [c.line, c] as const))("%s", (_line, c) => {
    const line = c.line.replaceAll("T", T);
    const decision = guard.decide("Bash", { command: line });
    const shells = ["bash", "zsh"].map((shell) => ranIn(shell, line));
    // Never allowed where a shell ran cat in the moved directory.
    if (shells.includes("moved")) expect(decision.mode, `${line}: ${decision.reason ?? ""}`).not.toBe("allow");
    // The cases named as staying do stay in both shells (the test's own claim), and are allowed.
    if (c.stays) {
      for (const where of shells) if (where !== undefined) expect(where).toBe("start");
      expect(decision.mode, decision.reason).toBe("allow");
    } else expect(decision.mode, decision.reason).not.toBe("allow");
  });
});
