// CLI behaviour of issue 16: a closed pipe ends a command quietly, `policy plan` shows every rule
// type, and a thread answered from another process plays the scenario it was started with.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditId, JsonlAuditSink } from "../src/audit/index.js";
import { main } from "../src/cli/main.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const MAIN = join(ROOT, "src", "cli", "main.ts");
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "gg-cli-pkg-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** One CLI process; `closeAfterFirstChunk` closes its stdout as `| head -1` does. */
function cli(args: string[], options: { env?: Record<string, string>; closeAfterFirstChunk?: boolean } = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", TSX, MAIN, ...args], {
      cwd: dir,
      env: { ...process.env, OPENAI_API_KEY: "", OPENAI_BASE_URL: "", GUARDED_GRAPH_DB: "", GUARDED_GRAPH_AUDIT: "", GUARDED_GRAPH_SCENARIO: "", ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (options.closeAfterFirstChunk) child.stdout.destroy();
    });
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

function captured() {
  const out: string[] = [];
  const err: string[] = [];
  return { output: { out: (l: string) => void out.push(l), err: (l: string) => void err.push(l) }, out, err };
}

describe("CLI", { timeout: 180_000 }, () => {
  it("audit --json | head: the reader closing the pipe ends the command quietly (no EPIPE trace)", async () => {
    const log = join(dir, "big-audit.jsonl");
    const sink = await JsonlAuditSink.open(log);
    await sink.write(
      Array.from({ length: 5000 }, (_, i) => ({
        id: auditId(["epipe", String(i)]),
        at: i,
        threadId: "epipe",
        runId: "run",
        toolCallId: `call_${i}`,
        tool: "kubectl_get",
        args: "{}",
        event: "decision" as const,
        decision: "allow" as const,
        ruleId: "permission:read",
        reason: "reads are allowed ".repeat(8),
      })),
    );
    await sink.close();
    const result = await cli(["audit", "--json", "--audit", `jsonl:${log}`], { closeAfterFirstChunk: true });
    expect(result.stdout).toContain('"threadId":"epipe"');
    expect(result.stderr).not.toMatch(/EPIPE|Unhandled|at .*\(node:/);
    expect(result.code).toBe(0);
  });

  it("policy plan lists Cooldown, Periodic and ExclusiveGroup rules next to the plan", async () => {
    const file = join(dir, "timing.yaml");
    writeFileSync(
      file,
      [
        "permissions: []",
        "tool_rules:",
        "  - { tool: deploy, type: Cooldown, duration: 10m }",
        "  - { tool: poll, type: Periodic, duration: 30s }",
        "  - { tool: deploy, type: MaxCalls, max: 2 }",
        "  - { tool: read_a, type: ExclusiveGroup, conditions: [read_b] }",
      ].join("\n"),
    );
    const { output, out } = captured();
    expect(await main(["policy", "plan", file], output)).toBe(0);
    const text = out.join("\n");
    expect(text).toContain("deploy: at most 2 per run");
    expect(text).toContain("`deploy` needs at least 10 min between calls");
    expect(text).toContain("`poll` should be called every 30 s");
    expect(text).toMatch(/`read_a`, `read_b`/);
  });

  it("approve from another process, without GUARDED_GRAPH_SCENARIO, plays the scenario the thread started with", async () => {
    // The scenario the README runs (docs/cli.md): two calls that ask in one turn.
    const scenario = join(ROOT, "scenarios", "devops-two-asks.yaml");
    const storage = ["--db", `sqlite:${join(dir, "x.db")}`, "--audit", `jsonl:${join(dir, "audit.jsonl")}`];
    const run = await cli(["run", "devops", "Clean up", "--thread", "ops-2", ...storage], { env: { GUARDED_GRAPH_SCENARIO: scenario } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/2 pending calls/);
    // A new process with no scenario in its environment (the default scenario would answer differently).
    const done = await cli(["approve", "ops-2", "call_0_0", "--reject-rest", "--message", "not the node", ...storage]);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain('deployment.apps "worker" deleted');
    expect(done.stdout).toMatch(/result\s+Done with both requests/);
  });
});
