// A name reference: `declare -n r=GIT_SSH_COMMAND; r=CMD` sets GIT_SSH_COMMAND (and `read r`, `printf -v
// r` do too). The guard read the assignment as one to `r`: under a deny list (the Bash tool low risk,
// `rm` denied) each line below was allowed while git or bash ran the payload; found by the shell
// oracle's variable-set transform. The real bash runs each with the payload replaced by `touch MARKER`.
import { describe, expect, it } from "vitest";
import { nameReferenceReason } from "../src/messages/index.js";
import { bashGuard, denyListGuard, installed, leavesMarker } from "./helpers/bash-rules.js";

const denyList = denyListGuard(["rm:*"], "name-references");
const allowList = bashGuard(["echo:*", "ls:*", "git ls-remote:*", "declare:*", "export:*"], ["rm:*"], "name-references-allow");

const SSH = "git ls-remote ssh://example.invalid/r";

const LINES: readonly { readonly line: string; readonly expect: "deny" | "not-allow"; readonly git?: boolean }[] = [
  { line: `declare -n r=GIT_SSH_COMMAND; r='{P};'; export GIT_SSH_COMMAND; ${SSH}`, expect: "deny", git: true },
  { line: `typeset -n r=GIT_SSH_COMMAND; r='{P};'; export GIT_SSH_COMMAND; ${SSH}`, expect: "deny", git: true },
  { line: `declare -n r=GIT_SSH_COMMAND; declare -n s=r; s='{P};'; export GIT_SSH_COMMAND; ${SSH}`, expect: "deny", git: true },
  { line: `f(){ local -n r=GIT_SSH_COMMAND; r='{P};'; }; f; export GIT_SSH_COMMAND; ${SSH}`, expect: "deny", git: true },
  { line: "declare -n r=PS4; r='$({P})'; set -x; ls", expect: "deny" },
  { line: "declare -n r=BASH_ENV; r='$({P})'; export BASH_ENV; bash -c ls", expect: "deny" },
  { line: "declare -n r=BASH_ENV; read r <<< '$({P})'; export BASH_ENV; bash -c ls", expect: "not-allow" },
  { line: "declare -n r=x; read r <<< 'a[$({P})]'; echo $((x))", expect: "not-allow" },
];

const fill = (line: string, payload: string) => line.replaceAll("{P}", payload);

describe("setting a name reference sets the variable it names", () => {
  it.each(LINES.map((c) => [fill(c.line, "rm -rf /tmp/x"), c] as const))("%s", (line, c) => {
    const decision = denyList.decide("Bash", { command: line });
    if (c.expect === "deny") expect(decision.mode, decision.reason).toBe("deny");
    else expect(decision.mode, decision.reason).not.toBe("allow");
    expect(allowList.decide("Bash", { command: line }).mode).not.toBe("allow");
  });

  it("a reference to a variable only known when the line runs: a deny cannot tell", () => {
    const decision = denyList.decide("Bash", { command: "declare -n r=$1; r='rm -rf /tmp/x;'; git ls-remote ssh://h/r" });
    expect(decision.mode).toBe("ask");
    expect(decision.reason).toContain(nameReferenceReason("declare"));
  });

  it("references to plain variables stay as allowed as before", () => {
    expect(denyList.decide("Bash", { command: "declare -n r=y; r=1; echo $r" }).mode).toBe("allow");
  });
});

describe("the real bash sets the named variable", () => {
  it.each(LINES.map((c) => [fill(c.line, "touch MARKER"), c] as const))("%s", (line, c) => {
    if (c.git === true && !installed("git")) return;
    const result = leavesMarker(line);
    expect(result.left, result.stderr).toBe(true);
  });
});
