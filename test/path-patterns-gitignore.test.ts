// A Read/Edit path pattern reads as a .gitignore line does (`**/.env`: a .env in every directory, the
// base's own included; `*.env` also names `.env`), whether or not the policy names a path base (without
// one, relative paths are read against `/`). Git judges: `git check-ignore` with the pattern as the
// repository's .gitignore, for generated paths from the base's own files down to three directories
// deep. Before, with no path base, `**/.env` and `**/*.env` missed the files at the base itself (a
// Read of `.env` was allowed under `Read(**/.env)` denied): picomatch's `/**/.env` does not match `/.env`.
import { spawnSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { parsePolicy, permissionPolicy } from "../src/policy/index.js";
import { ORACLE_SEED } from "./helpers/oracle.js";

const PATTERNS = ["**/.env", "**/*.env", ".env", "*.env", "**/*.pem", "secrets/**", "**/secrets/**", "a/**/key", "**/key", "**/.env*"];
const NAMES = [".env", "x.env", ".env.local", "key", "id.pem", "secrets", "a", "b", "notes.txt", ".git-keep"];
const repo = realpathSync(mkdtempSync(join(tmpdir(), "gg-gitignore-")));
afterAll(() => rmSync(repo, { recursive: true, force: true }));
const gitAvailable = spawnSync("git", ["--version"]).status === 0;

/** Paths from the base down to three directories deep, generated on the oracle's fixed seed, and every name at the base. */
const PATHS = [...new Set([...NAMES, ...fc.sample(fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 4 }).map((parts) => parts.join("/")), { numRuns: 300, seed: ORACLE_SEED })])];

/** The paths git ignores with `pattern` as the repository's only .gitignore line. */
function gitIgnored(pattern: string): Set<string> {
  writeFileSync(join(repo, ".gitignore"), `${pattern}\n`);
  const out = spawnSync("git", ["-C", repo, "check-ignore", "--no-index", "--stdin"], { input: PATHS.join("\n"), encoding: "utf8" });
  if (out.status !== 0 && out.status !== 1) throw new Error(`git check-ignore failed: ${out.stderr}`);
  return new Set(out.stdout.split("\n").filter((line) => line !== ""));
}

function denying(pattern: string, pathBase: string | undefined) {
  const base = pathBase === undefined ? "" : `pathBase: ${JSON.stringify(pathBase)}\nfollowSymlinks: false\n`;
  const text = `version: 1\n${base}permissions:\n  - { rule: ${JSON.stringify(`Read(${pattern})`)}, mode: deny }\n  - { tool: Read, mode: allow }\n`;
  return permissionPolicy(parsePolicy(text, "yaml", "p.yaml"));
}

describe.runIf(gitAvailable)("Read path patterns read as .gitignore lines (git check-ignore judges)", () => {
  it("git initialises the judge's repository", () => {
    expect(spawnSync("git", ["init", "-q", repo]).status).toBe(0);
  });

  describe.each(PATTERNS)("Read(%s) denied", (pattern) => {
    it.each([
      ["the repository as the path base", repo],
      ["no path base (relative paths read against /)", undefined],
    ] as const)("with %s: a path git ignores is denied", (_label, base) => {
      const ignored = gitIgnored(pattern);
      expect(ignored.size, "the pattern names some generated path").toBeGreaterThan(0);
      const policy = denying(pattern, base);
      const missed = [...ignored].filter((path) => policy.decide("Read", { file_path: path }, "low").mode !== "deny");
      expect(missed).toEqual([]);
    });
  });
});
