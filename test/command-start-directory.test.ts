/**
 * A policy's `pathBase` is where its tools run: a path matcher resolves relative values against it, and a deny or ask
 * command pattern places a line's relative words there too (`cat secrets/k` from /srv/app is `cat /srv/app/secrets/k`).
 * Judged by the REAL bash: it runs each line (after the guard decided) with pathBase as its working directory, and a
 * line that printed the secret must not be allowed under a deny naming the secret's absolute path. Lines that do not
 * reach it keep being allowed, and without a pathBase the start directory stays unknown, as before.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { parsePolicy, permissionPolicy } from "../src/policy/index.js";
import { ORACLE_SEED } from "./helpers/oracle.js";

const BASH = spawnSync("bash", ["-c", "true"]).status === 0;
const root = realpathSync(mkdtempSync(path.join(tmpdir(), "gg-start-")));
const APP = `${root}/srv/app`;
const D = `${APP}/secrets`;
const S = `${D}/k`;
const MARK = "gg-start-secret";
mkdirSync(D, { recursive: true });
mkdirSync(`${APP}/src`, { recursive: true });
writeFileSync(S, MARK);
writeFileSync(`${APP}/README.md`, "readme");
writeFileSync(`${APP}/src/x`, "x");
afterAll(() => rmSync(root, { recursive: true, force: true }));

function guard(deny: string, pathBase: string | undefined) {
  const yaml = `version: 1\n${pathBase === undefined ? "" : `pathBase: ${JSON.stringify(pathBase)}\n`}permissions:\n  - { rule: ${JSON.stringify(`Bash(${deny})`)}, mode: deny }\n  - { rule: ${JSON.stringify(`Read(${S})`)}, mode: deny }\ntools:\n  Bash: { risk: low }\n  Read: { risk: low }\n`;
  return permissionPolicy(parsePolicy(yaml, "yaml", "start.yaml"));
}

const DENIES = { file: `cat ${S}`, prefix: `cat ${S}:*`, directory: `cat ${D}/*` } as const;
const withBase = Object.fromEntries(Object.entries(DENIES).map(([k, v]) => [k, guard(v, APP)])) as Record<keyof typeof DENIES, ReturnType<typeof guard>>;
const withoutBase = Object.fromEntries(Object.entries(DENIES).map(([k, v]) => [k, guard(v, undefined)])) as Record<keyof typeof DENIES, ReturnType<typeof guard>>;

function readsSecret(line: string): boolean {
  const result = spawnSync("bash", ["-c", line], { cwd: APP, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root }, encoding: "utf8", timeout: 10_000 });
  return result.stdout.includes(MARK);
}

const app = path.basename(APP);
const HAND = [
  "cat secrets/k",
  "cat ./secrets/k",
  "cat secrets//k",
  "cat ./secrets/./k",
  "cat src/../secrets/k",
  `cat ../${app}/secrets/k`,
  `cat ../../srv/${app}/secrets/k`,
  "cd secrets && cat k",
  "cd secrets; cat ./k",
  `cd .. && cat ${app}/secrets/k`,
  "cd src && cat ../secrets/k",
  "env cat secrets/k",
  "(cat secrets/k)",
  "echo x; cat 'secrets/k'",
  "cat \"secrets\"/k",
] as const;

describe.skipIf(!BASH)("a command line starts in the policy's pathBase", () => {
  it.each(HAND)("%s reads the secret and is not allowed under each deny", (line) => {
    expect(readsSecret(line), line).toBe(true);
    for (const [name, g] of Object.entries(withBase)) expect(g.decide("Bash", { command: line }).mode, `${name}: ${line}`).toBe("deny");
  });

  it("lines that do not reach the secret stay allowed", () => {
    for (const line of ["cat README.md", "cat src/x", "cat ./README.md", "cd src && cat x", "cat secrets-old/k", "cd /tmp && cat secrets/k", "cat ../README.md"]) {
      expect(readsSecret(line), line).toBe(false);
      for (const [name, g] of Object.entries(withBase)) expect(g.decide("Bash", { command: line }).mode, `${name}: ${line}`).toBe("allow");
    }
  });

  it("agrees with the Read tool under the same pathBase", () => {
    const g = withBase.file;
    for (const value of ["secrets/k", "./secrets/k", `../${app}/secrets/k`]) {
      expect(g.decide("Read", { file_path: value }).mode).toBe("deny");
      expect(g.decide("Bash", { command: `cat ${value}` }).mode).toBe("deny");
    }
  });

  it("without a pathBase, a relative word that stays in the start directory is read as written", () => {
    expect(withoutBase.file.decide("Bash", { command: "cat secrets/k" }).mode).toBe("allow");
    expect(withoutBase.file.decide("Bash", { command: `cat ${S}` }).mode).toBe("deny");
  });

  it("generated spellings: whenever bash printed the secret, no deny allows the line", () => {
    const segment = fc.constantFrom("secrets", "./secrets", "src/../secrets", `../${app}/secrets`, "secrets/.", "secrets/", `../../srv/${app}/secrets`);
    const file = fc.constantFrom("k", "./k", "/k", "x/../k", "README.md");
    const quote = fc.constantFrom((w: string) => w, (w: string) => `'${w}'`, (w: string) => `"${w}"`, (w: string) => w.replace("/", "\\/"));
    const shape = fc.constantFrom(
      (dir: string, f: string) => `cat ${dir}/${f}`,
      (dir: string, f: string) => `cd ${dir} && cat ${f.replace(/^\//, "")}`,
      (dir: string, f: string) => `cd src; cd ..; cat ${dir}/${f}`,
      (dir: string, f: string) => `true; (cat ${dir}/${f})`,
      (dir: string, f: string) => `cat -- ${dir}/${f}`,
    );
    let reached = 0;
    fc.assert(
      fc.property(segment, file, quote, shape, (dir, f, q, make) => {
        const line = make(q(dir), f);
        if (!readsSecret(line)) return;
        reached += 1;
        for (const [name, g] of Object.entries(withBase)) expect(g.decide("Bash", { command: line }).mode, `${name}: ${line}`).not.toBe("allow");
      }),
      { numRuns: 200, seed: ORACLE_SEED },
    );
    expect(reached).toBeGreaterThan(20);
  });
});

describe("`--` before a program's operands", () => {
  const exact = guard("cat /etc/shadow", undefined);
  const prefix = guard("rm -rf:*", undefined);
  it("a deny of the operands cannot tell for a program that may read `--` as the end of its options", () => {
    expect(exact.decide("Bash", { command: "cat -- /etc/shadow" }).mode).toBe("ask");
    expect(exact.decide("Bash", { command: "cat -- /etc/shadow" }).reason).toMatch(/may read -- as the end of its options/);
  });
  it("a word after `--` that starts with `-` stays an operand", () => {
    expect(prefix.decide("Bash", { command: "rm -- -rf" }).mode).toBe("allow");
    expect(exact.decide("Bash", { command: "cat -- -n" }).mode).toBe("allow");
  });
});

describe.skipIf(!BASH)("after a cd, every spelling of a command is placed there", () => {
  const g = guard(`cat ${D}/*`, undefined);
  it.each([`cd ${D}; /bin/cat k`, `cd ${D} && cat < k`, `cd ${D} && cat - < k`, `env -C ${D} /bin/cat k`, `cd ${APP} && /usr/bin/cat secrets/k`])("%s reads the secret and is denied", (line) => {
    expect(readsSecret(line), line).toBe(true);
    expect(g.decide("Bash", { command: line }).mode).toBe("deny");
  });
  it("a spelling placed elsewhere stays allowed", () => {
    expect(g.decide("Bash", { command: `cd ${root} && cat < k` }).mode).toBe("allow");
  });
});

describe.skipIf(!BASH)("find -execdir runs its command in the directory of each path found", () => {
  it.each([`find ${D} -name k -execdir cat {} \\;`, `find ${D} -execdir cat k \\;`, `cd ${APP} && find secrets -type f -execdir cat {} +`])("%s reads the secret and is not allowed", (line) => {
    expect(readsSecret(line), line).toBe(true);
    for (const [name, g] of Object.entries(withoutBase)) expect(g.decide("Bash", { command: line }).mode, `${name}: ${line}`).not.toBe("allow");
  });
  it("a command that names no file stays allowed", () => {
    expect(withoutBase.directory.decide("Bash", { command: "find . -name x -execdir ls \\;" }).mode).toBe("allow");
  });
});
