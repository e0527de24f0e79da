import { parseOptions, type OptionTable } from "./options.js";

/**
 * How programs pick the command they run from their words: their own options before it (`npm
 * --force publish`, `docker -H HOST rm`, `pip -v uninstall`, `cargo +nightly publish`), and the other
 * names they accept for it (npm's `pub`, `rum`, `un`, camelCase `installTest`; docker's `container
 * remove` for `rm`; helm's `del` for `uninstall`; terraform's `apply -destroy`; `pip3` for pip). A deny
 * rule that names a command (`npm publish:*`, `docker rm:*`) is tried against each spelling the
 * program reads as that command (`spellings`); where what runs hangs on a word the guard cannot read (an
 * option it has no table for, which may or may not take the next word), against each command the
 * line may run (`maybe`), which makes a rule that matches one of those ask, not deny.
 */

/**
 * A word standing for words the guard does not read (the resources a file names): a `maybe` form
 * ending in it may be any command those words complete.
 */
export const UNREAD_WORDS = "\u0000words";

interface CommandSpellings {
  /** Words the program reads as the same command as `words` (the command by its other names, its own options dropped): tried by a deny as they are. */
  readonly spellings: readonly (readonly string[])[];
  /** Commands the line may run, and why the guard cannot tell which. */
  readonly maybe: readonly { readonly form: readonly string[]; readonly reason: string }[];
}

const NONE: CommandSpellings = { spellings: [], maybe: [] };

/** Versioned and distribution names of one program (`pip3.11` is pip, `nodejs` is node). */
const PROGRAM_NAMES: readonly { readonly name: RegExp; readonly as: string }[] = [
  { name: /^(python|pip|pydoc|idle|ruby|gem|irb|perl|php|lua|luarocks|node)(?:\d+(?:\.\d+)*)$/, as: "$1" },
  { name: /^nodejs$/, as: "node" },
];

/** A name PROGRAM_NAMES may rename: ending in a digit, or nodejs. */
const VERSIONED_OR_ALIASED = /\d$|^nodejs$/;

/**
 * A program's own grammar for its command words: its options before them, the spellings of one
 * command (each row lists them; the first is the name used in forms), and whether its options may
 * also stand among the command words (`aws s3 --debug rm`, getopt's permutation in systemctl).
 */
interface CommandTable {
  readonly global: OptionTable;
  /** Spellings of one command, as word sequences: a command read as any of them is also tried as each of the others. */
  readonly same?: readonly (readonly (readonly string[])[])[];
  /** Options may stand anywhere among the words (read out of them wherever they are). */
  readonly anywhere?: boolean;
  /** A first word the program takes before its options (`cargo +TOOLCHAIN`, rustup's proxy): dropped. */
  readonly leading?: RegExp;
  /** How many command words the options may stand among (`aws SERVICE OPERATION`: 2); after them the words are the command's own. */
  readonly depth?: number;
  /** A command that is another one and more (`apt-get purge` removes, `terraform destroy` applies): read as that one too. */
  readonly implies?: Readonly<Record<string, readonly string[]>>;
  /** A command given by an option: `terraform apply -destroy` is `terraform destroy`. */
  readonly optionCommands?: readonly { readonly command: string; readonly option: RegExp; readonly as: string }[];
}

/** docker's own options (docker --help, "Global Options"), read only before the command. */
export const DOCKER_GLOBAL: OptionTable = { flags: "Dvh", valued: "Hcl", long: ["--debug", "--tls", "--tlsverify", "--version", "--help"], longValued: ["--host", "--context", "--config", "--log-level", "--tlscacert", "--tlscert", "--tlskey"] };

/** Compose's own options before its command (`docker compose -f FILE -p NAME down`; docker-compose's alike). */
export const COMPOSE_GLOBAL: OptionTable = {
  valued: "fp",
  long: ["--all-resources", "--compatibility", "--dry-run", "--verbose", "--no-ansi", "--skip-hostname-check", "--tls", "--tlsverify"],
  longValued: ["--ansi", "--env-file", "--file", "--parallel", "--profile", "--progress", "--project-directory", "--project-name", "--log-level", "--host", "--context"],
};

/** Compose run as docker's plugin (`docker compose`) and as its own program (`docker-compose`): one command. */
const COMPOSE: CommandTable = { global: COMPOSE_GLOBAL };

/** docker's commands and their other names (docker CLI 28, each command's "Aliases:" in its --help). */
const DOCKER_SAME: readonly (readonly (readonly string[])[])[] = [
  ...["attach", "commit", "cp", "create", "diff", "exec", "export", "kill", "logs", "pause", "port", "rename", "restart", "run", "start", "stats", "stop", "top", "unpause", "update", "wait"].map((name) => [["container", name], [name]]),
  [["container", "ls"], ["container", "list"], ["container", "ps"], ["ps"]],
  [["container", "rm"], ["container", "remove"], ["rm"]],
  [["image", "build"], ["build"], ["builder", "build"], ["buildx", "build"]],
  ...["history", "import", "load", "pull", "push", "save", "tag"].map((name) => [["image", name], [name]]),
  [["image", "ls"], ["image", "list"], ["images"]],
  [["image", "rm"], ["image", "remove"], ["rmi"]],
  [["system", "events"], ["events"]],
  [["system", "info"], ["info"]],
  [["stack", "deploy"], ["stack", "up"]],
  [["stack", "rm"], ["stack", "remove"], ["stack", "down"]],
  ...["volume", "network", "context", "plugin", "config", "node", "secret", "service", "stack", "checkpoint"].flatMap((group) => [
    [[group, "rm"], [group, "remove"]],
    [[group, "ls"], [group, "list"]],
  ]).filter((row) => row[0]![0] !== "stack" || row[0]![1] !== "rm"),
];

/**
 * podman's own options (podman 4, `podman --help`), read only before the command, for its command's
 * spellings (the wrapper reading keeps docker's table, so an option that names a program podman runs,
 * `--runtime`, `--conmon`, stays one it cannot read), and its commands' other names: each container
 * command by itself (`podman rm` is `podman container rm`: the same options in their --help), the
 * image commands likewise, and the `ls`/`list`/`ps` and `rm`/`remove` names within a group.
 */
const PODMAN: CommandTable = {
  global: {
    flags: "rvh",
    valued: "c",
    long: ["--help", "--remote", "--noout", "--syslog", "--version"],
    longValued: [
      "--connection", "--cgroup-manager", "--conmon", "--events-backend", "--hooks-dir", "--identity", "--log-level", "--namespace", "--network-cmd-path", "--network-config-dir",
      "--root", "--runroot", "--runtime", "--runtime-flag", "--ssh", "--storage-driver", "--storage-opt", "--tmpdir", "--url", "--volumepath",
    ],
  },
  same: [
    ...["attach", "commit", "cp", "create", "diff", "exec", "export", "init", "kill", "logs", "mount", "pause", "port", "rename", "restart", "run", "start", "stats", "stop", "top", "unmount", "unpause", "update", "wait"].map((name) => [["container", name], [name]]),
    [["container", "rm"], ["container", "remove"], ["rm"]],
    [["container", "list"], ["container", "ls"], ["container", "ps"], ["ps"]],
    [["image", "rm"], ["image", "remove"], ["rmi"]],
    [["image", "list"], ["image", "ls"], ["images"]],
    ...["build", "push", "pull", "tag", "save", "load", "history", "import"].map((name) => [["image", name], [name]]),
    ...["volume", "network", "pod"].flatMap((group) => [
      [[group, "rm"], [group, "remove"]],
      [[group, "ls"], [group, "list"], ...(group === "pod" ? [[group, "ps"]] : [])],
    ]),
  ],
};

/** pip's general options (pip 23, `pip --help`): optparse, read before the command, long names abbreviated to a unique prefix. */
const PIP_GLOBAL: OptionTable = {
  flags: "hvVq",
  long: ["--help", "--debug", "--isolated", "--require-virtualenv", "--verbose", "--version", "--quiet", "--no-input", "--no-cache-dir", "--disable-pip-version-check", "--no-color", "--no-python-version-warning"],
  longValued: ["--python", "--log", "--keyring-provider", "--proxy", "--retries", "--timeout", "--exists-action", "--trusted-host", "--cert", "--client-cert", "--cache-dir", "--use-feature", "--use-deprecated", "--resume-retries"],
};

/** cargo's own options (cargo 1.95, `cargo --help`) and its built-in aliases (`b`, `c`, `d`, `t`, `r`, `rm`); `+TOOLCHAIN` first (rustup). */
const CARGO: CommandTable = {
  global: {
    flags: "Vvqh",
    valued: "CZ",
    long: ["--version", "--list", "--verbose", "--quiet", "--locked", "--offline", "--frozen", "--help"],
    longValued: ["--explain", "--color", "--config"],
  },
  leading: /^\+\S+$/,
  same: [[["build"], ["b"]], [["check"], ["c"]], [["doc"], ["d"]], [["test"], ["t"]], [["run"], ["r"]], [["remove"], ["rm"]]],
};

/** helm's persistent options (cobra: before the command or among its words) and its commands' aliases (helm 3 source, `Aliases:`). */
const HELM: CommandTable = {
  global: {
    flags: "h",
    valued: "n",
    long: ["--debug", "--kube-insecure-skip-tls-verify", "--help"],
    longValued: ["--namespace", "--kube-context", "--kubeconfig", "--burst-limit", "--kube-apiserver", "--kube-as-group", "--kube-as-user", "--kube-ca-file", "--kube-tls-server-name", "--kube-token", "--qps", "--registry-config", "--repository-cache", "--repository-config", "--content-cache"],
  },
  anywhere: true,
  same: [
    [["uninstall"], ["delete"], ["del"], ["un"]],
    [["list"], ["ls"]],
    [["history"], ["hist"]],
    [["dependency"], ["dep"], ["dependencies"]],
    [["repo", "remove"], ["repo", "rm"]],
    [["plugin", "uninstall"], ["plugin", "rm"], ["plugin", "remove"]],
    [["plugin", "list"], ["plugin", "ls"]],
  ],
  depth: 2,
};

/** terraform's own options (`-chdir=DIR`, `-help`, `-version`); `terraform destroy` is `terraform apply -destroy`. */
const TERRAFORM: CommandTable = {
  global: { singleDash: ["-help", "-version", "-v", "-h"], singleDashEq: ["-chdir"] },
  optionCommands: [{ command: "apply", option: /^--?destroy(?:=true)?$/, as: "destroy" }],
  implies: { destroy: ["apply", "-destroy"] },
};

/** The AWS CLI's global options, read anywhere on its line (`aws --profile P s3 rm`, `aws s3 --debug rm`). */
const AWS: CommandTable = {
  global: {
    long: ["--debug", "--no-verify-ssl", "--no-paginate", "--version", "--no-sign-request", "--no-cli-pager", "--cli-auto-prompt", "--no-cli-auto-prompt"],
    longValued: ["--endpoint-url", "--output", "--query", "--profile", "--region", "--color", "--ca-bundle", "--cli-read-timeout", "--cli-connect-timeout", "--cli-binary-format"],
  },
  anywhere: true,
  depth: 2,
};

/** systemctl (getopt_long with permutation: options anywhere); the options that take a value. */
const SYSTEMCTL: CommandTable = {
  global: {
    flags: "hrqalifT",
    valued: "tpPsHMno",
    long: ["--help", "--version", "--system", "--user", "--global", "--recursive", "--reverse", "--after", "--before", "--all", "--full", "--show-types", "--value", "--failed", "--quiet", "--no-block", "--wait", "--no-wall", "--no-reload", "--no-ask-password", "--force", "--runtime", "--now", "--no-pager", "--no-legend", "--firmware-setup", "--dry-run", "--ignore-inhibitors", "--read-only", "--mkdir", "--marked", "--with-dependencies", "--show-transaction"],
    longValued: ["--type", "--property", "--state", "--job-mode", "--kill-whom", "--kill-value", "--signal", "--what", "--host", "--machine", "--root", "--image", "--image-policy", "--preset-mode", "--lines", "--output", "--timestamp", "--message", "--boot-loader-menu", "--boot-loader-entry", "--reboot-argument", "--check-inhibitors", "--when", "--drop-in"],
    longOptional: ["--legend", "--plain"],
  },
  anywhere: true,
};

/** apt-get and apt (APT's option parser: options anywhere); `purge` is `remove --purge`. */
const APT_GET: CommandTable = {
  global: {
    flags: "hqdsyfmubVv",
    valued: "octa",
    long: ["--help", "--quiet", "--download-only", "--simulate", "--just-print", "--dry-run", "--recon", "--no-act", "--yes", "--assume-yes", "--assume-no", "--fix-broken", "--fix-missing", "--ignore-missing", "--no-download", "--show-upgraded", "--verbose-versions", "--compile", "--build", "--ignore-hold", "--no-upgrade", "--only-upgrade", "--allow-downgrades", "--allow-remove-essential", "--allow-change-held-packages", "--force-yes", "--print-uris", "--purge", "--reinstall", "--list-cleanup", "--trivial-only", "--no-remove", "--auto-remove", "--autoremove", "--only-source", "--diff-only", "--dsc-only", "--tar-only", "--arch-only", "--indep-only", "--allow-unauthenticated", "--no-install-recommends", "--install-recommends", "--no-install-suggests", "--install-suggests", "--fix-policy", "--version", "--mark-auto"],
    longValued: ["--option", "--config-file", "--target-release", "--default-release", "--host-architecture", "--build-profiles"],
  },
  anywhere: true,
  optionCommands: [{ command: "remove", option: /^--purge$/, as: "purge" }],
  implies: { purge: ["remove", "--purge"] },
};

/** Homebrew's other names for its commands (Library/Homebrew/commands.rb, HOMEBREW_INTERNAL_COMMAND_ALIASES). */
const BREW: CommandTable = {
  global: {},
  same: [[["uninstall"], ["rm"], ["remove"], ["uninstal"]], [["install"], ["instal"]], [["list"], ["ls"]], [["link"], ["ln"]], [["update"], ["up"]], [["info"], ["abv"]], [["doctor"], ["dr"]], [["home"], ["homepage"]], [["postinstall"], ["post_install"]], [["livecheck"], ["lc"]]],
};

/**
 * pnpm 9: the options it reads before its command (those that take a value: `-C`/`--dir`, `-F`/`--filter`,
 * `--loglevel`, `--reporter`; pnpm's help, checked against pnpm itself) and its commands' aliases (each
 * command's "Aliases:" in its --help).
 */
const PNPM: CommandTable = {
  global: {
    flags: "rwsh",
    valued: "CF",
    long: ["--recursive", "--workspace-root", "--silent", "--stream", "--parallel", "--color", "--no-color", "--aggregate-output", "--use-stderr", "--help", "--version"],
    longValued: ["--dir", "--filter", "--filter-prod", "--loglevel", "--reporter", "--test-pattern", "--changed-files-ignore-pattern"],
  },
  same: [
    [["remove"], ["rm"], ["uninstall"], ["un"]],
    [["install"], ["i"]],
    [["install-test"], ["it"]],
    [["link"], ["ln"]],
    [["rebuild"], ["rb"]],
    [["update"], ["up"], ["upgrade"]],
    [["list"], ["ls"], ["la"], ["ll"]],
    [["test"], ["t"], ["tst"]],
    [["run"], ["run-script"]],
  ],
};

/**
 * Yarn 1 (classic): the options it reads before its command (`yarn --help`), those that take a value
 * apart; `--emoji`, `--prod` and `--scripts-prepend-node-path` take one only sometimes (commander's
 * optional values), so they are left out and make the command one the guard cannot tell.
 */
const YARN: CommandTable = {
  global: {
    flags: "svh",
    long: [
      "--check-files", "--disable-pnp", "--enable-pnp", "--pnp", "--flat", "--focus", "--force", "--frozen-lockfile", "--har", "--ignore-engines", "--ignore-optional", "--ignore-platform",
      "--ignore-scripts", "--json", "--link-duplicates", "--no-bin-links", "--no-default-rc", "--no-lockfile", "--non-interactive", "--no-node-version-check", "--no-progress", "--offline",
      "--prefer-offline", "--pure-lockfile", "--silent", "--skip-integrity-check", "--strict-semver", "--update-checksums", "--version", "--verbose", "--help",
    ],
    longValued: ["--cache-folder", "--cwd", "--global-folder", "--https-proxy", "--link-folder", "--modules-folder", "--mutex", "--network-concurrency", "--network-timeout", "--otp", "--preferred-cache-folder", "--proxy", "--registry", "--use-yarnrc"],
  },
};

/** gh's own commands (gh 2.23's `gh help`, and those later versions added); `co` is the alias its configuration starts with. */
const GH_COMMANDS = new Set([
  "auth", "browse", "codespace", "gist", "issue", "pr", "release", "repo", "run", "workflow", "alias", "api", "completion", "config", "extension", "gpg-key", "label", "search", "secret",
  "ssh-key", "status", "cache", "org", "project", "ruleset", "variable", "attestation", "copilot", "preview", "agent-task", "help", "version", "co",
]);

/**
 * cargo's own commands and built-in aliases (cargo 1.95, `cargo --list` without installed extensions),
 * and the extensions rustup ships (`fmt`, `clippy`, `miri`): another word is an alias a
 * `.cargo/config.toml` defines (`p = "publish"`) or a `cargo-NAME` program.
 */
const CARGO_COMMANDS = new Set([
  "add", "b", "bench", "build", "c", "check", "clean", "clippy", "config", "d", "doc", "fetch", "fix", "fmt", "generate-lockfile", "git-checkout", "help", "info", "init", "install",
  "locate-project", "login", "logout", "metadata", "miri", "new", "owner", "package", "pkgid", "publish", "r", "read-manifest", "remove", "report", "rm", "run", "rustc", "rustdoc",
  "search", "t", "test", "tree", "uninstall", "update", "vendor", "verify-project", "version", "yank",
]);

/**
 * GitHub's CLI (cobra): `-R`/`--repo OWNER/REPO` anywhere among its command words (`gh -R o/r pr merge`,
 * `gh pr -R o/r merge`), and `co`, the alias its configuration starts with (`pr checkout`).
 */
const GH: CommandTable = {
  global: { flags: "h", valued: "R", long: ["--help"], longValued: ["--repo"] },
  anywhere: true,
  depth: 2,
  same: [[["pr", "checkout"], ["co"]]],
};

/** Programs whose other command words are aliases their configuration defines or programs of their own (git's are read in programs.ts). */
const OWN_COMMANDS: Readonly<Record<string, ReadonlySet<string>>> = { gh: GH_COMMANDS, cargo: CARGO_COMMANDS };

/** Programs whose command words the guard reads with their own grammar (npm's is its own: readNpm). */
const COMMAND_TABLES: Readonly<Record<string, CommandTable>> = {
  docker: { global: DOCKER_GLOBAL, same: DOCKER_SAME },
  podman: PODMAN,
  pip: { global: PIP_GLOBAL },
  cargo: CARGO,
  helm: HELM,
  terraform: TERRAFORM,
  tofu: TERRAFORM,
  aws: AWS,
  systemctl: SYSTEMCTL,
  "apt-get": APT_GET,
  apt: APT_GET,
  brew: BREW,
  pnpm: PNPM,
  yarn: YARN,
  gh: GH,
};

// npm ----------------------------------------------------------------------------------------------

/** npm's commands (npm 11, lib/utils/cmd-list.js). */
const NPM_COMMANDS = [
  "access", "adduser", "approve-scripts", "audit", "bugs", "cache", "ci", "completion", "config", "dedupe", "deny-scripts", "deprecate", "diff", "dist-tag", "docs", "doctor",
  "edit", "exec", "explain", "explore", "find-dupes", "fund", "get", "help", "help-search", "init", "install", "install-ci-test", "install-scripts", "install-test", "link", "ll",
  "login", "logout", "ls", "org", "outdated", "owner", "pack", "ping", "pkg", "prefix", "profile", "prune", "publish", "query", "rebuild", "repo", "restart", "root", "run", "sbom",
  "search", "set", "shrinkwrap", "stage", "star", "stars", "start", "stop", "team", "test", "token", "trust", "undeprecate", "uninstall", "unpublish", "unstar", "update", "version",
  "view", "whoami",
] as const;

/** npm's other names for its commands (cmd-list.js): `named` are the names users write (a deny may name one), `typos` its accepted misspellings. */
const NPM_ALIASES: Readonly<Record<string, { readonly to: string; readonly named: boolean }>> = Object.fromEntries([
  ...Object.entries({
    author: "owner", home: "docs", issues: "bugs", info: "view", show: "view", find: "search", add: "install", unlink: "uninstall", remove: "uninstall", rm: "uninstall", r: "uninstall",
    un: "uninstall", rb: "rebuild", list: "ls", ln: "link", create: "init", i: "install", it: "install-test", cit: "install-ci-test", u: "update", up: "update", c: "config", s: "search",
    se: "search", tst: "test", t: "test", ddp: "dedupe", v: "view", "run-script": "run", "clean-install": "ci", "clean-install-test": "install-ci-test", x: "exec", why: "explain",
    la: "ll", ic: "ci", upgrade: "update",
  }).map(([name, to]) => [name, { to, named: true }]),
  ...Object.entries({
    verison: "version", innit: "init", in: "install", ins: "install", inst: "install", insta: "install", instal: "install", isnt: "install", isnta: "install", isntal: "install",
    isntall: "install", "install-clean": "ci", "isntall-clean": "ci", hlep: "help", "dist-tags": "dist-tag", udpate: "update", rum: "run", sit: "install-ci-test", urn: "run", ogr: "org",
    "add-user": "adduser",
  }).map(([name, to]) => [name, { to, named: false }]),
]);

/** npm's configuration keys that take a value (any type but boolean alone: `--loglevel LEVEL`, `--browser CMD`). */
const NPM_VALUED = new Set([
  "_auth", "access", "allow-directory", "allow-file", "allow-git", "allow-remote", "allow-scripts", "also", "audit-level", "auth-type", "before", "browser", "ca", "cache", "cache-max",
  "cache-min", "cafile", "call", "cert", "cidr", "cpu", "depth", "diff", "diff-dst-prefix", "diff-src-prefix", "diff-unified", "editor", "expect-result-count", "expires", "fetch-retries",
  "fetch-retry-factor", "fetch-retry-maxtimeout", "fetch-retry-mintimeout", "fetch-timeout", "git", "globalconfig", "heading", "https-proxy", "include", "init-author-email",
  "init-author-name", "init-author-url", "init-license", "init-module", "init-type", "init-version", "init.author.email", "init.author.name", "init.author.url", "init.license",
  "init.module", "init.version", "install-strategy", "key", "libc", "local-address", "location", "lockfile-version", "loglevel", "logs-dir", "logs-max", "maxsockets", "message",
  "min-release-age", "min-release-age-exclude", "name", "node-gyp", "node-options", "noproxy", "omit", "only", "orgs", "orgs-permission", "os", "otp", "pack-destination", "package",
  "packages", "packages-and-scopes-permission", "password", "prefix", "preid", "provenance-file", "proxy", "registry", "replace-registry-host", "save-prefix", "sbom-format",
  "sbom-type", "scope", "scopes", "script-shell", "searchexclude", "searchlimit", "searchopts", "searchstaleness", "shell", "tag", "tag-version-prefix", "token-description", "umask",
  "user-agent", "userconfig", "viewer", "which", "workspace",
]);

/** npm's boolean keys (they take the next word only when it is `true` or `false`; `--color always`). */
const NPM_FLAGS = new Set([
  "all", "allow-same-version", "allow-scripts-pending", "allow-scripts-pin", "audit", "bin-links", "bypass-2fa", "color", "commit-hooks", "dangerously-allow-all-scripts", "description",
  "dev", "diff-ignore-all-space", "diff-name-only", "diff-no-prefix", "diff-text", "dry-run", "engine-strict", "expect-results", "force", "foreground-scripts", "format-package-lock",
  "fund", "git-tag-version", "global", "global-style", "if-present", "ignore-scripts", "include-attestations", "include-staged", "include-workspace-root", "init-private",
  "install-links", "json", "legacy-bundling", "legacy-peer-deps", "link", "long", "offline", "omit-lockfile-registry-resolved", "optional", "package-lock", "package-lock-only",
  "packages-all", "parseable", "prefer-dedupe", "prefer-offline", "prefer-online", "production", "progress", "provenance", "read-only", "rebuild-bundle", "save", "save-bundle",
  "save-dev", "save-exact", "save-optional", "save-peer", "save-prod", "shrinkwrap", "sign-git-commit", "sign-git-tag", "strict-allow-scripts", "strict-peer-deps", "strict-ssl",
  "timing", "unicode", "update-notifier", "usage", "version", "versions", "workspaces", "workspaces-update", "yes",
]);

/** The words a boolean key also takes after it. */
const NPM_FLAG_VALUES: Readonly<Record<string, readonly string[]>> = { color: ["always"] };

/** npm's shorthands (@npmcli/config definitions): what each expands to. */
const NPM_SHORTHANDS: Readonly<Record<string, readonly string[]>> = {
  "enjoy-by": ["--before"], d: ["--loglevel", "info"], dd: ["--loglevel", "verbose"], ddd: ["--loglevel", "silly"], quiet: ["--loglevel", "warn"], q: ["--loglevel", "warn"],
  s: ["--loglevel", "silent"], silent: ["--loglevel", "silent"], verbose: ["--loglevel", "verbose"], desc: ["--description"], help: ["--usage"], local: ["--no-global"], n: ["--no-yes"],
  no: ["--no-yes"], porcelain: ["--parseable"], readonly: ["--read-only"], reg: ["--registry"], iwr: ["--include-workspace-root"], ws: ["--workspaces"], a: ["--all"], c: ["--call"],
  f: ["--force"], g: ["--global"], L: ["--location"], l: ["--long"], m: ["--message"], p: ["--parseable"], C: ["--prefix"], S: ["--save"], B: ["--save-bundle"], D: ["--save-dev"],
  E: ["--save-exact"], O: ["--save-optional"], P: ["--save-prod"], "?": ["--usage"], H: ["--usage"], h: ["--usage"], v: ["--version"], w: ["--workspace"], y: ["--yes"],
};

/** The unique prefixes of a list of names, as npm's `abbrev` reads them (every prefix that only one name has, and each name itself). */
function abbreviations(names: readonly string[]): ReadonlyMap<string, string> {
  const out = new Map<string, string>();
  const sorted = [...names].sort();
  for (const [i, name] of sorted.entries()) {
    const before = sorted[i - 1] ?? "";
    const after = sorted[i + 1] ?? "";
    const common = (other: string) => {
      let n = 0;
      while (n < name.length && name[n] === other[n]) n += 1;
      return n;
    };
    const shared = Math.max(common(before), common(after));
    for (let end = shared + 1; end <= name.length; end++) out.set(name.slice(0, end), name);
  }
  for (const name of names) out.set(name, name);
  return out;
}

let npmNamed: ReadonlyMap<string, readonly string[]> | undefined;

/** The names users write for each npm command besides its own (`install`: add, i). */
function npmNames(): ReadonlyMap<string, readonly string[]> {
  if (npmNamed !== undefined) return npmNamed;
  const out = new Map<string, string[]>();
  for (const [name, alias] of Object.entries(NPM_ALIASES)) if (alias.named) out.set(alias.to, [...(out.get(alias.to) ?? []), name]);
  return (npmNamed = out);
}

let npmCommandAbbrevs: ReadonlyMap<string, string> | undefined;
let npmKeyAbbrevs: ReadonlyMap<string, string> | undefined;

/** The command npm runs for a command word (lib/utils/cmd-list.js `deref`): camelCase as dashes, an alias, a unique prefix. */
export function npmCommand(word: string): string | undefined {
  const name = /[A-Z]/.test(word) ? word.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`) : word;
  if ((NPM_COMMANDS as readonly string[]).includes(name)) return name;
  if (Object.hasOwn(NPM_ALIASES, name)) return NPM_ALIASES[name]!.to;
  npmCommandAbbrevs ??= abbreviations([...NPM_COMMANDS, ...Object.keys(NPM_ALIASES)]);
  let found = npmCommandAbbrevs.get(name);
  while (found !== undefined && Object.hasOwn(NPM_ALIASES, found)) found = NPM_ALIASES[found]!.to;
  return found;
}

/** How npm's argument parser (nopt) reads an option word before the command: how many words it takes, or undefined when the guard cannot tell. */
function npmOptionWords(word: string, next: string | undefined): { readonly taken: number; readonly alternative?: number } | undefined {
  const takesValue = (key: string): number => {
    if (NPM_VALUED.has(key)) return 2;
    const values = ["true", "false", ...(NPM_FLAG_VALUES[key] ?? [])];
    return next !== undefined && values.includes(next) ? 2 : 1;
  };
  if (word.startsWith("--")) {
    if (word.includes("=")) return { taken: 1 };
    const given = word.slice(2);
    if (given.startsWith("no-")) return { taken: 1 };
    if (Object.hasOwn(NPM_SHORTHANDS, given)) {
      const expanded = NPM_SHORTHANDS[given]!;
      return expanded.length > 1 ? { taken: 1 } : { taken: takesValue(expanded[0]!.replace(/^--(?:no-)?/, "")) + (expanded[0]!.startsWith("--no-") ? 0 : 0) };
    }
    npmKeyAbbrevs ??= abbreviations([...NPM_VALUED, ...NPM_FLAGS]);
    const key = npmKeyAbbrevs.get(given);
    // A key npm does not know takes no value (npm 11 warns it will stop working): the next word may be its value in a later npm.
    if (key === undefined) return { taken: 1, alternative: 2 };
    return { taken: takesValue(key) };
  }
  // `-abc`: a shorthand by its whole name (`-dd`, `-ws`), else one per letter, the last of which may take the next word.
  const letters = word.slice(1);
  const whole = NPM_SHORTHANDS[letters];
  const expanded = whole !== undefined ? [whole] : [...letters].map((letter) => NPM_SHORTHANDS[letter]);
  if (expanded.some((one) => one === undefined)) return undefined;
  const last = expanded.at(-1)!;
  if (last.length > 1 || last[0]!.startsWith("--no-")) return { taken: 1 };
  return { taken: takesValue(last[0]!.slice(2)) };
}

/**
 * npm's command and its operands as npm reads its line: nopt reads options anywhere on it (`npm run
 * --silent deploy` runs the script deploy), each taking the next word or not by its type, and `--`
 * ends them.
 */
function readNpm(words: readonly string[]): CommandSpellings {
  const starts: number[] = [];
  const positional: number[] = [];
  let unsure: string | undefined;
  for (let i = 1; i < words.length; ) {
    const word = words[i]!;
    if (word === "--") {
      // The words after `--` are operands, `--` kept with them (`npm run build -- --prefix x` hands `--prefix x` to the script).
      for (let k = positional.length === 0 ? i + 1 : i; k < words.length; k++) positional.push(k);
      break;
    }
    if (!word.startsWith("-") || word === "-") {
      positional.push(i);
      i += 1;
      continue;
    }
    const read = npmOptionWords(word, words[i + 1]);
    if (read === undefined) {
      unsure ??= `npm reads ${word} in a way the guard cannot tell (whether it takes the next word as its value)`;
      if (positional.length === 0) starts.push(i + 1, i + 2);
      i += 1;
      continue;
    }
    if (read.alternative !== undefined && positional.length === 0) {
      unsure ??= `npm ${word} is an option npm does not know: it takes no value now, and the word after it as its value in a later npm`;
      starts.push(i + read.alternative);
    }
    i += read.taken;
  }
  const forms: string[][] = [];
  const maybe: { form: readonly string[]; reason: string }[] = [];
  const named = (command: string) => [command, ...(npmNames().get(command) ?? [])];
  const at = positional[0];
  if (at !== undefined) {
    const command = npmCommand(words[at]!);
    const operands = positional.slice(1).map((k) => words[k]!);
    for (const name of command === undefined ? [words[at]!] : named(command)) {
      forms.push(["npm", name, ...words.slice(at + 1)]);
      // Without the options among its operands, as npm reads them (`npm run --silent deploy` as `npm run deploy`).
      if (operands.length !== words.length - at - 1) forms.push(["npm", name, ...operands]);
    }
    // `npm exec PKG` is `npx PKG`.
    if (command === "exec") forms.push(["npx", ...operands.filter((word) => word !== "--")]);
  }
  for (const start of starts.slice(0, 8)) {
    const given = words[start];
    if (start === at || given === undefined || given.startsWith("-")) continue;
    const command = npmCommand(given);
    for (const name of command === undefined ? [given] : named(command)) maybe.push({ form: ["npm", name, ...words.slice(start + 1)], reason: unsure! });
  }
  return { spellings: forms.filter((form) => !sameWords(form, words)), maybe };
}

// kubectl --------------------------------------------------------------------------------------------

/**
 * Kubernetes' built-in resource types by their names (`kubectl api-resources` on a Kubernetes 1.30
 * cluster: plural, singular, short names; kubectl reads them in any case, and `TYPE.GROUP`,
 * `TYPE.VERSION.GROUP` as well). The first of each row is the name used in spellings.
 */
const KUBE_RESOURCES: readonly { readonly names: readonly string[]; readonly group?: string }[] = [
  { names: ["pod", "pods", "po"] },
  { names: ["service", "services", "svc"] },
  { names: ["deployment", "deployments", "deploy"], group: "apps" },
  { names: ["namespace", "namespaces", "ns"] },
  { names: ["configmap", "configmaps", "cm"] },
  { names: ["secret", "secrets"] },
  { names: ["persistentvolumeclaim", "persistentvolumeclaims", "pvc"] },
  { names: ["persistentvolume", "persistentvolumes", "pv"] },
  { names: ["node", "nodes", "no"] },
  { names: ["replicaset", "replicasets", "rs"], group: "apps" },
  { names: ["statefulset", "statefulsets", "sts"], group: "apps" },
  { names: ["daemonset", "daemonsets", "ds"], group: "apps" },
  { names: ["job", "jobs"], group: "batch" },
  { names: ["cronjob", "cronjobs", "cj"], group: "batch" },
  { names: ["ingress", "ingresses", "ing"], group: "networking.k8s.io" },
  { names: ["networkpolicy", "networkpolicies", "netpol"], group: "networking.k8s.io" },
  { names: ["serviceaccount", "serviceaccounts", "sa"] },
  { names: ["horizontalpodautoscaler", "horizontalpodautoscalers", "hpa"], group: "autoscaling" },
  { names: ["endpoints", "ep"] },
  { names: ["event", "events", "ev"] },
  { names: ["poddisruptionbudget", "poddisruptionbudgets", "pdb"], group: "policy" },
  { names: ["storageclass", "storageclasses", "sc"], group: "storage.k8s.io" },
  { names: ["customresourcedefinition", "customresourcedefinitions", "crd", "crds"], group: "apiextensions.k8s.io" },
  { names: ["replicationcontroller", "replicationcontrollers", "rc"] },
  { names: ["limitrange", "limitranges", "limits"] },
  { names: ["resourcequota", "resourcequotas", "quota"] },
  { names: ["priorityclass", "priorityclasses", "pc"], group: "scheduling.k8s.io" },
  { names: ["certificatesigningrequest", "certificatesigningrequests", "csr"], group: "certificates.k8s.io" },
  { names: ["role", "roles"], group: "rbac.authorization.k8s.io" },
  { names: ["rolebinding", "rolebindings"], group: "rbac.authorization.k8s.io" },
  { names: ["clusterrole", "clusterroles"], group: "rbac.authorization.k8s.io" },
  { names: ["clusterrolebinding", "clusterrolebindings"], group: "rbac.authorization.k8s.io" },
  { names: ["mutatingwebhookconfiguration", "mutatingwebhookconfigurations"], group: "admissionregistration.k8s.io" },
  { names: ["validatingwebhookconfiguration", "validatingwebhookconfigurations"], group: "admissionregistration.k8s.io" },
];

/** The types kubectl's `all` category names (pods, services, daemonsets, deployments, replicasets, statefulsets, jobs, cronjobs, replication controllers, autoscalers). */
const KUBE_ALL = ["pod", "service", "daemonset", "deployment", "replicaset", "statefulset", "job", "cronjob", "replicationcontroller", "horizontalpodautoscaler"];

/** kubectl's commands that take `TYPE NAME`, `TYPE/NAME` or `TYPE1,TYPE2` operands. */
const KUBECTL_RESOURCE_VERBS = new Set(["get", "describe", "delete", "edit", "patch", "label", "annotate", "scale", "expose", "autoscale", "wait", "explain", "replace"]);

/** kubectl's own options, before its command or anywhere on the line (cobra's persistent flags). */
export const KUBECTL_GLOBAL: OptionTable = {
  valued: "nsv",
  longValued: ["--namespace", "--context", "--kubeconfig", "--server", "--cluster", "--user", "--token", "--as", "--as-group", "--request-timeout", "--v"],
  long: ["--insecure-skip-tls-verify"],
};

/** kubectl's options that take a value as the next word (cobra: a boolean option takes one only with `=`): its own and its commands'. */
const KUBECTL_VALUED = new Set([
  ...[...(KUBECTL_GLOBAL.valued ?? "")].map((letter) => `-${letter}`),
  ...(KUBECTL_GLOBAL.longValued ?? []),
  "-l", "--selector", "-o", "--output", "-f", "--filename", "-k", "--kustomize", "--field-selector", "--grace-period", "--timeout", "-c", "--container", "--template", "--sort-by",
  "--chunk-size", "--replicas", "--current-replicas", "--resource-version", "--type", "-p", "--patch", "--patch-file", "--subresource", "--field-manager", "--for", "--min", "--max",
  "--cpu-percent", "--port", "--target-port", "--name", "--protocol", "--label-columns", "-L",
]);

/** The resource row a type word names (`ns`, `Namespaces`, `deployments.apps`, `deploy.v1.apps`), if any. */
function kubeResource(word: string): (typeof KUBE_RESOURCES)[number] | undefined {
  const lower = word.toLowerCase();
  const dot = lower.indexOf(".");
  const name = dot < 0 ? lower : lower.slice(0, dot);
  const group = dot < 0 ? undefined : lower.slice(dot + 1).replace(/^v\d+(?:(?:alpha|beta)\d+)?\./, "");
  return KUBE_RESOURCES.find((row) => row.names.includes(name) && (group === undefined || group === (row.group ?? "") || (row.group === undefined && /^v\d+$/.test(group))));
}

/**
 * `kubectl delete ns prod` against `kubectl delete namespace:*`: the resource type by each of its names
 * (singular, plural, short), `TYPE/NAME` as `TYPE NAME`, each type of `TYPE1,TYPE2`, any case.
 */
function readKubectl(words: readonly string[]): CommandSpellings {
  const verb = words[1];
  if (verb === undefined || !KUBECTL_RESOURCE_VERBS.has(verb)) return NONE;
  let at = 2;
  let unsure: string | undefined;
  while (at < words.length && words[at]!.startsWith("-") && words[at] !== "--") {
    const word = words[at]!;
    const name = word.includes("=") ? undefined : word;
    if (name !== undefined && KUBECTL_VALUED.has(name)) at += 2;
    else {
      if (name !== undefined && /^--[a-z]/.test(name) && !/^--(?:all|all-namespaces|now|force|wait|ignore-not-found|recursive|overwrite|local|watch|watch-only|show-labels|no-headers|dry-run|raw|cascade|include-uninitialized|show-kind|export|record|save-config|validate|allow-missing-template-keys|server-print|show-managed-fields)$/.test(name)) {
        unsure ??= `kubectl ${verb} ${name} is an option the guard does not know (whether it takes the next word as its value)`;
      }
      at += 1;
    }
  }
  const given = words[at];
  // `kubectl delete -f FILE` (or -k DIR): the resources the file names, which the guard does not read.
  const file = words.slice(2).find((word, k, rest) => /^(?:-f|--filename|-k|--kustomize)(?:=|$)/.test(word) && (word.includes("=") || rest[k + 1] !== undefined));
  if (file !== undefined && (given === undefined || given.startsWith("-"))) {
    return { spellings: [], maybe: [{ form: [words[0]!, verb, UNREAD_WORDS], reason: `kubectl ${verb} ${file.split("=")[0]!} acts on the resources the file names, which the guard does not read` }] };
  }
  if (given === undefined) return NONE;
  // The options between the command and the type go after the operands (`kubectl delete --wait=false ns x` as `kubectl delete namespace x --wait=false`).
  const before = words.slice(0, 2);
  const rest = [...words.slice(at + 1), ...words.slice(2, at)];
  const spellings: string[][] = [];
  const slash = given.indexOf("/");
  // `all` is the category of workloads kubectl expands it to (`kubectl delete all --all`).
  const types = (slash < 0 ? given : given.slice(0, slash)).split(",").flatMap((type) => (type.toLowerCase() === "all" ? [type, ...KUBE_ALL] : [type]));
  const named = slash < 0 ? [] : [given.slice(slash + 1)];
  for (const type of types) {
    const row = kubeResource(type);
    const names = row === undefined ? [type] : row.names;
    for (const name of names) {
      spellings.push([...before, name, ...named, ...rest]);
      if (named.length > 0) spellings.push([...before, `${name}/${named[0]!}`, ...rest]);
    }
  }
  const out = spellings.filter((form) => !sameWords(form, words));
  if (unsure === undefined) return { spellings: out, maybe: [] };
  // The option may have taken the type word as its value: then these are not what runs.
  return { spellings: [], maybe: out.map((form) => ({ form, reason: unsure! })) };
}

// Tables ---------------------------------------------------------------------------------------------

function sameWords(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((word, i) => word === b[i]);
}

/** The words of a table's program with its own options read out (before its command, or among its command words), and the command's other spellings. */
function readTable(name: string, table: CommandTable, words: readonly string[], guessing = true): CommandSpellings {
  const start = table.leading?.test(words[1] ?? "") === true ? 2 : 1;
  const depth = table.depth ?? 1;
  const operands: string[] = [];
  let dropped = start > 1;
  let i = start;
  while (i < words.length) {
    const parsed = parseOptions(words, i, table.global, name);
    if (parsed.next > i) dropped = true;
    if (parsed.dashdash === true) {
      operands.push(...words.slice(parsed.next));
      break;
    }
    if (parsed.unknown !== undefined) {
      if (operands.length >= 1 && table.anywhere === true) {
        // An option of the command itself, after its first word (`aws s3 rm --recursive`): the rest is its own.
        operands.push(...words.slice(parsed.next));
        break;
      }
      if (!guessing) return NONE;
      return { spellings: [], maybe: guesses(name, words, parsed.next + 1, `${parsed.unknown}, so which word is its command is only known when it runs`, table) };
    }
    i = parsed.next;
    if (i >= words.length) break;
    if (table.anywhere !== true || operands.length + 1 >= depth + 1) {
      operands.push(...words.slice(i));
      break;
    }
    operands.push(words[i]!);
    i += 1;
  }
  const forms: string[][] = [];
  const matching = (table.same ?? []).flatMap((row) => row.filter((spelling) => spelling.every((word, k) => operands[k] === word)).map((spelling) => ({ row, spelling })));
  const best = matching.sort((a, b) => b.spelling.length - a.spelling.length)[0];
  if (best !== undefined) for (const spelling of best.row) forms.push([name, ...spelling, ...operands.slice(best.spelling.length)]);
  const implied = table.implies?.[operands[0] ?? ""];
  if (implied !== undefined) forms.push([name, ...implied, ...operands.slice(1)]);
  for (const { command, option, as } of table.optionCommands ?? []) {
    const at = words.indexOf(command, start);
    if (operands[0] === command && at > 0 && words.slice(at + 1).some((word) => option.test(word))) forms.push([name, as, ...operands.slice(1).filter((word) => !option.test(word))]);
  }
  if (dropped) forms.push([name, ...operands]);
  return { spellings: forms.filter((form) => !sameWords(form, words)), maybe: [] };
}

/**
 * A program the guard has no table for, with options before its first operand (`helm --namespace N
 * uninstall x`): each option may or may not take the next word, so each word after them may be its
 * command.
 */
function guesses(name: string, words: readonly string[], from: number, reason: string, table?: CommandTable): { form: readonly string[]; reason: string }[] {
  const out: { form: readonly string[]; reason: string }[] = [];
  for (let i = from, tried = 0; i < words.length && tried < 4; i++) {
    if (words[i] === "--") continue;
    if (words[i]!.startsWith("-")) continue;
    tried += 1;
    const form = [name, ...words.slice(i)];
    out.push({ form, reason });
    // The command's other names, as the table reads them from there (`pnpm --x 2 rm y` may be `pnpm remove y`).
    if (table !== undefined) for (const other of readTable(name, table, form, false).spellings) out.push({ form: other, reason });
  }
  return out;
}

/** `args` run by the program `name`: that line and its spellings. */
function withName(name: string, args: readonly string[]): CommandSpellings {
  const line = [name, ...args];
  const inner = commandSpellings(name, line);
  return { spellings: [line, ...inner.spellings], maybe: inner.maybe };
}

/** Package managers' own scripts, which run as the program (`node …/npm/bin/npm-cli.js publish` is `npm publish`). */
const MANAGER_SCRIPTS: Readonly<Record<string, string>> = { "npm-cli.js": "npm", "npx-cli.js": "npx", "pnpm.cjs": "pnpm", "pnpm.mjs": "pnpm", "pnpx.cjs": "pnpx", "yarn.js": "yarn", "yarn.cjs": "yarn" };

function scriptName(word: string): string | undefined {
  const base = word.slice(word.lastIndexOf("/") + 1);
  return Object.hasOwn(MANAGER_SCRIPTS, base) ? MANAGER_SCRIPTS[base] : undefined;
}

/** The spellings of `words` as its program reads its command words (see CommandSpellings), `name` its program's base name. */
export function commandSpellings(name: string, words: readonly string[]): CommandSpellings {
  // `npm-cli.js publish`, `node /usr/lib/node_modules/npm/bin/npm-cli.js publish` (node's own options before the script).
  const script = scriptName(name);
  if (script !== undefined) return withName(script, words.slice(1));
  if (name === "node" || name === "nodejs") {
    let at = 1;
    while (at < words.length && words[at]!.startsWith("-") && words[at] !== "-" && words[at] !== "--") at += /^(?:-r|--require|--import|--loader|--conditions|-C|--title|--max-old-space-size)$/.test(words[at]!) ? 2 : 1;
    if (words[at] === "--") at += 1;
    const manager = scriptName(words[at] ?? "");
    if (manager !== undefined) return withName(manager, words.slice(at + 1));
  }
  const renamed = VERSIONED_OR_ALIASED.test(name) ? PROGRAM_NAMES.find((entry) => entry.name.test(name)) : undefined;
  if (renamed !== undefined) {
    const as = name.replace(renamed.name, renamed.as);
    const inner = commandSpellings(as, [as, ...words.slice(1)]);
    return { spellings: [[as, ...words.slice(1)], ...inner.spellings], maybe: inner.maybe };
  }
  // `uv pip ARGS` is uv's pip: a deny naming pip's command holds for it (`uv pip install x` meets `pip install:*`).
  if (name === "uv" && words[1] === "pip") return withName("pip", words.slice(2));
  // `docker compose ARGS` is `docker-compose ARGS` (and podman's alike), with compose's own options before its command read out.
  const compose = /^(docker|podman)-compose$/.exec(name)?.[1] ?? (words[1] === "compose" && (name === "docker" || name === "podman") ? name : undefined);
  if (compose !== undefined) {
    const args = name.endsWith("-compose") ? words.slice(1) : words.slice(2);
    const plain = readTable(`${compose}-compose`, COMPOSE, [`${compose}-compose`, ...args]);
    const lines = [[`${compose}-compose`, ...args], [compose, "compose", ...args], ...plain.spellings.flatMap((line) => [line, [compose, "compose", ...line.slice(1)]])];
    return { spellings: lines.filter((line) => !sameWords(line, words)), maybe: plain.maybe.flatMap((one) => [one, { form: [compose, "compose", ...one.form.slice(1)], reason: one.reason }]) };
  }
  if (name === "npm") return readNpm(words);
  // `npx PKG` is `npm exec PKG` (npx's options are npm's).
  if (name === "npx") return { spellings: [["npm", "exec", ...words.slice(1)], ...readNpm(["npm", "exec", ...words.slice(1)]).spellings], maybe: [] };
  if (name === "kubectl" || name === "oc") return readKubectl(words);
  const table = Object.hasOwn(COMMAND_TABLES, name) ? COMMAND_TABLES[name]! : undefined;
  if (table !== undefined) {
    const read = readTable(name, table, words);
    // `gh mm 1` after `gh alias set mm 'pr merge'`: a word that is none of gh's commands is an alias or an extension.
    const first = read.spellings.find((line) => line.length > 1)?.[1] ?? (words[1]?.startsWith("-") === true ? undefined : words[1]);
    const known = OWN_COMMANDS[name];
    if (known !== undefined && first !== undefined && !known.has(first) && /^[A-Za-z][\w-]*$/.test(first)) {
      const where = name === "gh" ? "an alias in gh's configuration" : "an alias in a .cargo/config.toml";
      return { spellings: read.spellings, maybe: [...read.maybe, { form: [name, UNREAD_WORDS], reason: `${name} ${first} is no ${name} command the guard knows: ${where} or a ${name}-${first} program decides what it runs` }] };
    }
    // `docker -H HOST compose down`: compose's spellings of the line without docker's options.
    const composed = read.spellings.filter((line) => line[1] === "compose").flatMap((line) => commandSpellings(name, line).spellings);
    return composed.length === 0 ? read : { spellings: [...read.spellings, ...composed], maybe: read.maybe };
  }
  // Options before the first operand, of a program without a table: the operand after them may be its command, or an option's value.
  if (words.length > 2 && /^-./.test(words[1]!) && words[1] !== "--") {
    let first = 1;
    while (first < words.length && words[first]!.startsWith("-") && words[first] !== "--") first += 1;
    if (first >= words.length) return NONE;
    return { spellings: [], maybe: guesses(name, words, first, `${name} has options before its operands that the guard has no table for (one may take the next word as its value), so which word starts its operands is only known when it runs`) };
  }
  // `cat -- /etc/shadow`: `--` ends the options of most programs (getopt's), so the operands after it are its first.
  // (Not when that word starts with `-`: after `--` it is an operand, which without `--` would read as options: `rm -- -rf`;
  // and a later word that starts with `-` stays after a `--`: `chmod -- 644 -R` is `chmod 644 -- -R`, -R a file.)
  if (words.length > 2 && words[1] === "--" && !words[2]!.startsWith("-")) return { spellings: [], maybe: [{ form: [name, words[2]!, ...(words.slice(3).some((word) => word.startsWith("-")) ? ["--"] : []), ...words.slice(3)], reason: `${name} may read -- as the end of its options (as most programs do), so the word after it may be its first operand` }] };
  return NONE;
}
