// Readings round 12: where the real program does something other than what the guard read.
//   1. A script rewritten in place and then run in the same line (`sed -i 's/x/CMD/' run.sh && sh run.sh`): sed -i, perl -i,
//      gawk -i inplace, ed and ex, patch and git apply (the files a patch names); tee, cp, mv, install, ln and dd as before.
//   2. tar's `[USER@]HOST:FILE` archives: tar runs a remote shell (rsh, which is ssh's alternative on Debian) to reach HOST.
// Every case is judged by the real program where it is installed (GNU sed, perl, gawk, ed, vim's ex, GNU patch, git, GNU tar).
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { bashGuard, denyListGuard, expectBashDecision, installed, leavesMarker, type BashExpectation } from "./helpers/bash-rules.js";

const X = "rm -rf /tmp/x";
const DENY = ["rm:*", "nc:*", "git push:*"];
const denyList = denyListGuard(DENY, "shell-readings-12-deny-list");

const PATCH_MARKER = "--- a.txt\n+++ a.txt\n@@ -1,2 +1,2 @@\n-hello\n+touch MARKER\n world\n";
const PATCH_X = PATCH_MARKER.replace("touch MARKER", X);
const GIT_PATCH_MARKER = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-hello\n+touch MARKER\n world\n";
const GIT_PATCH_X = GIT_PATCH_MARKER.replace("touch MARKER", X);

/**
 * A file rewritten by a program's in-place editing and then run as a script in the same line: `line` is what the guard
 * decides (under the deny list it cannot tell: ask), `run` the same with the denied command replaced by `touch MARKER`,
 * which the real program must leave behind (the file really held the command when it ran).
 */
const REWRITTEN: readonly { line: string; run: string; program: string }[] = [
  { line: `sed -i 's/.*/${X.replace(/\//g, "\\/")}/' a.txt && sh a.txt`, run: "sed -i 's/.*/touch MARKER/' a.txt && sh a.txt", program: "sed" },
  { line: `sed -i '1i ${X}' a.txt; sh a.txt`, run: "sed -i '1i touch MARKER' a.txt; sh a.txt", program: "sed" },
  { line: `sed -i.bak -e '1i ${X}' a.txt; bash a.txt`, run: "sed -i.bak -e '1i touch MARKER' a.txt; bash a.txt", program: "sed" },
  { line: `sed --in-place=.orig '1i ${X}' a.txt; . ./a.txt`, run: "sed --in-place=.orig '1i touch MARKER' a.txt; . ./a.txt", program: "sed" },
  { line: `sed --in-pl '1i ${X}' a.txt; source a.txt`, run: "sed --in-pl '1i touch MARKER' a.txt; source a.txt", program: "sed" },
  { line: `sed -Ei '1i ${X}' a.txt; sh a.txt`, run: "sed -Ei '1i touch MARKER' a.txt; sh a.txt", program: "sed" },
  { line: `sed -ni '1i ${X}' a.txt; sh a.txt`, run: "sed -ni '1i touch MARKER' a.txt; sh a.txt", program: "sed" },
  { line: `sed '1i ${X}' -i a.txt; sh a.txt`, run: "sed '1i touch MARKER' -i a.txt; sh a.txt", program: "sed" },
  { line: `sed -i -- '1i ${X}' a.txt; sh a.txt`, run: "sed -i -- '1i touch MARKER' a.txt; sh a.txt", program: "sed" },
  { line: `printf '1i ${X}\\n' > s.sed; sed -f s.sed -i a.txt; sh a.txt`, run: "printf '1i touch MARKER\\n' > s.sed; sed -f s.sed -i a.txt; sh a.txt", program: "sed" },
  { line: `perl -pi -e 's/.*/${X.replace(/\//g, "\\/")}/' a.txt; sh a.txt`, run: "perl -pi -e 's/.*/touch MARKER/' a.txt; sh a.txt", program: "perl" },
  { line: `perl -i.bak -pe 's/^hello/${X.replace(/\//g, "\\/")}/' a.txt && bash a.txt`, run: "perl -i.bak -pe 's/^hello/touch MARKER/' a.txt && bash a.txt", program: "perl" },
  { line: `perl -p -i -e 's/^hello/${X.replace(/\//g, "\\/")}/' a.txt; sh ./a.txt`, run: "perl -p -i -e 's/^hello/touch MARKER/' a.txt; sh ./a.txt", program: "perl" },
  { line: `gawk -i inplace '{print "${X}"}' a.txt; sh a.txt`, run: "gawk -i inplace '{print \"touch MARKER\"}' a.txt; sh a.txt", program: "gawk" },
  { line: `gawk -iinplace '{print "${X}"}' a.txt; sh a.txt`, run: "gawk -iinplace '{print \"touch MARKER\"}' a.txt; sh a.txt", program: "gawk" },
  { line: `gawk --include=inplace '{print "${X}"}' a.txt; sh a.txt`, run: "gawk --include=inplace '{print \"touch MARKER\"}' a.txt; sh a.txt", program: "gawk" },
  { line: `awk -i inplace.awk -v c='${X}' '{print c}' a.txt; sh a.txt`, run: "gawk -i inplace.awk -v c='touch MARKER' '{print c}' a.txt; sh a.txt", program: "gawk" },
  { line: `printf '%s\\n' 1c '${X}' . w q | ed -s a.txt; sh a.txt`, run: "printf '%s\\n' 1c 'touch MARKER' . w q | ed -s a.txt; sh a.txt", program: "ed" },
  { line: `ed -s a.txt <<'EOF'\n1c\n${X}\n.\nw\nq\nEOF\nsh a.txt`, run: "ed -s a.txt <<'EOF'\n1c\ntouch MARKER\n.\nw\nq\nEOF\nsh a.txt", program: "ed" },
  { line: `printf '%s\\n' '1c' '${X}' . x | ex -s a.txt; sh a.txt`, run: "printf '%s\\n' '1c' 'touch MARKER' . x | ex -s a.txt; sh a.txt", program: "ex" },
  { line: `patch -s a.txt <<'EOF'\n${PATCH_X}EOF\nsh a.txt`, run: `patch -s a.txt <<'EOF'\n${PATCH_MARKER}EOF\nsh a.txt`, program: "patch" },
  { line: `patch -s -p0 <<'EOF'\n${PATCH_X}EOF\nsh a.txt`, run: `patch -s -p0 <<'EOF'\n${PATCH_MARKER}EOF\nsh a.txt`, program: "patch" },
  { line: `patch -s <<'EOF'\n${PATCH_X}EOF\n./a.txt`, run: `chmod +x a.txt; patch -s <<'EOF'\n${PATCH_MARKER}EOF\n./a.txt`, program: "patch" },
  { line: `git apply <<'EOF'\n${GIT_PATCH_X}EOF\nsh a.txt`, run: `git apply <<'EOF'\n${GIT_PATCH_MARKER}EOF\nsh a.txt`, program: "git" },
  { line: `git apply --unidiff-zero - <<'EOF'\n${GIT_PATCH_X}EOF\nbash a.txt`, run: `git apply --unidiff-zero - <<'EOF'\n${GIT_PATCH_MARKER}EOF\nbash a.txt`, program: "git" },
  { line: `echo '${X}' | tee a.txt >/dev/null; sh a.txt`, run: "echo 'touch MARKER' | tee a.txt >/dev/null; sh a.txt", program: "tee" },
  { line: `echo '${X}' > m.txt; cp m.txt x.sh; sh x.sh`, run: "echo 'touch MARKER' > m.txt; cp m.txt x.sh; sh x.sh", program: "cp" },
  { line: `echo '${X}' > m.txt; mv m.txt x.sh; sh x.sh`, run: "echo 'touch MARKER' > m.txt; mv m.txt x.sh; sh x.sh", program: "mv" },
  { line: `echo '${X}' > m.txt; install m.txt x.sh; ./x.sh`, run: "echo 'touch MARKER' > m.txt; install m.txt x.sh; ./x.sh", program: "install" },
  { line: `echo '${X}' > m.txt; ln -sf m.txt x.sh; sh x.sh`, run: "echo 'touch MARKER' > m.txt; ln -sf m.txt x.sh; sh x.sh", program: "ln" },
  { line: `echo '${X}' > m.txt; dd if=m.txt of=x.sh status=none; sh x.sh`, run: "echo 'touch MARKER' > m.txt; dd if=m.txt of=x.sh status=none; sh x.sh", program: "dd" },
];

describe("a script rewritten in place and then run: the real program writes what the line then runs, and a deny list cannot tell", () => {
  for (const r of REWRITTEN) {
    describe(`${r.program}: ${r.line.split("\n")[0]!}`, () => {
      it("the guard asks under a deny list", () => {
        const decision = denyList.decide("Bash", { command: r.line });
        expect(decision.mode, decision.reason).toBe("ask");
        expect(decision.reason).toMatch(/cannot tell/);
      });
      it("an allow of the programs does not cover it", () => expectBashDecision(bashGuard([`${r.program}:*`, "sed:*", "awk:*", "gawk:*", "sh:*", "bash:*", "echo:*", "printf:*", "chmod:*", "git apply:*"], DENY, "shell-readings-12-allow"), r.line, "not-allow", undefined));
      it.skipIf(!installed(r.program))(`${r.program} writes the command the line then runs`, () => {
        const run = leavesMarker(r.run);
        expect(run.left, `${r.run}: ${run.stderr}`).toBe(true);
      }, 30_000);
    });
  }
});

describe("in-place edits that do not write what the line runs stay allowed under a deny list", () => {
  it.each([
    "sed -i 's/a/b/' notes.txt; sh run.sh",
    "sed -n 1p run.sh; sh run.sh",
    "sed -i 's/a/b/' run.sh",
    "perl -pi -e 's/a/b/' notes.txt && ./build.sh",
    "perl -ne 'print' run.sh; sh run.sh",
    "gawk -i inplace '{print}' notes.txt; sh run.sh",
    "awk '{print}' run.sh; sh run.sh",
    "patch --dry-run -p1 < x.patch; sh run.sh",
    "git apply --check x.patch && sh run.sh",
    "git apply --stat x.patch; sh run.sh",
    "printf 'w\\n' | ed -s notes.txt; sh run.sh",
    "patch -p1 < x.patch",
    "git apply x.patch",
  ])("%s", (command) => {
    const decision = denyList.decide("Bash", { command });
    expect(decision.mode, decision.reason).toBe("allow");
  });
});

// Generated spellings of sed -i: flag clusters, the suffix, long options and their prefixes, the script as -e or the first
// operand, options after the file, and the ways a shell runs a file. Real sed judges each: when it left MARKER (the file
// held the command), the guard must not allow the line under the deny list.
describe.skipIf(!installed("sed"))("generated sed -i spellings, judged by GNU sed", () => {
  const inPlace = fc.constantFrom("-i", "-i.bak", "-i~", "--in-place", "--in-place=.o", "--in-pla", "--in", "-Ei", "-ni", "-si", "-i -E", "-s -i");
  const script = fc.constantFrom((c: string) => `'1i ${c}'`, (c: string) => `-e '1i ${c}'`, (c: string) => `--expression='1i ${c}'`, (c: string) => `-e '$a ${c}'`);
  const runner = fc.constantFrom("sh a.txt", "bash a.txt", ". ./a.txt", "source ./a.txt", "bash ./a.txt", "sh < a.txt");
  const order = fc.boolean();
  it("the guard never allows what sed wrote and the line ran", () => {
    fc.assert(
      fc.property(inPlace, script, runner, order, (option, body, run, fileFirst) => {
        const form = (c: string) => (fileFirst ? `sed ${body(c)} a.txt ${option}` : `sed ${option} ${body(c)} a.txt`);
        const real = leavesMarker(`${form("touch MARKER")}; ${run}`);
        if (!real.left) return;
        const line = `${form(X)}; ${run}`;
        const decision = denyList.decide("Bash", { command: line });
        expect(decision.mode, `${line}: ${decision.reason ?? ""}`).toBe("ask");
      }),
      { numRuns: 24, seed: 1212 },
    );
  }, 120_000);
});

// GNU tar's `HOST:FILE` archives: tar runs its remote shell (`/usr/bin/rsh HOST [-l USER] /usr/sbin/rmt`), unless a `/`
// comes before the colon or --force-local is given. The judge: real tar with --rsh-command set to a program that records
// its words (tar resolves HOST first, so the hosts are loopback names); the guard reads the line without that option.
describe.skipIf(!installed("tar"))("tar with an archive on another host runs a remote shell, judged by GNU tar", () => {
  const root = mkdtempSync(path.join(tmpdir(), "reads12-tar-"));
  const shim = path.join(root, "rsh-shim");
  writeFileSync(shim, `#!/bin/sh\nprintf '%s\\n' "$*" >> "${root}/ran"\nexit 1\n`);
  chmodSync(shim, 0o755);
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const tarRan = (line: string): string | undefined => {
    const dir = mkdtempSync(path.join(root, "run-"));
    try {
      writeFileSync(path.join(dir, "a.txt"), "hello\n");
      rmSync(path.join(root, "ran"), { force: true });
      spawnSync("bash", ["-c", `${line} --rsh-command=${shim}`], { cwd: dir, timeout: 20_000, stdio: "ignore" });
      return existsSync(path.join(root, "ran")) ? readFileSync(path.join(root, "ran"), "utf8").trim() : undefined;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const guard = denyListGuard(["rsh:*", "ssh:*"], "shell-readings-12-tar");
  const placeGuard = denyListGuard(["tar *127.0.0.1*"], "shell-readings-12-tar-place");
  const CASES: readonly { line: string; remote: boolean }[] = [
    { line: "tar -cf localhost:/tmp/x.tar a.txt", remote: true },
    { line: "tar -cf user@localhost:/tmp/x.tar a.txt", remote: true },
    { line: "tar cf localhost:x.tar a.txt", remote: true },
    { line: "tar -c -f 127.0.0.1:x.tar a.txt", remote: true },
    { line: "tar -cflocalhost:x.tar a.txt", remote: true },
    { line: "tar --file=localhost:x.tar -c a.txt", remote: true },
    { line: "tar --file localhost:x.tar -c a.txt", remote: true },
    { line: "tar --fil=localhost:x.tar -c a.txt", remote: false },
    { line: "tar --rm=/bin/rmt2 -cf localhost:x.tar a.txt", remote: true },
    { line: "tar -cf localhost:x.tar --forc a.txt", remote: false },
    { line: "tar -xf localhost:x.tar", remote: true },
    { line: "tar -tvf u@127.0.0.1:/x.tar", remote: true },
    { line: "tar -cf localhost:x.tar --rmt-command=/bin/rmt2 a.txt", remote: true },
    { line: "tar -cf ./localhost:x.tar a.txt", remote: false },
    { line: "tar -cf d/localhost:x.tar a.txt", remote: false },
    { line: "tar --force-local -cf localhost:x.tar a.txt", remote: false },
    { line: "tar -cf localhost:x.tar --force-l a.txt", remote: false },
    { line: "tar -cf x.tar a.txt", remote: false },
    { line: "tar -cf :x.tar a.txt", remote: false },
  ];
  it.each(CASES.map((c) => [c.line, c] as const))("%s", (_line, c) => {
    const ran = tarRan(c.line);
    expect(ran !== undefined, `tar ran its remote shell: ${ran ?? "no"}`).toBe(c.remote);
    const decision = guard.decide("Bash", { command: c.line });
    expect(decision.mode, decision.reason).toBe(c.remote ? "deny" : "allow");
    if (c.line.includes("127.0.0.1")) expect(placeGuard.decide("Bash", { command: c.line.replace("127.0.0.1", "0x7f.1") }).mode).toBe(c.remote ? "deny" : "allow");
  }, 30_000);
  it("the rmt command is a command line the other host's shell runs: read as one", () => {
    const rmt = tarRan("tar -cf localhost:x.tar --rmt-command='rm -rf /tmp/x' a.txt");
    expect(rmt).toMatch(/rm -rf \/tmp\/x$/);
    expect(denyList.decide("Bash", { command: "tar -cf localhost:x.tar --rmt-command='rm -rf /tmp/x' a.txt" }).mode).toBe("deny");
  }, 30_000);
  it("an allow of tar does not cover a remote archive", () => expectBashDecision(bashGuard(["tar:*"], [], "shell-readings-12-tar-allow"), "tar -cf host:x.tar a.txt", "not-allow" as BashExpectation, /remote shell/));
});

// xe (an xargs-like runner): the input's words go where `{}` stands in its command, or after it; `-I STR` names another
// replace string; `-s SCRIPT` runs SCRIPT by sh with them as its arguments. Real xe judges (Debian's xe).
describe("xe runs a command with the words of its input", () => {
  const guard = denyListGuard(["rm:*", "git push:*"], "shell-readings-12-xe");
  const CASES: readonly { line: string; run: string; expect: BashExpectation }[] = [
    { line: "echo /tmp/x | xe rm -rf", run: "echo MARKER | xe touch", expect: "deny" },
    { line: "echo /tmp/x | xe rm -rf {}", run: "echo MARKER | xe touch {}", expect: "deny" },
    { line: "echo /tmp/x | xe -N1 -j2 rm -rf {}", run: "echo MARKER | xe -N1 -j2 touch {}", expect: "deny" },
    { line: "echo /tmp/x | xe -I @ rm -rf @", run: "echo MARKER | xe -I @ touch @", expect: "deny" },
    { line: `echo a | xe -s '${X}'`, run: "echo a | xe -s 'touch MARKER'", expect: "deny" },
    { line: "echo push | xe git", run: "echo MARKER | xe touch", expect: "ask" },
    { line: "echo push | xe git {}", run: "echo MARKER | xe touch {}", expect: "ask" },
    { line: "xe -a git -- push", run: "xe -a touch -- MARKER", expect: "ask" },
  ];
  it.each(CASES.map((c) => [c.line, c] as const))("%s", (_line, c) => {
    expectBashDecision(guard, c.line, c.expect, undefined);
    if (!installed("xe")) return;
    const run = leavesMarker(c.run);
    expect(run.left, `${c.run}: ${run.stderr}`).toBe(true);
  }, 30_000);
  it("a plain command fed by xe stays allowed", () => expect(guard.decide("Bash", { command: "echo a.txt | xe grep foo" }).mode).toBe("allow"));
});
