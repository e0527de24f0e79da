import { domainToASCII } from "node:url";
import picomatch from "picomatch";
import { NO, UNKNOWN, YES, type Verdict } from "./verdict.js";

/**
 * `url`, `domain` and `email` matchers, normalised as their standards say:
 * - url (WHATWG URL Standard, as browsers and undici parse): scheme and host lower-cased, IDN
 *   hosts to punycode, IPv4 in any notation (`0x7f.1`) to dotted decimal, default ports dropped,
 *   `.`/`..` and backslashes in the path resolved, `user:pass@` ignored. Percent-encoded paths are
 *   also tried decoded. Matched as `scheme://host[:port]/path` (query and fragment left out).
 * - domain (RFC 1034/5890): lower case, IDNA to punycode, trailing dot removed. A URL or an
 *   email address in a domain field is read for its host.
 * - email (RFC 5321/5322): every address in the value (lists, `Name <addr>` forms), the domain part
 *   normalised as a domain, the local part compared case-insensitively.
 */

function normaliseDomain(input: string): string | undefined {
  let host = input.trim();
  if (host.includes("://") || host.includes("/") || host.includes("\\")) {
    // A URL, a protocol-relative URL (//host/x) or a scheme-less one (host/x): its host.
    const absolute = host.includes("://") ? host : host.startsWith("//") || host.startsWith("\\\\") ? `https:${host}` : `https://${host}`;
    try {
      host = new URL(absolute).hostname;
    } catch {
      return undefined;
    }
  } else if (host.includes("@")) host = host.slice(host.lastIndexOf("@") + 1);
  host = host.replace(/\.+$/, "");
  if (host === "") return undefined;
  const ascii = domainToASCII(host);
  if (ascii === "") return undefined;
  return ascii.toLowerCase();
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
    const isMatch = picomatch(trimmed, { dot: true, nocase: true });
    return (domain) => isMatch(domain);
  }
  const exact = normaliseDomain(trimmed);
  if (exact === undefined) throw new TypeError(`domain pattern ${JSON.stringify(pattern)} is not a domain`);
  return (domain) => domain === exact;
}

export function judgeDomain(value: string, patterns: readonly ((domain: string) => boolean)[], restrictive: boolean): Verdict {
  const domain = normaliseDomain(value);
  if (domain === undefined) return restrictive ? UNKNOWN : NO;
  return patterns.some((test) => test(domain)) ? YES : NO;
}

/** Readings of a URL: `scheme://host[:port]/path`, with the path also percent-decoded. */
function urlReadings(value: string): string[] | undefined {
  const text = value.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    try {
      url = new URL(`https://${text}`); // a scheme-less URL, as many HTTP tools accept
    } catch {
      return undefined;
    }
  }
  const host = url.hostname.replace(/\.+$/, "");
  const origin = `${url.protocol}//${host}${url.port === "" ? "" : `:${url.port}`}`;
  const readings = [`${origin}${url.pathname}`];
  if (/%[0-9a-fA-F]{2}/.test(url.pathname)) {
    try {
      const decoded = new URL(decodeURIComponent(url.pathname), `${origin}/`).pathname;
      readings.push(`${origin}${decoded}`);
    } catch {
      return undefined;
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
  const isMatch = picomatch(alternatives, { dot: true, nocase: false });
  return (reading) => isMatch(reading);
}

export function judgeUrl(value: string, patterns: readonly ((reading: string) => boolean)[], restrictive: boolean): Verdict {
  const readings = urlReadings(value);
  if (readings === undefined) return restrictive ? UNKNOWN : NO;
  if (restrictive) return readings.some((reading) => patterns.some((test) => test(reading))) ? YES : NO;
  return readings.every((reading) => patterns.some((test) => test(reading))) ? YES : NO;
}

const ADDRESS_RE = /<([^<>]*)>|([^\s,;<>"]+@[^\s,;<>"]+)|"[^"]*"@[^\s,;<>]+/g;

/** Every address in an email field, normalised to `local@domain` (local part lower-cased). */
function emailAddresses(value: string): string[] | undefined {
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
  const localTest = local === "*" ? () => true : picomatch(local, { dot: true, nocase: true });
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
