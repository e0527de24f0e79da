import { picomatchLibrary } from "../deps/on-demand.js";

/**
 * `picomatch(glob, options)` as a plain test of one string, without the result object picomatch's
 * matcher builds on every call. For a string glob and options with none of picomatch's hooks or
 * path formatting (`windows`, `format`, `capture`, `matchBase`, `basename`, `ignore`, `onResult`,
 * `onMatch`, `onIgnore`), picomatch's answer for a string input is: false for "", true when the input
 * is the glob itself, else whether its regex (`picomatch.makeRe`, never global or sticky) matches.
 * test/policy-glob.test.ts compares the two on generated globs and inputs.
 */
export function compileGlob(glob: string, options: { nocase: boolean; dot: boolean }): (text: string) => boolean {
  // A glob compiles to the same test wherever it is written: a policy repeating one compiles it once.
  const key = `${options.nocase ? "1" : "0"}${options.dot ? "1" : "0"}${glob}`;
  const known = compiledGlobs.get(key);
  if (known !== undefined) return known;
  // picomatch(glob, options) is makeRe(glob, options) once it has refused an empty glob (with its own
  // error); any other refusal comes from the parse both share.
  if (glob === "") picomatchLibrary()(glob, options);
  const regex = picomatchLibrary().makeRe(glob, options);
  const test = (text: string) => text !== "" && (text === glob || regex.test(text));
  if (compiledGlobs.size >= MAX_COMPILED) compiledGlobs.clear();
  compiledGlobs.set(key, test);
  return test;
}

/**
 * `picomatch.scan(text).isGlob`, kept per text: a policy names the same tool pattern in many rules,
 * and compiling, indexing and checking each rule asks it.
 */
export function isGlobPattern(text: string): boolean {
  let glob = globTexts.get(text);
  if (glob === undefined) {
    glob = picomatchLibrary().scan(text).isGlob;
    if (globTexts.size >= MAX_COMPILED) globTexts.clear();
    globTexts.set(text, glob);
  }
  return glob;
}

const globTexts = new Map<string, boolean>();

/** Compiled globs by options and source (the tests hold no state between calls). */
const compiledGlobs = new Map<string, (text: string) => boolean>();
const MAX_COMPILED = 50_000;

/** A regex source character that stands for itself outside a character class (no escape needed). */
const SELF_CHAR_RE = /^[A-Za-z0-9_ ,:=@%'"<>!#&;~/-]$/;

/**
 * The characters every input `compileGlob(glob, options)` accepts starts with (lower-cased when
 * `nocase`), read from the start of picomatch's regex: undefined when none can be read safely.
 * Read only from a regex with no flag but `i` whose source is `^`, then any run of `(?:` and `^`,
 * then characters that stand for themselves (`\/`, letters, digits, ...), each not followed by a
 * quantifier; and only when neither the whole source nor any group entered on the way has an
 * alternative (`|`) at its own level. Then every match starts at the input's start with those
 * characters, each matched by itself or (flag `i`, not Unicode) by its other ASCII case only.
 * The glob itself (accepted as it is) must start with them too.
 */
export function globLiteralStart(glob: string, options: { nocase: boolean; dot: boolean }): string | undefined {
  const key = `${options.nocase ? "1" : "0"}${options.dot ? "1" : "0"}${glob}`;
  if (literalStarts.has(key)) return literalStarts.get(key);
  const literal = readLiteralStart(glob, options);
  if (literalStarts.size >= MAX_COMPILED) literalStarts.clear();
  literalStarts.set(key, literal);
  return literal;
}

const literalStarts = new Map<string, string | undefined>();

function readLiteralStart(glob: string, options: { nocase: boolean; dot: boolean }): string | undefined {
  const regex = picomatchLibrary().makeRe(glob, options);
  if (regex.flags !== "" && regex.flags !== "i") return undefined;
  const source = regex.source;
  if (!source.startsWith("^")) return undefined;
  let i = 1;
  const groups: number[] = [];
  for (;;) {
    if (source.startsWith("(?:", i)) {
      groups.push(i + 3);
      i += 3;
    } else if (source[i] === "^") i += 1;
    else break;
  }
  let literal = "";
  while (i < source.length) {
    const escaped = source[i] === "\\";
    const atom = escaped ? source[i + 1] : source[i];
    if (atom === undefined || (escaped ? /[A-Za-z0-9]/.test(atom) || !/^[\x21-\x7e]$/.test(atom) : !SELF_CHAR_RE.test(atom))) break;
    const next = i + (escaped ? 2 : 1);
    if ("*+?{".includes(source[next] ?? "")) break;
    literal += atom;
    i = next;
  }
  if (literal === "" || hasAlternative(source, 0) || groups.some((start) => hasAlternative(source, start))) return undefined;
  const fold = (text: string) => (regex.flags === "i" ? text.toLowerCase() : text);
  return fold(glob).startsWith(fold(literal)) ? fold(literal) : undefined;
}

/** True when the group whose body starts at `start` (or the whole source, from 0) has a `|` at its own level. */
function hasAlternative(source: string, start: number): boolean {
  let depth = 0;
  for (let i = start; i < source.length; i++) {
    const ch = source[i];
    if (ch === "\\") i += 1;
    else if (ch === "[") {
      // A character class: skip to its closing bracket (escapes inside included).
      for (i += 1; i < source.length && source[i] !== "]"; i++) if (source[i] === "\\") i += 1;
    } else if (ch === "(") depth += 1;
    else if (ch === ")") {
      if (depth === 0) return false; // the group's end
      depth -= 1;
    } else if (ch === "|" && depth === 0) return true;
  }
  return false;
}
