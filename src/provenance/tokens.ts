import { foldCase, normalizeString } from "../policy/normalize.js";

/**
 * What "a value appears in a text" means, in one place (both sides go through the same steps):
 *
 * 1. Normalise as the policy matchers do (NFKC, zero-width and format characters removed, accents
 *    stripped, Cyrillic/Greek look-alikes mapped to Latin, whitespace collapsed) and fold case.
 * 2. Split into whole tokens: a token starts with a letter, digit, `+`, `@`, `#` or `_` and continues
 *    through letters, digits and the characters identifiers use inside (`. - / : % ? = & ~ ' @ + _ #`).
 *    Trailing punctuation is dropped, and so is a leading `http://`, `https://` or `mailto:`, so an
 *    email, a URL, an IBAN or a file name is one token and "alice@x.com." ends at "com".
 * 3. A value is found when its tokens occur in a text as a contiguous run of whole tokens: "13" is not
 *    found in "2013" nor in "x13y"; "Emma Johnson" is found in "Hi Emma Johnson!" but not in "Emma J.".
 * 4. Identifiers written with separators: each token or run of up to 8 adjacent tokens that carry a
 *    digit or are groups of up to 4 letters (as in "GB29 NWBK 6016 ...", starting with a digit or with
 *    a letter group followed by a digit group) and are separated only by
 *    spaces, `-`, `.`, `/` or parentheses is also indexed without the separators, so "DE89 3704 0044 0532 0130 00" is found for "DE89370400440532013000" and
 *    "+1 (555) 123-4567" for "+1-555-123-4567".
 * 5. Numbers: a numeric value is found when a number token has the same value ("98.70" and "98.7",
 *    "30,000" and 30000).
 *    A full stop glued to a capitalised word ("www.our-company.com.They") ends the token there.
 * 6. Too short to trace: a value with fewer than `minLength` letters and digits (default 3), or a
 *    number with fewer than 4 digits, is never found: "13" must not be "found" in "June 13". Such a
 *    value fails the condition, so the rule applies (fail closed).
 */

export const DEFAULT_MIN_LENGTH = 3;
/**
 * Prefixes of the index keys that are not tokens: a control character no token can hold, so a token
 * such as "#x1" or "n:5" is never taken for the identifier form of "x1" or the number 5.
 */
const IDENTIFIER_KEY = "\u0001";
const NUMBER_KEY = "\u0002";
const MIN_NUMBER_DIGITS = 4;
/** Longest run of digit-bearing tokens indexed as one identifier. */
const MAX_RUN_TOKENS = 8;
/** Longest identifier (compact form) indexed from a run. */
const MAX_RUN_CHARS = 48;

const TOKEN_RE = /[\p{L}\p{N}+@#_][\p{L}\p{N}+@#_.\-/:%?=&~']*/gu;
const TRAILING_RE = /[.\-/:%?=&~']+$/u;
const SCHEME_RE = /^(?:https?:\/\/|mailto:)/u;
const DIGIT_RE = /\p{N}/u;
const SHORT_GROUP_RE = /^\p{L}{1,4}$/u;
const SEPARATOR_GAP_RE = /^[\s\-./()]*$/u;
const COMPACT_DROP_RE = /[\s\-./()]/gu;
const NUMBER_RE = /^[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?$/u;
const GROUPED_NUMBER_RE = /[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?/gu;
const ALNUM_RE = /[\p{L}\p{N}]/gu;

/** A full stop directly followed by a capitalised word ("www.example.com.They") ends a sentence: a space is put there before case is folded. */
const SENTENCE_GLUE_RE = /\.(?=\p{Lu}\p{Ll})/gu;

const ASCII_RE = /^[\x00-\x7F]*$/;
const ASCII_WHITESPACE_RUN_RE = /\s+/g;

/** Normalised, case-folded text as every comparison sees it. */
export function canonicalText(text: string): string {
  // ASCII text (most tool outputs): NFKC, accents, invisible characters and look-alikes change
  // nothing, so normalising is collapsing whitespace (what normalizeString does, in one pass).
  const normal = ASCII_RE.test(text) ? text.replace(ASCII_WHITESPACE_RUN_RE, " ").trim() : normalizeString(text);
  return foldCase(normal.replace(SENTENCE_GLUE_RE, ". "));
}

const TRAILING_CHARS = new Set([".", "-", "/", ":", "%", "?", "=", "&", "~", "'"]);

function cleanToken(raw: string): string {
  // The regular expressions run only when there is something to strip (most tokens have nothing).
  let token = TRAILING_CHARS.has(raw[raw.length - 1] ?? "") ? raw.replace(TRAILING_RE, "") : raw;
  const first = token[0];
  if (first === "h" || first === "m") {
    const bare = token.replace(SCHEME_RE, "");
    if (bare !== token) token = bare.replace(TRAILING_RE, "");
  }
  return token;
}

interface Tokenized {
  /** The whole tokens in order. */
  tokens: string[];
  /** Every key under which the text is indexed: tokens, identifier forms ({@link IDENTIFIER_KEY}…) and numbers ({@link NUMBER_KEY}…). */
  /** May repeat a key (the index keeps one position per text). */
  keys: string[];
  /** " t1 t2 … " for contiguous-run checks. */
  sequence: string;
}

function numberKey(token: string): string | undefined {
  if (!NUMBER_RE.test(token)) return undefined;
  const value = Number(token.replace(/,/g, ""));
  return Number.isFinite(value) ? `${NUMBER_KEY}${String(value)}` : undefined;
}

/** The same token pattern over ASCII text (canonical text is lower case): no Unicode classes to test. */
const ASCII_TOKEN_RE = /[a-z0-9+@#_][a-z0-9+@#_.\-/:%?=&~']*/g;
const ASCII_DIGIT_RE = /[0-9]/;

/** Whether the text between two tokens holds only spaces, `-`, `.`, `/` or parentheses (SEPARATOR_GAP_RE without a slice). */
function separatorGap(text: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) {
    const c = text.charCodeAt(k);
    // space, tab, newline, CR, form feed, vertical tab; - . / ( )
    if (c === 32 || (c >= 9 && c <= 13) || c === 45 || c === 46 || c === 47 || c === 40 || c === 41) continue;
    if (c < 128) return false;
    return SEPARATOR_GAP_RE.test(text.slice(from, to));
  }
  return true;
}

/** A token without the separators an identifier may be written with (COMPACT_DROP_RE; tokens hold no spaces). */
function compactOf(token: string): string {
  for (let k = 0; k < token.length; k++) {
    const c = token.charCodeAt(k);
    if (c === 45 || c === 46 || c === 47 || c === 40 || c === 41 || c > 127) return token.replace(COMPACT_DROP_RE, "");
  }
  return token;
}

/** Tokenises a text (see the module comment for the rules). */
export function tokenize(text: string): Tokenized {
  return tokenizeCanonical(canonicalText(text));
}

/**
 * Whether a text (in canonical form) may hold one of a value's lookup keys: a token key is a
 * substring of the canonical text, an identifier form a substring of it without separators.
 * A necessary condition only (true: tokenise and look; false: it cannot be there). Number keys
 * compare by value, so they always may.
 */
export function mayHold(canonical: string, query: ValueQuery, compact: () => string): boolean {
  for (const { key } of query.alternatives.length > 0 ? query.alternatives : (query.appearances ?? [])) {
    if (key.startsWith(NUMBER_KEY)) return true;
    if (key.startsWith(IDENTIFIER_KEY) ? compact().includes(key.slice(IDENTIFIER_KEY.length)) : canonical.includes(key)) return true;
  }
  return false;
}

/** A canonical text without the separators identifiers are written with (for {@link mayHold}). */
export function withoutSeparators(canonical: string): string {
  return canonical.replace(COMPACT_DROP_RE, "");
}

/** Tokenises a text already in canonical form. */
export function tokenizeCanonical(canonical: string): Tokenized {
  const ascii = ASCII_RE.test(canonical);
  const tokenRe = ascii ? ASCII_TOKEN_RE : TOKEN_RE;
  const digitRe = ascii ? ASCII_DIGIT_RE : DIGIT_RE;
  const tokens: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  const digits: boolean[] = [];
  tokenRe.lastIndex = 0;
  for (let match = tokenRe.exec(canonical); match !== null; match = tokenRe.exec(canonical)) {
    const token = cleanToken(match[0]);
    if (token.length === 0) continue;
    tokens.push(token);
    starts.push(match.index);
    ends.push(match.index + match[0].length);
    digits.push(digitRe.test(token));
  }
  const keys = tokens.slice();
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (!digits[i]) {
      // A short letter group may open an identifier ("DE 89 3704 ...", "GB 29 NWBK ...").
      const opensRun = token.length <= 4 && i + 1 < tokens.length && digits[i + 1] === true && separatorGap(canonical, ends[i]!, starts[i + 1]!);
      if (!opensRun) continue;
    } else {
      const number = numberKey(token);
      if (number !== undefined) keys.push(number);
      // A decimal number is a number, not an identifier: "1000.0" without its point is not "10000".
      if (number !== undefined && token.includes(".")) continue;
    }
    // Identifier forms: this token alone, and runs of adjacent digit-bearing tokens.
    let compact = "";
    let withDigit = false;
    for (let j = i; j < tokens.length && j < i + MAX_RUN_TOKENS; j++) {
      const next = tokens[j]!;
      // A run goes on through groups that carry a digit and short letter groups ("GB29 NWBK 6016 ...").
      if (j > i && !digits[j] && !SHORT_GROUP_RE.test(next)) break;
      if (j > i && digits[j] && next.includes(".") && NUMBER_RE.test(next)) break;
      if (j > i && !separatorGap(canonical, ends[j - 1]!, starts[j]!)) break;
      compact += compactOf(next);
      if (compact.length > MAX_RUN_CHARS) break;
      // A digit dropped with the separators cannot be: separators are not digits.
      withDigit ||= digits[j] === true;
      if (withDigit) keys.push(`${IDENTIFIER_KEY}${compact}`);
    }
  }
  if (canonical.includes(",")) {
    for (const match of canonical.matchAll(GROUPED_NUMBER_RE)) {
      const number = numberKey(match[0]);
      if (number !== undefined) keys.push(number);
    }
  }
  return { tokens, keys, sequence: ` ${tokens.join(" ")} ` };
}

/** How a value is looked up: keys that must all be present in one text, plus the run to verify. */
export interface ValueQuery {
  /** The value in canonical form, for messages. */
  display: string;
  /** Keys that locate candidate texts; the value is found in a text whose keys hold one of these and, when `sequence` is set, whose sequence contains it. */
  alternatives: { key: string; sequence?: string }[];
  /** Set when the value cannot be traced (too short, empty): it is never found. */
  untraceable?: string;
  /**
   * For a value that cannot be traced: the keys of its whole-token appearances, so that evidence can
   * still say where it appears ("13" in the output of list_files) while it is never "found".
   */
  appearances?: { key: string; sequence?: string }[];
}

function alnumLength(text: string): number {
  return text.match(ALNUM_RE)?.length ?? 0;
}

/** Turns an argument value (a scalar) into the lookups that find it. */
export function valueQuery(value: unknown, minLength = DEFAULT_MIN_LENGTH): ValueQuery {
  if (typeof value === "number") {
    const digits = String(Math.abs(value)).replace(/\D/g, "").length;
    const display = String(value);
    if (!Number.isFinite(value) || digits < MIN_NUMBER_DIGITS) {
      const appearances = Number.isFinite(value) ? [{ key: `${NUMBER_KEY}${display}` }] : [];
      return { display, alternatives: [], untraceable: `a number with fewer than ${MIN_NUMBER_DIGITS} digits cannot be traced`, appearances };
    }
    return { display, alternatives: [{ key: `${NUMBER_KEY}${display}` }, { key: `${IDENTIFIER_KEY}${display.replace(COMPACT_DROP_RE, "")}` }] };
  }
  const text = typeof value === "string" ? value : typeof value === "boolean" ? String(value) : (JSON.stringify(value) ?? "");
  const { tokens } = tokenize(text);
  const display = tokens.join(" ");
  const whole = tokens.length === 0 ? [] : tokens.length === 1 ? [{ key: tokens[0]! }] : [{ key: tokens[0]!, sequence: ` ${display} ` }];
  if (alnumLength(display) < minLength) {
    return { display, alternatives: [], untraceable: `fewer than ${minLength} letters or digits cannot be traced`, appearances: whole };
  }
  const alternatives: ValueQuery["alternatives"] = [...whole];
  if (DIGIT_RE.test(display)) {
    const number = tokens.length === 1 ? numberKey(tokens[0]!) : undefined;
    const compact = display.replace(COMPACT_DROP_RE, "");
    // A decimal number is looked up by value only (see tokenize).
    if (compact.length <= MAX_RUN_CHARS && !(number !== undefined && display.includes("."))) alternatives.push({ key: `${IDENTIFIER_KEY}${compact}` });
    if (number !== undefined) {
      const digits = tokens[0]!.replace(/\D/g, "").length;
      if (digits < MIN_NUMBER_DIGITS) {
        return { display, alternatives: [], untraceable: `a number with fewer than ${MIN_NUMBER_DIGITS} digits cannot be traced`, appearances: [...whole, { key: number }] };
      }
      alternatives.push({ key: number });
    }
  }
  return { display, alternatives };
}

/** One text tokenised for {@link holds}: its keys as a set, and its token sequence. */
export interface HeldText {
  keys: ReadonlySet<string>;
  sequence: string;
}

/** A text made ready for {@link holds} (a field of a tool's output). */
export function heldText(text: string): HeldText {
  const { keys, sequence } = tokenize(text);
  return { keys: new Set(keys), sequence };
}

/** Whether one text holds the value, by the same rules as the thread index (whole tokens, runs, identifier forms, numbers by value). */
export function holds(query: ValueQuery, text: HeldText): boolean {
  for (const alternative of query.alternatives) {
    if (!text.keys.has(alternative.key)) continue;
    if (alternative.sequence === undefined || text.sequence.includes(alternative.sequence)) return true;
  }
  return false;
}

const LINK_RE = /(?:https?:\/\/|www\.)[^\s<>"'`)\]}]+|[\p{L}\p{N}][\p{L}\p{N}.-]*\.\p{L}{2,}\/[^\s<>"'`)\]}]*/gu;
const EMAIL_RE = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}.-]+\.\p{L}{2,}/gu;

/** The links (with a scheme, starting with www., or host/path) and email addresses written inside a text. */
export function extractIdentifiers(text: string, kinds: readonly ("links" | "emails")[]): string[] {
  const canonical = canonicalText(text);
  const found: string[] = [];
  if (kinds.includes("emails")) for (const match of canonical.matchAll(EMAIL_RE)) found.push(match[0]);
  if (kinds.includes("links")) {
    for (const match of canonical.matchAll(LINK_RE)) {
      const link = match[0].replace(/[.,;:!?'"\-/]+$/u, "");
      if (!found.some((email) => email.includes(link) || link.includes(email))) found.push(link);
    }
  }
  return found;
}
