import { isIPv6 } from "../../deps/builtins.js";
import { picomatchLibrary } from "../../deps/on-demand.js";
import { NO, UNKNOWN, YES, type Verdict } from "./verdict.js";

/**
 * `url`, `domain` and `email` readings, normalised as their standards say:
 * - url (WHATWG URL Standard, as browsers and undici parse): scheme and host lower-cased, IDN
 *   hosts to punycode, IPv4 in any notation (`0x7f.1`, `2130706433`, `0177.0.0.1`) to dotted
 *   decimal, an IPv6 literal that reaches an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`,
 *   IPv4-compatible `::a.b.c.d`, SIIT `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`) to that IPv4
 *   address, trailing dots dropped, default ports dropped, `.`/`..` and backslashes in the path
 *   resolved, `user:pass@` ignored. Percent-encoded paths are also tried decoded. A backslash in the
 *   authority is also read as RFC 3986 parsers (curl, urllib, Go) read it: part of the user name
 *   (`http://a.com\@10.0.0.1/` is host 10.0.0.1 there). A deny also reads the hosts that reach the
 *   same place (0.0.0.0 and 127.0.0.1, [::] and [::1], localhost). Matched as
 *   `scheme://host[:port]/path` (query and fragment left out).
 * - A value without `scheme://` is read as `https://` + the value, by the URL and the domain
 *   readers alike (`api.example.com:443/admin` is host api.example.com, port 443;
 *   `evil.com?@example.com` is host evil.com; `//evil.com`, `\\evil.com` and `user@evil.com` are
 *   host evil.com).
 * - domain (RFC 1034/5890): the host of the value read as above: lower case, IDNA to punycode,
 *   trailing dot removed, IP literals as for url. A bare IPv6 address is read as one.
 * - email (RFC 5321/5322): every address in the value (lists, `Name <addr>` forms), the domain part
 *   normalised as a domain, the local part compared case-insensitively.
 * A value whose host cannot be read is UNKNOWN: a deny or ask rule asks, an allow never holds.
 */

/** Schemes whose URLs always have a host (WHATWG "special" schemes, file aside). */
const SPECIAL_SCHEMES = new Set(["http", "https", "ws", "wss", "ftp", "file"]);
const SCHEME_RE = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;

/**
 * The one parse of a URL-ish value, shared by the url, domain and string readings: a value with a
 * special scheme (`http:`, `https:`, ...) or with `scheme://` is parsed as it is; any other value
 * (`api.example.com:443/x`, `localhost:8080`, `//evil.com`, `user@host`) as `https://` + value and
 * as `http://` + value (clients differ in the scheme they assume; the host is the same). Undefined
 * when a reading cannot be parsed.
 */
function parseUrlValues(value: string): URL[] | undefined {
  const text = value.trim();
  if (text === "") return undefined;
  const scheme = SCHEME_RE.exec(text)?.[1]?.toLowerCase();
  const schemed = scheme !== undefined && (SPECIAL_SCHEMES.has(scheme) || text.slice(scheme.length + 1).startsWith("//"));
  let urls: URL[];
  try {
    urls = schemed ? [new URL(text)] : [new URL(`https://${text}`), new URL(`http://${text}`)];
  } catch {
    return undefined;
  }
  for (const spelled of schemed ? [text] : [`https://${text}`, `http://${text}`]) {
    const other = rfc3986Url(spelled);
    if (other !== undefined && other.host !== urls[0]?.host) urls.push(other);
  }
  return urls;
}

/**
 * The URL as an RFC 3986 parser reads it (curl, Python's urllib, Go's net/url), where that differs
 * from the WHATWG reading: a backslash in the authority is no separator there, so
 * `http://evil.com\@169.254.169.254/` is user `evil.com\` at host 169.254.169.254 (WHATWG: host
 * evil.com, path `/@169.254.169.254/`). Undefined when there is no backslash in the authority or
 * the other host cannot be read.
 */
function rfc3986Url(text: string): URL | undefined {
  const match = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/?#]*)(.*)$/s.exec(text);
  if (match === null || !match[2]!.includes("\\")) return undefined;
  const authority = match[2]!;
  const hostPort = authority.slice(authority.lastIndexOf("@") + 1);
  if (hostPort.includes("\\")) return undefined;
  try {
    return new URL(`${match[1]!}://${hostPort}${match[3]!.replace(/^(?=[^/])/, "/")}`);
  } catch {
    return undefined;
  }
}

/**
 * Hosts that reach the same place (a deny on one also holds for the others; an allow never reads
 * them): Linux connects 0.0.0.0 to 127.0.0.1 and [::] to [::1], and localhost is 127.0.0.1 and
 * [::1] (RFC 6761, /etc/hosts).
 */
const SAME_PLACE: Readonly<Record<string, readonly string[]>> = {
  "0.0.0.0": ["127.0.0.1", "localhost"],
  "[::]": ["[::1]", "localhost"],
  localhost: ["127.0.0.1", "[::1]"],
  "127.0.0.1": ["localhost"],
  "[::1]": ["localhost"],
};

/** The 8 16-bit groups of an IPv6 address (no brackets, no zone), or undefined. */
function ipv6Groups(address: string): number[] | undefined {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((group) => parseInt(group, 16)));
  const head = parse(halves[0] ?? "");
  const tail = halves.length === 2 ? parse(halves[1] ?? "") : [];
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0;
  const groups = [...head, ...new Array<number>(Math.max(fill, 0)).fill(0), ...tail];
  return groups.length === 8 && groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : undefined;
}

/**
 * The IPv4 address an IPv6 literal reaches, or undefined: IPv4-mapped (::ffff:0:0/96),
 * SIIT (::ffff:0:0:0/96), IPv4-compatible (::/96 but :: and ::1), NAT64 (64:ff9b::/96).
 */
function embeddedIPv4(address: string): string | undefined {
  const groups = ipv6Groups(address.replace(/^\[|\]$/g, ""));
  if (groups === undefined) return undefined;
  const [g0, g1, g2, g3, g4, g5, g6 = 0, g7 = 0] = groups;
  const zeros = (...gs: (number | undefined)[]) => gs.every((g) => g === 0);
  const mapped = zeros(g0, g1, g2, g3, g4) && g5 === 0xffff;
  const siit = zeros(g0, g1, g2, g3) && g4 === 0xffff && g5 === 0;
  const compatible = zeros(g0, g1, g2, g3, g4, g5) && !(g6 === 0 && g7 <= 1);
  const nat64 = g0 === 0x64 && g1 === 0xff9b && zeros(g2, g3, g4, g5);
  if (!mapped && !siit && !compatible && !nat64) return undefined;
  return `${g6 >> 8}.${g6 & 0xff}.${g7 >> 8}.${g7 & 0xff}`;
}

/** A host as the URL parser gives it, normalised: trailing dots dropped, an IPv6 literal reaching an IPv4 address as that address. */
function normaliseHost(hostname: string): string {
  if (hostname.startsWith("[")) return embeddedIPv4(hostname) ?? hostname;
  return hostname.replace(/\.+$/, "");
}

/** The host of a domain, URL or email value, normalised; undefined when it cannot be read. */
export function normaliseDomain(input: string): string | undefined {
  const text = input.trim();
  const bare = text.replace(/^\[|\]$/g, "");
  const url = parseUrlValues(isIPv6(bare) ? `[${bare}]` : text)?.[0];
  if (url === undefined) return undefined;
  const host = normaliseHost(url.hostname);
  return host === "" ? undefined : host;
}

/** Every host a domain, URL or email value is read as (WHATWG, and RFC 3986 where it differs), with `sameHosts` the hosts that reach the same place; undefined when it cannot be read. */
export function domainReadings(input: string, sameHosts = false): string[] | undefined {
  const text = input.trim();
  const bare = text.replace(/^\[|\]$/g, "");
  const urls = parseUrlValues(isIPv6(bare) ? `[${bare}]` : text);
  if (urls === undefined) return undefined;
  const hosts = new Set<string>();
  for (const url of urls) {
    const host = normaliseHost(url.hostname);
    if (host === "") return undefined;
    hosts.add(host);
    if (sameHosts) for (const other of SAME_PLACE[host] ?? []) hosts.add(other);
  }
  return [...hosts];
}

/** `example.com`: exactly; `*.example.com`: any subdomain; `.example.com`: the domain and its subdomains. */
export function compileDomainPattern(pattern: string): (domain: string) => boolean {
  const trimmed = pattern.trim().toLowerCase();
  if (trimmed.startsWith(".")) {
    const apex = normaliseDomain(trimmed.slice(1));
    if (apex === undefined) throw new TypeError(`domain pattern ${JSON.stringify(pattern)} is not a domain`);
    return (domain) => domain === apex || domain.endsWith(`.${apex}`);
  }
  if (trimmed.startsWith("*.")) {
    const apex = normaliseDomain(trimmed.slice(2));
    if (apex === undefined) throw new TypeError(`domain pattern ${JSON.stringify(pattern)} is not a domain`);
    return (domain) => domain.endsWith(`.${apex}`);
  }
  if (trimmed.includes("*")) {
    const isMatch = picomatchLibrary()(trimmed, { dot: true, nocase: true });
    return (domain) => isMatch(domain);
  }
  const exact = normaliseDomain(trimmed);
  if (exact === undefined) throw new TypeError(`domain pattern ${JSON.stringify(pattern)} is not a domain`);
  return (domain) => domain === exact;
}

export function judgeDomain(value: string, patterns: readonly ((domain: string) => boolean)[], restrictive: boolean): Verdict {
  const domains = domainReadings(value, restrictive);
  if (domains === undefined) return restrictive ? UNKNOWN : NO;
  if (restrictive) return domains.some((domain) => patterns.some((test) => test(domain))) ? YES : NO;
  return domains.every((domain) => patterns.some((test) => test(domain))) ? YES : NO;
}

/**
 * Readings of a URL: `scheme://host[:port]/path` (with `?query` when `withQuery`), the path also
 * percent-decoded; undefined when the value cannot be read as a URL.
 */
export function urlReadings(value: string, withQuery = false, sameHosts = false): string[] | undefined {
  const urls = parseUrlValues(value);
  if (urls === undefined) return undefined;
  const readings: string[] = [];
  for (const url of urls) {
    const host = normaliseHost(url.hostname);
    if (host === "" && url.protocol !== "file:" && SPECIAL_SCHEMES.has(url.protocol.slice(0, -1))) return undefined;
    for (const other of sameHosts ? (SAME_PLACE[host] ?? []) : []) readings.push(`${url.protocol}//${other}${url.port === "" ? "" : `:${url.port}`}${url.pathname}${withQuery ? url.search : ""}`);
    const origin = `${url.protocol}//${host}${url.port === "" ? "" : `:${url.port}`}`;
    const query = withQuery ? url.search : "";
    readings.push(`${origin}${url.pathname}${query}`);
    if (/%[0-9a-fA-F]{2}/.test(url.pathname)) {
      try {
        const decoded = new URL(decodeURIComponent(url.pathname), `${origin}/`).pathname;
        readings.push(`${origin}${decoded}${query}`);
      } catch {
        return undefined;
      }
    }
  }
  return readings;
}

/** A URL glob (`https://api.example.com/v1/**`); `*` does not cross `/`, `**` does. */
export function compileUrlPattern(pattern: string): (reading: string) => boolean {
  const readings = urlReadings(pattern.replace(/\*/g, "__STAR__"));
  if (readings === undefined || readings[0] === undefined) throw new TypeError(`url pattern ${JSON.stringify(pattern)} is not a URL`);
  const glob = readings[0].replace(/__star__|__STAR__/g, "*");
  const alternatives = glob.endsWith("/**") ? [glob, glob.slice(0, -3)] : [glob];
  const isMatch = picomatchLibrary()(alternatives, { dot: true, nocase: false });
  return (reading) => isMatch(reading);
}

export function judgeUrl(value: string, patterns: readonly ((reading: string) => boolean)[], restrictive: boolean): Verdict {
  const readings = urlReadings(value, false, restrictive);
  if (readings === undefined) return restrictive ? UNKNOWN : NO;
  if (restrictive) return readings.some((reading) => patterns.some((test) => test(reading))) ? YES : NO;
  return readings.every((reading) => patterns.some((test) => test(reading))) ? YES : NO;
}

const ADDRESS_RE = /<([^<>]*)>|([^\s,;<>"]+@[^\s,;<>"]+)|"[^"]*"@[^\s,;<>]+/g;

/** Every address in an email field, normalised to `local@domain` (local part lower-cased). */
export function emailAddresses(value: string): string[] | undefined {
  const found: string[] = [];
  for (const match of value.matchAll(ADDRESS_RE)) {
    const address = (match[1] ?? match[2] ?? match[0]).trim();
    const at = address.lastIndexOf("@");
    if (at <= 0) return undefined;
    const domain = normaliseDomain(address.slice(at + 1));
    if (domain === undefined) return undefined;
    found.push(`${address.slice(0, at).toLowerCase()}@${domain}`);
  }
  return found.length > 0 ? found : undefined;
}

/** `*@example.com`, `alice@example.com`, `*@*.example.com` (globs over `local@domain`). */
export function compileEmailPattern(pattern: string): (address: string) => boolean {
  const at = pattern.lastIndexOf("@");
  if (at < 0) throw new TypeError(`email pattern ${JSON.stringify(pattern)} has no @`);
  const local = pattern.slice(0, at).toLowerCase();
  const domainPattern = pattern.slice(at + 1);
  const domainTest = compileDomainPattern(domainPattern);
  const localTest = local === "*" ? () => true : picomatchLibrary()(local, { dot: true, nocase: true });
  return (address) => {
    const split = address.lastIndexOf("@");
    return localTest(address.slice(0, split)) && domainTest(address.slice(split + 1));
  };
}

export function judgeEmail(value: string, patterns: readonly ((address: string) => boolean)[], restrictive: boolean): Verdict {
  const addresses = emailAddresses(value);
  if (addresses === undefined) return restrictive ? UNKNOWN : NO;
  if (restrictive) return addresses.some((address) => patterns.some((test) => test(address))) ? YES : NO;
  return addresses.every((address) => patterns.some((test) => test(address))) ? YES : NO;
}
