import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { Command, MemorySaver } from "@langchain/langgraph";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryAuditSink } from "../src/audit/memory.js";
import { createDevopsGraph } from "../graphs/devops.js";
import { createEtlGraph } from "../graphs/etl.js";
import { createMemoryGraph } from "../graphs/memory.js";
import { policyFromEnv, type ReadyGraph } from "../graphs/shared.js";

const offline = { OPENAI_API_KEY: "", OPENAI_BASE_URL: "" };
const opened: ReadyGraph[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const ready of opened.splice(0)) await ready.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const config = (thread: string) => ({ configurable: { thread_id: thread } });
const texts = (messages: BaseMessage[], type: string) => messages.filter((m) => m.type === type).map((m) => m.text);

describe("ready graphs, offline with their scenarios", () => {
  it("devops: allowed read, denied production delete, the staging delete asks, approval runs it on the sandbox", async () => {
    const audit = new MemoryAuditSink();
    const ready = await createDevopsGraph({ checkpointer: new MemorySaver(), audit, env: offline });
    opened.push(ready);
    const first = await ready.graph.invoke({ messages: [new HumanMessage("Tidy up")] }, config("d1"));
    const asked = (first as { __interrupt__?: { value: { actionRequests: { name: string; ruleId: string }[] } }[] }).__interrupt__;
    expect(asked?.[0]?.value.actionRequests).toEqual([expect.objectContaining({ name: "kubectl_delete", ruleId: "permission:k8s-destructive" })]);
    const out = await ready.graph.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), config("d1"));
    expect(texts(out.messages, "tool")).toContain('deployment.apps "worker" deleted');
    expect(ready.sandbox.snapshot().namespaces.staging?.deployments.worker).toBeUndefined();
    expect(ready.sandbox.snapshot().namespaces.production?.deployments.api).toBeDefined();
    const decisions = (await audit.query({ threadId: "d1" })).filter((r) => r.event === "decision").map((r) => `${r.decision}:${r.ruleId}`);
    expect(decisions).toEqual(["allow:permission:k8s-read", "deny:permission:prod-protected", "ask:permission:k8s-destructive"]);
  });

  it("etl: connect first, the MustFollow chain, Terminal load, and close_database forced before the end", async () => {
    const ready = await createEtlGraph({ checkpointer: new MemorySaver(), env: offline });
    opened.push(ready);
    const out = await ready.graph.invoke({ messages: [new HumanMessage("Load the orders")] }, config("e1"));
    const tools = out.messages.filter((m) => m.type === "tool").map((m) => m.name);
    expect(tools).toEqual(["connect_database", "extract_data", "validate_data", "load_warehouse", "close_database"]);
    expect(ready.warehouse.warehouse.fact_orders).toHaveLength(3);
    expect(ready.warehouse.connection).toBeUndefined();
  });

  it("memory: the file tool loads, appends and saves a workspace file through FileSource", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "gg-memgraph-"));
    dirs.push(dataDir);
    const ready = await createMemoryGraph({ checkpointer: new MemorySaver(), dataDir, env: offline });
    opened.push(ready);
    const out = await ready.graph.invoke({ messages: [new HumanMessage("Tick the todo")] }, config("m1"));
    const errors = out.messages.filter((m) => m.type === "tool" && (m as { status?: string }).status === "error");
    expect(errors.map((m) => m.text)).toEqual([]);
    expect(readFileSync(join(dataDir, "workspace", "notes", "todo.md"), "utf8")).toContain("- [x] tried guarded-graph");
  });

  it("policy from configuration: a per-graph variable wins over the shared one", () => {
    expect(policyFromEnv("devops", { GUARDED_GRAPH_POLICY: "/p/all.yaml", GUARDED_GRAPH_POLICY_DEVOPS: "/p/devops.yaml" })).toBe("/p/devops.yaml");
    expect(policyFromEnv("etl", { GUARDED_GRAPH_POLICY: "/p/all.yaml" })).toBe("/p/all.yaml");
    expect(policyFromEnv("memory", {})).toBeUndefined();
  });

  it("a graph built with another policy file uses it", async () => {
    const ready = await createDevopsGraph({ checkpointer: new MemorySaver(), policy: join(import.meta.dirname, "..", "policies", "etl.toml"), env: offline }).catch((e: Error) => e);
    // etl.toml names tools the DevOps graph does not have: refused when the graph is built, not mid-run.
    expect(ready).toBeInstanceOf(Error);
    expect((ready as Error).message).toMatch(/connect_database/);
  });
});
