import { Client } from "@langchain/langgraph-sdk";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { approveThroughSdk } from "../examples/cli-sdk-approval.js";

// The LangGraph CLI is not a project dependency (it breaks `npm ci` here): .ci/run installs it into
// its own prefix and sets LANGGRAPH_CLI_BIN. Locally the test is skipped without it, in CI it must run.
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = process.env.LANGGRAPH_CLI_BIN?.trim();
const REQUIRED = process.env.REQUIRE_LANGGRAPH_CLI === "1";
const available = BIN !== undefined && BIN !== "" && existsSync(BIN);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

async function waitForServer(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`langgraph dev exited with ${child.exitCode}:\n${log()}`);
    try {
      if ((await fetch(`${url}/ok`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`langgraph dev did not answer on ${url} within 120 s:\n${log()}`);
}

const approvalSchema = z.object({
  type: z.literal("guarded-graph/approval"),
  actionRequests: z.array(z.object({ name: z.string(), args: z.record(z.string(), z.unknown()), toolCallId: z.string(), risk: z.string(), ruleId: z.string() })),
});

describe("LangGraph CLI availability", () => {
  it.runIf(REQUIRED)("LANGGRAPH_CLI_BIN points at the langgraphjs binary (REQUIRE_LANGGRAPH_CLI=1)", () => {
    expect(available, `LANGGRAPH_CLI_BIN=${BIN ?? "(unset)"} does not exist`).toBe(true);
  });
});

describe.runIf(available)("langgraph dev serves the graphs; the SDK runs the DevOps graph through an approval", { timeout: 180_000 }, () => {
  let child: ChildProcess;
  let apiUrl: string;
  let output = "";
  let auditDir: string;

  beforeAll(async () => {
    const port = await freePort();
    apiUrl = `http://127.0.0.1:${port}`;
    auditDir = mkdtempSync(join(tmpdir(), "gg-lgdev-"));
    child = spawn(BIN as string, ["dev", "--port", String(port), "--host", "127.0.0.1", "--no-browser"], {
      cwd: ROOT,
      env: { ...process.env, OPENAI_API_KEY: "", OPENAI_BASE_URL: "", GUARDED_GRAPH_AUDIT: `jsonl:${join(auditDir, "audit.jsonl")}` },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
    await waitForServer(apiUrl, child, () => output);
  }, 150_000);

  afterAll(async () => {
    if (child?.pid !== undefined && child.exitCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      // The CLI starts its own children (the API server): stop the whole group.
      process.kill(-child.pid, "SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (child.exitCode === null) process.kill(-child.pid, "SIGKILL");
    }
    if (auditDir) rmSync(auditDir, { recursive: true, force: true });
  });

  it("lists the three graphs", async () => {
    const client = new Client({ apiUrl });
    const assistants = await client.assistants.search({ limit: 10 });
    expect(assistants.map((a) => a.graph_id).sort()).toEqual(["devops", "etl", "memory"]);
  });

  it("creates a thread, runs into the approval interrupt, reads it from the thread state, resumes with decisions", async () => {
    const client = new Client({ apiUrl });
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "devops", { input: { messages: [{ type: "human", content: "Tidy up the cluster" }] } });

    const waiting = await client.threads.getState(thread.thread_id);
    expect(waiting.next).toEqual(["review"]);
    const interrupt = waiting.tasks.flatMap((task) => task.interrupts ?? [])[0];
    const request = approvalSchema.parse(interrupt?.value);
    expect(request.actionRequests).toEqual([
      expect.objectContaining({ name: "kubectl_delete", args: { resource: "deployment", name: "worker", namespace: "staging" }, risk: "high", ruleId: "permission:k8s-destructive" }),
    ]);

    await client.runs.wait(thread.thread_id, "devops", {
      command: { resume: { decisions: [{ type: "approve", toolCallId: request.actionRequests[0]?.toolCallId }], actor: "sdk-test" } },
    });
    const final = await client.threads.getState(thread.thread_id);
    expect(final.next).toEqual([]);
    const messages = z.array(z.object({ type: z.string(), content: z.unknown() })).parse((final.values as { messages?: unknown }).messages);
    const toolResults = messages.filter((m) => m.type === "tool").map((m) => String(m.content));
    expect(toolResults).toContain('deployment.apps "worker" deleted');
    expect(toolResults.some((text) => /production namespace is protected/.test(text))).toBe(true);
    expect(String(messages.at(-1)?.content)).toMatch(/deleted after approval/);
  });

  it("examples/cli-sdk-approval.ts approves every pending call and the run completes", async () => {
    const result = await approveThroughSdk(apiUrl);
    expect(result.pending.map((call) => `${call.name}:${call.ruleId}`)).toEqual(["kubectl_delete:permission:k8s-destructive"]);
    expect(result.next).toEqual([]);
    const messages = z.array(z.object({ content: z.unknown() })).parse((result.values as { messages?: unknown }).messages);
    // One sandbox cluster per server process: the worker may already be gone from the previous test.
    expect(String(messages.at(-1)?.content)).toMatch(/^Summary: /);
  });

  it("refuses a resume that does not answer the pending call, and the interrupt stays answerable", async () => {
    const client = new Client({ apiUrl });
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "devops", { input: { messages: [{ type: "human", content: "Tidy up" }] } });
    const bad = await client.runs.wait(thread.thread_id, "devops", { command: { resume: { decisions: [] } } }).then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    const state = await client.threads.getState(thread.thread_id);
    // Either the run errors or it returns; the call is still pending and nothing was deleted.
    expect(state.tasks.flatMap((t) => t.interrupts ?? []).length, JSON.stringify(bad).slice(0, 500)).toBe(1);
    await client.runs.wait(thread.thread_id, "devops", { command: { resume: { decisions: [{ type: "reject", message: "no" }] } } });
    const final = await client.threads.getState(thread.thread_id);
    expect(final.next).toEqual([]);
  });
});
