// Policy files as editors and people write them: a byte order mark at the start (Windows editors
// write one) loads in every format, and a key written twice in one object is refused in every
// format. YAML and TOML did both; JSON refused a BOM (the policy could not load) and kept a repeated
// key's last value silently, while whoever reads the file sees the first (`"mode": "deny", "mode": "allow"`).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { DuplicateValues, firstRepeatedKey, parseJsonKeepingDuplicates } from "../src/policy/json-dup.js";
import { loadPolicyFile, parsePolicy, permissionPolicy } from "../src/policy/index.js";

const BOM = "\ufeff";
const DOCS = {
  json: JSON.stringify({ version: 1, permissions: [{ rule: "Bash(rm:*)", mode: "deny" }] }),
  yaml: `version: 1\npermissions:\n  - { rule: "Bash(rm:*)", mode: deny }\n`,
  toml: `version = 1\n[[permissions]]\nrule = "Bash(rm:*)"\nmode = "deny"\n`,
} as const;
const REPEATED = {
  json: `{"version": 1, "permissions": [{"rule": "Bash(rm:*)", "mode": "deny", "mode": "allow"}]}`,
  yaml: `version: 1\npermissions:\n  - { rule: "Bash(rm:*)", mode: deny, mode: allow }\n`,
  toml: `version = 1\n[[permissions]]\nrule = "Bash(rm:*)"\nmode = "deny"\nmode = "allow"\n`,
} as const;
const FORMATS = ["json", "yaml", "toml"] as const;

const dir = mkdtempSync(join(tmpdir(), "gg-policy-text-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("policy text as editors write it", () => {
  it.each(FORMATS)("%s: a leading byte order mark loads, the rule holds", (format) => {
    for (const text of [DOCS[format], BOM + DOCS[format], BOM + DOCS[format].replace(/\n/g, "\r\n")]) {
      const policy = permissionPolicy(parsePolicy(text, format, `p.${format}`));
      expect(policy.decide("Bash", { command: "rm -rf /tmp/x" }, "low").mode).toBe("deny");
    }
  });

  it.each(FORMATS)("%s: a file on disk with a byte order mark loads", async (format) => {
    const file = join(dir, `bom.${format}`);
    writeFileSync(file, BOM + DOCS[format]);
    const loaded = await loadPolicyFile(file);
    expect(permissionPolicy(loaded).decide("Bash", { command: "rm -rf /tmp/x" }, "low").mode).toBe("deny");
  });

  it.each(FORMATS)("%s: a key written twice in one object is refused", (format) => {
    expect(() => parsePolicy(REPEATED[format], format, `p.${format}`)).toThrow(/mode|duplicate|twice|already|unique/i);
  });

  it("JSON: the error names where the key is repeated, also nested and at the top", () => {
    expect(() => parsePolicy(REPEATED.json, "json", "p.json")).toThrow('p.json: permissions[0].mode: invalid JSON: the key "mode" appears twice in one object; write it once');
    expect(() => parsePolicy(`{"version": 1, "version": 1}`, "json", "p.json")).toThrow('p.json: version: invalid JSON: the key "version" appears twice');
    expect(() => parsePolicy(`{"version": 1, "tools": {"Bash": {"risk": "high"}, "Bash": {"risk": "low"}}}`, "json", "p.json")).toThrow("p.json: tools.Bash: invalid JSON");
  });

  it("the repeated-key scan agrees with a parser that keeps every value of a repeated key, on generated JSON texts", () => {
    const hasDuplicate = (value: unknown): boolean =>
      value instanceof DuplicateValues || (typeof value === "object" && value !== null && Object.values(value).some(hasDuplicate));
    // Objects written by hand, so a key may repeat; keys and strings with quotes, backslashes and escapes.
    // As JSON texts: `"\u0061"` is the key "a" written with an escape.
    const key = fc.oneof(fc.constantFrom("a", "b", "mode", 'q"uote', "back\\slash", "é", "tab\there").map((k) => JSON.stringify(k)), fc.constant('"\\u0061"'));
    const json: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
      value: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        fc.constantFrom<unknown>(1, true, null, "x", "a\\", '{"a":1,"a":2}', "line\nbreak").map((v) => JSON.stringify(v)),
        fc.array(tie("value"), { maxLength: 3 }).map((items) => `[${items.join(",")}]`),
        fc.array(fc.tuple(key, tie("value")), { maxLength: 4 }).map((entries) => `{${entries.map(([k, v]) => `${k}:${v}`).join(", ")}}`),
      ),
    })).value;
    fc.assert(
      fc.property(json, (text) => {
        JSON.parse(text);
        expect(firstRepeatedKey(text) !== undefined, text).toBe(hasDuplicate(parseJsonKeepingDuplicates(text, 64)));
      }),
      { numRuns: 2_000, seed: 20261128 },
    );
  });
});
