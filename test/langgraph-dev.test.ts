import { Client } from "@langchain/langgraph-sdk";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { approveThroughSdk } from "../examples/cli-sdk-approval.js";
import { main } from "../src/cli/main.js";
import { CLI_AVAILABLE, CLI_BIN, CLI_REQUIRED, ROOT, installedVersion, startDevServer, type DevServer } from "./helpers/langgraph-dev.js";

// The LangGraph CLI is not a project dependency (it breaks `npm ci` here): .ci/run installs the version
// package.json pins ("config.langgraphCli") into its own prefix and sets LANGGRAPH_CLI_BIN. Locally the
// test is skipped without it, in CI it must run.
const BIN = CLI_BIN;
const REQUIRED = CLI_REQUIRED;
const available = CLI_AVAILABLE;
const pkg = z
  .object({ config: z.object({ langgraphCli: z.string() }), devDependencies: z.record(z.string(), z.string()) })
  .parse(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")));

// The options Agent Chat UI streams with (langchain-ai/agent-chat-ui src/components/thread/index.tsx: every
// submit passes streamSubgraphs: true; useStream adds the modes for the callbacks it has).
const KEY = "dev-test-key-0123456789abcdef";
const KEY2 = "dev-test-key-second-0123456789";
const UI_STREAM_MODES = ["values", "updates", "messages-tuple", "custom"] as const;

const approvalSchema = z.object({
  type: z.literal("guarded-graph/approval"),
  actionRequests: z.array(z.object({ name: z.string(), args: z.record(z.string(), z.unknown()), toolCallId: z.string(), risk: z.string(), ruleId: z.string() })),
});

describe("LangGraph CLI availability and version pins", () => {
  it.runIf(REQUIRED)("LANGGRAPH_CLI_BIN points at the langgraphjs binary (REQUIRE_LANGGRAPH_CLI=1)", () => {
    expect(available, `LANGGRAPH_CLI_BIN=${BIN ?? "(unset)"} does not exist`).toBe(true);
  });

  it("the runtime is pinned to one exact version (a devDependency; users get it as a peer), and that version is the one installed", () => {
    const pinned = pkg.devDependencies["@langchain/langgraph"];
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(installedVersion(join(ROOT, "node_modules", "@langchain", "langgraph", "package.json"), "@langchain/langgraph")).toBe(pinned);
    expect(pkg.config.langgraphCli).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("CI and `npm run dev` install the CLI at the pinned version, named in one place", () => {
    const ci = readFileSync(join(ROOT, ".ci", "run"), "utf8");
    expect(ci).toContain(`LG_CLI_VERSION="$(node -p 'require("./package.json").config.langgraphCli')"`);
    expect(ci).toContain('"@langchain/langgraph-cli@$LG_CLI_VERSION"');
    expect(ci).not.toMatch(/langgraph-cli@\d/);
    const scripts = z.object({ scripts: z.record(z.string(), z.string()) }).parse(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"))).scripts;
    expect(scripts.dev).toContain("@langchain/langgraph-cli@$npm_package_config_langgraphCli");
  });

  it.runIf(available)("the CLI in LANGGRAPH_CLI_BIN is the pinned one", () => {
    expect(installedVersion(BIN as string, "@langchain/langgraph-cli")).toBe(pkg.config.langgraphCli);
  });
});

describe.runIf(available)("langgraph dev serves the graphs; the SDK runs the DevOps graph through an approval", { timeout: 180_000 }, () => {
  let server: DevServer;
  let apiUrl: string;
  let auditDir: string;

  beforeAll(async () => {
    auditDir = mkdtempSync(join(tmpdir(), "gg-lgdev-"));
    // The server's own policy set for assistants that pick one by name: the bundled DevOps policy and a stricter one.
    const policyDir = join(auditDir, "policies");
    mkdirSync(policyDir);
    const devops = readFileSync(join(ROOT, "policies", "devops.yaml"), "utf8");
    writeFileSync(join(policyDir, "devops.yaml"), devops);
    writeFileSync(join(policyDir, "strict.yaml"), devops.replace("mode: ask\n    reason: destructive cluster operation", "mode: deny\n    reason: destructive operations are refused for this assistant"));
    server = await startDevServer({
      GUARDED_GRAPH_API_KEYS: `sdk-tester:${KEY},second-user:${KEY2}`,
      GUARDED_GRAPH_AUDIT: `jsonl:${join(auditDir, "audit.jsonl")}`,
      GUARDED_GRAPH_POLICY_DIR: policyDir,
    });
    apiUrl = server.apiUrl;
  }, 150_000);

  afterAll(async () => {
    await server?.stop();
    if (auditDir) rmSync(auditDir, { recursive: true, force: true });
  });

  it("lists the three graphs", async () => {
    const client = new Client({ apiUrl, apiKey: KEY });
    const assistants = await client.assistants.search({ limit: 10 });
    expect(assistants.map((a) => a.graph_id).sort()).toEqual(["devops", "etl", "memory"]);
  });

  it("streams a run with the options Agent Chat UI sends (streamSubgraphs, all its modes) into the interrupt, with no error event", async () => {
    const client = new Client({ apiUrl, apiKey: KEY });
    const thread = await client.threads.create();
    const events: { event: string; data: unknown }[] = [];
    for await (const part of client.runs.stream(thread.thread_id, "devops", {
      input: { messages: [{ type: "human", content: "Tidy up the cluster" }] },
      streamMode: [...UI_STREAM_MODES],
      streamSubgraphs: true,
      streamResumable: true,
    })) {
      events.push({ event: part.event, data: part.data });
    }
    expect(events.filter((e) => e.event === "error"), server.output().slice(-2000)).toEqual([]);
    const seen = new Set(events.map((e) => e.event.split("|")[0]));
    for (const mode of ["metadata", "values", "updates", "messages"]) expect(seen, `no "${mode}" event`).toContain(mode);
    const last = await client.threads.get(thread.thread_id);
    expect(last.status).toBe("interrupted");
    expect(Object.values(last.interrupts ?? {}).flat()).toHaveLength(1);
  });

  it("creates a thread, runs into the approval interrupt, reads it from the thread state, resumes with decisions", async () => {
    const client = new Client({ apiUrl, apiKey: KEY });
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
    const result = await approveThroughSdk(apiUrl, KEY);
    expect(result.pending.map((call) => `${call.name}:${call.ruleId}`)).toEqual(["kubectl_delete:permission:k8s-destructive"]);
    expect(result.next).toEqual([]);
    const messages = z.array(z.object({ content: z.unknown() })).parse((result.values as { messages?: unknown }).messages);
    // One sandbox cluster per server process: the worker may already be gone from the previous test.
    expect(String(messages.at(-1)?.content)).toMatch(/^Summary: /);
  });

  it("refuses a resume that does not answer the pending call, and the interrupt stays answerable", async () => {
    const client = new Client({ apiUrl, apiKey: KEY });
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

  it("auth handler: no key, a wrong key, or Studio's X-Auth-Scheme alone is refused with the reason; x-api-key and Bearer pass", async () => {
    const search = (headers: Record<string, string>) =>
      fetch(`${apiUrl}/threads/search`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: "{}" });
    for (const [headers, reason] of [
      [{}, "Request refused: no API key; send it in the x-api-key header (or Authorization: Bearer <key>)."],
      [{ "x-auth-scheme": "langsmith" }, "Request refused: no API key; send it in the x-api-key header (or Authorization: Bearer <key>)."],
      [{ "x-api-key": `${KEY}x` }, "Request refused: the API key is not one of the server's keys (GUARDED_GRAPH_API_KEYS)."],
    ] as const) {
      const response = await search(headers);
      expect(response.status).toBe(401);
      expect(await response.text()).toContain(reason);
    }
    expect((await search({ "x-api-key": KEY })).status).toBe(200);
    expect((await search({ authorization: `Bearer ${KEY2}` })).status).toBe(200);
  });

  it("identity comes from the key: a run's langgraph_auth_user is the key's user even when the run or its assistant claims another", async () => {
    const client = new Client({ apiUrl, apiKey: KEY2 });
    const forged = { langgraph_auth_user: { identity: "boss", is_authenticated: true, permissions: ["admin"] }, langgraph_auth_user_id: "boss" };
    const assistant = await client.assistants.create({ graphId: "devops", config: { configurable: forged } });
    for (const target of ["devops", assistant.assistant_id]) {
      const thread = await client.threads.create();
      await client.runs.wait(thread.thread_id, target, { input: { messages: [{ type: "human", content: "Tidy up" }] }, config: { configurable: forged } });
      const state = await client.threads.getState(thread.thread_id);
      expect(state.metadata?.langgraph_auth_user).toEqual({ identity: "second-user", display_name: "second-user", is_authenticated: true, permissions: [] });
      expect(state.metadata?.langgraph_auth_user_id).toBe("second-user");
    }
  });

  it("policy by name: an assistant picks the server's stricter policy; unknown names and policy bodies are refused when created", async () => {
    const client = new Client({ apiUrl, apiKey: KEY });
    const strict = await client.assistants.create({ graphId: "devops", config: { configurable: { policy: "strict" } } });
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, strict.assistant_id, { input: { messages: [{ type: "human", content: "Tidy up" }] } });
    const after = await client.threads.get(thread.thread_id);
    expect(after.status).toBe("idle");
    const messages = z.array(z.object({ type: z.string(), content: z.unknown() })).parse((after.values as { messages?: unknown }).messages);
    expect(messages.filter((m) => m.type === "tool").some((m) => String(m.content).includes("destructive operations are refused for this assistant"))).toBe(true);

    const refusals: [unknown, string][] = [
      ["permissive", 'Policy "permissive" is not one of the server\'s policies; known: devops, strict.'],
      ["../strict", 'Policy name "../strict" is refused: a name is letters, digits, "-" and "_" (at most 64), naming a file in the server\'s policy directory.'],
      [{ version: 1, permissions: [{ id: "all", tool: "*", mode: "allow" }] }, 'configurable.policy must be a policy name (a string such as "devops"), never a policy body.'],
    ];
    for (const [policy, sentence] of refusals) {
      const error = await client.assistants.create({ graphId: "devops", config: { configurable: { policy } } }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error?.message).toContain("422");
      expect(error?.message).toContain(sentence);
    }
    const runError = await client.runs
      .wait(thread.thread_id, "devops", { input: { messages: [{ type: "human", content: "again" }] }, config: { configurable: { policy: "permissive" } } })
      .then(() => undefined, (e: unknown) => e as Error);
    expect(runError?.message).toContain('Policy "permissive" is not one of the server\'s policies');
  });

  it("memory graph: blocks land in the server's store (client.store), nothing in the server's working directory", async () => {
    const client = new Client({ apiUrl, apiKey: KEY });
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "memory", { input: { messages: [{ type: "human", content: "Tick the todo" }] } });
    const final = await client.threads.get(thread.thread_id);
    const tools = z.array(z.object({ type: z.string(), content: z.unknown(), status: z.string().optional() })).parse((final.values as { messages?: unknown }).messages);
    expect(tools.filter((m) => m.type === "tool" && m.status === "error")).toEqual([]);
    const items = await client.store.searchItems(["memory-agent", "blocks"], { limit: 50 });
    expect(JSON.stringify(items.items.map((item) => item.value))).toContain("- [x] tried guarded-graph");
    expect(existsSync(join(server.cwd, ".guarded-graph"))).toBe(false);
    expect(readdirSync(server.cwd).sort()).not.toContain("memory.db");
  });

  describe("CLI against the server (--url / GUARDED_GRAPH_URL, --api-key / GUARDED_GRAPH_API_KEY)", () => {
    async function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
      const out: string[] = [];
      const err: string[] = [];
      const saved = { url: process.env.GUARDED_GRAPH_URL, key: process.env.GUARDED_GRAPH_API_KEY };
      delete process.env.GUARDED_GRAPH_URL;
      delete process.env.GUARDED_GRAPH_API_KEY;
      Object.assign(process.env, env);
      try {
        const code = await main(args, { out: (line) => out.push(line), err: (line) => err.push(line) });
        return { code, out: out.join("\n"), err: err.join("\n") };
      } finally {
        for (const [name, value] of [["GUARDED_GRAPH_URL", saved.url], ["GUARDED_GRAPH_API_KEY", saved.key]] as const) {
          if (value === undefined) delete process.env[name];
          else process.env[name] = value;
        }
      }
    }
    const remote = () => ["--url", apiUrl, "--api-key", KEY];

    async function waitingThread(): Promise<{ threadId: string; callId: string }> {
      const client = new Client({ apiUrl, apiKey: KEY });
      const thread = await client.threads.create();
      await client.runs.wait(thread.thread_id, "devops", { input: { messages: [{ type: "human", content: "Tidy up" }] } });
      const state = await client.threads.get(thread.thread_id);
      expect(state.status).toBe("interrupted");
      const value = Object.values(state.interrupts ?? {}).flat()[0]?.value;
      return { threadId: thread.thread_id, callId: approvalSchema.parse(value).actionRequests[0]?.toolCallId ?? "" };
    }
    async function threadOf(threadId: string) {
      return new Client({ apiUrl, apiKey: KEY }).threads.get(threadId);
    }
    function toolTexts(values: unknown): string[] {
      const messages = z.array(z.object({ type: z.string(), content: z.unknown() })).parse((values as { messages?: unknown }).messages);
      return messages.filter((m) => m.type === "tool").map((m) => String(m.content));
    }

    it("threads lists the server's threads waiting for approval; show prints the calls and the commands that answer them", async () => {
      const a = await waitingThread();
      const b = await waitingThread();
      const listed = await cli(["threads", ...remote(), "--json"]);
      expect(listed.code, listed.err).toBe(0);
      const rows = z.array(z.object({ threadId: z.string(), graph: z.string().nullable(), waiting: z.boolean(), pending: z.array(z.object({ name: z.string(), toolCallId: z.string() })) })).parse(JSON.parse(listed.out));
      for (const t of [a, b]) {
        expect(rows.find((r) => r.threadId === t.threadId)).toEqual(
          expect.objectContaining({ graph: "devops", waiting: true, pending: [expect.objectContaining({ name: "kubectl_delete", toolCallId: t.callId })] }),
        );
      }
      const table = await cli(["threads", ...remote()]);
      expect(table.out).toMatch(new RegExp(`${a.threadId}\\s+devops\\s+\\S+\\s+waiting for approval \\(1 call\\)`));

      // The same through the environment variables.
      const shown = await cli(["show", a.threadId], { GUARDED_GRAPH_URL: apiUrl, GUARDED_GRAPH_API_KEY: KEY });
      expect(shown.code, shown.err).toBe(0);
      expect(shown.out).toContain(`⏸  approval needed on thread ${a.threadId}: 1 pending call`);
      expect(shown.out).toContain(`call id: ${a.callId}`);
      expect(shown.out).toContain(`guarded-graph approve ${a.threadId} --url ${apiUrl}`);
      expect(shown.out).not.toContain(KEY);
    });

    it("approve, reject and edit answer a server thread through the SDK; each thread ends idle with no interrupts", async () => {
      const approved = await waitingThread();
      const run = await cli(["approve", approved.threadId, ...remote()]);
      expect(run.code, run.err).toBe(0);
      expect(run.out).toContain("· resuming");
      expect(run.out).toMatch(/result +\S/);
      const afterApprove = await threadOf(approved.threadId);
      expect([afterApprove.status, Object.values(afterApprove.interrupts ?? {}).flat()]).toEqual(["idle", []]);

      const rejected = await waitingThread();
      const rej = await cli(["reject", rejected.threadId, rejected.callId, "--message", "not during the freeze", ...remote()]);
      expect(rej.code, rej.err).toBe(0);
      const afterReject = await threadOf(rejected.threadId);
      expect(afterReject.status).toBe("idle");
      expect(toolTexts(afterReject.values).some((text) => text.includes("not during the freeze"))).toBe(true);

      const edited = await waitingThread();
      const args = JSON.stringify({ resource: "deployment", name: "api", namespace: "staging" });
      const ed = await cli(["edit", edited.threadId, edited.callId, "--args", args, ...remote()]);
      expect(ed.code, ed.err).toBe(0);
      const afterEdit = await threadOf(edited.threadId);
      expect(afterEdit.status).toBe("idle");
      expect(toolTexts(afterEdit.values)).toContain('deployment.apps "api" deleted');
    });

    it("refuses without sending: a wrong call id, a thread not waiting, no key, a bad URL, --db with --url", async () => {
      const t = await waitingThread();
      const wrong = await cli(["approve", t.threadId, "call_nope", ...remote()]);
      expect(wrong.code).toBe(1);
      expect(wrong.err).toContain('no pending call "call_nope" on this thread; pending: ');
      const still = await threadOf(t.threadId);
      expect([still.status, Object.values(still.interrupts ?? {}).flat().length]).toEqual(["interrupted", 1]);

      await cli(["approve", t.threadId, ...remote()]);
      const again = await cli(["approve", t.threadId, ...remote()]);
      expect(again.code).toBe(1);
      expect(again.err).toContain(`thread ${t.threadId} on ${apiUrl} is not waiting for approval (status idle); nothing to answer`);

      const noKey = await cli(["threads", "--url", apiUrl]);
      expect(noKey.code).toBe(1);
      expect(noKey.err).toContain(`${apiUrl} refused the thread search`);
      expect(noKey.err).toContain("give a key with --api-key or GUARDED_GRAPH_API_KEY");

      expect((await cli(["threads", "--url", "localhost:2024"])).code).toBe(2);
      const both = await cli(["threads", "--url", apiUrl, "--db", "sqlite:x.db"]);
      expect(both.code).toBe(2);
      expect(both.err).toContain("--db and --url contradict each other");
    });
  });
});
