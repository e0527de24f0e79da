/**
 * Paths the real programs read differently from the guard, round 6: links the line itself makes, judged by the REAL
 * bash, ln, cp, mv and link.
 *
 * - A link made earlier in the same line does not exist yet when the guard decides, so this machine's files cannot tell
 *   where it leads: `ln -s SECRET x; cat x`, `ln SECRET h && cat h` (a hard link), `cp -s`/`cp -l`/`link`, `ln -t DIR`
 *   (the name is DIR/BASENAME), `ln -s SECRET` (./BASENAME), `ln -rs`, long options, options after the operands (GNU
 *   getopt permutes), a directory link and a path under it, `mv`/`cp -r` of a directory holding a link, a link made in a
 *   subshell or a `{ }` group, and `cd` into a linked directory. The guard reads the link's name and target as
 *   ln(1)/cp(1)/mv(1) read their options and operands (coreutils 9.1), and a later word that names the link as its
 *   target too. Where it cannot tell the name or the target (an expansion, `-t` into a directory it cannot place), a
 *   deny a later word could meet asks.
 * - A hard link that already exists: `cat H` where H is another name of the denied file. Device and inode tell.
 *
 * The judge: bash runs the line in a fresh directory and the secret's text appears on its output. The guard decides
 * first (the links do not exist yet). The property: the guard never ALLOWS a line that read the secret; plain
 * companions stay allowed (the policy is not vacuous).
 */
import { spawnSync } from "node:child_process";
import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { denyListGuard, type BashExpectation } from "./helpers/bash-rules.js";
import { ORACLE_SEED, oracleCases } from "./helpers/oracle.js";

const BASH = spawnSync("bash", ["-c", "ln --version && cp --version && link --version"]).status === 0;
const root = realpathSync(mkdtempSync(path.join(tmpdir(), "gg-path6-")));
const MARK = "gg-path6-secret";
const S = `${root}/secrets/key`;
const D = `${root}/secrets`;
for (const [file, text] of [["secrets/key", MARK], ["secrets/sub/deep", MARK], ["docs/a.md", "doc"], ["docs/b.md", "doc"], ["vault/deep/item", MARK]] as const) {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
}
// Hard links that exist before the guard decides: one to the denied file, one to a file in a directory too large to
// search, one to an ordinary file (as a pnpm store makes them).
linkSync(S, path.join(root, "hl"));
linkSync(path.join(root, "vault/deep/item"), path.join(root, "hv"));
linkSync(path.join(root, "docs/a.md"), path.join(root, "docs/ha"));
for (let i = 0; i < 5000; i++) writeFileSync(path.join(root, "vault", `f${i}`), "");
afterAll(() => rmSync(root, { recursive: true, force: true }));

// A deny list as users write one: a line no rule decides runs, so an ask here is the guard's own doubt.
const guard = denyListGuard([`cat ${S}`, `cat ${D}/*`, `head -c 64 ${D}/*`], "path6");
// A deny under a directory too large to search for a file's other names.
const vaultGuard = denyListGuard([`cat ${root}/vault/*`], "path6-vault");

let serial = 0;
/** bash runs `line` in a fresh directory under the tree (with `env`): whether the secret's text came out. */
function readsSecret(line: string, env: Readonly<Record<string, string>> = {}): boolean {
  const cwd = path.join(root, "work", String(serial++));
  mkdirSync(cwd, { recursive: true });
  writeFileSync(path.join(cwd, "a.md"), "doc");
  const result = spawnSync("bash", ["-c", line], { cwd, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env }, encoding: "utf8", timeout: 10_000 });
  return result.stdout.includes(MARK);
}

function decide(line: string): { mode: string; reason: string | undefined } {
  const decision = guard.decide("Bash", { command: line });
  return { mode: decision.mode, reason: decision.reason };
}

describe.skipIf(!BASH)("links made earlier in the same line: bash, ln, cp, mv and link judge", () => {
  it("the policy is not vacuous: the plain spelling is denied, plain companions allowed", () => {
    expect(decide(`cat ${S}`).mode).toBe("deny");
    for (const line of ["ln -s a.md b", "cat a.md", `ln -s ${root}/docs/a.md x; cat x`, `ln -s ${S} x; cat a.md`, "cp a.md b; cat b", `ln -s ${D} s; cat a.md`, "ln -s a.md b && cat b", `ln ${root}/docs/a.md h; cat h`, `cat ${root}/docs/ha`, `mkdir d && ln -s ${S} d/x && cat d/y`, "cp $X y; cat a.md", `ln -s ${root}/docs/a.md xy; cat x*`, `ln -s ${S} xy; cat z* a.md`, "mkdir d; ln -s $T d/; cat a.md", `cp -r ${root}/docs c; cat c/a.md`, "install -d key; cat a.md", `find ${D} -name key -exec ln -s {} x \\; ; cat a.md`]) {
      const decision = decide(line);
      expect(decision.mode, `${line}: ${decision.reason ?? ""}`).toBe("allow");
      expect(readsSecret(line), line).toBe(false);
    }
  });

  it.each<[string, BashExpectation, Readonly<Record<string, string>>?]>([
    [`ln -s ${S} x; cat x`, "deny"],
    [`ln -s ${S} x && cat x`, "deny"],
    [`ln -sf ${D} x && cat x/key`, "deny"],
    [`ln -s ${D} s; cat s/key`, "deny"],
    [`ln -s ${D} s; cat ./s/sub/../key`, "deny"],
    [`ln ${S} h; cat h`, "deny"],
    [`cp -s ${S} x; cat x`, "deny"],
    [`cp -l ${S} x; cat x`, "deny"],
    [`cp --symbolic-link ${S} x; cat x`, "deny"],
    [`link ${S} x; cat x`, "deny"],
    [`mkdir d && ln -t d ${S} && cat d/key`, "deny"],
    [`mkdir d && ln -s --target-directory=d ${S} && cat d/key`, "deny"],
    [`ln -s ${S} && cat key`, "deny"],
    [`ln -rs ${S} x && cat x`, "deny"],
    [`ln --symbolic --force ${S} x; cat x`, "deny"],
    [`ln ${S} x -s; cat x`, "deny"],
    [`ln -s -- ${S} x; cat x`, "deny"],
    [`ln -sT ${S} x; cat x`, "deny"],
    [`mkdir d; ln -s ${S} d; cat d/key`, "deny"],
    [`mkdir d; ln -s ${S} d/; cat d/key`, "deny"],
    [`ln -s ${S} a; ln -s a b; cat b`, "deny"],
    [`mkdir d && ln -s ${S} d/x && mv d e && cat e/x`, "deny"],
    [`mkdir d && ln -s ${S} d/x && cp -r d e && cat e/x`, "deny"],
    [`ln -s ${S} x && mv x y && cat y`, "deny"],
    [`(ln -s ${S} x); cat x`, "deny"],
    [`{ ln -s ${S} x; }; cat x`, "deny"],
    [`ln -s ${D} e && cd e && cat key`, "deny"],
    [`ln -s ${D} e && cd e/sub && cat ../key`, "deny"],
    [`ln -s ${S} x; head -c 64 x`, "deny"],
    [`ln -s ${S} x; cat x a.md`, "not-allow"],
    [`/bin/ln -s ${S} x; cat x`, "deny"],
    [`cp ${S} y; cat y`, "deny"],
    [`cp -r ${D} c; cat c/sub/deep`, "deny"],
    [`install -m 600 ${S} y; cat y`, "deny"],
    [`mkdir d; install -t d ${S}; cat d/key`, "deny"],
    [`cp -rs ${D} c; cat c/key`, "deny"],
    [`cp -al ${D} c; cat c/key`, "deny"],
    [`for i in 1 2; do cat x 2>/dev/null; ln -sf ${S} x; done`, "deny"],
    ["ln -s $T x; cat x", "ask", { T: S }],
    ["cp $X y; cat y", "ask", { X: S }],
    ["mkdir d; ln -s $T d/; cat d/key", "ask", { T: S }],
    [`mkdir d; ln -s ${S} d/$N; cat y`, "ask", { N: "../y" }],
    [`ln -s ${S} xy; cat x*`, "ask"],
    [`echo ${S} | xargs -I{} ln -s {} x; cat x`, "ask"],
    ["echo x | xargs ln -s $T; cat x", "ask", { T: S }],
    [`echo x | xargs ln -s ${S}; cat x`, "ask"],
    [`find ${D} -name key -exec ln -s {} x \\; ; cat x`, "ask"],
    [`mkdir d; ln -s ${D}/* d/; cat d/key`, "ask"],
    [`ln -s ${S} xy; cat ./x?`, "ask"],
    [`ln -s ${D} sy; cat s*/key`, "ask"],
    [`ln -s ${S} xy; cat x$Y`, "ask", { Y: "y" }],
    [`ln -s ${S} $N; cat y`, "ask", { N: "y" }],
    [`mkdir d; ln -s ${S} -t "$N"; cat d/key`, "ask", { N: "d" }],
  ])("%s", (line, expected, env) => {
    const decision = decide(line);
    expect(readsSecret(line, env), `${line} should read the secret`).toBe(true);
    if (expected === "not-allow") expect(decision.mode, `${line}: ${decision.reason ?? ""}`).not.toBe("allow");
    else expect(decision.mode, `${line}: ${decision.reason ?? ""}`).toBe(expected);
  });

  it("the reason of an ask names the link whose name or target the guard cannot tell", () => {
    expect(decide("ln -s $T x; cat x").reason).toMatch(/link/);
    expect(decide(`ln -s ${S} $N; cat y`).reason).toMatch(/link/);
  });

  it("hard links that already exist: device and inode tell", () => {
    expect(decide(`cat ${root}/hl`).mode).toBe("deny");
    expect(decide(`head -c 64 ${root}/hl`).mode).toBe("deny");
    // Another name of an ordinary file (as a pnpm store makes them): the denied directory is searched, it is not there.
    expect(decide(`cat ${root}/docs/ha`).mode).toBe("allow");
    // The cost: where the directory is too large to search, any file with several names asks.
    const vault = vaultGuard.decide("Bash", { command: `cat ${root}/hv` });
    expect(vault.mode).toBe("ask");
    expect(vault.reason).toMatch(/hard link/);
    expect(vaultGuard.decide("Bash", { command: `cat ${root}/docs/ha` }).mode).toBe("ask");
    expect(vaultGuard.decide("Bash", { command: `cat ${root}/docs/b.md` }).mode).toBe("allow");
  });

  // Generated lines: a link maker, a target (the file or its directory), a name, a separator, a wrapper, a reader.
  const MAKERS = [
    { make: "ln -s SRC NAME", dir: true },
    { make: "ln -sf SRC NAME", dir: true },
    { make: "ln -sfn SRC NAME", dir: true },
    { make: "ln --symbolic SRC NAME", dir: true },
    { make: "ln -s -T SRC NAME", dir: true },
    { make: "ln -rs SRC NAME", dir: true },
    { make: "ln SRC NAME -s", dir: true },
    { make: "ln -st DIR SRC", dir: true, into: true },
    { make: "ln -t DIR SRC", dir: false, into: true },
    { make: "ln SRC NAME", dir: false },
    { make: "ln -f SRC NAME", dir: false },
    { make: "cp -s SRC NAME", dir: false },
    { make: "cp -l SRC NAME", dir: false },
    { make: "cp --link SRC NAME", dir: false },
    { make: "link SRC NAME", dir: false },
  ] as const;
  const WRAP = ["X", "X", "(X)", "{ X; }", "true && X", "X 2>/dev/null"];
  const SEPARATORS = ["; ", " && ", "\n", " || true; "];
  const lines = fc
    .tuple(fc.constantFrom(...MAKERS), fc.boolean(), fc.constantFrom("x", "./x", "d/x", "d//x"), fc.constantFrom(...WRAP), fc.constantFrom(...SEPARATORS), fc.constantFrom("cat R", "head -c 64 R", "cat ./R", "cat R a.md"), fc.boolean(), fc.constantFrom("", "", "mv", "cp -P", "cp -a", "mv -T"))
    .map(([maker, wantDir, name, wrap, separator, reader, viaCd, then]) => {
      const dir = wantDir && maker.dir;
      const target = dir ? D : S;
      const first = "into" in maker ? `d/${path.basename(target)}` : name;
      // Then the link is moved or copied (a symbolic link as a link) to m, and m is read.
      const made = then === "" ? first : "m";
      const make = `${maker.make.replace("DIR", "d").replace("SRC", target).replace("NAME", name)}${then === "" ? "" : ` && ${then} ${first} m`}`;
      const read = dir ? `${made}/key` : made;
      const prefix = first.startsWith("d") ? "mkdir -p d; " : "";
      if (viaCd && dir) return `${prefix}${wrap.replace("X", make)}${separator}cd ${made} && ${reader.replace("R", "key")}`;
      return `${prefix}${wrap.replace("X", make)}${separator}${reader.replace("R", read)}`;
    });
  // 200 lines by default (each runs bash); GG_ORACLE_CASES sets another count.
  const cases = [...new Set(fc.sample(lines, { numRuns: process.env.GG_ORACLE_CASES === undefined ? 200 : oracleCases(), seed: ORACLE_SEED }))];
  const judged = new Map(cases.map((line) => [line, decide(line)] as const));
  it.each(cases.map((line) => [line] as const))("generated: %s", (line) => {
    const decision = judged.get(line)!;
    if (!readsSecret(line)) return;
    expect(decision.mode, `${line} read the secret: ${decision.reason ?? ""}`).not.toBe("allow");
  });
  it(`the generated lines read the secret (not vacuous): ${cases.length} lines`, () => {
    let read = 0;
    for (const line of cases.slice(0, 40)) if (readsSecret(line)) read++;
    expect(read).toBeGreaterThan(Math.min(cases.length, 40) / 2);
  }, 120_000);
});
