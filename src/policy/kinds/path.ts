import { posix } from "node:path";
import picomatch from "picomatch";
import { NO, UNKNOWN, YES, type Verdict } from "./verdict.js";

/**
 * `path` matcher. A value is resolved as the tool would read it: relative to a declared base,
 * `.`/`..`/`./`/repeated slashes/trailing `/.` removed; backslashes read as separators too, and
 * `%2e%2e%2f`-style percent-encoding decoded too (each spelling is a separate reading: a deny
 * matches if ANY reading matches, an allow only if EVERY reading does). A path that escapes the
 * base (`../x`, an absolute path outside it, `~`) matches every deny and no allow.
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
  const isMatch = picomatch(alternatives, { dot: true, nocase: options.caseSensitive !== true });
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

/** Each way a tool might read `value`, resolved against `base`; `undefined` marks a reading that escapes it. */
function pathReadings(value: string, base: string): (string | undefined)[] {
  const spellings = new Set<string>([value]);
  if (value.includes("\\")) spellings.add(value.replace(/\\/g, "/"));
  for (const spelling of [...spellings]) {
    const decoded = percentDecode(spelling);
    if (decoded !== undefined) {
      spellings.add(decoded);
      if (decoded.includes("\\")) spellings.add(decoded.replace(/\\/g, "/"));
    }
  }
  const readings: (string | undefined)[] = [];
  for (const spelling of spellings) {
    if (spelling.startsWith("~") || /^[a-zA-Z]:/.test(spelling) || spelling.startsWith("file:")) {
      readings.push(undefined); // home directories, drive letters and URLs: nowhere under the base we can vouch for
      continue;
    }
    const absolute = posix.resolve(base, spelling);
    const inside = base === "/" || absolute === base || absolute.startsWith(`${base}/`);
    readings.push(inside ? absolute : undefined);
  }
  return readings;
}

/** Verdict of one path value against patterns (any pattern may match). */
export function judgePath(value: string, patterns: readonly CompiledPathPattern[], base: string, restrictive: boolean): Verdict {
  if (value.trim() === "") return restrictive ? UNKNOWN : NO;
  const readings = pathReadings(value, base);
  const hit = (reading: string | undefined) => reading === undefined || patterns.some((pattern) => pattern.test(reading));
  if (restrictive) return readings.some(hit) ? YES : NO;
  return readings.every((reading) => reading !== undefined && patterns.some((pattern) => pattern.test(reading))) ? YES : NO;
}
