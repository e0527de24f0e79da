import { existsSync, lstatSync, realpathSync } from "node:fs";
import { posix } from "node:path";
import { picomatchLibrary } from "../../deps/on-demand.js";
import { NO, UNKNOWN, YES, type Verdict } from "./verdict.js";

/**
 * `path` matcher. A value is resolved as the tool would read it: relative to a declared base,
 * `.`/`..`/`./`/repeated slashes/trailing `/.` removed; backslashes read as separators too,
 * `%2e%2e%2f`-style percent-encoding decoded too (up to three times), names as Windows reads them
 * (trailing dots and spaces, `::$DATA`), NFC and NFD (each spelling is a separate reading: a deny
 * matches if ANY reading matches, an allow only if EVERY reading does). A path that escapes the
 * base (`../x`, an absolute path outside it, `~`, `$HOME`) matches every deny and no allow.
 *
 * Patterns are gitignore-like (as Claude Code's Read/Edit rules):
 * - `./secrets/**` or `secrets/**` (contains a slash): anchored at the base;
 * - `/etc/**`: absolute; `~/...` is refused at load (the guard cannot know whose home);
 * - `.env`, `*.pem` (no slash): a file or directory of that name at any depth;
 * - `dir/` (trailing slash): the directory and everything in it; `dir/**` also matches `dir` itself.
 */
interface PathMatcherOptions {
  /** Directory relative paths are resolved against (absolute, default "/"). */
  base?: string | undefined;
  caseSensitive?: boolean | undefined;
}

interface CompiledPathPattern {
  readonly source: string;
  /** True when the absolute, normalised path matches. */
  test(absolute: string): boolean;
}

export function normaliseBase(base: string | undefined): string {
  const resolved = posix.normalize(base ?? "/");
  if (!resolved.startsWith("/")) throw new TypeError(`path base ${JSON.stringify(base)} must be absolute`);
  return resolved.length > 1 ? resolved.replace(/\/+$/, "") : resolved;
}

export function compilePathPattern(pattern: string, options: PathMatcherOptions): CompiledPathPattern {
  const base = normaliseBase(options.base);
  let glob = pattern.replace(/\\/g, "/");
  if (glob.startsWith("~")) throw new TypeError(`path pattern ${JSON.stringify(pattern)}: "~" is not supported (write an absolute path)`);
  if (glob.endsWith("/")) glob = `${glob}**`;
  const anchored = glob.slice(0, -1).includes("/") || glob.startsWith("/");
  if (!anchored) glob = `**/${glob}`;
  else if (!glob.startsWith("/")) glob = posix.join(base, glob.replace(/^\.\//, ""));
  else glob = posix.normalize(glob);
  const alternatives = [glob];
  if (glob.endsWith("/**")) alternatives.push(glob.slice(0, -3) || "/");
  const isMatch = picomatchLibrary()(alternatives, { dot: true, nocase: options.caseSensitive !== true });
  return { source: pattern, test: (absolute) => isMatch(absolute) };
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
 * dropped (`secrets./a` is `secrets/a`, `.env.` is `.env`) and the default data stream named
 * (`.env::$DATA` is `.env`). Undefined when that changes nothing.
 */
function windowsReading(value: string): string | undefined {
  const out = value
    .split("/")
    .map((name) => (/^\.+$/.test(name) ? name : name.replace(/::\$DATA$/i, "").replace(/[. ]+$/, "")))
    .join("/");
  return out === value ? undefined : out;
}

/** The spellings a tool might read a value as: as written, backslashes as separators, percent-decoded (repeatedly), as Windows reads names, composed and decomposed (NFC, NFD). */
function spellingsOf(value: string): Set<string> {
  const spellings = new Set<string>([value]);
  if (value.includes("\\")) spellings.add(value.replace(/\\/g, "/"));
  for (let round = 0; round < MAX_DECODINGS && value.includes("%"); round++) {
    for (const spelling of [...spellings]) {
      const decoded = percentDecode(spelling);
      if (decoded !== undefined) {
        spellings.add(decoded);
        if (decoded.includes("\\")) spellings.add(decoded.replace(/\\/g, "/"));
      }
    }
  }
  for (const spelling of /[. ](?:$|[\\/%])|::/.test(value) || value.includes("%") ? [...spellings] : []) {
    const windows = windowsReading(spelling);
    if (windows !== undefined) spellings.add(windows);
  }
  // macOS file systems open `café` composed (NFC) and decomposed (NFD) as one name.
  if (/[^\x00-\x7f]/.test(value) || value.includes("%")) {
    for (const spelling of [...spellings]) {
      spellings.add(spelling.normalize("NFC"));
      spellings.add(spelling.normalize("NFD"));
    }
  }
  return spellings;
}

/** Home directories, drive letters, URLs, and environment variables a tool may expand (`$HOME/x`, `${HOME}`, `%USERPROFILE%`): nowhere the guard can place. */
const UNPLACEABLE_RE = /^(?:~|[a-zA-Z]:|file:)|(?:^|\/)(?:\$\{?[A-Za-z_]|%[A-Za-z_][A-Za-z0-9_]*%)/;

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
  for (const spelling of spellingsOf(value)) {
    if (UNPLACEABLE_RE.test(spelling)) {
      unreadable = true; // home directories, drive letters, URLs and variables: nowhere the guard can place
      continue;
    }
    const absolute = posix.resolve(base, spelling);
    const relative = relativeTo(base, absolute);
    if (!spelling.startsWith("/")) {
      const normal = posix.normalize(spelling);
      if (normal === ".." || normal.startsWith("../") || relative === undefined) escapes = true;
    }
    if (!readings.some((reading) => reading.absolute === absolute)) readings.push({ absolute, relative });
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

/** Readings through symlinks are kept this long (a link created later is seen by later calls). */
const REAL_TTL_MS = 250;
const realCache = new Map<string, { at: number; readings: PathReadings }>();

/**
 * Every reading of a path value: each spelling resolved against the base (lexically), and with
 * `followSymlinks` also where it really is on this machine (`realLocation`) of both its lexical
 * form and its form as written (where `dir/link/..` is resolved after the link).
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
  for (const reading of lexical.readings) add(realLocation(reading.absolute));
  for (const spelling of spellingsOf(value)) {
    if (UNPLACEABLE_RE.test(spelling) || !/(^|\/)\.\.(\/|$)/.test(spelling)) continue;
    const written = spelling.startsWith("/") ? spelling : `${options.base === "/" ? "" : options.base}/${spelling}`;
    add(realLocation(written));
  }
  const out: PathReadings = { readings, unreadable, escapes: lexical.escapes };
  if (realCache.size >= MAX_CACHED) realCache.clear();
  realCache.set(key, { at: now, readings: out });
  return out;
}

/** Verdict of one path value against `path` patterns (any pattern may match). */
export function judgePath(value: string, patterns: readonly CompiledPathPattern[], options: PathReadOptions, restrictive: boolean): Verdict {
  if (value.trim() === "") return restrictive ? UNKNOWN : NO;
  const { readings, unreadable, escapes } = readPathValue(value, options);
  const hit = (reading: PathReading) => reading.relative === undefined || patterns.some((pattern) => pattern.test(reading.absolute));
  // A path that escapes the base, or cannot be placed, matches every deny and no allow.
  if (restrictive) return unreadable || escapes || readings.some(hit) ? YES : NO;
  if (unreadable || escapes) return NO;
  return readings.every((reading) => reading.relative !== undefined && patterns.some((pattern) => pattern.test(reading.absolute))) ? YES : NO;
}
