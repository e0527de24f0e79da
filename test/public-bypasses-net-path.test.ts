/**
 * More public URL and path reading bypasses (SSRF and path traversal reports against agent tools,
 * MCP servers and allow lists), one class per report family, each case judged by the real program
 * where one exists on this machine:
 * - URLs: the WHATWG parser (`new URL`, what Node's fetch and browsers read), curl connecting to a
 *   listener on this machine's loopback interface (no other network is reached), Node's
 *   `fileURLToPath`; where nothing here can answer (cloud metadata names, public wildcard DNS), the
 *   provider's or service's documentation, named in the class.
 * - Paths: `path.resolve`, `stat -L` run in the workspace (the kernel, compared by inode), dash and
 *   bash expanding the value as a shell does, Node's `path.win32` for Windows forms, and the
 *   documented decoders (overlong UTF-8, Windows best fit) where no program here decodes that way.
 * A case's expectation must agree with its judge: a value that reaches a denied place is a deny
 * case, one that reaches an allowed place an allow case, any other a not-allow case.
 */
import { execFile, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePolicy, permissionPolicy } from "../src/policy/index.js";
import { REQUIRE_ORACLES } from "./helpers/bash-oracle.js";

type Expectation = "allow" | "deny" | "not-allow";

function expectDecision(mode: string, reason: string | undefined, expected: Expectation): void {
  if (expected === "not-allow") expect(mode, reason).not.toBe("allow");
  else expect(mode, reason).toBe(expected);
}

// ---- URLs ----

/** The hosts an SSRF deny list names (each one WebFetch domain rule): the metadata address and the loopback host. */
const DENIED_HOSTS = ["169.254.169.254", "localhost", "127.0.0.1"];
const urlGuard = permissionPolicy(
  parsePolicy(
    `version: 1
permissions:
${DENIED_HOSTS.map((host) => `  - { rule: "WebFetch(domain:${host})", mode: deny }`).join("\n")}
  - { id: docs, rule: "WebFetch(domain:.example.com)", mode: allow }
  - { id: no-admin, tool: fetch, where: { url: { prefix: "https://api.example.com/admin" } }, mode: deny }
  - { id: public, tool: fetch, where: { url: { url: "https://api.example.com/public/**" } }, mode: allow }
  - { id: origin, tool: crawl, where: { url: { prefix: "https://docs.example.com" } }, mode: allow }
  - { id: v1, tool: crawl, where: { url: { prefix: "https://api.example.com/v1" } }, mode: allow }
  - { id: no-internal, tool: get, where: { host: { in: [${DENIED_HOSTS.slice(0, 2).join(", ")}] } }, mode: deny }
  - { id: get, tool: get, mode: allow }
`,
    "yaml",
    "net-path-urls.yaml",
  ),
);

/** Where a WebFetch value goes, as the denies and the allow name it. */
type Place = "metadata" | "loopback" | "docs" | "elsewhere";

/** The place of a host as the WHATWG parser gives it: the metadata address, loopback (127.0.0.0/8, ::1, localhost), a docs host, or elsewhere. */
function placeOfHost(hostname: string): Place {
  const host = hostname.replace(/\.$/, "");
  if (host === "169.254.169.254") return "metadata";
  if (/^127\.\d+\.\d+\.\d+$/.test(host) || host === "[::1]" || host === "localhost" || host === "0.0.0.0" || host === "[::]") return "loopback";
  if (host === "example.com" || host.endsWith(".example.com")) return "docs";
  return "elsewhere";
}

const expectationOf = (place: Place): Expectation => (place === "docs" ? "allow" : place === "elsewhere" ? "not-allow" : "deny");

interface UrlCase {
  readonly url: string;
  readonly expect: Expectation;
  /** Which judge places it: "whatwg" (new URL's host), "curl" (curl reaches the loopback listener), or the documented place. */
  readonly judge: "whatwg" | "curl" | { readonly documented: Place };
}

interface UrlClass {
  readonly name: string;
  readonly source: string;
  readonly tool?: "WebFetch" | "fetch" | "crawl";
  readonly cases: readonly UrlCase[];
}

const URL_CLASSES: readonly UrlClass[] = [
  {
    name: "ASCII tab, newline and C0 controls the WHATWG parser removes (`ht\\ttp://`, `exa\\nmple`, leading controls)",
    source: "openai/openai-guardrails-js#68 (control-character URL parser differentials: `htt<TAB>p://2130706433/`); nodejs/node#12825; python/cpython#25595 (bpo-43882)",
    cases: [
      { url: "ht\ttp://169.254.169.254/latest/meta-data/", expect: "deny", judge: "whatwg" },
      { url: "htt\tp://2130706433/internal", expect: "deny", judge: "whatwg" },
      { url: "h\nttp://localhost/", expect: "deny", judge: "whatwg" },
      { url: "http\r://127.0.0.1/", expect: "deny", judge: "whatwg" },
      { url: "http://169.254.\n169.254/", expect: "deny", judge: "whatwg" },
      { url: "http://loc\talhost/", expect: "deny", judge: "whatwg" },
      { url: "\u0001\u001fhttp://169.254.169.254/", expect: "deny", judge: "whatwg" },
      { url: "\u0000http://localhost/\u0000", expect: "deny", judge: "whatwg" },
      { url: " \thttp://127.0.0.1/ \n", expect: "deny", judge: "whatwg" },
      { url: "https://docs.example.com\t.evil.net/", expect: "not-allow", judge: "whatwg" },
    ],
  },
  {
    name: "Unicode host spellings the WHATWG parser maps (fullwidth letters, ideographic full stop, soft hyphen, zero width space)",
    source: "UTS #46 (IDNA mapping) as the WHATWG URL Standard applies it; PayloadsAllTheThings 'Server Side Request Forgery' (bypass using Unicode, enclosed alphanumerics); Claude Code WebFetch domain rules",
    cases: [
      { url: "https://\uff44\uff4f\uff43\uff53.example.com/", expect: "allow", judge: "whatwg" },
      { url: "https://docs.example\u3002com/", expect: "allow", judge: "whatwg" },
      { url: "https://docs.example.com\u3002evil.net/", expect: "not-allow", judge: "whatwg" },
      { url: "http://loc\u00adalhost/", expect: "deny", judge: "whatwg" },
      { url: "http://lo\u200bcalhost/", expect: "deny", judge: "whatwg" },
      { url: "http://127\uff0e0\uff0e0\uff0e1/", expect: "deny", judge: "whatwg" },
      { url: "http://LocalHost\uff0e/", expect: "deny", judge: "whatwg" },
      { url: "https://DOCS.EXAMPLE.COM./", expect: "allow", judge: "whatwg" },
      { url: "https://%64ocs.example.com/", expect: "allow", judge: "whatwg" },
      { url: "https://docs.ex\u0430mple.com/", expect: "not-allow", judge: "whatwg" },
      { url: "http://\u24db\u24de\u24d2\u24d0\u24db\u24d7\u24de\u24e2\u24e3:8080/", expect: "deny", judge: "whatwg" },
    ],
  },
  {
    name: "scheme confusion and other schemes (`http:/`, `http:`, `\\\\`, `gopher:`, `dict:`, `ftp:`, `ws:`, `data:`, `javascript:`)",
    source: "PayloadsAllTheThings 'Server Side Request Forgery' (URL schemes: gopher, dict, ftp; bypass using malformed URLs); Orange Tsai, 'A New Era of SSRF' (Black Hat USA 2017)",
    cases: [
      { url: "http:/169.254.169.254/", expect: "deny", judge: "whatwg" },
      { url: "http:169.254.169.254/", expect: "deny", judge: "whatwg" },
      { url: "http:\\\\localhost\\admin", expect: "deny", judge: "whatwg" },
      { url: "HTTP:///127.0.0.1/", expect: "deny", judge: "whatwg" },
      { url: "gopher://127.0.0.1:6379/_INFO", expect: "deny", judge: "whatwg" },
      { url: "dict://localhost:11211/stats", expect: "deny", judge: "whatwg" },
      { url: "ftp://169.254.169.254/", expect: "deny", judge: "whatwg" },
      { url: "ws://[::1]:9222/devtools", expect: "deny", judge: "whatwg" },
      { url: "wss://0x7f.1/", expect: "deny", judge: "whatwg" },
      { url: "data:text/html,<script>fetch('https://docs.example.com/')</script>", expect: "not-allow", judge: "whatwg" },
      { url: "javascript:fetch('//docs.example.com/')", expect: "not-allow", judge: "whatwg" },
    ],
  },
  {
    name: "loopback beyond 127.0.0.1: the whole 127.0.0.0/8, `*.localhost`, IPv6 zone ids",
    source: "PayloadsAllTheThings 'Server Side Request Forgery' (localhost bypass: 127.127.127.127, 127.0.1.3, localhost TLD, PR #857); coreruleset/coreruleset#3219; Kikobeats/is-local-address#27 (RFC 6761 `*.localhost`); RFC 6874 (zone ids)",
    cases: [
      { url: "http://127.0.0.2:{port}/", expect: "deny", judge: "curl" },
      { url: "http://127.127.127.127:{port}/", expect: "deny", judge: "curl" },
      { url: "http://127.0.1.3:{port}/", expect: "deny", judge: "curl" },
      { url: "http://0x7f.2:{port}/", expect: "deny", judge: "curl" },
      { url: "http://[::ffff:127.0.0.3]:{port}/", expect: "deny", judge: "curl" },
      { url: "http://foo.localhost:{port}/", expect: "deny", judge: "curl" },
      { url: "http://admin.app.LOCALHOST:{port}/", expect: "deny", judge: "curl" },
      { url: "http://[::1%25lo]:{port}/", expect: "deny", judge: "curl" },
      { url: "http://[0:0:0:0:0:0:0:1%25lo]:{port}/", expect: "deny", judge: "curl" },
      { url: "http://localhost.example.com/", expect: "allow", judge: "whatwg" },
    ],
  },
  {
    name: "the cloud metadata service under its other names and addresses",
    source: "PayloadsAllTheThings 'SSRF Cloud Instances' (AWS [fd00:ec2::254], instance-data, ECS 169.254.170.2; Google metadata.google.internal, metadata; Alibaba 100.100.100.200; Oracle 192.0.0.192; Tencent metadata.tencentyun.com); modelcontextprotocol/servers#4838",
    cases: [
      { url: "http://metadata.google.internal/computeMetadata/v1/", expect: "deny", judge: { documented: "metadata" } },
      { url: "http://METADATA.google.internal./computeMetadata/v1/", expect: "deny", judge: { documented: "metadata" } },
      { url: "http://metadata/computeMetadata/v1/", expect: "deny", judge: { documented: "metadata" } },
      { url: "http://[fd00:ec2::254]/latest/meta-data/", expect: "deny", judge: { documented: "metadata" } },
      { url: "http://instance-data/latest/meta-data/", expect: "deny", judge: { documented: "metadata" } },
      { url: "http://169.254.170.2/v2/credentials", expect: "deny", judge: { documented: "metadata" } },
      { url: "http://100.100.100.200/latest/meta-data/", expect: "deny", judge: { documented: "metadata" } },
      { url: "http://192.0.0.192/latest/", expect: "deny", judge: { documented: "metadata" } },
      { url: "http://metadata.tencentyun.com/latest/meta-data/", expect: "deny", judge: { documented: "metadata" } },
    ],
  },
  {
    name: "names that resolve to loopback or to the address they spell (nip.io, sslip.io, localtest.me, lvh.me, /etc/hosts aliases)",
    source: "PayloadsAllTheThings 'Server Side Request Forgery' (bypass using a domain redirection: localtest.me, 127.0.0.1.nip.io); BaseIntelligence/bounty-challenge#4813; Kikobeats/is-local-address#27 (localhost.localdomain); the nip.io and sslip.io documentation; Red Hat's and Debian's default /etc/hosts",
    cases: [
      { url: "http://127.0.0.1.nip.io/admin", expect: "deny", judge: { documented: "loopback" } },
      { url: "http://app.127.0.0.1.nip.io/", expect: "deny", judge: { documented: "loopback" } },
      { url: "http://169.254.169.254.nip.io/latest/meta-data/", expect: "deny", judge: { documented: "metadata" } },
      { url: "http://169-254-169-254.sslip.io/latest/", expect: "deny", judge: { documented: "metadata" } },
      { url: "http://a9fea9fe.nip.io/", expect: "deny", judge: { documented: "metadata" } },
      { url: "http://localtest.me/", expect: "deny", judge: { documented: "loopback" } },
      { url: "http://customer1.app.localtest.me/", expect: "deny", judge: { documented: "loopback" } },
      { url: "http://lvh.me:3000/", expect: "deny", judge: { documented: "loopback" } },
      { url: "http://localhost.localdomain/", expect: "deny", judge: { documented: "loopback" } },
      { url: "http://ip6-localhost:8080/", expect: "deny", judge: { documented: "loopback" } },
      { url: "https://docs.example.com/127.0.0.1.nip.io", expect: "allow", judge: "whatwg" },
    ],
  },
  {
    name: "file URLs reach this machine, not a web host",
    source: "PayloadsAllTheThings 'Server Side Request Forgery' (file://); jae-jae/fetcher-mcp#38 (file:// blocked, loopback not)",
    cases: [
      { url: "file:///etc/passwd", expect: "deny", judge: { documented: "loopback" } },
      { url: "FILE://localhost/etc/passwd", expect: "deny", judge: { documented: "loopback" } },
      { url: "file://docs.example.com/etc/passwd", expect: "not-allow", judge: { documented: "elsewhere" } },
    ],
  },
  {
    name: "a URL prefix allow is a string prefix only up to the end of a host or path name (`https://docs.example.com` vs `https://docs.example.com.evil.net`)",
    source: "CVE-2024-0243 (LangChain RecursiveUrlLoader `prevent_outside` by string prefix; langchain-ai/langchain#15559) and langchain-ai/langchainjs#9990 (startsWith URL matching replaced by origin comparison)",
    tool: "crawl",
    cases: [
      { url: "https://docs.example.com.evil.net/", expect: "not-allow", judge: "whatwg" },
      { url: "https://docs.example.com-evil.net/x", expect: "not-allow", judge: "whatwg" },
      { url: "https://docs.example.com:8443/", expect: "not-allow", judge: "whatwg" },
      { url: "https://api.example.com/v1-admin/users", expect: "not-allow", judge: "whatwg" },
      { url: "https://api.example.com/v10/x", expect: "not-allow", judge: "whatwg" },
      { url: "https://docs.example.com/guide", expect: "allow", judge: "whatwg" },
      { url: "https://docs.example.com?page=2", expect: "allow", judge: "whatwg" },
      { url: "https://api.example.com/v1/users", expect: "allow", judge: "whatwg" },
      { url: "https://api.example.com/v1?limit=5", expect: "allow", judge: "whatwg" },
    ],
  },
  {
    name: "servlet path parameters (`..;/`) that Tomcat and Jetty drop before resolving `..`",
    source: "Orange Tsai, 'Breaking Parser Logic! Take Your Path Normalization Off and Pop 0days Out' (Black Hat USA 2018)",
    tool: "fetch",
    cases: [
      { url: "https://api.example.com/public/..;/admin", expect: "deny", judge: "whatwg" },
      { url: "https://api.example.com/public/..;jsessionid=1/admin/users", expect: "deny", judge: "whatwg" },
      { url: "https://api.example.com/public/%2e%2e;/admin", expect: "deny", judge: "whatwg" },
      { url: "https://api.example.com/public/..%3b/admin", expect: "deny", judge: "whatwg" },
      { url: "https://api.example.com/public/..;/internal/keys", expect: "not-allow", judge: "whatwg" },
      { url: "https://api.example.com/public/a;v=1", expect: "allow", judge: "whatwg" },
    ],
  },
];

/** The path a servlet container serves for a URL: `;parameters` dropped from every segment (percent-decoded first), then `..` resolved. */
function servletPath(url: string): string {
  const parsed = new URL(url);
  const decoded = decodeURIComponent(parsed.pathname).replace(/;[^/]*/g, "");
  return new URL(decoded, parsed.origin).pathname;
}

/** Runs curl on a URL (loopback only: no proxy, a short timeout); resolves to what the listener answered, or undefined. */
function curl(url: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile("curl", ["-sS", "-g", "--noproxy", "*", "--max-time", "5", url], { encoding: "utf8" }, (error, stdout) => resolve(error === null ? stdout : undefined));
  });
}

const CURL = spawnSync("curl", ["--version"]).status === 0;
let listener: Server | undefined;
let port = 0;
const ANSWER = "gg-loopback-listener";

beforeAll(async () => {
  if (!CURL) return;
  listener = createServer((_request, response) => response.end(ANSWER));
  // The unspecified address with dual stack: 127.0.0.0/8 and ::1 both reach it.
  await new Promise<void>((resolve) => listener!.listen(0, "::", resolve));
  port = (listener.address() as { port: number }).port;
});
afterAll(() => listener?.close());

describe("public URL bypass classes: URLs are read as clients connect (more reports)", () => {
  for (const klass of URL_CLASSES) {
    describe(`${klass.name} [${klass.source}]`, () => {
      const tool = klass.tool ?? "WebFetch";
      it.each(klass.cases.map((c) => [JSON.stringify(c.url), c] as const))("%s", async (_url, c) => {
        const url = c.url.replace("{port}", String(port));
        if (c.judge === "whatwg") {
          const parsed = new URL(url);
          if (tool === "crawl") {
            // The judge: the origin is docs.example.com's, or the path is /v1 or below it on api.example.com's.
            const inside = parsed.origin === "https://docs.example.com" || (parsed.origin === "https://api.example.com" && /^\/v1(?:\/|$)/.test(parsed.pathname));
            expect(c.expect, parsed.href).toBe(inside ? "allow" : "not-allow");
          } else if (tool === "fetch") {
            const served = servletPath(url);
            const place = parsed.host !== "api.example.com" ? "not-allow" : served.startsWith("/admin") ? "deny" : served.startsWith("/public/") ? "allow" : "not-allow";
            expect(c.expect, served).toBe(place);
          } else expect(c.expect, parsed.hostname).toBe(expectationOf(placeOfHost(parsed.hostname)));
        } else if (c.judge === "curl" && (CURL || REQUIRE_ORACLES)) {
          // curl connects to this machine's loopback listener: the value reaches loopback.
          expect(await curl(url), url).toBe(ANSWER);
          expect(c.expect).toBe("deny");
        } else if (typeof c.judge === "object") expect(c.expect).toBe(expectationOf(c.judge.documented));
        const decision = urlGuard.decide(tool, { url });
        expectDecision(decision.mode, decision.reason, c.expect);
        // The same reading holds for a domain field: a deny case is never allowed through `host`.
        if (c.expect === "deny" && tool === "WebFetch") expect(urlGuard.decide("get", { host: url }).mode, url).not.toBe("allow");
      }, 20_000);
    });
  }

  it("a file URL names a local file (Node's fileURLToPath), whatever host an allow names", () => {
    expect(fileURLToPath("file:///etc/passwd")).toBe("/etc/passwd");
    expect(fileURLToPath("file://localhost/etc/passwd")).toBe("/etc/passwd");
    expect(() => fileURLToPath("file://docs.example.com/etc/passwd")).toThrow();
  });

  it("a reading that is a guess (a zone id left out, a file URL with no host) keeps a deny that does not match it asking", () => {
    const denyList = permissionPolicy(parsePolicy(`version: 1\npermissions:\n  - { rule: "WebFetch(domain:169.254.169.254)", mode: deny }\n  - { tool: WebFetch, mode: allow }\n`, "yaml", "deny-list.yaml"));
    for (const url of ["file:///etc/passwd", "http://[fe80::1%25eth0]/", "http://[fe80::1%eth0]/"]) expect(denyList.decide("WebFetch", { url }).mode, url).toBe("ask");
    expect(denyList.decide("WebFetch", { url: "http://[::ffff:a9fe:a9fe%25eth0]/" }).mode).toBe("deny");
    expect(denyList.decide("WebFetch", { url: "https://example.org/" }).mode).toBe("allow");
  });

  it("a host allow is not widened by the deny-side readings (loopback names, metadata names, spelled addresses)", () => {
    const local = permissionPolicy(parsePolicy(`version: 1\npermissions:\n  - { id: dev, rule: "WebFetch(domain:localhost)", mode: allow }\n  - { id: meta, rule: "WebFetch(domain:169.254.169.254)", mode: allow }\n`, "yaml", "allow.yaml"));
    for (const url of ["http://127.0.0.2/", "http://foo.localhost/", "http://localtest.me/", "http://127.0.0.1.nip.io/", "http://[::1%25lo]/", "http://metadata.google.internal/", "http://[fd00:ec2::254]/", "file:///etc/passwd"]) {
      expect(local.decide("WebFetch", { url }).mode, url).not.toBe("allow");
    }
    for (const url of ["http://localhost:3000/", "http://169.254.169.254/latest/"]) expect(local.decide("WebFetch", { url }).mode, url).toBe("allow");
  });
});

// ---- paths ----

const root = realpathSync(mkdtempSync(path.join(tmpdir(), "gg-net-path-")));
const ws = path.join(root, "ws");
const file = (p: string) => {
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, "x");
};
for (const p of ["secrets/api.key", "credentials/key", "docs/a.md", "docs/b.md", "docs/readme.md"]) file(path.join(ws, p));
symlinkSync("../secrets", path.join(ws, "docs", "link-secrets"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const pathRules = `  - { id: no-secrets, rule: "Read(./secrets/**)", mode: deny }
  - { id: no-credentials, rule: "Read(./credentials/**)", mode: deny }
  - { id: docs, rule: "Read(./docs/**)", mode: allow }`;
const pathGuard = permissionPolicy(parsePolicy(`version: 1\npathBase: ${ws}\npermissions:\n${pathRules}\n`, "yaml", "net-path-paths.yaml"));
/** The same denies as plain matchers on a path field, in front of a broad allow. */
const plainGuard = permissionPolicy(
  parsePolicy(
    `version: 1
pathBase: ${ws}
permissions:
  - { id: no-secrets, tool: Read, where: { file_path: { glob: "secrets/**" } }, mode: deny }
  - { id: no-credentials, tool: Read, where: { file_path: { prefix: "${ws}/credentials/" } }, mode: deny }
  - { id: rest, tool: Read, mode: allow }
`,
    "yaml",
    "net-path-plain.yaml",
  ),
);

const secretInodes = new Set([statSync(path.join(ws, "secrets", "api.key")).ino, statSync(path.join(ws, "secrets")).ino, statSync(path.join(ws, "credentials", "key")).ino, statSync(path.join(ws, "credentials")).ino]);
const docsInodes = new Set(["a.md", "b.md", "readme.md"].map((name) => statSync(path.join(ws, "docs", name)).ino));

/** Where a judge puts a value: an absolute path, an inode the kernel opened, or a place no judge can name. */
type Landed = { readonly path: string } | { readonly inode: number } | { readonly unplaceable: string };

const insideDenied = (p: string) => /^(?:secrets|credentials)(?:\/|$)/.test(path.posix.relative(ws, p)) || !p.startsWith(`${ws}/`);
const insideDocs = (p: string) => p.startsWith(`${ws}/docs/`) && !p.startsWith(`${ws}/docs/link-secrets`);

function expectationOfLanding(landed: readonly Landed[]): Expectation {
  if (landed.length === 0) throw new Error("no judge placed the value");
  let allDocs = true;
  for (const place of landed) {
    if ("unplaceable" in place) return "deny";
    if ("inode" in place) {
      if (secretInodes.has(place.inode)) return "deny";
      if (!docsInodes.has(place.inode)) allDocs = false;
      continue;
    }
    if (insideDenied(place.path)) return "deny";
    if (!insideDocs(place.path)) allDocs = false;
  }
  return allDocs ? "allow" : "not-allow";
}

/** The kernel: `stat -L` run in the workspace opens the value (a C string: it ends at a NUL byte); the inode, or nothing when it does not exist. */
function kernel(value: string): Landed[] {
  const cString = value.split("\u0000")[0]!;
  const out = spawnSync("stat", ["-L", "-c", "%i", "--", cString], { cwd: ws, encoding: "utf8" });
  return out.status === 0 ? [{ inode: Number(out.stdout.trim()) }] : [];
}

/** A shell expanding the value as a word (`dash` or `bash`) in the workspace, each word then opened by the kernel. */
function shell(program: "dash" | "bash") {
  return (value: string): Landed[] => {
    const out = spawnSync(program, ["-c", `printf '%s\\0' ${value}`], { cwd: ws, encoding: "utf8" });
    if (out.status !== 0) throw new Error(out.stderr);
    return out.stdout.split("\u0000").filter((word) => word !== "").flatMap((word) => [{ path: path.posix.resolve(ws, word) }, ...kernel(word)]);
  };
}

/** Overlong UTF-8 (`%c0%ae`) and IIS `%u` escapes, decoded from the UTF-8 bit layout as decoders that accept them do, then percent-decoding. */
function legacyDecoded(value: string): string {
  const bytes = value.replace(/%[uU]([0-9a-fA-F]{4})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  const overlong = bytes.replace(/%([cC][01]|[eE]0%[89][0-9a-fA-F])%([0-9a-fA-F]{2})/g, (match: string) => {
    const parts = match.split("%").slice(1).map((hex) => parseInt(hex, 16));
    return String.fromCharCode(parts.slice(1).reduce((code, byte) => (code << 6) | (byte & 0x3f), parts[0]! & (parts.length === 2 ? 0x1f : 0x0f)));
  });
  return decodeURIComponent(overlong.replace(/%(?![0-9a-fA-F]{2})/g, "%25"));
}

/** Windows best fit to an ANSI code page (Microsoft's bestfit1252.txt, bestfit932.txt, bestfit949.txt) after NFKC, then `\` as a separator. */
const BEST_FIT_TABLE: Readonly<Record<string, string>> = { "\u2215": "/", "\u00a5": "\\", "\u20a9": "\\" };
const bestFit = (value: string) => value.normalize("NFKC").replace(/[\u2215\u00a5\u20a9]/g, (ch) => BEST_FIT_TABLE[ch]!).replace(/\\/g, "/");

/** The Windows 8.3 short name of a long name: the first six characters upper-cased, then `~1` (Microsoft, 'Naming Files, Paths, and Namespaces'). */
const shortName = (long: string) => `${long.replace(/[^A-Za-z0-9]/g, "").slice(0, 6).toUpperCase()}~1`;

const WIN_BASE = "C:\\work\\ws";

/**
 * Windows reading the value in the workspace (as `C:\\work\\ws`): Node's `path.win32` resolves it
 * (device prefixes `\\\\?\\` and `\\\\.\\` name the same file; a UNC share is another machine), each 8.3
 * short name is the name in that directory it is made from; the place mapped back onto the workspace.
 */
function windows(value: string): Landed[] {
  const full = path.win32.resolve(WIN_BASE, value);
  const relative = path.win32.relative(WIN_BASE, full.replace(/^\\\\[?.]\\/, ""));
  if (relative.startsWith("..") || path.win32.isAbsolute(relative)) return [{ path: `/windows:${full}` }];
  let place = ws;
  for (const stream of relative.split("\\")) {
    // `name:stream:$TYPE` is a data stream of `name` (Microsoft, 'File Streams (Local File Systems)').
    const name = stream.replace(/^([^:]+):.*$/, "$1");
    const long = readdirSync(place).find((entry) => shortName(entry) === name.toUpperCase());
    place = path.posix.join(place, /~\d+$/.test(name) && long !== undefined ? long : name);
  }
  return [{ path: place }, ...kernel(path.posix.relative(ws, place))];
}

interface PathCase {
  readonly value: string;
  readonly expect: Expectation;
  readonly judge: (value: string) => Landed[];
}

const resolved = (value: string): Landed[] => [{ path: path.posix.resolve(ws, value) }];

/** The value as written and after one pass of sed removing every `../` and `..\\` (the naive filter), each resolved in the workspace. */
function oneFilterPass(value: string): Landed[] {
  const out = spawnSync("sed", ["s#\\.\\.[\\\\/]##g"], { input: value, encoding: "utf8" });
  if (out.status !== 0) throw new Error(out.stderr);
  return [...resolved(value), ...resolved(out.stdout.replace(/\n$/, "").replace(/\\/g, "/"))];
}

const PATH_CLASSES: readonly { readonly name: string; readonly source: string; readonly cases: readonly PathCase[] }[] = [
  {
    name: "the process's own links: /proc/self/root, /proc/self/cwd, /proc/<pid>/root, open files",
    source: "PayloadsAllTheThings 'Directory Traversal' and 'File Inclusion' (/proc/self/cwd, /proc/self/root, /proc/self/fd); lf-edge/eve#6445 (a denylist bypassed through an alias of the root)",
    cases: [
      { value: `/proc/self/root${ws}/secrets/api.key`, expect: "deny", judge: kernel },
      { value: `/proc/thread-self/root${ws}/secrets/api.key`, expect: "deny", judge: kernel },
      { value: `/proc/self/root/../..${ws}/secrets/api.key`, expect: "deny", judge: kernel },
      { value: `/proc/${process.pid}/root${ws}/credentials/key`, expect: "deny", judge: kernel },
      { value: "/proc/self/cwd/secrets/api.key", expect: "deny", judge: kernel },
      { value: "/proc/self/cwd/docs/../secrets/api.key", expect: "deny", judge: kernel },
      { value: "/proc//self/./cwd/credentials/key", expect: "deny", judge: kernel },
      { value: "/dev/fd/0", expect: "deny", judge: (v) => [{ unplaceable: `${v}: an open file of the tool's process` }] },
      { value: "/proc/self/fd/3", expect: "deny", judge: (v) => [{ unplaceable: `${v}: an open file of the tool's process` }] },
    ],
  },
  {
    name: "NUL byte truncation (`%00`, `\\0`): the file name a C string ends at",
    source: "CWE-158 (improper neutralization of null byte); PayloadsAllTheThings 'Directory Traversal' (NULL byte bypass `%00`)",
    cases: [
      { value: "secrets/api.key%00.md", expect: "deny", judge: (v) => kernel(decodeURIComponent(v)) },
      { value: "docs/../secrets/api.key%00.png", expect: "deny", judge: (v) => kernel(decodeURIComponent(v)) },
      { value: "credentials/key%00", expect: "deny", judge: (v) => kernel(decodeURIComponent(v)) },
      { value: "docs/a.md%00", expect: "allow", judge: (v) => kernel(decodeURIComponent(v)) },
    ],
  },
  {
    name: "overlong UTF-8 and `%u` escapes (`..%c0%af`, `%c0%ae%c0%ae`, `%u2215`)",
    source: "CVE-2000-0884 (IIS 'Web Server Folder Traversal', `..%c0%af`); CAPEC-80 (using UTF-8 encoding to bypass validation logic); PayloadsAllTheThings 'Directory Traversal' (`%c0%ae`, `%u2215`)",
    cases: [
      { value: "docs/..%c0%afsecrets/api.key", expect: "deny", judge: (v) => resolved(legacyDecoded(v)) },
      { value: "docs/%c0%ae%c0%ae/secrets/api.key", expect: "deny", judge: (v) => resolved(legacyDecoded(v)) },
      { value: "docs/%c0%ae%c0%ae%c0%afcredentials%c0%afkey", expect: "deny", judge: (v) => resolved(legacyDecoded(v)) },
      { value: "docs/%e0%80%ae%e0%80%ae/secrets/api.key", expect: "deny", judge: (v) => resolved(legacyDecoded(v)) },
      { value: "docs/..%c1%9csecrets%c1%9capi.key", expect: "deny", judge: (v) => resolved(legacyDecoded(v).replace(/\\/g, "/")) },
      { value: "docs/%u002e%u002e/secrets/api.key", expect: "deny", judge: (v) => resolved(legacyDecoded(v)) },
      { value: "docs/..%u2215secrets%u2215api.key", expect: "deny", judge: (v) => resolved(bestFit(legacyDecoded(v))) },
      { value: "docs/%61.md", expect: "allow", judge: (v) => resolved(legacyDecoded(v)) },
    ],
  },
  {
    name: "Windows best fit and Unicode compatibility forms (`．．／`, `＼`, `∕`, `¥`, `₩`)",
    source: "Orange Tsai and splitline, 'WorstFit: Unveiling Hidden Transformers in Windows ANSI' (Black Hat Europe 2024); Unicode UAX #15 (NFKC); CWE-176",
    cases: [
      { value: "docs/\uff0e\uff0e/secrets/api.key", expect: "deny", judge: (v) => resolved(bestFit(v)) },
      { value: "docs/..\uff0fsecrets\uff0fapi.key", expect: "deny", judge: (v) => resolved(bestFit(v)) },
      { value: "docs\\..\uff3ccredentials\uff3ckey", expect: "deny", judge: (v) => resolved(bestFit(v)) },
      { value: "docs/..\u2215secrets\u2215api.key", expect: "deny", judge: (v) => resolved(bestFit(v)) },
      { value: "docs/..\u00a5secrets\u00a5api.key", expect: "deny", judge: (v) => resolved(bestFit(v)) },
      { value: "docs/..\u20a9credentials\u20a9key", expect: "deny", judge: (v) => resolved(bestFit(v)) },
      { value: "docs/\uff52\uff45\uff41\uff44\uff4d\uff45.md", expect: "allow", judge: (v) => resolved(bestFit(v)) },
    ],
  },
  {
    name: "Windows device paths, UNC shares, 8.3 short names and data streams",
    source: "Microsoft, 'File path formats on Windows systems' (DOS device paths `\\\\?\\`, `\\\\.\\`, UNC), 'Naming Files, Paths, and Namespaces' (8.3 short names) and 'File Streams' (`::$INDEX_ALLOCATION`, `:$I30`); PayloadsAllTheThings 'Directory Traversal' (UNC bypass)",
    cases: [
      { value: "\\\\?\\C:\\work\\ws\\secrets\\api.key", expect: "deny", judge: windows },
      { value: "\\\\.\\C:\\work\\ws\\credentials\\key", expect: "deny", judge: windows },
      { value: "//?/C:/work/ws/secrets/api.key", expect: "deny", judge: windows },
      { value: "\\\\attacker\\share\\payload", expect: "deny", judge: windows },
      { value: `${shortName("credentials")}/key`, expect: "deny", judge: windows },
      { value: `${shortName("credentials").toLowerCase()}\\key`, expect: "deny", judge: windows },
      { value: "secrets::$INDEX_ALLOCATION\\api.key", expect: "deny", judge: windows },
      { value: "credentials:$I30:$INDEX_ALLOCATION/key", expect: "deny", judge: windows },
      { value: "secrets/api.key:hidden", expect: "deny", judge: windows },
    ],
  },
  {
    name: "globs, braces and command substitution a shell expands (`.*` is `..` to sh, `secre*`, `api.ke?`, `[s]`, `{a,b}`, `$(...)`)",
    source: "POSIX 'Pattern Matching Notation' and bash 'Brace Expansion' (sh expands `.*` to `.` and `..`); anthropics/claude-code#56816 and #39834 (rules compared with the text, the shell runs the expansion)",
    cases: [
      { value: "docs/.*/secrets/api.key", expect: "deny", judge: shell("dash") },
      { value: "docs/.?/credentials/key", expect: "deny", judge: shell("dash") },
      { value: "secre*/api.key", expect: "deny", judge: shell("dash") },
      { value: "secrets/api.ke?", expect: "deny", judge: shell("dash") },
      { value: "cred[e]ntials/key", expect: "deny", judge: shell("dash") },
      { value: "sec{rets,x}/api.key", expect: "deny", judge: shell("bash") },
      { value: "docs/{a,../secrets/api}.md", expect: "deny", judge: shell("bash") },
      { value: "docs/*.md", expect: "allow", judge: shell("dash") },
      { value: "docs/{a,b}.md", expect: "allow", judge: shell("bash") },
      { value: "$(echo secrets)/api.key", expect: "deny", judge: shell("bash") },
      { value: "`printf credentials`/key", expect: "deny", judge: shell("dash") },
    ],
  },
  {
    name: "sequences a one-pass `../` filter turns into `../` (`....//`, `..././`, `....\\/`)",
    source: "PayloadsAllTheThings 'Directory Traversal' (filter bypass `....//`, `..././`); CWE-182 (collapse of data into unsafe value)",
    cases: [
      { value: "docs/....//secrets/api.key", expect: "deny", judge: oneFilterPass },
      { value: "docs/..././credentials/key", expect: "deny", judge: oneFilterPass },
      { value: "docs/....\\/secrets/api.key", expect: "deny", judge: oneFilterPass },
      { value: "....//....//etc/passwd", expect: "deny", judge: oneFilterPass },
      { value: "docs/.../a.md", expect: "allow", judge: oneFilterPass },
    ],
  },
  {
    name: "letter case on case-insensitive file systems (APFS, NTFS and FAT by default)",
    source: "Apple, 'File System Programming Guide' (case-insensitive APFS/HFS+ by default); Microsoft, 'Case sensitivity' (NTFS); anthropics/claude-code#22907 (deny rules bypassed by another spelling of the path)",
    cases: [
      { value: "SECRETS/api.key", expect: "deny", judge: (v) => resolved(v.toLowerCase()) },
      { value: "Secrets/API.KEY", expect: "deny", judge: (v) => resolved(v.toLowerCase()) },
      { value: `${ws}/CREDENTIALS/Key`, expect: "deny", judge: (v) => resolved(`${ws}${v.slice(ws.length).toLowerCase()}`) },
      { value: "docs/../SeCrEtS/api.key", expect: "deny", judge: (v) => resolved(v.toLowerCase()) },
    ],
  },
  {
    name: "file URLs given as paths",
    source: "PayloadsAllTheThings 'File Inclusion' (file:// wrapper); MCP filesystem servers reading `file://` URIs",
    cases: [
      { value: `file://${ws}/secrets/api.key`, expect: "deny", judge: (v) => resolved(fileURLToPath(v)) },
      { value: `FILE://localhost${ws}/credentials/key`, expect: "deny", judge: (v) => resolved(fileURLToPath(v.replace(/^FILE/, "file"))) },
      { value: `file://${ws}/docs/../secrets/api%2ekey`, expect: "deny", judge: (v) => resolved(fileURLToPath(v)) },
    ],
  },
  {
    name: "white space around a path that a tool trims",
    source: "CWE-46 and CWE-47 (path equivalence: trailing and leading space); PayloadsAllTheThings 'Directory Traversal' (filter bypasses)",
    cases: [
      { value: " secrets/api.key", expect: "deny", judge: (v) => resolved(v.trim()) },
      { value: "credentials/key\n", expect: "deny", judge: (v) => resolved(v.trim()) },
      { value: "\tsecrets/api.key ", expect: "deny", judge: (v) => resolved(v.trim()) },
    ],
  },
  {
    name: "POSIX spellings of the same file (`//`, `/./`, trailing `/.`, `..` after a symlinked directory)",
    source: "PayloadsAllTheThings 'Directory Traversal'; CVE-2025-53109 (MCP filesystem server: symlink escape of the allowed directory)",
    cases: [
      { value: `/${ws}//secrets/api.key`, expect: "deny", judge: kernel },
      { value: `${ws}/./credentials/./key`, expect: "deny", judge: kernel },
      { value: "secrets/.", expect: "deny", judge: kernel },
      { value: "docs/link-secrets/api.key", expect: "deny", judge: kernel },
      { value: "docs/link-secrets/../secrets/api.key", expect: "deny", judge: kernel },
      { value: "docs/link-secrets/../docs/a.md", expect: "allow", judge: (v) => [...kernel(v), { path: path.posix.resolve(ws, v) }] },
      { value: "docs//a.md", expect: "allow", judge: kernel },
    ],
  },
];

describe("public path bypass classes: paths are read as the tools, shells and kernels reach them (more reports)", () => {
  for (const klass of PATH_CLASSES) {
    describe(`${klass.name} [${klass.source}]`, () => {
      it.each(klass.cases.map((c) => [JSON.stringify(c.value), c] as const))("%s", (_value, c) => {
        // The judge and the expectation agree: where the program lands decides the case.
        expect(c.expect, JSON.stringify(c.judge(c.value))).toBe(expectationOfLanding(c.judge(c.value)));
        const decision = pathGuard.decide("Read", { file_path: c.value });
        expectDecision(decision.mode, decision.reason, c.expect);
        // The plain matchers on the path field never allow a deny case.
        if (c.expect === "deny") expect(plainGuard.decide("Read", { file_path: c.value }).mode, c.value).not.toBe("allow");
      });
    });
  }
});
