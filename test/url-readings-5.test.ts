/**
 * URL spellings the real programs read differently from the guard, round 5, judged by the REAL
 * programs against loopback listeners (test/helpers/net-listeners.ts: 127.0.0.1, 127.0.0.2 and ::1
 * on one free port, standing for a denied host):
 *
 * - shapes the earlier oracles do not generate: several `@` in the authority (`a@b@H`, `a@H@b`),
 *   a password before `@` (`api.example.com:x@H`), Orange Tsai's `&@…#@`, an encoded `/` in the
 *   user name (`api.example.com%2F@H`), three and four slashes after the scheme (`http:///H`),
 *   `http:/\H`, one to three trailing dots after the host (`0x7f.1..`: lynx drops them all, WHATWG
 *   reads a name), leading and trailing blanks [Orange Tsai, 'A New Era of SSRF' (Black Hat USA
 *   2017): `http://foo@evil.com:80@google.com/`, `&@…#@`; PayloadsAllTheThings 'Server Side Request
 *   Forgery' (IPv4 in other notations, trailing dots); claroty/Snyk 'Exploiting URL Parsing
 *   Confusion' (2022): scheme confusion, slashes, backslashes];
 * - IDNA code points that mapping drops or folds inside `localhost` (soft hyphen, zero-width
 *   joiner and non-joiner, combining grapheme joiner, variation selector, long s, script l):
 *   undici (WHATWG UTS 46), Python (IDNA 2003 nameprep) and curl (libidn2) judge [Unicode UTS #46
 *   'ignored' and 'deviation' code points; python/cpython encodings.idna];
 * - the programs: curl, wget, wget2, HTTPie, aria2c, lynx, w3m, lwp-request and git in bash lines
 *   (a policy that denies loopback by the command's text, and one that allows only
 *   https://api.example.com), and, for a fetch tool's `url` argument, Node's fetch, Python's urllib
 *   and requests and Perl's HTTP::Tiny (a policy that denies the loopback domains).
 *
 * The property: the guard never ALLOWS what a program sent to a loopback listener. Redirects are
 * out of scope by design (docs/policy.md: where a server redirects the client is the tool's
 * network's to decide). A program that is not installed is skipped, unless REQUIRE_ORACLES=1.
 */
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePolicy, permissionPolicy } from "../src/policy/index.js";
import { REQUIRE_ORACLES } from "./helpers/bash-oracle.js";
import { expectAllowed, expectNotAllowed, installed, openListeners, printSummary, quote, withPort, type Listeners, type ReachedLog } from "./helpers/net-listeners.js";
import { oracleCases } from "./helpers/oracle.js";

// ---- the programs ----

/** Each shell program: how a URL (`U`) is given to it, and whether it runs here. */
const SHELL_PROGRAMS: Readonly<Record<string, { forms: readonly string[]; present: boolean }>> = {
  curl: { forms: ["curl -s U", "curl https://api.example.com/ U"], present: installed("curl") },
  wget: { forms: ["wget -q U"], present: installed("wget") },
  wget2: { forms: ["wget2 -q U"], present: installed("wget2") },
  http: { forms: ["http U"], present: installed("http") },
  aria2c: { forms: ["aria2c --dry-run U"], present: installed("aria2c") },
  lynx: { forms: ["lynx -dump U", "lynx -source U"], present: installed("lynx", ["-version"]) },
  w3m: { forms: ["w3m -dump U"], present: installed("w3m", ["-version"]) },
  GET: { forms: ["GET U"], present: installed("lwp-request", ["-v"], true) },
  git: { forms: ["git ls-remote U"], present: installed("git") },
};
const PYTHON_REQUESTS = spawnSync("python3", ["-c", "import requests"], { stdio: "ignore" }).status === 0;
const PERL_TINY = spawnSync("perl", ["-MHTTP::Tiny", "-e", "1"], { stdio: "ignore" }).status === 0;
/** Each client of a fetch tool's `url` argument, as a bash line around the URL (`U`), and whether it runs here. */
const URL_CLIENTS: Readonly<Record<string, { command: string; present: boolean }>> = {
  urllib: { command: "python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=3)' U", present: installed("python3") },
  requests: { command: "python3 -c 'import sys, requests; requests.get(sys.argv[1], timeout=3)' U", present: PYTHON_REQUESTS },
  "HTTP::Tiny": { command: "perl -MHTTP::Tiny -e 'HTTP::Tiny->new(timeout => 3)->get($ARGV[0])' U", present: PERL_TINY },
  "node fetch": { command: "node -e 'fetch(process.argv[1], { signal: AbortSignal.timeout(3000) }).catch(() => {})' U", present: installed("node") },
};

// ---- the policies ----

const NAMES = Object.keys(SHELL_PROGRAMS);
const denyLoopback = permissionPolicy(
  parsePolicy(
    `version: 1
permissions:
${NAMES.flatMap((program) => ["*127.0.0.1*", "*localhost*", "*[::1]*"].map((host) => `  - { rule: ${JSON.stringify(`Bash(${program} ${host})`)}, mode: deny }`)).join("\n")}
${NAMES.map((program) => `  - { rule: ${JSON.stringify(`Bash(${program}:*)`)}, mode: allow }`).join("\n")}
`,
    "yaml",
    "url5-deny-loopback.yaml",
  ),
);
const onlyApi = permissionPolicy(
  parsePolicy(
    `version: 1
permissions:
${NAMES.flatMap((program) => SHELL_PROGRAMS[program]!.forms.map((form) => `  - { rule: ${JSON.stringify(`Bash(${form.replace("U", "https://api.example.com/*")})`)}, mode: allow }`)).join("\n")}
`,
    "yaml",
    "url5-only-api.yaml",
  ),
);
const webFetch = permissionPolicy(
  parsePolicy(
    `version: 1
permissions:
  - { rule: "WebFetch(domain:127.0.0.1)", mode: deny }
  - { rule: "WebFetch(domain:localhost)", mode: deny }
  - { rule: "WebFetch(domain:[::1])", mode: deny }
  - { rule: "WebFetch(domain:.example.com)", mode: allow }
  - { tool: fetch, where: { url: { url: "https://api.example.com/**" } }, mode: allow }
`,
    "yaml",
    "url5-webfetch.yaml",
  ),
);

// ---- the spellings ----

/** Loopback hosts that do not spell 127.0.0.1, localhost or [::1] (a deny by text must read them). */
const HOSTS = ["0x7f.1", "2130706433", "0177.1", "127.2", "LOCALHOST", "[::ffff:7f00:1]", "[0::1]"];
/** IDNA code points that vanish or fold to ASCII inside `localhost`. */
const IDNA_HOSTS = ["local\u00adhost", "local\u200dhost", "local\u200chost", "local\u034fhost", "local\ufe0fhost", "localho\u017ft", "\u2113ocalhost", "LOCAL\u00adHOST."];
/** URL shapes around a host (`H`) and the listeners' port (`P`). */
const SHAPES = [
  "http://H..:P/",
  "http://H...:P/",
  "http://H.:P/",
  "http://api.example.com@H:P@x/",
  "http://x@api.example.com@H:P/",
  "http://api.example.com:x@H:P/",
  "http://api.example.com&@H:P#@x/",
  "http://api.example.com%2F@H:P/",
  "http:///H:P/",
  "http:////H:P/",
  "http:/\\H:P/",
  " http://H:P/",
  "http://H:P/ ",
  "HTTP://H..:P/",
];

interface UrlCase {
  readonly url: string;
  /** A shell program's form or a URL client's name. */
  readonly by: string;
}

function cases(): UrlCase[] {
  const out: UrlCase[] = [];
  const urls = [...HOSTS.flatMap((host) => SHAPES.map((shape) => shape.replace("H", host))), ...IDNA_HOSTS.flatMap((host) => ["http://H:P/", "http://H..:P/", "http://api.example.com@H:P/"].map((shape) => shape.replace("H", host)))];
  for (const url of urls) {
    for (const { forms } of Object.values(SHELL_PROGRAMS)) for (const form of forms) out.push({ url, by: form });
    for (const name of Object.keys(URL_CLIENTS)) out.push({ url, by: name });
  }
  // Every k-th (fixed order; an odd stride against the programs' count so each keeps some), and the trailing-dot cases whole.
  const limit = Math.min(oracleCases(), 600);
  const stride = Math.max(1, Math.ceil(out.length / limit));
  const step = stride % 2 === 0 ? stride + 1 : stride;
  return out.filter((c, i) => i % step === 0 || (/\.\.:P/.test(c.url) && c.by.startsWith("lynx -dump")));
}

// ---- the run ----

let listeners: Listeners | undefined;
beforeAll(async () => {
  listeners = await openListeners(4, {
    ".curlrc": "max-time = 3\nconnect-timeout = 2\n",
    ".wgetrc": "timeout = 3\ntries = 1\n",
    ".wget2rc": "timeout = 3\ntries = 1\n",
    ".config/httpie/config.json": '{"default_options": ["--timeout=3"]}\n',
    ".aria2/aria2.conf": "timeout=3\nconnect-timeout=2\nmax-tries=1\nallow-overwrite=true\n",
    ".w3m/config": "",
  });
});
afterAll(() => listeners?.close());

const reached: ReachedLog = [];

describe("URL spellings of round 5: the real programs judge where they connect (loopback listeners)", () => {
  const all = cases();
  it("the policies are not vacuous: plain URLs to api.example.com are allowed", () => {
    expectAllowed({ denyLoopback, onlyApi }, NAMES.flatMap((program) => SHELL_PROGRAMS[program]!.forms.map((form) => form.replace("U", "https://api.example.com/v1"))));
    for (const tool of ["WebFetch", "fetch"]) expect(webFetch.decide(tool, { url: "https://api.example.com/v1" }).mode).toBe("allow");
  });
  it.concurrent.each(all.map((c) => [`${c.by.replace("U", JSON.stringify(c.url))}`, c] as const))("%s", async (_name, c) => {
    const client = URL_CLIENTS[c.by];
    const program = Object.entries(SHELL_PROGRAMS).find(([, entry]) => entry.forms.includes(c.by));
    const present = client?.present ?? program?.[1].present ?? false;
    if (!present) {
      if (REQUIRE_ORACLES) throw new Error(`REQUIRE_ORACLES: ${c.by} cannot run here`);
      return;
    }
    const line = (client?.command ?? c.by).replace("U", quote(c.url));
    const { command, reached: loopback } = await listeners!.run({ command: line, source: c.by }, 12_000);
    if (loopback.length === 0) return;
    if (client === undefined) {
      expectNotAllowed({ denyLoopback, onlyApi }, command, loopback, "generated", reached);
      return;
    }
    // The URL as the tool is given it, with the port the command was run with (the text before the first `:P` is the same).
    const at = line.search(/(?<=:)P\b/);
    const value = withPort(c.url, Number(/^\d+/.exec(command.slice(at))?.[0]));
    for (const tool of ["WebFetch", "fetch"]) {
      const decision = webFetch.decide(tool, { url: value });
      expect(decision.mode, `${c.by} sent ${JSON.stringify(value)} to ${loopback.join(", ")}; ${tool}: ${decision.reason ?? ""}`).not.toBe("allow");
    }
  }, 30_000);
  afterAll(() => printSummary("url-readings-5", all.length, reached));
});
