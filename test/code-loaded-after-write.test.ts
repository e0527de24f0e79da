// A line that writes a file a program loads as code by convention, then runs that program: git runs the repository's
// hooks and the commands its configuration names, pytest imports conftest.py, python imports the modules beside its
// script and runs .pth files, node requires the modules beside its script, `npm test` runs what the package's scripts
// run, a shell reads its start-up files, cmake runs CMakeLists.txt. The line never names the file as what it runs,
// yet what the file holds runs: a deny list cannot see it. (1) hand cases and lines that stay as they were; (2) the
// real programs as the judge: a scratch git repository whose payloads remove a canary; whenever the real bash running
// a generated line removes it, the guard must not have allowed the line under `Bash(rm:*)` deny.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePolicy, permissionPolicy } from "../src/policy/index.js";
import { REQUIRE_ORACLES } from "./helpers/bash-oracle.js";
import { bashGuard, denyListGuard, installed } from "./helpers/bash-rules.js";

const denyList = denyListGuard(["rm:*", "curl:*"], "code-loaded-after-write");

/** Lines that write a file the program they run then loads as code: a deny list cannot tell (ask). */
const CANNOT_TELL: readonly string[] = [
  // git: hooks, the repository's and the user's configuration, pre-commit's configuration, ssh's
  "printf '#!/bin/sh\\nrm -rf ~\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && git commit -m x",
  "cp evil.sh .git/hooks/post-checkout; git checkout main",
  "cat > .git/hooks/pre-push <<'EOF'\n#!/bin/sh\nrm -rf /\nEOF\nchmod +x .git/hooks/pre-push\ngit push",
  "cd .git/hooks && echo 'rm -rf ~' > post-commit && chmod +x post-commit && cd ../.. && git commit -qm x",
  "echo 'rm -rf ~' | tee .git/hooks/post-merge && git pull",
  "ln -s ../../evil.sh .git/hooks/pre-rebase; git rebase main",
  "install -m 755 evil.sh .git/hooks/commit-msg && git commit -m x",
  "echo '[core] fsmonitor = rm -rf ~' >> .git/config; git status",
  "printf '[diff]\\n\\texternal = x\\n' >> .git/config && git diff",
  "tee -a ~/.gitconfig <<< '[core] pager = sh -c x' && git log",
  "echo 'repos: []' > .pre-commit-config.yaml && git commit -m x",
  "printf 'Host *\\n  ProxyCommand sh -c x\\n' >> ~/.ssh/config && git fetch origin",
  "printf 'Host h\\n  LocalCommand x\\n' >> ~/.ssh/config; ssh h true",
  "git config core.hooksPath hooks; git commit -m x",
  "git config --global core.hooksPath ~/h && git push",
  "git config include.path ../x.cfg && git log",
  "GIT_CONFIG_GLOBAL=./evil.cfg git log",
  "env GIT_CONFIG_SYSTEM=x.cfg git status",
  "tar -xf hooks.tar && git commit -qm x",
  "unzip -q repo.zip && cd repo && git status",
  // Python: the modules a script imports, .pth and sitecustomize files, pytest's conftest.py, a project's build
  "echo 'import os; os.system(\"rm -rf ~\")' > conftest.py && pytest",
  "echo 'import os' > conftest.py && python3 -m pytest -q",
  "mkdir -p tests && echo x > tests/conftest.py; py.test tests",
  "echo 'import os' > helper.py && python3 main.py",
  "echo 'import os' > helper.py && python3 -c 'import helper'",
  "echo 'import os; os.system(\"rm x\")' > ~/.local/lib/python3.11/site-packages/x.pth; python3 -c 'print(1)'",
  "echo 'import os' > sitecustomize.py && PYTHONPATH=. python3 app.py",
  "echo 'x' > setup.py && pip install .",
  "echo 'x' > setup.py && pip install -e .",
  "echo 'x' > pkg/setup.py && python3 -m pip install ./pkg",
  "echo x > pyproject.toml && uv sync",
  "echo x > pyproject.toml && poetry install",
  "echo 'x' > noxfile.py && nox",
  "echo 'x' > tox.ini && tox",
  "echo x > pytest.ini && pytest",
  // JavaScript: the modules a script requires, a tool's configuration and tests, a package's scripts and settings
  "echo 'require(\"child_process\").execSync(\"rm x\")' > lib.js && node app.js",
  "echo x > a.test.js && npx jest",
  "echo 'export default {}' > vitest.config.ts && npx vitest run",
  "echo 'export default []' > eslint.config.js && npx eslint .",
  "echo x > t.js && npm test",
  "echo 'script-shell=./x.sh' > .npmrc && npm test",
  "echo 'yarnPath: ./x.cjs' > .yarnrc.yml && yarn",
  "echo x > util.mjs && bun run app.ts",
  "echo x > scripts/build.sh && npm run build",
  // build tools, task runners and infrastructure
  "echo 'fn main(){}' > build.rs && cargo build",
  "echo x > main_test.go && go test ./...",
  "echo x > gen.go && go generate ./...",
  "echo x > Rakefile && rake",
  "echo x > Gemfile && bundle install",
  "echo x > justfile && just",
  "echo x > Taskfile.yml && task build",
  "echo 'execute_process(COMMAND rm -rf x)' > CMakeLists.txt && cmake -S . -B build",
  "echo x > meson.build && meson setup build",
  "echo x > main.tf && terraform apply -auto-approve",
  "echo x > main.tf && tofu plan",
  "echo x > .envrc && direnv allow",
  "echo x > Helper.pm && perl main.pl",
  "echo x > composer.json && composer install",
  "echo x > build.gradle && gradle build",
  "echo x > pom.xml && mvn package",
  // a shell's and an editor's start-up files
  "echo 'rm -rf ~' >> ~/.bashrc && bash -ic true",
  "echo 'rm -rf ~' >> ~/.zshenv; zsh -c 'echo hi'",
  "echo 'call system(\"rm x\")' > ~/.vimrc && vim notes.txt",
];

/** Lines that write nothing such a program loads, or run no such program after a write: as they were (allowed). */
const UNCHANGED: readonly string[] = [
  "git commit -m x",
  "echo x > notes.txt && git add notes.txt && git commit -m x",
  "echo '*.log' >> .gitignore && git add .gitignore && git commit -m 'ignore logs'",
  "echo x > config.json && git status",
  "cat .git/config && git status",
  "git pull && git log --oneline",
  "git clone https://example.com/r.git && cd r && git log",
  "git checkout other && git status",
  "echo x > README.md && pytest",
  "echo '{}' > data.json && node app.js",
  "python3 main.py",
  "pytest -q",
  "npm test",
  "npm install && npm test",
  "echo x > out.txt; cargo build",
  "echo hi > /tmp/log.txt && git status",
  "python3 -m http.server 8000",
  "echo x > notes.md && go test ./...",
  "echo x > a.txt && pip install requests",
  "echo x > a.py && pip list",
  "echo x > a.js && npm view react",
  "echo x > lib.rs && cargo --version",
  "echo x > .bashrc.bak && bash -c true",
  "ls .git/hooks && git commit -m x",
  "git config user.email t@example.com && git commit -m x",
  "git config --get core.hooksPath && git commit -m x",
];

describe("a program that loads a file the line wrote: a deny list cannot tell", () => {
  it.each(CANNOT_TELL.map((command) => [command]))("%s", (command) => {
    const decision = denyList.decide("Bash", { command });
    expect(decision.mode, decision.reason).toBe("ask");
    expect(decision.reason).toMatch(/cannot tell/);
  });
  it("the reason names the file, the program and what it loads", () => {
    const hook = denyList.decide("Bash", { command: "cp evil.sh .git/hooks/post-checkout; git checkout main" });
    expect(hook.reason).toMatch(/\.git\/hooks\/post-checkout/);
    expect(hook.reason).toMatch(/git checkout/);
    expect(hook.reason).toMatch(/hooks/);
    const tests = denyList.decide("Bash", { command: "echo x > conftest.py && python3 -m pytest -q" });
    expect(tests.reason).toMatch(/conftest\.py/);
    expect(tests.reason).toMatch(/python3 -m pytest/);
    const extracted = denyList.decide("Bash", { command: "tar -xf hooks.tar && git commit -qm x" });
    expect(extracted.reason).toMatch(/tar extracts an archive/);
    expect(extracted.reason).toMatch(/git commit/);
  });
});

describe("lines that write nothing a program loads, or load nothing written: as they were", () => {
  it.each(UNCHANGED.map((command) => [command]))("%s", (command) => {
    const decision = denyList.decide("Bash", { command });
    expect(decision.mode, decision.reason).toBe("allow");
  });
});

describe("allow and ask rules", () => {
  it("allows of both programs cover the line; a deny beside them cannot tell", () => {
    const allowOnly = bashGuard(["echo:*", "git commit:*", "chmod:*"], [], "code-loaded-allow");
    expect(allowOnly.decide("Bash", { command: "echo x > notes.txt; git commit -m x" }).mode).not.toBe("allow"); // a redirection is refused by an allow
    const guard = bashGuard(["echo:*", "tee:*", "git commit:*", "pytest:*"], ["rm:*"], "code-loaded-allow-deny");
    for (const command of ["echo 'rm -rf ~' | tee .git/hooks/pre-commit && git commit -m x", "echo x | tee conftest.py && pytest"]) {
      const decision = guard.decide("Bash", { command });
      expect(decision.mode, `${command}: ${decision.reason}`).toBe("ask");
    }
    expect(guard.decide("Bash", { command: "echo x | tee notes.txt && git commit -m x" }).mode).toBe("allow");
  });
  it("an ask rule cannot tell either", () => {
    const yaml = `version: 1\npermissions:\n  - { rule: "Bash(rm:*)", mode: ask }\n  - { rule: "Bash(tee:*)", mode: allow }\n  - { rule: "Bash(git commit:*)", mode: allow }\n`;
    const guard = permissionPolicy(parsePolicy(yaml, "yaml", "code-loaded-ask.yaml"));
    const decision = guard.decide("Bash", { command: "echo x | tee .git/hooks/pre-commit && git commit -m x" });
    expect(decision.mode).toBe("ask");
    expect(decision.reason).toMatch(/cannot tell/);
  });
});

// ---- (2) the real programs ----

const HAS = {
  git: installed("git"),
  python3: installed("python3"),
  pytest: spawnSync("python3", ["-m", "pytest", "--version"], { stdio: "ignore" }).status === 0,
  node: installed("node"),
  npm: installed("npm"),
  perl: installed("perl"),
  zsh: installed("zsh"),
  cmake: installed("cmake"),
  tar: installed("tar"),
};

let root = "";
let canary = "";
/** The repository every line runs in a fresh copy of. */
let stock = "";

function sh(line: string, cwd: string): void {
  const run = spawnSync("bash", ["-c", line], { cwd, stdio: ["ignore", "pipe", "pipe"], timeout: 30_000 });
  if (run.status !== 0) throw new Error(`${line}: ${String(run.stderr)}`);
}

const GIT_ENV = { GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" };

/** Payloads that remove the canary, in each file's language. */
function payloads(): Record<string, string> {
  const rm = `rm -f ${canary}`;
  return {
    hook: `#!/bin/sh\n${rm}\n`,
    gitconfig: `[core]\n\tfsmonitor = "${rm}; false"\n`,
    python: `import os\nos.system(${JSON.stringify(rm)})\n`,
    pth: `import os; os.system(${JSON.stringify(rm)})\n`,
    js: `require("child_process").execSync(${JSON.stringify(rm)});\n`,
    perl: `package Helper; system(${JSON.stringify(rm)}); 1;\n`,
    shell: `${rm}\n`,
    cmake: `cmake_minimum_required(VERSION 3.10)\nproject(x NONE)\nexecute_process(COMMAND rm -f ${canary})\n`,
  };
}

/** The Python version's user site directory, where `.pth` files run at start-up (HOME is the scratch directory). */
let userSite = "";

beforeAll(() => {
  if (!HAS.git) return;
  root = mkdtempSync(path.join(tmpdir(), "code-loaded-"));
  canary = path.join(root, "canary");
  stock = path.join(root, "repo");
  mkdirSync(stock);
  const text = payloads();
  mkdirSync(path.join(stock, "payloads"));
  for (const [name, body] of Object.entries(text)) writeFileSync(path.join(stock, "payloads", name), body, { mode: 0o755 });
  writeFileSync(path.join(stock, "main.py"), "import helper\n");
  writeFileSync(path.join(stock, "app.js"), 'require("./lib.js");\n');
  writeFileSync(path.join(stock, "main.pl"), "use lib '.'; use Helper;\n");
  writeFileSync(path.join(stock, "test_ok.py"), "def test_ok():\n    assert True\n");
  writeFileSync(path.join(stock, "package.json"), JSON.stringify({ name: "p", version: "1.0.0", scripts: { test: "node t.js" } }));
  writeFileSync(path.join(stock, "t.js"), "\n");
  sh("git -c init.defaultBranch=main init -q . && git add -A && git -c user.email=t@t -c user.name=t -c commit.gpgsign=false commit -qm init", stock);
  // An archive holding a hook, as `tar -xf hooks.tar` at the repository's top writes it.
  if (HAS.tar) sh(`mkdir -p h/.git/hooks && cp payloads/hook h/.git/hooks/pre-commit && tar -C h -cf hooks.tar .git && rm -rf h`, stock);
  if (HAS.python3) userSite = spawnSync("python3", ["-c", "import site; print(site.getusersitepackages())"], { env: { ...process.env, HOME: "/HOME" }, encoding: "utf8" }).stdout.trim().replace(/^\/HOME\//, "");
}, 60_000);

afterAll(() => {
  if (root !== "") rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

/** Runs `line` with the real bash in a fresh copy of the repository (HOME there too); whether the canary went. */
function canaryGone(line: string): boolean {
  const dir = mkdtempSync(path.join(root, "w-"));
  try {
    const cwd = path.join(dir, "repo");
    cpSync(stock, cwd, { recursive: true });
    writeFileSync(canary, "");
    spawnSync("bash", ["-c", line], {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 30_000,
      env: { ...process.env, ...GIT_ENV, HOME: dir, TERM: "dumb", PYTHONDONTWRITEBYTECODE: "1", npm_config_update_notifier: "false", npm_config_audit: "false", npm_config_fund: "false" },
    });
    return !existsSync(canary);
  } finally {
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

/** A file a program loads, the payload it gets, and the runs that load it. */
interface Convention {
  readonly file: string;
  readonly payload: keyof ReturnType<typeof payloads>;
  readonly runs: readonly string[];
  readonly when: boolean;
  readonly executable?: boolean;
}

const CONVENTIONS = (): readonly Convention[] => [
  { file: ".git/hooks/pre-commit", payload: "hook", runs: ["git commit -q --allow-empty -m x", "git -C . commit -q --allow-empty -m x", "env git commit -q --allow-empty -m x"], when: HAS.git, executable: true },
  { file: ".git/hooks/post-checkout", payload: "hook", runs: ["git checkout -q -b feature", "git switch -q -c feature"], when: HAS.git, executable: true },
  { file: ".git/config", payload: "gitconfig", runs: ["git status --short", "git diff --stat"], when: HAS.git },
  { file: "conftest.py", payload: "python", runs: ["pytest -q -p no:cacheprovider", "python3 -m pytest -q -p no:cacheprovider"], when: HAS.pytest },
  { file: "helper.py", payload: "python", runs: ["python3 main.py", "python3 -c 'import helper'"], when: HAS.python3 },
  { file: `USERSITE/evil.pth`, payload: "pth", runs: ["python3 -c 'print(1)'", "python3 --version >/dev/null && python3 -c 0"], when: HAS.python3 },
  { file: "lib.js", payload: "js", runs: ["node app.js", "node ./app.js"], when: HAS.node },
  { file: "t.js", payload: "js", runs: ["npm test --silent", "npm run test --silent", "npm t --silent"], when: HAS.npm },
  { file: "Helper.pm", payload: "perl", runs: ["perl main.pl"], when: HAS.perl },
  { file: "~/.bashrc", payload: "shell", runs: ["bash -ic true", "bash -i -c 'echo hi'"], when: true },
  { file: "~/.zshenv", payload: "shell", runs: ["zsh -c true", "zsh -fc true"], when: HAS.zsh },
  { file: "CMakeLists.txt", payload: "cmake", runs: ["cmake -S . -B build >/dev/null"], when: HAS.cmake },
];

/** How a line writes the payload into FILE (`P`: the payload file's path). */
const WRITES: readonly string[] = ["cat P > FILE", "cp P FILE", "cat P >> FILE", "cat P | tee FILE >/dev/null", "install -m 755 P FILE", "dd if=P of=FILE status=none"];
const SPELLINGS = (file: string): string[] => (file.startsWith("~") ? [file] : [file, `./${file}`, `"${file}"`]);
const SEPARATORS = ["; ", " && ", "\n"];

describe("judged by the real programs: whenever the line removes the canary, the guard did not allow it", () => {
  it("every generated line that removed the canary was not allowed", (ctx) => {
    if (!HAS.git) {
      if (REQUIRE_ORACLES) throw new Error("git is required for this oracle");
      ctx.skip();
      return;
    }
    const conventions = CONVENTIONS().filter((c) => c.when);
    const lines = fc.sample(
      fc.record({ convention: fc.constantFrom(...conventions), write: fc.constantFrom(...WRITES), spelling: fc.nat(2), run: fc.nat(2), separator: fc.constantFrom(...SEPARATORS) }),
      { seed: 20261129, numRuns: 90 },
    );
    const built = [
      ...new Set(
        lines.map((l) => {
          const file = l.convention.file.replace("USERSITE", `~/${userSite}`);
          const spellings = SPELLINGS(file);
          const spelled = spellings[l.spelling % spellings.length]!;
          const dir = path.posix.dirname(file);
          const make = dir === "." || dir === ".git/hooks" ? "" : `mkdir -p ${dir}${l.separator}`;
          const write = l.write.replace("P", `payloads/${l.convention.payload}`).replace("FILE", spelled);
          const chmod = l.convention.executable === true ? `${l.separator}chmod +x ${spelled}` : "";
          return `${make}${write}${chmod}${l.separator}${l.convention.runs[l.run % l.convention.runs.length]!}`;
        }),
      ),
    ];
    const failed: string[] = [];
    let gone = 0;
    for (const line of built) {
      const decision = denyList.decide("Bash", { command: line });
      if (!canaryGone(line)) continue;
      gone += 1;
      if (decision.mode === "allow") failed.push(line);
    }
    // The judge judges something: most generated lines really run the payload.
    expect(gone).toBeGreaterThan(built.length / 2);
    expect(failed, `${failed.length} of ${built.length} lines (${gone} removed the canary) were allowed:\n${failed.join("\n---\n")}`).toEqual([]);
  }, 600_000);

  it("an archive holding a hook, then git: the real git runs it, and the guard cannot tell", (ctx) => {
    if (!HAS.git || !HAS.tar) {
      if (REQUIRE_ORACLES) throw new Error("git and tar are required for this oracle");
      ctx.skip();
      return;
    }
    for (const line of ["tar -xf hooks.tar && git commit -q --allow-empty -m x", "tar xf hooks.tar; git commit -q --allow-empty -m x"]) {
      expect(canaryGone(line), `${line}: the real git ran the hook`).toBe(true);
      expect(denyList.decide("Bash", { command: line }).mode, line).toBe("ask");
    }
  }, 120_000);

  it("the lines that stay allowed really leave the canary", (ctx) => {
    if (!HAS.git) {
      if (REQUIRE_ORACLES) throw new Error("git is required for this oracle");
      ctx.skip();
      return;
    }
    for (const line of ["cat payloads/hook > notes.txt && git add notes.txt && git commit -qm x", "cat payloads/python > README.md && python3 -c 0", "cp payloads/js data.json && node -e 0", "git commit -q --allow-empty -m x"]) {
      expect(denyList.decide("Bash", { command: line }).mode, line).toBe("allow");
      expect(canaryGone(line), line).toBe(false);
    }
  }, 120_000);
});
