import picomatch from "picomatch";
import { PolicyError } from "./errors.js";
import type { FieldMatcher } from "./types.js";
import { foldCase, normalizeString } from "./normalize.js";
import { compileSafeRegex } from "./regex.js";
import { compileDirectGetter, parseSelector, selectAll, type SelectorSegment } from "./selector.js";

/**
 * How a list of values is judged. Restricting rules (deny, ask) match when ANY value matches;
 * permitting rules (allow) only when ALL values match (and there is at least one).
 */
export type Quantifier = "any" | "all";

/** A compiled `where` entry. */
export interface FieldCondition {
  readonly selector: string;
  readonly description: string;
  holds(tree: unknown, quantifier: Quantifier): boolean;
}

/** The text a scalar matcher sees: strings as they are, other scalars as JSON, objects as canonical JSON. */
function asText(value: unknown): string {
  return typeof value === "string" ? value : (JSON.stringify(value) ?? "");
}

function scalarPredicate(matcher: Exclude<FieldMatcher, { exists: boolean }>, where: string): (text: string) => boolean {
  const caseSensitive = matcher.caseSensitive === true;
  const fold = (text: string) => (caseSensitive ? text : foldCase(text));
  const expected = (value: string | number | boolean) => fold(normalizeString(String(value)));
  if ("equals" in matcher) {
    const want = expected(matcher.equals);
    return (text) => fold(text) === want;
  }
  if ("in" in matcher) {
    const wanted = new Set(matcher.in.map(expected));
    return (text) => wanted.has(fold(text));
  }
  if ("prefix" in matcher) {
    const want = expected(matcher.prefix);
    return (text) => fold(text).startsWith(want);
  }
  if ("glob" in matcher) {
    const isMatch = picomatch(matcher.glob, { nocase: !caseSensitive, dot: true });
    return (text) => isMatch(text);
  }
  const regex = compileSafeRegex(matcher.regex, { caseSensitive, where });
  return (text) => regex.test(text);
}

function describeMatcher(matcher: FieldMatcher): string {
  const [key, value] = Object.entries(matcher).find(([name]) => name !== "caseSensitive") ?? ["", ""];
  return `${key} ${JSON.stringify(value)}`;
}

/** Judges one selected value: a list at the end of the path is judged element by element. */
function judge(value: unknown, predicate: (text: string) => boolean, quantifier: Quantifier): boolean {
  if (value === undefined) return false;
  if (!Array.isArray(value)) return predicate(asText(value));
  if (value.length === 0) return false;
  for (const item of value) {
    if (predicate(asText(item)) === (quantifier === "any")) return quantifier === "any";
  }
  return quantifier === "all";
}

/** Compiles one `where` entry; `where` names the rule for errors (bad selector, bad regex). */
export function compileFieldCondition(selector: string, matcher: FieldMatcher, where: string): FieldCondition {
  let segments: SelectorSegment[];
  try {
    segments = parseSelector(selector);
  } catch (error) {
    throw new PolicyError(undefined, where, (error as Error).message);
  }
  const description = `${selector} ${describeMatcher(matcher)}`;
  const direct = compileDirectGetter(segments);
  if ("exists" in matcher) {
    const wantPresent = matcher.exists;
    const present = (value: unknown) => value !== null && value !== undefined;
    return {
      selector,
      description,
      holds: direct
        ? (tree) => present(direct(tree)) === wantPresent
        : (tree) => selectAll(tree, segments).some(present) === wantPresent,
    };
  }
  const predicate = scalarPredicate(matcher, `${where}.regex`);
  if (direct) return { selector, description, holds: (tree, quantifier) => judge(direct(tree), predicate, quantifier) };
  return {
    selector,
    description,
    holds(tree, quantifier) {
      const values = selectAll(tree, segments);
      if (values.length === 0) return false;
      return quantifier === "any"
        ? values.some((value) => judge(value, predicate, "any"))
        : values.every((value) => judge(value, predicate, "all"));
    },
  };
}
