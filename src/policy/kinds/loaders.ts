/**
 * Programs that load code from files they find by convention, not from files the line names: git runs
 * the repository's hooks and the commands its configuration names, pytest imports conftest.py and the
 * tests, cargo runs build.rs, a Python interpreter imports the modules beside its script and runs the
 * `.pth` files of its site directories, `npm test` runs whatever the package's scripts run, a shell
 * reads its startup files. A line that writes such a file and then runs the program runs what the
 * file holds, which is only known when the line runs (shell.ts scriptsWritten).
 *
 * Each entry: the written paths (as written in the line, `./` removed) the program may load, and
 * what it loads, as a phrase. `subcommands`: only when the program's first operand is one of them.
 */

/** A program's convention: which written files it may run as code, and what it runs, as a phrase. */
export interface CodeLoader {
  readonly files: RegExp;
  readonly what: string;
  readonly subcommands?: ReadonlySet<string>;
  /** Only when an operand names a local directory or file to build (`pip install .`, `pip install -e ./pkg`). */
  readonly localOperand?: boolean;
  /**
   * An interpreter: it loads the modules its script or code imports. A file an extraction or a checkout wrote is
   * counted only when the interpreter runs it by name (`tar -xf a.tar && python3 run.py`), and `--version` loads nothing.
   */
  readonly interpreter?: boolean;
}

/** git's hooks, by name (githooks(5)): one written where git looks (`.git/hooks/NAME`, or NAME after `cd .git/hooks`). */
const GIT_HOOKS =
  "applypatch-msg|pre-applypatch|post-applypatch|pre-commit|pre-merge-commit|prepare-commit-msg|commit-msg|post-commit|pre-rebase|post-checkout|post-merge|pre-push|pre-receive|update|proc-receive|post-receive|post-update|reference-transaction|push-to-checkout|pre-auto-gc|post-rewrite|sendemail-validate|fsmonitor-watchman|p4-changelist|p4-prepare-changelist|p4-post-changelist|p4-pre-submit|post-index-change";

/** An ssh client's configuration (`ProxyCommand`, `LocalCommand`, `Match exec` run commands). */
const SSH_CONFIG = String.raw`(?:^|/)\.ssh/config$`;
/**
 * What git loads: a hook, the repository's configuration (a pager, an editor, `core.fsmonitor`, aliases,
 * diff and merge drivers, `core.sshCommand`), the user's configuration, pre-commit's hooks (its git hook
 * runs the entries of .pre-commit-config.yaml), and ssh's configuration for a remote reached over ssh.
 */
const GIT_FILES = new RegExp(
  String.raw`(?:^|/)(?:hooks/)?(?:${GIT_HOOKS})$|(?:^|/)\.git/(?:hooks/[^/]+|config(?:\.worktree)?|worktrees/[^/]+/config\.worktree)$|^config(?:\.worktree)?$|(?:^|/)\.gitconfig$|^/etc/gitconfig$|(?:^|/)\.config/git/config$|(?:^|/)\.pre-commit-config\.ya?ml$|${SSH_CONFIG}`,
);

/** Python source an interpreter imports (a module beside the script, sitecustomize, usercustomize) and `.pth` files, which run their `import` lines at start-up. */
const PYTHON_CODE = String.raw`\.py[wi]?$|\.pth$`;
/** A Python project's build and test configuration (build backends, pytest's addopts and plugins). */
const PYTHON_PROJECT = String.raw`(?:^|/)(?:pyproject\.toml|setup\.cfg|pytest\.ini|tox\.ini|noxfile\.py|conftest\.py|setup\.py|\.pytest\.ini)$`;
/** JavaScript and TypeScript modules (and native addons) node, bun, deno and the tools built on them load. */
const JS_CODE = String.raw`\.(?:[cm]?[jt]s|[jt]sx|node|wasm)$`;
/** Package managers' settings that name programs they run (`script-shell`, `node-options`, `yarnPath`, a pnpmfile's hooks). */
const PACKAGE_SETTINGS = String.raw`(?:^|/)(?:\.npmrc|\.yarnrc|\.yarnrc\.yml|\.pnpmfile\.[cm]?js|package\.json|bunfig\.toml)$`;
/** Scripts a package's scripts may run. */
const SCRIPTS = String.raw`\.(?:sh|bash|zsh|py|rb|pl|php)$`;

const rx = (...parts: string[]): RegExp => new RegExp(parts.join("|"));
const set = (words: string): ReadonlySet<string> => new Set(words.split(" "));

const PYTHON: CodeLoader = { files: rx(PYTHON_CODE), what: "the modules it imports and the .pth and sitecustomize files it runs at start-up", interpreter: true };
const PYTHON_TESTS: CodeLoader = { files: rx(PYTHON_CODE, PYTHON_PROJECT), what: "the project's tests, conftest.py files and the plugins its configuration names" };
const PYTHON_BUILD: CodeLoader = { files: rx(PYTHON_CODE, PYTHON_PROJECT), what: "the project's build scripts (setup.py, the build backend pyproject.toml names)" };
const JS: CodeLoader = { files: rx(JS_CODE), what: "the modules it imports", interpreter: true };
const JS_TOOL: CodeLoader = { files: rx(JS_CODE, String.raw`(?:^|/)package\.json$`), what: "its configuration file, plugins and the project's modules, which are code" };
const PACKAGE_RUN: CodeLoader = { files: rx(JS_CODE, PACKAGE_SETTINGS, SCRIPTS), what: "the package's scripts, and the programs and modules they run" };
const RUBY: CodeLoader = { files: /\.(?:rb|rake|gemspec|ru)$|(?:^|\/)(?:Rakefile|Gemfile|\.rspec|\.pryrc|\.irbrc)$/, what: "the project's Ruby files (Rakefile, Gemfile and what they require)" };
const SHELL_STARTUP: CodeLoader = { files: /(?:^|\/)\.(?:bashrc|bash_profile|bash_login|bash_logout|profile|zshenv|zshrc|zprofile|zlogin|zlogout|kshrc|mkshrc)$/, what: "its start-up files" };
const VIM: CodeLoader = { files: /(?:^|\/)(?:\.vimrc|_vimrc|\.exrc|\.gvimrc|\.nvimrc|init\.vim|init\.lua)$|(?:^|\/)\.vim\/|(?:^|\/)\.config\/nvim\//, what: "its start-up scripts and plugins" };
const SSH: CodeLoader = { files: new RegExp(SSH_CONFIG), what: "the commands its configuration names (ProxyCommand, LocalCommand, Match exec)" };
const TERRAFORM: CodeLoader = {
  files: /\.tf(?:\.json)?$|(?:^|\/)\.terraformrc$|(?:^|\/)terraform\.rc$/,
  what: "the configuration's local-exec provisioners and external programs",
  subcommands: set("plan apply destroy refresh import console test"),
};

/** Programs by name (a Python module run with `python3 -m NAME` by its name). */
export const CODE_LOADERS: Readonly<Record<string, CodeLoader>> = {
  git: { files: GIT_FILES, what: "the repository's hooks and the commands its configuration names" },
  ...Object.fromEntries(["python", "python2", "python3", "pypy", "pypy3"].map((name) => [name, PYTHON])),
  pytest: PYTHON_TESTS,
  "py.test": PYTHON_TESTS,
  unittest: PYTHON_TESTS,
  tox: PYTHON_TESTS,
  nox: PYTHON_TESTS,
  hatch: PYTHON_BUILD,
  pip: { ...PYTHON_BUILD, subcommands: set("install wheel download"), localOperand: true },
  build: PYTHON_BUILD,
  uv: { ...PYTHON_BUILD, subcommands: set("run sync build lock add tool pip") },
  poetry: { ...PYTHON_BUILD, subcommands: set("run install build sync add lock") },
  pdm: { ...PYTHON_BUILD, subcommands: set("run install build sync add lock") },
  invoke: { files: /(?:^|\/)tasks\.py$|\.py$/, what: "the tasks of tasks.py" },
  fab: { files: /(?:^|\/)fabfile\.py$|\.py$/, what: "the tasks of fabfile.py" },
  ...Object.fromEntries(["node", "nodejs", "bun", "deno", "tsx", "ts-node"].map((name) => [name, JS])),
  ...Object.fromEntries(
    ["jest", "vitest", "mocha", "ava", "tap", "karma", "playwright", "cypress", "eslint", "prettier", "webpack", "vite", "rollup", "babel", "next", "nuxt", "astro", "turbo", "nx", "lerna", "stylelint", "gulp", "grunt", "esbuild"].map((name) => [name, JS_TOOL]),
  ),
  npm: { ...PACKAGE_RUN, subcommands: set("test t tst start stop restart run run-script rum urn install i in ins inst insta instal ci clean-install ic install-test it cit rebuild rb pack publish") },
  pnpm: { ...PACKAGE_RUN, subcommands: set("test t start run install i add rebuild rb pack publish") },
  yarn: PACKAGE_RUN,
  go: { files: /\.go$|\.s$|(?:^|\/)go\.(?:mod|work)$/, what: "the package's code and its go:generate directives", subcommands: set("test run generate") },
  cargo: {
    files: /\.rs$|(?:^|\/)(?:Cargo\.toml|build\.rs|rust-toolchain(?:\.toml)?)$|(?:^|\/)\.cargo\/config(?:\.toml)?$/,
    what: "the crate's build script (build.rs), procedural macros and tests",
    subcommands: set("build b check c test t run r bench clippy doc d install fix rustc publish package"),
  },
  ruby: { ...RUBY, interpreter: true },
  rake: RUBY,
  rspec: RUBY,
  bundle: { ...RUBY, subcommands: set("install exec update") },
  rails: RUBY,
  perl: { files: /\.p[lm]$/, what: "the modules it loads", interpreter: true },
  prove: { files: /\.(?:t|p[lm])$/, what: "the tests and modules it runs" },
  php: { files: /\.php$/, what: "the files it includes", interpreter: true },
  composer: { files: /(?:^|\/)composer\.json$|\.php$/, what: "the package's scripts and plugins" },
  phpunit: { files: /\.php$|(?:^|\/)phpunit\.xml(?:\.dist)?$/, what: "the tests and their bootstrap" },
  just: { files: /(?:^|\/)\.?[Jj]ustfile$|\.just$/, what: "the recipes of the justfile" },
  task: { files: /(?:^|\/)Taskfile(?:\.dist)?\.ya?ml$/, what: "the tasks of the Taskfile" },
  cmake: { files: /(?:^|\/)CMakeLists\.txt$|\.cmake$/, what: "the project's CMake scripts (execute_process)" },
  meson: { files: /(?:^|\/)meson(?:\.build|_options\.txt|\.options)$/, what: "the project's meson.build (run_command)" },
  ninja: { files: /\.ninja$/, what: "the rules of build.ninja" },
  scons: { files: /(?:^|\/)SCons(?:truct|cript)$|\.py$/, what: "the SConstruct and SConscript files" },
  gradle: { files: /\.gradle(?:\.kts)?$|(?:^|\/)gradle\.properties$/, what: "the build's Gradle scripts" },
  mvn: { files: /(?:^|\/)pom\.xml$|(?:^|\/)\.mvn\//, what: "the project's plugins (exec, antrun)" },
  sbt: { files: /\.sbt$|\.scala$/, what: "the build definition" },
  ant: { files: /(?:^|\/)build\.xml$/, what: "the build file's tasks (exec)" },
  dotnet: { files: /\.(?:cs|fs|vb)proj$|\.(?:cs|fs|props|targets)$/, what: "the project's build tasks (Exec) and code", subcommands: set("build run test publish pack msbuild") },
  terraform: TERRAFORM,
  tofu: TERRAFORM,
  "ansible-playbook": { files: /\.ya?ml$|\.py$/, what: "the playbook's tasks" },
  direnv: { files: /(?:^|\/)\.envrc$|(?:^|\/)\.env$/, what: "the directory's .envrc" },
  "pre-commit": { files: /(?:^|\/)\.pre-commit-config\.ya?ml$/, what: "the hooks .pre-commit-config.yaml names" },
  ...Object.fromEntries(["bash", "sh", "zsh", "dash", "ksh", "mksh"].map((name) => [name, SHELL_STARTUP])),
  ...Object.fromEntries(["vim", "vi", "nvim", "view", "vimdiff", "gvim", "ex"].map((name) => [name, VIM])),
  emacs: { files: /(?:^|\/)(?:\.emacs|init\.el|\.dir-locals\.el)$|\.el$/, what: "its start-up files and the directory's local variables" },
  ...Object.fromEntries(["ssh", "scp", "sftp", "rsync"].map((name) => [name, SSH])),
};
