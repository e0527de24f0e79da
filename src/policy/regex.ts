import type { RE2JS } from "re2js";
import { re2jsLibrary } from "../deps/on-demand.js";
import { PolicyError } from "./errors.js";

/** A compiled linear-time regex (RE2 semantics: no backtracking, so no catastrophic patterns). */
export interface SafeRegex {
  readonly source: string;
  /** True when the pattern occurs anywhere in `input` (search, not a full match). */
  test(input: string): boolean;
  /** True when the pattern matches the whole of `input`. */
  testExact(input: string): boolean;
  /**
   * Set when every match starts the input with these printable ASCII characters (lower-cased unless
   * the regex is case-sensitive): `test(input)` is false when the input's first characters are ASCII
   * and, folded, are not these (see `startsWithAscii`). Lets a policy index rules by it.
   */
  readonly start?: string;
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

/** `a|b|c` with no metacharacters: searched with indexOf, much faster than the regex engine. */
const LITERAL_ALTERNATIVES_RE = /^[^\\^$.*+?()[\]{}|]+(?:\|[^\\^$.*+?()[\]{}|]+)*$/;

/**
 * A JavaScript regex for plain literals (`a|b`, no metacharacter among them), case-insensitive
 * unless `caseSensitive`. With the `u` flag, JavaScript compares characters by Unicode simple case
 * folding, which for printable ASCII is RE2's case-insensitive matching: both fold exactly U+017F
 * (long s) onto s and U+212A (Kelvin sign) onto k besides the other ASCII case, and nothing else
 * onto printable ASCII (test/policy-index.test.ts checks every code point against both engines).
 * Faster than lower-casing the text (no copy) and than re2js.
 */
function literalRegExp(alternatives: readonly string[], caseSensitive: boolean, whole: boolean): RegExp {
  const body = alternatives.join("|");
  return new RegExp(whole ? `^(?:${body})$` : body, caseSensitive ? "u" : "iu");
}

/** Characters that delimit keys, strings, numbers and literals in JSON text (and the escape character). */
const JSON_STRUCTURE_RE = /[{}[\]:,"\\]/;

/**
 * For a `pattern` searched as plain literals none of which holds a JSON structural character
 * (`{ } [ ] : , "` or `\\`): the length of its shortest literal; otherwise undefined. Then, in a JSON
 * text, every match lies inside the rendering of one key, string, number or literal: those
 * renderings are separated by structural characters, and no character of the literals matches one
 * (not even case-insensitively). So searching each rendering at least that long finds a match
 * exactly when searching the whole text does (`someJsonToken` in canonical.ts); each character of a
 * literal matches one UTF-16 unit, so a shorter rendering cannot hold a match.
 */
export function matchesWithinJsonTokens(pattern: string): number | undefined {
  if (!isPlainLiteralPattern(pattern) || JSON_STRUCTURE_RE.test(pattern.replaceAll("|", ""))) return undefined;
  return Math.min(...pattern.split("|").map((literal) => literal.length));
}

/** `a|b|c` of printable ASCII with no regex metacharacter: searched without the regex engine. */
function isPlainLiteralPattern(pattern: string): boolean {
  return LITERAL_ALTERNATIVES_RE.test(pattern) && /^[\x20-\x7E]*$/.test(pattern);
}

function literalSearch(pattern: string, caseSensitive: boolean): SafeRegex {
  const needles = pattern.split("|");
  if (caseSensitive) return { source: pattern, test: (input) => needles.some((needle) => input.includes(needle)), testExact: (input) => needles.includes(input) };
  const search = literalRegExp(needles, false, false);
  const exact = literalRegExp(needles, false, true);
  const shared = sharedCaselessChar(needles);
  return {
    source: pattern,
    // A text without a character every literal holds cannot match (most texts: no regex run).
    test: shared === undefined ? (input) => search.test(input) : (input) => input.includes(shared) && search.test(input),
    testExact: (input) => exact.test(input),
  };
}

/**
 * A character that every one of `needles` holds and that has no other case: printable ASCII but not
 * a letter (`_`, a digit, `-`, ...). Case-insensitively (RE2's simple case folding, JavaScript's
 * `iu`), such a character matches itself alone: no other character folds onto it (case folding
 * relates letters only; onto ASCII it maps only the other ASCII case, U+212A and U+017F, all
 * letters). So a text holds a match of one of the needles only if it holds that character.
 */
export function sharedCaselessChar(needles: readonly string[]): string | undefined {
  const first = needles[0] ?? "";
  for (const ch of first) {
    const code = ch.charCodeAt(0);
    const caseless = code >= 0x20 && code < 0x7f && !((code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a));
    if (caseless && needles.every((needle) => needle.includes(ch))) return ch;
  }
  return undefined;
}

/**
 * Compiles `pattern` with RE2 (re2js). Case-insensitive unless `caseSensitive`. Patterns RE2 cannot
 * compile (backreferences, lookaround, ...) throw a PolicyRegexError naming `where`, so a bad policy
 * fails when it is loaded, never while a call is being decided. Plain literals are searched with
 * indexOf, and a literal every match must contain is looked for before the regex engine runs;
 * both give the regex engine's answer (test/policy-index.test.ts compares them with it).
 */
export function compileSafeRegex(pattern: string, options: { caseSensitive?: boolean | undefined; where: string }): SafeRegex {
  // A pattern compiles to the same matcher wherever it is written: a policy repeating one compiles it once.
  const key = `${options.caseSensitive === true ? "1" : "0"}${pattern}`;
  const known = compiledRegexes.get(key);
  if (known !== undefined) return known;
  const regex = compileUncached(pattern, options);
  if (compiledRegexes.size >= MAX_COMPILED) compiledRegexes.clear();
  compiledRegexes.set(key, regex);
  return regex;
}

/** Compiled patterns by case flag and source (a SafeRegex holds no state between calls). */
const compiledRegexes = new Map<string, SafeRegex>();
const MAX_COMPILED = 50_000;

function compileUncached(pattern: string, options: { caseSensitive?: boolean | undefined; where: string }): SafeRegex {
  let compiled: RE2JS;
  try {
    const { RE2JS: Re2 } = re2jsLibrary();
    compiled = Re2.compile(pattern, options.caseSensitive === true ? 0 : Re2.CASE_INSENSITIVE);
  } catch (error) {
    const feature = unsupportedFeature(pattern);
    const cause = error instanceof Error ? error.message : String(error);
    const detail = feature
      ? `${feature} (the policy engine runs RE2, which guarantees linear-time matching on untrusted arguments; rewrite the pattern without it)`
      : `${cause} (RE2 syntax expected)`;
    throw new PolicyRegexError(options.where, pattern, detail);
  }
  // ASCII-only literals: searched in the folded text (see asciiFold).
  if (isPlainLiteralPattern(pattern)) return literalSearch(pattern, options.caseSensitive === true);
  const required = requiredLiteral(pattern);
  if (required === undefined) {
    return {
      source: pattern,
      test: (input) => compiled.test(input),
      testExact: (input) => compiled.testExact(input),
    };
  }
  const caseSensitive = options.caseSensitive === true;
  const needle = caseSensitive ? required.literal : required.literal.toLowerCase();
  const contains = literalRegExp([required.literal], caseSensitive, false);
  const mayMatch = required.anchored ? (input: string) => startsWithAscii(input, needle, caseSensitive) : (input: string) => contains.test(input);
  return {
    source: pattern,
    test: (input) => mayMatch(input) && compiled.test(input),
    // A whole-input match contains the literal too (at the start when the pattern is anchored).
    testExact: (input) => mayMatch(input) && compiled.testExact(input),
    ...(required.anchored ? { start: needle } : {}),
  };
}

/** Characters that stand for themselves in RE2 syntax, inside or outside a character class alike: letters, digits, `_`, space, `-`, `/`, `:`, `,`, `=`, `@`, `%`, `'`, `"`, `<`, `>`, `!`, `#`, `&`, `;`, `~`. */
const PLAIN_CHAR_RE = /^[A-Za-z0-9_ \-/:,=@%'"<>!#&;~]$/;

/**
 * A literal every match must contain: the run of plain characters a pattern begins with (after a
 * leading `^`, which then anchors it at the start of the input). Only for patterns without `|`
 * (an alternative could match without the literal) and without `(?` (flags such as `(?m)` or
 * `(?i)` change what `^` or a letter matches); a quantifier after the run (`*`, `+`, `?`, `{`) takes
 * its last character off it. Undefined when there is no such literal.
 *
 * Why it is safe: without `|`, a pattern `L R` (or `^L R`) with L a run of plain characters matches
 * a text only where L matches, immediately before what R matches; a plain character matches itself,
 * and, case-insensitively, also the characters RE2's simple case folding puts in its orbit: for an
 * ASCII letter that is its other case, plus U+212A (K) and U+017F (s). `startsWithAscii` leaves any
 * non-ASCII character to the regex; an unanchored literal is looked for with `literalRegExp`, which
 * folds as RE2 does.
 */
export function requiredLiteral(pattern: string): { literal: string; anchored: boolean } | undefined {
  if (pattern.includes("|") || pattern.includes("(?")) return undefined;
  const anchored = pattern.startsWith("^");
  let end = anchored ? 1 : 0;
  while (end < pattern.length && PLAIN_CHAR_RE.test(pattern[end]!)) end += 1;
  const quantified = end < pattern.length && "*+?{".includes(pattern[end]!);
  const literal = pattern.slice(anchored ? 1 : 0, quantified ? end - 1 : end);
  return literal.length === 0 ? undefined : { literal, anchored };
}

/** ASCII lower case of one code unit (letters only). */
function lowerAscii(code: number): number {
  return code >= 65 && code <= 90 ? code + 32 : code;
}

/** False only when `input` cannot start with `needle` (lower-cased unless case-sensitive) under RE2 matching. */
function startsWithAscii(input: string, needle: string, caseSensitive: boolean): boolean {
  if (input.length < needle.length) return false;
  for (let i = 0; i < needle.length; i++) {
    const code = input.charCodeAt(i);
    if (code > 0x7f) return true; // a non-ASCII character may fold to an ASCII letter: let the regex decide
    if ((caseSensitive ? code : lowerAscii(code)) !== needle.charCodeAt(i)) return false;
  }
  return true;
}

