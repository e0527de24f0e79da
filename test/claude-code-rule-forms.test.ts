// Bash rules read as Claude Code documents them, where users found the guard stricter than the rule they wrote:
//   - process wrappers: "Before matching Bash rules, Claude Code strips a fixed set of process wrappers so a rule like
//     `Bash(npm test *)` also matches `timeout 30 npm test`. The recognized wrappers are `timeout`, `time`, `nice`,
//     `nohup`, and `stdbuf`. Bare `xargs` is also stripped, so `Bash(grep *)` matches `xargs grep pattern`" (Claude Code's
//     permissions page, quoted in anthropics/claude-code#50132; the wrapper list read out of the binary in
//     anthropics/claude-code#92542; asked of OpenCode in anomalyco/opencode#16714 and #16715: "users get prompted for
//     obviously safe operations"). The guard asked for `timeout 60 npm test` under `Bash(npm test:*)`. Now such a wrapper
//     is as allowed as the command it runs; a deny or ask rule on the wrapper itself still holds, and a wrapper that does
//     more (`time -o FILE` writes a file) still needs an allow that names it.
//   - a trailing ` *`: "The `:*` suffix is an equivalent way to write a trailing wildcard, so `Bash(ls:*)` matches the
//     same commands as `Bash(ls *)`" — a word boundary, "followed by a space or end-of-string" (anthropics/claude-code#26229:
//     `Bash(git stash *)` did not match bare `git stash`; #36873: `Bash(ssh * uptime *)` not `ssh host uptime`;
//     #27948; gotgenes/pi-permission-system#123 and OpenCode read `git *` as `^git( .*)?$`). The guard read `npm run test *`
//     as needing a word after `test`. Now a trailing ` *` also stands for no more words.
//   - a path with one leading slash: Claude Code reads `Edit(/src/**/*.ts)` from the project root and `Read(//Users/x/**)`
//     as absolute (its permissions page: "A pattern like /Users/alice/file is NOT an absolute path"); the guard read
//     `Read(/secrets/**)` as the absolute /secrets only, so a ported deny did not hold for the project's secrets/ (and a
//     ported allow, an absolute path outside the project, allowed nothing). Now such a rule holds for both readings (the
//     project root being `pathBase`).
//   - a rule on an MCP server, `mcp__SERVER`: "matches any tool provided by the server" in Claude Code; the guard read
//     it as one tool's name, so a deny on `mcp__github` stopped none of its tools (the real server's tools are checked in
//     test/mcp-guard.test.ts).
// The real programs judge the wrappers: each generated line runs under bash in the recording sandbox
// (test/helpers/bash-oracle.ts), and the guard's decision on the line must be its decision on the command the wrappers
// really started (as they started it: their options consumed, xargs' input words added).
// Before this round 110 of these 209 tests failed.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { parsePolicy, permissionPolicy } from "../src/policy/index.js";
import { linearScanForTests, parsePermissionRules, PermissionPolicy, type PermissionRule } from "../src/policy/permissions.js";
import { describeWithOracle } from "./helpers/oracle-describe.js";

type Mode = "allow" | "deny" | "ask";

/** A policy of Bash rules (`[mode, pattern]`), the Bash tool high risk: a line no rule decides asks. */
function policy(rules: readonly (readonly [Mode, string])[], name: string) {
  const lines = rules.map(([mode, pattern]) => `  - { rule: ${JSON.stringify(`Bash(${pattern})`)}, mode: ${mode} }`);
  return permissionPolicy(parsePolicy(`version: 1\npermissions:\n${lines.join("\n")}\ntools:\n  Bash: { risk: high }\n`, "yaml", `${name}.yaml`));
}
const decide = (guard: ReturnType<typeof policy>, command: string) => guard.decide("Bash", { command });
/** Each line decided as the table says. */
function expectModes(guard: ReturnType<typeof policy>, cases: readonly (readonly [string, Mode])[]): void {
  for (const [line, mode] of cases) {
    const got = decide(guard, line);
    expect(got.mode, `${line}: ${got.reason}`).toBe(mode);
  }
}

/** Prefix allows (whatever words xargs adds, they still hold), a deny and an ask. */
const RULES: readonly (readonly [Mode, string])[] = [
  ["deny", "rm:*"],
  ["ask", "curl:*"],
  ["allow", "npm test:*"],
  ["allow", "echo:*"],
  ["allow", "cat:*"],
  ["allow", "printf:*"],
];
const guard = policy(RULES, "claude-code-wrappers");

/** The commands wrapped: allowed, denied, asked by rule, asked because no rule names them. */
const INNER: readonly (readonly [string, Mode])[] = [
  ["npm test", "allow"],
  ["npm test -- --watch", "allow"],
  ["echo hi", "allow"],
  ["cat a.txt", "allow"],
  ["rm -rf x", "deny"],
  ["curl http://example.test/", "ask"],
  ["wc -l a.txt", "ask"],
];

/** Wrappers with their own options, as GNU coreutils reads them (`time` is bash's keyword: first only). */
const WRAPPERS: readonly string[] = [
  "timeout 5", "timeout -s KILL 5", "timeout -k 1 5", "timeout --foreground 5", "timeout --preserve-status 0.5m", "timeout --signal=TERM 9", "timeout -v 5",
  "nice", "nice -n 5", "nice -5", "nice --adjustment=3", "nohup", "stdbuf -oL", "stdbuf -i0 -e0", "stdbuf --output=L", "command",
];
const FIRST_ONLY: readonly string[] = ["time", "time -p"];

describe("Claude Code's process wrappers need no allow of their own", () => {
  it.each(INNER.map(([line, mode]) => [line, mode] as const))("%s is decided alone as the table says", (line, mode) => {
    expect(decide(guard, line).mode).toBe(mode);
  });

  const lines: string[] = [];
  for (const [inner] of INNER) {
    for (const wrapper of [...WRAPPERS, ...FIRST_ONLY]) lines.push(`${wrapper} ${inner}`);
  }
  it.each(lines.map((line, i) => [line, INNER[Math.floor(i / (WRAPPERS.length + FIRST_ONLY.length))]![1]] as const))("%s is decided as the command it runs", (line, mode) => {
    const got = decide(guard, line);
    expect(got.mode, got.reason).toBe(mode);
  });

  it("chains of wrappers (generated): decided as the command at the end", () => {
    fc.assert(
      fc.property(fc.constantFrom(...FIRST_ONLY, ""), fc.array(fc.constantFrom(...WRAPPERS), { minLength: 1, maxLength: 3 }), fc.constantFrom(...INNER), (first, chain, [inner, mode]) => {
        const line = [first, ...chain, inner].filter((part) => part !== "").join(" ");
        const got = decide(guard, line);
        expect(got.mode, `${line}: ${got.reason}`).toBe(mode);
      }),
      { seed: 20261129, numRuns: 400 },
    );
  });

  it("xargs with its own options runs the command with the input's words: as allowed as that command with any words", () => {
    expectModes(guard, [
      ["printf 'a.txt' | xargs cat", "allow"],
      ["printf 'a.txt\\0' | xargs -0 cat", "allow"],
      ["echo a.txt | xargs -n1 -P2 cat", "allow"],
      ["echo a.txt | xargs -I{} cat {}", "allow"],
      ["echo hi | xargs echo", "allow"],
      ["echo x | xargs rm", "deny"],
      ["echo x | xargs -r rm -f", "deny"],
      ["echo http://example.test/ | xargs curl", "ask"],
      ["echo a.txt | xargs wc -l", "ask"],
      ["echo test | xargs npm", "ask"],
    ]);
  });

  it("a wrapper that does more than wrap, or whose command is not known, is not passed over", () => {
    expectModes(guard, [
      ["time -o times.txt npm test", "ask"],
      ["timeout 5", "ask"],
      ["nice", "ask"],
      ["nohup", "ask"],
      ["timeout --bogus 5 npm test", "ask"],
      ["timeout $T npm test", "ask"],
      ["timeout 5 $CMD", "ask"],
      ["nohup npm test > out.log 2>&1 &", "ask"],
      ["timeout 5 bash -c 'rm x'", "deny"],
      ["nice -n 5 npm test && rm x", "deny"],
      ["echo a.txt | xargs --process-slot-var=BASH_ENV cat", "ask"],
      ["echo a.txt | xargs --process-slot-var LD_PRELOAD cat", "ask"],
    ]);
  });

  it("the real xargs sets --process-slot-var's variable in its command's environment (so it is no plain wrapper)", () => {
    const run = spawnSync("bash", ["-c", `echo x | xargs --process-slot-var=BASH_ENV sh -c 'echo "slot=$BASH_ENV"'`], { encoding: "utf8" });
    expect(run.stdout).toMatch(/^slot=0$/m);
  });

  it("a rule on the wrapper itself still holds", () => {
    const onWrappers = policy([["deny", "timeout:*"], ["ask", "nice:*"], ["deny", "xargs rm:*"], ["allow", "npm test:*"], ["allow", "echo:*"]], "claude-code-wrapper-rules");
    expect(decide(onWrappers, "timeout 5 npm test").mode).toBe("deny");
    expect(decide(onWrappers, "command timeout 5 npm test").mode).toBe("deny");
    expect(decide(onWrappers, "nice npm test").mode).toBe("ask");
    expect(decide(onWrappers, "stdbuf -oL npm test").mode).toBe("allow");
  });
});

describeWithOracle("the real wrappers judge: a wrapped line is decided as the command they start", (oracle) => {
  const WRAPPER_PROGRAMS = new Set(["timeout", "nice", "nohup", "stdbuf", "xargs", "bash", "dash", "env"]);
  const quote = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`);

  const runs: string[] = [];
  const rand = fc.sample(
    fc.tuple(fc.constantFrom(...FIRST_ONLY, "", ""), fc.array(fc.constantFrom(...WRAPPERS.filter((w) => w !== "command")), { minLength: 1, maxLength: 2 }), fc.constantFrom(...INNER)),
    { seed: 4242, numRuns: 60 },
  );
  for (const [first, chain, [inner]] of rand) runs.push([first, ...chain, inner].filter((part) => part !== "").join(" "));
  runs.push("printf 'a.txt' | xargs cat", "echo a.txt | xargs -n1 -P2 cat", "echo a.txt | xargs -I{} cat {}", "echo x | xargs -r rm -f", "echo http://example.test/ | xargs curl", "echo a.txt | timeout 5 xargs nice -n 3 cat");

  it.each([...new Set(runs)].map((line) => [line] as const))("%s", async (line) => {
    const run = await oracle().run(line, "bash");
    const started = run.invocations.map((invocation) => invocation.argv).filter((argv) => !WRAPPER_PROGRAMS.has(argv[0] ?? "") && argv[0] !== "printf");
    expect(started.length, `bash ran ${JSON.stringify(run.invocations)}; ${run.stderr}`).toBeGreaterThan(0);
    const ran = started.at(-1)!.map(quote).join(" ");
    const onLine = decide(guard, line);
    expect(onLine.mode, `${line} started \`${ran}\`: ${onLine.reason}`).toBe(decide(guard, ran).mode);
  }, 30_000);
});

describe("a trailing ` *` is the `:*` suffix", () => {
  const PATTERNS = ["ls", "git stash", "npm run test", "git push --force", "docker compose up"];
  const WORDS = ["-la", "/tmp", "list", "pop", "--force", "-f", "origin", "main", "-d", "x", "of", "--", "--watch"];

  it("documented examples", () => {
    const ls = policy([["allow", "ls *"]], "space-star-ls");
    expect(decide(ls, "ls").mode).toBe("allow");
    expect(decide(ls, "ls -la").mode).toBe("allow");
    expect(decide(ls, "ls /tmp").mode).toBe("allow");
    expect(decide(ls, "lsof").mode).toBe("ask");
    const glued = policy([["allow", "ls*"]], "star-ls");
    expect(decide(glued, "ls -la").mode).toBe("allow");
    expect(decide(glued, "lsof").mode).toBe("allow");
    const stash = policy([["allow", "git stash *"]], "space-star-stash");
    expect(decide(stash, "git stash").mode).toBe("allow");
    expect(decide(stash, "git stash list").mode).toBe("allow");
    expect(decide(stash, "git stashx").mode).toBe("ask");
    const deny = policy([["deny", "git push *"], ["allow", "git:*"]], "space-star-deny");
    expect(decide(deny, "git push").mode).toBe("deny");
    expect(decide(deny, "git push origin main").mode).toBe("deny");
    expect(decide(deny, "git status").mode).toBe("allow");
  });

  it("generated lines: `P *` and `P:*` decide alike, as allow, deny and ask", () => {
    const lineOf = fc.tuple(fc.constantFrom(...PATTERNS), fc.nat({ max: 3 }), fc.array(fc.constantFrom(...WORDS), { maxLength: 3 }), fc.constantFrom("", "x", " ", "&& echo ok", "| cat")).map(([pattern, cut, extra, tail]) => {
      const words = pattern.split(" ");
      const head = words.slice(0, Math.max(1, words.length - cut)).join(" ");
      const glued = tail === "x" ? `${head}x` : head;
      return [glued, ...extra, tail === "x" ? "" : tail].filter((part) => part !== "").join(" ");
    });
    for (const mode of ["allow", "deny", "ask"] as const) {
      for (const pattern of PATTERNS) {
        const spaced = policy([[mode, `${pattern} *`], ["allow", "echo:*"], ["allow", "cat:*"]], `space-star-${mode}`);
        const colon = policy([[mode, `${pattern}:*`], ["allow", "echo:*"], ["allow", "cat:*"]], `colon-star-${mode}`);
        fc.assert(
          fc.property(lineOf, (line) => {
            expect(decide(spaced, line).mode, `${line} under Bash(${pattern} *) ${mode}`).toBe(decide(colon, line).mode);
          }),
          { seed: 7 + pattern.length, numRuns: 150 },
        );
        expect(decide(spaced, pattern).mode).toBe(mode);
      }
    }
  });

  it("with other `*`s before it, the last ` *` may stand for no more words", () => {
    const main = policy([["allow", "git * main *"]], "space-star-inner");
    expect(decide(main, "git checkout main").mode).toBe("allow");
    expect(decide(main, "git merge main --no-ff").mode).toBe("allow");
    expect(decide(main, "git checkout mainline").mode).toBe("ask");
    const force = policy([["deny", "git * --force *"], ["allow", "git:*"]], "space-star-inner-deny");
    expect(decide(force, "git push origin main --force").mode).toBe("deny");
    expect(decide(force, "git push --force origin").mode).toBe("deny");
  });
});

describe("a rule string's path with one leading slash is Claude Code's project-root pattern", () => {
  // The real filesystem places each spelling: a temporary project with secrets/k, src/a.ts and docs/a.md.
  const root = realpathSync(mkdtempSync(join(tmpdir(), "gg-cc-rooted-")));
  for (const file of ["secrets/k", "src/a.ts", "docs/a.md"]) {
    mkdirSync(join(root, dirname(file)), { recursive: true });
    writeFileSync(join(root, file), "x");
  }
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const rules = (lines: readonly string[]) =>
    permissionPolicy(parsePolicy(`version: 1\npathBase: ${JSON.stringify(root)}\npermissions:\n${lines.map((l) => `  - ${l}`).join("\n")}\ntools:\n  Read: { risk: low }\n  Write: { risk: low }\n  Bash: { risk: low }\n`, "yaml", "rooted.yaml"));
  const deny = rules(['{ rule: "Read(/secrets/**)", mode: deny }', '{ rule: "Edit(/src/**)", mode: ask }']);
  /** Every spelling of a project file: absolute, relative, `./`, through `..`, and the filesystem-root reading of the pattern. */
  const spellings = (file: string) => [join(root, file), file, `./${file}`, `docs/../${file}`, `${root}/./${file}`];

  it("a deny or ask holds for the project's files, however the path is spelled, and for the absolute reading", () => {
    for (const spelled of spellings("secrets/k")) {
      expect(existsSync(join(root, relative(root, resolve(root, spelled)))), spelled).toBe(true);
      expect(deny.decide("Read", { file_path: spelled }).mode, spelled).toBe("deny");
      expect(deny.decide("Bash", { command: `cat ${spelled}` }).mode, spelled).toBe("deny");
    }
    expect(deny.decide("Read", { file_path: "/secrets/k" }).mode).toBe("deny");
    for (const spelled of spellings("src/a.ts")) {
      expect(deny.decide("Write", { file_path: spelled, content: "x" }).mode, spelled).toBe("ask");
      expect(deny.decide("Bash", { command: `echo x > ${spelled}` }).mode, spelled).not.toBe("allow");
    }
    for (const spelled of spellings("docs/a.md")) expect(deny.decide("Read", { file_path: spelled }).mode, spelled).toBe("allow");
  });

  it("`//path` is absolute, and an allow holds for the project's files", () => {
    const abs = rules([`{ rule: ${JSON.stringify(`Read(/${root}/secrets/**)`)}, mode: deny }`]);
    expect(abs.decide("Read", { file_path: join(root, "secrets/k") }).mode).toBe("deny");
    expect(abs.decide("Read", { file_path: "secrets/k" }).mode).toBe("deny");
    const allow = permissionPolicy(parsePolicy(`version: 1\npathBase: ${JSON.stringify(root)}\npermissions:\n  - { rule: "Read(/docs/**)", mode: allow }\ntools:\n  Read: { risk: high }\n`, "yaml", "rooted-allow.yaml"));
    for (const spelled of spellings("docs/a.md")) expect(allow.decide("Read", { file_path: spelled }).mode, spelled).toBe("allow");
    expect(allow.decide("Read", { file_path: "secrets/k" }).mode).toBe("ask");
    expect(allow.decide("Read", { file_path: "docs/../secrets/k" }).mode).toBe("ask");
  });
});

describe("a rule on `mcp__SERVER` holds for every tool of that server", () => {
  // Claude Code: "`mcp__puppeteer` matches any tool provided by the puppeteer server"; MCP tools are named
  // `mcp__SERVER__TOOL` (a server's name holds no `__`). The guard read `mcp__github` as one tool's name, so a deny
  // on the server stopped none of its tools.
  const server = fc.stringMatching(/^[a-z][a-z0-9-]{0,6}(?:_[a-z0-9]{1,3})?$/);
  const tool = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/).filter((name) => !name.includes("__") && !name.endsWith("_"));

  it("generated servers and tools: the server's tools, in any case, and no other server's", () => {
    fc.assert(
      fc.property(server, server, tool, fc.constantFrom("deny", "ask", "allow"), fc.boolean(), (named, other, name, mode, compact) => {
        const rules: PermissionRule[] = [compact ? { rule: `mcp__${named}`, mode } as PermissionRule : { tool: `mcp__${named}`, mode }];
        const fast = new PermissionPolicy(parsePermissionRules(rules), { defaultRisk: "high" });
        const naive = linearScanForTests(new PermissionPolicy(parsePermissionRules(rules), { defaultRisk: "high" }));
        const expected = mode === "allow" ? "allow" : mode;
        for (const candidate of [`mcp__${named}__${name}`, `MCP__${named.toUpperCase()}__${name}`, `mcp__${named}`]) {
          expect(fast.decide(candidate, {}).mode, candidate).toBe(expected);
          expect(fast.decide(candidate, {})).toEqual(naive.decide(candidate, {}));
        }
        for (const candidate of [`mcp__${other}__${name}`, `mcp__${named}x__${name}`, `mcp__${named}_${name}`, `x${named}__${name}`]) {
          if (candidate.toLowerCase().startsWith(`mcp__${named}__`) || candidate.toLowerCase() === `mcp__${named}`) continue;
          expect(fast.decide(candidate, {}).mode, candidate).toBe("ask");
          expect(fast.decide(candidate, {})).toEqual(naive.decide(candidate, {}));
        }
      }),
      { seed: 2611, numRuns: 300 },
    );
  });

  it("a tool's own rule and a glob keep their meaning", () => {
    const policy = new PermissionPolicy(parsePermissionRules([{ tool: "mcp__gh__create_issue", mode: "deny" }, { tool: "mcp__gh__*", mode: "ask" }, { rule: "mcp__gh", mode: "allow" } as PermissionRule]), { defaultRisk: "low" });
    expect(policy.decide("mcp__gh__create_issue", {}).mode).toBe("deny");
    expect(policy.decide("mcp__gh__list", {}).mode).toBe("ask");
  });
});
