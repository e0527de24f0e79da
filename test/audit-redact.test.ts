import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { auditArgs, REDACTED, redactArgs } from "../src/audit/index.js";

describe("redactArgs", () => {
  it("redacts a dot path, case-insensitively, and nothing else", () => {
    const args = { url: "https://x", headers: { Authorization: "Bearer abc", accept: "json" }, authorization: "kept" };
    expect(redactArgs(args, ["headers.authorization"])).toEqual({
      url: "https://x",
      headers: { Authorization: REDACTED, accept: "json" },
      authorization: "kept",
    });
  });

  it("redacts a bare key at any depth, including inside arrays", () => {
    const args = { token: "t0", a: { b: [{ TOKEN: "t1" }, { c: { Token: { deep: "t2" } } }], other: 1 } };
    expect(redactArgs(args, ["token"])).toEqual({ token: REDACTED, a: { b: [{ TOKEN: REDACTED }, { c: { Token: REDACTED } }], other: 1 } });
  });

  it("matches any key at one level with `*`", () => {
    const args = { db: { password: "p1", user: "u" }, cache: { Password: "p2" }, password: "top", deep: { x: { password: "p3" } } };
    expect(redactArgs(args, ["*.password"])).toEqual({
      db: { password: REDACTED, user: "u" },
      cache: { Password: REDACTED },
      password: "top",
      deep: { x: { password: "p3" } },
    });
  });

  it("looks through arrays on a dot path", () => {
    const args = { users: [{ name: "a", secret: "s1" }, { name: "b", secret: "s2" }, "plain"] };
    expect(redactArgs(args, ["users.secret"])).toEqual({ users: [{ name: "a", secret: REDACTED }, { name: "b", secret: REDACTED }, "plain"] });
  });

  it("never changes its input", () => {
    const args = { headers: { authorization: "x" }, list: [{ token: "y" }] };
    const before = structuredClone(args);
    const out = redactArgs(args, ["headers.authorization", "token"]) as typeof args;
    expect(args).toEqual(before);
    expect(out.headers).not.toBe(args.headers);
    expect(out.list[0]).not.toBe(args.list[0]);
  });

  it("leaves non-objects and unmatched paths alone, and keeps a `__proto__` key as data", () => {
    expect(redactArgs("secret", ["token"])).toBe("secret");
    expect(redactArgs(null, ["token"])).toBeNull();
    expect(redactArgs({ a: "x" }, ["a.b.c"])).toEqual({ a: "x" });
    const parsed = JSON.parse('{"__proto__": {"token": "t"}}') as unknown;
    const out = redactArgs(parsed, ["token"]) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out, "__proto__")?.value).toEqual({ token: REDACTED });
  });

  it("refuses empty selectors and empty path segments", () => {
    expect(() => redactArgs({}, [""])).toThrow(/redaction selector refused/);
    expect(() => redactArgs({}, ["a..b"])).toThrow(/empty path segment/);
  });

  it("property: a redacted key's value never appears in the output, and the input is unchanged", () => {
    const secret = "SUPER-SECRET-VALUE";
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: "small" }, fc.string(), fc.integer(), tie("object"), tie("array")),
      object: fc.dictionary(fc.constantFrom("a", "b", "Token", "token", "TOKEN", "c"), tie("value"), { maxKeys: 4 }),
      array: fc.array(tie("value"), { maxLength: 3 }),
    }));
    fc.assert(
      fc.property(json.object, (obj) => {
        const input = { ...obj, nested: [{ token: secret }, { x: { ToKeN: secret } }] };
        const before = JSON.stringify(input);
        const out = JSON.stringify(redactArgs(input, ["token"]));
        expect(out).not.toContain(secret);
        expect(JSON.stringify(input)).toBe(before);
      }),
    );
  });
});

describe("auditArgs", () => {
  it("renders canonical JSON (sorted keys) of the redacted arguments", () => {
    expect(auditArgs({ b: 1, a: { d: "x", c: "y" }, password: "p" }, ["password"])).toBe('{"a":{"c":"y","d":"x"},"b":1,"password":"[REDACTED]"}');
    expect(auditArgs({ a: 1, b: 2 }, [])).toBe(auditArgs({ b: 2, a: 1 }, []));
  });
});
