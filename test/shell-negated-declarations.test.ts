// A declaration after `!` or `time`: `! export GIT_SSH_COMMAND=CMD`, `time export X=…`, `time read x`.
// The parser reads such a declaration as a plain command (not a declaration), and the guard read no
// variable set by it: under a deny list (the Bash tool low risk, `rm` denied) each line below was
// allowed while git or bash ran the payload; found by the shell oracle's negation and compound
// transforms around its variable-set and arithmetic transforms. The real bash runs each with the payload
// replaced by `touch MARKER`.
import { describe, expect, it } from "vitest";
import { bashGuard, denyListGuard, installed, leavesMarker } from "./helpers/bash-rules.js";

const denyList = denyListGuard(["rm:*"], "negated-declarations");
const allowList = bashGuard(["echo:*", "ls:*", "git ls-remote:*", "export:*"], ["rm:*"], "negated-declarations-allow");

const SSH = "git ls-remote ssh://example.invalid/r";

const LINES: readonly { readonly line: string; readonly expect: "deny" | "not-allow"; readonly git?: boolean }[] = [
  { line: `! export GIT_SSH_COMMAND='{P};'; ${SSH}`, expect: "deny", git: true },
  { line: `time export GIT_SSH_COMMAND='{P};'; ${SSH}`, expect: "deny", git: true },
  { line: `time -p declare -x GIT_SSH_COMMAND='{P};'; ${SSH}`, expect: "deny", git: true },
  { line: "! export x='a[$({P})]'; echo $((x))", expect: "deny" },
  { line: "! export BASH_ENV='$({P})'; bash -c ls", expect: "deny" },
  { line: "time read x <<< 'a[$({P})]'; echo $((x))", expect: "not-allow" },
];

const fill = (line: string, payload: string) => line.replaceAll("{P}", payload);

describe("a declaration after ! or time sets its variables", () => {
  it.each(LINES.map((c) => [fill(c.line, "rm -rf /tmp/x"), c] as const))("%s", (line, c) => {
    const decision = denyList.decide("Bash", { command: line });
    if (c.expect === "deny") expect(decision.mode, decision.reason).toBe("deny");
    else expect(decision.mode, decision.reason).not.toBe("allow");
    expect(allowList.decide("Bash", { command: line }).mode).not.toBe("allow");
  });

  it("plain settings stay as allowed as before", () => {
    expect(denyList.decide("Bash", { command: "! export NODE_ENV=test; ls" }).mode).toBe("allow");
  });
});

describe("the real bash sets the variable", () => {
  it.each(LINES.map((c) => [fill(c.line, "touch MARKER"), c] as const))("%s", (line, c) => {
    if (c.git === true && !installed("git")) return;
    const result = leavesMarker(line);
    expect(result.left, result.stderr).toBe(true);
  });
});
