// normalizeString's shortcut for text that is ASCII after NFKC and removing invisible characters
// (fullwidth letters, zero-width spaces, padding, tabs) against the whole chain of steps.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normalizeString } from "../src/policy/normalize.js";

const INVISIBLE_RE = /[\p{Cf}\u034F\u115F\u1160\u3164\uFFA0\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/gu;
/** The look-alikes the generated text holds (a part of normalize.ts's table; no other non-ASCII letter below is in it). */
const HOMOGLYPHS: Record<string, string> = { "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "ѕ": "s", "Α": "A", "ο": "o", "\u2013": "-", "\u2215": "/" };

/** The chain of steps as written before the shortcut. */
function reference(input: string): string {
  return input
    .normalize("NFKC")
    .replace(INVISIBLE_RE, "")
    .normalize("NFD")
    .replace(/\p{Mn}/gu, "")
    .normalize("NFC")
    .replace(/[аеорсѕΑο\u2013\u2215]/gu, (ch) => HOMOGLYPHS[ch] ?? ch)
    .replace(/\s+/gu, " ")
    .trim();
}

const pieces = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 6 }) },
  { weight: 2, arbitrary: fc.constantFrom(" ", "  ", "\t", "\n", "\r\n", "\u000b", "\u000c", "\u00a0", "\u2003", "\u3000", "\ufeff", "\u0000", "\u001f", "\u007f", "\u0085") },
  { weight: 2, arbitrary: fc.constantFrom("\u200b", "\u200d", "\u00ad", "\u034f", "\u2060", "\ufe0f", "\u{e0101}") },
  { weight: 2, arbitrary: fc.constantFrom("ｅｔｃ", "ＲＭ", "／", "ﬁ", "①", "²", "ｶ", "Å", "é", "e\u0301", "ñ", "ß", "İ", "\u0301") },
  { weight: 1, arbitrary: fc.constantFrom(...Object.keys(HOMOGLYPHS)) },
);

const asciiAfterNfkc = (input: string) => !/[^\x00-\x7f]/u.test(input.normalize("NFKC").replace(INVISIBLE_RE, ""));

describe("normalizeString", () => {
  it("equals the whole chain of steps on text that is or becomes ASCII and on any other text", () => {
    let ascii = 0;
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 8 }), (parts) => {
        const input = parts.join("");
        expect(normalizeString(input), JSON.stringify(input)).toBe(reference(input));
        if (asciiAfterNfkc(input)) ascii++;
      }),
      { numRuns: 5_000 },
    );
    // Both ways are taken often.
    expect(Math.min(ascii, 5_000 - ascii)).toBeGreaterThan(1_000);
  });

  it("keeps the examples it always had", () => {
    expect(normalizeString("ｒｍ　-rf  /")).toBe("rm -rf /");
    expect(normalizeString(" users ")).toBe("users");
    expect(normalizeString("npm run te\u200bst")).toBe("npm run test");
    expect(normalizeString("\tgit\n status ")).toBe("git status");
    expect(normalizeString("са́t")).toBe("cat");
    expect(normalizeString("a\u0000  b")).toBe("a\u0000 b");
  });
});
