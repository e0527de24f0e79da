// The body of an arithmetic for loop: `for ((i=0;i<1;i++)); do CMD; done` (and `for ((…)) { CMD; }`)
// runs CMD. The guard read the whole loop as one construct and never read its body: under a deny list
// (the Bash tool low risk, `rm` denied) each line below was allowed while bash ran the payload; found
// by the shell oracle's compound transform. The real bash runs each with the payload replaced by
// `touch MARKER`.
import { describe, expect, it } from "vitest";
import { bashGuard, denyListGuard, leavesMarker } from "./helpers/bash-rules.js";

const denyList = denyListGuard(["rm:*"], "arithmetic-for");
const allowList = bashGuard(["echo:*", "ls:*"], ["rm:*"], "arithmetic-for-allow");

const LINES: readonly string[] = [
  "for ((i=0;i<1;i++)); do {P}; done",
  "for ((;;)); do {P}; break; done",
  "for ((i=0;i<1;i++)) { {P}; }",
  "for (( i = 0 ; i < 1 ; i++ ))\ndo\n  ls && {P}\ndone",
  "for ((i=0;i<1;i++)); do echo ok | {P}; done",
  "for ((i=0;i<1;i++)); do for ((j=0;j<1;j++)); do {P}; done; done",
  "if true; then for ((i=0;i<1;i++)); do {P}; done; fi",
  "for ((i=0;i<1;i++)); do echo $({P}); done",
];

const fill = (line: string, payload: string) => line.replaceAll("{P}", payload);

describe("the body of for ((…)) runs", () => {
  it.each(LINES.map((line) => [fill(line, "rm -rf /tmp/x")] as const))("%j is denied", (line) => {
    const decision = denyList.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe("deny");
    expect(allowList.decide("Bash", { command: line }).mode).toBe("deny");
  });

  it("a loop of allowed commands stays as allowed under the deny list, and no allow covers the construct", () => {
    expect(denyList.decide("Bash", { command: "for ((i=0;i<3;i++)); do echo $i; done" }).mode).toBe("allow");
    expect(allowList.decide("Bash", { command: "for ((i=0;i<3;i++)); do ls; done" }).mode).not.toBe("allow");
  });
});

describe("the real bash runs the body", () => {
  it.each(LINES.map((line) => [fill(line, "touch MARKER")] as const))("%j", (line) => {
    const result = leavesMarker(line);
    expect(result.left, result.stderr).toBe(true);
  });
});
