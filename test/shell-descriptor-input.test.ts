// A shell whose standard input is another descriptor: `exec 3<<EOF … EOF; sh <&3`, `exec 3< s.sh; bash
// 0<&3`. The script it runs is whatever descriptor 3 holds (a here-document or file opened by an earlier
// command); the guard read `sh` with no input at all, so under a deny list (the Bash tool low risk, `rm`
// denied) each line was allowed while bash ran the payload; found by the shell oracle's here-document
// line transform. The real bash runs each with the payload replaced by `touch MARKER`.
import { describe, expect, it } from "vitest";
import { bashGuard, denyListGuard, leavesMarker } from "./helpers/bash-rules.js";

const denyList = denyListGuard(["rm:*"], "descriptor-input");
const allowList = bashGuard(["echo:*", "cat:*", "sh", "bash", "exec:*"], ["rm:*"], "descriptor-input-allow");

const LINES: readonly string[] = [
  "exec 3<<EOF\n{P}\nEOF\nsh <&3",
  "exec 3<<'EOF'\n{P}\nEOF\nbash 0<&3",
  "exec 4<<<'{P}'; sh <&4",
  "exec 5< <(echo '{P}'); bash <&5",
  "echo '{P}' > s.txt; exec 3< s.txt; sh <&3",
  "{ sh <&3; } 3<<EOF\n{P}\nEOF",
];

const fill = (line: string, payload: string) => line.replaceAll("{P}", payload);

describe("a shell reading its script from another descriptor", () => {
  it.each(LINES.map((line) => [fill(line, "rm -rf /tmp/x")] as const))("%j is not allowed", (line) => {
    const decision = denyList.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).not.toBe("allow");
    expect(allowList.decide("Bash", { command: line }).mode).not.toBe("allow");
  });

  it("says where the script comes from", () => {
    expect(denyList.decide("Bash", { command: "exec 3<<EOF\nls\nEOF\nsh <&3" }).reason).toMatch(/sh runs a script read from descriptor 3, which the guard cannot read/);
  });

  it("other programs reading another descriptor stay as allowed as before", () => {
    for (const line of ["cat <&3", "exec 3< a.txt; grep x <&3", "sh -c ls <&3"]) expect(denyList.decide("Bash", { command: line }).mode, line).toBe("allow");
  });
});

describe("the real bash runs what the descriptor holds", () => {
  it.each(LINES.map((line) => [fill(line, "touch MARKER")] as const))("%j", (line) => {
    const result = leavesMarker(line);
    expect(result.left, result.stderr).toBe(true);
  });
});
