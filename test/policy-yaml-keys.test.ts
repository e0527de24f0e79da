// Policy YAML is read with duplicate keys refused, the check done once per mapping through a set
// (the yaml library's own check compares each key with every key before it). Compared here with the
// library's `parse(text, { uniqueKeys: true, prettyErrors: true })` on generated documents full of
// look-alike keys (quoted and plain, numbers and their strings, null spellings, NaN, empty keys,
// aliases, flow and block mappings): the same data or the same error, and the same warnings; and
// timed on big mappings.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { parsePolicy } from "../src/policy/file.js";
import { parseYamlText } from "../src/policy/yaml-text.js";

/** What reading gave: the data or the error, and the warnings it emitted (captured, not printed). */
function outcome(read: () => unknown): ({ data: unknown } | { error: string }) & { warnings: string[] } {
  const warnings: string[] = [];
  const original = process.emitWarning;
  process.emitWarning = ((warning: unknown) => void warnings.push(warning instanceof Error ? warning.message : String(warning))) as typeof process.emitWarning;
  try {
    return { data: read(), warnings };
  } catch (error) {
    return { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error), warnings };
  } finally {
    process.emitWarning = original;
  }
}

const KEYS = ["a", '"a"', "'a'", "b", "1", '"1"', "1.0", "0x1", "~", "null", "Null", "''", '""', ".nan", ".NaN", "true", '"true"', "? c", "&k a", "*k", "[x]", "{y: 1}"];
const SCALARS = ["1", "x", "~", '"q"', "[1, 2]", "{}", "!!str 3", "!!int 4", "&v 5", "*v"];

/** A block mapping at `indent` of generated keys; values are scalars or nested mappings. */
const block = (depth: number): fc.Arbitrary<string[]> =>
  fc.array(
    fc.tuple(
      fc.constantFrom(...KEYS),
      depth > 0 ? fc.oneof(fc.constantFrom(...SCALARS).map((v) => [v]), block(depth - 1)) : fc.constantFrom(...SCALARS).map((v) => [v]),
    ),
    { minLength: 1, maxLength: 5 },
  ).map((pairs) =>
    pairs.flatMap(([key, value]) => {
      const start = key.startsWith("? ") ? [`${key}`, `: `] : [`${key}: `];
      if (value.length === 1 && !value[0]!.includes("\n") && !value[0]!.startsWith(" ")) return [...start.slice(0, -1), `${start[start.length - 1]}${value[0]}`];
      return [...start, ...value.map((line) => `  ${line}`)];
    }),
  );

const flow = fc.array(fc.tuple(fc.constantFrom("a", '"a"', "1", '"1"', "~", "null", ".nan", "b"), fc.constantFrom(...SCALARS)), { minLength: 1, maxLength: 5 }).map((pairs) => `{ ${pairs.map(([k, v]) => `${k}: ${v}`).join(", ")} }`);

describe("duplicate keys found in linear time, reported as the yaml library reports them", () => {
  it("generated documents: the same data or the same error as the library's own check", () => {
    let refused = 0;
    let read = 0;
    let warned = 0;
    fc.assert(
      fc.property(fc.oneof(block(2).map((lines) => lines.join("\n")), flow.map((text) => `x: ${text}`), fc.tuple(block(1), block(1)).map(([a, b]) => `${a.join("\n")}\n---\n${b.join("\n")}`)), (text) => {
        const expected = outcome(() => parse(text, { uniqueKeys: true, prettyErrors: true }));
        expect(outcome(() => parseYamlText(text)), text).toStrictEqual(expected);
        if ("error" in expected) refused++;
        if (expected.warnings.length > 0) warned++;
        else read++;
      }),
      { numRuns: 2_000, seed: 26 },
    );
    // Both outcomes are well represented (a generator that only produced errors would prove little).
    expect(Math.min(refused, read)).toBeGreaterThan(300);
    expect(warned).toBeGreaterThan(20);
  });

  it("a document the library warns about (an unknown tag) is read the library's way, warning included", () => {
    const text = "a: !unknown v\nb: 1\n";
    const got = outcome(() => parseYamlText(text));
    expect(got).toStrictEqual(outcome(() => parse(text, { uniqueKeys: true, prettyErrors: true })));
    expect(got.warnings.length).toBe(1);
  });

  it("a policy with a key written twice is refused with the line and column of the second", () => {
    const text = "version: 1\npermissions:\n  - tool: shell\n    mode: allow\n    mode: deny\n";
    expect(() => parsePolicy(text, "yaml", "p.yaml")).toThrow(/p\.yaml: line 5, column 5: invalid YAML: Map keys must be unique/);
  });

  it("a mapping of 20,000 keys reads in linear time (8x the keys: under 14x the CPU, ~7.7x measured; the library's own check takes ~33x)", () => {
    const doc = (n: number) => `tools:\n${Array.from({ length: n }, (_, i) => `  tool_${i}:\n    risk: low\n`).join("")}`;
    const small = doc(2_500);
    const large = doc(20_000);
    const least = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
    // The least of six runs each: one run's CPU time includes whatever the collector and a loaded
    // machine added to it. 8x the keys, so that a larger heap's collection (which made 4x the keys
    // read 5.5–5.9x the CPU on a 2-core machine, against a bound of 5.5) stays far from what a quadratic check costs.
    for (let run = 0; run < 6; run++) {
      [small, large].forEach((text, i) => {
        const t0 = process.cpuUsage();
        parseYamlText(text);
        const used = process.cpuUsage(t0);
        least[i] = Math.min(least[i]!, (used.user + used.system) / 1000);
      });
    }
    expect(least[1]! / least[0]!, `${least.map(Math.round).join(" → ")} ms`).toBeLessThan(14);
  }, 60_000);
});
