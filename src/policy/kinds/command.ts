import { foldCase, normalizeString } from "../normalize.js";
import { lstatSync } from "node:fs";
import { posix } from "node:path";
import { hardLinkReason, lineLinkReason, optionSpellingReason, optionSpellingsReason, unknownDirectoryReason, unplacedWordsReason, unreadPlacesReason, wildWordsReason } from "../../messages/index.js";
import { optionArguments, optionGrammarAt, readOptionSpellings, UNKNOWN_OPERAND, type OptionSpellings } from "./option-grammars.js";
import type { Refusal } from "./programs.js";
import { originOf, urlReadings } from "./net.js";
import { lineLinks, linkReadings, UNKNOWN_TARGET, type LineLink } from "./links.js";
import { hardLinkNames, pathWordReadings, realPatternWord } from "./path.js";
import { analyzeShell, type SimpleCommand } from "./shell.js";
import { readPowerShell } from "./powershell.js";
import { emptiedBy, type MaybeForm } from "./same-effect.js";
import { UNREAD_WORDS } from "./subcommands.js";
import { NO, UNKNOWN, YES, type Verdict } from "./verdict.js";

/**
 * `command` matcher: a shell command line is split into simple commands (see shell.ts).
 * - allow: every simple command must match an allow pattern, be free of run-time expansions,
 *   `NAME=value` prefixes and file redirections; anything else is not vouched for.
 * - deny/ask: any simple command matching — as written, with its program's directory dropped
 *   (`/bin/rm`), or with wrappers peeled off (`sudo`, `env`, `nohup`, `timeout 5`, `xargs`, ...) — matches.
 * - a command line that cannot be parsed is UNKNOWN: the policy asks.
 *
 * Patterns (Claude Code's Bash rules): `npm run test` (exactly these words), `npm run test:*` (these
 * words, then anything: `npm run test -- --watch`, never `npm run testevil`), `git * main` (`*` spans
 * any characters, whole command anchored).
 */
interface CommandPattern {
  readonly source: string;
  matches(words: readonly string[]): boolean;
  /**
   * The pattern against a command whose words from `at` on are only known when it runs (xargs adds
   * words read from its input: SimpleCommand.input): `words[0..at)` followed by any words, none or
   * many. YES when it matches whatever they are, NO when it matches none of them, else UNKNOWN.
   */
  matchesOpen(words: readonly string[], at: number): Verdict;
  /** The pattern spells out `token` as one of its own words (`find:* -exec` names `-exec`, `sudo:*` names sudo). */
  names(token: string): boolean;
  /** How many leading words the pattern fixes (`uv run pytest:*` fixes 3; a pattern with `*` inside fixes none). */
  readonly fixed: number;
  /**
   * The origins (`scheme://host[:port]`) of the URLs the pattern spells out (`curl https://api.example.com/*`
   * names https://api.example.com; a `*` inside a host names the part before it), normalised as URLs are.
   * A program that fetches URLs is covered only when every place it connects to is one of them.
   */
  readonly origins: readonly ((origin: string) => boolean)[];
  /**
   * For a pattern whose `*` follows a directory it spells out (`cat docs/*`): a word that leaves that directory (`..`
   * climbs out of it: `cat docs/../.env`; another absolute path: `cat docs/a /etc/passwd`), so an allow does not hold.
   */
  climbs?(words: readonly string[]): string | undefined;
  /**
   * The texts this pattern matches, as sequences of character codes where STAR stands for any text
   * (blanks included): a command whose words the shell may still change (SimpleCommand.wild) may
   * match it when some text fits both (`mayMatch`).
   */
  readonly shapes: readonly (readonly number[])[];
  /** Whether the pattern compares letters with their case (else both sides are folded). */
  readonly caseSensitive: boolean;
  /**
   * For a pattern that names options (`rm -rf:*`, `git push --force:*`): whether a command sets them as its program reads
   * its options (`rm -fr`, `rm --recursive --force /`, `git push origin main -f`, `git push origin +main`). YES when the
   * program's table reads them so; UNKNOWN when they may be set (an option that forces only sometimes, a program the guard
   * has no table for); NO otherwise.
   */
  optionsMatch?(words: readonly string[]): OptionsVerdict;
}

/** A verdict of an option reading, and when it cannot tell, why (the spelling and the option it may stand for). */
interface OptionsVerdict {
  readonly verdict: Verdict;
  readonly why?: string;
}

const OPTIONS_NO: OptionsVerdict = { verdict: NO };
const OPTIONS_YES: OptionsVerdict = { verdict: YES };

/**
 * The option reading of a pattern whose words after the program include options, or `--` before its operands (OptionGrammar
 * in option-grammars.ts): its program's words, then options and operands read as the program reads them. `prefix`: the
 * pattern ends with `:*` (or ` *`), so the command may have more operands after the pattern's and more options; else it has
 * the same ones. A value the pattern gives an option (`--grace-period=0`) must be the command's.
 */
function optionReading(source: string, words: readonly string[], prefix: boolean, fold: (text: string) => string): ((command: readonly string[]) => OptionsVerdict) | undefined {
  const named = words.slice(1).some((word) => /^-[^-]|^--./.test(word));
  const tabled = optionGrammarAt(words);
  const at = Math.max(1, tabled);
  // `git checkout -- .:*`: `--` only says the operands follow, which a program with a table reads without it too (`git checkout .`).
  if (!named && !(tabled > 0 && words.slice(at).includes("--"))) return undefined;
  const program = words.slice(0, at).map(fold);
  const wanted = readOptionSpellings(words.slice(0, at), words.slice(at));
  if (wanted.set.size === 0 && !(wanted.known && words.slice(at).includes("--"))) return undefined;
  const wantedSet = foldValues(wanted.set, fold);
  const name = words.slice(0, at).join(" ");
  return (command) => {
    const args = optionArguments(program, command, fold);
    if (args === undefined) return OPTIONS_NO;
    const found = readOptionSpellings(words.slice(0, at), args);
    const foundSet = foldValues(found.set, fold);
    const operands = prefix ? found.operands.slice(0, wanted.operands.length) : found.operands;
    // An operand read only when the program runs (git push's HEAD), or one it takes from its configuration (a bare `git push`), may be the pattern's.
    let sure = found.known;
    let why: string | undefined;
    if (operands.length !== wanted.operands.length && !(found.implicit && operands.length < wanted.operands.length)) return OPTIONS_NO;
    for (const [i, word] of wanted.operands.entries()) {
      const given = operands[i];
      if (given === undefined || given === UNKNOWN_OPERAND) sure = false;
      else if (fold(given) !== fold(word)) return OPTIONS_NO;
    }
    if (!prefix && [...foundSet].some((option) => !wantedSet.has(option))) return OPTIONS_NO;
    for (const option of wantedSet) {
      if (foundSet.has(option)) continue;
      if (found.may.has(option)) {
        sure = false;
        why ??= optionSpellingReason(source, name, found.spelled.get(option) ?? option, option, found.abbreviated.has(option) ? "abbreviation" : found.known ? "sometimes" : "untabled");
        continue;
      }
      const spelling = found.known ? undefined : mayBeSpelled(option, found);
      if (spelling === undefined) return OPTIONS_NO;
      sure = false;
      why ??= optionSpellingReason(source, name, spelling, option, "untabled");
    }
    return sure ? OPTIONS_YES : { verdict: UNKNOWN, why: why ?? optionSpellingsReason(source) };
  };
}

/** The options with the values given to them (`--namespace=NS`) folded as operands are. */
function foldValues(options: ReadonlySet<string>, fold: (text: string) => string): ReadonlySet<string> {
  if (![...options].some((option) => option.includes("="))) return options;
  return new Set([...options].map((option) => (option.includes("=") ? `${option.slice(0, option.indexOf("=") + 1)}${fold(option.slice(option.indexOf("=") + 1))}` : option)));
}

/**
 * Without the program's table: a spelling the command gives that may stand for `option` (a pattern's option with its
 * value, `--grace-period=0`, stands for the option): for a long option, a long one it begins with (`--rec` for
 * `--recursive`) or any short one (`-R`); for a short option, any long one (`--recursive` for `-R`). Undefined when none may.
 */
function mayBeSpelled(option: string, found: OptionSpellings): string | undefined {
  const bare = option.includes("=") ? option.slice(0, option.indexOf("=")) : option;
  if (bare.startsWith("--")) {
    const name = bare.slice(2);
    return found.longs.find((given) => given.startsWith("--") && name.startsWith(given.slice(2).split("=")[0]!) && given.length > 2) ?? found.shorts[0];
  }
  return found.longs[0];
}

/** A place a command connects to that the guard cannot read, as a word of any text (mayMatch reads it as such). */
const UNREAD_PLACE = "\u0000place";
const UNREAD_PLACES: ReadonlySet<string> = new Set([UNREAD_PLACE]);
const UNREAD_WORD_SET: ReadonlySet<string> = new Set([UNREAD_WORDS]);
const NO_WORDS: ReadonlySet<string> = new Set();

/** In a shape (CommandPattern.shapes, commandShape): any text, blanks included. */
const STAR = -1;
/** In a command's shape: any text without blanks (the directory a word starts at when the guard cannot tell it). */
const WORD_STAR = -2;

function codes(text: string, out: number[]): void {
  for (let i = 0; i < text.length; i++) out.push(text.charCodeAt(i));
}

function shapeOf(literals: readonly string[]): number[] {
  const out: number[] = [];
  literals.forEach((literal, i) => {
    if (i > 0) out.push(STAR);
    codes(literal, out);
  });
  return out;
}

/** Larger shapes than this (pattern length × command length) are not compared: the rule cannot tell. */
const MAX_OVERLAP_CELLS = 1 << 20;

/**
 * Whether some text fits both shapes (each STAR any text, each WORD_STAR any text without blanks): `git push` + STAR
 * against `git pu` + STAR. Dynamic programming over the two positions, from the ends; undefined when too large to tell.
 * A star may take the other shape's next character, or the whole of its star (whose text then lies within its own).
 */
function overlaps(a: readonly number[], b: readonly number[]): boolean | undefined {
  const width = b.length + 1;
  if ((a.length + 1) * width > MAX_OVERLAP_CELLS) return undefined;
  // fit[i * width + j]: a[i..] and b[j..] fit some common text.
  const fit = new Uint8Array((a.length + 1) * width);
  for (let i = a.length; i >= 0; i--) {
    for (let j = b.length; j >= 0; j--) {
      let ok: boolean;
      if (i === a.length && j === b.length) ok = true;
      else if (i < a.length && a[i]! < 0) ok = fit[(i + 1) * width + j] === 1 || (j < b.length && (a[i] === STAR || b[j] !== 32) && fit[i * width + j + 1] === 1);
      else if (j < b.length && b[j]! < 0) ok = fit[i * width + j + 1] === 1 || (i < a.length && (b[j] === STAR || a[i] !== 32) && fit[(i + 1) * width + j] === 1);
      else ok = i < a.length && j < b.length && a[i] === b[j] && fit[(i + 1) * width + j + 1] === 1;
      fit[i * width + j] = ok ? 1 : 0;
    }
  }
  return fit[0] === 1;
}

/** Characters a word's literal start or end is made of, read as they are written (no quote, escape or expansion). */
const PLAIN_LITERAL = /^[A-Za-z0-9_.\/:=@%+,-]*/;
const PLAIN_LITERAL_END = /[A-Za-z0-9_./:=@%+,-]*$/;

/** A home directory (`~`, `~user`), the shell's or another process's working directory or root, or an open descriptor, after a word's literal start. */
const PLACE_PREFIX = /^([A-Za-z0-9_.\/:=@%+,-]*?)(?:~[^/:]*|\/proc\/(?:self|thread-self|\d+)(?:\/task\/\d+)?\/(?:cwd|root|fd\/\d+)(?=\/|$)|\/dev\/fd\/\d+(?=\/|$))/;

/**
 * What a word the shell still changes may become, as a shape: its literal start (before the first
 * expansion, quote or pattern character), any text (none, one or many words), and its literal end when
 * it follows the close of an expansion or a pattern character (`p${x}ush`: `p`, any, `ush`;
 * `pu$xsh`: `pu`, any, since `$xsh` is one name).
 */
function wildShape(word: string, fold: (text: string) => string, out: number[]): void {
  // `~/x`, `~user/x`, `if=~/x`, `/proc/self/cwd/x`, `/dev/fd/3`: a place the guard cannot tell, then
  // the rest as written (after its last `..`, which climbs from that place: `~/../../etc/x` may be any `/etc/x`).
  const place = PLACE_PREFIX.exec(word);
  if (place !== null) {
    const after = word.slice(place[0].length).replace(/^.*\/\.\.(?=\/|$)/, "");
    codes(fold(place[1]!), out);
    out.push(STAR);
    if (PLAIN_LITERAL.exec(after)![0] === after) codes(fold(after), out);
    else wildShape(after, fold, out);
    return;
  }
  const head = PLAIN_LITERAL.exec(word)![0];
  const rest = word.slice(head.length);
  const endMatch = PLAIN_LITERAL_END.exec(rest)![0];
  const before = rest.charAt(rest.length - endMatch.length - 1);
  // (`$(pwd)/../shadow`: a `..` in the end climbs from what the shell puts before it, so only what follows the last one is sure.)
  const tail = endMatch !== "" && /[})`?*\]]/.test(before) ? endMatch.replace(/^.*\/\.\.(?=\/|$)/, "") : "";
  codes(fold(head), out);
  out.push(STAR);
  codes(fold(tail), out);
}

/** `--file=` or `NAME=` before a path (`if=../x`). */
const VALUE_HEAD = /^(?:--?[A-Za-z0-9][\w.-]*=|[A-Za-z_][A-Za-z0-9_]*=)/;

/**
 * A word that starts at a directory the guard does not know (after its `--file=` or `NAME=`): a home directory or a
 * working directory it cannot place (`~/x`, and a relative word placed in such a one: `~-/k`, `~/../../srv/k`), or a
 * relative word that climbs out of the directory the line starts in (`../../etc/shadow`, `./../x`, `a/../../x`,
 * `../../srv/k` placed after `cd ../../srv`). A relative word that stays inside it (`etc/shadow`) is read lexically.
 */
function startsSomewhere(word: string): boolean {
  if (!word.includes("..") && !word.includes("~")) return false;
  const value = word.slice(VALUE_HEAD.exec(word)?.[0].length ?? 0);
  if (value.startsWith("~")) return true;
  if (value === "" || /^[/-]/.test(value)) return false;
  return /^\.\.(?:\/|$)/.test(posix.normalize(value));
}

/** A word (after its `--file=` or `NAME=`) that starts at a home directory: `~/x`, `~user/x`, `~-/x`. */
function isHomeWord(word: string): boolean {
  return word.slice(VALUE_HEAD.exec(word)?.[0].length ?? 0).startsWith("~");
}

/**
 * Where a word that starts somewhere (startsSomewhere) leads from the directory it starts at: what follows its last `..`
 * (which climbs from that directory), `.` and doubled `/` dropped, `/`-led or empty (`../../etc/shadow`: /etc/shadow;
 * `~-/k`: /k; `~/../..`: empty, the directory itself).
 */
function somewhereEnd(word: string): string {
  const value = word.slice(VALUE_HEAD.exec(word)?.[0].length ?? 0);
  return (value.startsWith("~") ? value.replace(/^~[^/]*/, "") : `/${value}`)
    .replace(/^.*\/\.\.(?=\/|$)/, "")
    .replace(/\/\.(?=\/|$)/g, "")
    .replace(/\/{2,}/g, "/");
}

/**
 * A word that starts somewhere as a shape: its head (`if=`), the directory it starts at (`at`: a shape, empty for `/`),
 * then its end (somewhereEnd); any text after the directory when the end holds characters the shell may still change.
 */
function somewhereShape(word: string, at: readonly number[], fold: (text: string) => string, out: number[]): void {
  const end = somewhereEnd(word);
  codes(fold(VALUE_HEAD.exec(word)?.[0] ?? ""), out);
  out.push(...at);
  if (PLAIN_LITERAL.exec(end)![0] !== end) out.push(STAR);
  else codes(fold(at.length === 0 && end === "" ? "/" : end), out);
}

/** A directory the guard cannot tell as a shape: any text of one word. */
const ANY_DIRECTORY: readonly number[] = [WORD_STAR];

/** A directory a pattern spells out, as a shape; `home`: a home word's (`~/.ssh`). */
interface Anchor {
  readonly shape: readonly number[];
  readonly home: boolean;
}

const anchorsOf = new WeakMap<CommandPattern, Anchor[]>();

/**
 * The directories a pattern spells out, as shapes (its `*` any text): each absolute or home word of the pattern (after a
 * `--file=` or `NAME=`) cut at each of its `/`, and `/` itself (an empty shape): `cat /srv/secrets/*` spells /, /srv,
 * /srv/secrets and /srv/secrets/*. A word that starts at a directory the guard cannot tell is tried at each of them: it
 * meets a pattern there when it meets it anywhere the pattern spells a path.
 */
function patternAnchors(pattern: CommandPattern): Anchor[] {
  const kept = anchorsOf.get(pattern);
  if (kept !== undefined) return kept;
  const fold = pattern.caseSensitive ? (text: string) => text : foldCase;
  const seen = new Set<string>([""]);
  for (const word of splitWords(pattern.source.trim().replace(/:\*$/, ""))) {
    const value = word.slice(VALUE_HEAD.exec(word)?.[0].length ?? 0);
    if (!/^[/~]/.test(value)) continue;
    const parts = value.split("/");
    for (let k = 1; k <= parts.length; k++) seen.add(parts.slice(0, k).join("/").replace(/\/+$/, ""));
  }
  // The deepest first: a word that meets the pattern mostly meets it there.
  const out = [...seen]
    .sort((a, b) => b.length - a.length)
    .slice(0, 16)
    .map((anchor) => ({ shape: shapeOf(fold(anchor).split("*")), home: anchor.startsWith("~") }));
  if (!out.some((anchor) => anchor.shape.length === 0)) out.push({ shape: [], home: false });
  anchorsOf.set(pattern, out);
  return out;
}

/** Whether a command's words climb out of the directory the line starts in or start at a home directory (`..`, `~`). */
const climbsOf = new WeakMap<SimpleCommand, boolean>();

/**
 * Whether some spelling of a command may have a word that starts somewhere (startsSomewhere): a word of its own with
 * `..` or `~`, a working directory that is not absolute (`cd ..`, `cd -`, `cd ~`), or words read through links.
 */
function mayClimb(command: SimpleCommand, cwd: string | undefined, linked: number): boolean {
  if (linked > 0 || (cwd !== undefined && !cwd.startsWith("/"))) return true;
  let kept = climbsOf.get(command);
  if (kept === undefined) climbsOf.set(command, (kept = command.forms.some((form) => form.some((word) => word.includes("..") || word.includes("~")))));
  return kept;
}

/** Most placements of a form's words that start somewhere tried against one pattern (more: each at any directory). */
const MAX_PLACEMENTS = 64;

/**
 * Whether `pattern` may match the command `words` whose words in `somewhere` start at a directory the guard does not know
 * (startsSomewhere), each placed at each directory the pattern spells out (patternAnchors), and whose words in `wild` the
 * shell still changes. Undefined when the shapes are too large to compare.
 */
function mayMatchSomewhere(pattern: CommandPattern, words: readonly string[], wild: ReadonlySet<string>, somewhere: readonly string[]): boolean | undefined {
  // A pattern for another program, or one the words meet at no directory at all, is told at once.
  if (pattern.matchesOpen(words, 1) === NO) return false;
  const distinct = [...new Set(somewhere)];
  const anywhere = mayMatch(pattern, words, wild, new Map(distinct.map((word) => [word, ANY_DIRECTORY] as const)));
  const anchors = patternAnchors(pattern);
  if (anywhere !== true || anchors.length ** distinct.length > MAX_PLACEMENTS) return anywhere;
  let placements: Map<string, readonly number[]>[] = [new Map()];
  for (const word of distinct) {
    // A home directory without `..` after it (`~/proj/x`, placed after `cd ~/proj`) is one directory, not one the pattern
    // spells under a home (`~/.ssh`): as written it is read lexically, elsewhere it is an absolute one.
    const home = /^~(?![-+])[^/]*(?:\/|$)/.test(word.slice(VALUE_HEAD.exec(word)?.[0].length ?? 0)) && !/(?:^|\/)\.\.(?:\/|$)/.test(word);
    const at = home ? anchors.filter((anchor) => !anchor.home) : anchors;
    placements = placements.flatMap((placement) => at.map((anchor) => new Map([...placement, [word, anchor.shape] as const])));
  }
  let result: boolean | undefined = false;
  for (const placement of placements) {
    const one = mayMatch(pattern, words, wild, placement);
    if (one === true) return true;
    if (one === undefined) result = undefined;
  }
  return result;
}

/**
 * The words as a shape, each word in `wild` after the program as wildShape reads it and each in `somewhere` as
 * somewhereShape does at the directory it maps to; undefined when none is.
 */
function commandShape(words: readonly string[], wild: ReadonlySet<string>, fold: (text: string) => string, somewhere?: ReadonlyMap<string, readonly number[]>): number[] | undefined {
  let any = false;
  const out: number[] = [];
  words.forEach((word, i) => {
    const at = i > 0 ? somewhere?.get(word) : undefined;
    if (at !== undefined) {
      any = true;
      out.push(32);
      somewhereShape(word, at, fold, out);
      return;
    }
    const isWild = i > 0 && wild.has(word);
    // A word that starts with an expansion may be no word at all (`npm $x publish`, `npm publish $x` with
    // x empty), and the blank before it none: the parser splits some words bash reads as one.
    if (i > 0) out.push(isWild && (PLAIN_LITERAL.exec(word)![0] === "" || wild.has(words[i - 1]!)) ? STAR : 32);
    if (isWild) {
      any = true;
      wildShape(word, fold, out);
    } else codes(fold(word), out);
  });
  return any ? out : undefined;
}

/**
 * Whether `pattern` may match the command `words` once the shell has replaced its words in `wild`
 * (expansions, file name patterns): `git p${x}ush` may be `git push`, `git $x push` may be too (an
 * empty `$x` is no word), `git st${x}atus` never is. Undefined when the shapes are too large to compare.
 */
function mayMatch(pattern: CommandPattern, words: readonly string[], wild: ReadonlySet<string>, somewhere?: ReadonlyMap<string, readonly number[]>): boolean | undefined {
  const fold = pattern.caseSensitive ? (text: string) => text : foldCase;
  const shape = commandShape(words, wild, fold, somewhere);
  if (shape === undefined) return false;
  let result: boolean | undefined = false;
  for (const candidate of pattern.shapes) {
    const one = overlaps(candidate, shape);
    if (one === true) return true;
    if (one === undefined) result = undefined;
  }
  return result;
}

/** A `..` path segment: after the start of a word or a `/`, before a `/` or the word's end. */
const CLIMB = /(?:^|[\s/])\.\.(?=[\s/]|$)/;

/**
 * The origins of the URLs a command pattern spells out (see CommandPattern.origins), as tests: a
 * host without `*` normalised as URLs are and compared exactly; a `*` in the host or port matches
 * host and port characters only (never `@`, `/` or `\`, which would name another place).
 */
function patternOrigins(pattern: string): ((origin: string) => boolean)[] {
  const tests: ((origin: string) => boolean)[] = [];
  for (const word of pattern.split(/\s+/)) {
    // (`git+https://…`: pip's and npm's VCS prefix before the URL git connects to.)
    const spelled = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)/i.exec(word.replace(/:\*$/, "").replace(/^(?:git|hg|svn|bzr)\+(?=[a-z][a-z0-9.-]*:\/\/)/i, ""));
    if (spelled === null) continue;
    if (!spelled[2]!.includes("*")) {
      const reading = urlReadings(spelled[0])?.texts[0];
      const origin = reading === undefined ? undefined : originOf(reading);
      if (origin !== undefined) tests.push((other) => other === origin);
      continue;
    }
    const glob = new RegExp(`^${spelled[1]!.toLowerCase()}${spelled[2]!.toLowerCase().split("*").map((part) => part.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&")).join("[a-z0-9.:\\[\\]-]*")}$`);
    tests.push((other) => glob.test(other));
  }
  return tests;
}

function splitWords(text: string): string[] {
  const normal = normalizeString(text);
  return normal === "" ? [] : normal.split(" ");
}

export function compileCommandPattern(pattern: string, caseSensitive: boolean): CommandPattern {
  const fold = (text: string) => (caseSensitive ? text : foldCase(text));
  const written = pattern.trim();
  // A trailing ` *` as the only `*` is the `:*` suffix, as Claude Code reads it ("`Bash(ls:*)` matches the same commands as
  // `Bash(ls *)`"): `git stash *` matches bare `git stash` too, never `git stashx`.
  const trimmed = /^[^*]*\S\s+\*$/.test(written) ? `${written.slice(0, -1).trimEnd()}:*` : written;
  const origins = patternOrigins(trimmed);
  const own = new Set(splitWords(trimmed.endsWith(":*") ? trimmed.slice(0, -2) : trimmed).filter((word) => !word.includes("*")));
  const names = (token: string) => token !== "" && (own.has(token) || [...own].some((word) => word.startsWith(`${token}=`)));
  if (trimmed.endsWith(":*")) {
    const prefix = splitWords(trimmed.slice(0, -2)).map(fold);
    const optionsMatch = trimmed.slice(0, -2).includes("*") ? undefined : optionReading(pattern, splitWords(trimmed.slice(0, -2)), true, fold);
    return {
      source: pattern,
      names,
      origins,
      caseSensitive,
      ...(optionsMatch === undefined ? {} : { optionsMatch }),
      // `git push` alone, or followed by a blank and anything.
      shapes: [shapeOf([prefix.join(" ")]), [...shapeOf([prefix.join(" ")]), 32, STAR]],
      fixed: prefix.length,
      matches: (words) => words.length >= prefix.length && prefix.every((word, i) => fold(words[i] ?? "") === word),
      // `git push:*` against `git` + input words: they may begin with push; against `grep foo` + input words, never.
      matchesOpen: (words, at) => {
        const known = Math.min(at, words.length);
        if (prefix.some((word, i) => i < known && fold(words[i] ?? "") !== word)) return NO;
        return prefix.length <= known ? YES : UNKNOWN;
      },
    };
  }
  if (trimmed.includes("*")) {
    const literals = splitWords(trimmed).join(" ").split("*");
    const escape = (part: string) => part.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
    // A trailing ` *` may also stand for no more words (`ssh * uptime *` matches `ssh host uptime`), as the `:*` suffix does.
    const optionalTail = literals.length > 2 && literals.at(-1) === "" && literals.at(-2)!.endsWith(" ");
    const untailed = optionalTail ? [...literals.slice(0, -2), literals.at(-2)!.slice(0, -1)] : undefined;
    const body = untailed === undefined ? literals.map(escape).join("[\\s\\S]*") : `${untailed.map(escape).join("[\\s\\S]*")}(?: [\\s\\S]*)?`;
    const flags = caseSensitive ? "" : "i";
    const regex = new RegExp(`^${body}$`, flags);
    // The pattern up to its last `*`: when it matches the start of the known words, the `*` takes whatever follows.
    const head = literals.length > 1 && literals.at(-1) === "" ? new RegExp(`^${literals.slice(0, -1).map(escape).join("[\\s\\S]*")}`, flags) : undefined;
    const first = fold(literals[0] ?? "");
    // A `*` right after a `/` (`docs/*`) stands for names in that directory, not for a way out of it: a `..`, or
    // (the `*` spanning more words) an absolute or home path outside every directory the pattern spells out.
    // (A URL's path is not a directory here: `curl https://api.example.com/*` is read by the places it connects to.)
    const directories = literals.slice(0, -1).filter((literal) => literal.endsWith("/")).map((literal) => literal.split(" ").at(-1) ?? "").filter((directory) => !directory.includes("://"));
    const pinned = directories.length > 0 && !CLIMB.test(trimmed);
    const outside = (word: string) => CLIMB.test(word) || (/^[/~]/.test(word) && !directories.some((directory) => /^[/~]/.test(directory) && word.startsWith(directory)));
    // `git push --force *` (a single `*`, after a blank, at the end) reads as `git push --force:*`.
    const optionsMatch = /\s\*$/.test(trimmed) && literals.length === 2 ? optionReading(pattern, splitWords(trimmed.slice(0, -1)), true, fold) : undefined;
    return {
      source: pattern,
      names,
      origins,
      caseSensitive,
      ...(optionsMatch === undefined ? {} : { optionsMatch }),
      shapes: untailed === undefined ? [shapeOf(literals.map(fold))] : [shapeOf(literals.map(fold)), shapeOf(untailed.map(fold))],
      fixed: 0,
      matches: (words) => regex.test(words.join(" ")),
      climbs: (words) => (pinned ? words.slice(1).find(outside) : undefined),
      matchesOpen: (words, at) => {
        const known = words.slice(0, at).join(" ");
        if (head?.test(known) === true) return YES;
        if (regex.test(known)) return UNKNOWN;
        // Some text that starts with the known words and a blank: the part before the first `*` must agree with it.
        const start = fold(at === 0 ? "" : `${known} `);
        const extends_ = literals.length === 1 ? first.startsWith(start) : first.startsWith(start) || start.startsWith(first);
        return extends_ ? UNKNOWN : NO;
      },
    };
  }
  const exact = splitWords(trimmed).map(fold);
  const optionsMatch = optionReading(pattern, splitWords(trimmed), false, fold);
  return {
    source: pattern,
    names,
    origins,
    caseSensitive,
    ...(optionsMatch === undefined ? {} : { optionsMatch }),
    shapes: [shapeOf([exact.join(" ")])],
    fixed: exact.length,
    matches: (words) => words.length === exact.length && exact.every((word, i) => fold(words[i] ?? "") === word),
    // Exact words never hold whatever the input adds; a deny of `git push` cannot tell for `git` + input words.
    matchesOpen: (words, at) => {
      const known = Math.min(at, words.length);
      if (known > exact.length || exact.some((word, i) => i < known && fold(words[i] ?? "") !== word)) return NO;
      return UNKNOWN;
    },
  };
}

/** The known words of one spelling of a command run with words read from the input (a spelling may drop or split words: fewer are known then). */
function knownAt(command: SimpleCommand, form: readonly string[]): number {
  const at = command.input?.at ?? form.length;
  return Math.max(0, Math.min(at, at - (command.words.length - form.length)));
}

/** A pattern matches a command's words for sure (whatever words it reads from its input). */
function fits(pattern: CommandPattern, words: readonly string[], at: number | undefined): boolean {
  return at === undefined ? pattern.matches(words) : pattern.matchesOpen(words, at) === YES;
}

/** Why an allow pattern does not cover one command (undefined: it does). `matched` tells whether some pattern matched its words. */
const NOT_MATCHED = { matched: false, reason: undefined } as const;
const COVERED = { matched: true, reason: undefined } as const;
/** Each analysed command's normalised words (null: unchanged); commands are cached with their analysis. */
const normalOf = new WeakMap<SimpleCommand, string[] | null>();

/** Programs that change the shell's working directory for the commands after them. */
const DIRECTORY_CHANGES = new Set(["cd", "pushd", "popd", "chdir"]);
/** A line that redefines cd, pushd or popd: a function of that name, the builtin disabled, or an alias. */
const REDEFINED_CD = /(?:^|[\s;&|({])(?:function\s+(?:cd|pushd|popd)\b|(?:cd|pushd|popd)\s*\(\s*\))|\benable\b[^;&|\n]*\s(?:cd|pushd|popd)\b|\balias\b[^;&|\n]*\s(?:cd|pushd|popd)=/;

/** The working directory after a change the guard cannot place (`cd -`, `popd`, `cd $DIR`): bash's `~-`, outside every directory a pattern names. */
const UNPLACED = "~-";

/**
 * The working directory each command runs in, relative to the one the line starts in (undefined: that one):
 * `cd DIR`, `pushd DIR` (and `cd` alone, `cd ~`) move the commands after them; `cd -`, `popd`, `pushd`
 * alone or `+N`, a target known only at run time, zsh's two-operand `cd OLD NEW`, or a relative target
 * when the line names CDPATH (which bash searches) cannot be placed. Nested shells are read as moving too.
 */
function workingDirectories(commands: readonly SimpleCommand[], text: string): (string | undefined)[] {
  // A line's commands are kept with its analysis, and each rule judges them: their directories are read once.
  const kept = directoriesOf.get(commands);
  if (kept !== undefined) return kept;
  const out = readWorkingDirectories(commands, text);
  directoriesOf.set(commands, out);
  return out;
}

const directoriesOf = new WeakMap<readonly SimpleCommand[], (string | undefined)[]>();

function readWorkingDirectories(commands: readonly SimpleCommand[], text: string): (string | undefined)[] {
  // Each change, with the subshell it runs in: it moves the commands after it in that subshell and those nested in it
  // (`(cd /etc) && cat ./shadow` reads ./shadow where the line started).
  const changes: { scope: readonly number[]; move: (cwd: string | undefined) => string }[] = [];
  // A change in a loop (`for i in 1 2; do cd ..; done`) may run any number of times, and one in a function's body runs
  // where the function is called: the commands of its subshell (and those nested in it), before it as well, run where the
  // guard cannot tell. So do a function's commands when the line changes directory anywhere (it may be called after).
  const inside = (scope: readonly number[], outer: readonly number[]) => outer.every((id, i) => scope[i] === id);
  const changing = commands.filter((command) => command.words[0] !== undefined && DIRECTORY_CHANGES.has(command.words[0]));
  const repeated = changing.filter((command) => command.repeats !== undefined).map((command) => command.scope ?? []);
  const unplaced = (command: SimpleCommand) => repeated.some((scope) => inside(command.scope ?? [], scope)) || (command.repeats === "function" && changing.length > 0);
  return commands.map((command) => {
    if (unplaced(command)) return UNPLACED;
    const scope = command.scope ?? [];
    let before: string | undefined;
    for (const change of changes) if (change.scope.every((id, i) => scope[i] === id)) before = change.move(before);
    // `env -C DIR CMD`, `sudo -D DIR CMD`: the command the wrapper runs (in a scope of its own) starts in DIR, as after `cd DIR`.
    if (command.runsIn !== undefined) changes.push({ scope: command.runsIn.scope, move: moveTo(command.runsIn.directory) });
    const [program] = command.words;
    // `source FILE`, `. FILE`: the file runs in this shell and may change its directory (`cd` in it), which the guard does not read.
    if ((program === "source" || program === ".") && command.words.length > 1) {
      changes.push({ scope, move: moveTo(undefined) });
      return before;
    }
    if (program === undefined || !DIRECTORY_CHANGES.has(program)) return before;
    // `cd se{c,}rets` is `cd secrets serets` to bash: the operands are the words after brace expansion.
    const args = (command.expanded ?? command.words).slice(1);
    const operands: string[] = [];
    let options = true;
    let physical = /\bset\s+(?:-[a-zA-Z]*P|-o\s+physical)\b/.test(text);
    for (const arg of args) {
      if (options && arg === "--") options = false;
      else if (options && /^-[LPe@]+$/.test(arg)) physical = /P[^L]*$/.test(arg) || (physical && !arg.includes("L"));
      else operands.push(arg);
    }
    const target = program === "popd" || command.dynamic || operands.length > 1 ? undefined : (operands[0] ?? (program === "pushd" ? undefined : "~"));
    // A target the shell expands (`cd secret?`, `cd s*`: a file name pattern) is only known when the line runs; so is a
    // relative one bash may look up in CDPATH, or read as a variable's value (`shopt -s cdable_vars; cd NAME`).
    const expands = /[*?[]/.test(target ?? "");
    // A line that redefines the builtin (`cd() { :; }`, `function cd`, `enable -n cd`, `alias cd=…`) may not move at all.
    // `cd -P DIR` (or after `set -P`) moves to DIR's physical place, through its symlinks: `cd -P docs/link/..` climbs from the
    // link's target, and so does a later `cd ..` (bash's default, logical `cd`, climbs back over the link's name).
    const climbsPhysically = physical;
    const unplaceable = target === undefined || target === "-" || /^[+-]\d+$/.test(target) || expands || climbsPhysically || REDEFINED_CD.test(text) || (/CDPATH|cdable_vars/.test(text) && !/^[./~]/.test(target));
    changes.push({ scope, move: moveTo(unplaceable ? undefined : target) });
    return before;
  });
}

/** How a change to `target` moves a working directory (undefined: to one the guard cannot place). */
function moveTo(target: string | undefined): (cwd: string | undefined) => string {
  if (target === undefined) return () => UNPLACED;
  if (/^[/~]/.test(target)) return () => target;
  return (cwd) => (cwd === undefined ? target : `${cwd}/${target}`);
}

/** Where a command runs: `cwd` (from the line's own `cd`s, relative to its start) placed in `start` when the start is known. */
/**
 * Whether a form that destroys content (same-effect.ts's `spares`) destroys nothing on this machine: the line is that one
 * command, it runs in a directory the policy names, and each target, a plain relative or absolute name, is absent or a
 * regular file no larger than the size kept (`> out.log` before the log exists, `truncate -s 10M disk.img` growing it).
 */
function spared(candidate: MaybeForm, where: string | undefined, alone: boolean): boolean {
  const spares = candidate.spares;
  if (!alone || spares === undefined || where === undefined || !where.startsWith("/")) return false;
  return spares.files.every((file) => {
    if (!/^[\w./@+-]+$/.test(file) || file.split("/").includes("..")) return false;
    try {
      const stat = lstatSync(posix.resolve(where, file));
      return stat.isFile() && stat.size <= spares.upTo;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === "ENOENT";
    }
  });
}

function startedIn(start: string | undefined, cwd: string | undefined): string | undefined {
  if (start === undefined || cwd === UNPLACED || cwd?.startsWith("/") === true || cwd?.startsWith("~") === true) return cwd;
  return cwd === undefined ? start : `${start}/${cwd}`;
}

/** The words placed in `where`, as written and as the kernel reads their paths (`/srv/app/../app/k` is /srv/app/k). */
function placedForms(words: readonly string[], where: string): string[][] {
  const placed = placedWords(words, where);
  return [placed, ...pathForms([placed])];
}

/** `.` path segments dropped (`./secrets/./key` is `secrets/key`); `..` is kept, since after a symlink the kernel climbs from its target. */
const dropDots = (word: string) => word.replace(/(?:^|(?<=\/))\.(?:\/+|$)/g, "").replace(/\/{2,}/g, "/") || ".";

/** Relative words as the directory `cwd` places them (`cd /etc && cat ./shadow`: ./shadow is /etc/shadow). */
function placedWords(words: readonly string[], cwd: string): string[] {
  return words.map((word, i) => (i === 0 || /^[/~-]/.test(word) || word === "" ? word : dropDots(`${cwd}/${word}`)));
}

function allowGap(command: SimpleCommand, patterns: readonly CommandPattern[], cwd?: string): { matched: boolean; reason: string | undefined } {
  // `timeout 5 git log`: the wrapper changes only how `git log` runs, which is judged as a command of its own.
  if (command.transparent === true && command.refusals.length === 0 && command.unknown === undefined) return COVERED;
  let normal = normalOf.get(command);
  if (normal === undefined) {
    normal = normalizedWords(command.words) ?? null;
    normalOf.set(command, normal);
  }
  const matching: { pattern: CommandPattern; refusals: readonly Refusal[] }[] = [];
  const within = command.within;
  // `git --no-pager -C DIR log` is also read as `git log`, with DIR read as `cd DIR` (programs.ts).
  const plain = command.allowAs;
  const plainNormal = plain === undefined ? undefined : normalizedWords(plain.words);
  let placed: boolean | undefined;
  const placesAllowed = () => (placed ??= plain !== undefined && plain.places.every((place) => patterns.some((pattern) => covers(pattern, ["cd", place]))));
  // `find . | xargs grep foo`: grep runs with words read from the input, which a pattern must hold whatever they are.
  const at = command.input?.at;
  let maybe = false;
  for (const pattern of patterns) {
    // A wrapper's command (`pytest -q` of `uv run pytest -q`) is named by a pattern that matches the wrapper's words and fixes words past its start.
    const vouched = within !== undefined && pattern.fixed > within.at && fits(pattern, within.words, at === undefined ? undefined : within.at + at);
    const asWritten = vouched || (fits(pattern, command.words, at) && (normal === null || fits(pattern, normal, at)));
    if (!asWritten && at !== undefined && pattern.matchesOpen(command.words, at) === UNKNOWN) maybe = true;
    // The plain spelling's places waive their options' refusals whether the pattern matched it or the words as written (`make:*`, `make -C DIR test`).
    const plainMatched = plain !== undefined && pattern.matches(plain.words) && (plainNormal === undefined || pattern.matches(plainNormal));
    if (!asWritten && !plainMatched) continue;
    let refusals = plainMatched && placesAllowed() ? command.refusals.filter((refusal) => !plain.waives.includes(refusal.token)) : command.refusals;
    // `curl https://api.example.com/x http://127.0.0.1/` under `curl https://api.example.com/*`: a place the pattern does not name.
    const elsewhere = pattern.origins.length === 0 ? undefined : command.connects?.origins.find((origin) => !pattern.origins.some((test) => test(origin)));
    if (elsewhere !== undefined) refusals = [...refusals, { reason: `${command.words[0] ?? ""} connects to ${elsewhere} (${command.connects!.places.join(", ")}), which the pattern ${JSON.stringify(pattern.source)} does not name`, token: "" }];
    // `cat docs/../.env` under `cat docs/*`: the `*` would span a way out of the directory the pattern names.
    const climb = pattern.climbs?.(command.words);
    if (climb !== undefined) refusals = [...refusals, { reason: `${command.words[0] ?? ""} names ${climb}, outside the directory the pattern ${JSON.stringify(pattern.source)} names before its *`, token: "" }];
    // `cd /etc && cat ./shadow` under `cat ./*`: the relative words name places in the directory the line moved to.
    const moved = climb === undefined && cwd !== undefined ? pattern.climbs?.(placedWords(command.words, cwd)) : undefined;
    if (moved !== undefined) refusals = [...refusals, { reason: `${command.words[0] ?? ""} runs after the line changes the working directory (${cwd === UNPLACED ? "to one the guard cannot place" : `to ${cwd}`}), so its words name places outside the directory the pattern ${JSON.stringify(pattern.source)} names before its *`, token: "" }];
    // The common case: a plain command a pattern matches.
    if (command.unknown === undefined && refusals.length === 0) return COVERED;
    matching.push({ pattern, refusals });
  }
  // `echo --short | xargs git status` under `git status`: the words read from the input may be any.
  if (matching.length === 0) return maybe ? { matched: true, reason: command.input?.reason } : NOT_MATCHED;
  // What the guard cannot read (an option a wrapper's table does not list) no pattern covers.
  if (command.unknown !== undefined) return { matched: true, reason: command.unknown };
  for (const { pattern, refusals } of matching) {
    if (refusals.every((refusal) => pattern.names(refusal.token))) return COVERED;
  }
  const first = matching[0]!;
  return { matched: true, reason: first.refusals.find((refusal) => !first.pattern.names(refusal.token))?.reason };
}

/** A pattern covers plain static words (normalised spellings included). */
function covers(pattern: CommandPattern, words: readonly string[]): boolean {
  const normal = normalizedWords(words);
  return pattern.matches(words) && (normal === undefined || pattern.matches(normal));
}

/** The words normalised (look-alikes, fullwidth, invisible characters), when that changes them. */
function normalizedWords(words: readonly string[]): string[] | undefined {
  let changed = false;
  const out = words.map((word) => {
    const normal = normalizeString(word);
    if (normal !== word) changed = true;
    return normal;
  });
  return changed ? out : undefined;
}

/**
 * The forms with each word that names a path read as the kernel reads it (path.ts's
 * pathWordReadings: lexically, then where it really is on this machine): a deny pattern that spells
 * a path also holds for `cat /srv//secrets/key` and for a symlink that leads there.
 */
function pathForms(forms: readonly (readonly string[])[]): string[][] {
  const out: string[][] = [];
  // The spellings of one command share their operands: each word is read once.
  const read = new Map<string, string[]>();
  const readingsOf = (word: string) => {
    let known = read.get(word);
    if (known === undefined) read.set(word, (known = pathWordReadings(word, true)));
    return known;
  };
  for (const form of forms) {
    const readings = form.map((word, i) => (i === 0 ? [] : readingsOf(word)));
    const count = Math.max(0, ...readings.map((reading) => reading.length));
    for (let k = 0; k < count && out.length < 16; k++) out.push(form.map((word, i) => readings[i]![Math.min(k, readings[i]!.length - 1)] ?? word));
  }
  return out;
}

/** The absolute files a pattern spells out (`cat /srv/secrets/key`) and the directories before its `*` (`cat /srv/secrets/*`). */
interface PatternPlaces {
  readonly files: readonly string[];
  readonly directories: readonly string[];
}

const placesOf = new WeakMap<readonly CommandPattern[], PatternPlaces>();

function patternPlaces(patterns: readonly CommandPattern[]): PatternPlaces {
  const kept = placesOf.get(patterns);
  if (kept !== undefined) return kept;
  const files = new Set<string>();
  const directories = new Set<string>();
  for (const pattern of patterns) {
    const source = pattern.source.trim().replace(/:\*$/, "");
    for (const word of splitWords(source)) {
      const value = word.replace(/^(?:--?[A-Za-z0-9][\w.-]*=|[A-Za-z_][A-Za-z0-9_]*=)/, "");
      if (!value.startsWith("/")) continue;
      const star = value.indexOf("*");
      if (star < 0) files.add(value);
      else {
        // The whole file system is not searched: `cat /*` reads no directory of its own.
        const directory = value.slice(0, value.lastIndexOf("/", star));
        if (directory !== "" && !directory.includes("*")) directories.add(directory);
      }
    }
  }
  const out = { files: [...files], directories: [...directories] };
  placesOf.set(patterns, out);
  return out;
}

/**
 * The forms with an absolute word that names a file with several names (a hard link) read as its other names the
 * patterns spell out; `open` when a pattern's directory could not be searched for them and some reading of the word
 * there would match.
 */
function hardLinkForms(forms: readonly (readonly string[])[], patterns: readonly CommandPattern[]): { forms: string[][]; open: string | undefined } {
  const out: string[][] = [];
  let open: string | undefined;
  const places = patternPlaces(patterns);
  if (places.files.length === 0 && places.directories.length === 0) return { forms: out, open };
  for (const form of forms) {
    form.forEach((word, i) => {
      if (i === 0 || !word.includes("/") || out.length >= 16) return;
      const { names, unsearched } = hardLinkNames(word, places.files, places.directories);
      for (const name of names) out.push(form.map((one, j) => (j === i ? name : one)));
      if (unsearched !== undefined && open === undefined) {
        const head = /^(?:--?[A-Za-z0-9][\w.-]*=|[A-Za-z_][A-Za-z0-9_]*=)/.exec(word)?.[0] ?? "";
        const somewhere = form.map((one, j) => (j === i ? `${head}${unsearched}/${word.split("/").at(-1) ?? ""}` : one));
        const pattern = patterns.find((one) => one.matches(somewhere));
        if (pattern !== undefined) open = hardLinkReason(pattern.source, word, unsearched);
      }
    });
  }
  return { forms: out, open };
}

/** Patterns with their absolute paths read through this machine's symlinks, kept per list `REAL_PATTERNS_TTL_MS`. */
const realPatternsOf = new WeakMap<readonly CommandPattern[], { at: number; patterns: readonly CommandPattern[] }>();
const REAL_PATTERNS_TTL_MS = 250;

/** The patterns, and for each one that spells a path a symlink leads elsewhere, the same pattern with that path's real place. */
function withRealPlaces(patterns: readonly CommandPattern[]): readonly CommandPattern[] {
  const now = Date.now();
  const kept = realPatternsOf.get(patterns);
  if (kept !== undefined && now - kept.at <= REAL_PATTERNS_TTL_MS) return kept.patterns;
  const extra: CommandPattern[] = [];
  for (const pattern of patterns) {
    const source = pattern.source.trim();
    const tail = source.endsWith(":*") ? ":*" : "";
    const words = splitWords(tail === "" ? source : source.slice(0, -2));
    // Words that were quoted cannot be joined back as written.
    if (words.some((word) => /[\s'"\\]/.test(word))) continue;
    let changed = false;
    const real = words.map((word) => {
      const place = realPatternWord(word);
      if (place === undefined) return word;
      changed = true;
      return place;
    });
    if (changed) extra.push(compileCommandPattern(`${real.join(" ")}${tail}`, pattern.caseSensitive));
  }
  const out = extra.length === 0 ? patterns : [...patterns, ...extra];
  realPatternsOf.set(patterns, { at: now, patterns: out });
  return out;
}

/** A verdict and, when it is not the plain answer, the construct or reading that decided it. */
interface CommandJudgement {
  readonly verdict: Verdict;
  /** Why a deny or ask rule cannot tell, or why an allow pattern that matches the words does not cover the line. */
  readonly why: string | undefined;
}

/**
 * Judges one command line against compiled patterns (any pattern may match).
 * - deny/ask (`restrictive`): YES when some command, in any of its spellings (as written, `/bin/rm`
 *   as rm, normalised, braces expanded, wrappers and `find -exec` unwrapped as commands of their
 *   own, `bash -c` scripts parsed, and bash's own reading of continuations and carriage returns),
 *   matches; UNKNOWN when it cannot be parsed or some reading cannot be told; else NO.
 * - allow: YES only when every command is fully understood (static words, no line-level construct
 *   such as a continuation or here-document, no program that runs its arguments unless the
 *   pattern names that form) and matches a pattern.
 */
export function judgeCommandWhy(text: string, given: readonly CommandPattern[], restrictive: boolean, start?: string): CommandJudgement {
  // A deny or ask also names the places its paths spell out as this machine's symlinks lead (`cat /tmp/secrets/*` is
  // also `cat /private/tmp/secrets/*` where /tmp links to /private/tmp).
  const patterns = restrictive ? withRealPlaces(given) : given;
  const analysis = analyzeShell(text);
  if (!analysis.ok) return { verdict: restrictive ? UNKNOWN : NO, why: `the command line cannot be parsed (${analysis.reason})` };
  const { commands } = analysis;
  if (restrictive) {
    // A command run with words read from its input (`echo push | xargs git`) that a pattern may match, by those words.
    let open: string | undefined;
    const cwds = workingDirectories(commands, text);
    let links: LineLink[] | undefined;
    for (const [i, command] of commands.entries()) {
      // `cd secrets && cat key` also reads as `cat secrets/key`, where the line moved to.
      const cwd = cwds[i];
      // Where the line starts, when the policy says (its pathBase): `cat secrets/key` from /srv/app is also `cat /srv/app/secrets/key`.
      const where = startedIn(start, cwd);
      // Each spelling placed (`/bin/cat k`, `cat < k` read as `cat k`); a directory the guard cannot place (`cd -`, `cd ~/..`,
      // `cd ../../srv`) places them where it cannot tell: `~-/key`.
      const placed = where === undefined || command.input !== undefined ? [] : command.forms.map((form) => placedWords(form, where));
      // `ln -s /srv/secrets/key x; cat x`: a word that names a link the line makes (and does not exist yet) is read as its target too.
      const linked = command.input === undefined ? linkReadings(command.forms, cwd, (links ??= lineLinks(commands, cwds)), command.wild) : undefined;
      const written = [...command.forms, ...placed, ...(linked?.sure ?? [])];
      let climbing: boolean | undefined;
      // `cat /srv//secrets/key`, `cat /srv/docs/../secrets/key`, `cat /srv/link/key`: the paths as the kernel reads them.
      const spelled = [...written, ...pathForms(written)];
      // `cat /tmp/h` where /tmp/h is another name of /srv/secrets/key (a hard link): the names the patterns spell out.
      const hard = command.input === undefined ? hardLinkForms(spelled, patterns) : undefined;
      if (hard?.open !== undefined) open ??= hard.open;
      for (const unsure of linked?.unsure ?? []) {
        const pattern = patterns.find((one) => one.matches(unsure.form) || mayMatch(one, unsure.form, new Set(unsure.form.filter((word) => word.includes(UNKNOWN_TARGET)))) !== false);
        if (pattern !== undefined) {
          open ??= unsure.unknown === "word" ? wildWordsReason(pattern.source, [unsure.word ?? ""]) : lineLinkReason(pattern.source, unsure.link.by, unsure.unknown);
          break;
        }
      }
      for (const form of [...spelled, ...(hard?.forms ?? [])]) {
        if (command.input === undefined) {
          if (patterns.some((pattern) => pattern.matches(form))) return { verdict: YES, why: undefined };
          // `rm -fr /`, `git push origin main -f` against `rm -rf:*`, `git push --force:*`: the options as the program reads them.
          for (const pattern of patterns) {
            const options = pattern.optionsMatch?.(form);
            if (options?.verdict === YES) return { verdict: YES, why: undefined };
            if (options?.verdict === UNKNOWN) open ??= options.why;
          }
          // `git p${x}ush`, `git $x push`, `git pu?h`: words the shell still changes may make a pattern match.
          if (command.wild !== undefined && open === undefined) {
            for (const pattern of patterns) {
              const may = mayMatch(pattern, form, command.wild);
              if (may !== false) {
                const wild = [...command.wild];
                // `cat ~/x`, `cat /dev/fd/3`: no expansion or pattern, a place the guard cannot tell.
                open = wild.every((word) => PLACE_PREFIX.test(word) && !/[$`*?[]/.test(word)) ? unplacedWordsReason(pattern.source, wild) : wildWordsReason(pattern.source, wild);
                break;
              }
            }
          }
          // `cat ../../etc/shadow`, `cd -; cat key`: a relative word in a directory the guard does not know may name any
          // place ending in what follows (from a start deep enough, ../../etc/shadow is /etc/shadow).
          if (open === undefined && (climbing ??= mayClimb(command, cwd, linked?.sure.length ?? 0))) {
            // From a start the policy names, a relative word is where the placed spelling says; a home word still starts somewhere.
            const somewhere = form.filter((word, i) => i > 0 && startsSomewhere(word) && (where === undefined || !where.startsWith("/") || isHomeWord(word)));
            const pattern = somewhere.length === 0 ? undefined : patterns.find((one) => mayMatchSomewhere(one, form, command.wild ?? NO_WORDS, somewhere) !== false);
            if (pattern !== undefined) open = unknownDirectoryReason(pattern.source, somewhere.map((word) => ({ word, end: somewhereEnd(word) })));
          }
          continue;
        }
        const at = knownAt(command, form);
        for (const pattern of patterns) {
          const verdict = pattern.matchesOpen(form, at);
          if (verdict === YES) return { verdict: YES, why: undefined };
          if (verdict === UNKNOWN) open ??= command.input.reason;
        }
      }
    }
    // `npm --unknown x publish`, `helm --namespace n uninstall x`: a command the line may run, by words the guard cannot tell apart.
    if (open === undefined) {
      for (const [i, command] of commands.entries()) {
        // Placed where the command runs too, when the line's start is known (`cat -- secrets/key` from the pathBase).
        const where = startedIn(start, cwds[i]);
        const alone = commands.length === 1 && (analysis.bare ?? []).length === 0;
        const one = command.maybe?.find((candidate) =>
          !spared(candidate, where, alone) &&
          patterns.some((pattern) =>
            candidate.form.at(-1) === UNREAD_WORDS
              ? mayMatch(pattern, candidate.form, UNREAD_WORD_SET) !== false
              : pattern.matches(candidate.form) || pattern.optionsMatch?.(candidate.form).verdict === YES || (where?.startsWith("/") === true && placedForms(candidate.form, where).some((form) => pattern.matches(form))),
          ),
        );
        if (one !== undefined) {
          open = one.reason;
          break;
        }
      }
    }
    // `> F`, `>| F`: a redirection with no command empties F, as rm leaves nothing of it (same-effect.ts).
    if (open === undefined) {
      for (const bare of analysis.bare ?? []) {
        const alone = commands.length === 0 && (analysis.bare ?? []).length === 1 && bare.redirects.length === 1;
        const emptied = bare.redirects.flatMap((redirect) => (redirect.truncates === true ? [emptiedBy(undefined, redirect.word)] : [])).find((one) => one !== undefined && !spared(one, start, alone) && patterns.some((pattern) => pattern.matches(one.form)));
        if (emptied !== undefined) {
          open = emptied.reason;
          break;
        }
      }
    }
    // `python3 -c 'urlopen(…)'`, `pip install -r FILE`: a place the guard cannot read, added to the words, may make a pattern match.
    if (open === undefined) {
      for (const command of commands) {
        if (command.placesUnknown === undefined) continue;
        const pattern = patterns.find((one) => command.forms.some((form) => mayMatch(one, [...form, UNREAD_PLACE], UNREAD_PLACES) !== false));
        if (pattern !== undefined) {
          open = unreadPlacesReason(pattern.source, command.placesUnknown);
          break;
        }
      }
    }
    if (open !== undefined) return { verdict: UNKNOWN, why: open };
    return analysis.unknown === undefined ? { verdict: NO, why: undefined } : { verdict: UNKNOWN, why: analysis.unknown };
  }
  if (commands.length === 0) return { verdict: NO, why: undefined };
  let why: string | undefined;
  let anyMatched = false;
  let allMatched = true;
  const cwds = workingDirectories(commands, text);
  for (const [i, command] of commands.entries()) {
    const gap = allowGap(command, patterns, cwds[i]);
    anyMatched ||= gap.matched;
    if (!gap.matched) allMatched = false;
    else if (gap.reason !== undefined) why ??= gap.reason;
  }
  if (allMatched && why === undefined && analysis.refusal === undefined) return { verdict: YES, why: undefined };
  // The construct is named when some pattern matched the words it refused.
  return { verdict: NO, why: anyMatched ? (analysis.refusal ?? why) : undefined };
}

/** Verdict of one command line against compiled patterns (see judgeCommandWhy). */
export function judgeCommand(text: string, patterns: readonly CommandPattern[], restrictive: boolean, start?: string): Verdict {
  return judgeCommandWhy(text, patterns, restrictive, start).verdict;
}

/** For explanations: how a command line was split. */
export function describeCommand(text: string): string {
  const analysis = analyzeShell(text);
  if (!analysis.ok) return `unparseable (${analysis.reason})`;
  return analysis.commands
    .map((command) => command.input?.shown ?? JSON.stringify(command.words.join(" ")))
    .join(", ");
}

/**
 * The texts a plain string matcher (`equals`, `prefix`, `glob`, `regex`) on a command field
 * compares, each simple command's words joined by single spaces: for a deny or ask (`restrictive`)
 * every spelling of every simple command (the forms a command pattern is tried against: program
 * directory dropped, normalised, braces expanded, wrappers and `find -exec` unwrapped), `doubtful`
 * when some reading of the line cannot be told; for an allow each simple command as written, or
 * undefined when the line is not fully understood (an expansion, an assignment, a file redirection,
 * a construct, a program that runs its arguments, a line-level construct such as a continuation).
 * Texts undefined when the line cannot be parsed.
 */
export function commandTexts(text: string, restrictive: boolean): { texts: string[] | undefined; doubtful: boolean } {
  const analysis = analyzeShell(text);
  if (!analysis.ok) return { texts: undefined, doubtful: true };
  // A command run with words read from its input (xargs) has no one text: a deny not matched otherwise cannot tell, an allow does not hold.
  if (restrictive) {
    return { texts: analysis.commands.flatMap((command) => command.forms.map((form) => form.join(" "))), doubtful: analysis.unknown !== undefined || analysis.commands.some((command) => command.input !== undefined) };
  }
  const understood =
    analysis.refusal === undefined &&
    analysis.unknown === undefined &&
    analysis.commands.every((command) => !command.dynamic && !command.assignments && !command.writesFile && !command.construct && command.refusals.length === 0 && command.unknown === undefined && command.input === undefined);
  return { texts: understood ? analysis.commands.map((command) => command.words.join(" ")) : undefined, doubtful: false };
}

/**
 * Where each command of a line runs, for a line that starts in `start` (absolute): an absolute directory after the line's
 * own `cd`s, or a `~`-led one when the guard cannot place it (`cd -`, `cd ~`, `cd "$D"`).
 */
export function commandPlaces(commands: readonly SimpleCommand[], text: string, start: string): string[] {
  return workingDirectories(commands, text).map((cwd) => {
    const where = startedIn(start, cwd) ?? start;
    return where.startsWith("/") ? posix.normalize(where) : where;
  });
}

/** PowerShell's own syntax, which a POSIX shell reads otherwise: `$x = …`, `$x.Name`, `[Type]::`, `@{…}`, `@(…)`, `| % {`, `| ? {`. */
const POWERSHELL_SYNTAX = /(?:^|[;{(|&\n]\s*)\$[\w:]+\s*[-+*/%]?=|\$[\w:]+\.\w|\[[\w.]+\]::|@[{(]|\|\s*(?:%|\?|ForEach-Object|Where-Object)(?=\s|\{|$)/i;

/**
 * A PowerShell tool's command line as the guard reads it (powershell.ts): the line as a POSIX shell reads it (when it
 * parses so), then the POSIX commands PowerShell runs for it (`Remove-Item x` as `rm x`), then, when some of it cannot
 * be read, `pwsh -Command LINE`, whose reading says why. A rule for a shell is tried against each.
 */
export function powerShellLine(text: string): string {
  const reading = readPowerShell(text);
  const lines: string[] = [];
  // A line in PowerShell's own syntax (an assignment to a variable, a member, a cast, a hash or array literal, a pipeline
  // into ForEach-Object) is not read as bash reads it: bash would take `$x` for a program's name. Nor a here-document (`<<`),
  // which would swallow the lines after it (PowerShell has none).
  if (!text.includes("<<") && !POWERSHELL_SYNTAX.test(text) && analyzeShell(text).ok) lines.push(text);
  if (reading.script !== "") lines.push(reading.script);
  if (reading.unknown !== undefined) lines.push(`pwsh -Command '${text.replace(/'/g, `'\\''`)}'`);
  return lines.join("\n");
}
