// A line that writes a script and feeds it to a shell or interpreter on its standard input:
// `echo CMD > s.sh; sh < s.sh`, `bash 0< s.sh`, `{ sh; } < s.sh`. The guard read a line that writes a
// script and runs it by name (`bash s.sh`, `. s.sh`) as one a deny cannot tell, but not one that
// redirects the written file into the shell: under a deny list (the Bash tool low risk, `rm` denied)
// each line below was allowed while bash ran the payload; found by the shell oracle's written-script
// transform. The real bash runs each with the payload replaced by `touch MARKER`.
import { describe, expect, it } from "vitest";
import { bashGuard, denyListGuard, leavesMarker } from "./helpers/bash-rules.js";

const denyList = denyListGuard(["rm:*"], "written-script-input");
const allowList = bashGuard(["echo:*", "printf:*", "cat:*", "sh", "bash"], ["rm:*"], "written-script-input-allow");

const LINES: readonly string[] = [
  "echo '{P}' > s.sh; sh < s.sh",
  "printf '%s\\n' '{P}' > s.sh; bash < s.sh",
  "echo '{P}' > s.sh && bash 0< ./s.sh",
  "echo '{P}' >> s.sh; sh -s < s.sh",
  "echo '{P}' > s.sh; { sh; } < s.sh",
  "echo '{P}' > s.sh; (bash) < s.sh",
  "dash -c \"echo '{P}' > s.sh; sh < s.sh\"",
  "echo '{P}' > /tmp/s.sh; sh < /tmp/s.sh",
];

const fill = (line: string, payload: string) => line.replaceAll("{P}", payload);

describe("a script the line writes and feeds to a shell's input", () => {
  it.each(LINES.map((line) => [fill(line, "rm -rf /tmp/x")] as const))("%s is not allowed", (line) => {
    const decision = denyList.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).not.toBe("allow");
    expect(decision.reason).toMatch(/the line writes .*s\.sh and then runs it as a script/);
    expect(allowList.decide("Bash", { command: line }).mode).not.toBe("allow");
  });

  it("a shell reading a file the line does not write, or a written file read by another program, stays as allowed as before", () => {
    for (const line of ["sh < build.sh", "echo hi > out.txt; sh < build.sh", "echo hi > s.sh; cat < s.sh", "echo hi > s.sh; grep x < s.sh"]) {
      expect(denyList.decide("Bash", { command: line }).mode, line).toBe("allow");
    }
  });
});

describe("the real bash runs the script it wrote", () => {
  it.each(LINES.map((line) => [fill(line, "touch MARKER")] as const))("%s", (line) => {
    const result = leavesMarker(line.replaceAll("/tmp/s.sh", "./s2.sh"));
    expect(result.left, result.stderr).toBe(true);
  });
});

// The same inside a command line an interpreter runs from a string literal (read as a guess):
// `awk 'BEGIN{system("echo CMD > s.sh; sh s.sh")}'`. The guess's own commands were read, but not that
// it writes a script and runs it: under the deny list the line was allowed while the shell awk started
// ran the payload (the shell oracle, seed 880001).
const LITERALS: readonly string[] = [
  `awk 'BEGIN{system("echo {P} > s.sh; sh s.sh")}'`,
  `awk 'BEGIN{while(("exec 3> s.sh; echo {P} >&3; bash s.sh" | getline l)>0) print l}'`,
  `awk 'BEGIN{system("echo {P} > s.sh; sh < s.sh")}'`,
];

describe("a script written and run by a command line in an interpreter's literal", () => {
  it.each(LITERALS.map((line) => [fill(line, "rm -rf /tmp/x")] as const))("%s is not allowed", (line) => {
    const decision = denyList.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe("ask");
    // (`exec 3> s.sh` also empties s.sh, which a rule on rm holds for: that reason may come first.)
    expect(decision.reason).toMatch(/the line writes s\.sh and then runs it as a script|`exec > s\.sh` destroys files' content like rm/);
  });

  it("a literal that writes a file it does not run stays as allowed as before", () => {
    expect(denyList.decide("Bash", { command: `awk 'BEGIN{system("echo hi > out.txt")}'` }).mode).toBe("allow");
  });

  it.each(LITERALS.map((line) => [fill(line, "touch MARKER")] as const))("the real awk runs it: %s", (line) => {
    const result = leavesMarker(line);
    expect(result.left, result.stderr).toBe(true);
  });
});

// An alias whose value writes a script and runs it (`alias ls='echo CMD > s.sh; bash s.sh'` then `ls`):
// the alias's commands were read, but what its own line leaves untold was dropped (seed 20251127, 10,000 cases).
describe("an alias that writes a script and runs it", () => {
  const line = (payload: string) => `shopt -s expand_aliases; alias ls='echo ${payload} > s.sh; bash s.sh'\nls`;
  it("is not allowed", () => {
    const decision = denyList.decide("Bash", { command: line("rm -rf /tmp/x") });
    expect(decision.mode, decision.reason).toBe("ask");
    expect(decision.reason).toMatch(/the line writes s\.sh and then runs it as a script/);
  });

  it("the real bash runs it", () => {
    const result = leavesMarker(line("touch MARKER"));
    expect(result.left, result.stderr).toBe(true);
  });
});
