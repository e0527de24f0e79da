/**
 * What the guard knows about programs that run, or write through, their arguments: wrappers that
 * run a command (sudo, env, timeout, xargs, ...) with every option they take, programs that run
 * commands through an option (find -exec, git -c alias.x=!cmd, tar --to-command, rsync -e, ssh -o
 * ProxyCommand=, awk system(), sed e, python -c, ...), and bash builtins that evaluate an array
 * subscript (`printf -v 'a[$(cmd)]'`). This is data, read in one place (`readProgram`): the deny
 * path reads the inner commands and scripts, the allow path refuses what it names unless the allow
 * pattern names the same form, and an option of a wrapper that is not listed here makes the reading
 * unknown (a deny rule then cannot tell and the call asks).
 */

import { CODE_LOADERS, type CodeLoader } from "./loaders.js";
import { readPowerShell } from "./powershell.js";
import { DELETE_CALLS, deletesLikeRm, deletionOf, type MaybeForm } from "./same-effect.js";
import { carriedUrlReason } from "../../messages/index.js";
import { originOf, urlReadings } from "./net.js";
import { parseOptions, type OptionTable, type Parsed } from "./options.js";
import { COMPOSE_GLOBAL, DOCKER_GLOBAL, KUBECTL_GLOBAL, UNREAD_WORDS, commandSpellings } from "./subcommands.js";

/** Something an allow cannot vouch for unless its pattern names `token` (`find:* -exec`, `sudo:*`). */
export interface Refusal {
  /** What a reviewer reads: "find runs a command through -exec". */
  readonly reason: string;
  /** The word an allow pattern must hold to cover this form (the option, or the program's name). */
  readonly token: string;
}

/** One program's reading of its arguments. */
interface ProgramReading {
  /** Commands it runs, as argument vectors (`sudo -u root rm x` → [rm, x]). */
  readonly commands: (readonly string[])[];
  /** Command lines it hands to a shell (`env -S STRING`, `su -c STRING`, `watch ARGS...`). */
  readonly scripts: string[];
  /** Constructs an allow does not cover unless named. */
  readonly refusals: Refusal[];
  /** Other spellings a deny rule is tried against (git without its global options). */
  readonly forms: (readonly string[])[];
  /** Other spellings a deny rule is tried against as they are, not read again (`npm pub` as `npm publish`; subcommands.ts). */
  spellings?: (readonly string[])[];
  /** Commands the line may run, which the guard cannot tell apart (subcommands.ts): a deny rule one of them matches cannot tell. */
  maybe?: MaybeForm[];
  /** Texts that may be command lines (awk's string literals): read when they parse, ignored when not. */
  readonly guesses: string[];
  /** Set when the reading is incomplete (an option the table does not know, code it cannot read). */
  unknown?: string;
  /** The program reads a script from its standard input (a shell with no -c and no file). */
  readsStdin?: boolean;
  /** What it reads from its standard input is run by a shell it starts (`sudo -s`, `su`, `ssh HOST` given no command). */
  stdinShell?: boolean;
  /** Files it writes that its options or operands name (`find -fprint FILE`, `sort -o FILE`, `curl -o FILE`, `uniq IN OUT`, `sed -i SCRIPT FILE`), as written. */
  writes?: string[];
  /**
   * It writes files whose names it reads from elsewhere (`patch < x.patch`, `git apply x.patch`: the files the patch names;
   * `tar -xf a.tar`, `unzip a.zip`: the archive's members; `git clone URL`, `git checkout B`: a tree): why, as a phrase.
   */
  writesUnnamed?: string;
  /** The files it writes unnamed are packages it installs (`npm install`), whose own scripts the install runs anyway: a package script run after it (`npm test`) is not counted as running them. */
  installsPackages?: boolean;
  /**
   * Files it runs as a script or a program (`python3 run.py`, `make` reads ./Makefile, `make -C d` d/Makefile, `npm test` runs
   * the scripts of ./package.json), as written: `what` says what runs and how, as a phrase (`run.py with python3`, `the recipes of Makefile with make`); `packageScripts` when they are a package's scripts.
   */
  runs?: { readonly files: readonly string[]; readonly what: string; readonly packageScripts?: boolean };
  /** Where a program that fetches URLs (curl, wget) connects: see `readFetcher`. */
  connects?: Connects;
  /**
   * Why the places the program connects to cannot all be read (inline code that opens connections, a
   * requirements file): a deny or ask pattern that a place added to its words could make match cannot tell.
   */
  placesUnknown?: string;
  /** A wrapper that changes only how its command runs (`timeout 5 CMD`, `nice CMD`): the line is as allowed as the command it runs. */
  transparent?: boolean;
  /**
   * Another spelling an allow pattern may match: the program without options that only turn its
   * pager off or pick the directory it works in (`git --no-pager -C DIR log` as `git log`). `places`:
   * the directories picked, each read as `cd DIR` (an allow for the spelling holds only when the
   * allow rules cover `cd DIR` too), and `waives`: the refusal tokens (`-C`) those places account for.
   */
  allowAs?: { readonly words: readonly string[]; readonly places: readonly string[]; readonly waives: readonly string[] };
  /**
   * One of `commands` runs with words the wrapper (`by`: xargs, parallel) reads from its input: its
   * words from `at` on are only known when it runs (appended to it, or put where the replace string
   * stands). `implicit`: the wrapper's own command, run when it is given none (xargs runs echo).
   * `paths`: the words are the paths find finds, where `{}` stands (`find * -exec git {} \;`).
   */
  input?: { readonly command: readonly string[]; readonly at: number; readonly by: string; readonly implicit?: boolean; readonly paths?: boolean }[];
  /** The guard has no reading of its own for the program: its arguments are plain words, none of which makes it run anything. */
  plainWords?: boolean;
  /**
   * The directory the commands it runs (and the scripts it hands a shell) start in, as written (`env -C DIR CMD`,
   * `sudo -D DIR CMD`, `cmake -E chdir DIR CMD`): relative to where the line is, as `cd DIR` reads it; `word`
   * undefined: one the guard cannot tell (`nsenter -w`: the target process's). command.ts places their words there.
   */
  directory?: { readonly word: string | undefined };
}


/** task-spooler's flags: its queueing options (`-n`, `-E`, …) and its actions, which run nothing (`-l`, `-K`, `-t ID`, `-w`, …). */
const TASK_SPOOLER_FLAGS = "nEgfmBdKClhVTStcpoisrwku";
const TASK_SPOOLER_ACTIONS = ["-K", "-C", "-l", "-h", "-V", "-T", "-S", "-t", "-c", "-p", "-o", "-i", "-s", "-r", "-w", "-k", "-u", "-U"];

/** A program that runs the command given after its options (and `positionals` more words). */
interface WrapperSpec {
  /** A first operand that says the name is another program's, which runs nothing (moreutils' `ts FORMAT`). */
  readonly otherProgram?: RegExp;
  readonly options: OptionTable;
  /** Words between the options and the command (timeout's duration, flock's file, chroot's root). */
  readonly positionals?: number;
  /** Words holding `=` before the command set the environment (env, sudo): `NAME=value`, also `BASH_FUNC_f%%=() {...}`. */
  readonly assignments?: boolean;
  /** Options whose value is a command line run by a shell. */
  readonly scriptOptions?: readonly string[];
  /** Options whose value is split into words read as more of the program's own arguments (`env -S'-i CMD'` is `env -i CMD`). */
  readonly splitOptions?: readonly string[];
  /**
   * Given no command, it starts a shell that runs the commands on its standard input (`echo CMD | sudo -s`, `su`,
   * `unshare`): always (true), or with one of these options.
   */
  readonly shellAlone?: true | readonly string[];
  /** Each operand is a command line run by a shell (moreutils' pee and mispipe). */
  readonly operandScripts?: boolean;
  /** Its command follows `--`; without `--` where its options end cannot be told (minijail0). */
  readonly dashDashOrUnknown?: boolean;
  /** Options after which it runs nothing (command -v). */
  readonly inert?: readonly string[];
  /** The command words are joined and run by `sh -c` (watch). */
  readonly joined?: boolean;
  /** Options may also follow operands (GNU getopt without `+`: su, runuser, script). */
  readonly permute?: boolean;
  /** Runs only a script option, never a trailing command (script, su). */
  readonly scriptOnly?: boolean;
  /** Needs no command (env alone prints the environment). */
  readonly commandOptional?: boolean;
  /**
   * A wrapper that changes only how its command runs: a shell builtin (`command CMD`, `builtin CMD`)
   * or one of the process wrappers Claude Code strips before it matches Bash rules (`timeout`, `time`,
   * `nice`, `nohup`, `stdbuf`): with a command to run and nothing else of its own (no file it writes,
   * `time -o FILE`), no allow pattern need name it, and deny patterns read the command it runs.
   */
  readonly transparent?: boolean;
  /** Options that make a `transparent` wrapper do more than wrap: its command then needs an allow that names it (`xargs --process-slot-var=BASH_ENV` sets a variable its command reads). */
  readonly opaqueWith?: readonly string[];
  /** Options whose value is a file it writes (`time -o FILE`). */
  readonly writeOptions?: readonly string[];
  /** The positionals (or a `permute` wrapper's operands) are files it writes (`logsave LOGFILE CMD`, `script FILE`). */
  readonly positionalWrites?: boolean;
  /** With one of these options it runs no command: its operands are files it edits, and so writes (`sudo -e FILE`). */
  readonly editOptions?: readonly string[];
  /** Options whose value is a program it runs (`su -s PROGRAM`, `docker run --entrypoint PROGRAM`). */
  readonly programOptions?: readonly string[];
  /** The command is only the words after `--` (`kubectl exec POD -- CMD`); options may be anywhere before it. */
  readonly afterDashDash?: boolean;
  /** Words before the options (setarch's ARCH). */
  readonly leading?: number;
  /** A positional it takes only when the word has this form (`nvm exec [VERSION] CMD`: a version). */
  readonly optionalPositional?: RegExp;
  /** With one of these options there are no `positionals` (`runcon -t TYPE CMD`, but `runcon CONTEXT CMD`). */
  readonly positionalsUnless?: readonly string[];
  /** With one of these options the command words are joined and run by a shell (`entr -s`). */
  readonly joinedWith?: readonly string[];
  /** Words the command is run by (`capsh -- ARGS` runs `/bin/bash ARGS`). */
  readonly runBy?: readonly string[];
  /** With one of these options the operands of a `permute` wrapper are a command (`runuser -u USER CMD`, else su's reading). */
  readonly commandWith?: readonly string[];
  /**
   * Runs its command with words read from its standard input or a file added (xargs): appended, or,
   * with one of the `replace` options, put where the replace string (the option's value, `{}` when it
   * has none) stands. `alone`: the command it runs when given none (xargs runs echo). `placeholder`: a
   * replace string it always reads (xe's `{}`: put there when the command holds it, else appended).
   */
  readonly readsInput?: { readonly replace: readonly string[]; readonly alone?: readonly string[]; readonly placeholder?: string };
  /** GNU parallel: its command runs with the arguments after `:::` (and `::::` files), or with words read from its input (see readParallel). */
  readonly parallelInput?: boolean;
  /** Options whose value is a file it reads the command's words from (`xargs -a FILE`, `parallel --arg-file FILE`): it reads that file itself. */
  readonly inputFiles?: readonly string[];
  /** Options whose value is the directory its command starts in (`env -C DIR`, `sudo -D DIR`); one given no value (`nsenter -w`) starts it where the guard cannot tell. */
  readonly directoryOptions?: readonly string[];
  /** A relative directory is read from / (bwrap's `--chdir` in the sandbox, daemonize's `-c` after it moved to /). */
  readonly directoryFromRoot?: boolean;
  /** Where its command starts given no directory option (daemonize: /). */
  readonly startsIn?: string;
  /** With one of these options (or, `-` among them, that word: `su - USER`) its command starts in the target user's home directory (`sudo -i CMD`). */
  readonly homeWith?: readonly string[];
  /** Its first positional is a new root, where its command starts (`chroot NEWROOT CMD`), unless one of these options is given. */
  readonly rootPositional?: readonly string[];
  /**
   * Options whose value is a new root (`unshare -R DIR`, `nsenter -r DIR`): its command's absolute words name places under
   * it. `starts`: where its command starts then: `root`, the new root or the directory option's DIR in it (unshare);
   * `guest`, the directory option's DIR in it, else where the guard cannot tell (proot, sudo); `unknown` (nsenter).
   */
  readonly rootOptions?: { readonly options: readonly string[]; readonly starts: "root" | "guest" | "unknown" };
}

/** `uvx PACKAGE ARGS` and `uv tool run PACKAGE ARGS`. */
const UV_TOOL_RUN: WrapperSpec = { options: { flags: "qv", valued: "p", long: ["--isolated", "--quiet", "--verbose", "--no-cache", "--offline"], longValued: ["--from", "--with", "--with-editable", "--with-requirements", "--python", "--index", "--index-url"] } };

/** GNU parallel (and sem, its --semaphore mode, which runs its command once): the command words are joined and run by a shell. */
const SEM: WrapperSpec = {
  options: {
    flags: "0kquvgXmtr",
    valued: "jSaIdEnN",
    long: ["--null", "--keep-order", "--quote", "--ungroup", "--verbose", "--group", "--xargs", "--dry-run", "--halt-on-error", "--no-run-if-empty", "--help", "--version", "--bar", "--progress", "--tag", "--line-buffer"],
    longValued: ["--jobs", "--sshlogin", "--arg-file", "--delimiter", "--max-args", "--results", "--joblog", "--timeout", "--retries", "--halt", "--colsep", "--workdir", "--wd", "--basefile", "--env"],
  },
  joined: true,
  commandOptional: true,
  directoryOptions: ["--workdir", "--wd"],
  inputFiles: ["-a", "--arg-file"],
};
const PARALLEL: WrapperSpec = { ...SEM, parallelInput: true };

/** setarch and its per-architecture names (linux32, linux64, ...). */
const SETARCH_OPTIONS: OptionTable = {
  flags: "vRFZLXBIST3h",
  long: ["--verbose", "--addr-no-randomize", "--fdpic-funcptrs", "--mmap-page-zero", "--addr-compat-layout", "--read-implies-exec", "--32bit", "--short-inode", "--whole-seconds", "--sticky-timeouts", "--3gb", "--4gb", "--uname-2.6", "--list", "--help", "--version"],
};

const SUDO_LONG_VALUED = ["--user", "--group", "--prompt", "--close-from", "--chdir", "--host", "--role", "--type", "--command-timeout", "--other-user", "--chroot", "--askpass-program"];

/** Wrappers: they run the command that follows their options. */
const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  sudo: {
    options: {
      flags: "AbEeHiKklnPSsVvBN",
      valued: "ugpChDrtTUR",
      long: ["--askpass", "--background", "--bell", "--edit", "--help", "--set-home", "--login", "--remove-timestamp", "--reset-timestamp", "--list", "--non-interactive", "--preserve-groups", "--stdin", "--shell", "--version", "--validate"],
      longValued: SUDO_LONG_VALUED,
      longOptional: ["--preserve-env"],
    },
    inert: ["-l", "--list", "-v", "--validate", "-K", "--remove-timestamp", "-V", "--version", "-h", "--help"],
    editOptions: ["-e", "--edit"],
    assignments: true,
    shellAlone: ["-s", "--shell", "-i", "--login"],
    directoryOptions: ["-D", "--chdir"],
    homeWith: ["-i", "--login"],
    rootOptions: { options: ["-R", "--chroot"], starts: "guest" },
  },
  doas: { options: { flags: "ns", valued: "uC" }, shellAlone: ["-s"] },
  env: {
    options: {
      flags: "i0v",
      valued: "uCS",
      long: ["--ignore-environment", "--null", "--debug", "--list-signal-handling", "--help", "--version"],
      longValued: ["--unset", "--chdir", "--split-string"],
      longOptional: ["--block-signal", "--default-signal", "--ignore-signal"],
    },
    assignments: true,
    splitOptions: ["-S", "--split-string"],
    commandOptional: true,
    directoryOptions: ["-C", "--chdir"],
  },
  timeout: {
    options: { flags: "v", valued: "sk", long: ["--preserve-status", "--foreground", "--verbose", "--help", "--version"], longValued: ["--signal", "--kill-after"] },
    positionals: 1,
    transparent: true,
  },
  nice: { options: { valued: "n", longValued: ["--adjustment"], long: ["--help", "--version"], numeric: true }, commandOptional: true, transparent: true },
  ionice: { options: { flags: "t", valued: "cnpPu", long: ["--ignore", "--help", "--version"], longValued: ["--class", "--classdata", "--pid", "--pgid", "--uid"] }, commandOptional: true },
  stdbuf: { options: { valued: "ioe", longValued: ["--input", "--output", "--error"], long: ["--help", "--version"] }, transparent: true },
  setsid: { options: { flags: "cfw", long: ["--ctty", "--fork", "--wait", "--help", "--version"] } },
  flock: {
    options: { flags: "sxenoFuv", valued: "wE", long: ["--shared", "--exclusive", "--unlock", "--nonblock", "--nb", "--close", "--no-fork", "--verbose", "--help", "--version"], longValued: ["--timeout", "--wait", "--conflict-exit-code"] },
    positionals: 1,
    scriptOptions: ["-c", "--command"],
  },
  su: {
    options: { flags: "lmpfP", valued: "csgGw", long: ["--login", "--preserve-environment", "--fast", "--pty", "--help", "--version"], longValued: ["--command", "--session-command", "--shell", "--group", "--supp-group", "--whitelist-environment"] },
    scriptOptions: ["-c", "--command", "--session-command"],
    programOptions: ["-s", "--shell"],
    permute: true,
    scriptOnly: true,
    shellAlone: true,
    // A login shell (`su -l`, `su -`) starts in the target user's home.
    homeWith: ["-l", "--login", "-"],
  },
  runuser: {
    options: { flags: "lmpfP", valued: "csgGwu", long: ["--login", "--preserve-environment", "--fast", "--pty", "--help", "--version"], longValued: ["--command", "--session-command", "--shell", "--group", "--supp-group", "--whitelist-environment", "--user"] },
    scriptOptions: ["-c", "--command", "--session-command"],
    programOptions: ["-s", "--shell"],
    permute: true,
    scriptOnly: true,
    commandWith: ["-u", "--user"],
    shellAlone: true,
    homeWith: ["-l", "--login", "-"],
  },
  script: {
    options: {
      flags: "aefqkTh",
      valued: "cEIOBtmo",
      long: ["--append", "--return", "--flush", "--force", "--quiet", "--log-io", "--logging-format", "--help", "--version"],
      longValued: ["--command", "--echo", "--log-in", "--log-out", "--log-timing", "--output-limit", "--logging-format"],
      longOptional: ["--timing"],
    },
    scriptOptions: ["-c", "--command"],
    permute: true,
    scriptOnly: true,
    shellAlone: true,
    writeOptions: ["-O", "--log-out", "-I", "--log-in", "-B", "--log-io", "-T", "--log-timing"],
    positionalWrites: true,
  },
  busybox: { options: {} },
  watch: {
    options: { flags: "bcdegptwxrC", valued: "nq", long: ["--no-title", "--beep", "--errexit", "--chgexit", "--color", "--no-color", "--exec", "--precise", "--no-wrap", "--no-rerun", "--help", "--version"], longValued: ["--interval", "--equexit"], longOptional: ["--differences"] },
    joined: true,
  },
  command: { options: { flags: "pvV" }, inert: ["-v", "-V"], transparent: true },
  builtin: { options: {}, transparent: true },
  exec: { options: { flags: "cl", valued: "a" }, commandOptional: true },
  coproc: { options: {} },
  time: {
    options: { flags: "apvq", valued: "fo", long: ["--append", "--portability", "--verbose", "--quiet", "--help", "--version"], longValued: ["--format", "--output"] },
    writeOptions: ["-o", "--output"],
    transparent: true,
  },
  nohup: { options: { long: ["--help", "--version"] }, transparent: true },
  // task-spooler queues the command and runs it (`tsp CMD`; `-L LABEL`, `-D ID`, `-W ID` (depend), `-N SLOTS`, `-E`, `-g`, `-n`, `-f`, `-m`, `-B`);
  // its actions (`-l`, `-K`, `-t ID`, `-w`, ...) run nothing. Upstream names it `ts`, which Debian gives moreutils' timestamp filter:
  // `ts FORMAT` (a `%` in it) and `ts` with no operand are that filter.
  tsp: { options: { flags: TASK_SPOOLER_FLAGS, valued: "LDWNU" }, inert: TASK_SPOOLER_ACTIONS, commandOptional: true },
  ts: { options: { flags: TASK_SPOOLER_FLAGS, valued: "LDWNU" }, inert: TASK_SPOOLER_ACTIONS, commandOptional: true, otherProgram: /%/ },
  // qemu's user-mode emulators (`qemu-x86_64 PROG ARGS`, `qemu-aarch64-static`; PROGRAM_ALIASES): one-dash options, some with a value.
  "qemu-user": {
    options: { singleDash: ["-h", "-help", "-singlestep", "-one-insn-per-tb", "-strace", "-version"], singleDashValued: ["-g", "-L", "-s", "-cpu", "-E", "-U", "-0", "-r", "-B", "-R", "-d", "-dfilter", "-D", "-p", "-seed", "-trace"] },
    inert: ["-h", "-help", "-version"],
    writeOptions: ["-D"],
  },
  // rootlesskit (urfave/cli): runs the command in new namespaces; its *-binary options name programs it runs.
  rootlesskit: {
    options: {
      flags: "hv",
      valued: "p",
      long: ["--debug", "--help", "--version", "--disable-host-loopback", "--ipv6", "--detach-netns", "--pidns", "--cgroupns", "--utsns", "--ipcns"],
      longValued: ["--copy-up", "--copy-up-mode", "--propagation", "--net", "--mtu", "--cidr", "--ifname", "--lxc-user-nic-binary", "--lxc-user-nic-bridge", "--slirp4netns-binary", "--slirp4netns-sandbox", "--slirp4netns-seccomp", "--vpnkit-binary", "--pasta-binary", "--port-driver", "--publish", "--reaper", "--evacuate-cgroup2", "--state-dir", "--subid-source"],
    },
    inert: ["-h", "--help", "-v", "--version"],
    scriptOptions: ["--lxc-user-nic-binary", "--slirp4netns-binary", "--vpnkit-binary", "--pasta-binary"],
  },
  // zsh's sched runs its words as a command line later (`sched +1 CMD`, `sched 12:00 CMD`, `sched -o …`); `sched` lists, `sched -N` removes.
  sched: { options: { flags: "o", numeric: true }, positionals: 1, joined: true, commandOptional: true },
  "task-spooler": { options: { flags: "nEgfmB", valued: "LDWN" } },
  // zsh's precommand modifiers: the command after them runs (`noglob rm x`, `nocorrect rm x`, `- rm x`
  // with a dash before its name), and `repeat N` runs it N times. Agents' shells are often zsh.
  noglob: { options: {}, transparent: true },
  nocorrect: { options: {}, transparent: true },
  "-": { options: {} },
  repeat: { options: {}, positionals: 1 },
  // Wrappers from container entrypoints, privilege droppers, I/O and environment helpers: each runs the command after its options.
  gosu: { options: {}, positionals: 1 },
  "su-exec": { options: {}, positionals: 1 },
  "s6-setuidgid": { options: {}, positionals: 1 },
  tini: { options: { flags: "svlwgp", valued: "e", long: ["--version"] } },
  "dumb-init": { options: { flags: "cvV", valued: "r", long: ["--single-child", "--verbose", "--version", "--help"], longValued: ["--rewrite"] } },
  eatmydata: { options: {} },
  // More wrappers that exec the command after their options: ubuntu's run-one family (one instance at a time, or
  // until it succeeds or fails), s6-overlay's with-contenv, catatonit (a container init), host-spawn (runs it on the
  // host from a container), distrobox-enter (in a container, after `--`), MPI's and Slurm's launchers.
  "run-one": { options: {} },
  "run-this-one": { options: {} },
  "keep-one-running": { options: {} },
  "run-one-constantly": { options: {} },
  "run-one-until-success": { options: {} },
  "run-one-until-failure": { options: {} },
  "with-contenv": { options: {} },
  catatonit: { options: { flags: "ghLPpv" } },
  "host-spawn": { options: {} },
  "distrobox-enter": { options: {}, dashDashOrUnknown: true },
  mpirun: { options: {}, dashDashOrUnknown: true },
  mpiexec: { options: {}, dashDashOrUnknown: true },
  srun: { options: {}, dashDashOrUnknown: true },
  nocache: { options: { valued: "n" } },
  trickle: { options: { flags: "svV", valued: "udwtlLn" } },
  chpst: { options: { flags: "vP0123", valued: "ugUeE/nlLmdofpc" } },
  daemonize: { options: { flags: "av", valued: "celpuEo" }, directoryOptions: ["-c"], directoryFromRoot: true, startsIn: "/" },
  "flatpak-spawn": { directoryOptions: ["--directory"], options: { long: ["--host", "--clear-env", "--watch-bus", "--expose-pids", "--share-pids", "--sandbox", "--no-network", "--latest-version", "--verbose"], longValued: ["--env", "--unset-env", "--forward-fd", "--directory", "--sandbox-expose", "--sandbox-expose-ro", "--sandbox-flag", "--app-path", "--usr-path"] } },
  // cross-env NAME=value CMD, env-cmd [-f FILE] CMD, dotenv [-e FILE] [--] CMD (dotenv-cli): the environment from a file the guard does not read.
  "cross-env": { options: {}, assignments: true },
  "cross-env-shell": { options: {}, assignments: true, joined: true },
  "env-cmd": { options: { flags: "x", valued: "fre", long: ["--silent", "--use-shell", "--no-override", "--verbose", "--expand-envs", "--recursive", "--help"], longValued: ["--file", "--rc-file", "--environments"] } },
  dotenv: { options: { flags: "o", valued: "ecv", long: ["--debug", "--quiet", "--override"] } },
  // watchexec runs its command words through a shell (unless -n / --shell=none) on each change.
  watchexec: { options: { flags: "cdnNoprv", valued: "ewfisW", long: ["--clear", "--restart", "--postpone", "--no-vcs-ignore", "--no-ignore", "--no-default-ignore", "--no-project-ignore", "--no-global-ignore", "--verbose", "--notify", "--watch-when-idle", "--no-shell"], longValued: ["--exts", "--watch", "--filter", "--ignore", "--signal", "--shell", "--debounce", "--delay-run", "--on-busy-update", "--stop-signal", "--stop-timeout", "--project-origin", "--workdir", "--env"] }, joined: true, directoryOptions: ["--workdir"] },
  xcrun: { options: { flags: "fvlkrn", long: ["--find", "--verbose", "--log", "--kill-cache", "--run", "--no-cache", "--show-sdk-path", "--show-sdk-version", "--show-sdk-build-version", "--show-sdk-platform-path", "--show-sdk-platform-version"], longValued: ["--sdk", "--toolchain"] } },
  arch: { options: { singleDash: ["-x86_64", "-arm64", "-arm64e", "-i386", "-32", "-64", "-c"], valued: "de" }, commandOptional: true },
  chroot: { options: { long: ["--skip-chdir", "--help", "--version"], longValued: ["--userspec", "--groups"] }, positionals: 1, commandOptional: true, shellAlone: true, rootPositional: ["--skip-chdir"] },
  taskset: { options: { flags: "ac", long: ["--all-tasks", "--cpu-list", "--help", "--version"] }, positionals: 1, inert: ["-p", "--pid"] },
  chrt: {
    options: { flags: "bdfiormpRva", valued: "TPD", long: ["--batch", "--deadline", "--fifo", "--idle", "--other", "--rr", "--reset-on-fork", "--max", "--pid", "--verbose", "--all-tasks", "--help", "--version"], longValued: ["--sched-runtime", "--sched-period", "--sched-deadline"] },
    positionals: 1,
  },
  nsenter: {
    options: {
      flags: "FZa",
      valued: "tSG",
      optional: "muinpUCTrw",
      long: ["--preserve-credentials", "--no-fork", "--all", "--follow-context", "--help", "--version"],
      longValued: ["--target", "--setuid", "--setgid", "--env"],
      longOptional: ["--mount", "--uts", "--ipc", "--net", "--pid", "--user", "--cgroup", "--time", "--root", "--wd"],
    },
    commandOptional: true,
    shellAlone: true,
    directoryOptions: ["-w", "--wd"],
    rootOptions: { options: ["-r", "--root"], starts: "unknown" },
  },
  unshare: {
    options: {
      flags: "muinpUCTfrc",
      valued: "RwSGl",
      long: ["--fork", "--map-root-user", "--map-current-user", "--mount-proc", "--keep-caps", "--help", "--version"],
      longValued: ["--propagation", "--setgroups", "--map-user", "--map-group", "--map-users", "--map-groups", "--root", "--wd", "--setuid", "--setgid", "--load-interp"],
      longOptional: ["--mount", "--uts", "--ipc", "--net", "--pid", "--user", "--cgroup", "--time", "--kill-child", "--monotonic", "--boottime"],
    },
    commandOptional: true,
    shellAlone: true,
    directoryOptions: ["-w", "--wd"],
    rootOptions: { options: ["-R", "--root"], starts: "root" },
  },
  "systemd-run": {
    options: {
      flags: "tPqGrdSh",
      valued: "puEHM",
      long: ["--user", "--system", "--scope", "--pty", "--pipe", "--quiet", "--collect", "--remain-after-exit", "--wait", "--same-dir", "--no-block", "--no-ask-password", "--shell", "--help", "--version"],
      longValued: ["--property", "--unit", "--description", "--slice", "--setenv", "--uid", "--gid", "--working-directory", "--machine", "--host", "--nice", "--service-type", "--on-calendar", "--on-active", "--on-boot", "--on-startup", "--on-unit-active", "--on-unit-inactive", "--timer-property", "--path-property", "--socket-property"],
    },
    directoryOptions: ["--working-directory"],
  },
  strace: { options: { flags: "fFcCdDhikqrtTvVwxyzZn", valued: "eopusabEIPSOX" }, writeOptions: ["-o"] },
  ltrace: { options: { flags: "bcCfhirStTVwL", valued: "eopusaADFlnx" }, writeOptions: ["-o"] },
  chronic: { options: { flags: "ev" } },
  // moreutils' ifne runs the command when its input is not empty (`-n`: when it is).
  ifne: { options: { flags: "n" } },
  // nq queues the command and runs it; `-w` waits for jobs and runs nothing.
  nq: { options: { flags: "cqw" }, inert: ["-w"] },
  // runcon CONTEXT CMD, or runcon -t TYPE (-u, -r, -l) CMD: the command runs in that SELinux context.
  runcon: { options: { flags: "c", valued: "urtl", long: ["--compute", "--help", "--version"], longValued: ["--user", "--role", "--type", "--range"] }, positionals: 1, positionalsUnless: ["-u", "-r", "-t", "-l", "--user", "--role", "--type", "--range"] },
  // proot runs the command in its guest root (`-q CMD` runs the guest's programs through an emulator command).
  proot: {
    options: { flags: "0LvV", valued: "rbmwqkiRSp", long: ["--kill-on-exit", "--link2symlink", "--root-id", "--help", "--version"], longValued: ["--rootfs", "--bind", "--mount", "--pwd", "--cwd", "--qemu", "--kernel-release", "--change-id", "--verbose"] },
    scriptOptions: ["-q", "--qemu"],
    commandOptional: true,
    directoryOptions: ["-w", "--pwd", "--cwd"],
    rootOptions: { options: ["-r", "--rootfs"], starts: "guest" },
  },
  unbuffer: { options: { flags: "p" } },
  // sg GROUP [-c] COMMAND: the command is handed to /bin/sh -c.
  sg: { options: {}, positionals: 1, scriptOptions: ["-c"], joined: true },
  pkexec: { options: { long: ["--disable-internal-agent", "--keep-cwd", "--help", "--version"], longValued: ["--user"] } },
  run0: {
    options: {
      flags: "hV",
      valued: "ugD",
      long: ["--no-ask-password", "--slice-inherit", "--pty", "--pipe", "--via-shell", "--help", "--version"],
      longValued: ["--machine", "--property", "--description", "--slice", "--user", "--group", "--nice", "--chdir", "--setenv", "--background", "--shell-prompt-prefix", "--lightweight", "--unit", "--area"],
    },
    directoryOptions: ["-D", "--chdir"],
  },
  firejail: { options: { anyLongEq: true }, shellAlone: true },
  // newgrp GROUP starts a shell (reading its standard input) with GROUP as its group.
  newgrp: { options: { flags: "l" }, positionals: 1, commandOptional: true, shellAlone: true, scriptOnly: true },
  // lxc-attach -n NAME [--] CMD (a shell, reading its input, when given none).
  "lxc-attach": {
    options: {
      flags: "qeRL",
      valued: "nPolasvugf",
      long: ["--quiet", "--elevated-privileges", "--remount-sys-proc", "--keep-env", "--clear-env", "--help", "--version"],
      longValued: ["--name", "--lxcpath", "--logfile", "--logpriority", "--arch", "--namespaces", "--set-var", "--keep-var", "--uid", "--gid", "--rcfile", "--pty-log", "--context"],
    },
    commandOptional: true,
    shellAlone: true,
  },
  "systemd-nspawn": {
    options: {
      flags: "bqxanUPh",
      valued: "DiMuEpZLSC",
      long: ["--quiet", "--boot", "--ephemeral", "--private-network", "--private-users-chown", "--as-pid2", "--pipe", "--read-only", "--keep-unit", "--help", "--version", "--no-pager"],
      longValued: ["--directory", "--image", "--machine", "--user", "--setenv", "--bind", "--bind-ro", "--chdir", "--template", "--tmpfs", "--overlay", "--overlay-ro", "--network-veth-extra", "--network-interface", "--network-bridge", "--network-zone", "--port", "--slice", "--property", "--private-users", "--capability", "--drop-capability", "--register", "--link-journal", "--resolv-conf", "--timezone", "--console", "--uuid", "--hostname", "--kill-signal", "--settings", "--volatile", "--personality", "--selinux-context", "--selinux-apifs-context", "--oci-bundle", "--load-credential", "--set-credential", "--system-call-filter", "--rlimit", "--oom-score-adjust", "--cpu-affinity", "--environment"],
    },
    commandOptional: true,
    shellAlone: true,
    directoryOptions: ["--chdir"],
  },
  schroot: {
    options: {
      flags: "hVlibreapqv",
      valued: "cudno",
      long: ["--help", "--version", "--list", "--info", "--config", "--location", "--all", "--all-chroots", "--all-sessions", "--all-source-chroots", "--preserve-environment", "--quiet", "--verbose", "--begin-session", "--recover-session", "--run-session", "--end-session", "--automatic-session", "--force"],
      longValued: ["--chroot", "--user", "--directory", "--session-name", "--option", "--shell"],
    },
    inert: ["-l", "--list", "-i", "--info", "--config", "--location", "-b", "--begin-session", "-e", "--end-session", "--recover-session"],
    programOptions: ["--shell"],
    commandOptional: true,
    shellAlone: true,
    directoryOptions: ["-d", "--directory"],
  },
  fakechroot: { options: { flags: "shv", valued: "ldecb", long: ["--use-system-libs", "--help", "--version"], longValued: ["--lib", "--elfloader", "--environment", "--config-dir", "--bindir"] } },
  authbind: { options: { long: ["--deep"], longValued: ["--depth"] } },
  // minijail0's options are many (and its short ones take values or not as its getopt string says): its command is read after `--`.
  minijail0: { options: {}, dashDashOrUnknown: true },
  // nsjail [options] -- COMMAND: the command follows `--`.
  nsjail: { options: {}, afterDashDash: true },
  "sandbox-exec": { options: { valued: "fnpD" } },
  // moreutils: lckdo [-q] [-w] [-W SEC] LOCKFILE CMD; with-lock-ex -w|-q|-f LOCKFILE CMD.
  lckdo: { options: { flags: "qwsxe", valued: "W" }, positionals: 1 },
  "with-lock-ex": { options: { flags: "wqf" }, positionals: 1 },
  // moreutils: pee CMD… feeds its input to each command line; mispipe CMD1 CMD2 pipes one into the other (each run by sh -c).
  pee: { options: { long: ["--ignore-sigpipe", "--no-ignore-sigpipe", "--ignore-write-errors", "--no-ignore-write-errors"] }, operandScripts: true },
  mispipe: { options: {}, operandScripts: true },
  bwrap: {
    options: {
      long: ["--unshare-all", "--share-net", "--unshare-user", "--unshare-user-try", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup", "--unshare-cgroup-try", "--clearenv", "--new-session", "--die-with-parent", "--as-pid-1", "--disable-userns", "--assert-userns-disabled", "--help", "--version"],
      longValued: ["--dev", "--proc", "--tmpfs", "--dir", "--unsetenv", "--chdir", "--hostname", "--uid", "--gid", "--lock-file", "--sync-fd", "--info-fd", "--json-status-fd", "--userns", "--userns2", "--pidns", "--seccomp", "--add-seccomp-fd", "--exec-label", "--file-label", "--block-fd", "--userns-block-fd", "--cap-add", "--cap-drop", "--perms", "--size", "--remount-ro", "--mqueue", "--args", "--argv0", "--overlay-src", "--tmp-overlay", "--ro-overlay"],
      longValued2: ["--bind", "--ro-bind", "--dev-bind", "--bind-try", "--ro-bind-try", "--dev-bind-try", "--symlink", "--setenv", "--file", "--bind-data", "--ro-bind-data", "--chmod"],
    },
    directoryOptions: ["--chdir"],
    directoryFromRoot: true,
  },
  fakeroot: { options: { flags: "uhv", valued: "lsib", long: ["--unknown-is-real", "--help", "--version"], longValued: ["--lib", "--faked"] }, shellAlone: true },
  proxychains: { options: { flags: "q", valued: "f" } },
  proxychains4: { options: { flags: "q", valued: "f" } },
  torsocks: { options: { flags: "dqhi", valued: "upaP", long: ["--debug", "--quiet", "--help", "--isolate", "--version"], longValued: ["--user", "--pass", "--address", "--port"] }, commandOptional: true },
  tsocks: { options: {} },
  catchsegv: { options: {} },
  rlwrap: { options: { flags: "AcinNoIrRUvW", valued: "bCDefFgHlOPqsStwz", optional: "ap" }, scriptOptions: ["-z"], writeOptions: ["-l"] },
  valgrind: { options: { flags: "qvhd", anyLongEq: true }, writeOptions: ["--log-file", "--xml-file"] },
  cgexec: { options: { valued: "g", long: ["--sticky"] } },
  numactl: {
    options: {
      flags: "alsHuTdDtb",
      valued: "ipPmNCwoLMISf",
      long: ["--all", "--localalloc", "--show", "--hardware", "--huge", "--touch", "--dump", "--dump-nodes", "--strict", "--balancing", "--help"],
      longValued: ["--interleave", "--preferred", "--preferred-many", "--membind", "--cpunodebind", "--physcpubind", "--weighted-interleave", "--offset", "--length", "--shmmode", "--shmid", "--shm", "--file"],
    },
  },
  prlimit: {
    options: {
      optional: "cdefilmnqrstuvxy",
      valued: "po",
      long: ["--noheadings", "--raw", "--verbose", "--help", "--version"],
      longValued: ["--pid", "--output"],
      longOptional: ["--core", "--data", "--nice", "--fsize", "--sigpending", "--memlock", "--rss", "--nofile", "--msgqueue", "--rtprio", "--stack", "--cpu", "--nproc", "--as", "--locks", "--rttime"],
    },
  },
  setpriv: {
    options: {
      flags: "dhV",
      long: ["--dump", "--nnp", "--no-new-privs", "--clear-groups", "--keep-groups", "--init-groups", "--reset-env", "--help", "--version"],
      longValued: ["--inh-caps", "--ambient-caps", "--bounding-set", "--ruid", "--euid", "--rgid", "--egid", "--reuid", "--regid", "--groups", "--securebits", "--pdeathsig", "--selinux-label", "--apparmor-profile", "--landlock-access", "--landlock-rule", "--seccomp-filter"],
    },
  },
  setarch: { options: SETARCH_OPTIONS, leading: 1, commandOptional: true },
  linux32: { options: SETARCH_OPTIONS, commandOptional: true },
  linux64: { options: SETARCH_OPTIONS, commandOptional: true },
  i386: { options: SETARCH_OPTIONS, commandOptional: true },
  x86_64: { options: SETARCH_OPTIONS, commandOptional: true },
  uname26: { options: SETARCH_OPTIONS, commandOptional: true },
  "ssh-agent": { options: { flags: "cdDks", valued: "aEPtO" }, commandOptional: true },
  "dbus-run-session": { options: { long: ["--help", "--version"], longValued: ["--config-file", "--dbus-daemon"] } },
  "xvfb-run": { options: { flags: "adhl", valued: "efnpsw", long: ["--auto-servernum", "--auto-display", "--help", "--listen-tcp"], longValued: ["--error-file", "--auth-file", "--server-num", "--xauth-protocol", "--server-args", "--wait"] } },
  sshpass: { options: { flags: "ehvV", valued: "pfdP" } },
  caffeinate: { options: { flags: "dimsu", valued: "tw" }, commandOptional: true },
  "systemd-inhibit": { options: { long: ["--list", "--no-pager", "--no-legend", "--no-ask-password", "--help", "--version"], longValued: ["--what", "--who", "--why", "--mode"] } },
  // entr -s: the command is handed to $SHELL -c.
  entr: { options: { flags: "acdnprszx" }, joinedWith: ["-s"] },
  toybox: { options: {} },
  // capsh [OPTIONS] -- ARGS: runs /bin/bash with ARGS (`capsh -- -c CMD`).
  capsh: { options: { anyLongEq: true }, runBy: ["/bin/bash"], commandOptional: true },
  dtach: { options: { flags: "Ez", valued: "acAnNper" } },
  abduco: { options: { flags: "flpqr", valued: "acAne" }, commandOptional: true },
  faketime: { options: { flags: "fm", valued: "p", long: ["--exclude-monotonic", "--disable-shm"], longValued: ["--date-prog"] }, positionals: 1 },
  "dbus-launch": {
    options: { long: ["--sh-syntax", "--csh-syntax", "--auto-syntax", "--binary-syntax", "--close-stderr", "--exit-with-session", "--exit-with-x11", "--version", "--help"], longValued: ["--autolaunch", "--config-file"] },
    commandOptional: true,
  },
  uvx: UV_TOOL_RUN,
  "ld.so": {
    options: { long: ["--list", "--verify", "--inhibit-cache", "--list-tunables", "--list-diagnostics", "--help", "--version"], longValued: ["--library-path", "--inhibit-rpath", "--audit", "--preload", "--argv0", "--glibc-hwcaps-prefix"] },
    inert: ["--list", "--verify", "--list-tunables", "--list-diagnostics", "--help", "--version"],
  },
  screen: {
    options: { flags: "aAdDfilLmOqrRUvx", valued: "cehpsStTX", singleDash: ["-ls", "-list", "-wipe", "-fn", "-fa", "-ln"], singleDashValued: ["-Logfile"] },
    inert: ["-r", "-x", "-X", "-v", "-ls", "-list", "-wipe"],
    commandOptional: true,
    writeOptions: ["-Logfile"],
  },
  // Wrappers from GTFOBins' "Shell" entries: each runs the command after its options.
  cpulimit: { options: { flags: "fzikvqr", valued: "lpePm", long: ["--foreground", "--lazy", "--include-children", "--kill", "--verbose", "--quiet", "--restore", "--help"], longValued: ["--limit", "--pid", "--exe", "--path", "--cpu", "--signal"] } },
  distcc: { options: {} },
  grc: { options: { flags: "es", valued: "c", long: ["--stderr", "--stdout", "--pty", "--help", "--version"], longValued: ["--config"], longOptional: ["--colour"] } },
  openvt: { options: { flags: "efsuvwl", valued: "cC", long: ["--exec", "--force", "--switch", "--user", "--verbose", "--wait", "--login", "--help", "--version"], longValued: ["--console"] } },
  torify: { options: {} },
  softlimit: { options: { valued: "amdsloprfctL" } },
  setlock: { options: { flags: "nNxX" }, positionals: 1 },
  multitime: { options: { flags: "q", valued: "finos" } },
  logsave: { options: { flags: "asv" }, positionals: 1, positionalWrites: true },
  msgfilter: {
    options: { flags: "PjhV", valued: "iodDw", long: ["--properties-input", "--keep-header", "--indent", "--no-escape", "--escape", "--no-location", "--no-wrap", "--sort-output", "--sort-by-file", "--stringtable-input", "--stringtable-output", "--help", "--version"], longValued: ["--input", "--output-file", "--directory", "--width"], longOptional: ["--color", "--style"] },
    writeOptions: ["-o", "--output-file"],
  },
  pexec: { options: { anyLongEq: true } },
  parallel: PARALLEL,
  // sem is parallel --semaphore.
  sem: SEM,
  xargs: {
    options: {
      flags: "0oprtx",
      valued: "adEILnPs",
      optional: "eil",
      long: ["--null", "--open-tty", "--interactive", "--no-run-if-empty", "--verbose", "--exit", "--show-limits", "--help", "--version"],
      longValued: ["--arg-file", "--delimiter", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"],
      longOptional: ["--eof", "--replace"],
    },
    commandOptional: true,
    readsInput: { replace: ["-I", "-i", "--replace"], alone: ["echo"] },
    inputFiles: ["-a", "--arg-file"],
    transparent: true,
    // It sets NAME in its command's environment (`--process-slot-var=BASH_ENV`, `=LD_PRELOAD`).
    opaqueWith: ["--process-slot-var"],
  },
  // xe (an xargs-like runner): `{}` in the command is replaced by the input's words, else they are appended; -I STR another
  // replace string; -s SCRIPT runs the script by sh with them as its arguments. -a/-A (arguments from the command line) are
  // not in the table: the guard cannot tell where such a command ends.
  xe: {
    options: { flags: "0FLRnqv", valued: "INjs" },
    scriptOptions: ["-s"],
    commandOptional: true,
    readsInput: { replace: ["-I"], alone: ["printf", "%s\\n"], placeholder: "{}" },
  },
  // GTFOBins "Shell" wrappers: util-linux choom (`choom -n ADJ CMD`; `choom -p PID` shows a score), AppArmor's aa-exec, alsa-oss's aoss.
  choom: { options: { valued: "np", long: ["--help", "--version"], longValued: ["--adjust", "--pid"] }, commandOptional: true },
  "aa-exec": { options: { flags: "idvh", valued: "pn", long: ["--immediate", "--verbose", "--debug", "--help"], longValued: ["--profile", "--namespace"] } },
  aoss: { options: {} },
};

/**
 * A program whose subcommands run a command (`docker run IMAGE CMD`, `uv run CMD`). Its own options come
 * before the subcommand: a family without a `global` table knows none, so any option there makes the
 * guard unable to tell what runs (`poetry -C DIR run CMD`).
 */
interface SubcommandFamily {
  readonly global?: OptionTable;
  readonly subcommands: Readonly<Record<string, WrapperSpec>>;
  /** Subcommands that are programs of their own with their own options and subcommands (`docker compose -f F exec S CMD`). */
  readonly groups?: Readonly<Record<string, SubcommandFamily>>;
  /**
   * The word an allow pattern names to cover the family's running subcommands (`docker compose:*` names
   * compose); the command they run must be allowed too. Without it the pattern names the subcommand (`uv run:*`).
   */
  readonly namedBy?: string;
  /**
   * Global options that only pick data the subcommand works on (`kubectl -n NS`, `--context C`): an
   * allow for a subcommand that runs nothing (`kubectl get:*`) covers the line with them before it.
   */
  readonly plain?: readonly string[];
  /** Its own options whose value is the directory the subcommand's command starts in (`uv --directory DIR run CMD`), unless the subcommand names one. */
  readonly directoryOptions?: readonly string[];
}

/** Options of `docker run` / `podman run` / `docker create` (and the long spellings of exec's). */
const CONTAINER_RUN: OptionTable = {
  flags: "ditPq",
  valued: "acehlmpuvw",
  long: ["--detach", "--interactive", "--tty", "--publish-all", "--privileged", "--read-only", "--rm", "--init", "--no-healthcheck", "--oom-kill-disable", "--sig-proxy", "--quiet", "--disable-content-trust", "--help"],
  longValued: [
    "--attach", "--add-host", "--annotation", "--blkio-weight", "--blkio-weight-device", "--cap-add", "--cap-drop", "--cgroup-parent", "--cgroupns", "--cidfile", "--cpu-period", "--cpu-quota",
    "--cpu-rt-period", "--cpu-rt-runtime", "--cpu-shares", "--cpus", "--cpuset-cpus", "--cpuset-mems", "--device", "--device-cgroup-rule", "--device-read-bps", "--device-read-iops",
    "--device-write-bps", "--device-write-iops", "--dns", "--dns-option", "--dns-search", "--domainname", "--entrypoint", "--env", "--env-file", "--expose", "--gpus", "--group-add",
    "--health-cmd", "--health-interval", "--health-retries", "--health-start-period", "--health-start-interval", "--health-timeout", "--hostname", "--ip", "--ip6", "--ipc", "--isolation",
    "--kernel-memory", "--label", "--label-file", "--link", "--link-local-ip", "--log-driver", "--log-opt", "--mac-address", "--memory", "--memory-reservation", "--memory-swap",
    "--memory-swappiness", "--mount", "--name", "--network", "--net", "--network-alias", "--oom-score-adj", "--pid", "--pids-limit", "--platform", "--publish", "--pull", "--restart",
    "--runtime", "--security-opt", "--shm-size", "--stop-signal", "--stop-timeout", "--storage-opt", "--sysctl", "--tmpfs", "--ulimit", "--user", "--userns", "--uts", "--volume",
    "--volume-driver", "--volumes-from", "--workdir", "--detach-keys",
  ],
};
const CONTAINER_EXEC: OptionTable = { flags: "dit", valued: "euw", long: ["--detach", "--interactive", "--tty", "--privileged", "--help"], longValued: ["--env", "--env-file", "--user", "--workdir", "--detach-keys"] };
const CONTAINERS: Readonly<Record<string, WrapperSpec>> = {
  run: { options: CONTAINER_RUN, positionals: 1, programOptions: ["--entrypoint"], commandOptional: true },
  create: { options: CONTAINER_RUN, positionals: 1, programOptions: ["--entrypoint"], commandOptional: true },
  exec: { options: CONTAINER_EXEC, positionals: 1 },
};
/**
 * Compose (`docker compose`, `podman compose`, `docker-compose`): its own options (`-f FILE`, `-p NAME`,
 * `--profile P`) come before the subcommand; `run SERVICE CMD` and `exec SERVICE CMD` run CMD in a service's
 * container. A pattern that names compose (`docker compose:*`) covers them when CMD is allowed too.
 */
const COMPOSE: SubcommandFamily = {
  global: COMPOSE_GLOBAL,
  subcommands: {
    run: { options: { flags: "dTit", valued: "eluvpw", long: ["--detach", "--no-deps", "--rm", "--service-ports", "--use-aliases", "--build", "--no-TTY", "--interactive", "--tty", "--quiet-pull", "--remove-orphans"], longValued: ["--env", "--label", "--name", "--publish", "--user", "--volume", "--workdir", "--entrypoint", "--cap-add", "--cap-drop"] }, positionals: 1, programOptions: ["--entrypoint"], commandOptional: true },
    exec: { options: { flags: "dT", valued: "euw", long: ["--detach", "--no-TTY", "--privileged", "--interactive", "--tty"], longValued: ["--env", "--index", "--user", "--workdir"] }, positionals: 1 },
  },
  namedBy: "compose",
};
/** A subcommand that runs the command after it (`poetry run CMD`, `pyenv exec CMD`), with no options of its own. */
const PROJECT_RUN: WrapperSpec = { options: {} };
const CODEX_SANDBOX: WrapperSpec = { options: { valued: "c", long: ["--full-auto", "--log-denials"], longValued: ["--config"] } };
/** A subcommand that runs only the command after `--` (`kubectl exec POD -- CMD`, `op run -- CMD`). */
const AFTER_DASHDASH: WrapperSpec = { options: {}, afterDashDash: true };
/** `apptainer exec [OPTIONS] IMAGE CMD` (and singularity's). */
const APPTAINER_RUN: WrapperSpec = {
  options: {
    flags: "ecCwupi",
    valued: "BHoSW",
    long: ["--cleanenv", "--contain", "--containall", "--writable", "--writable-tmpfs", "--userns", "--pid", "--ipc", "--uts", "--nv", "--rocm", "--no-home", "--no-init", "--no-privs", "--keep-privs", "--fakeroot", "--compat", "--no-https", "--no-umask", "--no-eval", "--quiet", "--debug", "--silent", "--verbose"],
    longValued: ["--bind", "--env", "--env-file", "--home", "--overlay", "--pwd", "--workdir", "--app", "--security", "--network", "--network-args", "--scratch", "--mount", "--hostname", "--no-mount", "--add-caps", "--drop-caps", "--apply-cgroups", "--dns", "--shell"],
  },
  positionals: 1,
  commandOptional: true,
};
const KUBECTL: SubcommandFamily = {
  global: KUBECTL_GLOBAL,
  subcommands: { exec: AFTER_DASHDASH, run: AFTER_DASHDASH, debug: AFTER_DASHDASH, attach: AFTER_DASHDASH },
  // A namespace or a context of the kubeconfig in use; not --kubeconfig (a file whose users may run credential programs), --server, --user, --token.
  plain: ["-n", "--namespace", "--context"],
};

/**
 * Programs whose subcommand runs the command that follows (`docker run IMAGE CMD`, `kubectl exec POD -- CMD`,
 * `uv run CMD`, `perf stat CMD`): the program's own options first, then the subcommand (one word or two),
 * then the subcommand's options as a wrapper reads them.
 */
const SUBCOMMAND_WRAPPERS: Readonly<Record<string, SubcommandFamily>> = {
  docker: { global: DOCKER_GLOBAL, subcommands: { ...CONTAINERS, "container run": CONTAINERS.run!, "container exec": CONTAINERS.exec!, "container create": CONTAINERS.create! }, groups: { compose: COMPOSE } },
  // podman unshare CMD runs CMD in podman's user namespace (buildah's likewise).
  podman: { global: DOCKER_GLOBAL, subcommands: { ...CONTAINERS, unshare: { options: {}, commandOptional: true } }, groups: { compose: COMPOSE } },
  buildah: { subcommands: { unshare: { options: { valued: "m", longValued: ["--mount"] }, commandOptional: true } } },
  // Software Collections: `scl enable COLLECTION 'CMD'` (the command words joined and run by a shell).
  scl: { subcommands: { enable: { options: {}, positionals: 1, joined: true }, run: { options: {}, positionals: 1, joined: true } } },
  nerdctl: { global: DOCKER_GLOBAL, subcommands: CONTAINERS, groups: { compose: COMPOSE } },
  "docker-compose": { ...COMPOSE, namedBy: "docker-compose" },
  "podman-compose": { ...COMPOSE, namedBy: "podman-compose" },
  kubectl: KUBECTL,
  oc: KUBECTL,
  lxc: { subcommands: { exec: AFTER_DASHDASH } },
  uv: {
    global: { flags: "qv", long: ["--quiet", "--verbose", "--no-cache", "--offline", "--native-tls"], longValued: ["--directory", "--project", "--cache-dir", "--color", "--config-file"] },
    directoryOptions: ["--directory"],
    subcommands: {
      run: {
        options: {
          flags: "qv",
          valued: "p",
          long: ["--no-project", "--isolated", "--frozen", "--locked", "--no-sync", "--all-extras", "--no-dev", "--active", "--quiet", "--verbose", "--no-cache", "--offline", "--exact", "--script", "--gui-script", "--all-packages", "--no-default-groups", "--only-dev"],
          longValued: ["--with", "--with-editable", "--with-requirements", "--python", "--project", "--directory", "--env-file", "--extra", "--group", "--package", "--index", "--default-index", "--index-url", "--extra-index-url"],
        },
        // `uv run --directory DIR CMD` (a global option of uv's, also given before run) changes to DIR before it runs CMD.
        directoryOptions: ["--directory"],
      },
      "tool run": UV_TOOL_RUN,
    },
  },
  poetry: { subcommands: { run: PROJECT_RUN } },
  // Version managers, secret injectors and environment managers: `TOOL exec|run [--] CMD`.
  pyenv: { subcommands: { exec: PROJECT_RUN } },
  rbenv: { subcommands: { exec: PROJECT_RUN } },
  nodenv: { subcommands: { exec: PROJECT_RUN } },
  jenv: { subcommands: { exec: PROJECT_RUN } },
  goenv: { subcommands: { exec: PROJECT_RUN } },
  volta: { subcommands: { run: { options: { long: ["--bundled-npm", "--no-yarn", "--verbose", "--quiet"], longValued: ["--node", "--npm", "--pnpm", "--yarn", "--env"] } } } },
  fnm: { subcommands: { exec: { options: { long: ["--using-file"], longValued: ["--using"] }, afterDashDash: true } } },
  stack: { subcommands: { exec: AFTER_DASHDASH } },
  devbox: { subcommands: { run: PROJECT_RUN } },
  pixi: { subcommands: { run: PROJECT_RUN, exec: { options: { longValued: ["--spec", "--channel"] } } } },
  // conda, mamba and micromamba run CMD in the directory `--cwd DIR` names.
  micromamba: { subcommands: { run: { options: { valued: "np", longValued: ["--name", "--prefix", "--cwd"] }, directoryOptions: ["--cwd"] } } },
  tox: { subcommands: { exec: AFTER_DASHDASH } },
  op: { subcommands: { run: AFTER_DASHDASH } },
  doppler: { subcommands: { run: AFTER_DASHDASH } },
  infisical: { subcommands: { run: AFTER_DASHDASH } },
  chamber: { subcommands: { exec: AFTER_DASHDASH } },
  "aws-vault": { subcommands: { exec: AFTER_DASHDASH } },
  distrobox: { subcommands: { enter: AFTER_DASHDASH } },
  incus: { subcommands: { exec: AFTER_DASHDASH } },
  multipass: { subcommands: { exec: AFTER_DASHDASH } },
  toolbox: { subcommands: { run: { options: { valued: "cdr", longValued: ["--container", "--distro", "--release"] } } } },
  limactl: { subcommands: { shell: { options: { longValued: ["--workdir", "--shell"] }, positionals: 1 } } },
  machinectl: { subcommands: { shell: { options: { valued: "E", longValued: ["--setenv", "--uid"] }, positionals: 1, commandOptional: true, shellAlone: true } } },
  // Apptainer (and Singularity, its former name): `exec IMAGE CMD` runs CMD in the container, `shell IMAGE` a shell reading its input.
  apptainer: { subcommands: { exec: APPTAINER_RUN, shell: { ...APPTAINER_RUN, shellAlone: true } } },
  singularity: { subcommands: { exec: APPTAINER_RUN, shell: { ...APPTAINER_RUN, shellAlone: true } } },
  pipenv: { subcommands: { run: PROJECT_RUN } },
  pdm: { subcommands: { run: { options: { flags: "ls", long: ["--list", "--site-packages", "--json"] } } } },
  hatch: { subcommands: { run: PROJECT_RUN } },
  rye: { subcommands: { run: PROJECT_RUN } },
  bundle: { subcommands: { exec: { options: { long: ["--keep-file-descriptors"], longValued: ["--gemfile"] } } } },
  conda: { subcommands: { run: { options: { valued: "np", long: ["--no-capture-output", "--live-stream", "--debug-wrapper-scripts"], longValued: ["--name", "--prefix", "--cwd"] }, directoryOptions: ["--cwd"] } } },
  mamba: { subcommands: { run: { options: { valued: "np", long: ["--no-capture-output", "--live-stream"], longValued: ["--name", "--prefix", "--cwd"] }, directoryOptions: ["--cwd"] } } },
  mise: { subcommands: { exec: AFTER_DASHDASH, x: AFTER_DASHDASH } },
  asdf: { subcommands: { exec: PROJECT_RUN } },
  // nvm (a shell function agents' shells load): `nvm exec [--silent] [VERSION] CMD` runs CMD with that node; a version is digits, `vN`, `node`, `stable`, `system`, `iojs`, `lts/NAME`.
  nvm: { subcommands: { exec: { options: { long: ["--silent", "--lts"] }, optionalPositional: /^(?:v?\d+(?:\.\d+){0,2}|node|stable|unstable|system|iojs(?:-v?\d[\d.]*)?|lts\/[\w*-]+)$/ } } },
  direnv: { subcommands: { exec: { options: {}, positionals: 1 } } },
  perf: {
    subcommands: {
      stat: { options: { flags: "aAdnSvB", valued: "eGIoprtxC", longValued: ["--event", "--output", "--pid", "--repeat", "--tid", "--cpu"] }, writeOptions: ["-o", "--output"] },
      record: { options: { flags: "agqvN", valued: "eFocptCm", longValued: ["--event", "--freq", "--output", "--count", "--pid", "--tid", "--cpu", "--mmap-pages"], longOptional: ["--call-graph"] }, writeOptions: ["-o", "--output"] },
      trace: { options: { flags: "afvsS", valued: "eopt", longValued: ["--event", "--output", "--pid", "--tid"] }, writeOptions: ["-o", "--output"] },
    },
  },
  bun: { subcommands: { x: { options: { long: ["--bun"], longValued: ["--package"] } } } },
  cabal: { subcommands: { exec: { options: { flags: "v", longOptional: ["--verbose"], longValued: ["--project-file", "--builddir"] } }, "v2-exec": { options: { flags: "v" } } } },
  // nix run INSTALLABLE [-- ARGS] runs the installable's program (nix develop -c, nix shell -c: OPTION_EFFECTS); pipx run PACKAGE ARGS runs the package's app.
  nix: {
    subcommands: {
      run: {
        options: {
          flags: "Lv",
          valued: "fI",
          long: ["--impure", "--no-write-lock-file", "--refresh", "--offline", "--print-build-logs", "--recreate-lock-file", "--no-update-lock-file", "--commit-lock-file", "--verbose", "--quiet", "--debug"],
          longValued: ["--expr", "--file", "--include", "--inputs-from", "--update-input", "--extra-experimental-features", "--store", "--eval-store", "--max-jobs", "--cores"],
          longValued2: ["--arg", "--argstr", "--override-input", "--option"],
        },
      },
    },
  },
  pipx: {
    global: { flags: "vq", long: ["--verbose", "--quiet"] },
    subcommands: { run: { options: { flags: "vq", long: ["--no-cache", "--pypackages", "--system-site-packages", "--path", "--verbose", "--quiet"], longValued: ["--spec", "--python", "--index-url", "--pip-args", "--backend"] } } },
  },
  // rustup run TOOLCHAIN CMD runs CMD with the toolchain's directories on PATH.
  rustup: { global: { flags: "vqh", long: ["--verbose", "--quiet", "--help", "--version"] }, subcommands: { run: { options: { long: ["--install"] }, positionals: 1 } } },
  // OpenAI's codex runs the command after `sandbox linux|macos|windows` (older: `debug landlock|seatbelt`) inside its sandbox.
  codex: { subcommands: Object.fromEntries(["sandbox linux", "sandbox macos", "sandbox windows", "sandbox landlock", "sandbox seatbelt", "debug landlock", "debug seatbelt"].map((key) => [key, CODEX_SANDBOX])) },
  // ip netns exec NAME CMD; ip's own options (`-n NAME`, `-force`, `-batch FILE`) come first, and one the table does not know makes it unreadable.
  ip: { global: { flags: "46sdjpohcatr0N", valued: "nbfl" }, subcommands: { "netns exec": { options: {}, positionals: 1 }, "vrf exec": { options: {}, positionals: 1 } } },
};

/** screen commands that run nothing (sent with -X to a running session). */
const SCREEN_INERT = new Set(["quit", "detach", "info", "windows", "select", "title", "hardcopy", "kill", "next", "prev", "other", "lastmsg", "version", "time", "wipe", "redisplay", "clear", "number", "focus", "only", "remove", "split", "resize", "colon"]);

/** `screen -X CMD ARGS` sends a screen command to a running session (`stuff TEXT` types TEXT, `exec`/`screen` run a program); `-c FILE` reads screen commands from a file. */
function readScreenCommands(table: OptionTable, words: readonly string[]): ProgramReading {
  const out = empty();
  // -r, -x, -d and -R take the session's name as an optional next word, so options may follow it (`screen -r main -X stuff TEXT`).
  const at = words.findIndex((word, i) => i > 0 && /^-[A-Za-z]*X$/.test(word));
  const options = at < 0 ? words : words.slice(0, at);
  if (options.some((word, i) => i > 0 && /^-[A-Za-z]*c$/.test(word) && !(table.singleDash ?? []).includes(word))) out.refusals.push({ reason: "screen runs the commands in the file given with -c", token: "-c" });
  if (at < 0) return out;
  const command = words[at + 1];
  if (command === undefined) return out;
  const args = words.slice(at + 2);
  out.refusals.push({ reason: `screen -X sends the command ${command} to a running session`, token: "-X" });
  if (command === "stuff") {
    // The text is typed into the window's shell; screen reads \n, \r, ^M, ^J and octal escapes in it.
    const text = args
      .join(" ")
      .replace(/\\([0-7]{1,3})/g, (_m, octal: string) => String.fromCharCode(parseInt(octal, 8)))
      .replace(/\\[nr]|\^[MJ]|\r/g, "\n")
      .replace(/\\(.)/g, "$1");
    out.scripts.push(text);
  } else if (command === "exec") {
    const rest = /^[.!|:]+$/.test(args[0] ?? "") ? args.slice(1) : args;
    if (rest.length > 0) out.commands.push(rest);
  } else if (command === "screen") {
    let i = 0;
    while (i < args.length && args[i]!.startsWith("-")) i += /^-[tThs]$/.test(args[i]!) ? 2 : 1;
    if (i < args.length) out.commands.push(args.slice(i));
  } else if (!SCREEN_INERT.has(command)) out.unknown = `screen -X ${command} runs a screen command the guard cannot read`;
  return out;
}

/** Programs known by other names (the dynamic loader: `ld-linux-x86-64.so.2 /bin/rm x` runs rm). */
const PROGRAM_ALIASES: readonly { readonly name: RegExp; readonly as: string }[] = [
  { name: /^ld(?:-linux[\w.-]*|64)?\.so(?:\.\d+)*$/, as: "ld.so" },
  // qemu's user-mode emulators, one per architecture (`qemu-x86_64`, `qemu-aarch64-static`); not qemu-system-*, qemu-img and its other tools.
  { name: /^qemu-(?!system|img|io|nbd|storage|pr-helper|ga|edid|keymap|make)[a-z0-9_]+(?:-static)?$/, as: "qemu-user" },
  // PowerShell by its Windows names (`pwsh.exe`, `powershell.exe`, in any case: Windows does not tell case apart).
  { name: /^pwsh(?:\.exe)?$/i, as: "pwsh" },
  { name: /^powershell(?:\.exe)?$/i, as: "powershell" },
];

/** A SUBCOMMAND_WRAPPERS program: the subcommand's reading, or undefined when the subcommand runs nothing. */
function readSubcommandWrapper(name: string, family: SubcommandFamily, words: readonly string[]): ProgramReading | undefined {
  const parsed = parseOptions(words, 1, family.global ?? {}, name);
  if (parsed.unknown !== undefined) {
    // An option the table does not know before a subcommand that runs a command: cannot tell what runs.
    const runs = (word: string) => Object.hasOwn(family.groups ?? {}, word) || Object.keys(family.subcommands).some((key) => key.split(" ")[0] === word);
    const sub = words.slice(1).find(runs);
    if (sub === undefined) return undefined;
    const out = empty();
    out.refusals.push({ reason: `${name} ${sub} runs the command it is given`, token: family.namedBy ?? sub });
    out.unknown = parsed.unknown;
    return out;
  }
  const at = parsed.next;
  const group = family.groups !== undefined && Object.hasOwn(family.groups, words[at] ?? "") ? family.groups[words[at]!] : undefined;
  if (group !== undefined) return readSubcommandWrapper(`${name} ${words[at]!}`, group, words.slice(at));
  const two = `${words[at] ?? ""} ${words[at + 1] ?? ""}`;
  const key = Object.hasOwn(family.subcommands, two) ? two : Object.hasOwn(family.subcommands, words[at] ?? "") ? words[at]! : undefined;
  if (key === undefined) return undefined;
  const out = readWrapper(`${name} ${key}`, family.subcommands[key]!, words.slice(at + key.split(" ").length - 1), family.namedBy ?? key.split(" ").at(-1)!);
  const chosen = parsed.seen.findLast((option) => family.directoryOptions?.includes(option.name) === true);
  if (chosen !== undefined && out.directory === undefined) out.directory = { word: chosen.value };
  return out;
}

/**
 * A subcommand that runs nothing after the family's global options (`kubectl -n prod delete pod x`):
 * a deny is also tried against the line without them (`kubectl delete pod x`), and an allow too when
 * every one of them is plain (SubcommandFamily.plain: `kubectl -n prod get pods` as `kubectl get pods`).
 */
function subcommandWithoutGlobals(name: string, family: SubcommandFamily, words: readonly string[], out: ProgramReading): void {
  if (family.plain === undefined) return;
  const plain = family.plain;
  const parsed = parseOptions(words, 1, family.global ?? {}, name);
  const at = parsed.next;
  if (parsed.unknown !== undefined || parsed.dashdash === true || at <= 1 || at >= words.length) return;
  const without = [words[0]!, ...words.slice(at)];
  out.forms.push(without);
  if (parsed.seen.every((option) => plain.includes(option.name))) out.allowAs = { words: without, places: [], waives: [] };
}

/** Shells: `-c STRING` is a script; with no -c and no file they read one from standard input. */
export const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "fish", "rbash", "yash", "posh", "csh", "tcsh", "ksh93", "lksh", "oksh", "loksh", "rc", "es", "elvish"]);

/** Programs that hand the text on their standard input to a shell later (`at now <<< CMD`, `batch`), unless given a file with -f. */
const STDIN_JOB_RUNNERS = new Set(["at", "batch"]);

/** Whether `name` runs the text on its standard input as a shell script (a shell, or at/batch). */
export function runsStdinAsShell(name: string): boolean {
  return SHELLS.has(name) || STDIN_JOB_RUNNERS.has(name);
}

/** Code fed to an interpreter on its standard input (`python3 <<< 'os.system("rm x")'`): the texts a deny tries as commands, and why it cannot tell. */
export function stdinCodeReading(name: string, code: string): { guesses: string[]; unknown: string | undefined; placesUnknown: string | undefined } {
  // PowerShell, Nushell and xonsh run a program named at the start of a statement: the code is tried as a command line too (as with -c).
  const guesses = [...(COMMAND_LANGUAGES.has(name) ? [code] : []), ...codeGuesses(code)];
  const doubt = codeDoubt(code);
  // PowerShell's own names of commands (`Remove-Item`, `gc`, `iwr`), read as the POSIX commands they are.
  const powershell = name === "pwsh" || name === "powershell" ? readPowerShell(code) : undefined;
  if (powershell !== undefined && powershell.script !== "") guesses.push(powershell.script);
  return {
    guesses,
    unknown: doubt === undefined ? (powershell?.unknown === undefined ? undefined : `${name} runs code from its standard input the guard cannot read: ${powershell.unknown}`) : `${name} runs code from its standard input that ${doubt}, which the guard cannot read`,
    placesUnknown: NET_CALLS.test(code) ? `${name} runs code from its standard input that connects to the network, where the guard cannot read` : undefined,
  };
}

/** Interpreters whose code option runs a program text the guard cannot read. */
const INTERPRETERS: Readonly<Record<string, readonly string[]>> = {
  python: ["-c"],
  python2: ["-c"],
  python3: ["-c"],
  pypy: ["-c"],
  pypy3: ["-c"],
  perl: ["-e", "-E"],
  ruby: ["-e"],
  node: ["-e", "--eval", "-p", "--print"],
  nodejs: ["-e", "--eval", "-p", "--print"],
  deno: ["eval"],
  bun: ["-e", "--eval", "-p", "--print"],
  php: ["-r"],
  lua: ["-e"],
  Rscript: ["-e"],
  osascript: ["-e"],
  expect: ["-c"],
  tclsh: [],
  wish: [],
  jshell: [],
  irb: [],
  pwsh: ["-c", "-Command", "-EncodedCommand"],
  powershell: ["-c", "-Command", "-EncodedCommand"],
  // Nushell and xonsh: shells of their own language, whose statements run programs by name as sh's do.
  nu: ["-c", "--commands"],
  xonsh: ["-c"],
  // GTFOBins "Shell" entries: Java's script runners, Haskell, R, Julia, Octave, Guile, S-Lang, bpftrace, Ruby's rake, Chef's knife (Perl's latexmk: OPTION_EFFECTS).
  jrunscript: ["-e"],
  jjs: [],
  ghc: ["-e"],
  ghci: [],
  R: ["-e"],
  julia: ["-e", "-E", "--eval", "--print"],
  octave: ["--eval"],
  "octave-cli": ["--eval"],
  guile: ["-c"],
  slsh: ["-e"],
  bpftrace: ["-e"],
  rake: ["-e", "-p", "-E", "--execute", "--execute-print", "--execute-continue"],
  knife: ["-E", "--exec"],
  // More languages' one-line code options (GTFOBins gnuplot; Lisp, Racket, Erlang, Elixir, Prolog, Groovy, Scala, Raku, TypeScript runners).
  gnuplot: ["-e"],
  sbcl: ["--eval"],
  clisp: ["-x"],
  racket: ["-e"],
  erl: ["-eval"],
  elixir: ["-e", "--eval"],
  swipl: ["-g"],
  groovy: ["-e"],
  scala: ["-e"],
  raku: ["-e"],
  perl6: ["-e"],
  "ts-node": ["-e", "--eval", "-p", "--print"],
  tsx: ["-e", "--eval", "-p", "--print"],
};

/** Interpreters whose statements are command lines: a word at a statement's start names a program they run (PowerShell, Nushell, xonsh). */
const COMMAND_LANGUAGES = new Set(["pwsh", "powershell", "nu", "xonsh"]);

/** PowerShell's parameters, in any case and by a unique prefix: `-Command` (`-c`, `-com`) and `-EncodedCommand` (`-e`, `-ec`, `-enc`). */
function powershellCode(name: string, word: string): "command" | "encoded" | undefined {
  if (name !== "pwsh" && name !== "powershell") return undefined;
  const lower = word.toLowerCase();
  if (lower.length >= 2 && "-command".startsWith(lower)) return "command";
  if (lower === "-ec" || (lower.length >= 2 && "-encodedcommand".startsWith(lower))) return "encoded";
  return undefined;
}

/** `code` read as PowerShell (powershell.ts): the POSIX commands it runs are scripts of `out`, and what cannot be read leaves it unknown. */
function withPowerShell(out: ProgramReading, code: string, by: string): void {
  const reading = readPowerShell(code);
  if (reading.script !== "") out.scripts.push(reading.script);
  if (reading.unknown !== undefined) out.unknown ??= `${by} runs code the guard cannot read: ${reading.unknown}`;
}

/** Interpreters whose single-dash words are options of their own, not clusters of letters: `ghc -Werror`, `jrunscript -encoding`, `pwsh -NonInteractive` hold no -e or -c. */
const WORD_OPTIONS = new Set(["ghc", "jrunscript", "pwsh", "powershell", "gnuplot", "scala", "erl"]);

/**
 * Interpreters whose own options end at their first operand, the script they run: every word after it is
 * the script's (`node cli.js -r x` hands `-r x` to cli.js; `python3 -m pytest -c x` to pytest). `long`: its long
 * options that take the next word as their value (another long option is a flag, or takes its value after `=`:
 * node hands those to V8, which takes none in the next word); `short`: its short options that take a value (the
 * next word, or `attached` to the letter too), `flags` its short options without; `combined`: other words it
 * reads as options (node's `-pe`); `ends`: options after whose value the rest are the program's arguments
 * (python -c CODE, -m MODULE). A word it does not know before the script: the words are read whole.
 */
interface OwnOptions {
  readonly long: readonly string[];
  readonly short: string;
  readonly flags: string;
  readonly attached?: boolean;
  readonly combined?: readonly string[];
  readonly ends?: string;
  /** Another long option is an error or may take the next word: the words are read whole. */
  readonly strictLong?: boolean;
}

/** Node.js 20's options that take a value (`node --help`: `--name=...`, `-r, --require=...`, `-p, --print [...]`; the Node.js CLI docs). */
const NODE_OPTIONS: OwnOptions = {
  long: [
    "--allow-fs-read", "--allow-fs-write", "--build-snapshot-config", "--conditions", "--cpu-prof-dir", "--cpu-prof-interval", "--cpu-prof-name", "--diagnostic-dir", "--disable-proto", "--disable-warning",
    "--dns-result-order", "--env-file", "--env-file-if-exists", "--eval", "--experimental-default-type", "--experimental-policy", "--experimental-sea-config", "--heap-prof-dir", "--heap-prof-interval",
    "--heap-prof-name", "--heapsnapshot-near-heap-limit", "--heapsnapshot-signal", "--icu-data-dir", "--import", "--input-type", "--inspect-publish-uid", "--max-http-header-size",
    "--network-family-autoselection-attempt-timeout", "--openssl-config", "--policy-integrity", "--redirect-warnings", "--report-filename", "--report-signal", "--report-directory", "--report-dir", "--require",
    "--secure-heap", "--secure-heap-min", "--snapshot-blob", "--test-concurrency", "--test-name-pattern", "--test-skip-pattern", "--test-reporter", "--test-reporter-destination", "--test-shard", "--test-timeout",
    "--title", "--tls-cipher-list", "--tls-keylog", "--trace-event-categories", "--trace-event-file-pattern", "--trace-require-module", "--unhandled-rejections", "--use-largepages", "--v8-pool-size",
    "--watch-path", "--loader", "--experimental-loader", "--print", "--inspect-port", "--debug-port", "--experimental-specifier-resolution", "--es-module-specifier-resolution",
  ],
  short: "repC",
  flags: "chiv",
  combined: ["-pe"],
};

/** CPython's options (`python3 --help`): -c CODE and -m MODULE end them, -W and -X take a value, attached or in the next word. */
const PYTHON_OPTIONS: OwnOptions = { long: ["--check-hash-based-pycs"], short: "cmWX", flags: "bBdEhiIOPqsSuvVx?", attached: true, ends: "cm", strictLong: true };

/** The interpreters read with OwnOptions. */
const OWN_OPTIONS: Readonly<Record<string, OwnOptions>> = { node: NODE_OPTIONS, nodejs: NODE_OPTIONS, python: PYTHON_OPTIONS, python2: PYTHON_OPTIONS, python3: PYTHON_OPTIONS, pypy: PYTHON_OPTIONS, pypy3: PYTHON_OPTIONS };

/** The command `python -m MODULE ARGS` runs as (`MODULE ARGS`), or undefined when the words run no module. */
function pythonModule(name: string, words: readonly string[]): string[] | undefined {
  if (OWN_OPTIONS[name] !== PYTHON_OPTIONS && !/^python\d/.test(name)) return undefined;
  const own = ownWords(name, words);
  if (own.length === words.length && own.length < 2) return undefined;
  const last = own[own.length - 1] ?? "";
  const module = own[own.length - 2] === "-m" && own.length >= 3 ? last : /^-[bBdEhiIOPqsSuvVx?]*m(.+)$/.exec(last)?.[1];
  if (module === undefined || !/^[A-Za-z_][\w.-]*$/.test(module)) return undefined;
  return [module, ...words.slice(own.length)];
}

/** The words of an OWN_OPTIONS program that are its own: up to its script (included), or all of them. */
function ownWords(name: string, words: readonly string[]): readonly string[] {
  const spec = OWN_OPTIONS[name] ?? (/^python\d/.test(name) ? PYTHON_OPTIONS : undefined);
  if (spec === undefined) return words;
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    if (word === "--") return words.slice(0, i + 2);
    if (word === "-" || !word.startsWith("-")) return words.slice(0, i + 1);
    if (word.startsWith("--")) {
      const eq = word.indexOf("=");
      const long = eq < 0 ? word : word.slice(0, eq);
      if (spec.strictLong === true && !spec.long.includes(long) && !/^--(?:help|version)$/.test(long)) return words;
      if (eq < 0 && spec.long.includes(long)) i += 1;
      continue;
    }
    if (spec.combined?.includes(word) === true) {
      i += 1;
      continue;
    }
    // Short options: flags, then one that takes a value (attached where the program allows it, else the next word).
    let at = 1;
    while (at < word.length && spec.flags.includes(word[at]!)) at += 1;
    if (at === word.length) continue;
    const letter = word[at]!;
    if (!spec.short.includes(letter) || (at + 1 < word.length && spec.attached !== true)) return words;
    if (at + 1 === word.length) i += 1;
    if (spec.ends?.includes(letter) === true) return words.slice(0, i + 1);
  }
  return words;
}

/** Calls that start a process in the interpreters' languages (Python, Perl, Ruby, Node, PHP, Lua, Tcl, PowerShell, AppleScript). */
const PROCESS_CALLS = /\b(?:system|exec\w*|popen\w*|spawn\w*|posix_spawn\w*|create_subprocess_\w+|Command|Deno\.run|fork|subprocess|Popen|check_output|check_call|shell_exec|passthru|proc_open|pcntl_exec|child_process|Runtime|ProcessBuilder|Start-Process|Invoke-Expression|iex|do shell script|shell-command|call-process|start-process|make-process|os\.execute|io\.popen|open3|IO\.popen|Kernel|qx|pty|callCommand|callProcess|readProcess|rawSystem|createProcess|spawnCommand|runCommand|runProcess)\b|`|\bopen\s*\(\s*["']\|/;

/**
 * Code that opens network connections (Python's urllib, requests, httpx, socket; JavaScript's fetch,
 * http, net, WebSocket; Perl's LWP, HTTP::Tiny, IO::Socket; Ruby's open-uri, Net::HTTP, TCPSocket;
 * PHP's file_get_contents of a URL, curl_*, fsockopen; PowerShell's Invoke-WebRequest), or holds a
 * URL: where it connects is built when it runs, so the guard cannot read its places.
 */
const NET_CALLS = /:\/\/|\b(?:urllib\d?|urlopen|urlretrieve|requests|httpx|http\.client|httplib\d?|aiohttp|socket|ftplib|smtplib|poplib|imaplib|telnetlib|xmlrpc|websockets?|pycurl|fetch|XMLHttpRequest|WebSocket|EventSource|axios|undici|https?|http2|net|tls|dgram|LWP|HTTP::Tiny|IO::Socket|Socket|Net::\w+|Mojo::UserAgent|open-uri|URI\.open|TCPSocket|UDPSocket|Faraday|HTTParty|file_get_contents|fsockopen|stream_socket_client|curl_\w+|Invoke-WebRequest|Invoke-RestMethod|iwr|irm|WebClient|HttpClient|Deno\.connect|Bun\.connect)\b/;

/**
 * Code that reaches a function by a name it builds when it runs (Python's `getattr(os, "sys"+"tem")`,
 * `__import__`, `importlib`, `eval`; JavaScript's `globalThis[…]`, `Function(…)`, `process[…]`, a
 * `require`/`import` of a computed name; Ruby's `send`, `const_get`; PHP's `$f(…)`, `call_user_func`;
 * Perl's `&{"…"}`; foreign function interfaces): the process calls it makes cannot be read from its text.
 */
const CODE_INDIRECTION = /\b(?:getattr|__import__|importlib|__builtins__|__dict__|__globals__|__subclasses__|globals|eval|Function|globalThis|Reflect|constructor|dlopen|ctypes|cffi|Fiddle|FFI|const_get|public_send|send|instance_eval|class_eval|call_user_func\w*|create_function|loadstring|dofile)\b|\bprocess\s*\[|\brequire\s*\(\s*[^"'`\s)]|\bimport\s*\(\s*[^"'`\s)]|&\{|\*\{|\$\w+\s*\(/;

/** Why a deny cannot tell what `code` runs (it starts processes, or reaches functions by names it builds), or undefined. */
function codeDoubt(code: string): "starts processes" | "reaches functions by names it builds when it runs" | undefined {
  if (PROCESS_CALLS.test(code)) return "starts processes";
  return CODE_INDIRECTION.test(code) ? "reaches functions by names it builds when it runs" : undefined;
}

/** Programs that read a program text from standard input (a here-document fed to them is code). */
const STDIN_INTERPRETERS = new Set([...Object.keys(INTERPRETERS), ...SHELLS]);

/** Git's global options (before the subcommand). */
const GIT_GLOBAL: OptionTable = {
  flags: "pPvh",
  valued: "Cc",
  long: ["--paginate", "--no-pager", "--bare", "--no-replace-objects", "--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--no-optional-locks", "--no-lazy-fetch", "--no-advice", "--version", "--help", "--html-path", "--man-path", "--info-path"],
  longValued: ["--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix", "--list-cmds", "--attr-source"],
  longOptional: ["--exec-path"],
};

/**
 * `git clean`'s options (git-clean(1)): git's parse-options takes a unique abbreviation of a long option (`--dry` is
 * --dry-run), `--no-` before a boolean one, and options among the pathspecs up to `--`.
 */
const GIT_CLEAN: OptionTable = {
  flags: "dfinqxX",
  valued: "e",
  long: ["--force", "--no-force", "--interactive", "--no-interactive", "--dry-run", "--no-dry-run", "--quiet", "--no-quiet"],
  longValued: ["--exclude"],
};

/** Git global options that make git read configuration (hooks, core.* commands, aliases) from elsewhere or run programs. */
const GIT_RISKY_GLOBALS: Readonly<Record<string, string>> = {
  "-c": "git sets configuration with -c (aliases and core.* settings run commands)",
  "--config-env": "git sets configuration with --config-env (aliases and core.* settings run commands)",
  "--exec-path": "git runs its subcommands from the directory given with --exec-path",
  "-C": "git reads the repository (its hooks and configuration, which can run commands) from the directory given with -C",
  "--git-dir": "git reads the repository (its hooks and configuration, which can run commands) given with --git-dir",
  "--work-tree": "git works on the tree given with --work-tree",
};

/**
 * Git global options an allow for the subcommand (`git log:*`) looks past: `--no-pager`, `-P` and
 * `--no-optional-locks` change nothing git runs; `-C`, `--git-dir` and `--work-tree` pick the
 * repository, whose configuration can name commands, as `cd DIR && git ...` would, so they are
 * covered only where the allow rules cover `cd DIR`. Not `-p`/`--paginate` (starts the pager),
 * `--namespace` (changes which refs are read and written), `--bare`, `-c`, `--config-env`, `--exec-path`.
 */
const GIT_PLAIN_GLOBALS: Readonly<Record<string, "none" | "place">> = {
  "--no-pager": "none",
  "-P": "none",
  "--no-optional-locks": "none",
  "-C": "place",
  "--git-dir": "place",
  "--work-tree": "place",
};

/**
 * Configuration keys whose value git runs, or that change what git runs: `script` values are
 * command lines git hands to a shell; `bang` values are when they start with `!` (aliases,
 * credential helpers, submodule update); `file` values name a file git reads more settings from
 * (`include.path`, `includeIf.COND.path`), which the guard does not read; `url` values are a
 * remote's URL (an `ext::CMD` URL runs CMD); `other` keys make git run something the value does not
 * spell out (a hooks directory, a template, a transport).
 */
const GIT_CONFIG_COMMANDS: readonly { readonly key: RegExp; readonly value: "script" | "bang" | "file" | "url" | "other" }[] = [
  { key: /^(?:alias\..+|credential\.(?:.+\.)?helper|submodule\..+\.update)$/i, value: "bang" },
  {
    key: /^(?:core\.(?:sshcommand|pager|editor|askpass|gitproxy|fsmonitor|alternaterefscommand)|diff\.external|diff\..+\.(?:textconv|command)|merge\..+\.driver|filter\..+\.(?:clean|smudge|process)|gpg\.(?:.+\.)?program|gpg\.ssh\.defaultkeycommand|pager\..+|sequence\.editor|uploadpack\.packobjectshook|remote\..+\.(?:uploadpack|receivepack)|(?:difftool|mergetool|man|browser)\..+\.cmd|trailer\..+\.(?:command|cmd)|sendemail\.(?:.+\.)?(?:sendmailcmd|tocmd|cccmd)|imap\.tunnel)$/i,
    value: "script",
  },
  { key: /^(?:include\.path|includeif\..+\.path)$/i, value: "file" },
  { key: /^remote\..+\.(?:url|pushurl)$/i, value: "url" },
  {
    key: /^(?:core\.(?:hookspath|worktree|attributesfile)|includeif\..+|ssh\.variant|http\.proxy|remote\..+\.(?:proxy|vcs)|url\..+\.(?:insteadof|pushinsteadof)|protocol\..+|init\.templatedir|(?:web|help)\.browser|man\.viewer|(?:man|browser)\..+\.path|sendemail\.(?:.+\.)?smtpserver|diff\.tool|merge\.tool)$/i,
    value: "other",
  },
];

const gitConfigRow = (key: string) => GIT_CONFIG_COMMANDS.find((row) => row.key.test(key));

/**
 * git's own commands the guard does not read for an allow (GIT_SUBCOMMANDS are the ones it does): no alias can
 * stand for them (git runs its own command first), so a deny reads them as what they are. `hook` is left out: it
 * runs the hook scripts configuration names.
 */
const GIT_OTHER_COMMANDS = new Set(
  "archimport bugreport credential credential-cache credential-store credential-osxkeychain credential-libsecret credential-gnome-keyring credential-wincred credential-manager credential-manager-core credential-netrc cvsexportcommit cvsimport cvsserver daemon diagnose fast-export fast-import filter-branch fmt-merge-msg http-backend http-push imap-send index-pack merge-index merge-one-file mergetool multi-pack-index p4 pack-redundant patch-id prune-packed quiltimport receive-pack rerere scalar send-pack sh-i18n sh-setup shell show-index stripspace svn unpack-file unpack-objects update-server-info upload-archive upload-pack var".split(" "),
);
/** A name git can read as an alias (`alias.NAME`: a letter, then letters, digits and `-`); `git ./x` runs nothing. */
const GIT_ALIAS_NAME = /^[A-Za-z][A-Za-z0-9-]*$/;

/** Git's own subcommands (anything else is an alias or an external git-NAME program). */
const GIT_SUBCOMMANDS = new Set(
  "add am annotate apply archive bisect blame branch bundle cat-file check-attr check-ignore check-mailmap check-ref-format checkout checkout-index cherry cherry-pick citool clean clone column commit commit-graph commit-tree config count-objects describe diff diff-files diff-index diff-tree difftool fetch fetch-pack for-each-ref for-each-repo format-patch fsck gc get-tar-commit-id grep gui hash-object help init instaweb interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge merge-base merge-file merge-tree mktag mktree mv name-rev notes pack-objects pack-refs prune pull push range-diff read-tree rebase reflog remote repack replace request-pull reset restore rev-list rev-parse revert rm send-email shortlog show show-branch show-ref sparse-checkout stash status submodule switch symbolic-ref tag update-index update-ref verify-commit verify-pack verify-tag version whatchanged worktree write-tree".split(" "),
);

/** git filter-branch's filters: shell command lines it evaluates for each commit. */
const GIT_FILTERS = ["--setup", "--env-filter", "--tree-filter", "--index-filter", "--parent-filter", "--msg-filter", "--commit-filter", "--tag-name-filter"];

/** Git subcommand options that run a command (value or following words). */
const GIT_RUNNING_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  rebase: ["-x", "--exec"],
  difftool: ["-x", "--extcmd", "-t", "--tool"],
  mergetool: ["-t", "--tool"],
  fetch: ["--upload-pack"],
  pull: ["--upload-pack"],
  clone: ["-u", "--upload-pack", "--template", "-c", "--config"],
  "ls-remote": ["--upload-pack"],
  push: ["--receive-pack", "--exec"],
  archive: ["--exec"],
  // git-instaweb runs the --httpd value word-split as the server command line; --browser goes to git web--browse.
  instaweb: ["-d", "--httpd", "-b", "--browser"],
  diff: ["--ext-diff", "--textconv"],
  log: ["--ext-diff", "--textconv"],
  show: ["--ext-diff", "--textconv"],
  whatchanged: ["--ext-diff", "--textconv"],
  // `git stash show` and `git reflog` take the diff options of git diff and git log.
  stash: ["--ext-diff", "--textconv"],
  reflog: ["--ext-diff", "--textconv"],
  // The template directory's hooks and config are copied into the new repository (core.fsmonitor, hooks: commands git runs next).
  init: ["--template"],
  "diff-tree": ["--ext-diff", "--textconv"],
  "diff-index": ["--ext-diff", "--textconv"],
  "diff-files": ["--ext-diff", "--textconv"],
  // The textconv and clean/smudge filters the attributes name are commands from the repository's configuration.
  "cat-file": ["--textconv", "--filters"],
  grep: ["-O", "--open-files-in-pager", "--textconv"],
  // git-send-email runs --to-cmd, --cc-cmd and --header-cmd for each patch and reads their output as addresses or headers.
  "send-email": ["--sendmail-cmd", "--smtp-server", "--to-cmd", "--cc-cmd", "--header-cmd"],
  "fetch-pack": ["--upload-pack", "--exec"],
  "send-pack": ["--receive-pack", "--exec"],
  "filter-branch": GIT_FILTERS,
  config: [],
};

/** Environment variables a program (or a shell it starts) reads as a command, code, or where to find programs. */
type EnvEffect =
  /** A command line run by a shell (GIT_SSH_COMMAND, PAGER, EDITOR, LESSOPEN's `|cmd`). */
  | "script"
  /** A program run with arguments of its choosing (GIT_SSH). */
  | "program"
  /** A shell startup file whose name bash expands, command substitutions included (BASH_ENV). */
  | "startup"
  /** A text bash expands, command substitutions included, when it prompts or traces (PS1, PS4). */
  | "expanded"
  /** An exported bash function (`BASH_FUNC_name%%=() { ...; }`): every bash started defines it. */
  | "function"
  /** Code or programs loaded from elsewhere, which the guard cannot read (LD_PRELOAD, PATH, NODE_OPTIONS). */
  | "code"
  /** Changes what a program reads (git's repository or configuration): no allow covers it, a deny still reads the command. */
  | "refuse"
  /** A place a program connects to (a proxy, a package index or registry): a deny that names a place cannot tell. */
  | "place";

const ENVIRONMENT: readonly { readonly name: RegExp; readonly effect: EnvEffect; readonly what: string }[] = [
  // Proxies every fetching program reads (curl, wget, git, pip, npm, go, cargo: any case), and the package indexes and registries
  // pip, uv, npm, yarn, cargo, go and bundler read from the environment.
  { name: /^(?:https?_proxy|all_proxy|ftp_proxy|socks_proxy|rsync_proxy|npm_config_(?:https?[_-]proxy|proxy))$/i, effect: "place", what: "connects through the proxy it names" },
  {
    name: /^(?:PIP_(?:INDEX_URL|EXTRA_INDEX_URL|FIND_LINKS|PROXY|TRUSTED_HOST)|UV_(?:INDEX_URL|EXTRA_INDEX_URL|INDEX|DEFAULT_INDEX|FIND_LINKS|PYTHON_INSTALL_MIRROR|PYPY_INSTALL_MIRROR)|PIPX_DEFAULT_PYTHON_INDEX_URL|YARN_REGISTRY|YARN_NPM_REGISTRY_SERVER|CARGO_REGISTRIES_\w+_INDEX|CARGO_REGISTRY_DEFAULT|CARGO_HTTP_PROXY|CARGO_SOURCE_\w+|GOPROXY|GOSUMDB|GONOSUMDB|GONOSUMCHECK|GOINSECURE|GOPRIVATE|GONOPROXY|GOVCS|BUNDLE_MIRROR__\w+|GEM_SOURCE|RUBYGEMS_HOST|COMPOSER_REPO_PACKAGIST)$/,
    effect: "place",
    what: "fetches packages from the index, registry or proxy it names",
  },
  { name: /^npm_config_(?:registry|@[\w.-]+:registry)$/i, effect: "place", what: "fetches packages from the registry it names (npm's configuration)" },
  { name: /^(?:GIT_SSH_COMMAND|GIT_PROXY_COMMAND|GIT_ASKPASS|SSH_ASKPASS|SUDO_ASKPASS|RSYNC_RSH|CVS_RSH|RSYNC_CONNECT_PROG)$/, effect: "script", what: "runs it as a command" },
  { name: /^(?:GIT_PAGER|PAGER|MANPAGER|SYSTEMD_PAGER|GH_PAGER|BAT_PAGER|DELTA_PAGER|PSQL_PAGER|MYSQL_PS1|AWS_PAGER|CRASHPAGER)$/, effect: "script", what: "runs it as the pager" },
  { name: /^(?:GIT_EDITOR|GIT_SEQUENCE_EDITOR|EDITOR|VISUAL|SUDO_EDITOR|FCEDIT|KUBE_EDITOR|GH_EDITOR)$/, effect: "script", what: "runs it as the editor" },
  { name: /^(?:GIT_EXTERNAL_DIFF|LESSOPEN|LESSCLOSE|BROWSER|PROMPT_COMMAND|GIT_TRACE2_EVENT_TARGET)$/, effect: "script", what: "runs it as a command" },
  { name: /^GIT_SSH$/, effect: "program", what: "runs it as ssh" },
  { name: /^SHELL$/, effect: "program", what: "runs it as the shell (script, screen, vim's :!, sudo -s, ...)" },
  { name: /^(?:CC|CXX|CPP|LD|AR|FC|RUSTC|RUSTC_WRAPPER|RUSTC_WORKSPACE_WRAPPER|CARGO_BUILD_RUSTC_WRAPPER|CARGO_TARGET_\w+_RUNNER)$/, effect: "script", what: "runs it as the compiler, linker or runner" },
  { name: /^(?:PS0|PS1|PS2|PS4)$/, effect: "expanded", what: "a bash it starts expands it (command substitutions included) when it prompts or traces" },
  // npm reads npm_config_NAME with `_` and `-` alike (`env 'npm_config_script-shell=CMD' npm test`), in any case.
  { name: /^npm_config_(?:script[_-]shell|shell|git)$/i, effect: "program", what: "runs it as a command (npm's configuration)" },
  { name: /^npm_config_(?:editor|browser)$/i, effect: "script", what: "runs it as a command (npm's configuration)" },
  { name: /^npm_config_(?:node[_-]options|userconfig|globalconfig|prefix|onload[_-]script)$/i, effect: "code", what: "loads code or configuration through it (npm's configuration)" },
  { name: /^(?:BASH_ENV|ENV)$/, effect: "startup", what: "a shell it starts expands it and runs the file it names" },
  { name: /^BASH_FUNC_.+(?:%%|\(\))$/, effect: "function", what: "every bash it starts defines it as a function" },
  {
    name: /^(?:PATH|LD_PRELOAD|LD_LIBRARY_PATH|LD_AUDIT|GCONV_PATH|DYLD_INSERT_LIBRARIES|DYLD_LIBRARY_PATH|NODE_OPTIONS|NODE_PATH|PERL5OPT|PERL5LIB|PERLLIB|PYTHONPATH|PYTHONHOME|PYTHONSTARTUP|PYTHONINSPECT|PYTHONBREAKPOINT|PYTHONWARNINGS|RUBYOPT|RUBYLIB|PERL5DB|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|GOFLAGS|EXINIT|VIMINIT|GVIMINIT|MYVIMRC|ZDOTDIR|EMACSLOADPATH|GIT_EXEC_PATH|GIT_TEMPLATE_DIR|GIT_CONFIG_PARAMETERS|GIT_CONFIG_COUNT|GIT_CONFIG_GLOBAL|GIT_CONFIG_SYSTEM|GIT_CONFIG|GIT_CONFIG_KEY_\d+|GIT_CONFIG_VALUE_\d+|SHELLOPTS|BASHOPTS|LESSKEY|LESSKEYIN|MAKEFLAGS|MFLAGS|FACTERLIB|GROFF_BIN_PATH|GROFF_FONT_PATH|GROFF_TMAC_PATH|RUBYLIB|GEM_PATH|GEM_HOME|LUA_PATH|LUA_CPATH|LUA_INIT|TCLLIBPATH|R_PROFILE|R_PROFILE_USER|JULIA_LOAD_PATH|COWPATH)$/,
    effect: "code",
    what: "loads code or finds programs through it",
  },
  { name: /^(?:OPENSSL_CONF|OPENSSL_ENGINES|OPENSSL_MODULES|GNUPGHOME)$/, effect: "code", what: "loads code or settings (engines, providers, helper programs) through it" },
  { name: /^(?:BASH_CMDS|BASH_ALIASES|BASH_LOADABLES_PATH)$/, effect: "code", what: "finds the program a command name runs through it (bash's table of command paths, its aliases, where enable -f loads builtins from)" },
  // zsh's tables of names (zsh/parameter): `aliases[x]=CMD`, `galiases`, `saliases` bind aliases, `functions[f]=BODY` defines a function, `commands[x]=PATH` hashes a path.
  { name: /^(?:aliases|galiases|saliases|functions|commands|dis_aliases|dis_galiases|dis_saliases|dis_functions)$/, effect: "code", what: "finds what a command name runs through it (zsh's tables of aliases, functions and command paths)" },
  { name: /^(?:TAR_OPTIONS|LESS|MANOPT|GZIP|ZIPOPT|XZ_OPT|BZIP2|PARALLEL|GREP_OPTIONS|RSYNC_OPTIONS|WGETRC|CURL_HOME|SSH_CONFIG|RIPGREP_CONFIG_PATH)$/, effect: "code", what: "reads options or settings (which can run commands) from it" },
  { name: /^(?:GIT_DIR|GIT_WORK_TREE|GIT_CONFIG|GIT_CONFIG_GLOBAL|GIT_CONFIG_SYSTEM|GIT_CONFIG_NOSYSTEM|GIT_NAMESPACE|GIT_INDEX_FILE|GIT_OBJECT_DIRECTORY|GIT_ALLOW_PROTOCOL|GIT_PROTOCOL_FROM_USER|GIT_SSH_VARIANT|HOME|XDG_CONFIG_HOME)$/, effect: "refuse", what: "reads its configuration or repository (which can run commands) through it" },
];

/**
 * Variables through which programs read files the line does not name (for the file rules): `walk`, a directory whose files
 * they read (a repository, a work tree, a home or configuration directory: `GIT_DIR=d git log` reads d/config, d/HEAD;
 * `HOME=d git log` reads d/.gitconfig); `read`, a file they read (a configuration, an index, a startup file, a library
 * they load); `options`, a file of options that may name any other file (ripgrep's configuration adds paths, --hidden,
 * --pre commands); `code`, code loaded from elsewhere (LD_PRELOAD) or a program found elsewhere (a PATH with a relative
 * directory runs `./cat` for cat), which may open any file.
 */
const ENVIRONMENT_FILES: readonly { readonly name: RegExp; readonly use: "walk" | "read" | "options" | "code"; readonly what: string }[] = [
  { name: /^(?:GIT_DIR|GIT_WORK_TREE|GIT_COMMON_DIR|GIT_OBJECT_DIRECTORY|HOME|XDG_CONFIG_HOME|CURL_HOME|GNUPGHOME|DOCKER_CONFIG|ZDOTDIR)$/, use: "walk", what: "reads the files under the directory it names (a repository, a work tree, a home or configuration directory)" },
  { name: /^(?:GIT_INDEX_FILE|GIT_CONFIG|GIT_CONFIG_GLOBAL|GIT_CONFIG_SYSTEM|WGETRC|BASH_ENV|ENV|PYTHONSTARTUP|KUBECONFIG|AWS_SHARED_CREDENTIALS_FILE|AWS_CONFIG_FILE|GOOGLE_APPLICATION_CREDENTIALS|NETRC|PGPASSFILE|INPUTRC|LESSKEYIN|npm_config_userconfig|NPM_CONFIG_USERCONFIG)$/, use: "read", what: "reads the file it names" },
  { name: /^RIPGREP_CONFIG_PATH$/, use: "options", what: "reads options from the file it names, which may name other files" },
  { name: /^(?:LD_PRELOAD|LD_AUDIT|LD_LIBRARY_PATH|DYLD_INSERT_LIBRARIES|DYLD_LIBRARY_PATH|PATH)$/, use: "code", what: "loads code or finds the program through it" },
];

/** How programs read files through the variable `name` (ENVIRONMENT_FILES), if they do. */
export function environmentFiles(name: string): { readonly use: "walk" | "read" | "options" | "code"; readonly what: string } | undefined {
  return ENVIRONMENT_FILES.find((row) => row.name.test(name));
}

/** Variables that hold options a program reads before its command line's (split at white space). */
const OPTION_VARIABLES: Readonly<Record<string, string>> = { TAR_OPTIONS: "tar", LESS: "less" };

/** A value that is one plain word: letters, digits and `_ . , : @ % + = -` (no `/`, `~`, space or quote). */
const PLAIN_WORD = /^[\w.,:@%+=-]*$/;

/**
 * Variables documented as plain settings: no program, file to load or code can be named through
 * them, so a `NAME=value` prefix of one with a static value does not change what runs
 * (`NODE_ENV=test npm test`, `CI=1 npm test`). None is in ENVIRONMENT; `value` limits what it may hold.
 */
const PLAIN_ENVIRONMENT: readonly { readonly name: string; readonly value: RegExp; readonly what: string }[] = [
  { name: "CI", value: PLAIN_WORD, what: "a flag tools read as 'running in continuous integration'" },
  { name: "NODE_ENV", value: PLAIN_WORD, what: "a mode name (development, test, production) programs compare with" },
  { name: "FORCE_COLOR", value: PLAIN_WORD, what: "a colour level (0-3) for Node.js tools" },
  { name: "NO_COLOR", value: PLAIN_WORD, what: "turns colour off when set" },
  { name: "CLICOLOR", value: PLAIN_WORD, what: "a 0/1 colour switch" },
  { name: "CLICOLOR_FORCE", value: PLAIN_WORD, what: "a 0/1 colour switch" },
  { name: "CARGO_TERM_COLOR", value: PLAIN_WORD, what: "cargo's colour choice (auto, always, never)" },
  { name: "RUST_BACKTRACE", value: PLAIN_WORD, what: "0, 1 or full: whether a Rust program prints a backtrace" },
  { name: "RUST_LOG", value: PLAIN_WORD, what: "log levels per module (env_logger's filter text)" },
  { name: "PYTHONUNBUFFERED", value: PLAIN_WORD, what: "a flag: Python does not buffer its output" },
  { name: "PYTHONDONTWRITEBYTECODE", value: PLAIN_WORD, what: "a flag: Python writes no .pyc files" },
  { name: "PYTHONHASHSEED", value: PLAIN_WORD, what: "a number (or random) seeding Python's string hashes" },
  { name: "PYTHONFAULTHANDLER", value: PLAIN_WORD, what: "a flag: Python dumps tracebacks on a crash" },
  { name: "PYTHONUTF8", value: PLAIN_WORD, what: "0/1: Python's UTF-8 mode" },
  { name: "NODE_NO_WARNINGS", value: PLAIN_WORD, what: "a flag: Node.js prints no process warnings" },
  { name: "CGO_ENABLED", value: PLAIN_WORD, what: "0/1: whether go builds with cgo" },
  { name: "DEBUG", value: PLAIN_WORD, what: "names of log channels to print (the debug package's filter)" },
  { name: "COLUMNS", value: /^\d+$/, what: "a terminal width in columns" },
  { name: "LINES", value: /^\d+$/, what: "a terminal height in lines" },
  // A locale or zone name with a `/` (or `..`) is a file the C library loads: only plain names.
  { name: "LANG", value: /^[\w.@-]*$/, what: "a locale name (C, en_US.UTF-8)" },
  { name: "LANGUAGE", value: /^[\w.@:-]*$/, what: "locale names for messages" },
  { name: "LC_ALL", value: /^[\w.@-]*$/, what: "a locale name (C, en_US.UTF-8)" },
  { name: "LC_COLLATE", value: /^[\w.@-]*$/, what: "a locale name for sorting" },
  { name: "LC_CTYPE", value: /^[\w.@-]*$/, what: "a locale name for character classes" },
  { name: "LC_MESSAGES", value: /^[\w.@-]*$/, what: "a locale name for messages" },
  { name: "LC_NUMERIC", value: /^[\w.@-]*$/, what: "a locale name for numbers" },
  { name: "LC_TIME", value: /^[\w.@-]*$/, what: "a locale name for dates" },
  { name: "TZ", value: /^[A-Za-z][\w+-]*(?:\/[A-Za-z][\w+-]*)*$/, what: "a time zone name (UTC, Europe/Berlin), never a path" },
];

/**
 * Whether a `NAME=value` prefix only passes a plain setting (PLAIN_ENVIRONMENT): the name is listed
 * and the value, known before the command runs, has the listed form.
 */
export function isPlainSetting(name: string, value: string, dynamic: boolean): boolean {
  if (dynamic) return false;
  const row = PLAIN_ENVIRONMENT.find((entry) => entry.name === name);
  return row !== undefined && row.value.test(value) && ENVIRONMENT.every((entry) => !entry.name.test(name));
}

/**
 * What setting `name=value` in the environment of a command does (a prefix assignment, an
 * assignment in the line, `env NAME=value cmd`, `sudo NAME=value cmd`). `dynamic`: the value is
 * only known at run time. `by` names who sets it, for the reason.
 */
export function readEnvironment(name: string, value: string, dynamic: boolean, by = "the command"): ProgramReading {
  const out = empty();
  // `PATH[0]=DIR` sets PATH (a scalar is its array's element 0); `BASH_CMDS[ls]=PATH` sets an entry of BASH_CMDS.
  const base = name.replace(/\[[\s\S]*\]$/, "");
  const row = ENVIRONMENT.find((entry) => entry.name.test(base));
  if (row === undefined) return out;
  const reason = `${by} sets ${name}, and a program ${row.what}`;
  out.refusals.push({ reason, token: name });
  if (row.effect === "refuse") return out;
  if (row.effect === "place") {
    out.placesUnknown = dynamic ? `${by} sets ${name} to a value only known when it runs, and a program ${row.what}` : `${reason} (${value}), which the guard does not read as a place of the command`;
    return out;
  }
  // TAR_OPTIONS and LESS are options tar and less read before their own: read as such (`--to-command=CMD`, `+!CMD`).
  const reader = OPTION_VARIABLES[base];
  if (reader !== undefined && !dynamic && !/["'\\]/.test(value)) {
    const inner = readProgram([reader, ...value.split(/\s+/).filter((word) => word !== "")]);
    out.commands.push(...inner.commands);
    out.scripts.push(...inner.scripts);
    out.guesses.push(...inner.guesses);
    if (inner.unknown !== undefined) out.unknown = `${reason}: ${inner.unknown}`;
    return out;
  }
  if (dynamic || row.effect === "code") {
    out.unknown = dynamic ? `${by} sets ${name} to a value only known when it runs, and a program ${row.what}` : reason;
    return out;
  }
  switch (row.effect) {
    case "script":
      // LESSOPEN/LESSCLOSE: `|cmd %s` pipes the command's output to less; `||`, `-` vary that.
      out.scripts.push(/^LESS(?:OPEN|CLOSE)$/.test(name) ? value.replace(/^\|{0,2}-?/, "") : value);
      break;
    case "program":
      out.commands.push([value]);
      break;
    case "expanded":
      out.scripts.push(`: ${value}`);
      break;
    case "startup":
      // bash expands the value (parameters, command substitutions, arithmetic), then runs that file.
      out.scripts.push(`: ${value}`);
      out.unknown = reason;
      break;
    case "function":
      out.scripts.push(`${name.replace(/^BASH_FUNC_|(?:%%|\(\))$/g, "")} ${value}`);
      break;
  }
  return out;
}

/** apt's configuration keys whose value is a command line (hooks and the programs it runs). */
const APT_COMMAND_KEYS = /(?:::(?:Pre|Post)-Invoke(?:-Success)?|^DPkg::Pre-Install-Pkgs|^Dir::Bin::[\w-]+|^APT::Key::gpgvcommand|::Pager)(?:::)?$/i;

/** tmux subcommands that run a shell command: the letters of their options that take a value, and the one whose value is the directory it starts in (`-c DIR`). */
const TMUX_NEW_SESSION = { valued: "cefFnstxy", operands: "all", directory: "c" } as const;
const TMUX_NEW_WINDOW = { valued: "cenFt", operands: "all", directory: "c" } as const;
const TMUX_SPLIT_WINDOW = { valued: "celpFt", operands: "all", directory: "c" } as const;
const TMUX_RESPAWN = { valued: "cet", operands: "all", directory: "c" } as const;
const TMUX_RUN_SHELL = { valued: "cdt", operands: "all", directory: "c" } as const;
const TMUX_IF_SHELL = { valued: "t", operands: "first" } as const;
const TMUX_POPUP = { valued: "bcdehsStTwxy", operands: "all", directory: "d" } as const;
const TMUX_PIPE_PANE = { valued: "t", operands: "all" } as const;
const TMUX_SEND_KEYS = { valued: "cNt", operands: "keys" } as const;

/** tmux key names that end a line in the pane's shell, or type a space. */
const TMUX_KEYS: Readonly<Record<string, string>> = { Enter: "\n", "C-m": "\n", "C-j": "\n", KPEnter: "\n", Space: " ", Tab: "\t" };

/** The text `tmux send-keys` types: each operand is a key name or a string typed as is. */
function typedKeys(keys: readonly string[]): string {
  return keys.map((key) => (Object.hasOwn(TMUX_KEYS, key) ? TMUX_KEYS[key]! : /^(?:[CMS]-.|Escape|BSpace|Up|Down|Left|Right|Home|End|F\d+)$/.test(key) ? "\n" : key)).join("");
}

/** How a program reads the value of one of its options. */
type OptionEffect =
  /** A command line run by a shell (`split --filter`, `zip -TT`, `man -P`). */
  | "script"
  /** A program run with arguments of its choosing (`rg --pre`, `sort --compress-program`). */
  | "program"
  /** An editor command (vim's `-c`, `--cmd`, `+`): `!cmd` runs a shell command; `+N` and `+/pattern` move the cursor; anything else is code the guard cannot read. */
  | "ex"
  /** Code in the program's own language (`make --eval`, `gdb -ex`): no allow covers it, a deny cannot tell. */
  | "code"
  /** A file whose contents run (`vim -S`, `nmap --script`): no allow covers it. */
  | "file"
  /**
   * A file of the program's commands, where a line may run a shell command (`psql -f`, `sqlite3 -init`, `gdb -x`), as it
   * reads its standard input: no allow covers it, and a deny cannot tell (it runs what the file holds, as `sqlite3 db < FILE` does).
   */
  | "commands"
  /** Code or settings (which can run programs) it loads from a file or directory (`openssl -config`, `gpg --options`, `--exec-path`): no allow covers it, a deny cannot tell. */
  | "loads"
  /** A file it writes (`less -o`, `git diff --output`). */
  | "writes"
  /** A file whose contents it sends over the network (`curl -T FILE`, `wget --post-file`). */
  | "sends"
  /** A file it reads what to fetch or do from (`wget -i FILE`), which the guard does not read. */
  | "reads"
  /** A debugger command (gdb's `-ex`): `shell CMD` and `!CMD` run a shell command; run, quit, bt, ... run nothing else; anything else is code the guard cannot read. */
  | "debugger"
  /** The words after the option are a command it runs (`gdb --args PROG ARGS`, `nix develop -c PROG ARGS`). */
  | "rest"
  /** A key binding whose action is a command line (bash's `bind -x 'KEYS: CMD'`). */
  | "keybinding"
  /** Words the program expands as bash expands a word, command substitutions included (compgen's `-W WORDLIST`). */
  | "expanded"
  /** A command line the program adds to the shell's history (`history -s TEXT`), which `fc` runs again. */
  | "history"
  /** A project, repository or directory whose scripts or configuration can run commands (`hg -R DIR`, `make -C DIR`, `npm --prefix DIR`): no allow covers it. */
  | "config";

/**
 * Operands of an OPTION_EFFECTS program (after the subcommand words `after`, skipping its options and the
 * values of `valued`, each option with how many words it takes) that match `when`: command lines it runs
 * (`script`: an allow for the program covers them when it covers each command line too), files whose code
 * it runs (`file`), or files it writes (`writes`); `reason` says what it does with one (before its name).
 */
interface OperandEffect {
  readonly effect: "script" | "file" | "writes";
  readonly after?: readonly string[];
  readonly valued?: Readonly<Record<string, number>>;
  readonly when?: RegExp;
  readonly reason?: string;
  /** Shorthands it expands before it runs an operand (concurrently's `npm:build` is `npm run build`): the first that matches. */
  readonly shorthands?: readonly { readonly from: RegExp; readonly to: string }[];
}

/** One option: `--long` (value after `=` or in the next word), `-x` (value attached or next), `+` (the rest of a `+word`). */
interface EffectOption {
  readonly option: string;
  readonly effect: OptionEffect;
  /** For a `code` option with a shellEscape: the client command that runs the commands of a file (psql's `\\i FILE`, mysql's `source FILE`), the file its first group. */
  readonly includes?: RegExp;
  /** A short option that may close a cluster of getopt flags (`man -aPcmd`). */
  readonly cluster?: boolean;
  /** The value's words are separated by this, not by spaces (`gcc -wrapper prog,arg`). */
  readonly separator?: string;
  /** A `KEY=VALUE` value whose KEY matches is a command line (apt's `-o APT::Update::Pre-Invoke::=CMD`); other keys keep the option's effect. */
  readonly commandKeys?: RegExp;
  /** A `KEY=VALUE` value whose KEY matches runs VALUE as a shell command when it starts with `!` (Mercurial's `alias.NAME=!CMD`). */
  readonly bangKeys?: RegExp;
  /**
   * A client's escape to the shell in the value (psql's `\! CMD`): what it runs; other text runs nothing here. For a
   * `script` option, the command lines among the value's settings (sshfs's `-o reconnect,ssh_command=CMD`).
   */
  readonly shellEscape?: RegExp;
  /** How a reason names the option when its value decides the effect (`-o ssh_command=`, `--address=unixexec:`). */
  readonly shown?: string;
  /** Only the word itself, its value the next word: a short name that begins the program's longer single-dash options (latexmk's `-r FILE` beside `-recorder`). */
  readonly exact?: boolean;
  /** Parts of the code that are command lines (a makefile's recipe lines): tried by a deny, which otherwise cannot tell. */
  readonly recipes?: RegExp;
  /** The option has its effect only when its value matches (`curl -d @FILE` sends a file, `curl -d x=1` does not). */
  readonly when?: RegExp;
  /** A `rest` option whose value is followed by the directory the rest runs in (`cmake -E chdir DIR CMD`). */
  readonly directory?: boolean;
  /**
   * A `config` option whose value is the directory it works in, as `cd DIR && PROGRAM ...` would (`make -C DIR`,
   * `npm --prefix DIR`): the line is also read without it, DIR as `cd DIR`, so it is covered where the allow
   * rules cover `cd DIR` too (as git's -C is).
   */
  readonly place?: boolean;
}

/** A path outside the working directory (absolute, in a home directory, a variable's, or climbing with `..`): where a program whose output is its job (a compiler, a downloader) writes what its allow does not vouch for. */
const OUTSIDE_HERE = /^(?:\/|~|\$)|(?:^|\/)\.\.(?:\/|$)/;

/** A go output path (`-o PATH`, `-o=PATH`, `-coverprofile=PATH`) outside the working directory and outside /tmp. */
const GO_OUTSIDE = /^=?(?:\/(?!tmp\/)|~|\$)|^=?(?:.*\/)?\.\.(?:\/|$)/;

/** Recipe lines of makefile text: after a tab at the start of a line, or after `;` on a rule's line. */
const MAKE_RECIPES = /(?:^|\n)\t([^\n]*)|(?:^|\n)[^:\n=#]*:[^;\n=]*;([^\n]*)/g;

/** rpm's shell macro `%(CMD)`: the command lines in rpm macro text. */
const RPM_SHELL_MACROS = /%\(([^()]*)\)/g;

/** dc's `!` runs the rest of the line as a shell command. */
const DC_SHELL_ESCAPE = /(?:^|\n)[^!\n]*!([^\n]*)/g;

/** Shell escapes of database and transfer clients: psql and mysql `\! CMD`, mysql `system CMD`, sqlite3 `.shell`/`.system CMD`, ftp and lftp `!CMD`. */
const CLIENT_SHELL_ESCAPE = /(?:^|[\n;])\s*(?:\\!|\.shell\b|\.system\b|system\b|!)\s*([^\n;]*)/g;

/** An output "file" `|CMD` that pipes to CMD (psql's `-o`, as its `\\o`). */
const PIPE_TO_COMMAND = /^\s*\|(.*)$/gs;

/** psql's `\\i FILE`, `\\ir FILE`, `\\include FILE`, `\\include_relative FILE`: the commands of a file. */
const PSQL_INCLUDE = /(?:^|[\n;])\s*\\(?:i|ir|include|include_relative)\s+(\S+)/;

/** mysql's `source FILE` and `\\. FILE`: the commands of a file. */
const MYSQL_SOURCE = /(?:^|[\n;])\s*(?:source|SOURCE|\\\.)\s+(\S+)/;

/** mysql's client commands that run a command here: `system CMD`, `\\! CMD`, and the pager (`pager CMD`, `\\P CMD`) its output goes through. */
const MYSQL_SHELL_ESCAPE = /(?:^|[\n;])\s*(?:\\!|\\P|system\b|SYSTEM\b|pager\b|PAGER\b)\s*([^\n;]*)/g;

/**
 * Where a program that fetches URLs connects (`readFetcher`): `origins` as an allow reads them
 * (`scheme://host[:port]`, WHATWG and RFC 3986 readings, one per place), `forms` the command with
 * those places spelled as a deny reads them (normalised, and the hosts that reach the same place:
 * `curl 0x7f.1:8080` is also `curl http://127.0.0.1:8080/`), `unknown` when a place cannot be read
 * (a URL it cannot parse, URLs or options read from a file, a glob too large to expand).
 */
interface Connects {
  readonly origins: readonly string[];
  readonly forms: readonly (readonly string[])[];
  readonly unknown: string | undefined;
  /** The words the places were read from (`http://127.1:8080`, `-x 127.0.0.1:3128`), for the reason an allow gives. */
  readonly places: readonly string[];
  /** Why it also connects where the repository's configuration says (`git fetch origin`: a remote given by name), which the guard does not read. */
  readonly configured?: string;
  /** The command with each URL a place's query carries (`?next=http://127.0.0.1/`), where its server may redirect: a deny one meets cannot tell. */
  readonly carried?: readonly { readonly form: readonly string[]; readonly reason: string }[];
}

/** What an option of a fetcher does besides connecting: writes a file, sends one, runs a program (its value a command), or turns on what the guard does not follow. */
type FetcherEffect = "writes" | "sends" | "program" | "runs";

/**
 * How a program that fetches URLs reads its arguments, from its manual and `--help`: every word
 * that is no option and no option's value is a URL it fetches (without a scheme read as http:// and
 * https://). curl and wget (curl(1) 7.88 and curl's docs/cmdline-opts of 8.x, wget(1) 1.21); HTTPie
 * 3.2 (`http`, `https`), aria2c 1.36, lwp-request 6.68 (`GET`, `HEAD`, `POST`), lynx 2.9, w3m 0.5.3,
 * links 2.28, wget2 1.99. A `strict` table lists every option of its program: an option it does not
 * list makes the reading unknown (the call asks); curl's, wget's and wget2's are not strict (an
 * option they do not list is read as a flag, and a word after it as a URL).
 */
interface FetcherSpec {
  /** Short options that take a value. */
  readonly valued: string;
  /** Long options that take a value (every other long option is a flag). */
  readonly longValued: readonly string[];
  /** Long names of the short options below. */
  readonly short: Readonly<Record<string, string>>;
  /** Options whose value is a URL (or `[scheme://]host[:port]`) it connects to: `--url`, proxies, DNS-over-HTTPS, a base URL. */
  readonly url: readonly string[];
  /** `--resolve HOST:PORT:ADDR[,ADDR]` (connect to ADDR) and `--connect-to HOST1:PORT1:HOST2:PORT2` (connect to HOST2:PORT2). */
  readonly resolve?: readonly string[];
  readonly connectTo?: readonly string[];
  /** Options whose value is a local socket it connects to instead of the host (a server on this machine). */
  readonly local?: readonly string[];
  /** Options whose value is a configuration file it reads (options, URLs, proxies: code, to it). */
  readonly config: readonly string[];
  /** Options whose value is a file of URLs it fetches (or a torrent, a metalink, a session, keystrokes: places the guard does not read). */
  readonly urlFile: readonly string[];
  /**
   * Options whose value is a `KEY=VALUE` setting (wget's `-e` .wgetrc command, w3m's `-o`): keys whose value is a URL it connects
   * to, keys that read URLs from a file, and (`known`) the keys known to change nothing else: with it, another key makes the reading unknown.
   */
  readonly settings?: { readonly options: readonly string[]; readonly url: RegExp; readonly fromFile: RegExp; readonly known?: RegExp };
  /** curl's URL globbing (`{a,b}`, `[1-3]`), turned off by these options. */
  readonly globOff?: readonly string[];
  /** aria2c's: the same globs, turned on by these options (`-P`). */
  readonly globOn?: readonly string[];
  /** Every option is listed (`flags`, `longFlags`, `valued`, `longValued`): another makes the reading unknown. */
  readonly strict?: boolean;
  /** Short options without a value. */
  readonly flags?: string;
  /** Long options without a value (or whose value follows `=` only: aria2c's `--continue[=true]`). */
  readonly longFlags?: readonly string[];
  /** Long options are spelled with one dash (`-dump`, `-cfg=FILE`; lynx, w3m, links); `also`: with two as well (lynx's `--dump`). */
  readonly singleDash?: "only" | "also";
  /** `--name value` only, never `--name=value` (links). */
  readonly noEquals?: boolean;
  /** A long option may be abbreviated to a unique prefix (getopt_long, Python's argparse, curl 7.88). */
  readonly abbreviate?: boolean;
  /** `--no-NAME` turns the flag NAME off (HTTPie, wget2, aria2c's booleans). */
  readonly negated?: boolean;
  /** Which operands are URLs: every one, or HTTPie's `[METHOD] URL [REQUEST_ITEM...]` (a first operand of letters is the method). */
  readonly operands?: "all" | "method-url-items";
  /** `:PORT/path` is http://localhost:PORT/path (HTTPie's localhost shorthand). */
  readonly localShorthand?: boolean;
  /** Options whose value is `PROTOCOL:URL`, the URL a place (HTTPie's `--proxy http:http://HOST:PORT`). */
  readonly protocolUrl?: readonly string[];
  /** Options whose value is a comma-separated list of places (aria2c's `--bt-tracker`, `--dht-entry-point`). */
  readonly urlList?: readonly string[];
  /** Operands whose places the guard does not read (aria2c's .torrent and .metalink files, magnet: links). */
  readonly indirect?: RegExp;
  /** curl's `--expand-NAME`: NAME's value with `{{variables}}` expanded, which the guard cannot read. */
  readonly expand?: boolean;
  /** URLs fetched through a gateway (curl's ipfs:// and ipns://): named by one of `options`, else by the environment or a file, which the guard does not read. */
  readonly gateway?: { readonly schemes: RegExp; readonly options: readonly string[] };
  /** What options do besides connecting (the option's name as listed above; a flag too). */
  readonly effects?: Readonly<Record<string, FetcherEffect>>;
  /** Operands that send a file (HTTPie's request items `field@FILE`, `field=@FILE`, `field:=@FILE`). */
  readonly sendsItem?: RegExp;
}

/** wget's long options that take a value (wget2 takes them too, but for `--compression`); `--backups` takes one only after `=` (the real wget 1.21 fetches the next word). */
const WGET_LONG_VALUED = [
  "--execute", "--output-file", "--append-output", "--input-file", "--base", "--tries", "--output-document", "--timeout", "--wait", "--quota", "--directory-prefix", "--user-agent", "--level", "--accept", "--reject",
  "--domains", "--include-directories", "--exclude-directories", "--report-speed", "--config", "--rejected-log", "--retry-on-http-error", "--start-pos", "--progress", "--dns-timeout", "--connect-timeout",
  "--read-timeout", "--waitretry", "--bind-address", "--limit-rate", "--restrict-file-names", "--prefer-family", "--user", "--password", "--use-askpass", "--local-encoding", "--remote-encoding", "--cut-dirs",
  "--http-user", "--http-password", "--default-page", "--header", "--compression", "--proxy-user", "--proxy-password", "--referer", "--load-cookies", "--save-cookies", "--post-data", "--post-file", "--method",
  "--body-data", "--body-file", "--secure-protocol", "--certificate", "--certificate-type", "--private-key", "--private-key-type", "--ca-certificate", "--ca-directory", "--crl-file", "--pinnedpubkey", "--ciphers",
  "--ftp-user", "--ftp-password", "--warc-file", "--warc-header", "--warc-max-size", "--warc-dedup", "--warc-tempdir", "--accept-regex", "--reject-regex", "--regex-type", "--exclude-domains",
  "--follow-tags", "--ignore-tags",
];

/** curl's long options without a value (curl 8.x docs/cmdline-opts), to spell out an abbreviated one (`--remote-name-a`). */
const CURL_LONG_FLAGS = [
  "--anyauth", "--append", "--basic", "--ca-native", "--cert-status", "--compressed-ssh", "--compressed", "--create-dirs", "--crlf", "--digest", "--disable-eprt", "--disable-epsv", "--disable",
  "--disallow-username-in-url", "--doh-cert-status", "--doh-insecure", "--dump-ca-embed", "--fail-early", "--fail-with-body", "--fail", "--false-start", "--follow", "--form-escape",
  "--ftp-create-dirs", "--ftp-pasv", "--ftp-pret", "--ftp-skip-pasv-ip", "--ftp-ssl-ccc", "--ftp-ssl-control", "--get", "--globoff", "--haproxy-protocol", "--head", "--http0.9", "--http1.0",
  "--http1.1", "--http2-prior-knowledge", "--http2", "--http3-only", "--http3", "--ignore-content-length", "--insecure", "--ipv4", "--ipv6", "--junk-session-cookies", "--list-only",
  "--location-trusted", "--location", "--mail-rcpt-allowfails", "--manual", "--metalink", "--mptcp", "--negotiate", "--netrc-optional", "--netrc", "--next", "--no-alpn", "--no-buffer", "--no-clobber",
  "--no-keepalive", "--no-npn", "--no-progress-meter", "--no-sessionid", "--ntlm-wb", "--ntlm", "--out-null", "--parallel-immediate", "--parallel", "--path-as-is", "--post301", "--post302",
  "--post303", "--progress-bar", "--proxy-anyauth", "--proxy-basic", "--proxy-ca-native", "--proxy-digest", "--proxy-http2", "--proxy-http3", "--proxy-insecure", "--proxy-negotiate", "--proxy-ntlm",
  "--proxy-ssl-allow-beast", "--proxy-ssl-auto-client-cert", "--proxy-tlsv1", "--proxytunnel", "--raw", "--remote-header-name", "--remote-name-all", "--remote-name", "--remote-time",
  "--remove-on-error", "--retry-all-errors", "--retry-connrefused", "--sasl-ir", "--show-error", "--show-headers", "--silent", "--skip-existing", "--socks5-basic", "--socks5-gssapi-nec",
  "--socks5-gssapi", "--ssl-allow-beast", "--ssl-auto-client-cert", "--ssl-no-revoke", "--ssl-reqd", "--ssl-revoke-best-effort", "--ssl", "--sslv2", "--sslv3", "--styled-output",
  "--suppress-connect-headers", "--tcp-fastopen", "--tcp-nodelay", "--tftp-no-options", "--tls-earlydata", "--tlsv1.0", "--tlsv1.1", "--tlsv1.2", "--tlsv1.3", "--tlsv1", "--tr-encoding", "--trace-ids",
  "--trace-time", "--use-ascii", "--verbose", "--version", "--xattr",
];

/** The flags of lwp-request (Getopt::Long with bundling: `-Pt3`, `--m=GET`). */
const LWP_FLAGS = "afuUsSeEdhvP";
const LWP_VALUED = "mbticCHpo";

/** curl's short options that take a value (its FETCHERS entry's `valued`). */
const CURL_VALUED = "EKCbcdDFPHhmoUQreXYytzTuAwx";

const FETCHERS: Readonly<Record<"curl" | "wget" | "wget2" | "http" | "aria2c" | "lwp-request" | "lynx" | "w3m" | "links", FetcherSpec>> = {
  curl: {
    valued: CURL_VALUED,
    longValued: [
      "--abstract-unix-socket", "--alt-svc", "--aws-sigv4", "--cacert", "--capath", "--cert", "--cert-type", "--ciphers", "--config", "--connect-timeout", "--connect-to", "--continue-at", "--cookie", "--cookie-jar",
      "--create-file-mode", "--crlfile", "--curves", "--ech", "--haproxy-clientip", "--httpsig-algo", "--httpsig-headers", "--httpsig-key", "--httpsig-keyid", "--ip-tos", "--ipfs-gateway", "--keepalive-cnt",
      "--knownhosts", "--parallel-max-host", "--sigalgs", "--ssl-sessions", "--trace-config", "--upload-flags", "--variable", "--vlan-priority", "--data", "--data-ascii", "--data-binary", "--data-raw", "--data-urlencode", "--delegation", "--dns-interface", "--dns-ipv4-addr", "--dns-ipv6-addr", "--dns-servers",
      "--doh-url", "--dump-header", "--egd-file", "--engine", "--etag-compare", "--etag-save", "--expect100-timeout", "--form", "--form-string", "--ftp-account", "--ftp-alternative-to-user", "--ftp-method", "--ftp-port",
      "--ftp-ssl-ccc-mode", "--happy-eyeballs-timeout-ms", "--header", "--help", "--hostpubmd5", "--hostpubsha256", "--hsts", "--interface", "--json", "--keepalive-time", "--key", "--key-type", "--krb", "--libcurl",
      "--limit-rate", "--local-port", "--login-options", "--mail-auth", "--mail-from", "--mail-rcpt", "--max-filesize", "--max-redirs", "--max-time", "--netrc-file", "--noproxy", "--oauth2-bearer", "--output",
      "--output-dir", "--parallel-max", "--pass", "--pinnedpubkey", "--preproxy", "--proto", "--proto-default", "--proto-redir", "--proxy", "--proxy1.0", "--proxy-cacert", "--proxy-capath", "--proxy-cert", "--proxy-cert-type",
      "--proxy-ciphers", "--proxy-crlfile", "--proxy-header", "--proxy-key", "--proxy-key-type", "--proxy-pass", "--proxy-pinnedpubkey", "--proxy-service-name", "--proxy-tls13-ciphers", "--proxy-tlsauthtype",
      "--proxy-tlspassword", "--proxy-tlsuser", "--proxy-user", "--pubkey", "--quote", "--random-file", "--range", "--rate", "--referer", "--request", "--request-target", "--resolve", "--retry", "--retry-delay",
      "--retry-max-time", "--sasl-authzid", "--service-name", "--socks4", "--socks4a", "--socks5", "--socks5-gssapi-service", "--socks5-hostname", "--speed-limit", "--speed-time", "--stderr", "--telnet-option",
      "--tftp-blksize", "--time-cond", "--tls-max", "--tls13-ciphers", "--tlsauthtype", "--tlspassword", "--tlsuser", "--trace", "--trace-ascii", "--unix-socket", "--upload-file", "--url", "--url-query", "--user",
      "--user-agent", "--write-out",
    ],
    short: { x: "--proxy", K: "--config" },
    url: ["--url", "--proxy", "--preproxy", "--proxy1.0", "--socks4", "--socks4a", "--socks5", "--socks5-hostname", "--doh-url", "--dns-servers", "--ipfs-gateway"],
    resolve: ["--resolve"],
    connectTo: ["--connect-to"],
    local: ["--unix-socket", "--abstract-unix-socket"],
    config: ["--config"],
    urlFile: [],
    globOff: ["-g", "--globoff"],
    longFlags: CURL_LONG_FLAGS,
    abbreviate: true,
    expand: true,
    gateway: { schemes: /^ip[fn]s:/i, options: ["--ipfs-gateway"] },
  },
  wget: {
    valued: "eoaiBtOTwQPUlARDIXn",
    longValued: WGET_LONG_VALUED,
    short: { e: "--execute", i: "--input-file", B: "--base" },
    url: ["--base"],
    config: ["--config"],
    urlFile: ["--input-file"],
    settings: { options: ["--execute"], url: /^(?:https?_proxy|ftp_proxy|base)$/i, fromFile: /^(?:input|input_file)$/i },
    abbreviate: true,
  },
  wget2: {
    // wget2 takes wget's options and more; its own proxies are options too.
    valued: "eoaiBtOTwQPUlARDIXn",
    // The real wget2 1.99 fetches the word after `--compression` (its value only after `=`), as it does after `--no-proxy` and `--stats-*`.
    longValued: [...WGET_LONG_VALUED.filter((option) => option !== "--compression"), "--http-proxy", "--https-proxy", "--http-proxy-user", "--http-proxy-password", "--hsts-file", "--hpkp-file", "--ocsp-file", "--tls-session-file"],
    short: { e: "--execute", i: "--input-file", B: "--base" },
    url: ["--base", "--http-proxy", "--https-proxy"],
    config: ["--config"],
    urlFile: ["--input-file"],
    settings: { options: ["--execute"], url: /^(?:https?[_-]proxy|ftp_proxy|base)$/i, fromFile: /^(?:input|input[_-]file)$/i },
    abbreviate: true,
  },
  http: {
    strict: true,
    valued: "sopaAP",
    longValued: [
      "--boundary", "--raw", "--pretty", "--style", "--response-charset", "--response-mime", "--format-options", "--print", "--history-print", "--output", "--session", "--session-read-only", "--auth",
      "--auth-type", "--proxy", "--max-redirects", "--max-headers", "--timeout", "--verify", "--ssl", "--ciphers", "--cert", "--cert-key", "--cert-key-pass", "--default-scheme",
    ],
    short: { s: "--style", o: "--output", p: "--print", a: "--auth", A: "--auth-type", P: "--history-print", d: "--download" },
    flags: "jfxhmbvqScdFI",
    longFlags: [
      "--json", "--form", "--multipart", "--compress", "--unsorted", "--sorted", "--headers", "--meta", "--body", "--verbose", "--all", "--stream", "--download", "--continue", "--quiet", "--ignore-netrc",
      "--offline", "--follow", "--check-status", "--path-as-is", "--chunked", "--ignore-stdin", "--help", "--manual", "--version", "--traceback", "--debug",
    ],
    url: [],
    protocolUrl: ["--proxy"],
    config: [],
    urlFile: [],
    abbreviate: true,
    negated: true,
    operands: "method-url-items",
    localShorthand: true,
    effects: { "--output": "writes", "--download": "writes", "--session": "writes" },
    sendsItem: /^[^=:@]*(?::=@|=@|@)/,
  },
  aria2c: {
    strict: true,
    flags: "vhDVcnZPqRpS",
    valued: "tmldosijxkUuTOM",
    short: { v: "--version", h: "--help", t: "--timeout", m: "--max-tries", l: "--log", d: "--dir", o: "--out", s: "--split", D: "--daemon", V: "--check-integrity", c: "--continue", n: "--no-netrc", i: "--input-file", j: "--max-concurrent-downloads", Z: "--force-sequential", P: "--parameterized-uri", q: "--quiet", R: "--remote-time", x: "--max-connection-per-server", k: "--min-split-size", p: "--ftp-pasv", U: "--user-agent", S: "--show-files", u: "--max-upload-limit", T: "--torrent-file", O: "--index-out", M: "--metalink-file" },
    longFlags: [
      "--allow-overwrite", "--allow-piece-length-change", "--always-resume", "--async-dns", "--auto-file-renaming", "--bt-detach-seed-only", "--bt-enable-hook-after-hash-check", "--bt-enable-lpd",
      "--bt-force-encryption", "--bt-hash-check-seed", "--bt-load-saved-metadata", "--bt-metadata-only", "--bt-remove-unselected-file", "--bt-require-crypto", "--bt-save-metadata", "--bt-seed-unverified",
      "--check-certificate", "--check-integrity", "--conditional-get", "--content-disposition-default-utf8", "--continue", "--daemon", "--deferred-input", "--disable-ipv6", "--dry-run",
      "--enable-async-dns6", "--enable-color", "--enable-dht", "--enable-dht6", "--enable-http-keep-alive", "--enable-http-pipelining", "--enable-mmap", "--enable-peer-exchange", "--enable-rpc",
      "--force-save", "--force-sequential", "--ftp-pasv", "--ftp-reuse-connection", "--hash-check-only", "--help", "--http-accept-gzip", "--http-auth-challenge", "--http-no-cache", "--human-readable",
      "--keep-unfinished-download-result", "--metalink-enable-unique-protocol", "--no-conf", "--no-netrc", "--optimize-concurrent-downloads", "--parameterized-uri", "--pause", "--pause-metadata",
      "--quiet", "--realtime-chunk-checksum", "--remote-time", "--remove-control-file", "--reuse-uri", "--rpc-allow-origin-all", "--rpc-listen-all", "--rpc-save-upload-metadata", "--rpc-secure",
      "--save-not-found", "--show-console-readout", "--show-files", "--stderr", "--truncate-console-readout", "--use-head", "--version",
    ],
    longValued: [
      "--all-proxy", "--all-proxy-passwd", "--all-proxy-user", "--async-dns-server", "--auto-save-interval", "--bt-exclude-tracker", "--bt-external-ip", "--bt-lpd-interface", "--bt-max-open-files",
      "--bt-max-peers", "--bt-min-crypto-level", "--bt-prioritize-piece", "--bt-request-peer-speed-limit", "--bt-stop-timeout", "--bt-tracker", "--bt-tracker-connect-timeout", "--bt-tracker-interval",
      "--bt-tracker-timeout", "--ca-certificate", "--certificate", "--checksum", "--conf-path", "--connect-timeout", "--console-log-level", "--dht-entry-point", "--dht-entry-point6", "--dht-file-path",
      "--dht-file-path6", "--dht-listen-addr6", "--dht-listen-port", "--dht-message-timeout", "--dir", "--disk-cache", "--download-result", "--dscp", "--event-poll", "--file-allocation",
      "--follow-metalink", "--follow-torrent", "--ftp-passwd", "--ftp-proxy", "--ftp-proxy-passwd", "--ftp-proxy-user", "--ftp-type", "--ftp-user", "--gid", "--header", "--http-passwd", "--http-proxy",
      "--http-proxy-passwd", "--http-proxy-user", "--http-user", "--https-proxy", "--https-proxy-passwd", "--https-proxy-user", "--index-out", "--input-file", "--interface", "--listen-port",
      "--load-cookies", "--log", "--log-level", "--lowest-speed-limit", "--max-concurrent-downloads", "--max-connection-per-server", "--max-download-limit", "--max-download-result", "--max-file-not-found",
      "--max-mmap-limit", "--max-overall-download-limit", "--max-overall-upload-limit", "--max-resume-failure-tries", "--max-tries", "--max-upload-limit", "--metalink-base-uri", "--metalink-file",
      "--metalink-language", "--metalink-location", "--metalink-os", "--metalink-preferred-protocol", "--metalink-version", "--min-split-size", "--min-tls-version", "--multiple-interface", "--netrc-path",
      "--no-file-allocation-limit", "--no-proxy", "--on-bt-download-complete", "--on-download-complete", "--on-download-error", "--on-download-pause", "--on-download-start", "--on-download-stop", "--out",
      "--peer-agent", "--peer-id-prefix", "--piece-length", "--private-key", "--proxy-method", "--referer", "--retry-wait", "--rlimit-nofile", "--rpc-certificate", "--rpc-listen-port",
      "--rpc-max-request-size", "--rpc-passwd", "--rpc-private-key", "--rpc-secret", "--rpc-user", "--save-cookies", "--save-session", "--save-session-interval", "--seed-ratio", "--seed-time",
      "--select-file", "--server-stat-if", "--server-stat-of", "--server-stat-timeout", "--socket-recv-buffer-size", "--split", "--ssh-host-key-md", "--stop", "--stop-with-process",
      "--stream-piece-selector", "--summary-interval", "--timeout", "--torrent-file", "--uri-selector", "--user-agent",
    ],
    url: ["--all-proxy", "--http-proxy", "--https-proxy", "--ftp-proxy", "--metalink-base-uri"],
    urlList: ["--bt-tracker", "--dht-entry-point", "--dht-entry-point6", "--async-dns-server"],
    config: ["--conf-path"],
    urlFile: ["--input-file", "--torrent-file", "--metalink-file", "--save-session"],
    globOn: ["-P", "--parameterized-uri"],
    abbreviate: true,
    indirect: /^magnet:|\.(?:torrent|meta4|metalink)$/i,
    effects: {
      "--dir": "writes", "--out": "writes", "--log": "writes", "--save-cookies": "writes", "--dht-file-path": "writes", "--dht-file-path6": "writes", "--server-stat-of": "writes", "--index-out": "writes",
      "--on-download-start": "program", "--on-download-pause": "program", "--on-download-stop": "program", "--on-download-complete": "program", "--on-download-error": "program", "--on-bt-download-complete": "program",
      "--enable-rpc": "runs", "--daemon": "runs",
    },
  },
  "lwp-request": {
    strict: true,
    flags: LWP_FLAGS,
    valued: LWP_VALUED,
    short: { p: "--p", b: "--b" },
    longFlags: [...LWP_FLAGS].map((letter) => `--${letter}`),
    longValued: [...LWP_VALUED].map((letter) => `--${letter}`),
    url: ["--p", "--b"],
    config: [],
    urlFile: [],
  },
  lynx: {
    strict: true,
    valued: "",
    singleDash: "also",
    // The real lynx takes these four options' values only after `=` (`-cookie_file=FILE`): a next word is an operand.
    longFlags: [
      "-convert_to", "-cookie_file", "-cookie_save_file", "-nozap", "-accept_all_cookies", "-anonymous", "-base", "-book", "-buried_news", "-case", "-center", "-child", "-child_relaxed", "-collapse_br_tags", "-cookies", "-core", "-crawl", "-curses_pads",
      "-debug_partial", "-default_colors", "-dont_wrap_pre", "-dump", "-emacskeys", "-enable_scrollback", "-exec", "-force_empty_hrefless_a", "-force_html", "-force_secure", "-forms_options", "-from",
      "-ftp", "-get_data", "-head", "-help", "-historical", "-html5_charsets", "-image_links", "-ismap", "-justify", "-list_decoded", "-list_inline", "-listonly", "-localhost", "-locexec", "-mime_header",
      "-minimal", "-nested_tables", "-nobold", "-nobrowse", "-nocc", "-nocolor", "-noexec", "-nofilereferer", "-nolist", "-nolog", "-nomargins", "-nomore", "-nonrestarting_sigwinch", "-nonumbers",
      "-nopause", "-noprint", "-noredir", "-noreferer", "-noreverse", "-nostatus", "-notitle", "-nounderline", "-number_fields", "-number_links", "-partial", "-partial_thres", "-passive_ftp", "-popup",
      "-post_data", "-preparsed", "-prettysrc", "-print", "-pseudo_inlines", "-raw", "-realm", "-reload", "-resubmit_posts", "-rlogin", "-scrollbar", "-scrollbar_arrow", "-selective", "-short_url",
      "-show_cfg", "-show_cursor", "-show_rate", "-soft_dquotes", "-source", "-stack_dump", "-startfile_ok", "-stderr", "-stdin", "-syslog_urls", "-tagsoup", "-telnet", "-tlog", "-tna", "-trace",
      "-trace_mask", "-traversal", "-trim_blank_lines", "-trim_input_fields", "-underline_links", "-underscore", "-unique_urls", "-update_term_title", "-use_mouse", "-validate", "-verbose", "-version",
      "-vikeys", "-with_backspaces", "-xhtml_parsing",
    ],
    longValued: [
      "-assume_charset", "-assume_local_charset", "-assume_unrec_charset", "-auth", "-bibhost", "-cache", "-cfg", "-cmd_log", "-cmd_script", "-connect_timeout",       "-delay", "-display", "-display_charset", "-editor", "-error_file", "-hiddenlinks", "-homepage", "-index", "-link", "-lss", "-newschunksize", "-newsmaxchunk", "-pauth",
      "-read_timeout", "-restrictions", "-session", "-sessionin", "-sessionout", "-socks5_proxy", "-syslog", "-term", "-useragent", "-width",
    ],
    short: {},
    url: ["-socks5_proxy", "-homepage", "-index", "-bibhost"],
    config: ["-cfg"],
    urlFile: ["-cmd_script", "-sessionin", "-session"],
    effects: {
      "-cmd_log": "writes", "-cookie_save_file": "writes", "-cookie_file": "writes", "-error_file": "writes", "-sessionout": "writes", "-session": "writes", "-trace": "writes", "-crawl": "writes", "-traversal": "writes",
      "-editor": "program", "-exec": "runs", "-locexec": "runs",
    },
  },
  w3m: {
    strict: true,
    valued: "",
    singleDash: "only",
    longFlags: [
      "-r", "-B", "-m", "-v", "-M", "-H", "-N", "-F", "-dump", "-dump_head", "-dump_source", "-dump_both", "-dump_extra", "-num", "-no-proxy", "-4", "-6", "-insecure", "-no-mouse", "-cookie", "-no-cookie", "-graph",
      "-no-graph", "-s", "-W", "-X", "-title", "-show-option", "-debug", "-reqlog", "-help", "-version", "-halfdump", "-S", "-j",
    ],
    longValued: ["-t", "-l", "-I", "-O", "-bookmark", "-T", "-cols", "-ppc", "-ppl", "-post", "-header", "-o", "-config"],
    short: {},
    url: [],
    config: ["-config"],
    urlFile: [],
    // `-o KEY=VALUE` sets a configuration option: the proxies are places; the keys below change only how a page is shown or sent.
    settings: {
      options: ["-o"],
      url: /^(?:https?|ftp|gopher|nntp)_proxy$/i,
      fromFile: /^(?:bookmark_file|siteconf_file|urimethodmap|mailcap|mime_types|cgi_bin|cookie_file|history_file|pre_form_file)$/i,
      known: /^(?:display_charset|document_charset|system_charset|auto_detect|dns_order|use_proxy|no_proxy|no_cache|user_agent|accept_language|accept_encoding|accept_media|no_referer|cross_origin_referer|follow_redirection|meta_refresh|ssl_verify_server|ssl_ca_file|ssl_ca_path|ssl_forbid_method|ssl_min_version|tabstop|indent_incr|pixel_per_char|pixel_per_line|display_link_number|decode_url|use_cookie|accept_cookie|accept_bad_cookie|color|basic_color|anchor_color|image_color|form_color|frame|open_tab_blank|ignore_null_img_alt|display_image|auto_image|max_load_image|fold_line|fold_textarea|show_lnum|show_srch_str|label_topline|nextpage_topline|ext_dirlist|squeeze_blank_line|alt_entity|graphic_char|display_borders|disable_center|retry_http|default_url|argv_is_url|read_timeout)$/i,
    },
    effects: { "-post": "sends", "-reqlog": "writes" },
  },
  links: {
    strict: true,
    valued: "",
    singleDash: "only",
    noEquals: true,
    longFlags: [
      "-dump", "-source", "-anonymous", "-force-html", "-g", "-help", "-no-connect", "-no-g", "-no-libevent", "-no-openmp", "-version",
    ],
    longValued: [
      "-address-preference", "-aggressive-cache", "-append-text-to-dns-lookups", "-async-dns", "-bfu-aspect", "-bookmarks-codepage", "-bookmarks-file", "-codepage", "-display", "-display-blue-gamma",
      "-display-green-gamma", "-display-optimize", "-display-red-gamma", "-dither-images", "-dither-letters", "-dns-over-https", "-download-dir", "-download-utime", "-enable-cookies",
      "-font-cache-size", "-format-cache-size", "-ftp-proxy", "-ftp.anonymous-password", "-ftp.set-iptos", "-ftp.use-eprt-epsv", "-ftp.use-passive", "-gamma-correction", "-html-assume-codepage",
      "-html-auto-refresh", "-html-background-color", "-html-bare-image-autoscale", "-html-break-long-lines", "-html-display-images", "-html-frames", "-html-g-background-color",
      "-html-g-ignore-document-color", "-html-g-link-color", "-html-g-text-color", "-html-hard-assume", "-html-ignore-document-color", "-html-image-names", "-html-image-scale", "-html-images",
      "-html-link-color", "-html-numbered-links", "-html-table-order", "-html-tables", "-html-target-in-new-window", "-html-text-color", "-html-user-font-size", "-http-bugs.allow-blacklist",
      "-http-bugs.bug-no-accept-charset", "-http-bugs.http10", "-http-bugs.no-compression", "-http-bugs.retry-internal-errors", "-http-proxy", "-http.do-not-track", "-http.extra-header",
      "-http.fake-firefox", "-http.fake-referer", "-http.fake-user-agent", "-http.referer", "-https-proxy", "-image-cache-size", "-language", "-lookup", "-max-connections", "-max-connections-to-host",
      "-max-cookie-age", "-memory-cache-size", "-menu-background-color", "-menu-font-size", "-menu-foreground-color", "-no-proxy-domains", "-only-proxies", "-overwrite-instead-of-scroll",
      "-receive-timeout", "-retries", "-save-cookies", "-save-url-history", "-scroll-bar-area-color", "-scroll-bar-bar-color", "-scroll-bar-frame-color", "-smb.allow-hyperlinks-to-smb", "-socks-proxy",
      "-ssl.builtin-certificates", "-ssl.certificates", "-ssl.client-cert-crt", "-ssl.client-cert-key", "-ssl.client-cert-password", "-timeout-when-trying-multiple-addresses",
      "-unrestartable-receive-timeout", "-user-gamma", "-width",
    ],
    short: {},
    url: ["-http-proxy", "-https-proxy", "-ftp-proxy", "-socks-proxy", "-dns-over-https"],
    config: [],
    urlFile: [],
    effects: { "-download-dir": "writes" },
  },
};

/** The programs read with a fetcher's table, by name. */
const FETCHER_NAMES: Readonly<Record<string, keyof typeof FETCHERS>> = {
  curl: "curl",
  wget: "wget",
  wget2: "wget2",
  http: "http",
  https: "http",
  aria2c: "aria2c",
  "lwp-request": "lwp-request",
  GET: "lwp-request",
  HEAD: "lwp-request",
  POST: "lwp-request",
  lynx: "lynx",
  w3m: "w3m",
  links: "links",
};

/**
 * Programs that fetch from places named among their words without being HTTP clients: for each, the
 * subcommands that connect (after the program's global options; `[]` when any does), how a repository
 * operand is spelled, the options whose value is a place, and the options whose value is a file of
 * places the guard does not read. A word that holds `scheme://` is a place wherever it stands (after
 * a `NAME@` or a VCS prefix such as pip's `git+`); `repository` operands are also read in git's
 * `[user@]host:path` form (ssh) and git's `TRANSPORT::ADDRESS`; npm's `github:`, `gitlab:`,
 * `bitbucket:` and `gist:` shortcuts name their hosts.
 */
interface NetProgram {
  readonly subcommands: readonly (readonly string[])[];
  /** Options of the program itself before its subcommand (skipped: git's `-C DIR`). */
  readonly global?: OptionTable;
  /** Index (among the operands after the subcommand) of an operand that names a repository; -1 for none. */
  readonly repository?: Readonly<Record<string, number>>;
  /** Options whose value is a place (long names; short letters as `-i`), abbreviated as the program allows (`abbreviate`). */
  readonly placeOptions: readonly string[];
  /** Options whose value is a file the program reads places from (pip's `-r` requirements). */
  readonly placeFiles?: readonly string[];
  readonly abbreviate?: boolean;
  /** npm's `github:user/repo` shortcuts: the host each names. */
  readonly shortcuts?: Readonly<Record<string, string>>;
  /**
   * Subcommands that connect where the repository's configuration says: to the remote a name operand (the `repository`
   * operand, when it is no URL and no path) or no operand picks (`git fetch origin`, `git pull`), or to every remote or
   * submodule it lists (`git remote update`, `git submodule update`); and options that make one do so (`clone --recurse-submodules`).
   */
  readonly configured?: { readonly named: readonly string[]; readonly listed: readonly string[]; readonly options?: Readonly<Record<string, string>> };
}

/** npm's hosted-git shortcuts (npm-package-arg, hosted-git-info). */
const NPM_SHORTCUTS = { "github:": "https://github.com/", "gitlab:": "https://gitlab.com/", "bitbucket:": "https://bitbucket.org/", "gist:": "https://gist.github.com/" };

const NET_PROGRAMS: Readonly<Record<string, NetProgram>> = {
  // git(1): clone's repository, fetch/pull/push/ls-remote's repository, `remote add NAME URL`, `remote set-url NAME URL`, `submodule add URL`;
  // `--bundle-uri` (clone, fetch) and `archive --remote` connect too.
  git: {
    subcommands: [["clone"], ["fetch"], ["pull"], ["push"], ["ls-remote"], ["remote", "add"], ["remote", "set-url"], ["submodule", "add"], ["archive"], ["remote", "update"], ["remote", "show"], ["remote", "prune"], ["submodule", "update"], ["submodule", "sync"]],
    global: GIT_GLOBAL,
    configured: {
      named: ["fetch", "pull", "push", "ls-remote"],
      listed: ["remote update", "remote show", "remote prune", "submodule update", "submodule sync"],
      options: { "--recurse-submodules": "the submodules the cloned repository lists", "--recursive": "the submodules the cloned repository lists", "--all": "every remote the repository's configuration lists", "--multiple": "the remotes or groups the repository's configuration names" },
    },
    repository: { clone: 0, fetch: 0, pull: 0, push: 0, "ls-remote": 0, "remote add": 1, "remote set-url": 1, "submodule add": 0 },
    placeOptions: ["--bundle-uri", "--remote"],
  },
  // pip (optparse: long options abbreviated to a unique prefix): index and link options, proxies; `-r`/`-c` files name more.
  pip: {
    subcommands: [["install"], ["download"], ["wheel"], ["index"]],
    placeOptions: ["-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--proxy"],
    placeFiles: ["-r", "--requirement", "-c", "--constraint"],
    abbreviate: true,
  },
  npm: {
    subcommands: [["install"], ["i"], ["add"], ["in"], ["ins"], ["inst"], ["insta"], ["instal"], ["isnt"], ["isntal"], ["isntall"], ["install-test"], ["it"], ["update"], ["up"], ["ci"], ["exec"], ["x"], ["view"], ["info"], ["show"], ["pack"], ["publish"], ["login"], ["adduser"], ["ping"]],
    placeOptions: ["--registry", "--proxy", "--https-proxy"],
    shortcuts: NPM_SHORTCUTS,
  },
  pnpm: { subcommands: [["add"], ["install"], ["i"], ["update"], ["up"], ["dlx"]], placeOptions: ["--registry"], shortcuts: NPM_SHORTCUTS },
  yarn: { subcommands: [["add"], ["install"], ["upgrade"], ["dlx"]], placeOptions: ["--registry"], shortcuts: NPM_SHORTCUTS },
  npx: { subcommands: [[]], placeOptions: ["--registry"], shortcuts: NPM_SHORTCUTS },
  // uv (`uv pip install`, `uv add`, `uv tool install`/`run`, `uvx`): index options (`--index NAME=URL` too), `--from git+URL`, URL operands.
  uv: {
    subcommands: [["pip", "install"], ["pip", "compile"], ["pip", "sync"], ["add"], ["sync"], ["lock"], ["tool", "install"], ["tool", "run"], ["tool", "upgrade"], ["run"]],
    placeOptions: ["--index-url", "-i", "--extra-index-url", "--index", "--default-index", "-f", "--find-links", "--from", "--with"],
    placeFiles: ["-r", "--requirement", "-c", "--constraint", "--with-requirements"],
  },
  uvx: { subcommands: [[]], placeOptions: ["--index-url", "-i", "--extra-index-url", "--index", "--default-index", "-f", "--find-links", "--from", "--with"], placeFiles: ["--with-requirements"] },
  // pipx: `--index-url`, `--spec` (a URL or git+URL), `--pip-args` holding pip's index options, URL operands.
  pipx: { subcommands: [["install"], ["run"], ["inject"], ["upgrade"], ["reinstall"]], placeOptions: ["--index-url", "-i", "--spec", "--pip-args"], abbreviate: true },
  // cargo install: `--git URL`, `--index URL`; `--registry NAME` is a registry the configuration (or CARGO_REGISTRIES_NAME_INDEX) names.
  cargo: { subcommands: [["install"], ["add"], ["search"], ["publish"]], placeOptions: ["--git", "--index"], configured: { named: [], listed: [], options: { "--registry": "the registry the configuration names" } } },
  // RubyGems (OptionParser: long options abbreviated): `--source URL`/`-s URL`, `gem sources --add URL`.
  gem: { subcommands: [["install"], ["fetch"], ["update"], ["sources"], ["search"], ["list"]], placeOptions: ["--source", "-s", "--add", "-a", "--http-proxy", "-p"], abbreviate: true },
};
const NET_PROGRAM_NAMES: Readonly<Record<string, string>> = { git: "git", pip: "pip", pip3: "pip", pip2: "pip", npm: "npm", pnpm: "pnpm", yarn: "yarn", npx: "npx", uv: "uv", uvx: "uvx", pipx: "pipx", cargo: "cargo", gem: "gem" };

/** A URL's start in a word (`x@https://…`, `git+https://…`, `pkg @ https://…`): `scheme://…`, VCS prefixes dropped. */
const URL_IN_WORD = /(?:^|[@=\s])(?:(?:git|hg|svn|bzr)\+)?([a-z][a-z0-9.-]*:\/\/.*)$/is;

/** git's `[user@]host:path` (ssh) form of a repository: no `://`, a colon before any slash, not a drive letter. */
function gitScpPlace(word: string): string | undefined {
  const match = /^(?:([^@/:]+)@)?(\[[^\]/]+\]|[^@/:[\]]{2,}):(?!\/\/)(.*)$/.exec(word);
  if (match === null || word.includes("://")) return undefined;
  return `ssh://${match[1] === undefined ? "" : `${match[1]}@`}${match[2]!}/${match[3]!.replace(/^\/+/, "")}`;
}

/**
 * Where a NET_PROGRAMS program connects: the places its words name (see NetProgram), read as a
 * fetcher's are, the forms a deny tries being the words up to the subcommand followed by each place.
 * Undefined when the command connects nowhere the table knows. `placesUnknown`: a file of places.
 */
function readNetProgram(name: string, words: readonly string[]): { connects: Connects; placesUnknown: string | undefined } | undefined {
  const key = Object.hasOwn(NET_PROGRAM_NAMES, name) ? NET_PROGRAM_NAMES[name]! : undefined;
  const spec = key === undefined ? undefined : NET_PROGRAMS[key];
  if (spec === undefined) return undefined;
  let start = 1;
  if (spec.global !== undefined) {
    const parsed = parseOptions(words, 1, spec.global, name);
    if (parsed.unknown !== undefined) return undefined;
    start = parsed.next;
  }
  const path = spec.subcommands.find((sub) => sub.every((word, i) => words[start + i] === word));
  if (path === undefined) return undefined;
  const prefix = [words[0] ?? name, ...words.slice(start, start + path.length)];
  const places: { word: string; text: string }[] = [];
  const operands: string[] = [];
  let placesUnknown: string | undefined;
  /** The configured-remote part of placesUnknown (Connects.configured). */
  let configuredWhy: string | undefined;
  const matchOption = (option: string, list: readonly string[]) =>
    list.includes(option) || (spec.abbreviate === true && option.startsWith("--") && option.length > 4 && list.some((long) => long.startsWith(option)));
  const asPlace = (word: string, value: string) => {
    const shortcut = Object.entries(spec.shortcuts ?? {}).find(([head]) => value.startsWith(head));
    if (shortcut !== undefined) places.push({ word, text: `${shortcut[1]}${value.slice(shortcut[0].length)}` });
    else places.push({ word, text: URL_IN_WORD.exec(value)?.[1] ?? value });
  };
  let options = true;
  for (let i = start + path.length; i < words.length; i++) {
    const word = words[i]!;
    if (options && word === "--") {
      options = false;
      continue;
    }
    if (options && word.startsWith("-") && word.length > 1) {
      const eq = word.indexOf("=");
      const long = word.startsWith("--");
      const option = long ? (eq < 0 ? word : word.slice(0, eq)) : word.slice(0, 2);
      const attached = long ? (eq < 0 ? undefined : word.slice(eq + 1)) : word.length > 2 ? word.slice(2).replace(/^=/, "") : undefined;
      const place = matchOption(option, spec.placeOptions);
      const file = matchOption(option, spec.placeFiles ?? []);
      if (place || file) {
        const value = attached ?? words[++i];
        if (value === undefined) continue;
        if (place) asPlace(`${option} ${value}`, value);
        else placesUnknown ??= `${name} reads what it fetches, and from where, from the file given with ${option} (${value}), which the guard does not read`;
        continue;
      }
      // Any other option's value: a place when it holds a URL (`--config=remote.x.url=…` aside, read elsewhere).
      if (attached !== undefined && URL_IN_WORD.test(attached) && long) asPlace(word, attached);
      continue;
    }
    operands.push(word);
    const shortcut = Object.keys(spec.shortcuts ?? {}).some((head) => word.startsWith(head));
    if (shortcut || URL_IN_WORD.test(word)) asPlace(word, word);
  }
  const repository = spec.repository?.[path.join(" ")];
  const repo = repository === undefined ? undefined : operands[repository];
  // A remote given by name (or none: the branch's remote), a list of remotes or submodules: the URLs are the configuration's
  // (`remote.NAME.url`, rewritten by `url.BASE.insteadOf`), which the guard does not read.
  const configured = spec.configured;
  if (configured !== undefined) {
    const sub = path.join(" ");
    const option = Object.keys(configured.options ?? {}).find((name) => words.slice(start + path.length).some((word) => word === name || word.startsWith(`${name}=`)));
    if (option !== undefined && !/=(?:no|false|0)$/i.test(words.find((word) => word.startsWith(`${option}=`)) ?? "")) configuredWhy = `${name} ${sub} ${option} connects to ${configured.options![option]!}, at URLs the guard does not read`;
    else if (configured.listed.includes(sub)) configuredWhy = `${name} ${sub} connects to the URLs the repository's configuration lists, which the guard does not read`;
    else if (configured.named.includes(sub) && (repo === undefined || (!URL_IN_WORD.test(repo) && !/::/.test(repo) && gitScpPlace(repo) === undefined && !/^(?:[./~]|$)/.test(repo))))
      configuredWhy = `${name} ${sub} connects to the URL the repository's configuration gives ${repo === undefined ? "the current branch's remote" : `the remote ${repo}`}, which the guard does not read`;
    placesUnknown ??= configuredWhy;
  }
  // `-c url.BASE.insteadOf=PREFIX` rewrites a URL to BASE, `-c remote.NAME.url=URL` names a remote's place, `-c http.proxy=URL` a proxy.
  if (spec.global !== undefined) {
    const parsed = parseOptions(words, 1, spec.global, name);
    for (const { name: option, value } of parsed.seen) {
      if (value === undefined) continue;
      if (option === "--config-env") {
        if (/^(?:url\.|remote\.|https?\.)/i.test(value)) placesUnknown ??= `${name} --config-env ${value} takes a place from the environment, which the guard does not read`;
        continue;
      }
      if (option !== "-c") continue;
      const setting = /^url\.(.+)\.(?:push)?insteadof=/is.exec(value) ?? /^remote\.(?:.+)\.(?:push)?url=(.*)$/is.exec(value) ?? /^(?:https?\.(?:.*\.)?proxy|remote\.(?:.+)\.proxy)=(.*)$/is.exec(value);
      if (setting !== null && setting[1] !== "") asPlace(`-c ${value}`, setting[1]!);
    }
  }
  if (repo !== undefined && !URL_IN_WORD.test(repo)) {
    // git's `TRANSPORT::ADDRESS` (a remote helper; `ext::` is read as the command it runs) and `[user@]host:path`.
    const helper = /^[A-Za-z][A-Za-z0-9+.-]*::(.*)$/s.exec(repo);
    const scp = helper === null ? gitScpPlace(repo) : undefined;
    if (helper !== null && !/^ext::/i.test(repo)) places.push({ word: repo, text: helper[1]! });
    else if (scp !== undefined) places.push({ word: repo, text: scp });
  }
  if (places.length === 0 && placesUnknown === undefined) return undefined;
  const read = readPlaces(name, prefix, places);
  const connects = configuredWhy === undefined ? read : { ...read, configured: configuredWhy };
  return { connects, placesUnknown: placesUnknown ?? connects.unknown };
}

/**
 * Programs that connect to a host named among their words without a URL (their manuals): the options that take a
 * value (getopt: attached or the next word), the options whose value is a host (`[user@]host[:port]`, a
 * comma-separated list for ssh's `-J`), and which operands are hosts: `all` (netcat and telnet: `HOST PORT`, every
 * operand that is no port), `first` (ssh: the destination, the rest a command), `remote` (scp, rsync, sftp:
 * `[user@]host:path` operands), `addresses` (socat: `TCP:HOST:PORT`, `OPENSSL:…`, `PROXY:PROXY:HOST:PORT`,
 * `SOCKS4:SOCKS:HOST:PORT`, …); `conninfo` (psql: `host=` in a connection string). A word holding `scheme://` is a
 * place wherever it stands (`psql postgresql://HOST/db`, `redis-cli -u redis://HOST`). The host is resolved as
 * getaddrinfo resolves it, so `0x7f.1` and `2130706433` are 127.0.0.1: it is read as a URL's host is.
 */
interface HostProgram {
  /** Short options that take a value. */
  readonly valued: string;
  /** Long options that take a value. */
  readonly longValued?: readonly string[];
  /** Options whose value is a host. */
  readonly hostOptions: readonly string[];
  /** `-o Key=Value` settings whose key names a host (ssh's `HostName`, `ProxyJump`). */
  readonly hostSettings?: { readonly option: string; readonly keys: RegExp };
  readonly operands: "all" | "first" | "remote" | "addresses" | "conninfo" | "none";
  /** Options are spelled with one dash (openssl's `-connect`). */
  readonly singleDash?: boolean;
  /** The subcommands that connect (openssl's `s_client`); any when absent. */
  readonly subcommands?: readonly string[];
}

/**
 * rsync's options (rsync(1)): its short letters, those that take a value (`-e CMD`, `-f RULE`, `-B SIZE`, `-T DIR`,
 * `-M OPT`, `-@ NUM`), and the long options that take the next word as their value; any other long option is a flag or
 * `--name=value` (popt takes no abbreviations).
 */
const RSYNC_OPTIONS: OptionTable = {
  flags: "vqcarRbulLkKHpEAXogDtOJUNihmdxzCIWSysn0PF468",
  valued: "efBTM@",
  anyLongEq: true,
  long: ["--delete", "--del", "--delete-before", "--delete-during", "--delete-delay", "--delete-after", "--delete-excluded", "--delete-missing-args", "--remove-source-files", "--remove-sent-files"],
  longValued: ["--rsh", "--rsync-path", "--port", "--address", "--sockopts", "--password-file", "--files-from", "--exclude", "--include", "--exclude-from", "--include-from", "--filter", "--log-file", "--log-file-format", "--temp-dir", "--compare-dest", "--copy-dest", "--link-dest", "--backup-dir", "--suffix", "--chmod", "--chown", "--usermap", "--groupmap", "--timeout", "--contimeout", "--bwlimit", "--max-size", "--min-size", "--max-delete", "--block-size", "--partial-dir", "--out-format", "--info", "--debug", "--remote-option", "--modify-window", "--checksum-choice", "--compress-choice", "--compress-level", "--skip-compress", "--iconv", "--write-batch", "--only-write-batch", "--read-batch", "--protocol", "--checksum-seed", "--outbuf", "--stop-after", "--stop-at", "--max-alloc"],
};

const NETCAT: HostProgram = { valued: "IiMmOPpqsTVWwXxe", longValued: ["--proxy", "--proxy-type", "--proxy-auth", "--source", "--source-port", "--wait", "--idle-timeout", "--exec", "--sh-exec", "--lua-exec", "--output", "--hex-dump", "--max-conns", "--delay", "--allow", "--deny", "--allowfile", "--denyfile"], hostOptions: ["-x", "--proxy"], operands: "all" };
const SSH: HostProgram = { valued: "BbcDEeFIiJLlmOoPpQRSWw", hostOptions: ["-J"], hostSettings: { option: "-o", keys: /^(?:hostname|proxyjump)$/i }, operands: "first" };
const SCP: HostProgram = { valued: "cDFiJlOoPSX", hostOptions: ["-J"], hostSettings: { option: "-o", keys: /^(?:hostname|proxyjump)$/i }, operands: "remote" };
const HOST_PROGRAMS: Readonly<Record<string, HostProgram>> = {
  nc: NETCAT,
  netcat: NETCAT,
  "nc.openbsd": NETCAT,
  "nc.traditional": NETCAT,
  ncat: NETCAT,
  telnet: { valued: "Xbeklns", hostOptions: [], operands: "all" },
  ssh: SSH,
  slogin: SSH,
  scp: SCP,
  sftp: { valued: "BbcDFiJlOoPRSs", hostOptions: ["-J"], hostSettings: { option: "-o", keys: /^(?:hostname|proxyjump)$/i }, operands: "remote" },
  rsync: { valued: RSYNC_OPTIONS.valued!, longValued: RSYNC_OPTIONS.longValued!, hostOptions: [], operands: "remote" },
  socat: { valued: "", hostOptions: [], operands: "addresses" },
  openssl: { valued: "", hostOptions: ["-connect", "-host", "-proxy"], operands: "none", singleDash: true, subcommands: ["s_client", "s_time"] },
  "redis-cli": { valued: "hpsaunrid", longValued: ["--user", "--pass", "--tls", "--sni", "--cacert", "--cacertdir", "--cert", "--key"], hostOptions: ["-h"], operands: "none" },
  psql: { valued: "cdfhLopPRTUvF", longValued: ["--command", "--dbname", "--file", "--host", "--log-file", "--output", "--port", "--pset", "--record-separator", "--table-attr", "--username", "--set", "--variable", "--field-separator"], hostOptions: ["-h", "--host"], operands: "conninfo" },
  mysql: { valued: "hPuDepSe", longValued: ["--host", "--port", "--user", "--database", "--execute", "--socket", "--password"], hostOptions: ["-h", "--host"], operands: "none" },
  mariadb: { valued: "hPuDepSe", longValued: ["--host", "--port", "--user", "--database", "--execute", "--socket", "--password"], hostOptions: ["-h", "--host"], operands: "none" },
  mongosh: { valued: "upf", longValued: ["--host", "--port", "--username", "--password", "--eval", "--file", "--authenticationDatabase"], hostOptions: ["--host"], operands: "first" },
};

/** A host as written among a program's words (`[user@]host[:port]`, `[v6]:port`), as a URL the url kind reads; undefined for a port, a path or an empty word. */
function hostPlace(word: string, numeric = true): string | undefined {
  const host = word.replace(/^[^@/]*@/, "");
  if (host === "" || (!numeric && /^[\d,-]+$/.test(host)) || /^[./~]/.test(host) || /\s/.test(host) || host.includes("/")) return undefined;
  // A bare IPv6 address (`::1`, `fe80::1%lo`) is one host, not host:port.
  if (!host.startsWith("[") && (host.match(/:/g) ?? []).length > 1) return `http://[${host}]/`;
  return `http://${host}/`;
}

/** socat's address (`TCP:HOST:PORT,opts`, `OPENSSL-CONNECT:…`, `PROXY:PROXY:HOST:PORT`, `SOCKS4A:SOCKS:HOST:PORT`): the hosts it connects to. */
function socatHosts(address: string): string[] {
  const fields = address.split(",")[0]!.split(":");
  const type = fields[0]!.toUpperCase();
  const options = address.split(",").slice(1);
  const out: string[] = [];
  if (/^(?:TCP[46]?|TCP[46]?-CONNECT|OPENSSL|OPENSSL-CONNECT|SSL|UDP[46]?|UDP[46]?-CONNECT|UDP[46]?-SENDTO|UDP[46]?-DATAGRAM|SCTP[46]?|SCTP[46]?-CONNECT|DCCP[46]?|DCCP-CONNECT|UDPLITE[46]?|UDPLITE-CONNECT)$/.test(type) && fields.length >= 2) out.push(fields.slice(1, -1).join(":") || fields[1]!);
  if (/^(?:PROXY|PROXY-CONNECT|SOCKS4A?|SOCKS5|SOCKS5-CONNECT|SOCKS4A?-CONNECT)$/.test(type) && fields.length >= 3) out.push(fields[1]!, fields[2]!);
  for (const option of options) {
    const set = /^(?:bind|proxy|socksproxy)=(.*)$/i.exec(option);
    if (set !== null && !/^bind/i.test(option)) out.push(set[1]!.split(":")[0]!);
  }
  return out.filter((host) => host !== "");
}

/** Where a HOST_PROGRAMS program connects: the hosts its words name, read as a URL's host; undefined when it names none. */
function readHostProgram(name: string, words: readonly string[]): { connects: Connects; placesUnknown: string | undefined } | undefined {
  const spec = Object.hasOwn(HOST_PROGRAMS, name) ? HOST_PROGRAMS[name]! : undefined;
  if (spec === undefined) return undefined;
  let start = 1;
  if (spec.subcommands !== undefined) {
    if (!spec.subcommands.includes(words[1] ?? "")) return undefined;
    start = 2;
  }
  const places: { word: string; text: string }[] = [];
  const operands: string[] = [];
  // `numeric`: a number is a host there (`nc 2130706433 80`: the first operand; an option's value), not a port.
  const asHost = (word: string, host: string, numeric = true) => {
    const text = URL_IN_WORD.exec(host)?.[1] ?? hostPlace(host, numeric);
    if (text !== undefined) places.push({ word, text });
  };
  let options = true;
  for (let i = start; i < words.length; i++) {
    const word = words[i]!;
    if (options && word === "--") {
      options = false;
      continue;
    }
    if (options && word.startsWith("-") && word.length > 1) {
      const long = word.startsWith("--") || spec.singleDash === true;
      const eq = word.indexOf("=");
      const option = long ? (eq < 0 ? word : word.slice(0, eq)) : word.slice(0, 2);
      let value: string | undefined = long ? (eq < 0 ? undefined : word.slice(eq + 1)) : undefined;
      if (!long) {
        // A cluster of short flags ends at the first letter that takes a value (`-vw3`, `-4x host:port`).
        const letters = word.slice(1);
        const at = [...letters].findIndex((letter) => spec.valued.includes(letter));
        if (at < 0) continue;
        const letter = letters[at]!;
        const rest = letters.slice(at + 1);
        value = rest === "" ? words[++i] : rest;
        if (value === undefined) continue;
        const short = `-${letter}`;
        if (spec.hostOptions.includes(short)) for (const host of value.split(",")) asHost(`${short} ${value}`, host);
        // `redis-cli -u redis://HOST`, `mongosh -u …`: any option's value that holds a URL names a place.
        else if (URL_IN_WORD.test(value)) asHost(`${short} ${value}`, value);
        if (spec.hostSettings?.option === short) {
          const setting = /^([A-Za-z]+)[=\s]+(.*)$/.exec(value);
          if (setting !== null && spec.hostSettings.keys.test(setting[1]!)) for (const host of setting[2]!.split(",")) asHost(`${short} ${value}`, host);
        }
        continue;
      }
      const takes = spec.singleDash === true || spec.hostOptions.includes(option) || (spec.longValued ?? []).includes(option);
      if (value === undefined && takes) value = words[++i];
      if (value === undefined) continue;
      if (spec.hostOptions.includes(option)) for (const host of value.split(",")) asHost(`${option} ${value}`, host);
      else if (URL_IN_WORD.test(value)) asHost(word, value);
      continue;
    }
    operands.push(word);
  }
  const hosts = spec.operands === "all" ? operands : spec.operands === "first" ? operands.slice(0, 1) : [];
  for (const [i, operand] of hosts.entries()) asHost(operand, operand, i === 0);
  for (const operand of operands) {
    if (spec.operands === "remote") {
      const scp = URL_IN_WORD.test(operand) ? undefined : gitScpPlace(operand.replace(/::/, ":"));
      if (scp !== undefined) places.push({ word: operand, text: scp });
      else if (URL_IN_WORD.test(operand)) asHost(operand, operand);
    }
    if (spec.operands === "addresses") for (const host of socatHosts(operand)) asHost(operand, host);
    if (spec.operands === "conninfo") {
      if (URL_IN_WORD.test(operand)) asHost(operand, operand);
      for (const match of operand.matchAll(/(?:^|\s)host(?:addr)?\s*=\s*'?([^\s']+)/gi)) for (const host of match[1]!.split(",")) asHost(operand, host);
    }
  }
  if (places.length === 0) return undefined;
  const connects = readPlaces(name, words.slice(0, start), places);
  return { connects, placesUnknown: connects.unknown };
}

/** A long option as the program matches it: the name itself, or the one name of `names` it is a prefix of (`--prox` is `--proxy` only when no other name starts so). */
function longOption(names: readonly string[], name: string, abbreviate: boolean): string | undefined {
  if (names.includes(name)) return name;
  if (!abbreviate) return undefined;
  const matches = names.filter((long) => long.startsWith(name));
  return name.length > 3 && matches.length === 1 ? matches[0] : undefined;
}

/** At most this many URLs from one curl glob; more cannot be read. */
const MAX_GLOB_URLS = 64;

/** The URLs curl's globbing makes of one (`{a,b}` alternatives, `[1-3]`/`[a-c]`/`[01-10:2]` ranges; `[::1]` is an IPv6 address); undefined beyond `MAX_GLOB_URLS`. */
function curlGlob(url: string): string[] | undefined {
  let urls = [url];
  for (let round = 0; round < 16; round++) {
    const next: string[] = [];
    let changed = false;
    for (const text of urls) {
      const group = /(?<!\\)\{([^{}]*)\}|(?<!\\)\[([^\][]*)\]/.exec(text);
      const range = group?.[2] === undefined ? undefined : /^([0-9]+|[a-zA-Z])-([0-9]+|[a-zA-Z])(?::(\d+))?$/.exec(group[2]);
      if (group === null || (group[2] !== undefined && range === null)) {
        next.push(text);
        continue;
      }
      changed = true;
      const head = text.slice(0, group.index);
      const tail = text.slice(group.index + group[0].length);
      if (group[1] !== undefined) for (const part of group[1].split(",")) next.push(`${head}${part}${tail}`);
      else {
        const [, from, to, step] = range!;
        const numeric = /^\d/.test(from!);
        const start = numeric ? Number(from) : from!.charCodeAt(0);
        const end = numeric ? Number(to) : to!.charCodeAt(0);
        for (let at = start; at <= end && next.length <= MAX_GLOB_URLS; at += Math.max(1, Number(step ?? 1))) next.push(`${head}${numeric ? String(at).padStart(from!.length, "0") : String.fromCharCode(at)}${tail}`);
      }
      if (next.length > MAX_GLOB_URLS) return undefined;
    }
    urls = next;
    if (!changed) return urls;
  }
  return undefined;
}

/** Where a fetcher connects (`connects`), and what else its options do (refusals, and the commands its hooks run). */
interface FetcherReading {
  readonly connects: Connects;
  readonly refusals: Refusal[];
  readonly commands: string[][];
  /** The files its output options name (`-o FILE`, `-O FILE`). */
  readonly writes: string[];
  /** The words with each abbreviated or expanded long option spelled out (`--trace-asc F` as `--trace-ascii F`), for OPTION_EFFECTS. */
  readonly canonical: readonly string[];
}

/** HTTPie's localhost shorthand: `:3000/x` is http://localhost:3000/x. */
const LOCAL_SHORTHAND = /^:(?!:)(\d*)(.*)$/;

/**
 * Where a fetcher connects, read from its words: each URL operand (and `--url`), with globs
 * expanded; proxies and other hosts named in options; `--resolve`/`--connect-to` targets; a local
 * socket as localhost. A URL with another scheme (`gopher://`, `dict://`, `socks5://`) is also read
 * for its host as an http URL (WHATWG leaves such hosts unnormalised; the program does not).
 */
function readFetcher(spec: FetcherSpec, name: string, words: readonly string[]): FetcherReading {
  const places: { word: string; text: string }[] = [];
  const operandWords: string[] = [];
  const refusals: Refusal[] = [];
  const commands: string[][] = [];
  const writes: string[] = [];
  const canonical = [...words];
  let unknown: string | undefined;
  const strict = spec.strict === true;
  const flags = spec.longFlags ?? [];
  let glob = spec.globOff !== undefined;
  let gatewayNamed = false;
  let operands = true;
  const unknownOption = (word: string) => (unknown ??= `${name} takes ${word}, an option the guard does not know`);
  const effect = (option: string, shown: string, value: string | undefined) => {
    const what = spec.effects?.[option];
    if (what === "writes") {
      refusals.push({ reason: `${name} writes a file through ${shown}`, token: shown });
      if (value !== undefined && value !== "" && value !== "-") writes.push(value);
    }
    else if (what === "sends") refusals.push({ reason: `${name} sends the file given with ${shown}`, token: shown });
    else if (what === "runs") refusals.push({ reason: `${name} ${shown} runs programs or takes commands the guard does not read`, token: shown });
    else if (what === "program") {
      refusals.push({ reason: `${name} runs a command through ${shown}`, token: shown });
      if (value === undefined || value === "") unknown ??= `${name} ${shown} has no value`;
      else commands.push([value]);
    }
  };
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    let option: string | undefined;
    let value: string | undefined;
    let shown = word;
    let expanded = false;
    if (operands && word === "--") {
      operands = false;
      continue;
    }
    if (operands && spec.singleDash !== undefined && word.startsWith("-") && word.length > 1) {
      // lynx, w3m and links: every option is a word of its own (`-dump`, `-cfg=FILE`, `-o KEY=VALUE`).
      const spelled = spec.singleDash === "also" && word.startsWith("--") ? word.slice(1) : word;
      const eq = spec.noEquals === true ? -1 : spelled.indexOf("=");
      const base = eq < 0 ? spelled : spelled.slice(0, eq);
      shown = base;
      if (spec.longValued.includes(base)) {
        option = base;
        value = eq < 0 ? words[++i] : spelled.slice(eq + 1);
      } else {
        if (flags.includes(base)) effect(base, base, undefined);
        else unknownOption(word);
        continue;
      }
    } else if (operands && word.startsWith("--") && word.length > 2) {
      const eq = word.indexOf("=");
      let base = eq < 0 ? word : word.slice(0, eq);
      // curl 8.3: `--expand-NAME` is NAME with `{{variables}}` expanded in its value.
      if (spec.expand === true && base.startsWith("--expand-")) {
        base = `--${base.slice("--expand-".length)}`;
        expanded = true;
      }
      if (spec.globOff?.includes(word) === true) glob = false;
      if (spec.globOn?.includes(word) === true) glob = true;
      const long = longOption(spec.longValued, base, spec.abbreviate === true);
      if (long === undefined) {
        const flag = longOption(flags, base, spec.abbreviate === true) ?? (spec.negated === true && base.startsWith("--no-") ? longOption([...flags, ...spec.longValued], `--${base.slice(5)}`, spec.abbreviate === true) : undefined);
        if (flag !== undefined) {
          if (flag !== base && flag.startsWith(base)) canonical[i] = eq < 0 ? flag : `${flag}${word.slice(eq)}`;
          if (spec.globOn?.includes(flag) === true) glob = eq < 0 || !/^false$/i.test(word.slice(eq + 1));
          effect(flag, base, undefined);
        } else if (strict) unknownOption(word);
        else if (spec.abbreviate === true && base.length > 3) {
          // A prefix of several options is refused by this version, but a version without some of them takes it as the other
          // (`--upload-f` is --upload-file to curl before 8.13, which has no --upload-flags).
          const several = [...spec.longValued, ...flags].filter((long) => long.startsWith(base));
          if (several.length > 1) unknown ??= `${name} takes ${base}, a prefix of ${several.join(", ")}: a version without some of them reads it as the other`;
        }
        continue;
      }
      option = long;
      shown = base;
      if (long !== base || expanded) canonical[i] = eq < 0 ? long : `${long}${word.slice(eq)}`;
      value = eq < 0 ? words[++i] : word.slice(eq + 1);
    } else if (operands && word.startsWith("-") && word.length > 1) {
      for (let at = 1; at < word.length; at++) {
        const letter = word[at]!;
        if (spec.globOff?.includes(`-${letter}`) === true) glob = false;
        if (spec.globOn?.includes(`-${letter}`) === true) glob = true;
        if (spec.valued.includes(letter)) {
          option = spec.short[letter] ?? `-${letter}`;
          shown = `-${letter}`;
          value = at + 1 < word.length ? word.slice(at + 1) : words[++i];
          break;
        }
        if (strict && spec.flags?.includes(letter) !== true) {
          unknownOption(`-${letter}`);
          break;
        }
        if (spec.short[letter] !== undefined) effect(spec.short[letter]!, `-${letter}`, undefined);
      }
      if (option === undefined) continue;
    } else {
      operandWords.push(word);
      continue;
    }
    if (value === undefined) continue;
    effect(option, shown, value);
    if (spec.gateway?.options.includes(option) === true) gatewayNamed = true;
    const connects = spec.url.includes(option) || spec.protocolUrl?.includes(option) === true || spec.urlList?.includes(option) === true || spec.resolve?.includes(option) === true || spec.connectTo?.includes(option) === true || spec.local?.includes(option) === true || spec.config.includes(option) || spec.urlFile.includes(option);
    if (expanded && value.includes("{{")) {
      if (connects) unknown ??= `${name} expands variables in ${shown} ${value}, so where it connects is known only when it runs`;
      else refusals.push({ reason: `${name} expands variables (which may hold a file's contents) in ${shown}`, token: `--expand-${option.slice(2)}` });
      continue;
    }
    if (spec.url.includes(option)) places.push({ word: `${option} ${value}`, text: option === "--dns-servers" ? value.split(",")[0] ?? "" : value });
    else if (spec.protocolUrl?.includes(option) === true) places.push({ word: `${option} ${value}`, text: value.slice(value.indexOf(":") + 1) });
    else if (spec.urlList?.includes(option) === true) for (const part of value.split(",")) places.push({ word: `${option} ${value}`, text: part.trim() });
    else if (spec.resolve?.includes(option) === true) {
      const match = /^[^:]*:[^:]*:(.*)$/.exec(value);
      for (const address of (match?.[1] ?? value).split(",")) places.push({ word: `${option} ${value}`, text: address.startsWith("[") ? address : address.includes(":") ? `[${address}]` : address });
    } else if (spec.connectTo?.includes(option) === true) {
      const match = /^(?:\[[^\]]*\]|[^:]*):[^:]*:(\[[^\]]*\]|[^:]*):(\d*)$/.exec(value);
      if (match === null) unknown ??= `${name} connects through ${option} ${value}, which the guard cannot read`;
      else if (match[1] !== "") places.push({ word: `${option} ${value}`, text: `${match[1]!}${match[2] === "" ? "" : `:${match[2]!}`}` });
    } else if (spec.local?.includes(option) === true) places.push({ word: `${option} ${value}`, text: "localhost" });
    else if (spec.config.includes(option)) unknown ??= `${name} runs the code in the file given with ${shown} (${value}): its options, the URLs it fetches and the proxies it uses, which the guard does not read`;
    else if (spec.urlFile.includes(option)) unknown ??= `${name} fetches the URLs in the file given with ${shown} (${value}), which the guard does not read`;
    else if (spec.settings?.options.includes(option) === true) {
      const key = value.includes("=") ? value.slice(0, value.indexOf("=")).trim() : "";
      const setting = value.slice(value.indexOf("=") + 1).trim();
      if (spec.settings.url.test(key)) places.push({ word: `${option} ${value}`, text: setting });
      else if (spec.settings.fromFile.test(key)) unknown ??= `${name} reads the URLs it fetches from the file given with ${option} ${value}, which the guard does not read`;
      else if (spec.settings.known !== undefined && !spec.settings.known.test(key)) unknown ??= `${name} ${option} ${value} sets an option the guard does not know`;
    }
  }
  // HTTPie: `[METHOD] URL [REQUEST_ITEM...]`, the method a first operand of letters with more after it.
  const urls = spec.operands === "method-url-items" ? (operandWords.length >= 2 && /^[a-zA-Z]+$/.test(operandWords[0]!) ? operandWords.slice(1, 2) : operandWords.slice(0, 1)) : operandWords;
  for (const item of spec.operands === "method-url-items" ? operandWords.slice(operandWords.indexOf(urls[0] ?? "") + 1) : []) {
    if (spec.sendsItem?.test(item) === true) refusals.push({ reason: `${name} sends the file named in the request item ${item}`, token: item });
  }
  for (const word of urls) {
    const shorthand = spec.localShorthand === true ? LOCAL_SHORTHAND.exec(word) : null;
    if (spec.indirect?.test(word) === true) unknown ??= `${name} fetches what ${word} names (trackers, mirrors, peers), which the guard does not read`;
    else if (spec.gateway?.schemes.test(word) === true && !gatewayNamed) unknown ??= `${name} fetches ${word} through a gateway named in the environment or a file, which the guard does not read`;
    places.push({ word, text: shorthand === null ? word : `localhost${shorthand[1] === "" ? "" : `:${shorthand[1]!}`}${shorthand[2]!}` });
  }
  const read = readPlaces(name, [words[0] ?? name], places, glob);
  return { connects: { ...read, unknown: unknown ?? read.unknown }, refusals, commands, writes, canonical };
}

/**
 * The places a program connects to (`word`: as the command spells it; `text`: the URL or
 * `[scheme://]host[:port]` it names), read as the `url` kind reads them: `origins` for an allow,
 * `forms` for a deny (`prefix`, the program and the words naming what it does, followed by each
 * place normalised, with the hosts that reach the same place), `unknown` when one cannot be read.
 */
function readPlaces(name: string, prefix: readonly string[], places: readonly { word: string; text: string }[], glob = false): Connects {
  let unknown: string | undefined;
  const origins = new Set<string>();
  const readings = new Set<string>();
  const carried: { form: string[]; reason: string }[] = [];
  for (const place of places) {
    const expandedUrls = glob && /[{[]/.test(place.text) ? curlGlob(place.text) : [place.text];
    if (expandedUrls === undefined) {
      unknown ??= `${name} expands ${place.word} to more than ${MAX_GLOB_URLS} URLs`;
      continue;
    }
    for (const url of expandedUrls) {
      const other = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/is.exec(url);
      const texts = other !== null && !/^https?$/i.test(other[1]!) ? [url, `http://${other[2]!}`] : [url];
      for (const text of texts) {
        const allow = urlReadings(text);
        const deny = urlReadings(text, false, true);
        if (allow === undefined || deny === undefined) {
          if (text === url) unknown ??= `${name} connects to ${place.word}, which the guard cannot read as a URL`;
          continue;
        }
        if (allow.doubtful || deny.doubtful) unknown ??= `${name} connects to ${place.word}, which the guard reads only as a guess (an IPv6 zone id, a host it cannot parse)`;
        for (const reading of allow.texts) origins.add(originOf(reading));
        for (const reading of deny.texts) {
          readings.add(reading);
          readings.add(originOf(reading));
        }
        for (const reading of deny.carried ?? []) if (carried.length < 16) carried.push({ form: [...prefix, reading], reason: carriedUrlReason(place.word) });
      }
    }
  }
  const forms: string[][] = readings.size === 0 ? [] : [[...prefix, ...readings], ...[...readings].map((reading) => [...prefix, reading])];
  return { origins: [...origins], forms, unknown, places: places.map((place) => place.word), ...(carried.length === 0 ? {} : { carried }) };
}

/**
 * The places a command's redirections connect to: bash opens `/dev/tcp/HOST/PORT` and `/dev/udp/HOST/PORT` itself,
 * resolving HOST as getaddrinfo does (`/dev/tcp/0x7f.1/80` is 127.0.0.1), so a deny reads the command with each such
 * place as it reads a fetcher's (`cat </dev/tcp/0x7f.1/80` is also `cat http://127.0.0.1:80/`); `unknown` when a
 * host or port is only known when the line runs.
 */
export function redirectPlaces(words: readonly string[], redirects: readonly { readonly word: string; readonly wild: boolean }[]): { forms: readonly (readonly string[])[]; unknown: string | undefined } {
  const places: { word: string; text: string }[] = [];
  let unknown: string | undefined;
  for (const redirect of redirects) {
    const match = /^\/dev\/(?:tcp|udp)\/([^/]*)\/([^/]*)$/.exec(redirect.word);
    if (match === null) continue;
    if (redirect.wild) {
      unknown ??= `bash connects to ${redirect.word}, whose host or port is only known when the line runs`;
      continue;
    }
    const host = match[1]!.includes(":") && !match[1]!.startsWith("[") ? `[${match[1]!}]` : match[1]!;
    places.push({ word: redirect.word, text: `http://${host}:${match[2]!}/` });
  }
  if (places.length === 0) return { forms: [], unknown };
  const connects = readPlaces(basename(words[0] ?? ""), words, places);
  return { forms: connects.forms, unknown: unknown ?? connects.unknown };
}

/** Programs that run a command, run code, or write a file through an option (each row: the program's names, its options). */
const OPTION_EFFECTS: readonly {
  readonly programs: readonly string[];
  readonly options: readonly EffectOption[];
  /**
   * Subcommands whose operands are a command line (`tmux new-session 'cmd'`): no allow covers them unless
   * named. With the subcommand's options that take a value, the operands after its options are read as
   * one command line (`all`), the first of them is (`first`), or they are keys typed into a pane's shell
   * (`keys`: `Enter` ends a line); null: the guard cannot read them, a deny cannot tell.
   */
  readonly subcommands?: Readonly<Record<string, { readonly valued: string; readonly operands: "all" | "first" | "keys"; readonly directory?: string } | null>>;
  /** Operands `NAME=value` the program reads as settings (make's variable overrides: `SHELL=PROGRAM`). */
  readonly settings?: readonly { readonly name: RegExp; readonly effect: OptionEffect }[];
  /** Its single-dash long options may also be spelled with two dashes (Go's flag package: `--toolexec=PROG` is `-toolexec=PROG`). */
  readonly doubleDash?: boolean;
  /** Options without a value that make it run programs of its own choosing (`rg -z` runs gzip, xz, ...): no allow covers them unless named. */
  readonly flags?: readonly { readonly option: string; readonly reason: string }[];
  /** What it does with its operands (`hyperfine CMD...`, `sudoedit FILE`, `pip install ./dir`): see OperandEffect. */
  readonly operands?: OperandEffect;
  /**
   * Its long options may be abbreviated to any prefix (getopt_long, Perl's Getopt::Long): `--diff-prog=PROG` is
   * `--diff-program`. `shorter`: its other long options that are a prefix of a listed one, which are themselves.
   * `oneDash`: they may be spelled with one dash too (getopt_long_only: gdb's `-eval-command`, nmap's `-script`).
   */
  readonly abbreviate?: { readonly shorter?: readonly string[]; readonly oneDash?: boolean };
}[] = [
  // ripgrep: --pre runs a program on each file, --hostname-bin runs one for the hostname of hyperlinks, -z runs decompressors found on PATH.
  {
    programs: ["rg", "ripgrep"],
    options: [{ option: "--pre", effect: "program" }, { option: "--hostname-bin", effect: "program" }],
    flags: [
      { option: "-z", reason: "runs decompression programs (gzip, bzip2, xz, zstd, ...) found on PATH" },
      { option: "--search-zip", reason: "runs decompression programs (gzip, bzip2, xz, zstd, ...) found on PATH" },
    ],
  },
  // BSD and macOS base64 write their output to the file given with -o (GNU base64 has no such option).
  { programs: ["base64", "gbase64"], options: [{ option: "-o", effect: "writes", cluster: true }, { option: "--output", effect: "writes" }] },
  // pytest removes the whole directory given with --basetemp before it writes its temporary files there.
  // Its reports (--junit-xml, --debug's log, pytest-cov's --cov-report TYPE:PATH, pytest-reportlog's --report-log) are written where told:
  // within the working directory they are what the allow is for, elsewhere not vouched; an ini file from elsewhere (-c) sets addopts and plugins.
  {
    programs: ["pytest", "py.test"],
    options: [
      { option: "--basetemp", effect: "writes" },
      ...["--junitxml", "--junit-xml", "--debug", "--report-log", "--resultlog", "--result-log"].map((option): EffectOption => ({ option, effect: "writes", when: OUTSIDE_HERE })),
      { option: "--cov-report", effect: "writes", when: /^[\w-]+:(?:\/|~|\$|(?:.*\/)?\.\.(?:\/|$))/ },
      ...["-c", "--config-file"].map((option): EffectOption => ({ option, effect: "file", when: OUTSIDE_HERE })),
    ],
  },
  // fzf runs --preview and the execute/become/reload actions of --bind through a shell, and --with-shell is that shell.
  { programs: ["fzf"], options: [{ option: "--preview", effect: "script" }, { option: "--bind", effect: "code" }, { option: "--with-shell", effect: "script" }] },
  { programs: ["sort", "gsort"], options: [{ option: "--compress-program", effect: "program" }, { option: "-o", effect: "writes", cluster: true }, { option: "--output", effect: "writes" }], abbreviate: {} },
  { programs: ["tree"], options: [{ option: "-o", effect: "writes" }] },
  // GNU info writes the nodes it selects to the file given with -o/--output (`-` is standard output).
  { programs: ["info"], options: [{ option: "-o", effect: "writes", cluster: true }, { option: "--output", effect: "writes" }], abbreviate: {} },
  { programs: ["yq"], options: [{ option: "-i", effect: "writes", cluster: true }, { option: "--inplace", effect: "writes" }] },
  { programs: ["split", "gsplit"], options: [{ option: "--filter", effect: "script" }], abbreviate: {} },
  { programs: ["zip"], options: [{ option: "-TT", effect: "script" }, { option: "--unzip-command", effect: "script" }], abbreviate: {} },
  {
    programs: ["man"],
    options: [
      { option: "-P", effect: "script", cluster: true },
      { option: "--pager", effect: "script" },
      { option: "-H", effect: "script", cluster: true },
      { option: "--html", effect: "script" },
      { option: "-C", effect: "file", cluster: true },
      { option: "--config-file", effect: "file" },
    ],
    abbreviate: {},
  },
  {
    programs: ["less"],
    options: [
      { option: "-o", effect: "writes", cluster: true },
      { option: "-O", effect: "writes", cluster: true },
      { option: "--log-file", effect: "writes" },
      { option: "--LOG-FILE", effect: "writes" },
      { option: "-k", effect: "file", cluster: true },
      { option: "--lesskey-file", effect: "file" },
      { option: "--lesskey-src", effect: "file" },
      { option: "+", effect: "ex" },
    ],
    abbreviate: {},
  },
  {
    programs: ["vim", "vi", "nvim", "view", "vimdiff", "ex", "gvim", "rvim", "evim", "rview", "gview", "vimx", "nvi", "elvis"],
    options: [
      // Vim reads a cluster of its letters (`-es`), the last one taking the next word: `ex -sc CMD`, `vim -esc CMD` run CMD.
      { option: "-c", effect: "ex", cluster: true },
      { option: "--cmd", effect: "ex" },
      { option: "+", effect: "ex" },
      { option: "-S", effect: "file" },
      { option: "-u", effect: "file" },
      { option: "-s", effect: "file" },
      { option: "-w", effect: "writes" },
      { option: "-W", effect: "writes" },
    ],
  },
  {
    programs: ["npm", "npx", "pnpm", "pnpx", "yarn"],
    options: [
      { option: "--script-shell", effect: "program" },
      { option: "--shell", effect: "program" },
      { option: "--git", effect: "program" },
      { option: "--editor", effect: "script" },
      { option: "--browser", effect: "script" },
      { option: "--node-options", effect: "code" },
      { option: "--userconfig", effect: "file" },
      { option: "--globalconfig", effect: "file" },
      // yarn 1: a .yarnrc whose yarn-path names the JavaScript file run as yarn.
      { option: "--use-yarnrc", effect: "file" },
      // Another project's package.json scripts: npm --prefix (and -C), pnpm -C/--dir, yarn --cwd.
      ...["--prefix", "-C", "--dir", "--cwd"].map((option): EffectOption => ({ option, effect: "config", place: true })),
    ],
    // npm's and pnpm's argument parser (nopt) expands a unique prefix of a configuration key: `--script-s=PROG` is --script-shell.
    abbreviate: { shorter: ["--global"] },
  },
  {
    programs: ["apt-get", "apt", "apt-cache", "aptitude"],
    options: [
      { option: "-o", effect: "code", commandKeys: APT_COMMAND_KEYS },
      { option: "--option", effect: "code", commandKeys: APT_COMMAND_KEYS },
      { option: "-c", effect: "file" },
      { option: "--config-file", effect: "file" },
    ],
  },
  {
    programs: ["curl"],
    options: [
      { option: "-o", effect: "writes", cluster: true },
      { option: "--output", effect: "writes" },
      { option: "-O", effect: "writes", cluster: true },
      { option: "--remote-name", effect: "writes" },
      { option: "--remote-name-all", effect: "writes" },
      { option: "--output-dir", effect: "writes" },
      { option: "-D", effect: "writes", cluster: true },
      { option: "--dump-header", effect: "writes" },
      { option: "-c", effect: "writes", cluster: true },
      { option: "--cookie-jar", effect: "writes" },
      { option: "--trace", effect: "writes" },
      { option: "--trace-ascii", effect: "writes" },
      { option: "--libcurl", effect: "writes" },
      { option: "-K", effect: "file", cluster: true },
      { option: "--config", effect: "file" },
      // Uploads: -T sends a file; -d/--data-binary/--json send one given as @FILE; -F sends name=@FILE or name=<FILE.
      { option: "-T", effect: "sends", cluster: true },
      { option: "--upload-file", effect: "sends" },
      { option: "-d", effect: "sends", cluster: true, when: /^@/ },
      { option: "--data", effect: "sends", when: /^@/ },
      { option: "--data-binary", effect: "sends", when: /^@/ },
      { option: "--data-ascii", effect: "sends", when: /^@/ },
      { option: "--json", effect: "sends", when: /^@/ },
      // curl 8.3 --variable NAME@FILE (and %NAME@FILE, NAME[0-99]@FILE) reads a file that --expand-* options send; 7.87 --url-query NAME@FILE sends one in the query.
      { option: "--variable", effect: "sends", when: /^%?\w+(?:\[[^\]]*\])?@/ },
      { option: "--url-query", effect: "sends", when: /^(?!\+)[^=]*@/ },
      // curl 8.12 --ssl-sessions FILE saves the TLS session tickets there.
      { option: "--ssl-sessions", effect: "writes" },
      { option: "--data-urlencode", effect: "sends", when: /^[^=]*@/ },
      { option: "-F", effect: "sends", cluster: true, when: /=[@<]/ },
      { option: "--form", effect: "sends", when: /=[@<]/ },
      // More files curl writes: its messages (--stderr FILE), the HSTS and Alt-Svc caches, the ETag it gets; curl 8.3
      // -w '%output{FILE}' writes the rest of the -w text to FILE. --engine loads an OpenSSL engine (a library).
      { option: "--stderr", effect: "writes", when: /^(?!-$)/ },
      { option: "--hsts", effect: "writes" },
      { option: "--alt-svc", effect: "writes" },
      { option: "--etag-save", effect: "writes" },
      { option: "-w", effect: "writes", cluster: true, when: /%output\{/ },
      { option: "--write-out", effect: "writes", when: /%output\{/ },
      { option: "--engine", effect: "file", when: /^(?!list$)/ },
    ],
  },
  {
    programs: ["wget", "wget2"],
    options: [
      { option: "-O", effect: "writes", cluster: true },
      { option: "--output-document", effect: "writes" },
      { option: "-o", effect: "writes", cluster: true },
      { option: "--output-file", effect: "writes" },
      { option: "-a", effect: "writes", cluster: true },
      { option: "--append-output", effect: "writes" },
      { option: "-P", effect: "writes", cluster: true },
      { option: "--directory-prefix", effect: "writes" },
      { option: "-e", effect: "code", cluster: true },
      { option: "--execute", effect: "code" },
      { option: "--config", effect: "file" },
      { option: "--use-askpass", effect: "program" },
      { option: "--post-file", effect: "sends" },
      { option: "--body-file", effect: "sends" },
      { option: "-i", effect: "reads", cluster: true },
      { option: "--input-file", effect: "reads" },
      // Files wget writes besides the downloads: its cookies, a WARC archive of the session, the log of rejected URLs.
      { option: "--save-cookies", effect: "writes" },
      { option: "--warc-file", effect: "writes" },
      { option: "--rejected-log", effect: "writes" },
    ],
  },
  { programs: ["dd"], options: [], settings: [{ name: /^of$/, effect: "writes" }] },
  { programs: ["emacs", "emacsclient"], options: [{ option: "--eval", effect: "code" }, { option: "-eval", effect: "code" }, { option: "--execute", effect: "code" }, { option: "-f", effect: "code" }, { option: "--funcall", effect: "code" }, { option: "-l", effect: "file" }, { option: "--load", effect: "file" }, { option: "--script", effect: "file" }], abbreviate: {} },
  { programs: ["nano", "pico"], options: [{ option: "-s", effect: "script" }, { option: "--speller", effect: "script" }], abbreviate: {} },
  // psql -o/--output is \o: `|CMD` pipes the query output to CMD, a file name is written; -L/--log-file writes the session's log.
  {
    programs: ["psql"],
    options: [
      { option: "-c", effect: "code", shellEscape: CLIENT_SHELL_ESCAPE, includes: PSQL_INCLUDE },
      { option: "--command", effect: "code", shellEscape: CLIENT_SHELL_ESCAPE, includes: PSQL_INCLUDE },
      { option: "-f", effect: "commands" },
      { option: "--file", effect: "commands" },
      { option: "-o", effect: "code", shellEscape: PIPE_TO_COMMAND, when: /^\s*\|/ },
      { option: "--output", effect: "code", shellEscape: PIPE_TO_COMMAND, when: /^\s*\|/ },
      { option: "-o", effect: "writes" },
      { option: "--output", effect: "writes" },
      { option: "-L", effect: "writes" },
      { option: "--log-file", effect: "writes" },
    ],
    abbreviate: {},
  },
  // mysql and mariadb: option files set any option (pager, init-command, plugin-dir); the client commands system, \!, pager and \P run a command.
  {
    programs: ["mysql", "mariadb"],
    options: [
      { option: "-e", effect: "code", shellEscape: MYSQL_SHELL_ESCAPE, includes: MYSQL_SOURCE },
      { option: "--execute", effect: "code", shellEscape: MYSQL_SHELL_ESCAPE, includes: MYSQL_SOURCE },
      { option: "--init-command", effect: "code" },
      { option: "--pager", effect: "script" },
      { option: "--tee", effect: "writes" },
      { option: "--defaults-file", effect: "file" },
      { option: "--defaults-extra-file", effect: "file" },
      { option: "--plugin-dir", effect: "file" },
      // The authentication plugin (a shared library) named with --default-auth, found in the plugin directory or by a relative path.
      { option: "--default-auth", effect: "file" },
    ],
    // my_getopt takes a unique prefix (`--pag=CMD`, with a warning).
    abbreviate: {},
  },
  // sqlite3 and duckdb run their -cmd (duckdb -c, -s) values as they run their operands (readSqlShellOperands).
  { programs: ["sqlite3", "duckdb"], options: [{ option: "-init", effect: "commands" }] },
  { programs: ["lftp"], options: [{ option: "-c", effect: "code", shellEscape: CLIENT_SHELL_ESCAPE }, { option: "-e", effect: "code", shellEscape: CLIENT_SHELL_ESCAPE }, { option: "-f", effect: "commands" }] },
  { programs: ["svn"], options: [{ option: "--diff-cmd", effect: "program" }, { option: "--diff3-cmd", effect: "program" }, { option: "--editor-cmd", effect: "script" }, { option: "--config-option", effect: "code" }, { option: "--config-dir", effect: "file" }] },
  // go: -exec and -toolexec run a program around each binary or tool, -vettool is the vet program, and -ldflags' -extld names the external linker it runs.
  {
    programs: ["go"],
    doubleDash: true,
    options: [
      { option: "-exec", effect: "script" },
      { option: "-toolexec", effect: "script" },
      { option: "-vettool", effect: "program" },
      { option: "-ldflags", effect: "code", when: /(?:^|[\s'"])--?extld(?:=|\s|$)/ },
      { option: "-overlay", effect: "file" },
      // The binary (-o, `-o=FILE` too) and the test profiles are written where told: outside the working directory and the
      // temporary directory (`go build -o /tmp/app` is a scratch build), not vouched (`-o ~/.local/bin/git` replaces a program).
      { option: "-o", effect: "writes", when: GO_OUTSIDE },
      ...["-coverprofile", "-cpuprofile", "-memprofile", "-blockprofile", "-mutexprofile", "-trace", "-outputdir"].map((option): EffectOption => ({ option, effect: "writes", when: GO_OUTSIDE })),
      // -C DIR works in DIR, as `cd DIR && go ...` would (its go.mod, its tests, its //go:generate lines).
      { option: "-C", effect: "config", place: true, exact: true },
    ],
  },
  // A compiler's output is its job: -o within the working directory is what the allow is for; elsewhere it is not vouched. @FILE holds more options.
  {
    programs: ["gcc", "g++", "cc", "c++", "clang", "clang++"],
    options: [{ option: "-wrapper", effect: "script", separator: "," }, { option: "-fplugin", effect: "file" }, { option: "-B", effect: "file" }, { option: "-o", effect: "writes", when: OUTSIDE_HERE }],
    operands: { effect: "file", when: /^@./, reason: "reads more options (which can name programs it runs: -wrapper, -fplugin, -B) from the file" },
  },
  // cargo --config KEY=VALUE is the configuration file's setting on the command line (a file when there is no `=`):
  // the compiler, its wrappers, the test runner, the linker, the browser and credential providers are programs it runs.
  // --manifest-path builds another package (its build.rs and its .cargo/config.toml run).
  {
    programs: ["cargo"],
    options: [
      { option: "--config", effect: "code", commandKeys: /^\s*(?:build\.(?:rustc|rustc-wrapper|rustc-workspace-wrapper|rustdoc)|target\.[^=]+\.(?:runner|linker)|host\.linker|doc\.browser|(?:registry|registries\.[^.=]+)\.credential-provider)\s*$/ },
      { option: "--manifest-path", effect: "config" },
      // `cargo install --path DIR` builds the package in DIR (its build.rs runs); the build's output goes where --target-dir and --artifact-dir say.
      { option: "--path", effect: "config", when: OUTSIDE_HERE },
      ...["--target-dir", "--artifact-dir", "--out-dir"].map((option): EffectOption => ({ option, effect: "writes", when: OUTSIDE_HERE })),
    ],
  },
  // Formatters, linters and test runners load JavaScript from a plugin or configuration file named in an option.
  { programs: ["prettier"], options: [{ option: "--plugin", effect: "file" }, { option: "--config", effect: "file" }] },
  // Their reports (-o/--output-file, --outputFile) within the working directory are what the allow is for; elsewhere not vouched.
  {
    programs: ["eslint"],
    options: [
      { option: "-c", effect: "file" },
      { option: "--config", effect: "file" },
      { option: "--plugin", effect: "file" },
      { option: "--rulesdir", effect: "file" },
      { option: "--resolve-plugins-relative-to", effect: "file" },
      { option: "-o", effect: "writes", when: OUTSIDE_HERE, exact: true },
      { option: "--output-file", effect: "writes", when: OUTSIDE_HERE },
    ],
  },
  {
    programs: ["jest", "vitest"],
    options: [
      ...["-c", "--config", "--setupFiles", "--setupFilesAfterEnv", "--globalSetup", "--globalTeardown", "--testRunner", "--transform", "--resolver"].map((option): EffectOption => ({ option, effect: "file" })),
      { option: "--outputFile", effect: "writes", when: OUTSIDE_HERE },
    ],
  },
  { programs: ["ruff"], options: [{ option: "-o", effect: "writes", when: OUTSIDE_HERE, exact: true }, { option: "--output-file", effect: "writes", when: OUTSIDE_HERE }] },
  { programs: ["flake8"], options: [{ option: "--output-file", effect: "writes", when: OUTSIDE_HERE }] },
  // pylint runs the Python code of --init-hook and imports the modules --load-plugins names; an rcfile from elsewhere sets both.
  {
    programs: ["pylint"],
    options: [
      { option: "--init-hook", effect: "code" },
      { option: "--load-plugins", effect: "file" },
      { option: "--rcfile", effect: "file", when: OUTSIDE_HERE },
      { option: "--output", effect: "writes", when: OUTSIDE_HERE },
    ],
  },
  // Pagers named in an option are command lines (split into words, as BAT_PAGER and DELTA_PAGER are).
  { programs: ["bat", "batcat", "delta"], options: [{ option: "--pager", effect: "script" }] },
  { programs: ["ncdu"], options: [{ option: "-o", effect: "writes", cluster: true }] },
  { programs: ["ctest"], options: [{ option: "--test-command", effect: "rest" }] },
  { programs: ["meson"], options: [{ option: "--wrapper", effect: "script" }, { option: "--wrap", effect: "script" }] },
  { programs: ["mvn", "mvnw"], options: [{ option: "-Dexec.executable", effect: "program" }, { option: "-f", effect: "config" }, { option: "--file", effect: "config" }] },
  // Gradle builds the project given with -p/-b/-c, and runs the Groovy or Kotlin code of an init script (-I).
  {
    programs: ["gradle", "gradlew"],
    options: [
      ...["-p", "--project-dir"].map((option): EffectOption => ({ option, effect: "config", place: true })),
      ...["-b", "--build-file", "-c", "--settings-file"].map((option): EffectOption => ({ option, effect: "config" })),
      { option: "-I", effect: "file" },
      { option: "--init-script", effect: "file" },
    ],
  },
  { programs: ["tox"], options: [{ option: "-c", effect: "config" }, { option: "--conf", effect: "config" }] },
  { programs: ["nox"], options: [{ option: "-f", effect: "file" }, { option: "--noxfile", effect: "file" }] },
  // Test runners load the module named with -r/--require before the tests (rspec, mocha).
  { programs: ["rspec"], options: [{ option: "-r", effect: "file" }, { option: "--require", effect: "file" }] },
  { programs: ["mocha", "_mocha"], options: [{ option: "-r", effect: "file" }, { option: "--require", effect: "file" }, { option: "--config", effect: "file" }] },
  // binutils' nm, ar and ranlib load the linker plugin (a shared library) given with --plugin.
  { programs: ["nm", "ar", "ranlib", "gcc-nm", "gcc-ar", "gcc-ranlib"], options: [{ option: "--plugin", effect: "file" }], operands: { effect: "file", when: /^@./, reason: "reads more options (which can name a --plugin library it loads) from the file" } },
  // gpg: an options file, a home directory (its gpg.conf) and the helpers' directory name what it loads and runs; --photo-viewer is a command line.
  {
    programs: ["gpg", "gpg2", "gpgv", "gpgv2"],
    options: [
      { option: "--options", effect: "loads" },
      { option: "--homedir", effect: "loads" },
      { option: "--exec-path", effect: "loads" },
      { option: "--load-extension", effect: "loads" },
      { option: "--photo-viewer", effect: "script" },
    ],
    abbreviate: {},
  },
  // openssl: a configuration file can load engines and providers (shared libraries), as -engine and -provider do.
  { programs: ["openssl"], options: [{ option: "-config", effect: "loads" }, { option: "-engine", effect: "loads" }, { option: "-provider", effect: "loads" }, { option: "-provider-path", effect: "loads" }, { option: "-out", effect: "writes" }, { option: "-msgfile", effect: "writes" }, { option: "-keylogfile", effect: "writes" }, { option: "-sess_out", effect: "writes" }] },
  {
    programs: ["awk", "gawk", "mawk", "nawk"],
    options: [
      { option: "-l", effect: "file" },
      { option: "--load", effect: "file" },
      { option: "-i", effect: "file" },
      { option: "--include", effect: "file" },
      { option: "-E", effect: "file" },
      { option: "--exec", effect: "file" },
      // gawk writes its variables (-d), its profile (-p) and the program pretty-printed (-o) to the file attached or named.
      { option: "-d", effect: "writes" },
      { option: "--dump-variables", effect: "writes" },
      { option: "-p", effect: "writes" },
      { option: "--profile", effect: "writes" },
      { option: "-o", effect: "writes" },
      { option: "--pretty-print", effect: "writes" },
    ],
    abbreviate: {},
  },
  {
    programs: ["tmux", "tmate"],
    options: [{ option: "-c", effect: "script" }, { option: "-f", effect: "file" }],
    subcommands: {
      "new-session": TMUX_NEW_SESSION,
      new: TMUX_NEW_SESSION,
      "new-window": TMUX_NEW_WINDOW,
      neww: TMUX_NEW_WINDOW,
      "split-window": TMUX_SPLIT_WINDOW,
      splitw: TMUX_SPLIT_WINDOW,
      "respawn-pane": TMUX_RESPAWN,
      respawnp: TMUX_RESPAWN,
      "respawn-window": TMUX_RESPAWN,
      respawnw: TMUX_RESPAWN,
      "run-shell": TMUX_RUN_SHELL,
      run: TMUX_RUN_SHELL,
      "if-shell": TMUX_IF_SHELL,
      if: TMUX_IF_SHELL,
      "display-popup": TMUX_POPUP,
      popup: TMUX_POPUP,
      "pipe-pane": TMUX_PIPE_PANE,
      pipep: TMUX_PIPE_PANE,
      "send-keys": TMUX_SEND_KEYS,
      send: TMUX_SEND_KEYS,
      "command-prompt": null,
      "confirm-before": null,
      "source-file": null,
      source: null,
    },
  },
  {
    programs: ["make", "gmake"],
    options: [
      { option: "--eval", effect: "code", recipes: MAKE_RECIPES },
      { option: "-E", effect: "code", recipes: MAKE_RECIPES },
      { option: "-f", effect: "file", cluster: true },
      { option: "--file", effect: "file" },
      { option: "--makefile", effect: "file" },
      // -C reads the makefile of another directory; -I searches another directory for the makefiles it includes.
      { option: "-C", effect: "config", cluster: true, place: true },
      { option: "--directory", effect: "config", place: true },
      { option: "-I", effect: "config", cluster: true },
      { option: "--include-dir", effect: "config" },
    ],
    // A variable set on the command line overrides the makefile's: SHELL runs every recipe line.
    settings: [
      { name: /^(?:SHELL|MAKESHELL)$/, effect: "program" },
      { name: /^(?:\.SHELLFLAGS|MAKEFLAGS|MFLAGS|MAKEFILES)$/, effect: "code" },
    ],
    abbreviate: {},
  },
  {
    programs: ["gdb", "gdb-multiarch", "cgdb"],
    options: [
      { option: "-ex", effect: "debugger" },
      { option: "--eval-command", effect: "debugger" },
      { option: "-iex", effect: "debugger" },
      { option: "--init-eval-command", effect: "debugger" },
      { option: "-x", effect: "commands" },
      { option: "--command", effect: "commands" },
      { option: "-ix", effect: "commands" },
      { option: "--init-command", effect: "commands" },
      { option: "--args", effect: "rest" },
    ],
    // getopt_long_only: `-eval-command=`, `--eval-c=` and `-eval-c=` are --eval-command.
    abbreviate: { oneDash: true },
  },
  { programs: ["start-stop-daemon"], options: [{ option: "-x", effect: "program" }, { option: "--exec", effect: "program" }, { option: "-a", effect: "program" }, { option: "--startas", effect: "program" }], abbreviate: { shorter: ["--start"] } },
  { programs: ["nix-shell"], options: [{ option: "--run", effect: "script" }, { option: "--command", effect: "script" }] },
  { programs: ["nix"], options: [{ option: "-c", effect: "rest" }, { option: "--command", effect: "rest" }] },
  { programs: ["vagrant"], options: [{ option: "-c", effect: "script" }, { option: "--command", effect: "script" }] },
  { programs: ["gcloud"], options: [{ option: "--command", effect: "script" }] },
  { programs: ["nodemon"], options: [{ option: "-x", effect: "script" }, { option: "--exec", effect: "script" }] },
  // bash builtins that run a command line or a function they are given.
  { programs: ["compgen", "complete"], options: [{ option: "-C", effect: "script" }, { option: "-F", effect: "code" }, { option: "-W", effect: "expanded" }] },
  { programs: ["bind"], options: [{ option: "-x", effect: "keybinding" }] },
  { programs: ["enable"], options: [{ option: "-f", effect: "file" }] },
  // `fc -e EDITOR` runs `EDITOR FILE` as a command line (bash's fc.def: parse_and_execute of "%s %s"), FILE holding command lines from
  // the shell's history, then runs them again; `fc -e -` and `fc -s` run them again as they are.
  { programs: ["fc"], options: [{ option: "-e", effect: "script", when: /^(?!-$)/ }, { option: "-e", effect: "code", when: /^-$/ }, { option: "-s", effect: "code" }] },
  // javac runs the annotation processors it finds on the processor path (and names with -processor), and hands -J options to its JVM (`-J-javaagent:JAR`).
  {
    programs: ["javac"],
    options: [
      { option: "-processorpath", effect: "file", exact: true },
      { option: "--processor-path", effect: "file" },
      { option: "-processor", effect: "file", exact: true },
      { option: "--processor-module-path", effect: "file" },
      { option: "-J", effect: "file" },
    ],
  },
  { programs: ["nmap"], options: [{ option: "--script", effect: "file" }, { option: "-sC", effect: "file" }, { option: "-A", effect: "file" }, ...["-oN", "-oX", "-oS", "-oG", "-oA", "-oM", "--resume"].map((option): EffectOption => ({ option, effect: "writes" }))], abbreviate: { oneDash: true } },
  { programs: ["tcpdump"], options: [{ option: "-z", effect: "program", cluster: true }, { option: "-w", effect: "writes", cluster: true }] },
  { programs: ["ssh-keygen"], options: [{ option: "-D", effect: "file" }] },
  { programs: ["ip"], options: [{ option: "-b", effect: "file" }, { option: "-batch", effect: "file" }] },
  // GTFOBins "Shell", "Command", "File write" and "File upload" entries: options that run a command line or a program, run code, or write or send a file.
  { programs: ["csvtool"], options: [{ option: "-o", effect: "writes" }], subcommands: { call: { valued: "", operands: "first" } } },
  { programs: ["gem"], options: [{ option: "-e", effect: "script" }, { option: "--editor", effect: "script" }], abbreviate: {} },
  {
    programs: ["aria2c"],
    options: [
      ...["--on-download-error", "--on-download-complete", "--on-download-start", "--on-download-pause", "--on-download-stop", "--on-bt-download-complete"].map((option): EffectOption => ({ option, effect: "program" })),
      { option: "-o", effect: "writes" },
      { option: "--out", effect: "writes" },
      { option: "-d", effect: "writes" },
      { option: "--dir", effect: "writes" },
      { option: "-l", effect: "writes" },
      { option: "--log", effect: "writes" },
      { option: "--save-session", effect: "writes" },
      { option: "--conf-path", effect: "file" },
      { option: "-i", effect: "reads" },
      { option: "--input-file", effect: "reads" },
    ],
  },
  { programs: ["certbot"], options: ["--manual-auth-hook", "--manual-cleanup-hook", "--pre-hook", "--post-hook", "--deploy-hook", "--renew-hook"].map((option): EffectOption => ({ option, effect: "script" })), abbreviate: { shorter: ["--manual"] } },
  { programs: ["enscript"], options: [{ option: "-I", effect: "script", cluster: true }, { option: "--filter", effect: "script" }, { option: "-o", effect: "writes", cluster: true }, { option: "--output", effect: "writes" }], abbreviate: {} },
  {
    programs: ["openvpn"],
    options: [
      ...["--up", "--down", "--route-up", "--route-pre-down", "--ipchange", "--client-connect", "--client-disconnect", "--learn-address", "--auth-user-pass-verify", "--tls-verify", "--iproute", "--client-crresponse"].map((option): EffectOption => ({ option, effect: "script" })),
      { option: "--config", effect: "file" },
      { option: "--plugin", effect: "file" },
    ],
  },
  { programs: ["scrot"], options: [{ option: "-e", effect: "script", cluster: true }, { option: "--exec", effect: "script" }], abbreviate: {} },
  { programs: ["socket"], options: [{ option: "-p", effect: "script", cluster: true }] },
  { programs: ["ncat", "nc", "netcat", "nc.traditional", "nc.openbsd"], options: [{ option: "-e", effect: "script", cluster: true }, { option: "--exec", effect: "script" }, { option: "-c", effect: "script", cluster: true }, { option: "--sh-exec", effect: "script" }, { option: "--lua-exec", effect: "file" }, { option: "-o", effect: "writes", cluster: true }, { option: "--output", effect: "writes" }], abbreviate: {} },
  // rpm's macros: %(CMD) runs CMD through a shell, %{lua: ...} runs Lua; --pipe CMD pipes the output through CMD.
  ...[["rpm", "rpmquery", "rpmverify", "rpmdb", "rpmbuild", "rpmspec", "rpmsign"]].map((programs) => ({
    programs,
    options: [
      { option: "--eval", effect: "code", recipes: RPM_SHELL_MACROS },
      { option: "-E", effect: "code", recipes: RPM_SHELL_MACROS },
      { option: "--define", effect: "code", recipes: RPM_SHELL_MACROS },
      { option: "-D", effect: "code", recipes: RPM_SHELL_MACROS },
      { option: "--pipe", effect: "script" },
      { option: "--macros", effect: "file" },
      { option: "--rcfile", effect: "file" },
    ] satisfies EffectOption[],
  })),
  {
    programs: ["exiftool"],
    options: [
      ...["-o", "-out", "-w", "-textOut", "-W", "-tagOut", "-filename", "-FileName", "-directory", "-Directory", "-testname", "-TestName", "-srcfile"].map((option): EffectOption => ({ option, effect: "writes" })),
      { option: "-if", effect: "code" },
      { option: "-config", effect: "file" },
      { option: "-userparam", effect: "code" },
    ],
  },
  // csplit writes its pieces in the working directory; a --prefix elsewhere writes there.
  { programs: ["csplit", "gcsplit"], options: [{ option: "-f", effect: "writes", cluster: true, when: OUTSIDE_HERE }, { option: "--prefix", effect: "writes", when: OUTSIDE_HERE }], abbreviate: {} },
  { programs: ["iconv"], options: [{ option: "-o", effect: "writes", cluster: true }, { option: "--output", effect: "writes" }], abbreviate: {} },
  { programs: ["shuf"], options: [{ option: "-o", effect: "writes", cluster: true }, { option: "--output", effect: "writes" }], abbreviate: {} },
  { programs: ["uudecode"], options: [{ option: "-o", effect: "writes", cluster: true }, { option: "--output-file", effect: "writes" }], abbreviate: {} },
  { programs: ["pandoc"], options: [{ option: "-o", effect: "writes" }, { option: "--output", effect: "writes" }, { option: "-F", effect: "program" }, { option: "--filter", effect: "program" }, { option: "-L", effect: "file" }, { option: "--lua-filter", effect: "file" }, { option: "--extract-media", effect: "writes" }], abbreviate: {} },
  { programs: ["cowsay", "cowthink"], options: [{ option: "-f", effect: "file", when: /\// }] },
  { programs: ["neofetch"], options: [{ option: "--config", effect: "file" }, { option: "--source", effect: "file", when: /\// }] },
  { programs: ["mail", "mailx", "s-nail"], options: [{ option: "--exec", effect: "code", shellEscape: CLIENT_SHELL_ESCAPE }, { option: "-E", effect: "code", shellEscape: CLIENT_SHELL_ESCAPE }], abbreviate: {} },
  { programs: ["smbclient"], options: [{ option: "-c", effect: "code", shellEscape: CLIENT_SHELL_ESCAPE }, { option: "--command", effect: "code", shellEscape: CLIENT_SHELL_ESCAPE }] },
  { programs: ["cpio"], options: [{ option: "--rsh-command", effect: "program" }] },
  { programs: ["gimp", "gimp-console"], options: [{ option: "-b", effect: "code" }, { option: "--batch", effect: "code" }] },
  { programs: ["puppet"], options: [{ option: "-e", effect: "code" }, { option: "--execute", effect: "code" }], abbreviate: {} },
  { programs: ["sqlmap"], options: [{ option: "--eval", effect: "code" }, { option: "--os-cmd", effect: "code" }, { option: "--os-shell", effect: "code" }], abbreviate: {} },
  { programs: ["dc"], options: [{ option: "-e", effect: "code", shellEscape: DC_SHELL_ESCAPE }, { option: "--expression", effect: "code", shellEscape: DC_SHELL_ESCAPE }, { option: "-f", effect: "file" }, { option: "--file", effect: "file" }], abbreviate: {} },
  { programs: ["pidstat"], options: [{ option: "-e", effect: "rest" }] },
  // lldb's one-line commands (after the file, before it, on a crash) and command files.
  {
    programs: ["lldb"],
    options: [
      ...["-o", "--one-line", "-O", "--one-line-before-file", "-k", "--one-line-on-crash"].map((option): EffectOption => ({ option, effect: "debugger" })),
      ...["-s", "--source", "-S", "--source-before-file", "-K", "--source-on-crash"].map((option): EffectOption => ({ option, effect: "file" })),
    ],
  },
  // mongosh and the legacy mongo shell run JavaScript given with --eval, in --file, and in operands ending in .js.
  {
    programs: ["mongosh", "mongo"],
    options: [{ option: "--eval", effect: "code" }, { option: "--file", effect: "file" }, { option: "-f", effect: "file" }],
    operands: { effect: "file", when: /\.js$/i, valued: { "--eval": 1, "--file": 1, "-f": 1, "--host": 1, "--port": 1, "-u": 1, "--username": 1, "-p": 1, "--password": 1, "--authenticationDatabase": 1 } },
  },
  // hyperfine: each operand is a command line it benchmarks (through a shell unless -N), and so are the values of --prepare, --setup, --cleanup, --conclude and --reference.
  {
    programs: ["hyperfine"],
    options: [
      ...["-p", "--prepare", "-s", "--setup", "-c", "--cleanup", "-C", "--conclude", "--reference"].map((option): EffectOption => ({ option, effect: "script" })),
      { option: "-S", effect: "program", when: /^(?!none$)/ },
      { option: "--shell", effect: "program", when: /^(?!none$)/ },
      ...["--export-json", "--export-csv", "--export-markdown", "--export-asciidoc", "--export-orgmode"].map((option): EffectOption => ({ option, effect: "writes" })),
      { option: "--output", effect: "writes", when: /^(?!(?:null|pipe|inherit)$)/ },
    ],
    operands: {
      effect: "script",
      valued: {
        ...Object.fromEntries(["-w", "--warmup", "-m", "--min-runs", "-M", "--max-runs", "-r", "--runs", "-p", "--prepare", "-s", "--setup", "-c", "--cleanup", "-C", "--conclude", "--reference", "-D", "--parameter-step-size", "-S", "--shell", "-u", "--time-unit", "--style", "--sort", "--export-json", "--export-csv", "--export-markdown", "--export-asciidoc", "--export-orgmode", "--output", "--input", "-n", "--command-name"].map((option) => [option, 1])),
        "-P": 3,
        "--parameter-scan": 3,
        "-L": 2,
        "--parameter-list": 2,
      },
    },
  },
  // concurrently: each operand is a command line it runs through a shell (`npm:NAME` is `npm run NAME`, `node:NAME` is `node --run NAME`, `deno:NAME` is `deno task NAME`); --teardown runs one after them.
  {
    programs: ["concurrently"],
    options: [{ option: "--teardown", effect: "script" }],
    operands: {
      effect: "script",
      shorthands: [
        { from: /^(npm|pnpm|yarn|bun):(\S+)$/, to: "$1 run $2" },
        { from: /^node:(\S+)$/, to: "node --run $1" },
        { from: /^deno:(\S+)$/, to: "deno task $1" },
      ],
      valued: Object.fromEntries(["-n", "--names", "-c", "--prefix-colors", "-p", "--prefix", "-l", "--prefix-length", "-t", "--timestamp-format", "--name-separator", "-s", "--success", "--restart-tries", "--restart-after", "-m", "--max-processes", "--default-input-target", "--kill-signal", "--hide", "--teardown"].map((option) => [option, 1])),
    },
  },
  // helm runs the program given with --post-renderer; a kubeconfig's users may run exec credential plugins (kubectl, oc and helm --kubeconfig anywhere on the line).
  { programs: ["helm"], options: [{ option: "--post-renderer", effect: "program" }, { option: "--kubeconfig", effect: "file" }] },
  // kubectl proxy --www=DIR serves the directory's files over HTTP (on --address, any interface).
  { programs: ["kubectl", "oc"], options: [{ option: "--kubeconfig", effect: "file" }, { option: "--www", effect: "sends" }] },
  // The docker client's configuration directory names credential helpers (credsStore, credHelpers: docker-credential-NAME programs) it runs.
  { programs: ["docker", "podman", "nerdctl"], options: [{ option: "--config", effect: "file" }] },
  // pip: --target, --root, --prefix and --src install elsewhere; -e and a local project run the project's build code (setup.py or its build backend).
  {
    programs: ["pip", "pip3", "pip2"],
    options: [
      { option: "-t", effect: "writes", cluster: true },
      { option: "--target", effect: "writes" },
      { option: "--root", effect: "writes" },
      { option: "--prefix", effect: "writes" },
      { option: "--src", effect: "writes" },
      { option: "-e", effect: "file", cluster: true },
      { option: "--editable", effect: "file" },
      // `pip config --editor CMD edit` runs CMD; --python re-runs pip with that interpreter; --log, --log-file and --report write a file.
      { option: "--editor", effect: "script" },
      { option: "--python", effect: "program" },
      { option: "--log", effect: "writes" },
      { option: "--log-file", effect: "writes" },
      { option: "--report", effect: "writes", when: /^(?!-$)/ },
    ],
    operands: {
      effect: "file",
      after: ["install"],
      when: /^(?:\.{1,2}(?:\/|$)|\/|~\/|file:)(?!.*\.whl$)/,
      reason: "install runs the build code of the local project",
      valued: Object.fromEntries(["-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-t", "--target", "-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--root", "--prefix", "--src", "--upgrade-strategy", "--python-version", "--platform", "--implementation", "--abi", "--log", "--proxy", "--retries", "--timeout", "--exists-action", "--trusted-host", "--cert", "--client-cert", "--cache-dir", "--no-binary", "--only-binary", "--progress-bar", "-C", "--config-settings", "--global-option", "--report", "--python"].map((option) => [option, 1])),
    },
    // optparse takes any unique prefix of a long option (`--targ=DIR`, `--edito CMD`); --pre is an option of its own.
    abbreviate: { shorter: ["--pre"] },
  },
  // node loads the modules given with --import, --require, --loader before the program (and a --test-reporter that is not built in); bun's --preload.
  {
    programs: ["node", "nodejs"],
    options: [
      ...["--import", "--require", "-r", "--loader", "--experimental-loader"].map((option): EffectOption => ({ option, effect: "file" })),
      { option: "--test-reporter", effect: "file", when: /^(?!(?:spec|tap|dot|junit|lcov)$)/ },
      { option: "--test-reporter-destination", effect: "writes", when: /^(?!(?:stdout|stderr)$)/ },
      // An env file's NODE_OPTIONS are node's options (`--require MODULE`); an OpenSSL configuration loads engines and providers
      // (libraries); a startup snapshot or a single-executable configuration is code or names what it writes.
      ...["--env-file", "--env-file-if-exists", "--openssl-config", "--snapshot-blob", "--build-snapshot-config", "--experimental-sea-config"].map((option): EffectOption => ({ option, effect: "file" })),
      ...["--redirect-warnings", "--tls-keylog", "--diagnostic-dir", "--report-directory", "--report-dir", "--cpu-prof-dir", "--heap-prof-dir", "--trace-event-file-pattern"].map((option): EffectOption => ({ option, effect: "writes" })),
    ],
  },
  { programs: ["bun"], options: ["--preload", "--require", "--import", "-r"].map((option): EffectOption => ({ option, effect: "file" })) },
  // sudoedit edits (writes) the files it is given; ldd may run the program it inspects (an ELF interpreter other than ld.so runs).
  { programs: ["sudoedit"], options: [], operands: { effect: "writes", valued: Object.fromEntries(["-u", "--user", "-g", "--group", "-C", "--close-from", "-D", "--chdir", "-h", "--host", "-p", "--prompt", "-R", "--chroot", "-r", "--role", "-t", "--type", "-T", "--command-timeout"].map((option) => [option, 1])) } },
  { programs: ["ldd"], options: [], operands: { effect: "file", reason: "may run the program" } },
  { programs: ["xdotool"], options: [], subcommands: { exec: { valued: "", operands: "all" } } },
  // Mercurial reads its global options anywhere on the line: --config sets hooks, shell aliases (`alias.NAME=!CMD`), the editor,
  // the pager, merge tools and extensions (Python it loads); -R/--repository and --cwd pick a repository whose .hg/hgrc can do the same.
  {
    programs: ["hg", "chg"],
    options: [
      { option: "--config", effect: "code", commandKeys: /^\s*(?:hooks\.[^=]+|ui\.(?:editor|ssh|remotecmd|merge)|pager\.pager|merge-tools\.[^=]+\.executable|extdiff\.cmd\.[^=]+)\s*$/i, bangKeys: /^\s*alias\./i },
      ...["-R", "--repository", "--repo", "--cwd"].map((option): EffectOption => ({ option, effect: "config", place: true })),
    ],
  },
  // GNU diff3 and sdiff run the program given with --diff-program in place of diff; sdiff -o writes the merged file.
  { programs: ["diff3"], options: [{ option: "--diff-program", effect: "program" }], abbreviate: {} },
  { programs: ["sdiff"], options: [{ option: "--diff-program", effect: "program" }, { option: "-o", effect: "writes", cluster: true }, { option: "--output", effect: "writes" }], abbreviate: {} },
  // Search tools on read-only lists that run a command: ack's and ag's --pager (and an ackrc, which may set it);
  // ugrep's --pager=CMD and --filter='EXTS:CMD,...' (each matching file is read through CMD), its --config file; --save-config writes one.
  { programs: ["ack", "ack-grep"], options: [{ option: "--pager", effect: "script" }, { option: "--ackrc", effect: "file" }], abbreviate: {} },
  { programs: ["ag"], options: [{ option: "--pager", effect: "script" }], abbreviate: {} },
  {
    programs: ["ugrep", "ug"],
    options: [{ option: "--pager", effect: "script" }, { option: "--filter", effect: "code", shellEscape: /(?:^|,)\s*[^:,]*:([^,]*)/g }, { option: "--config", effect: "file" }, { option: "--save-config", effect: "writes" }],
  },
  // bash's history -w and -a write the history list to the file given (or to $HISTFILE).
  // zsh builtins that run a command line: `emulate MODE -c CMD`; zsh/zpty's `zpty NAME CMD...` (the words, joined, as eval runs them) and
  // `zpty -w NAME TEXT` (a line written to that command's input); the zargs function's operands (`zargs -- FILES -- CMD`).
  { programs: ["emulate"], options: [{ option: "-c", effect: "script" }] },
  { programs: ["zpty"], options: [], operands: { effect: "script", reason: "runs the command line it is given in a pseudo-terminal" } },
  { programs: ["zargs"], options: [], operands: { effect: "script", valued: { "-e": 1, "-E": 1, "-n": 1, "-s": 1, "-P": 1, "-l": 1, "-L": 1, "-i": 1, "-I": 1 } } },
  // `history -s TEXT` also stores TEXT as a command line (`fc -e - PATTERN`, `fc -s` run it again).
  { programs: ["history"], options: [{ option: "-w", effect: "writes" }, { option: "-a", effect: "writes" }, { option: "-s", effect: "history" }] },
  // GTFOBins, round 8: more options that run a command line or a program, load code or a library, or write a file.
  // latexmk runs the engine command given with -pdflatex=, -latex=, ... (through a shell, %S the source); -r reads an rc file of Perl code.
  {
    programs: ["latexmk"],
    doubleDash: true,
    options: [
      ...["-pdflatex=", "-latex=", "-lualatex=", "-xelatex=", "-pdflualatex=", "-pdfxelatex=", "-dvilualatex=", "-dvipdf=", "-ps2pdf=", "-dvips=", "-bibtex=", "-biber=", "-makeindex="].map((option): EffectOption => ({ option, effect: "script" })),
      // -e CODE runs Perl code; its single-dash options are words, not letter clusters (`-xelatex`, `-recorder` hold no -e or -r).
      { option: "-e", effect: "code", exact: true },
      { option: "-r", effect: "file", exact: true },
    ],
  },
  // mypy (argparse: unique prefixes) writes its reports and cache where told, runs --python-executable to find packages,
  // loads the plugins a --config-file names, and reads more arguments from an @FILE operand.
  {
    programs: ["mypy", "dmypy"],
    options: [
      ...["--junit-xml", "--html-report", "--txt-report", "--xml-report", "--xslt-html-report", "--xslt-txt-report", "--linecount-report", "--linecoverage-report", "--lineprecision-report", "--any-exprs-report", "--cobertura-xml-report", "--memory-xml-report"].map((option): EffectOption => ({ option, effect: "writes" })),
      // Its cache is written in the working directory by default: elsewhere is not vouched (/dev/null turns it off).
      { option: "--cache-dir", effect: "writes", when: /^(?!\/dev\/null$)(?:\/|~|\$)|(?:^|\/)\.\.(?:\/|$)/ },
      { option: "--python-executable", effect: "program" },
      { option: "--config-file", effect: "file" },
    ],
    operands: { effect: "file", when: /^@./, reason: "reads more options (which can name programs it runs) from the file" },
    abbreviate: {},
  },
  // tsc writes one bundled file (--outFile, --out) and its traces where told; an output directory outside the working directory too.
  {
    programs: ["tsc"],
    options: [
      ...["--outFile", "--out", "--generateCpuProfile", "--generateTrace", "--tsBuildInfoFile"].map((option): EffectOption => ({ option, effect: "writes" })),
      ...["--outDir", "--declarationDir"].map((option): EffectOption => ({ option, effect: "writes", when: OUTSIDE_HERE })),
    ],
  },
  // ffmpeg's filter graphs load a shared library by file name (ladspa=file=LIB, frei0r=LIB, lv2=plugin=URI); a filter script holds such a graph.
  {
    programs: ["ffmpeg", "ffplay", "ffprobe"],
    options: [
      ...["-af", "-vf", "-filter", "-filter:a", "-filter:v", "-filter_complex", "-lavfi"].map((option): EffectOption => ({ option, effect: "file", when: /\b(?:ladspa|frei0r|frei0r_src|lv2)\b/, shown: `${option} (a ladspa, frei0r or lv2 filter, a shared library)` })),
      ...["-filter_script", "-filter_complex_script", "-/af", "-/vf", "-/filter", "-/filter_complex"].map((option): EffectOption => ({ option, effect: "file" })),
    ],
  },
  // Wireshark's tshark (and wireshark) run a Lua script given with -X lua_script:FILE.
  { programs: ["tshark", "wireshark"], options: [{ option: "-X", effect: "file", cluster: true, when: /^lua_script\d*:/, shown: "-X lua_script:" }] },
  // rustc runs the linker given with -C linker=PROG, and reads more options from an @FILE operand; rustdoc runs --test-builder and --runtool.
  {
    programs: ["rustc", "rustdoc"],
    options: [
      ...["-C", "--codegen"].map((option): EffectOption => ({ option, effect: "script", when: /^\s*linker\s*=/, shellEscape: /^\s*linker\s*=(.*)$/gs, shown: `${option} linker=` })),
      ...["--test-builder", "--test-builder-wrapper", "--runtool"].map((option): EffectOption => ({ option, effect: "program" })),
      { option: "-o", effect: "writes", when: OUTSIDE_HERE },
    ],
    operands: { effect: "file", when: /^@./, reason: "reads more options (which can name the linker it runs) from the file" },
  },
  // yt-dlp and youtube-dl (optparse: unique prefixes) run --exec and --exec-before-download through a shell, --netrc-cmd too; they run
  // the downloader and ffmpeg named by a path and hand them arguments; --config-locations and --plugin-dirs load code; they write
  // the download where -o/-P say (outside the working directory: not vouched), and their cookies and archive files.
  {
    programs: ["yt-dlp", "youtube-dl"],
    options: [
      ...["--exec", "--exec-before-download", "--netrc-cmd"].map((option): EffectOption => ({ option, effect: "script" })),
      ...["--downloader", "--external-downloader", "--ffmpeg-location"].map((option): EffectOption => ({ option, effect: "program", when: /\// })),
      ...["--downloader-args", "--external-downloader-args", "--postprocessor-args", "--ppa"].map((option): EffectOption => ({ option, effect: "code" })),
      ...["--config-locations", "--config-location", "--plugin-dirs"].map((option): EffectOption => ({ option, effect: "file" })),
      ...["-o", "--output", "-P", "--paths"].map((option): EffectOption => ({ option, effect: "writes", when: OUTSIDE_HERE })),
      ...["--cookies", "--download-archive", "--print-to-file"].map((option): EffectOption => ({ option, effect: "writes" })),
    ],
    abbreviate: { shorter: ["--print", "--netrc"] },
  },
  // borg (argparse: unique prefixes) runs the ssh command given with --rsh; create --content-from-command/--paths-from-command run the command after --.
  {
    programs: ["borg", "borgbackup"],
    options: [{ option: "--rsh", effect: "script" }],
    flags: [
      { option: "--content-from-command", reason: "runs the command given after --" },
      { option: "--paths-from-command", reason: "runs the command given after --" },
    ],
    abbreviate: {},
  },
  // sshfs runs the ssh command given with -o ssh_command= and hands -o ProxyCommand=/LocalCommand= to ssh, which runs them; -F names an ssh configuration.
  {
    programs: ["sshfs"],
    options: [
      ...["ssh_command", "ProxyCommand", "LocalCommand", "KnownHostsCommand"].map((key): EffectOption => ({ option: "-o", effect: "script", when: new RegExp(`(?:^|,)${key}=`, "i"), shellEscape: new RegExp(`(?:^|,)${key}=((?:\\\\.|[^,])*)`, "gi"), shown: `-o ${key}=` })),
      { option: "-F", effect: "file" },
    ],
  },
  // restic runs --password-command, and the -o sftp.command= and -o rclone.program= settings.
  {
    programs: ["restic"],
    options: [
      { option: "--password-command", effect: "script" },
      ...["-o", "--option"].flatMap((option) =>
        ["sftp.command", "rclone.program"].map((key): EffectOption => ({ option, effect: "script", when: new RegExp(`^${key.replace(".", "\\.")}=`), shellEscape: new RegExp(`^${key.replace(".", "\\.")}=(.*)$`, "gs"), shown: `${option} ${key}=` })),
      ),
    ],
  },
  // busctl (getopt_long: unique prefixes) connects through --address=unixexec:path=PROG,argv1=...: it runs PROG.
  { programs: ["busctl"], options: [{ option: "--address", effect: "script", when: /(?:^|;)\s*unixexec:/, shellEscape: /(?:^|[:,;])path=([^,;]*)/g, shown: "--address=unixexec:" }], abbreviate: {} },
  // sysctl sets kernel settings whose value is a program the kernel runs (core_pattern `|PROG ARGS` on a crash, modprobe, poweroff_cmd, the hotplug helper).
  { programs: ["sysctl"], options: [], settings: [{ name: /^kernel[./](?:core_pattern|modprobe|poweroff_cmd|hotplug)$/, effect: "code" }] },
  // Taskwarrior's `task execute WORDS` runs its words as a command line (after `rc.NAME=VALUE` settings too).
  { programs: ["task"], options: [], subcommands: { execute: { valued: "", operands: "all" } } },
  // dnsmasq (getopt_long) runs --conf-script's command line and reads its output as configuration, runs the --dhcp-script program, loads Lua and configuration files.
  {
    programs: ["dnsmasq"],
    options: [
      { option: "--conf-script", effect: "script" },
      { option: "--dhcp-script", effect: "program" },
      { option: "--dhcp-luascript", effect: "file" },
      { option: "-6", effect: "program", cluster: true },
      ...["-C", "--conf-file", "-7", "--conf-dir"].map((option): EffectOption => ({ option, effect: "file" })),
    ],
    abbreviate: {},
  },
  { programs: ["dhclient"], options: [{ option: "-sf", effect: "program" }, { option: "-cf", effect: "file" }, { option: "-lf", effect: "writes" }, { option: "-pf", effect: "writes" }] },
  // genie -c CMD and ksu -e CMD run the command after the option (in the bottle, as the target user).
  { programs: ["genie"], options: [{ option: "-c", effect: "rest" }, { option: "--command", effect: "rest" }] },
  { programs: ["ksu"], options: [{ option: "-e", effect: "rest" }] },
  { programs: ["plymouth"], options: [{ option: "--command", effect: "script" }] },
  { programs: ["perlbug", "perlthanks"], options: [{ option: "-e", effect: "script" }] },
  // cmake -E env|time|chdir runs the command that follows; -P and -C run CMake code from a file, --toolchain too.
  {
    programs: ["cmake"],
    options: [
      { option: "-E", effect: "rest", when: /^(?:env|time)$/ },
      { option: "-E", effect: "rest", when: /^chdir$/, directory: true },
      ...["-P", "-C", "--toolchain"].map((option): EffectOption => ({ option, effect: "file" })),
    ],
  },
  // Files written through an option: logrotate's log and state, iptables-save's output, dmidecode's dump, hashcat's outputs, varnishncsa's log, gtester's report, check_log's copy.
  { programs: ["logrotate"], options: [{ option: "-l", effect: "writes" }, { option: "--log", effect: "writes" }, { option: "-s", effect: "writes" }, { option: "--state", effect: "writes" }, { option: "-m", effect: "program" }, { option: "--mail", effect: "program" }] },
  { programs: ["iptables-save", "ip6tables-save", "iptables-legacy-save", "iptables-nft-save"], options: [{ option: "-f", effect: "writes" }, { option: "--file", effect: "writes" }] },
  { programs: ["dmidecode"], options: [{ option: "--dump-bin", effect: "writes" }] },
  { programs: ["hashcat"], options: [...["-o", "--outfile", "--potfile-path", "--debug-file", "--induction-dir"].map((option): EffectOption => ({ option, effect: "writes" }))] },
  { programs: ["varnishncsa", "varnishlog"], options: [{ option: "-w", effect: "writes" }] },
  { programs: ["gtester"], options: [{ option: "-o", effect: "writes" }] },
  { programs: ["check_log"], options: [{ option: "-O", effect: "writes" }, { option: "--oldlog", effect: "writes" }] },
  // fastfetch's configuration (-c/--config, JSONC) runs the command modules' shell text; Foundry's forge runs the solc given with --use when it is a path.
  { programs: ["fastfetch"], options: ["-c", "--config", "--load-config"].map((option): EffectOption => ({ option, effect: "file", when: /\/|\.jsonc?$/ })) },
  { programs: ["forge"], options: [{ option: "--use", effect: "program", when: /\// }] },
  // xdg-user-dir NAME runs `eval echo ${XDG_NAME_DIR:-$HOME}`: a NAME that is not a plain word is shell text.
  { programs: ["xdg-user-dir"], options: [], operands: { effect: "script", when: /[^\w]/, reason: "evaluates its operand in the command line `eval echo ${XDG_NAME_DIR:-$HOME}`", shorthands: [{ from: /^([\s\S]*)$/, to: "echo ${XDG_$1_DIR:-$HOME}" }] } },
];

/** Editor commands that run nothing (`set number`, `q`, `wq`, a line number, `syntax on`): no allow covers them unless named, but a deny has nothing to read. */
const INERT_EX = /^:*\s*(?:(?:se|set|setl|setlocal)\s+[^|!`=]+|q|qa|q!|qa!|wq|wqa|x|xa|w|noh|nohlsearch|\d+|(?:syntax|syn|filetype|ft|colorscheme|colo)\s+[\w.-]+)\s*$/;

/** Debugger commands that run nothing but the program being debugged (`run`, `quit`, `bt`, `set ...`, `info ...`). */
const INERT_DEBUGGER = /^(?:r|run|start|starti|c|continue|q|quit|bt|backtrace|where|k|kill|detach|n|next|s|step|ni|si|finish|(?:set|info|i|show|p|print|x|b|break|tbreak|disassemble|list|l|frame|f|up|down|thread|display|watch)(?:\s[^!`$|;(]*)?)$/;

/**
 * `--name[=value]` whose name is a proper prefix of one of `names` spelled out (`--upload-pa=CMD` as
 * `--upload-pack=CMD`), as getopt_long, Getopt::Long and git's parse-options read an abbreviation; the
 * word as it is when the name is one of `names` or of `shorter` (options of their own: `--text`, not `--textconv`).
 * An ambiguous prefix is read as the first it fits: the program refuses such a line.
 */
function unabbreviate(word: string, names: readonly string[], shorter: readonly string[] = [], oneDash = false): string {
  if (oneDash && /^-[^-=]/.test(word)) {
    // A word of three letters or more that is not an option as given (`-ex`, `-sC`) is read as its two-dash spelling.
    const given = word.includes("=") ? word.slice(0, word.indexOf("=")) : word;
    if (names.includes(given) || given.length < 4) return word;
    const long = unabbreviate(`-${word}`, names, shorter);
    return names.includes(long.includes("=") ? long.slice(0, long.indexOf("=")) : long) ? long : word;
  }
  if (!/^--[^-=]/.test(word)) return word;
  const eq = word.indexOf("=");
  const given = eq < 0 ? word : word.slice(0, eq);
  if (names.includes(given) || shorter.includes(given)) return word;
  const full = names.find((name) => name.startsWith("--") && name.startsWith(given));
  return full === undefined ? word : `${full}${eq < 0 ? "" : word.slice(eq)}`;
}

/** The value of `option` in `word` (and the next word), or undefined when the word is not that option. */
function optionValue(option: EffectOption, word: string, next: string | undefined): { value: string | undefined } | undefined {
  const name = option.option;
  if (name === "+") return word.startsWith("+") ? { value: word.slice(1) } : undefined;
  if (word === name) return { value: next };
  if (option.exact === true) return undefined;
  if (name.startsWith("--")) return word.startsWith(`${name}=`) ? { value: word.slice(name.length + 1) } : undefined;
  // A long option spelled with one dash (`go -exec=PROG`, `-Dexec.executable=PROG`) takes its value after `=`.
  if (name.length > 2 && word.startsWith(`${name}=`)) return { value: word.slice(name.length + 1) };
  if (word.startsWith(name) && !word.startsWith("--")) return { value: word.slice(name.length) };
  if (option.cluster === true && !word.startsWith("--")) {
    // Flags first, then the option with its value attached or in the next word.
    const at = word.indexOf(name.slice(1));
    if (at > 1 && /^-[A-Za-z0-9]+$/.test(word.slice(0, at))) {
      const rest = word.slice(at + 1);
      return { value: rest === "" ? next : rest };
    }
  }
  return undefined;
}

/** What a program of OPTION_EFFECTS runs, loads or writes through its options (undefined: no row). */
function readOptionEffects(name: string, words: readonly string[]): ProgramReading | undefined {
  const row = OPTION_EFFECTS.find((entry) => entry.programs.includes(name));
  if (row === undefined) return undefined;
  const out = empty();
  if (row.operands !== undefined) readOperandEffects(name, row.operands, words, out);
  // `place` options (`make -C DIR`): the words without them, and the directories they name.
  const placed = { dropped: new Set<number>(), places: [] as string[], waives: [] as string[], whole: true };
  for (let i = 1; i < words.length; i++) {
    const given = words[i]!;
    if (given === "--") break;
    const spelled = row.abbreviate === undefined ? given : unabbreviate(given, row.options.map((option) => option.option), row.abbreviate.shorter, row.abbreviate.oneDash === true);
    const word = row.doubleDash === true && /^--[A-Za-z]/.test(spelled) ? spelled.slice(1) : spelled;
    const sub = row.subcommands !== undefined && Object.hasOwn(row.subcommands, word) ? row.subcommands[word] : undefined;
    if (sub !== undefined) {
      out.refusals.push({ reason: `${name} ${word} runs a command line or commands it is given`, token: word });
      if (sub === null) {
        out.unknown ??= `${name} ${word} runs a command line given in its operands, which the guard does not read`;
        return out;
      }
      // The subcommand's own options, then its operands.
      let j = i + 1;
      while (j < words.length && words[j]!.startsWith("-") && words[j] !== "-") {
        if (words[j] === "--") {
          j += 1;
          break;
        }
        const letters = words[j]!.slice(1);
        const at = [...letters].findIndex((letter) => sub.valued.includes(letter));
        // `tmux new -c DIR CMD`, `-dcDIR`: the command line starts in DIR (the last one given); tmux expands a format in it (`#{pane_current_path}`).
        if (at >= 0 && letters[at] === sub.directory) {
          const dir = at === letters.length - 1 ? words[j + 1] : letters.slice(at + 1);
          out.directory = { word: dir?.includes("#") === true ? undefined : dir };
        }
        j += at >= 0 && at === letters.length - 1 ? 2 : 1;
      }
      const operands = words.slice(j);
      if (operands.length > 0) out.scripts.push(sub.operands === "first" ? operands[0]! : sub.operands === "keys" ? typedKeys(operands) : operands.join(" "));
      return out;
    }
    const setting = row.settings?.find((entry) => word.indexOf("=") > 0 && entry.name.test(word.slice(0, word.indexOf("="))));
    if (setting !== undefined) {
      const key = word.slice(0, word.indexOf("="));
      const value = word.slice(key.length + 1);
      if (setting.effect === "writes") {
        out.refusals.push({ reason: `${name} writes a file through ${key}=`, token: key });
        continue;
      }
      out.refusals.push({ reason: `${name} runs what the setting ${key} names`, token: key });
      if (setting.effect === "program" && value !== "") out.commands.push([value]);
      else out.unknown ??= `${name} reads the setting ${key}, which changes what it runs, and the guard cannot read it`;
      continue;
    }
    if (!word.startsWith("-") && !word.startsWith("+")) continue;
    for (const flag of row.flags ?? []) {
      const clustered = flag.option.length === 2 && /^-[A-Za-z0-9]+$/.test(word) && word.includes(flag.option.slice(1));
      if (word === flag.option || clustered) out.refusals.push({ reason: `${name} ${flag.option} ${flag.reason}`, token: flag.option });
    }
    for (const option of row.options) {
      const found = optionValue(option, word, words[i + 1]);
      if (found === undefined) continue;
      const { value } = found;
      if (option.when !== undefined && !option.when.test(value ?? "")) continue;
      const shown = option.shown ?? (option.option === "+" ? "+COMMAND" : option.option);
      switch (option.effect) {
        case "writes":
          out.refusals.push({ reason: `${name} writes a file through ${shown}`, token: option.option });
          if (value !== undefined && value !== "" && value !== "-") out.writes = [...(out.writes ?? []), value];
          break;
        case "sends":
          out.refusals.push({ reason: `${name} sends the file given with ${shown}`, token: option.option });
          break;
        case "reads":
          out.refusals.push({ reason: `${name} reads what it does from the file given with ${shown}, which the guard does not read`, token: option.option });
          break;
        case "file":
          out.refusals.push({ reason: `${name} runs the code in the file given with ${shown}`, token: option.option });
          break;
        case "loads":
          out.refusals.push({ reason: `${name} loads code or settings (which can run programs) from what ${shown} names`, token: option.option });
          out.unknown ??= `${name} loads code or settings from ${value ?? ""} given with ${shown}, which the guard cannot read`;
          break;
        case "commands":
          out.refusals.push({ reason: `${name} runs the commands in the file given with ${shown} (a line may run a shell command)`, token: option.option });
          out.unknown ??= `${name} runs the commands in the file ${value ?? ""} given with ${shown}, which the guard cannot read`;
          break;
        case "config":
          out.refusals.push({ reason: `${name} runs the scripts and configuration (which can run commands) of the project, repository or directory given with ${shown}`, token: option.option });
          if (option.place === true) {
            // `-C DIR`, `-CDIR`, `--directory=DIR`; a cluster (`-sC DIR`) is not read as a place.
            const next = word === option.option;
            if (value === undefined || value === "" || (!next && !word.startsWith(option.option))) placed.whole = false;
            else {
              placed.dropped.add(i);
              if (next) placed.dropped.add(i + 1);
              placed.places.push(value);
              placed.waives.push(option.option);
            }
          }
          break;
        case "code": {
          out.refusals.push({ reason: `${name} runs the code given with ${shown}`, token: option.option });
          const text = value ?? "";
          const key = text.includes("=") ? text.slice(0, text.indexOf("=")) : undefined;
          if (option.bangKeys !== undefined && key !== undefined && option.bangKeys.test(key) && text.slice(key.length + 1).startsWith("!")) {
            out.scripts.push(text.slice(key.length + 2));
            break;
          }
          if (option.commandKeys !== undefined && key !== undefined && option.commandKeys.test(key)) {
            const setting = text.slice(key.length + 1);
            // A list of strings (cargo's `runner = ["prog", "arg"]`) is the program and its arguments.
            const list = /^\s*\[\s*"(?:[^"\\]|\\.)*"\s*(?:,\s*"(?:[^"\\]|\\.)*"\s*)*,?\s*\]\s*$/.test(setting)
              ? [...setting.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((match) => `'${match[1]!.replaceAll("'", "'\\''")}'`).join(" ")
              : undefined;
            out.scripts.push(list ?? setting);
            break;
          }
          if (option.shellEscape !== undefined) {
            // A client's statements run in its server; only its shell escapes run here (`COPY ... TO PROGRAM` runs on the server).
            for (const match of text.matchAll(option.shellEscape)) out.scripts.push(match[1] ?? "");
            // `psql -c '\\i FILE'`, `mysql -e 'source FILE'`: the client's commands in a file, which the guard cannot read.
            const included = option.includes === undefined ? null : option.includes.exec(text);
            if (included !== null) out.unknown ??= `${name} runs the commands in the file ${included[1] ?? ""} named in ${shown}, which the guard cannot read`;
            break;
          }
          out.guesses.push(...codeGuesses(text));
          // A recipe line's leading `-`, `@` and `+` are make's (ignore errors, silent, always run).
          if (option.recipes !== undefined) for (const match of text.matchAll(option.recipes)) out.guesses.push((match[1] ?? match[2] ?? "").replace(/^\s*[-@+]+/, ""));
          out.unknown ??= `${name} runs code given with ${shown}, which the guard cannot read`;
          break;
        }
        case "program":
        case "script":
          out.refusals.push({ reason: `${name} runs a command through ${shown}`, token: option.option });
          if (value === undefined || value === "") out.unknown ??= `${name} ${shown} has no value`;
          else if (option.shellEscape !== undefined) for (const match of value.matchAll(option.shellEscape)) out.scripts.push(match[1] ?? "");
          else if (option.effect === "program") out.commands.push([value]);
          else out.scripts.push(option.separator === undefined ? value : value.split(option.separator).join(" "));
          break;
        case "rest":
          out.refusals.push({ reason: `${name} runs the command given after ${shown}`, token: option.option });
          // `cmake -E chdir DIR CMD`: the command starts in DIR.
          if (option.directory === true) {
            if (i + 3 < words.length) {
              out.directory = { word: words[i + 2]! };
              out.commands.push(words.slice(i + 3));
            } else if (i + 2 >= words.length) out.unknown ??= `${name} ${shown} ${value ?? ""} has no directory`;
          } else if (i + 1 < words.length) out.commands.push(words.slice(i + 1));
          return out;
        case "expanded":
          out.refusals.push({ reason: `${name} expands the words given with ${shown}, command substitutions included`, token: option.option });
          if (value !== undefined) out.scripts.push(`: ${value}`);
          break;
        case "history":
          out.refusals.push({ reason: `${name} adds a command line to the shell's history with ${shown}, which fc runs again`, token: option.option });
          if (i + 1 < words.length) out.scripts.push(words.slice(i + 1).join(" "));
          return out;
        case "keybinding":
          out.refusals.push({ reason: `${name} binds a key to the command line given with ${shown}`, token: option.option });
          if (value === undefined) out.unknown ??= `${name} ${shown} has no value`;
          else out.scripts.push(value.replace(/^\s*(?:"(?:\\.|[^"\\])*"|'[^']*'|[^\s:]+)\s*:\s*/s, "").replace(/^["']|["']$/g, ""));
          break;
        case "debugger": {
          const text = (value ?? "").trim();
          out.refusals.push({ reason: `${name} runs the debugger command given with ${shown}`, token: option.option });
          // gdb's `shell CMD` and `!CMD`; lldb's `platform shell [-h] [-t SEC] [-s SHELL] [--] CMD` (and its `shell` alias).
          const shell = /^(?:!|(?:pla(?:t(?:f(?:o(?:rm?)?)?)?)?\s+)?she(?:ll?)?\s)\s*(?:(?:-[hts](?:\s+[^-\s]\S*)?\s+)*--\s+)?(.*)$/s.exec(text);
          if (shell !== null) out.scripts.push(shell[1] ?? "");
          else if (!INERT_DEBUGGER.test(text)) {
            out.guesses.push(...codeGuesses(text));
            out.unknown ??= `${name} runs the debugger command ${JSON.stringify(text)}, which the guard cannot read`;
          }
          break;
        }
        case "ex": {
          const text = (value ?? "").trim();
          if (option.option === "+" && /^(?:\d*|\/.*|\?.*|G|g)$/s.test(text) && !text.includes("!")) break; // a line, a search
          const shell = /^[:\s]*(?:sil(?:ent)?!?\s*)?(?:r(?:ead)?\s*|w(?:rite)?\s*)?!(.*)$/s.exec(text);
          out.refusals.push({ reason: `${name} runs the editor command given with ${shown}`, token: option.option });
          if (shell !== null && !/[|\n]/.test(shell[1] ?? "")) out.scripts.push(shell[1] ?? "");
          else if (INERT_EX.test(text)) break;
          else {
            out.guesses.push(...codeGuesses(text));
            out.unknown ??= `${name} runs the editor command ${JSON.stringify(text)}, which the guard cannot read`;
          }
          break;
        }
      }
      break;
    }
  }
  if (placed.places.length > 0 && placed.whole) out.allowAs = { words: words.filter((_word, k) => !placed.dropped.has(k)), places: placed.places, waives: placed.waives };
  return out;
}

/** An OPTION_EFFECTS program's operands (OperandEffect). */
function readOperandEffects(name: string, spec: OperandEffect, words: readonly string[], out: ProgramReading): void {
  const after = [...(spec.after ?? [])];
  const operands: string[] = [];
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    if (word === "--") {
      if (after.length === 0) operands.push(...words.slice(i + 1));
      break;
    }
    if (word.startsWith("-") && word !== "-") {
      if (!(word.startsWith("--") && word.includes("="))) i += spec.valued?.[word] ?? 0;
      continue;
    }
    if (after.length > 0) {
      if (word !== after.shift()) return;
      continue;
    }
    operands.push(word);
  }
  if (after.length > 0) return;
  for (const operand of operands) {
    if (spec.when !== undefined && !spec.when.test(operand)) continue;
    if (spec.effect === "script") {
      out.refusals.push({ reason: `${name} ${spec.reason ?? "runs the command lines it is given"}`, token: name });
      const shorthand = spec.shorthands?.find((entry) => entry.from.test(operand));
      out.scripts.push(shorthand === undefined ? operand : operand.replace(shorthand.from, shorthand.to));
    } else out.refusals.push({ reason: `${name} ${spec.reason ?? (spec.effect === "writes" ? "writes the file" : "runs the code in")} ${operand}`, token: operand });
  }
}

/** Adds `more` to `out` (a wrapper's environment settings, ...). */
function merge(out: ProgramReading, more: ProgramReading): void {
  if (more.writes !== undefined) out.writes = [...(out.writes ?? []), ...more.writes];
  out.writesUnnamed ??= more.writesUnnamed;
  out.placesUnknown ??= more.placesUnknown;
  out.commands.push(...more.commands);
  out.scripts.push(...more.scripts);
  out.refusals.push(...more.refusals);
  out.forms.push(...more.forms);
  out.guesses.push(...more.guesses);
  out.unknown ??= more.unknown;
  out.allowAs ??= more.allowAs;
  out.directory ??= more.directory;
}

/** Option readers ----------------------------------------------------------------------------- */


const empty = (): ProgramReading => ({ commands: [], scripts: [], guesses: [], refusals: [], forms: [] });

export function basename(word: string): string {
  const slash = word.lastIndexOf("/");
  return slash >= 0 ? word.slice(slash + 1) : word;
}

function readWrapper(name: string, spec: WrapperSpec, words: readonly string[], token = name): ProgramReading {
  const out = empty();
  out.refusals.push({ reason: `${name} runs the command it is given`, token });
  if (spec.afterDashDash === true || spec.dashDashOrUnknown === true) {
    const dash = words.indexOf("--", 1);
    if (dash > 0 && dash + 1 < words.length) out.commands.push(words.slice(dash + 1));
    else if (spec.dashDashOrUnknown === true && words.length > 1) out.unknown = `${name} runs a command given without --, where its options end the guard cannot tell`;
    return out;
  }
  let i = 1 + (spec.leading ?? 0);
  const parsed = parseOptions(words, i, spec.options, name);
  if (spec.otherProgram !== undefined && parsed.unknown === undefined && spec.otherProgram.test(words[parsed.next] ?? "")) return { ...empty(), plainWords: true };
  if (parsed.unknown !== undefined) {
    out.unknown = parsed.unknown;
    return out;
  }
  i = parsed.next;
  const seen = [...parsed.seen];
  const has = (options: readonly string[] | undefined) => seen.some((option) => options?.includes(option.name) === true);
  // `env -C DIR CMD`, `sudo -D DIR CMD`, `nsenter --wd=DIR CMD`: where the command it runs starts (the last one given).
  const chosen = seen.findLast((option) => spec.directoryOptions?.includes(option.name) === true);
  const fromRoot = (word: string) => (spec.directoryFromRoot === true && !/^[/~$]/.test(word) ? `/${word}` : word);
  // `unshare -R /srv CMD`: a new root; a directory option's DIR is in it.
  const root = spec.rootOptions === undefined ? undefined : seen.findLast((option) => spec.rootOptions!.options.includes(option.name));
  const inRoot = (top: string, dir: string | undefined) => (dir === undefined ? top : `${top.replace(/\/+$/, "")}/${dir.replace(/^\/+/, "")}`);
  if (root !== undefined) {
    // An absolute DIR is in the new root; unshare reads a relative one from where it was (chroot keeps the directory), proot from a guest directory the guard cannot tell.
    const starts = spec.rootOptions!.starts;
    const dir = chosen?.value;
    const word = root.value === undefined || starts === "unknown" ? undefined : dir === undefined ? (starts === "root" ? root.value : undefined) : dir.startsWith("/") ? inRoot(root.value, dir) : starts === "root" ? dir : undefined;
    out.directory = { word };
  } else if (chosen !== undefined) out.directory = { word: chosen.value === undefined ? undefined : fromRoot(chosen.value) };
  else if (has(spec.homeWith) || (spec.homeWith?.includes("-") === true && words.slice(1, i).concat(spec.permute === true ? words.slice(i) : []).includes("-"))) out.directory = { word: "~" };
  else if (spec.startsIn !== undefined) out.directory = { word: spec.startsIn };
  else if (spec.rootPositional !== undefined && !has(spec.rootPositional) && i < words.length) out.directory = { word: words[i]! };
  /** Given no command, a wrapper of `shellAlone` starts a shell that runs what its standard input holds. */
  const shellAlone = () => {
    if (spec.shellAlone === undefined || (spec.shellAlone !== true && !has(spec.shellAlone))) return;
    if (seen.some((option) => option.value !== undefined && (spec.scriptOptions?.includes(option.name) === true || spec.programOptions?.includes(option.name) === true))) return;
    out.refusals.push({ reason: `${name} starts a shell that runs the commands on its standard input`, token });
    out.readsStdin = true;
    out.stdinShell = true;
  };
  /** Script and program options (after every option is seen). */
  const optionCommands = () => {
    for (const option of seen) {
      if (option.value === undefined) continue;
      if (spec.scriptOptions?.includes(option.name) === true) out.scripts.push(option.value);
      // `env -S'-i CMD'`, `env -S'A=1 CMD'`: the value's words are more of env's own arguments (a plain command line is read as it is).
      if (spec.splitOptions?.includes(option.name) === true) out.scripts.push(/^\s*(?:-|[^\s=]+=)/.test(option.value) ? `${name} ${option.value}` : option.value);
      if (spec.programOptions?.includes(option.name) === true) out.commands.push([option.value]);
    }
  };
  if (spec.assignments === true) {
    while (i < words.length && words[i]!.indexOf("=") > 0) {
      const word = words[i]!;
      merge(out, readEnvironment(word.slice(0, word.indexOf("=")), word.slice(word.indexOf("=") + 1), false, name));
      i += 1;
    }
  }
  let positionals = has(spec.positionalsUnless) ? 0 : (spec.positionals ?? 0);
  if (spec.permute === true) {
    // Options among the operands (su root -c CMD): read every word that looks like an option.
    const operands: string[] = parsed.dashdash === true ? words.slice(i) : [];
    while (parsed.dashdash !== true && i < words.length) {
      const word = words[i]!;
      if (word === "--") {
        operands.push(...words.slice(i + 1));
        break;
      }
      if (word.startsWith("-") && word !== "-") {
        const more = parseOptions(words, i, spec.options, name);
        if (more.unknown !== undefined) {
          out.unknown = more.unknown;
          return out;
        }
        seen.push(...more.seen);
        i = Math.max(more.next, i + 1);
      } else {
        operands.push(word);
        i += 1;
      }
    }
    optionCommands();
    // runuser -u USER CMD: the operands are the command.
    if (has(spec.commandWith) && operands.length > 0) out.commands.push(operands);
    else shellAlone();
    writeRefusals(name, spec, seen, spec.positionalWrites === true && !has(spec.commandWith) ? operands : [], out);
    return out;
  }
  if (has(spec.editOptions)) {
    for (const file of words.slice(i)) out.refusals.push({ reason: `${name} edits (writes) the file ${file}`, token: file });
    return out;
  }
  if (spec.inert !== undefined && has(spec.inert)) return out;
  optionCommands();
  writeRefusals(name, spec, seen, spec.positionalWrites === true ? words.slice(i, i + positionals) : [], out);
  while (positionals > 0 && i < words.length) {
    i += 1;
    positionals -= 1;
  }
  if (spec.optionalPositional?.test(words[i] ?? "") === true) i += 1;
  // flock FILE -c CMD: a script option after the operands.
  if (spec.scriptOptions !== undefined && i < words.length && spec.scriptOptions.includes(words[i]!)) {
    if (i + 1 < words.length) out.scripts.push(words[i + 1]!);
    else out.unknown = `${name} ${words[i]!} has no value`;
    return out;
  }
  if (spec.scriptOnly === true) {
    shellAlone();
    return out;
  }
  const rest = words.slice(i);
  if (spec.operandScripts === true) {
    out.scripts.push(...rest);
    return out;
  }
  if (spec.parallelInput === true) return readParallel(name, rest, seen, out);
  if (spec.readsInput !== undefined) {
    // `echo push | xargs git` runs `git push`: the words after the command's are read from the input.
    const replace = seen.find((option) => spec.readsInput!.replace.includes(option.name));
    const placeholder = replace === undefined ? spec.readsInput.placeholder : (replace.value ?? "{}");
    const command = rest.length > 0 ? rest : [...(spec.readsInput.alone ?? [])];
    if (command.length === 0) return out;
    out.commands.push(command);
    const placed = placeholder === undefined ? -1 : command.findIndex((word) => word.includes(placeholder));
    const at = placeholder === undefined || (placed < 0 && replace === undefined) ? command.length : placed;
    if (at >= 0) out.input = [{ command, at, by: name, ...(rest.length === 0 ? { implicit: true } : {}) }];
    // `find . | xargs grep foo` is as allowed as the grep it runs with the input's words (Claude Code strips xargs too).
    if (spec.transparent === true && rest.length > 0 && !seen.some((option) => spec.opaqueWith?.includes(option.name) === true)) markTransparent(out);
    return out;
  }
  if (rest.length === 0) {
    shellAlone();
    return out;
  }
  if (spec.joined === true || has(spec.joinedWith)) out.scripts.push(rest.join(" "));
  else out.commands.push([...(spec.runBy ?? []), ...rest]);
  // `chroot /srv cat /secrets/k` reads /srv/secrets/k: its command's absolute words, read from the new root where it starts, are also relative words there.
  if (spec.rootPositional !== undefined && out.directory !== undefined && spec.joined !== true) {
    const rooted = rest.map((word, j) => (j > 0 && word.startsWith("/") ? word.replace(/^\/+/, "") || "." : word));
    if (rooted.some((word, j) => word !== rest[j])) out.commands.push(rooted);
  }
  // `unshare -R /srv cat /secrets/k` reads /srv/secrets/k; under a root the guard cannot place (`-R "$R"`, `-R jail`), somewhere ending in /secrets/k.
  if (root !== undefined && spec.joined !== true) {
    const top = root.value !== undefined && /^\/[^$`*?[~]*$/.test(root.value) ? root.value.replace(/\/+$/, "") : "~-";
    const rooted = rest.map((word, j) => (j > 0 && word.startsWith("/") ? `${top}${word}` : word));
    if (rooted.some((word, j) => word !== rest[j])) out.commands.push(rooted);
  }
  if (spec.transparent === true && !seen.some((option) => spec.opaqueWith?.includes(option.name) === true)) markTransparent(out);
  return out;
}

/** Only the wrapper's own refusal: the line is as allowed as the command it runs (read as a command of its own). */
function markTransparent(out: ProgramReading): void {
  if (out.refusals.length !== 1 || out.commands.length !== 1 || out.scripts.length !== 0) return;
  out.refusals.length = 0;
  out.transparent = true;
}

/** GNU parallel's replacement strings: `{}`, `{.}`, `{/}`, `{//}`, `{/.}`, `{#}`, `{%}`, `{N}`, `{N.}`, ..., and `{= perl =}`. */
const PARALLEL_REPLACEMENT = /\{(?:\d*(?:\.|\/|\/\/|\/\.|#|%|\+\/|\+\.|\+\.\.)?|=.*?=)\}/s;
/** Words the shell reads as themselves (no quoting, expansion, operator or glob character). */
const PLAIN_SHELL_WORD = /^[\w@%+=:,./-]+$/;
const MAX_PARALLEL_JOBS = 16;

/**
 * GNU parallel: `parallel CMD ::: A B` runs `CMD A` and `CMD B` (each argument quoted; one from each
 * `:::` group, every combination), and without `:::` it reads the arguments from its input (or from
 * `-a FILE`, `:::: FILE`). A replacement string (`{}`, `{.}`, `{1}`, ...) takes the argument's place;
 * with none, the arguments are appended. The command words are joined and run by a shell; with no
 * command, each argument is itself a command line.
 */
function readParallel(name: string, rest: readonly string[], seen: Parsed["seen"], out: ProgramReading): ProgramReading {
  const separator = rest.findIndex((word) => /^:::[:+]?\+?$/.test(word));
  const command = separator < 0 ? [...rest] : rest.slice(0, separator);
  const groups: string[][] = [];
  let fromInput = separator < 0 || seen.some((option) => option.name === "-a" || option.name === "--arg-file");
  if (separator >= 0) {
    for (let j = separator; j < rest.length; j++) {
      const word = rest[j]!;
      if (/^:::[:+]?\+?$/.test(word)) {
        if (word.startsWith("::::")) fromInput = true;
        groups.push([]);
      } else groups.at(-1)!.push(word);
    }
  }
  const custom = seen.find((option) => option.name === "-I")?.value;
  const replaced = (word: string) => PARALLEL_REPLACEMENT.test(word) || (custom !== undefined && custom !== "" && word.includes(custom));
  if (fromInput) {
    if (command.length === 0) {
      out.unknown = `${name} runs the command lines it reads from its input, which the guard cannot read`;
      return out;
    }
    // One simple command of plain words runs as written, with the words read from the input added.
    if (command.every((word) => PLAIN_SHELL_WORD.test(word) || replaced(word))) {
      out.commands.push(command);
      const at = command.findIndex(replaced);
      out.input = [{ command, at: at < 0 ? command.length : at, by: name }];
    } else {
      out.scripts.push(command.join(" "));
      out.unknown = `${name} adds words it reads from its input to the command line it runs, which the guard cannot know`;
    }
    return out;
  }
  // Every combination of one argument from each group.
  let jobs: string[][] = [[]];
  for (const group of groups) jobs = jobs.flatMap((job) => group.map((arg) => [...job, arg]));
  if (jobs.length > MAX_PARALLEL_JOBS) {
    out.unknown = `${name} runs more than ${MAX_PARALLEL_JOBS} commands, which the guard does not read one by one`;
    jobs = jobs.slice(0, MAX_PARALLEL_JOBS);
  }
  const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;
  for (const job of jobs) {
    if (command.length === 0) {
      out.scripts.push(job.join(" "));
      continue;
    }
    if (!command.some(replaced)) {
      out.scripts.push([...command, ...job.map(quote)].join(" "));
      continue;
    }
    const filled = command.map((word) => word.replace(/\{(\d*)\}/g, (_m, n: string) => quote(n === "" ? job.join(" ") : (job[Number(n) - 1] ?? ""))));
    // Other replacement strings (`{.}`, `{/}`, `{= perl =}`) change the argument: those words are not known.
    if (filled.some(replaced)) {
      out.scripts.push(filled.join(" "));
      out.unknown ??= `${name} puts a changed argument (a replacement string other than {}) into the command line it runs, which the guard does not work out`;
    } else out.scripts.push(filled.join(" "));
  }
  return out;
}

/** A wrapper's writes: its write options (`time -o FILE`) and the files among its positionals (`logsave FILE CMD`). */
function writeRefusals(name: string, spec: WrapperSpec, seen: Parsed["seen"], files: readonly string[], out: ProgramReading): void {
  for (const option of seen) if (spec.writeOptions?.includes(option.name) === true) out.refusals.push({ reason: `${name} writes a file through ${option.name}`, token: option.name });
  for (const file of files) if (file !== "/dev/null") out.refusals.push({ reason: `${name} writes the file ${file}`, token: file });
}

/**
 * The files a wrapper reads its command's words from (`xargs -a FILE`, `parallel --arg-file FILE`, `parallel CMD :::: FILE`),
 * as written: it opens them itself, before the command it runs.
 */
export function wrapperInputFiles(words: readonly string[]): string[] {
  const name = basename(words[0] ?? "");
  // `uv run --env-file .env CMD`, `docker run --env-file=.env IMAGE`, `bun --env-file .env x.ts`: the runner reads the
  // file of variables itself, before the command it runs (up to `--`).
  const envFiles: string[] = [];
  for (let i = 1; i < words.length && words[i] !== "--"; i++) {
    const given = /^--env-file(?:-if-exists)?(?:=([\s\S]*))?$/.exec(words[i]!);
    if (given !== null) envFiles.push(given[1] ?? words[++i] ?? "");
  }
  const spec = Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name] : undefined;
  if (spec?.inputFiles === undefined) return envFiles.filter((file) => file !== "");
  const parsed = parseOptions(words, 1, spec.options, name);
  const files = parsed.seen.filter((option) => spec.inputFiles!.includes(option.name) && option.value !== undefined).map((option) => option.value!);
  if (spec.parallelInput === true) {
    // `:::: F G` (and `::::+`): files of arguments, up to the next separator.
    let reading = false;
    for (const word of words.slice(parsed.next)) {
      if (/^:::(?::)?\+?$/.test(word)) reading = word.startsWith("::::");
      else if (reading) files.push(word);
    }
  }
  return [...files, ...envFiles.filter((file) => file !== "")];
}

/** The starting points of `find` (after -H, -L, -P, -D OPTS, -Ox; `.` when none is given). */
function findStarts(words: readonly string[]): string[] {
  let i = 1;
  while (i < words.length && /^-(?:[HLP]|D|O\d*)$/.test(words[i]!)) i += words[i] === "-D" ? 2 : 1;
  const starts: string[] = [];
  while (i < words.length && !words[i]!.startsWith("-") && words[i] !== "(" && words[i] !== "!" && words[i] !== ",") starts.push(words[i++]!);
  return starts.length > 0 ? starts : ["."];
}

/**
 * find: -exec/-execdir/-ok/-okdir COMMAND ; (or +), -delete, -fprint*. `-exec` and `-ok` put each
 * path found where `{}` stands, the first being a starting point itself (`find push -exec git {} \;`
 * runs `git push`): each starting point in its place is another spelling a deny is tried against;
 * with a file name pattern among them (`find * …`) the paths are words the guard cannot know.
 */
function readFind(words: readonly string[]): ProgramReading {
  const out = empty();
  let starts: string[] | undefined;
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    if (word === "-exec" || word === "-execdir" || word === "-ok" || word === "-okdir") {
      out.refusals.push({ reason: `find runs a command through ${word}`, token: word });
      let end = i + 1;
      while (end < words.length && words[end] !== ";" && !(words[end] === "+" && words[end - 1] === "{}")) end += 1;
      const inner = words.slice(i + 1, end);
      if (inner.length > 0) out.commands.push(inner);
      else out.unknown = `find ${word} has no command`;
      const at = inner.findIndex((part) => part.includes("{}"));
      if (at >= 0 && (word === "-exec" || word === "-ok")) {
        starts ??= findStarts(words);
        for (const start of starts.slice(0, 8)) out.forms.push(inner.map((part) => part.replaceAll("{}", start)));
        if (starts.some((start) => /[*?[]/.test(start))) (out.input ??= []).push({ command: inner, at, by: "find", paths: true });
      }
      if (word === "-execdir" || word === "-okdir") {
        // The command runs in the directory of each path found, `{}` being `./NAME` there: a directory and a name the guard cannot tell.
        out.directory = { word: undefined };
        if (at >= 0) (out.input ??= []).push({ command: inner, at, by: "find", paths: true });
      }
      i = end;
    } else if (word === "-delete") out.refusals.push({ reason: "find deletes files through -delete", token: word });
    else if (/^-f(?:print0?|printf|ls)$/.test(word)) {
      out.refusals.push({ reason: `find writes a file through ${word}`, token: word });
      if (words[i + 1] !== undefined) (out.writes ??= []).push(words[i + 1]!);
      // -fprintf FILE FORMAT: the format is no expression of find's.
      i += word === "-fprintf" ? 2 : 1;
    }
  }
  return out;
}

/** fd's flags that take no value (a cluster of them may end in -x or -X with the command attached: `fd -Hxrm`). */
const FD_FLAGS = "HIusigFalLp01q";

/** fd: -x/--exec and -X/--exec-batch COMMAND [ARGS...] up to `;` or the end of the line. */
function readFd(words: readonly string[]): ProgramReading {
  const out = empty();
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    if (word === "--") break;
    const long = /^(--exec(?:-batch)?)(?:=(.*))?$/s.exec(word);
    const short = long === null ? new RegExp(`^-[${FD_FLAGS}]*([xX])(.*)$`, "s").exec(word) : null;
    if (long === null && short === null) continue;
    const shown = long !== null ? long[1]! : `-${short![1]!}`;
    const attached = long !== null ? long[2] : short![2] === "" ? undefined : short![2];
    out.refusals.push({ reason: `fd runs a command through ${shown}`, token: shown });
    let end = i + 1;
    while (end < words.length && words[end] !== ";") end += 1;
    const inner = [...(attached === undefined ? [] : [attached]), ...words.slice(i + 1, end)];
    if (inner.length > 0 && inner[0] !== "") out.commands.push(inner);
    else out.unknown ??= `fd ${shown} has no command`;
    i = end;
  }
  return out;
}

/** sqlite3's options that take one value, and two (`-lookaside SIZE N`); `-A ARGS...` takes the rest of the line. */
const SQLITE3_VALUED = new Set(["cmd", "init", "newline", "nullvalue", "separator", "vfs", "maxsize", "mmap", "nonce", "heap"]);
const SQLITE3_TWO_VALUES = new Set(["lookaside", "pagecache"]);

/** Dot-commands that only print or set how output looks: they run, load and write nothing. */
const SQLITE3_INERT_DOT = /^\.(?:tables|table|schema|fullschema|indexes|indices|databases|dbinfo|headers?|mode|dump|show|help|width|nullvalue|separator|timer|stats|print|echo|changes|eqp|explain|bail|quit|exit)(?:\s|$)/;

/** Dot-commands that pipe through a command: `.output |CMD`, `.once |CMD`, `.read |CMD` (`.import |CMD TABLE` is not read). */
const SQLITE3_PIPE_DOT = /^\.(?:output|once|read)\s+(['"]?)\|(.*)\1\s*$/s;

/** duckdb's options that take a value; `-c`, `-s` and `-cmd` hold SQL or dot-commands it runs. */
const DUCKDB_VALUED = new Set(["cmd", "c", "s", "init", "newline", "nullvalue", "separator"]);

/** The sqlite3 shell and its fork duckdb: options that take a value, and those whose value runs as an operand does (`-cmd TEXT`). */
const SQL_SHELLS: Readonly<Record<string, { readonly valued: ReadonlySet<string>; readonly texts: ReadonlySet<string> }>> = {
  sqlite3: { valued: SQLITE3_VALUED, texts: new Set(["cmd"]) },
  duckdb: { valued: DUCKDB_VALUED, texts: new Set(["cmd", "c", "s"]) },
};

/** SQL statements that write a database or data file: ATTACH (creates the file), VACUUM INTO, duckdb's COPY ... TO and EXPORT DATABASE. */
const SQL_WRITES = /\b(?:(ATTACH)\b|(VACUUM)\s+(?:\w+\s+)?INTO\b|(COPY)\b[^;]*?\bTO\b|(EXPORT)\s+DATABASE\b)/i;
const SQL_WRITE_NAMES: Readonly<Record<string, string>> = { ATTACH: "ATTACH", VACUUM: "VACUUM INTO", COPY: "COPY ... TO", EXPORT: "EXPORT DATABASE" };

/** SQL statements that install or load an extension (duckdb INSTALL, LOAD): code from outside the database. */
const SQL_LOADS = /(?:^|;)\s*(?:FORCE\s+)?(INSTALL|LOAD)\b/i;

/**
 * sqlite3 FILE SQL... (and duckdb): each operand after the database is run, and so is the value of -cmd
 * (duckdb's -c and -s too), an operand that starts with `.` as dot-commands (one a line: `.shell CMD`,
 * `.system CMD`, `.output |CMD` run a command), any other as SQL, whose functions edit() (runs an editor),
 * writefile() and load_extension() reach outside the database, and whose ATTACH, VACUUM INTO, COPY ... TO
 * write a file.
 */
function readSqlShellOperands(name: string, words: readonly string[], out: ProgramReading): void {
  const shell = SQL_SHELLS[name]!;
  const operands: string[] = [];
  const texts: string[] = [];
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    const option = /^--?([A-Za-z]+)$/.exec(word)?.[1];
    if (option === "A") return void (out.unknown ??= `${name} -A runs an archive command the guard does not read`);
    if (option !== undefined && shell.texts.has(option) && words[i + 1] !== undefined) texts.push(words[i + 1]!);
    if (option !== undefined && shell.valued.has(option)) i += 1;
    else if (option !== undefined && SQLITE3_TWO_VALUES.has(option)) i += 2;
    else if (option === undefined) operands.push(word);
  }
  for (const text of [...texts, ...operands.slice(1)]) {
    if (text.startsWith(".")) {
      for (const line of text.split("\n")) {
        if (line.trim() === "" || SQLITE3_INERT_DOT.test(line)) continue;
        const dot = /^\.(\w*)/.exec(line)?.[1] ?? "";
        const escape = /^\.(?:shell|system)\s+(.*)$/s.exec(line);
        const pipe = SQLITE3_PIPE_DOT.exec(line);
        if (escape !== null || pipe !== null) {
          out.refusals.push({ reason: `${name} runs a command through .${dot}`, token: `.${dot}` });
          out.scripts.push(escape !== null ? escape[1]! : pipe![2]!);
        } else {
          out.refusals.push({ reason: `${name} runs the dot-command .${dot}`, token: `.${dot}` });
          out.unknown ??= `${name} runs the dot-command ${line.trim()}, which the guard does not read`;
        }
      }
      continue;
    }
    if (/\b(?:edit|writefile|load_extension)\s*\(/i.test(text)) {
      out.refusals.push({ reason: `${name} runs SQL that calls edit(), writefile() or load_extension()`, token: "edit" });
      out.unknown ??= `${name} runs SQL that calls edit(), writefile() or load_extension(), which reach outside the database, and the guard cannot read what they run`;
    }
    const writes = SQL_WRITES.exec(text);
    if (writes !== null) {
      const statement = (writes[1] ?? writes[2] ?? writes[3] ?? writes[4]!).toUpperCase();
      out.refusals.push({ reason: `${name} writes a database file through ${SQL_WRITE_NAMES[statement]!}`, token: statement });
    }
    const loads = SQL_LOADS.exec(text);
    if (loads !== null) out.refusals.push({ reason: `${name} installs or loads an extension through ${loads[1]!.toUpperCase()}`, token: loads[1]!.toUpperCase() });
  }
}

/** `git -c KEY=VALUE` (and `--config-env`, `clone -c`): what a setting makes git run (GIT_CONFIG_COMMANDS). */
function readGitSetting(option: string, setting: string, out: ProgramReading): void {
  const key = setting.split("=")[0] ?? "";
  const value = setting.slice(key.length + 1);
  const row = gitConfigRow(key);
  if (row === undefined) return;
  out.refusals.push({ reason: `git runs the command set in ${key}`, token: option });
  // A credential helper is a command line git hands to a shell: `!CMD` is CMD, an absolute path runs as written, and NAME
  // runs `git credential-NAME` (so `x; CMD` runs CMD too).
  const helper = /^credential\.(?:.+\.)?helper$/i.test(key) && value !== "" && !value.startsWith("!") ? (value.startsWith("/") ? value : `git credential-${value}`) : undefined;
  const command = row.value === "script" ? value : row.value === "bang" && value.startsWith("!") ? value.slice(1) : helper;
  // `url.NEW.insteadOf=OLD` rewrites every URL that starts with OLD to start with NEW: an `ext::CMD` NEW runs CMD.
  const rewritten = /^url\.(.+)\.(?:insteadof|pushinsteadof)$/is.exec(key)?.[1];
  if (rewritten !== undefined && option !== "--config-env" && /^ext::/i.test(rewritten)) out.commands.push(extCommand(rewritten));
  if (row.value === "file") out.unknown ??= `git reads more settings (which can name commands it runs) from the file given in ${key}`;
  else if (row.value === "url" && option !== "--config-env" && /^ext::/i.test(value)) out.commands.push(extCommand(value));
  // A program given by its path: a browser's or man viewer's (`browser.NAME.path`), an SMTP server that is a path (`sendemail.smtpServer=/usr/sbin/x`).
  else if (option !== "--config-env" && (/^(?:man|browser)\..+\.path$/i.test(key) || (/^sendemail\.(?:.+\.)?smtpserver$/i.test(key) && value.startsWith("/")))) out.commands.push([value]);
  if (option === "--config-env" && (row.value === "script" || row.value === "bang")) out.unknown ??= `git takes ${key}, which it runs, from the environment variable ${value}`;
  else if (command !== undefined) out.scripts.push(command);
}

/** Options of git subcommands whose value is a command line git runs (locally for a local repository: `clone --upload-pack`). */
const GIT_COMMAND_VALUES = new Set(["-x", "--exec", "--extcmd", "-O", "--open-files-in-pager", "--upload-pack", "--receive-pack", "--sendmail-cmd", "--to-cmd", "--cc-cmd", "--header-cmd", "--httpd", "-d", ...GIT_FILTERS]);

/** Short options of git subcommands that take a value (`-s ours`, `-C3`): in a cluster (`-fx CMD`, `-iO CMD`) the letters after one are its value. */
const GIT_SHORT_VALUED: Readonly<Record<string, string>> = { rebase: "sXCSx", difftool: "tx", mergetool: "t", grep: "efABCmO", clone: "obucj", instaweb: "dbpm", push: "o", archive: "o" };

/** A running short option (`-x`) in a cluster of git's short options (`-yxCMD`, `-fx CMD`, `-iOCMD`): the option and its attached value. */
function gitShortInCluster(word: string, running: readonly string[], valued: string): { readonly name: string; readonly value: string } | undefined {
  if (!/^-[^-]./.test(word)) return undefined;
  for (let j = 1; j < word.length; j++) {
    const name = `-${word[j]!}`;
    if (running.includes(name)) return { name, value: word.slice(j + 1) };
    if (valued.includes(word[j]!)) return undefined;
  }
  return undefined;
}

/** Git subcommand options that write a file given as their value. */
const GIT_WRITING_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  diff: ["--output"],
  log: ["--output"],
  show: ["--output"],
  whatchanged: ["--output"],
  "range-diff": ["--output"],
  // Every command that reads revisions as git log does takes the diff option --output (it opens the file, truncating it).
  stash: ["--output"],
  reflog: ["--output"],
  shortlog: ["--output"],
  "rev-list": ["--output"],
  blame: ["--output"],
  annotate: ["--output"],
  "fast-export": ["--output"],
  bundle: ["--output"],
  "diff-tree": ["--output"],
  "diff-files": ["--output"],
  "diff-index": ["--output"],
  "format-patch": ["--output", "-o", "--output-directory"],
  archive: ["--output", "-o"],
  // --unsafe-paths (with --directory) writes outside the work tree.
  apply: ["--unsafe-paths"],
};

/** Options of git subcommands that are a prefix of a listed one (`--text` of `--textconv`, `--to` and `--cc` of send-email's `--to-cmd`, `--cc-cmd`): themselves, no abbreviation. */
const GIT_SHORTER_OPTIONS = ["--text", "--to", "--cc"];

/** Git subcommand options that read a file given as their value in place of the repository's (any path, outside path rules on the operands). */
const GIT_READING_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  blame: ["--contents"],
  annotate: ["--contents"],
};

/** Subcommands that take a remote URL: `ext::CMD` runs CMD, `TRANSPORT::address` runs git-remote-TRANSPORT. */
const GIT_REMOTE_SUBCOMMANDS = new Set(["fetch", "pull", "clone", "ls-remote", "push", "remote", "submodule", "archive"]);

/** git-remote-ext's reading of `ext::CMD`: words split at spaces, `% ` a space, `%%` a percent, `%s`/`%S` the service. */
function extCommand(url: string): string[] {
  const words: string[] = [];
  let word = "";
  const text = url.slice("ext::".length);
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "%" && i + 1 < text.length) {
      const next = text[i + 1]!;
      i += 1;
      if (next === "s" || next === "S") word += "git-upload-pack";
      else if (next !== "G" && next !== "V") word += next;
    } else if (ch === " ") {
      if (word !== "") words.push(word);
      word = "";
    } else word += ch;
  }
  if (word !== "") words.push(word);
  return words;
}

function readGit(words: readonly string[]): ProgramReading {
  const out = empty();
  const parsed = parseOptions(words, 1, GIT_GLOBAL, "git");
  if (parsed.unknown !== undefined) {
    out.unknown = parsed.unknown;
    return out;
  }
  const sub = words[parsed.next];
  if (parsed.next > 1) out.forms.push(["git", ...words.slice(parsed.next)]);
  // `git send-pack` and `git http-push` are the pushes `git push` runs, by other names: a deny on git push reads them as such (`--force`, `+REF` alike).
  if (sub === "send-pack" || sub === "http-push") out.forms.push(["git", "push", ...words.slice(parsed.next + 1)]);
  if (parsed.next > 1 && sub !== undefined && parsed.dashdash !== true && parsed.seen.every((option) => Object.hasOwn(GIT_PLAIN_GLOBALS, option.name))) {
    const placed = parsed.seen.filter((option) => GIT_PLAIN_GLOBALS[option.name] === "place");
    out.allowAs = { words: [words[0]!, ...words.slice(parsed.next)], places: placed.map((option) => option.value ?? ""), waives: placed.map((option) => option.name) };
  }
  for (const option of parsed.seen) {
    const risky = GIT_RISKY_GLOBALS[option.name];
    if (risky !== undefined) out.refusals.push({ reason: risky, token: option.name });
    if (option.name === "-c" || option.name === "--config-env") readGitSetting(option.name, option.value ?? "", out);
  }
  if (sub === undefined) return out;
  // `git -c alias.p=push p ARGS` runs `git push ARGS`: an alias without `!` is a git command line, tried by a deny as that spelling.
  let definedHere = false;
  for (const option of parsed.seen) {
    const alias = option.name === "-c" ? /^alias\.([^=]+)=(.*)$/is.exec(option.value ?? "") : null;
    if (alias === null || alias[1]!.toLowerCase() !== sub.toLowerCase()) continue;
    // Defined on the line (a `!` alias is read as the command it runs, readGitSetting).
    definedHere = true;
    if (alias[2]!.trimStart().startsWith("!")) continue;
    const expansion = alias[2]!.split(/\s+/).filter((word) => word !== "");
    if (expansion.length > 0) out.forms.push(["git", ...expansion, ...words.slice(parsed.next + 1)]);
  }
  if (!GIT_SUBCOMMANDS.has(sub)) {
    out.refusals.push({ reason: `git ${sub} is no git subcommand the guard knows (an alias or a git-${sub} program may run anything)`, token: sub });
    // git runs its own commands, then a git-NAME program, then an alias from any configuration file (`alias.p = push`
    // makes `git p origin main` a push): for a name that is none of git's, what runs is not on the line, so a deny cannot tell.
    if (!definedHere && !GIT_OTHER_COMMANDS.has(sub) && GIT_ALIAS_NAME.test(sub)) out.unknown ??= `git ${sub} is no git subcommand the guard knows: an alias in a git configuration file or a git-${sub} program decides what it runs`;
  }
  const running = GIT_RUNNING_OPTIONS[sub] ?? [];
  const listed = [...running, ...(GIT_WRITING_OPTIONS[sub] ?? []), ...(GIT_READING_OPTIONS[sub] ?? [])];
  const rest = words.slice(parsed.next + 1);
  for (let i = 0; i < rest.length; i++) {
    // git's parse-options takes a unique prefix of a long option (`--upload-pa=CMD`).
    const word = unabbreviate(rest[i]!, listed, GIT_SHORTER_OPTIONS);
    // `--opt=value`, `-x value`, and a short option with its value attached, after other short options or not (`-O'cmd'`, `-xcmd`, `-yx'cmd'`, `-fx cmd`).
    const cluster = word.startsWith("--") ? undefined : gitShortInCluster(word, running, GIT_SHORT_VALUED[sub] ?? "");
    const attached = cluster !== undefined && cluster.value !== "" ? cluster.value : undefined;
    const name = word.startsWith("--") ? word.split("=")[0]! : (cluster?.name ?? word);
    if (running.includes(name)) {
      out.refusals.push({ reason: `git ${sub} runs a command through ${name}`, token: name });
      const value = word.startsWith("--") && word.includes("=") ? word.slice(word.indexOf("=") + 1) : attached ?? rest[i + 1];
      if (value !== undefined && (GIT_COMMAND_VALUES.has(name) || (sub === "clone" && name === "-u"))) out.scripts.push(value);
      if (value !== undefined && sub === "clone" && (name === "-c" || name === "--config")) readGitSetting(name, value, out);
    }
    const writes = GIT_WRITING_OPTIONS[sub]?.find((option) => word === option || word.startsWith(`${option}=`) || (option.length === 2 && word.startsWith(option)));
    if (writes !== undefined) out.refusals.push({ reason: `git ${sub} writes a file through ${writes}`, token: writes });
    const reads = GIT_READING_OPTIONS[sub]?.find((option) => word === option || word.startsWith(`${option}=`));
    if (reads !== undefined) out.refusals.push({ reason: `git ${sub} reads the file given with ${reads}`, token: reads });
    // A repository given as an option's value (`archive --remote=URL`, `push --repo=URL`) is read as one given as an operand.
    const url = word.replace(/^--(?:remote|repo)=/, "");
    if (GIT_REMOTE_SUBCOMMANDS.has(sub) && /^[A-Za-z][A-Za-z0-9+.-]*::/.test(url)) {
      const transport = url.slice(0, url.indexOf("::"));
      out.refusals.push({ reason: `git ${sub} runs ${transport === "ext" ? "the command in an ext:: URL" : `the program git-remote-${transport} for a ${transport}:: URL`}`, token: word });
      if (transport === "ext") out.commands.push(extCommand(url));
      else if (transport !== "fd") out.commands.push([`git-remote-${transport}`]);
    }
  }
  if (sub === "config") readGitConfigWrite(rest, out);
  if (sub === "bisect" && rest[0] === "run") {
    out.refusals.push({ reason: "git bisect run runs a command", token: "run" });
    if (rest.length > 1) out.commands.push(rest.slice(1));
  }
  if (sub === "submodule" && rest.includes("foreach")) {
    out.refusals.push({ reason: "git submodule foreach runs a command", token: "foreach" });
    const at = rest.indexOf("foreach");
    const cmd = rest.slice(at + 1).filter((word) => word !== "--recursive" && word !== "-q" && word !== "--quiet");
    if (cmd.length > 0) out.scripts.push(cmd.join(" "));
  }
  if (sub === "filter-branch") out.refusals.push({ reason: "git filter-branch runs its filters as commands", token: sub });
  // git runs a `!` alias, `rebase --exec` and the commands its settings name from the top of the work tree (`cd docs && git
  // -c alias.x='!cat k' x` reads the top's k), and `submodule foreach` in each submodule: places the guard cannot tell.
  // (`bisect run` needs the top already: it runs where git was started.)
  if ((out.scripts.length > 0 || out.commands.length > 0) && sub !== "bisect") out.directory ??= { word: undefined };
  return out;
}

/** `git config` options that take a value, and its operations that only read or remove settings. */
const GIT_CONFIG_VALUED = /^(?:-f|--file|--blob|--type|--default|--comment|--value|--url)$/;
const GIT_CONFIG_READS = /^(?:--get|--get-all|--get-regexp|--get-urlmatch|--get-color|--get-colorbool|-l|--list|--unset|--unset-all|--remove-section|--rename-section|--show-origin|--show-scope|-e|--edit|get|list|unset|remove-section|rename-section|edit)$/;

/**
 * `git config [set] KEY VALUE`: writing a key whose value git runs later (alias.*, core.pager,
 * core.sshCommand, filter.*.clean, credential.helper, ...; GIT_CONFIG_COMMANDS) is no plain settings
 * change: an allow on `git config` does not cover it unless it names the key, and the value is read
 * as the command it is (`git config alias.x '!rm x'` runs `rm x` at the next `git x`).
 */
function readGitConfigWrite(rest: readonly string[], out: ProgramReading): void {
  const operands: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]!;
    if (GIT_CONFIG_READS.test(word.split("=")[0]!) && (word.startsWith("-") || operands.length === 0)) return;
    if (word.startsWith("-")) i += GIT_CONFIG_VALUED.test(word) ? 1 : 0;
    else operands.push(word);
  }
  const [key, value] = operands[0] === "set" ? operands.slice(1) : operands;
  if (key === undefined || value === undefined || gitConfigRow(key) === undefined) return;
  readGitSetting(key, `${key}=${value}`, out);
  // An alias without `!` is a git command line the next `git NAME` runs (`git config alias.p push`).
  if (/^alias\./i.test(key) && !value.trimStart().startsWith("!")) {
    const expansion = value.split(/\s+/).filter((word) => word !== "");
    if (expansion.length > 0) out.commands.push(["git", ...expansion]);
  }
  out.refusals.push({ reason: `git config sets ${key}, whose value git runs (or that changes what git runs) later`, token: key });
  // What git runs later in the line (a hooks directory, a file of more settings) is then only known when the line runs.
  const scope = rest.find((word) => /^--(?:global|system|file|local|worktree)(?:=|$)/.test(word));
  (out.writes ??= []).push(scope === "--global" ? "~/.gitconfig" : scope === "--system" ? "/etc/gitconfig" : ".git/config");
}

/** gh: `alias set NAME '!CMD'` (or --shell) defines a shell alias; `api` with a method other than GET, or fields, changes data; `config set pager|editor|browser CMD`. */
function readGh(words: readonly string[]): ProgramReading {
  const out = empty();
  const args = words.slice(1);
  const operands = args.filter((word, i) => !word.startsWith("-") && !/^(?:-R|--repo|-X|--method|-f|-F|--field|--raw-field|-H|--header|--input|-q|--jq|-t|--template|--hostname|--cache)$/.test(args[i - 1] ?? ""));
  if (operands[0] === "alias" && operands[1] === "set") {
    const expansion = operands[3];
    const shell = args.some((word) => word === "--shell" || word === "-s") || expansion?.startsWith("!") === true;
    out.refusals.push({ reason: shell ? "gh alias set defines an alias that runs a shell command" : "gh alias set defines an alias (a gh command line run later)", token: shell ? "--shell" : "set" });
    if (shell && expansion !== undefined) out.scripts.push(expansion.replace(/^!/, ""));
  } else if (operands[0] === "alias" && operands[1] === "import") {
    out.refusals.push({ reason: "gh alias import defines the aliases in a file (which can run shell commands)", token: "import" });
    out.unknown = "gh alias import defines aliases from a file the guard does not read";
  } else if (operands[0] === "api") {
    const method = args.map((word, i) => (word === "-X" || word === "--method" ? args[i + 1] : /^-X(.+)$/.exec(word)?.[1] ?? /^--method=(.+)$/.exec(word)?.[1])).find((found) => found !== undefined);
    const fields = args.find((word) => /^(?:-f|-F|--field|--raw-field|--input)(?:=|$)|^-[fF]./.test(word));
    const effective = (method ?? (fields !== undefined ? "POST" : "GET")).toUpperCase();
    if (effective !== "GET" && effective !== "HEAD") out.refusals.push({ reason: `gh api sends a ${effective} request (it changes data on GitHub)`, token: method !== undefined ? "-X" : (fields ?? "-f") });
    if (args.some((word) => word === "--input" || word.startsWith("--input="))) out.refusals.push({ reason: "gh api sends the file given with --input", token: "--input" });
  } else if (operands[0] === "config" && operands[1] === "set" && /^(?:pager|editor|browser)$/.test(operands[2] ?? "")) {
    out.refusals.push({ reason: `gh config set ${operands[2]!} sets a command gh runs later`, token: operands[2]! });
    if (operands[3] !== undefined) out.scripts.push(operands[3]);
  }
  return out;
}

/**
 * Commands that store a setting a program runs later (npm's script-shell, go's CC): each row names the
 * programs, the words that start the command (`config set`, `env -w`), its options that take a value,
 * and the keys whose value is a command line (`script`), a program (`program`), or code, configuration or
 * a toolchain loaded from elsewhere (`code`). Other keys are plain settings (`npm config set fund false`).
 */
const SETTING_WRITES: readonly {
  readonly programs: readonly string[];
  readonly starts: readonly (readonly string[])[];
  readonly valued: RegExp;
  readonly keys: readonly { readonly key: RegExp; readonly effect: "script" | "program" | "code" }[];
}[] = [
  {
    // npm config set KEY VALUE (or KEY=VALUE), npm set, pnpm config set, yarn config set (yarn 1 and berry).
    programs: ["npm", "pnpm", "yarn"],
    starts: [["config", "set"], ["set"], ["c", "set"]],
    valued: /^(?:-L|--location|--userconfig|--globalconfig|--workspace|-w)$/,
    keys: [
      { key: /^(?:script-?shell|shell|git|node-?gyp|shell-?emulator)$/i, effect: "program" },
      { key: /^(?:editor|browser|viewer)$/i, effect: "script" },
      { key: /^(?:node-?options|onload-?script|init-?module|userconfig|globalconfig|yarn-?path|(?:global-?)?pnpmfile|plugins)$/i, effect: "code" },
    ],
  },
  // npm pkg set scripts.NAME=CMD writes a script `npm run NAME` (or `npm test`) runs later; npm set-script NAME CMD (npm 7-8) does the same.
  { programs: ["npm"], starts: [["pkg", "set"]], valued: /^(?:-w|--workspace)$/, keys: [{ key: /^scripts\./, effect: "script" }, { key: /^(?:bin|config|main|exports|imports)(?:\.|$)/, effect: "code" }] },
  { programs: ["npm"], starts: [["set-script"]], valued: /^(?:-w|--workspace)$/, keys: [{ key: /./, effect: "script" }] },
  {
    // aws configure set KEY VALUE writes ~/.aws/config: a profile's credential_process is a command line aws runs for credentials, cli_pager its pager, plugins.* Python modules it loads.
    programs: ["aws"],
    starts: [["configure", "set"]],
    valued: /^(?:--profile|--region|--output|--endpoint-url|--query|--color|--ca-bundle|--cli-read-timeout|--cli-connect-timeout|--cli-binary-format)$/,
    keys: [
      { key: /(?:^|\.)(?:credential_process|cli_pager)$/, effect: "script" },
      { key: /^plugins\.|(?:^|\.)cli_legacy_plugin_path$/, effect: "code" },
    ],
  },
  {
    // go env -w NAME=VALUE stores a default in go's env file, read by every later go command.
    programs: ["go"],
    starts: [["env", "-w"]],
    valued: /^$/,
    keys: [
      { key: /^(?:CC|CXX|FC|AR|PKG_CONFIG|GCCGO)$/, effect: "script" },
      // GOTOOLCHAIN names a toolchain go downloads and runs; GOSUMDB=off, GOINSECURE, GONOSUMCHECK and GOVCS turn off the checks on the code it fetches or let it run other version control programs.
      { key: /^(?:GOFLAGS|CGO_\w*FLAGS(?:_ALLOW|_DISALLOW)?|GOTOOLCHAIN|GOROOT|GOTOOLDIR|GOSUMDB|GONOSUMCHECK|GOINSECURE|GOVCS)$/, effect: "code" },
    ],
  },
];

/** What a command that stores settings (SETTING_WRITES) makes a later run of the program run. */
function readSettingWrites(name: string, words: readonly string[], out: ProgramReading): void {
  for (const row of SETTING_WRITES) {
    if (!row.programs.includes(name)) continue;
    // The command words without the options (`npm --global config set`, `npm config set --location=user`); go's `-w` is a command word.
    const rest: string[] = [];
    for (let i = 1; i < words.length; i++) {
      const word = words[i]!;
      if (row.valued.test(word)) i += 1;
      else if (!word.startsWith("-") || (name === "go" && word === "-w")) rest.push(word);
    }
    const start = row.starts.find((prefix) => prefix.every((word, i) => rest[i] === word));
    if (start === undefined) continue;
    const pairs = rest.slice(start.length);
    for (let i = 0; i < pairs.length; i++) {
      const word = pairs[i]!;
      const eq = word.indexOf("=");
      const key = eq > 0 ? word.slice(0, eq) : word;
      const value = eq > 0 ? word.slice(eq + 1) : pairs[++i];
      const found = row.keys.find((entry) => entry.key.test(key));
      if (found === undefined) continue;
      const shown = `${name} ${start.join(" ")} ${key}`;
      out.refusals.push({ reason: `${shown} stores a setting whose value ${name} runs or loads later`, token: key });
      if (value === undefined || value === "") continue;
      if (found.effect === "script") out.scripts.push(value);
      else if (found.effect === "program") out.commands.push([value]);
      else out.unknown ??= `${shown} stores code, configuration or a toolchain ${name} loads later, which the guard cannot read`;
    }
    return;
  }
}

/** npm/npx/pnpm/yarn/bunx: `-c STRING` is a script, `exec`/`dlx` run a package's program. */
/** Options of npm, pnpm and yarn before the subcommand that take the next word as their value. */
const PACKAGE_RUNNER_VALUED = /^(?:-w|--workspace|--filter|-F|-C|--dir|--prefix|--cwd|--userconfig|--globalconfig|--registry|--cache|--loglevel|--reporter|--workspace-concurrency)$/;

function readPackageRunner(name: string, words: readonly string[]): ProgramReading {
  const out = empty();
  readSettingWrites(name, words, out);
  // `pnpm -C DIR exec CMD` (--dir, --prefix; the last one given) runs CMD in DIR; yarn's `--cwd DIR` before exec, where
  // yarn's versions differ, in a directory the guard cannot tell; npm's exec keeps the working directory.
  const moved = packageRunnerDirectory(name, words);
  if (moved !== undefined) out.directory = moved;
  const directRunner = name === "npx" || name === "pnpx" || name === "bunx";
  // The subcommand after the runner's own options (`pnpm -r exec`, `pnpm --filter app exec`, `npm -w app exec`), and after
  // yarn's workspace selectors (`yarn workspace app exec`, `yarn workspaces foreach -A exec`).
  let subAt = 1;
  while (!directRunner && subAt < words.length && /^-/.test(words[subAt]!) && words[subAt] !== "--") subAt += PACKAGE_RUNNER_VALUED.test(words[subAt]!) ? 2 : 1;
  // pnpm's -c (--shell-mode) among its options before exec (`pnpm -C DIR -c exec`), or right after it: the command words are one command line for /bin/sh.
  const shellMode = (word: string) => word === "-c" || word === "--shell-mode";
  if (name === "pnpm" && words[subAt] === "exec" && words.slice(1, subAt).some(shellMode)) return readPnpmShellMode(words.slice(subAt + 1), out);
  if (name === "pnpm" && words[subAt] === "exec" && words[subAt + 1] === "--shell-mode") return readPnpmShellMode(words.slice(subAt + 2), out);
  if (name === "yarn" && words[subAt] === "workspace") subAt += 2;
  else if (name === "yarn" && words[subAt] === "workspaces" && words[subAt + 1] === "foreach") {
    subAt += 2;
    while (subAt < words.length && /^-/.test(words[subAt]!)) subAt += /^(?:--from|--include|--exclude|-j|--jobs)$/.test(words[subAt]!) ? 2 : 1;
  }
  const sub = directRunner ? undefined : words[subAt];
  if (name === "npm" && sub === "explore") {
    // npm explore PKG -- CMD runs CMD with the configured shell in the package's directory (with no CMD: an interactive shell).
    out.refusals.push({ reason: "npm explore runs a shell (or the command after --) in a package's directory", token: "explore" });
    const at = words.indexOf("--");
    if (at > 0 && at + 1 < words.length) out.scripts.push(words.slice(at + 1).join(" "));
    return out;
  }
  if (sub === "init" || sub === "create" || sub === "innit") {
    // `npm init NAME` is `npm exec create-NAME` (`@scope` is @scope/create, `@scope/NAME` is @scope/create-NAME); yarn and pnpm create do the same.
    const operands = words.slice(2).filter((word) => !word.startsWith("-"));
    const initializer = operands[0];
    if (initializer !== undefined) {
      const scoped = /^(@[^/]+)(?:\/(.+))?$/.exec(initializer);
      const pkg = scoped !== null ? `${scoped[1]!}/create${scoped[2] !== undefined ? `-${scoped[2]}` : ""}` : `create-${initializer.replace(/@[^@]*$/, "")}`;
      out.refusals.push({ reason: `${name} ${sub} ${initializer} runs the package ${pkg}`, token: initializer });
      out.commands.push([pkg, ...operands.slice(1)]);
    }
    return out;
  }
  const execLike = directRunner || sub === "exec" || sub === "x" || sub === "dlx";
  if (!execLike) return out;
  const start = directRunner ? 1 : subAt + 1;
  out.refusals.push({ reason: `${directRunner ? name : `${name} ${sub ?? ""}`} runs a package's program`, token: directRunner ? name : (sub ?? name) });
  let i = start;
  while (i < words.length) {
    const word = words[i]!;
    if (word === "--") {
      i += 1;
      break;
    }
    if (word === "-c" || word === "--call") {
      out.refusals.push({ reason: `${name} runs the script given with ${word}`, token: word });
      if (words[i + 1] !== undefined) out.scripts.push(words[i + 1]!);
      return out;
    }
    if (word.startsWith("--call=")) {
      out.refusals.push({ reason: `${name} runs the script given with --call`, token: "--call" });
      out.scripts.push(word.slice("--call=".length));
      return out;
    }
    if (!word.startsWith("-")) break;
    i += /^(?:-p|--package|--registry|--cache|--userconfig|-w|--workspace|--filter|-C|--dir)$/.test(word) ? 2 : 1;
  }
  if (i < words.length) out.commands.push(words.slice(i));
  return out;
}

/** The directory a package runner's command starts in, given before its subcommand (PACKAGE_RUNNER_DIRECTORY); undefined: where the line is. */
function packageRunnerDirectory(name: string, words: readonly string[]): { readonly word: string | undefined } | undefined {
  const options = Object.hasOwn(PACKAGE_RUNNER_DIRECTORY, name) ? PACKAGE_RUNNER_DIRECTORY[name]! : undefined;
  if (options === undefined) return undefined;
  let chosen: string | undefined;
  let given = false;
  for (let i = 1; i < words.length && /^-/.test(words[i]!) && words[i] !== "--"; i += PACKAGE_RUNNER_VALUED.test(words[i]!) ? 2 : 1) {
    const word = words[i]!;
    const eq = word.indexOf("=");
    const option = eq > 0 ? word.slice(0, eq) : word;
    if (!options.options.includes(option)) continue;
    given = true;
    chosen = eq > 0 ? word.slice(eq + 1) : words[i + 1];
  }
  if (!given) return undefined;
  return { word: options.known ? chosen : undefined };
}

/** `pnpm exec CMD`, `pnpm -c exec`, `pnpm dlx`: the options before the subcommand that pick the directory CMD runs in (`known`: the guard reads it). */
const PACKAGE_RUNNER_DIRECTORY: Readonly<Record<string, { readonly options: readonly string[]; readonly known: boolean }>> = {
  pnpm: { options: ["-C", "--dir", "--prefix"], known: true },
  yarn: { options: ["--cwd"], known: false },
};

/** `pnpm -c exec WORDS` and `pnpm exec --shell-mode WORDS`: the words are joined and run by /bin/sh. */
function readPnpmShellMode(rest: readonly string[], out: ProgramReading): ProgramReading {
  out.refusals.push({ reason: "pnpm exec --shell-mode runs a command line in a shell", token: "exec" });
  const operands = rest[0] === "--" ? rest.slice(1) : rest;
  if (operands.length > 0) out.scripts.push(operands.join(" "));
  return out;
}

/** tar's options that run a command line, and its short options that take a value (`-I PROG`, `-F SCRIPT` run one). */
const TAR_RUNNING = ["--to-command", "--use-compress-program", "--rsh-command", "--info-script", "--new-volume-script", "--checkpoint-action"];
const TAR_SHORT_VALUED = "bCfFgHIKLNTVX";
const TAR_SHORT_RUNNING: Readonly<Record<string, string>> = { I: "-I", F: "-F" };
/** tar's long options that name the archive, the remote side's command, or keep a `HOST:FILE` archive local (with the shortest prefix getopt_long takes). */
const TAR_ARCHIVE_LONG: readonly { readonly name: string; readonly shortest: number }[] = [
  { name: "--file", shortest: 6 },
  { name: "--rmt-command", shortest: 4 },
  { name: "--force-local", shortest: 6 },
];
/** The program GNU tar runs for an archive on another host (`HOST:FILE`, `USER@HOST:FILE`), and the command it asks that host's shell to run. */
const TAR_REMOTE_SHELL = "/usr/bin/rsh";
const TAR_REMOTE_RMT = "/usr/sbin/rmt";
/** Long options that are a short letter's (`--extract` is -x, `--absolute-names` -P), with the shortest prefix getopt_long takes for each. */
const TAR_LONG_LETTERS: readonly { readonly name: string; readonly shortest: number; readonly letter: string }[] = [
  { name: "--extract", shortest: 5, letter: "x" },
  { name: "--get", shortest: 4, letter: "x" },
  { name: "--absolute-names", shortest: 4, letter: "P" },
  { name: "--to-stdout", shortest: 6, letter: "O" },
  { name: "--to-command", shortest: 6, letter: "!" },
  { name: "--directory", shortest: 5, letter: "C" },
];

/** tar, read as GNU getopt does: long options and their unambiguous abbreviations, short clusters (`-xIcmd`), and the old style (`tar xIf CMD FILE`: each letter with a value takes the next word). */
function readTar(words: readonly string[]): ProgramReading {
  const out = empty();
  const found: { option: string; value: string | undefined }[] = [];
  /** The short options given, as letters (a long option's too). */
  const letters = new Set<string>();
  /** The archives named (`-f A`, `--file=A`, old-style `f`), whether --force-local keeps `HOST:FILE` local, the remote side's command. */
  const archives: string[] = [];
  let forceLocal = false;
  let rmt: string | undefined;
  let i = 1;
  const first = words[1];
  if (first !== undefined && first !== "" && !first.startsWith("-")) {
    let next = 2;
    for (const letter of first) {
      letters.add(letter);
      if (!TAR_SHORT_VALUED.includes(letter)) continue;
      if (TAR_SHORT_RUNNING[letter] !== undefined) found.push({ option: `${first} (old-style ${letter})`, value: words[next] });
      if (letter === "f" && words[next] !== undefined) archives.push(words[next]!);
      next += 1;
    }
    i = next;
  }
  for (; i < words.length; i++) {
    const word = words[i]!;
    if (word === "--") break;
    if (word.startsWith("--")) {
      const eq = word.indexOf("=");
      const given = eq >= 0 ? word.slice(0, eq) : word;
      for (const long of TAR_LONG_LETTERS) if (given.length >= long.shortest && long.name.startsWith(given)) letters.add(long.letter);
      const archive = TAR_ARCHIVE_LONG.find((long) => given.length >= long.shortest && long.name.startsWith(given))?.name;
      if (archive === "--force-local") forceLocal = true;
      else if (archive !== undefined) {
        const value = eq >= 0 ? word.slice(eq + 1) : words[i + 1];
        if (value !== undefined && archive === "--file") archives.push(value);
        if (archive === "--rmt-command") rmt = value;
        if (eq < 0) i += 1;
        continue;
      }
      // getopt_long takes an abbreviation (`--to-comm`); an ambiguous one is refused by tar, and read here as the running option.
      const option = TAR_RUNNING.find((name) => name === given || (given.length >= 5 && name.startsWith(given)));
      if (option === undefined) continue;
      found.push({ option, value: eq >= 0 ? word.slice(eq + 1) : words[i + 1] });
      if (eq < 0) i += 1;
    } else if (word.startsWith("-") && word.length > 1) {
      for (let j = 1; j < word.length; j++) {
        const letter = word[j]!;
        letters.add(letter);
        if (!TAR_SHORT_VALUED.includes(letter)) continue;
        const rest = word.slice(j + 1);
        const value = rest !== "" ? rest : words[i + 1];
        if (rest === "") i += 1;
        if (TAR_SHORT_RUNNING[letter] !== undefined) found.push({ option: TAR_SHORT_RUNNING[letter], value });
        if (letter === "f" && value !== undefined) archives.push(value);
        break;
      }
    }
  }
  for (const { option, value: given } of found) {
    let value = given;
    if (option === "--checkpoint-action") {
      if (value === undefined || !/^(?:exec|sh)=/.test(value)) continue;
      value = value.replace(/^(?:exec|sh)=/, "");
    }
    out.refusals.push({ reason: `tar runs a command through ${option}`, token: option.split(" ")[0]! });
    // `--to-command=sh`: each member of the archive is the standard input of the command, which a shell or an interpreter runs as its script.
    const program = basename(value?.trim().split(/\s+/)[0] ?? "");
    if (option === "--to-command" && value !== undefined && (readsCodeFromStdin(program) || /^(?:env|sudo|exec|command)$/.test(program))) out.unknown ??= `tar ${option} hands each member of the archive to ${value} as its input, which runs it as a script the guard cannot read`;
    if (value !== undefined) out.scripts.push(value);
    else out.unknown = `tar ${option}: the command cannot be read`;
  }
  // An archive `[USER@]HOST:FILE` (a colon with no `/` before it, and no --force-local) is on HOST: tar runs its remote shell
  // (`rsh HOST [-l USER] /usr/sbin/rmt`, or the --rsh-command program), which is ssh where rsh is ssh's alternative; the rmt
  // command (--rmt-command) is a command line HOST's shell runs.
  const rsh = found.some((one) => one.option === "--rsh-command");
  const places: { word: string; text: string }[] = [];
  for (const archive of forceLocal ? [] : archives) {
    const colon = archive.indexOf(":");
    if (colon <= 0 || archive.slice(0, colon).includes("/")) continue;
    const at = archive.lastIndexOf("@", colon);
    const host = archive.slice(at + 1, colon);
    const user = at > 0 ? ["-l", archive.slice(0, at)] : [];
    out.refusals.push({ reason: `tar runs a remote shell to reach the archive ${archive} on ${host}`, token: archive });
    if (!rsh) {
      out.commands.push([TAR_REMOTE_SHELL, host, ...user, rmt ?? TAR_REMOTE_RMT]);
      out.forms.push(["ssh", host, ...user, rmt ?? TAR_REMOTE_RMT]);
    }
    if (rmt !== undefined) out.scripts.push(rmt);
    places.push({ word: archive, text: `ssh://${host.includes(":") ? `[${host}]` : host}/` });
  }
  if (places.length > 0) out.connects = readPlaces("tar", [words[0] ?? "tar"], places);
  // Extracting with -P (--absolute-names) keeps a member's leading `/` and `..`: the archive (or --transform) names any file on the machine.
  if (letters.has("x") && letters.has("P")) out.refusals.push({ reason: "tar writes files at the absolute paths the archive or --transform names, extracting with -P (--absolute-names)", token: "-P" });
  // Extracting (-x, --extract, --get, old-style `x`) writes the archive's members, unless to the standard output (-O) or a command (--to-command).
  if (letters.has("x") && !letters.has("O") && !letters.has("!")) out.writesUnnamed ??= `${basename(words[0] ?? "tar")} extracts an archive`;
  return out;
}

/** rsync's options whose value is a file it writes besides the destination (rsync(1) --log-file, --write-batch, --only-write-batch). */
const RSYNC_WRITING = /^(--log-file|--write-batch|--only-write-batch)(?:=|$)/;

function readRsync(words: readonly string[]): ProgramReading {
  const out = empty();
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    const writes = RSYNC_WRITING.exec(word);
    if (writes !== null) out.refusals.push({ reason: `rsync writes a file through ${writes[1]!}`, token: writes[1]! });
    const match = /^(--rsh|--rsync-path)(?:=(.*))?$/s.exec(word);
    if (match !== null) {
      out.refusals.push({ reason: `rsync runs a command through ${match[1]!}`, token: match[1]! });
      const value = match[2] ?? words[i + 1];
      // --rsh runs here; --rsync-path is the command line the other side's shell runs (which `-e` may make a local one).
      if (value !== undefined) out.scripts.push(value);
    } else if (/^(?:--remote-option(?:=|$)|-M)/.test(word)) {
      out.refusals.push({ reason: "rsync passes options to the other side's rsync through --remote-option", token: word.startsWith("-M") ? "-M" : "--remote-option" });
    } else if (/^--config(?:=|$)/.test(word)) {
      out.refusals.push({ reason: "rsync reads a daemon configuration (which can run commands) given with --config", token: "--config" });
    } else if (/^-[A-Za-z]*e/.test(word) && !word.startsWith("--")) {
      out.refusals.push({ reason: "rsync runs a command through -e", token: "-e" });
      const attached = word.slice(word.indexOf("e") + 1);
      const value = attached !== "" ? attached : words[i + 1];
      if (value !== undefined) out.scripts.push(value);
    }
  }
  return out;
}

/** Options of ssh, scp and sftp that take a value (ssh(1), scp(1), sftp(1)). */
const SSH_VALUED: Readonly<Record<string, string>> = { ssh: "BbcDEeFIiJLlmOopQRSWw", scp: "cDFiJloPSX", sftp: "BbcDFiJloPRSsX" };
const SSH_COMMAND_OPTIONS = /^(?:proxycommand|localcommand|permitlocalcommand|knownhostscommand|remotecommand|sessiontype)\b/i;
/** ssh_config keywords whose value is a shared library ssh loads (ssh_config(5) PKCS11Provider, SecurityKeyProvider). */
const SSH_LIBRARY_OPTIONS = /^(?:pkcs11provider|securitykeyprovider)\b/i;

/**
 * A command's leading options, read from words[1]: `option` gets each option word and the word after
 * it, and returns how many words it used (1 or 2), or 0 to stop reading. Options end at `--` (which
 * is skipped) or at the first operand (a word not starting with "-", or "-" itself). Returns where
 * the operands start and whether `option` stopped the reading.
 */
function readOptions(words: readonly string[], option: (word: string, next: string | undefined) => number): { operands: number; stopped: boolean } {
  let i = 1;
  while (i < words.length) {
    const word = words[i]!;
    if (word === "--") return { operands: i + 1, stopped: false };
    if (!word.startsWith("-") || word === "-") break;
    const used = option(word, words[i + 1]);
    if (used === 0) return { operands: i, stopped: true };
    i += used;
  }
  return { operands: i, stopped: false };
}

function readSsh(name: string, words: readonly string[]): ProgramReading {
  const out = empty();
  let host: string | undefined;
  const valued = SSH_VALUED[name] ?? SSH_VALUED.ssh!;
  const option = (letter: string, value: string | undefined) => {
    const key = value?.trim().split(/[\s=]/)[0] ?? "";
    if (letter === "o" && value !== undefined && SSH_COMMAND_OPTIONS.test(value.trim())) {
      out.refusals.push({ reason: `${name} runs a command set with -o ${key}`, token: "-o" });
      const command = value.replace(/^\s*\w+\s*=?\s*/, "");
      // ssh hands `exec PROXYCOMMAND` to the shell (`ProxyCommand=;CMD` runs CMD after an empty exec).
      out.scripts.push(/^\s*proxycommand\b/i.test(value) ? `exec ${command}` : command);
    } else if (letter === "o" && value !== undefined && SSH_LIBRARY_OPTIONS.test(value.trim())) out.refusals.push({ reason: `${name} loads the library set with -o ${key}`, token: "-o" });
    else if (letter === "I" && name === "ssh") out.refusals.push({ reason: "ssh loads the PKCS#11 library given with -I", token: "-I" });
    else if (letter === "E" && name === "ssh") out.refusals.push({ reason: "ssh writes a file through -E", token: "-E" });
    else if (letter === "F") out.refusals.push({ reason: `${name} reads a configuration file (which can run commands) given with -F`, token: "-F" });
    else if (letter === "D" && name === "sftp") {
      // sftp -D PROGRAM starts PROGRAM as the sftp server, without ssh.
      out.refusals.push({ reason: "sftp runs the program given with -D", token: "-D" });
      if (value !== undefined) out.scripts.push(value);
    } else if (letter === "b" && name === "sftp" && value !== "-") out.refusals.push({ reason: "sftp runs the commands in the batch file given with -b (its ! lines are shell commands)", token: "-b" });
    else if (letter === "S" && name !== "ssh") {
      // scp and sftp start the program given with -S in place of ssh.
      out.refusals.push({ reason: `${name} runs the program given with -S`, token: "-S" });
      if (value !== undefined) out.commands.push([value]);
      else out.unknown = `${name} -S has no value`;
    }
  };
  /** The option letters given (`-N`, `-W`: no remote shell). */
  const letters = new Set<string>();
  // A cluster of flags may end with an option that takes a value, attached or in the next word (`-vE/tmp/log`, `-vo KEY=VALUE`).
  const { operands: i } = readOptions(words, (word, next) => {
    for (let at = 1; at < word.length; at++) {
      const letter = word[at]!;
      letters.add(letter);
      if (!valued.includes(letter)) continue;
      const attached = word.slice(at + 1);
      option(letter, attached !== "" ? attached : next);
      return attached !== "" ? 1 : 2;
    }
    return 1;
  });
  if (name === "ssh" && i < words.length) {
    host = words[i];
    const remote = words.slice(i + 1);
    if (remote.length > 0) {
      out.refusals.push({ reason: `ssh runs a command on ${host ?? "the remote host"}`, token: host ?? "ssh" });
      out.scripts.push(remote.join(" "));
    } else if (![..."NWOGVQs"].some((letter) => letters.has(letter))) {
      // Given no command, the remote login shell runs the commands on ssh's standard input (`echo CMD | ssh HOST`).
      out.refusals.push({ reason: `ssh starts a shell on ${host ?? "the remote host"} that runs the commands on its standard input`, token: "ssh" });
      out.readsStdin = true;
      out.stdinShell = true;
    }
  }
  return out;
}

/** socat address types that run a command (EXEC runs a program with arguments, SYSTEM and SHELL a shell command line). */
const SOCAT_RUNNING = /^(?:EXEC|SYSTEM|SHELL)$/;
/** socat address types that open a file or a named socket on this machine (a bare name with a `/` is GOPEN). */
const SOCAT_FILES = /^(?:OPEN|CREATE|CREAT|GOPEN|FILE|PIPE|UNIX(?:-\w+)?|LOCAL|ABSTRACT(?:-\w+)?|NAMED)$/;
/** socat address types that reach the network or only this process's standard streams and terminal. */
const SOCAT_OTHER = /^(?:-|STDIO|STDIN|STDOUT|STDERR|FD|READLINE|PTY|TUN|INTERFACE|(?:TCP|UDP|SCTP|DCCP|UDPLITE|IP|UDP-DATAGRAM|UDP-RECVFROM|UDP-SENDTO|UDP-RECV|UDP-LISTEN|TCP-LISTEN|TCP-L|TCP-CONNECT|SCTP-LISTEN|SCTP-CONNECT|SOCKS4A?|SOCKS5?|PROXY|PROXY-CONNECT|OPENSSL|SSL|OPENSSL-LISTEN|SSL-L|OPENSSL-CONNECT|VSOCK-CONNECT|VSOCK-LISTEN|IP-SENDTO|IP-RECVFROM|IP-RECV|IP-DATAGRAM)[46]?(?:-\w+)?)$/;

/** socat ADDRESS ADDRESS: EXEC:/SYSTEM: addresses run a command, OPEN:/CREATE:/GOPEN: (or a path) read or write a file. */
function readSocat(words: readonly string[]): ProgramReading {
  const out = empty();
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    if (word.startsWith("-") && word !== "-" && !word.startsWith("-!!")) {
      if (/^-(?:t|T|b|lp|lf|L|W|S|r|R)$/.test(word)) {
        if (/^-(?:lf|r|R)$/.test(word)) out.refusals.push({ reason: `socat writes a file through ${word}`, token: word });
        i += 1;
      }
      continue;
    }
    for (const address of word.split("!!")) {
      const type = (/^([A-Za-z0-9-]+)(?=[:,]|$)/.exec(address)?.[1] ?? (address.includes("/") ? "GOPEN" : "")).toUpperCase();
      const value = address.slice(address.indexOf(":") + 1).split(",")[0] ?? "";
      if (SOCAT_RUNNING.test(type)) {
        out.refusals.push({ reason: `socat runs the command in the address ${type}:`, token: address });
        out.scripts.push(value);
      } else if (SOCAT_FILES.test(type)) out.refusals.push({ reason: `socat reads or writes the file in the address ${address}`, token: address });
      else if (!SOCAT_OTHER.test(type)) {
        out.refusals.push({ reason: `socat's address ${address} is of a type the guard does not know`, token: address });
        out.unknown ??= `socat's address ${address} is of a type the guard does not know (it may run a command)`;
      }
    }
  }
  return out;
}

/** What a backslash and a letter are in a double-quoted literal of awk, C, Python, Perl, ...: a newline, a tab, a carriage return. */
const LITERAL_ESCAPES: Readonly<Record<string, string>> = { n: "\n", t: "\t", r: "\r" };

/** Double-quoted or single-quoted string literals in a program text (awk's system("..."), ...). */
function stringLiterals(text: string): string[] {
  const found: string[] = [];
  // In a double-quoted literal `\n`, `\t` and `\r` are a newline, a tab and a carriage return (awk, C, Python, Perl, ...): `"ls;\nrm x"` is two lines.
  for (const match of text.matchAll(/"((?:\\.|[^"\\])*)"|'([^']*)'/gs)) found.push(match[1] !== undefined ? match[1].replace(/\\(.)/gs, (_, ch: string) => LITERAL_ESCAPES[ch] ?? ch) : (match[2] ?? ""));
  return found;
}

/**
 * Texts in code that starts processes which may be the command lines it runs: its string literals
 * (`os.system("rm x")`, backquotes), Perl's `qx{...}`, and the words after Tcl's and expect's `exec`
 * and `spawn`. None when the code calls nothing that starts a process.
 */
function codeGuesses(code: string): string[] {
  if (codeDoubt(code) === undefined) return [];
  const out = [...stringLiterals(code), ...stringLiterals(code.replace(/`/g, "'"))];
  for (const match of code.matchAll(/\bqx\s*(?:\{([^}]*)\}|\(([^)]*)\)|\[([^\]]*)\]|([/|!#])(.*?)\4)/gs)) out.push(match[1] ?? match[2] ?? match[3] ?? match[5] ?? "");
  for (const match of code.matchAll(/(?:^|[;\n[{])\s*(?:exec|spawn)\s+([^;\n\]}]+)/g)) out.push(match[1]!.replace(/^-\S*\s+/, ""));
  return out;
}

/**
 * A Perl rename's expression that only renames: one `s/RE/NEW/FLAGS` without `e` (the replacement is then text),
 * one `y///` or `tr///`, `lc`/`uc`, or a word starting with a dot or a digit (util-linux rename's FROM string, such as
 * `.htm`, which Perl cannot run; a bare word may be a Perl function: `unlink`), with no code
 * interpolated (`@{[ … ]}`, `${\ … }`, `(?{ … })`).
 */
const RENAME_ONLY = /^\s*(?:s([^\w\s])(?:\\.|(?!\1).)*\1(?:\\.|(?!\1).)*\1[gimsxrnlua]*|(?:y|tr)([^\w\s])(?:\\.|(?!\2).)*\2(?:\\.|(?!\2).)*\2[cdsr]*|(?:lc|uc|lcfirst|ucfirst)|[.\d][\w.-]*)\s*;?\s*$/s;
const RENAME_CODE_IN_TEXT = /[@$]\{|\(\?\??\{/;
const RENAME_VALUED = ["-e", "-E", "--expr", "--expression", "--statement"];

/**
 * Perl's rename (Debian's `rename`, `file-rename`, `prename`, `perl-rename`): its first operand (or each `-e`/`-E` value)
 * is Perl code run for every file name. Code other than a plain substitution is not covered by an allow that does not
 * name it, and code that starts processes (`system(…)`, backquotes, `s/…/…/e` running `qx`) has its literals tried as commands.
 */
function readRename(name: string, words: readonly string[]): ProgramReading {
  const out = empty();
  const code: string[] = [];
  let operands = false;
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    if (!operands && word === "--") {
      operands = true;
      continue;
    }
    if (!operands && word.startsWith("-") && word !== "-") {
      const valued = RENAME_VALUED.find((option) => word === option || (option.length === 2 && word.startsWith(option)) || word.startsWith(`${option}=`));
      if (valued !== undefined) {
        const attached = word === valued ? undefined : word.slice(word.startsWith(`${valued}=`) ? valued.length + 1 : valued.length);
        code.push(attached ?? words[i + 1] ?? "");
        if (attached === undefined) i += 1;
      }
      continue;
    }
    if (code.length === 0) code.push(word);
    break;
  }
  for (const text of code) {
    if (RENAME_ONLY.test(text) && !RENAME_CODE_IN_TEXT.test(text)) continue;
    // The token is the code itself: an allow names it only by spelling it (`rename 'unlink':*`), never by naming the program.
    out.refusals.push({ reason: `${name} runs the Perl code it is given for each file name (${text.length > 40 ? `${text.slice(0, 40)}…` : text})`, token: text });
    const doubt = codeDoubt(text);
    if (doubt !== undefined) {
      out.guesses.push(...codeGuesses(text));
      out.unknown ??= `${name} runs Perl code that ${doubt}, which the guard cannot read`;
    }
  }
  return out;
}

/** gawk's long options (gawk --help), and those of them that take a value (in the next word when not after `=`). */
const GAWK_LONG = ["--assign", "--field-separator", "--file", "--source", "--exec", "--include", "--load", "--characters-as-bytes", "--traditional", "--copyright", "--debug", "--dump-variables", "--gen-pot", "--help", "--lint", "--bignum", "--use-lc-numeric", "--non-decimal-data", "--no-optimize", "--optimize", "--posix", "--pretty-print", "--profile", "--re-interval", "--sandbox", "--version", "--csv"];
const GAWK_LONG_VALUED = ["--assign", "--field-separator", "--file", "--source", "--exec", "--include", "--load"];

function readAwk(name: string, words: readonly string[]): ProgramReading {
  const out = empty();
  let program: string | undefined;
  const { operands: i, stopped } = readOptions(words, (word, next) => {
    // gawk's long options by any unique prefix (`--so=PROG` is --source), their value after `=` or in the next word.
    const eq = word.indexOf("=");
    const given = word.startsWith("--") ? (eq < 0 ? word : word.slice(0, eq)) : undefined;
    const matches = given === undefined ? [] : GAWK_LONG.filter((long) => long.startsWith(given));
    const long = given !== undefined && GAWK_LONG.includes(given) ? given : matches.length === 1 ? matches[0] : undefined;
    const attached = long !== undefined && eq >= 0 ? word.slice(eq + 1) : undefined;
    if (word === "-f" || long === "--file" || (word.startsWith("-f") && word.length > 2)) {
      out.refusals.push({ reason: `${name} runs the program in a file (-f)`, token: "-f" });
      return 0;
    }
    if (word === "-e" || long === "--source" || (word.startsWith("-e") && word.length > 2)) {
      const text = long === "--source" ? (attached ?? next) : word.length > 2 ? word.slice(2) : next;
      program = `${program ?? ""}\n${text ?? ""}`;
      return (long === "--source" && attached !== undefined) || word.length > 2 && long === undefined ? 1 : 2;
    }
    if (long !== undefined) return attached === undefined && GAWK_LONG_VALUED.includes(long) ? 2 : 1;
    return /^-[vFWEil]$/.test(word) ? 2 : 1;
  });
  if (stopped) return out;
  if (program === undefined) program = words[i];
  if (program === undefined) return out;
  // gawk's indirect calls: `@f(…)` calls the function (a built-in such as system too) whose name f holds when it runs.
  const indirect = /@([A-Za-z_]\w*)\s*\(/.exec(program.replace(new RegExp(AWK_STRING, "g"), '""'));
  if (indirect !== null && !/^(?:load|include|namespace)$/.test(indirect[1]!)) {
    out.refusals.push({ reason: `${name} calls a function by a name held in a variable (an indirect call, @${indirect[1]!}(…))`, token: "@" });
    out.guesses.push(...stringLiterals(program));
    out.unknown ??= `${name} calls a function named by the value of ${indirect[1]!} (an indirect call), which may be system(), and what it runs the guard cannot read`;
  }
  if (/\bsystem\s*\(|\|/.test(program)) {
    out.refusals.push({ reason: `${name} runs a command through system() or a pipe`, token: "system" });
    out.guesses.push(...stringLiterals(program));
    // The literals awk hands to sh -c (`system("CMD")`, `print | "CMD"`, `"CMD" | getline`) are command lines, not guesses:
    // one the guard cannot read leaves the line one a deny cannot tell.
    out.scripts.push(...awkCommandLiterals(program));
    const { unknown, printsInto } = awkCommands(program);
    if (unknown !== undefined) out.unknown ??= `${name} ${unknown}, which the guard cannot read`;
    // What awk prints is the input of the command it prints into, as in a pipe (`print | "sh"` runs it): text only
    // known when awk runs, so the pipe's writer is a word the shell replaces (`: "$@"`), never `:`, whose output is
    // known to be empty (a `: | sh` runs nothing).
    for (const target of printsInto) out.scripts.push(`: "$@" | ${target}`);
  }
  if (/>\s*"|>>|printf?\b[^;]*>/.test(program)) {
    out.refusals.push({ reason: `${name} writes a file through >`, token: ">" });
    // The files named by a literal after > or >> (`print "CMD" > "s.sh"`).
    const files = [...program.matchAll(/>>?\s*"((?:\\.|[^"\\])*)"/g)].map((match) => match[1]!).filter((file) => file !== "" && !file.startsWith("/dev/std"));
    if (files.length > 0) out.writes = [...(out.writes ?? []), ...files];
  }
  return out;
}

const AWK_STRING = String.raw`"(?:\\.|[^"\\])*"`;
const AWK_SYSTEM = /\bsystem\s*\(/g;
const AWK_LITERAL_CALL = new RegExp(String.raw`^\s*${AWK_STRING}\s*\)`);
const AWK_PIPE_TO = new RegExp(String.raw`^\|&?\s*(${AWK_STRING})`);
const AWK_PIPE_FROM = new RegExp(String.raw`${AWK_STRING}\s*$`);

/** The string literals an awk program runs as command lines: `system("CMD")`, `print | "CMD"`, `"CMD" | getline`. */
function awkCommandLiterals(program: string): string[] {
  const out: string[] = [];
  const literal = String.raw`"((?:\\.|[^"\\])*)"`;
  const forms = [new RegExp(String.raw`\bsystem\s*\(\s*${literal}\s*\)`, "g"), new RegExp(String.raw`\|&?\s*${literal}`, "g"), new RegExp(String.raw`${literal}\s*\|&?\s*getline\b`, "g")];
  for (const form of forms) for (const match of program.matchAll(form)) out.push(...stringLiterals(`"${match[1] ?? ""}"`));
  return [...new Set(out)];
}

/**
 * The command lines an awk program runs that the guard cannot read as literals (`system(EXPR)` of
 * anything but a literal: `system($0)` runs each input line; a pipe to or from a command that is not a
 * literal), as `unknown`; and the command lines it prints into (`print | "CMD"`), which read what awk
 * prints as their input (`print | "sh"` runs it).
 */
function awkCommands(program: string): { unknown: string | undefined; printsInto: string[] } {
  // Literals first: a `|` or `system(` inside a string is text.
  const code = program.replace(new RegExp(AWK_STRING, "g"), (literal) => literal.replace(/[|(]/g, "_"));
  const printsInto: string[] = [];
  for (const match of code.matchAll(AWK_SYSTEM)) {
    if (!AWK_LITERAL_CALL.test(program.slice(match.index + match[0].length))) return { unknown: "runs a command line built when it runs (system() of an expression)", printsInto };
  }
  for (let i = code.indexOf("|"); i >= 0; i = code.indexOf("|", i + 1)) {
    if (code[i + 1] === "|" || code[i - 1] === "|") continue; // `||` is a logical or
    const after = program.slice(i);
    const to = AWK_PIPE_TO.exec(after);
    const getline = /^\|&?\s*getline\b/.test(after);
    if (getline ? !AWK_PIPE_FROM.test(program.slice(0, i)) : to === null) return { unknown: "pipes to or from a command line built when it runs", printsInto };
    // The literal's text as awk reads it (its escapes, as stringLiterals reads them): the command line `sh -c` runs.
    if (to !== null) printsInto.push(...stringLiterals(to[1]!));
  }
  return { unknown: undefined, printsInto };
}

/** GNU sed's long options (sed --help). */
const SED_LONG = ["--expression", "--file", "--in-place", "--line-length", "--null-data", "--zero-terminated", "--quiet", "--silent", "--regexp-extended", "--separate", "--sandbox", "--debug", "--posix", "--follow-symlinks", "--unbuffered", "--binary", "--help", "--version"];

/**
 * sed: the `e` command, the `e` and `w` flags of `s`, and `w`/`W` commands; its options read as GNU getopt_long reads
 * them: flag clusters (`-ne SCRIPT`, `-e1e CMD`), unique prefixes (`--expr=SCRIPT`), options after the operands.
 */
function readSed(words: readonly string[]): ProgramReading {
  const out = empty();
  const scripts: string[] = [];
  let scriptGiven = false;
  // GNU getopt permutes: the first operand is the script only when no -e or -f is given anywhere (`sed 'a\' -e e FILE` runs e, and reads the file a-backslash).
  let firstOperand: string | undefined;
  let inPlace = false;
  const operands: string[] = [];
  const operand = (word: string) => {
    firstOperand ??= word;
    operands.push(word);
  };
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    if (word === "--") {
      for (const rest of words.slice(i + 1)) operand(rest);
      break;
    }
    if (word.startsWith("--")) {
      // getopt_long: a unique prefix is the option (`--expr=SCRIPT`, `--e SCRIPT`); an ambiguous one is refused by sed.
      const eq = word.indexOf("=");
      const given = eq < 0 ? word : word.slice(0, eq);
      const matches = SED_LONG.filter((name) => name.startsWith(given));
      const long = SED_LONG.includes(given) ? given : matches.length === 1 ? matches[0] : undefined;
      const value = eq < 0 ? undefined : word.slice(eq + 1);
      if (long === "--expression") {
        scripts.push(value ?? words[++i] ?? "");
        scriptGiven = true;
      } else if (long === "--file") {
        // The script is in a file (not read here); the options after it are still read (`-f s.sed -i FILE`).
        out.refusals.push({ reason: "sed runs the script in a file (-f)", token: "-f" });
        scriptGiven = true;
        if (value === undefined) i += 1;
      } else if (long === "--in-place") {
        out.refusals.push({ reason: "sed edits files in place (-i)", token: "--in-place" });
        inPlace = true;
      }
      else if (long === "--line-length" && value === undefined) i += 1;
      continue;
    }
    if (word.startsWith("-") && word.length > 1) {
      // A cluster of flags, then -e SCRIPT, -f FILE or -l N with its value attached or in the next word, or -i[SUFFIX].
      for (let j = 1; j < word.length; j++) {
        const letter = word[j]!;
        const rest = word.slice(j + 1);
        if (letter === "e") {
          scripts.push(rest !== "" ? rest : (words[++i] ?? ""));
          scriptGiven = true;
        } else if (letter === "f") {
          out.refusals.push({ reason: "sed runs the script in a file (-f)", token: "-f" });
          scriptGiven = true;
          if (rest === "") i += 1;
        } else if (letter === "l") {
          if (rest === "") i += 1;
        } else if (letter === "i") {
          out.refusals.push({ reason: "sed edits files in place (-i)", token: "-i" });
          inPlace = true;
        }
        else continue;
        break;
      }
      continue;
    }
    operand(word);
  }
  if (!scriptGiven && firstOperand !== undefined) scripts.push(firstOperand);
  // -i rewrites each file operand (the first is the script when no -e or -f is given).
  if (inPlace) {
    const edited = scriptGiven ? operands : operands.slice(1);
    if (edited.length > 0) out.writes = [...(out.writes ?? []), ...edited];
  }
  // GNU sed joins its -e scripts with newlines (`-e 'a\' -e 'e'` appends the text "e") and reads them as one.
  const read = readSedScript(scripts.join("\n"));
  for (const command of read.runs) {
    out.refusals.push({ reason: "sed runs a command (the e command)", token: "e" });
    if (command.trim() !== "") out.scripts.push(command);
    else out.unknown ??= "sed's e command runs the input line as a command, which the guard cannot read";
  }
  for (const { pattern, replacement, delimiter } of read.substitutions) {
    out.refusals.push({ reason: "sed runs the pattern space as a command (s///e)", token: "e" });
    // The line becomes the replacement when the pattern takes all of it; otherwise what runs depends on the input.
    const plain = replacement.split(`\\${delimiter}`).join(delimiter);
    if (/^\^?\.\*\$?$/.test(pattern) && !/[\\&]/.test(plain)) out.scripts.push(plain);
    else out.unknown ??= "sed runs the input line, after s///e's substitution, as a command, which the guard cannot read";
  }
  for (const command of read.writes) out.refusals.push({ reason: command === "s" ? "sed writes a file (s///w)" : `sed writes a file (the ${command} command)`, token: command === "s" ? "w" : command });
  const files = read.files.filter((file) => file !== "" && file !== "/dev/stdout" && file !== "/dev/stderr");
  if (files.length > 0) out.writes = [...(out.writes ?? []), ...files];
  if (read.error !== undefined) {
    out.refusals.push({ reason: `sed's script cannot be read (${read.error})`, token: "sed" });
    out.unknown ??= `sed's script cannot be read (${read.error}), so what it runs or writes is not known`;
  }
  return out;
}

/** What a sed script does that an allow must see: the commands its `e` runs, its `s///e` substitutions, the commands that write files. */
interface SedScript {
  /** The texts of `e COMMAND` ("" for a bare `e`, which runs the pattern space). */
  readonly runs: string[];
  /** The `s` commands with the `e` flag. */
  readonly substitutions: { readonly pattern: string; readonly replacement: string; readonly delimiter: string }[];
  /** `w`, `W`, and `s` for an `s///w`. */
  readonly writes: string[];
  /** The files those commands write (their names, to the end of the line). */
  readonly files: string[];
  /** Set when the script is not one GNU sed reads (it then runs nothing), or the guard's reading stops. */
  error?: string;
}

/**
 * A sed script as GNU sed 4 reads it (compile.c): addresses (`N`, `$`, `first~step`, `/RE/` and `\cREc` with the I and M
 * flags, `addr,+N`, `addr,~N`), `!`, blocks, labels, the text of a, i and c (to the end of the line), the file names of r,
 * R, w and W and the command of e (to the end of the line), and the `s` and `y` commands with any delimiter, a bracket
 * expression in the regular expression holding the delimiter (`s/[/]/x/e`).
 */
function readSedScript(script: string): SedScript {
  const out: SedScript = { runs: [], substitutions: [], writes: [], files: [] };
  let i = 0;
  const at = () => script[i];
  const blanks = () => {
    while (at() === " " || at() === "\t") i++;
  };
  const toLineEnd = () => {
    const end = script.indexOf("\n", i);
    const text = script.slice(i, end < 0 ? script.length : end);
    i = end < 0 ? script.length : end;
    return text;
  };
  /**
   * Text up to the closing delimiter, a backslash escaping the next character: a replacement or y's
   * lists, or (`isRegex`) a regular expression, which ends at a newline and whose bracket expression
   * runs to its `]`.
   */
  const until = (delimiter: string, isRegex: boolean): string | undefined => {
    const start = i;
    while (i < script.length) {
      const ch = script[i]!;
      if (ch === "\\") i += 2;
      else if (ch === delimiter) {
        i++;
        return script.slice(start, i - 1);
      } else if (isRegex && ch === "\n") return undefined;
      else if (isRegex && ch === "[") {
        let j = i + 1;
        if (script[j] === "^") j++;
        if (script[j] === "]") j++;
        while (j < script.length && script[j] !== "]" && script[j] !== "\n") {
          const close = script[j] === "[" && /[:=.]/.test(script[j + 1] ?? "") ? script.indexOf(`${script[j + 1]!}]`, j + 2) : -1;
          j = close >= 0 ? close + 2 : j + 1;
        }
        if (script[j] !== "]") return undefined;
        i = j + 1;
      } else i++;
    }
    return undefined;
  };
  const regex = (delimiter: string) => until(delimiter, true);
  const plain = (delimiter: string) => until(delimiter, false);
  const address = (second: boolean): boolean | undefined => {
    const ch = at();
    if (ch !== undefined && /\d/.test(ch)) {
      while (/\d/.test(at() ?? "")) i++;
      if (!second && at() === "~") {
        i++;
        while (/\d/.test(at() ?? "")) i++;
      }
      return true;
    }
    if (second && (ch === "+" || ch === "~")) {
      i++;
      if (!/\d/.test(at() ?? "")) return undefined;
      while (/\d/.test(at() ?? "")) i++;
      return true;
    }
    if (ch === "$") {
      i++;
      return true;
    }
    if (ch === "/" || ch === "\\") {
      const delimiter = ch === "/" ? "/" : script[i + 1];
      i += ch === "/" ? 1 : 2;
      if (delimiter === undefined || delimiter === "\n" || regex(delimiter) === undefined) return undefined;
      while (at() === "I" || at() === "M") i++;
      return true;
    }
    return false;
  };
  while (i < script.length) {
    while (i < script.length && /[\s;]/.test(script[i]!)) i++;
    if (i >= script.length) break;
    const first = address(false);
    if (first === undefined) return { ...out, error: "an address that does not end" };
    if (first) {
      blanks();
      if (at() === ",") {
        i++;
        blanks();
        if (address(true) !== true) return { ...out, error: "a second address it cannot read" };
      }
    }
    blanks();
    while (at() === "!") {
      i++;
      blanks();
    }
    const command = at();
    i++;
    switch (command) {
      case "{":
      case "}":
        continue;
      case "#":
        toLineEnd();
        continue;
      case ":":
      case "b":
      case "t":
      case "T":
      case "v": {
        blanks();
        const end = /[;\n]/.exec(script.slice(i));
        i = end === null ? script.length : i + end.index;
        continue;
      }
      case "a":
      case "i":
      case "c":
        // The text runs to the end of the line; a backslash before a newline continues it.
        while (i < script.length && script[i] !== "\n") i += script[i] === "\\" ? 2 : 1;
        continue;
      case "r":
      case "R":
        blanks();
        toLineEnd();
        continue;
      case "w":
      case "W":
        out.writes.push(command);
        blanks();
        out.files.push(toLineEnd());
        continue;
      case "e":
        blanks();
        out.runs.push(toLineEnd());
        continue;
      case "s": {
        const delimiter = at();
        if (delimiter === undefined || delimiter === "\n" || delimiter === "\\") return { ...out, error: "an s command without a delimiter" };
        i++;
        const pattern = regex(delimiter);
        const replacement = pattern === undefined ? undefined : plain(delimiter);
        if (pattern === undefined || replacement === undefined) return { ...out, error: "an s command that does not end" };
        let flags = "";
        while (i < script.length && /[gpiImMe0-9w]/.test(script[i]!)) {
          const flag = script[i++]!;
          flags += flag;
          if (flag === "w") {
            out.writes.push("s");
            blanks();
            out.files.push(toLineEnd());
          }
        }
        if (flags.includes("e")) out.substitutions.push({ pattern, replacement, delimiter });
        break;
      }
      case "y": {
        const delimiter = at();
        if (delimiter === undefined || delimiter === "\n" || delimiter === "\\") return { ...out, error: "a y command without a delimiter" };
        i++;
        if (plain(delimiter) === undefined || plain(delimiter) === undefined) return { ...out, error: "a y command that does not end" };
        break;
      }
      case "l":
      case "L":
      case "q":
      case "Q":
        blanks();
        while (/\d/.test(at() ?? "")) i++;
        break;
      default:
        if (command === undefined || !"=dDgGhHnNpPxzF".includes(command)) return { ...out, error: `the command ${JSON.stringify(command ?? "")}` };
    }
    blanks();
    const next = at();
    if (next !== undefined && !/[;\n}#]/.test(next)) return { ...out, error: `${JSON.stringify(next)} after a command` };
  }
  return out;
}

/** Bash builtins that evaluate an array subscript in a name they are given (`printf -v 'a[$(cmd)]'`). */
const SUBSCRIPT_BUILTINS = new Set(["printf", "read", "declare", "typeset", "local", "export", "readonly", "let", "unset", "test", "[", "mapfile", "readarray", "wait", "getopts", "printf"]);

/** The subscripts (`[...]`) of name-like arguments, which bash evaluates (command substitutions included). */
function subscripts(name: string, words: readonly string[]): string[] {
  let names: string[];
  if (name === "printf" || name === "test" || name === "[" || name === "wait") {
    // Only the name given with -v (`printf -v NAME`, `test -v NAME`, `wait -p NAME` takes -p).
    const flag = name === "wait" ? "-p" : "-v";
    names = [];
    words.forEach((word, i) => {
      if (word === flag && words[i + 1] !== undefined) names.push(words[i + 1]!);
      else if (word.startsWith(flag) && word.length > 2 && name === "printf") names.push(word.slice(2));
    });
  } else names = words.slice(1).filter((word) => !word.startsWith("-"));
  const out: string[] = [];
  for (const word of names) {
    const open = word.indexOf("[");
    const close = word.lastIndexOf("]");
    if (open > 0 && close > open && /^[A-Za-z_][A-Za-z0-9_]*$/.test(word.slice(0, open))) out.push(word.slice(open + 1, close));
  }
  return out;
}

/**
 * How bash builtins that set a variable read their arguments (`read NAME`, `printf -v NAME FORMAT`,
 * `mapfile NAME`, `getopts OPTSTRING NAME`, `wait -p NAME`): single-letter options, those that take
 * a value, and those whose value is a variable's name. A declaration run through `builtin` or
 * `command` (`command export PAGER=cmd`) sets its NAME=VALUE words.
 */
const VARIABLE_BUILTINS: Readonly<Record<string, { readonly valued: string; readonly names: string }>> = {
  read: { valued: "adinNptu", names: "a" },
  mapfile: { valued: "dnOsuCc", names: "" },
  readarray: { valued: "dnOsuCc", names: "" },
  printf: { valued: "v", names: "v" },
  getopts: { valued: "", names: "" },
  wait: { valued: "p", names: "p" },
};
const DECLARATION_BUILTINS = new Set(["declare", "typeset", "local", "export", "readonly"]);

/** A variable a builtin sets: its name (undefined: only known at run time) and value (undefined: only known at run time). */
interface VariableSet {
  readonly name: string | undefined;
  readonly value: string | undefined;
}

/**
 * The variables a command sets when it is one of bash's builtins that assign (VARIABLE_BUILTINS, or
 * a declaration run through `builtin`/`command`). `dynamicAt(i)`: word i is only known at run time.
 * Values read from input are only known at run time; `printf -v NAME FORMAT` sets FORMAT when it has
 * no `%` or backslash.
 */
export function variablesSet(words: readonly string[], dynamicAt: (i: number) => boolean): VariableSet[] {
  let i = 0;
  // `time` (and `time -p`) is a keyword bash reads before the command, which runs in the same shell.
  while (words[i] === "builtin" || words[i] === "command" || words[i] === "time" || (words[i] === "-p" && words[i - 1] === "time")) i += 1;
  const program = words[i];
  const nameOf = (at: number): string | undefined => (dynamicAt(at) ? undefined : words[at]);
  // A declaration the parser reads as a plain command (`command export X=v`, `! export X=v`): its NAME=value words.
  if (program !== undefined && DECLARATION_BUILTINS.has(program)) {
    const out: VariableSet[] = [];
    for (let at = i + 1; at < words.length; at++) {
      const word = words[at]!;
      const eq = word.indexOf("=");
      if (word.startsWith("-") || eq <= 0) continue;
      out.push({ name: dynamicAt(at) ? undefined : word.slice(0, eq), value: dynamicAt(at) ? undefined : word.slice(eq + 1) });
    }
    return out;
  }
  const spec = program === undefined ? undefined : VARIABLE_BUILTINS[program];
  if (spec === undefined) return [];
  const out: VariableSet[] = [];
  const positional: number[] = [];
  let optionsEnd = false;
  for (let at = i + 1; at < words.length; at++) {
    const word = words[at]!;
    if (!optionsEnd && word === "--") {
      optionsEnd = true;
      continue;
    }
    if (optionsEnd || !word.startsWith("-") || word.length < 2 || dynamicAt(at)) {
      positional.push(at);
      continue;
    }
    for (let k = 1; k < word.length; k++) {
      const letter = word[k]!;
      if (!spec.valued.includes(letter)) continue;
      const attached = k + 1 < word.length;
      const valueAt = attached ? at : at + 1;
      if (spec.names.includes(letter)) out.push({ name: attached ? word.slice(k + 1) : nameOf(valueAt), value: undefined });
      if (!attached) at += 1;
      break;
    }
  }
  if (program === "read") {
    if (positional.length === 0 && out.length === 0) out.push({ name: "REPLY", value: undefined });
    for (const at of positional) out.push({ name: nameOf(at), value: undefined });
  } else if (program === "mapfile" || program === "readarray") {
    out.push({ name: positional[0] === undefined ? "MAPFILE" : nameOf(positional[0]), value: undefined });
  } else if (program === "getopts") {
    if (positional[1] !== undefined) out.push({ name: nameOf(positional[1]), value: undefined });
  } else if (program === "printf") {
    const format = positional[0];
    const text = format === undefined || dynamicAt(format) ? undefined : words[format]!;
    // Only the -v name gets the output; a format without `%` or `\` is printed as it is.
    return out.map((set) => ({ name: set.name, value: text !== undefined && !/[%\\]/.test(text) && positional.length === 1 ? text : undefined }));
  }
  return out;
}

/** `source FILE`, `.`, `trap STRING`, `eval`, shells and interpreters. */
function readBuiltinOrInterpreter(name: string, words: readonly string[]): ProgramReading | undefined {
  if (name === "eval") {
    const out = empty();
    out.refusals.push({ reason: "eval runs its arguments as a command line", token: "eval" });
    out.scripts.push(words.slice(1).join(" "));
    return out;
  }
  if (STDIN_JOB_RUNNERS.has(name)) {
    const out = empty();
    if (words.some((word) => /^-[A-Za-z]*f/.test(word))) out.refusals.push({ reason: `${name} runs the commands in the file given with -f`, token: "-f" });
    else if (!words.slice(1).some((word) => /^-[A-Za-z]*[lrdc]$/.test(word))) {
      out.refusals.push({ reason: `${name} runs the commands read from its standard input`, token: name });
      out.readsStdin = true;
    }
    return out;
  }
  if (name === "source" || name === ".") {
    const out = empty();
    out.refusals.push({ reason: `${name} runs the commands in a file`, token: name });
    return out;
  }
  if (name === "mapfile" || name === "readarray") {
    // `-C CALLBACK` is evaluated (with the index and line appended) every `-c` lines.
    const out = empty();
    for (let i = 1; i < words.length; i++) {
      const word = words[i]!;
      if (word === "--") break;
      const callback = word === "-C" ? words[i + 1] : word.startsWith("-C") ? word.slice(2) : undefined;
      if (callback !== undefined) {
        out.refusals.push({ reason: `${name} -C runs a command line for the lines it reads`, token: "-C" });
        out.scripts.push(callback);
      }
    }
    return out;
  }
  if (name === "trap") {
    const out = empty();
    const args = words.slice(1).filter((word) => word !== "--");
    if (args[0] !== undefined && !/^-[lp]$/.test(args[0]) && args.length >= 2) {
      out.refusals.push({ reason: "trap runs a command line when a signal arrives", token: "trap" });
      out.scripts.push(args[0]);
    }
    return out;
  }
  if (SHELLS.has(name)) {
    const out = empty();
    let i = 1;
    let script: string | undefined;
    let readsFile = false;
    while (i < words.length) {
      const word = words[i]!;
      if (word === "--" || word === "-") {
        i += 1;
        break;
      }
      if (/^[-+][a-zA-Z]*c[a-zA-Z]*$/.test(word) && word.startsWith("-")) {
        // `bash -c -- 'CMD'`: `--` ends the options, the command line follows it.
        const at = i + 1 + (/[oO]$/.test(word) ? 1 : 0);
        script = words[at] === "--" ? words[at + 1] : words[at];
        break;
      }
      // Options that take the next word: `-o NAME`, bash's `-O NAME`, `--rcfile FILE`, `--init-file FILE`, zsh's `--emulate MODE`.
      if (/^[-+]o$/.test(word) || word === "-O" || word === "+O" || word === "--rcfile" || word === "--init-file" || word === "--emulate") {
        i += 2;
        continue;
      }
      if (word.startsWith("-") || word.startsWith("+")) {
        i += 1;
        continue;
      }
      readsFile = true;
      break;
    }
    if (script !== undefined) {
      out.refusals.push({ reason: `${name} runs the command line given with -c`, token: "-c" });
      out.scripts.push(script);
    } else if (readsFile && !words.includes("-s")) {
      out.refusals.push({ reason: `${name} runs the script in a file`, token: name });
    } else {
      out.refusals.push({ reason: `${name} runs a script read from its standard input`, token: name });
      out.readsStdin = true;
    }
    return out;
  }
  const codeOptions = INTERPRETERS[name] ?? (/^python\d/.test(name) ? INTERPRETERS.python : undefined);
  if (codeOptions !== undefined) {
    const out = empty();
    const clusters = !WORD_OPTIONS.has(name);
    const option = words.slice(1).find((word) => codeOptions.includes(word) || (clusters && codeOptions.some((code) => /^-[A-Za-z]$/.test(code) && /^-[A-Za-z]+$/.test(word) && word.includes(code.slice(1)))) || powershellCode(name, word) !== undefined);
    if (option !== undefined) {
      out.refusals.push({ reason: `${name} runs the code given with ${option}`, token: option });
      // Code that starts processes: its string literals are tried as commands (a deny on rm reads `os.system("rm x")`),
      // and since the code may build the command otherwise, a deny that none of them matches cannot tell.
      const given = words[words.indexOf(option) + 1] ?? "";
      // PowerShell's -EncodedCommand is base64 of UTF-16LE text: read as the code it decodes to.
      const code = powershellCode(name, option) === "encoded" ? Buffer.from(given, "base64").toString("utf16le") : given;
      // PowerShell, Nushell and xonsh run a program named at the start of a statement (`pwsh -c 'rm -rf x'` runs rm where no
      // alias or function of theirs has the name): the code is tried as a command line too.
      if (COMMAND_LANGUAGES.has(name)) out.guesses.push(code);
      // PowerShell's own names of those commands (`Remove-Item`, `ri`, `del`, `gc`, `iwr`): read as the POSIX commands they are.
      if (name === "pwsh" || name === "powershell") withPowerShell(out, code, `${name} ${option}`);
      // `python3 -c 'os.remove(…)'`, `perl -e 'unlink …'`: code that deletes files as rm does, on files the guard does not read.
      const deletes = DELETE_CALLS.exec(code)?.[0];
      if (deletes !== undefined) out.maybe = [...(out.maybe ?? []), { form: ["rm", UNREAD_WORDS], reason: deletesLikeRm(`${name} ${option} …`, deletes) }];
      const doubt = codeDoubt(code);
      if (doubt !== undefined) {
        out.guesses.push(...codeGuesses(code));
        out.unknown ??= `${name} ${option} runs code that ${doubt}, which the guard cannot read`;
      }
      // Code that connects somewhere (`urlopen(…)`, `fetch(…)`; a module loaded with `-MLWP::Simple`, `-ropen-uri`): the places are built when it runs.
      if (NET_CALLS.test(code) || words.slice(1).some((word) => word !== given && /^-[MmrI]/.test(word) && NET_CALLS.test(word))) out.placesUnknown ??= `${name} ${option} runs code that connects to the network, where the guard cannot read`;
    } else if (words.length === 1 || words[1] === "-") {
      out.refusals.push({ reason: `${name} runs code read from its standard input`, token: name });
      out.readsStdin = true;
    }
    return out;
  }
  return undefined;
}

/** Programs that read a program text from their standard input. */
export function readsCodeFromStdin(name: string): boolean {
  return STDIN_INTERPRETERS.has(name) || /^python\d/.test(name);
}

/**
 * How `words` (a simple command after quote removal) runs or writes through its arguments. The
 * program is looked up by its base name (`/usr/bin/sudo` is sudo).
 */
export function readProgram(words: readonly string[]): ProgramReading {
  const out = readProgramWords(words);
  const name = basename(words[0] ?? "");
  const unnamed = unlistedWrites(name, words);
  if (unnamed !== undefined) {
    out.writesUnnamed ??= unnamed.why;
    if (unnamed.packages === true) out.installsPackages = true;
  }
  out.runs ??= filesRun(name, words);
  // `unlink x`, `find . -delete`, `git clean -fdx`: deletes files as rm does, read as rm on what it deletes (same-effect.ts).
  const deletion = deletionOf(words, name, readArguments);
  if (deletion !== undefined) out.maybe = [...(out.maybe ?? []), deletion];
  const fetched = fetchedFiles(name, words);
  if (fetched.length > 0) out.writes = [...(out.writes ?? []), ...fetched];
  return out;
}

/** curl's long options that take a value (its FETCHERS entry's `longValued`). */
let curlLongValuedSet: Set<string> | undefined;
function curlLongValued(): Set<string> {
  return (curlLongValuedSet ??= new Set(FETCHERS.curl.longValued));
}

/**
 * A URL operand's last name, as wget and curl -O save it (`…/a/install.sh?x=1` is install.sh; wget names `…/` index.html),
 * as written and percent-decoded (wget decodes it, curl keeps it).
 */
function urlFileNames(url: string, empty: string | undefined): string[] {
  const path = url.replace(/^[A-Za-z][\w+.-]*:\/\/[^/]*/, "").replace(/[?#].*$/, "");
  const last = path.slice(path.lastIndexOf("/") + 1);
  if (last === "") return empty === undefined ? [] : [empty];
  const decoded = decodeURIComponentSafe(last);
  return decoded === last ? [last] : [last, decoded];
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The files wget (without -O) and curl -O save what they fetch to, named by the URL, in the directory `-P`/`--output-dir`
 * names: `wget URL/install.sh && sh install.sh` writes the script it runs. (Server-given names: unlistedWrites.)
 */
function fetchedFiles(name: string, words: readonly string[]): string[] {
  const rest = words.slice(1);
  if (name === "wget" || name === "wget2") {
    let named = false;
    let directory = "";
    const urls: string[] = [];
    for (let i = 0; i < rest.length; i++) {
      const word = rest[i]!;
      if (word === "--") {
        urls.push(...rest.slice(i + 1));
        break;
      }
      if (word.startsWith("--")) {
        const [long, value] = [word.split("=")[0]!, word.includes("=") ? word.slice(word.indexOf("=") + 1) : undefined];
        if (/^--(?:output-d|spi)/.test(long)) named = true;
        if (/^--directory-p/.test(long)) directory = value ?? rest[++i] ?? "";
        continue;
      }
      if (!word.startsWith("-") || word === "-") {
        urls.push(word);
        continue;
      }
      for (let j = 1; j < word.length; j++) {
        const letter = word[j]!;
        if (letter === "n") break;
        if (WGET_VALUED.includes(letter)) {
          const value = j === word.length - 1 ? rest[++i] ?? "" : word.slice(j + 1);
          if (letter === "O") named = true;
          if (letter === "P") directory = value;
          break;
        }
      }
    }
    if (named) return [];
    return urls.flatMap((url) => urlFileNames(url, "index.html")).map((file) => (directory === "" ? file : `${directory.replace(/\/+$/, "")}/${file}`));
  }
  if (name === "curl") {
    let remote = false;
    let all = false;
    let directory = "";
    const urls: string[] = [];
    for (let i = 0; i < rest.length; i++) {
      const word = rest[i]!;
      if (word === "--") {
        urls.push(...rest.slice(i + 1));
        break;
      }
      if (word.startsWith("--")) {
        const long = word.split("=")[0]!;
        if (/^--remote-name-a/.test(long)) all = true;
        else if (/^--remote-n/.test(long)) remote = true;
        else if (long === "--output-dir") directory = word.includes("=") ? word.slice(word.indexOf("=") + 1) : (rest[++i] ?? "");
        else if (long === "--url") urls.push(word.includes("=") ? word.slice(word.indexOf("=") + 1) : (rest[++i] ?? ""));
        else if (curlLongValued().has(long) && !word.includes("=")) i += 1;
        continue;
      }
      if (!word.startsWith("-") || word === "-") {
        urls.push(word);
        continue;
      }
      for (let j = 1; j < word.length; j++) {
        const letter = word[j]!;
        if (letter === "O") remote = true;
        if (CURL_VALUED.includes(letter)) {
          if (j === word.length - 1) i += 1;
          break;
        }
      }
    }
    if (!remote && !all) return [];
    return urls.flatMap((url) => urlFileNames(url, undefined)).map((file) => (directory === "" ? file : `${directory.replace(/\/+$/, "")}/${file}`));
  }
  return [];
}

/** readProgram without the files it writes unnamed or runs (unlistedWrites, filesRun). */
function readProgramWords(words: readonly string[]): ProgramReading {
  const given = basename(words[0] ?? "");
  // git's own programs in its exec path (`/usr/lib/git-core/git-push`, `git-send-pack`) are the git subcommands they name.
  const dashed = /^git-(.+)$/.exec(given)?.[1];
  if (dashed !== undefined && (GIT_SUBCOMMANDS.has(dashed) || GIT_OTHER_COMMANDS.has(dashed))) {
    const inner = readProgram(["git", dashed, ...words.slice(1)]);
    return { ...inner, forms: [["git", dashed, ...words.slice(1)], ...inner.forms] };
  }
  const name = PROGRAM_ALIASES.find((alias) => alias.name.test(given))?.as ?? given;
  const wrapper = Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name] : undefined;
  if (wrapper !== undefined) {
    const out = readWrapper(name, wrapper, words);
    if (name === "screen") merge(out, readScreenCommands(wrapper.options, words));
    return withPlaces(out, name, words);
  }
  const family = Object.hasOwn(SUBCOMMAND_WRAPPERS, name) ? SUBCOMMAND_WRAPPERS[name] : undefined;
  const subcommand = family === undefined ? undefined : readSubcommandWrapper(name, family, words);
  if (subcommand !== undefined) {
    // The family's options that load or run something (`kubectl --kubeconfig F exec POD -- CMD`), up to the command it runs
    // (`docker run IMAGE ls --config x` hands `--config x` to ls).
    const inner = subcommand.commands.length === 1 && subcommand.scripts.length === 0 ? subcommand.commands[0]! : [];
    const tail = inner.length > 0 && inner.length < words.length && inner.every((word, i) => word === words[words.length - inner.length + i]);
    const effects = readOptionEffects(name, tail ? words.slice(0, words.length - inner.length) : words);
    if (effects !== undefined) merge(subcommand, effects);
    // `uvx --from git+URL x`, `pipx run --spec URL x`: the runner fetches the package it runs from a place its words name.
    if (family?.plain === undefined) withSpellings(subcommand, given, words);
    return withPlaces(subcommand, name, words);
  }
  const out = readOther(name, words);
  const edits = inPlaceEdits(name, words);
  if (edits !== undefined) {
    const files = edits.files.filter((file) => file !== "" && file !== "-");
    if (files.length > 0) out.writes = [...(out.writes ?? []), ...files];
    out.writesUnnamed ??= edits.unnamed;
  }
  if (family !== undefined) {
    subcommandWithoutGlobals(name, family, words, out);
    delete out.plainWords;
  }
  // `python -m MODULE ARGS` runs the module as its command runs (`python3 -m pip install --target DIR` is `pip install --target DIR`):
  // read as that command too, and a deny rule on the command tries it.
  const module = pythonModule(name, words);
  if (module !== undefined) {
    const inner = readProgram(module);
    out.commands.push(...inner.commands);
    out.scripts.push(...inner.scripts);
    out.refusals.push(...inner.refusals);
    out.guesses.push(...inner.guesses);
    out.forms.push(module, ...inner.forms);
    out.unknown ??= inner.unknown;
    if (inner.input !== undefined) out.input = [...(out.input ?? []), ...inner.input];
    out.connects ??= inner.connects;
    out.placesUnknown ??= inner.placesUnknown;
  }
  if (name !== "git") withSpellings(out, given, words);
  // `git clone URL`, `pip install git+URL`, `npm install --registry URL x`: the places it connects to.
  return withPlaces(out, name, words);
}

/** `npm --force pub`, `docker -H HOST container remove x`, `pip3 -v uninstall x`: the command as the program reads its command words (subcommands.ts). */
function withSpellings(out: ProgramReading, given: string, words: readonly string[]): void {
  const spelled = commandSpellings(given, words);
  if (spelled.spellings.length > 0) out.spellings = [...(out.spellings ?? []), ...spelled.spellings];
  if (spelled.maybe.length > 0) out.maybe = [...(out.maybe ?? []), ...spelled.maybe];
}

/** `out` with the places a NET_PROGRAMS program connects to (`git clone URL`, `pip install git+URL`, `uvx --from git+URL x`). */
function withPlaces(out: ProgramReading, name: string, words: readonly string[]): ProgramReading {
  const net = readNetProgram(name, words) ?? readHostProgram(name, words);
  if (net !== undefined) {
    out.connects ??= net.connects;
    out.placesUnknown ??= net.placesUnknown;
  }
  return out;
}

/** TeX engines: with shell escape on, `\write18{CMD}` in the document runs CMD (and LuaTeX's `\directlua` may run anything). */
const TEX_ENGINES = new Set(["tex", "etex", "pdftex", "xetex", "luatex", "lualatex", "latex", "pdflatex", "xelatex", "lamed", "amstex", "context", "mptopdf", "ptex", "uptex", "platex", "uplatex", "eptex"]);

/** A TeX engine's reading: `-shell-escape` lets the document run commands; the inline document's `\write18{...}` are read, a file's cannot be. */
function readTex(name: string, words: readonly string[]): ProgramReading {
  const out = empty();
  const escape = words.find((word) => /^--?(?:shell-escape|enable-write18|shell-restricted)$|^--?cnf-line/.test(word));
  if (escape === undefined || /shell-restricted$/.test(escape)) return out;
  out.refusals.push({ reason: `${name} runs the shell commands in the document (\\write18) with ${escape}`, token: escape });
  const inline = words.slice(1).filter((word) => word.startsWith("\\"));
  if (inline.length === 0) out.unknown = `${name} ${escape} runs the \\write18 commands of a document the guard does not read`;
  for (const text of inline) {
    for (const match of text.matchAll(/\\(?:immediate\s*)?\\write18\s*\{((?:[^{}]|\{[^{}]*\})*)\}/g)) out.scripts.push(match[1]!);
    if (/\\(?:directlua|latelua|luaexec|input|include|openin)\b/.test(text)) {
      out.guesses.push(...codeGuesses(text));
      out.unknown ??= `${name} runs Lua or input files named in the document, which the guard cannot read`;
    }
  }
  return out;
}

/** Programs whose operand after the input is a file they write (`uniq IN OUT`, `xxd -r IN OUT`, `lwp-download URL FILE`): their options that take a value, and the operand written. */
const OUTPUT_OPERANDS: Readonly<Record<string, { readonly valued: RegExp; readonly at: number }>> = {
  uniq: { valued: /^-[fsw]$/, at: 1 },
  xxd: { valued: /^-(?:c|cols|g|groupsize|l|len|o|s|seek|n|name)$/, at: 1 },
  "lwp-download": { valued: /^$/, at: 1 },
};

/** vim's and ex's options that take the next word (`-c CMD`, `-S FILE`, `--cmd CMD`, `-u VIMRC`, `-T TERM`, `-t TAG`, `-q ERRORFILE`, `-w`/`-W SCRIPTOUT`, `-i VIMINFO`). */
const VIM_VALUED = /^(?:-[cSuUiTtqwW]|--cmd)$/;
/** GNU patch's short options that take a value (attached, or the next word when last in a cluster). */
const PATCH_VALUED = "BDFVYdgiopxrz";
/** GNU patch's long options that take a value (`--input=PATCH`, `--output FILE`, `--directory DIR`). */
const PATCH_LONG_VALUED = /^--(?:prefix|suffix|basename-prefix|ifdef|fuzz|version-control|directory|get|input|output|strip|reject-file|quoting-style|reject-format|read-only)$/;

/**
 * Files a program rewrites in place, named by its operands (`perl -pi -e CODE FILE`, gawk's `-i inplace`, `ed FILE`,
 * `ex FILE`, `patch FILE`), or by a patch it reads (`patch < x.patch`, `git apply x.patch`, `git am`: `unnamed` says so).
 * sed's `-i` is read with its script (readSed); programs that write an output operand are OUTPUT_OPERANDS'.
 */
function inPlaceEdits(name: string, words: readonly string[]): { files: string[]; unnamed?: string } | undefined {
  if (name === "perl") {
    // perl's switches cluster (`-pi`, `-pie` is -p and -i with the extension "e"); -e/-E take the code, the first operand
    // is the script when no -e is given; options stop at the first operand.
    let inPlace = false;
    let code = false;
    let i = 1;
    for (; i < words.length; i++) {
      const word = words[i]!;
      if (word === "--") {
        i += 1;
        break;
      }
      if (!word.startsWith("-") || word === "-") break;
      for (let j = 1; j < word.length; j++) {
        const letter = word[j]!;
        if (letter === "e" || letter === "E") {
          code = true;
          if (j === word.length - 1) i += 1;
          break;
        }
        if (letter === "i") inPlace = true;
        if ("iMmIxCdDlF0V".includes(letter)) break;
      }
    }
    if (!inPlace) return undefined;
    return { files: words.slice(code ? i : i + 1) };
  }
  if (name === "awk" || name === "gawk") {
    // gawk -i inplace (the inplace extension, also as `-iinplace`, `--include=inplace`, `-i inplace.awk`) rewrites each file operand.
    let inPlace = false;
    let program = false;
    let i = 1;
    for (; i < words.length; i++) {
      const word = words[i]!;
      if (word === "--") {
        i += 1;
        break;
      }
      if (!word.startsWith("-") || word === "-") break;
      const eq = word.indexOf("=");
      const long = word.startsWith("--") ? (eq < 0 ? word : word.slice(0, eq)) : undefined;
      const value = long !== undefined ? (eq < 0 ? words[i + 1] : word.slice(eq + 1)) : word.length > 2 ? word.slice(2) : words[i + 1];
      const include = long !== undefined ? long.length >= 5 && "--include".startsWith(long) : word.startsWith("-i");
      if (include && value !== undefined && /^inplace(?:\.awk)?$/.test(value)) inPlace = true;
      if (long !== undefined ? ["--file", "--source"].some((name) => long.length >= 4 && name.startsWith(long)) : /^-[fe]/.test(word)) program = true;
      const valued = long !== undefined ? eq < 0 && GAWK_LONG_VALUED.some((name) => name.startsWith(long)) : /^-[vFWEilfe]$/.test(word);
      if (valued) i += 1;
    }
    if (!inPlace) return undefined;
    return { files: words.slice(program ? i : i + 1).filter((word) => !/^[A-Za-z_][\w:]*=/.test(word)) };
  }
  if (name === "ed" || name === "red" || name === "ex" || name === "vi" || name === "vim" || name === "nvim" || name === "view" || name === "rvim" || name === "vim.basic" || name === "vim.tiny") {
    // The editor writes the files it opens when its commands (on its input, in -c, -s or a script) say `w`.
    const files: string[] = [];
    for (let i = 1; i < words.length; i++) {
      const word = words[i]!;
      if (word === "--") {
        files.push(...words.slice(i + 1));
        break;
      }
      if (word.startsWith("+")) continue;
      if (word.startsWith("-")) {
        if (VIM_VALUED.test(word) || (name.endsWith("ed") && word === "-p")) i += 1;
        continue;
      }
      files.push(word);
    }
    return files.length === 0 ? undefined : { files };
  }
  if (name === "patch") {
    // patch [OPTIONS] [ORIGINAL [PATCHFILE]]: it rewrites ORIGINAL (or -o OUTPUT), else the files the patch names.
    const operands: string[] = [];
    let output: string | undefined;
    for (let i = 1; i < words.length; i++) {
      const word = words[i]!;
      if (word === "--") {
        operands.push(...words.slice(i + 1));
        break;
      }
      if (/^--(?:dry-run|help|version)$/.test(word)) return undefined;
      if (word.startsWith("--")) {
        const eq = word.indexOf("=");
        const long = eq < 0 ? word : word.slice(0, eq);
        const value = eq < 0 ? (PATCH_LONG_VALUED.test(long) ? words[++i] : undefined) : word.slice(eq + 1);
        if (long === "--output") output = value;
        continue;
      }
      if (word.startsWith("-") && word.length > 1) {
        for (let j = 1; j < word.length; j++) {
          const letter = word[j]!;
          if (!PATCH_VALUED.includes(letter)) continue;
          const value = j < word.length - 1 ? word.slice(j + 1) : words[++i];
          if (letter === "o") output = value;
          break;
        }
        continue;
      }
      operands.push(word);
    }
    if (output !== undefined && output !== "-") return { files: [output] };
    if (operands[0] !== undefined) return { files: [operands[0]] };
    return { files: [], unnamed: "patch writes the files its patch names" };
  }
  if (name === "git") {
    const parsed = parseOptions(words, 1, GIT_GLOBAL, "git");
    const sub = words[parsed.next];
    const rest = words.slice(parsed.next + 1);
    if (sub === "am") return { files: [], unnamed: "git am writes the files its patches name" };
    if (sub !== "apply") return undefined;
    if (rest.some((word) => word === "--cached") && !rest.includes("--index")) return undefined;
    if (rest.some((word) => /^--(?:check|stat|numstat|summary)$/.test(word)) && !rest.includes("--apply")) return undefined;
    return { files: [], unnamed: "git apply writes the files its patch names" };
  }
  return undefined;
}

/**
 * Extractors and the short options that make them do something else than write the archive's members: unzip lists
 * (-l, -v, -Z zipinfo), tests (-t), prints members or the comment to the standard output (-p, -c, -z); cpio copies in
 * (-i, --extract) unless it lists (-t, --list) or writes to the standard output (--to-stdout). `valued`: short options
 * that take the next word (the rest of a cluster after them is their value).
 */
const UNZIP_NOT_WRITING = "lvZtpcz";
const UNZIP_VALUED = "dxP";
const CPIO_VALUED = "CDEFHIMORsVW";
/** 7-Zip's commands that write the archive's members: x (with paths), e (flat). */
const SEVEN_ZIP = new Set(["7z", "7za", "7zr", "7zz", "7zzs"]);
/**
 * git's subcommands that write the working tree's files from elsewhere (another commit, a remote, the stash), and the
 * options with which they do not: `git checkout -b NEW` and `git switch -c NEW` with no start point only make a branch,
 * `git restore --staged` only the index, `git reset` without --hard/--merge/--keep only the index, a bare or
 * no-checkout clone no tree.
 */
const GIT_TREE_WRITERS: Readonly<Record<string, string>> = {
  clone: "git clone checks out a repository",
  pull: "git pull merges a remote's commits into the working tree",
  checkout: "git checkout writes another commit's files",
  switch: "git switch writes another branch's files",
  reset: "git reset writes another commit's files",
  merge: "git merge writes another branch's files",
  rebase: "git rebase writes other commits' files",
  "cherry-pick": "git cherry-pick writes another commit's files",
  revert: "git revert writes a commit's files",
  stash: "git stash writes the stash's files",
  restore: "git restore writes another commit's files",
  worktree: "git worktree add checks out a tree",
  submodule: "git submodule checks out its repositories",
  bisect: "git bisect checks out other commits",
};
/** wget's short options that take a value (the rest of a cluster, or the next word); -n takes the rest of its cluster (`-np`, `-nH`). */
const WGET_VALUED = "oaOiBtTwQPUeDRAlIXY";
/** rsync's and scp's short options that take the next word as their value. */
const COPY_VALUED: Readonly<Record<string, string>> = { rsync: RSYNC_OPTIONS.valued!, scp: "cFiJloPSDX" };
/** A `[USER@]HOST:PATH` or `rsync://` operand: a file on another host. */
const REMOTE_OPERAND = /^(?:rsync:\/\/|(?:[^/@:\s]+@)?[A-Za-z0-9][\w.-]*::?)/;
/** Package managers' subcommands that fetch packages into the tree (node_modules, a .tgz, a directory of wheels). */
const PACKAGE_FETCHES: Readonly<Record<string, ReadonlySet<string>>> = {
  npm: new Set(["install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal", "isntall", "add", "ci", "clean-install", "ic", "install-clean", "isntall-clean", "update", "up", "upgrade", "udpate", "pack"]),
  pnpm: new Set(["install", "i", "add", "update", "up", "upgrade", "pack", "fetch"]),
  yarn: new Set(["", "install", "add", "upgrade", "up", "pack"]),
  bun: new Set(["install", "i", "add", "a", "update", "pm"]),
  pip: new Set(["download"]),
};

/**
 * More programs that write files the line does not name, by their first operand (the operation, or a subcommand) or an
 * option: other archivers (unrar, jar, pax, lha, cabextract, dpkg-deb, unsquashfs), decompressors that write FILE for
 * FILE.gz (gunzip, gzip -d, xz -d, zstd -d, …), other version control systems' checkouts (svn, hg, bzr, fossil), and
 * copies from storage elsewhere (rclone, aws s3, gsutil, kubectl cp, docker cp). Each row: how the operation is told,
 * and the phrase.
 */
const OTHER_WRITERS: Readonly<Record<string, { readonly when: (rest: readonly string[], first: string) => boolean; readonly why: string }>> = {
  unrar: { when: (_, first) => /^[ex]$/.test(first), why: "unrar extracts an archive" },
  rar: { when: (_, first) => /^[ex]$/.test(first), why: "rar extracts an archive" },
  unar: { when: () => true, why: "unar extracts an archive" },
  jar: { when: (_, first) => /^-?[a-zA-Z]*x/.test(first) || first === "--extract", why: "jar extracts an archive" },
  pax: { when: (rest) => rest.some((word) => /^-[a-zA-Z]*r/.test(word)) && !rest.some((word) => /^-[a-zA-Z]*w/.test(word)), why: "pax -r extracts an archive" },
  lha: { when: (_, first) => /^-?[ex]/.test(first), why: "lha extracts an archive" },
  cabextract: { when: (rest) => !rest.some((word) => /^-(?:l|t|-list|-test)$/.test(word)), why: "cabextract extracts an archive" },
  "dpkg-deb": { when: (rest) => rest.some((word) => /^(?:-[xXR]|--(?:extract|vextract|raw-extract))$/.test(word)), why: "dpkg-deb extracts a package" },
  unsquashfs: { when: (rest) => !rest.some((word) => /^-(?:l|ll|lls|lc|llc|s|stat|help)$/.test(word)), why: "unsquashfs extracts a file system" },
  gunzip: { when: (rest) => !rest.some((word) => /^-[a-zA-Z]*[cltL]|^--(?:stdout|to-stdout|list|test)$/.test(word)), why: "gunzip writes the files it decompresses" },
  bunzip2: { when: (rest) => !rest.some((word) => /^-[a-zA-Z]*[ctL]|^--(?:stdout|test)$/.test(word)), why: "bunzip2 writes the files it decompresses" },
  unxz: { when: (rest) => !rest.some((word) => /^-[a-zA-Z]*[ctlL]|^--(?:stdout|to-stdout|test|list)$/.test(word)), why: "unxz writes the files it decompresses" },
  unlzma: { when: (rest) => !rest.some((word) => /^-[a-zA-Z]*[ctlL]|^--(?:stdout|to-stdout|test|list)$/.test(word)), why: "unlzma writes the files it decompresses" },
  unzstd: { when: (rest) => !rest.some((word) => /^-[a-zA-Z]*[ctl]|^--(?:stdout|test|list)$/.test(word)), why: "unzstd writes the files it decompresses" },
  unlz4: { when: (rest) => !rest.some((word) => /^-[a-zA-Z]*[ct]|^--(?:stdout|test)$/.test(word)), why: "unlz4 writes the files it decompresses" },
  uncompress: { when: (rest) => !rest.some((word) => /^-[a-zA-Z]*c/.test(word)), why: "uncompress writes the files it decompresses" },
  unpigz: { when: (rest) => !rest.some((word) => /^-[a-zA-Z]*[cltL]|^--(?:stdout|to-stdout|list|test)$/.test(word)), why: "unpigz writes the files it decompresses" },
  ...Object.fromEntries(
    ["gzip", "pigz", "bzip2", "xz", "lzma", "zstd", "lz4", "brotli", "lzip", "lzop"].map((name) => [
      name,
      {
        when: (rest: readonly string[]) => rest.some((word) => /^-[a-zA-Z0-9]*d|^--(?:decompress|uncompress)$/.test(word)) && !rest.some((word) => /^-[a-zA-Z0-9]*[ctlL]|^--(?:stdout|to-stdout|test|list)$/.test(word)),
        why: `${name} -d writes the files it decompresses`,
      },
    ]),
  ),
  svn: { when: (_, first) => /^(?:checkout|co|update|up|export|switch|sw|merge|revert|patch)$/.test(first), why: "svn writes a working copy" },
  hg: { when: (rest, first) => /^(?:clone|update|up|checkout|co|merge|revert|import|unshelve|rebase|graft|backout)$/.test(first) || (first === "pull" && rest.some((word) => /^(?:-u|--update)$/.test(word))), why: "hg writes a working copy" },
  bzr: { when: (_, first) => /^(?:branch|checkout|co|pull|update|up|merge|export|revert)$/.test(first), why: "bzr writes a working copy" },
  brz: { when: (_, first) => /^(?:branch|checkout|co|pull|update|up|merge|export|revert)$/.test(first), why: "brz writes a working copy" },
  fossil: { when: (_, first) => /^(?:open|clone|update|up|checkout|co|merge|revert|stash)$/.test(first), why: "fossil writes a working copy" },
  rclone: { when: (_, first) => /^(?:copy|copyto|sync|move|moveto|copyurl|bisync|mount|cat)$/.test(first) && first !== "cat", why: "rclone copies files from elsewhere" },
  gsutil: { when: (_, first) => /^(?:cp|rsync|mv)$/.test(first), why: "gsutil copies files from elsewhere" },
  kubectl: { when: (_, first) => first === "cp", why: "kubectl cp copies files from a container" },
  docker: { when: (_, first) => first === "cp", why: "docker cp copies files from a container" },
  podman: { when: (_, first) => first === "cp", why: "podman cp copies files from a container" },
};

/** OTHER_WRITERS' phrase for the command, or undefined. aws is read as `aws s3 cp|sync|mv SRC DST`. */
function otherWriter(name: string, rest: readonly string[]): string | undefined {
  if (name === "aws") return rest.includes("s3") && rest.some((word) => /^(?:cp|sync|mv)$/.test(word)) ? "aws s3 copies files from elsewhere" : undefined;
  const row = Object.hasOwn(OTHER_WRITERS, name) ? OTHER_WRITERS[name] : undefined;
  if (row === undefined) return undefined;
  const first = rest.find((word) => !word.startsWith("-")) ?? "";
  return row.when(rest, first) ? row.why : undefined;
}

/**
 * Files a program writes whose names the line does not give (GIT_TREE_WRITERS, archives, recursive fetches, copies
 * from another host, packages fetched): why, as a phrase ("tar extracts an archive"), and whether they are packages a
 * package manager installs. tar is read with its other options (readTar).
 */
function unlistedWrites(name: string, words: readonly string[]): { why: string; packages?: boolean } | undefined {
  const module = pythonModule(name, words);
  if (module !== undefined) return unlistedWrites(module[0]!, module);
  const rest = words.slice(1);
  if (name === "unzip") {
    for (let i = 0; i < rest.length; i++) {
      const word = rest[i]!;
      if (!/^-[A-Za-z$/:^]/.test(word)) continue;
      for (let j = 1; j < word.length; j++) {
        const letter = word[j]!;
        if (UNZIP_NOT_WRITING.includes(letter)) return undefined;
        if (UNZIP_VALUED.includes(letter)) {
          if (j === word.length - 1 && letter !== "x") i += 1;
          break;
        }
      }
    }
    return rest.some((word) => !word.startsWith("-")) ? { why: "unzip extracts an archive" } : undefined;
  }
  if (SEVEN_ZIP.has(name)) {
    const command = rest.find((word) => !word.startsWith("-"));
    if ((command !== "x" && command !== "e") || rest.some((word) => word === "-so")) return undefined;
    return { why: `${name} ${command} extracts an archive` };
  }
  if (name === "cpio") {
    let extract = false;
    for (let i = 0; i < rest.length; i++) {
      const word = rest[i]!;
      if (word.startsWith("--")) {
        const long = word.split("=")[0]!;
        if (long === "--list" || long === "--to-stdout" || long === "--only-verify-crc") return undefined;
        if (long === "--extract") extract = true;
        continue;
      }
      if (!word.startsWith("-")) continue;
      for (let j = 1; j < word.length; j++) {
        const letter = word[j]!;
        if (letter === "t") return undefined;
        if (letter === "i") extract = true;
        if (CPIO_VALUED.includes(letter)) {
          if (j === word.length - 1) i += 1;
          break;
        }
      }
    }
    return extract ? { why: "cpio extracts an archive" } : undefined;
  }
  const more = otherWriter(name, rest);
  if (more !== undefined) return { why: more };
  if (name === "ar") {
    // ar [--plugin P] [-X32_64] [-]OPERATION[MODIFIERS] ARCHIVE [MEMBER...]: x extracts the members.
    const operation = rest.find((word) => !word.startsWith("--") && !/^-X/.test(word));
    return operation !== undefined && /^-?[a-zA-Z]*x/.test(operation) ? { why: "ar extracts an archive" } : undefined;
  }
  if (name === "git") {
    const parsed = parseOptions(words, 1, GIT_GLOBAL, "git");
    const sub = words[parsed.next] ?? "";
    const args = words.slice(parsed.next + 1);
    const why = Object.hasOwn(GIT_TREE_WRITERS, sub) ? GIT_TREE_WRITERS[sub] : undefined;
    if (why === undefined) return undefined;
    const has = (pattern: RegExp) => args.some((word) => pattern.test(word));
    const operands = (valued: RegExp) => {
      const found: string[] = [];
      for (let i = 0; i < args.length; i++) {
        const word = args[i]!;
        if (word === "--") return [...found, ...args.slice(i)];
        if (valued.test(word)) i += 1;
        else if (!word.startsWith("-") || word === "-") found.push(word);
      }
      return found;
    };
    switch (sub) {
      case "clone":
        return has(/^--(?:bare|mirror|no-checkout)$|^-n$/) ? undefined : { why };
      case "checkout":
      case "switch": {
        // `-b NEW`, `-c NEW`, `--orphan NEW` name a branch, not a commit to write: with no other operand the files stay.
        const creates = /^-[bBcC]$|^--(?:orphan|create|force-create)$/;
        const left = operands(/^-[bBcC]$|^--(?:orphan|create|force-create|conflict|pathspec-from-file)$/);
        if (has(creates) && left.length === 0) return undefined;
        return left.length === 0 && !has(/^--(?:detach|discard-changes|force)$|^-f$/) ? undefined : { why };
      }
      case "reset":
        return has(/^--(?:hard|merge|keep)$/) ? { why } : undefined;
      case "restore":
        return has(/^--staged$|^-S$/) && !has(/^--worktree$|^-W$|^-[A-Za-z]*W/) ? undefined : { why };
      case "stash":
        return ["pop", "apply", "branch"].includes(args[0] ?? "") ? { why } : undefined;
      case "worktree":
        return args[0] === "add" && !args.includes("--no-checkout") ? { why } : undefined;
      case "submodule":
        return ["update", "add"].includes(operands(/^--(?:reference|depth|jobs|name|branch)$|^-[jb]$/)[0] ?? "") ? { why } : undefined;
      case "rebase":
      case "merge":
      case "cherry-pick":
      case "revert":
        return has(/^--(?:quit|show-current-patch|edit-todo|abort)$/) ? undefined : { why };
      case "bisect":
        return ["start", "good", "bad", "new", "old", "skip", "reset", "run"].includes(args[0] ?? "") ? { why } : undefined;
      default:
        return { why };
    }
  }
  if (name === "wget" || name === "wget2") {
    for (let i = 0; i < rest.length; i++) {
      const word = rest[i]!;
      if (word === "--") break;
      if (word.startsWith("--")) {
        const long = word.split("=")[0]!;
        if (/^--(?:recursive|mirror|page-requisites)$/.test(long)) return { why: `${name} ${long} fetches files under the names the server gives` };
        if (long === "--input-file") return { why: `${name} --input-file fetches the URLs a file lists` };
        // getopt_long takes a unique prefix: `--content-d`, `--trust-s`. Without them wget names a file by its URL (fetchedFiles).
        if (/^--(?:content-d|trust-s)/.test(long) && !/^--(?:content-disposition|trust-server-names)=(?:off|no|0)$/.test(word)) return { why: `${name} ${long} saves what it fetches under the name the server gives` };
        continue;
      }
      if (!word.startsWith("-")) continue;
      for (let j = 1; j < word.length; j++) {
        const letter = word[j]!;
        if (letter === "n") break;
        if (letter === "r" || letter === "m" || letter === "p") return { why: `${name} -${letter} fetches files under the names the server gives` };
        if (letter === "i") return { why: `${name} -i fetches the URLs a file lists` };
        if (WGET_VALUED.includes(letter)) {
          if (j === word.length - 1) i += 1;
          break;
        }
      }
    }
    return undefined;
  }
  if (name === "curl") {
    // -J / --remote-header-name saves under the name the server gives (-O alone: the URL's, fetchedFiles).
    for (let i = 0; i < rest.length; i++) {
      const word = rest[i]!;
      if (word === "--") break;
      if (word.startsWith("--")) {
        if (/^--remote-h/.test(word.split("=")[0]!)) return { why: "curl -J saves what it fetches under the name the server gives" };
        continue;
      }
      if (!word.startsWith("-")) continue;
      for (let j = 1; j < word.length; j++) {
        const letter = word[j]!;
        if (letter === "J") return { why: "curl -J saves what it fetches under the name the server gives" };
        if (CURL_VALUED.includes(letter)) {
          if (j === word.length - 1) i += 1;
          break;
        }
      }
    }
    return undefined;
  }
  if (name === "aria2c") {
    // aria2c saves each download under its remote name unless -o/--out names it (or --dry-run saves nothing).
    return rest.some((word) => /^-[A-Za-z]*o|^--(?:out|dry-run)(?:=|$)/.test(word)) ? undefined : { why: "aria2c saves what it fetches under the name the server gives (or the URL's)" };
  }
  if ((name === "http" || name === "https") && rest.some((word) => /^--download$|^-[A-Za-z]*d[A-Za-z]*$/.test(word)) && !rest.some((word) => /^--output(?:=|$)|^-[A-Za-z]*o/.test(word))) {
    return { why: `${name} --download saves what it fetches under the name the server gives (or the URL's)` };
  }
  if (name === "rsync" || name === "scp") {
    const valued = COPY_VALUED[name]!;
    const operands: string[] = [];
    for (let i = 0; i < rest.length; i++) {
      const word = rest[i]!;
      if (word === "--") {
        operands.push(...rest.slice(i + 1));
        break;
      }
      if (word.startsWith("--")) continue;
      if (word.startsWith("-") && word.length > 1) {
        const at = [...word.slice(1)].findIndex((letter) => valued.includes(letter));
        if (at >= 0 && at === word.length - 2) i += 1;
        continue;
      }
      operands.push(word);
    }
    const remote = operands.slice(0, -1).find((word) => REMOTE_OPERAND.test(word));
    return operands.length >= 2 && remote !== undefined ? { why: `${name} copies files from ${remote}` } : undefined;
  }
  const fetches = Object.hasOwn(PACKAGE_FETCHES, name) || /^pip\d/.test(name) ? PACKAGE_FETCHES[/^pip\d/.test(name) ? "pip" : name] : undefined;
  if (fetches !== undefined) {
    const sub = rest.find((word) => !word.startsWith("-")) ?? "";
    if (!fetches.has(sub)) return undefined;
    return name === "pip" || /^pip\d/.test(name) ? { why: `${name} download fetches packages` } : { why: `${name}${sub === "" ? "" : ` ${sub}`} fetches packages`, packages: sub !== "pack" };
  }
  return undefined;
}

/** Interpreters that run a script file given as their first operand (their code options: INTERPRETERS). */
const SCRIPT_INTERPRETERS = new Set(["python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "bun", "perl", "ruby", "php", "lua", "luajit", "Rscript", "tclsh", "wish", "tsx", "ts-node", "julia", "raku", "perl6", "groovy", "expect", "osascript"]);
/** Package managers' subcommands that run the scripts of ./package.json (their own, or as lifecycle scripts of an install). */
const PACKAGE_SCRIPTS: Readonly<Record<string, ReadonlySet<string>>> = {
  npm: new Set(["test", "t", "tst", "start", "stop", "restart", "run", "run-script", "rum", "urn", "install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal", "isntall", "ci", "clean-install", "ic", "install-clean", "isntall-clean", "install-test", "it", "install-ci-test", "cit", "clean-install-test", "sit", "rebuild", "rb", "pack", "publish", "exec", "x"]),
  pnpm: new Set(["test", "t", "start", "run", "install", "i", "add", "exec", "rebuild", "rb", "pack", "publish"]),
  yarn: new Set(["", "test", "start", "run", "install", "add", "exec", "pack", "publish"]),
  bun: new Set(["test", "run", "install", "i", "add", "a"]),
};
/** The options of npm, pnpm and yarn that pick the package's directory. */
const PACKAGE_DIRECTORY = /^--(?:prefix|dir|cwd)$|^-C$/;

/**
 * The files a program runs as a script or a program (SCRIPT_INTERPRETERS given a file, make's makefile, a package
 * manager's package.json scripts), as written, or undefined.
 */
export function filesRun(name: string, words: readonly string[]): { files: string[]; what: string; packageScripts?: boolean } | undefined {
  const rest = words.slice(1);
  const interpreter = SCRIPT_INTERPRETERS.has(name) || /^python\d[\d.]*$/.test(name) ? name : undefined;
  if (interpreter !== undefined) {
    const code = INTERPRETERS[name] ?? INTERPRETERS.python ?? [];
    const own = ownWords(name, words);
    const operands: string[] = [];
    for (let i = 1; i < own.length; i++) {
      const word = own[i]!;
      if (code.includes(word) || (word.startsWith("--") && code.includes(word.split("=")[0]!))) return undefined;
      if (word === "-m" && /^python|^pypy/.test(name)) return own[i + 1] === undefined ? undefined : { files: [`${own[i + 1]!.replace(/\./g, "/")}.py`], what: `the module ${own[i + 1]!} with ${name} -m` };
      if (word === "--") {
        operands.push(...own.slice(i + 1, i + 2));
        break;
      }
      if (/^-[A-Za-z]*[ec]$/.test(word) && code.some((option) => option.length === 2 && word.endsWith(option[1]!))) return undefined;
      if (!word.startsWith("-")) {
        operands.push(word);
        break;
      }
    }
    if (name === "bun" && operands[0] === "run") operands.shift();
    // node's and python's own options are read by ownWords: their script is the last of their own words.
    const last = own[own.length - 1];
    const file = Object.hasOwn(OWN_OPTIONS, name) || /^python\d/.test(name) ? (own.length > 1 && last !== undefined && !last.startsWith("-") ? last : undefined) : operands[0];
    return file === undefined || file === "-" ? undefined : { files: [file], what: `${file} with ${name}` };
  }
  if (name === "deno") {
    const sub = rest[0];
    const file = rest.slice(1).find((word) => !word.startsWith("-"));
    return (sub === "run" || sub === "test") && file !== undefined ? { files: [file], what: `${file} with deno ${sub}` } : undefined;
  }
  if (name === "make" || name === "gmake") {
    // make reads ./GNUmakefile, ./makefile or ./Makefile (in -C DIR), or the -f files, and runs their recipes.
    let directory = "";
    const makefiles: string[] = [];
    for (let i = 0; i < rest.length; i++) {
      const word = rest[i]!;
      if (word === "--") break;
      const long = /^--(directory|file|makefile)(?:=(.*))?$/.exec(word);
      if (long !== null) {
        const value = long[2] ?? rest[++i] ?? "";
        if (long[1] === "directory") directory = `${directory}${value.replace(/\/*$/, "/")}`;
        else makefiles.push(value);
        continue;
      }
      if (!/^-[A-Za-z]/.test(word) || word.startsWith("--")) continue;
      for (let j = 1; j < word.length; j++) {
        const letter = word[j]!;
        if (!"CfIoWjlO".includes(letter)) continue;
        if (letter === "j" || letter === "l" || letter === "O") break;
        const value = j < word.length - 1 ? word.slice(j + 1) : rest[++i] ?? "";
        if (letter === "C") directory = `${directory}${value.replace(/\/*$/, "/")}`;
        if (letter === "f") makefiles.push(value);
        break;
      }
    }
    const files = makefiles.length > 0 ? makefiles.map((file) => (file.startsWith("/") ? file : `${directory}${file}`)) : ["GNUmakefile", "makefile", "Makefile"].map((file) => `${directory}${file}`);
    return { files, what: `the recipes of ${files[files.length - 1]!} with ${name}` };
  }
  const scripts = Object.hasOwn(PACKAGE_SCRIPTS, name) ? PACKAGE_SCRIPTS[name] : undefined;
  if (scripts !== undefined) {
    let directory = "";
    let sub: string | undefined;
    for (let i = 0; i < rest.length; i++) {
      const word = rest[i]!;
      const eq = word.indexOf("=");
      if (PACKAGE_DIRECTORY.test(eq < 0 ? word : word.slice(0, eq))) {
        const value = eq < 0 ? rest[++i] ?? "" : word.slice(eq + 1);
        directory = value.replace(/\/*$/, "/");
        continue;
      }
      if (!word.startsWith("-")) {
        sub ??= word;
        if (sub !== undefined) break;
      }
    }
    if (!scripts.has(sub ?? "")) return undefined;
    const file = `${directory}package.json`;
    return { files: [file], what: `the scripts of ${file} with ${name}${sub === undefined ? "" : ` ${sub}`}`, packageScripts: true };
  }
  return undefined;
}

/** A word that names a local directory or file to build (`.`, `./pkg`, `../x`, `/src/pkg`, `~/pkg`). */
const LOCAL_OPERAND = /^(?:\.{1,2}(?:\/|$)|\/|~)/;

/**
 * How the command loads code from files it finds by convention (CODE_LOADERS: git's hooks, pytest's conftest.py,
 * a Python interpreter's imports), with the program as a phrase ("git commit", "python3 -m pytest"), or undefined.
 */
export function codeLoader(words: readonly string[]): { readonly loader: CodeLoader; readonly program: string } | undefined {
  const name = basename(words[0] ?? "");
  const module = pythonModule(name, words);
  const key = module !== undefined && Object.hasOwn(CODE_LOADERS, module[0]!) ? module[0]! : /^python\d[\d.]*$/.test(name) ? "python3" : name;
  if (!Object.hasOwn(CODE_LOADERS, key)) return undefined;
  const loader = CODE_LOADERS[key]!;
  const own = module !== undefined && key === module[0] ? module : words;
  // Options may come before the subcommand (`npm --prefix d test`, `cargo +nightly build`): any operand may be it.
  if (loader.subcommands !== undefined && !own.slice(1).some((word) => loader.subcommands!.has(word))) return undefined;
  if (loader.localOperand === true && !own.slice(1).some((word) => LOCAL_OPERAND.test(word) || /^(?:-e|--editable)(?:=|$)/.test(word))) return undefined;
  if (loader.interpreter === true && own.length > 1 && own.slice(1).every((word) => /^(?:-V|-VV|--version|-h|--help)$/.test(word))) return undefined;
  const second = words[1];
  const program = module !== undefined && key === module[0] ? `${name} -m ${key}` : second !== undefined && !second.startsWith("-") && (loader.subcommands !== undefined || name === "git") ? `${name} ${second}` : name;
  return { loader, program };
}

/** The file written through an output operand (OUTPUT_OPERANDS), or undefined. */
function outputOperand(name: string, words: readonly string[]): string | undefined {
  const row = OUTPUT_OPERANDS[name];
  if (row === undefined) return undefined;
  const operands: string[] = [];
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    if (word === "--") {
      operands.push(...words.slice(i + 1));
      break;
    }
    if (word.startsWith("-") && word !== "-") i += row.valued.test(word) ? 1 : 0;
    else operands.push(word);
  }
  const file = operands[row.at];
  return file === undefined || file === "-" || file === "/dev/stdout" ? undefined : file;
}

/** Ex commands that run a shell command (`!CMD`, `r !CMD`, `w !CMD`, `silent !CMD`), and those that run code of vim's languages. */
const EX_ESCAPES = /(?:^|\n)[:\s]*(?:sil(?:ent)?!?\s*)?(?:[\d,.$%]*\s*(?:r(?:ead)?|w(?:rite)?)?\s*)?!([^\n]*)/g;
const EX_CODE = /(?:^|\n)[:\s]*(?:py3?|python3?|pyx|lua|perl|ruby|rub|tcl|call|exe(?:cute)?|so(?:urce)?|terminal|term)\b/;

/**
 * Programs that read commands from their standard input, in which a line can run a shell command:
 * ed's and ex's `!CMD`, ftp's and sftp's `!CMD`, the database clients' `\! CMD`/`.shell CMD`, gdb's
 * `shell CMD`, dc's `!CMD`, m4's `syscmd(CMD)`, pic's and groff's (in unsafe mode) `sh`/`.sy`, a
 * crontab's lines, vim in Ex mode (`-e`, `-es`). `onlyWith`: only with an argument that matches (pic -U, vim -e). `escapes`: the command lines in the text; `code`: text that is code of the
 * program's own language which may start processes (the guard tries its literals, else cannot tell).
 */
const STDIN_COMMANDS: Readonly<Record<string, { readonly escapes: RegExp; readonly code?: RegExp; readonly onlyWith?: RegExp }>> = {
  ed: { escapes: /(?:^|\n)[\d,.$;'a-z+-]*\s*[rweE]?\s*!([^\n]*)/g },
  red: { escapes: /(?!)/g },
  ex: { escapes: EX_ESCAPES, code: EX_CODE },
  ...Object.fromEntries(["vim", "vi", "nvim", "view", "rvim", "rview", "gvim", "vimdiff"].map((name) => [name, { escapes: EX_ESCAPES, code: EX_CODE, onlyWith: /^-[A-Za-z]*[eE]/ }])),
  ftp: { escapes: /(?:^|\n)\s*!([^\n]*)/g },
  sftp: { escapes: /(?:^|\n)\s*!([^\n]*)/g },
  lftp: { escapes: /(?:^|\n)\s*!([^\n]*)/g },
  smbclient: { escapes: /(?:^|\n)\s*!([^\n]*)/g },
  debugfs: { escapes: /(?:^|\n)\s*!([^\n]*)/g },
  tdbtool: { escapes: /(?:^|\n)\s*!([^\n]*)/g },
  cpan: { escapes: /(?!)/g, code: /(?:^|\n)\s*!/ },
  gdb: { escapes: /(?:^|\n)\s*(?:!|she(?:ll?)?\s)\s*([^\n]*)/g, code: /(?:^|\n)\s*(?:pi|py|python|python-interactive|guile|gu|source|define|eval)\b/ },
  mysql: { escapes: CLIENT_SHELL_ESCAPE },
  mariadb: { escapes: CLIENT_SHELL_ESCAPE },
  psql: { escapes: CLIENT_SHELL_ESCAPE },
  sqlite3: { escapes: CLIENT_SHELL_ESCAPE, code: /(?:^|\n)\s*\.(?:output|once|read|import|load|open)\b/ },
  dc: { escapes: DC_SHELL_ESCAPE },
  m4: { escapes: /\b(?:e?syscmd)\s*\(([^()]*)\)/g },
  pic: { escapes: /(?:^|[\n;])\s*sh\s+(\S)(.*?)\1/gs, onlyWith: /^-[A-Za-z]*U/ },
  groff: { escapes: /(?:^|\n)[.'](?:sy|pso|pi)\s+([^\n]*)/g, onlyWith: /^-[A-Za-z]*U/ },
  troff: { escapes: /(?:^|\n)[.'](?:sy|pso|pi)\s+([^\n]*)/g, onlyWith: /^-[A-Za-z]*U/ },
  nroff: { escapes: /(?:^|\n)[.'](?:sy|pso|pi)\s+([^\n]*)/g, onlyWith: /^-[A-Za-z]*U/ },
  crontab: { escapes: /(?:^|\n)[ \t]*(?:@\w+|(?:[^\s#=]+[ \t]+){5})([^\n]*)/g, code: /(?:^|\n)\s*(?:SHELL|BASH_ENV|ENV|PATH)\s*=/ },
};

/**
 * What a program of STDIN_COMMANDS runs from `words` and the text on its standard input
 * (`text` undefined: fed from a pipe or file whose text is only known when it runs). Undefined when
 * the program reads no commands from its standard input in this form.
 */
export function stdinCommands(words: readonly string[], text: string | undefined, what: string): { refusal: Refusal; scripts: string[]; guesses: string[]; unknown: string | undefined } | undefined {
  const name = basename(words[0] ?? "");
  const row = Object.hasOwn(STDIN_COMMANDS, name) ? STDIN_COMMANDS[name]! : undefined;
  if (row === undefined) return undefined;
  const args = words.slice(1);
  // Forms that take their commands from elsewhere, or none: gdb/mysql/psql/sqlite3 with a command option, ed and ex read a file's text only when told.
  if (name === "sftp" && !args.some((word, i) => (word === "-b" && args[i + 1] === "-") || word === "-b-")) return undefined;
  if (name === "crontab" && !(args.includes("-") || args.filter((word) => !word.startsWith("-")).length === 0) || (name === "crontab" && args.some((word) => /^-[lrei]/.test(word)))) return undefined;
  if (row.onlyWith !== undefined && !args.some((word) => row.onlyWith!.test(word))) return undefined;
  const refusal: Refusal = { reason: `${name} runs the commands it reads from ${what} (a line may run a shell command)`, token: "" };
  if (text === undefined) return { refusal, scripts: [], guesses: [], unknown: `${name} reads commands from ${what}, which the guard cannot read` };
  const scripts = [...text.matchAll(row.escapes)].map((match) => (name === "pic" ? (match[2] ?? "") : (match[1] ?? "")));
  const code = row.code !== undefined && row.code.test(text);
  // Text with no shell escape and no code (`echo 'select 1' | sqlite3 db`) runs nothing here.
  if (scripts.length === 0 && !code && name !== "crontab") return undefined;
  return { refusal, scripts, guesses: code ? codeGuesses(text) : [], unknown: code ? `${name} runs code from ${what} that the guard cannot read` : undefined };
}

/** The reading of a program that is no wrapper and no subcommand that runs a command. */
function readOther(name: string, words: readonly string[]): ProgramReading {
  if (TEX_ENGINES.has(name)) return readTex(name, words);
  const written = outputOperand(name, words);
  if (written !== undefined) {
    const out = readOptionEffects(name, words) ?? empty();
    out.refusals.push({ reason: `${name} writes the file given as its output operand (${written})`, token: written });
    out.writes = [...(out.writes ?? []), written];
    return out;
  }
  switch (name) {
    case "print": {
      // zsh's print: -z pushes its words onto the line editor's buffer stack (run at the next prompt), -s adds them to the history (fc runs them again).
      const out = empty();
      let i = 1;
      let pushed: string | undefined;
      for (; i < words.length; i++) {
        const word = words[i]!;
        if (word === "--" || word === "-") {
          i += 1;
          break;
        }
        if (!/^-[A-Za-z]+$/.test(word)) break;
        pushed ??= /[zsS]/.exec(word)?.[0];
        // -f FORMAT, -C COLUMNS, -u FD, -v NAME, -x/-X TABSTOP take the next word when last in the cluster.
        if (/[fCuvxX]$/.test(word)) i += 1;
      }
      if (pushed !== undefined) {
        out.refusals.push({ reason: `print -${pushed} puts a command line where the shell runs it later (the editor's buffer, the history)`, token: `-${pushed}` });
        out.scripts.push(words.slice(i).join(" "));
      }
      return out;
    }
    case "corepack": {
      // corepack PM[@VERSION] ARGS runs that package manager (npm, pnpm, yarn and their npx, pnpx, yarnpkg) with ARGS.
      const out = empty();
      const manager = /^(npm|npx|pnpm|pnpx|yarn|yarnpkg)(?:@\S*)?$/.exec(words[1] ?? "");
      if (manager !== null) {
        out.refusals.push({ reason: `corepack runs ${manager[1]!}`, token: words[1]! });
        out.commands.push([manager[1]!, ...words.slice(2)]);
      }
      return out;
    }
    case "run-parts": {
      const out = empty();
      if (words.some((word) => /^--(?:test|list|help|version)$/.test(word))) return out;
      out.refusals.push({ reason: "run-parts runs every program in the directory it is given", token: "run-parts" });
      out.unknown = "run-parts runs the programs in a directory, which the guard cannot list";
      return out;
    }
    case "service": {
      // service NAME ...: runs /etc/init.d/NAME (or a systemd unit); a NAME with a slash climbs out to any program.
      const out = empty();
      const unit = words.slice(1).find((word) => !word.startsWith("-"));
      if (unit !== undefined && unit.includes("/")) {
        out.refusals.push({ reason: `service runs the init script ${unit}, a path that leaves /etc/init.d`, token: unit });
        out.unknown = `service runs ${unit} as an init script, a program the guard cannot tell`;
      }
      return out;
    }
    case "crontab": {
      // crontab FILE installs the file's lines, which cron runs later (crontab - and a pipe: stdinCommands).
      const out = empty();
      const operands = words.slice(1).filter((word) => !word.startsWith("-"));
      const file = operands.find((word, i) => i === operands.length - 1 && !/^-[ur]$/.test(words[words.indexOf(word) - 1] ?? ""));
      if (file !== undefined && !words.slice(1).some((word) => /^-[lri]/.test(word))) {
        out.refusals.push({ reason: `crontab installs the file ${file}, whose lines cron runs as commands`, token: file });
        out.unknown = `crontab installs the commands in ${file}, which the guard does not read`;
      }
      return out;
    }
    case "pic":
    case "groff":
    case "troff":
    case "nroff": {
      // In unsafe mode (-U) a document's sh/.sy/.pso lines run commands; a file's document is not read here.
      const out = empty();
      if (words.slice(1).some((word) => /^-[A-Za-z]*U/.test(word)) && words.slice(1).some((word) => !word.startsWith("-"))) {
        out.refusals.push({ reason: `${name} -U runs the shell commands in the document`, token: "-U" });
        out.unknown = `${name} -U runs the shell commands of a document the guard does not read`;
      }
      return out;
    }
    default:
      break;
  }
  const fetcher = Object.hasOwn(FETCHER_NAMES, name) ? FETCHERS[FETCHER_NAMES[name]!] : undefined;
  if (fetcher !== undefined) {
    const read = readFetcher(fetcher, name, words);
    const out = readOptionEffects(name, read.canonical) ?? empty();
    out.connects = read.connects;
    if (read.connects.carried !== undefined) out.maybe = [...(out.maybe ?? []), ...read.connects.carried];
    out.refusals.push(...read.refusals);
    out.commands.push(...read.commands);
    if (read.writes.length > 0) out.writes = [...(out.writes ?? []), ...read.writes];
    out.unknown ??= read.connects.unknown;
    return out;
  }
  switch (name) {
    case "find":
      return readFind(words);
    case "fd":
    case "fdfind":
      return readFd(words);
    case "git":
      return readGit(words);
    case "npm":
    case "npx":
    case "pnpm":
    case "pnpx":
    case "yarn":
    case "bunx": {
      // Package runners also take configuration flags that run programs (`npm run test --script-shell=CMD`).
      const out = readPackageRunner(name, words);
      const effects = readOptionEffects(name, words);
      if (effects !== undefined) merge(out, effects);
      return out;
    }
    case "go":
    case "aws": {
      const out = readOptionEffects(name, words) ?? empty();
      readSettingWrites(name, words, out);
      return out;
    }
    case "tar":
    case "bsdtar":
    case "gtar":
      return readTar(words);
    case "rsync":
      return readRsync(words);
    case "ssh":
    case "scp":
    case "sftp":
      return readSsh(name, words);
    case "awk":
    case "gawk":
    case "mawk":
    case "nawk": {
      const out = readAwk(name, words);
      const effects = readOptionEffects(name, words);
      if (effects !== undefined) merge(out, effects);
      // gawk's @load and @include bring in a shared library or a source file the guard cannot read.
      if (words.slice(1).some((word) => /@(?:load|include|namespace)\b/.test(word))) out.refusals.push({ reason: `${name} loads a library or a source file named in the program (@load, @include)`, token: "@load" });
      // `-v cmd='rm x' 'BEGIN{system(cmd)}'`: the values of -v assignments are what system() may run.
      if (out.guesses.length > 0 || out.refusals.some((refusal) => refusal.token === "system")) {
        words.forEach((word, i) => {
          const assignment = word === "-v" ? words[i + 1] : /^-v./.test(word) ? word.slice(2) : undefined;
          if (assignment !== undefined && assignment.includes("=")) out.guesses.push(assignment.slice(assignment.indexOf("=") + 1));
        });
      }
      return out;
    }
    case "sed":
    case "gsed":
      return readSed(words);
    case "rename":
    case "file-rename":
    case "prename":
    case "perl-rename":
      return readRename(name, words);
    case "socat":
      return readSocat(words);
    case "gh":
      return readGh(words);
    case "sqlite3":
    case "duckdb": {
      const out = readOptionEffects(name, words) ?? empty();
      readSqlShellOperands(name, words, out);
      return out;
    }
    default:
      break;
  }
  // An interpreter's options end at its script (`node cli.js -r x`): the words after it are the script's.
  const own = ownWords(name, words);
  const effects = readOptionEffects(name, own);
  const other = readBuiltinOrInterpreter(name, own);
  // An interpreter's code options and its options that load modules (`node -r MODULE -e CODE`).
  if (other !== undefined && effects !== undefined) merge(other, effects);
  if (other !== undefined) return other;
  if (effects !== undefined) return effects;
  if (SUBSCRIPT_BUILTINS.has(name)) {
    const subs = subscripts(name, words);
    const out = empty();
    if (subs.length > 0) {
      out.refusals.push({ reason: `${name} evaluates an array subscript (bash runs command substitutions in it)`, token: name });
      out.scripts.push(...subs.map((sub) => `: ${sub}`));
    }
    if (name === "printf" && words.some((word, i) => i > 0 && /^-v/.test(word))) out.refusals.push({ reason: "printf -v assigns a variable", token: "-v" });
    return out;
  }
  return { ...empty(), plainWords: true };
}

/**
 * Programs that give a file another name (GNU coreutils 9.1): ln and link make links, cp and install make copies (cp
 * links, with `-s`/`-l`), mv moves. How each reads its options and operands, as data: which options switch what it makes, which
 * name the directory the links go into. GNU getopt reads options among the operands too (`ln SRC DEST -s`), up to `--`.
 */
interface NamingProgram {
  readonly options: OptionTable;
  /** What each source becomes without a switching option: a copy (which reads through a link), a move, a hard link. */
  readonly makes: "copy" | "move" | "hard";
  /** Options that make a symbolic link instead (`ln -s`, `cp -s`). */
  readonly symbolic?: readonly string[];
  /** Options that make a hard link instead (`cp -l`). */
  readonly hard?: readonly string[];
  /** Options whose symbolic link's target is read from the working directory, not the link's (`ln -r`). */
  readonly relative?: readonly string[];
  /** Options whose value is the directory the names go into (`-t DIR`, `--target-directory=DIR`). */
  readonly into?: readonly string[];
  /** Options that read the last operand as the name itself, never a directory to go into (`-T`). */
  readonly notInto?: readonly string[];
  /** Options that keep each source's path under the directory (`cp --parents a/b DIR` makes DIR/a/b). */
  readonly parents?: readonly string[];
  /** Exactly two operands, the second the name (`link FILE1 FILE2`). */
  readonly pair?: boolean;
  /** Options under which it gives no file another name (`install -d` makes directories). */
  readonly none?: readonly string[];
}

const NAMING_PROGRAMS: Readonly<Record<string, NamingProgram>> = {
  ln: {
    options: {
      flags: "bdfFinLPrsTv",
      valued: "St",
      long: ["--directory", "--force", "--interactive", "--logical", "--no-dereference", "--no-target-directory", "--physical", "--relative", "--symbolic", "--verbose", "--help", "--version"],
      longValued: ["--suffix", "--target-directory"],
      longOptional: ["--backup"],
    },
    makes: "hard",
    symbolic: ["-s", "--symbolic"],
    relative: ["-r", "--relative"],
    into: ["-t", "--target-directory"],
    notInto: ["-T", "--no-target-directory"],
  },
  cp: {
    options: {
      flags: "abdfHilLnPpRrsTuvxZ",
      valued: "St",
      long: [
        "--archive", "--attributes-only", "--copy-contents", "--debug", "--force", "--interactive", "--link", "--dereference", "--no-clobber", "--no-dereference",
        "--parents", "--recursive", "--remove-destination", "--strip-trailing-slashes", "--symbolic-link", "--no-target-directory", "--update", "--verbose",
        "--keep-directory-symlink", "--one-file-system", "--help", "--version",
      ],
      longValued: ["--no-preserve", "--sparse", "--suffix", "--target-directory"],
      longOptional: ["--backup", "--preserve", "--reflink", "--context"],
    },
    makes: "copy",
    symbolic: ["-s", "--symbolic-link"],
    hard: ["-l", "--link"],
    into: ["-t", "--target-directory"],
    notInto: ["-T", "--no-target-directory"],
    parents: ["--parents"],
  },
  mv: {
    options: {
      flags: "bfinTuvZ",
      valued: "St",
      long: ["--debug", "--force", "--interactive", "--no-clobber", "--strip-trailing-slashes", "--no-target-directory", "--update", "--verbose", "--help", "--version"],
      longValued: ["--suffix", "--target-directory"],
      longOptional: ["--backup", "--context"],
    },
    makes: "move",
    into: ["-t", "--target-directory"],
    notInto: ["-T", "--no-target-directory"],
  },
  link: { options: { long: ["--help", "--version"] }, makes: "hard", pair: true },
  install: {
    options: {
      flags: "bcCdDpsTvZ",
      valued: "gmoSt",
      long: ["--compare", "--directory", "--preserve-timestamps", "--strip", "--no-target-directory", "--verbose", "--preserve-context", "--debug", "--help", "--version"],
      longValued: ["--group", "--mode", "--owner", "--strip-program", "--suffix", "--target-directory"],
      longOptional: ["--backup", "--context"],
    },
    makes: "copy",
    into: ["-t", "--target-directory"],
    notInto: ["-T", "--no-target-directory"],
    none: ["-d", "--directory"],
  },
};

/** A command that gives files other names (ln, link, cp, install, mv), as its program reads its words. */
interface Naming {
  /** What each name is: a symbolic link (`relative`: its target read from the working directory, `ln -r`), a hard link, a copy, or a move. */
  readonly makes: "symlink" | "hard" | "copy" | "move";
  readonly relative: boolean;
  /** Each source, as written, and the names it may get, as written (the last operand itself, or inside it when it is a directory). */
  readonly made: readonly { readonly source: string; readonly names: readonly string[] }[];
  /** Why the names cannot be told (an option the guard does not know): any word may be one. */
  readonly unknown?: string;
}

/** The last name in a path as written (`/etc/` is etc), the name ln and cp give a source in a directory. */
const lastName = (word: string) => word.replace(/\/+$/, "").split("/").at(-1) || word;

/**
 * GNU programs Homebrew installs on macOS with a `g` before their name, beside the system's own (its coreutils formula:
 * "Commands also provided by macOS … have been installed with the prefix g"; findutils and grep likewise, `gmake` for
 * make): `grm` is rm, `gshred` is shred, `gxargs` is xargs. (sed, tar and awk have their own rows: gsed, gtar, gawk.)
 */
const GNU_PREFIXED = new Set([
  "rm", "rmdir", "unlink", "shred", "truncate", "mv", "cp", "ln", "link", "install", "dd", "tee", "touch", "mkdir", "mktemp", "chmod", "chown", "chgrp",
  "cat", "tac", "head", "tail", "nl", "od", "base64", "base32", "basenc", "split", "csplit", "sort", "uniq", "cut", "paste", "join", "wc", "comm", "fold", "fmt", "pr", "expand", "unexpand", "shuf", "tr",
  "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum", "sum",
  "ls", "dir", "vdir", "du", "df", "realpath", "readlink", "basename", "dirname", "echo", "printf", "test", "[", "env", "nice", "nohup", "timeout", "stdbuf", "chroot", "kill", "sleep", "date", "seq", "yes",
  "find", "xargs", "locate", "updatedb", "grep", "egrep", "fgrep", "make", "indent", "units",
]);

/** The program a name stands for when it is another name of it (`grm` is rm: GNU_PREFIXED), else undefined. */
export function otherProgramName(name: string): string | undefined {
  return name.length > 1 && name.startsWith("g") && GNU_PREFIXED.has(name.slice(1)) ? name.slice(1) : undefined;
}

/** Option tables of programs read for their words' effect alone (same-effect.ts), besides FILE_PROGRAMS and NAMING_PROGRAMS. */
/** fallocate(1) (util-linux): `-p`/`--punch-hole`, `-z`/`--zero-range` and `-c`/`--collapse-range` destroy what the range held. */
const FALLOCATE_OPTIONS: OptionTable = {
  flags: "cdinpvxzhV",
  valued: "lo",
  long: ["--collapse-range", "--dig-holes", "--insert-range", "--keep-size", "--punch-hole", "--posix", "--zero-range", "--verbose", "--help", "--version"],
  longValued: ["--length", "--offset"],
};
const EFFECT_TABLES: Readonly<Record<string, OptionTable>> = { rsync: RSYNC_OPTIONS, git: GIT_GLOBAL, "git clean": GIT_CLEAN, fallocate: FALLOCATE_OPTIONS };

/**
 * A program's arguments (`args`, after its name; a git subcommand's as `git clean`) read with its option table, as getopt
 * and git's parse-options read them: the options by their full names with their values, and the operands, options being
 * read among the operands up to `--` (or, `inOrder`, up to the first operand). `unknown`: an option the table does not
 * know, after which the words are not read (operands then empty). A program with no table reads every word starting
 * with a dash as an option without a value.
 */
export function readArguments(program: string, args: readonly string[], inOrder = false): { readonly options: readonly { readonly name: string; readonly value: string | undefined }[]; readonly operands: readonly string[]; readonly unknown?: string } {
  const table = Object.hasOwn(EFFECT_TABLES, program) ? EFFECT_TABLES[program] : Object.hasOwn(NAMING_PROGRAMS, program) ? NAMING_PROGRAMS[program]!.options : Object.hasOwn(FILE_PROGRAMS, program) ? FILE_PROGRAMS[program]!.options : undefined;
  const words = [program, ...args];
  const options: { name: string; value: string | undefined }[] = [];
  const operands: string[] = [];
  for (let i = 1; i < words.length; ) {
    if (table === undefined) {
      const word = words[i]!;
      if (word === "--") {
        operands.push(...words.slice(i + 1));
        break;
      }
      if (word.startsWith("-") && word !== "-") options.push({ name: word, value: undefined });
      else operands.push(word);
      i += 1;
      continue;
    }
    const parsed = parseOptions(words, i, table, program);
    options.push(...parsed.seen);
    if (parsed.unknown !== undefined) return { options, operands: [], unknown: parsed.unknown };
    if (parsed.dashdash === true || (inOrder && parsed.next < words.length)) {
      operands.push(...words.slice(parsed.next));
      break;
    }
    if (parsed.next >= words.length) break;
    operands.push(words[parsed.next]!);
    i = parsed.next + 1;
  }
  return { options, operands };
}

/**
 * How ln, link, cp, install or mv reads `words` (the program first): the names it gives its sources. Undefined for another
 * program. `ln -s SRC` names ./SRC's last name; `-t DIR` puts every source in DIR; a last operand that may be a directory
 * gives both readings (the name itself and the source's last name inside it), unless `-T` or a trailing `/` says which.
 */
export function readNaming(words: readonly string[]): Naming | undefined {
  const program = basename(words[0] ?? "");
  const spec = Object.hasOwn(NAMING_PROGRAMS, program) ? NAMING_PROGRAMS[program] : undefined;
  if (spec === undefined) return undefined;
  const seen: { name: string; value: string | undefined }[] = [];
  const operands: string[] = [];
  let unknown: string | undefined;
  for (let i = 1; i < words.length; ) {
    const parsed = parseOptions(words, i, spec.options, program);
    seen.push(...parsed.seen);
    if (parsed.unknown !== undefined) {
      unknown = parsed.unknown;
      break;
    }
    if (parsed.dashdash === true) {
      operands.push(...words.slice(parsed.next));
      break;
    }
    if (parsed.next >= words.length) break;
    operands.push(words[parsed.next]!);
    i = parsed.next + 1;
  }
  const has = (names: readonly string[] | undefined) => seen.some((option) => names?.includes(option.name) === true);
  const makes = has(spec.symbolic) ? "symlink" : has(spec.hard) ? "hard" : spec.makes;
  const relative = makes === "symlink" && has(spec.relative);
  if (unknown !== undefined) return { makes, relative, made: [], unknown };
  if (has(spec.none)) return { makes, relative, made: [] };
  const into = seen.filter((option) => spec.into?.includes(option.name) === true).at(-1)?.value;
  const inside = (directory: string, source: string) => `${directory.replace(/\/+$/, "")}/${has(spec.parents) ? source.replace(/^\/+/, "") : lastName(source)}`;
  if (into !== undefined) return { makes, relative, made: operands.map((source) => ({ source, names: [inside(into, source)] })) };
  if (operands.length === 1 && program === "ln") return { makes, relative, made: [{ source: operands[0]!, names: [lastName(operands[0]!)] }] };
  if (operands.length < 2) return { makes, relative, made: [] };
  const last = operands.at(-1)!;
  const sources = operands.slice(0, -1);
  if (spec.pair === true || has(spec.notInto)) return { makes, relative, made: [{ source: sources[0]!, names: [last] }] };
  if (sources.length > 1 || last.endsWith("/") || has(spec.parents)) return { makes, relative, made: sources.map((source) => ({ source, names: [inside(last, source)] })) };
  return { makes, relative, made: [{ source: sources[0]!, names: [last, inside(last, sources[0]!)] }] };
}

/**
 * What a program does with a file one of its words names (readFileUses): `read` opens and reads it; `write` creates,
 * writes, truncates or removes it; `read-write` both (`sed -i`, a file `mv` moves away, `gzip` compressing in place);
 * `walk` reads every file under it (`grep -r`, `cp -r`, `tar -c`), `walk-visible` every file under it but those whose
 * name below it starts with a dot (`ag`, `rg`, `fd` by default), `walk-write` may write or remove anything under it
 * (`rm -r`, `find -delete`, `tar -x` into it); `name` names it and never opens it (`ls`, `stat`, `echo`, `test -e`,
 * `mkdir`); `text` is no file (a pattern, a mode); `code` is program text, whose file names may be opened
 * (`awk '{…}'`, `python3 -c CODE`); `list` is a file read whose lines name more files read, only known when it runs
 * (`sha256sum -c SUMS`, `wc --files0-from=F`; the word `.` when the list is the input); `unknown`: the guard cannot tell.
 */
export type FileUse = "read" | "write" | "read-write" | "walk" | "walk-visible" | "walk-write" | "name" | "text" | "code" | "list" | "unknown";

/**
 * How one program reads the words that may name files: its options (an option it does not know leaves the words after
 * it `unknown`), the operands first taken by position (`lead`: grep's pattern, awk's program), the others (`operands`),
 * the last when it differs (`last`: cp's and mv's destination), option values that name files (`values`, by the
 * option's name; any other value is `unknown`), options that change the operands' use (`switches`: `sed -i`, `grep -r`,
 * `cp -r`), and what it does with the working directory when given no operand (`none`: `grep -r KEY` walks `.`).
 */
interface FileProgram {
  readonly options?: OptionTable;
  readonly lead?: readonly FileUse[];
  readonly operands: FileUse;
  readonly last?: FileUse;
  readonly values?: Readonly<Record<string, FileUse>>;
  readonly switches?: readonly { readonly when: readonly string[]; readonly operands?: FileUse; readonly last?: FileUse; readonly lead?: readonly FileUse[]; readonly none?: FileUse }[];
  /**
   * Options whose value is a glob of names a `walk-visible` walk searches even when hidden (ripgrep's `-g GLOB`: `rg -g '*'`
   * reads `.env`); a value starting with `!` excludes names instead and admits none.
   */
  readonly admits?: readonly string[];
  /**
   * Options that narrow which files a walk searches: `only`, a glob a file's name must match to be searched (grep's
   * `--include`, ripgrep's `-g GLOB`; several: any of them); `types`, a type whose globs a file's name must match
   * (ripgrep's `-t TYPE`, RG_TYPES); `skipDirs`, a glob of the directories it never enters (grep's `--exclude-dir`,
   * ripgrep's `-g '!GLOB'`, which `negated` names); `unreadable`, options after which what the filters admit is not
   * known (ripgrep's `--type-add`, which may give a type other globs).
   */
  readonly filters?: { readonly only?: readonly string[]; readonly types?: readonly string[]; readonly skipDirs?: readonly string[]; readonly negated?: readonly string[]; readonly unreadable?: readonly string[] };
  readonly none?: FileUse;
  /** `NAME=value` operands whose value names a file (`dd if=F of=G`), by NAME; other such operands are `unknown`. */
  readonly keyed?: Readonly<Record<string, FileUse>>;
  /** A first word without a dash is a cluster of options (`tar czf x.tgz .`). */
  readonly bundle?: boolean;
  /** Options end at the first operand (the script of an interpreter or a shell; the words after it are the script's). */
  readonly inOrder?: boolean;
  /** `NAME=value` operands are assignments, no file (awk). */
  readonly assignments?: boolean;
  /**
   * Options whose value is a directory the program changes to before it reads the operands after them (tar's `-C DIR`,
   * each relative to the one before); with one of `all`, every operand is read in the last one (tar's extraction).
   */
  readonly chdir?: { readonly options: readonly string[]; readonly all: readonly string[] };
  /**
   * Options read wherever they stand, for a program the table does not parse (`du --files0-from=F`, `find -files0-from F`):
   * the value (after `=`, or the next word) is used so.
   */
  readonly scan?: Readonly<Record<string, FileUse>>;
}

const COMMON_LONG = ["--help", "--version"];
/** The readers of coreutils and their kin whose options are flags only (a letter the table does not list leaves the words after it unknown). */
const flagsOnly = (flags: string, long: readonly string[] = [], longValued: readonly string[] = []): OptionTable => ({ flags, long: [...long, ...COMMON_LONG], longValued });
const READS: FileProgram = { operands: "read" };
/**
 * The checksum programs: with -c (--check) an operand, or the input when none, is a list whose lines name the files
 * read, only known when they run.
 */
const CHECKSUM: FileProgram = {
  options: { flags: "bctwz", anyLongEq: true },
  operands: "read",
  switches: [{ when: ["-c", "--check"], operands: "list", none: "list" }],
};
const GREP: FileProgram = {
  options: {
    flags: "EFGPiyvwxcLloqsbHhnTZzUuaIrR",
    valued: "efmABCdD",
    numeric: true,
    long: ["--extended-regexp", "--fixed-strings", "--basic-regexp", "--perl-regexp", "--ignore-case", "--no-ignore-case", "--invert-match", "--word-regexp", "--line-regexp", "--count", "--files-with-matches", "--files-without-match", "--only-matching", "--quiet", "--silent", "--no-messages", "--byte-offset", "--with-filename", "--no-filename", "--line-number", "--initial-tab", "--null", "--null-data", "--binary", "--text", "--recursive", "--dereference-recursive", "--line-buffered", "--help", "--version"],
    longValued: ["--regexp", "--file", "--max-count", "--after-context", "--before-context", "--context", "--directories", "--devices", "--label", "--binary-files", "--include", "--exclude", "--exclude-from", "--exclude-dir"],
    longOptional: ["--color", "--colour"],
  },
  lead: ["text"],
  operands: "read",
  values: { "-f": "read", "--file": "read", "--exclude-from": "read", "-e": "text", "--regexp": "text", "--include": "text", "--exclude": "text", "--exclude-dir": "text", "-m": "text", "--max-count": "text", "-A": "text", "-B": "text", "-C": "text", "--after-context": "text", "--before-context": "text", "--context": "text", "-d": "text", "--directories": "text", "-D": "text", "--devices": "text", "--label": "text", "--binary-files": "text", "-n": "text", "--color": "text", "--colour": "text" },
  switches: [
    { when: ["-e", "--regexp", "-f", "--file"], lead: [] },
    { when: ["-r", "-R", "--recursive", "--dereference-recursive"], operands: "walk", none: "walk" },
  ],
  // GNU grep has no negated --include: `--include='!*.ts'` is a glob of names starting with `!`.
  filters: { only: ["--include"], skipDirs: ["--exclude-dir"] },
};
/** ripgrep and the silver searcher: a directory is searched without its hidden files unless told (`--hidden`, `-uu`); a file named is read. */
const SEARCHER: FileProgram = {
  options: {
    // (`-C NUM` is ripgrep's --context: its number attached (`-C2`, `-nC2`) or the next word, never a flag.)
    flags: "iIsSwxvclLnNoqHuUaFPzZ0.",
    valued: "efgtTmABCjMrE",
    numeric: true,
    anyLongEq: true,
    long: ["--hidden", "--unrestricted", "--no-ignore", "--ignore-case", "--case-sensitive", "--smart-case", "--word-regexp", "--line-regexp", "--invert-match", "--count", "--files-with-matches", "--files-without-match", "--files", "--line-number", "--no-line-number", "--only-matching", "--quiet", "--with-filename", "--no-filename", "--fixed-strings", "--literal", "--follow", "--search-zip", "--text", "--all-types", "--all-text", "--vimgrep", "--json", "--no-heading", "--heading", "--multiline", "--pcre2", "--help", "--version", "--stats", "--null", "--no-messages", "--sort-files"],
    longValued: ["--regexp", "--file", "--glob", "--iglob", "--type", "--type-not", "--max-count", "--after-context", "--before-context", "--context", "--threads", "--max-columns", "--replace", "--encoding", "--max-depth", "--depth", "--ignore", "--ignore-dir", "--file-search-regex", "--sort", "--sortr", "--color", "--colors", "--path-separator", "--ignore-file", "--pre"],
  },
  lead: ["text"],
  operands: "walk-visible",
  none: "walk-visible",
  values: { "-f": "read", "--file": "read", "--ignore-file": "read", "-e": "text", "--regexp": "text", "-g": "text", "--glob": "text", "--iglob": "text", "-t": "text", "-T": "text", "--type": "text", "--type-not": "text", "-m": "text", "--max-count": "text", "-A": "text", "-B": "text", "-C": "text", "--after-context": "text", "--before-context": "text", "--context": "text", "-j": "text", "--threads": "text", "-M": "text", "--max-columns": "text", "-r": "text", "--replace": "text", "-E": "text", "--encoding": "text", "--max-depth": "text", "--depth": "text", "--ignore": "text", "--ignore-dir": "text", "-G": "text", "--file-search-regex": "text", "--sort": "text", "--sortr": "text", "--color": "text", "--colors": "text", "--path-separator": "text" },
  switches: [
    { when: ["-e", "--regexp", "-f", "--file", "--files", "-g"], lead: [] },
    // (`-u` is rg's --unrestricted: `-uu` searches hidden names too; ag's `-u` does at once.)
    { when: ["--hidden", "-.", "-u", "--unrestricted", "-a", "--all-types", "--all-text", "--pre"], operands: "walk", none: "walk" },
    // rg --files prints the names of the files it would search and reads none of them.
    { when: ["--files"], operands: "name", none: "name" },
  ],
};
/**
 * The silver searcher reads as the searcher does, except its context options (-A, -B, -C): each takes a number only when
 * it is the next word on its own (`ag -C 2 KEY`: 2 lines; `ag -C KEY`, `ag -nC 2 KEY`: none, KEY or 2 the pattern),
 * which a table of letters cannot say, so they are options the guard does not know (the line asks).
 */
const SILVER_SEARCHER: FileProgram = {
  ...SEARCHER,
  options: { ...SEARCHER.options!, valued: SEARCHER.options!.valued!.replace(/[ABC]/g, ""), longValued: SEARCHER.options!.longValued!.filter((name) => !/^--(?:after-|before-)?context$/.test(name)) },
};
/**
 * ripgrep reads as the searcher does, except that a glob it is given (`-g GLOB`, `--glob`, `--iglob`) does not take the
 * search pattern's place, and a hidden file or directory a glob matches is searched (`rg -g '*' KEY` reads `.env`,
 * `rg -g '*.md' KEY` does not).
 */
const RIPGREP: FileProgram = {
  ...SEARCHER,
  options: { ...SEARCHER.options!, longValued: [...SEARCHER.options!.longValued!, "--type-add", "--type-clear"] },
  values: { ...SEARCHER.values, "--type-add": "text", "--type-clear": "text" },
  switches: [
    { when: ["-e", "--regexp", "-f", "--file", "--files"], lead: [] },
    { when: ["--hidden", "-.", "-u", "--unrestricted", "-a", "--all-types", "--all-text", "--pre"], operands: "walk", none: "walk" },
    { when: ["--files"], operands: "name", none: "name" },
  ],
  admits: ["-g", "--glob", "--iglob"],
  filters: { only: ["-g", "--glob", "--iglob"], negated: ["-g", "--glob", "--iglob"], types: ["-t", "--type"], unreadable: ["--type-add", "--type-clear", "--pre", "--pre-glob"] },
};

/**
 * ripgrep's built-in file types (`rg --type-list`) that a `-t TYPE` filter is read with: each type's globs, as ripgrep 13
 * and later name them (a glob a later version added included: more names, never fewer). A type not listed here (`all`,
 * one `--type-add` defines) is not read: the search may then reach any file.
 */
const RG_TYPES: Readonly<Record<string, readonly string[]>> = {
  c: ["*.[chH]", "*.[chH].in", "*.cats"],
  cpp: ["*.[ChH]", "*.[ChH].in", "*.[ch]pp", "*.[ch]pp.in", "*.[ch]xx", "*.[ch]xx.in", "*.cc", "*.cc.in", "*.hh", "*.hh.in", "*.inl"],
  css: ["*.css", "*.scss", "*.sass", "*.less"],
  go: ["*.go"],
  html: ["*.ejs", "*.htm", "*.html"],
  java: ["*.java", "*.jsp", "*.jspx", "*.properties"],
  js: ["*.js", "*.jsx", "*.vue", "*.cjs", "*.mjs"],
  json: ["*.json", "composer.lock", "*.sarif"],
  markdown: ["*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mkd", "*.mkdn", "*.mdx"],
  md: ["*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mkd", "*.mkdn", "*.mdx"],
  py: ["*.py", "*.pyi"],
  python: ["*.py", "*.pyi"],
  ruby: ["*.gemspec", "*.rb", "*.rbw", ".irbrc", "Gemfile", "Rakefile", "config.ru"],
  rust: ["*.rs"],
  sh: ["*.bash", "*.bashrc", "*.csh", "*.cshrc", "*.ksh", "*.kshrc", "*.sh", "*.tcsh", "*.zsh", ".bash_login", ".bash_logout", ".bash_profile", ".bashrc", ".cshrc", ".kshrc", ".login", ".logout", ".profile", ".tcshrc", ".zlogin", ".zlogout", ".zprofile", ".zshenv", ".zshrc", "bash_login", "bash_logout", "bash_profile", "bashrc", "profile", "zlogin", "zlogout", "zprofile", "zshenv", "zshrc"],
  sql: ["*.psql", "*.sql"],
  toml: ["*.toml", "Cargo.lock"],
  ts: ["*.ts", "*.tsx", "*.cts", "*.mts"],
  typescript: ["*.ts", "*.tsx", "*.cts", "*.mts"],
  txt: ["*.txt"],
  xml: ["*.dtd", "*.rng", "*.sch", "*.xhtml", "*.xjb", "*.xml", "*.xml.dist", "*.xsd", "*.xsl", "*.xslt"],
  yaml: ["*.yaml", "*.yml"],
};
const SED: FileProgram = {
  options: {
    flags: "nrEsuzb",
    valued: "efl",
    optional: "i",
    long: ["--quiet", "--silent", "--regexp-extended", "--separate", "--unbuffered", "--null-data", "--zero-terminated", "--posix", "--sandbox", "--debug", "--follow-symlinks", "--binary", "--help", "--version"],
    longValued: ["--expression", "--file", "--line-length"],
    longOptional: ["--in-place"],
  },
  lead: ["code"],
  operands: "read",
  values: { "-e": "code", "--expression": "code", "-f": "read", "--file": "read", "-l": "text", "--line-length": "text", "-i": "text", "--in-place": "text" },
  switches: [
    { when: ["-e", "--expression", "-f", "--file"], lead: [] },
    { when: ["-i", "--in-place"], operands: "read-write" },
  ],
};
const AWK: FileProgram = {
  options: { flags: "bcCdDghlLMnNoOpPrsStV", valued: "FfviE", anyLongEq: true, long: ["--posix", "--traditional", "--sandbox", "--lint", "--characters-as-bytes", "--csv", "--help", "--version"], longValued: ["--field-separator", "--file", "--assign", "--include", "--load", "--source", "--exec"] },
  lead: ["code"],
  operands: "read",
  assignments: true,
  values: { "-f": "read", "--file": "read", "-E": "read", "--exec": "read", "-i": "read", "--include": "read", "-v": "text", "--assign": "text", "-F": "text", "--field-separator": "text", "--source": "code" },
  switches: [{ when: ["-f", "--file", "-E", "--exec"], lead: [] }],
};
const COPY: FileProgram = {
  options: NAMING_PROGRAMS.cp!.options,
  operands: "read",
  last: "write",
  values: { "-t": "write", "--target-directory": "write", "-S": "text", "--suffix": "text" },
  switches: [
    { when: ["-r", "-R", "--recursive", "-a", "--archive"], operands: "walk" },
    { when: ["-t", "--target-directory"], last: "read" },
  ],
};
const MOVE: FileProgram = {
  options: NAMING_PROGRAMS.mv!.options,
  // What mv moves away is gone from its name and readable under the new one.
  operands: "read-write",
  last: "write",
  values: { "-t": "write", "--target-directory": "write", "-S": "text", "--suffix": "text" },
  switches: [{ when: ["-t", "--target-directory"], last: "read-write" }],
};
// A link to a file reads and writes it under another name, as a move does.
const LINK: FileProgram = { ...MOVE, options: NAMING_PROGRAMS.ln!.options };
const REMOVE: FileProgram = {
  options: { flags: "fiIrRdv", long: ["--force", "--interactive", "--one-file-system", "--no-preserve-root", "--preserve-root", "--recursive", "--dir", "--verbose", ...COMMON_LONG], longOptional: ["--interactive", "--preserve-root"] },
  operands: "write",
  switches: [{ when: ["-r", "-R", "--recursive"], operands: "walk-write" }],
};
const TAR: FileProgram = {
  options: {
    flags: "AcdrtuxzjJZaBiGgHkmMnOpPSsUvWhlo",
    valued: "fCbTXIKLNVF",
    anyLongEq: true,
    long: ["--create", "--extract", "--get", "--list", "--append", "--update", "--diff", "--compare", "--delete", "--gzip", "--bzip2", "--xz", "--zstd", "--lzma", "--auto-compress", "--verbose", "--keep-old-files", "--overwrite", "--preserve-permissions", "--same-owner", "--no-same-owner", "--numeric-owner", "--dereference", "--recursion", "--no-recursion", "--absolute-names", "--null", "--totals", "--help", "--version", "--touch", "--ignore-zeros", "--wildcards", "--anchored", "--sparse", "--one-file-system"],
    longValued: ["--file", "--directory", "--files-from", "--exclude-from", "--exclude", "--transform", "--owner", "--group", "--mode", "--mtime", "--format", "--blocking-factor", "--use-compress-program", "--label", "--newer", "--after-date", "--strip-components"],
  },
  bundle: true,
  // Without -c or -x, tar lists or compares: the archive is read, the members named.
  operands: "name",
  values: { "-f": "read", "--file": "read", "-T": "read", "--files-from": "read", "-X": "read", "--exclude-from": "read", "-C": "name", "--directory": "name", "--exclude": "text", "--transform": "text", "--strip-components": "text" },
  // `tar -cf x.tar -C secrets api.key` reads secrets/api.key (the archive itself is opened where tar started).
  chdir: { options: ["-C", "--directory"], all: ["-x", "--extract", "--get"] },
  switches: [
    { when: ["-c", "--create", "-r", "--append", "-u", "--update"], operands: "walk" },
    { when: ["-x", "--extract", "--get"], none: "walk-write", operands: "write" },
  ],
};
const SHELL_SCRIPT: FileProgram = { options: { flags: "abcefhkmnptuvxBCEHPilrsO", valued: "oO", long: ["--norc", "--noprofile", "--login", "--posix", "--restricted", "--verbose", "--noediting", "--help", "--version"], longValued: ["--rcfile", "--init-file"] }, inOrder: true, lead: ["read"], operands: "unknown", values: { "--rcfile": "read", "--init-file": "read", "-o": "text", "-O": "text" }, switches: [{ when: ["-c"], lead: ["text"] }] };
const INTERPRETER: FileProgram = { options: { flags: "bBdEhiIOPqsSuvVx3", valued: "cmWX", anyLongEq: true }, inOrder: true, lead: ["read"], operands: "unknown", values: { "-c": "code", "-m": "text", "-W": "text", "-X": "text" }, switches: [{ when: ["-c", "-m"], lead: [] }] };
const SCRIPT_RUNNER: FileProgram = { options: { flags: "cwsSTtnplaU0", valued: "eEIrMd", optional: "i", anyLongEq: true }, inOrder: true, lead: ["read"], operands: "unknown", values: { "-e": "code", "-E": "code", "-r": "text", "-M": "text", "-I": "text", "-d": "text" }, switches: [{ when: ["-e", "-E"], lead: [] }] };
const NAMES: FileProgram = { operands: "name" };
const EDITOR: FileProgram = { operands: "read-write" };

/** What each program does with the files its words name (FileProgram), by program name. */
const FILE_PROGRAMS: Readonly<Record<string, FileProgram>> = {
  cat: { options: flagsOnly("AbeEnstTuv", ["--show-all", "--number-nonblank", "--show-ends", "--number", "--squeeze-blank", "--show-tabs", "--show-nonprinting"]), operands: "read" },
  tac: { options: { flags: "br", valued: "s", long: ["--before", "--regex", ...COMMON_LONG], longValued: ["--separator"] }, operands: "read", values: { "-s": "text", "--separator": "text" } },
  head: { options: { flags: "qvz", valued: "cn", numeric: true, long: ["--quiet", "--silent", "--verbose", "--zero-terminated", ...COMMON_LONG], longValued: ["--bytes", "--lines"] }, operands: "read", values: { "-c": "text", "-n": "text", "--bytes": "text", "--lines": "text" } },
  tail: { options: { flags: "fFqvzr", valued: "cnsS", numeric: true, long: ["--retry", "--quiet", "--silent", "--verbose", "--zero-terminated", ...COMMON_LONG], longValued: ["--bytes", "--lines", "--max-unchanged-stats", "--pid", "--sleep-interval"], longOptional: ["--follow"] }, operands: "read", values: { "-c": "text", "-n": "text", "-s": "text", "--bytes": "text", "--lines": "text", "--pid": "text", "--sleep-interval": "text", "--follow": "text" } },
  nl: { options: { flags: "p", valued: "bdfhilnsvw", anyLongEq: true }, operands: "read", values: Object.fromEntries([..."bdfhilnsvw"].map((l) => [`-${l}`, "text" as const])) },
  wc: { options: { flags: "cmlLw", long: ["--bytes", "--chars", "--lines", "--max-line-length", "--words", ...COMMON_LONG], longValued: ["--files0-from", "--total"] }, operands: "read", values: { "--files0-from": "list", "--total": "text" } },
  sort: { options: { flags: "bcCdfghiMmnRrsuVz", valued: "kotST", anyLongEq: true, long: ["--check", "--merge", "--unique", "--reverse", "--numeric-sort", "--human-numeric-sort", "--stable", "--zero-terminated", ...COMMON_LONG], longValued: ["--key", "--output", "--field-separator", "--buffer-size", "--temporary-directory", "--files0-from", "--parallel", "--sort", "--random-source", "--compress-program", "--batch-size"] }, operands: "read", values: { "-o": "write", "--output": "write", "--files0-from": "list", "--random-source": "read", "-k": "text", "--key": "text", "-t": "text", "--field-separator": "text", "-S": "text", "--buffer-size": "text", "-T": "name", "--temporary-directory": "name", "--parallel": "text", "--sort": "text", "--batch-size": "text" } },
  uniq: { options: { flags: "cdDiuz", valued: "fsw", numeric: true, anyLongEq: true }, lead: ["read"], operands: "write", values: { "-f": "text", "-s": "text", "-w": "text" } },
  cut: { options: { flags: "nsz", valued: "bcdf", anyLongEq: true, long: ["--complement", "--only-delimited", "--zero-terminated", ...COMMON_LONG], longValued: ["--bytes", "--characters", "--delimiter", "--fields", "--output-delimiter"] }, operands: "read", values: { "-b": "text", "-c": "text", "-d": "text", "-f": "text", "--bytes": "text", "--characters": "text", "--delimiter": "text", "--fields": "text", "--output-delimiter": "text" } },
  paste: { options: { flags: "sz", valued: "d", anyLongEq: true }, operands: "read", values: { "-d": "text" } },
  od: { options: { flags: "bcdfiloxsvBDFHIL", valued: "AjNSwt", anyLongEq: true }, operands: "read", values: Object.fromEntries([..."AjNSwt"].map((l) => [`-${l}`, "text" as const])) },
  xxd: { options: { flags: "abCEeipruv", valued: "cglnoRs", singleDash: ["-bits", "-cols", "-groupsize", "-len", "-seek", "-postscript", "-plain", "-ps", "-include", "-revert", "-uppercase", "-version", "-autoskip", "-capitalize", "-EBCDIC"], anyLongEq: true }, lead: ["read"], operands: "write", values: Object.fromEntries([..."cglnoRs"].map((l) => [`-${l}`, "text" as const])) },
  hexdump: { options: { flags: "bcCdovx", valued: "eFns", anyLongEq: true }, operands: "read", values: { "-e": "text", "-n": "text", "-s": "text", "-f": "read" } },
  strings: { options: { flags: "afdwo", valued: "nteTs", numeric: true, anyLongEq: true }, operands: "read", values: { "-n": "text", "-t": "text", "-e": "text", "-T": "text", "-s": "text" } },
  base64: { options: { flags: "di", valued: "w", anyLongEq: true }, operands: "read", values: { "-w": "text" } },
  base32: { options: { flags: "di", valued: "w", anyLongEq: true }, operands: "read", values: { "-w": "text" } },
  basenc: { options: { flags: "di", valued: "w", anyLongEq: true }, operands: "read", values: { "-w": "text" } },
  md5sum: CHECKSUM,
  sha1sum: CHECKSUM,
  sha224sum: CHECKSUM,
  sha256sum: CHECKSUM,
  sha384sum: CHECKSUM,
  sha512sum: CHECKSUM,
  b2sum: { ...CHECKSUM, options: { ...CHECKSUM.options, valued: "l" }, values: { "-l": "text" } },
  cksum: { ...CHECKSUM, options: { ...CHECKSUM.options, valued: "al" }, values: { "-a": "text", "-l": "text" } },
  sum: { options: flagsOnly("rs"), operands: "read" },
  comm: { options: { flags: "123iz", anyLongEq: true }, operands: "read" },
  join: { options: { flags: "iz", valued: "aejotv12", anyLongEq: true }, operands: "read", values: Object.fromEntries([..."aejotv12"].map((l) => [`-${l}`, "text" as const])) },
  diff: { options: { flags: "abBdEiNpqrstTuwyZ", valued: "CDFIlLSUWx", numeric: true, anyLongEq: true }, operands: "read", values: { "-C": "text", "-D": "text", "-F": "text", "-I": "text", "-L": "text", "-S": "text", "-U": "text", "-W": "text", "-x": "text", "-X": "read" }, switches: [{ when: ["-r", "--recursive"], operands: "walk" }] },
  cmp: { options: { flags: "bls", valued: "inI", anyLongEq: true }, operands: "read", values: { "-i": "text", "-n": "text", "-I": "text" } },
  fold: { options: { flags: "bs", valued: "w", numeric: true, anyLongEq: true }, operands: "read", values: { "-w": "text" } },
  fmt: { options: { flags: "cstu", valued: "pgw", numeric: true, anyLongEq: true }, operands: "read", values: { "-p": "text", "-g": "text", "-w": "text" } },
  expand: { options: { flags: "i", valued: "t", numeric: true, anyLongEq: true }, operands: "read", values: { "-t": "text" } },
  unexpand: { options: { flags: "a", valued: "t", numeric: true, anyLongEq: true }, operands: "read", values: { "-t": "text" } },
  rev: READS,
  column: { options: { flags: "etxnJLR", valued: "sOoNWHdEc", anyLongEq: true }, operands: "read", values: Object.fromEntries([..."sOoNWHdEc"].map((l) => [`-${l}`, "text" as const])) },
  pr: { options: { flags: "adFfmrtTJ", valued: "hlNowWSsnceiD", numeric: true, anyLongEq: true }, operands: "read", values: Object.fromEntries([..."hlNowWSsnceiD"].map((l) => [`-${l}`, "text" as const])) },
  shuf: { options: { flags: "erz", valued: "inoR", anyLongEq: true }, operands: "read", values: { "-i": "text", "-n": "text", "-o": "write", "--output": "write", "--random-source": "read" } },
  tsort: READS,
  file: { options: { flags: "bcdEhiIkLlNnprsSvz0", valued: "efFmP", anyLongEq: true }, operands: "read", values: { "-f": "read", "--files-from": "read", "-m": "read", "--magic-file": "read", "-e": "text", "-F": "text", "-P": "text" } },
  less: { options: { anyLongEq: true, flags: "aABcCdeEfFgGiIJKLmMnNqQrRsSuUVwWXZ~", valued: "bhjkoOpPtTxyz#", numeric: true }, operands: "read", values: { "-o": "write", "-O": "write", "-k": "read" } },
  more: { options: { flags: "dlfpcsu", valued: "n", numeric: true, anyLongEq: true }, operands: "read" },
  most: READS,
  zcat: { options: flagsOnly("fhLqrStvV"), operands: "read" },
  bzcat: { options: flagsOnly("sv"), operands: "read" },
  xzcat: { options: flagsOnly("qQvV"), operands: "read" },
  zless: READS,
  zmore: READS,
  zgrep: GREP,
  grep: GREP,
  egrep: GREP,
  fgrep: GREP,
  rg: RIPGREP,
  ag: SILVER_SEARCHER,
  sed: SED,
  gsed: SED,
  awk: AWK,
  gawk: AWK,
  mawk: AWK,
  nawk: AWK,
  jq: { options: { flags: "nrjacsSCMeh", anyLongEq: true, long: ["--null-input", "--raw-input", "--slurp", "--raw-output", "--join-output", "--ascii-output", "--compact-output", "--tab", "--sort-keys", "--color-output", "--monochrome-output", "--exit-status", "--seq", "--stream", "--help", "--version"], longValued: ["--indent", "--from-file", "--arg", "--argjson", "--slurpfile", "--rawfile", "--args", "--jsonargs"] }, lead: ["text"], operands: "read", values: { "--from-file": "read", "--indent": "text", "--arg": "text", "--argjson": "text", "--slurpfile": "text", "--rawfile": "text" }, switches: [{ when: ["--from-file"], lead: [] }] },
  yq: { options: { anyLongEq: true, flags: "CMNPijre", valued: "IpoT" }, lead: ["text"], operands: "read-write", values: { "-I": "text", "-p": "text", "-o": "text", "-T": "text" } },
  tee: { options: { flags: "aip", anyLongEq: true, long: ["--append", "--ignore-interrupts", ...COMMON_LONG], longOptional: ["--output-error"] }, operands: "write" },
  cp: COPY,
  install: { ...COPY, options: NAMING_PROGRAMS.install!.options, values: { ...COPY.values, "-m": "text", "-o": "text", "-g": "text", "--mode": "text", "--owner": "text", "--group": "text" }, switches: [...(COPY.switches ?? []), { when: ["-d", "--directory"], operands: "name", last: "name" }] },
  mv: MOVE,
  ln: LINK,
  link: LINK,
  rm: REMOVE,
  unlink: { options: { long: COMMON_LONG }, operands: "write" },
  // shred(1), truncate(1): getopt_long, so a unique abbreviation is the option (`shred --rem` is --remove).
  shred: { options: { flags: "fuvxz", valued: "ns", long: ["--force", "--verbose", "--exact", "--zero", ...COMMON_LONG], longValued: ["--iterations", "--size", "--random-source"], longOptional: ["--remove"] }, operands: "write", values: { "-n": "text", "-s": "text", "--iterations": "text", "--size": "text", "--random-source": "read", "--remove": "text" } },
  truncate: { options: { flags: "co", valued: "rs", long: ["--no-create", "--io-blocks", ...COMMON_LONG], longValued: ["--reference", "--size"] }, operands: "write", values: { "-r": "read", "--reference": "read", "-s": "text", "--size": "text" } },
  touch: { options: { flags: "acfhm", valued: "drt", anyLongEq: true }, operands: "write", values: { "-r": "name", "--reference": "name", "-d": "text", "--date": "text", "-t": "text" } },
  dd: { operands: "unknown", keyed: { if: "read", of: "write", status: "text", bs: "text", ibs: "text", obs: "text", cbs: "text", count: "text", skip: "text", seek: "text", iseek: "text", oseek: "text", conv: "text", iflag: "text", oflag: "text" } },
  tar: TAR,
  gtar: TAR,
  bsdtar: TAR,
  zip: { options: { flags: "qvrRjJyDlmTXkoAFSg0123456789@", valued: "ZbnPtixdDsOU", anyLongEq: true }, lead: ["read-write"], operands: "read", values: { "-x": "text", "-i": "text", "-b": "name", "-P": "text", "-t": "text", "-n": "text", "-Z": "text", "-O": "write", "--out": "write" }, switches: [{ when: ["-r", "-R", "--recurse-paths"], operands: "walk" }, { when: ["-m", "--move"], operands: "read-write" }, { when: ["-@"], none: "unknown" }] },
  unzip: { options: { flags: "lvtzcpfuonjCXqaLVM", valued: "dxP", anyLongEq: true }, lead: ["read"], operands: "text", none: "walk-write", values: { "-d": "walk-write", "-x": "text", "-P": "text" }, switches: [{ when: ["-l", "-v", "-t", "-z", "-c", "-p"], none: "name" }] },
  gzip: { options: { flags: "cdfhklLnNqrtv123456789", valued: "S", anyLongEq: true }, operands: "read-write", values: { "-S": "text" }, switches: [{ when: ["-c", "--stdout", "-t", "--test", "-l", "--list"], operands: "read" }, { when: ["-k", "--keep"], operands: "read" }, { when: ["-r", "--recursive"], operands: "walk-write" }] },
  gunzip: { options: { flags: "cfhklLnNqrtv", valued: "S", anyLongEq: true }, operands: "read-write", values: { "-S": "text" }, switches: [{ when: ["-c", "--stdout", "-t", "--test", "-l", "--list", "-k", "--keep"], operands: "read" }] },
  bzip2: { options: { flags: "cdzfktqvsL123456789", anyLongEq: true }, operands: "read-write", switches: [{ when: ["-c", "--stdout", "-t", "--test", "-k", "--keep"], operands: "read" }] },
  xz: { options: { flags: "zdtlkfcqvhHV0123456789e", valued: "FCTM", anyLongEq: true }, operands: "read-write", values: { "-F": "text", "-C": "text", "-T": "text", "-M": "text" }, switches: [{ when: ["-c", "--stdout", "-t", "--test", "-l", "--list", "-k", "--keep"], operands: "read" }] },
  zstd: { options: { flags: "zdDcfqvkrt0123456789", valued: "oT", anyLongEq: true }, operands: "read", values: { "-o": "write", "-T": "text", "-D": "read" }, switches: [{ when: ["--rm"], operands: "read-write" }] },
  openssl: { operands: "unknown" },
  source: { lead: ["read"], operands: "unknown" },
  ".": { lead: ["read"], operands: "unknown" },
  sh: SHELL_SCRIPT,
  bash: SHELL_SCRIPT,
  dash: SHELL_SCRIPT,
  zsh: SHELL_SCRIPT,
  ksh: SHELL_SCRIPT,
  python: INTERPRETER,
  python2: INTERPRETER,
  python3: INTERPRETER,
  pypy3: INTERPRETER,
  node: { options: { flags: "hivpc", valued: "epr", anyLongEq: true, long: ["--check", "--interactive", "--help", "--version"], longValued: ["--eval", "--print", "--require", "--import", "--loader", "--env-file"] }, inOrder: true, lead: ["read"], operands: "unknown", values: { "-e": "code", "--eval": "code", "-p": "code", "--print": "code", "-r": "text", "--require": "text", "--import": "text", "--loader": "text", "--env-file": "read" }, switches: [{ when: ["-e", "--eval", "-p", "--print"], lead: [] }] },
  perl: SCRIPT_RUNNER,
  ruby: SCRIPT_RUNNER,
  php: { options: { flags: "aChHilmqsvw", valued: "rcdfBRFEz", anyLongEq: true }, inOrder: true, lead: ["read"], operands: "unknown", values: { "-r": "code", "-B": "code", "-R": "code", "-E": "code", "-f": "read", "-c": "name", "-d": "text", "-z": "read" }, switches: [{ when: ["-r", "-f"], lead: [] }] },
  vi: EDITOR,
  vim: EDITOR,
  nvim: EDITOR,
  view: READS,
  nano: EDITOR,
  emacs: EDITOR,
  ed: EDITOR,
  // Programs that name what their words name and never open it (metadata and names only).
  ls: NAMES,
  dir: NAMES,
  vdir: NAMES,
  stat: NAMES,
  // du and find read the names of the files to visit from the file --files0-from names (and print each in their errors).
  du: { operands: "name", scan: { "--files0-from": "read", "-X": "read", "--exclude-from": "read" } },
  df: NAMES,
  tree: NAMES,
  find: { operands: "name", scan: { "-files0-from": "read" } },
  fd: NAMES,
  fdfind: NAMES,
  locate: NAMES,
  echo: NAMES,
  printf: NAMES,
  test: NAMES,
  "[": NAMES,
  "[[": NAMES,
  basename: NAMES,
  dirname: NAMES,
  realpath: NAMES,
  readlink: NAMES,
  mkdir: NAMES,
  rmdir: { options: { flags: "pv", long: ["--ignore-fail-on-non-empty", "--parents", "--verbose", ...COMMON_LONG] }, operands: "name" },
  mkfifo: NAMES,
  chmod: NAMES,
  chown: NAMES,
  chgrp: NAMES,
  cd: NAMES,
  pushd: NAMES,
  popd: NAMES,
  pwd: NAMES,
  true: NAMES,
  false: NAMES,
  ":": NAMES,
  type: NAMES,
  which: NAMES,
  whereis: NAMES,
  command: NAMES,
  export: NAMES,
  set: NAMES,
  unset: NAMES,
  local: NAMES,
  declare: NAMES,
  read: NAMES,
  exit: NAMES,
  return: NAMES,
  sleep: NAMES,
  date: NAMES,
  whoami: NAMES,
  id: NAMES,
  uname: NAMES,
  hostname: NAMES,
  env: NAMES,
  printenv: NAMES,
  tr: NAMES,
  seq: NAMES,
  yes: NAMES,
  wait: NAMES,
  kill: NAMES,
  ps: NAMES,
  clear: NAMES,
  history: NAMES,
  alias: NAMES,
  shift: NAMES,
  getopts: NAMES,
};

/** The words of one command and what its program does with the files each may name (readFileUses). */
interface FileWords {
  /** `admits`: the globs of hidden names a `walk-visible` walk searches too (FileProgram.admits); `filter`: what narrows a walk (FileProgram.filters). */
  readonly uses: readonly { readonly word: string; readonly use: FileUse; readonly admits?: readonly string[]; readonly filter?: WalkFilter }[];
  /** The program is in the table (FILE_PROGRAMS): its words were read as it reads them. */
  readonly known: boolean;
}

/**
 * What narrows the files a walk searches (FileProgram.filters): `only`, globs one of which a searched file's name matches
 * (undefined: any name); `skipDirs`, globs of the names of directories it does not enter; `unknown`: the guard cannot
 * read what the filters admit.
 */
export interface WalkFilter {
  readonly only?: readonly string[];
  readonly skipDirs?: readonly string[];
  readonly unknown?: true;
}

/** Whether a word is an option (`-n`, `--x=y`): the guard does not read an unknown program's options as files. */
const OPTION_WORD = /^--?[A-Za-z0-9]/;

/**
 * Programs that print the names of what is in the directories they are given (the same names a listing tool prints):
 * `in`, the names directly inside (`ls DIR`); `under`, every name below (`ls -R`, `find`, `tree`, `du`, `rg --files`,
 * `fd`). `visible`: names whose last part starts with a dot are skipped unless an option says otherwise. For each program:
 * the options taking a value (short letters, long names), the options that list deeper or shallower, and where it lists
 * with no operand (`.`).
 */
interface Lister {
  readonly valued: string;
  readonly longValued: readonly string[];
  /** The depth with no option: `in`, `under` or `none` (the operands' own names only). */
  readonly depth: "in" | "under";
  readonly deeper?: readonly string[];
  /** Options that list the operands' own names only (`ls -d`, `du -s`). */
  readonly itself?: readonly string[];
  /** Options whose value is a depth (`tree -L N`, `du -d N`): 0 the operands' names, 1 the names in them. */
  readonly depthOptions?: readonly string[];
  readonly hidden?: readonly string[];
  /** Operands before the directories (fd's pattern). */
  readonly lead?: number;
  /** Options that must be given for the program to list (`rg --files`). */
  readonly when?: readonly string[];
}

const FD_LISTER: Lister = { valued: "edtEcjSxXo", longValued: ["--extension", "--max-depth", "--min-depth", "--exact-depth", "--type", "--exclude", "--color", "--threads", "--size", "--changed-within", "--changed-before", "--owner", "--exec", "--exec-batch", "--base-directory", "--search-path", "--max-results", "--ignore-file", "--path-separator", "--format"], depth: "under", depthOptions: ["-d", "--max-depth"], hidden: ["-H", "--hidden", "-u", "--unrestricted"], lead: 1 };

const LS_LISTER: Lister = { valued: "ITw", longValued: ["--ignore", "--hide", "--width", "--tabsize", "--block-size", "--format", "--sort", "--time", "--time-style", "--quoting-style", "--indicator-style"], depth: "in", deeper: ["-R", "--recursive"], itself: ["-d", "--directory"], hidden: ["-a", "-A", "--all", "--almost-all"] };

const LISTERS: Readonly<Record<string, Lister>> = {
  ls: LS_LISTER,
  // GNU dir and vdir are ls with another default format: the same options.
  dir: LS_LISTER,
  vdir: LS_LISTER,
  tree: { valued: "LPIo", longValued: ["--filelimit", "--timefmt", "--charset", "-H", "-T", "--sort", "--hintro", "--houtro", "--fromfile"], depth: "under", depthOptions: ["-L"], hidden: ["-a"] },
  du: { valued: "dBtX", longValued: ["--max-depth", "--block-size", "--threshold", "--exclude", "--exclude-from", "--time-style", "--files0-from"], depth: "under", itself: ["-s", "--summarize"], depthOptions: ["-d", "--max-depth"] },
  rg: { valued: "gtTEfjmMACe", longValued: ["--glob", "--iglob", "--type", "--type-not", "--type-add", "--type-clear", "--encoding", "--file", "--threads", "--max-count", "--max-depth", "--max-filesize", "--ignore-file", "--sort", "--sortr", "--regexp", "--pre", "--pre-glob", "--color", "--colors", "--path-separator"], depth: "under", depthOptions: ["--max-depth", "-d"], hidden: ["--hidden", "-u", "-uu", "-uuu", "--unrestricted", "-."], when: ["--files"] },
  fd: FD_LISTER,
  fdfind: FD_LISTER,
};

/**
 * The directories a listing program prints the names in (LISTERS; find by its starting points and -maxdepth), each with
 * how deep it lists and whether it skips hidden names; undefined for a program that lists nothing.
 */
export function listedPlaces(words: readonly string[]): { readonly word: string; readonly depth: "in" | "under"; readonly visible: boolean }[] | undefined {
  const program = basename(words[0] ?? "");
  if (program === "find") {
    const at = words.indexOf("-maxdepth");
    const max = at >= 0 ? Number(words[at + 1]) : Infinity;
    if (max === 0) return [];
    return findStarts(words).map((word) => ({ word, depth: max === 1 ? "in" : "under", visible: false }));
  }
  const spec = Object.hasOwn(LISTERS, program) ? LISTERS[program]! : undefined;
  if (spec === undefined) return undefined;
  const options: string[] = [];
  const values = new Map<string, string>();
  const operands: string[] = [];
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    if (word === "--") {
      operands.push(...words.slice(i + 1));
      break;
    }
    if (word.startsWith("--") && word.length > 2) {
      const eq = word.indexOf("=");
      const name = eq > 0 ? word.slice(0, eq) : word;
      options.push(name);
      if (eq < 0 && spec.longValued.includes(name)) values.set(name, words[++i] ?? "");
      else if (eq > 0) values.set(name, word.slice(eq + 1));
      continue;
    }
    if (word.startsWith("-") && word.length > 1) {
      if (spec.longValued.includes(word)) {
        options.push(word);
        values.set(word, words[++i] ?? "");
        continue;
      }
      options.push(word);
      for (let k = 1; k < word.length; k++) {
        const letter = word[k]!;
        options.push(`-${letter}`);
        if (spec.valued.includes(letter)) {
          values.set(`-${letter}`, k + 1 < word.length ? word.slice(k + 1) : (words[++i] ?? ""));
          break;
        }
      }
      continue;
    }
    operands.push(word);
  }
  if (spec.when !== undefined && !spec.when.some((option) => options.includes(option))) return undefined;
  const has = (list: readonly string[] | undefined) => list !== undefined && list.some((option) => options.includes(option));
  let depth: "in" | "under" | "none" = spec.depth;
  if (has(spec.deeper)) depth = "under";
  for (const option of spec.depthOptions ?? []) {
    const value = values.get(option);
    if (value !== undefined && /^\d+$/.test(value)) depth = Number(value) === 0 ? "none" : Number(value) === 1 ? "in" : "under";
  }
  if (has(spec.itself)) depth = "none";
  if (depth === "none") return [];
  const places = operands.slice(spec.lead ?? 0);
  const visible = spec.hidden !== undefined && !has(spec.hidden);
  return (places.length > 0 ? places : ["."]).map((word) => ({ word, depth, visible }));
}

/**
 * What the program of `words` (its name first) does with the files its words may name (FILE_PROGRAMS): each operand and
 * option value with its use. A program the table does not hold (`known` false) has every word after its name `unknown`.
 */
export function readFileUses(words: readonly string[]): FileWords {
  const program = basename(words[0] ?? "");
  const spec = Object.hasOwn(FILE_PROGRAMS, program) ? FILE_PROGRAMS[program]! : undefined;
  if (spec === undefined) return { known: false, uses: words.slice(1).map((word) => ({ word, use: "unknown" as const })) };
  const uses: { word: string; use: FileUse; admits?: readonly string[]; filter?: WalkFilter }[] = [];
  for (let i = 1; spec.scan !== undefined && i < words.length && words[i] !== "--"; i++) {
    const word = words[i]!;
    const eq = word.indexOf("=");
    const name = eq > 0 && word.startsWith("-") ? word.slice(0, eq) : word;
    if (!Object.hasOwn(spec.scan, name)) continue;
    const value = eq > 0 && name !== word ? word.slice(eq + 1) : words[i + 1];
    if (value !== undefined) uses.push({ word: value, use: spec.scan[name]! });
  }
  const seen: { name: string; value: string | undefined }[] = [];
  const operands: string[] = [];
  let read = words;
  // `tar czf x.tgz .`: the first word is a cluster of options without its dash.
  if (spec.bundle === true && read[1] !== undefined && /^[A-Za-z]+$/.test(read[1])) read = [read[0]!, `-${read[1]}`, ...read.slice(2)];
  const table = spec.options;
  // The directory the operands are read in (tar's `-C DIR`), relative to where the command runs ("": there), by operand.
  let dir = "";
  const dirs: string[] = [];
  const changeTo = (chunk: Parsed["seen"]) => {
    for (const option of chunk) if (spec.chdir?.options.includes(option.name) === true && option.value !== undefined && option.value !== "") dir = inDirectory(dir, option.value);
  };
  const operand = (...words: string[]) => {
    operands.push(...words);
    dirs.push(...words.map(() => dir));
  };
  if (table === undefined) operand(...read.slice(1));
  else {
    for (let i = 1; i < read.length; ) {
      const parsed = parseOptions(read, i, table, program);
      seen.push(...parsed.seen);
      changeTo(parsed.seen);
      if (parsed.unknown !== undefined) {
        // What the option does to the words after it is not known.
        for (const word of read.slice(parsed.next)) uses.push({ word, use: "unknown" });
        break;
      }
      if (parsed.dashdash === true) {
        operand(...read.slice(parsed.next));
        break;
      }
      if (parsed.next >= read.length) break;
      operand(read[parsed.next]!);
      i = parsed.next + 1;
      if (spec.inOrder === true) {
        operand(...read.slice(i));
        break;
      }
    }
  }
  // `tar -xf a.tar -C src x.ts` writes src/x.ts: extracting, every member is in the last directory.
  if (spec.chdir !== undefined && seen.some((option) => spec.chdir!.all.includes(option.name))) dirs.fill(dir);
  for (const [k, word] of operands.entries()) if (dirs[k] !== "" && word !== "-" && !/^[/~]/.test(word)) operands[k] = inDirectory(dirs[k]!, word);
  let lead = spec.lead ?? [];
  let rest = spec.operands;
  let last = spec.last;
  let none = spec.none;
  const names = new Set(seen.map((option) => option.name));
  for (const change of spec.switches ?? []) {
    if (!change.when.some((name) => names.has(name))) continue;
    if (change.lead !== undefined) lead = change.lead;
    if (change.operands !== undefined) rest = change.operands;
    if (change.last !== undefined) last = change.last;
    if (change.none !== undefined) none = change.none;
  }
  for (const option of seen) {
    if (option.value === undefined) continue;
    uses.push({ word: option.value, use: spec.values !== undefined && Object.hasOwn(spec.values, option.name) ? spec.values[option.name]! : "unknown" });
  }
  const filter = spec.filters === undefined ? undefined : walkFilter(spec.filters, seen);
  // A type's globs admit hidden names as a glob does (`rg -t sh KEY` searches `.bashrc`); a type the guard cannot read, any.
  const admitted = spec.admits === undefined ? [] : [...seen.flatMap((option) => (option.value !== undefined && spec.admits!.includes(option.name) && !option.value.startsWith("!") ? [option.value] : [])), ...(filter?.unknown === true ? ["*"] : seen.flatMap((option) => (option.value !== undefined && spec.filters?.types?.includes(option.name) === true ? (RG_TYPES[option.value] ?? ["*"]) : [])))];
  const walking = (use: FileUse) => ({ use, ...(admitted.length > 0 && use === "walk-visible" ? { admits: admitted } : {}), ...(filter !== undefined && (use === "walk" || use === "walk-visible") ? { filter } : {}) });
  // `-` (the standard input or output) takes its place among the leading operands (`zip -r - docs`: the archive is the
  // output, docs is walked) and names no file.
  let at = 0;
  for (const use of lead) {
    if (at >= operands.length) break;
    const word = operands[at++]!;
    if (word !== "-") uses.push({ word, use });
  }
  const remaining = operands.slice(at).filter((word) => word !== "-");
  if (remaining.length === 0 && none !== undefined) uses.push({ word: dir === "" ? "." : dir, ...walking(none) });
  remaining.forEach((word, i) => {
    const keyed = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(word);
    if (keyed !== null && spec.keyed !== undefined) uses.push({ word: keyed[2]!, use: Object.hasOwn(spec.keyed, keyed[1]!) ? spec.keyed[keyed[1]!]! : "unknown" });
    else if (keyed !== null && spec.assignments === true) uses.push({ word, use: "text" });
    else uses.push({ word, ...walking(last !== undefined && i === remaining.length - 1 && remaining.length > 1 ? last : rest) });
  });
  return { known: true, uses };
}

/** The filters a program's options set on its walks (FileProgram.filters), undefined when none is given. */
function walkFilter(filters: NonNullable<FileProgram["filters"]>, seen: readonly { name: string; value: string | undefined }[]): WalkFilter | undefined {
  const only: string[] = [];
  const skipDirs: string[] = [];
  let unknown = false;
  for (const option of seen) {
    if (filters.unreadable?.includes(option.name) === true) unknown = true;
    if (option.value === undefined) continue;
    if (filters.negated?.includes(option.name) === true && option.value.startsWith("!")) skipDirs.push(option.value.slice(1));
    else if (filters.only?.includes(option.name) === true) only.push(option.value);
    else if (filters.skipDirs?.includes(option.name) === true) skipDirs.push(option.value);
    else if (filters.types?.includes(option.name) === true) {
      const globs = Object.hasOwn(RG_TYPES, option.value) ? RG_TYPES[option.value] : undefined;
      if (globs === undefined) unknown = true;
      else only.push(...globs);
    }
  }
  if (unknown) return { unknown: true };
  // ripgrep's later glob wins: `-g '!secrets' -g '*'` enters secrets/ again.
  if (filters.negated !== undefined && seen.some((option) => filters.negated!.includes(option.name) && option.value !== undefined && !option.value.startsWith("!"))) skipDirs.length = 0;
  if (only.length === 0 && skipDirs.length === 0) return undefined;
  return { ...(only.length > 0 ? { only } : {}), ...(skipDirs.length > 0 ? { skipDirs } : {}) };
}

/** `word` read in the directory `dir` ("": where the command runs), as `cd DIR` and then the word would be. */
function inDirectory(dir: string, word: string): string {
  if (dir === "" || /^[/~]/.test(word)) return word;
  return `${dir.replace(/\/+$/, "")}/${word}`;
}

/**
 * The places a word of a program the guard does not know may name (readFileUses: `unknown`): the word, and the value
 * after its `--option=` or `NAME=`, after `@` (`curl -d @F`, `-F x=@F`), after a `:` (`git show HEAD:F`, `scp h:F`) and
 * after a short option's letter (`-fF`); its options (`-n`) are not read as files.
 */
export function unknownWordPlaces(word: string): string[] {
  const out = new Set<string>();
  if (!OPTION_WORD.test(word)) out.add(word);
  // A word of several words is a text the program reads as it will (sqlite3's `.import F T`, a tool's own command line):
  // each of its words may name a place too.
  if (/\s/.test(word.trim()) && word.length <= 4096) for (const piece of word.trim().split(/\s+/)) if (piece !== "" && !OPTION_WORD.test(piece)) out.add(piece.replace(/^['"]|['";]$/g, ""));
  const eq = word.indexOf("=");
  if (eq >= 0) out.add(word.slice(eq + 1));
  for (const one of [...out]) if (one.startsWith("@")) out.add(one.slice(1));
  // `HEAD:F`, `scp h:F`; git's index spellings `:F` and `:N:F` (the file staged, at stage N: `git show :.env`).
  const colon = word.indexOf(":");
  if (colon >= 0 && !word.includes("://")) out.add(word.slice(colon + 1));
  const staged = /^:[0-3]:([\s\S]+)$/.exec(word)?.[1];
  if (staged !== undefined) out.add(staged);
  if (/^-[A-Za-z][^=\s]/.test(word)) out.add(word.slice(2));
  // A `file:` URL (curl, wget, git and browsers read it as a file on this machine): its path, percent-decoded, on this
  // machine's host (`file:///x`, `file://localhost/x`), as the URL parser reads it.
  for (const one of [...out]) {
    const path = fileUrlPath(one);
    if (path !== undefined) out.add(path);
  }
  out.delete("");
  return [...out];
}

/** The file a `file:` URL names on this machine (host empty or localhost), percent-decoded; undefined for anything else. */
function fileUrlPath(text: string): string | undefined {
  if (!/^\s*file:/i.test(text)) return undefined;
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return undefined;
  }
  if (url.hostname !== "" && url.hostname !== "localhost") return undefined;
  try {
    return decodeURIComponent(url.pathname);
  } catch {
    return url.pathname;
  }
}
