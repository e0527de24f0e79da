import { posix } from "node:path";
import { commandTexts } from "./command.js";
import { domainReadings, emailAddresses, MachineBoundReadings, normaliseDomain, urlReadings, type NetReadings } from "./net.js";
import { readPathValue, type PathReadOptions } from "./path.js";
import { NO, UNKNOWN, YES, type Verdict } from "./verdict.js";

/**
 * What an argument is: a kind makes every plain string matcher on the field (`equals`, `in`,
 * `prefix`, `glob`, `regex`) compare the value's canonical readings instead of its text as written.
 * `text` declares a field to be plain text (no kind, even where its name suggests one).
 */
export const ARGUMENT_KINDS = ["path", "url", "domain", "email", "command", "text"] as const;
export type ArgumentKind = (typeof ARGUMENT_KINDS)[number];

/** The plain string matchers a kind applies to. */
export type StringMatcher =
  | { equals: string | number | boolean; caseSensitive?: boolean }
  | { in: (string | number | boolean)[]; caseSensitive?: boolean }
  | { glob: string; caseSensitive?: boolean }
  | { regex: string; caseSensitive?: boolean }
  | { prefix: string; caseSensitive?: boolean };

/** Which reading of a path a pattern is compared with: absolute patterns the absolute one, relative ones the base-relative one. */
type Frame = "absolute" | "relative" | "both";

const backslashes = (text: string) => text.replace(/\\/g, "/");
const PLACEABLE = (text: string) => !/^(?:~|[a-zA-Z]:|file:)/.test(text);

/** The frame of a path pattern, and the pattern as the readings are spelled (`./x` → `x`, `\` → `/`). */
function pathPattern(matcher: StringMatcher, base: string): { matcher: StringMatcher; frame: Frame } {
  const cs = matcher.caseSensitive === undefined ? {} : { caseSensitive: matcher.caseSensitive };
  const resolve = (value: string | number | boolean) => (typeof value === "string" && PLACEABLE(value) ? posix.resolve(base, backslashes(value)) : value);
  if ("equals" in matcher) return { matcher: { equals: resolve(matcher.equals), ...cs }, frame: "absolute" };
  if ("in" in matcher) return { matcher: { in: matcher.in.map(resolve), ...cs }, frame: "absolute" };
  if ("prefix" in matcher || "glob" in matcher) {
    const pattern = backslashes("prefix" in matcher ? matcher.prefix : matcher.glob);
    const frame: Frame = pattern.startsWith("/") ? "absolute" : "relative";
    const spelled = frame === "relative" ? pattern.replace(/^(?:\.\/)+/, "") : pattern;
    return { matcher: "prefix" in matcher ? { prefix: spelled, ...cs } : { glob: spelled, ...cs }, frame };
  }
  const source = matcher.regex;
  const frame: Frame = /^\^(?:\/|\\\/)/.test(source) ? "absolute" : source.startsWith("^") ? "relative" : "both";
  return { matcher, frame };
}

/** Equality patterns spelled as the readings are (`HTTPS://Example.com` → `https://example.com/`). */
function normaliseEquality(matcher: StringMatcher, read: (text: string) => string | undefined): StringMatcher {
  const one = (value: string | number | boolean) => (typeof value === "string" ? (read(value) ?? value) : value);
  const cs = matcher.caseSensitive === undefined ? {} : { caseSensitive: matcher.caseSensitive };
  if ("equals" in matcher) return { equals: one(matcher.equals), ...cs };
  if ("in" in matcher) return { in: matcher.in.map(one), ...cs };
  return matcher;
}

/**
 * Readings of one value as the test compares them; `texts` undefined when the value cannot be read
 * (a deny or ask then cannot tell, an allow does not hold); `doubtful` when some spelling cannot be
 * read or climbs out of the path base (a deny may still match another reading; an allow never holds).
 */
interface Readings {
  texts: string[] | undefined;
  doubtful: boolean;
  /** A reading the pattern's frame cannot place (a path outside the base for a relative pattern): an allow never holds. */
  unplaced: boolean;
}

/** URL or host readings as the test compares them. */
const netReadings = (read: NetReadings | undefined): Readings => ({ texts: read?.texts, doubtful: read?.doubtful === true, unplaced: false });

/** A plain string matcher on a kinded field, compiled. */
export interface KindedTest {
  readonly test: (text: string, restrictive: boolean) => Verdict;
  /** The matcher as the readings are spelled (path patterns resolved or re-anchored, URLs and domains normalised). */
  readonly own: StringMatcher;
  /**
   * When set, `is(text)` says the value has exactly one reading, the text itself, and nothing
   * doubtful: then `test` answers as the matcher's own test of the text does, so an index may key
   * on the text. `tag` tells apart the ways of reading (kind, frame, base).
   */
  readonly selfReading?: { readonly tag: string; is(text: string): boolean };
}

/**
 * The test of a plain string matcher on a field of kind `kind`. `compile` builds the matcher's own
 * test of one text. A deny or ask (`restrictive`) matches when the text as written or ANY reading
 * matches, and cannot tell (UNKNOWN) when the value cannot be read; an allow holds only when the
 * value can be read and EVERY reading matches.
 */
export function kindedStringTest(
  kind: Exclude<ArgumentKind, "text">,
  matcher: StringMatcher,
  paths: PathReadOptions,
  compile: (matcher: StringMatcher) => (text: string) => boolean,
): KindedTest {
  let read: (text: string, restrictive: boolean) => Readings;
  let own = matcher;
  switch (kind) {
    case "path": {
      const { matcher: spelled, frame } = pathPattern(matcher, paths.base);
      own = spelled;
      read = (text) => {
        const { readings, unreadable, escapes } = readPathValue(text, paths);
        const texts: string[] = [];
        let unplaced = false;
        for (const reading of readings) {
          if (frame !== "relative") texts.push(reading.absolute);
          if (frame !== "absolute") {
            if (reading.relative === undefined) unplaced = true;
            else texts.push(reading.relative);
          }
        }
        return { texts, doubtful: unreadable || escapes, unplaced };
      };
      break;
    }
    case "url":
      own = normaliseEquality(matcher, (text) => urlReadings(text, true)?.texts[0]);
      read = (text, restrictive) => netReadings(urlReadings(text, true, restrictive));
      break;
    case "domain":
      own = normaliseEquality(matcher, normaliseDomain);
      read = (text, restrictive) => netReadings(domainReadings(text, restrictive));
      break;
    case "email":
      own = normaliseEquality(matcher, (text) => emailAddresses(text)?.[0]);
      read = (text) => ({ texts: emailAddresses(text), doubtful: false, unplaced: false });
      break;
    case "command":
      read = (text, restrictive) => ({ ...commandTexts(text, restrictive), unplaced: false });
      break;
  }
  const test = compile(own);
  let selfReading: KindedTest["selfReading"];
  if (kind === "path" && !paths.followSymlinks) {
    const frame = pathPattern(matcher, paths.base).frame;
    if (frame !== "both") {
      selfReading = {
        tag: `path\u0000${frame}\u0000${paths.base}`,
        is: (text) => {
          const { readings, unreadable, escapes } = readPathValue(text, paths);
          const only = readings.length === 1 ? readings[0] : undefined;
          return !unreadable && !escapes && only !== undefined && (frame === "absolute" ? only.absolute : only.relative) === text;
        },
      };
    }
  }
  // A path allow compares case as written (on this machine's filesystems `DOCS` is not `docs`)
  // unless the rule says caseSensitive: false; a deny ignores case unless it says caseSensitive: true.
  const asWritten = kind === "path" && own.caseSensitive === undefined ? compile({ ...own, caseSensitive: true } as StringMatcher) : test;
  // A path `prefix` allow holds at a name boundary: `/srv/docs` covers `/srv/docs` and `/srv/docs/x`,
  // never `/srv/docs-evil/x`; a URL `prefix` allow ending inside a host or a path name holds at the
  // end of it: `https://docs.example.com` never covers `https://docs.example.com.evil.net/`, nor
  // `https://api.example.com/v1` `https://api.example.com/v1-admin` (a deny keeps the plain text
  // prefix, which covers more).
  const prefix = "prefix" in own && typeof own.prefix === "string" && own.prefix !== "" ? own.prefix : undefined;
  const boundary = prefix === undefined ? undefined : kind === "path" && !prefix.endsWith("/") ? prefix.length : kind === "url" && /[\w-]$/.test(prefix) ? prefix.length : undefined;
  const ends = kind === "url" ? "/?#" : "/";
  const allowTest = boundary === undefined ? asWritten : (reading: string) => asWritten(reading) && (reading.length === boundary || ends.includes(reading[boundary]!));
  // A reading may name the places this machine's names reach (a deny reads them too): kept while they stay the same.
  const cache = new MachineBoundReadings<Readings>(1024);
  const cached = kind === "path" ? read : (text: string, restrictive: boolean): Readings => {
    const key = restrictive ? `1${text}` : `0${text}`;
    let found = cache.get(key);
    if (found === undefined) {
      found = read(text, restrictive);
      cache.set(key, found);
    }
    return found;
  };
  const verdict = (text: string, restrictive: boolean): Verdict => {
    const { texts, doubtful, unplaced } = cached(text, restrictive);
    if (restrictive) {
      if (test(text)) return YES;
      if (texts === undefined) return UNKNOWN;
      for (const reading of texts) if (test(reading)) return YES;
      return doubtful ? UNKNOWN : NO;
    }
    if (texts === undefined || doubtful || unplaced || texts.length === 0) return NO;
    for (const reading of texts) if (!allowTest(reading)) return NO;
    return YES;
  };
  return { test: verdict, own, ...(selfReading === undefined ? {} : { selfReading }) };
}
