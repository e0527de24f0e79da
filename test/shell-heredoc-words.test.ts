// Words after a here-document's start on the same line are words of the command: bash runs
// `git <<EOF push` as `git push` (a redirection may stand anywhere in a simple command). The parser
// puts them inside the here-document's redirection, and the guard read each as a command of its own
// (`git`, then `push`), so a deny on `git push:*` let the line run. The real bash judges: a `git` on
// PATH records the words it was given.
import { afterAll, describe, expect, it } from "vitest";
import { bashGuard, denyListGuard } from "./helpers/bash-rules.js";
import { recordingPrograms } from "./helpers/recording-programs.js";

const programs = recordingPrograms(["git", "rm"], "gg-heredoc-words-");
afterAll(() => programs.remove());
/** What bash ran through the recording programs, each command as its words joined by blanks. */
const ranByBash = (line: string): string[] => (programs.run(line) ?? []).map((words) => words.join(" "));

const deny = denyListGuard(["git push:*", "rm:*"], "heredoc-words");

describe("words after a here-document's start are the command's: a deny reads them", () => {
  it.each([
    ["git <<EOF push\nhello\nEOF", "git push"],
    ["git <<EOF push origin main\nEOF", "git push origin main"],
    ["git 2<<EOF push origin\nEOF", "git push origin"],
    ["git <<-EOF push\n\tEOF", "git push"],
    ["git <<'EOF' push --force\n$x\nEOF", "git push --force"],
    ["git <<EOF >/dev/null push\nEOF", "git push"],
    // The parser cannot read these two (two here-documents; one after `&&`): the deny cannot tell, the call asks.
    ["git <<A <<B push\na\nA\nb\nB", "git push", "ask"],
    ["rm <<EOF -f x\nEOF", "rm -f x"],
    ["true && git <<EOF push\nEOF", "git push", "ask"],
  ])("%s", (line, ran, mode = "deny") => {
    const decision = deny.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe(mode);
    expect(ranByBash(line)).toContain(ran);
  });

  it("an allow of `git status:*` does not cover `git <<EOF push`, nor does `git push` become a program of its own", () => {
    const allow = bashGuard(["git status:*", "push:*"], [], "heredoc-words-allow");
    expect(allow.decide("Bash", { command: "git <<EOF push\nEOF" }).mode).not.toBe("allow");
    expect(ranByBash("git <<EOF push\nEOF")).toEqual(["git push"]);
  });

  it("the descriptor of `2<<EOF` is no command: `cat 3<<EOF` is cat alone", () => {
    const allow = bashGuard(["cat:*", "2:*"], [], "heredoc-descriptor");
    const decision = allow.decide("Bash", { command: "cat 3<<EOF\nx\nEOF" });
    // A here-document is a construct no allow covers; the point is that the reason is that, not a command "3".
    expect(decision.reason).not.toMatch(/\b3\b/);
  });
});
