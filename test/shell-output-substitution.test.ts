// An output process substitution `>(…)` is a command whose input is what the line writes to it:
// `echo CMD > >(sh)`, `tee >(sh)`, `exec > >(sh); echo CMD`. The guard read the shell inside with no
// input, so under a deny list (the Bash tool low risk, `rm` denied) every line below was allowed while
// bash ran the payload. The real bash runs each with the payload replaced by `touch MARKER`.
import { describe, expect, it } from "vitest";
import { bashGuard, denyListGuard, leavesMarker } from "./helpers/bash-rules.js";

const denyList = denyListGuard(["rm:*"], "output-substitution");
const allowList = bashGuard(["echo:*", "printf:*", "tee:*", "cat:*", "grep:*", "ls:*", "sh", "bash"], ["rm:*"], "output-substitution-allow");

/** `{P}`: the payload; `expect`: deny where the text written is known (echo/printf into the substitution), else not allowed. */
const LINES: readonly { readonly line: string; readonly expect: "deny" | "not-allow" }[] = [
  { line: "echo '{P}' > >(sh)", expect: "deny" },
  { line: "echo '{P}' 1> >(sh)", expect: "deny" },
  { line: "printf '{P}' >> >(bash)", expect: "deny" },
  { line: "echo '{P}' >| >(sh)", expect: "deny" },
  { line: "exec > >(sh); echo '{P}'", expect: "not-allow" },
  { line: "exec 3> >(sh); echo '{P}' >&3", expect: "not-allow" },
  { line: "tee >(sh) <<< '{P}' > /dev/null", expect: "not-allow" },
  { line: "echo '{P}' | tee >(sh) > /dev/null", expect: "not-allow" },
  { line: "cat <<< '{P}' > >(sh)", expect: "not-allow" },
  { line: "echo '{P}' | cat > >(sh)", expect: "not-allow" },
  { line: "echo '{P}' 2>&1 > >(xargs -I{} sh -c '{}')", expect: "not-allow" },
];

const fill = (line: string, payload: string) => line.replaceAll("{P}", payload);
/** Waits (up to 5 s) for the substitution's command, which runs asynchronously. */
const waitForMarker = "; for i in $(seq 50); do [ -e MARKER ] && break; sleep 0.1; done";

describe("the commands in >(…) read what the line writes to it", () => {
  it.each(LINES.map((c) => [fill(c.line, "rm -rf /tmp/x"), c] as const))("%s", (line, c) => {
    const decision = denyList.decide("Bash", { command: line });
    if (c.expect === "deny") expect(decision.mode, decision.reason).toBe("deny");
    else expect(decision.mode, decision.reason).not.toBe("allow");
    expect(allowList.decide("Bash", { command: line }).mode).not.toBe("allow");
  });

  it("a >(…) that does not run what it reads stays as allowed as before", () => {
    for (const line of ["echo hi > >(cat)", "ls > >(grep x)", "echo hi | tee >(grep h) > /dev/null"]) expect(denyList.decide("Bash", { command: line }).mode, line).toBe("allow");
  });
});

describe("the real bash runs what is written to >(sh)", () => {
  it.each(LINES.map((c) => [fill(c.line, "touch MARKER")] as const))("%s", (line) => {
    const result = leavesMarker(`${line}${waitForMarker}`);
    expect(result.left, result.stderr).toBe(true);
  });
});
