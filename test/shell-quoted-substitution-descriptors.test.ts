// Descriptor redirections the parser misreads (`0<`, `{fd}>`), inside a command substitution inside
// double quotes: `echo "$(git 0</dev/null push)"`. The guard's reading of them as bash reads them skipped
// double-quoted text whole, the command substitution in it included, so the parser's reading (`git 0
// push`) stood alone: under a deny list (the Bash tool low risk, `git push` denied) each line was
// allowed while bash ran `git push`; found by the shell oracle's descriptor transform under its
// substitution transform. The real bash runs each with `touch` to show the word after it is the command's.
import { describe, expect, it } from "vitest";
import { denyListGuard, leavesMarker } from "./helpers/bash-rules.js";

const denyList = denyListGuard(["git push:*"], "quoted-substitution-descriptors");

const LINES: readonly string[] = [
  'echo "$({W} 0</dev/null {A})"',
  'echo "$({W} 0< /dev/null {A})"',
  'x="$({W} {fd}>out.txt {A})"',
  'echo "a $(echo "$({W} 0<a.txt {A})")"',
  'echo "$(ls; {W} 0<a.txt {A})" $(ls)',
  'echo "$( ( {W} 0</dev/null {A} ) )"',
];

const fill = (line: string, word: string, argument: string) => line.replaceAll("{W}", word).replaceAll("{A}", argument);

describe("a redirection inside a double-quoted command substitution is read as bash reads it", () => {
  it.each(LINES.map((line) => [fill(line, "git", "push --force")] as const))("%s is denied", (line) => {
    const decision = denyList.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe("deny");
  });

  it("`0<` in double-quoted text outside a substitution is text, as before", () => {
    expect(denyList.decide("Bash", { command: 'echo "0<x $(ls) 0<y" push' }).mode).toBe("allow");
  });
});

describe("the real bash reads the word after the redirection as the command's", () => {
  it.each(LINES.map((line) => [fill(line, "touch", "MARKER")] as const))("%s", (line) => {
    const result = leavesMarker(line);
    expect(result.left, result.stderr).toBe(true);
  });
});
