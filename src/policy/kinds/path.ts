import { existsSync, lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { posix } from "node:path";
import { picomatchLibrary } from "../../deps/on-demand.js";
import { NO, UNKNOWN, YES, type Verdict } from "./verdict.js";

/**
 * `path` matcher. A value is resolved as the tool would read it: relative to a declared base,
 * `.`/`..`/`./`/repeated slashes/trailing `/.` removed; backslashes read as separators too,
 * `%2e%2e%2f`-style percent-encoding decoded too (up to three times; overlong UTF-8 and `%u`
 * escapes too), Windows' best-fit characters (`．．／`, `¥`), cut at a NUL byte, trimmed, after a
 * one-pass `../` filter (`....//`), names as Windows reads them (trailing dots and spaces, data
 * streams), NFC and NFD, `/proc/self/root` and
 * `/proc/self/cwd` as the root and the base (another process's, `/proc/1234/cwd`, unplaceable), braces and dot-globs as a shell expands them, and
 * (through this machine's files) globs as the files they match (each spelling is a separate
 * reading: a deny matches if ANY reading matches, an allow only if EVERY reading does). A path that
 * escapes the base (`../x`, an absolute path outside it, `~`, `$HOME`, a Windows device or UNC
 * path, an 8.3 short name, an open file such as `/dev/fd/3`) matches every deny and no allow.
 *
 * Patterns are gitignore-like (as Claude Code's Read/Edit rules):
 * - `./secrets/**` or `secrets/**` (contains a slash): anchored at the base;
 * - `/etc/**`: absolute; `~` and `~/...`: the home directory (`home`, absolute), as bash expands them;
 *   `~NAME/...` (another user's home) is refused at load;
 * - `.env`, `*.pem` (no slash): a file or directory of that name at any depth;
 * - `dir/` (trailing slash): the directory and everything in it; `dir/**` also matches `dir` itself.
 * A deny or ask pattern that matches a directory also holds for everything in it (gitignore: `secrets`
 * and `./secrets` deny `secrets/key`); an allow holds for what it matches only.
 */
interface PathMatcherOptions {
  /** Directory relative paths are resolved against (absolute, default "/"). */
  base?: string | undefined;
  /** The home directory `~` names (absolute); undefined: a pattern with `~` is refused. */
  home?: string | undefined;
  caseSensitive?: boolean | undefined;
}

interface CompiledPathPattern {
  readonly source: string;
  /** True when the absolute, normalised path matches. */
  test(absolute: string): boolean;
  /**
   * What the pattern spells out before its first wildcard: the paths it names as written (`/ws/secrets`) and the
   * directories its wildcards search (`/ws/secrets/*.pem`: /ws/secrets), where another name of a file is looked for.
   */
  readonly spelled: { readonly paths: readonly string[]; readonly directories: readonly string[] };
  /**
   * True when the path matches the pattern with the place it spells out read through this machine's symlinks
   * (`/tmp/secrets/**` where /tmp links to /private/tmp: `/private/tmp/secrets/**`), as a deny reads it.
   */
  realTest(absolute: string): boolean;
}

export function normaliseBase(base: string | undefined): string {
  const resolved = posix.normalize(base ?? "/");
  if (!resolved.startsWith("/")) throw new TypeError(`path base ${JSON.stringify(base)} must be absolute`);
  return resolved.length > 1 ? resolved.replace(/\/+$/, "") : resolved;
}

/**
 * A path pattern with its leading `~` read as bash reads it in a word: `~` and `~/…` are the home
 * directory `home`. `~NAME/…` (another user's home) and `~` without a home are refused.
 */
export function expandHome(pattern: string, home: string | undefined): string {
  if (!pattern.startsWith("~")) return pattern;
  const rest = pattern.slice(1);
  if (rest !== "" && !rest.startsWith("/") && !rest.startsWith("\\")) {
    throw new TypeError(`path pattern ${JSON.stringify(pattern)}: "~NAME" names another user's home, which is not supported (write an absolute path)`);
  }
  if (home === undefined) throw new TypeError(`path pattern ${JSON.stringify(pattern)}: "~" needs the policy's home directory (set home, an absolute path)`);
  // The home is a place, not a pattern: its glob characters are escaped.
  const root = normaliseBase(home).replace(/[*?[\]{}()!+@\\]/g, "\\$&");
  return root === "/" ? rest || "/" : `${root}${rest}`;
}

export function compilePathPattern(pattern: string, options: PathMatcherOptions): CompiledPathPattern {
  const base = normaliseBase(options.base);
  let glob = expandHome(pattern.replace(/\\/g, "/"), options.home);
  if (glob.endsWith("/")) glob = `${glob}**`;
  const anchored = glob.slice(0, -1).includes("/") || glob.startsWith("/");
  if (!anchored) glob = `**/${glob}`;
  else if (!glob.startsWith("/")) glob = posix.join(base, glob.replace(/^\.\//, ""));
  else glob = posix.normalize(glob);
  const alternatives = [glob];
  if (glob.endsWith("/**")) alternatives.push(glob.slice(0, -3) || "/");
  // `**/` matches no directory at all too (`a/**/b` matches `a/b`), but picomatch's `/**/x` does not
  // match `/x`: with the base at the root (the default), `**/.env` missed the base's own `.env`.
  if (glob.startsWith("/**/")) alternatives.push(...alternatives.map((g) => g.slice(3)));
  const isMatch = picomatchLibrary()(alternatives, { dot: true, nocase: options.caseSensitive !== true });
  const paths = new Set<string>();
  const directories = new Set<string>();
  for (const alternative of alternatives) {
    const wild = alternative.search(/[*?[\]{}(]/);
    if (wild < 0) paths.add(alternative);
    else {
      // The whole file system is not searched: `/**/.env` spells no directory of its own.
      const directory = alternative.slice(0, alternative.lastIndexOf("/", wild));
      if (directory !== "") directories.add(directory);
    }
  }
  let real: { at: number; isMatch: ((absolute: string) => boolean) | undefined } | undefined;
  const realTest = (absolute: string) => {
    const now = Date.now();
    if (real === undefined || now - real.at > REAL_TTL_MS) {
      const resolved = alternatives.flatMap((alternative) => realAlternative(alternative) ?? []);
      real = { at: now, isMatch: resolved.length === 0 ? undefined : picomatchLibrary()(resolved, { dot: true, nocase: options.caseSensitive !== true }) };
    }
    return real.isMatch?.(absolute) === true;
  };
  return { source: pattern, test: (absolute) => isMatch(absolute), spelled: { paths: [...paths], directories: [...directories] }, realTest };
}

/** A pattern's glob with the place it spells out before its first wildcard read through this machine's symlinks; undefined when no link changes it. */
function realAlternative(glob: string): string | undefined {
  const wild = glob.search(/[*?[\]{}(]/);
  const literal = wild < 0 ? glob : glob.slice(0, glob.lastIndexOf("/", wild));
  if (literal === "" || literal === "/") return undefined;
  const place = cachedRealLocation(literal);
  if (place === undefined || place === literal || /[*?[\]{}()!+@]/.test(place)) return undefined;
  return `${place}${glob.slice(literal.length)}`;
}

function percentDecode(text: string): string | undefined {
  if (!/%[0-9a-fA-F]{2}/.test(text)) return undefined;
  try {
    return decodeURIComponent(text);
  } catch {
    return text.replace(/%([0-9a-fA-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
}

/** One reading of a path value: where it is (absolute, normalised) and where it is under the base. */
interface PathReading {
  readonly absolute: string;
  /** The path relative to the base (`secrets/api.key`; `.` for the base itself); undefined outside the base. */
  readonly relative: string | undefined;
}

/** Every reading of one path value; `unreadable` when some spelling cannot be placed (`~`, `C:`, `file:`, a symlink that cannot be resolved), `escapes` when a relative spelling climbs out of the base. */
interface PathReadings {
  readonly readings: readonly PathReading[];
  readonly unreadable: boolean;
  readonly escapes: boolean;
}

/** How path values are read: against `base`, and through symlinks on this machine when `followSymlinks`. */
export interface PathReadOptions {
  readonly base: string;
  readonly followSymlinks: boolean;
  /**
   * Directories besides the base where the tools work (Claude Code's additional working directories): an absolute
   * path in one of them is placed, so a deny or ask pattern holds for it only where it matches; a path elsewhere
   * outside the base matches every deny.
   */
  readonly placed?: readonly string[];
}

/** Whether an absolute path lies in one of the working directories besides the base. */
function inPlaced(absolute: string, placed: readonly string[] | undefined): boolean {
  return placed !== undefined && placed.some((dir) => absolute === dir || absolute.startsWith(dir === "/" ? "/" : `${dir}/`));
}

function relativeTo(base: string, absolute: string): string | undefined {
  if (absolute === base) return ".";
  if (base === "/") return absolute.slice(1);
  return absolute.startsWith(`${base}/`) ? absolute.slice(base.length + 1) : undefined;
}

/** Percent-decodings a tool (or a chain of them: a proxy, then a server) might apply: once, twice, three times. */
const MAX_DECODINGS = 3;

/**
 * The path as Windows reads it (Win32 path normalisation): trailing dots and spaces of each name
 * dropped (`secrets./a` is `secrets/a`, `.env.` is `.env`) and a data stream read as the file or
 * directory it belongs to (`.env::$DATA`, `.env:hidden`, `secrets::$INDEX_ALLOCATION` and
 * `secrets:$I30:$INDEX_ALLOCATION` are `.env` and `secrets`). Undefined when that changes nothing.
 */
function windowsReading(value: string): string | undefined {
  const out = value
    .split("/")
    .map((name) => (/^\.+$/.test(name) ? name : name.replace(/^([^:]+):.*$/, "$1").replace(/[. ]+$/, "")))
    .join("/");
  return out === value ? undefined : out;
}

/** The `..` names in a path. */
const parentCount = (spelling: string) => spelling.split(/[\\/]/).filter((name) => name === "..").length;

/**
 * The value after a filter that removes `../` (and `..\\`) once, as naive sanitizers do, when that
 * makes more `..` than it removes (`....//etc` is `../etc`, `..././x` is `../x`); undefined otherwise.
 */
function strippedReading(spelling: string): string | undefined {
  if (!spelling.includes("...")) return undefined;
  const out = spelling.replace(/\.\.[\\/]/g, "");
  return parentCount(out) > parentCount(spelling) ? out : undefined;
}

/**
 * `%c0%ae` (`.`), `%c0%af` (`/`), `%c1%9c` (`\`), `%e0%80%ae`: overlong UTF-8, and `%u002e`,
 * `%u2215`: IIS's `%u` escapes, as decoders that accept them read them. Undefined when the text has
 * none.
 */
function legacyDecode(text: string): string | undefined {
  const out = text
    .replace(/%([cC][01])%([0-9a-fA-F]{2})/g, (_m, a: string, b: string) => String.fromCharCode(((parseInt(a, 16) & 0x1f) << 6) | (parseInt(b, 16) & 0x3f)))
    .replace(/%[eE]0%([89][0-9a-fA-F])%([0-9a-fA-F]{2})/g, (_m, a: string, b: string) => String.fromCharCode(((parseInt(a, 16) & 0x3f) << 6) | (parseInt(b, 16) & 0x3f)))
    .replace(/%[fF]0%[89][0-9a-fA-F]%([89][0-9a-fA-F])%([0-9a-fA-F]{2})/g, (_m, a: string, b: string) => String.fromCharCode(((parseInt(a, 16) & 0x3f) << 6) | (parseInt(b, 16) & 0x3f)))
    .replace(/%[uU]([0-9a-fA-F]{4})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return out === text ? undefined : out;
}

/** Characters Windows' "best fit" conversion to an ANSI code page turns into path syntax that NFKC leaves alone. */
const BEST_FIT: Readonly<Record<string, string>> = { "\u2215": "/", "\u2044": "/", "\u2216": "\\", "\u29f5": "\\", "\ufe68": "\\", "\u00a5": "\\", "\u20a9": "\\" };

/**
 * The value as Windows' best-fit conversion to an ANSI code page reads it: fullwidth `．／＼`
 * (Unicode compatibility normalisation, NFKC, maps them too), the division slash and set minus,
 * and `¥`/`₩`, the backslash of the Japanese and Korean code pages. Undefined when that changes
 * nothing.
 */
function bestFitReading(text: string): string | undefined {
  const out = text.normalize("NFKC").replace(/[\u2215\u2044\u2216\u29f5\ufe68\u00a5\u20a9]/g, (ch) => BEST_FIT[ch] ?? ch);
  return out === text ? undefined : out;
}

/** bash's ANSI-C escapes in `$'...'` (`\x2e`, `\056`, `\u002e`, `\n`, ...). */
function ansiC(body: string): string {
  const named: Readonly<Record<string, string>> = { a: "\u0007", b: "\b", e: "\u001b", E: "\u001b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", "\\": "\\", "'": "'", '"': '"', "?": "?" };
  return body.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs, (match, escape: string) => {
    if (/^[xuU]/.test(escape)) return String.fromCodePoint(parseInt(escape.slice(1), 16));
    if (/^[0-7]/.test(escape)) return String.fromCharCode(parseInt(escape, 8) & 0xff);
    if (escape.startsWith("c")) return String.fromCharCode(escape.charCodeAt(1) & 0x1f);
    return named[escape] ?? match;
  });
}

/**
 * The value as a shell's quote removal reads it, for a tool that passes it through a shell:
 * `'...'` and `"..."` are their text, `$'...'` its ANSI-C escapes decoded, `\x` outside single
 * quotes is `x` (`docs/'..'/secrets`, `docs/$'\x2e\x2e'/secrets` and `docs/\.\./secrets` are
 * `docs/../secrets` to bash; `"$HOME"/.ssh` is `$HOME/.ssh`, expanded). Undefined when that changes
 * nothing or a quote is not closed.
 */
function unquotedReading(text: string): string | undefined {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "$" && text[i + 1] === "'") {
      const end = text.indexOf("'", i + 2);
      if (end < 0) return undefined;
      let close = end;
      while (close > 0 && text[close - 1] === "\\" && (text.slice(i + 2, close).match(/\\+$/)?.[0].length ?? 0) % 2 === 1) {
        close = text.indexOf("'", close + 1);
        if (close < 0) return undefined;
      }
      out += ansiC(text.slice(i + 2, close));
      i = close;
    } else if (ch === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return undefined;
      out += text.slice(i + 1, end);
      i = end;
    } else if (ch === '"') {
      let end = i + 1;
      let body = "";
      for (; end < text.length && text[end] !== '"'; end++) body += text[end] === "\\" && /[$`"\\]/.test(text[end + 1] ?? "") ? text[++end] : text[end];
      if (end >= text.length) return undefined;
      out += body;
      i = end;
    } else if (ch === "\\" && i + 1 < text.length) out += text[++i];
    else out += ch;
  }
  return out === text ? undefined : out;
}

/**
 * The spellings a tool might read a value as: as written, without a leading `@` (a file mention),
 * after a shell's quote removal,
 * backslashes as separators, percent-decoded (repeatedly, overlong UTF-8 and `%u` escapes too), as Windows' best-fit
 * conversion reads it, after a one-pass `../` filter, cut at a NUL byte (C strings end there),
 * trimmed of surrounding white space, as Windows reads names, composed and decomposed (NFC, NFD).
 * Each step runs only when the value can have what it reads.
 */
function spellingsOf(value: string): Set<string> {
  const spellings = new Set<string>();
  const add = (spelling: string) => {
    spellings.add(spelling);
    if (spelling.includes("\\")) spellings.add(spelling.replace(/\\/g, "/"));
  };
  add(value);
  // `@../x`: a file mention (Claude Code's `@file`, curl's `-d @file`, HTTPie's `field@file`) names `../x`.
  if (value.startsWith("@") && value.length > 1) add(value.slice(1));
  if (/['"\\]/.test(value)) {
    const unquoted = unquotedReading(value);
    if (unquoted !== undefined) add(unquoted);
  }
  const encoded = value.includes("%");
  for (let round = 0; round < MAX_DECODINGS && encoded; round++) {
    for (const spelling of [...spellings]) {
      const decoded = percentDecode(spelling);
      if (decoded !== undefined) add(decoded);
      const legacy = legacyDecode(spelling);
      if (legacy !== undefined) add(legacy);
    }
  }
  const unicode = /[^\x00-\x7f]/.test(value);
  if (unicode || encoded) {
    for (const spelling of [...spellings]) {
      const fitted = bestFitReading(spelling);
      if (fitted !== undefined) add(fitted);
    }
  }
  for (const spelling of value.includes("...") || encoded || unicode ? [...spellings] : []) {
    const stripped = strippedReading(spelling);
    if (stripped !== undefined) add(stripped);
  }
  for (const spelling of value.includes("\u0000") || encoded ? [...spellings] : []) {
    const nul = spelling.indexOf("\u0000");
    if (nul > 0) add(spelling.slice(0, nul));
  }
  for (const spelling of /^\s|\s$/.test(value) || encoded ? [...spellings] : []) {
    const trimmed = spelling.trim();
    if (trimmed !== spelling && trimmed !== "") add(trimmed);
  }
  for (const spelling of /[. ](?:$|[\\/%])|:/.test(value) || encoded ? [...spellings] : []) {
    const windows = windowsReading(spelling);
    if (windows !== undefined) spellings.add(windows);
  }
  // macOS file systems open `café` composed (NFC) and decomposed (NFD) as one name.
  if (unicode || encoded) {
    for (const spelling of [...spellings]) {
      spellings.add(spelling.normalize("NFC"));
      spellings.add(spelling.normalize("NFD"));
    }
  }
  return spellings;
}

/**
 * Nowhere the guard can place: home directories (`~`, `~user`), drive letters, Windows device and
 * UNC paths (`\\\\?\\C:\\`, `\\\\.\\`, `\\\\server\\share`, `//?/`), URLs, environment variables a tool
 * may expand (`$HOME/x`, `${HOME}`, `%USERPROFILE%`), and commands a shell would run in it (`$(...)`,
 * backquotes).
 */
const UNPLACEABLE_RE = /^(?:~|[a-zA-Z]:|file:|\\\\|[\\/]{2}[?.][\\/])|(?:^|\/)(?:\$\{?[A-Za-z_]|%[A-Za-z_][A-Za-z0-9_]*%)|\$\(|`/i;

/** A Windows 8.3 short name (`PROGRA~1`, `SECRET~1.TXT`): any long name with that prefix on a volume that makes them. */
const SHORT_NAME_RE = /(?:^|\/)[^\s~./]{1,6}~\d{1,6}(?:\.[^./]{0,3})?(?:\/|$)/;

/** An open file of the process (`/dev/fd/3`, `/proc/self/fd/3`, `/dev/stdin`): anything. */
const OPEN_FILE_RE = /^\/(?:dev\/(?:fd(?:\/|$)|std(?:in|out|err)$)|proc\/(?:self|thread-self|\d+)(?:\/task\/\d+)?\/fd(?:\/|$))/;

/** `/proc/self/root/x` is `/x`, `/proc/self/cwd/x` is `x` in the tool's working directory (the base). */
const PROC_LINK_RE = /^\/proc\/(?:self|thread-self|\d+)(?:\/task\/\d+)?\/(root|cwd)(?=\/|$)/;

/**
 * Another process's working directory or root (`/proc/1234/cwd/x`, `/proc/1234/task/1234/root/x`):
 * wherever that process is, which only this machine's links tell (`realLocation` reads them when
 * symlinks are followed); lexically it cannot be placed.
 */
const OTHER_PROCESS_RE = /^\/proc\/\d+(?:\/task\/\d+)?\/(?:root|cwd)(?=\/|$)/;

/** The path a `file:` URL names (`file:///etc/passwd`, `file://localhost/etc/passwd`), or undefined. */
function fileUrlPath(spelling: string): string | undefined {
  const match = /^file:(?:\/\/(?:localhost|127\.0\.0\.1)?)?(\/[^?#]*)/i.exec(spelling.replace(/\\/g, "/"));
  return match === null ? undefined : match[1];
}

/**
 * The value as a shell (sh, dash, bash without `globskipdots`) expands a name glob that starts with
 * a dot: `.*` and `.?` also match `..`. Undefined when no name is such a glob.
 */
function dotGlobReading(spelling: string): string | undefined {
  const out = spelling
    .split("/")
    .map((name) => (/^\.[^/]*[*?[]/.test(name) && picomatchLibrary()(name, { dot: true })("..") ? ".." : name))
    .join("/");
  return out === spelling ? undefined : out;
}

/** At most this many words from a brace expansion or a glob expansion; more cannot be placed. */
const MAX_EXPANSIONS = 64;

/**
 * The words a shell's brace expansion makes of a value (`sec{rets,x}/a` is `secrets/a` and
 * `secx/a`), innermost group first; undefined when there is no group or more than
 * `MAX_EXPANSIONS` words.
 */
function braceWords(spelling: string): string[] | undefined {
  if (!/\{[^{}]*,[^{}]*\}/.test(spelling)) return undefined;
  let words = [spelling];
  for (let round = 0; round < MAX_EXPANSIONS; round++) {
    const next: string[] = [];
    let changed = false;
    for (const word of words) {
      const group = /\{([^{}]*,[^{}]*)\}/.exec(word);
      if (group === null) next.push(word);
      else {
        changed = true;
        for (const part of group[1]!.split(",")) next.push(`${word.slice(0, group.index)}${part}${word.slice(group.index + group[0].length)}`);
      }
    }
    if (next.length > MAX_EXPANSIONS) return [];
    words = next;
    if (!changed) return words;
  }
  return [];
}

/** Lexical readings (pure, cached per base and value). */
const lexicalCache = new Map<string, Map<string, PathReadings>>();
const MAX_CACHED = 4096;

function lexicalReadings(value: string, base: string): PathReadings {
  let byValue = lexicalCache.get(base);
  if (byValue === undefined) lexicalCache.set(base, (byValue = new Map()));
  const cached = byValue.get(value);
  if (cached !== undefined) return cached;
  const readings: PathReading[] = [];
  let unreadable = false;
  let escapes = false;
  const spellings = spellingsOf(value);
  for (const spelling of /file:|[{%]/i.test(value) ? [...spellings] : []) {
    const named = fileUrlPath(spelling);
    if (named !== undefined) spellings.add(named); // read for denies; the URL itself stays unplaceable
    const braced = spelling.includes("{") ? braceWords(spelling) : undefined;
    if (braced !== undefined && braced.length === 0) unreadable = true; // too many words to place
    for (const word of braced ?? []) spellings.add(word);
  }
  for (const spelling of /[*?[%]/.test(value) ? [...spellings] : []) {
    const globbed = /[*?[]/.test(spelling) ? dotGlobReading(spelling) : undefined;
    if (globbed !== undefined) spellings.add(globbed);
  }
  for (const spelling of spellings) {
    if (UNPLACEABLE_RE.test(spelling) || (spelling.includes("~") && SHORT_NAME_RE.test(spelling))) {
      unreadable = true; // home directories, drive letters, devices, URLs, variables, short names: nowhere the guard can place
      continue;
    }
    const absolute = posix.resolve(base, spelling);
    const special = absolute.startsWith("/proc/") || absolute.startsWith("/dev/") || spelling.includes("proc");
    if (special && OPEN_FILE_RE.test(absolute)) unreadable = true; // an open file of the tool's process: anything
    const relative = relativeTo(base, absolute);
    if (!spelling.startsWith("/")) {
      const normal = posix.normalize(spelling);
      if (normal === ".." || normal.startsWith("../") || relative === undefined) escapes = true;
    }
    const places = [absolute];
    // The kernel follows /proc/<pid>/root and /proc/<pid>/cwd before it reads a `..` after them,
    // and again for each one the place they lead to starts with (`/proc/self/root/proc/self/root/x`).
    const forms = special ? [absolute, spelling.replace(/\/+/g, "/").replace(/\/\.(?=\/|$)/g, "")] : [];
    for (let i = 0; i < forms.length && i < 16; i++) {
      const form = forms[i]!;
      const proc = PROC_LINK_RE.exec(form);
      if (proc === null) continue;
      if (OTHER_PROCESS_RE.test(form)) unreadable = true; // `/proc/1234/cwd/x`: where another process works
      const place = posix.resolve(proc[1] === "root" ? "/" : base, `.${form.slice(proc[0].length)}`);
      places.push(place);
      forms.push(place);
      if (OPEN_FILE_RE.test(place)) unreadable = true; // `/proc/self/root/dev/fd/3`: an open file all the same
    }
    for (const place of places) if (!readings.some((reading) => reading.absolute === place)) readings.push({ absolute: place, relative: relativeTo(base, place) });
  }
  const out: PathReadings = { readings, unreadable, escapes };
  if (byValue.size >= MAX_CACHED) byValue.clear();
  byValue.set(value, out);
  return out;
}

/**
 * `path`'s real location on this machine: the longest part of it that exists resolved with the
 * system's realpath (symlinks followed as the kernel follows them, `..` after a symlink included),
 * the rest appended. Undefined when it cannot be resolved: a loop, no permission, or a symlink
 * whose target does not exist (a write through it would create the target, wherever that is).
 */
function realLocation(path: string): string | undefined {
  const rest: string[] = [];
  let current = path;
  for (let depth = 0; depth < 4096; depth++) {
    if (existsSync(current)) {
      try {
        const real = realpathSync.native(current);
        return rest.length === 0 ? real : posix.join(real, ...rest.reverse());
      } catch {
        return undefined;
      }
    }
    // Missing, or a link that leads nowhere (dangling, a loop): only a missing entry is read on.
    let entry: unknown;
    try {
      entry = lstatSync(current, { throwIfNoEntry: false });
    } catch (error) {
      // Under a file (ENOTDIR) nothing exists; a loop or no permission above it cannot be read.
      if ((error as NodeJS.ErrnoException).code !== "ENOTDIR") return undefined;
    }
    if (entry !== undefined) return undefined;
    const parent = posix.dirname(current);
    if (parent === current) return undefined;
    rest.push(posix.basename(current));
    current = parent;
  }
  return undefined;
}

/**
 * The files a shell's pathname expansion makes of an absolute path with `*`, `?` or `[...]` in its
 * names, on this machine (`/etc/pas*` is `/etc/passwd`; a name starting with a dot is matched by a
 * pattern starting with one only). Empty when nothing matches (the shell then passes the text as
 * written); undefined when there are more than `MAX_EXPANSIONS` matches or a directory cannot be read.
 */
function globMatches(absolute: string): string[] | undefined {
  let places = ["/"];
  for (const name of absolute.split("/").filter((part) => part !== "")) {
    // Names are appended as written: a `..` after a symlinked directory is the kernel's to resolve.
    const under = (place: string, entry: string) => (place.endsWith("/") ? `${place}${entry}` : `${place}/${entry}`);
    if (!/[*?[]/.test(name)) {
      places = places.map((place) => under(place, name));
      continue;
    }
    const isMatch = picomatchLibrary()(name, { dot: name.startsWith("."), nobrace: true, noextglob: true });
    const next: string[] = [];
    for (const place of places) {
      let names: string[];
      try {
        names = readdirSync(place);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOENT" || code === "ENOTDIR") continue;
        return undefined;
      }
      for (const entry of names) if (isMatch(entry)) next.push(under(place, entry));
      if (next.length > MAX_EXPANSIONS) return undefined;
    }
    places = next;
    if (places.length === 0) return [];
  }
  return places;
}

/** Readings through symlinks are kept this long (a link created later is seen by later calls). */
const REAL_TTL_MS = 250;
const realCache = new Map<string, { at: number; readings: PathReadings }>();

/**
 * Every reading of a path value: each spelling resolved against the base (lexically), and with
 * `followSymlinks` also where it really is on this machine (`realLocation`) of both its lexical
 * form and its form as written (where `dir/link/..` is resolved after the link), and the files a
 * shell would expand a glob in it to (`globMatches`).
 */
export function readPathValue(value: string, options: PathReadOptions): PathReadings {
  const lexical = lexicalReadings(value, options.base);
  if (!options.followSymlinks) return lexical;
  const key = `${options.base}\u0000${value}`;
  const now = Date.now();
  const cached = realCache.get(key);
  if (cached !== undefined && now - cached.at <= REAL_TTL_MS) return cached.readings;
  const readings = [...lexical.readings];
  let unreadable = lexical.unreadable;
  const add = (absolute: string | undefined) => {
    if (absolute === undefined) unreadable = true;
    else if (!readings.some((reading) => reading.absolute === absolute)) readings.push({ absolute, relative: relativeTo(options.base, absolute) });
  };
  for (const reading of lexical.readings) {
    if (reading.absolute.includes("\u0000")) continue; // no file name has a NUL: the reading cut there is the one opened
    add(realLocation(reading.absolute));
    if (!/[*?[]/.test(reading.absolute)) continue;
    const matches = globMatches(reading.absolute);
    if (matches === undefined) unreadable = true;
    for (const match of matches ?? []) {
      add(match);
      add(realLocation(match));
    }
  }
  for (const spelling of spellingsOf(value)) {
    if (UNPLACEABLE_RE.test(spelling) || !/(^|\/)\.\.(\/|$)/.test(spelling)) continue;
    const written = spelling.startsWith("/") ? spelling : `${options.base === "/" ? "" : options.base}/${spelling}`;
    add(realLocation(written));
    // `docs/j*/../x`: the shell expands the glob, then the kernel climbs from each match's target.
    if (!/[*?[]/.test(written)) continue;
    const matches = globMatches(written);
    if (matches === undefined) unreadable = true;
    for (const match of matches ?? []) add(realLocation(match));
  }
  const out: PathReadings = { readings, unreadable, escapes: lexical.escapes };
  if (realCache.size >= MAX_CACHED) realCache.clear();
  realCache.set(key, { at: now, readings: out });
  return out;
}

/**
 * The directories a reading is in, below the base (`/ws/secrets/a/key` under `/ws`: `/ws/secrets/a`,
 * `/ws/secrets`): a deny naming one of them holds for what is in it, as a .gitignore pattern that
 * names a directory excludes everything under it (`secrets` denies `secrets/key`).
 */
function enclosing(reading: PathReading, base: string): string[] {
  const out: string[] = [];
  if (reading.relative === undefined || reading.relative === ".") return out;
  for (let dir = posix.dirname(reading.absolute); dir !== base && dir !== "/" && relativeTo(base, dir) !== undefined; dir = posix.dirname(dir)) out.push(dir);
  return out;
}

/** Verdict of one path value against `path` patterns (any pattern may match). */
export function judgePath(value: string, patterns: readonly CompiledPathPattern[], options: PathReadOptions, restrictive: boolean): Verdict {
  if (value.trim() === "") return restrictive ? UNKNOWN : NO;
  const { readings, unreadable, escapes } = readPathValue(value, options);
  // A deny or ask also names the place its pattern spells out as this machine's symlinks lead (`/tmp/x` is `/private/tmp/x`).
  const real = restrictive && options.followSymlinks;
  const matches = (pattern: CompiledPathPattern, absolute: string) => pattern.test(absolute) || (real && pattern.realTest(absolute));
  const hit = (reading: PathReading) => (reading.relative === undefined && !inPlaced(reading.absolute, options.placed)) || patterns.some((pattern) => matches(pattern, reading.absolute) || enclosing(reading, options.base).some((dir) => matches(pattern, dir)));
  // A path that escapes the base, or cannot be placed, matches every deny and no allow.
  if (restrictive) return unreadable || escapes || readings.some(hit) ? YES : options.followSymlinks ? otherNamesVerdict(readings, patterns, options.base) : NO;
  if (unreadable || escapes) return NO;
  return readings.every((reading) => (reading.relative !== undefined || inPlaced(reading.absolute, options.placed)) && patterns.some((pattern) => pattern.test(reading.absolute))) ? YES : NO;
}

/**
 * A deny or ask on a file with more than one name (a hard link: `docs/h` made by `ln secrets/key docs/h`): the file's
 * other names the patterns spell out (the paths they name, and the names found by searching the directories before
 * their wildcards) are read as the value is. YES when one of them matches; UNKNOWN when a directory was too large or
 * unreadable to search and the file's name there would match; else NO.
 */
function otherNamesVerdict(readings: readonly PathReading[], patterns: readonly CompiledPathPattern[], base: string): Verdict {
  // Most files have one name: nothing to search for.
  const several = readings.filter((reading) => !reading.absolute.includes("\u0000") && isFileWithSeveralNames(reading.absolute));
  if (several.length === 0) return NO;
  const paths = patterns.flatMap((pattern) => pattern.spelled.paths);
  const directories = [...new Set(patterns.flatMap((pattern) => pattern.spelled.directories))];
  for (const path of paths) if (!directories.includes(path) && isDirectory(path)) directories.push(path);
  const matches = (absolute: string) => {
    const relative = relativeTo(base, absolute);
    const above = relative === undefined ? ancestors(absolute) : enclosing({ absolute, relative }, base);
    const test = (pattern: CompiledPathPattern, path: string) => pattern.test(path) || pattern.realTest(path);
    return patterns.some((pattern) => test(pattern, absolute) || above.some((dir) => test(pattern, dir)));
  };
  let open = false;
  for (const reading of several) {
    const { names, unsearched } = hardLinkNames(reading.absolute, paths, directories);
    if (names.some(matches)) return YES;
    if (unsearched !== undefined && matches(posix.join(unsearched, posix.basename(reading.absolute)))) open = true;
  }
  return open ? UNKNOWN : NO;
}

/**
 * Whether an absolute path meets `patterns` (deny or ask) through what this machine's links make of them: the places
 * the patterns spell out read through symlinks (`/tmp/x` where /tmp leads to /private/tmp), and the other names of a
 * file with several (a hard link). YES, UNKNOWN (a directory too large to search), or NO.
 */
export function judgeOtherNames(absolute: string, patterns: readonly CompiledPathPattern[], base: string): Verdict {
  const { readings } = readPathValue(absolute, { base, followSymlinks: true });
  if (readings.some((reading) => [reading.absolute, ...ancestors(reading.absolute)].some((path) => patterns.some((pattern) => pattern.realTest(path))))) return YES;
  return otherNamesVerdict(readings, patterns, base);
}

/** The directories above an absolute path, up to (not including) the root. */
function ancestors(absolute: string): string[] {
  const out: string[] = [];
  for (let dir = posix.dirname(absolute); dir !== "/" && dir !== "."; dir = posix.dirname(dir)) out.push(dir);
  return out;
}

function isFileWithSeveralNames(path: string): boolean {
  try {
    const stats = statSync(path, { throwIfNoEntry: false });
    return stats !== undefined && stats.isFile() && stats.nlink > 1;
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/** `/proc/self/root/x` as `/x` (the process's own root), repeatedly; undefined when the path does not start so. */
const OWN_ROOT_RE = /^\/proc\/(?:self|thread-self)(?:\/task\/\d+)?\/root(?=\/|$)/;

/** A path as the kernel reads it lexically: repeated slashes, `.` segments and a trailing `/` dropped, `..` resolved, `/proc/self/root` as `/`. */
function lexicalWord(value: string): string {
  let out = posix.normalize(value);
  for (let i = 0; i < 16; i++) {
    const own = OWN_ROOT_RE.exec(out);
    if (own === null) break;
    out = posix.normalize(`/${out.slice(own[0].length)}`);
  }
  return out.length > 1 ? out.replace(/\/+$/, "") : out;
}

/** Real locations of absolute words, kept `REAL_TTL_MS` (a link made later is seen by later calls). */
const wordRealCache = new Map<string, { at: number; real: string | undefined }>();

function cachedRealLocation(path: string): string | undefined {
  const now = Date.now();
  const kept = wordRealCache.get(path);
  if (kept !== undefined && now - kept.at <= REAL_TTL_MS) return kept.real;
  const real = realLocation(path);
  if (wordRealCache.size >= MAX_CACHED) wordRealCache.clear();
  wordRealCache.set(path, { at: now, real });
  return real;
}

/**
 * A pattern's absolute path (`/tmp/secrets/*`, `--file=/tmp/x`) with the place it spells out before its first `*` read
 * through this machine's symlinks (`/private/tmp/secrets/*` where /tmp links to /private/tmp); undefined when no link
 * changes it.
 */
export function realPatternWord(word: string): string | undefined {
  const head = VALUE_START_RE.exec(word)?.[0] ?? "";
  const value = word.slice(head.length);
  if (!value.startsWith("/") || value.includes("\u0000")) return undefined;
  const star = value.search(/[*?[]/);
  const literal = star < 0 ? value : value.slice(0, value.lastIndexOf("/", star));
  if (literal === "" || literal === "/") return undefined;
  const place = cachedRealLocation(literal);
  if (place === undefined || place === literal || /[*?[\]\s]/.test(place)) return undefined;
  return `${head}${place}${value.slice(literal.length)}`;
}

/** A `--option=` or `NAME=` start of a word whose value is a path (`--file=/x`, `if=/x`). */
const VALUE_START_RE = /^(?:--?[A-Za-z0-9][\w.-]*=|[A-Za-z_][A-Za-z0-9_]*=)(?=[^=]*\/)/;

/**
 * The other spellings of a command-line word that names a path, as the kernel reads it: repeated
 * slashes, `.` segments and a trailing `/` dropped, `..` resolved (`/srv/docs/../secrets/key` is
 * `/srv/secrets/key`), `/proc/self/root` as the root, and, with `live`, where an absolute path really
 * is on this machine (symlinks followed as the kernel follows them, a `..` after a symlink from its
 * target). The value after `--option=` or `NAME=` is read the same way (`if=/srv//key`). A URL
 * (`scheme://`) is no path. Empty when no spelling differs from the word.
 */
export function pathWordReadings(word: string, live: boolean): string[] {
  if (!word.includes("/") || word.includes("\u0000") || /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(word)) return [];
  const head = VALUE_START_RE.exec(word)?.[0] ?? "";
  const value = word.slice(head.length);
  if (!value.includes("/") || /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value)) return [];
  const out = new Set<string>();
  const lexical = lexicalWord(value);
  out.add(lexical);
  if (live && value.startsWith("/")) {
    for (const place of [value, lexical]) {
      const real = cachedRealLocation(place);
      if (real !== undefined) out.add(real);
    }
  }
  out.delete(value);
  return [...out].map((place) => `${head}${place}`);
}

/** Most entries searched under one directory for the other names of a file with several (hard links). */
const MAX_SEARCHED = 4096;

/** A file's identity: device and inode. */
const fileId = (stats: { dev: number; ino: number }) => `${stats.dev}:${stats.ino}`;

/** The files under a directory with more than one name, by identity (one of their paths); `complete` when every entry was read. */
const inodeIndexCache = new Map<string, { at: number; byId: Map<string, string>; complete: boolean }>();

function inodeIndex(directory: string, fresh = false): { byId: Map<string, string>; complete: boolean; kept?: boolean } {
  const now = Date.now();
  const kept = inodeIndexCache.get(directory);
  if (!fresh && kept !== undefined && now - kept.at <= REAL_TTL_MS) return { ...kept, kept: true };
  const byId = new Map<string, string>();
  let complete = true;
  let count = 0;
  const pending = [directory];
  while (pending.length > 0 && complete) {
    const current = pending.pop()!;
    let entries;
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch (error) {
      // A directory that is not there holds no name of any file (a pattern's place that does not exist yet).
      const code = (error as NodeJS.ErrnoException).code;
      if (current === directory && (code === "ENOENT" || code === "ENOTDIR")) break;
      complete = false;
      break;
    }
    for (const entry of entries) {
      if (++count > MAX_SEARCHED) {
        complete = false;
        break;
      }
      const full = current === "/" ? `/${entry.name}` : `${current}/${entry.name}`;
      if (entry.isDirectory()) pending.push(full);
      else if (entry.isFile()) {
        try {
          const stats = lstatSync(full, { throwIfNoEntry: false });
          if (stats !== undefined && stats.nlink > 1 && !byId.has(fileId(stats))) byId.set(fileId(stats), full);
        } catch {
          // a directory listed but not searchable (read without execute permission)
          complete = false;
        }
      }
    }
  }
  if (inodeIndexCache.size >= MAX_CACHED) inodeIndexCache.clear();
  const out = { at: now, byId, complete };
  inodeIndexCache.set(directory, out);
  return out;
}

/**
 * Other names of the file an absolute word names when it has several (a hard link: `cat /tmp/h` where /tmp/h is
 * /etc/shadow's other name): each of `files` that is the same file (device and inode), and the file's name under each
 * of `directories` found by searching it. `unsearched`: a directory too large or unreadable to search, while the word's
 * file has more names than the guard found. The value after `--option=` or `NAME=` is read the same way.
 */
export function hardLinkNames(word: string, files: readonly string[], directories: readonly string[]): { names: string[]; unsearched: string | undefined } {
  const none = { names: [], unsearched: undefined };
  const head = VALUE_START_RE.exec(word)?.[0] ?? "";
  const value = word.slice(head.length);
  if (!value.startsWith("/") || value.includes("\u0000")) return none;
  let stats;
  try {
    stats = statSync(value, { throwIfNoEntry: false });
  } catch {
    return none;
  }
  if (stats === undefined || !stats.isFile() || stats.nlink < 2) return none;
  const id = fileId(stats);
  const names: string[] = [];
  for (const file of files) {
    try {
      const other = statSync(file, { throwIfNoEntry: false });
      if (other !== undefined && fileId(other) === id) names.push(`${head}${file}`);
    } catch {
      // unreadable: not this file as far as the guard can tell
    }
  }
  let unsearched: string | undefined;
  for (const directory of directories) {
    let index = inodeIndex(directory);
    // A file that had one name when the directory was last searched may have another now (`ln key h`, then `cat h`).
    if (index.kept === true && index.complete && !index.byId.has(id)) index = inodeIndex(directory, true);
    const found = index.byId.get(id);
    if (found !== undefined) names.push(`${head}${found}`);
    else if (!index.complete) unsearched ??= directory;
  }
  return { names, unsearched };
}
