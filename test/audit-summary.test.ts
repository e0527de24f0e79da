// Issue 12: the audit stores a bounded summary of arguments too deep or too large to record, and
// writing a record never throws (the deep-arguments audit crash).
import { describe, expect, it } from "vitest";
import { auditArgsText, measureArgs } from "../src/audit/summary.js";
import { checkArgumentLimits } from "../src/policy/limits.js";

function nest(depth: number): unknown {
  let value: unknown = "secret-leaf";
  for (let i = 0; i < depth; i += 1) value = { k: value };
  return value;
}

describe("auditArgsText", () => {
  it("records ordinary arguments as canonical JSON with redaction", () => {
    expect(auditArgsText({ b: 1, a: { token: "t0ken" } }, ["token"])).toBe('{"a":{"token":"[REDACTED]"},"b":1}');
  });

  it("summarises deep, huge and cyclic arguments without values, and never throws", () => {
    const cyclic: Record<string, unknown> = { name: "x" };
    cyclic.self = cyclic;
    for (const args of [{ deep: nest(100_000) }, { big: "s".repeat(5_000_000), token: "t0ken" }, cyclic]) {
      const text = auditArgsText(args, ["token"]);
      expect(text.length).toBeLessThan(2_000);
      expect(text).not.toMatch(/secret-leaf|t0ken|sssss/);
      const summary = JSON.parse(text) as Record<string, unknown>;
      expect(summary.$summary).toMatch(/too (deep|large) to record/);
      expect(summary.keys).toEqual(Object.keys(args));
    }
  });

  it("measures without recursion and stops at the first limit", () => {
    expect(measureArgs(nest(1_000_000), { maxDepth: 32, maxChars: 1_000 })).toMatchObject({ exceeded: "depth", depth: 33 });
    expect(measureArgs({ a: "x".repeat(2_000) }, { maxDepth: 32, maxChars: 1_000 }).exceeded).toBe("size");
    expect(measureArgs({ a: [1, 2, { b: "c" }] }, { maxDepth: 32, maxChars: 1_000 })).toEqual({ depth: 3, chars: 9, exceeded: undefined });
  });

  it("the review's limits name what was refused", () => {
    expect(checkArgumentLimits({ a: nest(40) })?.message("store")).toBe(
      "Refused store by rule oversized-arguments: the arguments are nested deeper than 32 levels. Send smaller, flatter arguments (for large content, write it in several calls).",
    );
    expect(checkArgumentLimits({ a: "x".repeat(1_000_001) })?.reason).toBe("the arguments are longer than 1000000 characters");
    expect(checkArgumentLimits({ a: nest(20), b: "x".repeat(1000) })).toBeUndefined();
  });
});
