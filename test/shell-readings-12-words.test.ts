// Readings round 12: words the parser reads otherwise than bash. An escaped blank (`\ `, `\⇥`) is a character of a word
// to bash; the parser drops it where it starts a word (`\ git push`, `git \ push`, `pa \  x`), follows a quote or an
// expansion (`'a'\ b`), or is a tab; and it reads bracket words in a row as one word (`pa } }` as `} }`, `{ {`, `] ]`).
// Programs that record the words they were given (pa, pb on PATH) judge: every command bash ran must be one of the guard's
// commands, word for word; and a deny on what bash ran holds.
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { analyzeShell } from "../src/policy/kinds/shell.js";
import { denyListGuard } from "./helpers/bash-rules.js";
import { recordingPrograms } from "./helpers/recording-programs.js";

const programs = recordingPrograms(["pa", "pb", " pa", "\tpa", "pa x"], "gg-reads12-words-");
afterAll(() => programs.remove());

/** Every command bash ran is one of the guard's (undefined: bash refused the line, or the guard cannot read it). */
function compare(text: string): { ran: string[][]; read: string[][] } | undefined {
  const ran = programs.run(text);
  if (ran === undefined) return undefined;
  const analysis = analyzeShell(text);
  if (!analysis.ok) return undefined;
  return { ran, read: analysis.commands.map((command) => [...command.words]) };
}

const LINES = [
  "\\ pa x",
  "pa \\ x",
  "pa \\  x",
  "pa x \\ ",
  "pa \\ \\ x",
  "pa \\ \\  x",
  "pa \\\tx",
  "pa x\\\ty",
  "\\\tpa x",
  "pa 'a'\\ b",
  'pa "a"\\ b',
  "pa \\ 'a'",
  "pa\\ x y",
  "pa } }",
  "pa { }",
  "pa { {",
  "pa ] ]",
  "pa } } }",
  "pa x } } y",
  "pa ]] }",
  "pa ! } !",
  "{ pa } }; }",
  "pa } }; pb { {",
  "pa \\} }",
];

describe("escaped blanks and bracket words: the guard reads bash's words", () => {
  it.each(LINES)("%s", (line) => {
    const result = compare(line);
    expect(result, "bash ran it and the guard reads it").toBeDefined();
    const read = new Set(result!.read.map((words) => words.join("\u0000")));
    expect(result!.ran.length).toBeGreaterThan(0);
    for (const argv of result!.ran) expect(read.has(argv.join("\u0000")), `bash ran ${JSON.stringify(argv)}, the guard read ${JSON.stringify(result!.read)}`).toBe(true);
  });

  it("generated lines: escaped blanks and tabs, brackets, ]] and ! among the words", () => {
    const part = fc.oneof(
      fc.constantFrom("a", "b", "x1", "'q'", '"d"', "-c", "="),
      fc.constantFrom("\\ ", "\\\t", "\\ \\ ", "}", "{", "]]", "]", "!", "[["),
    );
    const word = fc.array(part, { minLength: 1, maxLength: 3 }).map((parts) => parts.join(""));
    const line = fc.tuple(fc.constantFrom("pa", "\\ pa", "pb"), fc.array(word, { minLength: 1, maxLength: 4 }), fc.constantFrom(" ", "  ", "\t")).map(([program, words, gap]) => [program, ...words].join(gap));
    let compared = 0;
    fc.assert(
      fc.property(line, (text) => {
        const result = compare(text);
        if (result === undefined) return;
        const read = new Set(result.read.map((words) => words.join("\u0000")));
        for (const argv of result.ran) {
          compared += 1;
          expect(read.has(argv.join("\u0000")), `${JSON.stringify(text)}: bash ran ${JSON.stringify(argv)}, the guard read ${JSON.stringify(result.read)}`).toBe(true);
        }
      }),
      { seed: 1212, numRuns: 150 },
    );
    expect(compared).toBeGreaterThan(50);
  }, 120_000);
});

describe("a deny on what bash runs holds", () => {
  const guard = denyListGuard(["pa x:*", " pa:*", "git push:*"], "reads12-words");
  it.each(["\\ pa x", "pa x", "git push", "git \\push", "g\\it push"])("%s is not allowed", (command) => {
    const decision = guard.decide("Bash", { command });
    expect(decision.mode, decision.reason).not.toBe("allow");
  });
});
