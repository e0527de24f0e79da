// Redirections of a descriptor the parser reads otherwise than bash: a lone `0` before `<` or `>`
// (`git 0</dev/null push`: bash redirects descriptor 0, the parser read a word `0`, so the command was
// `git 0 push`), and a redirection that closes a descriptor (`git 2>&- push`: `>&-` takes no word, the
// parser read `push` as its destination, so the command was `git`). Under a deny list (the Bash tool
// low risk, `git push` denied) each line was allowed while bash ran `git push`. The real bash runs each
// redirection before a word of `touch` to show that the word is the command's.
import { describe, expect, it } from "vitest";
import { bashGuard, denyListGuard, leavesMarker } from "./helpers/bash-rules.js";

const denyList = denyListGuard(["git push:*", "rm:*"], "descriptors");
const allowList = bashGuard(["git log:*", "ls:*", "git status"], ["git push:*"], "descriptors-allow");

/** Redirections bash reads as complete before the next word. */
const REDIRECTIONS = ["0</dev/null", "0<a.txt", "0<<<x", "0<&-", "0>/dev/null", "2>&-", "1>&-", "<&-", ">&-", "10>&-", "2>&- 0</dev/null"];

describe("a redirection of descriptor 0, or one that closes a descriptor, is followed by the command's words", () => {
  it.each(REDIRECTIONS.map((r) => [`git ${r} push --force`] as const))("%s is denied", (line) => {
    const decision = denyList.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe("deny");
  });

  it.each(REDIRECTIONS.map((r) => [`rm ${r} -rf /tmp/x`] as const))("%s is denied", (line) => {
    expect(denyList.decide("Bash", { command: line }).mode).toBe("deny");
  });

  it("a shell fed its script through descriptor 0 reads it", () => {
    for (const line of ["sh 0< <(echo 'rm -rf /tmp/x')", "sh 0<<< 'rm -rf /tmp/x'", "bash 0<<EOF\nrm -rf /tmp/x\nEOF"]) {
      const decision = denyList.decide("Bash", { command: line });
      expect(decision.mode, `${line}: ${decision.reason}`).toBe("deny");
    }
  });

  it("`0<>` (read and write) is not read as a plain input: the deny cannot tell", () => {
    expect(denyList.decide("Bash", { command: "git 0<>a.txt push" }).mode).not.toBe("allow");
  });

  it("allow rules hold as before where the words are the allowed ones", () => {
    expect(allowList.decide("Bash", { command: "git log 2>&- --oneline" }).mode).toBe("allow");
    expect(allowList.decide("Bash", { command: "ls 2>&- -la" }).mode).toBe("allow");
    expect(allowList.decide("Bash", { command: "git 2>&- push" }).mode).toBe("deny");
    // The parser and bash read `0<` otherwise: no allow covers it, the deny still reads both.
    expect(allowList.decide("Bash", { command: "git status 0</dev/null" }).mode).toBe("ask");
    expect(allowList.decide("Bash", { command: "git 0</dev/null push" }).mode).toBe("deny");
  });

  it("`0<` inside quotes or arithmetic is not a redirection", () => {
    expect(denyList.decide("Bash", { command: "echo '0<x' push" }).mode).toBe("allow");
    expect(denyList.decide("Bash", { command: "awk '$1 0<1' a.txt" }).mode).toBe("allow");
  });
});

describe("the real bash reads the word after the redirection as the command's", () => {
  it.each(REDIRECTIONS.map((r) => [`touch ${r} MARKER`] as const))("%s", (line) => {
    const result = leavesMarker(line);
    expect(result.left, result.stderr).toBe(true);
  });

  it.each([["sh 0< <(echo 'touch MARKER')"], ["sh 0<<< 'touch MARKER'"]] as const)("%s", (line) => {
    const result = leavesMarker(line);
    expect(result.left, result.stderr).toBe(true);
  });
});
