/**
 * File rules and URL rules, round 7: listings made by shell programs, fetch tools known only by their URL argument, and
 * URL and path spellings judged by the real programs and the real filesystem.
 *
 * 1. Listings in Bash agree with the listing tools. A directory rule's names inside the directory are its contents: LS
 *    of `secrets` is denied, a Glob from above that may list names inside it asks (earlier rounds). `ls secrets`, `ls -R`,
 *    `find .`, `tree`, `du -a`, `rg --files` and `fd` print the same names and were allowed. The real programs, run in a
 *    tree whose covered directory holds files with marked names, judge generated listings: a listing the guard allows
 *    must not print a name inside the covered directory; `ls src`, `ls -d secrets`, `find src -name '*.ts'`, `du -sh .`
 *    and listings under a rule on a file (`Read(.env)`: a file's name is not its contents) stay allowed
 *    [anthropics/claude-code#17226 (`ls -la secret/` is denied under a deny on the directory, and listing is reading
 *    it); anthropics/claude-code#28008 (Glob lists the names inside a denied directory: a leak);
 *    cognizant-ai-lab/neuro-san-studio#1413 (a listing tool omits blocked entries so it never reveals what exists)].
 * 2. A fetch tool known only by its URL argument: an MCP tool (`http_get`, `fetch_url`, `browser_navigate`,
 *    `scrape`) whose input holds a `url` fetches it as WebFetch does; the WebFetch deny rules (`domain:169.254.169.254`)
 *    and the Read rules (a `file:` URL names a file) hold for it, as they hold for tools declared with a url argument
 *    [electric-sql/electric#4361 (a built-in `fetch_url` tool with no host policy fetched `http://169.254.169.254/` and
 *    `http://127.0.0.1/`); modelcontextprotocol/servers#4061 (a fetch server reaches the metadata address); cyberchitta/scrapling-fetch-mcp#6
 *    (a fetch tool reads `file:///etc/passwd`); jae-jae/fetcher-mcp#37 (another fetch tool's SSRF)].
 * 3. URL spellings of a loopback listener, judged by the real curl (and wget, python's urllib when installed) connecting
 *    to a listener on this machine: IPv4 forms (decimal, octal, hex, short), IPv6 forms (`[::1]`, mapped, `[::]`),
 *    `localhost.` and `*.localhost` (curl answers them with the loopback address itself), userinfo, percent-encoded
 *    hosts, curl's URL globbing (`{a,b}`, `[1-2]`), `--resolve`, `--connect-to`, `-x` and proxies set in the
 *    environment. A spelling the real program reaches the listener with must not be allowed under a deny of
 *    `localhost`, `127.0.0.1` and `[::1]`; names that reach nothing stay allowed curl/curl#11104 and curl/curl#15628 (curl answers `*.localhost` and
 *    `localhost.` with the loopback address without asking the resolver); electric-sql/electric#4361 (a `fetch_url` tool
 *    reached 127.0.0.1 and the metadata address); open-octo/octo-agent#1830 (an agent told to use curl in the terminal
 *    because the fetch tool blocks localhost: the shell must hold the same rule)].
 * 4. Path spellings of a covered file through the real filesystem: a symlinked directory, `..` through it, a trailing
 *    `/.`, `//`, `/proc/self/root`, a hard link: `realpath` and `stat` judge, for Read, Edit and `cat`.
 * 5. A directory named as a covered file (a virtualenv made as `python -m venv .env`): Read(.env) covers what it holds,
 *    and `grep -r --include='*.py'` searches it (the name filter matches the files' own names); the real grep and
 *    ripgrep judge, in a tree with such a directory and one without (where the filtered searches stay allowed)
 *    [anthropics/claude-code#91690 (`grep -r` over a directory holding a denied file prints it);
 *    anthropics/claude-code#91995 (the opposite cost: every `grep -r .` asking under `Read(./.env)`)].
 * 6. Walks and listings through links: a start that is a link into the covered directory (`grep -r KEY seclink`,
 *    `rg KEY seclink`, Grep/Glob/LS of it), and walks that follow a link below their start (`grep -R`, `rg -L`,
 *    `find -L`, `tar -h`, `du -L`, `tree -l`, `zip -r`, which follows links by default); the real programs judge
 *    [anthropics/claude-code#28008 (recursive searches from a parent leak a denied directory)].
 * 7. A walk of a tree that holds another name (a hard link) of a covered file reads it: `grep -r`, `tar c`, Grep; the
 *    kernel's link count and the covered directory's inodes judge [landstrip/landstrip#90 (a deny bypassed through a
 *    hard link), cited by name for a single file in an earlier round; here for a walk].
 *
 * Before the fix (this file on the unchanged guard): 33 of 58 tests failed. Class 1: 107 generated listings printed
 * names inside secrets/ while allowed (`ls secrets`, `ls -R`, `find .`, `tree`, `du -a`, `rg --files`, through
 * `seclink` too); class 2: every url-argument tool fetched the metadata address and `file:` URLs of .env; classes 3 and
 * 4: no leak (kept as oracles); class 5: 20 filtered searches printed the virtualenv's canary while allowed; class 6: 18
 * allowed walks printed secrets/ through a link, and Grep/Glob/LS of `seclink` were allowed; then class 7 (written
 * after the others were fixed): 4 of 4 failed (`grep -r`, `tar c` and Grep of a tree holding a hard link of
 * secrets/key allowed). After: 0 of 62 fail, and 67 of 80 listings that print no name inside secrets/ stay allowed.
 */
import { execFile, spawnSync } from "node:child_process";
import { linkSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Guard } from "../src/guard/index.js";
import { parsePolicy, permissionPolicy } from "../src/policy/index.js";
import { defineTool } from "../src/tools/define-tool.js";
import { installed } from "./helpers/bash-rules.js";
import { ORACLE_SEED } from "./helpers/oracle.js";

const root = realpathSync(mkdtempSync(path.join(tmpdir(), "gg-file-net-7-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const MARK = "zq7mark";
const FILES: Record<string, string> = {
  ".env": "API_KEY=CANARY_7\n",
  "secrets/key-zq7mark.txt": "CANARY_7_SEC\n",
  "secrets/deep-zq7mark/more-zq7mark.txt": "CANARY_7_SEC\n",
  "src/app.ts": "export const app = 1;\n",
  "src/lib/util.ts": "export const u = 2;\n",
  "docs/readme.md": "# readme\n",
  ".env.d/keep.txt": "x\n",
};
for (const [name, text] of Object.entries(FILES)) {
  mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
  writeFileSync(path.join(root, name), text);
}
symlinkSync("../secrets/deep-zq7mark", path.join(root, "docs", "deeplink"), "dir");
symlinkSync(path.join(root, "secrets"), path.join(root, "seclink"), "dir");
mkdirSync(path.join(root, "hard"));
linkSync(path.join(root, "secrets/key-zq7mark.txt"), path.join(root, "hard/hard.txt"));

const quote = (word: string) => `'${word.replace(/'/g, "'\\''")}'`;

function policyOf(rules: readonly string[], allow: readonly string[], tools: readonly string[]): ReturnType<typeof permissionPolicy> {
  const lines = [...rules.map((rule) => `  - { rule: ${JSON.stringify(rule)}, mode: deny }`), ...allow.map((rule) => `  - { rule: ${JSON.stringify(rule)}, mode: allow }`)];
  const text = `version: 1\npathBase: ${JSON.stringify(root)}\npermissions:\n${lines.join("\n")}\ntools:\n${tools.map((tool) => `  ${tool}: { risk: low }`).join("\n")}\n`;
  return permissionPolicy(parsePolicy(text, "yaml", "file-net-7.yaml"));
}

// ---------------------------------------------------------------------------------------------------------------
describe("1. listings in Bash agree with the listing tools", () => {
  const LISTERS = ["Bash(ls:*)", "Bash(find:*)", "Bash(tree:*)", "Bash(du:*)", "Bash(rg:*)", "Bash(fd:*)", "Bash(fdfind:*)", "LS", "Glob"];
  const secrets = policyOf(["Read(./secrets/**)"], LISTERS, ["Bash", "LS", "Glob"]);
  const dotenv = policyOf(["Read(.env)"], LISTERS, ["Bash", "LS", "Glob"]);
  const fd = installed("fdfind") ? "fdfind" : installed("fd") ? "fd" : undefined;
  const PROGRAMS = [
    ["ls", ["", "-R", "-la", "-lR", "-1", "-d", "-Ra", "--recursive", "-A"]],
    ["find", ["", "-name '*.txt'", "-type f", "-maxdepth 1", "-maxdepth 0", "-maxdepth 2", "-name '*.ts'", "-type d"]],
    ["du", ["-a", "", "-sh", "-ah", "--max-depth=0", "-d 1", "-s"]],
    ["rg", ["--files", "--files --hidden", "--files -g '*.txt'"]],
    ...(installed("tree") ? [["tree", ["", "-a", "-L 1", "-L 2", "-d"]] as const] : []),
    ...(fd !== undefined ? [[fd, ["", ". -H", "-t f", "zq7"]] as const] : []),
  ] as const;
  const WHERE = ["", ".", "./", root, "secrets", "secrets/", "src", "docs", "seclink", "s*", "docs/deeplink", "secrets/..", "*"];
  const lines = fc.sample(
    fc.constantFrom(...PROGRAMS).chain(([program, options]) => fc.record({ program: fc.constant(program), options: fc.constantFrom(...options), where: fc.constantFrom(...WHERE) })),
    { numRuns: 260, seed: ORACLE_SEED },
  ).map(({ program, options, where }) => {
    // find takes its starting points before its expression.
    if (program === "find") return [program, where, options].filter((w) => w !== "").join(" ");
    // fd's first operand is its pattern.
    if (program === fd && where !== "") return [program, options.startsWith(".") ? options : `${options} .`, where].filter((w) => w !== "").join(" ").replace(/\s+/g, " ");
    return [program, options, where].filter((w) => w !== "").join(" ");
  });
  const unique = [...new Set(lines)];
  const run = (line: string) => spawnSync("bash", ["-c", line.replace(/^rg /, "rg --no-config ")], { cwd: root, encoding: "utf8" }).stdout;

  it("under Read(./secrets/**): no allowed listing prints a name inside secrets/ (the real programs judge); benign listings stay allowed", () => {
    const leaks: string[] = [];
    let benignAllowed = 0;
    let benign = 0;
    for (const line of unique) {
      // A link's target printed beside its name (`ls -l`, `tree`) is the link's text, not a listing of where it leads.
      const out = run(line).replace(/ -> .*$/gm, "");
      const leaked = out.includes(MARK);
      const decision = secrets.decide("Bash", { command: line });
      if (decision.mode === "allow" && leaked) leaks.push(`${line}: ${out.split("\n").find((one) => one.includes(MARK))}`);
      if (!leaked && out.trim() !== "") {
        benign++;
        if (decision.mode === "allow") benignAllowed++;
      }
    }
    console.log(`Read(./secrets/**): ${benignAllowed} of ${benign} listings that print no name inside secrets/ are allowed`);
    expect(leaks).toEqual([]);
    expect(benignAllowed, "listings that name nothing inside secrets/ stay allowed").toBeGreaterThanOrEqual(Math.floor(benign / 3));
  });

  it("under Read(.env): a file's name is not its contents; every listing stays allowed", () => {
    const asked = unique.filter((line) => dotenv.decide("Bash", { command: line }).mode !== "allow");
    expect(asked).toEqual([]);
  });

  it.each([
    ["ls secrets", "deny"],
    ["ls -la secrets/", "deny"],
    ["ls -R", "not-allow"],
    ["ls -R .", "not-allow"],
    ["find .", "not-allow"],
    ["find . -name '*.txt'", "not-allow"],
    ["find secrets -type f", "deny"],
    ["tree", "not-allow"],
    ["du -a", "not-allow"],
    ["du -a secrets", "deny"],
    ["rg --files", "not-allow"],
    ["rg --files secrets", "deny"],
    ["ls seclink", "deny"],
    ["ls docs/deeplink", "deny"],
    // Benign twins: a listing that names only what is beside the covered directory, or elsewhere.
    ["ls", "allow"],
    ["ls -la", "allow"],
    ["ls src", "allow"],
    ["ls -d secrets", "allow"],
    ["ls -R src", "allow"],
    ["find src -name '*.ts'", "allow"],
    ["find . -maxdepth 1", "allow"],
    ["find . -maxdepth 1 -name '*.md'", "allow"],
    ["tree src", "allow"],
    ["tree -L 1", "allow"],
    ["du -sh .", "allow"],
    ["du -sh src docs", "allow"],
    ["rg --files src", "allow"],
    // docs/ holds a link into secrets/: which walks follow links below where they start is not read, so it asks.
    ["rg --files docs", "not-allow"],
  ] as const)("under Read(./secrets/**): %s: %s", (command, expected) => {
    const decision = secrets.decide("Bash", { command });
    if (expected === "not-allow") expect(decision.mode, decision.reason).not.toBe("allow");
    else expect(decision.mode, decision.reason).toBe(expected);
    if (expected !== "allow") expect(decision.reason ?? "").toMatch(/names inside|Read\(\.\/secrets\/\*\*\)/);
  });

  it("a covered directory that does not exist on this machine holds no names: listings from above it stay allowed, in the shell and the tools alike", () => {
    const absent = path.join(root, "absent-workspace");
    const text = `version: 1\npathBase: ${JSON.stringify(absent)}\npermissions:\n  - { rule: "Read(./secrets/**)", mode: deny }\n${LISTERS.map((rule) => `  - { rule: ${JSON.stringify(rule)}, mode: allow }`).join("\n")}\ntools:\n  Bash: { risk: low }\n  LS: { risk: low }\n  Glob: { risk: low }\n`;
    const elsewhere = permissionPolicy(parsePolicy(text, "yaml", "absent.yaml"));
    for (const command of ["find . -name '*.py'", "ls -R", "tree -L 2", "rg --files", "du -a"]) expect(elsewhere.decide("Bash", { command }).mode, command).toBe("allow");
    expect(elsewhere.decide("Glob", { pattern: "**/*.py" }).mode).toBe("allow");
    // The directory itself is still covered by name.
    expect(elsewhere.decide("Bash", { command: "ls secrets" }).mode).toBe("deny");
    expect(elsewhere.decide("LS", { path: "secrets" }).mode).toBe("deny");
    // Where it exists, the same listings ask.
    expect(secrets.decide("Bash", { command: "find . -name '*.py'" }).mode).not.toBe("allow");
    expect(secrets.decide("Glob", { pattern: "**/*.py" }).mode).not.toBe("allow");
  });

  it("the listing tools and the shell agree on the same listings", () => {
    const pairs: [string, Record<string, string>, string][] = [
      ["ls secrets", { path: "secrets" }, "LS"],
      ["ls src", { path: "src" }, "LS"],
      ["ls", { path: "." }, "LS"],
      ["find . -name '*'", { pattern: "**/*" }, "Glob"],
      ["find src -name '*.ts'", { pattern: "src/**/*.ts" }, "Glob"],
    ];
    for (const [command, args, tool] of pairs) {
      const shell = secrets.decide("Bash", { command }).mode === "allow";
      const listing = secrets.decide(tool, args).mode === "allow";
      expect(shell, `${command} vs ${tool} ${JSON.stringify(args)}`).toBe(listing);
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe("2. a tool whose input holds a URL fetches it", () => {
  const TOOLS = ["http_get", "fetch_url", "browser_navigate", "scrape", "WebFetch", "fetch"];
  const p = policyOf(["Read(.env)", "Read(./secrets/**)", "WebFetch(domain:169.254.169.254)", "WebFetch(domain:localhost)"], TOOLS, TOOLS);
  const DENIED = ["http://169.254.169.254/latest/meta-data/", "http://[::ffff:a9fe:a9fe]/", "http://2852039166/", "http://0xa9.0xfe.0xa9.0xfe/", "http://localhost:8080/admin", "http://127.1/", `file://${root}/.env`, `file://${root}/secrets/key-zq7mark.txt`, `FILE://localhost${root}/src/../.env`];
  const BENIGN = ["https://example.com/", "https://docs.python.org/3/library/urllib.html", "https://example.com/.env", "https://example.com/secrets/key-zq7mark.txt"];

  it.each(TOOLS)("%s: every URL naming a denied place or a covered file is denied; others allowed", (tool) => {
    for (const url of DENIED) expect(p.decide(tool, { url }).mode, `${tool} ${url}`).toBe("deny");
    for (const url of BENIGN) expect(p.decide(tool, { url }).mode, `${tool} ${url}`).toBe("allow");
  });

  it("a tool with other arguments beside its url, and a tool without a url argument", () => {
    expect(p.decide("browser_navigate", { url: "http://169.254.169.254/", wait: 2 }).mode).toBe("deny");
    expect(p.decide("http_get", { url: "https://example.com/", headers: { a: "b" } }).mode).toBe("allow");
    expect(p.decide("scrape", { query: "169.254.169.254" }).mode).toBe("allow");
  });

  it("a tool whose url argument the policy declares of another kind is not read as fetching it; one declared url by another name is", () => {
    const text = `version: 1\npermissions:\n  - { rule: "WebFetch(domain:169.254.169.254)", mode: deny }\n  - { rule: save_bookmark, mode: allow }\n  - { rule: open_page, mode: allow }\ntools:\n  save_bookmark: { risk: low, fields: { url: text } }\n  open_page: { risk: low, fields: { address: url } }\n`;
    const declared = permissionPolicy(parsePolicy(text, "yaml", "declared.yaml"));
    expect(declared.decide("save_bookmark", { url: "http://169.254.169.254/" }).mode).toBe("allow");
    expect(declared.decide("open_page", { address: "http://169.254.169.254/" }).mode).toBe("deny");
    expect(declared.decide("open_page", { address: "https://example.com/" }).mode).toBe("allow");
  });

  it("with the guard's tools known: a closed schema without a url argument carries no fetch rules; a schema that takes any argument, or has url, does", () => {
    const tools = [
      defineTool({ name: "save_note", description: "Saves a note.", schema: z.object({ text: z.string() }), risk: "low", execute: () => "saved" }),
      defineTool({ name: "open_link", description: "Opens a page.", schema: z.object({ url: z.string() }), risk: "low", execute: () => "opened" }),
      defineTool({ name: "call_api", description: "Any request.", schema: z.looseObject({ method: z.string() }), risk: "low", execute: () => "done" }),
      defineTool({ name: "WebFetch", description: "Fetches a URL.", schema: z.object({ url: z.string(), prompt: z.string() }), risk: "low", execute: () => "page" }),
      defineTool({ name: "Read", description: "Reads a file.", schema: z.object({ file_path: z.string() }), risk: "low", execute: () => "text" }),
    ];
    const known = policyOf(["WebFetch(domain:169.254.169.254)", "Read(.env)"], ["save_note", "open_link", "call_api"], ["save_note", "open_link", "call_api"]);
    expect(known.decide("save_note", { url: "http://169.254.169.254/" }).mode, "before the guard hands over the schemas").toBe("deny");
    new Guard({ tools, permissions: known });
    // save_note's schema has no url: the tool is never handed one (the guard parses its arguments first).
    expect(known.decide("save_note", { text: "x", url: "http://169.254.169.254/" }).mode).toBe("allow");
    expect(known.decide("open_link", { url: "http://169.254.169.254/" }).mode).toBe("deny");
    expect(known.decide("open_link", { url: `file://${root}/.env` }).mode).toBe("deny");
    expect(known.decide("call_api", { method: "GET", url: "http://169.254.169.254/" }).mode).toBe("deny");
    expect(known.decide("call_api", { method: "GET", uri: `file://${root}/.env` }).mode).toBe("deny");
  });

  it("the reason names the rule and the URL", () => {
    const decision = p.decide("http_get", { url: "http://169.254.169.254/" });
    expect(decision.reason ?? "").toMatch(/169\.254\.169\.254/);
    const file = p.decide("fetch_url", { url: `file://${root}/.env` });
    expect(file.reason ?? "").toMatch(/Read\(\.env\)/);
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe.runIf(installed("curl"))("3. URL spellings of a loopback listener: the real curl judges", () => {
  let server: Server;
  let port = 0;
  const hits = new Set<string>();
  beforeAll(async () => {
    server = createServer((request, response) => {
      hits.add(new URL(request.url ?? "/", "http://x").searchParams.get("id") ?? request.url ?? "");
      // A proxy request carries the absolute URL: its id is in it too.
      const match = /id=(\d+)/.exec(request.url ?? "");
      if (match) hits.add(match[1]!);
      response.end("ok");
    });
    await new Promise<void>((resolve) => server.listen(0, "::", () => resolve()));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** Runs the lines (bash -c), a few at a time, with no proxy from this environment. */
  async function runAll(lines: readonly string[]): Promise<void> {
    const queue = [...lines];
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root };
    const worker = async () => {
      for (let line = queue.shift(); line !== undefined; line = queue.shift()) {
        await new Promise<void>((resolve) => execFile("bash", ["-c", line!], { env, timeout: 6000 }, () => resolve()));
      }
    };
    await Promise.all(Array.from({ length: 6 }, worker));
  }
  const p = () =>
    permissionPolicy(
      parsePolicy(
        `version: 1\npermissions:\n  - { rule: "WebFetch(domain:localhost)", mode: deny }\n  - { rule: "WebFetch(domain:127.0.0.1)", mode: deny }\n  - { rule: "WebFetch(domain:[::1])", mode: deny }\n  - { rule: "Bash(curl:*)", mode: allow }\n  - { rule: "Bash(wget:*)", mode: allow }\n  - { rule: "Bash(python3:*)", mode: allow }\n  - { rule: WebFetch, mode: allow }\ntools:\n  Bash: { risk: medium }\n  WebFetch: { risk: low }\n`,
        "yaml",
        "loopback.yaml",
      ),
    );
  const HOSTS = ["127.0.0.1", "127.1", "127.0.1", "2130706433", "017700000001", "0x7f000001", "0x7f.1", "0177.0.0.1", "127.000.000.001", "0", "0.0.0.0", "localhost", "LOCALHOST", "localhost.", "a.localhost", "x.y.localhost", "[::1]", "[0:0:0:0:0:0:0:1]", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[::]", "%31%32%37.0.0.1", "127.0.0.2", "127.255.255.254"];
  const FORMS = ["plain", "userinfo", "glob-brace", "glob-range", "resolve", "connect-to", "proxy-flag", "proxy-env", "no-scheme"] as const;
  const cases = fc.sample(fc.record({ host: fc.constantFrom(...HOSTS), form: fc.constantFrom(...FORMS) }), { numRuns: 140, seed: ORACLE_SEED });
  const lineOf = (host: string, form: (typeof FORMS)[number], id: number): string | undefined => {
    const target = `${host}:${port}`;
    const bare = host.replace(/^\[|\]$/g, "");
    switch (form) {
      case "plain":
        return `curl -s -m 2 ${quote(`http://${target}/?id=${id}`)}`;
      case "userinfo":
        return `curl -s -m 2 ${quote(`http://example.invalid@${target}/?id=${id}`)}`;
      case "glob-brace":
        return `curl -s -m 2 ${quote(`http://{example.invalid,${target}}/?id=${id}`)}`;
      case "glob-range":
        return /^\d+\.\d+\.\d+\.\d+$/.test(host) ? `curl -s -m 2 ${quote(`http://${host.replace(/\.(\d+)$/, ".[$1-$1]")}:${port}/?id=${id}`)}` : undefined;
      case "resolve":
        return /^[\d.]+$|^\[/.test(host) && !host.includes("%") ? `curl -s -m 2 --resolve ${quote(`example.invalid:${port}:${bare}`)} ${quote(`http://example.invalid:${port}/?id=${id}`)}` : undefined;
      case "connect-to":
        return `curl -s -m 2 --connect-to ${quote(`example.invalid:${port}:${host}:${port}`)} ${quote(`http://example.invalid:${port}/?id=${id}`)}`;
      case "proxy-flag":
        return `curl -s -m 2 -x ${quote(`http://${target}`)} ${quote(`http://example.invalid/?id=${id}`)}`;
      case "proxy-env":
        return `http_proxy=${quote(`http://${target}`)} curl -s -m 2 ${quote(`http://example.invalid/?id=${id}`)}`;
      case "no-scheme":
        return `curl -s -m 2 ${quote(`${target}/?id=${id}`)}`;
    }
  };

  it("no allowed curl line reaches the listener; the same URLs as WebFetch urls are not allowed when curl reaches them", { timeout: 120_000 }, async () => {
    const policy = p();
    const leaks: string[] = [];
    let reached = 0;
    const lines = cases.map(({ host, form }, id) => ({ host, form, id, line: lineOf(host, form, id) }));
    await runAll(lines.flatMap((one) => (one.line === undefined ? [] : [one.line])));
    lines.forEach(({ host, form, id, line }) => {
      if (line === undefined || !hits.has(String(id))) return;
      reached++;
      const decision = policy.decide("Bash", { command: line });
      if (decision.mode === "allow") leaks.push(line);
      if (form === "plain") {
        const web = policy.decide("WebFetch", { url: `http://${host}:${port}/` });
        if (web.mode === "allow") leaks.push(`WebFetch http://${host}:${port}/`);
      }
    });
    expect(leaks).toEqual([]);
    expect(reached, "the listener is reached by most spellings").toBeGreaterThan(40);
  });

  it.runIf(installed("wget") && installed("python3"))("wget and python's urllib reach the listener by the same spellings; the guard does not allow them", { timeout: 120_000 }, async () => {
    const policy = p();
    const lines = HOSTS.flatMap((host, k) => {
      const url = (id: number) => `http://${host}:${port}/?id=${id}`;
      return [
        { id: 1000 + k, line: `wget -q -T 2 -t 1 -O - ${quote(url(1000 + k))}` },
        { id: 2000 + k, line: `python3 -c ${quote("import urllib.request,sys; urllib.request.urlopen(sys.argv[1], timeout=2)")} ${quote(url(2000 + k))}` },
      ];
    });
    await runAll(lines.map((one) => one.line));
    const reached = lines.filter((one) => hits.has(String(one.id)));
    expect(reached.length).toBeGreaterThan(10);
    expect(reached.filter((one) => policy.decide("Bash", { command: one.line }).mode === "allow").map((one) => one.line)).toEqual([]);
  });

  it("benign twins: names that reach nothing stay allowed", () => {
    const policy = p();
    for (const command of ["curl -s https://example.com/", "curl -s 'https://{www,docs}.example.com/'", "curl -s --resolve example.com:443:93.184.215.14 https://example.com/", "wget -q https://example.org/file.txt"]) {
      expect(policy.decide("Bash", { command }).mode, command).toBe("allow");
    }
    expect(policy.decide("WebFetch", { url: "https://localhost.example.com/" }).mode).toBe("allow");
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe("4. path spellings of a covered file through the real filesystem", () => {
  const p = policyOf(["Read(./secrets/**)", "Edit(./secrets/**)"], ["Read", "Edit", "Bash(cat:*)"], ["Read", "Edit", "Bash"]);
  const key = path.join(root, "secrets/key-zq7mark.txt");
  const keyStat = statSync(key);
  const DETOURS = ["secrets/", "seclink/", "./seclink/", "docs/deeplink/../", "docs/deeplink/./../", "secrets//", "secrets/./", "src/../secrets/", `/proc/self/root${root}/secrets/`, "seclink/deep-zq7mark/../", "secrets/deep-zq7mark/../"];
  const NAMES = ["key-zq7mark.txt", "deep-zq7mark/more-zq7mark.txt", "key-zq7mark.txt/.", "key-zq7mark.txt/"];
  const spellings = [...DETOURS.flatMap((detour) => NAMES.map((name) => (detour.startsWith("/") ? `${detour}${name}` : `${root}/${detour}${name}`))), `${root}/hard/hard.txt`];
  const reaches = (file: string): boolean => {
    try {
      const stat = statSync(file);
      const real = realpathSync(file);
      return real.startsWith(`${root}/secrets/`) || (stat.ino === keyStat.ino && stat.dev === keyStat.dev);
    } catch {
      return false;
    }
  };

  it("no allowed Read, Edit or cat reaches a file inside secrets/ (realpath and the inode judge)", () => {
    const leaks: string[] = [];
    let reachable = 0;
    for (const file of spellings) {
      if (!reaches(file)) continue;
      reachable++;
      if (p.decide("Read", { file_path: file }).mode === "allow") leaks.push(`Read ${file}`);
      if (p.decide("Edit", { file_path: file, old_string: "a", new_string: "b" }).mode === "allow") leaks.push(`Edit ${file}`);
      const line = `cat ${quote(path.relative(root, file) || ".")}`;
      const printed = spawnSync("bash", ["-c", line], { cwd: root, encoding: "utf8" }).stdout;
      if (printed.includes("CANARY_7_SEC") && p.decide("Bash", { command: line }).mode === "allow") leaks.push(line);
    }
    expect(leaks).toEqual([]);
    expect(reachable).toBeGreaterThan(15);
    expect(readFileSync(path.join(root, "hard/hard.txt"), "utf8")).toContain("CANARY_7_SEC");
  });

  it("benign twins: files beside the covered directory stay allowed", () => {
    for (const file of [`${root}/src/app.ts`, `${root}/docs/readme.md`, `${root}/secrets/../src/app.ts`, `${root}//src//lib/util.ts`]) {
      expect(p.decide("Read", { file_path: file }).mode, file).toBe("allow");
    }
    expect(p.decide("Bash", { command: "cat src/app.ts docs/readme.md" }).mode).toBe("allow");
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe.runIf(installed("grep") && installed("rg"))("5. a directory named as a covered file, searched with a name filter: the real grep and ripgrep judge", () => {
  // A virtual environment made as `python -m venv .env`: Read(.env) covers the directory and every file under it.
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), "gg-file-net-7-venv-")));
  afterAll(() => rmSync(base, { recursive: true, force: true }));
  const TREE: Record<string, string> = {
    "app/main.py": "KEY = 1\n",
    "app/util.ts": "export const KEY = 1;\n",
    ".env/lib/site.py": "KEY = 'CANARY_7_VENV'\n",
    "pkg/.env/conf.py": "KEY = 'CANARY_7_VENV'\n",
    "pkg/.env/conf.ts": "export const KEY = 'CANARY_7_VENV';\n",
  };
  for (const [name, text] of Object.entries(TREE)) {
    mkdirSync(path.dirname(path.join(base, name)), { recursive: true });
    writeFileSync(path.join(base, name), text);
  }
  const plain = realpathSync(mkdtempSync(path.join(tmpdir(), "gg-file-net-7-plain-")));
  afterAll(() => rmSync(plain, { recursive: true, force: true }));
  mkdirSync(path.join(plain, "app"));
  writeFileSync(path.join(plain, "app/main.py"), "KEY = 1\n");
  writeFileSync(path.join(plain, ".env"), "KEY=CANARY_7_VENV\n");
  const policyAt = (at: string) =>
    permissionPolicy(parsePolicy(`version: 1\npathBase: ${JSON.stringify(at)}\npermissions:\n  - { rule: "Read(.env)", mode: deny }\n  - { rule: "Bash(grep:*)", mode: allow }\n  - { rule: "Bash(rg:*)", mode: allow }\n  - { rule: Grep, mode: allow }\ntools:\n  Bash: { risk: low }\n  Grep: { risk: low }\n`, "yaml", "venv.yaml"));
  const FILTERS = ["--include='*.py'", "--include=*.py", "--include='*.ts'", "--include='*.py' --include='*.ts'", "--include='*.md'"];
  const RG = ["-t py", "-t ts", "-g '*.py'", "--hidden -t py", "--hidden -g '*.py'", "-uu -t py", "--hidden -t ts"];
  const WHERE = ["", ".", "pkg", "app"];
  const lines = [
    ...FILTERS.flatMap((filter) => WHERE.map((where) => `grep -rn ${filter} KEY ${where}`.trim())),
    ...RG.flatMap((filter) => WHERE.map((where) => `rg -n ${filter} KEY ${where}`.trim())),
  ];

  it("no allowed filtered search prints a file inside a .env directory; the same searches in a tree without one stay allowed", () => {
    const venv = policyAt(base);
    const other = policyAt(plain);
    const leaks: string[] = [];
    let allowedElsewhere = 0;
    for (const line of lines) {
      const out = spawnSync("bash", ["-c", line.replace(/^rg /, "rg --no-config ")], { cwd: base, encoding: "utf8" }).stdout;
      if (out.includes("CANARY_7_VENV") && venv.decide("Bash", { command: line }).mode === "allow") leaks.push(line);
      const there = spawnSync("bash", ["-c", line.replace(/^rg /, "rg --no-config ")], { cwd: plain, encoding: "utf8" }).stdout;
      if (!there.includes("CANARY_7_VENV") && other.decide("Bash", { command: line }).mode === "allow") allowedElsewhere++;
    }
    expect(leaks).toEqual([]);
    expect(allowedElsewhere, "filtered searches of a tree with a .env file only stay allowed").toBeGreaterThanOrEqual(20);
  });

  it("the Grep tool with a glob filter, likewise", () => {
    expect(policyAt(base).decide("Grep", { pattern: "KEY", glob: "*.py", path: base }).mode).toBe("allow");
    expect(policyAt(base).decide("grep", { pattern: "KEY", glob: "*.py", path: base }).mode).not.toBe("allow");
    expect(policyAt(plain).decide("grep", { pattern: "KEY", glob: "*.py", path: plain }).mode).toBe("allow");
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe.runIf(installed("grep") && installed("rg"))("6. walks and listings that start at, or pass, a link into a covered directory: the real programs judge", () => {
  const p = policyOf(["Read(./secrets/**)"], ["Bash(grep:*)", "Bash(rg:*)", "Bash(find:*)", "Bash(ls:*)", "Bash(du:*)", "Bash(tar:*)", "Bash(zip:*)", "Bash(tree:*)", "Grep", "Glob", "LS"], ["Bash", "Grep", "Glob", "LS"]);
  // seclink -> secrets, docs/deeplink -> secrets/deep-zq7mark (made at the top of the file).
  const WALKS = [
    "grep -r KEY_OR_CANARY seclink", "grep -r KEY_OR_CANARY seclink/", "grep -rn KEY_OR_CANARY ./seclink", "grep -R KEY_OR_CANARY docs", "grep -R KEY_OR_CANARY .", "grep -r KEY_OR_CANARY docs",
    "rg KEY_OR_CANARY seclink", "rg -L KEY_OR_CANARY docs", "rg --follow KEY_OR_CANARY docs", "rg KEY_OR_CANARY docs", "rg --files seclink", "rg --files -L docs",
    "find -L docs", "find docs -follow", "find seclink/", "ls -RL docs", "ls -R docs", "du -aL docs", "tar chf - docs", "tar cf - docs",
    ...(installed("tree") ? ["tree -l docs", "tree docs"] : []),
    ...(installed("zip") ? ["zip -r - docs"] : []),
  ].map((line) => line.replace("KEY_OR_CANARY", "-e CANARY_7 -e zq7"));

  it("no allowed walk or listing prints a covered file's text or a name inside secrets/", () => {
    const leaks: string[] = [];
    for (const line of WALKS) {
      const out = spawnSync("bash", ["-c", line.replace(/^rg /, "rg --no-config ")], { cwd: root, encoding: "utf8" }).stdout.replace(/ -> .*$/gm, "");
      if ((out.includes("CANARY_7_SEC") || out.includes(MARK)) && p.decide("Bash", { command: line }).mode === "allow") leaks.push(line);
    }
    expect(leaks).toEqual([]);
  });

  it.each([
    ["Grep", { pattern: "CANARY", path: "seclink" }, "deny"],
    ["Grep", { pattern: "CANARY", path: `${root}/seclink` }, "deny"],
    ["Glob", { pattern: "*", path: "seclink" }, "deny"],
    ["LS", { path: "seclink" }, "deny"],
    ["LS", { path: "docs/deeplink" }, "deny"],
    ["Grep", { pattern: "CANARY", path: "src" }, "allow"],
    ["Glob", { pattern: "**/*.ts", path: "src" }, "allow"],
    ["LS", { path: "docs" }, "allow"],
  ] as const)("%s %j: %s", (tool, args, expected) => {
    expect(p.decide(tool, args).mode, JSON.stringify(args)).toBe(expected);
  });

  it("benign twins: walks of trees without such a link stay allowed", () => {
    for (const command of ["grep -r -e CANARY src", "grep -R -e CANARY src", "rg -L CANARY src", "find -L src", "tar chf - src", "du -aL src"]) {
      expect(p.decide("Bash", { command }).mode, command).toBe("allow");
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe.runIf(installed("grep"))("7. a walk of a tree that holds another name of a covered file (a hard link): the real grep judges", () => {
  const p = policyOf(["Read(./secrets/**)"], ["Bash(grep:*)", "Bash(tar:*)", "Grep"], ["Bash", "Grep"]);
  // hard/hard.txt is secrets/key-zq7mark.txt under another name (made at the top of the file).
  it.each(["grep -r -e CANARY_7 hard", "grep -rn -e CANARY_7 ./hard/", "tar cf - hard"])("%s is not allowed (the real program prints the covered file)", (command) => {
    const out = spawnSync("bash", ["-c", command], { cwd: root, encoding: "utf8" }).stdout;
    expect(out).toContain("CANARY_7_SEC");
    expect(p.decide("Bash", { command }).mode).not.toBe("allow");
  });
  it("Grep of that tree, likewise; a tree without one stays allowed", () => {
    expect(p.decide("Grep", { pattern: "CANARY_7", path: "hard" }).mode).not.toBe("allow");
    expect(p.decide("Grep", { pattern: "CANARY_7", path: "src" }).mode).toBe("allow");
    expect(p.decide("Bash", { command: "grep -r -e CANARY_7 src" }).mode).toBe("allow");
  });
});
