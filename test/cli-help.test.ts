// `guarded-graph COMMAND --help`, `--version`, and the answer commands the CLI suggests: each must
// work as printed, run by a real shell against the real CLI.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../src/cli/main.js";
import { remoteTarget } from "../src/cli/remote.js";
import { formatPending } from "../src/cli/render.js";
import { cli, ROOT } from "./helpers/cli-process.js";

const sh = promisify(execFile);

function captured() {
  const out: string[] = [];
  const err: string[] = [];
  return { output: { out: (line: string) => out.push(line), err: (line: string) => err.push(line) }, out, err };
}

async function run(argv: string[]) {
  const c = captured();
  const code = await main(argv, c.output);
  return { code, stdout: c.out.join("\n"), stderr: c.err.join("\n") };
}

const COMMANDS = ["run", "threads", "show", "approve", "reject", "edit", "sticky", "audit", "policy", "demo", "init"];

describe("help and version", () => {
  it.each(COMMANDS)("%s --help and -h print the command's usage and exit 0, running nothing", async (command) => {
    for (const flag of ["--help", "-h"]) {
      const result = await run([command, flag]);
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`^Usage:\\n  guarded-graph ${command}\\b`));
      expect(result.stdout).not.toMatch(/Unknown option/);
    }
  });

  it("help after other arguments still answers (approve THREAD --help), but after -- it is an argument", async () => {
    expect((await run(["approve", "some-thread", "--help"])).stdout).toMatch(/^Usage:\n  guarded-graph approve THREAD/);
    const literal = await run(["approve", "some-thread", "--", "--help"]);
    expect(literal.stdout).not.toMatch(/^Usage:/);
  });

  it("approve --help lists the remote flags it takes", async () => {
    expect((await run(["approve", "--help"])).stdout).toMatch(/--url URL .*--api-key KEY/);
  });

  it("--version, -v and version print package.json's version", async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    for (const flag of ["--version", "-v", "version"]) expect(await run([flag])).toEqual({ code: 0, stdout: version, stderr: "" });
  });

  it("bin/ refuses an unsupported Node with the version it needs, before importing anything", async () => {
    for (const version of ["18.20.4", "20.18.1", "21.7.3", "22.11.0"]) {
      const result = await sh(process.execPath, ["--import", `data:text/javascript,Object.defineProperty(process.versions,"node",{value:"${version}"})`, join(ROOT, "bin", "guarded-graph.js"), "--version"]).then(
        () => ({ code: 0, stderr: "" }),
        (error: { code: number; stderr: string }) => error,
      );
      expect(result.code, version).toBe(1);
      expect(result.stderr).toContain(`guarded-graph needs Node.js`);
      expect(result.stderr).toContain(`this is Node.js ${version}.`);
    }
    const supported = await sh(process.execPath, [join(ROOT, "bin", "guarded-graph.js"), "--version"]);
    expect(supported.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("the top-level usage names --help, --version and init", async () => {
    const result = await run(["--help"]);
    expect(result.stdout).toContain("guarded-graph COMMAND --help | --version");
    expect(result.stdout).toContain("guarded-graph init ");
  });
});

describe("suggested answer commands work as printed", { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), "gg-cli-suggest-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("run --db with a path that needs quoting: the printed approve command, pasted into a shell, approves the call", async () => {
    const db = `sqlite:${join(dir, "my threads.db")}`;
    const first = await cli(dir, ["run", "devops", "Tidy up the cluster", "--db", db, "--no-interactive"]);
    expect(first.code, first.stderr).toBe(0);
    const line = first.stdout.split("\n").find((l) => l.trim().startsWith("guarded-graph approve "));
    expect(line, first.stdout).toBeDefined();
    expect(line).toContain("--db ");
    // `guarded-graph` is the package's bin here, as after `npm install -g` or inside npx.
    const script = `guarded-graph() { "${process.execPath}" "${join(ROOT, "bin", "guarded-graph.js")}" "$@"; }\n${(line ?? "").trim()}\n`;
    const answered = await sh("bash", ["-c", script], { cwd: dir, env: { ...process.env, OPENAI_API_KEY: "", OPENAI_BASE_URL: "", GUARDED_GRAPH_DB: "", GUARDED_GRAPH_AUDIT: "" } });
    expect(answered.stdout).toMatch(/resuming/);
    expect(answered.stdout).toMatch(/deployment\.apps "worker" deleted|deleted/);
  });

  it("run --db memory: prints no answer command (none could reach the thread) and says why", async () => {
    const result = await cli(dir, ["run", "devops", "Tidy up the cluster", "--db", "memory:", "--no-interactive"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("approval needed");
    expect(result.stdout).not.toMatch(/guarded-graph (approve|reject|edit) /);
    expect(result.stdout).toMatch(/kept in memory .* --yes or --interactive/);
  });

  it("against a server: the suggestions carry --url, and --api-key when the key was given as a flag (a key from the environment is not printed)", () => {
    const request = { type: "guarded-graph/approval", actionRequests: [{ name: "t", args: {}, toolCallId: "c1", description: "", risk: "high", ruleId: "r", reason: "x" }] };
    const fromFlags = remoteTarget({ url: "http://127.0.0.1:2024", "api-key": "key with space 0123456789" }, {});
    const lines = formatPending("th-1", request as never, fromFlags?.route).join("\n");
    expect(lines).toContain("guarded-graph approve th-1 --url http://127.0.0.1:2024 --api-key 'key with space 0123456789'");
    const fromEnv = remoteTarget({}, { GUARDED_GRAPH_URL: "http://127.0.0.1:2024", GUARDED_GRAPH_API_KEY: "k-0123456789abcdef" });
    const envLines = formatPending("th-1", request as never, fromEnv?.route).join("\n");
    expect(envLines).toContain("guarded-graph approve th-1 --url http://127.0.0.1:2024\n");
    expect(envLines).not.toContain("k-0123456789abcdef");
  });

  it("audit says when it finds nothing (exit 1, the sink it read), for the whole log and for one thread", async () => {
    const empty = `jsonl:${join(dir, "empty-audit.jsonl")}`;
    const all = await run(["audit", "--audit", empty]);
    expect(all.code).toBe(1);
    expect(all.stdout).toBe("");
    expect(all.stderr).toContain(`no audit records in ${empty}`);
    const one = await run(["audit", "no-such-thread", "--audit", empty]);
    expect(one.code).toBe(1);
    expect(one.stderr).toContain(`no audit records for thread no-such-thread in ${empty}`);
  });

  it("audit --url needs a thread, and --api-key needs --url", async () => {
    expect((await run(["audit", "--url", "http://127.0.0.1:9"])).stderr).toContain("audit --url reads one thread");
    expect((await run(["audit", "t1", "--api-key", "k-0123456789abcdef"])).stderr).toContain("--api-key goes with --url");
  });
});
