/**
 * Public SSRF-filter and path-escape reports not covered by the earlier rounds, each class judged by
 * the real thing where this machine has it:
 * - opaque hosts of non-special schemes (`gopher://0x7f.1/`, `dict://LOCALHOST/`): curl connecting
 *   to a loopback listener, and getaddrinfo (node:dns lookup of the host, numeric or /etc/hosts,
 *   no network) for generated IPv4 spellings under every such scheme;
 * - IPv6 transition addresses (6to4, Teredo, NAT64 local-use): Python's `ipaddress` module
 *   (`sixtofour`, `teredo`), what SSRF filters in Python use, for generated addresses; RFC 8215 for
 *   the local-use NAT64 prefix;
 * - wildcard and rebinding DNS names (1u.ms, rbndr.us, sslip.io IPv6): the services' documented
 *   formats (no DNS is reached here), generated over addresses;
 * - more metadata names: the providers' and the public block lists' names;
 * - paths: `realpath` (coreutils) on nested /proc/self/root links; Claude Code's `@file` mention.
 * Sources are named per class. A deny case must be denied by the deny-list policy (denies, then
 * allow everything else) and never allowed by the allow-list one.
 */
import { execFile, spawnSync } from "node:child_process";
import { lookup } from "node:dns/promises";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePolicy, permissionPolicy } from "../src/policy/index.js";
import { REQUIRE_ORACLES } from "./helpers/bash-oracle.js";
import { ORACLE_SEED } from "./helpers/oracle.js";

const DENIES = ["localhost", "127.0.0.1", "169.254.169.254", "10.*", "192.168.*"];
const policyText = (rest: string) => `version: 1
permissions:
${DENIES.map((host) => `  - { rule: "WebFetch(domain:${host})", mode: deny }`).join("\n")}
  - { id: no-curl-loopback, rule: "Bash(curl *127.0.0.1*)", mode: deny }
  - { id: no-curl-metadata, rule: "Bash(curl *169.254.169.254*)", mode: deny }
${rest}`;
/** Deny list: the denies, then everything else allowed (the policy a bypass gets through). */
const denyList = permissionPolicy(parsePolicy(policyText(`  - { tool: WebFetch, mode: allow }\n  - { rule: "Bash(curl:*)", mode: allow }\n`), "yaml", "deny-list.yaml"));
/** Allow list: only api.example.com's /v1/ API. */
const allowList = permissionPolicy(parsePolicy(policyText(`  - { tool: WebFetch, where: { url: { url: "https://api.example.com/v1/**" } }, mode: allow }\n`), "yaml", "allow-list.yaml"));

/** The place an address is in, as the policies name them. */
function deniedAddress(address: string): boolean {
  return address === "127.0.0.1" || /^127\./.test(address) || address === "169.254.169.254" || /^10\./.test(address) || /^192\.168\./.test(address) || address === "0.0.0.0";
}

function expectDenied(url: string, why: string): void {
  const decision = denyList.decide("WebFetch", { url });
  expect(decision.mode, `${url} [${why}]: ${decision.reason ?? ""}`).toBe("deny");
  expect(allowList.decide("WebFetch", { url }).mode, url).not.toBe("allow");
}

// ---- opaque hosts ----

/** Schemes curl speaks that WHATWG does not know (their hosts stay as written: `new URL("gopher://0x7f.1/").hostname` is `0x7f.1`). */
const OPAQUE_SCHEMES = ["gopher", "dict", "ldap", "telnet", "tftp", "smb", "imap", "pop3", "smtp", "mqtt", "rtsp", "scp", "sftp", "rtmp"];

/** An IPv4 address in 1 to 4 parts, each in decimal, octal or hex (what inet_aton and WHATWG accept). */
const ipv4Spelling = fc
  .record({
    bytes: fc.oneof(
      fc.tuple(fc.constant(127), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: 255 })),
      fc.constant([169, 254, 169, 254] as [number, number, number, number]),
      fc.tuple(fc.constant(10), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 })),
      fc.tuple(fc.constant(192), fc.constant(168), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 })),
      fc.tuple(fc.integer({ min: 1, max: 223 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 })),
    ),
    parts: fc.integer({ min: 1, max: 4 }),
    radix: fc.array(fc.constantFrom("dec", "oct", "hex", "HEX"), { minLength: 4, maxLength: 4 }),
  })
  .map(({ bytes, parts, radix }) => {
    const value = ((bytes[0] << 24) >>> 0) + (bytes[1] << 16) + (bytes[2] << 8) + bytes[3];
    const head = bytes.slice(0, parts - 1);
    const tailBits = 8 * (4 - head.length);
    const tail = value % 2 ** tailBits;
    const spell = (n: number, i: number) => (radix[i] === "oct" && n > 0 ? `0${n.toString(8)}` : radix[i] === "hex" ? `0x${n.toString(16)}` : radix[i] === "HEX" ? `0X${n.toString(16).toUpperCase()}` : String(n));
    return { address: bytes.join("."), spelling: [...head.map(spell), spell(tail, 3)].join(".") };
  });

// ---- IPv6 transition addresses ----

const hex4 = (high: number, low: number) => ((high << 8) | low).toString(16);

/** Python's ipaddress on a list of IPv6 addresses: [sixtofour, teredo server, teredo client] each, or null. */
function pythonTransition(addresses: readonly string[]): ([string | null, string | null, string | null])[] | undefined {
  const script = `import ipaddress, json, sys
out = []
for a in json.load(sys.stdin):
    ip = ipaddress.IPv6Address(a)
    t = ip.teredo
    out.append([str(ip.sixtofour) if ip.sixtofour else None, str(t[0]) if t else None, str(t[1]) if t else None])
print(json.dumps(out))`;
  const run = spawnSync("python3", ["-c", script], { input: JSON.stringify(addresses), encoding: "utf8" });
  return run.status === 0 ? (JSON.parse(run.stdout) as ([string | null, string | null, string | null])[]) : undefined;
}
const PYTHON = spawnSync("python3", ["-c", "import ipaddress"]).status === 0;

const deniedBytes = fc.oneof(
  fc.tuple(fc.constant(127), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: 255 })),
  fc.constant([169, 254, 169, 254] as [number, number, number, number]),
  fc.tuple(fc.constant(10), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 })),
  fc.tuple(fc.constant(192), fc.constant(168), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 })),
);

// ---- curl and a loopback listener ----

const CURL = spawnSync("curl", ["--version"]).status === 0;
let listener: Server | undefined;
let port = 0;
const hits: string[] = [];
beforeAll(async () => {
  if (!CURL) return;
  listener = createServer((socket) => {
    hits.push(socket.localAddress ?? "?");
    socket.end();
  });
  await new Promise<void>((resolve) => listener!.listen(0, "::", resolve));
  port = (listener.address() as { port: number }).port;
});
afterAll(() => listener?.close());

function curlReaches(url: string): Promise<boolean> {
  hits.length = 0;
  return new Promise((resolve) => {
    execFile("curl", ["-s", "-g", "--noproxy", "*", "--max-time", "2", url], () => setTimeout(() => resolve(hits.length > 0), 30));
  });
}

describe("public SSRF-filter bypasses (round 3)", () => {
  describe("opaque hosts of non-special schemes are read as curl and the resolver read them [PayloadsAllTheThings 'Server Side Request Forgery' (gopher://, dict:// to Redis and memcached); Gopherus; ToolJet GHSA-h49f-mhmm-jx4w (gopher and dict blocked by scheme, hosts not normalised); WHATWG URL Standard 'opaque host']", () => {
    const cases = ["gopher://0x7f.1:P/_INFO", "dict://LOCALHOST:P/stats", "gopher://127.1:P/_x", "gopher://loc%61lhost:P/_x", "telnet://2130706433:P/", "ldap://0177.0.0.1:P/", "imap://0x7F000001:P/", "smtp://127.000.000.001:P/", "gopher://[::ffff:7f00:1]:P/_x"];
    it.each(cases)("%s reaches loopback (curl) and is denied", async (spelled) => {
      const url = spelled.replace("P", String(port));
      if (CURL || REQUIRE_ORACLES) expect(await curlReaches(url), `curl ${url}`).toBe(true);
      expectDenied(url, "curl reaches a loopback listener");
      expect(denyList.decide("Bash", { command: `curl '${url}'` }).mode, `curl '${url}'`).toBe("deny");
    }, 90_000);

    it("every IPv4 spelling under every such scheme: the guard's reading is getaddrinfo's", async () => {
      const samples = fc.sample(fc.tuple(ipv4Spelling, fc.constantFrom(...OPAQUE_SCHEMES)), { numRuns: 300, seed: ORACLE_SEED });
      let denied = 0;
      for (const [{ address, spelling }, scheme] of samples) {
        const resolved = (await lookup(spelling, { family: 4 })).address;
        expect(resolved, spelling).toBe(address);
        const url = `${scheme}://${spelling}:4000/x`;
        if (deniedAddress(resolved)) {
          denied++;
          expectDenied(url, `getaddrinfo: ${resolved}`);
        } else expect(denyList.decide("WebFetch", { url }).mode, url).toBe("allow");
      }
      expect(denied).toBeGreaterThan(100);
    }, 180_000);

    it("an opaque host that names an allowed host is that host (no wider allow, no false deny)", () => {
      const api = permissionPolicy(parsePolicy(`version: 1\npermissions:\n  - { rule: "WebFetch(domain:api.example.com)", mode: allow }\n`, "yaml", "api.yaml"));
      expect(api.decide("WebFetch", { url: "gopher://API.Example.com/_x" }).mode).toBe("allow");
      expect(api.decide("WebFetch", { url: "gopher://api.example.com.evil.net/_x" }).mode).not.toBe("allow");
      expect(denyList.decide("WebFetch", { url: "gopher://example.org:70/" }).mode).toBe("allow");
    });
  });

  describe("IPv6 transition addresses carry an IPv4 address: 6to4 (2002::/16), Teredo (2001::/32), NAT64 local-use (64:ff9b:1::/48) [stacklok/toolhive#6249; maximhq/bifrost#6760; flytohub/flyto-core GHSA-794r-5rp2-fpg8; claraverse-space/ClaraVerse#254; h4ckf0r0day/obscura#842; oryx-labs/oryxos#268; RFC 3056, RFC 4380, RFC 8215]", () => {
    it("Python's ipaddress reads the IPv4 address; the guard denies each that is denied", () => {
      const samples = fc.sample(fc.tuple(deniedBytes, fc.constantFrom("6to4", "teredo-client", "teredo-server")), { numRuns: 200, seed: ORACLE_SEED });
      const addresses = samples.map(([b, form]) => {
        if (form === "6to4") return `2002:${hex4(b[0], b[1])}:${hex4(b[2], b[3])}::1`;
        if (form === "teredo-server") return `2001:0:${hex4(b[0], b[1])}:${hex4(b[2], b[3])}:8000:63bf:3fff:fdd2`;
        return `2001:0:4136:e378:8000:63bf:${hex4(b[0] ^ 0xff, b[1] ^ 0xff)}:${hex4(b[2] ^ 0xff, b[3] ^ 0xff)}`;
      });
      const judged = PYTHON || REQUIRE_ORACLES ? pythonTransition(addresses) : undefined;
      if (PYTHON || REQUIRE_ORACLES) expect(judged).toBeDefined();
      samples.forEach(([b, form], i) => {
        const address = b.join(".");
        if (judged !== undefined) {
          const [sixtofour, server, client] = judged[i]!;
          expect(form === "6to4" ? sixtofour : form === "teredo-server" ? server : client, addresses[i]).toBe(address);
        }
        expectDenied(`http://[${addresses[i]!}]/latest/`, `${form} of ${address}`);
      });
    }, 180_000);

    it.each(["http://[2002:7f00:1::]/", "http://[2002:a9fe:a9fe::1]/latest/meta-data/", "http://[2001::5601:5601]/", "http://[2001:0:4136:e378:8000:63bf:80fe:fefe]/", "http://[64:ff9b:1::a9fe:a9fe]/", "http://[64:ff9b:1::127.0.0.1]/"])("%s is denied", (url) => {
      expectDenied(url, "documented embedding");
    });

    it("a transition address carrying a public address is not denied, and an allow is never widened to one", () => {
      for (const url of ["http://[2002:808:808::1]/", "http://[2001:4860:4860::8888]/", "http://[2001:0:4136:e378:8000:63bf:f7f7:f7f7]/"]) expect(denyList.decide("WebFetch", { url }).mode, url).toBe("allow");
      const local = permissionPolicy(parsePolicy(`version: 1\npermissions:\n  - { rule: "WebFetch(domain:127.0.0.1)", mode: allow }\n`, "yaml", "local.yaml"));
      expect(local.decide("WebFetch", { url: "http://[2002:7f00:1::]/" }).mode).not.toBe("allow");
    });
  });

  describe("rebinding and wildcard DNS services name the addresses they answer [BaseIntelligence/PayloadsAllTheThings-style lists: 1u.ms ('make-1.1.1.1-rebind-169.254.169.254-rr.1u.ms'), rbndr.us ('7f000001.c0a80001.rbndr.us', taviso/rbndr README); sslip.io documentation (IPv6: '--1.sslip.io'); ToolJet GHSA-h49f-mhmm-jx4w]", () => {
    it("every denied address in each service's format is denied", () => {
      const samples = fc.sample(fc.tuple(deniedBytes, fc.integer({ min: 1, max: 223 }), fc.constantFrom("1u-dashed", "1u-rebind", "rbndr-first", "rbndr-second")), { numRuns: 200, seed: ORACLE_SEED });
      for (const [b, publicFirst, form] of samples) {
        const hex = b.map((n) => n.toString(16).padStart(2, "0")).join("");
        const name =
          form === "1u-dashed" ? `make-${b.join("-")}-rr.1u.ms`
          : form === "1u-rebind" ? `make-${publicFirst}.1.1.1-rebind-${b.join(".")}-rr.1u.ms`
          : form === "rbndr-first" ? `${hex}.08080808.rbndr.us`
          : `08080808.${hex}.rbndr.us`;
        expectDenied(`http://${name}/`, `${form}: ${b.join(".")}`);
      }
    }, 180_000);

    it.each(["http://--1.sslip.io/", "http://0--1.sslip.io:8080/", "http://app.--1.sslip.io/", "http://fd00-ec2--254.sslip.io/latest/", "http://--ffff-a9fe-a9fe.sslip.io/"])("%s (sslip.io IPv6) is denied", (url) => {
      // The judge: the label with `-` for `:` is the IPv6 address sslip.io answers.
      const label = new URL(url).hostname.split(".").find((part) => part.includes("--"))!;
      expect(() => new URL(`http://[${label.replace(/-/g, ":")}]/`)).not.toThrow();
      const deny = permissionPolicy(parsePolicy(`version: 1\npermissions:\n  - { rule: "WebFetch(domain:[::1])", mode: deny }\n  - { rule: "WebFetch(domain:169.254.169.254)", mode: deny }\n  - { tool: WebFetch, mode: allow }\n`, "yaml", "v6.yaml"));
      expect(deny.decide("WebFetch", { url }).mode, url).toBe("deny");
    });

    it("names of these services that spell a public address are not denied", () => {
      for (const url of ["http://make-8.8.8.8-rr.1u.ms/", "http://08080808.01010101.rbndr.us/", "http://2001-4860-4860--8888.sslip.io/", "http://1u.ms/"]) expect(denyList.decide("WebFetch", { url }).mode, url).toBe("allow");
    });
  });

  describe("the metadata service under more names [openclaw/openclaw#16197 (metadata.goog, metadata.azure.com); Google Cloud's IPv6 metadata address fd20:ce::254 and Scaleway's 169.254.42.42 / fd00:42::42 as SSRF block lists carry them]", () => {
    it.each(["http://metadata.goog/computeMetadata/v1/", "http://METADATA.GOOG./computeMetadata/v1/", "http://[fd20:ce::254]/computeMetadata/v1/", "http://169.254.42.42/conf", "http://[fd00:42::42]/conf", "http://metadata.azure.com/metadata/instance"])("%s is denied with 169.254.169.254", (url) => {
      expectDenied(url, "documented metadata name");
    });
  });
});

// ---- paths ----

const root = realpathSync(mkdtempSync(path.join(tmpdir(), "gg-net-path-3-")));
const ws = path.join(root, "ws");
mkdirSync(path.join(ws, "secrets"), { recursive: true });
mkdirSync(path.join(ws, "docs"), { recursive: true });
writeFileSync(path.join(ws, "secrets", "key"), "MARK");
writeFileSync(path.join(ws, ".env"), "MARK");
writeFileSync(path.join(ws, "docs", "a.md"), "doc");
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Tools run elsewhere (no symlinks read here): everything but the secrets allowed. */
const pathGuard = permissionPolicy(
  parsePolicy(
    `version: 1
pathBase: /
followSymlinks: false
permissions:
  - { rule: "Read(${ws}/secrets/**)", mode: deny }
  - { rule: "Read(**/.env)", mode: deny }
  - { rule: "Read(/**)", mode: allow }
`,
    "yaml",
    "paths.yaml",
  ),
);
/** A workspace policy: paths relative to the workspace, only it allowed. */
const wsGuard = permissionPolicy(parsePolicy(`version: 1\npathBase: ${ws}\npermissions:\n  - { rule: "Read(**/.env)", mode: deny }\n  - { rule: "Read(./**)", mode: allow }\n`, "yaml", "ws.yaml"));

describe("public path escapes (round 3)", () => {
  it.each([`/proc/self/root/proc/self/root${ws}/secrets/key`, `/proc/self/root/proc/thread-self/root${ws}/.env`, `/proc/self/cwd/proc/self/root${ws}/secrets/key`])(
    "%s: the kernel follows each /proc link in turn (realpath) [PayloadsAllTheThings 'File Inclusion' (/proc/self/root); lf-edge/eve#6445]",
    (value) => {
      const real = spawnSync("realpath", ["-m", "--", value], { cwd: "/", encoding: "utf8" });
      if (real.status === 0) expect(real.stdout.trim().startsWith(ws)).toBe(true);
      expect(pathGuard.decide("Read", { file_path: value }).mode, value).toBe("deny");
    },
  );

  it("an open file reached through /proc/self/root is an open file (anything) [PayloadsAllTheThings 'File Inclusion' (/proc/self/fd)]", () => {
    expect(pathGuard.decide("Read", { file_path: "/proc/self/root/proc/self/fd/0" }).mode).toBe("deny");
    expect(pathGuard.decide("Read", { file_path: "/proc/self/root/dev/stdin" }).mode).toBe("deny");
  });

  it.each(["@../../etc/passwd", "@.env", "@./.env", "@docs/../.env"])("%s: a file mention names the path after `@` [anthropics/claude-code#61148 (`@../` attachment outside the workspace)]", (value) => {
    expect(wsGuard.decide("Read", { file_path: value }).mode, value).toBe("deny");
  });

  it("a mention of an allowed file stays allowed", () => {
    expect(wsGuard.decide("Read", { file_path: "@docs/a.md" }).mode).toBe("allow");
    expect(pathGuard.decide("Read", { file_path: `/proc/self/root${ws}/docs/a.md` }).mode).toBe("allow");
  });
});
