// Words after a here-document's start on the same line are words of the command: bash runs
// `git <<EOF push` as `git push` (a redirection may stand anywhere in a simple command). The parser
// puts them inside the here-document's redirection, and the guard read each as a command of its own
// (`git`, then `push`), so a deny on `git push:*` let the line run. The real bash judges: a `git` on
// PATH records the words it was given.
import { afterAll, describe, expect, it } from "vitest";
import { bashGuard, denyListGuard, installed, leavesMarker } from "./helpers/bash-rules.js";
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

// The parser drops a lone `-` right before a redirection: `sed -n -f - <<EOF` read as `sed -n -f`, so
// the sed program the here-document holds (`1e CMD` runs CMD) was not read. bash hands the `-` over.
describe("a lone - before a redirection is a word: the program a here-document feeds is read", () => {
  it.each([
    // (With no file operand sed's input is the here-document too, read up as its program: line 1 never comes, so this one is not run.)
    ["sed -n -f - <<EOF\n1e rm -rf x\nEOF", "", "deny"],
    ["awk -f - <<EOF\nBEGIN{system(\"rm -rf x\")}\nEOF", "awk -f - <<EOF\nBEGIN{system(\"touch MARKER\")}\nEOF", "deny"],
    ["make -f - <<EOF\nall:\n\trm -rf x\nEOF", "make -s -f - <<EOF\nall:\n\ttouch MARKER\nEOF", "deny"],
    ["sed -n -f - a.txt <<EOF\n1e git push\nEOF", "sed -n -f - a.txt <<EOF\n1e touch MARKER\nEOF", "deny"],
  ] as const)("%s", (line, run, mode) => {
    const decision = deny.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe(mode);
    for (const program of ["sed", "awk", "make"]) if (run.startsWith(program) && installed(program)) expect(leavesMarker(run).left, run).toBe(true);
  });

  it("`cat - 2>&1` is cat reading its input (the `-` is a word)", () => {
    const allow = bashGuard(["cat -"], [], "heredoc-dash");
    expect(allow.decide("Bash", { command: "cat - 2>&1" }).mode).toBe("allow");
  });
});
