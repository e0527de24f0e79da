import { compileGlob, globLiteralStart } from "./glob.js";
import { PolicyError } from "./errors.js";
import { DuplicateValues, EmbeddedJson } from "./json-dup.js";
import { compileCommandPattern, judgeCommand, judgeCommandWhy } from "./kinds/command.js";
import { compileDomainPattern, compileEmailPattern, compileUrlPattern, judgeDomain, judgeEmail, judgeUrl } from "./kinds/net.js";
import { compilePathPattern, judgePath, normaliseBase, type PathReadOptions } from "./kinds/path.js";
import { kindedStringTest, type ArgumentKind, type KindedTest, type StringMatcher } from "./kinds/readings.js";
import { hasControlChars, NO, stripControlChars, UNKNOWN, YES, type Verdict } from "./kinds/verdict.js";
import { foldCase, isPlainText, normalizeString } from "./normalize.js";
import { compileSafeRegex, type SafeRegex } from "./regex.js";
import { compileDirectGetter, NEEDS_FULL_SELECT, parseSelector, selectAll, type SelectorSegment } from "./selector.js";
import type { FieldMatcher } from "./types.js";
import { compileCondition, describeCondition, isComposite, usesContext, usesPrincipal } from "../provenance/conditions.js";
import type { Evaluation } from "../provenance/context.js";
import type { ConditionSpec } from "../provenance/schema.js";

export { NO, UNKNOWN, YES, type Verdict } from "./kinds/verdict.js";

/**
 * How a rule reads a value. Restricting rules (deny, ask: `restrictive`) match when ANY value or
 * reading matches, and say UNKNOWN when they cannot tell; permitting rules (allow) match only when
 * EVERY value and reading does, and never on UNKNOWN.
 *
 * Extension point: a condition language (not/anyOf/allOf, numbers, budgets) composes FieldCondition
 * objects from `compileFieldCondition` (or implements the interface itself) and combines their
 * verdicts with `combine` — keep the rule that an allow only holds on YES.
 */
export interface FieldCondition {
  readonly selector: string;
  readonly description: string;
  /** Needs the thread (a provenance condition inside): `evaluation` carries it (src/provenance). */
  readonly contextual?: boolean;
  /** Set for a plain `equals` / `in` on a selector without wildcards: lets a policy index rules by value (see `equalityKey`). */
  readonly equality?: EqualityLookup;
  /** Set for a plain `prefix`, `glob` or `regex` on a selector without wildcards whose matches start with known characters (see `startKey`). */
  readonly start?: StartLookup;
  /**
   * Set when `evaluate` reads one value through a selector without wildcards, needs no thread, and
   * for an absent field or a string, number, boolean or null there answers from that value and
   * `restrictive` alone: the same value always gets the same verdict (a policy may keep it per value).
   * A `literal` condition may have it too: its verdict per value is kept the same way, and the
   * caller combines the literal and the normalised view's values as it would evaluate them.
   */
  readonly read?: (tree: unknown) => unknown;
  /** Its verdict for a value can change over time (a path read through this machine's symlinks): never kept. */
  readonly volatile?: boolean;
  evaluate(tree: unknown, restrictive: boolean, evaluation?: Evaluation): Verdict;
  /**
   * Reads the arguments as the tool receives them (`CanonicalArgs.literal`), not normalised: a
   * `command` matcher parses the command line as the shell will and normalises each word itself.
   */
  readonly literal?: boolean;
  /**
   * For the reason of a decision that asks: what made this condition unable to tell (restrictive),
   * or what construct kept an allow from covering a value whose words it matched. Slow path only.
   */
  why?(tree: unknown, restrictive: boolean): string | undefined;
}

/**
 * An `equals` / `in` condition as an index sees it: `evaluate` answers YES exactly when
 * `equalityKey(read(tree), fold)` is a string in `wanted`, and NO when it is any other string or
 * undefined; ANY_VALUE means the value must be judged by `evaluate` itself.
 *
 * On a field with an argument kind (path, url, ...) `read` is not the raw getter: it returns the
 * field's value only when that string is its own only reading in the condition's frame (`wanted`
 * then holds the patterns as readings are spelled, e.g. resolved absolute paths), and an object
 * (so ANY_VALUE: every rule of the group live) for any other value. Kinds other than path, and
 * paths read through symlinks, expose no lookup at all.
 */
export interface EqualityLookup {
  /** Conditions with the same `group` read the same field and fold it the same way (one key serves them all). */
  readonly group: string;
  readonly read: (tree: unknown) => unknown;
  readonly fold: (text: string) => string;
  readonly wanted: ReadonlySet<string>;
}

/**
 * A `prefix`, `glob` or `regex` condition as an index sees it: `evaluate` answers NO when the value
 * `read(tree)` returns is absent, or is a string with no control character whose first
 * `literal.length` characters are ASCII and, ASCII-lower-cased unless `caseSensitive`, differ from
 * `literal` (printable ASCII, lower-cased unless `caseSensitive`). See `startKey`. On a kinded
 * field `read` and `literal` follow the readings, as for EqualityLookup.
 */
export interface StartLookup {
  /** Conditions with the same `group` read the same field with the same case rule. */
  readonly group: string;
  readonly read: (tree: unknown) => unknown;
  readonly caseSensitive: boolean;
  readonly literal: string;
}

/**
 * The first `length` characters of a value `StartLookup.read` returned, ASCII-lower-cased unless
 * `caseSensitive`: undefined when the field is absent, or when the value is a string of ASCII
 * characters shorter than `length` (then no condition of the group holds); ANY_VALUE when the
 * condition must judge the value itself (not a string, control characters, a non-ASCII character
 * among the first `length`). Mirrors `judge` + `withControlGuard` as `equalityKey` does.
 */
export function startKey(found: unknown, length: number, caseSensitive: boolean): string | undefined | typeof ANY_VALUE {
  if (found === undefined) return undefined;
  if (typeof found !== "string" || hasControlChars(found)) return ANY_VALUE;
  const n = Math.min(length, found.length);
  for (let i = 0; i < n; i++) if (found.charCodeAt(i) >= 0x80) return ANY_VALUE;
  if (n < length) return undefined;
  const key = found.length === n ? found : found.slice(0, n);
  // ASCII only: toLowerCase maps each letter to its lower case and nothing else.
  return caseSensitive ? key : key.toLowerCase();
}

/** A value an index cannot key: a list, a duplicated key, embedded JSON, an object, or text with control characters. */
export const ANY_VALUE: unique symbol = Symbol("judged by the condition itself");

/**
 * The text an `equals` / `in` test compares for a value `EqualityLookup.read` returned, or
 * undefined when the field is absent (the condition says NO), or ANY_VALUE when `judge` would not
 * simply compare one text (lists, duplicated keys, embedded JSON and objects are judged part by
 * part; control characters go through `withControlGuard`). Mirrors `judge` + `withControlGuard`.
 */
export function equalityKey(found: unknown, fold: (text: string) => string): string | undefined | typeof ANY_VALUE {
  if (found === undefined) return undefined;
  if (typeof found === "string") return isPlainText(found) || !hasControlChars(found) ? fold(found) : ANY_VALUE;
  // A finite number's JSON text is String(n) (digits, ".", "-", "e", "+": no control character).
  if (typeof found === "number" && Number.isFinite(found)) return fold(String(found));
  if (found === null || typeof found === "number" || typeof found === "boolean") {
    const text = asText(found);
    return hasControlChars(text) ? ANY_VALUE : fold(text);
  }
  return ANY_VALUE; // NEEDS_FULL_SELECT, objects, arrays, DuplicateValues, EmbeddedJson
}

/** Policy-wide settings field matchers inherit. */
export interface MatcherDefaults {
  /** Base directory of `path` matchers that declare none (absolute; default "/"). */
  pathBase?: string | undefined;
  /** The home directory `~` names in `path` patterns (absolute; undefined: `~` is refused). */
  home?: string | undefined;
  /** Path readings also follow symlinks on this machine (see readPathValue). */
  followSymlinks?: boolean | undefined;
  /** Directories besides the base where a path is placed (normalised, absolute; see PathReadOptions.placed). */
  workingDirectories?: readonly string[] | undefined;
}

/** Combines verdicts of several values or readings (see FieldCondition). An empty list is NO. */
function combine(verdicts: Iterable<Verdict>, restrictive: boolean): Verdict {
  let seen = false;
  let unknown = false;
  for (const verdict of verdicts) {
    seen = true;
    if (restrictive) {
      if (verdict === YES) return YES;
      if (verdict === UNKNOWN) unknown = true;
    } else if (verdict !== YES) return NO;
  }
  if (!seen) return NO;
  return restrictive ? (unknown ? UNKNOWN : NO) : YES;
}

/** The text a scalar matcher sees: strings as they are, other scalars as JSON, objects as canonical JSON. */
function asText(value: unknown): string {
  return typeof value === "string" ? value : (JSON.stringify(value) ?? "");
}

/** Tests one scalar value; `field` and `evaluation` are for conditions on the thread (provenance). */
type TextTest = (text: string, restrictive: boolean, field?: string, evaluation?: Evaluation) => Verdict;

const asVerdict = (test: (text: string) => boolean): TextTest => (text) => (test(text) ? YES : NO);

function patternsOf(value: string | readonly string[]): readonly string[] {
  return typeof value === "string" ? [value] : value;
}

const keepCase = (text: string) => text;

/** `equals` and `in`: the folded texts a value may have, and the fold (the test and an index share both). */
function equalityOf(matcher: Extract<FieldMatcher, { equals: unknown } | { in: unknown }>): { fold: (text: string) => string; wanted: ReadonlySet<string> } {
  const fold = matcher.caseSensitive === true ? keepCase : foldCase;
  const values = "equals" in matcher ? [matcher.equals] : matcher.in;
  return { fold, wanted: new Set(values.map((value) => fold(normalizeString(String(value))))) };
}

/**
 * `foldCase(text).startsWith(want)` without lower-casing the whole text: while the text's characters
 * are ASCII, lower-casing maps each to one ASCII character in place (context-free, so the first
 * `want.length` characters of the folded text are those of the text, folded); at the first
 * non-ASCII character, or a text shorter than `want`, the folded text decides.
 */
export function startsWithFolded(text: string, want: string): boolean {
  const n = want.length;
  if (text.length < n) return foldCase(text).startsWith(want);
  for (let i = 0; i < n; i++) {
    let code = text.charCodeAt(i);
    if (code >= 0x80) return foldCase(text).startsWith(want);
    if (code >= 0x41 && code <= 0x5a) code += 0x20;
    if (code !== want.charCodeAt(i)) return false;
  }
  return true;
}

function isKinded(kind: ArgumentKind | undefined): boolean {
  return kind !== undefined && kind !== "text";
}

/** Printable ASCII: the characters a StartLookup's literal may hold. */
const PRINTABLE_ASCII_RE = /^[\x20-\x7e]+$/;

/**
 * `kindTest`, and for `prefix`, `glob` and `regex` the characters every text its test accepts starts
 * with (lower-cased unless case-sensitive), when known: the prefix itself, globLiteralStart, a
 * regex's anchored required literal (SafeRegex.start).
 */
function kindTestWithStart(
  given: Exclude<FieldMatcher, { exists: boolean }>,
  where: string,
  defaults: MatcherDefaults,
  kind: ArgumentKind | undefined,
): { test: TextTest; start?: { literal: string; caseSensitive: boolean }; kinded?: KindedTest } {
  const caseSensitive = "caseSensitive" in given && given.caseSensitive === true;
  const compiled: Compiled = {};
  const test = kindTest(given, where, defaults, compiled, kind);
  const kinded = compiled.kinded;
  // A kinded field compares readings: an index may key only on a value that is its own only reading.
  if (isKinded(kind) && kinded?.selfReading === undefined) return { test };
  const matcher = kinded?.own ?? given;
  let literal: string | undefined;
  if ("prefix" in matcher) literal = caseSensitive ? normalizeString(String(matcher.prefix)) : foldCase(normalizeString(String(matcher.prefix)));
  else if ("glob" in matcher) literal = globLiteralStart(matcher.glob, { nocase: !caseSensitive, dot: true });
  else if ("regex" in matcher) literal = compiled.regex?.start;
  const withKind = kinded === undefined ? {} : { kinded };
  return literal === undefined || !PRINTABLE_ASCII_RE.test(literal) ? { test, ...withKind } : { test, start: { literal, caseSensitive }, ...withKind };
}

/** What compiling a matcher leaves behind for an index: a `regex` matcher's SafeRegex, a kinded matcher's KindedTest. */
interface Compiled {
  regex?: SafeRegex;
  kinded?: KindedTest;
}

/** A value an index must not key on (equalityKey and startKey answer ANY_VALUE for an object). */
const NOT_KEYABLE: object = Object.freeze({});

/** The test of a plain string matcher on one (normalised) text; `compiled` receives the SafeRegex of a `regex` matcher. */
export function stringTest(matcher: StringMatcher, where: string, compiled?: { regex?: SafeRegex }): (text: string) => boolean {
  const caseSensitive = matcher.caseSensitive === true;
  if ("equals" in matcher || "in" in matcher) {
    const { fold: foldEq, wanted } = equalityOf(matcher);
    return (text) => wanted.has(foldEq(text));
  }
  if ("prefix" in matcher) {
    const want = caseSensitive ? normalizeString(String(matcher.prefix)) : foldCase(normalizeString(String(matcher.prefix)));
    return caseSensitive ? (text) => text.startsWith(want) : (text) => startsWithFolded(text, want);
  }
  if ("glob" in matcher) return compileGlob(matcher.glob, { nocase: !caseSensitive, dot: true });
  const regex = compileSafeRegex(matcher.regex, { caseSensitive, where: `${where}.regex` });
  if (compiled !== undefined) compiled.regex = regex;
  return (text) => regex.test(text);
}

function isStringMatcher(matcher: Exclude<FieldMatcher, { exists: boolean }>): matcher is StringMatcher {
  return "equals" in matcher || "in" in matcher || "prefix" in matcher || "glob" in matcher || "regex" in matcher;
}

/** The directory a command line starts in: the policy's pathBase when it names one, else unknown. */
function commandStart(defaults: MatcherDefaults): string | undefined {
  return defaults.pathBase === undefined ? undefined : normaliseBase(defaults.pathBase);
}

/** How `path` readings are made under these defaults and an optional matcher base. */
function pathOptions(defaults: MatcherDefaults, base?: string): PathReadOptions {
  return { base: normaliseBase(base ?? defaults.pathBase), followSymlinks: defaults.followSymlinks === true, ...(defaults.workingDirectories === undefined ? {} : { placed: defaults.pathBase === undefined ? defaults.workingDirectories : [normaliseBase(defaults.pathBase), ...defaults.workingDirectories] }) };
}

/**
 * `compiled` receives the SafeRegex of a `regex` matcher. `kind` is the field's argument kind: a
 * plain string matcher then compares the value's canonical readings (kindedStringTest).
 */
function kindTest(matcher: Exclude<FieldMatcher, { exists: boolean }>, where: string, defaults: MatcherDefaults, compiled?: Compiled, kind?: ArgumentKind): TextTest {
  const caseSensitive = "caseSensitive" in matcher && matcher.caseSensitive === true;
  const fail = (error: unknown): never => {
    throw new PolicyError(undefined, where, error instanceof Error ? error.message : String(error));
  };
  if (isStringMatcher(matcher)) {
    if (kind === undefined || kind === "text") return asVerdict(stringTest(matcher, where, compiled));
    try {
      let first = true;
      const kinded = kindedStringTest(kind, matcher, pathOptions(defaults), (own) => {
        const one = stringTest(own, where, first ? compiled : undefined);
        first = false;
        return one;
      });
      if (compiled !== undefined) compiled.kinded = kinded;
      return kinded.test;
    } catch (error) {
      if (error instanceof PolicyError) throw error;
      return fail(error);
    }
  }
  try {
    if ("path" in matcher) {
      const options = pathOptions(defaults, matcher.base);
      const patterns = patternsOf(matcher.path).map((pattern) => compilePathPattern(pattern, { base: options.base, home: defaults.home, caseSensitive }));
      // An allow compares case as written unless the rule says caseSensitive: false (see kindedStringTest).
      const allowPatterns = matcher.caseSensitive === undefined ? patternsOf(matcher.path).map((pattern) => compilePathPattern(pattern, { base: options.base, home: defaults.home, caseSensitive: true })) : patterns;
      return (text, restrictive) => judgePath(text, restrictive ? patterns : allowPatterns, options, restrictive);
    }
    if ("command" in matcher) {
      const patterns = patternsOf(matcher.command).map((pattern) => compileCommandPattern(pattern, caseSensitive));
      // A deny or ask also places a line's relative words in the policy's pathBase, where the tools run.
      const start = commandStart(defaults);
      return (text, restrictive) => judgeCommand(text, patterns, restrictive, start);
    }
    if ("url" in matcher) {
      const patterns = patternsOf(matcher.url).map(compileUrlPattern);
      return (text, restrictive) => judgeUrl(text, patterns, restrictive);
    }
    if ("domain" in matcher) {
      const patterns = patternsOf(matcher.domain).map(compileDomainPattern);
      return (text, restrictive) => judgeDomain(text, patterns, restrictive);
    }
    const patterns = patternsOf(matcher.email).map(compileEmailPattern);
    return (text, restrictive) => judgeEmail(text, patterns, restrictive);
  } catch (error) {
    return fail(error);
  }
}

// Several rules test the same field of a call one after another: its control-character scan is kept.
let lastText: string | undefined;
let lastHasControl = false;
function controlCharsIn(text: string): boolean {
  if (text !== lastText) {
    lastText = text;
    lastHasControl = !isPlainText(text) && hasControlChars(text);
  }
  return lastHasControl;
}

/**
 * A value with control characters is never matched as if they were absent: a restricting rule
 * matches when the value WITHOUT them matches (else it cannot tell), a permitting rule never does.
 */
function withControlGuard(test: TextTest): TextTest {
  return (text, restrictive) => {
    if (!controlCharsIn(text)) return test(text, restrictive);
    if (!restrictive) return NO;
    return test(stripControlChars(text), true) === YES ? YES : UNKNOWN;
  };
}

/** A leaf matcher's test on one text (control characters guarded): the condition language composes these. */
function leafTest(matcher: Exclude<FieldMatcher, { exists: boolean }>, where: string, defaults: MatcherDefaults, kind: ArgumentKind | undefined): TextTest {
  return withControlGuard(kindTest(matcher, where, defaults, undefined, kind));
}

/** Judges one selected value: lists, duplicated keys and embedded JSON documents are judged part by part. */
function judge(value: unknown, test: TextTest, restrictive: boolean, field: string, evaluation: Evaluation | undefined): Verdict {
  if (value === undefined) return NO;
  if (value instanceof DuplicateValues) return combine(value.values.map((item) => judge(item, test, restrictive, field, evaluation)), restrictive);
  if (value instanceof EmbeddedJson) {
    // The raw string as the tool receives it, and the document it holds.
    return combine([test(value.raw, restrictive, field, evaluation), judge(value.parsed, test, restrictive, field, evaluation)], restrictive);
  }
  if (Array.isArray(value)) return combine(value.map((item) => judge(item, test, restrictive, field, evaluation)), restrictive);
  return test(asText(value), restrictive, field, evaluation);
}

export function describeMatcher(matcher: FieldMatcher): string {
  const [key, value] = Object.entries(matcher).find(([name]) => name !== "caseSensitive" && name !== "base") ?? ["", ""];
  return `${key} ${JSON.stringify(value)}`;
}

/** The condition may read the filesystem (a path followed through symlinks): its verdict for a value can change. */
function readsFilesystem(matcher: ConditionSpec<FieldMatcher>, defaults: MatcherDefaults, kind: ArgumentKind | undefined): boolean {
  if (defaults.followSymlinks !== true) return false;
  if (kind === "path") return true;
  const hasPathLeaf = (node: unknown): boolean => {
    if (typeof node !== "object" || node === null) return false;
    if (Array.isArray(node)) return node.some(hasPathLeaf);
    return Object.hasOwn(node, "path") || Object.values(node).some((child) => typeof child === "object" && hasPathLeaf(child));
  };
  return hasPathLeaf(matcher);
}

/** A field selector parsed, or the PolicyError compiling a condition on it throws (`where` names the rule). */
export function selectorSegments(selector: string, where: string): SelectorSegment[] {
  try {
    return parseSelector(selector);
  } catch (error) {
    throw new PolicyError(undefined, where, (error as Error).message);
  }
}

/**
 * True for a plain `equals`, `in`, `prefix` or `exists` matcher on a field of no kind (or `text`):
 * compiling it can only fail on its selector (its values are compared as text, nothing else is
 * parsed), so checking the selector (`selectorSegments`) checks it.
 */
export function failsOnlyOnSelector(matcher: ConditionSpec<FieldMatcher>, kind: ArgumentKind | undefined): boolean {
  if (typeof matcher !== "object" || matcher === null || isComposite(matcher)) return false;
  if ("exists" in matcher) return true;
  return (kind === undefined || kind === "text") && ("equals" in matcher || "in" in matcher || "prefix" in matcher);
}

/** Compiles one `where` entry; `where` names the rule for errors (bad selector, bad pattern). */
export function compileFieldCondition(selector: string, matcher: ConditionSpec<FieldMatcher>, where: string, defaults: MatcherDefaults = {}, kind?: ArgumentKind): FieldCondition {
  const segments = selectorSegments(selector, where);
  // Written when a reason or a rule's description first needs it (building a policy compiles many conditions no decision names).
  let described: string | undefined;
  const describe = () => (described ??= `${selector} ${describeCondition(matcher, describeMatcher)}`);
  const direct = compileDirectGetter(segments);
  const present = (value: unknown) => value !== null && value !== undefined;
  if (!isComposite(matcher) && "exists" in matcher) {
    const wantPresent = matcher.exists;
    return {
      selector,
      get description() {
        return describe();
      },
      ...(direct === undefined ? {} : { read: direct }),
      evaluate(tree) {
        const found = direct?.(tree);
        const isPresent = found === NEEDS_FULL_SELECT || direct === undefined ? selectAll(tree, segments).some(present) : present(found);
        return isPresent === wantPresent ? YES : NO;
      },
    };
  }
  const plain = isComposite(matcher) ? undefined : kindTestWithStart(matcher as Exclude<FieldMatcher, { exists: boolean }>, where, defaults, kind);
  const test: TextTest =
    plain === undefined
      ? compileCondition(matcher, (leaf) => {
          if ("exists" in leaf) throw new PolicyError(undefined, where, "exists cannot be used inside not, anyOf or allOf; write it as its own condition");
          return leafTest(leaf, where, defaults, kind);
        })
      : withControlGuard(plain.test);
  // A condition on the thread (`from`) or on the principal (`sameAs`) reads more than the value.
  const contextual = usesContext(matcher) || usesPrincipal(matcher);
  const full = (tree: unknown, restrictive: boolean, evaluation?: Evaluation): Verdict =>
    combine(
      selectAll(tree, segments).map((value) => judge(value, test, restrictive, selector, evaluation)),
      restrictive,
    );
  const command = commandExtras(matcher, segments, defaults);
  const volatile = readsFilesystem(matcher, defaults, kind);
  if (direct === undefined) {
    return {
      selector,
      get description() {
        return describe();
      },
      contextual,
      evaluate: full,
      ...command,
      ...(volatile ? { volatile } : {}),
    };
  }
  const leaf = matcher as FieldMatcher;
  // A kinded field compares readings, not the text as written: an index reads the field only when
  // the value is its own only reading (selfReading), and sees NOT_KEYABLE (every rule live) otherwise.
  const self = plain?.kinded?.selfReading;
  const kindedOut = isKinded(kind) && self === undefined;
  const keyed = (plain?.kinded?.own ?? leaf) as FieldMatcher;
  const equality = isComposite(matcher) || kindedOut || !("equals" in keyed || "in" in keyed) ? undefined : equalityOf(keyed);
  const read: (tree: unknown) => unknown =
    self === undefined
      ? direct
      : (tree) => {
          const found = direct(tree);
          return found === undefined || (typeof found === "string" && self.is(found)) ? found : NOT_KEYABLE;
        };
  const tag = self === undefined ? "" : `\u0000${self.tag}`;
  return {
    selector,
    get description() {
      return describe();
    },
    contextual,
    ...command,
    // Kept per value (FieldCondition.read) only when the verdict depends on the value alone: not a
    // path read through this machine's symlinks. A command condition's verdict depends on the value
    // alone too; the caller reads it in the literal view (and the normalised one), as `literal` says.
    ...(contextual || volatile ? {} : { read: direct }),
    ...(volatile ? { volatile } : {}),
    ...(equality === undefined ? {} : { equality: { group: `${JSON.stringify(segments)}\u0000${equality.fold === keepCase}${tag}`, read, ...equality } }),
    ...(plain?.start === undefined ? {} : { start: { group: `${JSON.stringify(segments)}\u0000${plain.start.caseSensitive}${tag}`, read, ...plain.start } }),
    evaluate(tree, restrictive, evaluation) {
      const found = direct(tree);
      // `judge` of a string, without its checks for lists, duplicated keys and embedded JSON.
      if (typeof found === "string") return test(found, restrictive, selector, evaluation);
      if (found === NEEDS_FULL_SELECT) return full(tree, restrictive, evaluation);
      return judge(found, test, restrictive, selector, evaluation);
    },
  };
}

/** A plain `command` matcher reads the literal arguments and can say why it could not tell or cover a value. */
function commandExtras(matcher: ConditionSpec<FieldMatcher>, segments: SelectorSegment[], defaults: MatcherDefaults): Pick<FieldCondition, "literal" | "why"> {
  if (isComposite(matcher) || !("command" in (matcher as FieldMatcher))) return {};
  const leaf = matcher as Extract<FieldMatcher, { command: unknown }>;
  const patterns = patternsOf(leaf.command).map((pattern) => compileCommandPattern(pattern, leaf.caseSensitive === true));
  const start = commandStart(defaults);
  return {
    literal: true,
    why(tree, restrictive) {
      const texts: string[] = [];
      const collect = (value: unknown): void => {
        if (typeof value === "string") texts.push(value);
        else if (value instanceof EmbeddedJson) texts.push(value.raw);
        else if (value instanceof DuplicateValues) value.values.forEach(collect);
        else if (Array.isArray(value)) value.forEach(collect);
      };
      for (const value of selectAll(tree, segments)) collect(value);
      for (const text of texts) {
        const why = judgeCommandWhy(text, patterns, restrictive, start).why;
        if (why !== undefined) return why;
      }
      return undefined;
    },
  };
}
