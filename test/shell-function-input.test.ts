// A function called with an input its body runs: `f(){ sh; }; f <<EOF … EOF`, `echo CMD | f`. The
// call's standard input is the body's; the guard read the body with no input, so under a deny list (the
// Bash tool low risk, `rm` denied) each line was allowed while bash ran the payload; found by the shell
// oracle's here-document line transform (seed 20251127, 10,000 cases). The real bash runs each with the
// payload replaced by `touch MARKER`.
import { describe, expect, it } from "vitest";
import { denyListGuard, leavesMarker } from "./helpers/bash-rules.js";

const denyList = denyListGuard(["rm:*"], "function-input");

const LINES: readonly { readonly line: string; readonly expect: "deny" | "not-allow" }[] = [
  { line: "f(){ sh; }; f <<EOF\n{P}\nEOF", expect: "deny" },
  { line: "f(){ bash -s; }; f <<< '{P}'", expect: "deny" },
  { line: "f() { source /dev/stdin; }; echo '{P}' | f", expect: "deny" },
  { line: "function g { ls; sh; }; g <<'EOF'\n{P}\nEOF", expect: "deny" },
  { line: "f(){ sh; }; f < <(echo '{P}')", expect: "deny" },
  { line: "f(){ sh; }; echo '{P}' > s.sh; f < s.sh", expect: "not-allow" },
];

const fill = (line: string, payload: string) => line.replaceAll("{P}", payload);

describe("a function's body reads the call's input", () => {
  it.each(LINES.map((c) => [fill(c.line, "rm -rf /tmp/x"), c] as const))("%j", (line, c) => {
    const decision = denyList.decide("Bash", { command: line });
    if (c.expect === "deny") expect(decision.mode, decision.reason).toBe("deny");
    else expect(decision.mode, decision.reason).not.toBe("allow");
  });

  it("a body that does not run its input stays as allowed as before", () => {
    for (const line of ["f(){ cat; }; f <<EOF\nrm x\nEOF", "f(){ grep x; }; echo 'rm x' | f", "f(){ bash; }; f < build.sh"]) expect(denyList.decide("Bash", { command: line }).mode, line).toBe("allow");
  });
});

describe("the real bash runs the input in the body", () => {
  it.each(LINES.map((c) => [fill(c.line, "touch MARKER")] as const))("%j", (line) => {
    const result = leavesMarker(line);
    expect(result.left, result.stderr).toBe(true);
  });
});
