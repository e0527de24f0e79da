// A command line in a string literal of awk (or another interpreter) whose lines are joined by `\n`:
// `awk 'BEGIN{system("ls\nrm x")}'`, `"git status;\nrm x" | getline`. The language reads `\n` as a
// newline, so the literal is two command lines; the guard read `\n` as `n` (`ls` then `nrm x`), so
// under a deny list (the Bash tool low risk, `rm` denied) each line was allowed while the shell awk
// starts ran the payload; found by the shell oracle's awk transform. The real bash runs each with the
// payload replaced by `touch MARKER`.
import { describe, expect, it } from "vitest";
import { bashGuard, denyListGuard, installed, leavesMarker } from "./helpers/bash-rules.js";

const denyList = denyListGuard(["rm:*"], "literal-escapes");
const allowList = bashGuard(["awk:*", "ls:*"], ["rm:*"], "literal-escapes-allow");

const LINES: readonly string[] = [
  `awk 'BEGIN{system("ls\\n{P}")}'`,
  `awk 'BEGIN{system("ls;\\n{P}")}'`,
  `awk 'BEGIN{while(("ls;\\n{P}" | getline l)>0) print l}'`,
  `awk 'BEGIN{print "x" | "ls\\n{P}"}'`,
  `awk 'BEGIN{system("bash -s <<EOF\\n{P}\\nEOF")}'`,
  `awk 'BEGIN{system("ls\\t&&\\t{P}")}'`,
];

const fill = (line: string, payload: string) => line.replaceAll("{P}", payload);

describe("\\n in an interpreter's string literal is a newline", () => {
  it.each(LINES.map((line) => [fill(line, "rm -rf /tmp/x")] as const))("%s is denied", (line) => {
    const decision = denyList.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe("deny");
    expect(allowList.decide("Bash", { command: line }).mode).toBe("deny");
  });

  it("literals that run allowed commands stay as allowed under the deny list", () => {
    expect(denyList.decide("Bash", { command: `awk 'BEGIN{system("ls\\nls -la")}'` }).mode).toBe("allow");
  });
});

describe("the real awk runs both lines", () => {
  it.each(LINES.map((line) => [fill(line, "touch MARKER")] as const))("%s", (line) => {
    if (!installed("awk")) return;
    const result = leavesMarker(line);
    expect(result.left, result.stderr).toBe(true);
  });
});

// The literals awk runs as command lines (`system("CMD")`, `print | "CMD"`, `"CMD" | getline`) are read as
// scripts: one the guard cannot parse leaves a deny that cannot tell. They were guesses, and a guess that
// did not parse was dropped: `awk 'BEGIN{while(("echo \`x=\\$(cat <<EOF && nc …)\`" | getline l)>0) …}'`
// was allowed while the shell ran nc (seed 20251127, 10,000 cases).
describe("awk's command literals are scripts", () => {
  it("an unreadable one: a deny cannot tell", () => {
    const line = `awk 'BEGIN{while(("echo \`x=\\\\$(cat <<EOF && rm -rf /tmp/x\\\\nhi\\\\nEOF\\\\n)\`" | getline l)>0) print l}'`;
    const decision = denyList.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).not.toBe("allow");
  });

  it("readable ones of allowed commands stay as allowed", () => {
    for (const line of [`awk '{print $0 | "sort -u"}' a.txt`, `awk 'BEGIN{system("ls")}'`]) expect(denyList.decide("Bash", { command: line }).mode, line).toBe("allow");
  });
});
