import { readFileSync } from "node:fs";
import { isIPv4, isIPv6, thisHost } from "../../deps/builtins.js";
import { picomatchLibrary } from "../../deps/on-demand.js";
import { NO, UNKNOWN, YES, type Verdict } from "./verdict.js";

/**
 * `url`, `domain` and `email` readings, normalised as their standards say:
 * - url (WHATWG URL Standard, as browsers and undici parse): scheme and host lower-cased, IDN
 *   hosts to punycode, IPv4 in any notation (`0x7f.1`, `2130706433`, `0177.0.0.1`) to dotted
 *   decimal, an IPv6 literal that reaches an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`,
 *   IPv4-compatible `::a.b.c.d`, SIIT `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`) to that IPv4
 *   address, trailing dots dropped (all of them, the host read again: `0x7f.1..` is 127.0.0.1, as lynx
 *   reads it), default ports dropped, `.`/`..` and backslashes in the path
 *   resolved, `user:pass@` ignored. Percent-encoded paths are also tried decoded. A backslash in the
 *   authority is also read as RFC 3986 parsers (curl, urllib, Go) read it: part of the user name
 *   (`http://a.com\@10.0.0.1/` is host 10.0.0.1 there). ASCII tabs and newlines are removed and
 *   leading and trailing C0 controls stripped first, as WHATWG does (`ht\ttp://`). A path's
 *   `;parameters` are also dropped per segment, as servlet containers do (`/public/..;/admin` is
 *   `/admin`). A deny also reads the hosts that reach the same place (this machine: 127.0.0.1,
 *   [::1], localhost, 0.0.0.0 and [::] as one place, any 127.0.0.0/8 address, `*.localhost`, its
 *   host name, its interfaces' addresses and `host.docker.internal`-style names in it; a name of its
 *   hosts file as the addresses it maps to; the cloud metadata service under each of its names; public names that resolve to
 *   loopback (`localh.st`, `spoofed.burpcollaborator.net`) or spell an address anywhere in them
 *   (`127.0.0.1.nip.io`, `s-1.2.3.4-127.0.0.1-1-fs-e.d.rebind.it`, `ip-10-0-0-5.eu-west-1.compute.internal`), rebinding names as 1u.ms reads them, such as
 *   `make-1.1.1.1-rebind-169.254-169.254-rr.1u.ms` and `make-ip-127o0o0o1-rr.1u.ms`),
 *   IPv6 transition addresses as the IPv4 address they carry (6to4, Teredo, local-use NAT64), an
 *   IPv6 literal with a zone id without the zone, and a `file:` URL as localhost. The opaque host of
 *   a scheme WHATWG does not know (`gopher://0x7f.1/`) is read as a special scheme's host, as curl
 *   resolves it. Matched as `scheme://host[:port]/path` (query and fragment left out).
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
 * The value as the WHATWG URL parser sees it before parsing: leading and trailing C0 controls and
 * spaces stripped, every ASCII tab and newline removed (`ht\ttp://exa\nmple.com/` is
 * `http://example.com/` to undici and browsers).
 */
function whatwgText(value: string): string {
  if (!/[\u0000-\u0020]/.test(value)) return value;
  return value.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, "").replace(/[\t\n\r]/g, "").trim();
}

/**
 * An IPv6 literal with a zone id (`[fe80::1%25eth0]`, RFC 6874): WHATWG refuses it, curl and
 * Python connect to the address on that interface. The value with the zone left out, or undefined.
 */
function withoutZone(text: string): string | undefined {
  const out = text.replace(/(\[[0-9a-fA-F:.]+)%[^\]/?#]*\]/, "$1]");
  return out === text ? undefined : out;
}

/**
 * The one parse of a URL-ish value, shared by the url, domain and string readings: a value with a
 * special scheme (`http:`, `https:`, ...) or with `scheme://` is parsed as it is; any other value
 * (`api.example.com:443/x`, `localhost:8080`, `//evil.com`, `user@host`) as `https://` + value and
 * as `http://` + value (clients differ in the scheme they assume; the host is the same). With
 * `restrictive` (a deny or ask), an IPv6 zone id is also read without the zone (a guess: `doubtful`).
 * Undefined when a reading cannot be parsed.
 */
function parseUrlValues(value: string, restrictive = false): { urls: URL[]; doubtful: boolean } | undefined {
  const text = whatwgText(value);
  if (text === "") return undefined;
  const scheme = SCHEME_RE.exec(text)?.[1]?.toLowerCase();
  const schemed = scheme !== undefined && (SPECIAL_SCHEMES.has(scheme) || text.slice(scheme.length + 1).startsWith("//"));
  const spellings = schemed ? [text] : [`https://${text}`, `http://${text}`];
  let urls: URL[];
  try {
    urls = spellings.map((spelled) => new URL(spelled));
  } catch {
    const zoneless = restrictive ? withoutZone(text) : undefined;
    const read = zoneless === undefined ? undefined : parseUrlValues(zoneless, false);
    return read === undefined ? undefined : { urls: read.urls, doubtful: true };
  }
  let doubtful = false;
  for (const spelled of spellings) {
    const other = rfc3986Url(spelled);
    // An RFC 3986 host the guard cannot parse, or reads only without its zone id: a guess.
    if (other === null || other?.zoned === true) doubtful = true;
    if (other != null && other.url.host !== urls[0]?.host) urls.push(other.url);
  }
  return { urls, doubtful };
}

/**
 * The readings of a URL or host value, and whether one of them is a guess (`doubtful`: a deny or
 * ask none of them matches cannot tell; an allow never holds).
 */
export interface NetReadings {
  readonly texts: string[];
  readonly doubtful: boolean;
  /**
   * The readings of URLs the value's query carries (`?next=http://127.0.0.1/`), where the server may redirect the
   * client: a deny or ask one of them matches cannot tell (the call asks); an allow does not read them.
   */
  readonly carried?: string[];
}

/**
 * Public services that answer every request with a redirect to the URL a query parameter names: httpbin's and
 * httpbingo's `/redirect-to?url=URL`, Postman Echo's `/redirect-to?url=URL`, r3dir's `/--to/?url=URL` (any
 * subdomain of r3dir.me, its status code as the first label). A URL to one of them is read as that URL too.
 */
const REDIRECTORS: readonly { readonly host: RegExp; readonly path: RegExp; readonly param: string }[] = [
  { host: /^(?:www\.)?(?:httpbin\.org|httpbingo\.org|postman-echo\.com)$/, path: /^\/redirect-to\/?$/, param: "url" },
  { host: /(?:^|\.)r3dir\.me$/, path: /^\/--to\/?$/, param: "url" },
];

/** Most URLs read from one value's query. */
const MAX_CARRIED = 8;

/** The URLs a URL's query carries: `sure`, those a redirect service always sends the client to; `maybe`, any other absolute URL in a parameter. */
function carriedUrls(url: URL): { sure: string[]; maybe: string[] } {
  const sure: string[] = [];
  const maybe: string[] = [];
  if (url.search === "") return { sure, maybe };
  const host = url.hostname.replace(/\.+$/, "");
  const redirector = REDIRECTORS.find((one) => one.host.test(host) && one.path.test(url.pathname));
  for (const [name, value] of url.searchParams) {
    if (sure.length + maybe.length >= MAX_CARRIED) break;
    if (!/^\s*(?:[a-z][a-z0-9+.-]*:)?\/\//i.test(value)) continue;
    (redirector !== undefined && name === redirector.param ? sure : maybe).push(value.trim());
  }
  return { sure, maybe };
}

/**
 * The URL as an RFC 3986 parser reads it (curl, Python's urllib, Go's net/url), where that differs
 * from the WHATWG reading: a backslash in the authority is no separator there, so
 * `http://evil.com\@169.254.169.254/` is user `evil.com\` at host 169.254.169.254 (WHATWG: host
 * evil.com, path `/@169.254.169.254/`). Undefined when there is no backslash in the authority,
 * null when the other host cannot be read (a reading the guard cannot make: a guess); an IPv6 zone
 * id is left out as curl connects through it (`zoned`).
 */
function rfc3986Url(text: string): { url: URL; zoned: boolean } | null | undefined {
  const match = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/?#]*)(.*)$/s.exec(text);
  if (match === null || !match[2]!.includes("\\")) return undefined;
  const authority = match[2]!;
  const hostPort = authority.slice(authority.lastIndexOf("@") + 1);
  if (hostPort.includes("\\")) return undefined;
  const rest = match[3]!.replace(/^(?=[^/])/, "/");
  for (const [host, zoned] of [[hostPort, false], [withoutZone(hostPort), true]] as const) {
    if (host === undefined) continue;
    try {
      return { url: new URL(`${match[1]!}://${host}${rest}`), zoned };
    } catch {
      // an IPv6 zone id (`[::1%25lo]`), which curl connects through: tried without it next
    }
  }
  return null;
}

/**
 * This machine, under every name and address that reaches it (a deny on one also holds for the
 * others; an allow never reads them): 127.0.0.1 and [::1] (a server listening on the unspecified
 * address, as Node's `server.listen(port)` and most development servers do, answers on both),
 * localhost (RFC 6761, /etc/hosts: 127.0.0.1 and [::1]), 0.0.0.0 and [::] (Linux connects them to
 * 127.0.0.1 and [::1]).
 */
const LOOPBACK_PLACE: readonly string[] = ["127.0.0.1", "[::1]", "localhost", "0.0.0.0", "[::]"];

/**
 * The cloud instance metadata service, one place under every name and address it has (a deny on
 * one holds for all): 169.254.169.254 (AWS, Google Cloud, Azure, Oracle, DigitalOcean, OpenStack,
 * Hetzner), [fd00:ec2::254] (AWS over IPv6), metadata.google.internal and metadata (Google Cloud),
 * instance-data (AWS), 169.254.170.2 (AWS ECS task credentials), 169.254.170.23 and [fd00:ec2::23]
 * (AWS EKS Pod Identity), 100.100.100.200 (Alibaba Cloud), 192.0.0.192 (Oracle Cloud, legacy),
 * 169.254.0.23 and metadata.tencentyun.com (Tencent Cloud), metadata.goog and [fd20:ce::254]
 * (Google Cloud, its other name and its IPv6 address), 169.254.42.42 and [fd00:42::42] (Scaleway),
 * metadata.azure.com (Azure, as SSRF block lists name it), metadata.packet.net (Equinix Metal,
 * formerly Packet) and rancher-metadata (Rancher's metadata service), as PayloadsAllTheThings'
 * 'SSRF URL for Cloud Instances' lists them.
 */
const METADATA_SERVICE: readonly string[] = [
  "169.254.169.254",
  "[fd00:ec2::254]",
  "metadata.google.internal",
  "metadata",
  "instance-data",
  "instance-data.ec2.internal",
  "169.254.170.2",
  "169.254.170.23",
  "[fd00:ec2::23]",
  "100.100.100.200",
  "192.0.0.192",
  "169.254.0.23",
  "metadata.tencentyun.com",
  "metadata.goog",
  "[fd20:ce::254]",
  "169.254.42.42",
  "[fd00:42::42]",
  "metadata.azure.com",
  "metadata.packet.net",
  "rancher-metadata",
];

/**
 * Public DNS names that always resolve to the loopback address (set up for local development and
 * listed in SSRF cheat sheets): the name and every subdomain.
 */
const LOOPBACK_NAMES: readonly string[] = ["localtest.me", "lvh.me", "vcap.me", "lacolhost.com", "localh.st"];

/**
 * Names a public service answers with the loopback address by their form: Burp Collaborator's
 * `spoofed.` names (`spoofed.burpcollaborator.net`, `spoofed.<id>.oastify.com`), which PortSwigger
 * documents for exactly this test.
 */
const LOOPBACK_NAME_RE = /^spoofed\.(?:[a-z0-9-]+\.)*(?:burpcollaborator\.net|oastify\.com)$/;

/** Loopback names in the default /etc/hosts of Red Hat (`localhost.localdomain`, `localhost4`, `localhost6`) and Debian (`ip6-localhost`, `ip6-loopback`). */
const HOSTS_FILE_LOOPBACK: readonly string[] = ["localhost.localdomain", "localhost4", "localhost4.localdomain4", "localhost6", "localhost6.localdomain6", "ip6-localhost", "ip6-loopback"];

/**
 * The names a container runtime gives the machine that runs the container (Docker Desktop's
 * `host.docker.internal` and `gateway.docker.internal`, Podman's `host.containers.internal`, Lima's
 * `host.lima.internal`, Rancher Desktop's `host.rancher-desktop.internal`): inside a container they
 * reach the developer's machine and what it serves, as localhost does outside.
 */
const CONTAINER_HOST_NAMES: readonly string[] = ["host.docker.internal", "gateway.docker.internal", "docker.for.mac.localhost", "docker.for.win.localhost", "host.containers.internal", "host.lima.internal", "host.rancher-desktop.internal"];

/** One IPv4 address's four parts (0-255), separated by a dot or a dash (`127.0.0.1`, `169-254-169-254`). */
const OCTET = "(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)";
const SPELLED_IPV4_RE = new RegExp(`${OCTET}([.-])${OCTET}\\1${OCTET}\\1${OCTET}`, "g");

/** An IPv4 address spelled in a name with dots or dashes, each match starting after `.`, `-` or the name's start and ending before one of them or its end (overlapping matches all found). */
const SPELLED_IN_NAME_RE = new RegExp(`(?<=^|[.-])(?=(${OCTET}([.-])${OCTET}\\2${OCTET}\\2${OCTET})(?:[.-]|$))`, "g");

/** `7f000001` as `127.0.0.1`. */
const hexIPv4 = (hex: string) => [0, 2, 4, 6].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(".");

/**
 * The addresses a wildcard DNS name spells, which its service resolves it to:
 * - `127.0.0.1.nip.io`, `app.169-254-169-254.sslip.io`, `a9fea9fe.nip.io` (nip.io, sslip.io,
 *   xip.io, traefik.me and the like: the address before the domain);
 * - `make-127-0-0-1-rr.1u.ms`, `make-1.1.1.1-rebind-169.254-169.254-rr.1u.ms` (1u.ms: every address
 *   named, the second one of a rebinding pair answered after the first; see `oneUmsAnswers`);
 * - `7f000001.a9fea9fe.rbndr.us` (rbndr.us: two addresses in hex, answered by turns);
 * - `--1.sslip.io`, `fd00-ec2--254.sslip.io` (sslip.io: an IPv6 address, `-` for `:`), as `[::1]`.
 */
function spelledAddresses(host: string): string[] {
  const out: string[] = [];
  const service = /(?:^|\.)(1u\.ms|rbndr\.us|sslip\.io)$/.exec(host)?.[1];
  const name = service === undefined ? host : host.slice(0, -service.length - 1);
  if (service === "1u.ms") {
    for (const match of name.matchAll(SPELLED_IPV4_RE)) out.push(match[0].replace(/-/g, "."));
    // A name 1u.ms answers with a CNAME is read as itself and, once, as the address it spells (`cname-127.0.0.1.nip.io`).
    for (const answer of oneUmsAnswers(host)) out.push(answer, ...(/^[\d[]/.test(answer) || answer.endsWith("1u.ms") ? [] : spelledAddresses(answer)));
  }
  if (service === "rbndr.us") for (const label of name.split(".")) if (/^[0-9a-f]{8}$/.test(label)) out.push(hexIPv4(label));
  if (service === "sslip.io") {
    for (const label of name.split(".")) {
      if (!label.includes("-") || !isIPv6(label.replace(/-/g, ":"))) continue;
      try {
        out.push(new URL(`http://[${label.replace(/-/g, ":")}]/`).hostname);
      } catch {
        // not an address after all
      }
    }
  }
  // An address spelled anywhere in the name, with dots or with dashes, between `.`, `-` and the name's ends: the
  // services that answer with it put it before their domain (`app.127.0.0.1.nip.io`, `169-254-169-254.sslip.io`),
  // among other labels (whonow: `A.1.2.3.4.1time.127.0.0.1.forever.<uuid>.rebind.network`), inside one label
  // (Singularity: `s-1.2.3.4-127.0.0.1-123-fs-e.d.rebind.it`), or a cloud's resolver answers its private names with
  // it (AWS: `ip-10-0-0-5.eu-west-1.compute.internal`).
  for (const match of host.matchAll(SPELLED_IN_NAME_RE)) out.push(match[1]!.replace(/-/g, "."));
  const hex = /(?:^|[.-])([0-9a-f]{8})\.(?:nip|sslip|xip)\.io$/.exec(host);
  if (hex !== null) out.push(hexIPv4(hex[1]!));
  // nip.io (exentriquesolutions/nip.io backend.py): the last four parts of the name, split at `.`
  // and `-` alike, are the address (`127-0.0.1.nip.io`, `app-169.254-169.254.nip.io`).
  const nip = /^(.*)\.(?:nip|xip)\.io$/.exec(host)?.[1]?.split(/[.-]/).slice(-4);
  if (nip?.length === 4 && nip.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255)) out.push(nip.map(Number).join("."));
  return out;
}

/**
 * What 1u.ms answers for a name, as its server reads it (neex/1u.ms, processors.go): the text
 * between the last `make-` and the next `rr` or `rebind` (the first answers), and between the last
 * `rebind-` and the next `rr` (the answers after it), each `-and-`-separated part an address with
 * `-` for `.` or `:` (`169.254-169.254`, `--1`), `ip-` with `o` for `.` and `c` for `:`
 * (`ip-127o0o0o1`), `v6-` before an IPv6 address, `hex-` before the record's text in hex
 * (`hex-3132372e302e302e31`), `cname-` before a name (also any part that is no address); an
 * address as `a.b.c.d` or `[v6]`, a name as written.
 */
function oneUmsAnswers(host: string): string[] {
  const out: string[] = [];
  const parts = [/^.*make-(.*?)(?:rr|rebind)/.exec(host)?.[1], /^.*rebind-(.*?)rr/.exec(host)?.[1]];
  for (const part of parts.flatMap((text) => (text === undefined ? [] : text.split("-and-")))) {
    let text = part.replace(/-$/, "");
    if (text.startsWith("cname-")) {
      out.push(text.slice("cname-".length).replace(/\.$/, ""));
      continue;
    }
    if (text.startsWith("ip-")) text = text.slice(3).replace(/o/g, ".").replace(/c/g, ":");
    else if (isIPv4(text.replace(/-/g, ".")) || isIPv6(text.replace(/-/g, "."))) text = text.replace(/-/g, ".");
    else if (isIPv4(text.replace(/-/g, ":")) || isIPv6(text.replace(/-/g, ":"))) text = text.replace(/-/g, ":");
    if (text.startsWith("v6-")) text = text.slice(3);
    if (text.startsWith("hex-") && /^(?:[0-9a-f]{2})+$/.test(text.slice(4))) text = text.slice(4).replace(/../g, (pair) => String.fromCharCode(parseInt(pair, 16)));
    if (isIPv4(text)) out.push(text);
    else if (isIPv6(text)) out.push(`[${text}]`);
    else if (text.includes(".")) out.push(text.replace(/\.$/, ""));
  }
  return out;
}

/** How long what this machine says about itself (hosts file, host name, addresses) is kept before it is read again. */
const MACHINE_TTL_MS = 5000;

/**
 * This machine as its resolver and network know it: the names of its hosts file (/etc/hosts) with
 * the addresses getaddrinfo answers for them (`127.0.0.1 vm`, `10.0.0.5 db`), its host name (glibc
 * reads it from the hosts file, nss-myhostname answers every local address for it), and the
 * addresses of its interfaces (a server listening on all addresses answers on each). Re-read every
 * `MACHINE_TTL_MS`; the readings made from an older one are dropped when it changed.
 */
interface Machine {
  readonly key: string;
  readonly names: ReadonlyMap<string, readonly string[]>;
  readonly hostName: string;
  readonly addresses: ReadonlySet<string>;
}
let machine: Machine | undefined;
/** `machine` was read less than MACHINE_TTL_MS ago (a timer turns it false). */
let machineFresh = false;
/** Changes whenever what this machine says about itself changes (`thisMachine`): see `machineReading`. */
let machineEpoch = 0;

/**
 * This machine's names and addresses as a number that changes when they change (read again once
 * older than MACHINE_TTL_MS). A verdict that may have read them — a value's readings, a field's kept
 * verdicts, a decision kept per arguments — is kept only while this number stays the same: whoever
 * keeps such verdicts asks before using them and drops them when it changed.
 */
export function machineReading(): number {
  thisMachine();
  return machineEpoch;
}

/**
 * Readings by text that may have read this machine's names (a URL's places, a fetcher's in a shell
 * line), bounded: emptied when it holds `limit` entries, and when the machine's names changed since
 * they were kept (as the last reading left them: the decision that asked `machineReading` re-read them).
 */
export class MachineBoundReadings<V> {
  private readonly kept = new Map<string, V>();
  private machine = machineEpoch;

  constructor(private readonly limit: number) {}

  get(key: string): V | undefined {
    if (this.machine !== machineEpoch) {
      this.kept.clear();
      this.machine = machineEpoch;
    }
    return this.kept.get(key);
  }

  set(key: string, value: V): void {
    if (this.kept.size >= this.limit) this.kept.clear();
    this.kept.set(key, value);
  }
}

/** An address as the URL parser writes a host (`::1` as `[::1]`), undefined when it is none. */
function addressHost(address: string): string | undefined {
  const bare = address.replace(/%.*$/, "");
  if (isIPv4(bare)) return bare;
  if (!isIPv6(bare)) return undefined;
  try {
    return new URL(`http://[${bare}]/`).hostname;
  } catch {
    return undefined;
  }
}

function thisMachine(): Machine {
  // Fresh until a timer says MACHINE_TTL_MS passed (no clock read per call: a decision asks every time).
  if (machine !== undefined && machineFresh) return machine;
  machineFresh = true;
  const timer = setTimeout(() => {
    machineFresh = false;
  }, MACHINE_TTL_MS);
  timer.unref?.();
  let text = "";
  try {
    text = readFileSync("/etc/hosts", "utf8");
  } catch {
    // no hosts file: names are the resolver's alone
  }
  const host = thisHost();
  const key = `${text}\u0000${host.name}\u0000${host.addresses.join(",")}`;
  if (machine?.key === key) return machine;
  const names = new Map<string, string[]>();
  for (const line of text.split("\n")) {
    const [address, ...aliases] = line.replace(/#.*/, "").trim().split(/\s+/);
    const spelled = address === undefined ? undefined : addressHost(address);
    if (spelled === undefined) continue;
    for (const alias of aliases) {
      const name = alias.toLowerCase().replace(/\.+$/, "");
      names.set(name, [...(names.get(name) ?? []), spelled]);
    }
  }
  const addresses = new Set(host.addresses.map(addressHost).filter((address): address is string => address !== undefined));
  samePlaceCache.clear();
  machineEpoch += 1;
  return (machine = { key, names, hostName: host.name.toLowerCase().replace(/\.+$/, ""), addresses });
}

/**
 * The hosts a deny also reads for `host`: the hosts that reach the same place (above), every
 * 127.0.0.0/8 address as the loopback host, `*.localhost` as localhost (curl, Chromium and
 * Firefox resolve it to loopback, RFC 6761), the loopback names of the usual /etc/hosts, the names
 * of the metadata service, the loopback DNS names, the address a wildcard DNS name spells, the
 * addresses this machine's hosts file gives a name, and this machine's host name and interface
 * addresses as this machine (`thisMachine`).
 */
function samePlaceHosts(host: string): readonly string[] {
  const here = thisMachine();
  let known = samePlaceCache.get(host);
  if (known === undefined) {
    if (samePlaceCache.size >= 1024) samePlaceCache.clear();
    samePlaceCache.set(host, (known = samePlaceHostsOf(host, here)));
  }
  return known;
}
const samePlaceCache = new Map<string, readonly string[]>();

function samePlaceHostsOf(host: string, here: Machine): string[] {
  const out: string[] = [];
  const reached = [...(host.startsWith("[") ? tunnelledIPv4(host) : /\d/.test(host) ? spelledAddresses(host) : []), ...(here.names.get(host) ?? [])];
  for (const address of reached) {
    const ipv4 = address.startsWith("[") ? (embeddedIPv4(address) ?? address) : address;
    out.push(ipv4);
  }
  for (const address of [host, ...out]) {
    if (LOOPBACK_PLACE.includes(address) || (here.hostName !== "" && address === here.hostName) || here.addresses.has(address) || CONTAINER_HOST_NAMES.includes(address) || /^127\.\d+\.\d+\.\d+$/.test(address) || address.endsWith(".localhost") || HOSTS_FILE_LOOPBACK.includes(address) || LOOPBACK_NAMES.some((name) => address === name || address.endsWith(`.${name}`)) || LOOPBACK_NAME_RE.test(address)) out.push(...LOOPBACK_PLACE);
    if (METADATA_SERVICE.includes(address)) out.push(...METADATA_SERVICE);
  }
  return [...new Set(out)].filter((other) => other !== host);
}

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

/**
 * The IPv4 addresses an IPv6 transition address carries, which a relay or translator on the way
 * connects to (a deny reads the address as each of them; an allow never does): 6to4 (2002::/16,
 * RFC 3056: the address in bits 16-47), Teredo (2001::/32, RFC 4380: the server in bits 32-63,
 * the client in bits 96-127 inverted) and the local-use NAT64 prefix (64:ff9b:1::/48, RFC 8215:
 * the address in the last 32 bits). Empty for any other address.
 */
function tunnelledIPv4(address: string): string[] {
  const groups = ipv6Groups(address.replace(/^\[|\]$/g, ""));
  if (groups === undefined) return [];
  const ipv4 = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  const [g0, g1 = 0, g2 = 0, g3 = 0, , , g6 = 0, g7 = 0] = groups;
  if (g0 === 0x2002) return [ipv4(g1, g2)];
  if (g0 === 0x2001 && g1 === 0) return [ipv4(g2, g3), ipv4(g6 ^ 0xffff, g7 ^ 0xffff)];
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return [ipv4(g6, g7)];
  return [];
}

/**
 * A host as the URL parser gives it, normalised: trailing dots dropped, an IPv6 literal reaching an
 * IPv4 address as that address. The host of a URL whose scheme is not special (`gopher:`, `dict:`,
 * `ldap:`, `smb:`, `tftp:`, `telnet:`, ...) is opaque to WHATWG, kept as written
 * (`gopher://0x7f.1/` has host `0x7f.1`, `dict://LOCALHOST/` host `LOCALHOST`), while curl and the
 * resolver read it as any host (127.0.0.1, localhost): it is read as a special scheme's host is.
 */
function normaliseHost(url: URL): string {
  const hostname = url.hostname;
  if (hostname.startsWith("[")) return embeddedIPv4(hostname) ?? hostname;
  if (hostname !== "" && !SPECIAL_SCHEMES.has(url.protocol.slice(0, -1))) return hostAsSpecial(hostname).replace(/\.+$/, "");
  // `0x7f.1..`: WHATWG reads a name (only one trailing dot ends a number), lynx drops every trailing
  // dot and connects to 0x7f.1, 127.0.0.1: without them the host is read again.
  if (/\.\.$/.test(hostname)) return hostAsSpecial(hostname.replace(/\.+$/, "")).replace(/\.+$/, "");
  return hostname.replace(/\.+$/, "");
}

/** An opaque host as a special scheme's host parser reads it (percent-decoded, lower case, IDNA, IPv4 in any notation); lower-cased as written when that parser refuses it. */
function hostAsSpecial(hostname: string): string {
  try {
    return new URL(`http://${hostname}/`).hostname;
  } catch {
    return hostname.toLowerCase();
  }
}

/** The host of a domain, URL or email value, normalised; undefined when it cannot be read. */
export function normaliseDomain(input: string): string | undefined {
  const text = whatwgText(input);
  const bare = text.replace(/^\[|\]$/g, "");
  const url = parseUrlValues(isIPv6(bare) ? `[${bare}]` : text)?.urls[0];
  if (url === undefined) return undefined;
  const host = normaliseHost(url);
  return host === "" ? undefined : host;
}

/** Every host a domain, URL or email value is read as (WHATWG, and RFC 3986 where it differs), with `sameHosts` the hosts that reach the same place; undefined when it cannot be read. */
export function domainReadings(input: string, sameHosts = false, carry = true): NetReadings | undefined {
  const text = whatwgText(input);
  const bare = text.replace(/^\[|\]$/g, "");
  const parsed = parseUrlValues(isIPv6(bare) ? `[${bare}]` : text, sameHosts);
  if (parsed === undefined) return undefined;
  let doubtful = parsed.doubtful;
  const hosts = new Set<string>();
  const carried = new Set<string>();
  for (const url of parsed.urls) {
    // A redirect service's target is a host the client reaches; a URL the query carries, one it may reach.
    if (sameHosts && carry) {
      const { sure, maybe } = carriedUrls(url);
      for (const [list, into] of [[sure, hosts], [maybe, carried]] as const) {
        for (const text of list) {
          const nested = domainReadings(text, true, false);
          if (nested === undefined) doubtful ||= list === sure;
          else for (const host of nested.texts) into.add(host);
        }
      }
    }
    const host = normaliseHost(url);
    // A file URL reaches this machine's files (its host names no server on POSIX, an SMB share on
    // Windows): a deny reads it as localhost too (and cannot tell otherwise when it names no host),
    // an allow on a domain never holds for it.
    if (url.protocol === "file:") {
      if (!sameHosts) return undefined;
      for (const local of ["localhost", ...samePlaceHosts("localhost")]) hosts.add(local);
      if (host === "") {
        doubtful = true;
        continue;
      }
    }
    if (host === "") return undefined;
    hosts.add(host);
    if (sameHosts) for (const other of samePlaceHosts(host)) hosts.add(other);
  }
  return { texts: [...hosts], doubtful, ...(carried.size === 0 ? {} : { carried: [...carried] }) };
}

/** A verdict over readings: a deny or ask matches when any reading does (cannot tell when none does and one is a guess), an allow when every reading does and none is a guess. */
function judgeReadings(read: NetReadings | undefined, matches: (text: string) => boolean, restrictive: boolean): Verdict {
  if (read === undefined) return restrictive ? UNKNOWN : NO;
  if (restrictive) return read.texts.some(matches) ? YES : read.doubtful || (read.carried ?? []).some(matches) ? UNKNOWN : NO;
  return !read.doubtful && read.texts.every(matches) ? YES : NO;
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
  return judgeReadings(domainReadings(value, restrictive), (domain) => patterns.some((test) => test(domain)), restrictive);
}

/**
 * Readings of a URL: `scheme://host[:port]/path` (with `?query` when `withQuery`), the path also
 * percent-decoded; undefined when the value cannot be read as a URL.
 */
export function urlReadings(value: string, withQuery = false, sameHosts = false, carry = sameHosts): NetReadings | undefined {
  const parsed = parseUrlValues(value, sameHosts);
  if (parsed === undefined) return undefined;
  const readings: string[] = [];
  const carried: string[] = [];
  let doubtful = parsed.doubtful;
  for (const url of parsed.urls) {
    // `https://httpbin.org/redirect-to?url=http://127.0.0.1/`: the URL the service redirects to; `?next=URL`: one the server may.
    if (carry) {
      const { sure, maybe } = carriedUrls(url);
      for (const [list, into] of [[sure, readings], [maybe, carried]] as const) {
        for (const text of list) {
          const nested = urlReadings(text, withQuery, true, false);
          if (nested === undefined) doubtful ||= list === sure;
          else into.push(...nested.texts);
        }
      }
    }
    const host = normaliseHost(url);
    if (host === "" && url.protocol !== "file:" && SPECIAL_SCHEMES.has(url.protocol.slice(0, -1))) return undefined;
    for (const other of sameHosts ? samePlaceHosts(host) : []) readings.push(`${url.protocol}//${other}${url.port === "" ? "" : `:${url.port}`}${url.pathname}${withQuery ? url.search : ""}`);
    const origin = `${url.protocol}//${host}${url.port === "" ? "" : `:${url.port}`}`;
    const query = withQuery ? url.search : "";
    readings.push(`${origin}${url.pathname}${query}`);
    const paths = [url.pathname];
    try {
      if (/%[0-9a-fA-F]{2}/.test(url.pathname)) paths.push(new URL(decodeURIComponent(url.pathname), `${origin}/`).pathname);
      // Servlet containers (Tomcat, Jetty) drop `;parameters` from each segment before resolving
      // `..`: `/public/..;/admin` is `/admin` there.
      for (const path of paths.filter((spelled) => spelled.includes(";"))) paths.push(new URL(path.replace(/;[^/]*/g, ""), `${origin}/`).pathname);
    } catch {
      return undefined;
    }
    for (const path of paths.slice(1)) readings.push(`${origin}${path}${query}`);
  }
  return { texts: readings, doubtful, ...(carried.length === 0 ? {} : { carried }) };
}

/** `scheme://host[:port]` of a reading (`https://api.example.com/v1` → `https://api.example.com`). */
export const originOf = (reading: string): string => /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(reading)?.[0] ?? reading;

/** A URL glob (`https://api.example.com/v1/**`); `*` does not cross `/`, `**` does. */
export function compileUrlPattern(pattern: string): (reading: string) => boolean {
  const readings = urlReadings(pattern.replace(/\*/g, "__STAR__"))?.texts;
  if (readings === undefined || readings[0] === undefined) throw new TypeError(`url pattern ${JSON.stringify(pattern)} is not a URL`);
  const glob = readings[0].replace(/__star__|__STAR__/g, "*");
  const alternatives = glob.endsWith("/**") ? [glob, glob.slice(0, -3)] : [glob];
  const isMatch = picomatchLibrary()(alternatives, { dot: true, nocase: false });
  return (reading) => isMatch(reading);
}

export function judgeUrl(value: string, patterns: readonly ((reading: string) => boolean)[], restrictive: boolean): Verdict {
  return judgeReadings(urlReadings(value, false, restrictive), (reading) => patterns.some((test) => test(reading)), restrictive);
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
