// Programs that read commands — where a line can run a shell command (`.shell`, `\!`, `system`, `!`,
// `shell`) — from a file the line only names: psql -f, sqlite3 -init, sqlite3's and duckdb's `.read`,
// mysql's `source`, lftp -f, gdb -x. The guard reads such commands where the line holds them
// (`sqlite3 db '.shell rm x'`, `psql -c '\! rm x'`) and cannot read a file's; fed on the standard
// input (`sqlite3 db < x.sql`, `mysql < x.sql`) a deny list already could not tell, while the same
// file named by an option ran. Now every such file makes a deny cannot tell (the call asks).
//
// The real programs judge where installed: the file holds `touch MARKER` behind the program's shell
// escape, and the command leaves MARKER in a scratch directory.
import { describe, expect, it } from "vitest";
import { denyListGuard, installed, leavesMarker } from "./helpers/bash-rules.js";

const guard = denyListGuard(["rm:*", "git push:*", "touch:*"], "client-command-files");

/** The command, the file it reads (written first when the real program runs it), and the program. */
const CASES: readonly { line: string; file: string; text: string; program: string }[] = [
  { line: "sqlite3 -init x.sql :memory: .quit", file: "x.sql", text: ".shell touch MARKER\n", program: "sqlite3" },
  { line: "sqlite3 -batch -init x.sql :memory: 'select 1'", file: "x.sql", text: ".system touch MARKER\n", program: "sqlite3" },
  { line: "sqlite3 :memory: < x.sql", file: "x.sql", text: ".shell touch MARKER\n", program: "sqlite3" },
  { line: "sqlite3 :memory: '.read x.sql'", file: "x.sql", text: ".shell touch MARKER\n", program: "sqlite3" },
  { line: "sqlite3 -cmd '.read x.sql' :memory: .quit", file: "x.sql", text: ".shell touch MARKER\n", program: "sqlite3" },
  { line: "duckdb -init x.sql", file: "x.sql", text: ".shell touch MARKER\n", program: "duckdb" },
  { line: "psql -f x.sql", file: "x.sql", text: "\\! touch MARKER\n", program: "psql-server" },
  { line: "psql --file=x.sql", file: "x.sql", text: "\\! touch MARKER\n", program: "psql-server" },
  { line: "psql -fx.sql", file: "x.sql", text: "\\! touch MARKER\n", program: "psql-server" },
  { line: "psql -q -v ON_ERROR_STOP=1 -f x.sql db", file: "x.sql", text: "\\! touch MARKER\n", program: "psql-server" },
  { line: "psql -c '\\i x.sql'", file: "x.sql", text: "\\! touch MARKER\n", program: "psql-server" },
  { line: "psql -c '\\ir x.sql'", file: "x.sql", text: "\\! touch MARKER\n", program: "psql-server" },
  { line: "psql < x.sql", file: "x.sql", text: "\\! touch MARKER\n", program: "psql-server" },
  { line: "mysql < x.sql", file: "x.sql", text: "system touch MARKER\n", program: "mysql-server" },
  { line: "mysql -e 'source x.sql'", file: "x.sql", text: "system touch MARKER\n", program: "mysql-server" },
  { line: "mysql -e '\\. x.sql'", file: "x.sql", text: "system touch MARKER\n", program: "mysql-server" },
  { line: "lftp -f x.lftp", file: "x.lftp", text: "!touch MARKER\n", program: "lftp" },
  { line: "gdb -batch -x x.gdb", file: "x.gdb", text: "shell touch MARKER\n", program: "gdb" },
  { line: "gdb -batch --command=x.gdb", file: "x.gdb", text: "shell touch MARKER\n", program: "gdb" },
  { line: "gdb -batch -ix x.gdb", file: "x.gdb", text: "shell touch MARKER\n", program: "gdb" },
];

describe("a file of client commands named on the line: a deny list cannot tell what it runs", () => {
  it.each(CASES.map((c) => [c.line, c] as const))("%s", (_line, c) => {
    const decision = guard.decide("Bash", { command: c.line });
    expect(decision.mode, decision.reason).toBe("ask");
    expect(decision.reason).toContain(c.file);
    // The real program runs the file's shell escape (psql and mysql need a server, which these runs do not have).
    if (installed(c.program)) {
      const run = leavesMarker(`printf '%s' '${c.text.replaceAll("'", "'\\''")}' > ${c.file}; ${c.line}`);
      expect(run.left, run.stderr).toBe(true);
    }
  });

  it.each(["sqlite3 db 'select 1'", "sqlite3 db .tables", "psql -c 'select 1'", "psql -d db -c 'select count(*) from t'", "mysql -e 'select 1'", "gdb -batch -ex bt ./a.out"])("commands the line holds stay read: %s is allowed", (line) =>
    expect(guard.decide("Bash", { command: line }).mode).toBe("allow"),
  );

  it("a program an environment variable names by path is a program like any other: GIT_ASKPASS=./x git push is judged as ./x is", () => {
    const other = denyListGuard(["rm:*"], "client-command-files-askpass");
    expect(other.decide("Bash", { command: "GIT_ASKPASS=./x git fetch" }).mode).toBe(other.decide("Bash", { command: "./x" }).mode);
    expect(guard.decide("Bash", { command: "GIT_ASKPASS=./x git push" }).mode).toBe("deny");
    expect(guard.decide("Bash", { command: "GIT_ASKPASS='rm -rf ~' git fetch" }).mode).toBe("deny");
  });
});
