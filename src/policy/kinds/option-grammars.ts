/**
 * How programs read their own options, for deny and ask patterns that name options (`rm -rf:*`, `chmod -R:*`,
 * `git push --force:*`, `terraform apply -auto-approve:*`): one table per program (or subcommand), and the walk that reads
 * a command's arguments as that program's option parser does. A spelling stands for the options it sets (`-R` and
 * `--recursive` are chmod's one option; cp's `-a` copies recursively; git branch's `-D` is `--delete --force`).
 *
 * The parsers, by style:
 * - "gnu": GNU getopt_long, git's parse-options and Python's optparse: options in any order and after the operands, short
 *   ones clustered (`-fr`) or apart, a value attached (`-mMSG`) or the next word, long ones abbreviated to a unique prefix
 *   (`--rec`), `--name=value`, `--` ends them.
 * - "pflag": spf13/pflag (docker, kubectl, helm): like gnu, but no abbreviation, and a boolean takes `=true` / `=false`.
 * - "go": Go's flag package (terraform): `-name` and `--name` alike, `-name=value`, a boolean takes `=true` / `=false` (or
 *   1, t, 0, f, ...), no clusters, no abbreviation, options end at the first operand.
 * - "apt": apt's CommandLine: long names without case and never abbreviated, clusters, `--no-NAME`, a boolean takes
 *   `=VALUE` or a following word apt reads as one (0, 1, yes, no, true, false, with, without, on, off, enable, disable).
 * - "nopt": npm's nopt: like gnu (abbreviations, `--no-NAME`), a multi-letter word after one dash that names an option is
 *   that option (`-global`), a boolean takes `=VALUE` (false only for `false`) or a following `true` / `false`.
 */
import { basename } from "./programs.js";
import { commandSpellings } from "./subcommands.js";

type Takes = "value" | "optional" | "flag";
type Style = "gnu" | "pflag" | "go" | "nopt" | "apt";

interface OptionGrammar {
  /** The option parser (see above); gnu when left out. */
  readonly style?: Style;
  /** Short options that take a value: attached (`-mMSG`) or the next word. */
  readonly valued: string;
  /** Short options whose value, if any, is attached (`git commit -S[KEYID]`, chmod's `-w`: the rest of the word is a mode). */
  readonly optional?: string;
  /** Every long option (without dashes), with what it takes: a value (`=VALUE` or the next word), an optional one (only `=VALUE`), or none. */
  readonly long: Readonly<Record<string, Takes>>;
  /** What a spelling sets, as canonical spellings (one not listed sets itself). */
  readonly sets?: Readonly<Record<string, readonly string[]>>;
  /** What a spelling may set, as the program decides only when it runs (git push's `--force-with-lease` forces when the remote is where it was last seen). */
  readonly maySet?: Readonly<Record<string, readonly string[]>>;
  /** What a spelling undoes (pip's `--no-user` undoes `--user`). */
  readonly unsets?: Readonly<Record<string, readonly string[]>>;
  /** What a canonical option's value sets (npm's `--location=global` is `--global`). */
  readonly valueSets?: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;
  /** `--no-NAME` undoes `--NAME`, and `--NAME` undoes an option spelled `--no-NAME` (`--verify` undoes `--no-verify`). */
  readonly negatable?: boolean;
  /** Long options are compared without case (apt's `--YES`). */
  readonly caseless?: boolean;
  /** Options end at the first operand (docker run's IMAGE: the words after it are the container's command). */
  readonly stopAtOperand?: boolean;
  /** Options given before the subcommand's word are read as its own (`npm -g install x`, `apt-get -y install x`, `kubectl -n NS delete`). */
  readonly leading?: boolean;
  /** The table holds only some of the program's long options: an abbreviation it cannot resolve may stand for any long option it begins. */
  readonly partial?: boolean;
  /** What an operand sets (git push's `+REF` forces that ref's update, `:REF` deletes it). */
  readonly operand?: (word: string) => readonly string[];
  /** An operand as the program reads it (git push's refspec `+SRC:refs/heads/DST` names the branch DST), or undefined when that is only known when it runs (`HEAD`). */
  readonly operandAs?: (word: string, index: number) => string | undefined;
  /** The program takes operands left out from its configuration (git push's remote and branches): a pattern's operand may be one of them. */
  readonly implicitOperands?: boolean;
}

/** git push's refspec as the branch it updates: `+SRC:DST` is DST, `SRC` alone is SRC, `refs/heads/X` is X; `HEAD` and `@` are the branch checked out, only known when it runs. */
function gitPushTarget(word: string, index: number): string | undefined {
  if (index === 0) return word;
  const spec = word.replace(/^\+/, "");
  const target = spec.includes(":") ? spec.slice(spec.lastIndexOf(":") + 1) : spec;
  if (target === "HEAD" || target === "@" || target === "") return undefined;
  return target.replace(/^refs\/heads\//, "");
}

/** Long options from space-separated names: flags, then those that take a value, then those whose value is optional. */
const longNames = (flags: string, valued = "", optional = ""): Record<string, Takes> => ({
  ...Object.fromEntries(flags.split(" ").filter((name) => name !== "").map((name) => [name, "flag" as const])),
  ...Object.fromEntries(valued.split(" ").filter((name) => name !== "").map((name) => [name, "value" as const])),
  ...Object.fromEntries(optional.split(" ").filter((name) => name !== "").map((name) => [name, "optional" as const])),
});

/** Short letters named by their long option: `{ R: "recursive" }` is `-R` sets `--recursive`. */
const shortFor = (letters: Readonly<Record<string, string | readonly string[]>>): Record<string, readonly string[]> =>
  Object.fromEntries(Object.entries(letters).map(([letter, long]) => [`-${letter}`, (typeof long === "string" ? [long] : long).map((name) => `--${name}`)]));

// coreutils 9.1 (`--help`; chmod's getopt string "Rcfvr::w::x::X::s::t::u::g::o::a::,::+::=::0::…7::": a mode letter after a dash makes the rest of the word a mode).
const CHOWN_LONG = "changes silent quiet verbose dereference no-dereference no-preserve-root preserve-root recursive help version";
const CHOWN_SETS = { ...shortFor({ c: "changes", f: "silent", v: "verbose", h: "no-dereference", R: "recursive" }), "--quiet": ["--silent"] };
const CP_ARCHIVE = ["--archive", "--recursive", "--no-dereference", "--preserve"];

// git 2.39 (`git CMD -h`, `git CMD --git-completion-helper-all`).
const GIT_CHECKOUT_COMMON = "guess overlay quiet recurse-submodules progress merge detach force overwrite-ignore ignore-other-worktrees";

// docker 28, kubectl 1.32, helm 3 (spf13/pflag), from their `--help`.
const PRUNE: OptionGrammar = { style: "pflag", valued: "", long: longNames("all force volumes help", "filter"), sets: shortFor({ a: "all", f: "force" }) };
const KUBECTL_OWN = "as as-group as-uid cache-dir certificate-authority client-certificate client-key cluster context kubeconfig log-flush-frequency namespace password profile profile-output request-timeout server tls-server-name token user username v vmodule";
const HELM_OWN = "burst-limit kube-apiserver kube-as-group kube-as-user kube-ca-file kube-context kube-tls-server-name kube-token kubeconfig namespace qps registry-config repository-cache repository-config";

// npm 11 (its config definitions and shorthands): the options a deny names, and those that take a value.
const NPM: OptionGrammar = {
  style: "nopt",
  partial: true,
  negatable: true,
  leading: true,
  valued: "CLmw",
  long: longNames(
    "global force yes all dry-run save save-dev save-exact save-optional save-prod save-bundle ignore-scripts foreground-scripts legacy-peer-deps strict-peer-deps global-style install-links include-workspace-root workspaces offline prefer-offline prefer-online audit fund package-lock package-lock-only long parseable json usage version",
    "location prefix registry loglevel tag access otp workspace userconfig globalconfig cache before omit include install-strategy script-shell",
  ),
  sets: { ...shortFor({ g: "global", f: "force", y: "yes", a: "all", D: "save-dev", S: "save", E: "save-exact", O: "save-optional", P: "save-prod", B: "save-bundle", C: "prefix", L: "location", l: "long", p: "parseable", w: "workspace", m: "message" }) },
  valueSets: { "--location": { global: ["--global"] } },
};

const APT_GET: OptionGrammar = {
  style: "apt",
  caseless: true,
  negatable: true,
  leading: true,
  valued: "tcoaP",
  long: longNames(
    "yes assume-yes assume-no quiet simulate just-print dry-run recon no-act download-only fix-broken ignore-missing fix-missing show-upgraded verbose-versions compile build install-recommends install-suggests purge reinstall auto-remove autoremove allow-downgrades allow-remove-essential allow-change-held-packages allow-unauthenticated allow-insecure-repositories force-yes only-upgrade upgrade remove ignore-hold list-cleanup trivial-only print-uris fix-policy no-download show-progress with-new-pkgs mark-auto arch-only indep-only diff-only dsc-only tar-only update help version",
    "target-release default-release config-file option host-architecture build-profiles with-source solver",
  ),
  sets: { ...shortFor({ y: ["yes"], q: "quiet", s: "simulate", d: "download-only", f: "fix-broken", m: "ignore-missing", u: "show-upgraded", V: "verbose-versions", b: "compile", t: "target-release", c: "config-file", o: "option", a: "host-architecture", P: "build-profiles", h: "help", v: "version" }), "--assume-yes": ["--yes"], "--just-print": ["--simulate"], "--dry-run": ["--simulate"], "--recon": ["--simulate"], "--no-act": ["--simulate"], "--fix-missing": ["--ignore-missing"], "--build": ["--compile"], "--autoremove": ["--auto-remove"], "--default-release": ["--target-release"] },
};

// pip 23.2 (its option parser, optparse: abbreviations, clusters, options among the operands).
const PIP_INSTALL_FLAGS =
  "no-deps no-dependencies pre dry-run user no-user upgrade force-reinstall ignore-installed ignore-requires-python no-build-isolation use-pep517 no-use-pep517 check-build-dependencies break-system-packages compile no-compile no-warn-script-location no-warn-conflicts prefer-binary require-hashes no-clean no-index help debug isolated require-virtualenv require-venv verbose version quiet no-input no-cache-dir disable-pip-version-check no-color no-python-version-warning";
const PIP_INSTALL_VALUED =
  "requirement constraint editable target platform python-version implementation abi root prefix src source source-dir source-directory upgrade-strategy config-settings global-option no-binary only-binary progress-bar root-user-action report index-url pypi-url extra-index-url find-links python log log-file local-log keyring-provider proxy retries timeout default-timeout exists-action trusted-host cert client-cert cache-dir use-feature use-deprecated";
const PIP_COMMON_VALUED = "python log log-file local-log keyring-provider proxy retries timeout default-timeout exists-action trusted-host cert client-cert cache-dir use-feature use-deprecated root-user-action";

// terraform 1.11 (Go's flag package; `terraform apply -help`).
const TERRAFORM_APPLY: OptionGrammar = {
  style: "go",
  valued: "",
  long: longNames("auto-approve compact-warnings destroy refresh-only json input lock no-color replace-all refresh", "backup lock-timeout parallelism state state-out var var-file replace target"),
};

/** Programs (and subcommands) whose options the guard reads as they do, with the version their table was taken from. */
const OPTION_GRAMMARS: Readonly<Record<string, OptionGrammar>> = {
  rm: {
    valued: "",
    long: longNames("force one-file-system no-preserve-root recursive dir verbose help version", "", "interactive preserve-root"),
    sets: { "-f": ["--force"], "-r": ["--recursive"], "-R": ["--recursive"], "-d": ["--dir"], "-v": ["--verbose"], "-i": ["--interactive"] },
  },
  chmod: {
    valued: "",
    optional: "rwxXstugoa,+=01234567",
    long: longNames("changes silent quiet verbose no-preserve-root preserve-root recursive help version", "reference"),
    sets: { ...shortFor({ c: "changes", f: "silent", v: "verbose", R: "recursive" }), "--quiet": ["--silent"] },
  },
  chown: { valued: "", long: longNames(CHOWN_LONG, "from reference"), sets: CHOWN_SETS },
  chgrp: { valued: "", long: longNames(CHOWN_LONG, "reference"), sets: CHOWN_SETS },
  cp: {
    valued: "St",
    long: longNames(
      "archive attributes-only copy-contents force interactive link dereference no-clobber no-dereference parents recursive remove-destination strip-trailing-slashes symbolic-link no-target-directory update verbose one-file-system help version",
      "no-preserve sparse suffix target-directory",
      "backup preserve reflink context",
    ),
    sets: {
      ...shortFor({ b: "backup", d: ["no-dereference", "preserve"], f: "force", i: "interactive", l: "link", L: "dereference", n: "no-clobber", P: "no-dereference", p: "preserve", r: "recursive", R: "recursive", s: "symbolic-link", S: "suffix", t: "target-directory", T: "no-target-directory", u: "update", v: "verbose", x: "one-file-system", Z: "context" }),
      "-a": CP_ARCHIVE,
      "--archive": CP_ARCHIVE,
    },
  },
  mv: {
    valued: "St",
    long: longNames("force interactive no-clobber strip-trailing-slashes no-target-directory update verbose context help version", "suffix target-directory", "backup"),
    sets: shortFor({ b: "backup", f: "force", i: "interactive", n: "no-clobber", S: "suffix", t: "target-directory", T: "no-target-directory", u: "update", v: "verbose", Z: "context" }),
  },
  ln: {
    valued: "St",
    long: longNames("directory force interactive logical no-dereference physical relative symbolic no-target-directory verbose help version", "suffix target-directory", "backup"),
    sets: shortFor({ b: "backup", d: "directory", F: "directory", f: "force", i: "interactive", L: "logical", n: "no-dereference", P: "physical", r: "relative", s: "symbolic", S: "suffix", t: "target-directory", T: "no-target-directory", v: "verbose" }),
  },
  "git push": {
    valued: "o",
    long: longNames("all branches mirror delete tags follow-tags dry-run porcelain force atomic prune verify no-verify set-upstream thin quiet verbose progress force-if-includes ipv4 ipv6", "recurse-submodules repo receive-pack exec push-option", "signed force-with-lease"),
    sets: { "-f": ["--force"], "--mirror": ["--mirror", "--force"], "-d": ["--delete"], "-n": ["--dry-run"], "-u": ["--set-upstream"], "-q": ["--quiet"], "-v": ["--verbose"], "-4": ["--ipv4"], "-6": ["--ipv6"], "-o": ["--push-option"] },
    maySet: { "--force-with-lease": ["--force"] },
    negatable: true,
    operand: (word) => (word.startsWith("+") ? ["--force"] : /^:./.test(word) ? ["--delete"] : []),
    operandAs: gitPushTarget,
    implicitOperands: true,
  },
  "git commit": {
    valued: "mFCct",
    optional: "uS",
    long: longNames(
      "all patch signoff verbose quiet edit include only null no-verify reset-author short branch porcelain long dry-run allow-empty allow-empty-message status amend no-post-rewrite interactive pathspec-file-nul ahead-behind",
      "message file reuse-message reedit-message template fixup squash cleanup author date pathspec-from-file trailer",
      "untracked-files gpg-sign",
    ),
    sets: { "-n": ["--no-verify"], "-a": ["--all"], "-m": ["--message"], "-F": ["--file"], "-C": ["--reuse-message"], "-c": ["--reedit-message"], "-t": ["--template"], "-s": ["--signoff"], "-v": ["--verbose"], "-q": ["--quiet"], "-e": ["--edit"], "-i": ["--include"], "-o": ["--only"], "-p": ["--patch"], "-z": ["--null"], "-u": ["--untracked-files"], "-S": ["--gpg-sign"] },
    negatable: true,
  },
  "git clean": {
    valued: "e",
    long: longNames("quiet dry-run force interactive", "exclude"),
    sets: { "-f": ["--force"], "-n": ["--dry-run"], "-q": ["--quiet"], "-i": ["--interactive"], "-e": ["--exclude"] },
    negatable: true,
  },
  "git reset": {
    valued: "",
    long: longNames("quiet hard soft mixed merge keep patch intent-to-add pathspec-file-nul refresh", "pathspec-from-file", "recurse-submodules"),
    sets: { "-q": ["--quiet"], "-p": ["--patch"], "-N": ["--intent-to-add"] },
    negatable: true,
  },
  "git branch": {
    valued: "u",
    long: longNames(
      "delete force move copy remotes all list verbose quiet unset-upstream show-current edit-description create-reflog recurse-submodules ignore-case omit-empty",
      "set-upstream-to points-at format sort contains no-contains merged no-merged",
      "track color column abbrev",
    ),
    sets: { "-D": ["--delete", "--force"], "-d": ["--delete"], "-f": ["--force"], "-m": ["--move"], "-M": ["--move", "--force"], "-c": ["--copy"], "-C": ["--copy", "--force"], "-r": ["--remotes"], "-a": ["--all"], "-l": ["--list"], "-v": ["--verbose"], "-q": ["--quiet"], "-i": ["--ignore-case"], "-u": ["--set-upstream-to"], "-t": ["--track"] },
    negatable: true,
  },
  "git checkout": {
    valued: "bB",
    negatable: true,
    long: longNames(`${GIT_CHECKOUT_COMMON} ours theirs patch ignore-skip-worktree-bits pathspec-file-nul`, "conflict orphan pathspec-from-file", "recurse-submodules track"),
    sets: shortFor({ q: "quiet", m: "merge", d: "detach", t: "track", f: "force", "2": "ours", "3": "theirs", p: "patch" }),
  },
  "git switch": {
    valued: "cC",
    negatable: true,
    long: longNames(`${GIT_CHECKOUT_COMMON} discard-changes`, "create force-create conflict orphan", "recurse-submodules track"),
    // git switch: `-f`/`--force` and `--discard-changes` both throw away local changes.
    sets: { ...shortFor({ c: "create", C: "force-create", q: "quiet", m: "merge", d: "detach", t: "track", f: "force" }), "--discard-changes": ["--force"] },
  },
  "git restore": {
    valued: "s",
    negatable: true,
    long: longNames("staged worktree ignore-unmerged overlay quiet progress merge ours theirs patch ignore-skip-worktree-bits pathspec-file-nul", "source conflict pathspec-from-file", "recurse-submodules"),
    sets: shortFor({ s: "source", S: "staged", W: "worktree", q: "quiet", m: "merge", "2": "ours", "3": "theirs", p: "patch" }),
  },
  "git tag": {
    valued: "mFu",
    optional: "n",
    negatable: true,
    long: longNames("list delete verify annotate edit sign force create-reflog ignore-case", "message file cleanup local-user sort points-at format contains no-contains with without merged no-merged", "column color"),
    sets: shortFor({ l: "list", d: "delete", v: "verify", a: "annotate", m: "message", F: "file", e: "edit", s: "sign", u: "local-user", f: "force", i: "ignore-case" }),
  },
  "git add": {
    valued: "",
    negatable: true,
    long: longNames("dry-run verbose interactive patch edit force update renormalize intent-to-add all ignore-removal refresh ignore-errors ignore-missing sparse warn-embedded-repo pathspec-file-nul", "chmod pathspec-from-file"),
    sets: shortFor({ n: "dry-run", v: "verbose", i: "interactive", p: "patch", e: "edit", f: "force", u: "update", N: "intent-to-add", A: "all" }),
  },
  "git rm": {
    valued: "",
    negatable: true,
    long: longNames("dry-run quiet cached force ignore-unmatch sparse pathspec-file-nul", "pathspec-from-file"),
    sets: shortFor({ n: "dry-run", q: "quiet", f: "force" }),
  },
  "git rebase": {
    valued: "Csx",
    optional: "Sr",
    negatable: true,
    long: longNames(
      "keep-base no-verify quiet verbose no-stat signoff committer-date-is-author-date reset-author-date ignore-date ignore-whitespace force-rebase no-ff continue skip abort quit edit-todo show-current-patch apply merge interactive preserve-merges rerere-autoupdate keep-empty autosquash update-refs autostash allow-empty-message fork-point root reschedule-failed-exec reapply-cherry-picks",
      "onto whitespace empty exec strategy strategy-option",
      "gpg-sign rebase-merges",
    ),
    sets: { ...shortFor({ q: "quiet", v: "verbose", n: "no-stat", f: "force-rebase", m: "merge", i: "interactive", k: "keep-empty", S: "gpg-sign", x: "exec", r: "rebase-merges", s: "strategy", X: "strategy-option" }), "--no-ff": ["--force-rebase"] },
  },
  "npm install": NPM,
  "npm ci": NPM,
  "npm uninstall": NPM,
  "npm update": NPM,
  "npm publish": NPM,
  "npm unpublish": NPM,
  "npm link": NPM,
  "pip install": {
    valued: "rcetCif",
    long: longNames(PIP_INSTALL_FLAGS, PIP_INSTALL_VALUED),
    sets: { ...shortFor({ r: "requirement", c: "constraint", e: "editable", t: "target", U: "upgrade", I: "ignore-installed", C: "config-settings", i: "index-url", f: "find-links", h: "help", v: "verbose", V: "version", q: "quiet" }), "--no-dependencies": ["--no-deps"] },
    unsets: { "--no-user": ["--user"], "--no-use-pep517": ["--use-pep517"], "--no-compile": ["--compile"] },
  },
  "pip uninstall": {
    valued: "r",
    long: longNames("yes break-system-packages help debug isolated require-virtualenv require-venv verbose version quiet no-input no-cache-dir disable-pip-version-check no-color no-python-version-warning", `requirement ${PIP_COMMON_VALUED}`),
    sets: shortFor({ r: "requirement", y: "yes", h: "help", v: "verbose", V: "version", q: "quiet" }),
  },
  "apt-get install": APT_GET,
  "apt-get remove": APT_GET,
  "apt-get purge": APT_GET,
  "apt-get autoremove": APT_GET,
  "apt-get upgrade": APT_GET,
  "apt-get dist-upgrade": APT_GET,
  "apt install": APT_GET,
  "apt remove": APT_GET,
  "apt purge": APT_GET,
  "apt autoremove": APT_GET,
  "apt upgrade": APT_GET,
  "apt full-upgrade": APT_GET,
  "docker rm": { style: "pflag", valued: "", long: longNames("force link volumes help"), sets: shortFor({ f: "force", l: "link", v: "volumes" }) },
  "docker rmi": { style: "pflag", valued: "", long: longNames("force no-prune help", "platform"), sets: shortFor({ f: "force" }) },
  "docker system prune": PRUNE,
  "docker volume prune": PRUNE,
  "docker image prune": PRUNE,
  "docker container prune": PRUNE,
  "docker network prune": PRUNE,
  "docker builder prune": { ...PRUNE, long: longNames("all force help", "filter keep-storage reserved-space max-used-space min-free-space builder") },
  "docker run": {
    style: "pflag",
    stopAtOperand: true,
    valued: "acehlmpuvw",
    long: longNames(
      "detach disable-content-trust help init interactive no-healthcheck oom-kill-disable privileged publish-all quiet read-only rm sig-proxy tty use-api-socket",
      "add-host annotation attach blkio-weight blkio-weight-device cap-add cap-drop cgroup-parent cgroupns cidfile cpu-count cpu-percent cpu-period cpu-quota cpu-rt-period cpu-rt-runtime cpu-shares cpus cpuset-cpus cpuset-mems detach-keys device device-cgroup-rule device-read-bps device-read-iops device-write-bps device-write-iops dns dns-option dns-search domainname entrypoint env env-file expose gpus group-add health-cmd health-interval health-retries health-start-interval health-start-period health-timeout hostname io-maxbandwidth io-maxiops ip ip6 ipc isolation kernel-memory label label-file link link-local-ip log-driver log-opt mac-address memory memory-reservation memory-swap memory-swappiness mount name network network-alias oom-score-adj pid pids-limit platform publish pull restart runtime security-opt shm-size stop-signal stop-timeout storage-opt sysctl tmpfs ulimit user userns uts volume volume-driver volumes-from workdir",
    ),
    sets: shortFor({ a: "attach", c: "cpu-shares", d: "detach", e: "env", h: "hostname", i: "interactive", l: "label", m: "memory", p: "publish", P: "publish-all", q: "quiet", t: "tty", u: "user", v: "volume", w: "workdir" }),
  },
  "kubectl delete": {
    style: "pflag",
    leading: true,
    valued: "fklonsv",
    long: longNames("all all-namespaces force ignore-not-found interactive now recursive wait insecure-skip-tls-verify disable-compression match-server-version warnings-as-errors help", `cascade dry-run field-selector filename grace-period kustomize output raw selector timeout ${KUBECTL_OWN}`),
    sets: shortFor({ A: "all-namespaces", f: "filename", i: "interactive", k: "kustomize", o: "output", R: "recursive", l: "selector", n: "namespace", s: "server", v: "v" }),
  },
  "helm uninstall": {
    style: "pflag",
    leading: true,
    valued: "n",
    long: longNames("dry-run ignore-not-found keep-history no-hooks wait debug help", `cascade description timeout ${HELM_OWN}`),
    sets: shortFor({ n: "namespace" }),
  },
  "terraform apply": TERRAFORM_APPLY,
  "terraform destroy": TERRAFORM_APPLY,
};

/** Options as a program reads them from its arguments (readOptionSpellings). */
export interface OptionSpellings {
  /** The options the words set, as canonical spellings (`--recursive` for rm's `-r`, `-R` and `--rec`), and `--name=VALUE` for each value given. */
  readonly set: ReadonlySet<string>;
  /** Options they may set, as the program decides only when it runs. */
  readonly may: ReadonlySet<string>;
  /** The operands, in order, as the program reads them (UNKNOWN_OPERAND where that is only known when it runs). */
  readonly operands: readonly string[];
  /** The program takes operands left out from its configuration. */
  readonly implicit: boolean;
  /** Whether the program's table read them; else each short letter and long name stands for itself, and a value may hide among them. */
  readonly known: boolean;
  /** Without a table: the long options as given (each may abbreviate a longer one, or be a short option's long spelling), with their dashes. */
  readonly longs: readonly string[];
  /** Without a table: the short options as given (each may be a long option's short spelling). */
  readonly shorts: readonly string[];
  /** For each option set or maybe set, the spelling that set it as written (`--rec` for `--recursive`). */
  readonly spelled: ReadonlyMap<string, string>;
  /** The options in `may` only because a long option the table cannot resolve may abbreviate them (a table of some of the program's options). */
  readonly abbreviated: ReadonlySet<string>;
}

/** An operand whose reading is only known when the program runs (git push's `HEAD`). */
export const UNKNOWN_OPERAND = "\u0000operand";

function grammarKey(words: readonly string[]): string {
  return [basename(words[0] ?? ""), ...words.slice(1)].join(" ");
}

/** How many leading words name a program whose options the guard reads as it does (`docker system prune` 3, `git push` 2, `rm` 1); 0 for none. */
export function optionGrammarAt(words: readonly string[]): number {
  for (let at = Math.min(3, words.length); at >= 1; at--) if (Object.hasOwn(OPTION_GRAMMARS, grammarKey(words.slice(0, at)))) return at;
  return 0;
}

function grammarOf(words: readonly string[]): OptionGrammar | undefined {
  const key = grammarKey(words);
  return Object.hasOwn(OPTION_GRAMMARS, key) ? OPTION_GRAMMARS[key] : undefined;
}

function abbreviates(grammar: OptionGrammar): boolean {
  return grammar.style === undefined || grammar.style === "gnu" || grammar.style === "nopt";
}

/** A long option's name as the program resolves it (`rec` is `recursive`; `verify` undoes `no-verify`), or undefined (unknown, or a prefix of several). */
function resolveLong(grammar: OptionGrammar, given: string): { readonly name: string; readonly negated: boolean } | undefined {
  const candidates: { spelled: string; name: string; negated: boolean }[] = [];
  for (const name of Object.keys(grammar.long)) {
    candidates.push({ spelled: name, name, negated: false });
    if (grammar.negatable === true) candidates.push(name.startsWith("no-") ? { spelled: name.slice(3), name, negated: true } : { spelled: `no-${name}`, name, negated: true });
  }
  const exact = candidates.find((candidate) => candidate.spelled === given);
  if (exact !== undefined || !abbreviates(grammar) || given === "") return exact;
  const prefixed = candidates.filter((candidate) => candidate.spelled.startsWith(given));
  return prefixed.length === 1 ? prefixed[0] : undefined;
}

/** A boolean option's `=VALUE` as the parser reads it: true, false, or undefined (the parser refuses it). */
function booleanValue(style: Style, value: string): boolean | undefined {
  if (style === "nopt") return value !== "false";
  if (style === "apt") return /^(?:1|yes|true|with|on|enable)$/i.test(value) ? true : /^(?:0|no|false|without|off|disable)$/i.test(value) ? false : undefined;
  if (/^(?:1|t|T|TRUE|true|True)$/.test(value)) return true;
  if (/^(?:0|f|F|FALSE|false|False)$/.test(value)) return false;
  return undefined;
}

/**
 * The arguments a command gives the program `program` names (its first `optionGrammarAt` words), or undefined when it runs
 * another: the words after them, and, for a program whose options may come before its subcommand (`npm -g install x`,
 * `kubectl -n NS delete pod x`), the options before it too.
 */
export function optionArguments(program: readonly string[], command: readonly string[], fold: (text: string) => string): readonly string[] | undefined {
  if (command.length < program.length || fold(command[0]!) !== program[0]) return undefined;
  if (program.every((word, i) => fold(command[i]!) === word)) return command.slice(program.length);
  const grammar = grammarOf(program);
  if (grammar?.leading !== true || program.length !== 2) return undefined;
  // The options before the subcommand, read with its table: a valued one takes the next word (`-n NS`).
  for (let i = 1; i < command.length; i++) {
    const word = command[i]!;
    // The subcommand, or another name of it (`npm --global i x`).
    if (fold(word) === program[1] || (!word.startsWith("-") && commandSpellings(program[0]!, [program[0]!, word]).spellings.some((line) => line.length === 2 && fold(line[1]!) === program[1]))) return [...command.slice(1, i), ...command.slice(i + 1)];
    if (!word.startsWith("-") || word === "-" || word === "--") return undefined;
    if (word.startsWith("--")) {
      const long = word.includes("=") ? undefined : resolveLong(grammar, grammar.caseless === true ? word.slice(2).toLowerCase() : word.slice(2));
      if (long !== undefined && !long.negated && grammar.long[long.name] === "value") i++;
    } else if (grammar.valued.includes(word.at(-1)!) && ![...word.slice(1, -1)].some((letter) => grammar.valued.includes(letter))) i++;
  }
  return undefined;
}

/**
 * The options and operands of `args` as the program `words` names (its first `optionGrammarAt` words) reads them: in any
 * order, clustered or apart, abbreviated, `--` ending them; without a table (`known` false), each short letter and each
 * long name as given.
 */
export function readOptionSpellings(words: readonly string[], args: readonly string[]): OptionSpellings {
  const grammar = grammarOf(words);
  const style = grammar?.style ?? "gnu";
  const set = new Set<string>();
  const may = new Set<string>();
  const operands: string[] = [];
  const longs: string[] = [];
  const shorts: string[] = [];
  const spelled = new Map<string, string>();
  const abbreviated = new Set<string>();
  const add = (spelling: string, written: string, value?: string) => {
    for (const option of grammar?.sets?.[spelling] ?? [spelling]) {
      set.add(option);
      if (!spelled.has(option)) spelled.set(option, written);
      if (value === undefined) continue;
      set.add(`${option}=${value}`);
      for (const more of grammar?.valueSets?.[option]?.[value] ?? []) {
        set.add(more);
        if (!spelled.has(more)) spelled.set(more, written);
      }
    }
    for (const option of grammar?.maySet?.[spelling] ?? []) {
      may.add(option);
      if (!spelled.has(option)) spelled.set(option, written);
    }
    for (const option of grammar?.unsets?.[spelling] ?? []) unset(option);
  };
  const unset = (option: string) => {
    set.delete(option);
    may.delete(option);
    for (const one of [...set]) if (one.startsWith(`${option}=`)) set.delete(one);
  };
  let ended = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!ended && word === "--") {
      ended = true;
      continue;
    }
    if (ended || word === "-" || !word.startsWith("-")) {
      operands.push(grammar?.operandAs === undefined ? word : (grammar.operandAs(word, operands.length) ?? UNKNOWN_OPERAND));
      for (const option of grammar?.operand?.(word) ?? []) set.add(option);
      if (grammar?.stopAtOperand === true || style === "go") ended = true;
      continue;
    }
    // A long option: `--name`, and for Go's flag package `-name`; for npm a word after one dash that names one (`-global`).
    let body: string | undefined = word.startsWith("--") ? word.slice(2) : style === "go" ? word.slice(1) : undefined;
    if (body === undefined && style === "nopt" && grammar !== undefined && word.length > 2 && resolveLong(grammar, word.slice(1).split("=")[0]!) !== undefined && ![...word.slice(1)].every((letter) => grammar.sets?.[`-${letter}`] !== undefined)) body = word.slice(1);
    if (body !== undefined) {
      const eq = body.indexOf("=");
      const name = eq < 0 ? body : body.slice(0, eq);
      const value = eq < 0 ? undefined : body.slice(eq + 1);
      if (grammar === undefined) {
        set.add(`--${name}`);
        if (!spelled.has(`--${name}`)) spelled.set(`--${name}`, word);
        longs.push(word);
        continue;
      }
      const long = resolveLong(grammar, grammar.caseless === true ? name.toLowerCase() : name);
      if (long === undefined) {
        // A table of some of the program's options: an abbreviation it cannot resolve may be one of them.
        if (grammar.partial === true && name.length > 1) {
          for (const known of Object.keys(grammar.long)) {
            if (!known.startsWith(name)) continue;
            may.add(`--${known}`);
            abbreviated.add(`--${known}`);
            if (!spelled.has(`--${known}`)) spelled.set(`--${known}`, word);
          }
        }
        continue;
      }
      const takes = grammar.long[long.name]!;
      if (takes === "value" && value === undefined) {
        add(`--${long.name}`, word, args[i + 1]);
        i++;
        continue;
      }
      let on = !long.negated;
      if (takes === "flag" && value !== undefined) {
        // getopt_long refuses a value after a flag; pflag, Go's flag and nopt read a boolean's.
        const given = style === "gnu" ? undefined : booleanValue(style, value);
        if (given === undefined) continue;
        on = on === given;
      } else if (takes === "flag" && (style === "nopt" || style === "apt") && booleanValue(style, args[i + 1] ?? "") !== undefined && (style === "apt" || /^(?:true|false)$/.test(args[i + 1]!))) {
        on = on === booleanValue(style, args[i + 1]!);
        i++;
      }
      if (!on) {
        for (const option of grammar.sets?.[`--${long.name}`] ?? [`--${long.name}`]) unset(option);
      } else add(`--${long.name}`, word, takes === "flag" ? undefined : value);
      continue;
    }
    // A cluster of short options: `-rf`, `-uroot`, `-n5`.
    for (let j = 1; j < word.length; j++) {
      const letter = word[j]!;
      if (grammar === undefined) shorts.push(`-${letter}`);
      if (grammar?.optional?.includes(letter) === true) {
        add(`-${letter}`, word, j + 1 < word.length ? word.slice(j + 1) : undefined);
        break;
      }
      if (grammar?.valued.includes(letter) === true) {
        // pflag reads `-n=NS` as NS.
        const rest = word.slice(j + 1).replace(style === "pflag" ? /^=/ : /^$/, "");
        if (rest === "") i++;
        add(`-${letter}`, word, rest === "" ? args[i] : rest);
        break;
      }
      add(`-${letter}`, word);
    }
  }
  return { set, may, operands, implicit: grammar?.implicitOperands === true, known: grammar !== undefined, longs, shorts, spelled, abbreviated };
}
