import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Command, MemorySaver } from "@langchain/langgraph";
import { createServer } from "node:http";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createDevopsTools, createSandbox } from "../graphs/tools/devops.js";
import { MemoryAuditSink } from "../src/audit/memory.js";
import { createGuardedAgent } from "../src/guard/agent.js";
import type { ApprovalRequest } from "../src/guard/approval/payload.js";
import { guardFromPolicy } from "../src/guard/from-policy.js";
import type { PolicyGuard } from "../src/guard/from-policy.js";
import { Guard } from "../src/guard/guard.js";
import { loadPolicyFile, parsePolicy } from "../src/policy/file.js";

const DEVOPS = fileURLToPath(new URL("../policies/devops.yaml", import.meta.url));
const thread = (id: string) => ({ configurable: { thread_id: id } });
const toolMessages = (messages: BaseMessage[]) => messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));

const opened: PolicyGuard[] = [];
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((g) => g.close()));
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function policyServer(body: () => unknown): Promise<string> {
  const server = createServer((_req, res) => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(body()));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/policy`;
}

describe("the DevOps policy through the guarded agent", () => {
  it("allows reads, denies production deletes (not asks), asks for staging deletes", async () => {
    const sandbox = createSandbox();
    const audit = new MemoryAuditSink();
    const pg = await guardFromPolicy(DEVOPS, { tools: createDevopsTools(sandbox), audit });
    opened.push(pg);
    const model = fakeModel()
      .respondWithTools([
        { name: "kubectl_get", args: { resource: "pods", namespace: "production" }, id: "g" },
        { name: "kubectl_delete", args: { resource: "namespace", name: "production", namespace: "production" }, id: "p" },
        { name: "kubectl_delete", args: { resource: "deployment", name: "api", namespace: "staging" }, id: "s" },
      ])
      .respond(new AIMessage("done"));
    const graph = createGuardedAgent({ model, guard: pg.guard, checkpointer: new MemorySaver() });
    const first = await graph.invoke({ messages: [new HumanMessage("clean up")] }, thread("devops"));
    const request = (first as { __interrupt__?: { value: ApprovalRequest }[] }).__interrupt__?.[0]?.value;
    expect(request?.actionRequests.map((a) => [a.toolCallId, a.ruleId])).toEqual([["s", "permission:k8s-destructive"]]);
    const out = await graph.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), thread("devops"));
    const byId = Object.fromEntries(toolMessages(out.messages).map((m) => [m.tool_call_id, m]));
    expect(byId.g?.status).toBe("success");
    expect(byId.p?.status).toBe("error");
    expect(byId.p?.content).toMatch(/prod-protected/);
    expect(byId.s?.status).toBe("success");
    expect(sandbox.snapshot().namespaces.staging?.deployments.api).toBeUndefined();
    const decisions = (await audit.query({ threadId: "devops" })).filter((r) => r.event === "decision");
    // review ran twice (before the interrupt and on resume) but each decision is recorded once
    expect(decisions.map((r) => `${r.toolCallId}:${r.decision}:${r.ruleId}`)).toEqual([
      "g:allow:permission:k8s-read",
      "p:deny:permission:prod-protected",
      "s:ask:permission:k8s-destructive",
    ]);
  });

  it("refuses rules that name unknown tools when the guard is built", async () => {
    const policy = parsePolicy("version: 1\ntool_rules:\n  - { tool: kubectl_nuke, type: MaxCalls, max: 1 }\n", "yaml", "bad.yaml");
    await expect(guardFromPolicy(policy, { tools: createDevopsTools() })).rejects.toThrow(/kubectl_nuke/);
  });
});

describe("the killswitch through the guard", () => {
  it("stopAll from the remote policy denies every call", async () => {
    const url = await policyServer(() => ({ stopAll: true, reason: "incident 42" }));
    const policy = { ...(await loadPolicyFile(DEVOPS)), killswitch: { url: `${url}?a`, ttlMs: 60_000, refreshAheadMs: 1_000, timeoutMs: 2_000, maxAgeMs: 300_000, maxBytes: 100_000, maxRedirects: 3, allowedRedirectOrigins: [], headers: {}, onFailure: "deny-risky" as const } };
    const pg = await guardFromPolicy(policy, { tools: createDevopsTools() });
    opened.push(pg);
    const model = fakeModel()
      .respondWithTools([{ name: "kubectl_get", args: { resource: "pods" }, id: "g" }])
      .respond(new AIMessage("ok"));
    const graph = createGuardedAgent({ model, guard: pg.guard, checkpointer: new MemorySaver() });
    const out = await graph.invoke({ messages: [new HumanMessage("list")] }, thread("stop"));
    expect(toolMessages(out.messages)[0]?.content).toMatch(/killswitch:stop-all/);
  });

  it("an unreachable killswitch restricts: risky tools denied, low-risk reads still run", async () => {
    const policy = {
      ...(await loadPolicyFile(DEVOPS)),
      killswitch: { url: "http://127.0.0.1:9/policy", ttlMs: 60_000, refreshAheadMs: 1_000, timeoutMs: 500, maxAgeMs: 300_000, maxBytes: 100_000, maxRedirects: 3, allowedRedirectOrigins: [], headers: {}, onFailure: "deny-risky" as const },
    };
    const pg = await guardFromPolicy(policy, { tools: createDevopsTools() });
    opened.push(pg);
    const guard: Guard = pg.guard;
    const state = guard.initialRuleState();
    const { reviewed } = await guard.reviewTurn(state, [
      { id: "r", name: "kubectl_get", args: { resource: "pods" } },
      { id: "w", name: "kubectl_scale", args: { resource: "deployment", name: "web", namespace: "staging", replicas: 2 } },
    ]);
    expect(reviewed.map((c) => [c.id, c.outcome, c.ruleId])).toEqual([
      ["r", "run", "permission:k8s-read"],
      ["w", "refuse", "killswitch:restricted"],
    ]);
  });
});
