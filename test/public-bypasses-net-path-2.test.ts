/**
 * Path readings judged by the real programs on this machine: a home directory with `.ssh` and
 * `.aws` (each file holding a marker), a workspace (the policy's base) with an allowed `docs/`, a
 * denied `secrets/`, and a symlink from `docs/` into the home directory. Each value is given to
 * - the kernel as written (`realpath -m` run in the workspace: symlinks followed before a `..`
 *   after them, as open(2) does; `cat` reads the marker), and
 * - bash expanding it as a word (`~`, `~user`, `~+`, `$HOME`, `${HOME}`, quoting, `$'...'`, globs,
 *   braces) with HOME set to that home directory, each resulting word then given to the kernel, and
 * - for `file:` URLs, curl reading the URL (`curl -s file://...` prints the marker).
 * A value that reaches a marker or a place outside the workspace is a deny case (a path outside
 * the base matches every deny); one whose every landing is in `docs/` an allow case; any other
 * a not-allow case. Skipped without bash (and curl for the file: URLs) unless REQUIRE_ORACLES=1.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parsePolicy, permissionPolicy } from "../src/policy/index.js";
import { REQUIRE_ORACLES } from "./helpers/bash-oracle.js";

const HAS = (program: string) => spawnSync(program, ["--version"], { stdio: "ignore" }).status === 0;
const BASH = HAS("bash");
const CURL = HAS("curl");

const root = realpathSync(mkdtempSync(path.join(tmpdir(), "gg-net-path-2-")));
const home = path.join(root, "home", "u");
const ws = path.join(root, "ws");
const MARKERS: Readonly<Record<string, string>> = {
  [path.join(home, ".ssh", "id_rsa")]: "MARK-ssh-key",
  [path.join(home, ".ssh", "config")]: "MARK-ssh-config",
  [path.join(home, ".aws", "credentials")]: "MARK-aws",
  [path.join(ws, "secrets", "key")]: "MARK-secret",
  [path.join(ws, "caf\u00e9", "menu")]: "MARK-cafe",
  [path.join(ws, "docs", "a.md")]: "doc-a",
  [path.join(ws, "docs", "b.md")]: "doc-b",
};
for (const [file, text] of Object.entries(MARKERS)) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}
// docs/jump is a symlink into the home directory's .ssh: `docs/jump/..` is the home directory to the kernel.
symlinkSync(path.join(home, ".ssh"), path.join(ws, "docs", "jump"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const guard = permissionPolicy(
  parsePolicy(
    `version: 1
pathBase: ${ws}
permissions:
  - { id: no-ssh, rule: "Read(${home}/.ssh/**)", mode: deny }
  - { id: no-aws, rule: "Read(${home}/.aws/**)", mode: deny }
  - { id: no-secrets, rule: "Read(./secrets/**)", mode: deny }
  - { id: no-cafe, rule: "Read(./caf\u00e9/**)", mode: deny }
  - { id: docs, rule: "Read(./docs/**)", mode: allow }
`,
    "yaml",
    "net-path-2.yaml",
  ),
);

type Expectation = "allow" | "deny" | "not-allow";
/** Where a judge lands: the real path (`realpath -m`) and the marker read there, if any. */
interface Landing {
  readonly by: string;
  readonly place: string;
  readonly marker: string | undefined;
}

const ENV = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, LC_ALL: "C.UTF-8" };

/** The kernel: the value as a file name (a C string), resolved by realpath -m and read by cat, in the workspace. */
function kernel(value: string, by = "kernel"): Landing[] {
  const name = value.split("\u0000")[0]!;
  const real = spawnSync("realpath", ["-m", "--", name], { cwd: ws, env: ENV, encoding: "utf8" });
  if (real.status !== 0) return [];
  const read = spawnSync("cat", ["--", name], { cwd: ws, env: ENV, encoding: "utf8" });
  const marker = read.status === 0 && /^(?:MARK|doc)-/.test(read.stdout) ? read.stdout : undefined;
  return [{ by, place: real.stdout.replace(/\n$/, ""), marker }];
}

/** bash expanding the value as one word of a command (tilde, parameters, quotes, globs, braces), each word then opened by the kernel. */
function bash(value: string): Landing[] {
  const out = spawnSync("bash", ["-c", `printf '%s\\0' ${value}`], { cwd: ws, env: ENV, encoding: "utf8" });
  if (out.status !== 0) throw new Error(`bash: ${out.stderr}`);
  return out.stdout
    .split("\u0000")
    .filter((word) => word !== "")
    .flatMap((word) => kernel(word, `bash → ${word}`));
}

/** curl reading a file: URL (it prints the file). */
function curlFile(value: string): Landing[] {
  const out = spawnSync("curl", ["-s", "--max-time", "3", value], { cwd: ws, env: ENV, encoding: "utf8" });
  const marker = out.status === 0 && /^(?:MARK|doc)-/.test(out.stdout) ? out.stdout : undefined;
  return [{ by: "curl", place: marker === undefined ? `${value} (curl read nothing)` : value, marker }];
}

/** The directories the policy denies. */
const DENIED_DIRS = [path.join(home, ".ssh"), path.join(home, ".aws"), path.join(ws, "secrets"), path.join(ws, "caf\u00e9")];

function expectationOf(landings: readonly Landing[]): Expectation {
  if (landings.length === 0) throw new Error("no judge placed the value");
  let allDocs = true;
  for (const landing of landings) {
    if (landing.marker?.startsWith("MARK-") === true) return "deny";
    if (landing.place.startsWith("/") && !landing.place.startsWith(`${ws}/`) && landing.place !== ws) return "deny";
    if (DENIED_DIRS.some((dir) => landing.place === dir || landing.place.startsWith(`${dir}/`))) return "deny";
    const docs = `${ws}/docs`;
    if (!(landing.place === docs || landing.place.startsWith(`${docs}/`)) || landing.place.startsWith(`${docs}/jump`)) allDocs = false;
  }
  return allDocs ? "allow" : "not-allow";
}

interface PathCase {
  readonly value: string;
  /** Linux's answer (the judges); the guard must give it, or (where `note` says why) deny where Linux says not-allow. */
  readonly expect: Expectation;
  readonly judges: readonly ((value: string) => Landing[])[];
  readonly note?: string;
}

const BOTH = [kernel, bash] as const;
const me = userInfo().username;

const CLASSES: readonly { readonly name: string; readonly source: string; readonly cases: readonly PathCase[] }[] = [
  {
    name: "home directory spellings a shell expands (`~`, `~user`, `~+`, `$HOME`, `${HOME}`, quoting, `$'...'`)",
    source: "anthropics/claude-code#6036 ('Security Permissions Bypass in Bash File Access Restrictions'); google-gemini/gemini-cli#1121-style workspace escapes through `~`; bash manual 'Tilde Expansion', 'ANSI-C Quoting'",
    cases: [
      { value: "~/.ssh/id_rsa", expect: "deny", judges: BOTH },
      { value: "~/.ssh/../.aws/credentials", expect: "deny", judges: BOTH },
      { value: "$HOME/.ssh/id_rsa", expect: "deny", judges: BOTH },
      { value: "${HOME}/.aws/credentials", expect: "deny", judges: BOTH },
      { value: '"$HOME"/.ssh/config', expect: "deny", judges: BOTH },
      { value: "~/'.ssh'/id_rsa", expect: "deny", judges: BOTH },
      { value: '~/".aws"/credentials', expect: "deny", judges: BOTH },
      { value: "~/$'\\x2e'ssh/id_rsa", expect: "deny", judges: BOTH },
      { value: "~/$'\\056'aws/credentials", expect: "deny", judges: BOTH },
      { value: `~${me}/.ssh/id_rsa`, expect: "deny", judges: BOTH },
      { value: "~+/secrets/key", expect: "deny", judges: BOTH },
      { value: "$PWD/secrets/key", expect: "deny", judges: BOTH },
      { value: "${PWD}/../ws/secrets/key", expect: "deny", judges: BOTH },
      { value: "docs/'..'/secrets/key", expect: "deny", judges: BOTH },
      { value: 'docs/".."/".."/u/.ssh/id_rsa', expect: "deny", judges: BOTH },
      { value: "docs/$'\\x2e\\x2e'/secrets/key", expect: "deny", judges: BOTH },
      { value: "docs/$'\\056\\056'/secrets/key", expect: "deny", judges: BOTH },
      { value: "docs/$'jump'/$'\\x2e.'/.aws/credentials", expect: "deny", judges: BOTH },
      { value: "docs/\\.\\./secrets/key", expect: "deny", judges: BOTH },
      { value: "docs/'a'.md", expect: "allow", judges: BOTH },
      { value: "~-/secrets/key", expect: "not-allow", judges: BOTH, note: "bash leaves ~- as written while OLDPWD is unset; after a cd it is the previous directory, which the guard cannot place, so it denies" },
    ],
  },
  {
    name: "globs and braces a shell expands into the home directory (`~/.ss?/id_*`, `[i]d_rsa`, `~/.{ssh,aws}/x`, `docs/*/id_rsa`)",
    source: "anthropics/claude-code#56816 and #39834 (rules compared with the text, the shell runs the expansion); PayloadsAllTheThings 'Directory Traversal'; bash manual 'Pathname Expansion', 'Brace Expansion'",
    cases: [
      { value: "~/.ss?/id_*", expect: "deny", judges: BOTH },
      { value: "~/.ssh/[i]d_rsa", expect: "deny", judges: BOTH },
      { value: "~/.{ssh,aws}/config", expect: "deny", judges: BOTH },
      { value: "~/.[a]ws/cred*", expect: "deny", judges: BOTH },
      { value: "docs/*/id_rsa", expect: "deny", judges: BOTH },
      { value: "docs/j*/config", expect: "deny", judges: BOTH },
      { value: "docs/{a.md,jump/id_rsa}", expect: "deny", judges: BOTH },
      { value: "docs/*.md", expect: "allow", judges: BOTH },
      { value: "docs/[ab].md", expect: "allow", judges: BOTH },
    ],
  },
  {
    name: "`..` after a symlinked directory: the kernel climbs from the link's target, not from the link",
    source: "CVE-2025-53109 and CVE-2025-53110 (MCP filesystem server: symlink and prefix escapes of the allowed directory); POSIX 'Pathname Resolution'; coreutils realpath(1)",
    cases: [
      { value: "docs/jump/id_rsa", expect: "deny", judges: BOTH },
      { value: "docs/jump/../.aws/credentials", expect: "deny", judges: BOTH },
      { value: "docs/jump/..", expect: "deny", judges: BOTH },
      { value: "docs/jump/./../.ssh/./config", expect: "deny", judges: BOTH },
      { value: "docs//jump//..//.aws//credentials", expect: "deny", judges: BOTH },
      { value: "docs/j*/../.aws/credentials", expect: "deny", judges: BOTH },
      { value: "docs/jump/../../u/.aws/credentials", expect: "deny", judges: BOTH },
      { value: `${ws}/docs/jump/../.aws/credentials`, expect: "deny", judges: BOTH },
      { value: "docs/../docs/a.md", expect: "allow", judges: BOTH },
    ],
  },
  {
    name: "the process's own links and POSIX spellings (`/proc/self/cwd`, `/proc/self/root`, `/dev/fd/N`, `//`, `/./`, trailing `/.`)",
    source: "PayloadsAllTheThings 'Directory Traversal' and 'File Inclusion' (/proc/self/cwd, /proc/self/root, /proc/self/fd); CWE-41 (path equivalence)",
    cases: [
      { value: "/proc/self/cwd/secrets/key", expect: "deny", judges: BOTH },
      { value: "/proc/self/cwd/docs/jump/id_rsa", expect: "deny", judges: BOTH },
      { value: "/proc/self/cwd/docs/jump/../.aws/credentials", expect: "deny", judges: BOTH },
      { value: `/proc/self/root${home}/.ssh/id_rsa`, expect: "deny", judges: BOTH },
      { value: `/proc/thread-self/root/${ws}/secrets/key`, expect: "deny", judges: BOTH },
      { value: "/dev/fd/0", expect: "deny", judges: [(v) => [{ by: "an open file of the tool's process", place: v, marker: undefined }]] },
      { value: `//${ws.slice(1)}//secrets//key`, expect: "deny", judges: BOTH },
      { value: `${ws}/./secrets/./key`, expect: "deny", judges: BOTH },
      { value: "secrets/.", expect: "deny", judges: BOTH },
      { value: "./secrets/../secrets/key", expect: "deny", judges: BOTH },
      { value: "docs/./a.md", expect: "allow", judges: BOTH },
      { value: "docs/.", expect: "allow", judges: BOTH },
    ],
  },
  {
    name: "file: URLs naming paths (curl reads them)",
    source: "PayloadsAllTheThings 'Server Side Request Forgery' and 'File Inclusion' (file://); curl(1) FILE protocol",
    cases: [
      { value: `file://${home}/.ssh/id_rsa`, expect: "deny", judges: [curlFile] },
      { value: `file://localhost${home}/.aws/credentials`, expect: "deny", judges: [curlFile] },
      { value: `FILE://${ws}/secrets/key`, expect: "deny", judges: [curlFile] },
      { value: `file://${ws}/docs/jump/../.aws/credentials`, expect: "not-allow", judges: [curlFile], note: "curl removes the dot segments of the URL's path first (docs/.aws/credentials); a tool that hands the path to the kernel reaches the home directory, so the guard denies" },
      { value: `file:///proc/self/root${home}/.ssh/config`, expect: "deny", judges: [curlFile] },
      { value: `file://${ws}/docs/%2e%2e/secrets/key`, expect: "deny", judges: [curlFile] },
    ],
  },
  {
    name: "letter case, Unicode look-alikes and NFC/NFD (Linux compares bytes)",
    source: "anthropics/claude-code#22907 (deny rules bypassed by another spelling of the path); Unicode UAX #15; Apple 'File System Programming Guide' (APFS: case-insensitive, normalisation-insensitive)",
    cases: [
      { value: "SECRETS/key", expect: "not-allow", judges: BOTH, note: "Linux opens another (missing) file; the guard's path rules ignore case by default (macOS and Windows file systems do), so it denies" },
      { value: "Secrets/../secrets/KEY", expect: "deny", judges: BOTH },
      { value: "docs/../SECRETS/key", expect: "not-allow", judges: BOTH, note: "as above" },
      { value: "cafe\u0301/menu", expect: "not-allow", judges: BOTH, note: "Linux opens another (missing) name; APFS opens the NFC name, so the guard denies" },
      { value: "\u0455ecrets/key", expect: "not-allow", judges: BOTH },
      { value: "docs/\u0430.md", expect: "allow", judges: BOTH },
    ],
  },
];

const needsCurl = (c: PathCase) => c.judges.includes(curlFile);

describe.skipIf(!BASH && !REQUIRE_ORACLES)("path readings judged by bash, the kernel and curl on this machine (home directory, symlinks, file: URLs)", () => {
  for (const klass of CLASSES) {
    describe(`${klass.name} [${klass.source}]`, () => {
      it.each(klass.cases.map((c) => [JSON.stringify(c.value), c] as const))("%s", (_value, c) => {
        if (needsCurl(c) && !CURL) {
          if (REQUIRE_ORACLES) throw new Error("REQUIRE_ORACLES: curl is not installed");
          return;
        }
        const landings = c.judges.flatMap((judge) => judge(c.value));
        // The judges and the expectation agree: where the real programs land decides the case.
        expect(c.expect, JSON.stringify(landings)).toBe(expectationOf(landings));
        const decision = guard.decide("Read", { file_path: c.value });
        if (c.expect === "allow") expect(decision.mode, decision.reason).toBe("allow");
        else if (c.expect === "deny") expect(decision.mode, decision.reason).toBe("deny");
        else expect(decision.mode, `${decision.reason ?? ""}${c.note === undefined ? "" : ` (${c.note})`}`).not.toBe("allow");
        if (c.note !== undefined) expect(decision.mode, c.note).toBe("deny");
      });
    });
  }
});
