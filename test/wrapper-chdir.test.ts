// Wrappers that run their command in another directory (`env -C DIR CMD`, `sudo -D DIR CMD`,
// `cmake -E chdir DIR CMD`, `nsenter --wd=DIR`, `unshare --wd=DIR`, `bwrap --chdir DIR`, `proot -w DIR`,
// `systemd-run --working-directory=DIR`, ...): the command's relative words name places in DIR, as after
// `cd DIR`, and only the command it runs moves (`env -C /srv/secrets true; cat k` reads ./k).
//
// The real programs judge: in a scratch tree with a secret file, lines generated from wrapper ×
// option spelling × relative or absolute DIR × operand spelling run with the real bash after the guard
// decided under a deny naming the secret's absolute path; a line whose output holds the secret must not
// be allowed.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { denyListGuard, installed } from "./helpers/bash-rules.js";

const FORMS = ["cat /srv/secrets/*", "cat /srv/secrets/k", "cat /srv/secrets/k:*"] as const;
const guards = FORMS.map((form) => [form, denyListGuard([form], `wrapper-chdir-${form}`)] as const);

const DENIED = [
  "env -C /srv/secrets cat k",
  "env -C/srv/secrets cat k",
  "env --chdir=/srv/secrets cat k",
  "env --chdir /srv/secrets cat k",
  "env -i -C /srv/secrets cat k",
  "env -C /srv/secrets A=1 cat k",
  "sudo -D /srv/secrets cat k",
  "sudo --chdir=/srv/secrets cat k",
  "sudo --chdir /srv/secrets cat k",
  "sudo -u root -D /srv/secrets cat ./k",
  "cmake -E chdir /srv/secrets cat k",
  "systemd-run --working-directory=/srv/secrets cat k",
  "systemd-run --working-directory /srv/secrets --pipe cat k",
  "nsenter --wd=/srv/secrets cat k",
  "nsenter -w/srv/secrets cat k",
  "unshare --wd=/srv/secrets cat k",
  "unshare -w /srv/secrets cat k",
  "unshare --wd /srv/secrets cat k",
  "bwrap --bind / / --chdir /srv/secrets cat k",
  "bwrap --bind / / --chdir srv/secrets cat k",
  "proot -w /srv/secrets cat k",
  "proot --pwd=/srv/secrets cat k",
  "proot --cwd /srv/secrets cat k",
  "run0 --chdir=/srv/secrets cat k",
  "run0 -D /srv/secrets cat k",
  "flatpak-spawn --host --directory=/srv/secrets cat k",
  // daemonize runs an absolute path (`/bin/cat k` after a cd is not read as cat yet: see REPORT), and reads a relative -c from /.
  "daemonize -c /srv/secrets /usr/bin/env cat k",
  "daemonize -c srv/secrets /usr/bin/env cat k",
  "parallel --workdir /srv/secrets cat ::: k",
  "cd /srv && parallel --wd secrets cat ::: k",
  "sem --wd /srv/secrets cat k",
  "watchexec --workdir /srv/secrets cat k",
  "systemd-nspawn -D / --chdir=/srv/secrets cat k",
  // A relative DIR is relative to where the line is.
  "cd /srv && env -C secrets cat k",
  "cd /srv; sudo -D secrets cat ./k",
  "cd /srv/docs && env -C ../secrets cat k",
  "cd /srv && cmake -E chdir secrets cat k",
  "cd /srv && unshare --wd=./secrets cat k",
  // The command the wrapper runs through a shell, or through another wrapper.
  "env -C /srv/secrets bash -c 'cat k'",
  "sudo -D /srv/secrets sh -c 'cat ./k'",
  "(cd /srv/secrets && bash -c 'cat k')",
  "env -C /srv sudo -D secrets cat k",
  "sudo env -C /srv/secrets cat k",
  "timeout 5 env -C /srv/secrets cat k",
  "env -C /srv/secrets timeout 5 cat k",
  // chroot runs its command in the new root's /, and its absolute words name places in the new root.
  "chroot /srv cat secrets/k",
  "chroot /srv cat /secrets/k",
  "cd /srv && chroot . cat /secrets/k",
  "chroot / cat srv/secrets/k",
  // So do the root options of unshare, nsenter, proot and sudo (a directory option's DIR is in the new root for unshare, proot and sudo).
  "unshare -R /srv cat /secrets/k",
  "unshare --root=/srv cat secrets/k",
  "unshare -R /srv -w /secrets cat k",
  "cd /srv && unshare -R /x --wd=secrets cat k",
  "nsenter -r/srv cat /secrets/k",
  "nsenter --root=/srv cat /secrets/k",
  "proot -r /srv cat /secrets/k",
  "proot --rootfs=/srv -w /secrets cat k",
  "sudo -R /srv cat /secrets/k",
  "sudo --chroot=/srv -D /secrets cat k",
];

// `sudo -i` runs its command in the target user's home, a place the guard cannot tell (as after `cd ~`).
const ASKED = ["unshare -R \"$R\" cat /secrets/k", "proot -r /srv cat k", "proot -r /srv -w secrets cat k", "nsenter -t 1 -r cat /secrets/k", "chroot \"$R\" cat /secrets/k", "sudo -i cat k", "sudo --login cat ../srv/secrets/k", "env -C \"$D\" cat k", "env --chdir=$D cat k", "sudo -D \"$D\" cat k", "cmake -E chdir \"$D\" cat k", "unshare --wd=\"$D\" cat k", "nsenter -w cat k", "cd \"$D\" && env -C secrets cat k"];

const UNCHANGED = [
  "env cat k",
  "sudo cat k",
  "cmake -E env cat k",
  "unshare -r cat k",
  "nsenter -t 1 -m cat k",
  "proot cat k",
  "env -C /srv/secrets true; cat k",
  "env -C /srv/secrets true && cat k",
  "sudo -D /srv/secrets ls | cat k",
  "cmake -E chdir /srv/secrets true; cat k",
  "(env -C /srv/secrets true); cat k",
  "env -C /tmp cat k",
  "env -C /srv/secrets cat /etc/hosts",
  "chroot --skip-chdir / cat k",
];

describe("a wrapper's directory places the words of the command it runs", () => {
  for (const [form, guard] of guards) {
    describe(`deny ${form}`, () => {
      it.each(DENIED)("denied: %s", (command) => {
        const decision = guard.decide("Bash", { command });
        expect(decision.mode, decision.reason).toBe("deny");
      });
      it.each(ASKED)("a directory the shell replaces cannot be told: %s", (command) => {
        const decision = guard.decide("Bash", { command });
        expect(decision.mode, decision.reason).toBe("ask");
      });
      it.each(UNCHANGED)("unchanged: %s", (command) => {
        const decision = guard.decide("Bash", { command });
        expect(decision.mode, decision.reason).toBe("allow");
      });
    });
  }
});

/** Wrapper spellings that run here, DIR standing for the directory. */
const SPELLINGS: readonly { program: string; spell: string; root?: boolean }[] = [
  { program: "env", spell: "env -C DIR" },
  { program: "env", spell: "env -CDIR" },
  { program: "env", spell: "env --chdir=DIR" },
  { program: "env", spell: "env --chdir DIR" },
  { program: "env", spell: "env -i PATH=/usr/bin:/bin --chdir=DIR" },
  { program: "sudo", spell: "sudo -D DIR" },
  { program: "sudo", spell: "sudo --chdir=DIR" },
  { program: "cmake", spell: "cmake -E chdir DIR" },
  { program: "unshare", spell: "unshare --wd=DIR" },
  { program: "unshare", spell: "unshare -w DIR" },
  { program: "unshare", spell: "unshare -wDIR" },
  { program: "unshare", spell: "unshare --wd DIR" },
  { program: "nsenter", spell: "nsenter --wd=DIR" },
  { program: "nsenter", spell: "nsenter -wDIR" },
  { program: "proot", spell: "proot -w DIR" },
  { program: "proot", spell: "proot --pwd=DIR" },
  { program: "proot", spell: "proot --cwd DIR" },
  // bwrap reads a relative DIR from the sandbox's /.
  { program: "bwrap", spell: "bwrap --bind / / --chdir DIR", root: true },
];
// (`cat -- k` is left out: `cat -- /srv/secrets/k` is not read as `cat /srv/secrets/k` by any pattern yet, wrapper or not.)
const OPERANDS = ["cat k", "cat ./k", "cat ../secrets/k", "bash -c 'cat k'", "sh -c 'cat ./k'", "cat k; true", "cat k && cat /dev/null"];
const AFTER = ["", "; cat k", " && echo done"];

describe("the real programs judge: a line that prints the secret is not allowed", () => {
  const top = realpathSync(mkdtempSync(path.join(tmpdir(), "wrapper-chdir-")));
  afterAll(() => rmSync(top, { recursive: true, force: true }));
  mkdirSync(path.join(top, "srv", "secrets"), { recursive: true });
  mkdirSync(path.join(top, "srv", "docs"), { recursive: true });
  const SECRET = "wrapper-chdir-secret-4711";
  writeFileSync(path.join(top, "srv", "secrets", "k"), `${SECRET}\n`);
  writeFileSync(path.join(top, "srv", "docs", "k"), "docs\n");
  writeFileSync(path.join(top, "k"), "top\n");
  const secret = path.join(top, "srv", "secrets", "k");
  const judges = [denyListGuard([`cat ${secret}`], "wrapper-chdir-exact"), denyListGuard([`cat ${path.dirname(secret)}/*`], "wrapper-chdir-star")];
  const usable = SPELLINGS.filter((one) => installed(one.program));
  // The directory as the line names it from where it moved (the guard does not know where a line starts: a relative
  // DIR is read from an absolute `cd` before it; `cd srv/secrets && cat k` from an unknown start is not this change's).
  const dirs = (root: boolean) =>
    root
      ? [{ cd: "", dir: secret.replace(/\/k$/, "") }, { cd: `cd ${top} && `, dir: secret.replace(/^\/|\/k$/g, "") }, { cd: `cd ${top}/srv && `, dir: `${top}/srv/../srv/secrets` }]
      : [
          { cd: "", dir: path.dirname(secret) },
          { cd: `cd ${top} && `, dir: "srv/secrets" },
          { cd: `cd ${top}; `, dir: "./srv/secrets" },
          { cd: "", dir: `${top}/srv/docs/../secrets` },
          { cd: `cd ${top}/srv && `, dir: "secrets" },
          { cd: `cd ${top}/srv/docs; `, dir: "../secrets" },
        ];
  const line = fc
    .tuple(fc.constantFrom(...usable), fc.nat(), fc.constantFrom(...OPERANDS), fc.constantFrom(...AFTER))
    .map(([wrapper, pick, operand, after]) => {
      const places = dirs(wrapper.root === true);
      const place = places[pick % places.length]!;
      return `${place.cd}${wrapper.spell.replace("DIR", place.dir)} ${operand}${after}`;
    });

  it.runIf(usable.length > 0)("generated lines (fixed seed)", () => {
    const failed: string[] = [];
    let printed = 0;
    let runs = 0;
    fc.assert(
      fc.property(line, (command) => {
        runs += 1;
        const modes = judges.map((guard) => guard.decide("Bash", { command }).mode);
        const run = spawnSync("bash", ["-c", command], { cwd: top, timeout: 20_000, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, HOME: top } });
        if (!String(run.stdout).includes(SECRET)) return;
        printed += 1;
        if (modes.includes("allow")) failed.push(`${command} (${modes.join("/")})`);
      }),
      { seed: 4711, numRuns: 160 },
    );
    expect(printed, "some generated lines print the secret").toBeGreaterThan(20);
    expect(failed, `${failed.length} of ${printed} lines that printed the secret (of ${runs}) were allowed`).toEqual([]);
  }, 240_000);

  // chroot NEWROOT CMD: a tree with cat and its libraries copied in (chroot needs root).
  it.runIf(installed("chroot") && installed("ldd") && process.getuid?.() === 0)("chroot", () => {
    const jail = path.join(top, "jail");
    const cat = realpathSync("/bin/cat");
    const libs = String(spawnSync("ldd", [cat]).stdout).match(/\/\S+/g) ?? [];
    for (const file of [cat, ...libs]) {
      mkdirSync(path.join(jail, path.dirname(file)), { recursive: true });
      spawnSync("cp", ["-L", file, path.join(jail, file)]);
    }
    mkdirSync(path.join(jail, "bin"), { recursive: true });
    spawnSync("cp", ["-L", cat, path.join(jail, "bin", "cat")]);
    mkdirSync(path.join(jail, "secrets"), { recursive: true });
    const jailed = path.join(jail, "secrets", "k");
    writeFileSync(jailed, `${SECRET}\n`);
    const guards = [denyListGuard([`cat ${jailed}`], "wrapper-chdir-chroot"), denyListGuard([`cat ${path.dirname(jailed)}/*`], "wrapper-chdir-chroot-star")];
    let printed = 0;
    const lines = [
      `chroot ${jail} cat /secrets/k`,
      `chroot ${jail} cat secrets/k`,
      `cd ${top} && chroot jail cat /secrets/./k`,
      `cd ${jail}/secrets && chroot .. cat secrets/k`,
      `chroot ${jail} cat //secrets/k`,
      `unshare -R ${jail} cat /secrets/k`,
      `unshare --root=${jail} cat secrets/k`,
      `cd ${top} && unshare -R jail -w /secrets cat k`,
      `cd ${top} && unshare -R jail -w jail/secrets cat k`,
      `cd ${top} && unshare -R jail cat /secrets/k`,
      `nsenter -r${jail} cat /secrets/k`,
      `cd ${jail}/secrets && nsenter --root=${jail} cat k`,
      `proot -r ${jail} cat /secrets/k`,
      `proot -r ${jail} cat secrets/k`,
      `proot -r ${jail} -w /secrets cat k`,
    ];
    for (const command of lines) {
      const modes = guards.map((guard) => guard.decide("Bash", { command }).mode);
      const run = spawnSync("bash", ["-c", command], { cwd: top, timeout: 20_000, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, PATH: "/usr/sbin:/usr/bin:/sbin:/bin" } });
      if (!String(run.stdout).includes(SECRET)) continue;
      printed += 1;
      expect(modes, command).not.toContain("allow");
    }
    expect(printed).toBeGreaterThan(0);
  });

  // sudo -i runs its command in the target user's home: `..` there is /, whatever the line's directory.
  it.runIf(installed("sudo") && spawnSync("sudo", ["-n", "-i", "true"]).status === 0)("sudo -i", () => {
    for (const command of [`sudo -i cat ..${secret}`, `cd ${top} && sudo -i cat ../..${secret}`]) {
      const modes = judges.map((guard) => guard.decide("Bash", { command }).mode);
      const run = spawnSync("bash", ["-c", command], { cwd: top, timeout: 20_000, stdio: ["ignore", "pipe", "pipe"] });
      if (String(run.stdout).includes(SECRET)) expect(modes, command).not.toContain("allow");
    }
  });
});
