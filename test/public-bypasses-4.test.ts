// More bypass classes from public reports and manuals, each with its source: settings that name a
// command a program runs later (`git config alias.x '!cmd'`, `gh alias set --shell`, `gh config set
// pager`), requests that change data under a read-only allow (`gh api -X DELETE`), `eval` of text only
// known at run time, option variables read before the command line's own options (TAR_OPTIONS, LESS,
// LESSOPEN, LESSCLOSE), and line-command programs fed their commands on standard input (`echo '!cmd' | ed`).
//   - deny: the line runs (now or at the program's next start) a command a deny rule names;
//   - not-allow: an allow pattern matches the words, but the line sets or sends what the allow does not
//     vouch for, or what runs is only known when it runs; the reason names it;
//   - allow: the plain companion the allow rule is written for stays allowed.
// `run`: a line the real bash runs here with the denied command replaced by `touch MARKER` (the
// setting written, then used; git starts its pager only on a terminal, which script(1) gives it); the
// marker must appear (skipped when the program is not installed).
import { describe, expect, it } from "vitest";
import { describeBashClasses, installed, leavesMarker, type BashExpectation } from "./helpers/bash-rules.js";

type Expectation = Exclude<BashExpectation, "ask">;

interface Case {
  readonly command: string;
  readonly expect: Expectation;
  readonly reason?: RegExp;
  /** A line that shows the real program runs the denied command (see the header). */
  readonly run?: string;
}

interface Klass {
  readonly name: string;
  readonly source: string;
  readonly allow: readonly string[];
  /** The program `run` needs. */
  readonly program: string;
  readonly cases: readonly Case[];
}

const X = "rm -rf /tmp/x";
const DENY = ["rm:*", "nc:*"];

const CLASSES: readonly Klass[] = [
  {
    name: "git config writes a key whose value git runs later (alias.* with '!', core.pager, core.editor, core.sshCommand, core.fsmonitor, core.hooksPath, diff.*.textconv, filter.*.clean/smudge/process, credential.helper, sequence.editor, gpg.program)",
    source: "git-config(1) ('alias.*: if the alias expansion is prefixed with an exclamation point, it will be treated as a shell command'; core.pager, core.sshCommand, core.fsmonitor, core.hooksPath, filter.<driver>.clean/smudge, credential.helper, gpg.program); GTFOBins (git); public settings allowing Bash(git config:*)",
    allow: ["git config:*", "git status:*", "echo:*"],
    program: "git",
    cases: [
      { command: `git config alias.x '!${X}'`, expect: "deny", run: `git init -q . && git config alias.x '!${X}' && git x` },
      { command: `git config --global alias.x '!${X}'`, expect: "deny" },
      { command: `git config --local core.pager '${X}'`, expect: "deny", run: `git init -q . && git commit -q --allow-empty -m x && git config core.pager '${X}' && script -qc 'git log -1' /dev/null` },
      { command: `git config set core.editor '${X}'`, expect: "deny" },
      { command: `git config core.sshCommand '${X}'`, expect: "deny" },
      { command: `git config --add core.fsmonitor '${X}'`, expect: "deny", run: `git init -q . && git config core.fsmonitor '${X}' && git status --short` },
      { command: `git config diff.x.textconv '${X}'`, expect: "deny" },
      { command: `git config filter.x.clean '${X}'`, expect: "deny" },
      { command: `git config filter.x.smudge '${X}'`, expect: "deny" },
      { command: `git config filter.x.process '${X}'`, expect: "deny" },
      { command: `git config credential.helper '!${X}'`, expect: "deny" },
      { command: `git config sequence.editor '${X}'`, expect: "deny" },
      { command: "git config gpg.program rm", expect: "deny" },
      { command: `git config -f .git/config alias.x '!${X}'`, expect: "deny" },
      { command: `git config --file=.git/config core.pager '${X}'`, expect: "deny" },
      { command: "git config alias.x '!id'", expect: "not-allow", reason: /git config sets alias\.x|alias\.x/ },
      { command: "git config core.hooksPath /tmp/h", expect: "not-allow", reason: /core\.hooksPath/ },
      { command: "git config include.path /tmp/other.cfg", expect: "not-allow", reason: /include\.path/ },
      { command: "git config alias.st 'status -sb'", expect: "not-allow", reason: /alias\.st/ },
      { command: "git config user.name bob", expect: "allow" },
      { command: "git config --get core.pager", expect: "allow" },
      { command: "git config --list", expect: "allow" },
      { command: "git config --unset core.pager", expect: "allow" },
    ],
  },
  {
    name: "gh defines a shell alias, sets a pager or editor, or sends a request that changes data under a read-only allow",
    source: "GitHub CLI manual: gh alias set ('--shell: declare an alias to be passed through a shell interpreter'; an expansion starting with '!'), gh api ('The default HTTP request method is GET normally and POST if any parameters were added. Override the method with --method'), gh config set (pager, editor, browser)",
    allow: ["gh pr view:*", "gh api:*", "gh alias:*", "gh config:*"],
    program: "gh",
    cases: [
      { command: `gh alias set x --shell '${X}'`, expect: "deny" },
      { command: `gh alias set x '!${X}'`, expect: "deny" },
      { command: `gh alias set -s x '${X}'`, expect: "deny" },
      { command: `gh config set pager '${X}'`, expect: "deny" },
      { command: "gh config set editor 'vim -c \":!id\"'", expect: "not-allow", reason: /gh config set editor/ },
      { command: "gh alias set co 'pr checkout'", expect: "not-allow", reason: /gh alias set/ },
      { command: "gh alias import aliases.yml", expect: "not-allow", reason: /gh alias import/ },
      { command: "gh api -X DELETE repos/o/r", expect: "not-allow", reason: /DELETE request/ },
      { command: "gh api -XDELETE repos/o/r", expect: "not-allow", reason: /DELETE request/ },
      { command: "gh api --method=PATCH repos/o/r -f name=x", expect: "not-allow", reason: /PATCH request/ },
      { command: "gh api repos/o/r/issues -f title=x", expect: "not-allow", reason: /POST request/ },
      { command: "gh api repos/o/r/issues -F title=@body.md", expect: "not-allow", reason: /POST request/ },
      { command: "gh api graphql -f query='mutation { deleteRef(input: {refId: \"x\"}) { clientMutationId } }'", expect: "not-allow", reason: /POST request/ },
      { command: "gh api repos/o/r/issues --input issue.json", expect: "not-allow", reason: /--input|POST request/ },
      { command: "gh api repos/o/r/pulls", expect: "allow" },
      { command: "gh api --paginate repos/o/r/issues --jq '.[].title'", expect: "allow" },
      { command: "gh config get pager", expect: "allow" },
      { command: "gh pr view 12", expect: "allow" },
    ],
  },
  {
    name: "eval of text only known when it runs (eval \"$(...)\", eval $VAR)",
    source: "bash(1) SHELL BUILTIN COMMANDS 'eval: the args are read and concatenated together into a single command'; ShellCheck SC2294; reports of agents running `eval \"$(curl ...)\"` under allow rules on eval",
    allow: ["eval:*", "echo:*", "cat:*", "ssh-agent:*"],
    program: "bash",
    cases: [
      { command: `eval '${X}'`, expect: "deny", run: `eval '${X}'` },
      { command: `eval "${X}"`, expect: "deny" },
      { command: `eval ${X}`, expect: "deny" },
      { command: "eval \"$(cat x.sh)\"", expect: "not-allow", reason: /only known when it runs/ },
      { command: "eval $CMD", expect: "not-allow", reason: /only known when it runs/ },
      { command: "eval \"$(ssh-agent -s)\"", expect: "not-allow", reason: /only known when it runs/ },
      { command: `eval "$(echo ${X})"`, expect: "not-allow", reason: /only known when it runs/, run: `eval "$(echo ${X})"` },
      { command: "eval `cat x.sh`", expect: "not-allow", reason: /only known when it runs/ },
      { command: "eval echo hi", expect: "allow" },
    ],
  },
  {
    name: "option variables a program reads before its own options (TAR_OPTIONS, LESS) and the preprocessors less runs (LESSOPEN, LESSCLOSE)",
    source: "GNU tar manual 'TAR_OPTIONS' (options prepended to the command line); less(1) 'LESS' (options), 'INPUT PREPROCESSOR' (LESSOPEN, LESSCLOSE); GTFOBins (tar, less)",
    allow: ["tar:*", "less:*"],
    program: "tar",
    cases: [
      { command: "TAR_OPTIONS='--to-command=rm' tar xf a.tar", expect: "deny", run: "printf '#!/bin/sh\\ntouch MARKER\\n' > mk && chmod +x mk && tar cf a.tar a.txt && TAR_OPTIONS='--to-command=./mk' tar xf a.tar" },
      { command: "TAR_OPTIONS='--checkpoint=1 --checkpoint-action=exec=rm' tar cf /dev/null a.txt", expect: "deny", run: "TAR_OPTIONS='--checkpoint=1 --checkpoint-action=exec=touch\\ MARKER' tar cf /dev/null a.txt" },
      { command: "env TAR_OPTIONS='-I rm' tar cf x.tar a.txt", expect: "deny" },
      { command: "export TAR_OPTIONS='--to-command=rm'; tar xf a.tar", expect: "deny" },
      { command: "TAR_OPTIONS='--use-compress-program=./x.sh' tar xf a.tar", expect: "not-allow", reason: /TAR_OPTIONS|NAME=value/ },
      { command: "TAR_OPTIONS=\"$OPTS\" tar xf a.tar", expect: "not-allow", reason: /TAR_OPTIONS|NAME=value|only known/ },
      { command: `LESS='+!${X}' less a.txt`, expect: "deny" },
      { command: `LESSOPEN='|${X} %s' less a.txt`, expect: "deny", run: "LESSOPEN='|touch MARKER; cat %s' less a.txt" },
      { command: `LESSOPEN='||${X} %s' less a.txt`, expect: "deny" },
      { command: `LESSCLOSE='${X} %s %s' less a.txt`, expect: "deny" },
      { command: `env LESSOPEN='|${X} %s' less a.txt`, expect: "deny" },
      { command: "LESS='-o /tmp/log' less a.txt", expect: "not-allow", reason: /LESS|NAME=value/ },
      { command: "LESS=-R less a.txt", expect: "not-allow", reason: /LESS|NAME=value/ },
      { command: "less a.txt", expect: "allow" },
      { command: "tar tf a.tar", expect: "allow" },
    ],
  },
  {
    name: "a line editor reads its commands (and their shell escapes) from standard input (echo '!cmd' | ed, here-strings, here-documents)",
    source: "GTFOBins (ed: 'Shell': ed, then !/bin/sh); POSIX ed '!command', 'r !command', 'w !command'",
    allow: ["ed:*", "echo:*", "printf:*", "cat:*"],
    program: "ed",
    cases: [
      { command: `echo '!${X}' | ed`, expect: "deny", run: `echo '!${X}' | ed` },
      { command: `printf '!${X}\\nq\\n' | ed -s a.txt`, expect: "deny", run: `printf '!${X}\\nq\\n' | ed -s a.txt` },
      { command: `ed -s a.txt <<< '!${X}'`, expect: "deny", run: `ed -s a.txt <<< '!${X}'` },
      { command: `ed -s a.txt <<'EOF'\n!${X}\nq\nEOF`, expect: "deny", run: `ed -s a.txt <<'EOF'\n!${X}\nq\nEOF` },
      { command: `echo 'r !${X}' | ed a.txt`, expect: "deny", run: `echo 'r !${X}' | ed a.txt` },
      { command: `echo 'w !${X}' | ed a.txt`, expect: "deny", run: `echo 'w !${X}' | ed a.txt` },
      { command: "cat cmds.ed | ed a.txt", expect: "not-allow", reason: /ed reads commands from a pipe/ },
      { command: "ed a.txt < cmds.ed", expect: "not-allow", reason: /ed reads commands from the file cmds\.ed/ },
      { command: "echo ',p' | ed a.txt", expect: "allow" },
      { command: "printf '1d\\nw\\nq\\n' | ed -s a.txt", expect: "allow" },
    ],
  },
];

describeBashClasses("public bypass classes (4): settings, requests, eval and option variables", CLASSES, DENY, "public-bypasses-4");

describe("public bypass classes (4): the real programs run the denied command", () => {
  const runs = CLASSES.flatMap((klass) => klass.cases.filter((c) => c.run !== undefined).map((c) => [c.run!, klass.program] as const));
  it.each(runs)("%s", (line, program) => {
    if (!installed(program)) return;
    const harmless = line.replaceAll(X, "touch MARKER");
    const run = leavesMarker(harmless, { GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t", PAGER: "cat" });
    expect(run.left, `${harmless}: ${run.stderr}`).toBe(true);
  }, 20_000);
});
