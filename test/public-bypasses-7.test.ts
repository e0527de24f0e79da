// Readings not covered before, each class with its source: git's parse-options takes a unique prefix of
// a long option (`--upload-pa=CMD`); Mercurial reads --config (hooks, `!` aliases, editor, pager,
// extensions), -R and --cwd anywhere on the line; GNU diff3 and sdiff run --diff-program; the search
// tools ack, ag and ugrep run pagers and filters; curl, wget, psql, gawk, node, bash's history,
// valgrind and perf write files (or run a command, psql's `-o '|CMD'`) through options not read before;
// node loads an env file's NODE_OPTIONS and an OpenSSL configuration's engines. And two over-asks
// fixed: an interpreter's options end at its script (`node cli.js -r x`, `python3 -m pytest -c x`),
// and a subcommand wrapper's own options end at the command it runs (`docker run IMAGE ls --config x`).
//   - deny: the line runs a command a deny rule names;
//   - not-allow: an allow pattern matches the words, but the line runs, loads or writes what the allow
//     does not vouch for; the reason names it;
//   - allow: the plain companion the allow rule is written for stays allowed.
import { describe, expect, it } from "vitest";
import { bashGuard, describeBashClasses, expectBashDecision, installed, leavesMarker, type BashClass } from "./helpers/bash-rules.js";

const X = "rm -rf /tmp/x";
const DENY = ["rm:*", "nc:*"];

const CLASSES: readonly BashClass[] = [
  {
    name: "git's parse-options takes any unique prefix of a long option: --upload-pa=CMD is --upload-pack=CMD (ls-remote, fetch, pull, clone), --receive-p= (push), --open-files-in= (grep), --exe= (rebase), --to-cm= (send-email)",
    source: "gitcli(7) 'many commands allow a long option --option to be abbreviated only to their unique prefix'; kurone-kito/jsonresume-types#121 ('git's own option parser accepts any unambiguous abbreviation of a long option — git fetch origin --upload-pac=… reaches the same local-execution behavior without matching this deny's literal --upload-pack prefix'); git-fetch(1), git-push(1) --receive-pack, git-grep(1) -O, git-rebase(1) --exec",
    allow: ["git ls-remote:*", "git fetch:*", "git pull:*", "git clone:*", "git push:*", "git grep:*", "git rebase:*", "git send-email:*", "git log:*"],
    cases: [
      { command: `git ls-remote --upload-pa='${X}' origin`, expect: "deny" },
      { command: `git fetch --upload-p='${X}' origin`, expect: "deny" },
      { command: `git fetch origin --upload-pac='${X}'`, expect: "deny" },
      { command: `git pull --upload-pa='${X}' origin main`, expect: "deny" },
      { command: `git clone --upload-pac='${X}' ./repo dst`, expect: "deny" },
      { command: "git clone --upload-pa=./evil ./repo dst", expect: "not-allow", reason: /git clone runs a command through --upload-pack/ },
      { command: "git clone --templ=/tmp/t https://example.com/r.git", expect: "not-allow", reason: /--template/ },
      { command: `git push --receive-p='${X}' origin main`, expect: "deny" },
      { command: `git grep --open-files-in='${X}' foo`, expect: "deny" },
      { command: "git grep --open=./pager.sh foo", expect: "not-allow", reason: /--open-files-in-pager/ },
      { command: `git rebase --exe='${X}' HEAD~1`, expect: "deny" },
      { command: `git rebase --ex '${X}' HEAD~1`, expect: "deny" },
      { command: `git send-email --to-cm='${X}' 0001.patch`, expect: "deny" },
      { command: "git log --textc -p", expect: "not-allow", reason: /--textconv/ },
      { command: "git fetch --prune origin", expect: "allow" },
      { command: "git grep --text -n foo", expect: "allow" },
      { command: "git grep -e a --or -e b", expect: "allow" },
      { command: "git send-email --to=dev@example.com --cc=me@example.com 0001.patch", expect: "allow" },
      { command: "git push --force-with-lease origin main", expect: "allow" },
      { command: "git log --oneline -5", expect: "allow" },
    ],
  },
  {
    name: "Mercurial reads its global options after the subcommand too: --config hooks.*, alias.NAME=!CMD, ui.editor, pager.pager, extensions.* (Python it loads); -R/--repository and --cwd pick a repository whose .hg/hgrc runs hooks",
    source: "hg help config ('hooks: Commands or Python functions that get automatically executed by various actions', 'alias: ... An alias can start with an exclamation point (!) to make it a shell alias', ui.editor, pager.pager, extensions); hg help (global options '-R --repository REPO', '--cwd DIR', '--config CONFIG [+]: set/override config option (use section.name=value)')",
    allow: ["hg status:*", "hg log:*", "hg diff:*", "hg commit:*"],
    cases: [
      { command: `hg status --config hooks.pre-status='${X}'`, expect: "deny" },
      { command: `hg status --config=hooks.post-status='${X}'`, expect: "deny" },
      { command: `hg log --config alias.log='!${X}'`, expect: "deny" },
      { command: `hg commit -m x --config ui.editor='${X}'`, expect: "deny" },
      { command: `hg log --pager=always --config pager.pager='${X}'`, expect: "deny" },
      { command: "hg log --config extensions.evil=/tmp/evil.py", expect: "not-allow", reason: /hg runs code given with --config/ },
      { command: "hg status --config alias.status='log -r .'", expect: "not-allow", reason: /--config/ },
      { command: "hg status -R /tmp/evil", expect: "not-allow", reason: /hg reads the configuration .* given with -R/ },
      { command: "hg status --repository /tmp/evil", expect: "not-allow", reason: /--repository/ },
      { command: "hg diff --cwd /tmp/evil", expect: "not-allow", reason: /--cwd/ },
      { command: "hg status", expect: "allow" },
      { command: "hg log -l 5", expect: "allow" },
      { command: "hg diff -r tip", expect: "allow" },
      { command: "hg log -r 'ancestors(.)' --template '{node}\\n'", expect: "allow" },
    ],
  },
  {
    name: "GNU diff3 and sdiff run the program given with --diff-program (any unique prefix: --diff-prog=); sdiff -o writes the merged file",
    source: "GNU diffutils manual 'Invoking diff3' and 'Invoking sdiff' ('--diff-program=program: Use the compatible comparison program program to compare files instead of diff'; sdiff '-o file, --output=file: Put merged output into file'); GTFOBins-style 'Command' use of a program option",
    allow: ["diff3:*", "sdiff:*", "diff:*"],
    cases: [
      { command: "diff3 --diff-program=rm a b c", expect: "deny" },
      { command: "diff3 --diff-prog=rm a b c", expect: "deny" },
      { command: "sdiff --diff-program rm a b", expect: "deny" },
      { command: "diff3 --diff-program=./evil a b c", expect: "not-allow", reason: /diff3 runs a command through --diff-program/ },
      { command: "sdiff --diff-p=./evil a b", expect: "not-allow", reason: /--diff-program/ },
      { command: "sdiff -o /tmp/merged a b", expect: "not-allow", reason: /sdiff writes a file through -o/ },
      { command: "sdiff --output=/tmp/merged a b", expect: "not-allow", reason: /--output/ },
      { command: "diff3 a b c", expect: "allow" },
      { command: "diff3 -m a b c", expect: "allow" },
      { command: "sdiff -s a b", expect: "allow" },
      { command: "diff -u a b", expect: "allow" },
    ],
  },
  {
    name: "search tools on read-only lists run a pager or a filter command: ack --pager and --ackrc, ag --pager (abbreviated too: --pag=), ugrep --pager=CMD, --filter='EXTS:CMD', --config; ugrep --save-config writes",
    source: "ack(1) ('--pager=program: Direct ack's output through program', '--ackrc=filename'); ag(1) ('--pager COMMAND: Use a pager such as less'); ugrep README / ugrep --help ('--filter=COMMANDS: Filter files through the specified COMMANDS first before searching. COMMANDS is a comma-separated list of exts:command', '--pager[=COMMAND]', '--config[=FILE]', '--save-config[=FILE]')",
    allow: ["ack:*", "ag:*", "ugrep:*"],
    cases: [
      { command: `ack --pager='${X}' foo`, expect: "deny" },
      { command: `ack --pag='${X}' foo`, expect: "deny" },
      { command: "ack --ackrc=./rc foo", expect: "not-allow", reason: /ack runs the code in the file given with --ackrc/ },
      { command: `ag --pager '${X}' foo`, expect: "deny" },
      { command: `ag --pag='${X}' foo`, expect: "deny" },
      { command: "ag --pager ./pager.sh foo", expect: "not-allow", reason: /ag runs a command through --pager/ },
      { command: `ugrep --pager='${X}' foo`, expect: "deny" },
      { command: `ugrep --filter='txt:${X}' foo`, expect: "deny" },
      { command: "ugrep --filter='pdf:pdftotext % -,txt:./evil' foo", expect: "not-allow", reason: /ugrep runs the code given with --filter/ },
      { command: "ugrep --config=./evil.ugrep foo", expect: "not-allow", reason: /--config/ },
      { command: "ugrep --save-config=/tmp/x foo", expect: "not-allow", reason: /ugrep writes a file through --save-config/ },
      { command: "ack -i foo src/", expect: "allow" },
      { command: "ack --nopager foo", expect: "allow" },
      { command: "ag --hidden foo", expect: "allow" },
      { command: "ugrep -rn foo .", expect: "allow" },
    ],
  },
  {
    name: "curl writes files through more options: --stderr FILE, --hsts FILE, --alt-svc FILE, --etag-save FILE (abbreviated too), -w '%output{FILE}'; --engine loads a library",
    source: "curl(1) ('--stderr <file>: Redirect all writes to stderr to the specified file instead', '--hsts <filename>: ... curl saves the HSTS cache to that file when exiting', '--alt-svc <filename>', '--etag-save <file>', '-w, --write-out: %output{filename} ... output the rest to this file' (curl 8.3), '--engine <name>: Select the OpenSSL crypto engine to use')",
    allow: ["curl:*"],
    cases: [
      { command: "curl --stderr /tmp/x https://example.com", expect: "not-allow", reason: /curl writes a file through --stderr/ },
      { command: "curl -s --hsts /tmp/hsts.txt https://example.com", expect: "not-allow", reason: /--hsts/ },
      { command: "curl --alt-svc /tmp/altsvc.txt https://example.com", expect: "not-allow", reason: /--alt-svc/ },
      { command: "curl --etag-save /tmp/etag https://example.com", expect: "not-allow", reason: /--etag-save/ },
      { command: "curl --etag-sav /tmp/etag https://example.com", expect: "not-allow", reason: /--etag-save/ },
      { command: "curl -w '%output{/tmp/x}%{http_code}' https://example.com", expect: "not-allow", reason: /curl writes a file through -w/ },
      { command: "curl -sw '%output{>>/tmp/x}x' https://example.com", expect: "not-allow", reason: /-w/ },
      { command: "curl --write-out '%output{/tmp/x}' https://example.com", expect: "not-allow", reason: /--write-out/ },
      { command: "curl --engine /tmp/evil.so https://example.com", expect: "not-allow", reason: /curl runs the code in the file given with --engine/ },
      { command: "curl -s https://example.com", expect: "allow" },
      { command: "curl -sw '%{http_code}' https://example.com", expect: "allow" },
      { command: "curl --stderr - https://example.com", expect: "allow" },
    ],
  },
  {
    name: "wget writes files besides its downloads: --save-cookies FILE, --warc-file FILE, --rejected-log FILE (abbreviated too)",
    source: "GNU Wget manual 'HTTP Options' ('--save-cookies file: Save cookies to file before exiting'), 'Recursive Retrieval Options' / 'WARC options' ('--warc-file=file: Use file as the destination WARC file'), 'Logging and Input File Options' ('--rejected-log=logfile')",
    allow: ["wget:*"],
    cases: [
      { command: "wget --save-cookies /tmp/c.txt https://example.com", expect: "not-allow", reason: /wget writes a file through --save-cookies/ },
      { command: "wget --save-cookies=/tmp/c.txt https://example.com", expect: "not-allow", reason: /--save-cookies/ },
      { command: "wget --save-cook=/tmp/c.txt https://example.com", expect: "not-allow", reason: /--save-cookies/ },
      { command: "wget --warc-file=/tmp/w https://example.com", expect: "not-allow", reason: /--warc-file/ },
      { command: "wget --rejected-log=/tmp/r https://example.com", expect: "not-allow", reason: /--rejected-log/ },
      { command: "wget -q https://example.com", expect: "allow" },
      { command: "wget --load-cookies c.txt https://example.com", expect: "allow" },
    ],
  },
  {
    name: "psql -o/--output is \\o: `|CMD` pipes the query output to a command, a file name is written; -L/--log-file writes the session log",
    source: "PostgreSQL psql docs ('-o filename, --output=filename: Put all query output into file filename. This is equivalent to the command \\o'; '\\o or \\out [ filename | |command ]: ... If the argument begins with |, then the entire remainder of the line is taken to be the command to execute'; '-L filename, --log-file=filename')",
    allow: ["psql:*"],
    cases: [
      { command: `psql -o '|${X}' appdb`, expect: "deny" },
      { command: `psql --output='|${X}' appdb`, expect: "deny" },
      { command: "psql -o '|./evil' appdb", expect: "not-allow", reason: /psql runs the code given with -o/ },
      { command: "psql -o /tmp/out.txt appdb", expect: "not-allow", reason: /psql writes a file through -o/ },
      { command: "psql -L /tmp/log appdb", expect: "not-allow", reason: /psql writes a file through -L/ },
      { command: "psql --log-file=/tmp/log appdb", expect: "not-allow", reason: /--log-file/ },
      { command: "psql -h localhost -U me appdb", expect: "allow" },
      { command: "psql -At appdb", expect: "allow" },
    ],
  },
  {
    name: "gawk writes its variables (-d/--dump-variables), its profile (-p/--profile) and the program pretty-printed (-o/--pretty-print) to the file named",
    source: "GNU Awk User's Guide 2.2 'Command-Line Options' ('-d[file], --dump-variables[=file]: Print a sorted list of global variables ... to file', '-p[file], --profile[=file]', '-o[file], --pretty-print[=file]')",
    allow: ["awk:*", "gawk:*"],
    cases: [
      { command: "gawk -d/tmp/vars 'BEGIN{}'", expect: "not-allow", reason: /gawk writes a file through -d/ },
      { command: "gawk --dump-variables=/tmp/vars 'BEGIN{}'", expect: "not-allow", reason: /--dump-variables/ },
      { command: "gawk --dump=/tmp/vars 'BEGIN{}'", expect: "not-allow", reason: /--dump-variables/ },
      { command: "awk -p/tmp/prof '{print}' a.txt", expect: "not-allow", reason: /awk writes a file through -p/ },
      { command: "gawk --profile=/tmp/prof 'BEGIN{}'", expect: "not-allow", reason: /--profile/ },
      { command: "gawk -o/tmp/pretty 'BEGIN{}'", expect: "not-allow", reason: /-o/ },
      { command: "gawk --pretty-print=/tmp/pretty 'BEGIN{}'", expect: "not-allow", reason: /--pretty-print/ },
      { command: "awk '{print $1}' a.txt", expect: "allow" },
      { command: "awk -F, '{print $2}' a.csv", expect: "allow" },
      { command: "gawk -v n=1 'NR==n' a.txt", expect: "allow" },
    ],
  },
  {
    name: "node options that load code from a file (--env-file's NODE_OPTIONS, --openssl-config's engines, --snapshot-blob) or write one (--redirect-warnings, --tls-keylog, --report-directory, --cpu-prof-dir, --diagnostic-dir)",
    source: "Node.js 20 CLI docs ('--env-file=config: Loads environment variables from a file ... NODE_OPTIONS ... is processed', '--openssl-config=file: Load an OpenSSL configuration file on startup', '--redirect-warnings=file: Write process warnings to the given file', '--tls-keylog=file', '--report-directory', '--cpu-prof-dir', '--diagnostic-dir', '--snapshot-blob')",
    allow: ["node:*"],
    cases: [
      { command: "node --env-file=.env app.js", expect: "not-allow", reason: /node runs the code in the file given with --env-file/ },
      { command: "node --env-file .env app.js", expect: "not-allow", reason: /--env-file/ },
      { command: "node --env-file-if-exists=.env.local app.js", expect: "not-allow", reason: /--env-file-if-exists/ },
      { command: "node --openssl-config=/tmp/evil.cnf app.js", expect: "not-allow", reason: /--openssl-config/ },
      { command: "node --snapshot-blob /tmp/snap.blob app.js", expect: "not-allow", reason: /--snapshot-blob/ },
      { command: "node --redirect-warnings=/tmp/w app.js", expect: "not-allow", reason: /node writes a file through --redirect-warnings/ },
      { command: "node --tls-keylog=/tmp/keys app.js", expect: "not-allow", reason: /--tls-keylog/ },
      { command: "node --report-on-signal --report-directory=/tmp app.js", expect: "not-allow", reason: /--report-directory/ },
      { command: "node --cpu-prof --cpu-prof-dir=/tmp/p app.js", expect: "not-allow", reason: /--cpu-prof-dir/ },
      { command: "node --diagnostic-dir /tmp/d app.js", expect: "not-allow", reason: /--diagnostic-dir/ },
      { command: "node app.js", expect: "allow" },
      { command: "node --enable-source-maps app.js --port 3000", expect: "allow" },
    ],
  },
  {
    name: "bash's history -w/-a, valgrind --log-file/--xml-file and perf -o write the file they name",
    source: "bash(1) SHELL BUILTIN COMMANDS 'history' ('-a: Append the new history lines to the history file', '-w: Write the current history list to the history file' — 'If filename is supplied, it is used as the name of the history file'); valgrind(1) ('--log-file=<filename>: Specifies that Valgrind should send all of its messages to the specified file', '--xml-file=<filename>'); perf-record(1), perf-stat(1) ('-o, --output=<file>')",
    allow: ["history:*", "valgrind:*", "perf record:*", "ls:*"],
    cases: [
      { command: "history -w /tmp/x", expect: "not-allow", reason: /history writes a file through -w/ },
      { command: "history -a ~/.bashrc", expect: "not-allow", reason: /-a/ },
      { command: "valgrind --log-file=/tmp/x ls", expect: "not-allow", reason: /valgrind writes a file through --log-file/ },
      { command: "valgrind --xml=yes --xml-file=/tmp/x ls", expect: "not-allow", reason: /--xml-file/ },
      { command: "perf record -o /tmp/perf.data ls", expect: "not-allow", reason: /perf record writes a file through -o/ },
      { command: "perf record -g ls", expect: "allow" },
      { command: `valgrind --log-file=/tmp/x ${X}`, expect: "deny" },
      { command: "history", expect: "allow" },
      { command: "history 20", expect: "allow" },
      { command: "valgrind --leak-check=full ls", expect: "allow" },
    ],
  },
  {
    name: "an interpreter's options end at its script: after `node cli.js` (or `python3 script.py`, `python3 -m MOD`, `python3 -c CODE`) every word is the script's, not an option that loads code (over-asks fixed; options before the script still read)",
    source: "Node.js CLI docs 'Synopsis' ('node [options] [V8 options] [script.js | -e \"script\" | -] [--] [arguments]'; options that take a value: `node --help` of Node 20); Python docs 'Command line and environment' ('python [-bBdEhiIOPqRsSuvVWx?] [-c command | -m module-name | script | - ] [args]': '-c ... terminates the option list (following options are passed as arguments to the command)', '-m ... terminates the option list')",
    allow: ["node:*", "python3:*"],
    cases: [
      { command: "node cli.js -r x", expect: "allow" },
      { command: "node cli.js --require ./plugin.js", expect: "allow" },
      { command: "node --title srv cli.js -e x", expect: "allow" },
      { command: "node --inspect cli.js -p x", expect: "allow" },
      { command: "node -- cli.js -r x", expect: "allow" },
      { command: "node --env-file-if-exists=x cli.js", expect: "not-allow", reason: /--env-file-if-exists/ },
      { command: "node -r ./evil.js cli.js", expect: "not-allow", reason: /-r/ },
      { command: "node --title srv -r ./evil.js cli.js", expect: "not-allow", reason: /-r/ },
      { command: "node -C development --import ./evil.mjs cli.js", expect: "not-allow", reason: /--import/ },
      { command: `node -pe 'require("child_process").execSync("${X}")'`, expect: "deny" },
      { command: `node -e 'require("child_process").execSync("${X}")' cli.js`, expect: "deny" },
      { command: "python3 script.py -c x", expect: "allow" },
      { command: "python3 -m pytest -c pytest.ini -q", expect: "allow" },
      { command: "python3 -W ignore script.py -c x", expect: "allow" },
      { command: `python3 -c 'import os; os.system("${X}")'`, expect: "deny" },
      { command: `python3 -Bc 'import os; os.system("${X}")'`, expect: "deny" },
      { command: "python3 -B -m http.server 8000", expect: "allow" },
    ],
  },
  {
    name: "a subcommand wrapper's own options end at the command it runs: `docker run IMAGE ls --config x`, `ip netns exec NS ls -b x`, `bun x eslint -r x` hand those options to the command (over-asks fixed; the wrapper's options before it still read)",
    source: "docker run reference ('docker run [OPTIONS] IMAGE [COMMAND] [ARG...]'); ip-netns(8) ('ip netns exec NAME cmd ...'); ip(8) ('-b, -batch <FILENAME>' before the object); Bun docs 'bunx' ('bunx <package> [args]')",
    allow: ["docker run:*", "ip netns exec:*", "bun x:*", "kubectl exec:*", "ls:*", "eslint:*"],
    cases: [
      { command: "docker run --rm alpine ls --config x", expect: "allow" },
      { command: "ip netns exec blue ls -b x", expect: "allow" },
      { command: "bun x eslint -r x src/", expect: "allow" },
      { command: "kubectl exec web -- ls --kubeconfig x", expect: "allow" },
      { command: "docker --config ./cfg run alpine ls", expect: "not-allow" },
      { command: "ip -b ./cmds netns exec blue ls", expect: "not-allow" },
      { command: "kubectl --kubeconfig ./kc.yaml exec web -- ls", expect: "not-allow" },
      { command: `docker run --rm alpine ${X}`, expect: "deny" },
      { command: `ip netns exec blue ${X}`, expect: "deny" },
    ],
  },
];

describeBashClasses("public bypass classes (7): git abbreviations, hg, diff3/sdiff, search tools, curl, wget, psql, gawk, node, history, over-asks", CLASSES, DENY, "public-bypasses-7");

const GIT_ENV = { GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" };
/** A repository with two commits in the scratch directory. */
const REPO = "git init -q . && git add a.txt && git commit -qm one && echo more >> a.txt && git commit -qam two";
const MK = "printf '#!/bin/sh\\ntouch MARKER\\nexec diff \"$@\"\\n' > mk && chmod +x mk";
const PG = process.env.POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

// The programs installed here judge the readings: `run` (the line, with the denied command replaced by
// `touch MARKER` or the file aimed at OUT, in a scratch directory) leaves MARKER or OUT; the guard denies
// `line` (it runs the denied command) or does not allow it (it runs or writes what the allow does not cover).
const REAL: readonly { line: string; run: string; program: string; allow: readonly string[] }[] = [
  { line: `git ls-remote --upload-pa='${X}' .`, run: `${REPO} && git ls-remote --upload-pa='touch MARKER' .`, program: "git", allow: ["git ls-remote:*"] },
  { line: `git fetch --upload-p='${X}' .`, run: `${REPO} && git fetch --upload-p='touch MARKER' .`, program: "git", allow: ["git fetch:*"] },
  { line: `git clone --upload-pac='${X}' . ../cl`, run: `mkdir r && cd r && cp ../a.txt . && ${REPO} && git clone -q --upload-pac='touch ../MARKER' . ../cl`, program: "git", allow: ["git clone:*"] },
  { line: `git push --receive-p='${X}' . HEAD:refs/heads/zz`, run: `${REPO} && git push --receive-p='touch MARKER' . HEAD:refs/heads/zz`, program: "git", allow: ["git push:*"] },
  { line: `git grep --open-files-in='${X}' hello`, run: `${REPO} && git grep --open-files-in='touch MARKER' hello`, program: "git", allow: ["git grep:*"] },
  { line: `git rebase --exe='${X}' HEAD~1`, run: `${REPO} && git rebase -q --exe='touch MARKER' HEAD~1`, program: "git", allow: ["git rebase:*"] },
  { line: `hg status --config hooks.pre-status='${X}'`, run: "hg init -q . && hg status --config hooks.pre-status='touch MARKER'", program: "hg", allow: ["hg status:*"] },
  { line: `hg log --config alias.log='!${X}'`, run: "hg init -q . && hg log --config alias.log='!touch MARKER'", program: "hg", allow: ["hg log:*"] },
  { line: "hg log --config extensions.evil=./evil.py", run: "hg init -q . && printf 'def extsetup(ui):\\n    open(\"MARKER\", \"w\")\\n' > evil.py && hg log --config extensions.evil=./evil.py", program: "hg", allow: ["hg log:*"] },
  { line: "diff3 --diff-prog=./mk a.txt a.txt a.csv", run: `${MK} && diff3 --diff-prog=./mk a.txt a.txt a.csv`, program: "diff3", allow: ["diff3:*"] },
  { line: "sdiff --diff-program=./mk a.txt a.csv", run: `${MK} && sdiff --diff-program=./mk a.txt a.csv`, program: "sdiff", allow: ["sdiff:*"] },
  { line: "sdiff -o OUT a.txt a.csv", run: "yes l | sdiff -o OUT a.txt a.csv", program: "sdiff", allow: ["sdiff:*"] },
  { line: `ack --pager='${X}' hello a.txt`, run: "script -qec \"ack --pager='touch MARKER' hello a.txt\" /dev/null", program: "ack", allow: ["ack:*"] },
  { line: `ag --pag='${X}' hello a.txt`, run: "ag --pag='touch MARKER' hello a.txt", program: "ag", allow: ["ag:*"] },
  { line: `ugrep --filter='txt:${X}' hello a.txt`, run: "ugrep --filter='txt:touch MARKER' hello a.txt", program: "ugrep", allow: ["ugrep:*"] },
  { line: "ugrep --save-config=OUT hello a.txt", run: "ugrep --save-config=OUT hello a.txt", program: "ugrep", allow: ["ugrep:*"] },
  { line: "curl -s --stderr OUT file:///nonexistent", run: "curl -s --stderr OUT file:///nonexistent", program: "curl", allow: ["curl:*"] },
  { line: "curl -s --hsts OUT file:///etc/hostname", run: "curl -s --hsts OUT file:///etc/hostname", program: "curl", allow: ["curl:*"] },
  { line: "curl -s --etag-sav OUT file:///etc/hostname", run: "curl -s --etag-sav OUT file:///etc/hostname", program: "curl", allow: ["curl:*"] },
  { line: "wget -q --save-cookies=OUT http://127.0.0.1:1/", run: "wget -q -t 1 --save-cookies=OUT http://127.0.0.1:1/", program: "wget", allow: ["wget:*"] },
  { line: `psql -o '|${X}' appdb`, run: `psql '${PG}' -o '|touch MARKER' -c 'select 1'`, program: "psql", allow: ["psql:*"] },
  { line: "psql -L OUT appdb", run: `psql '${PG}' -L OUT -c 'select 1'`, program: "psql", allow: ["psql:*"] },
  { line: "gawk -dOUT 'BEGIN{}'", run: "gawk -dOUT 'BEGIN{}'", program: "gawk", allow: ["gawk:*"] },
  { line: "gawk --dump=OUT 'BEGIN{}'", run: "gawk --dump=OUT 'BEGIN{}'", program: "gawk", allow: ["gawk:*"] },
  { line: "awk -pOUT 'BEGIN{}'", run: "awk -pOUT 'BEGIN{}'", program: "gawk", allow: ["awk:*"] },
  { line: "node --env-file=.env app.js", run: "echo 'NODE_OPTIONS=--require ./mk.js' > .env && echo 'require(\"fs\").writeFileSync(\"MARKER\", \"\")' > mk.js && echo '' > app.js && node --env-file=.env app.js", program: "node", allow: ["node:*"] },
  { line: "node --redirect-warnings=OUT app.js", run: "echo 'process.emitWarning(\"w\")' > app.js && node --redirect-warnings=OUT app.js", program: "node", allow: ["node:*"] },
  { line: "history -w OUT", run: "history -w OUT", program: "bash", allow: ["history:*"] },
  { line: "valgrind --log-file=OUT ls", run: "valgrind -q --log-file=OUT true", program: "valgrind", allow: ["valgrind:*", "ls:*"] },
];

describe("public bypass classes (7): the real programs do what the guard reads", () => {
  it.each(REAL.map((r) => [r.line, r] as const))("%s", (_line, r) => {
    expectBashDecision(bashGuard(r.allow, DENY, "public-bypasses-7-real"), r.line, r.line.includes(X) ? "deny" : "not-allow", undefined);
    if (!installed(r.program)) return;
    if (r.program === "psql" && process.env.POSTGRES_URL === undefined) return;
    const run = leavesMarker(r.run, GIT_ENV);
    expect(run.left, `${r.run}: ${run.stderr}`).toBe(true);
  }, 30_000);
});
