import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { truncateResult, truncateToolContent } from "../src/guard/truncate.js";

const MARKER = /\n\n\.\.\. \[([\d,]+) chars truncated\] \.\.\.\n\n/;

function hasLoneSurrogate(text: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}

/** Splits a truncated result into head, cut count and tail. */
function parts(result: string): { head: string; cut: number; tail: string } {
  const match = MARKER.exec(result);
  if (!match || match[1] === undefined) throw new Error(`no marker in ${JSON.stringify(result)}`);
  return { head: result.slice(0, match.index), cut: Number(match[1].replaceAll(",", "")), tail: result.slice(match.index + match[0].length) };
}

describe("truncateResult", () => {
  it("leaves short text and text exactly at the limit untouched", () => {
    expect(truncateResult("hello", 10)).toBe("hello");
    const exact = "x".repeat(100);
    expect(truncateResult(exact, 100)).toBe(exact);
  });

  it("one character over the limit is truncated to at most the limit", () => {
    const text = "abcdefghij".repeat(10) + "!";
    const result = truncateResult(text, 100);
    expect(result.length).toBeLessThanOrEqual(100);
    const { head, cut, tail } = parts(result);
    expect(text.startsWith(head)).toBe(true);
    expect(text.endsWith(tail)).toBe(true);
    expect(head.length + cut + tail.length).toBe(text.length);
  });

  it("means no limit for 0, negative, NaN and Infinity", () => {
    const text = "y".repeat(1000);
    for (const limit of [0, -5, Number.NaN, Number.POSITIVE_INFINITY]) expect(truncateResult(text, limit)).toBe(text);
  });

  it("counts the cut characters with thousands separators and fills the limit exactly", () => {
    const text = "a".repeat(20_000) + "b".repeat(20_000);
    const result = truncateResult(text, 10_000);
    expect(result).toHaveLength(10_000);
    const { head, cut, tail } = parts(result);
    expect(result).toMatch(/\[\d{2},\d{3} chars truncated\]/);
    expect(cut).toBe(40_000 - head.length - tail.length);
    expect(head).toMatch(/^a+$/);
    expect(tail).toMatch(/^b+$/);
    expect(Math.abs(head.length - tail.length)).toBeLessThanOrEqual(1);
  });

  it("gives the characters a shorter count saves back to head and tail", () => {
    // 10,000 chars cut would need a 6-char number, but the real cut (< 10,000) needs 5.
    const text = "z".repeat(10_020);
    const result = truncateResult(text, 60);
    expect(result).toHaveLength(60);
    expect(parts(result).cut).toBe(10_020 - (60 - "\n\n... [9,999 chars truncated] ...\n\n".length));
  });

  it("never splits an emoji or an astral CJK character", () => {
    const emoji = "😀".repeat(500); // each is two UTF-16 code units
    for (let limit = 40; limit < 80; limit += 1) {
      const result = truncateResult(emoji, limit);
      expect(result.length).toBeLessThanOrEqual(limit);
      expect(hasLoneSurrogate(result)).toBe(false);
      const { head, cut, tail } = parts(result);
      expect(head.length + cut + tail.length).toBe(emoji.length);
    }
    const cjk = "𠀀𠀁𠀂中文".repeat(200);
    for (let limit = 41; limit < 60; limit += 1) expect(hasLoneSurrogate(truncateResult(cjk, limit))).toBe(false);
  });

  it("keeps only the head when even the marker does not fit", () => {
    expect(truncateResult("abcdefghijklmnopqrstuvwxyz".repeat(4), 10)).toBe("abcdefghij");
    expect(truncateResult("😀😀😀😀😀😀", 5)).toBe("😀😀");
  });

  it("property: within the limit, no lone surrogates, head and tail come from the text, the count is right", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 400 }), fc.integer({ min: 1, max: 500 }), (text, limit) => {
        const result = truncateResult(text, limit);
        expect(result.length).toBeLessThanOrEqual(Math.max(limit, 0));
        expect(hasLoneSurrogate(result)).toBe(false);
        if (text.length <= limit) {
          expect(result).toBe(text);
          return;
        }
        if (!MARKER.test(result)) {
          expect(text.startsWith(result)).toBe(true);
          return;
        }
        const { head, cut, tail } = parts(result);
        expect(text.startsWith(head)).toBe(true);
        expect(text.endsWith(tail)).toBe(true);
        expect(head.length + cut + tail.length).toBe(text.length);
      }),
      { numRuns: 500 },
    );
  });
});

describe("truncateToolContent", () => {
  it("truncates a string like truncateResult", () => {
    const text = "q".repeat(500);
    expect(truncateToolContent(text, 100)).toBe(truncateResult(text, 100));
  });

  it("truncates text blocks within the shared budget and keeps other blocks", () => {
    const image = { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } };
    const content = [{ type: "text", text: "short" }, image, { type: "text", text: "L".repeat(5_000), id: "b2" }];
    const before = structuredClone(content);
    const result = truncateToolContent(content, 200);
    expect(content).toEqual(before);
    expect(result[0]).toEqual({ type: "text", text: "short" });
    expect(result[1]).toBe(image);
    const long = result[2] as { type: string; text: string; id: string };
    expect(long.id).toBe("b2");
    expect(long.text.length).toBeLessThanOrEqual(195);
    expect(long.text).toMatch(/chars truncated/);
  });

  it("leaves content under the limit alone and shares the budget between long blocks", () => {
    const small = [{ type: "text", text: "a" }, { type: "text", text: "b" }];
    expect(truncateToolContent(small, 10)).toEqual(small);
    const big = [{ type: "text", text: "x".repeat(1000) }, { type: "text", text: "y".repeat(3000) }];
    const result = truncateToolContent(big, 400) as { text: string }[];
    const total = result.reduce((sum, block) => sum + block.text.length, 0);
    expect(total).toBeLessThanOrEqual(400);
    expect(result[0]!.text.length).toBeGreaterThan(150);
    expect(result[1]!.text.length).toBeGreaterThan(150);
  });
});
