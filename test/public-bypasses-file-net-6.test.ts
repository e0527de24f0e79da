/**
 * File rules met through other tools' arguments, and URL and path spellings, round 6. Each class is judged by the real
 * thing this machine has; a call the guard allows must not reach what the real program reaches.
 *
 * 1. A fetch tool given a `file:` URL reads a file on this machine: WebFetch and the MCP fetch server's `fetch` (its
 *    argument `url`) under `Read(.env)` and `Read(./secrets/**)`. Node's WHATWG URL parser and `fileURLToPath` judge
 *    which file a generated URL names (scheme in any case, `localhost`, percent-encoded names, `..` and `.` segments,
 *    backslashes, tabs and newlines the parser drops, leading blanks), and real curl, which prints the canary
 *    [cyberchitta/scrapling-fetch-mcp#6 ('Arbitrary Local File Read via Unrestricted file:// URLs': a fetch tool
 *    described as fetching web pages returns `file:///etc/passwd`); wonderwhy-er/DesktopCommanderMCP#410 (a read tool
 *    that fetches URLs, no scheme or host check)].
 * 2. LangChain deep agents' file tools on a backend in virtual mode read `/secrets/k` as `secrets/k` under the
 *    backend's root (deepagentsjs FilesystemBackend.resolvePath: a path without a leading `/` gets one; `..` anywhere
 *    or a leading `~` is refused; the rest after the first `/` is resolved against the root, so `//abs` is `/abs`).
 *    The real backend (the `deepagents` npm package, when DEEPAGENTS_DIR names a directory it is installed in) and a
 *    replica of those rules judge generated paths for read_file, ls, glob and grep, with the policy's pathBase at the
 *    root and without a pathBase (the rules then name the real places) [langchain-ai/deepagentsjs#653 (absolute
 *    paths escape the root without virtualMode; `virtualMode: true` maps them into it), langchain-ai/deepagentsjs#544
 *    (LocalShellBackend: `/output.txt` written at the real root; the fix is virtual mode), langchain-ai/deepagents#5513
 *    (the virtual path table: `/src/app.py` is `ROOT/src/app.py`), ai-forever/harness-bench-fast#30 (one backend, two
 *    path namespaces)].
 * 3. Listings and filtered searches. (a) A listing from above a covered directory names what is inside it (`Glob
 *    **\/*`, `glob` with `path: "/"` or a pattern led by `/`, which deep agents read from their root): ripgrep's
 *    `--files --hidden` judges which names a listing returns [odysseus-dev/odysseus#5093 (glob enumerates deny-listed
 *    names); anomalyco/opencode#35684 (glob's matched paths never checked against deny rules); anthropics/claude-code
 *    #36092 (Glob's `path` parameter past a deny); letta-ai/letta-code#4112 (Read deny rules applied to the directory
 *    Grep and Glob search)]. (b) A search whose own filters keep it away from the covered file (`grep -r
 *    --include='*.ts'`, `rg -t ts`, `rg -g '*.md'`, `grep --exclude-dir=secrets`) does not read it; one whose filter may
 *    admit it (`--include='.*'`, `-g '*'`, `--type-add`) may: the real grep and ripgrep, run over a tree whose covered
 *    files hold a canary, judge generated searches [anthropics/claude-code#91778 ('grep -r with --include filters
 *    falsely triggers Read(.env) deny prompt'); pchalasani/claude-code-tools#178 and #179 (`grep --include='*.py'`,
 *    `rg -g '*.rs'` blocked by an env-file guard); mmeyerlein/meclaw#758 (94 of 105 env-guard blocks were searches that
 *    could not reach an env file); gaia-react/gaia#2089 (filter flags select files; `--include` has no negation)].
 * 4. SSRF-filter spellings of the metadata address not yet tried here: IPv6 forms that embed it (mapped, the full
 *    mapped form, IPv4-compatible, NAT64 `64:ff9b::/96` and the local-use `64:ff9b:1::/48`, 6to4, Teredo's inverted
 *    client address), mixed octal and hex, a trailing dot, userinfo, a backslash before `@`, full-width digits and
 *    ideographic dots; WHATWG's URL parser and a decoder of the embedded IPv4 judge [alex-on-ai/WebReaper#211
 *    (IPv4-compatible, 6to4 and NAT64 wrappings slipped through; Teredo left out); langflow-ai/langflow#14174 (6to4 and
 *    NAT64 of the metadata address); ohdearquant/lionagi#1139 (`::169.254.169.254`); NousResearch/hermes-agent#17443
 *    and crystal-autobot/autobot#84 (`::ffff:` forms past a WebFetch tool's filter); AikidoSec/firewall-java#261].
 *    The same spellings, and the plain address, through the MCP fetch server's `fetch` tool under a WebFetch rule
 *    (modelcontextprotocol/servers#4061: the fetch server reaches the metadata address; egoist/fetch-mcp#3 and
 *    jae-jae/fetcher-mcp#37: other fetch tools' SSRF).
 *    And path spellings (`/proc/self/root/…`, `/proc/self/cwd/…`, `//`, a trailing `/.`, `./`, case) for the Read
 *    tool, judged by `realpath` and the kernel.
 *
 * Before the fix (these assertions on the unchanged guard: 34 of 68 tests failed): class 1, 127 generated or named
 * `file:` URLs of a covered file were allowed, for WebFetch and for `fetch` alike (every `file:` URL was); class 2, 17
 * deep-agent calls reached a covered file past the guard with pathBase at the backend's root (`ls /secrets`, `glob` of
 * `/secrets/*`, `grep` of `/secrets`) and 24 without a pathBase (`read_file /secrets/key.txt` too), and the real
 * deepagents backend listed secrets/ for an allowed `ls`; class 3a, 30 allowed Glob listings from above named files in
 * secrets/; class 3b, 11 allowed searches printed a canary (`rg --type-add 'x:*.env' -t x`: ripgrep searches the hidden
 * files a type's globs match; `grep -r … ./`: a trailing slash hid the walk), and 80 of 180 (Read(.env)), 79 of 186
 * (Read(./secrets/**), some of them through the `./` hole) and 15 of 145 (both) filtered searches that print no canary
 * were allowed; class 4, every spelling was already denied for WebFetch and for curl in Bash, but the MCP fetch server's
 * `fetch` was allowed to fetch all 189 metadata URLs, the plain `http://169.254.169.254/` too. After: no leak; 134 of
 * 180, 74 of 186 and 40 of 145 filtered searches allowed.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import fc from "fast-check";
import picomatch from "picomatch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePolicy, permissionPolicy } from "../src/policy/index.js";
import { installed } from "./helpers/bash-rules.js";
import { ORACLE_SEED } from "./helpers/oracle.js";

const root = realpathSync(mkdtempSync(path.join(tmpdir(), "gg-file-net-6-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const CANARY = "CANARY_b61d";
const FILES: Record<string, string> = {
  ".env": `API_KEY=${CANARY}_ENV\n`,
  "sub/.env": `TOKEN=${CANARY}_ENV\n`,
  "secrets/key.txt": `key ${CANARY}_SEC\n`,
  "secrets/app.ts": `export const k = "${CANARY}_SEC";\n`,
  "secrets/notes.md": `# ${CANARY}_SEC\n`,
  "secrets/deep/more.txt": `more ${CANARY}_SEC\n`,
  "src/app.ts": "export const app = 1; // KEY TODO\n",
  "src/util.py": "KEY = 2\n",
  "docs/readme.md": "# readme KEY\n",
  ".env.example": "API_KEY=changeme\n",
};
for (const [name, text] of Object.entries(FILES)) {
  mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
  writeFileSync(path.join(root, name), text);
}
/** The files a canary marks: what the rules cover. */
const covered = (absolute: string): boolean => {
  try {
    return readFileSync(absolute, "utf8").includes(CANARY);
  } catch {
    return false;
  }
};

function policyOf(extra: string, base: string | null = root, rules = [`Read(.env)`, `Read(./secrets/**)`]): ReturnType<typeof permissionPolicy> {
  const permissions = rules.map((rule) => `  - { rule: ${JSON.stringify(rule)}, mode: deny }\n`).join("");
  const text = `version: 1\n${base === null ? "" : `pathBase: ${JSON.stringify(base)}\n`}permissions:\n${permissions}${extra}`;
  return permissionPolicy(parsePolicy(text, "yaml", "file-net-6.yaml"));
}
const allowTools = (tools: readonly string[]) => tools.map((tool) => `  - { rule: ${JSON.stringify(tool)}, mode: allow }\n`).join("") + `tools:\n${tools.map((tool) => `  ${tool}: { risk: low }\n`).join("")}`;

// ---------------------------------------------------------------------------------------------------------------
describe("1. a fetch tool given a file: URL reads the file it names", () => {
  const p = policyOf(allowTools(["WebFetch", "fetch"]));
  /** Which file a fetcher that follows WHATWG's parser and Node's fileURLToPath reads; undefined: none. */
  const fileOf = (url: string): string | undefined => {
    try {
      const parsed = new URL(url);
      return parsed.protocol === "file:" ? fileURLToPath(parsed) : undefined;
    } catch {
      return undefined;
    }
  };
  const encode = (text: string, mask: number) => [...text].map((ch, i) => ((mask >> i) & 1 && /[A-Za-z0-9.]/.test(ch) ? `%${ch.charCodeAt(0).toString(16).padStart(2, "0")}` : ch)).join("");
  const TARGETS = [".env", "sub/.env", "secrets/key.txt", "secrets/deep/more.txt", "src/app.ts", "docs/readme.md", ".env.example"];
  const urls = fc.sample(
    fc
      .record({
        scheme: fc.constantFrom("file", "FILE", "File", "fIlE"),
        host: fc.constantFrom("", "localhost", "LOCALHOST"),
        target: fc.constantFrom(...TARGETS),
        detour: fc.constantFrom("", "/src/..", "/./", "/docs/../", "//", "/secrets/./"),
        mask: fc.integer({ min: 0, max: 255 }),
        encodeWhich: fc.constantFrom("none", "name", "all"),
        slashes: fc.constantFrom("//", "///"),
        backslash: fc.boolean(),
        lead: fc.constantFrom("", " ", "\t"),
        tabInside: fc.boolean(),
      })
      .map((c) => {
        const name = c.encodeWhich === "none" ? c.target : c.encodeWhich === "name" ? c.target.replace(/[^/]+$/, (leaf) => encode(leaf, c.mask)) : encode(c.target, c.mask);
        let pathPart = `${root}${c.detour.startsWith("/") ? c.detour : `/${c.detour}`}/${name}`.replace(/\/{3,}/g, "//");
        if (c.backslash) pathPart = pathPart.replace(/\/(?=[^/]*$)/, "\\");
        const authority = c.slashes === "///" && c.host === "" ? "//" : `//${c.host}`;
        let url = `${c.lead}${c.scheme}:${authority}${pathPart}`;
        if (c.tabInside) url = url.replace(/:/, ":\t");
        return url;
      }),
    { numRuns: 240, seed: ORACLE_SEED },
  );
  const named = [
    `file://${root}/.env`,
    `file://localhost${root}/.env`,
    `file://${root}/%2eenv`,
    `file://${root}/src/../.env`,
    `FILE://${root}/secrets/key.txt`,
    `file:${root}/.env`,
    `file:/${root}/secrets/deep/more.txt`,
    `  file://${root}/.env`,
    `f\tile://${root}/.env`,
    `file://${root}/secrets/%6bey.txt`,
    `file://${root}/sub%2f.env`,
  ];

  it.each(["WebFetch", "fetch"])("%s: no allowed file: URL names a covered file (WHATWG URL and fileURLToPath judge)", (tool) => {
    const leaks: string[] = [];
    let allowedBenign = 0;
    for (const url of [...named, ...urls]) {
      const decision = p.decide(tool, { url });
      const file = fileOf(url);
      if (decision.mode === "allow" && file !== undefined && covered(file)) leaks.push(`${JSON.stringify(url)} → ${file}`);
      if (decision.mode === "allow" && file !== undefined && !covered(file)) allowedBenign++;
      if (decision.mode === "deny") expect(decision.reason).toMatch(/Read\((\.env|\.\/secrets\/\*\*)\)/);
    }
    expect(leaks).toEqual([]);
    expect(allowedBenign, "file: URLs of other files stay allowed").toBeGreaterThan(10);
  });

  it.each([
    [`file://${root}/.env`, "deny"],
    [`file://localhost${root}/secrets/key.txt`, "deny"],
    [`file://${root}/%2eenv`, "deny"],
    // A file on another host (a share Windows would open) cannot be placed here.
    [`file://fileserver${root}/.env`, "not-allow"],
    // An encoded slash: fileURLToPath refuses it; another reader may decode it.
    [`file://${root}/sub%2f.env`, "not-allow"],
    [`file://${root}/src/app.ts`, "allow"],
    ["https://example.com/.env", "allow"],
    ["https://example.com/secrets/key.txt", "allow"],
  ] as const)("WebFetch %s: %s", (url, expected) => {
    const decision = p.decide("WebFetch", { url });
    if (expected === "not-allow") expect(decision.mode, decision.reason).not.toBe("allow");
    else expect(decision.mode, decision.reason).toBe(expected);
  });

  it.runIf(installed("curl"))("the real curl prints the canary for the named covered URLs (and the guard denies them)", () => {
    for (const url of named.slice(0, 7)) {
      const out = spawnSync("curl", ["-s", url.trim()], { encoding: "utf8" }).stdout;
      if (out.includes(CANARY)) expect(p.decide("WebFetch", { url }).mode, url).not.toBe("allow");
    }
    expect(spawnSync("curl", ["-s", `file://${root}/%2eenv`], { encoding: "utf8" }).stdout).toContain(CANARY);
  });
});

// ---------------------------------------------------------------------------------------------------------------
/** deepagentsjs's FilesystemBackend in virtual mode, replicated from its resolution rules (see the header). */
function virtualResolve(rootDir: string, key: string): string | undefined {
  const vpath = key.startsWith("/") ? key : `/${key}`;
  if (vpath.includes("..") || vpath.startsWith("~")) return undefined;
  const full = path.resolve(rootDir, vpath.slice(1));
  const relative = path.relative(rootDir, full);
  return relative.startsWith("..") || path.isAbsolute(relative) ? undefined : full;
}

interface Backend {
  read(file: string): Promise<{ content?: unknown; error?: string }>;
  ls(dir: string): Promise<{ files?: { path: string }[] }>;
  glob(pattern: string, dir?: string): Promise<{ files?: { path: string }[] }>;
  grep(pattern: string, dir?: string, glob?: string | null): Promise<{ matches?: { path: string; text: string }[] }>;
}

describe("2. deep agents' file tools on a backend in virtual mode", () => {
  let real: Backend | undefined;
  const dir = process.env.DEEPAGENTS_DIR;
  beforeAll(async () => {
    const entry = dir === undefined ? undefined : path.join(dir, "node_modules", "deepagents", "dist", "index.js");
    if (entry !== undefined && existsSync(entry)) {
      const module = (await import(pathToFileURL(entry).href)) as { FilesystemBackend: new (options: { rootDir: string; virtualMode: boolean }) => Backend };
      real = new module.FilesystemBackend({ rootDir: root, virtualMode: true });
    }
  });
  const DEEP = ["read_file", "write_file", "edit_file", "ls", "glob", "grep"];
  const withBase = policyOf(allowTools(DEEP));
  const withoutBase = policyOf(allowTools(DEEP), null, [`Read(.env)`, `Read(${root}/secrets/**)`]);
  const PATHS = ["/secrets/key.txt", "secrets/key.txt", "/./secrets/key.txt", "/secrets//key.txt", "/secrets/./deep/more.txt", "/.env", "/sub/.env", `/${root}/secrets/key.txt`, "/src/app.ts", "/docs/readme.md", "/secrets/../src/app.ts", "/.env.example", "/SECRETS/key.txt", "~/secrets/key.txt"];
  const DIRS = ["/", "/secrets", "secrets", "/secrets/deep", "/src", "/./secrets", "/docs", "/sub", "//secrets", `/${root}/secrets`];
  const GLOBS = ["*", "**/*", "/secrets/*", "secrets/**", "**/*.txt", "/**/*.ts", "src/*.ts", "*.md"];
  const calls = [
    ...PATHS.map((file_path) => ["read_file", { file_path }] as const),
    ...DIRS.map((p) => ["ls", { path: p }] as const),
    ...DIRS.map((p) => ["grep", { pattern: CANARY.slice(0, 6), path: p }] as const),
    ...GLOBS.flatMap((pattern) => [["glob", { pattern }] as const, ["glob", { pattern, path: "/" }] as const, ["glob", { pattern, path: "/secrets" }] as const]),
  ];
  /** What the replica says a call reaches: the covered files it reads or lists. */
  function replicaReach(tool: string, args: Record<string, string>): string[] {
    if (tool === "read_file") {
      const file = virtualResolve(root, args.file_path!);
      return file !== undefined && covered(file) ? [file] : [];
    }
    const base = tool === "glob" && (args.path === undefined || args.path === "/") ? root : virtualResolve(root, args.path ?? "/");
    if (base === undefined || !existsSync(base)) return [];
    if (tool === "ls") return Object.keys(FILES).map((name) => path.join(root, name)).filter((file) => path.dirname(file) === base && covered(file));
    const files = Object.keys(FILES).map((name) => path.join(root, name)).filter((file) => file.startsWith(`${base}/`) && covered(file));
    // deepagents' grep runs ripgrep when it can (hidden files skipped), else reads every file.
    if (tool === "grep") return installed("rg") ? files.filter((file) => !path.relative(base, file).split("/").some((name) => name.startsWith("."))) : files;
    // fast-glob's reading (deepagents' glob runs it with `dot: true`): the pattern relative to the directory.
    const isMatch = picomatch((args.pattern ?? "").replace(/^\/+/, ""), { dot: true });
    return files.filter((file) => isMatch(path.relative(base, file)));
  }
  async function realReach(backend: Backend, tool: string, args: Record<string, string>): Promise<string[]> {
    if (tool === "read_file") {
      const out = await backend.read(args.file_path!);
      return typeof out.content === "string" && out.content.includes(CANARY) ? [args.file_path!] : [];
    }
    if (tool === "grep") return ((await backend.grep(args.pattern!, args.path)).matches ?? []).filter((m) => m.text.includes(CANARY)).map((m) => m.path);
    const listed = tool === "ls" ? ((await backend.ls(args.path!)).files ?? []) : ((await backend.glob(args.pattern!, args.path)).files ?? []);
    return listed.map((one) => one.path).filter((one) => /secrets\/./.test(one) || /(^|\/)\.env$/.test(one)).filter((one) => !one.endsWith("/"));
  }

  it.each(["with pathBase at the backend's root", "without a pathBase, rules naming the real places"])("%s: no allowed call reaches a covered file (the replica of the backend's rules judges)", (title) => {
    const p = title.startsWith("with ") ? withBase : withoutBase;
    const leaks: string[] = [];
    for (const [tool, args] of calls) {
      const decision = p.decide(tool, args);
      if (decision.mode !== "allow") continue;
      const reach = replicaReach(tool, args as Record<string, string>);
      // Names a file rule covers are not its contents; only a covered directory's listing is.
      const counted = tool === "glob" || tool === "ls" ? reach.filter((file) => file.includes("/secrets/")) : reach;
      if (counted.length > 0) leaks.push(`${tool} ${JSON.stringify(args)} → ${counted[0]}`);
    }
    expect(leaks).toEqual([]);
  });

  it("the real deepagents backend agrees with the replica (when installed: DEEPAGENTS_DIR)", async () => {
    if (real === undefined) return;
    for (const [tool, args] of calls) {
      const fromReal = (await realReach(real, tool, args as Record<string, string>)).length > 0;
      const fromReplica = replicaReach(tool, args as Record<string, string>).length > 0;
      if (tool === "ls" || tool === "glob") continue; // names: compared by the listing test below
      expect(fromReal, `${tool} ${JSON.stringify(args)}`).toBe(fromReplica);
    }
    for (const p of [withBase, withoutBase]) {
      for (const [tool, args] of calls) {
        if (p.decide(tool, args).mode !== "allow") continue;
        const reach = await realReach(real, tool, args as Record<string, string>);
        const counted = tool === "glob" || tool === "ls" ? reach.filter((one) => one.includes("secrets/")) : reach;
        expect(counted, `${tool} ${JSON.stringify(args)} allowed`).toEqual([]);
      }
    }
  });

  it.each([
    ["read_file", { file_path: "/secrets/key.txt" }, "not-allow", "without"],
    ["read_file", { file_path: "/secrets/key.txt" }, "deny", "with"],
    ["read_file", { file_path: "/src/app.ts" }, "allow", "without"],
    ["read_file", { file_path: "/docs/readme.md" }, "allow", "without"],
    ["write_file", { file_path: "/secrets/key.txt", content: "x" }, "allow", "without"],
    ["ls", { path: "/secrets" }, "deny", "with"],
    ["ls", { path: "/src" }, "allow", "with"],
    ["glob", { pattern: "/secrets/*" }, "deny", "with"],
    ["glob", { pattern: "src/*.ts", path: "/" }, "allow", "with"],
    ["grep", { pattern: "KEY", path: "/secrets" }, "deny", "with"],
  ] as const)("%s %j: %s (%s pathBase)", (tool, args, expected, base) => {
    const decision = (base === "with" ? withBase : withoutBase).decide(tool, args);
    if (expected === "not-allow") return expect(decision.mode, decision.reason).not.toBe("allow");
    expect(decision.mode, decision.reason).toBe(expected);
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe("3a. a listing from above a covered directory names what is inside it", () => {
  const claude = policyOf(allowTools(["Glob", "LS"]), root, ["Read(./secrets/**)"]);
  const dotenv = policyOf(allowTools(["Glob", "LS"]), root, ["Read(.env)"]);
  const PATTERNS = ["**/*", "*", "*/*", "s*/**", "**/*.txt", "**/*.ts", "src/**/*.ts", "docs/*.md", "**/*.md", "**/key.txt", "*/deep/*", "**/.env", "src/*", "{src,secrets}/*"];
  const WHERE = [undefined, ".", root, "src", "docs"];

  it("Glob: no allowed listing names a file inside secrets/ (ripgrep --files judges); the allowed share is reported", () => {
    const leaks: string[] = [];
    let allowed = 0;
    for (const pattern of PATTERNS) {
      for (const where of WHERE) {
        const args = where === undefined ? { pattern } : { pattern, path: where };
        if (claude.decide("Glob", args).mode !== "allow") continue;
        allowed++;
        const base = where === undefined ? root : path.resolve(root, where);
        const out = spawnSync("rg", ["--no-config", "--files", "--hidden", "--no-ignore", "--glob", pattern], { cwd: base, encoding: "utf8" }).stdout;
        const inside = out.split("\n").filter((line) => line !== "" && path.resolve(base, line).startsWith(`${root}/secrets/`));
        if (inside.length > 0) leaks.push(`${JSON.stringify(args)}: ${inside[0]}`);
      }
    }
    expect(leaks).toEqual([]);
    expect(allowed, "listings that cannot reach secrets/ stay allowed").toBeGreaterThanOrEqual(10);
  });

  const byName = { claude, dotenv } as const;
  it.each([
    ["claude", "Glob", { pattern: "src/**/*.ts" }, "allow"],
    ["claude", "Glob", { pattern: "docs/*.md" }, "allow"],
    // Glob reads its pattern as ripgrep's --glob: without a slash, a name at any depth (`*` lists secrets/key.txt).
    ["claude", "Glob", { pattern: "*" }, "not-allow"],
    ["claude", "Glob", { pattern: "*.md", path: "docs" }, "allow"],
    ["claude", "Glob", { pattern: "**/*" }, "not-allow"],
    ["claude", "Glob", { pattern: "**/*", path: "." }, "not-allow"],
    ["claude", "Glob", { pattern: "*/*" }, "not-allow"],
    // LS lists the names directly in a directory: `secrets` is a name there, not what secrets/ holds.
    ["claude", "LS", { path: "." }, "allow"],
    ["claude", "LS", { path: "secrets" }, "deny"],
    // A file rule's names are not its contents: listing `.env` by name stays allowed.
    ["dotenv", "Glob", { pattern: "**/*" }, "allow"],
    ["dotenv", "Glob", { pattern: "**/.env" }, "allow"],
  ] as const)("%s: %s %j: %s", (name, tool, args, expected) => {
    const decision = byName[name].decide(tool, args);
    if (expected === "not-allow") expect(decision.mode, decision.reason).not.toBe("allow");
    else expect(decision.mode, decision.reason).toBe(expected);
  });
});

// ---------------------------------------------------------------------------------------------------------------
const quote = (word: string) => `'${word.replace(/'/g, "'\\''")}'`;

describe.runIf(installed("rg") && installed("grep"))("3b. a search's own filters: the real grep and ripgrep judge", () => {
  const bash = (rules: string[]) => policyOf(`  - { rule: "Bash(grep:*)", mode: allow }\n  - { rule: "Bash(rg:*)", mode: allow }\ntools:\n  Bash: { risk: medium }\n  Grep: { risk: low }\n  grep: { risk: low }\n`, root, rules);
  const dotenv = bash(["Read(.env)"]);
  const secrets = bash(["Read(./secrets/**)"]);
  const both = bash(["Read(.env)", "Read(./secrets/**)"]);
  const cased = permissionPolicy(parsePolicy(`version: 1\npathBase: ${JSON.stringify(root)}\npermissions:\n  - { tool: Read, mode: deny, where: { file_path: { path: "./secrets/**", caseSensitive: true } } }\n  - { rule: "Bash(grep:*)", mode: allow }\n  - { rule: "Bash(rg:*)", mode: allow }\ntools:\n  Bash: { risk: medium }\n`, "yaml", "cased.yaml"));
  const GREP_FILTERS = ["", "--include='*.ts'", "--include=*.ts", "--include '*.py'", "--include='*.ts' --include='*.md'", "--include='.*'", "--include='*'", "--include='*env'", "--include='.e*'", "--include='*.txt'", "--exclude-dir=secrets", "--exclude-dir=secrets --include='*.ts'", "--exclude-dir='s*'", "--exclude-dir=src", "--exclude='*.env'", "--include='[.]env'", "--include='!*.ts'", "--include={*.ts,*.md}", "--exclude-dir='[sS][eE][cC][rR][eE][tT][sS]'", "--exclude-dir='*' --include='*.md'"];
  const RG_FILTERS = ["", "-t ts", "--type ts", "--type=ts", "-tts", "-t py", "-t md", "-g '*.md'", "--glob='*.ts'", "-g '*'", "-g '.*'", "-g '*.txt'", "--type-add 'x:*.env' -t x", "--type-add=x:*.txt -tx", "-t sh", "-t all", "-g '!secrets'", "--hidden -t ts", "-uu -t ts", "-t ts -g '*.env'", "--iglob '*.TS'", "-t txt", "-T ts", "-g '!secrets'", "-g '!secrets' -g '*'", "-g '!secrets' -t ts", "-g '!.env' -g '!secrets'"];
  const lines = fc.sample(
    fc.oneof(
      fc.record({ program: fc.constant("grep"), recursive: fc.constantFrom("-r", "-R", "-rn", "-rIl", "--recursive"), filter: fc.constantFrom(...GREP_FILTERS), where: fc.constantFrom("", ".", "./", root, "src", "sub") }),
      fc.record({ program: fc.constant("rg"), recursive: fc.constantFrom("", "-n", "-l", "--no-config"), filter: fc.constantFrom(...RG_FILTERS), where: fc.constantFrom("", ".", root, "sub", "secrets/..") }),
    ),
    { numRuns: 300, seed: ORACLE_SEED },
  ).map((c) => [c.program, c.recursive, c.filter, "-e", "KEY\\|TOKEN\\|key\\|export\\|more", c.where].filter((w) => w !== "").join(" ").replace("KEY\\|TOKEN\\|key\\|export\\|more", c.program === "rg" ? quote("KEY|TOKEN|key|export|more|#") : quote("KEY\\|TOKEN\\|key\\|export\\|more\\|#")));
  const unique = [...new Set(lines)];

  it.each(["Read(.env)", "Read(./secrets/**)", "both"])("under %s: no allowed search prints a canary; benign filtered searches allowed are counted", (_title) => {
    const p = _title === "both" ? both : _title === "Read(.env)" ? dotenv : secrets;
    // The canary of the files this policy covers: .env's, secrets/'s, or either.
    const marker = _title === "both" ? /CANARY_b61d_(ENV|SEC)/ : _title === "Read(.env)" ? /CANARY_b61d_ENV/ : /CANARY_b61d_SEC/;
    const leaks: string[] = [];
    let benignAllowed = 0;
    let benign = 0;
    for (const line of unique) {
      const decision = p.decide("Bash", { command: line });
      const out = spawnSync("bash", ["-c", line.replace(/^rg /, "rg --no-config ")], { cwd: root, encoding: "utf8" }).stdout;
      const leaked = marker.test(out);
      if (!leaked && /--include|-t|--type|-g|--glob|--iglob|--exclude-dir/.test(line)) {
        benign++;
        if (decision.mode === "allow") benignAllowed++;
      }
      if (decision.mode === "allow" && leaked) leaks.push(`${line}: ${out.trim().split("\n")[0]}`);
    }
    console.log(`${_title}: ${benignAllowed} of ${benign} filtered searches that print no canary are allowed`);
    expect(leaks).toEqual([]);
  });

  it.each([
    ["dotenv", "grep -r --include='*.ts' KEY .", "allow"],
    ["dotenv", "grep -rIl -e KEY --include='*.js' --include='*.ts' --exclude-dir=node_modules .", "allow"],
    ["dotenv", "grep -r --include '*.py' KEY", "allow"],
    ["dotenv", "grep -r --include='.*' KEY .", "not-allow"],
    ["dotenv", "grep -r --include='*' KEY .", "not-allow"],
    ["dotenv", "grep -r --include='*env' KEY .", "not-allow"],
    ["dotenv", "grep -r KEY .", "not-allow"],
    ["secrets", "grep -r --include='*.ts' KEY .", "not-allow"],
    // A deny reads names in any case (`SECRETS/` on a case-insensitive disk is secrets/); grep's --exclude-dir does not.
    ["secrets", "grep -r --exclude-dir=secrets KEY .", "not-allow"],
    ["cased", "grep -r --exclude-dir=secrets KEY .", "allow"],
    ["cased", "grep -r --exclude-dir=secrets --include='*.ts' KEY .", "allow"],
    ["cased", "grep -r --exclude-dir=src KEY .", "not-allow"],
    ["secrets", "grep -r --exclude-dir='[sS][eE][cC][rR][eE][tT][sS]' KEY .", "allow"],
    ["secrets", "rg -t ts KEY", "not-allow"],
    ["cased", "rg -g '!secrets' KEY", "allow"],
    ["cased", "rg -g '!secrets' -g '*' KEY", "not-allow"],
    ["both", "rg -t ts KEY", "not-allow"],
    ["dotenv", "rg -t ts KEY", "allow"],
    ["dotenv", "rg --hidden -t ts KEY", "allow"],
    ["dotenv", "rg --hidden -t sh KEY", "allow"],
    ["dotenv", "rg -uu KEY", "not-allow"],
    ["dotenv", "rg --hidden --type-add 'x:*.env' -t x KEY", "not-allow"],
    ["dotenv", "rg --hidden -g '.*' KEY", "not-allow"],
    ["dotenv", "rg --hidden -t all KEY", "not-allow"],
  ] as const)("under %s: %s: %s", (name, command, expected) => {
    const decision = { dotenv, secrets, both, cased }[name].decide("Bash", { command });
    if (expected === "not-allow") expect(decision.mode, decision.reason).not.toBe("allow");
    else expect(decision.mode, decision.reason).toBe(expected);
  });

  it("the real grep prints .env's canary for the filters that may admit it, and none for *.ts", () => {
    const run = (line: string) => spawnSync("bash", ["-c", line], { cwd: root, encoding: "utf8" }).stdout;
    expect(run("grep -r --include='.*' API_KEY .")).toContain(CANARY);
    expect(run("grep -r --include='*env' API_KEY .")).toContain(CANARY);
    expect(run("grep -r --include='*.ts' API_KEY .")).not.toContain(CANARY);
    expect(run("rg --no-config --hidden --type-add 'x:*.env' -t x API_KEY .")).not.toContain("src/");
  });

  it("deep agents' grep with a glob filter, read as grep --include", () => {
    const p = bash(["Read(.env)"]);
    expect(p.decide("grep", { pattern: "KEY", glob: "*.ts" }).mode).toBe("allow");
    expect(p.decide("grep", { pattern: "KEY", glob: ".*" }).mode).not.toBe("allow");
    expect(p.decide("Grep", { pattern: "KEY", type: "ts" }).mode).toBe("allow");
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe("4. SSRF-filter and path spellings", () => {
  const p = policyOf(`  - { rule: "WebFetch(domain:169.254.169.254)", mode: deny }\n  - { rule: "WebFetch", mode: allow }\n  - { rule: "fetch", mode: allow }\n  - { rule: "Read", mode: allow }\ntools:\n  WebFetch: { risk: low }\n  fetch: { risk: low }\n  Read: { risk: low }\n`);
  /** The IPv4 address an IPv6 literal embeds (mapped, compatible, NAT64, 6to4, Teredo), as a filter that unwraps it reads it. */
  function embedded(host: string): string | undefined {
    if (!host.startsWith("[")) return undefined;
    const text = host.slice(1, -1).replace(/%.*$/, "");
    const halves = text.split("::");
    const words = (part: string) => (part === "" ? [] : part.split(":").flatMap((w) => (w.includes(".") ? (([a, b, c, d]) => [((a! << 8) | b!).toString(16), ((c! << 8) | d!).toString(16)])(w.split(".").map(Number)) : [w])));
    const head = words(halves[0] ?? "");
    const tail = halves.length > 1 ? words(halves[1] ?? "") : [];
    const all = [...head, ...Array(8 - head.length - tail.length).fill("0"), ...tail].map((w) => parseInt(w, 16));
    const v4 = (hi: number, lo: number) => [hi >> 8, hi & 255, lo >> 8, lo & 255].join(".");
    if (all.slice(0, 5).every((w) => w === 0) && (all[5] === 0xffff || all[5] === 0)) return v4(all[6]!, all[7]!);
    if (all[0] === 0x64 && all[1] === 0xff9b) return v4(all[6]!, all[7]!);
    if (all[0] === 0x2002) return v4(all[1]!, all[2]!);
    if (all[0] === 0x2001 && all[1] === 0) return v4(all[6]! ^ 0xffff, all[7]! ^ 0xffff);
    return undefined;
  }
  const metadata = (url: string): boolean => {
    try {
      const host = new URL(url).hostname;
      return host === "169.254.169.254" || embedded(host) === "169.254.169.254";
    } catch {
      return false;
    }
  };
  const HOSTS = ["[::ffff:169.254.169.254]", "[0:0:0:0:0:ffff:a9fe:a9fe]", "[::a9fe:a9fe]", "[::169.254.169.254]", "[64:ff9b::a9fe:a9fe]", "[64:ff9b::169.254.169.254]", "[64:ff9b:1::a9fe:a9fe]", "[2002:a9fe:a9fe::]", "[2002:a9fe:a9fe:1::1]", "[2001:0:4136:e378:8000:63bf:5601:5601]", "0251.0376.0251.0376", "0251.254.0xa9.254", "0xa9.0376.169.0xfe", "169.254.169.254.", "２５４．１６９．２５４．１６９", "１６９．２５４．１６９．２５４", "169。254。169。254", "169.254.169.254", "[::ffff:a9fe:a9fe]"];
  const urls = fc.sample(
    fc.record({ scheme: fc.constantFrom("http", "https", "HTTP"), user: fc.constantFrom("", "evil@", "evil.com@", "a:b@"), host: fc.constantFrom(...HOSTS), tail: fc.constantFrom("/", "/latest/meta-data/", ":80/", "\\@evil.com/", "?x=1", "#@evil.com") }).map((c) => `${c.scheme}://${c.user}${c.host}${c.tail}`),
    { numRuns: 200, seed: ORACLE_SEED },
  );

  it.each(["WebFetch", "fetch"])("no allowed %s URL reaches the metadata address (WHATWG URL and the embedded IPv4 judge)", (tool) => {
    // The MCP fetch server's `fetch` fetches as WebFetch does: WebFetch's rule holds for it.
    const leaks = ["http://169.254.169.254/", ...urls].filter((url) => metadata(url) && p.decide(tool, { url }).mode === "allow");
    expect(leaks).toEqual([]);
    expect(p.decide(tool, { url: "https://example.com/" }).mode).toBe("allow");
    expect(urls.filter(metadata).length).toBeGreaterThan(100);
  });

  it("path spellings of a covered file are not allowed for Read (realpath judges)", () => {
    const spellings = [`/proc/self/root${root}/secrets/key.txt`, `/proc/self/cwd/secrets/key.txt`, `${root}//secrets//key.txt`, `${root}/secrets/./key.txt`, `${root}/secrets/key.txt/.`, `${root}/./secrets/deep/../key.txt`, `${root}/SECRETS/key.txt`, `${root}/secrets/key.txt%00.md`, `/proc/thread-self/root${root}/.env`, `${root}/sub/../.env`];
    for (const file_path of spellings) {
      const decision = p.decide("Read", { file_path });
      let real: string | undefined;
      try {
        real = realpathSync(file_path.replace(/%00.*$/, "").replace(/^\/proc\/self\/cwd/, root));
      } catch {
        real = undefined;
      }
      if (real !== undefined && covered(real)) expect(decision.mode, file_path).not.toBe("allow");
      if (file_path.includes("SECRETS") || file_path.includes("%00")) expect(decision.mode, file_path).not.toBe("allow");
    }
  });
});
