import type { SelectorSegment } from "../../src/policy/selector.js";

/**
 * A value the rest of a selector reaches (a string "x" at its end): `{ a: [null, "x"] }` for the
 * segments `.a[1]`. The selector property tests build arguments a rule's selector really reads with it.
 */
export function witness(rest: readonly SelectorSegment[]): unknown {
  let value: unknown = "x";
  for (const segment of [...rest].reverse()) {
    if ("key" in segment) value = Object.fromEntries([[segment.key, value]]);
    else if ("index" in segment) value = Array.from({ length: segment.index + 1 }, (_, i) => (i === segment.index ? value : null));
    else value = [value];
  }
  return value;
}
