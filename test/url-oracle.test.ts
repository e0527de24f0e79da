/**
 * URL, domain and host readings against the WHATWG URL parser (what undici, Node's fetch, connects
 * to) with IP literals normalised as the network stack reaches them. Generated URL-ish values: IPv4
 * in every notation (decimal, octal, hex, short forms), IPv6 literals that reach an IPv4 address
 * (IPv4-mapped short and long, IPv4-compatible, SIIT, NAT64), userinfo tricks, scheme-less values,
 * ports, IDN and fullwidth hosts, trailing dots, backslashes, percent-encoded hosts.
 *
 * The judge: `new URL(value)` when it has a special scheme; a value without one is read as a
 * client that adds one would (`http://` and `https://` + value). The host is the URL's hostname; an
 * IPv6 literal embedding an IPv4 address counts as that address.
 * - A deny on a host or IP is never bypassed: a value whose host reaches it is never allowed.
 * - An allow never holds for a value that reaches another host, scheme or port.
 */
import fc from "fast-check";
import { isIPv4, isIPv6 } from "node:net";
import { describe, expect, it } from "vitest";
import { PermissionPolicy } from "../src/policy/index.js";
import { ORACLE_SEED, oracleCases } from "./helpers/oracle.js";

const SPECIAL = new Set(["http:", "https:", "ws:", "wss:", "ftp:", "file:"]);

/** IPv6 text → 16 bytes (independent of the guard's parser: BigInt arithmetic). */
function v6Bytes(address: string): number[] | undefined {
  if (!isIPv6(address)) return undefined;
  let text = address;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4 !== null) {
    const n = v4[1]!.split(".").map(Number);
    text = text.slice(0, v4.index) + `${((n[0]! * 256 + n[1]!)).toString(16)}:${((n[2]! * 256 + n[3]!)).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const h = head === "" ? [] : head.split(":");
  const t = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill("0"), ...t];
  let value = 0n;
  for (const g of groups) value = (value << 16n) | BigInt(parseInt(g, 16));
  return Array.from({ length: 16 }, (_, i) => Number((value >> BigInt(8 * (15 - i))) & 0xffn));
}

/** The address a host reaches: IPv4 dotted for an IPv4 literal or an IPv6 literal embedding one. */
function reached(hostname: string): string {
  const host = hostname.replace(/\.+$/, "");
  if (isIPv4(host)) return host;
  const bytes = v6Bytes(host.replace(/^\[|\]$/g, ""));
  if (bytes === undefined) return host;
  const zero = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  const last = bytes.slice(12).join(".");
  const mapped = zero(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff;
  const siit = zero(0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zero(10, 12);
  const compatible = zero(0, 12) && !zero(12, 15);
  const nat64 = bytes[0] === 0 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zero(4, 12);
  return mapped || siit || compatible || nat64 ? last : host;
}

interface Connection {
  protocol: string;
  host: string;
  port: string;
}

/** Where clients connect for the value; empty when none can. */
function connections(value: string): Connection[] {
  const out: Connection[] = [];
  const add = (text: string) => {
    try {
      const url = new URL(text);
      if (SPECIAL.has(url.protocol) && url.hostname !== "") out.push({ protocol: url.protocol, host: reached(url.hostname), port: url.port });
      return SPECIAL.has(url.protocol);
    } catch {
      return false;
    }
  };
  const trimmed = value.trim();
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(trimmed) && add(trimmed)) return out;
  add(`http://${trimmed}`);
  add(`https://${trimmed}`);
  return out;
}

const METADATA = [169, 254, 169, 254] as const;
const hex = (n: number) => `0x${n.toString(16)}`;
const oct = (n: number) => `0${n.toString(8)}`;

/** Every IPv4 notation of a.b.c.d. */
function v4Spellings([a, b, c, d]: readonly number[]): string[] {
  const n = ((a! << 24) >>> 0) + (b! << 16) + (c! << 8) + d!;
  return [
    `${a}.${b}.${c}.${d}`,
    String(n),
    hex(n),
    `0x${n.toString(16).toUpperCase()}`,
    oct(n),
    [a, b, c, d].map((x) => oct(x!)).join("."),
    [a, b, c, d].map((x) => hex(x!)).join("."),
    `${a}.${b}.${(c! << 8) + d!}`,
    `${a}.${(b! << 16) + (c! << 8) + d!}`,
    `${hex(a!)}.${b}.${oct(c!)}.${d}`,
    `${a}.${b}.${c}.${d}.`,
  ];
}

/** IPv6 literals that reach a.b.c.d. */
function v6Spellings([a, b, c, d]: readonly number[]): string[] {
  const h1 = ((a! << 8) + b!).toString(16);
  const h2 = ((c! << 8) + d!).toString(16);
  const dotted = `${a}.${b}.${c}.${d}`;
  return [
    `[::ffff:${dotted}]`,
    `[::ffff:${h1}:${h2}]`,
    `[0:0:0:0:0:ffff:${h1}:${h2}]`,
    `[0000:0000:0000:0000:0000:FFFF:${h1.toUpperCase()}:${h2.toUpperCase()}]`,
    `[::${h1}:${h2}]`,
    `[::${dotted}]`,
    `[64:ff9b::${dotted}]`,
    `[64:ff9b::${h1}:${h2}]`,
    `[::ffff:0:${dotted}]`,
  ];
}

const octet = fc.integer({ min: 0, max: 255 });
const ipv4 = fc.oneof(fc.constant(METADATA as readonly number[]), fc.constant([127, 0, 0, 1]), fc.tuple(octet, octet, octet, octet));
const NAMES = ["evil.com", "EVIL.com.", "evil.com..", "example.com", "api.example.com", "API.Example.COM.", "api.example.com.evil.com", "ｅｖｉｌ.com", "bücher.de", "xn--bcher-kva.de", "sub.example.com", "localhost", "%65vil.com", "api%2eexample.com"];
const host = fc.oneof(
  ipv4.chain((ip) => fc.constantFrom(...v4Spellings(ip), ...v6Spellings(ip))),
  fc.constantFrom(...NAMES),
);
const SCHEMES = ["http://", "https://", "HTTP://", "", "", "//", "\\\\", "http:\\\\", "http:", "https:/", "https:\\/", "ws://", " https://"];
const USERINFO = ["", "", "", "user@", "example.com@", "api.example.com@", "api.example.com:443@", "a:b@", "169.254.169.254@", "x%40y@"];
const PORTS = ["", "", "", ":80", ":443", ":8080", ":0443", ":"];
const TAILS = ["", "/", "/admin", "/v1/x", "?@example.com", "#@example.com", "/..//x", "\\@api.example.com", "/%2e%2e/", "@example.com", "?x=1"];

const urlValue = fc
  .tuple(fc.constantFrom(...SCHEMES), fc.constantFrom(...USERINFO), host, fc.constantFrom(...PORTS), fc.constantFrom(...TAILS))
  .map(([scheme, userinfo, h, port, tail]) => `${scheme}${userinfo}${h}${port}${tail}`);

const metadata = METADATA.join(".");
const DENIES = [
  { name: "host equals (domain kind)", field: "host", where: { host: { equals: metadata } } },
  { name: "url regex (url kind)", field: "url", where: { url: { regex: "^[a-z]+://169\\.254\\.169\\.254[:/]" } } },
  { name: "url domain matcher", field: "url", where: { url: { domain: metadata } } },
  { name: "endpoint prefix (url kind)", field: "endpoint", where: { endpoint: { prefix: "http://169.254.169.254" } }, httpOnly: true },
];
const ALLOWS = [
  { name: "url prefix https://api.example.com/", field: "url", where: { url: { prefix: "https://api.example.com/" } }, ok: (c: Connection) => c.protocol === "https:" && c.host === "api.example.com" && c.port === "" },
  { name: "url glob", field: "url", where: { url: { glob: "https://api.example.com/**" } }, ok: (c: Connection) => c.protocol === "https:" && c.host === "api.example.com" && c.port === "" },
  { name: "host equals api.example.com", field: "host", where: { host: { equals: "api.example.com" } }, ok: (c: Connection) => c.host === "api.example.com" },
  { name: "host in", field: "hostname", where: { hostname: { in: ["api.example.com", "bücher.de"] } }, ok: (c: Connection) => c.host === "api.example.com" || c.host === "xn--bcher-kva.de" },
  { name: "url matcher", field: "url", where: { url: { url: "https://api.example.com/v1/**" } }, ok: (c: Connection) => c.protocol === "https:" && c.host === "api.example.com" && c.port === "" },
  { name: "domain matcher", field: "url", where: { url: { domain: ".example.com" } }, ok: (c: Connection) => c.host === "example.com" || c.host.endsWith(".example.com") },
];

const denyPolicies = DENIES.map((rule) => ({ ...rule, policy: new PermissionPolicy([{ tool: "fetch", where: rule.where as never, mode: "deny" }, { tool: "fetch", mode: "allow" }]) }));
const allowPolicies = ALLOWS.map((rule) => ({ ...rule, policy: new PermissionPolicy([{ tool: "fetch", where: rule.where as never, mode: "allow" }], { defaultRisk: "high" }) }));

describe("URL, domain and host readings against the WHATWG parser and the address reached", () => {
  const cases = oracleCases();

  it(`a deny on an IP is never bypassed (${cases} generated values × ${denyPolicies.length} rules)`, () => {
    const counts = { cases: 0, reaching: 0, allowed: 0, denied: 0, asked: 0 };
    const started = Date.now();
    fc.assert(
      fc.property(urlValue, (value) => {
        counts.cases++;
        const reach = connections(value);
        for (const { name, field, policy, httpOnly } of denyPolicies) {
          const decision = policy.decide("fetch", { [field]: value }).mode;
          counts[decision === "allow" ? "allowed" : decision === "deny" ? "denied" : "asked"]++;
          const hits = reach.some((c) => c.host === metadata && (httpOnly !== true || (c.protocol === "http:" && c.port === "")));
          if (hits) counts.reaching++;
          if (hits && decision === "allow") throw new Error(`${name}: ${JSON.stringify(value)} allowed, but it connects to ${JSON.stringify(reach)}`);
        }
      }),
      { numRuns: cases, seed: ORACLE_SEED + 2, endOnFailure: true },
    );
    console.log(`url oracle (deny): ${counts.cases} values × ${denyPolicies.length} rules in ${Date.now() - started} ms; reaching the denied address ${counts.reaching}; decisions allow ${counts.allowed}, deny ${counts.denied}, ask ${counts.asked}`);
    expect(counts.reaching).toBeGreaterThan(cases / 20);
  }, 600_000);

  it(`an allow never holds for another host, scheme or port (${cases} generated values × ${allowPolicies.length} rules)`, () => {
    const counts = { cases: 0, allowed: 0, notAllowed: 0 };
    const started = Date.now();
    fc.assert(
      fc.property(urlValue, (value) => {
        counts.cases++;
        const reach = connections(value);
        for (const { name, field, policy, ok } of allowPolicies) {
          const decision = policy.decide("fetch", { [field]: value }).mode;
          if (decision === "allow") counts.allowed++;
          else counts.notAllowed++;
          if (decision === "allow" && (reach.length === 0 || !reach.every(ok))) throw new Error(`${name}: ${JSON.stringify(value)} allowed, but it connects to ${JSON.stringify(reach)}`);
        }
      }),
      { numRuns: cases, seed: ORACLE_SEED + 3, endOnFailure: true },
    );
    console.log(`url oracle (allow): ${counts.cases} values × ${allowPolicies.length} rules in ${Date.now() - started} ms; decisions allow ${counts.allowed}, not allowed ${counts.notAllowed}`);
    expect(counts.allowed).toBeGreaterThan(0);
  }, 600_000);

  it("the named spellings: every way to reach 169.254.169.254 is denied, the domain reader and the URL matcher read scheme-less values alike", () => {
    const deny = denyPolicies[0]!.policy;
    const urlDeny = denyPolicies[1]!.policy;
    for (const value of ["http://[::ffff:169.254.169.254]/", "http://[::ffff:a9fe:a9fe]/", "http://[0:0:0:0:0:ffff:a9fe:a9fe]/", "http://[::a9fe:a9fe]/", "http://[64:ff9b::a9fe:a9fe]/", "http://2852039166/", "http://0251.0376.0251.0376/", "http://0xa9fea9fe/", "http://169.254.43518/", "169.254.169.254:80/latest", "//169.254.169.254/", "\\\\169.254.169.254", "user@169.254.169.254", "example.com@169.254.169.254"]) {
      expect(deny.decide("fetch", { host: value }).mode, value).not.toBe("allow");
      expect(urlDeny.decide("fetch", { url: value }).mode, value).not.toBe("allow");
    }
    const onlyApi = allowPolicies[2]!.policy;
    const prefix = allowPolicies[0]!.policy;
    for (const value of ["evil.com?@api.example.com", "evil.com#@api.example.com", "api.example.com@evil.com", "api.example.com.evil.com"]) {
      expect(onlyApi.decide("fetch", { host: value }).mode, value).not.toBe("allow");
      expect(prefix.decide("fetch", { url: value }).mode, value).not.toBe("allow");
    }
    expect(onlyApi.decide("fetch", { host: "api.example.com:443/admin" }).mode).toBe("allow");
    expect(prefix.decide("fetch", { url: "https://API.example.com./v1" }).mode).toBe("allow");
    expect(prefix.decide("fetch", { url: "https://api.example.com/v1" }).mode).toBe("allow");
  });
});
