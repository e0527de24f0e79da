// Readings round 12: places a command connects to that its words do not spell out.
//   - git given a remote by name (`git fetch origin`, `git pull`, `git push`, `git remote update`, `git fetch --all`,
//     `git submodule update`, `git clone --recurse-submodules`): the URL is the repository's configuration's; under a deny
//     that names a place the guard cannot tell, and asks; with no such deny nothing changes.
//   - `git -c url.BASE.insteadOf=PREFIX` and `-c remote.NAME.url=URL`: the place is BASE or URL.
//   - the environment: proxies (`https_proxy`, `ALL_PROXY`, ... in any case) and package indexes (`PIP_INDEX_URL`,
//     `npm_config_registry`, `UV_INDEX_URL`, `GOPROXY`, `CARGO_REGISTRIES_X_INDEX`, ...), set before the command, with env or
//     sudo, or exported earlier in the line.
//   - uv, uvx, pipx, cargo install and gem: their index, source and git options.
// git, curl, pip and npm judge against loopback listeners (test/helpers/net-listeners.ts) where installed.
import { homedir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bashGuard, denyListGuard } from "./helpers/bash-rules.js";
import { installed, openListeners, type Listeners } from "./helpers/net-listeners.js";

const PROGRAMS = ["git", "curl", "pip", "npm", "uv", "uvx", "pipx", "cargo", "gem", "wget"];
const denyLoopback = denyListGuard(PROGRAMS.flatMap((program) => ["*127.0.0.1*", "*localhost*"].map((host) => `${program} ${host}`)), "reads12-deny-loopback");
const plainDeny = denyListGuard(["rm:*", "git push --force:*"], "reads12-plain-deny");

const SETUP = "git init -q d && cd d && git commit -q --allow-empty -m x && git remote add origin http://127.0.0.1:P/r.git && ";

// rustup's cargo finds its toolchains through RUSTUP_HOME (the runs have a HOME of their own).
const RUSTUP = `export RUSTUP_HOME=${JSON.stringify(process.env.RUSTUP_HOME ?? path.join(homedir(), ".rustup"))}; `;

/** `line` is what the guard decides; `setup` runs first (the repository's configuration), and the listener says whether the line reached it. */
const REMOTE_CASES: readonly { line: string; program: string; setup?: string }[] = [
  { line: "git fetch origin", program: "git", setup: SETUP },
  { line: "git fetch", program: "git", setup: `${SETUP}git config branch.master.remote origin && git config branch.main.remote origin && ` },
  { line: "git fetch --all", program: "git", setup: SETUP },
  { line: "git fetch --multiple origin", program: "git", setup: SETUP },
  { line: "git pull origin main", program: "git", setup: SETUP },
  { line: "git pull -q origin", program: "git", setup: SETUP },
  { line: "git push origin HEAD", program: "git", setup: SETUP },
  { line: "git push -q origin HEAD:main", program: "git", setup: SETUP },
  { line: "git ls-remote origin", program: "git", setup: SETUP },
  { line: "git ls-remote", program: "git", setup: `${SETUP}git config branch.master.remote origin && git config branch.main.remote origin && ` },
  { line: "git remote update", program: "git", setup: SETUP },
  { line: "git remote show origin", program: "git", setup: SETUP },
  { line: "git remote prune origin", program: "git", setup: SETUP },
  { line: "git -C d fetch origin", program: "git", setup: "git init -q d && git -C d remote add origin http://127.0.0.1:P/r.git && " },
  { line: "git submodule update --init", program: "git", setup: `${SETUP}git config -f .gitmodules submodule.s.path s && git config -f .gitmodules submodule.s.url http://127.0.0.1:P/s.git && git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),s && ` },
  { line: "git -c remote.origin.url=http://127.0.0.1:P/r.git fetch origin", program: "git", setup: "git init -q d && cd d && " },
  { line: "git -c url.http://127.0.0.1:P/.insteadOf=https://github.invalid/ ls-remote https://github.invalid/r.git", program: "git" },
  { line: "git -c url.http://0x7f.1:P/.insteadOf=https://github.invalid/ ls-remote https://github.invalid/r.git", program: "git" },
  { line: "git -c url.http://127.0.0.1:P/.insteadOf=gh: clone -q gh:r.git x", program: "git" },
  { line: "http_proxy=http://127.0.0.1:P curl -s http://example.invalid/", program: "curl" },
  { line: "ALL_PROXY=http://0x7f.1:P curl -s http://example.invalid/", program: "curl" },
  { line: "env http_proxy=http://127.0.0.1:P curl -s http://example.invalid/", program: "curl" },
  { line: "export http_proxy=http://127.0.0.1:P; curl -s http://example.invalid/", program: "curl" },
  { line: "https_proxy=http://127.0.0.1:P git ls-remote https://example.invalid/r.git", program: "git" },
  { line: "http_proxy=http://127.0.0.1:P wget -q -O /dev/null http://example.invalid/", program: "wget" },
  { line: "PIP_INDEX_URL=http://127.0.0.1:P/simple pip download --no-deps -q -d dl x", program: "pip" },
  { line: "PIP_EXTRA_INDEX_URL=http://127.0.0.1:P/simple pip download --no-deps -q -d dl x", program: "pip" },
  { line: "npm_config_registry=http://127.0.0.1:P/ npm view x", program: "npm" },
  { line: "NPM_CONFIG_REGISTRY=http://127.0.0.1:P/ npm view x", program: "npm" },
  { line: "cargo install --index sparse+http://127.0.0.1:P/ x", program: "cargo", setup: RUSTUP },
  { line: "cargo install --git http://127.0.0.1:P/r.git x", program: "cargo", setup: RUSTUP },
  { line: "CARGO_REGISTRIES_CORP_INDEX=sparse+http://127.0.0.1:P/ cargo install --registry corp x", program: "cargo", setup: RUSTUP },
];

describe("a place the command's words do not spell out, judged by the real programs", () => {
  let listeners: Listeners;
  beforeAll(async () => {
    listeners = await openListeners(3, {
      ".gitconfig": "[http]\n\tlowSpeedTime = 3\n[init]\n\tdefaultBranch = main\n[user]\n\tname = t\n\temail = t@t\n[protocol \"file\"]\n\tallow = always\n",
      ".config/pip/pip.conf": "[global]\ntimeout = 3\nretries = 0\ndisable-pip-version-check = true\n",
      ".npmrc": "fetch-retries=0\nfetch-timeout=3000\naudit=false\nfund=false\n",
      ".cargo/config.toml": "[net]\nretry = 0\n[http]\ntimeout = 3\n",
    });
  });
  afterAll(() => listeners?.close());

  it.each(REMOTE_CASES.map((c) => [c.line, c] as const))("%s", async (_line, c) => {
    const line = c.line.replaceAll(":P", ":8080");
    const decision = denyLoopback.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).not.toBe("allow");
    if (!/127\.0\.0\.1|0x7f\.1/.test(line)) expect(decision.reason).toMatch(/cannot tell/);
    if (!installed(c.program)) return;
    const { reached } = await listeners.run({ command: `${c.setup ?? ""}${c.line}`, source: c.program }, 25_000);
    expect(reached.length, `${c.line} did not reach the listener`).toBeGreaterThan(0);
  }, 40_000);
});

describe("under a deny that names no place, a remote by name is as before", () => {
  it.each(["git fetch origin", "git pull", "git push origin main", "git remote update", "git submodule update --init", "https_proxy=http://proxy.corp:3128 curl https://example.com/", "PIP_INDEX_URL=https://pypi.corp/simple pip install x"])("%s", (command) =>
    expect(plainDeny.decide("Bash", { command }).mode).toBe("allow"),
  );
  it("git push --force to a remote by name is still denied", () => expect(plainDeny.decide("Bash", { command: "git push --force origin main" }).mode).toBe("deny"));
  it("an allow of git fetch covers git fetch origin", () => expect(bashGuard(["git fetch:*", "git pull:*"], [], "reads12-allow").decide("Bash", { command: "git fetch origin && git pull" }).mode).toBe("allow"));
});

describe("under a deny on a place, what the words name is read as before", () => {
  const guard = denyListGuard(["go *169.254.169.254*", "yarn *169.254.169.254*", "git *169.254.169.254*", "uv *169.254.169.254*", "uvx *169.254.169.254*", "pipx *169.254.169.254*", "cargo *169.254.169.254*", "gem *169.254.169.254*", "curl *169.254.169.254*", "tar *169.254.169.254*"], "reads12-deny-metadata");
  it.each([
    "git -c url.http://0xa9fea9fe/.insteadOf=https://github.com/ clone https://github.com/a/b",
    "git -c url.http://0xa9fea9fe/.pushInsteadOf=https://github.com/ push https://github.com/a/b",
    "git -c remote.origin.url=http://0xa9fea9fe/r.git fetch origin",
    "git -c http.proxy=http://0xa9fea9fe:3128 clone https://github.com/a/b",
    "uv pip install --index-url http://0xa9fea9fe/simple x",
    "uv pip install -i http://0xa9fea9fe/simple x",
    "uv add git+http://0xa9fea9fe/r.git",
    "uv add --index corp=http://0xa9fea9fe/simple x",
    "uvx --from git+http://0xa9fea9fe/r.git x",
    "uvx --index-url http://0xa9fea9fe/simple x",
    "uv tool install --extra-index-url http://0xa9fea9fe/simple x",
    "pipx install --index-url http://0xa9fea9fe/simple x",
    "pipx install git+http://0xa9fea9fe/r.git",
    "pipx run --spec git+http://0xa9fea9fe/r.git x",
    "pipx install --pip-args='--index-url http://0xa9fea9fe/simple' x",
    "cargo install --git http://0xa9fea9fe/r.git x",
    "cargo install --index sparse+http://0xa9fea9fe/ x",
    "gem install --source http://0xa9fea9fe/ x",
    "gem install -s http://0xa9fea9fe/ x",
    "gem sources --add http://0xa9fea9fe/",
    "tar -cf u@0xa9fea9fe:/x a.txt",
  ])("%s is denied", (command) => expect(guard.decide("Bash", { command }).mode).toBe("deny"));
  it.each([
    "git fetch origin",
    "git pull",
    "git push",
    "git fetch --all",
    "git remote update",
    "git submodule update --init --recursive",
    "git clone --recurse-submodules https://github.com/a/b",
    "git --config-env=remote.origin.url=U fetch https://github.com/a/b",
    "cargo install --registry corp x",
    "https_proxy=http://0xa9fea9fe:3128 curl https://example.com/",
    "HTTPS_PROXY=http://0xa9fea9fe:3128 git clone https://github.com/a/b",
    "sudo https_proxy=http://0xa9fea9fe:3128 curl https://example.com/",
    "export ALL_PROXY=socks5://0xa9fea9fe:1080; curl https://example.com/",
    "UV_INDEX_URL=http://0xa9fea9fe/simple uv pip install x",
    "GOPROXY=http://0xa9fea9fe/ go install x@latest",
    "CARGO_REGISTRIES_CORP_INDEX=sparse+http://0xa9fea9fe/ cargo install --registry corp x",
    "GEM_SOURCE=http://0xa9fea9fe/ gem install x",
    "YARN_REGISTRY=http://0xa9fea9fe/ yarn add x",
  ])("%s cannot be told: asks", (command) => {
    const decision = guard.decide("Bash", { command });
    expect(decision.mode, decision.reason).toBe("ask");
    expect(decision.reason).toMatch(/cannot tell/);
  });
  it.each(["git fetch https://github.com/a/b.git", "git fetch ../other", "git pull /srv/r.git main", "git clone https://github.com/a/b", "uv pip install requests", "cargo install ripgrep", "gem install rails", "git status", "git log origin/main", "curl https://example.com/", "git push ./mirror HEAD"])("%s stays allowed", (command) =>
    expect(guard.decide("Bash", { command }).mode).toBe("allow"),
  );
});
