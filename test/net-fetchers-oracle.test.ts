/**
 * The HTTP fetchers other than curl and wget, judged by the REAL programs (Debian bookworm packages
 * httpie 3.2, aria2 1.36, libwww-perl 6.68, lynx 2.9, w3m 0.5.3, links 2.28, wget2 1.99): each
 * command runs in bash against the loopback listeners of test/helpers/net-listeners.ts (127.0.0.1,
 * 127.0.0.2, ::1; a HOME of its own whose configuration files set short time-outs) and the
 * listeners say which loopback address it reached.
 *
 * Commands: the loopback host spellings and URL shapes of the curl/wget oracle, given to each
 * program in the forms a shell agent writes (`http GET URL`, `https URL`, `aria2c --dry-run URL`,
 * `GET URL`, `lynx -dump URL`, `w3m -dump URL`, `links -source URL`, `wget2 -q URL`, a URL after an
 * allowed one), every k-th of them (fixed order, GG_ORACLE_CASES or 240 by default, so the file
 * stays well under a minute), and a corpus from the programs' manuals: HTTPie's `:PORT` localhost
 * shorthand, METHOD guessing and `--proxy`, aria2c's proxies, URI lists, mirrors and `-P` globs,
 * lwp-request's `-p` proxy and every operand, lynx's `-socks5_proxy` and `-cfg`, w3m's `-o
 * http_proxy=` and `-config`, links' `-http-proxy`/`-socks-proxy`, wget2's `--http-proxy` and `-i`.
 *
 * The property: under a policy that denies loopback by the command's text (`Bash(http *127.0.0.1*)`,
 * `*localhost*`, `*[::1]*`, each program otherwise allowed) and under one that allows each program
 * only towards https://api.example.com, the guard never ALLOWS a command the real program sent to a
 * loopback listener; and plain commands to api.example.com stay allowed under both. A program that
 * is not installed is skipped, unless REQUIRE_ORACLES=1 (then its cases fail).
 */
import { afterAll, beforeAll, describe, it } from "vitest";
import { parsePolicy, permissionPolicy } from "../src/policy/index.js";
import { REQUIRE_ORACLES } from "./helpers/bash-oracle.js";
import { expectAllowed, expectNotAllowed, installed, LOOPBACK_HOSTS, openListeners, printSummary, quote, SHAPES, type CommandCase, type Listeners, type ReachedLog } from "./helpers/net-listeners.js";
import { oracleCases } from "./helpers/oracle.js";

/** Each program's names, and whether it runs here (lynx, w3m and links print their version with `-version`; lwp-request's `-v` exits 255). */
const PROGRAMS = {
  http: { names: ["http", "https"], present: installed("http") },
  aria2c: { names: ["aria2c"], present: installed("aria2c") },
  lwp: { names: ["lwp-request", "GET", "HEAD", "POST"], present: installed("lwp-request", ["-v"], true) },
  lynx: { names: ["lynx"], present: installed("lynx", ["-version"]) },
  w3m: { names: ["w3m"], present: installed("w3m", ["-version"]) },
  links: { names: ["links"], present: installed("links", ["-version"]) },
  wget2: { names: ["wget2"], present: installed("wget2") },
} as const;
type Program = keyof typeof PROGRAMS;
const NAMES = Object.values(PROGRAMS).flatMap((p) => p.names);
const programOf = (command: string): Program => {
  const word = command.replace(/^(?:\w+=\S*\s+)*/, "").split(" ")[0]!;
  return (Object.keys(PROGRAMS) as Program[]).find((key) => (PROGRAMS[key].names as readonly string[]).includes(word))!;
};

// ---- the policies ----

const LOOPBACK_DENIES = ["*127.0.0.1*", "*localhost*", "*[::1]*"];
const denyLoopback = permissionPolicy(
  parsePolicy(
    `version: 1
permissions:
${NAMES.flatMap((program) => LOOPBACK_DENIES.map((host) => `  - { rule: ${JSON.stringify(`Bash(${program} ${host})`)}, mode: deny }`)).join("\n")}
${NAMES.map((program) => `  - { rule: ${JSON.stringify(`Bash(${program}:*)`)}, mode: allow }`).join("\n")}
`,
    "yaml",
    "net-fetchers-deny-loopback.yaml",
  ),
);
/** Each program towards https://api.example.com only, as allow lists write it (a word prefix, a glob, with the option a program is run with). */
const API_PATTERNS = [
  ...NAMES.flatMap((program) => [`${program} https://api.example.com/:*`, `${program} https://api.example.com/*`]),
  "http GET https://api.example.com/*",
  "http --timeout 3 https://api.example.com/*",
  "aria2c --dry-run https://api.example.com/*",
  "GET -t 3 https://api.example.com/*",
  "lynx -dump https://api.example.com/*",
  "lynx -source https://api.example.com/:*",
  "w3m -dump https://api.example.com/*",
  "links -dump https://api.example.com/*",
  "links -source https://api.example.com/:*",
  "wget2 -q https://api.example.com/*",
];
const onlyApi = permissionPolicy(
  parsePolicy(
    `version: 1
permissions:
${API_PATTERNS.map((pattern) => `  - { rule: ${JSON.stringify(`Bash(${pattern})`)}, mode: allow }`).join("\n")}
`,
    "yaml",
    "net-fetchers-only-api.yaml",
  ),
);

/** Commands that reach no loopback listener and that both policies must allow (they are not vacuous). */
const BENIGN: readonly string[] = [
  "http https://api.example.com/v1/users",
  "http GET https://api.example.com/v1/users Accept:application/json",
  "http https://api.example.com/v1/users name=x",
  "https https://api.example.com/v1",
  "http --timeout 3 https://api.example.com/v1",
  "aria2c --dry-run https://api.example.com/x.tar.gz",
  "aria2c https://api.example.com/x.tar.gz",
  "GET https://api.example.com/v1",
  "GET -t 3 https://api.example.com/v1",
  "lwp-request https://api.example.com/",
  "HEAD https://api.example.com/",
  "lynx -dump https://api.example.com/docs",
  "lynx -source https://api.example.com/",
  "w3m -dump https://api.example.com/docs",
  "links -dump https://api.example.com/docs",
  "wget2 -q https://api.example.com/x",
];

// ---- the commands ----

/** Each program's forms around a URL (`U`). */
const FORMS: Readonly<Record<Program, readonly string[]>> = {
  http: ["http U", "http GET U", "https U", "http --timeout 3 U", "http https://api.example.com/ U"],
  aria2c: ["aria2c --dry-run U", "aria2c U", "aria2c --dry-run https://api.example.com/ U"],
  lwp: ["GET U", "lwp-request U", "HEAD U", "GET https://api.example.com/ U", "GET -t 3 U"],
  lynx: ["lynx -dump U", "lynx -source U", "lynx -dump https://api.example.com/ U"],
  w3m: ["w3m -dump U", "w3m -dump_source U", "w3m -dump https://api.example.com/ U"],
  links: ["links -dump U", "links -source U", "links -dump https://api.example.com/ U"],
  wget2: ["wget2 -q U", "wget2 -q -O- U", "wget2 -q https://api.example.com/ U"],
};

/** Commands that place the URL in other ways, from the programs' manuals. */
const CORPUS: readonly CommandCase[] = [
  { command: "http :P", source: "HTTPie docs: localhost shorthand `:3000`" },
  { command: "http :P/x", source: "HTTPie docs: localhost shorthand `:3000/foo`" },
  { command: "http GET :P", source: "HTTPie docs: localhost shorthand with a method" },
  { command: "https :P", source: "HTTPie docs: `https` defaults to https://" },
  { command: "http localhost:P", source: "HTTPie docs: no scheme is http://" },
  { command: "http api 127.0.0.1:P", source: "HTTPie: a first operand of letters is the METHOD" },
  { command: "http https://api.example.com/ --proxy=http:http://127.0.0.1:P", source: "HTTPie docs: --proxy PROTOCOL:URL" },
  { command: "http --proxy http:http://127.0.0.2:P http://api.example.com/", source: "HTTPie docs: --proxy PROTOCOL:URL" },
  { command: "http --prox=http:http://127.0.0.1:P http://api.example.com/", source: "argparse: a unique prefix of a long option" },
  { command: "http --default-scheme=http 127.0.0.1:P", source: "HTTPie docs: --default-scheme" },
  { command: "https --default-scheme http 127.0.0.1:P", source: "HTTPie docs: --default-scheme" },
  { command: "http --offline :P", source: "HTTPie docs: --offline builds the request without sending it" },
  { command: "http -- :P", source: "argparse: operands after --" },
  { command: "http --ignore-stdin POST :P a=1", source: "HTTPie docs: request items" },
  { command: "aria2c --all-proxy=127.0.0.1:P http://api.example.com/", source: "aria2c(1) --all-proxy" },
  { command: "aria2c --http-proxy=http://127.0.0.1:P http://api.example.com/", source: "aria2c(1) --http-proxy" },
  { command: "aria2c --all-prox 127.0.0.2:P http://api.example.com/", source: "getopt_long: a unique prefix of a long option" },
  { command: "aria2c -i urls.txt", files: { "urls.txt": "http://127.0.0.1:P/\n" }, source: "aria2c(1) -i/--input-file" },
  { command: "aria2c --input-file=urls.txt", files: { "urls.txt": "http://127.0.0.2:P/\n" }, source: "aria2c(1) --input-file" },
  { command: "aria2c --conf-path=cfg https://api.example.com/", files: { cfg: "all-proxy=127.0.0.1:P\n" }, source: "aria2c(1) --conf-path" },
  { command: "aria2c -P 'http://127.0.0.{1,2}:P/'", source: "aria2c(1) -P/--parameterized-uri" },
  { command: "aria2c -P 'http://127.0.0.[1-2]:P/'", source: "aria2c(1) -P/--parameterized-uri" },
  { command: "aria2c -Z https://api.example.com/ http://127.0.0.1:P/", source: "aria2c(1) -Z/--force-sequential" },
  { command: "aria2c https://api.example.com/ http://127.0.0.1:P/", source: "aria2c(1): URIs of one file are mirrors" },
  { command: "aria2c -x2 -d out http://127.0.0.1:P/", source: "aria2c(1) -x, -d" },
  { command: "GET -p http://127.0.0.1:P/ http://api.example.com/", source: "lwp-request(1) -p proxy" },
  { command: "lwp-request -m GET http://127.0.0.1:P/", source: "lwp-request(1) -m" },
  { command: "GET -b http://127.0.0.1:P/ x", source: "lwp-request(1) -b base" },
  { command: "HEAD 127.0.0.1:P", source: "lwp-request(1): no scheme" },
  { command: "POST http://127.0.0.1:P/", source: "lwp-request(1) POST" },
  { command: "GET -Pt3 http://127.0.0.1:P/", source: "Getopt::Std bundling" },
  { command: "lynx -dump -socks5_proxy=127.0.0.1:P http://api.example.com/", source: "lynx(1) -socks5_proxy" },
  { command: "lynx -dump -socks5_proxy 127.0.0.2:P http://api.example.com/", source: "lynx(1) -socks5_proxy (value in the next word)" },
  { command: "lynx -dump -cfg=cfg http://api.example.com/", files: { cfg: "http_proxy:http://127.0.0.1:P/\n" }, source: "lynx(1) -cfg" },
  { command: "lynx --dump http://127.0.0.1:P/", source: "lynx(1): options may start with --" },
  { command: "lynx -source 127.0.0.1:P", source: "lynx(1): no scheme" },
  { command: "lynx -dump -get_data http://127.0.0.1:P/", source: "lynx(1) -get_data" },
  { command: "w3m -dump -o http_proxy=http://127.0.0.1:P/ http://api.example.com/", source: "w3m(1) -o opt=value" },
  { command: "w3m -dump -config cfg http://api.example.com/", files: { cfg: "http_proxy http://127.0.0.1:P/\n" }, source: "w3m(1) -config" },
  { command: "w3m -dump_head http://127.0.0.1:P/", source: "w3m(1) -dump_head" },
  { command: "w3m -post data -dump http://127.0.0.1:P/", files: { data: "a=1" }, source: "w3m(1) -post file" },
  { command: "links -http-proxy 127.0.0.1:P -dump http://api.example.com/", source: "links(1) -http-proxy" },
  { command: "links -socks-proxy u@127.0.0.1:P -dump http://api.example.com/", source: "links(1) -socks-proxy" },
  { command: "links -dns-over-https http://127.0.0.1:P/ -dump http://api.example.com/", source: "links(1) -dns-over-https" },
  { command: "links -source http://127.0.0.2:P/", source: "links(1) -source" },
  { command: "wget2 --http-proxy=127.0.0.1:P http://api.example.com/", source: "wget2(1) --http-proxy" },
  { command: "wget2 -e http_proxy=127.0.0.1:P http://api.example.com/", source: "wget2(1) -e" },
  { command: "wget2 -i urls.txt", files: { "urls.txt": "http://127.0.0.1:P/\n" }, source: "wget2(1) -i/--input-file" },
  { command: "wget2 -B http://127.0.0.1:P/ -i rel.txt", files: { "rel.txt": "x\n" }, source: "wget2(1) -B/--base" },
  { command: "wget2 -q 127.0.0.1:P", source: "wget2(1): no scheme is http" },
  { command: "wget2 --compression http://0x7f.1:P/", source: "wget2(1) --compression[=TYPE]: its value only after =" },
  { command: "wget2 --no-proxy http://0x7f.1:P/", source: "wget2(1) --no-proxy[=exceptions]" },
  { command: "wget2 --stats-site http://0x7f.1:P/", source: "wget2(1) --stats-site[=[FORMAT:]FILE]" },
  { command: "lynx -dump -cookie_file http://0x7f.1:P/", source: "lynx(1) -cookie_file=FILE: its value only after =" },
  { command: "lynx -dump -nozap http://0x7f.1:P/", source: "lynx(1) -nozap=DURATION: its value only after =" },
];

/** Every command: each program's forms around each host spelling in each URL shape, every k-th of them, and the corpus. */
function commandCases(): CommandCase[] {
  const out: CommandCase[] = [];
  for (const host of LOOPBACK_HOSTS) {
    for (const shape of SHAPES) {
      const url = quote(shape.replace("H", host));
      for (const forms of Object.values(FORMS)) for (const form of forms) out.push({ command: form.replace("U", url), source: "generated" });
    }
  }
  const limit = process.env.GG_ORACLE_CASES === undefined ? 240 : oracleCases();
  const stride = Math.max(1, Math.ceil(out.length / limit));
  // An odd stride against the forms' count so that every program and form keeps some cases.
  const step = stride % 2 === 0 ? stride + 1 : stride;
  return [...out.filter((_c, i) => i % step === 0), ...CORPUS];
}

// ---- the run ----

let listeners: Listeners | undefined;
beforeAll(async () => {
  listeners = await openListeners(4, {
    ".config/httpie/config.json": '{"default_options": ["--timeout=3"]}\n',
    ".aria2/aria2.conf": "timeout=3\nconnect-timeout=2\nmax-tries=1\nallow-overwrite=true\n",
    ".wget2rc": "timeout = 3\ntries = 1\n",
    ".w3m/config": "",
    ".links2/links.cfg": "",
  });
});
afterAll(() => listeners?.close());

const reached: ReachedLog = [];

describe("HTTPie, aria2c, lwp-request, lynx, w3m, links and wget2 judge the URL readings of shell commands (loopback listeners)", () => {
  const cases = commandCases();
  it(`the policies are not vacuous: ${BENIGN.length} plain commands to api.example.com are allowed by both`, () => expectAllowed({ denyLoopback, onlyApi }, BENIGN));
  it.concurrent.each(cases.map((c) => [c.command, c] as const))("%s", async (_command, c) => {
    const program = programOf(c.command);
    if (!PROGRAMS[program].present) {
      if (REQUIRE_ORACLES) throw new Error(`REQUIRE_ORACLES: ${PROGRAMS[program].names[0]} is not installed`);
      return;
    }
    const { command, reached: reachedLoopback } = await listeners!.run(c, 12_000);
    if (reachedLoopback.length > 0) expectNotAllowed({ denyLoopback, onlyApi }, command, reachedLoopback, c.source, reached);
  }, 30_000);
  afterAll(() => printSummary("net-fetchers-oracle", cases.length, reached));
});
