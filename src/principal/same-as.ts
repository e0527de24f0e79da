import { NO, UNKNOWN, YES, type Verdict } from "../policy/kinds/verdict.js";
import { hasControlChars } from "../policy/kinds/verdict.js";
import { foldCase, normalizeString } from "../policy/normalize.js";
import { principalValue, type Principal } from "./principal.js";
import type { SameAsCondition } from "../provenance/schema.js";


/** What a `sameAs` test reads besides the value: the principal of the run (`Evaluation.principal`). */
interface WithPrincipal {
  readonly principal?: Principal | undefined;
}

/** The text two values are compared as: strings normalised (NFKC, whitespace, look-alikes), other scalars as JSON; undefined for objects. */
export function comparableText(value: unknown, caseSensitive: boolean): string | undefined {
  let text: string;
  if (typeof value === "string") text = value;
  else if (typeof value === "number" || typeof value === "boolean") text = String(value);
  else return undefined;
  if (hasControlChars(text)) return undefined;
  const normal = normalizeString(text);
  return caseSensitive ? normal : foldCase(normal);
}

/**
 * The test of one argument text against the principal's value: YES when it equals the value (or
 * one of its items, for a list), NO when it does not, UNKNOWN when the principal lacks the value
 * (or it cannot be compared): a rule that needs it never allows on it.
 */
export function compileSameAs(condition: SameAsCondition): (text: string, restrictive: boolean, field?: string, evaluation?: WithPrincipal) => Verdict {
  const caseSensitive = condition.caseSensitive === true;
  return (text, _restrictive, _field, evaluation) => {
    const found = principalValue(evaluation?.principal, condition.sameAs);
    if (!found.found) return UNKNOWN;
    const own = comparableText(text, caseSensitive);
    if (own === undefined) return UNKNOWN;
    const items = Array.isArray(found.value) ? found.value : [found.value];
    let comparable = false;
    for (const item of items) {
      const other = comparableText(item, caseSensitive);
      if (other === undefined) continue;
      comparable = true;
      if (other === own) return YES;
    }
    return comparable ? NO : UNKNOWN;
  };
}
