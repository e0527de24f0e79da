import { RE2JS } from "re2js";
import { PolicyError } from "./errors.js";

/** A compiled linear-time regex (RE2 semantics: no backtracking, so no catastrophic patterns). */
export interface SafeRegex {
  readonly source: string;
  /** True when the pattern occurs anywhere in `input` (search, not a full match). */
  test(input: string): boolean;
  /** True when the pattern matches the whole of `input`. */
  testExact(input: string): boolean;
}

/** A policy pattern RE2 cannot run; `where` names the rule and field it came from. */
export class PolicyRegexError extends PolicyError {
  constructor(
    where: string,
    readonly pattern: string,
    reason: string,
  ) {
    super(undefined, where, `regex ${JSON.stringify(pattern)} refused: ${reason}`);
    this.name = "PolicyRegexError";
  }
}

/** Explains the usual reason a pattern from a backtracking engine does not compile under RE2. */
function unsupportedFeature(pattern: string): string | undefined {
  if (/\(\?<[=!]/.test(pattern)) return "lookbehind is not supported";
  if (/\(\?[=!]/.test(pattern)) return "lookahead is not supported";
  if (/\\[1-9]|\\k</.test(pattern)) return "backreferences are not supported";
  if (/\(\?>/.test(pattern)) return "atomic groups are not supported";
  if (/[*+?}][+]/.test(pattern)) return "possessive quantifiers are not supported";
  return undefined;
}

/**
 * Compiles `pattern` with RE2 (re2js). Case-insensitive unless `caseSensitive`. Patterns RE2 cannot
 * compile (backreferences, lookaround, ...) throw a PolicyRegexError naming `where`, so a bad policy
 * fails when it is loaded, never while a call is being decided.
 */
/** `a|b|c` with no metacharacters: searched with indexOf, much faster than the regex engine. */
const LITERAL_ALTERNATIVES_RE = /^[^\\^$.*+?()[\]{}|]+(?:\|[^\\^$.*+?()[\]{}|]+)*$/;

// Many rules search the same canonical text one after another: lower-case it once (shared by all rules).
let lastInput: string | undefined;
let lastLowered = "";
function lowerCased(input: string): string {
  if (input !== lastInput) {
    lastInput = input;
    lastLowered = input.toLowerCase();
  }
  return lastLowered;
}

function literalSearch(pattern: string, caseSensitive: boolean): SafeRegex {
  const fold = (text: string) => (caseSensitive ? text : text.toLowerCase());
  const needles = pattern.split("|").map(fold);
  return {
    source: pattern,
    test: (input) => {
      const haystack = caseSensitive ? input : lowerCased(input);
      return needles.some((needle) => haystack.includes(needle));
    },
    testExact: (input) => needles.includes(fold(input)),
  };
}

export function compileSafeRegex(pattern: string, options: { caseSensitive?: boolean | undefined; where: string }): SafeRegex {
  // ASCII-only literals: toLowerCase and RE2's case folding agree there.
  if (LITERAL_ALTERNATIVES_RE.test(pattern) && /^[\x20-\x7E]*$/.test(pattern)) return literalSearch(pattern, options.caseSensitive === true);
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern, options.caseSensitive === true ? 0 : RE2JS.CASE_INSENSITIVE);
  } catch (error) {
    const feature = unsupportedFeature(pattern);
    const cause = error instanceof Error ? error.message : String(error);
    const detail = feature
      ? `${feature} (the policy engine runs RE2, which guarantees linear-time matching on untrusted arguments; rewrite the pattern without it)`
      : `${cause} (RE2 syntax expected)`;
    throw new PolicyRegexError(options.where, pattern, detail);
  }
  return {
    source: pattern,
    test: (input) => compiled.test(input),
    testExact: (input) => compiled.testExact(input),
  };
}
