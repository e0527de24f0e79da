import picomatch from "picomatch";
import { PolicyError } from "./errors.js";
import type { FieldMatcher } from "./types.js";
import { foldCase, normalizeString } from "./normalize.js";
import { compileSafeRegex } from "./regex.js";
import { compileDirectGetter, parseSelector, selectAll, type SelectorSegment } from "./selector.js";
import { compileCondition, describeCondition, usesContext, type ValueTest } from "../provenance/conditions.js";
import type { Evaluation } from "../provenance/context.js";
import type { ConditionSpec } from "../provenance/schema.js";

/**
 * How a list of values is judged. Restricting rules (deny, ask) match when ANY value matches;
 * permitting rules (allow) only when ALL values match (and there is at least one).
 */
export type Quantifier = "any" | "all";

/** A compiled `where` entry. `evaluation` carries the thread for provenance conditions (see src/provenance). */
export interface FieldCondition {
  readonly selector: string;
  readonly description: string;
  /** Needs the thread's messages (a `from` condition somewhere inside). */
  readonly contextual: boolean;
  holds(tree: unknown, quantifier: Quantifier, evaluation?: Evaluation): boolean;
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

/**
 * Judges one selected value: a list at the end of the path is judged element by element. A test
 * that cannot tell (undefined) fails closed: it holds for restricting rules ("any"), not for "all".
 */
function judge(value: unknown, test: ValueTest, quantifier: Quantifier, field: string, evaluation: Evaluation | undefined): boolean {
  if (value === undefined) return false;
  const one = (item: unknown) => test(asText(item), field, evaluation) ?? quantifier === "any";
  if (!Array.isArray(value)) return one(value);
  if (value.length === 0) return false;
  for (const item of value) {
    if (one(item) === (quantifier === "any")) return quantifier === "any";
  }
  return quantifier === "all";
}

function isExists(matcher: ConditionSpec<FieldMatcher>): matcher is { exists: boolean } {
  return typeof matcher === "object" && matcher !== null && "exists" in matcher;
}

/** Compiles one `where` entry; `where` names the rule for errors (bad selector, bad regex). */
export function compileFieldCondition(selector: string, matcher: ConditionSpec<FieldMatcher>, where: string): FieldCondition {
  let segments: SelectorSegment[];
  try {
    segments = parseSelector(selector);
  } catch (error) {
    throw new PolicyError(undefined, where, (error as Error).message);
  }
  const description = `${selector} ${describeCondition(matcher, describeMatcher)}`;
  const direct = compileDirectGetter(segments);
  const contextual = usesContext(matcher);
  if (isExists(matcher)) {
    const wantPresent = matcher.exists;
    const present = (value: unknown) => value !== null && value !== undefined;
    return {
      selector,
      description,
      contextual,
      holds: direct
        ? (tree) => present(direct(tree)) === wantPresent
        : (tree) => selectAll(tree, segments).some(present) === wantPresent,
    };
  }
  const test = compileCondition(matcher, (leaf) => {
    if ("exists" in leaf) throw new PolicyError(undefined, where, "exists cannot be used inside not, anyOf or allOf; write it as its own condition");
    return scalarPredicate(leaf, `${where}.regex`);
  });
  if (direct) return { selector, description, contextual, holds: (tree, quantifier, evaluation) => judge(direct(tree), test, quantifier, selector, evaluation) };
  return {
    selector,
    description,
    contextual,
    holds(tree, quantifier, evaluation) {
      const values = selectAll(tree, segments);
      if (values.length === 0) return false;
      return quantifier === "any"
        ? values.some((value) => judge(value, test, "any", selector, evaluation))
        : values.every((value) => judge(value, test, "all", selector, evaluation));
    },
  };
}
