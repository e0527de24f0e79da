// A variable whose value names another variable: in arithmetic bash evaluates the value as an
// expression in turn (`y=x; echo $((y))` evaluates x), so a value only known at run time reaches
// arithmetic through a name (`read x <<< 'a[$(cmd)]'; y=x; echo $((y))` runs cmd). The guard looked
// only at the names written in arithmetic: under a deny list (the Bash tool low risk, `rm` denied)
// each line below was allowed while bash ran the payload; found by the shell oracle's arithmetic
// transform. The real bash runs each with the payload replaced by `touch MARKER`.
import { describe, expect, it } from "vitest";
import { bashGuard, denyListGuard, leavesMarker } from "./helpers/bash-rules.js";

const denyList = denyListGuard(["rm:*"], "arithmetic-names");
const allowList = bashGuard(["echo:*", "printf:*", "read:*"], ["rm:*"], "arithmetic-names-allow");

const LINES: readonly string[] = [
  "read x <<< 'a[$({P})]'; y=x; echo $((y))",
  "mapfile -t x <<< 'a[$({P})]'; y=x; echo $((y))",
  "read x <<< 'a[$({P})]'; y=x; z=y; (( z ))",
  "read x <<< 'a[$({P})]'; y='x+1'; [[ y -gt 0 ]]",
  "printf -v x '%s' 'a[$({P})]'; declare y=x; echo $[y]",
  "read x <<< 'a[$({P})]'; for y in x; do echo $((y)); done",
  "read x <<< 'a[$({P})]'; : ${y:=x}; let z=y",
];

const fill = (line: string, payload: string) => line.replaceAll("{P}", payload);

describe("arithmetic evaluates the variables a value names", () => {
  it.each(LINES.map((line) => [fill(line, "rm -rf /tmp/x")] as const))("%s is not allowed", (line) => {
    const decision = denyList.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).not.toBe("allow");
    expect(decision.reason).toMatch(/bash evaluates x as arithmetic/);
    expect(allowList.decide("Bash", { command: line }).mode).not.toBe("allow");
  });

  it("values that name no variable set at run time stay as allowed as before", () => {
    for (const line of ["read x <<< 1; y=z; echo $((y))", "y=x; echo $((y))", "read x <<< 1; y=x; echo $y", "n=1; m=n; echo $((m+1))"]) {
      expect(denyList.decide("Bash", { command: line }).mode, line).toBe("allow");
    }
  });
});

describe("the real bash evaluates the named variable", () => {
  it.each(LINES.map((line) => [fill(line, "touch MARKER")] as const))("%s", (line) => {
    const result = leavesMarker(line);
    expect(result.left, result.stderr).toBe(true);
  });
});
