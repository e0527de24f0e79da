// The real shell as an oracle: a command line runs under /usr/bin/bash (and /usr/bin/dash as sh) in a
// throw-away chroot where every program a command could start is a recorder, and the test gets back
// every external program (path and argv) that actually started.
//
// Safety (generated commands include `rm -rf /`, `curl`, `sudo`, ...):
// - the command runs chrooted into a temp tree, as uid/gid 65534 (nobody) when we are root, inside a
//   sandbox with its own mount namespace (the tree bind-mounted read-only; only /work, /tmp, /home and
//   the log are writable, and they are emptied before each run), its own network namespace (no network
//   at all) and its own PID namespace, whose PID 1 is the driver: after each run it kills whatever the
//   case left behind, and on a time-out the driver itself is killed, so the kernel ends everything in
//   the sandbox, and the sandbox restarts;
// - every program name of the vocabulary is a tiny dash script that appends its $0 and argv to the log
//   and exits 0, at each place a program is looked up (/usr/local/bin, /usr/bin, /bin, /usr/sbin, /sbin);
// - programs that run their arguments (find, xargs, env, timeout, ...) are the real Debian binaries, so
//   `find . -exec rm {} +` really starts the rm recorder; they are reached through the same recorder,
//   which logs and then execs the real binary kept under /.real;
// - sudo, doas, su and pkexec stay modelled: their recorder logs and refuses to run anything.
// Each run: `env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/home TERM=dumb /bin/bash --norc --noprofile
// /case.sh` (or dash), the command written to /case.sh byte for byte, cwd /work holding WORK_FILES and a
// minimal git repository, stdin /dev/null. Besides the programs started, two kinds of record come from
// the real programs themselves: git's trace names the subcommand it ran once its global options were
// read (`git -C . push` → git push), and busybox's recorder names the applet busybox runs in-process.
// Nothing is mounted outside the sandbox's own namespaces; if the test dies, the drivers see their
// stdin close and exit, and the kernel ends their sandboxes.
// Without root, the same runs under `unshare -r` (a user namespace) when the kernel allows it; otherwise
// `oracleSupport()` names the reason and the test skips, unless CI=true or REQUIRE_ORACLES=1.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { chmodSync, chownSync, copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** One program that started: the path it was started by and its arguments (argv[1..]). */
export interface Invocation {
  /** The path the program was executed through (`/usr/local/bin/rm`, `/bin/rm`, ...). */
  readonly path: string;
  /** The program's name (last path component) followed by its arguments. */
  readonly argv: readonly string[];
}

export type OracleShell = "bash" | "sh";

export interface ShellRun {
  readonly shell: OracleShell;
  readonly invocations: readonly Invocation[];
  /** The shell's exit status (137 when killed). */
  readonly status: number;
  readonly timedOut: boolean;
  /** Processes still alive after the case's fd 7 closed (they had closed it): killed, and counted here. */
  readonly lingering: number;
  readonly stderr: string;
  readonly millis: number;
}

/** Programs a command can name: each is a recorder that logs and exits 0. */
const STUB_PROGRAMS: readonly string[] = [
  "rm", "rmdir", "curl", "wget", "git-lfs", "npm", "npx", "node", "yarn", "pnpm", "python", "python3", "perl", "ruby", "ls", "cat", "echo", "printf", "head", "tail",
  "grep", "egrep", "rg", "cp", "mv", "ln", "mkdir", "touch", "chmod", "chown", "chgrp", "dd", "mkfs", "mkfs.ext4", "mount", "umount", "ssh", "scp", "rsync",
  "nc", "ncat", "netcat", "socat", "telnet", "ftp", "psql", "mysql", "kubectl", "docker", "make", "tee", "wc", "sort", "uniq", "cut", "tr", "true", "false",
  "test", "[", "sleep", "yes", "date", "whoami", "id", "uname", "pwd", "kill", "pkill", "killall", "shutdown", "reboot", "base64", "xxd", "od", "zip", "unzip",
  "gzip", "crontab", "systemctl", "apt", "apt-get", "pip", "pip3", "cargo", "go", "java", "php", "lua", "tclsh", "expect", "less", "more", "vi", "vim", "nano",
  "ed", "patch", "diff", "jq", "openssl", "gpg", "shred", "truncate", "install", "sync", "time", "chronic", "unbuffer", "parallel", "run-parts", "ps", "ls2",
  "evil", "x", "y", "f", "a", "b", "prog", "deploy", "tsx", "vitest", "eslint", "prettier", "tsc",
];

/** Programs that run their arguments: the real binary, reached through a recorder. */
const REAL_PROGRAMS: readonly string[] = ["bash", "dash", "find", "xargs", "env", "timeout", "nice", "nohup", "setsid", "flock", "stdbuf", "ionice", "mawk", "sed", "tar", "script", "watch", "git", "busybox", "chrt", "taskset", "setarch", "prlimit", "scp", "rsync"];

/** Recorded under other names too (`sh` is dash, `awk` is mawk), as on Debian. */
const ALIASES: Readonly<Record<string, string>> = { sh: "dash", awk: "mawk", gawk: "mawk", nawk: "mawk" };

/** Stay modelled: they log and refuse (exit 1), never running what they are given. */
const REFUSING: readonly string[] = ["sudo", "doas", "su", "pkexec", "runuser"];

const LOOKUP_DIRS = ["usr/local/bin", "usr/bin", "usr/sbin"]; // /bin -> usr/bin and /sbin -> usr/sbin, as on Debian
const PATH_VALUE = "/usr/local/bin:/usr/bin:/bin";
const NOBODY = 65534;

/** The files the working directory holds before every run (so globs expand). */
export const WORK_FILES: Readonly<Record<string, string>> = {
  "a.txt": "alpha\n",
  "b.txt": "beta\n",
  x: "x\n",
  y: "y\n",
  push: "a file named like a git subcommand\n",
  "notes.md": "# notes\n",
  "src/main.ts": "export {};\n",
  "list.txt": "a.txt\nb.txt\n",
  "zero.list": "a.txt\0b.txt\0",
};

const GIT_REPO: Readonly<Record<string, string | undefined>> = {
  ".git/HEAD": "ref: refs/heads/main\n",
  ".git/config": "[core]\n\trepositoryformatversion = 0\n\tbare = false\n",
  ".git/objects": undefined,
  ".git/refs/heads": undefined,
  ".git/refs/tags": undefined,
};

function chownRecursive(path: string): void {
  chownSync(path, NOBODY, NOBODY);
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.isDirectory()) chownRecursive(join(path, entry.name));
    else chownSync(join(path, entry.name), NOBODY, NOBODY);
  }
}

/** Character devices the sandbox has (major 1): null, zero, random, urandom. */
const DEVICES: readonly (readonly [string, number])[] = [
  ["null", 3],
  ["zero", 5],
  ["random", 8],
  ["urandom", 9],
];

type Mode = { readonly kind: "root" } | { readonly kind: "userns" };
type Support = { readonly ok: true; readonly mode: Mode } | { readonly ok: false; readonly reason: string };

function hostTool(name: string): string | undefined {
  for (const dir of ["/usr/bin", "/bin", "/usr/sbin", "/sbin"]) {
    const path = join(dir, name);
    if (existsSync(path)) return path;
  }
  return undefined;
}

/** Whether the oracle can run here, and how. */
export function oracleSupport(): Support {
  if (process.platform !== "linux") return { ok: false, reason: `the shell oracle needs Linux (this is ${process.platform})` };
  for (const tool of ["bash", "dash", "setpriv", "unshare", "mount", "timeout", "env", "cat", "ldd"]) {
    if (hostTool(tool) === undefined) return { ok: false, reason: `the shell oracle needs ${tool} on this machine` };
  }
  const bash = spawnSync("/usr/bin/bash", ["--version"], { encoding: "utf8" });
  if (!/version 5\./.test(bash.stdout)) return { ok: false, reason: `the shell oracle needs bash 5 (found: ${bash.stdout.split("\n")[0] ?? "none"})` };
  if (process.getuid?.() === 0) {
    const probe = spawnSync("unshare", ["-m", "-n", "-p", "-f", "--kill-child", "--", "/usr/bin/true"], { encoding: "utf8" });
    if (probe.status !== 0) return { ok: false, reason: `running as root, but unshare of mount/net/pid namespaces fails: ${probe.stderr.trim()}` };
    return { ok: true, mode: { kind: "root" } };
  }
  const probe = spawnSync("unshare", ["-r", "-m", "-n", "-p", "-f", "--kill-child", "--", "/usr/bin/true"], { encoding: "utf8" });
  if (probe.status !== 0) return { ok: false, reason: `not root, and \`unshare -r\` (user namespaces) is unavailable: ${probe.stderr.trim() || `exit ${probe.status}`}` };
  return { ok: true, mode: { kind: "userns" } };
}

/** CI=true or REQUIRE_ORACLES=1: an unavailable oracle is a failure, not a skip. */
export const REQUIRE_ORACLES = process.env.CI === "true" || process.env.REQUIRE_ORACLES === "1";

function sharedLibraries(binary: string): string[] {
  const out = spawnSync("ldd", [binary], { encoding: "utf8" });
  if (out.status !== 0) return []; // statically linked (busybox-static)
  const libs = new Set<string>();
  for (const match of out.stdout.matchAll(/(\/[^\s)]+)/g)) libs.add(match[1] ?? "");
  libs.delete("");
  return [...libs];
}

/** The chroot-side path of a host file, with /lib, /lib64, /bin, /sbin folded into /usr as on Debian. */
function insideUsr(hostPath: string): string {
  return hostPath.replace(/^\/(lib|lib64|bin|sbin)\//, "/usr/$1/");
}

function copyWithLibraries(root: string, hostPath: string, inside: string): void {
  const target = join(root, inside);
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(realpathSync(hostPath), target);
  chmodSync(target, 0o755);
  for (const lib of sharedLibraries(hostPath)) {
    for (const path of new Set([lib, realpathSync(lib)])) {
      const libTarget = join(root, insideUsr(path));
      if (existsSync(libTarget)) continue;
      mkdirSync(dirname(libTarget), { recursive: true });
      copyFileSync(realpathSync(path), libTarget);
    }
  }
}

/**
 * The recorder: one write of `N\0$0\0arg1\0...\0` (N = number of fields) to the log, so concurrent
 * recorders (pipelines, background jobs) do not interleave and any argument byte but NUL survives.
 */
function recorder(then: string): string {
  return `#!/.real/dash\nprintf '%s\\0' "$(($# + 1))" "$0" "$@" >> /.oracle/log\n${then}\n`;
}

function buildTree(root: string, mode: Mode): void {
  for (const dir of ["usr/bin", "usr/sbin", "usr/local/bin", "usr/lib", "usr/lib64", ".real", "etc", "dev/pts", "work", "tmp", "home", ".oracle", "proc", "lib/terminfo/d"]) {
    mkdirSync(join(root, dir), { recursive: true });
  }
  for (const link of ["bin", "sbin", "lib64"]) symlinkSync(`usr/${link}`, join(root, link));
  // /lib holds terminfo as on Debian; its libraries go to /usr/lib through the real /lib -> usr/lib.
  rmSync(join(root, "lib"), { recursive: true });
  symlinkSync("usr/lib", join(root, "lib"));
  mkdirSync(join(root, "usr/lib/terminfo/d"), { recursive: true });
  if (existsSync("/lib/terminfo/d/dumb")) copyFileSync("/lib/terminfo/d/dumb", join(root, "usr/lib/terminfo/d/dumb"));
  writeFileSync(join(root, "etc/passwd"), "root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/home:/bin/sh\n");
  writeFileSync(join(root, "etc/group"), "root:x:0:\nnogroup:x:65534:\n");
  symlinkSync("pts/ptmx", join(root, "dev/ptmx"));
  symlinkSync("/proc/self/fd", join(root, "dev/fd"));
  for (const [fd, name] of ["stdin", "stdout", "stderr"].entries()) symlinkSync(`/proc/self/fd/${fd}`, join(root, "dev", name));
  for (const [name, minor] of DEVICES) {
    if (mode.kind === "root") spawnSync("mknod", ["-m", "666", join(root, "dev", name), "c", "1", String(minor)]);
    else writeFileSync(join(root, "dev", name), ""); // bind-mounted over from the host device by the setup
  }

  const scripts = new Map<string, string>();
  for (const name of STUB_PROGRAMS) scripts.set(name, recorder("exit 0"));
  for (const name of REFUSING) scripts.set(name, recorder(`echo "${name}: refused by the oracle sandbox (modelled, never runs its command)" >&2\nexit 1`));
  const realNames = [...REAL_PROGRAMS, ...Object.keys(ALIASES)];
  for (const name of realNames) {
    const real = ALIASES[name] ?? name;
    const host = hostTool(real);
    if (host === undefined) continue; // e.g. busybox not installed: the name stays a plain recorder
    if (!existsSync(join(root, ".real", real))) copyWithLibraries(root, host, `/.real/${real}`);
    // busybox runs its applets in-process: an applet it has is recorded as a program of its own.
    const applets = name === "busybox" ? (spawnSync(host, ["--list"], { encoding: "utf8" }).stdout ?? "").split("\n").filter((a) => /^[\w.[-]+$/.test(a) && a !== "[") : [];
    const applet =
      applets.length > 0
        ? `case "$1" in ${applets.map((a) => a.replace(/[[\]]/g, "\\$&")).join("|")}) applet=$1; shift; printf '%s\\0' "$(($# + 1))" "/busybox-applet/$applet" "$@" >> /.oracle/log; set -- "$applet" "$@" ;; esac\n`
        : "";
    // git's own trace names the built-in it really runs once its global options are read (`git -C . push`).
    const env = name === "git" ? "GIT_TRACE=/.oracle/gittrace " : "";
    scripts.set(name, recorder(`${applet}${env}exec /.real/${real} "$@"`));
  }
  copyWithLibraries(root, hostTool("setpriv") ?? "/usr/bin/setpriv", "/.real/setpriv");
  // stdbuf preloads this library into the program it runs.
  const libstdbuf = "/usr/libexec/coreutils/libstdbuf.so";
  if (existsSync(libstdbuf)) copyWithLibraries(root, libstdbuf, libstdbuf);
  writeFileSync(join(root, ".driver.sh"), DRIVER);
  for (const [name, text] of scripts) {
    const first = join(root, LOOKUP_DIRS[0] ?? "", name);
    writeFileSync(first, text, { mode: 0o755 });
    for (const dir of LOOKUP_DIRS.slice(1)) linkSync(first, join(root, dir, name));
  }
}

/**
 * Host side, run once per sandbox as PID 1 of fresh mount, network and PID namespaces: mounts the tree
 * read-only with its writable parts, /proc of this PID namespace and a private devpts, then becomes the
 * driver inside the chroot (as nobody when we are root).
 */
const SETUP = String.raw`set -u
S=$1; R=$S/root; USERNS=$2; SETID=$3
fail() { echo "setup-failed $*"; exit 1; }
mount --make-rprivate / 2>/dev/null
if [ "$USERNS" = 1 ]; then for d in null zero random urandom; do mount --bind "/dev/$d" "$R/dev/$d" || fail "bind /dev/$d"; done; fi
mount --bind "$R" "$R" || fail "bind root"
mount -o remount,bind,ro "$R" || fail "read-only root"
for d in work tmp home .oracle; do mount --bind "$S/$d" "$R/$d" || fail "bind $d"; done
mount -t proc proc "$R/proc" || fail "proc"
mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts "$R/dev/pts" 2>/dev/null || echo "no devpts: script(1) cannot open a terminal" >&2
exec $CHROOT "$R" $SETID /.real/bash --norc --noprofile /.driver.sh
`.replace("$CHROOT", hostTool("chroot") ?? "/usr/sbin/chroot");

/**
 * Inside the chroot, PID 1 of the sandbox: runs /case.sh once per request line. The run's stdout and
 * stderr go to files; fd 7 is a pipe that every process the case starts inherits, so the driver waits
 * until the last of them (background jobs included) has exited. Anything left (it closed fd 7) is killed.
 */
const DRIVER = String.raw`cd /work || exit 1
echo ready
while read -r SHELLNAME; do
  case "$SHELLNAME" in
    bash) set -- /.real/bash --norc --noprofile /case.sh ;;
    sh) set -- /.real/dash /case.sh ;;
    *) echo "done 2 0"; continue ;;
  esac
  /.real/env -i PATH=$PATH_VALUE HOME=/home TERM=dumb "$@" 7>&1 >/.oracle/out 2>/.oracle/err </dev/null | { while read -r -d "" _; do :; done; }
  status=$\{PIPESTATUS[0]}
  left=0
  for p in /proc/[0-9]*; do
    p=$\{p#/proc/}
    if [ "$p" != 1 ] && [ "$p" != "$BASHPID" ] && kill -9 "$p" 2>/dev/null; then left=$((left + 1)); fi
  done
  echo "done $status $left"
done
`.replaceAll("$\\{", "$" + "{").replace("$PATH_VALUE", PATH_VALUE);

interface Pending {
  resolve(line: string): void;
  reject(error: Error): void;
}

/** One sandbox (own tree, own namespaces) running one command at a time. */
class Slot {
  readonly dir: string;
  private child: ChildProcessWithoutNullStreams | undefined;
  private buffer = "";
  private pending: Pending | undefined;
  private stderrTail = "";
  private ready: Promise<void> | undefined;

  constructor(dir: string, template: string, private readonly mode: Mode, private readonly limitSeconds: number) {
    this.dir = dir;
    mkdirSync(dir);
    const cp = spawnSync("cp", ["-al", template, join(dir, "root")]);
    if (cp.status !== 0) throw new Error(`copying the sandbox tree failed: ${cp.stderr.toString()}`);
    for (const d of ["work", "tmp", "home", ".oracle"]) mkdirSync(join(dir, d));
    chmodSync(join(dir, "tmp"), 0o1777);
    if (mode.kind === "root") {
      chownSync(join(dir, "work"), NOBODY, NOBODY);
      chownSync(join(dir, "home"), NOBODY, NOBODY);
    }
    writeFileSync(join(dir, "setup.sh"), SETUP);
  }

  /** Starts (or restarts, after a time-out) the sandbox's namespaces and driver. */
  private start(): Promise<void> {
    const setid = this.mode.kind === "root" ? `/.real/setpriv --reuid=${NOBODY} --regid=${NOBODY} --clear-groups --` : "";
    const unshare = this.mode.kind === "root" ? ["-m", "-n", "-p", "-f", "--kill-child"] : ["-r", "-m", "-n", "-p", "-f", "--kill-child"];
    const child = spawn("unshare", [...unshare, "--propagation", "private", "--", "/usr/bin/bash", join(this.dir, "setup.sh"), this.dir, this.mode.kind === "userns" ? "1" : "0", setid], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child = child;
    this.buffer = "";
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-2000);
    });
    child.stdout.on("data", (chunk: string) => {
      this.buffer += chunk;
      let newline: number;
      while ((newline = this.buffer.indexOf("\n")) >= 0) {
        const line = this.buffer.slice(0, newline);
        this.buffer = this.buffer.slice(newline + 1);
        const pending = this.pending;
        this.pending = undefined;
        pending?.resolve(line);
      }
    });
    child.on("exit", (code, signal) => {
      if (this.child === child) this.ready = undefined;
      this.pending?.reject(new Error(`the oracle sandbox exited (${code ?? signal}): ${this.stderrTail}`));
      this.pending = undefined;
    });
    return this.next().then((line) => {
      if (line !== "ready") throw new Error(`the oracle sandbox did not start: ${line} ${this.stderrTail}`);
    });
  }

  private next(): Promise<string> {
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
    });
  }

  /** PID 1 of the sandbox's PID namespace, as this machine sees it: killing it ends everything inside. */
  private sandboxInit(): number | undefined {
    const pid = this.child?.pid;
    if (pid === undefined) return undefined;
    try {
      const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/);
      const first = Number(children[0]);
      return Number.isInteger(first) && first > 0 ? first : undefined;
    } catch {
      return undefined;
    }
  }

  private reset(): void {
    for (const d of ["work", "tmp", "home"]) {
      const path = join(this.dir, d);
      for (const entry of readdirSync(path)) rmSync(join(path, entry), { recursive: true, force: true });
    }
    for (const [name, content] of Object.entries(WORK_FILES)) {
      const path = join(this.dir, "work", name);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, content);
    }
    // A minimal git repository, so git gets as far as running its subcommand.
    for (const [name, content] of Object.entries(GIT_REPO)) {
      const path = join(this.dir, "work", name);
      mkdirSync(dirname(path), { recursive: true });
      if (content !== undefined) writeFileSync(path, content);
      else mkdirSync(path, { recursive: true });
    }
    if (this.mode.kind === "root") chownRecursive(join(this.dir, "work"));
    for (const file of ["log", "out", "err", "gittrace"]) {
      writeFileSync(join(this.dir, ".oracle", file), "");
      chmodSync(join(this.dir, ".oracle", file), 0o666);
    }
  }

  async run(command: string, shell: OracleShell): Promise<ShellRun> {
    this.ready ??= this.start();
    await this.ready;
    this.reset();
    writeFileSync(join(this.dir, "root", "case.sh"), command); // bytes exact: CR, backslashes, everything
    const started = performance.now();
    const done = this.next();
    this.child?.stdin.write(`${shell}\n`);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      const init = this.sandboxInit();
      try {
        if (init !== undefined) process.kill(init, "SIGKILL"); // our sandbox's PID 1: the kernel ends the rest
        else this.child?.kill("SIGKILL");
      } catch {
        // already gone
      }
    }, this.limitSeconds * 1000);
    let line: string;
    try {
      line = await done;
    } catch (error) {
      if (!timedOut) throw error;
      line = "done 137 0";
    } finally {
      clearTimeout(timer);
    }
    const millis = performance.now() - started;
    const match = /^done (\d+) (\d+)$/.exec(line);
    if (match === null) throw new Error(`unexpected driver output: ${line}`);
    return {
      shell,
      invocations: [...parseLog(readFileSync(join(this.dir, ".oracle", "log"))), ...parseGitTrace(readFileSync(join(this.dir, ".oracle", "gittrace"), "utf8"))],
      status: Number(match[1]),
      timedOut,
      lingering: Number(match[2]),
      stderr: readFileSync(join(this.dir, ".oracle", "err"), "utf8").slice(0, 4000),
      millis,
    };
  }

  close(): Promise<void> {
    const child = this.child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      child.once("exit", () => resolve());
      child.stdin.end();
    });
  }
}

/** Parses `N\0path\0arg...\0` records; a torn or malformed log is an error, never silently dropped. */
function parseLog(bytes: Buffer): Invocation[] {
  const fields = bytes.toString("latin1").split("\0");
  if (fields.at(-1) !== "") throw new Error(`the oracle log does not end in NUL: ${JSON.stringify(bytes.toString("latin1").slice(-80))}`);
  fields.pop();
  const out: Invocation[] = [];
  let i = 0;
  while (i < fields.length) {
    const count = Number(fields[i]);
    if (!Number.isInteger(count) || count < 1 || i + 1 + count > fields.length) {
      throw new Error(`malformed oracle log record at field ${i}: ${JSON.stringify(fields.slice(i, i + 4))}`);
    }
    const record = fields.slice(i + 1, i + 1 + count).map((field) => Buffer.from(field, "latin1").toString("utf8"));
    const path = record[0] ?? "";
    out.push({ path, argv: [path.slice(path.lastIndexOf("/") + 1), ...record.slice(1)] });
    i += 1 + count;
  }
  return out;
}

/** Splits git's trace quoting (`'a b'`, `'\\''`) back into words. */
function gitTraceWords(text: string): string[] {
  const words: string[] = [];
  let current: string | undefined;
  let i = 0;
  while (i < text.length) {
    const ch = text[i] ?? "";
    if (ch === " ") {
      if (current !== undefined) words.push(current);
      current = undefined;
      i += 1;
    } else if (ch === "'") {
      const end = text.indexOf("'", i + 1);
      current = (current ?? "") + text.slice(i + 1, end < 0 ? text.length : end);
      i = end < 0 ? text.length : end + 1;
    } else if (ch === "\\" && i + 1 < text.length) {
      current = (current ?? "") + (text[i + 1] ?? "");
      i += 2;
    } else {
      current = (current ?? "") + ch;
      i += 1;
    }
  }
  if (current !== undefined) words.push(current);
  return words;
}

/** `trace: built-in: git push origin` lines: the subcommand git really ran, as a program of its own. */
function parseGitTrace(text: string): Invocation[] {
  const out: Invocation[] = [];
  for (const line of text.split("\n")) {
    const match = /trace: built-in: (git(?: .*)?)$/.exec(line);
    if (match !== null) out.push({ path: "/git-built-in/git", argv: gitTraceWords(match[1] ?? "git") });
  }
  return out;
}

export interface OracleOptions {
  /** Sandboxes running at once (default 3: the machine's cores are mostly waiting on fork/exec). */
  readonly concurrency?: number;
  /** Hard limit per run, in seconds (the run's PID namespace is killed). */
  readonly limitSeconds?: number;
}

/** A pool of sandboxes. `create()` builds the tree once; `dispose()` removes everything. */
export class ShellOracle {
  private readonly slots: Slot[];
  private readonly idle: Slot[];
  private readonly waiting: ((slot: Slot) => void)[] = [];

  private constructor(private readonly base: string, slots: Slot[]) {
    this.slots = slots;
    this.idle = [...slots];
  }

  static create(mode: Mode, options: OracleOptions = {}): ShellOracle {
    const base = mkdtempSync(join(tmpdir(), "gg-shell-oracle-"));
    try {
      const template = join(base, "template");
      buildTree(template, mode);
      const slots: Slot[] = [];
      for (let i = 0; i < (options.concurrency ?? 3); i += 1) slots.push(new Slot(join(base, `slot${i}`), template, mode, options.limitSeconds ?? 5));
      return new ShellOracle(base, slots);
    } catch (error) {
      rmSync(base, { recursive: true, force: true });
      throw error;
    }
  }

  private acquire(): Promise<Slot> {
    const slot = this.idle.pop();
    if (slot !== undefined) return Promise.resolve(slot);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(slot: Slot): void {
    const waiter = this.waiting.shift();
    if (waiter !== undefined) waiter(slot);
    else this.idle.push(slot);
  }

  /** Runs one command line under one shell and returns what started. */
  async run(command: string, shell: OracleShell): Promise<ShellRun> {
    const slot = await this.acquire();
    try {
      return await slot.run(command, shell);
    } finally {
      this.release(slot);
    }
  }

  async dispose(): Promise<void> {
    await Promise.all(this.slots.map((slot) => slot.close()));
    rmSync(this.base, { recursive: true, force: true });
  }
}
