// FileSource on a case-insensitive file system (macOS and Windows by default): `.ENV` and
// `SECRETS/key` are the files `.env` and `secrets/key`, so a rule that denies those holds for every
// spelling of them in another case, and on macOS for a decomposed Unicode spelling too. The file system
// judges: a case-insensitive, case-preserving FUSE file system (test/fixtures/case-insensitive-fs.py)
// mounted here, through which the kernel resolves the model's spelling to the protected file — each
// such spelling first reads the secret directly, then FileSource must refuse it. Before, FileSource
// matched its rules on the spelling alone and loaded, edited and overwrote the denied files.
// Such spellings only ever get stricter: on a case-sensitive file system `SRC/x` is not `src/x`.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inMemoryMemory } from "../src/memory/index.js";
import { FileSource } from "../src/sources/file-source.js";
import { REQUIRE_ORACLES } from "./helpers/bash-oracle.js";
import { ORACLE_SEED } from "./helpers/oracle.js";

const FS_SCRIPT = fileURLToPath(new URL("./fixtures/case-insensitive-fs.py", import.meta.url));
const PYTHON = "/usr/bin/python3";
const canMount = existsSync("/dev/fuse") && existsSync(PYTHON) && spawnSync(PYTHON, ["-c", "import fusepy"]).status === 0 && spawnSync("fusermount3", ["-V"]).status === 0;
if (REQUIRE_ORACLES && !canMount) throw new Error("REQUIRE_ORACLES=1 but the case-insensitive FUSE file system cannot run here (needs /dev/fuse, fuse3 and Debian's python3-fusepy)");

const RULES = [
  { pattern: "**", permission: "read-write" as const },
  { pattern: "**/*.env", permission: "denied" as const },
  { pattern: "secrets/**", permission: "denied" as const },
  { pattern: "docs/**", permission: "read-only" as const },
];

/** Every spelling of `text` in another case (up to `limit`), generated on the oracle's fixed seed. */
function otherCases(text: string, limit: number): string[] {
  const spellings = fc.sample(
    fc.array(fc.boolean(), { minLength: text.length, maxLength: text.length }).map((upper) => [...text].map((ch, i) => (upper[i] ? ch.toUpperCase() : ch.toLowerCase())).join("")),
    { numRuns: limit * 4, seed: ORACLE_SEED },
  );
  return [...new Set(spellings)].filter((s) => s !== text).slice(0, limit);
}

function source(baseDir: string) {
  return new FileSource({ id: "repo", baseDir, rules: RULES, memory: inMemoryMemory({ namespace: ["agent"] }).memory });
}

describe.runIf(canMount)("FileSource on a case-insensitive file system (FUSE, the kernel resolves the names)", () => {
  const backing = mkdtempSync(join(tmpdir(), "gg-ci-back-"));
  const mount = mkdtempSync(join(tmpdir(), "gg-ci-mnt-"));
  let fs: ChildProcess | undefined;

  beforeAll(async () => {
    fs = spawn(PYTHON, [FS_SCRIPT, backing, mount], { stdio: "ignore" });
    for (let i = 0; i < 100 && !readFileSync("/proc/mounts", "utf8").includes(` ${mount} `); i++) await new Promise((r) => setTimeout(r, 50));
    expect(readFileSync("/proc/mounts", "utf8")).toContain(` ${mount} `);
    writeFileSync(join(mount, ".env"), "TOKEN=secret\n");
    mkdirSync(join(mount, "secrets"));
    writeFileSync(join(mount, "secrets", "key"), "private key\n");
    mkdirSync(join(mount, "docs"));
    writeFileSync(join(mount, "docs", "guide.md"), "# guide\n");
  });

  afterAll(() => {
    spawnSync("fusermount3", ["-u", mount]);
    fs?.kill();
    rmSync(backing, { recursive: true, force: true });
    rmSync(mount, { recursive: true, force: true });
  });

  const SPELLINGS = [...otherCases(".env", 6), ...otherCases("secrets/key", 12)];

  it("the file system reads each other-case spelling as the protected file (the judge)", () => {
    for (const spelling of SPELLINGS) expect(readFileSync(join(mount, spelling), "utf8"), spelling).toMatch(/secret|private key/);
  });

  it("the exact spellings are denied, and so is every other-case spelling: load, append, replace, save", async () => {
    const files = source(mount);
    for (const spelling of [".env", "secrets/key", ...SPELLINGS]) {
      await expect(files.load(spelling), spelling).rejects.toThrow(/denied/);
      await expect(files.append(spelling, "appended\n"), spelling).rejects.toThrow(/denied/);
      await expect(files.replace(spelling, "secret", "changed"), spelling).rejects.toThrow(/denied/);
      await expect(files.save({ path: spelling }), spelling).rejects.toThrow(/denied/);
    }
    expect(readFileSync(join(mount, ".env"), "utf8")).toBe("TOKEN=secret\n");
    expect(readFileSync(join(mount, "secrets", "key"), "utf8")).toBe("private key\n");
  });

  it("a read-only rule holds for other-case spellings: readable, not writable", async () => {
    const files = source(mount);
    for (const spelling of ["docs/guide.md", ...otherCases("docs/guide.md", 6)]) {
      expect((await files.load(spelling)).content, spelling).toBe("# guide\n");
      await expect(files.append(spelling, "appended\n"), spelling).rejects.toThrow(/read-only/);
      await expect(files.replace(spelling, "guide", "changed"), spelling).rejects.toThrow(/read-only/);
    }
    expect(readFileSync(join(mount, "docs", "guide.md"), "utf8")).toBe("# guide\n");
  });

  it("files the rules allow stay usable", async () => {
    const files = source(mount);
    mkdirSync(join(mount, "notes"));
    writeFileSync(join(mount, "notes", "today.md"), "hello\n");
    expect((await files.load("notes/today.md")).content).toBe("hello\n");
    expect((await files.load("NOTES/Today.md")).content).toBe("hello\n");
    await files.append("notes/today.md", "more\n");
    await files.save({ path: "notes/today.md" });
    expect(readFileSync(join(mount, "notes", "today.md"), "utf8")).toBe("hello\nmore\n");
  });
});

describe("other spellings only ever make a permission stricter (any file system)", () => {
  const dir = mkdtempSync(join(tmpdir(), "gg-case-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("on a case-sensitive file system SRC/x is not src/x: an allow does not reach it, a deny does", () => {
    const files = new FileSource({ id: "cs", baseDir: dir, rules: [{ pattern: "src/**", permission: "read-write" }, { pattern: "src/secret/**", permission: "denied" }], memory: inMemoryMemory({ namespace: ["cs"] }).memory });
    expect(files.permissionFor("src/a.ts").permission).toBe("read-write");
    expect(files.permissionFor("SRC/a.ts").permission).toBe("denied"); // the default, not the allow
    expect(files.permissionFor("src/SECRET/k").permission).toBe("denied");
  });

  it("a decomposed Unicode spelling (macOS stores names decomposed) gets the composed rule's stricter permission", () => {
    const composed = "caf\u00e9";
    const decomposed = "cafe\u0301";
    const files = new FileSource({ id: "nfd", baseDir: dir, rules: [{ pattern: "**", permission: "read-write" }, { pattern: `${composed}/**`, permission: "denied" }], memory: inMemoryMemory({ namespace: ["nfd"] }).memory });
    expect(files.permissionFor(`${composed}/menu.txt`).permission).toBe("denied");
    expect(files.permissionFor(`${decomposed}/menu.txt`).permission).toBe("denied");
    expect(files.permissionFor(`${decomposed.toUpperCase()}/menu.txt`).permission).toBe("denied");
  });
});
