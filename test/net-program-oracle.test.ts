/**
 * URLs in shell commands are read by curl and wget, and URL-valued tool arguments by Node's own
 * fetch (undici), not by the guard's parser: here the REAL programs judge. Loopback listeners on
 * this machine (127.0.0.1, 127.0.0.2 and ::1, one free port shared) record every TCP connection;
 * each command runs in bash with a HOME of its own (no proxy in the environment, `.curlrc` and
 * `.wgetrc` set a short timeout) and the listeners say which loopback address it reached. No other
 * network is reached: names that are not loopback do not resolve here.
 *
 * Spellings: the host spellings of public SSRF lists (PayloadsAllTheThings 'Server Side Request
 * Forgery': decimal, octal, hex and short IPv4, IPv6 forms, zone ids, 0.0.0.0, enclosed
 * alphanumerics, fullwidth digits and dots, percent-encoded hosts, trailing dots, scheme case) in
 * the URL shapes of Orange Tsai's 'A New Era of SSRF' (Black Hat USA 2017: userinfo `@`, `#@`,
 * `\@`), without a scheme, and in the command forms of curl and wget that choose where they
 * connect (more URLs in one command, `--url`, `-x`/`--proxy`, `--preproxy`, `--resolve`,
 * `--connect-to`, `-K`/`--config`, URL globbing `{a,b}` and `[1-2]`, `--next`, `wget -i`,
 * `wget -e http_proxy=`).
 *
 * The property: under a policy that denies loopback (`Bash(curl *127.0.0.1*)`, `*localhost*`, with
 * the programs otherwise allowed) and under one that allows only https://api.example.com, the guard
 * never ALLOWS a command the real program sends to a loopback listener; the same for a WebFetch URL
 * that Node's fetch sends there. Skipped without curl or wget unless REQUIRE_ORACLES=1.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePolicy, permissionPolicy } from "../src/policy/index.js";
import { REQUIRE_ORACLES } from "./helpers/bash-oracle.js";
import { expectAllowed, expectNotAllowed, installed, LOOPBACK_HOSTS, openListeners, printSummary, quote, SHAPES, withPort, type CommandCase, type Listeners, type ReachedLog } from "./helpers/net-listeners.js";
import { oracleCases } from "./helpers/oracle.js";

const CURL = installed("curl");
const WGET = installed("wget");

// ---- the policies ----

const LOOPBACK_DENIES = ["*127.0.0.1*", "*localhost*", "*[::1]*"];
/** The programs allowed, loopback denied by the commands' text (as deny lists write it). */
const denyLoopback = permissionPolicy(
  parsePolicy(
    `version: 1
permissions:
${["curl", "wget"].flatMap((program) => LOOPBACK_DENIES.map((host) => `  - { rule: ${JSON.stringify(`Bash(${program} ${host})`)}, mode: deny }`)).join("\n")}
  - { rule: "Bash(curl:*)", mode: allow }
  - { rule: "Bash(wget:*)", mode: allow }
`,
    "yaml",
    "net-oracle-deny-loopback.yaml",
  ),
);
/** Only https://api.example.com, in the two spellings allow lists use (a word prefix, a glob). */
const onlyApi = permissionPolicy(
  parsePolicy(
    `version: 1
permissions:
  - { rule: "Bash(curl https://api.example.com/:*)", mode: allow }
  - { rule: "Bash(curl -sS https://api.example.com/*)", mode: allow }
  - { rule: "Bash(curl https://api.example.com*)", mode: allow }
  - { rule: "Bash(wget https://api.example.com/*)", mode: allow }
  - { rule: "Bash(wget -q https://api.example.com/:*)", mode: allow }
`,
    "yaml",
    "net-oracle-only-api.yaml",
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
  - { id: api, tool: fetch, where: { url: { url: "https://api.example.com/**" } }, mode: allow }
`,
    "yaml",
    "net-oracle-webfetch.yaml",
  ),
);

// ---- the spellings ----

/** Commands that place the URL in other ways, from curl's and wget's manuals and public SSRF reports. */
const CORPUS: readonly CommandCase[] = [
  { command: "curl -x http://127.0.0.1:P http://api.example.com/", source: "curl(1) -x/--proxy" },
  { command: "curl --proxy 0x7f.1:P https://api.example.com/", source: "curl(1) -x/--proxy" },
  { command: "curl -sS https://api.example.com/x --proxy=127.1:P", source: "curl(1) --proxy (long option after the URL)" },
  { command: "curl -xhttp://localhost:P http://api.example.com/", source: "curl(1) -x (value attached)" },
  { command: "curl --preproxy socks5://127.0.0.1:P https://api.example.com/", source: "curl(1) --preproxy" },
  { command: "curl --resolve api.example.com:P:127.0.0.1 http://api.example.com:P/", source: "curl(1) --resolve" },
  { command: "curl --resolve api.example.com:P:0x7f.1 https://api.example.com:P/", source: "curl(1) --resolve" },
  { command: "curl --connect-to api.example.com:443:127.0.0.1:P https://api.example.com/", source: "curl(1) --connect-to" },
  { command: "curl --connect-to ::127.0.0.2:P https://api.example.com/", source: "curl(1) --connect-to (empty host and port: every connection)" },
  { command: "curl --connect-to '::[::1]:P' https://api.example.com/", source: "curl(1) --connect-to" },
  { command: "curl -K cfg https://api.example.com/", files: { cfg: 'url = "http://127.0.0.1:P/"\n' }, source: "curl(1) -K/--config; GTFOBins curl" },
  { command: "curl --config=cfg", files: { cfg: "url = http://127.0.0.2:P/\n" }, source: "curl(1) -K/--config" },
  { command: "curl -Kcfg https://api.example.com/", files: { cfg: "proxy = 127.0.0.1:P\n" }, source: "curl(1) -K (value attached)" },
  { command: "curl 'http://127.0.0.{1,2}:P/'", source: "curl(1) URL globbing {a,b}" },
  { command: "curl 'http://{api.example.com,127.0.0.1:P}/'", source: "curl(1) URL globbing {a,b}" },
  { command: "curl 'http://127.0.0.[1-2]:P/'", source: "curl(1) URL globbing [1-2]" },
  { command: "curl 'https://api.example.com/{v1,x}' 'http://127.0.0.1:P/'", source: "curl(1): every URL operand is fetched" },
  { command: "curl https://api.example.com/ --next http://127.0.0.1:P/", source: "curl(1) -:/--next" },
  { command: "curl https://api.example.com/ -: http://127.0.0.1:P/", source: "curl(1) -:/--next" },
  { command: "curl -sS https://api.example.com/v1/x -o /dev/null http://127.0.0.1:P/", source: "curl(1): every URL operand is fetched" },
  { command: "curl --url http://127.0.0.1:P/ https://api.example.com/", source: "curl(1) --url" },
  { command: "curl --url=http://127.0.0.1:P/", source: "curl(1) --url=" },
  { command: "curl -H 'Host: api.example.com' http://127.0.0.1:P/", source: "Host header spoofing (PayloadsAllTheThings SSRF)" },
  { command: "curl -sS https://api.example.com/*", source: "glob allow pattern" },
  { command: "curl https://api.example.com@127.0.0.1:P/", source: "Orange Tsai, userinfo" },
  { command: "curl https://api.example.com:P@127.0.0.1:P/", source: "Orange Tsai, userinfo" },
  { command: "curl https://api.example.com.127.0.0.1.nip.io:P/", source: "wildcard DNS (does not resolve here)" },
  { command: "curl -sS 'https://api.example.com/ http://127.0.0.1:P/'", source: "a space inside one word" },
  { command: "curl -sS https://api.example.com/\\ http://127.0.0.1:P/", source: "a space inside one word" },
  { command: "http_proxy=http://127.0.0.1:P curl http://api.example.com/", source: "curl(1) ENVIRONMENT http_proxy" },
  { command: "ALL_PROXY=127.0.0.1:P curl http://api.example.com/", source: "curl(1) ENVIRONMENT ALL_PROXY" },
  { command: "wget -q https://api.example.com/ http://127.0.0.1:P/", source: "wget(1): every URL operand" },
  { command: "wget -q 127.0.0.1:P", source: "wget(1): a URL without a scheme is http" },
  { command: "wget -i urls.txt", files: { "urls.txt": "http://127.0.0.1:P/\n" }, source: "wget(1) -i/--input-file" },
  { command: "wget --input-file=urls.txt https://api.example.com/", files: { "urls.txt": "http://127.0.0.2:P/\n" }, source: "wget(1) --input-file" },
  { command: "wget -B http://127.0.0.1:P/ -i rel.txt", files: { "rel.txt": "x\n" }, source: "wget(1) -B/--base" },
  { command: "wget -e use_proxy=on -e http_proxy=127.0.0.1:P http://api.example.com/", source: "wget(1) -e (wgetrc http_proxy)" },
  { command: "wget --execute=http_proxy=http://127.0.0.1:P http://api.example.com/", source: "wget(1) --execute" },
  { command: "http_proxy=127.0.0.1:P wget http://api.example.com/", source: "wget(1) ENVIRONMENT http_proxy" },
  { command: "wget -q https://api.example.com/x -O- --post-data=a http://0x7f.1:P/", source: "wget(1): every URL operand" },
  { command: "wget --backups http://0x7f.1:P/", source: "wget(1) --backups=N: its value only after =" },
];

/** Every command: each URL shape around each host spelling, given to curl and wget in several forms, and the corpus. */
function commandCases(): CommandCase[] {
  const out: CommandCase[] = [];
  for (const host of LOOPBACK_HOSTS) {
    for (const shape of SHAPES) {
      const url = shape.replace("H", host);
      out.push({ command: `curl ${quote(url)}`, source: "generated" });
      out.push({ command: `curl -sS https://api.example.com/v1/x ${quote(url)}`, source: "generated" });
      out.push({ command: `curl --url ${quote(url)}`, source: "generated" });
      out.push({ command: `curl https://api.example.com/ ${quote(url)}`, source: "generated" });
      out.push({ command: `wget -q ${quote(url)}`, source: "generated" });
    }
  }
  // GG_ORACLE_CASES generated commands at most (every k-th, so each host and shape keeps some), and the whole corpus.
  const stride = Math.max(1, Math.ceil(out.length / oracleCases()));
  return [...out.filter((_c, i) => i % stride === 0), ...CORPUS];
}

/** Commands whose program reaches no loopback listener and that the narrow allow must still allow (the policies are not vacuous). */
const BENIGN: readonly string[] = ["curl https://api.example.com/", "curl -sS https://api.example.com/v1/users", "curl https://api.example.com/ -H 'Accept: application/json'", "curl https://API.example.com/v1", "wget https://api.example.com/v1/x", "wget -q https://api.example.com/"];

// ---- the listeners ----

let listeners: Listeners | undefined;
beforeAll(async () => {
  listeners = await openListeners(4, { ".curlrc": "max-time = 3\nconnect-timeout = 2\n", ".wgetrc": "timeout = 3\ntries = 1\n" });
});
afterAll(() => listeners?.close());
const run = (c: CommandCase) => listeners!.run(c);

const needs = (command: string) => (command.includes("wget") && !command.startsWith("curl") ? WGET : CURL);

const reached: ReachedLog = [];

describe.skipIf(!(CURL || WGET) && !REQUIRE_ORACLES)("curl and wget judge the URL readings of shell commands (loopback listeners)", () => {
  const cases = commandCases();
  it(`the policies are not vacuous: ${BENIGN.length} plain commands to api.example.com are allowed by both`, () => expectAllowed({ denyLoopback, onlyApi }, BENIGN));
  it.concurrent.each(cases.map((c) => [c.command, c] as const))("%s", async (_command, c) => {
    if (!needs(c.command)) {
      if (REQUIRE_ORACLES) throw new Error(`REQUIRE_ORACLES: ${c.command.startsWith("curl") ? "curl" : "wget"} is not installed`);
      return;
    }
    const { command, reached: reachedLoopback } = await run(c);
    if (reachedLoopback.length > 0) expectNotAllowed({ denyLoopback, onlyApi }, command, reachedLoopback, c.source, reached);
  }, 30_000);
  afterAll(() => printSummary("net-program-oracle", cases.length, reached));
});

// ---- Node's fetch (undici) for a URL-valued tool argument ----

/** Node's fetch on a URL; resolves to the loopback addresses it connected to. */
function fetched(url: string): Promise<{ value: string; reached: string[] }> {
  return listeners!.withSlot(async (slot) => {
    const value = withPort(url, slot.port);
    try {
      const response = await fetch(value, { signal: AbortSignal.timeout(3000), redirect: "manual" });
      await response.arrayBuffer();
    } catch {
      // refused, unparseable or unreachable: the listeners tell
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { value, reached: [...new Set(slot.hits)] };
  });
}

describe("Node's fetch (undici) judges the URL reading of a tool argument (loopback listeners)", () => {
  const urls = LOOPBACK_HOSTS.flatMap((host) => SHAPES.filter((shape) => /^[a-zA-Z]+:/.test(shape)).map((shape) => shape.replace("H", host)));
  it.concurrent.each(urls.map((url) => [url] as const))("%s", async (url) => {
    const { value, reached: reachedLoopback } = await fetched(url);
    if (reachedLoopback.length === 0) return;
    for (const [tool, policy] of [["WebFetch", webFetch], ["fetch", webFetch]] as const) {
      const decision = policy.decide(tool, { url: value });
      expect(decision.mode, `${value} reached ${reachedLoopback.join(", ")}: ${decision.reason ?? ""}`).not.toBe("allow");
    }
  }, 10_000);
});
