// Programs that run a command, or load code, that the guard did not read: task-spooler (`tsp CMD`,
// and `ts CMD` as upstream names it), qemu's user-mode emulators (`qemu-x86_64 PROG`,
// `qemu-aarch64-static -L DIR PROG`), `rootlesskit CMD`, zsh's `sched +1 CMD` (run later by the
// shell) and `print -z CMD` (pushed onto the line editor's buffer, run at the next prompt), gpg's
// `--options FILE`, `--homedir DIR` and `--exec-path DIR`, and openssl's `-config FILE` (a
// configuration can load engines and providers, code the guard cannot read).
//
// The real programs judge where installed and where they run outside an interactive shell: tsp and
// qemu-x86_64 run `touch MARKER` (rootlesskit needs subordinate ids this machine may not have; zsh
// runs sched and the buffer stack only interactively).
import { describe, expect, it } from "vitest";
import { bashGuard, denyListGuard, installed, leavesMarker } from "./helpers/bash-rules.js";

const guard = denyListGuard(["rm:*", "touch:*"], "wrappers-11");

const RUNS: readonly { line: string; oracle?: { program: string; run: string } }[] = [
  { line: "tsp touch MARKER", oracle: { program: "tsp", run: "export TS_SOCKET=$PWD/s; tsp touch MARKER >/dev/null; tsp -w >/dev/null 2>&1; tsp -K 2>/dev/null" } },
  { line: "tsp -n -L job touch MARKER" },
  { line: "ts touch MARKER" },
  { line: "ts -n -L job touch MARKER" },
  { line: "qemu-x86_64 /usr/bin/touch MARKER", oracle: { program: "qemu-x86_64", run: "qemu-x86_64 /usr/bin/touch MARKER" } },
  { line: "qemu-x86_64 -E A=1 -L / /usr/bin/touch MARKER", oracle: { program: "qemu-x86_64", run: "qemu-x86_64 -E A=1 -L / /usr/bin/touch MARKER" } },
  { line: "qemu-aarch64-static -L /usr/aarch64-linux-gnu touch MARKER" },
  { line: "qemu-arm -cpu max -strace touch MARKER" },
  { line: "rootlesskit touch MARKER" },
  { line: "rootlesskit --net=slirp4netns --copy-up=/etc touch MARKER" },
  { line: "rootlesskit --pidns --state-dir /tmp/s touch MARKER" },
  { line: "sched +1 touch MARKER" },
  { line: "sched 12:00 touch MARKER" },
  { line: "print -z touch MARKER" },
  { line: "print -rz 'touch MARKER'" },
];

describe("wrappers and runners: a deny list reads the command they run", () => {
  it.each(RUNS.map((c) => [c.line, c] as const))("%s", (_line, c) => {
    const decision = guard.decide("Bash", { command: c.line });
    expect(decision.mode, decision.reason).toBe("deny");
    if (c.oracle !== undefined && installed(c.oracle.program)) {
      const run = leavesMarker(c.oracle.run);
      expect(run.left, run.stderr).toBe(true);
    }
  });

  it.each(["gpg --options x.conf --decrypt f.gpg", "gpg --homedir ./g --decrypt f.gpg", "gpg --exec-path /tmp/x --decrypt f.gpg", "openssl req -config x.cnf -new -key k.pem", "openssl s_client -engine ./e.so -connect h:443", "OPENSSL_CONF=x.cnf openssl version"])(
    "code a configuration loads cannot be told: %s",
    (line) => expect(guard.decide("Bash", { command: line }).mode).toBe("ask"),
  );

  it("gpg --photo-viewer runs a command", () => expect(guard.decide("Bash", { command: "gpg --photo-viewer 'touch MARKER' --list-keys" }).mode).toBe("deny"));

  it.each(["cmd | ts '%H:%M:%S'", "make 2>&1 | ts -s", "ts -i '%.s'", "gpg --decrypt f.gpg", "openssl x509 -in c.pem -noout -text", "print -r -- hello", "qemu-x86_64 -version", "tsp -l", "sched"])("plain uses stay allowed: %s", (line) =>
    expect(guard.decide("Bash", { command: line }).mode).toBe("allow"),
  );

  it("an allow for the wrapper needs the command it runs allowed too", () => {
    const allow = bashGuard(["tsp:*", "qemu-x86_64:*", "rootlesskit:*", "ls:*"], [], "wrappers-11-allow");
    for (const line of ["tsp touch x", "qemu-x86_64 /usr/bin/touch x", "rootlesskit touch x"]) expect(allow.decide("Bash", { command: line }).mode, line).not.toBe("allow");
    expect(allow.decide("Bash", { command: "tsp ls" }).mode).toBe("allow");
  });
});
