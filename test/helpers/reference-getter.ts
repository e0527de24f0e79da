import { DuplicateValues, EmbeddedJson } from "../../src/policy/json-dup.js";
import { NEEDS_FULL_SELECT } from "../../src/policy/selector.js";

/**
 * compileDirectGetter's general loop as it was before its fast paths (no one-key getter, no
 * canonical-object shortcut): the reference the policy's fast-path tests compare the getters with.
 */
export function referenceGetter(steps: readonly (string | number)[]): (value: unknown) => unknown {
  return (value) => {
    let current = value;
    for (const key of steps) {
      if (typeof current !== "object" || current === null) return undefined;
      if (current instanceof DuplicateValues || current instanceof EmbeddedJson) return NEEDS_FULL_SELECT;
      if (typeof key === "number") {
        if (!Array.isArray(current) || key >= current.length) return undefined;
        current = current[key];
      } else {
        if (Array.isArray(current) || !Object.hasOwn(current, key)) return undefined;
        current = (current as Record<string, unknown>)[key];
      }
    }
    return current;
  };
}
