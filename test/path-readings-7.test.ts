/**
 * Paths the real programs read differently from the guard, round 7: relative words whose place depends on a directory
 * the guard does not know, judged by the REAL bash (and ln, cp).
 *
 * - The guard does not know the directory a line starts in. A relative word that climbs out of it (`../../etc/shadow`,
 *   `./../x`, `..//..//x`, `"../../x"`) may be any place ending in what follows its last `..`: from a directory deep
 *   enough, `../../../../../../../../../etc/shadow` IS /etc/shadow.
 * - A relative word after a `cd` the guard cannot place (`cd ..`, `cd ../../srv/secrets`, `cd ~/../..`, `cd -`, `popd`)
 *   is read in a directory it does not know either.
 * - A link or copy the line makes with a relative target (`ln -s ../../srv/secrets/k x; cat x`) reads that target.
 *
 * The judge: bash runs the line (after the guard decided) in a start directory at several depths inside a scratch
 * tree, HOME inside the tree, and the secret's text appears on its output. The property: the guard never ALLOWS a line
 * that read the secret, under a deny of the exact file, of the file as a `:*` prefix, and of its directory. Lines that
 * do not reach it keep their old decision under rules that cannot match them.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { bashGuard, denyListGuard } from "./helpers/bash-rules.js";
import { ORACLE_SEED } from "./helpers/oracle.js";

const BASH = spawnSync("bash", ["-c", "ln --version && cp --version"]).status === 0;
const root = realpathSync(mkdtempSync(path.join(tmpdir(), "gg-path7-")));
const MARK = "gg-path7-secret";
const D = `${root}/srv/secrets`;
const S = `${D}/k`;
const HOME = `${root}/home/u`;
mkdirSync(D, { recursive: true });
mkdirSync(HOME, { recursive: true });
writeFileSync(S, MARK);
writeFileSync(`${root}/README.md`, "readme");
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** How deep the tree's root is below `/`. */
const ROOT_DEPTH = root.split("/").filter((part) => part !== "").length;

const guards = {
  file: denyListGuard([`cat ${S}`], "path7-file"),
  prefix: denyListGuard([`cat ${S}:*`], "path7-prefix"),
  directory: denyListGuard([`cat ${D}/*`], "path7-directory"),
  // A `*` in the middle of the path: a climbing word may end in its directories.
  glob: denyListGuard([`cat ${root}/*/secrets/k`], "path7-glob"),
} as const;

let serial = 0;
/**
 * A fresh start directory `depth` levels below `${root}/runs/N` (so `depth + 2` levels below the tree's root), with a
 * README.md and src/x in it; bash runs `line` there, HOME in the tree: whether the secret's text came out.
 */
function readsSecret(line: string, depth: number): boolean {
  const cwd = path.join(root, "runs", String(serial++), ...Array.from({ length: depth }, (_, i) => `d${i}`));
  mkdirSync(path.join(cwd, "src"), { recursive: true });
  writeFileSync(path.join(cwd, "README.md"), "doc");
  writeFileSync(path.join(cwd, "src", "x"), "x");
  const result = spawnSync("bash", ["-c", line], { cwd, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME }, encoding: "utf8", timeout: 10_000 });
  return result.stdout.includes(MARK);
}

type Decision = { mode: string; reason: string | undefined };
function decideWith(guard: ReturnType<typeof denyListGuard>, line: string): Decision {
  const decision = guard.decide("Bash", { command: line });
  return { mode: decision.mode, reason: decision.reason };
}

/** `..` climbs, `n` of them, spelled with `./`, `//` or quotes as `style` says. */
function climbs(n: number, style: number): string {
  const parts = Array.from({ length: n }, () => "..");
  switch (style) {
    case 1:
      return `./${parts.join("/")}/`;
    case 2:
      return `${parts.join("//")}//`;
    case 3:
      return `"${parts.join("/")}"/`;
    case 4:
      return `${parts.map((part, i) => (i % 2 === 0 ? `'${part}'` : part)).join("/")}/`;
    case 5:
      return `${parts.join("/./")}/./`;
    default:
      return `${parts.join("/")}/`;
  }
}

describe.skipIf(!BASH)("relative words in a directory the guard does not know: bash judges", () => {
  it("the policy is not vacuous: the plain spelling is denied, a known cd places relative words", () => {
    for (const guard of Object.values(guards)) expect(decideWith(guard, `cat ${S}`).mode).toBe("deny");
    expect(decideWith(guards.file, `cd ${D} && cat k`).mode).toBe("deny");
    expect(decideWith(guards.directory, `cd ${root}/srv; cat secrets/k`).mode).toBe("deny");
  });

  // The brief's examples, decided only (this machine's /etc/shadow is not read), under the rules a user writes.
  const brief = denyListGuard(["cat /etc/shadow", "cat /srv/secrets/*", "rm:*"], "path7-brief");
  it.each([
    "cat ../../../../../../../../../etc/shadow",
    "cat ./../../../../../../srv/secrets/k",
    "cat ..//..//..//..//srv/secrets/k",
    'cat "../../../../../srv/secrets/k"',
    "cd ../../../../../srv/secrets && cat k",
    "cd ..; cat k",
    "cd ~/../../srv; cat secrets/k",
    "ln -s ../../../../../../srv/secrets/k x; cat x",
    "cat src/../../../etc/shadow",
    "cd -; cat k",
    "pushd /srv/secrets >/dev/null; pushd /tmp; popd; popd; cat k",
    "(cd ../..; cat srv/secrets/k)",
    "cp ../../srv/secrets/k y; cat y",
    "cat ../shadow",
    "cd .. && sudo cat shadow",
    "cat < ../../etc/shadow",
  ])("the brief's rules cannot tell: %s", (line) => {
    const decision = decideWith(brief, line);
    expect(decision.mode, `${line}: ${decision.reason ?? ""}`).toBe("ask");
    expect(decision.reason).toMatch(/directory the guard does not know/);
  });

  it("an expansion before a `..` (the start directory by $(pwd)) may be any directory: only what follows the last `..` is sure", () => {
    const decision = decideWith(brief, "cat $(pwd)/../shadow");
    expect(decision.mode).toBe("ask");
    expect(decision.reason).toMatch(/shell replaces/);
    expect(decideWith(denyListGuard(["cat /etc/shadow"], "path7-pwd"), "cat $(pwd)/../README.md").mode).toBe("allow");
  });

  it("the brief's rules keep what they decided before", () => {
    expect(decideWith(brief, "cd /; cat etc/shadow").mode).toBe("deny");
    expect(decideWith(brief, "cd /srv && cat secrets/k").mode).toBe("deny");
    expect(decideWith(brief, "rm ../x").mode).toBe("deny");
    expect(decideWith(brief, "cat ~/../../etc/shadow").mode).toBe("ask");
    // Relative words that stay inside the start directory are read lexically: `etc/shadow` is ./etc/shadow.
    for (const line of ["cat etc/shadow", "cat secrets/k", "cat src/x", "cd ..; ls", "cd src && cat x", "cd ..; ls ../x", "ls ../..", "cd ../..; git status"]) {
      expect(decideWith(brief, line).mode, line).toBe("allow");
    }
  });

  it("the cost: under a directory deny, a climbing word that could be in that directory asks", () => {
    const decision = decideWith(brief, "cat ../README.md");
    expect(decision.mode).toBe("ask");
    expect(decideWith(denyListGuard(["cat /etc/shadow"], "path7-cost"), "cat ../README.md").mode).toBe("allow");
  });

  it("a home directory the line moves to is one directory: only a climb out of it may be anywhere", () => {
    const home = denyListGuard(["cat ~/.ssh/*"], "path7-home");
    expect(decideWith(home, "cd ~/proj && cat Makefile").mode).toBe("allow");
    expect(decideWith(home, "cd ~ && cat .ssh/id_rsa").mode).toBe("deny");
    expect(decideWith(home, "cd ~/proj; cat ../.ssh/id_rsa").mode).toBe("deny");
    for (const line of ["cd ..; cat .ssh/id_rsa", "cd -; cat .ssh/id_rsa", "cat ../.ssh/id_rsa", "cd ~/proj/../..; cat u/.ssh/id_rsa"]) {
      const decision = decideWith(home, line);
      expect(decision.mode, line).toBe("ask");
      expect(decision.reason).toMatch(/directory the guard does not know/);
    }
  });

  it("a cd in a loop or a function moves the line's commands where the guard cannot tell; one in a subshell does not", () => {
    for (const line of ["cd src; for i in 1 2; do cd ..; done; cat k", "for i in 1 2; do cat k; cd /srv/secrets; done", "f() { cd /srv/secrets; }; cd /; f; cat k", "f() { cat k; }; cd /srv/secrets; f", "until cd ..; do :; done; cat k"]) {
      const decision = decideWith(brief, line);
      expect(decision.mode, line).toBe("ask");
      expect(decision.reason).toMatch(/directory the guard does not know/);
    }
    for (const line of ["(for i in 1 2; do cd ..; done); cat k", "for i in 1 2; do echo $i; done; cat README.md", "f() { ls; }; f; cat k"]) expect(decideWith(brief, line).mode, line).toBe("allow");
  });

  it("allow rules are not widened", () => {
    const guard = bashGuard(["cat docs/*", "cat ./*", "ls:*", "cd:*"], [], "path7-allow");
    for (const line of ["cat ../../etc/shadow", "cat docs/../../etc/shadow", "cd ..; cat docs/a", "cd -; cat ./k", "cat ./../k", "cd ~/..; cat ./k"]) {
      expect(guard.decide("Bash", { command: line }).mode, line).not.toBe("allow");
    }
    expect(guard.decide("Bash", { command: "cat docs/a" }).mode).toBe("allow");
    expect(guard.decide("Bash", { command: "ls ../.." }).mode).toBe("allow");
  });

  // Hand-written lines in the tree, each from start directories at several depths.
  const REL = (depth: number) => `${"../".repeat(depth + 2)}srv/secrets/k`;
  const FROM_ROOT = (depth: number) => `${"../".repeat(depth + 2 + ROOT_DEPTH + 1)}${S.slice(1)}`;
  const handWritten: [string, (depth: number) => string][] = [
    ["climb to the tree", (d) => `cat ${REL(d)}`],
    ["climb past /", (d) => `cat ${FROM_ROOT(d)}`],
    ["./ then climbs", (d) => `cat ./${REL(d)}`],
    ["doubled slashes", (d) => `cat ${REL(d).replace(/\//g, "//")}`],
    ["quoted", (d) => `cat "${REL(d)}"`],
    ["cd climbs", (d) => `cd ${"../".repeat(d + 2)}srv/secrets && cat k`],
    ["cd .. repeatedly", (d) => `${"cd ..; ".repeat(d + 2)}cat srv/secrets/k`],
    ["cd home", () => "cd ~/../..; cat srv/secrets/k"],
    ["cd home then srv", () => "cd ~/../../srv; cat secrets/k"],
    ["cd - back to the secrets", () => `cd ${D}; cd /tmp; cd - >/dev/null; cat k`],
    ["popd", () => `pushd ${D} >/dev/null; pushd /tmp >/dev/null; popd >/dev/null; cat k`],
    ["ln -s relative", (d) => `ln -s ${REL(d)} x; cat x`],
    ["ln hard relative", (d) => `ln ${REL(d)} h; cat h`],
    ["cp relative", (d) => `cp ${REL(d)} y; cat y`],
    ["subshell cd", (d) => `(cd ${"../".repeat(d + 2)}srv; cat secrets/k)`],
    ["climb through src", (d) => `cat src/../${REL(d)}`],
    ["the start directory by $(pwd)", (d) => `cat $(pwd)/${REL(d)}`],
    ["the start directory by $PWD, quoted", (d) => `cat "$PWD/${REL(d)}"`],
    ["a file name pattern after climbing", (d) => `cat ${REL(d).replace(/k$/, "[k]")}`],
    ["sudo-like wrapper after cd", (d) => `cd ${"../".repeat(d + 2)}srv/secrets && command cat k`],
    ["input redirection", (d) => `cat < ${REL(d)}`],
    ["bash -c", (d) => `bash -c 'cat ${REL(d)}'`],
    ["cd .. in a loop", (d) => `cd src; for i in $(seq ${d + 3}); do cd ..; done; cat srv/secrets/k`],
    ["a loop's later turn after its cd", () => `for i in 1 2; do cat k 2>/dev/null; cd ${D}; done`],
    ["a function's cd where it is called", () => `f() { cd ${D}; }; cd /; f; cat k`],
    ["a function's words where it is called", () => `f() { cat k; }; cd ${D}; f`],
    ["a function climbing each call", (d) => `f() { cd ..; }; ${"f; ".repeat(d + 2)}cat srv/secrets/k`],
  ];
  const depths = [0, 1, 3, 6];
  it.each(handWritten.flatMap(([name, make]) => depths.map((depth) => [name, depth, make(depth)] as const)))("%s (depth %i): %s", (_name, depth, line) => {
    const decisions = Object.entries(guards).map(([kind, guard]) => [kind, decideWith(guard, line)] as const);
    expect(readsSecret(line, depth), `${line} should read the secret`).toBe(true);
    for (const [kind, decision] of decisions) expect(decision.mode, `${kind}: ${line}: ${decision.reason ?? ""}`).not.toBe("allow");
  });

  it("lines that do not reach the secret keep their decision under rules that cannot match them", () => {
    const elsewhere = denyListGuard([`cat ${root}/etc/shadow`, "cat /etc/shadow"], "path7-elsewhere");
    for (const line of ["cat ../README.md", "cat src/x", "cd ..; ls", "cat ../../README.md", "cd ../..; cat README.md", "cd ~; ls", "cd -; ls", "cat ./src/../README.md"]) {
      const decision = decideWith(elsewhere, line);
      expect(decision.mode, `${line}: ${decision.reason ?? ""}`).toBe("allow");
      expect(readsSecret(line, 2)).toBe(false);
    }
  });

  // Generated lines: a way to the secret (climbing words, cd chains, home, cd -, pushd/popd, links and copies with
  // relative targets), spelled with ./, // and quotes, wrapped in a subshell or not, from a start directory of some depth.
  const WAYS = [
    "climb",
    "climb-root",
    "cd-climb",
    "cd-steps",
    "cd-home",
    "cd-dash",
    "pushd",
    "ln-s",
    "ln",
    "cp",
    "cd-then-climb",
    "ln-dir",
    "cp-r",
    "cd-home-climb",
    "cd-dash-climb",
    "substitution",
    "bash-c",
  ] as const;
  const lines = fc
    .tuple(fc.constantFrom(...WAYS), fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 5 }), fc.constantFrom("X", "X", "(X)", "{ X; }", "true && X"), fc.constantFrom("; ", " && ", "\n"), fc.integer({ min: 0, max: 2 }))
    .map(([way, depth, style, wrap, separator, extra]) => {
      const up = depth + 2;
      const toRoot = (n: number) => climbs(n, style);
      let line: string;
      switch (way) {
        case "climb":
          line = `cat ${toRoot(up)}srv/secrets/k`;
          break;
        case "climb-root":
          line = `cat ${toRoot(up + ROOT_DEPTH + extra)}${S.slice(1)}`;
          break;
        case "cd-climb":
          line = `cd ${toRoot(up)}srv${separator}cat secrets/k`;
          break;
        case "cd-steps":
          line = `${Array.from({ length: up }, () => `cd ${style === 3 ? '".."' : ".."}`).join(separator)}${separator}cat ./srv/secrets/k`;
          break;
        case "cd-home":
          line = `cd ~/${toRoot(2)}srv${separator}cat secrets/k`;
          break;
        case "cd-dash":
          line = `cd ${D}${separator}cd ${toRoot(1)}${separator}cd - >/dev/null${separator}cat k`;
          break;
        case "pushd":
          line = `pushd ${toRoot(up)}srv/secrets >/dev/null${separator}pushd .. >/dev/null${separator}popd >/dev/null${separator}cat k`;
          break;
        case "ln-s":
          line = `ln -sf ${toRoot(up)}srv/secrets/k x${separator}cat x`;
          break;
        case "ln":
          line = `ln -f ${toRoot(up)}srv/secrets/k h${separator}cat h`;
          break;
        case "cp":
          line = `cp ${toRoot(up)}srv/secrets/k y${separator}cat y`;
          break;
        case "ln-dir":
          line = `ln -sfn ${toRoot(up)}srv/secrets s${separator}cat s/k`;
          break;
        case "cp-r":
          line = `cp -r ${toRoot(up)}srv/secrets c${separator}cat c/k`;
          break;
        case "cd-home-climb":
          line = `cd${separator}cd ${toRoot(2)}srv/secrets${separator}cat k`;
          break;
        case "cd-dash-climb":
          line = `cd ${toRoot(up)}srv${separator}cd secrets${separator}cd ..${separator}cd - >/dev/null${separator}cat k`;
          break;
        case "substitution":
          line = `echo "$(cat ${toRoot(up)}srv/secrets/k)"`;
          break;
        case "bash-c":
          line = `bash -c "cat ${toRoot(up).replace(/"/g, "'")}srv/secrets/k"`;
          break;
        default:
          const first = 1 + (extra % (up - 1));
          line = `cd ${toRoot(first)}${separator}cat ${toRoot(up - first)}srv/secrets/k`;
      }
      return { line: wrap.replace("X", line), depth };
    });
  const cases = [...new Map(fc.sample(lines, { numRuns: 240, seed: ORACLE_SEED }).map((one) => [`${one.depth}:${one.line}`, one] as const)).values()];
  const judged = new Map(cases.map((one) => [one, Object.entries(guards).map(([kind, guard]) => [kind, decideWith(guard, one.line)] as const)] as const));
  it.each(cases.map((one) => [one.depth, one.line, one] as const))("generated (depth %i): %s", (_depth, line, one) => {
    if (!readsSecret(line, one.depth)) return;
    for (const [kind, decision] of judged.get(one)!) expect(decision.mode, `${kind}: ${line} read the secret: ${decision.reason ?? ""}`).not.toBe("allow");
  });
  it(`the generated lines read the secret (not vacuous): ${cases.length} lines`, () => {
    let read = 0;
    for (const one of cases.slice(0, 40)) if (readsSecret(one.line, one.depth)) read++;
    expect(read).toBeGreaterThan(Math.min(cases.length, 40) * 0.75);
  }, 120_000);
});
