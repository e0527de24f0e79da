// Readings of programs' manuals not covered before, each class with its source: ssh/scp/sftp/rsync options
// that load a library, write a file or run a program; database and debugger clients' shell escapes,
// configuration files and file-writing statements; benchmark and process runners whose operands are
// command lines (hyperfine, concurrently); helm/kubectl/docker options and files that name programs;
// aws configure set credential_process (a command aws runs later); pip's install targets and local
// projects (setup.py runs); node/bun options that load a module first; nix/pipx/uv run subcommands;
// sudo -e / sudoedit (they write the files) and ldd (it may run the program it inspects).
//   - deny: the line runs (now or at the program's next start) a command a deny rule names;
//   - not-allow: an allow pattern matches the words, but the line runs, loads or writes what the allow
//     does not vouch for; the reason names it;
//   - allow: the plain companion the allow rule is written for stays allowed.
import { describe, expect, it } from "vitest";
import { bashGuard, describeBashClasses, expectBashDecision, installed, leavesMarker, type BashExpectation } from "./helpers/bash-rules.js";

type Expectation = Exclude<BashExpectation, "ask">;

interface Case {
  readonly command: string;
  readonly expect: Expectation;
  readonly reason?: RegExp;
}

interface Klass {
  readonly name: string;
  readonly source: string;
  readonly allow: readonly string[];
  readonly cases: readonly Case[];
}

const X = "rm -rf /tmp/x";
const DENY = ["rm:*", "nc:*"];

const CLASSES: readonly Klass[] = [
  {
    name: "ssh options that load a library or write a file (-I, -o PKCS11Provider=, -o SecurityKeyProvider=, -E); scp/sftp -S PROGRAM and -o ProxyCommand; rsync -e 'ssh -o ProxyCommand=...'",
    source: "ssh(1) ('-I pkcs11: Specify the PKCS#11 shared library ssh should use', '-E log_file: Append debug logs to log_file'); ssh_config(5) PKCS11Provider, SecurityKeyProvider ('Specifies a path to a library that will be used when loading any FIDO authenticator-hosted keys'), ProxyCommand; scp(1) and sftp(1) ('-S program: Name of program to use for the encrypted connection'); rsync(1) -e",
    allow: ["ssh:*", "scp:*", "sftp:*", "rsync:*"],
    cases: [
      { command: "ssh -I /tmp/evil.so host", expect: "not-allow", reason: /ssh loads the PKCS#11 library given with -I/ },
      { command: "ssh -I/tmp/evil.so host", expect: "not-allow", reason: /-I/ },
      { command: "ssh -o PKCS11Provider=/tmp/evil.so host", expect: "not-allow", reason: /ssh loads the library set with -o PKCS11Provider/ },
      { command: "ssh -oPKCS11Provider=/tmp/evil.so host", expect: "not-allow", reason: /PKCS11Provider/ },
      { command: "ssh -o 'SecurityKeyProvider /tmp/evil.so' host", expect: "not-allow", reason: /SecurityKeyProvider/ },
      { command: `ssh -vo 'ProxyCommand=${X}' host`, expect: "deny" },
      { command: `scp -Cvo 'ProxyCommand=${X}' a.txt host:/tmp/`, expect: "deny" },
      { command: "ssh -E /tmp/ssh.log host", expect: "not-allow", reason: /ssh writes a file through -E/ },
      { command: "ssh -vE/tmp/ssh.log host", expect: "not-allow", reason: /-E/ },
      { command: "scp -S rm a.txt host:/tmp/", expect: "deny" },
      { command: "scp -S ./evil a.txt host:/tmp/", expect: "not-allow", reason: /scp runs the program given with -S/ },
      { command: "sftp -S ./evil host", expect: "not-allow", reason: /sftp runs the program given with -S/ },
      { command: `scp -o 'ProxyCommand=${X}' a.txt host:/tmp/`, expect: "deny" },
      { command: `sftp -o 'ProxyCommand ${X}' host`, expect: "deny" },
      { command: "scp -o ProxyCommand=./proxy.sh a.txt host:/tmp/", expect: "not-allow", reason: /ProxyCommand/ },
      { command: `rsync -e "ssh -o 'ProxyCommand=${X}'" a.txt host:/tmp/`, expect: "deny" },
      { command: `rsync -av --rsh="ssh -o ProxyCommand='${X}'" src/ host:dst/`, expect: "deny" },
      { command: "ssh -i ~/.ssh/id_ed25519 -p 2222 host", expect: "allow" },
      { command: "ssh -o IdentityFile=~/.ssh/id_ed25519 -o StrictHostKeyChecking=yes host", expect: "allow" },
      { command: "scp -P 2222 a.txt host:/tmp/", expect: "allow" },
      { command: "sftp -P 2222 host", expect: "allow" },
    ],
  },
  {
    name: "rsync options that write files (--log-file, --write-batch, --only-write-batch) or run a command (--rsync-path, -e, --rsh)",
    source: "rsync(1) ('--log-file=FILE: log what we're doing to the specified FILE', '--write-batch=FILE: write a batched update to FILE', '--only-write-batch=FILE', '--rsync-path=PROGRAM: Use this to specify what program is to be run on the remote machine to start-up rsync ... it is a command line run by the remote shell', '-e, --rsh=COMMAND')",
    allow: ["rsync:*"],
    cases: [
      { command: "rsync -a --log-file=/tmp/rsync.log src/ dst/", expect: "not-allow", reason: /rsync writes a file through --log-file/ },
      { command: "rsync -a --log-file /tmp/rsync.log src/ dst/", expect: "not-allow", reason: /--log-file/ },
      { command: "rsync -a --write-batch=/tmp/batch src/ dst/", expect: "not-allow", reason: /--write-batch/ },
      { command: "rsync -a --only-write-batch /tmp/batch src/ dst/", expect: "not-allow", reason: /--only-write-batch/ },
      { command: `rsync -a --rsync-path='${X}' src/ host:dst/`, expect: "deny" },
      { command: `rsync -a --rsync-path '${X}' src/ host:dst/`, expect: "deny" },
      { command: "rsync -a --rsync-path='sudo rsync' src/ host:dst/", expect: "not-allow", reason: /--rsync-path/ },
      { command: `rsync -e '${X}' src/ host:dst/`, expect: "deny" },
      { command: `rsync -avze '${X}' src/ host:dst/`, expect: "deny" },
      { command: `rsync --rsh='${X}' src/ host:dst/`, expect: "deny" },
      // --delete deletes files as rm does: under this file's deny on rm it asks (public-bypasses-14, same-effect.ts).
      { command: "rsync -av --delete src/ dst/", expect: "not-allow", reason: /deletes files like rm/ },
      { command: "rsync -av src/ dst/", expect: "allow" },
      { command: "rsync -a --log-file-format='%i %n' src/ dst/", expect: "allow" },
      { command: "rsync -avz --progress src/ host:dst/", expect: "allow" },
    ],
  },
  {
    name: "sqlite3 and duckdb: .shell/.system dot-commands in operands and -cmd/-c values; ATTACH and VACUUM INTO write a database file",
    source: "sqlite.org/cli.html ('.shell CMD ARGS... Run CMD ARGS... in a system shell', '.system', '-cmd COMMAND: run \"COMMAND\" before reading stdin'); sqlite.org/lang_attach.html (ATTACH creates the file), sqlite.org/lang_vacuum.html ('VACUUM INTO ... the result is written into the named file'); duckdb.org/docs/clients/cli/arguments ('-c COMMAND: run COMMAND and exit', '-cmd COMMAND'), duckdb.org/docs/clients/cli/dot_commands (.shell, .system), duckdb COPY ... TO, ATTACH, EXPORT DATABASE",
    allow: ["sqlite3:*", "duckdb:*"],
    cases: [
      { command: `sqlite3 app.db '.shell ${X}'`, expect: "deny" },
      { command: `sqlite3 app.db '.system ${X}'`, expect: "deny" },
      { command: `sqlite3 -cmd '.shell ${X}' app.db`, expect: "deny" },
      { command: `sqlite3 -cmd '.system ${X}' app.db .quit`, expect: "deny" },
      { command: `sqlite3 -cmd '.output |${X}' app.db 'select 1'`, expect: "deny" },
      { command: "sqlite3 app.db \"ATTACH '/tmp/x.db' AS x\"", expect: "not-allow", reason: /sqlite3 writes a database file through ATTACH/ },
      { command: "sqlite3 app.db \"VACUUM INTO '/tmp/copy.db'\"", expect: "not-allow", reason: /VACUUM INTO/ },
      { command: "sqlite3 -cmd \"attach '/tmp/x.db' as x\" app.db .tables", expect: "not-allow", reason: /ATTACH/ },
      { command: `duckdb -c '.shell ${X}'`, expect: "deny" },
      { command: `duckdb data.duckdb -c '.system ${X}'`, expect: "deny" },
      { command: `duckdb -cmd '.shell ${X}' data.duckdb`, expect: "deny" },
      { command: `duckdb data.duckdb '.shell ${X}'`, expect: "deny" },
      { command: "duckdb -c \"COPY t TO '/tmp/out.csv'\" data.duckdb", expect: "not-allow", reason: /duckdb writes a database file through COPY/ },
      { command: "duckdb -c \"ATTACH '/tmp/x.duckdb'\"", expect: "not-allow", reason: /ATTACH/ },
      { command: "duckdb -c 'INSTALL httpfs; LOAD httpfs'", expect: "not-allow", reason: /INSTALL|LOAD/ },
      { command: "sqlite3 app.db 'SELECT count(*) FROM users'", expect: "allow" },
      { command: "sqlite3 -readonly app.db .tables", expect: "allow" },
      { command: "sqlite3 -cmd '.mode csv' app.db 'select 1'", expect: "allow" },
      { command: "duckdb -c 'SELECT 42'", expect: "allow" },
      { command: "duckdb -c \"SELECT * FROM read_csv('a.csv')\" data.duckdb", expect: "allow" },
    ],
  },
  {
    name: "mysql/mariadb option files (--defaults-file, --defaults-extra-file), system and \\! in -e, pager; psql -c '\\! CMD'",
    source: "MySQL Reference Manual 6.2.2.3 'Command-Line Options that Affect Option-File Handling' (--defaults-file, --defaults-extra-file) and 6.5.1.2 'mysql Client Commands' ('system [command], \\! [command]: Execute a system shell command', 'pager [command], \\P'); mysql option files may set pager=; MariaDB mariadb client; PostgreSQL psql ('\\! [ command ]: Escapes to a separate shell or executes the shell command')",
    allow: ["mysql:*", "mariadb:*", "psql:*"],
    cases: [
      { command: "mysql --defaults-file=./my.cnf appdb", expect: "not-allow", reason: /--defaults-file/ },
      { command: "mysql --defaults-extra-file=/tmp/x.cnf appdb", expect: "not-allow", reason: /--defaults-extra-file/ },
      { command: "mariadb --defaults-file=./my.cnf appdb", expect: "not-allow", reason: /--defaults-file/ },
      { command: `mysql -e 'system ${X}'`, expect: "deny" },
      { command: `mysql -e '\\! ${X}'`, expect: "deny" },
      { command: `mariadb --execute='system ${X}' appdb`, expect: "deny" },
      { command: `mysql -e 'pager ${X}; select 1'`, expect: "deny" },
      { command: `mysql -e '\\P ${X}' appdb`, expect: "deny" },
      { command: `mysql --pager='${X}' appdb`, expect: "deny" },
      { command: `psql -c '\\! ${X}'`, expect: "deny" },
      { command: "psql -c '\\! ./evil.sh'", expect: "not-allow", reason: /psql runs the code given with -c/ },
      { command: "mysql -u app -h db.internal appdb", expect: "allow" },
      { command: "mariadb -u app appdb", expect: "allow" },
      { command: "psql -h localhost -U me appdb", expect: "allow" },
    ],
  },
  {
    name: "mongosh and mongo: --eval runs JavaScript, --file and script operands run a file",
    source: "mongosh docs 'mongosh Options' ('--eval <javascript>: Evaluates a JavaScript expression', '--file, -f <file>: Runs a script from the command line', 'mongosh [options] [db address] [file names (ending in .js)]'); legacy mongo shell --eval",
    allow: ["mongosh:*", "mongo:*"],
    cases: [
      { command: "mongosh --eval 'db.dropDatabase()'", expect: "not-allow", reason: /mongosh runs code given with --eval/ },
      { command: `mongosh --eval 'require("child_process").execSync("${X}")' mongodb://localhost/test`, expect: "deny" },
      { command: "mongo --eval 'db.users.drop()' test", expect: "not-allow", reason: /--eval/ },
      { command: "mongosh --file ./seed.js", expect: "not-allow", reason: /--file/ },
      { command: "mongosh -f ./seed.js mongodb://localhost/test", expect: "not-allow", reason: /-f/ },
      { command: "mongosh mongodb://localhost/test ./seed.js", expect: "not-allow", reason: /seed\.js/ },
      { command: "mongosh mongodb://localhost:27017/test", expect: "allow" },
      { command: "mongosh --quiet --host localhost --port 27017", expect: "allow" },
    ],
  },
  {
    name: "debuggers' one-line commands: lldb -o/--one-line/-O/-k 'platform shell CMD' and -s/-S/-K command files; gdb -ex 'shell CMD'",
    source: "lldb(1) ('-o, --one-line <command>: Tells the debugger to execute this one-line lldb command after any file provided on the command line has been loaded', '--one-line-before-file', '--one-line-on-crash', '-s, --source <file>: Tells the debugger to read in and execute the lldb commands in the given file'); lldb 'help platform shell' ('Run a shell command on the host'); GTFOBins gdb; gdb(1) -ex, 'shell command'",
    allow: ["lldb:*", "gdb:*"],
    cases: [
      { command: `lldb -o 'platform shell ${X}' ./a.out`, expect: "deny" },
      { command: `lldb --one-line 'platform shell ${X}'`, expect: "deny" },
      { command: `lldb -O 'shell ${X}'`, expect: "deny" },
      { command: `lldb -k 'platform shell -- ${X}' ./a.out`, expect: "deny" },
      { command: "lldb -o 'script import os' ./a.out", expect: "not-allow", reason: /lldb runs the debugger command "script import os"/ },
      { command: "lldb -s ./cmds.lldb ./a.out", expect: "not-allow", reason: /lldb runs the code in the file given with -s/ },
      { command: "lldb --source ./cmds.lldb ./a.out", expect: "not-allow", reason: /--source/ },
      { command: "lldb -S ./cmds.lldb ./a.out", expect: "not-allow", reason: /-S/ },
      { command: `gdb -batch -ex 'shell ${X}' ./a.out`, expect: "deny" },
      { command: `gdb -ex '!${X}'`, expect: "deny" },
      { command: "gdb -x ./cmds.gdb ./a.out", expect: "not-allow", reason: /-x/ },
      { command: "lldb ./a.out", expect: "allow" },
      { command: "lldb -b ./a.out", expect: "allow" },
      { command: "gdb -q ./a.out", expect: "allow" },
    ],
  },
  {
    name: "benchmark and process runners whose operands are command lines (hyperfine CMD... and --prepare/--setup/--cleanup/--conclude; concurrently CMD...; npx concurrently)",
    source: "hyperfine --help ('<command>...: The command to benchmark', '-p, --prepare <CMD>', '-s, --setup <CMD>', '-c, --cleanup <CMD>', '-C, --conclude <CMD>', '-S, --shell <SHELL>', '--export-json <FILE>'); concurrently README ('concurrently \"command1 arg\" \"command2 arg\"', 'npm:watch-js' is 'npm run watch-js')",
    allow: ["hyperfine:*", "concurrently:*", "npx concurrently:*", "ls:*", "sleep:*", "npm run:*"],
    cases: [
      { command: `hyperfine '${X}'`, expect: "deny" },
      { command: `hyperfine 'sleep 0.1' '${X}'`, expect: "deny" },
      { command: `hyperfine -N --warmup 3 '${X}'`, expect: "deny" },
      { command: `hyperfine --prepare '${X}' 'sleep 0.1'`, expect: "deny" },
      { command: `hyperfine -p '${X}' 'sleep 0.1'`, expect: "deny" },
      { command: `hyperfine --setup='${X}' 'sleep 0.1'`, expect: "deny" },
      { command: `hyperfine --cleanup '${X}' 'sleep 0.1'`, expect: "deny" },
      { command: `hyperfine --conclude '${X}' 'sleep 0.1'`, expect: "deny" },
      { command: "hyperfine 'sleep 0.1' './bench.sh'", expect: "not-allow" },
      { command: "hyperfine --shell ./evil 'ls'", expect: "not-allow", reason: /--shell/ },
      { command: "hyperfine --export-json /tmp/out.json 'ls'", expect: "not-allow", reason: /hyperfine writes a file through --export-json/ },
      { command: `concurrently 'ls' '${X}'`, expect: "deny" },
      { command: `concurrently -n a,b -c red,blue 'ls' '${X}'`, expect: "deny" },
      { command: `concurrently --kill-others '${X}'`, expect: "deny" },
      { command: `npx concurrently 'ls' '${X}'`, expect: "deny" },
      { command: "concurrently 'ls' './serve.sh'", expect: "not-allow" },
      { command: "hyperfine --warmup 3 'ls -la' 'ls'", expect: "allow" },
      { command: "hyperfine -P n 1 3 'sleep 0.{n}'", expect: "allow" },
      { command: "concurrently -n a,b 'ls' 'sleep 1'", expect: "allow" },
      { command: "concurrently 'npm:dev' 'npm:watch'", expect: "allow" },
      { command: "concurrently 'npm:dev' 'pnpm:lint'", expect: "not-allow" },
    ],
  },
  {
    name: "kubernetes and container clients: helm --post-renderer runs a program; --kubeconfig (exec credential plugins) and docker --config (credential helpers) name programs; kubectl exec -- CMD",
    source: "helm docs 'Advanced Helm Techniques: Post Rendering' ('--post-renderer: the path to an executable to be used for post rendering'); Kubernetes docs 'client-go credential plugins' (a kubeconfig user's exec command is run by kubectl); docker CLI 'docker --config' and 'docker login: credential helpers' (credsStore/credHelpers run docker-credential-NAME); kubectl exec",
    allow: ["helm:*", "kubectl:*", "docker:*", "ls:*"],
    cases: [
      { command: "helm install web ./chart --post-renderer ./evil", expect: "not-allow", reason: /helm runs a command through --post-renderer/ },
      { command: "helm template ./chart --post-renderer=rm", expect: "deny" },
      { command: "helm upgrade web ./chart --kubeconfig ./kc.yaml", expect: "not-allow", reason: /--kubeconfig/ },
      { command: "kubectl --kubeconfig ./kc.yaml get pods", expect: "not-allow", reason: /--kubeconfig/ },
      { command: "kubectl get pods --kubeconfig=./kc.yaml", expect: "not-allow", reason: /--kubeconfig/ },
      { command: "kubectl --kubeconfig ./kc.yaml exec web -- ls", expect: "not-allow" },
      { command: "kubectl logs web --kubeconfig ./kc.yaml", expect: "not-allow", reason: /kubectl runs the code in the file given with --kubeconfig/ },
      { command: `kubectl exec web -- ${X}`, expect: "deny" },
      { command: `kubectl exec -it web -- sh -c '${X}'`, expect: "deny" },
      { command: `docker run --rm alpine sh -c '${X}'`, expect: "deny" },
      { command: "docker --config ./cfg pull alpine", expect: "not-allow", reason: /--config/ },
      { command: "docker --config=./cfg push registry.example.com/app", expect: "not-allow", reason: /--config/ },
      { command: "helm list -A", expect: "allow" },
      { command: "helm install web ./chart -f values.yaml -n prod", expect: "allow" },
      { command: "kubectl get pods -n prod", expect: "allow" },
      { command: "kubectl --context staging get deploy", expect: "allow" },
      { command: "docker pull alpine", expect: "allow" },
      { command: "docker ps -a", expect: "allow" },
    ],
  },
  {
    name: "aws configure set credential_process / cli_pager stores a command aws runs later",
    source: "AWS CLI User Guide 'Sourcing credentials with an external process' ('credential_process: specifies an external command that the AWS CLI runs to generate or retrieve authentication credentials'), 'aws configure set', cli_pager ('the pager program')",
    allow: ["aws configure:*"],
    cases: [
      { command: `aws configure set credential_process '${X}'`, expect: "deny" },
      { command: `aws configure set profile.dev.credential_process '${X}'`, expect: "deny" },
      { command: `aws --profile dev configure set credential_process '${X}'`, expect: "deny" },
      { command: "aws configure set credential_process ./creds.sh", expect: "not-allow", reason: /aws configure set credential_process stores a setting/ },
      { command: "aws configure set cli_pager ./pager.sh", expect: "not-allow", reason: /cli_pager/ },
      { command: "aws configure set region eu-west-1", expect: "allow" },
      { command: "aws configure set profile.dev.output json", expect: "allow" },
      { command: "aws configure get region", expect: "allow" },
      { command: "aws configure list", expect: "allow" },
    ],
  },
  {
    name: "pip: --target/--root/--prefix write elsewhere; -e and a local project run its build code (setup.py)",
    source: "pip docs 'pip install' ('-t, --target <dir>: Install packages into <dir>', '--root <dir>', '--prefix <dir>', '-e, --editable <path/url>: Install a project in editable mode', 'pip install [options] <local project path>'); Python Packaging User Guide (building a source tree runs its setup.py or build backend)",
    allow: ["pip install:*", "pip3 install:*"],
    cases: [
      { command: "pip install --target /tmp/site requests", expect: "not-allow", reason: /pip writes a file through --target/ },
      { command: "pip install -t /tmp/site requests", expect: "not-allow", reason: /-t/ },
      { command: "pip install --root /tmp/root requests", expect: "not-allow", reason: /--root/ },
      { command: "pip3 install --prefix=/tmp/p requests", expect: "not-allow", reason: /--prefix/ },
      { command: "pip install -e .", expect: "not-allow", reason: /pip runs the code in the file given with -e/ },
      { command: "pip install --editable ./pkg", expect: "not-allow", reason: /--editable/ },
      { command: "pip install .", expect: "not-allow", reason: /pip install runs the build code of the local project \./ },
      { command: "pip3 install ./vendor/pkg", expect: "not-allow", reason: /\.\/vendor\/pkg/ },
      { command: "pip install -U ../pkg", expect: "not-allow", reason: /\.\.\/pkg/ },
      { command: "pip install requests", expect: "allow" },
      { command: "pip install -r requirements.txt", expect: "allow" },
      { command: "pip install --index-url https://pypi.org/simple requests==2.32.3", expect: "allow" },
      { command: "pip3 install -U --user black", expect: "allow" },
    ],
  },
  {
    name: "node and bun options that load a module before the program (--import, --require/-r, --loader, --experimental-loader, --test-reporter=PATH, bun --preload)",
    source: "Node.js CLI docs ('--import=module: Preload the specified module at startup', '-r, --require module', '--experimental-loader=module', '--test-reporter': built-in reporters spec, tap, dot, junit, lcov, or a module); Bun docs 'bun run' ('--preload: Import a module before other modules are loaded', -r)",
    allow: ["node:*", "bun:*"],
    cases: [
      { command: "node --import ./evil.mjs app.js", expect: "not-allow", reason: /node runs the code in the file given with --import/ },
      { command: "node --import=./evil.mjs app.js", expect: "not-allow", reason: /--import/ },
      { command: "node --require ./evil.js app.js", expect: "not-allow", reason: /--require/ },
      { command: "node -r ./evil.js app.js", expect: "not-allow", reason: /-r/ },
      { command: "node --loader ./loader.mjs app.js", expect: "not-allow", reason: /--loader/ },
      { command: "node --experimental-loader=./loader.mjs app.js", expect: "not-allow", reason: /--experimental-loader/ },
      { command: "node --test --test-reporter=./reporter.mjs", expect: "not-allow", reason: /--test-reporter/ },
      { command: `node -r ./x.js -e 'require("child_process").execSync("${X}")'`, expect: "deny" },
      { command: "bun --preload ./evil.ts app.ts", expect: "not-allow", reason: /bun runs the code in the file given with --preload/ },
      { command: "bun run --preload=./evil.ts app.ts", expect: "not-allow", reason: /--preload/ },
      { command: "node app.js", expect: "allow" },
      { command: "node --inspect --enable-source-maps app.js", expect: "allow" },
      { command: "node --test --test-reporter=spec", expect: "allow" },
      { command: "bun app.ts", expect: "allow" },
    ],
  },
  {
    name: "run subcommands: nix run, nix-shell --run/--command, nix develop -c, nix shell -c, pipx run, uvx, uv run",
    source: "nix3-run(1) ('nix run installable -- args: Run a Nix application'), nix-shell(1) ('--run cmd', '--command cmd'), nix3-develop(1) ('-c, --command'), nix3-shell(1) ('-c, --command'); pipx docs 'pipx run' ('Download the latest version of a package to a temporary virtual environment, then run an app from it'); uv docs 'uv run', 'uvx' (uv tool run)",
    allow: ["nix:*", "nix-shell:*", "pipx run:*", "uvx:*", "uv run:*", "ls:*", "pytest:*"],
    cases: [
      { command: "nix run nixpkgs#hello", expect: "not-allow", reason: /nix run/ },
      { command: "nix run github:evil/flake -- --flag", expect: "not-allow", reason: /nix run/ },
      { command: `nix-shell --run '${X}'`, expect: "deny" },
      { command: `nix-shell -p hello --command '${X}'`, expect: "deny" },
      { command: `nix develop -c ${X}`, expect: "deny" },
      { command: `nix develop --command ${X}`, expect: "deny" },
      { command: `nix shell nixpkgs#hello -c ${X}`, expect: "deny" },
      { command: `pipx run ${X}`, expect: "deny" },
      { command: "pipx run --spec ./evil black .", expect: "not-allow" },
      { command: "pipx run black .", expect: "not-allow" },
      { command: `uvx ${X}`, expect: "deny" },
      { command: `uv run ${X}`, expect: "deny" },
      { command: `uv run -- ${X}`, expect: "deny" },
      { command: `uv run --with requests ${X}`, expect: "deny" },
      { command: "nix build .#app", expect: "allow" },
      { command: "nix flake show", expect: "allow" },
      { command: "uv run pytest -q", expect: "allow" },
      { command: "pipx run ls", expect: "allow" },
    ],
  },
  {
    name: "sudo -e and sudoedit write the files they edit; ldd may run the program it inspects",
    source: "sudo(8) ('-e, --edit: Edit one or more files instead of running a command ... sudoedit'), sudoedit(8); ldd(1) ('Security: Be aware that in some circumstances (e.g., where the program specifies an ELF interpreter other than ld-linux.so), some versions of ldd may attempt to obtain the dependency information by attempting to directly execute the program')",
    allow: ["sudo:*", "sudoedit:*", "ldd:*", "ls:*"],
    cases: [
      { command: "sudo -e /etc/hosts", expect: "not-allow", reason: /sudo edits \(writes\) the file \/etc\/hosts/ },
      { command: "sudo --edit /etc/sudoers.d/x", expect: "not-allow", reason: /\/etc\/sudoers\.d\/x/ },
      { command: "sudo -u root -e /etc/hosts", expect: "not-allow", reason: /\/etc\/hosts/ },
      { command: "sudoedit /etc/hosts", expect: "not-allow", reason: /sudoedit writes the file \/etc\/hosts/ },
      { command: "sudoedit -u www /srv/app/.env", expect: "not-allow", reason: /\/srv\/app\/\.env/ },
      { command: "ldd ./untrusted-binary", expect: "not-allow", reason: /ldd may run the program \.\/untrusted-binary/ },
      { command: "ldd -v ./app", expect: "not-allow", reason: /ldd/ },
      { command: `sudo ${X}`, expect: "deny" },
      { command: "sudo -l", expect: "allow" },
      { command: "sudo ls /root", expect: "allow" },
      { command: "ldd --version", expect: "allow" },
    ],
  },
];

describeBashClasses("public bypass classes (6): ssh/rsync options, database and debugger clients, runners, cluster clients, aws, pip, node, nix, sudoedit", CLASSES, DENY, "public-bypasses-6");

// The programs installed here judge the readings: each line, with the denied command replaced by
// `touch MARKER`, leaves MARKER (the program ran it) or OUT (the program wrote the file the line names);
// the guard denies the line with the denied command, and does not allow the one that writes.
const REAL: readonly { line: string; program: string; allow: readonly string[] }[] = [
  { line: `ssh -vo 'ProxyCommand=${X}' -o BatchMode=yes -o ConnectTimeout=2 gg-no-such-host`, program: "ssh", allow: ["ssh:*"] },
  { line: `scp -Cvo 'ProxyCommand=${X}' -o BatchMode=yes gg-no-such-host:a.txt b.txt`, program: "scp", allow: ["scp:*"] },
  { line: "ssh -E OUT -o BatchMode=yes -o ConnectTimeout=1 -p 1 127.0.0.1 true", program: "ssh", allow: ["ssh:*"] },
  { line: "rsync --log-file=OUT a.txt b.txt", program: "rsync", allow: ["rsync:*"] },
  { line: `sqlite3 :memory: '.shell ${X}'`, program: "sqlite3", allow: ["sqlite3:*"] },
  { line: `sqlite3 -cmd '.system ${X}' :memory: 'select 1'`, program: "sqlite3", allow: ["sqlite3:*"] },
  { line: `sqlite3 :memory: "ATTACH 'OUT' AS o; CREATE TABLE o.t(x);"`, program: "sqlite3", allow: ["sqlite3:*"] },
  { line: `sqlite3 :memory: "VACUUM INTO 'OUT'"`, program: "sqlite3", allow: ["sqlite3:*"] },
  { line: `gdb -batch -ex 'shell ${X}'`, program: "gdb", allow: ["gdb:*"] },
];

describe("public bypass classes (6): the real programs do what the guard reads", () => {
  it.each(REAL.map((r) => [r.line, r] as const))("%s", (_line, r) => {
    expectBashDecision(bashGuard(r.allow, DENY, "public-bypasses-6-real"), r.line, r.line.includes(X) ? "deny" : "not-allow", undefined);
    if (!installed(r.program)) return;
    const harmless = r.line.replaceAll(X, "touch MARKER");
    const run = leavesMarker(harmless);
    expect(run.left, `${harmless}: ${run.stderr}`).toBe(true);
  }, 20_000);
});
