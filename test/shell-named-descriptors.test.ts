// A redirection to a descriptor bash allocates and names (`{fd}>out.txt`, `{fd}<a.txt`, `{fd}>&-`):
// bash reads `{NAME}` right before the operator as part of the redirection, and the next word as the
// command's (`git {fd}>out.txt push` is `git push`); the parser reads `{fd}` as a word of the command
// (`git {fd} push`), and sh (dash) does too. Under a deny list (the Bash tool low risk, `git push` and
// `rm` denied) each line was allowed while bash ran the denied program; found by the shell oracle's
// descriptor transform. The real bash runs each with `touch` to show the word after it is the command's.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { bashGuard, denyListGuard, leavesMarker } from "./helpers/bash-rules.js";

const denyList = denyListGuard(["git push:*", "rm:*"], "named-descriptors");
const allowList = bashGuard(["git log:*", "ls:*", "git status", "echo:*"], ["git push:*", "rm:*"], "named-descriptors-allow");

const REDIRECTIONS = ["{fd}>out.txt", "{fd}<a.txt", "{out}>>log.txt", "{_x1}>/dev/null", "{fd}>&2"];

describe("{NAME} before a redirection operator is the redirection's, and the next word the command's", () => {
  it.each(REDIRECTIONS.map((r) => [`git ${r} push --force`] as const))("%s is denied", (line) => {
    const decision = denyList.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe("deny");
    expect(allowList.decide("Bash", { command: line }).mode).toBe("deny");
  });

  it.each(REDIRECTIONS.map((r) => [`${r} rm -rf /tmp/x`] as const))("%s is denied", (line) => {
    const decision = denyList.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe("deny");
  });

  it("`{fd}` apart from the operator, quoted, or not a name is a word, as before", () => {
    expect(denyList.decide("Bash", { command: "echo {fd} >out.txt push" }).mode).toBe("allow");
    expect(denyList.decide("Bash", { command: "echo '{fd}>x' push" }).mode).toBe("allow");
    expect(denyList.decide("Bash", { command: "echo {a,b}>x" }).mode).toBe("allow");
  });

  it("`<>` (read and write), which the parser does not read, leaves a deny that cannot tell", () => {
    expect(denyList.decide("Bash", { command: "git {fd}<>a.txt push" }).mode).toBe("ask");
  });

  it("no allow covers a line bash and the parser read apart", () => {
    expect(allowList.decide("Bash", { command: "git {fd}>/dev/null log" }).mode).not.toBe("allow");
  });
});

describe("the real bash reads the word after {NAME}> as the command's", () => {
  it.each(REDIRECTIONS.map((r) => [`touch ${r} MARKER`] as const))("%s", (line) => {
    const result = leavesMarker(line);
    expect(result.left, result.stderr).toBe(true);
  });
});

// Descriptors 10 and above: bash redirects them, sh (dash) knows 0-9 only and reads the number as a word
// (`npm 10>&- run test` is `npm 10 run test` to sh). The narrow allow list of the shell oracle allowed
// `npm 10>&- run test -- --watch` while sh ran `npm 10 run test -- --watch`, which it does not cover.
describe("a descriptor above 9 is a word to sh (dash): no allow covers the line", () => {
  const npm = bashGuard(["npm run test:*", "ls:*"], ["rm:*"], "dash-descriptors-allow");
  it.each([["npm 10>&- run test -- --watch"], ["ls 12>/dev/null -la"], ["npm run 10>&2 test"]] as const)("%s", (line) => {
    const decision = npm.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe("ask");
    expect(decision.reason).toMatch(/sh \(dash\) reads as a word/);
  });

  it("descriptors 0-9 stay as allowed as before", () => {
    expect(npm.decide("Bash", { command: "npm run test 2>&1" }).mode).toBe("allow");
  });

  it("the real sh reads 10 as a word", () => {
    const run = spawnSync("sh", ["-c", 'set -- 10>&-; printf "%s" "$1"'], { encoding: "utf8" });
    expect(run.stdout).toBe("10");
  });
});
