/**
 * Benign readings, round 7: ordinary commands from the benign corpus's seventh sweep (test/fixtures/benign/corpus.ts)
 * that the guard misread, and the dangerous sibling of each, judged by the REAL program under the corpus's own policy
 * (Bash(rg:*), Bash(sha256sum:*), Bash(wc:*), ... allowed; Read(./.env) and Read(./secrets/**) denied).
 *
 * - A searcher's context option with its number attached (`rg -n -C2 KEY src`, `rg -nC2`): ripgrep's `-C` takes a
 *   value, but the guard's table listed `C` as a flag too, so `-C2` was an unknown cluster (the benign line asked) and
 *   `-C 2 KEY` read `2` as the pattern and `KEY` as the path: `rg -C 2 KEY` was ALLOWED while ripgrep searched every
 *   visible file under `.`, secrets/ included. Agents print context around matches this way all the time
 *   (anthropics/claude-code#70051 `grep pattern file | head -20`, #1128 find/grep/head chains). The silver searcher's
 *   -A/-B/-C take a number only when it is the next word on its own (`ag -C 2 KEY`, `ag -C KEY`, `ag -nC 2 KEY`
 *   each read differently), which the table cannot say: they ask, naming the option.
 * - Checksum verification (`sha256sum -c LIST`, `md5sum --check`): the files read are the ones LIST names, not the
 *   operand. Published read-only allow lists carry these programs (ldayton/Dippy#49 lists checksum and dump tools as
 *   read-only; anthropics/claude-code#19457 asks for read-only tools to stop prompting); the dangerous sibling of the
 *   benign `sha256sum package-lock.json` is `sha256sum -c sums.txt` whose list names `.env`.
 * - `wc --files0-from=F`, `sort --files0-from=F`: they read the files F names (the guard read F only).
 *
 * Before the fix: 20 of the 28 tests here failed (rg -C2 benign asked; rg -C 2 KEY allowed and read secrets/k;
 * ag -C 2 KEY allowed and read secrets/k; sha256sum -c / md5sum --check allowed and read .env; wc/sort
 * --files0-from allowed and read .env; the generated class found both).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { parsePolicy, permissionPolicy } from "../src/policy/index.js";
import { policyYaml } from "./fixtures/benign/corpus.js";
import { ORACLE_SEED } from "./helpers/oracle.js";
import { straceOpens } from "./helpers/strace.js";

const guard = permissionPolicy(parsePolicy(policyYaml(), "yaml", "benign-readings-7.yaml"));
const decide = (command: string) => guard.decide("Bash", { command });

const has = (program: string) => spawnSync("sh", ["-c", `command -v ${program}`]).status === 0;
const STRACE = has("strace");
const root = realpathSync(mkdtempSync(path.join(tmpdir(), "gg-benign7-")));
const MARK = "KEY=gg-benign7-secret";
mkdirSync(path.join(root, "secrets"), { recursive: true });
mkdirSync(path.join(root, "src"), { recursive: true });
writeFileSync(path.join(root, "secrets", "k"), `${MARK}\n`);
writeFileSync(path.join(root, ".env"), `${MARK}\n`);
writeFileSync(path.join(root, "src", "app.py"), "def parse_args():\n    KEY = 1\n    return KEY\n");
writeFileSync(path.join(root, "package-lock.json"), "{}\n");
// Lists naming the secret, as a checksum file and a NUL-separated name list.
const envSum = spawnSync("sha256sum", [".env"], { cwd: root, encoding: "utf8" }).stdout;
writeFileSync(path.join(root, "sums.txt"), envSum);
writeFileSync(path.join(root, "md5s.txt"), spawnSync("md5sum", [".env"], { cwd: root, encoding: "utf8" }).stdout);
writeFileSync(path.join(root, "names0"), ".env\0");
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Runs `line` under strace in the scratch tree: the files it read and wrote, inside the tree. */
function run(line: string): { read: string[]; wrote: string[] } {
  const log = path.join(root, `.trace-${process.hrtime.bigint()}`);
  spawnSync("strace", ["-f", "-y", "-qq", "-e", "trace=open,openat,openat2,creat", "-o", log, "bash", "-c", line], { cwd: root, stdio: ["ignore", "pipe", "pipe"], timeout: 15_000 });
  const { read, wrote } = straceOpens(readFileSync(log, "utf8"));
  rmSync(log, { force: true });
  const inside = (set: Set<string>) => [...set].filter((file) => file.startsWith(`${root}/`) && !file.includes("/.trace-")).map((file) => path.relative(root, file));
  return { read: inside(read), wrote: inside(wrote) };
}
const secret = (files: readonly string[]) => files.some((file) => file === ".env" || file.startsWith("secrets/"));

describe.skipIf(!STRACE)("a searcher's context option with its number attached or apart", () => {
  it.each(["rg -n -C2 'parse_args' src", "rg -nC2 KEY src", "rg -C2 -e KEY src", "rg --context=2 KEY src/app.py", "rg -C 2 KEY src"])("%s is allowed and reads only under src", (line) => {
    expect(decide(line).mode, decide(line).reason).toBe("allow");
    const { read, wrote } = run(line);
    expect(secret(read), read.join(" ")).toBe(false);
    expect(wrote).toEqual([]);
  });

  it.each(["rg -C 2 KEY", "rg -C2 KEY", "rg -nC 2 KEY", "rg -C 2 -n KEY", "rg -A 1 -C 2 KEY"])("%s reads secrets/k: not allowed", (line) => {
    expect(secret(run(line).read)).toBe(true);
    const decision = decide(line);
    expect(decision.mode, decision.reason).not.toBe("allow");
    expect(decision.reason ?? "").toMatch(/reads every file under \.|Read\(\.\/secrets\/\*\*\)/);
  });

  it.each(["rg -C2 KEY secrets", "rg -C 2 KEY secrets/k", "rg -C2 KEY .env"])("%s is denied", (line) => {
    expect(decide(line).mode).toBe("deny");
  });

  it("ag's -A/-B/-C, whose number is only the next word when it stands alone, ask under ag:* (the secret is read either way)", () => {
    const agGuard = permissionPolicy(parsePolicy(`version: 1\npermissions:\n  - { rule: "Read(./secrets/**)", mode: deny }\n  - { rule: "Bash(ag:*)", mode: allow }\npathBase: ${root}\n`, "yaml", "ag.yaml"));
    for (const line of ["ag -C 2 KEY", "ag -C KEY", "ag -A 2 KEY", "ag -B 1 KEY src", "ag -nC 2 KEY"]) {
      const decision = agGuard.decide("Bash", { command: line });
      expect(decision.mode, line).not.toBe("allow");
      if (line === "ag -C 2 KEY" || line === "ag -C KEY" || line === "ag -A 2 KEY") expect(secret(run(line).read), line).toBe(true);
    }
    expect(agGuard.decide("Bash", { command: "ag KEY src" }).mode).toBe("allow");
  });
});

describe.skipIf(!STRACE)("checksums verified from a list, and name lists read from a file", () => {
  it.each(["sha256sum package-lock.json", "md5sum src/app.py", "wc -l src/app.py", "sort -u src/app.py"])("%s is allowed and reads no secret", (line) => {
    expect(decide(line).mode, decide(line).reason).toBe("allow");
    expect(secret(run(line).read)).toBe(false);
  });

  it.each([
    ["sha256sum -c sums.txt", /sha256sum/],
    ["sha256sum --check sums.txt", /sha256sum/],
    ["sha256sum -c --quiet sums.txt", /sha256sum/],
    ["md5sum --check md5s.txt", /md5sum/],
    ["md5sum -c < md5s.txt", /md5sum/],
    ["cat sums.txt | sha256sum -c", /sha256sum/],
    ["wc -l --files0-from=names0", /wc/],
    ["wc --files0-from names0", /wc/],
    ["sort --files0-from=names0", /sort/],
  ] as const)("%s reads .env: not allowed", (line, reason) => {
    expect(secret(run(line).read), line).toBe(true);
    const decision = decide(line);
    expect(decision.mode, decision.reason).not.toBe("allow");
    expect(decision.reason ?? "").toMatch(reason);
  });
});

describe.skipIf(!STRACE)("generated spellings of both classes: whenever the real run read a secret, the guard did not allow the line", () => {
  it("holds", () => {
    const rgLine = fc.tuple(
      fc.constantFrom("rg", "env rg", "timeout 5 rg", "nice rg", "command rg"),
      fc.constantFrom("-C2", "-C 2", "-nC2", "-nC 2", "--context=2", "--context 2", "-A1 -C2", "-C2 -n", "-C 1 -i"),
      fc.constantFrom("KEY", "'KEY'", "-e KEY", "\"KEY\""),
      fc.constantFrom("", " src", " src/app.py", " secrets", " .", " .env"),
    ).map(([program, context, pattern, where]) => `${program} ${context} ${pattern}${where}`);
    const sumLine = fc.tuple(
      fc.constantFrom("sha256sum", "md5sum", "env sha256sum", "timeout 5 md5sum"),
      fc.constantFrom("-c", "--check", "-c --quiet", "--strict -c", "-c --status", "", "-b"),
    ).map(([program, options]) => {
      const list = program.includes("md5") ? "md5s.txt" : "sums.txt";
      return `${program} ${options} ${options === "" || options === "-b" ? "package-lock.json" : list}`.replace(/\s+/g, " ");
    });
    const listLine = fc.tuple(fc.constantFrom("wc", "wc -l", "wc -c", "sort", "sort -u"), fc.constantFrom("--files0-from=names0", "--files0-from names0", "--files0-from=./names0")).map(([program, from]) => `${program} ${from}`);
    fc.assert(
      fc.property(fc.oneof(rgLine, sumLine, listLine), (line) => {
        const decision = decide(line);
        if (decision.mode !== "allow") return;
        const { read } = run(line);
        expect(secret(read), `${line} was allowed and read ${read.join(" ")}`).toBe(false);
      }),
      { seed: ORACLE_SEED, numRuns: 60 },
    );
  });
});

/**
 * A letter a program's table listed both as a flag and as an option with a value: the flag reading won, so the value
 * was read as the next operand. `docker compose run -e CI=1 web pytest -q` (docker/compose's
 * docs/reference/docker_compose_run.yaml and fig.io's docker-compose run manual: `docker compose run [OPTIONS] SERVICE
 * [COMMAND]`, with -e/--env, -l/--label, -p/--publish, -u/--user, -v/--volume, -w/--workdir
 * taking a value; `exec` -e/-u/-w) asked, reading `CI=1` as the service and `web pytest -q` as the command, and
 * `docker compose run -e X=1 pytest rm -rf /` was ALLOWED under `docker compose:*` and `pytest:*` while compose runs
 * `rm -rf /` in the pytest service. GNU base64's -w COLS, xxd's -s SEEK, util-linux column's -c WIDTH, msgfilter's -w,
 * yq's -o and apptainer exec's -W (--workdir) were misread the same way (`xxd -s 2 .env` read `.env` as the file xxd writes, so a Read deny let it
 * through while xxd read it).
 *
 * (apptainer's deny was only weakened to an ask: `apptainer exec -W /tmp ls rm -rf /` read `/tmp` as the image.)
 *
 * Before the fix: 25 of the 34 tests here failed (every compose line but the exec -u/-w ones, the three apptainer
 * lines, the table scan, the tools run).
 */
describe("a letter a table lists both as a flag and as an option with a value", () => {
  const composeGuard = permissionPolicy(
    parsePolicy(`version: 1\npermissions:\n  - { rule: "Bash(rm:*)", mode: deny }\n  - { rule: "Bash(curl:*)", mode: deny }\n  - { rule: "Bash(docker compose:*)", mode: allow }\n  - { rule: "Bash(pytest:*)", mode: allow }\n  - { rule: "Bash(ls:*)", mode: allow }\n`, "yaml", "compose.yaml"),
  );
  const valued = ["-e X=1", "-eX=1", "--env X=1", "--env=X=1", "-l a=b", "-p 80:80", "-u root", "--user=root", "-v /:/host", "-w /app"];

  it("no table lists a letter both ways, but the options whose value may be missing or that run what follows", () => {
    // node's -p prints what -e evaluates (`node -pe CODE`); bash's -O prints the shopt settings when no name follows;
    // zip's -D is --no-dir-entries, its valued D is the start of -DF.
    const allowed = new Set(["hivpc:p", "abcefhkmnptuvxBCEHPilrsO:O", "qvrRjJyDlmTXkoAFSg0123456789@:D"]);
    const found: string[] = [];
    for (const file of ["programs.ts", "subcommands.ts", "option-grammars.ts"]) {
      const text = readFileSync(path.join(import.meta.dirname, "..", "src", "policy", "kinds", file), "utf8");
      for (const flags of text.matchAll(/\bflags: "([^"]*)"/g)) {
        // The table the flags stand in: from the brace that opens it to the one that closes it.
        let start = flags.index;
        for (let depth = 0; start > 0; start -= 1) {
          if (text[start] === "}") depth += 1;
          else if (text[start] === "{" && depth-- === 0) break;
        }
        let end = flags.index;
        for (let depth = 0; end < text.length; end += 1) {
          if (text[end] === "{") depth += 1;
          else if (text[end] === "}" && depth-- === 0) break;
        }
        const valued = /\bvalued: "([^"]*)"/.exec(text.slice(start, end))?.[1] ?? "";
        for (const letter of [...flags[1]!].filter((one) => valued.includes(one))) found.push(`${flags[1]}:${letter}`);
      }
    }
    const unexpected = found.filter((one) => !allowed.has(one));
    expect(unexpected).toEqual([]);
  });

  it.each(valued.flatMap((option) => [`docker compose run ${option} pytest rm -rf /`, `docker compose run --rm ${option} ls curl http://x`]))("%s is denied", (line) => {
    expect(composeGuard.decide("Bash", { command: line }).mode).toBe("deny");
  });

  it.each(["-e X=1", "-eX=1", "-u root", "-w /app", "--env X=1"])("docker compose exec %s ls rm -rf / is denied", (option) => {
    expect(composeGuard.decide("Bash", { command: `docker compose exec ${option} ls rm -rf /` }).mode).toBe("deny");
  });

  it.each(["-W /tmp", "--workdir /tmp", "-W/tmp -e"])("apptainer exec %s ls rm -rf / is denied (the image is the word after the options)", (option) => {
    const apptainer = permissionPolicy(parsePolicy(`version: 1\npermissions:\n  - { rule: "Bash(rm:*)", mode: deny }\n  - { rule: "Bash(apptainer:*)", mode: allow }\n  - { rule: "Bash(ls:*)", mode: allow }\n`, "yaml", "apptainer.yaml"));
    expect(apptainer.decide("Bash", { command: `apptainer exec ${option} ls rm -rf /` }).mode).toBe("deny");
    // apptainer:* never covers the command exec runs (it asks, naming it); the deny on that command holds.
    const benign = apptainer.decide("Bash", { command: `apptainer exec ${option} img.sif ls -la` });
    expect(benign.mode).toBe("ask");
    expect(benign.reason ?? "").toMatch(/apptainer exec runs the command it is given/);
  });

  it.each(["docker compose run --rm -e CI=1 web pytest -q", "docker compose exec -e DJANGO_SETTINGS_MODULE=app.test web pytest -q", "docker compose run -u root -w /app web ls", "docker compose exec -T -eCI=1 web pytest"])("%s is allowed", (line) => {
    const decision = composeGuard.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe("allow");
  });

  const toolGuard = permissionPolicy(
    parsePolicy(`version: 1\npathBase: ${root}\npermissions:\n  - { rule: "Read(./.env)", mode: deny }\n${["base64", "xxd", "column"].map((p) => `  - { rule: "Bash(${p}:*)", mode: allow }`).join("\n")}\n`, "yaml", "tools.yaml"),
  );
  it.skipIf(!STRACE)("base64 -w, xxd -s and column -c read their value as one: the file after it is the one read", () => {
    writeFileSync(path.join(root, "README.md"), "readme\n");
    for (const option of ["base64 -w 0", "base64 -w0", "xxd -s 2", "xxd -s2", "column -c 80", "column -c80"]) {
      const benign = `${option} README.md`;
      expect(toolGuard.decide("Bash", { command: benign }).mode, benign).toBe("allow");
      const ran = run(benign);
      expect(secret(ran.read), benign).toBe(false);
      expect(ran.wrote, benign).toEqual([]);
      const dangerous = `${option} .env`;
      expect(secret(run(dangerous).read), dangerous).toBe(true);
      expect(toolGuard.decide("Bash", { command: dangerous }).mode, dangerous).toBe("deny");
    }
  });
});
