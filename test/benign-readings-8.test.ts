/**
 * Benign readings, round 8: the walks, listings, emptyings and moves this round's readings changed, swept in a
 * realistic project tree (a pnpm symlink farm under node_modules, .git, .venv, dist, a project `trash/` folder) under
 * the policy people write (Read(./.env) and Read(./secrets/**) denied, Bash(rm:*) denied, the searchers, listers and
 * build commands allowed), each judged by the REAL program (strace: the files it opened).
 *
 * - A recursive search from the project's root (`rg foo`, `grep -rn foo .`, `grep -r --include='*.ts' foo .`,
 *   `rg -n TODO --type ts`) asked in a project that has no `secrets/` directory and no `.env` at all: the guard read
 *   "the tree under . may hold ./secrets/**" without looking, while a listing from the same place (`find .`, `ls -R`)
 *   already looked and was allowed. Reported against Claude Code's own walk check: anthropics/claude-code#91795
 *   (`grep -rn hello /tmp/cleanrepo` prompts on a deny "even when the tree contains no matching file"),
 *   anthropics/claude-code#91681 (`rg foo .` prompts under Read(**\/.env) in "a repository [that] contains no .env file
 *   at any depth"). pnpm's node_modules are symlink farms (anthropics/claude-code#25317: "node_modules/.pnpm/ is
 *   entirely symlink-based", `rg -L getPrevious node_modules/`): links that lead within the project must not count.
 *   Now: when the walk starts in a directory the guard can see, every directory the rule covers is one place that is
 *   not there, and the line runs nothing else that could make it, the walk reaches no covered file (links are still
 *   looked at: one into a covered place that exists asks).
 * - The rest of the sweep (listings of trees without covered directories, `du -sh *`, `tree -I node_modules`, a move
 *   into the project's own `trash/` folder, `truncate -s +1M`, build output redirected to a log) was already allowed
 *   and is pinned here, with the dangerous sibling of each.
 *
 *   An archive of the project's root (`tar czf ../src.tgz --exclude=node_modules .`, `zip -qr ../app.zip .`) is read
 *   the same way; an extraction before the walk (`tar xzf a.tgz && grep -rn KEY .`), a copy, a link, a `mkdir` or
 *   a clone may make the covered directory, and keeps the walk asking.
 *
 * - Emptying read as rm on a file with nothing to lose (`truncate -s 10M disk.img` making or growing an image, `> build.log`
 *   before the log exists): see the last describe.
 *
 * Before the fixes: 20 of the 76 tests here failed (the eight root walks in the project without covered directories,
 * the two piped ones, the tar and zip archives of the root, the generated class, which found the same over-ask; the
 * four growing truncates and the three redirections to no file or an empty one).
 */
import { spawnSync } from "node:child_process";
import { linkSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { parsePolicy, permissionPolicy } from "../src/policy/index.js";
import { ORACLE_SEED } from "./helpers/oracle.js";
import { straceOpens } from "./helpers/strace.js";

const has = (program: string) => spawnSync("sh", ["-c", `command -v ${program}`]).status === 0;
const STRACE = has("strace") && has("rg");
const MARK = "KEY=gg-benign8-secret";
const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "gg-benign8-")));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A pnpm project: a symlink farm under node_modules, .git, .venv, dist, a project trash/ folder; `secrets` adds secrets/ and .env. */
function project(name: string, secrets: boolean): string {
  const root = path.join(scratch, name);
  const put = (file: string, text = "foo\n") => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  };
  put("package.json", '{ "name": "app", "scripts": { "test": "true" } }\n');
  put("pnpm-lock.yaml", "lockfileVersion: '9.0'\n");
  put("src/index.ts", "export const foo = 1; // TODO\n");
  put("src/util.ts", "import lodash from 'lodash';\n");
  put("dist/index.js", "exports.foo = 1;\n");
  put(".git/HEAD", "ref: refs/heads/main\n");
  put(".git/config", "[core]\n");
  put(".venv/pyvenv.cfg", "home = /usr/bin\n");
  put("trash/old.txt", "old\n");
  put("node_modules/.pnpm/lodash@4.17.21/node_modules/lodash/index.js", "module.exports = { foo: 1 };\n");
  put("node_modules/.pnpm/motion-dom@11.0.0/node_modules/motion-dom/dist/index.js", "export function getPrevious() {}\n");
  mkdirSync(path.join(root, "node_modules/.pnpm/node_modules"), { recursive: true });
  symlinkSync(".pnpm/lodash@4.17.21/node_modules/lodash", path.join(root, "node_modules/lodash"));
  symlinkSync(".pnpm/motion-dom@11.0.0/node_modules/motion-dom", path.join(root, "node_modules/motion-dom"));
  symlinkSync("../lodash@4.17.21/node_modules/lodash", path.join(root, "node_modules/.pnpm/node_modules/lodash"));
  symlinkSync("/usr/bin/python3", path.join(root, ".venv/python"));
  if (secrets) {
    put("secrets/k", `${MARK}\n`);
    put(".env", `${MARK}\n`);
  }
  return root;
}

const ALLOWED = ["rg", "grep", "git grep", "cd", "ls", "find", "tree", "du", "fd", "head", "wc", "mv", "truncate", "npm test", "git status", "pnpm test", "tar", "zip"];
function policy(root: string, extra = ""): ReturnType<typeof permissionPolicy> {
  return permissionPolicy(
    parsePolicy(
      [
        "version: 1",
        `pathBase: ${root}`,
        "permissions:",
        '  - { rule: "Read(./.env)", mode: deny }',
        '  - { rule: "Read(./secrets/**)", mode: deny }',
        '  - { rule: "Bash(rm:*)", mode: deny }',
        ...ALLOWED.map((program) => `  - { rule: "Bash(${program}:*)", mode: allow }`),
        '  - { rule: "WebFetch(domain:github.com)", mode: allow }',
        extra,
      ].join("\n"),
      "yaml",
      "benign-readings-8.yaml",
    ),
  );
}

const clean = project("clean", false);
const guarded = project("guarded", true);
const cleanGuard = policy(clean);
const guardedGuard = policy(guarded);

/** Runs `line` in `root` under strace: the files it read and wrote inside `root` (paths relative to it). */
function run(root: string, line: string): { read: string[]; wrote: string[] } {
  const log = path.join(scratch, `.trace-${process.hrtime.bigint()}`);
  spawnSync("strace", ["-f", "-y", "-qq", "-e", "trace=open,openat,openat2,creat", "-o", log, "bash", "-c", line], { cwd: root, stdio: ["ignore", "pipe", "pipe"], timeout: 15_000 });
  const { read, wrote } = straceOpens(readFileSync(log, "utf8"));
  rmSync(log, { force: true });
  const inside = (set: Set<string>) => [...set].filter((file) => file.startsWith(`${root}/`)).map((file) => path.relative(root, file));
  return { read: inside(read), wrote: inside(wrote) };
}
const secret = (files: readonly string[]) => files.some((file) => file === ".env" || file.startsWith("secrets/"));

/** Recursive searches agents run from a project's root (the issues above; agents' own AGENTS.md "rg over grep"). */
const ROOT_WALKS = [
  "rg foo",
  "rg -n TODO --type ts",
  "rg -l lodash",
  "grep -rn foo .",
  "grep -r --include='*.ts' foo .",
  "grep -rIl -e foo -e TODO --include='*.ts' --exclude-dir=node_modules .",
  "grep -R getPrevious .",
  "rg -L getPrevious .",
];

describe.skipIf(!STRACE)("a recursive search from the root of a project that holds no covered directory", () => {
  it.each(ROOT_WALKS)("%s is allowed there, and reads no covered file", (line) => {
    const decision = cleanGuard.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe("allow");
    const { read, wrote } = run(clean, line);
    expect(secret(read), read.join(" ")).toBe(false);
    expect(wrote).toEqual([]);
  });

  it.each(["rg foo | head -20", "grep -rn foo . | wc -l"])("%s (piped to a reader) is allowed there", (line) => {
    expect(cleanGuard.decide("Bash", { command: line }).mode).toBe("allow");
  });

  it.each(["rg foo", "rg -n KEY", "grep -rn foo .", "grep -rl KEY .", "grep -R getPrevious ."])("%s in the same project with secrets/ reads secrets/k: not allowed", (line) => {
    expect(secret(run(guarded, line).read), line).toBe(true);
    const decision = guardedGuard.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).not.toBe("allow");
    expect(decision.reason ?? "").toMatch(/reads every file under \.|secrets|\.env/);
  });

  it.each(["tar czf ../clean-src.tgz --exclude=node_modules .", "tar -czf ../clean-src.tgz dist src package.json", "zip -qr ../clean.zip . -x 'node_modules/*'", "git grep -n foo", "cd src && rg foo"])("%s (an archive of the project, a reader after a cd) is allowed there and reads no covered file", (line) => {
    const decision = cleanGuard.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe("allow");
    expect(secret(run(clean, line).read)).toBe(false);
  });

  it("an extraction before the walk may make the covered directory: not allowed, as the real run reads secrets/k", () => {
    const archive = path.join(scratch, "withkey.tgz");
    spawnSync("tar", ["czf", archive, "-C", guarded, "secrets"]);
    for (const [i, line] of [`tar xzf ${archive} && grep -rn KEY .`, `tar -xzf ${archive}; rg KEY`, `tar -x -z -f ${archive} && rg -l KEY`, `tar --extract -zf ${archive} && grep -rl KEY .`].entries()) {
      const root = project(`extract-${i}`, false);
      const guard = policy(root);
      expect(guard.decide("Bash", { command: line }).mode, line).not.toBe("allow");
      expect(secret(run(root, line).read), line).toBe(true);
    }
  });

  it("a line that may make the covered directory before the walk is not read as the directory being absent", () => {
    mkdirSync(path.join(scratch, "elsewhere"), { recursive: true });
    writeFileSync(path.join(scratch, "elsewhere", "k"), `${MARK}\n`);
    for (const line of [`mkdir secrets && cp ${scratch}/elsewhere/k secrets/ && rg KEY`, `cp -r ${scratch}/elsewhere secrets; grep -rn KEY .`, `ln -s ${scratch}/elsewhere secrets && grep -R KEY .`, `echo secrets | xargs mkdir; rg KEY`, `git clone ${scratch}/repo . && rg KEY`, `TAR_OPTIONS=-x tar czf ${scratch}/a.tgz . ; rg KEY`]) {
      const guard = policy(clean, '  - { rule: "Bash(mkdir:*)", mode: allow }\n  - { rule: "Bash(cp:*)", mode: allow }\n  - { rule: "Bash(ln:*)", mode: allow }');
      expect(guard.decide("Bash", { command: line }).mode, line).not.toBe("allow");
    }
  });

  it("a link in the tree into a covered directory that exists elsewhere still asks (grep -R and rg -L follow it)", () => {
    const root = project("linked", false);
    const keys = path.join(scratch, "keys");
    mkdirSync(keys, { recursive: true });
    writeFileSync(path.join(keys, "k"), `${MARK}\n`);
    symlinkSync(keys, path.join(root, "node_modules/keys"));
    const guard = policy(root, `  - { rule: "Read(${keys}/**)", mode: deny }`);
    for (const line of ["grep -R KEY .", "rg -L KEY", "grep -R KEY node_modules"]) {
      const traced = spawnSync("bash", ["-c", line], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).stdout;
      expect(traced, line).toContain(MARK);
      expect(guard.decide("Bash", { command: line }).mode, line).not.toBe("allow");
    }
  });

  it("a hard link in the tree of a file in the covered directory still asks", () => {
    const root = project("hardlinked", true);
    linkSync(path.join(root, "secrets/k"), path.join(root, "src/h"));
    rmSync(path.join(root, "secrets"), { recursive: true });
    // secrets/ gone: the hard link is the only name left, no longer a covered file.
    expect(policy(root).decide("Bash", { command: "grep -rn KEY src" }).mode).toBe("allow");
    const again = project("hardlinked2", true);
    linkSync(path.join(again, "secrets/k"), path.join(again, "src/h"));
    expect(policy(again).decide("Bash", { command: "grep -rn KEY src" }).mode).not.toBe("allow");
    expect(policy(again).decide("Bash", { command: "rg KEY" }).mode).not.toBe("allow");
  });

  it("a walk whose start the guard cannot see still asks", () => {
    const gone = policy(path.join(scratch, "not-there"));
    for (const line of ["rg foo", "grep -rn foo ."]) expect(gone.decide("Bash", { command: line }).mode, line).toBe("ask");
  });
});

/** Listings, moves, sizes and logs agents run (anthropics/claude-code#1128, #2560: find/grep/ls/rg allowed and still prompting). */
describe.skipIf(!STRACE)("the rest of this round's readings, in the same projects", () => {
  it.each([
    "ls -la",
    "ls -R src",
    "ls -R",
    "find . -name node_modules -prune -o -type f -print",
    "find . -type f -not -path './node_modules/*'",
    "find . -maxdepth 2 -type d",
    "du -sh *",
    "du -a src",
    "tree -I node_modules",
    "tree -L 2",
    "rg --files",
    "mv dist/index.js trash/",
    "truncate -s +1M dist/index.js",
  ])("%s is allowed in the project without covered directories", (line) => {
    const decision = cleanGuard.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe("allow");
  });

  it.each(["ls -R", "find . -maxdepth 3 -type f", "tree -L 2", "rg --files", "du -a ."])("%s lists secrets/k in the project with it: not allowed", (line) => {
    expect(spawnSync("bash", ["-c", line], { cwd: guarded, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).stdout).toMatch(/\bk\b/);
    expect(guardedGuard.decide("Bash", { command: line }).mode, line).not.toBe("allow");
  });

  it.each(["npm test > test.log 2>&1", "pnpm test > build.log 2>&1", "git status > status.txt"])("%s is not read as emptying a file (no rm reason)", (line) => {
    const decision = cleanGuard.decide("Bash", { command: line });
    expect(decision.reason ?? "").not.toMatch(/like rm/);
  });

  it.each(["mv dist/index.js ~/.Trash/", "truncate -s 0 dist/index.js", ": > dist/index.js", "cp /dev/null dist/index.js", "shred dist/index.js"])("%s destroys a file like rm: not allowed", (line) => {
    expect(cleanGuard.decide("Bash", { command: line }).mode, line).not.toBe("allow");
  });
});

/**
 * Emptying read as rm, on files that hold nothing to lose: `truncate -s 10M disk.img` makes a sparse image (dracut-ng/dracut#1879
 * "use truncate to create sparse files", systemd/systemd#24361 "use truncate to generate disk image"), `> out.log`
 * starts a log that does not exist yet. Judged by the file on disk when the line is that one command and the policy
 * names its directory: absent, or no larger than the size kept, loses nothing; otherwise (or after another command
 * that may write it) it stays read as rm.
 */
describe("emptying a file that holds nothing to lose", () => {
  const root = project("sizes", false);
  writeFileSync(path.join(root, "big.img"), Buffer.alloc(3 * 1024 * 1024, 1));
  writeFileSync(path.join(root, "small.img"), Buffer.alloc(1024, 1));
  writeFileSync(path.join(root, "notes.txt"), "keep me\n");
  writeFileSync(path.join(root, "empty.log"), "");
  symlinkSync("big.img", path.join(root, "link.img"));
  const guard = policy(root, '  - { rule: "Bash(:)", mode: allow }');
  const sizeOf = (file: string) => spawnSync("stat", ["-c", "%s", file], { cwd: root, encoding: "utf8" }).stdout.trim();
  const likeRm = /like rm/;

  it.each([
    ["truncate -s 10M disk.img", "disk.img"],
    ["truncate -s 1G swap.img", "swap.img"],
    ["truncate -s 2M small.img", "small.img"],
    ["truncate -s 0 empty.log", "empty.log"],
  ])("%s destroys nothing (the real truncate only grows or makes the file): not read as rm", (line, file) => {
    const before = sizeOf(file);
    const decision = guard.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe("allow");
    spawnSync("bash", ["-c", line], { cwd: root });
    expect(Number(sizeOf(file))).toBeGreaterThanOrEqual(before === "" ? 0 : Number(before));
  });

  it.each(["> build.log", ": > build.log", "> empty.log"])("%s on no file or an empty one is not read as rm", (line) => {
    expect(guard.decide("Bash", { command: line }).reason ?? "").not.toMatch(likeRm);
  });

  it.each([
    "truncate -s 1M big.img",
    "truncate -s 0 small.img",
    "truncate -s 10M link.img",
    "truncate -s 10M ../sizes/big.img",
    "truncate -s 4 src/index.ts notes.txt",
    "truncate -s 1K src/index.ts big.img",
    "truncate -s 1M big.img swap2.img",
    "truncate -r small.img big.img",
    "cp big.img disk2.img && truncate -s 1M disk2.img",
    "truncate -s 1M disk3.img; truncate -s 0 disk3.img",
  ])("%s may cut content: still read as rm", (line) => {
    const decision = guard.decide("Bash", { command: line });
    expect(decision.mode).not.toBe("allow");
    expect(decision.reason ?? "").toMatch(likeRm);
  });

  it.each(["> notes.txt", ": > notes.txt", "> big.img", "> link.img", "echo -n > notes.txt", "> a.log; > notes.txt"])("%s empties a file with content: still read as rm", (line) => {
    expect(guard.decide("Bash", { command: line }).reason ?? "").toMatch(likeRm);
  });

  it("the real truncate shrinks a larger file (the dangerous sibling)", () => {
    writeFileSync(path.join(root, "victim.img"), Buffer.alloc(2 * 1024 * 1024, 1));
    expect(guard.decide("Bash", { command: "truncate -s 1M victim.img" }).mode).not.toBe("allow");
    spawnSync("bash", ["-c", "truncate -s 1M victim.img"], { cwd: root });
    expect(sizeOf("victim.img")).toBe(String(1024 * 1024));
  });
});

describe.skipIf(!STRACE)("generated walks in both projects: a run that read a covered file was never allowed, and a root walk of the clean project always was", () => {
  it("holds", () => {
    const walk = fc.tuple(
      fc.constantFrom("rg", "rg -n", "rg -l", "rg -L", "rg --hidden", "rg -uu", "grep -rn", "grep -R", "grep -rl", "grep -r --include='*.ts'", "grep -rI"),
      fc.constantFrom("foo", "KEY", "'gg-benign8'"),
      fc.constantFrom("", " .", " ./", " src", " node_modules", " node_modules/.pnpm"),
      fc.boolean(),
    );
    fc.assert(
      fc.property(walk, ([program, pattern, where, withSecrets]) => {
        // grep needs a start (it would read its input otherwise).
        const start = where === "" && program.startsWith("grep") ? " ." : where;
        const line = `${program} ${pattern}${start}`;
        const root = withSecrets ? guarded : clean;
        const decision = (withSecrets ? guardedGuard : cleanGuard).decide("Bash", { command: line });
        const { read } = run(root, line);
        if (decision.mode === "allow") expect(secret(read), `${line} was allowed and read ${read.join(" ")}`).toBe(false);
        if (!withSecrets) expect(decision.mode, `${line} in the clean project: ${decision.reason}`).toBe("allow");
      }),
      { seed: ORACLE_SEED, numRuns: 50 },
    );
  });
});
