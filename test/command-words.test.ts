// A deny rule that names a command (`npm publish:*`, `docker rm:*`, `pip uninstall:*`, `helm uninstall:*`) holds
// however the program reads its command words: its own options before the command (`npm --force publish`, `docker -H
// HOST rm`, `pip -v uninstall`, `cargo +nightly publish`), options it reads anywhere on the line (npm, helm, aws,
// systemctl, apt-get), the other names it accepts for the command (npm's aliases, unique prefixes and camelCase: `npm
// pub`, `npm rum`, `npm installTest`; docker's `container remove`; helm's `del`; brew's `rm`; `apt-get purge`;
// `terraform apply -destroy`), and its versioned names (`pip3`, `python3.11`, `nodejs`). Where an option the guard has
// no table for may or may not take the next word, a rule that one reading matches asks.
//
// The real programs judge: npm's own command lookup (lib/utils/cmd-list.js) and option parser (nopt with npm's
// definitions) over every command, alias and prefix and over generated lines, then the npm binary on a sample; docker's
// own "Aliases:" for every command and the command docker's help names for lines with its options; pip's and cargo's
// help for lines with their options. helm, terraform, the AWS CLI and Homebrew are not installed here: their cases
// come from their sources and manuals.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { npmCommand } from "../src/policy/kinds/subcommands.js";
import { bashGuard, denyListGuard, installed } from "./helpers/bash-rules.js";

const REQUIRE_ORACLES = process.env.REQUIRE_ORACLES === "1";
const CASES = Number(process.env.GG_ORACLE_CASES ?? 300);
const scratch = mkdtempSync(path.join(tmpdir(), "gg-cmdwords-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function decide(deny: readonly string[], command: string): { mode: string; reason: string } {
  const decision = denyListGuard(deny, "command-words").decide("Bash", { command });
  return { mode: decision.mode, reason: decision.reason ?? "" };
}

/** The npm this machine runs (its package directory), or undefined. */
function npmRoot(): string | undefined {
  const found = spawnSync("npm", ["root", "-g"], { encoding: "utf8" });
  const root = found.status === 0 ? path.join(found.stdout.trim(), "npm") : undefined;
  return root !== undefined && existsSync(path.join(root, "lib/utils/cmd-list.js")) ? root : undefined;
}

const NPM = npmRoot();
const npmAvailable = NPM !== undefined;
if (REQUIRE_ORACLES && !npmAvailable) throw new Error("REQUIRE_ORACLES=1 but npm's own sources are not found");

interface NpmOwn {
  readonly deref: (word: string) => string | undefined;
  readonly commands: readonly string[];
  readonly aliases: Readonly<Record<string, string>>;
  /** The words npm reads as positional (its command first) from a line's words after `npm`. */
  readonly remain: (argv: readonly string[]) => readonly string[];
}

function npmOwn(): NpmOwn {
  const require = createRequire(path.join(NPM!, "package.json"));
  const list = require("./lib/utils/cmd-list.js") as { deref: (word: string) => string | undefined; commands: string[]; aliases: Record<string, string> };
  const nopt = require("nopt") as (types: object, shorthands: object, argv: readonly string[], slice: number) => { argv: { remain: string[] } };
  const config = require("@npmcli/config/lib/definitions/index.js") as { definitions: Record<string, { type: unknown }>; shorthands: Record<string, string[]> };
  const types = Object.fromEntries(Object.entries(config.definitions).map(([key, definition]) => [key, definition.type]));
  const quiet = (run: () => readonly string[]) => {
    const warn = process.emitWarning;
    try {
      return run();
    } finally {
      process.emitWarning = warn;
    }
  };
  return { deref: list.deref, commands: list.commands, aliases: list.aliases, remain: (argv) => quiet(() => nopt(types, config.shorthands, argv, 0).argv.remain) };
}

describe.skipIf(!npmAvailable)("npm reads its command word as npm's own lookup does", () => {
  it("every command, alias, unique prefix and camelCase spelling names the command npm runs", () => {
    const own = npmOwn();
    const words = new Set<string>();
    for (const name of [...own.commands, ...Object.keys(own.aliases)]) {
      for (let end = 1; end <= name.length; end++) words.add(name.slice(0, end));
      words.add(name.replace(/-([a-z])/g, (_m, letter: string) => letter.toUpperCase()));
      words.add(name.toUpperCase());
      words.add(`${name}x`);
    }
    const wrong = [...words].filter((word) => npmCommand(word) !== own.deref(word)).map((word) => `${word}: npm ${own.deref(word) ?? "(none)"}, guard ${npmCommand(word) ?? "(none)"}`);
    expect(wrong).toEqual([]);
    expect(words.size).toBeGreaterThan(500);
  });

  it("a deny on a command holds for every spelling npm runs as it", () => {
    const own = npmOwn();
    const missed: string[] = [];
    for (const command of ["publish", "unpublish", "uninstall", "run", "test", "exec", "install", "deprecate", "dist-tag", "access", "owner"]) {
      const spellings = [...own.commands, ...Object.keys(own.aliases)].flatMap((name) => Array.from({ length: name.length }, (_, k) => name.slice(0, k + 1)));
      for (const word of new Set(spellings)) {
        if (own.deref(word) !== command) continue;
        const { mode } = decide([`npm ${command}:*`], `npm ${word} x`);
        if (mode !== "deny") missed.push(`npm ${word} x (${mode})`);
      }
    }
    expect(missed).toEqual([]);
  });

  // Lines whose options come before, among and after the command: the command and first operand npm's parser reads.
  const optionWord = fc.oneof(
    fc.constantFrom("--force", "-f", "--global", "-g", "--json", "--dry-run", "--silent", "-s", "-d", "-dd", "-ddd", "-q", "--ws", "-ws", "--iwr", "-y", "--no-yes", "--no-force", "--yes", "--color"),
    fc.constantFrom("--loglevel", "--registry", "--reg", "--regis", "--prefix", "-C", "-w", "--workspace", "--tag", "--otp", "--browser", "--cache", "--userconfig", "--loglev", "-gw", "-wg", "-dw"),
    fc.constantFrom("--loglevel=warn", "--registry=http://127.0.0.1:9/", "--force=true", "--foo=bar"),
    fc.constantFrom("true", "false", "always", "warn", "x", "/tmp", "http://127.0.0.1:9/"),
  );
  const commandWord = fc.constantFrom("publish", "pub", "publ", "unpublish", "unp", "run", "rum", "run-script", "urn", "test", "t", "tst", "uninstall", "un", "rm", "r", "exec", "x", "install", "i", "installTest", "distTag", "deprecate", "dep");
  const line = fc.tuple(fc.array(optionWord, { maxLength: 3 }), commandWord, fc.array(fc.oneof(optionWord, fc.constantFrom("deploy", "pkg")), { maxLength: 3 }));

  it(`generated lines (${CASES}): a deny on the command npm runs denies, or asks where npm's reading hangs on an option it does not know`, () => {
    const own = npmOwn();
    const wrong: string[] = [];
    fc.assert(
      fc.property(line, ([before, command, after]) => {
        const argv = [...before, command, ...after];
        const remain = own.remain(argv);
        const runs = remain[0] === undefined ? undefined : own.deref(remain[0]);
        if (runs === undefined) return;
        const text = `npm ${argv.join(" ")}`;
        const { mode, reason } = decide([`npm ${runs}:*`], text);
        const unknownOption = argv.some((word) => /^--foo/.test(word));
        if (mode === "deny" || (mode === "ask" && unknownOption)) return;
        wrong.push(`${text}: npm runs ${runs}; guard ${mode} (${reason})`);
        // With its first operand: `npm run --silent deploy` runs the script deploy.
      }),
      { seed: 20261129, numRuns: CASES },
    );
    expect(wrong.slice(0, 10)).toEqual([]);
  });

  it("the npm program itself reads a sample of those lines as npm's parser does", () => {
    const own = npmOwn();
    const sample = [
      ["--force", "publish"], ["--foo", "x", "publish"], ["--browser", "x", "publish"], ["-gw", "x", "publish"], ["-wg", "x", "publish"], ["--regis", "http://127.0.0.1:9/", "pub"],
      ["--color", "always", "publish"], ["--yes", "x", "publish"], ["--loglevel", "publish"], ["-dd", "unp"], ["run", "--silent", "deploy"], ["-C", "/tmp", "rum", "deploy"],
    ];
    const home = mkdtempSync(path.join(scratch, "npm-home-"));
    for (const argv of sample) {
      // The command npm runs, from its help ("npm publish <package-spec>", "npm <command>" for none).
      const shown = spawnSync("npm", [...argv, "-h"], { cwd: home, encoding: "utf8", env: { ...process.env, npm_config_update_notifier: "false", HOME: home } });
      const usage = shown.stdout.startsWith("npm <command>") ? "<command>" : /^npm (\S+)/m.exec(shown.stdout.split("Usage:")[1]?.trim() ?? "")?.[1];
      const remain = own.remain(argv);
      const expected = remain[0] === undefined ? "<command>" : (own.deref(remain[0]) ?? "<command>");
      expect(usage, `npm ${argv.join(" ")} -h`).toBe(expected);
    }
  }, 60_000);
});

describe("npm: the rule reads npm's line, and the plain companions stay as they were", () => {
  it.each([
    ["npm publish:*", "npm pub", "deny"],
    ["npm publish:*", "npm --force publish", "deny"],
    ["npm publish:*", "npm -f publish --tag beta", "deny"],
    ["npm publish:*", "npm --registry http://127.0.0.1:9/ publish", "deny"],
    ["npm publish:*", "npm -- publish", "deny"],
    ["npm publish:*", "npm --foo x publish", "ask"],
    ["npm publish:*", "npm --foo publish", "deny"],
    ["npm publish:*", "npm view publish", "allow"],
    ["npm publish:*", "npm --json view x", "allow"],
    ["npm publish:*", "npm p", "allow"],
    ["npm run deploy:*", "npm run --silent deploy", "deny"],
    ["npm run deploy:*", "npm rum deploy", "deny"],
    ["npm run deploy:*", "npm run build", "allow"],
    ["npm uninstall:*", "npm rm x", "deny"],
    ["npm rm:*", "npm uninstall x", "deny"],
    ["npm i:*", "npm install x", "deny"],
    ["npm test:*", "npm tst", "deny"],
    ["npx:*", "npm exec cowsay", "deny"],
    ["npx:*", "npm x -- cowsay", "deny"],
    ["npx cowsay:*", "npm --yes exec cowsay hi", "deny"],
    ["npm exec:*", "npx cowsay", "deny"],
    ["npm x:*", "npx cowsay", "deny"],
    ["npx:*", "npm run build", "allow"],
    ["npm install-test:*", "npm installTest", "deny"],
  ])("deny %s: %s → %s", (deny, command, expected) => {
    expect(decide([deny], command).mode).toBe(expected);
  });

  it("an allow is not widened by another spelling: `npm run build:*` does not cover `npm rum deploy`", () => {
    const guard = bashGuard(["npm run build:*"], [], "command-words-allow");
    expect(guard.decide("Bash", { command: "npm run build" }).mode).toBe("allow");
    expect(guard.decide("Bash", { command: "npm rum deploy" }).mode).not.toBe("allow");
    expect(guard.decide("Bash", { command: "npm --silent run deploy" }).mode).not.toBe("allow");
  });
});

const dockerAvailable = installed("docker") && spawnSync("docker", ["container", "rm", "--help"], { encoding: "utf8" }).stdout.includes("Aliases:");
if (REQUIRE_ORACLES && !dockerAvailable) throw new Error("REQUIRE_ORACLES=1 but the docker CLI is not installed");

/** The alias groups docker's own help prints ("Aliases:\n  docker container rm, docker container remove, docker rm"). */
function dockerAliasGroups(): string[][] {
  const help = (args: readonly string[]) => spawnSync("docker", [...args, "--help"], { encoding: "utf8" }).stdout;
  const commands = (text: string) => [...text.matchAll(/^ {2}([a-z][a-z-]*)\*?\s/gm)].map((match) => match[1]!);
  const groups: string[][] = [];
  const top = help([]);
  for (const group of ["container", "image", "volume", "network", "system", "context", "plugin", "config", "node", "secret", "service", "stack", "checkpoint"]) {
    for (const sub of commands(help([group]))) {
      const aliases = /^Aliases:\n\s+(.+)$/m.exec(help([group, sub]))?.[1];
      if (aliases !== undefined) groups.push(aliases.split(", ").map((alias) => alias.replace(/^docker /, "")));
    }
  }
  expect(top).toContain("Global Options:");
  return groups;
}

describe.skipIf(!dockerAvailable)("docker: every alias docker's help lists, and its global options, as docker reads them", () => {
  it("a deny on any spelling of a command holds for each of its other spellings", () => {
    const groups = dockerAliasGroups();
    expect(groups.length).toBeGreaterThan(40);
    const missed: string[] = [];
    for (const group of groups) {
      for (const denied of group) for (const spelling of group) {
        if (decide([`docker ${denied}:*`], `docker ${spelling} x`).mode !== "deny") missed.push(`docker ${spelling} x under docker ${denied}:*`);
      }
    }
    expect(missed).toEqual([]);
  });

  it.each([
    ["-H", "unix:///var/run/docker.sock"], ["--host", "tcp://127.0.0.1:9"], ["-c", "default"], ["--context", "default"], ["--config", "/tmp"], ["-l", "debug"], ["--log-level", "debug"],
    ["--log-level=debug"], ["-D"], ["--debug"], ["--tls"], ["--tlsverify"], ["--tlscacert", "/tmp/ca"], ["-Dl", "info"],
  ])("docker %s … rm runs the command docker's help names, and the deny holds", (...options: string[]) => {
    const shown = spawnSync("docker", [...options, "container", "remove", "--help"], { encoding: "utf8" });
    expect(shown.stdout).toMatch(/Usage:\s+docker container rm /);
    expect(decide(["docker rm:*"], `docker ${options.join(" ")} container remove x`).mode).toBe("deny");
    expect(decide(["docker rm:*"], `docker ${options.join(" ")} ps`).mode).toBe("allow");
  });
});

const pipAvailable = installed("pip") || installed("pip3");
describe.skipIf(!pipAvailable)("pip: its general options before the command, and its versioned names", () => {
  const pip = installed("pip") ? "pip" : "pip3";
  it.each([[["-v"]], [["--verbose"]], [["--verb"]], [["-q"]], [["--proxy", "http://127.0.0.1:9"]], [["--timeout", "1"]], [["--isolated"]], [["--no-cache-dir"]], [["--cache-dir", "/tmp"]], [["--disable-pip-version-check"]], [["--retries", "0", "-v"]]])(
    "pip %s uninstall: pip's help names uninstall, and the deny holds",
    (options: string[]) => {
      const shown = spawnSync(pip, [...options, "uninstall", "-h"], { encoding: "utf8" });
      expect(shown.stdout).toMatch(/Usage:\s+\S*pip\S* uninstall/);
      expect(decide(["pip uninstall:*"], `pip ${options.join(" ")} uninstall x`).mode).toBe("deny");
      expect(decide(["pip uninstall:*"], `pip3 ${options.join(" ")} uninstall x`).mode).toBe("deny");
      expect(decide(["pip uninstall:*"], `pip ${options.join(" ")} list`).mode).toBe("allow");
    },
  );

  it("pip takes no prefix of a command (`pip uninst` is an error), so the guard reads none", () => {
    const shown = spawnSync(pip, ["uninst", "x"], { encoding: "utf8" });
    expect(shown.stderr).toMatch(/unknown command "uninst"/);
    expect(decide(["pip uninstall:*"], "pip uninst x").mode).toBe("allow");
  });

  it("versioned names are the program: pip3.11, python3.11, nodejs", () => {
    expect(decide(["pip:*"], "pip3.11 install x").mode).toBe("deny");
    expect(decide(["python:*"], "python3.11 x.py").mode).toBe("deny");
    expect(decide(["python:*"], "python3 -c 1").mode).toBe("deny");
    expect(decide(["node:*"], "nodejs x.js").mode).toBe("deny");
    expect(decide(["python:*"], "pythonx x.py").mode).toBe("allow");
  });
});

const cargoAvailable = installed("cargo");
describe.skipIf(!cargoAvailable)("cargo: its own options, `+TOOLCHAIN`, and its built-in aliases", () => {
  it.each([
    ["b", "build"], ["c", "check"], ["t", "test"], ["r", "run"], ["d", "doc"], ["rm", "remove"],
  ])("cargo %s is cargo %s (cargo's help names it) and a deny on either holds for the other", (alias, command) => {
    const shown = spawnSync("cargo", ["-q", alias, "--help"], { encoding: "utf8" });
    expect(shown.stdout).toMatch(new RegExp(`Usage: (?:cargo[ -])?${command} `));
    expect(decide([`cargo ${command}:*`], `cargo ${alias}`).mode).toBe("deny");
    expect(decide([`cargo ${alias}:*`], `cargo ${command}`).mode).toBe("deny");
  });
  it.each(["--locked", "-q", "-v", "--offline", "--frozen", "--color never", "--config net.offline=true", "-Z unstable-options"])("cargo %s publish", (options) => {
    const shown = spawnSync("cargo", [...options.split(" "), "publish", "--help"], { encoding: "utf8" });
    expect(shown.stdout).toMatch(/Usage: (?:cargo[ -])?publish /);
    expect(decide(["cargo publish:*"], `cargo ${options} publish`).mode).toBe("deny");
  });
  it("cargo lists its commands; any other word is an alias a .cargo/config.toml defines or a cargo-NAME program, so a deny naming a cargo command cannot tell", () => {
    const listed = spawnSync("cargo", ["--list"], { encoding: "utf8" }).stdout.split("\n").slice(1).map((line) => line.trim().split(/\s+/)[0]!).filter((word) => /^[a-z]/.test(word));
    const unknown = listed.filter((word) => decide(["cargo publish:*"], `cargo ${word} x`).mode === "ask");
    expect(listed.length).toBeGreaterThan(30);
    expect(unknown).toEqual([]);
    const project = mkdtempSync(path.join(scratch, "cargo-alias-"));
    spawnSync("bash", ["-c", `mkdir -p .cargo && printf '[alias]\\np = "publish"\\n' > .cargo/config.toml`], { cwd: project });
    const shown = spawnSync("cargo", ["p", "--help"], { cwd: project, encoding: "utf8" });
    expect(shown.stdout).toMatch(/Usage: (?:cargo[ -])?publish /);
    expect(decide(["cargo publish:*"], "cargo p").mode).toBe("ask");
    expect(decide(["cargo publish:*"], "cargo -q p --dry-run").mode).toBe("ask");
    expect(decide(["rm:*"], "cargo p").mode).toBe("allow");
  });
  it("rustup's `+TOOLCHAIN` comes first", () => {
    expect(decide(["cargo publish:*"], "cargo +nightly publish").mode).toBe("deny");
    expect(decide(["cargo publish:*"], "cargo +stable -q publish --dry-run").mode).toBe("deny");
  });
});

describe("programs not installed here, from their sources and manuals", () => {
  it.each([
    // helm 3 (cmd/helm/uninstall.go: Aliases del, delete, un; persistent flags anywhere).
    ["helm uninstall:*", "helm del x", "deny"],
    ["helm uninstall:*", "helm delete x", "deny"],
    ["helm uninstall:*", "helm un x", "deny"],
    ["helm delete:*", "helm uninstall x", "deny"],
    ["helm uninstall:*", "helm --namespace prod uninstall x", "deny"],
    ["helm uninstall:*", "helm -n prod --kube-context c del x", "deny"],
    ["helm repo remove:*", "helm repo rm x", "deny"],
    ["helm uninstall:*", "helm list", "allow"],
    // terraform (`-chdir=DIR` before the command; destroy is `apply -destroy`).
    ["terraform destroy:*", "terraform -chdir=infra destroy", "deny"],
    ["terraform destroy:*", "terraform apply -destroy", "deny"],
    ["terraform destroy:*", "terraform apply -auto-approve -destroy", "deny"],
    ["terraform apply:*", "terraform destroy", "deny"],
    ["terraform destroy:*", "terraform apply", "allow"],
    ["terraform destroy:*", "terraform plan -destroy", "allow"],
    ["tofu destroy:*", "tofu apply -destroy", "deny"],
    // The AWS CLI reads its global options anywhere.
    ["aws s3 rm:*", "aws --profile p s3 rm s3://b/x", "deny"],
    ["aws s3 rm:*", "aws s3 --region us-east-1 rm s3://b/x", "deny"],
    ["aws s3 rm:*", "aws s3 rm s3://b/x --recursive", "deny"],
    ["aws s3 rm:*", "aws --debug s3 ls", "allow"],
    // systemctl and apt-get (getopt with permutation).
    ["systemctl stop:*", "systemctl --no-pager stop x", "deny"],
    ["systemctl stop:*", "systemctl -H host stop x", "deny"],
    ["systemctl stop:*", "systemctl --no-pager status x", "allow"],
    ["apt-get remove:*", "apt-get -y remove x", "deny"],
    ["apt-get remove:*", "apt-get -y purge x", "deny"],
    ["apt-get purge:*", "apt-get remove --purge x", "deny"],
    ["apt remove:*", "apt -y purge x", "deny"],
    ["apt remove:*", "apt -q list", "allow"],
    ["apt-get remove:*", "apt-get -q install x", "allow"],
    // Homebrew's aliases.
    ["brew uninstall:*", "brew rm x", "deny"],
    ["brew uninstall:*", "brew remove x", "deny"],
  ])("deny %s: %s → %s", (deny, command, expected) => {
    expect(decide([deny], command).mode).toBe(expected);
  });
});

describe("a program the guard has no table for, with options before its command", () => {
  it.each([
    ["bun publish:*", "bun --cwd x publish", "ask"],
    ["poetry publish:*", "poetry --directory x publish", "ask"],
    ["mytool deploy:*", "mytool --env prod deploy", "ask"],
    ["mytool deploy:*", "mytool -v deploy", "ask"],
    ["mytool deploy:*", "mytool --env prod status", "allow"],
    ["mytool deploy:*", "mytool status", "allow"],
    ["cat /etc/shadow", "cat -n /etc/shadow", "ask"],
  ])("deny %s: %s → %s", (deny, command, expected) => {
    const { mode, reason } = decide([deny], command);
    expect(mode).toBe(expected);
    if (expected === "ask") expect(reason).toMatch(/options before its operands that the guard has no table for/);
  });
});

/** pnpm and Yarn 1 as CI installs them (GG_PNPM_BIN, GG_YARN_BIN), or on the PATH. */
const PNPM = process.env.GG_PNPM_BIN ?? (installed("pnpm") ? "pnpm" : undefined);
const YARN = process.env.GG_YARN_BIN ?? (installed("yarn") ? "yarn" : undefined);
if (REQUIRE_ORACLES && (PNPM === undefined || YARN === undefined)) throw new Error("REQUIRE_ORACLES=1 but pnpm or yarn is not installed (GG_PNPM_BIN, GG_YARN_BIN)");

/** The command a package manager's help names for a line (`Usage: pnpm remove …`), run where no project is. */
function usageOf(program: string, argv: readonly string[]): string | undefined {
  const home = mkdtempSync(path.join(scratch, "pm-"));
  const shown = spawnSync(program, [...argv, "--help"], { cwd: home, encoding: "utf8", env: { ...process.env, HOME: home, npm_config_update_notifier: "false" } });
  return /Usage: (?:pnpm|yarn) ([a-z-]+)/.exec(shown.stdout)?.[1];
}

describe.skipIf(PNPM === undefined)("pnpm: its aliases and the options it reads before its command, as pnpm's help names the command", () => {
  it.each([
    ["rm", "remove"], ["un", "remove"], ["uninstall", "remove"], ["i", "install"], ["it", "install-test"], ["ln", "link"], ["rb", "rebuild"], ["up", "update"], ["upgrade", "update"],
    ["list", "ls"], ["la", "ls"], ["ll", "ls"], ["t", "test"], ["tst", "test"],
  ])("pnpm %s is pnpm %s", (alias, command) => {
    expect(usageOf(PNPM!, [alias])).toBe(command);
    expect(decide([`pnpm ${command}:*`], `pnpm ${alias} x`).mode).toBe("deny");
    expect(decide([`pnpm ${alias}:*`], `pnpm ${command} x`).mode).toBe("deny");
  });
  it.each([["-C", "/tmp"], ["--dir", "/tmp"], ["--filter", "app"], ["-F", "app"], ["--filter=app"], ["-r"], ["--recursive"], ["-w"], ["-s"], ["--silent"], ["--reporter", "silent"], ["--loglevel", "warn"], ["--stream"], ["--color"]])(
    "pnpm %s … publish and … rm",
    (...options: string[]) => {
      expect(usageOf(PNPM!, [...options, "publish"])).toBe("publish");
      expect(usageOf(PNPM!, [...options, "rm"])).toBe("remove");
      expect(decide(["pnpm publish:*"], `pnpm ${options.join(" ")} publish`).mode).toBe("deny");
      expect(decide(["pnpm remove:*"], `pnpm ${options.join(" ")} rm x`).mode).toBe("deny");
      expect(decide(["pnpm publish:*"], `pnpm ${options.join(" ")} pack`).mode).toBe("allow");
    },
  );
  it("an option the guard has no table for: pnpm reads the word after it as the command, or not; a deny it could be asks", () => {
    expect(usageOf(PNPM!, ["--workspace-concurrency", "2", "rm"])).not.toBe("remove");
    expect(decide(["pnpm remove:*"], "pnpm --workspace-concurrency 2 rm x").mode).toBe("ask");
  });
});

describe.skipIf(YARN === undefined)("Yarn 1: the options it reads before its command, as yarn's help names the command", () => {
  it.each([["--cwd", "/tmp"], ["--cwd=/tmp"], ["--registry", "http://127.0.0.1:9/"], ["--verbose"], ["-s"], ["--silent"], ["--json"], ["--offline"], ["--mutex", "file"], ["--network-timeout", "5"], ["--no-progress"], ["--force"]])(
    "yarn %s … publish",
    (...options: string[]) => {
      expect(usageOf(YARN!, [...options, "publish"])).toBe("publish");
      expect(decide(["yarn publish:*"], `yarn ${options.join(" ")} publish`).mode).toBe("deny");
      expect(decide(["yarn publish:*"], `yarn ${options.join(" ")} pack`).mode).toBe("allow");
    },
  );
  it("an option that takes a value only sometimes (`--emoji [bool]`): yarn reads `--emoji publish` as its value, so the guard cannot tell", () => {
    expect(usageOf(YARN!, ["--emoji", "publish"])).toBeUndefined();
    expect(usageOf(YARN!, ["--emoji", "true", "publish"])).toBe("publish");
    expect(decide(["yarn publish:*"], "yarn --emoji true publish").mode).toBe("ask");
  });
});

// kubectl is not run here (its resource names come from a cluster's discovery): the names are those `kubectl
// api-resources` lists on a Kubernetes 1.30 cluster.
describe("kubectl: a resource type by each of its names", () => {
  it.each([
    ["kubectl delete namespace:*", "kubectl delete ns prod", "deny"],
    ["kubectl delete namespace:*", "kubectl delete namespaces prod", "deny"],
    ["kubectl delete namespace:*", "kubectl delete Namespace prod", "deny"],
    ["kubectl delete namespace:*", "kubectl delete ns/prod", "deny"],
    ["kubectl delete namespace:*", "kubectl delete pods,ns prod", "deny"],
    ["kubectl delete namespace:*", "kubectl delete namespaces.v1 prod", "deny"],
    ["kubectl delete namespace:*", "kubectl -n x delete ns prod", "deny"],
    ["kubectl delete namespace:*", "kubectl delete --wait=false ns prod", "deny"],
    ["kubectl delete namespace:*", "kubectl delete --grace-period 0 ns prod", "deny"],
    ["kubectl delete namespace:*", "kubectl delete --unknown-option ns prod", "ask"],
    ["kubectl delete ns:*", "kubectl delete namespace prod", "deny"],
    ["kubectl delete deployment:*", "kubectl delete deploy web", "deny"],
    ["kubectl delete deployment:*", "kubectl delete deployments.apps web", "deny"],
    ["kubectl delete deployment:*", "kubectl delete deployment.v1.apps web", "deny"],
    ["kubectl delete deployment:*", "kubectl delete deploy/web", "deny"],
    ["kubectl delete secret:*", "kubectl delete secrets db", "deny"],
    ["kubectl get secret:*", "kubectl get secrets -o yaml", "deny"],
    ["kubectl get secret:*", "kubectl get --show-managed-fields secrets", "deny"],
    ["kubectl delete deployment:*", "kubectl delete all --all", "deny"],
    ["kubectl delete deployments:*", "kubectl delete all -l app=x", "deny"],
    ["kubectl delete sts:*", "kubectl delete all --all -n prod", "deny"],
    ["kubectl delete namespace:*", "kubectl delete all --all", "allow"],
    ["kubectl delete namespace:*", "kubectl delete -f ns.yaml", "ask"],
    ["kubectl delete namespace:*", "kubectl delete --filename=ns.yaml", "ask"],
    ["kubectl delete namespace:*", "kubectl -n x delete -k overlays/prod", "ask"],
    ["kubectl get secret:*", "kubectl get -f s.yaml -o yaml", "ask"],
    ["kubectl delete namespace:*", "kubectl get -f ns.yaml", "allow"],
    ["kubectl delete namespace:*", "kubectl delete pod x", "allow"],
    ["kubectl delete namespace:*", "kubectl get ns", "allow"],
  ])("deny %s: %s → %s", (deny, command, expected) => {
    expect(decide([deny], command).mode).toBe(expected);
  });
});

const ghAvailable = installed("gh");
describe.skipIf(!ghAvailable)("gh: -R/--repo anywhere among its command words, and its `co` alias, as gh's help names the command", () => {
  it.each([["-R o/r pr merge"], ["pr -R o/r merge"], ["--repo o/r pr merge"], ["pr --repo=o/r merge"], ["pr merge -R o/r"]])("gh %s", (line) => {
    const shown = spawnSync("gh", [...line.split(" "), "--help"], { encoding: "utf8", env: { ...process.env, GH_CONFIG_DIR: scratch } });
    expect(shown.stdout).toMatch(/USAGE\n\s+gh pr merge /);
    expect(decide(["gh pr merge:*"], `gh ${line} 1`).mode).toBe("deny");
    expect(decide(["gh pr merge:*"], `gh ${line.replace("merge", "view")} 1`).mode).toBe("allow");
  });
  it("gh co is gh pr checkout (the alias gh's configuration starts with)", () => {
    const shown = spawnSync("gh", ["alias", "list"], { encoding: "utf8", env: { ...process.env, GH_CONFIG_DIR: mkdtempSync(path.join(scratch, "gh-")) } });
    expect(shown.stdout).toMatch(/co:\s+pr checkout/);
    expect(decide(["gh pr checkout:*"], "gh co 12").mode).toBe("deny");
  });
  it("an option the guard has no table for before the command asks", () => {
    expect(decide(["gh repo delete:*"], "gh --unknown a/b repo delete").mode).toBe("ask");
  });
  it("a word that is none of gh's commands is an alias (gh runs what its configuration says) or an extension: a deny on a gh command cannot tell", () => {
    const config = mkdtempSync(path.join(scratch, "gh-alias-"));
    spawnSync("gh", ["alias", "set", "mm", "pr merge"], { encoding: "utf8", env: { ...process.env, GH_CONFIG_DIR: config } });
    const shown = spawnSync("gh", ["mm", "--help"], { encoding: "utf8", env: { ...process.env, GH_CONFIG_DIR: config } });
    expect(shown.stdout).toMatch(/USAGE\n\s+gh pr merge /);
    expect(decide(["gh pr merge:*"], "gh mm 1").mode).toBe("ask");
    expect(decide(["gh pr merge:*"], "gh -R o/r mm 1").mode).toBe("ask");
    expect(decide(["gh pr merge:*"], "gh pr view 1").mode).toBe("allow");
    expect(decide(["rm:*"], "gh mm 1").mode).toBe("allow");
  });
});

describe("the package managers run by other names: corepack, node with npm's own script, nvm exec", () => {
  it.each([
    ["npm publish:*", "corepack npm publish", "deny"],
    ["pip install:*", "uv pip install x", "deny"],
    ["pip uninstall:*", "uv pip uninstall x", "deny"],
    ["pip uninstall:*", "uv pip list", "allow"],
    ["pnpm publish:*", "corepack pnpm@9.15.9 publish", "deny"],
    ["yarn publish:*", "corepack yarn publish", "deny"],
    ["npm publish:*", "node /usr/lib/node_modules/npm/bin/npm-cli.js publish", "deny"],
    ["npm publish:*", "node --no-warnings /usr/lib/node_modules/npm/bin/npm-cli.js --force pub", "deny"],
    ["npm publish:*", "/usr/lib/node_modules/npm/bin/npm-cli.js publish", "deny"],
    ["npm publish:*", "nvm exec 20 npm publish", "deny"],
    ["npm publish:*", "nvm exec --silent lts/iron npm publish", "deny"],
    ["npm publish:*", "nvm exec npm publish", "deny"],
    ["npm publish:*", "node /usr/lib/node_modules/npm/bin/npm-cli.js view x", "allow"],
  ])("deny %s: %s → %s", (deny, command, expected) => {
    expect(decide([deny], command).mode).toBe(expected);
  });

  it("an allow on corepack or nvm does not cover the command they run", () => {
    const guard = bashGuard(["corepack:*", "nvm:*"], [], "command-words-runners");
    expect(guard.decide("Bash", { command: "corepack pnpm dlx evil" }).mode).not.toBe("allow");
    expect(guard.decide("Bash", { command: "nvm exec 20 rm -rf /x" }).mode).not.toBe("allow");
    expect(guard.decide("Bash", { command: "nvm ls" }).mode).toBe("allow");
  });

  it.skipIf(!npmAvailable)("node runs npm's own script as npm (npm's help names the command)", () => {
    const script = path.join(NPM!, "bin/npm-cli.js");
    const shown = spawnSync(process.execPath, [script, "--force", "pub", "-h"], { cwd: scratch, encoding: "utf8" });
    expect(shown.stdout).toMatch(/Usage:\s+npm publish/);
    expect(decide(["npm publish:*"], `node ${script} --force pub`).mode).toBe("deny");
  });
});

describe("compose as docker's plugin and as its own program", () => {
  it.each([
    ["docker-compose down:*", "docker compose down -v", "deny"],
    ["docker-compose down:*", "docker compose -f x.yml -p app down", "deny"],
    ["docker-compose down:*", "docker -H unix:///x compose down", "deny"],
    ["docker compose down:*", "docker-compose down", "deny"],
    ["docker compose down:*", "docker-compose --file x.yml down", "deny"],
    ["podman compose down:*", "podman-compose down", "deny"],
    ["docker compose down:*", "docker compose --unknown x down", "ask"],
    ["docker-compose down:*", "docker compose ps", "allow"],
  ])("deny %s: %s → %s", (deny, command, expected) => {
    expect(decide([deny], command).mode).toBe(expected);
  });
});

// APT simulates (`-s`) what a line would do: `purge` and `remove --purge` both purge, options stand anywhere.
const aptPackage = spawnSync("dpkg-query", ["-W", "-f=${Status}", "tree"], { encoding: "utf8" }).stdout.includes("installed") ? "tree" : undefined;
describe.skipIf(!installed("apt-get") || aptPackage === undefined)("apt-get and apt: purge is remove --purge, options anywhere (APT's own simulation judges)", () => {
  const simulated = (line: string) => spawnSync("bash", ["-c", `${line} 2>/dev/null | grep -E '^(Purg|Remv) '`], { encoding: "utf8" }).stdout.trim().split(" ")[0];
  it.each(["apt-get -s -y purge", "apt-get -s -y remove --purge", "apt-get -s remove -y --purge", "apt -s -y purge", "apt-get -s -q -y purge"])("%s PKG purges, and a deny on apt-get remove or purge holds", (line) => {
    expect(simulated(`${line} ${aptPackage}`)).toBe("Purg");
    const program = line.split(" ")[0]!;
    expect(decide([`${program} remove:*`], `${line} ${aptPackage}`).mode).toBe("deny");
    expect(decide([`${program} purge:*`], `${line} ${aptPackage}`).mode).toBe("deny");
  });
  it("remove without --purge is no purge", () => {
    expect(simulated(`apt-get -s -y remove ${aptPackage}`)).toBe("Remv");
    expect(decide(["apt-get purge:*"], `apt-get -s -y remove ${aptPackage}`).mode).toBe("allow");
  });
});

const podmanAvailable = installed("podman") && spawnSync("podman", ["container", "rm", "--help"], { encoding: "utf8" }).status === 0;
describe.skipIf(!podmanAvailable)("podman: a container or image command by itself or in its group, as podman's help reads them", () => {
  /** The options podman's help lists for a command (the same command has the same options, whatever its name). */
  const options = (args: readonly string[]) => spawnSync("podman", [...args, "--help"], { encoding: "utf8" }).stdout.split(/^Options:$/m)[1] ?? "";
  /** The command podman's help names (`podman container ls` is `podman container list`). */
  const usage = (args: readonly string[]) => /^Usage:\n\s+(podman(?: [a-z-]+)+?)(?= \[| [A-Z]|$)/m.exec(spawnSync("podman", [...args, "--help"], { encoding: "utf8" }).stdout)?.[1];
  it.each(["attach", "commit", "cp", "create", "exec", "kill", "logs", "rm", "run", "start", "stop", "wait"])("podman %s is podman container %s", (name) => {
    expect(options([name])).not.toBe("");
    expect(options([name])).toBe(options(["container", name]));
    expect(decide([`podman container ${name}:*`], `podman ${name} x`).mode).toBe("deny");
    expect(decide([`podman ${name}:*`], `podman container ${name} x`).mode).toBe("deny");
  });
  it.each([["ps", "container list"], ["rmi", "image rm"], ["build", "image build"], ["push", "image push"]])("podman %s is podman %s", (short, long) => {
    expect(options([short])).toBe(options(long.split(" ")));
    expect(decide([`podman ${long}:*`], `podman ${short} x`).mode).toBe("deny");
    expect(decide([`podman ${short}:*`], `podman ${long} x`).mode).toBe("deny");
  });
  it.each([["container ls", "podman container list"], ["volume remove", "podman volume rm"], ["pod ls", "podman pod ps"], ["image ls", "podman image list"]])("podman %s is %s (podman's help)", (given, named) => {
    expect(usage(given.split(" "))).toBe(named);
    expect(decide([`${named}:*`], `podman ${given} x`).mode).toBe("deny");
  });
  it.each([["--log-level", "debug"], ["--root", "/tmp/r"], ["--url", "unix:///x"], ["-c", "conn"], ["--remote"], ["--noout"]])("podman %s … rm", (...global: string[]) => {
    expect(usage([...global, "rm"])).toBe("podman rm");
    expect(decide(["podman rm:*"], `podman ${global.join(" ")} rm x`).mode).toBe("deny");
    expect(decide(["podman rm:*"], `podman ${global.join(" ")} ps`).mode).toBe("allow");
  });
  it("an option that names a program podman runs is still one no allow on podman run covers", () => {
    const guard = bashGuard(["podman run:*"], [], "command-words-podman");
    expect(guard.decide("Bash", { command: "podman --runtime /tmp/x run alpine" }).mode).not.toBe("allow");
  });
});
