// The words of each command, as the real bash hands them to the program, for lines with no expansion:
// quotes, escapes, redirections between and before words, here-strings and here-documents with words
// after their start, groups, subshells, negation, `;`, `&&`, `||`, `|` and newlines. Programs that
// record the words they were given (pa, pb, pc on PATH) judge: every command bash ran must be one of
// the guard's commands, word for word. The parser splits some words bash reads as one (`'w'\u'ba'`
// after a redirection, `"k"\tci` in a redirection's words, `'pu'\sh` after a here-document's start);
// those are joined. A line the guard says it cannot read is not compared (it asks). Left out, and read by the guard as noted: an escaped blank at a word's start
// (`\ x`), which the parser drops (the guard reads `x`), and two words `}` in a row, which it reads as
// one (`pa } }` is `pa`, `} }`); these only ever leave the guard a blank or a word apart from bash, never
// another program. (A lone `-` right before a redirection, which the parser drops, is put back.)
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { analyzeShell } from "../src/policy/kinds/shell.js";
import { ORACLE_SEED, oracleCases } from "./helpers/oracle.js";
import { recordingPrograms } from "./helpers/recording-programs.js";

const PROGRAMS = ["pa", "pb", "pc"] as const;
const programs = recordingPrograms(PROGRAMS, "gg-static-words-");
afterAll(() => programs.remove());

const letters = fc.stringMatching(/^[a-z]{1,3}$/);
const wordPart = fc.oneof(
  letters,
  letters.map((s) => `'${s}'`),
  letters.map((s) => `"${s}"`),
  letters.map((s) => `\\${s}`),
  fc.constantFrom("-", "--", "=", ".", "/", ":", "@", "+", ",", "%", "^", "]", "a}", "{a", "\\;", "\\|", "\\&", "\\<", "\\>", "\\#", "a#b", "'a b'", '"a;b"', "''", '""'),
);
const word = fc.array(wordPart, { minLength: 1, maxLength: 3 }).map((parts) => parts.join(""));
const redirection = fc.constantFrom(">/dev/null", "2>&1", "</dev/null", "2>/dev/null", ">&2", "1>&1", "<<<x", "<<< 'a b'", "0</dev/null", ">| /dev/null", "&>/dev/null", "<> /dev/null", "3>&-");
const simple = fc
  .tuple(fc.option(redirection, { nil: undefined }), fc.constantFrom(...PROGRAMS), fc.array(fc.oneof({ weight: 4, arbitrary: word }, { weight: 1, arbitrary: redirection }), { maxLength: 5 }))
  .map(([first, program, rest]) => [...(first === undefined ? [] : [first]), program, ...rest].join(" "));
const heredoc = fc
  .tuple(fc.constantFrom(...PROGRAMS), fc.array(word, { maxLength: 2 }), fc.array(word, { maxLength: 2 }), fc.constantFrom("<<EOF", "<<'EOF'", "<<-EOF", "<< EOF"))
  .map(([program, before, after, start]) => `${[program, ...before, start, ...after].join(" ")}\nbody\nEOF`);
const statement = fc.oneof(
  { weight: 4, arbitrary: simple },
  { weight: 1, arbitrary: heredoc },
  { weight: 1, arbitrary: simple.map((s) => `{ ${s}; }`) },
  { weight: 1, arbitrary: simple.map((s) => `( ${s} )`) },
  { weight: 1, arbitrary: simple.map((s) => `! ${s}`) },
);
const line = fc
  .array(fc.tuple(statement, fc.constantFrom("; ", " && ", " || ", " | ", "\n")), { minLength: 1, maxLength: 3 })
  .map((parts) => parts.map(([s, separator], i) => (i < parts.length - 1 ? s + (s.endsWith("\nEOF") ? "\n" : separator) : s)).join(""));

describe("the words of each command, as bash hands them to the program", () => {
  const runs = Math.min(oracleCases(), 600);
  it(`${runs} generated lines without expansions: every command bash ran is one of the guard's, word for word`, () => {
    let compared = 0;
    fc.assert(
      fc.property(line, (text) => {
        const ran = programs.run(text);
        if (ran === undefined) return;
        const analysis = analyzeShell(text);
        // A line the guard cannot parse (`pa <> /dev/null`) or says it cannot read (a redirection the parser gives a whole
        // list: `a || b >x y`) asks: nothing to compare.
        if (!analysis.ok || analysis.unknown !== undefined) return;
        const read = new Set(analysis.commands.map((command) => command.words.join("\u0000")));
        for (const argv of ran) {
          compared += 1;
          expect(read.has(argv.join("\u0000")), `${JSON.stringify(text)}: bash ran ${JSON.stringify(argv)}, the guard read ${JSON.stringify(analysis.commands.map((c) => c.words))}`).toBe(true);
        }
      }),
      { seed: ORACLE_SEED, numRuns: runs },
    );
    expect(compared).toBeGreaterThan(runs / 2);
  }, 300_000);
});
