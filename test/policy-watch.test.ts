// Issue 15: policy files are watched and swapped atomically after validation; a bad file keeps the
// old policy and is reported (audit + log).
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { MemorySaver } from "@langchain/langgraph";
import { mkdtempSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryAuditSink } from "../src/audit/memory.js";
import { guardFromPolicy } from "../src/guard/from-policy.js";
import { reviewCall } from "../src/guard/review.js";
import type { Guard } from "../src/guard/guard.js";
import { createGuardedAgent } from "../src/guard/agent.js";
import { policyWatchMessages } from "../src/messages/index.js";
import type { PolicyWatchEvent } from "../src/policy/watch.js";
import { defineTool } from "../src/tools/define-tool.js";
import { PermissionPolicy } from "../src/policy/permissions.js";

const deploy = defineTool({ name: "deploy", description: "d", schema: z.object({ env: z.string() }), risk: "low", execute: () => "ok" });

const ALLOW = "permissions:\n  - { id: gate, rule: \"deploy(env:production)\", mode: allow }\n";
const DENY = "permissions:\n  - { id: gate, rule: \"deploy(env:production)\", mode: deny }\n";

function nextEvent(events: PolicyWatchEvent[]): Promise<PolicyWatchEvent> {
  const seen = events.length;
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = setInterval(() => {
      const event = events[seen];
      if (event !== undefined) {
        clearInterval(poll);
        resolve(event);
      } else if (Date.now() - started > 20_000) {
        clearInterval(poll);
        reject(new Error("no policy watch event within 20 s"));
      }
    }, 20);
  });
}

describe("guardFromPolicy({ watch: true })", () => {
  it("swaps a changed file after validation; a bad file keeps the old policy and is audited and logged", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gg-watch-"));
    const file = join(dir, "policy.yaml");
    writeFileSync(file, ALLOW);
    const audit = new MemoryAuditSink();
    const events: PolicyWatchEvent[] = [];
    const logged: string[] = [];
    const pg = await guardFromPolicy(file, { tools: [deploy], audit, watch: { debounceMs: 20, onEvent: (e) => events.push(e), log: (e) => logged.push(e.message) } });
    const decide = async () => (await reviewCall(pg.guard, pg.guard.initialRuleState(), { id: "c", name: "deploy", args: { env: "production" } })).outcome;
    try {
      expect(await decide()).toBe("run");

      // An editor's save: write a temp file and rename it over the policy.
      let event = nextEvent(events);
      writeFileSync(join(dir, "policy.yaml.tmp"), DENY);
      renameSync(join(dir, "policy.yaml.tmp"), file);
      expect((await event).kind).toBe("applied");
      expect(await decide()).toBe("refuse");

      // Invalid YAML: rejected, the deny stays.
      event = nextEvent(events);
      writeFileSync(file, "permissions: [ { mode: \n");
      expect(await event).toMatchObject({ kind: "rejected" });
      expect(await decide()).toBe("refuse");

      // Valid YAML naming a tool that does not exist: rejected against the guard's tools.
      event = nextEvent(events);
      writeFileSync(file, "permissions:\n  - { rule: \"deploi(env:production)\", mode: allow }\n");
      const rejected = await event;
      expect(rejected.kind).toBe("rejected");
      expect(rejected.message).toMatch(/names tool "deploi", which matches no known tool/);
      expect(await decide()).toBe("refuse");

      const records = (await audit.query({})).filter((r) => r.event === "policy");
      expect(records.map((r) => r.decision)).toEqual(["applied", "rejected", "rejected"]);
      expect(logged.filter((line) => line.includes("rejected, the previous policy stays in force"))).toHaveLength(2);
    } finally {
      await pg.close();
    }
  }, 60_000);

  it("reload() applies a file right away, and decisions never see a half-applied policy", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gg-watch-"));
    const file = join(dir, "policy.json");
    writeFileSync(file, JSON.stringify({ permissions: [{ id: "gate", rule: "deploy(env:production)", mode: "allow" }] }));
    const pg = await guardFromPolicy(file, { tools: [deploy], watch: { debounceMs: 10_000, log: () => undefined } });
    try {
      const outcomes = new Set<string>();
      for (let i = 0; i < 20; i++) {
        writeFileSync(file, JSON.stringify({ permissions: [{ id: "gate", rule: "deploy(env:production)", mode: i % 2 === 0 ? "deny" : "ask" }] }));
        const reloading = pg.watcher?.reload();
        outcomes.add((await reviewCall(pg.guard, pg.guard.initialRuleState(), { id: "c", name: "deploy", args: { env: "production" } })).outcome);
        expect((await reloading)?.kind).toBe("applied");
      }
      // Only whole policies were ever seen: allow (before), deny or ask.
      for (const outcome of outcomes) expect(["run", "refuse", "ask"]).toContain(outcome);
      expect(pg.watcher?.permissions.loaded.permissions[0]?.mode).toBe("ask");
    } finally {
      await pg.close();
    }
  });
});

const limitPolicy = (max: number, extra = "") =>
  `permissions:\n  - { id: pings, rule: "ping", mode: allow }\ntool_rules:\n  - { id: ping-limit, tool: ping, type: MaxCalls, max: ${max}, scope: run }\n${extra}`;

describe("a watched policy swaps its tool rules (issue 15)", () => {
  it("MaxCalls 3 → 1 mid-run refuses the next call (the run's count survives); a bad tool_rules file keeps the old rules and is audited", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gg-watch-rules-"));
    const file = join(dir, "policy.yaml");
    writeFileSync(file, limitPolicy(3));
    const audit = new MemoryAuditSink();
    const logged: string[] = [];
    const pg = await guardFromPolicy(file, {
      tools: [
        defineTool({
          name: "ping",
          description: "p",
          schema: z.object({}),
          risk: "low",
          execute: async () => {
            ran += 1;
            // After the second call the operator lowers the limit to 1, while the run goes on.
            if (ran === 2) {
              writeFileSync(file, limitPolicy(1));
              const event = await pg.watcher?.reload();
              expect(event?.kind).toBe("applied");
            }
            return `pong ${ran}`;
          },
        }),
      ],
      audit,
      watch: { debounceMs: 60_000, log: (e) => logged.push(e.message) },
    });
    let ran = 0;
    try {
      expect(pg.guard.engine.rules.find((r) => r.id === "ping-limit")).toMatchObject({ type: "MaxCalls", max: 3 });
      const model = fakeModel()
        .respondWithTools([{ name: "ping", args: {}, id: "p1" }])
        .respondWithTools([{ name: "ping", args: {}, id: "p2" }])
        .respondWithTools([{ name: "ping", args: {}, id: "p3" }])
        .respond(new AIMessage("done"));
      const graph = createGuardedAgent({ model, guard: pg.guard, checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "swap" } };
      const out = await graph.invoke({ messages: [new HumanMessage("go")] }, config);
      const byId = Object.fromEntries(out.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => [m.tool_call_id, String(m.content)]));
      // Under the old limit (3) the second call ran; under the new one (1) the third is refused by the new rule.
      expect(ran).toBe(2);
      expect(byId.p2).toBe("pong 2");
      expect(byId.p3).toMatch(/ping-limit/);
      expect(byId.p3).not.toMatch(/^pong/);
      const refused = (await audit.query({})).find((r) => r.toolCallId === "p3");
      expect(refused).toMatchObject({ decision: "deny", ruleId: "rule:ping-limit" });

      // A bad file: tool_rules naming a tool that does not exist. Rejected; MaxCalls 1 stays in force.
      writeFileSync(file, limitPolicy(5, "  - { id: ghost, tool: pong, type: MaxCalls, max: 1 }\n"));
      const rejected = await pg.watcher?.reload();
      expect(rejected?.kind).toBe("rejected");
      expect(rejected?.message).toMatch(/pong/);
      expect(pg.guard.engine.rules.find((r) => r.id === "ping-limit")).toMatchObject({ max: 1 });
      expect(pg.guard.engine.rules.some((r) => r.id === "ghost")).toBe(false);
      // Nor did its permission part land: the swap is all or nothing.
      expect(pg.watcher?.permissions.loaded.toolRules.find((r) => r.id === "ping-limit")).toMatchObject({ max: 1 });
      // A malformed rule (negative max) is rejected the same way.
      writeFileSync(file, limitPolicy(-1));
      expect((await pg.watcher?.reload())?.kind).toBe("rejected");
      expect(pg.guard.engine.rules.find((r) => r.id === "ping-limit")).toMatchObject({ max: 1 });

      const policyRecords = (await audit.query({})).filter((r) => r.event === "policy");
      expect(policyRecords.map((r) => r.decision)).toEqual(["applied", "rejected", "rejected"]);
      expect(policyRecords[0]?.reason).toBe(policyWatchMessages.applied(file, 1, 1, false));
      expect(policyRecords[0]?.reason).toBe(`policy ${file} applied (1 permission rules, 1 tool rules)`);
      expect(policyRecords[1]?.reason).toMatch(new RegExp(`^policy ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} rejected, the previous policy stays in force: `));
      expect(logged).toHaveLength(3);

      // The next run of the same thread starts a fresh per-run count: one call runs, the second is refused.
      ran = 10;
      const next = fakeModel()
        .respondWithTools([{ name: "ping", args: {}, id: "q1" }])
        .respondWithTools([{ name: "ping", args: {}, id: "q2" }])
        .respond(new AIMessage("done"));
      const graph2 = createGuardedAgent({ model: next, guard: pg.guard, checkpointer: new MemorySaver() });
      const out2 = await graph2.invoke({ messages: [new HumanMessage("again")] }, { configurable: { thread_id: "swap-2" } });
      const byId2 = Object.fromEntries(out2.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => [m.tool_call_id, String(m.content)]));
      expect(byId2.q1).toBe("pong 11");
      expect(byId2.q2).toMatch(/ping-limit/);
    } finally {
      await pg.close();
    }
  }, 60_000);

  it("a watcher without a rules target says the changed tool_rules need a restart", () => {
    expect(policyWatchMessages.applied("p.yaml", 2, 1, true)).toBe(
      "policy p.yaml applied (2 permission rules, 1 tool rules); its tool_rules changed and apply after a restart (nothing swaps the tool rules of this watcher)",
    );
  });
});

// The guard's own risk lookup (tools.X.risk, tools.X.operations, defaultRisk) is swapped with the
// permission rules: one atomic swap, no restart needed (follow-up of issues 12 and 15).
describe("a watched policy swaps its risk levels", () => {
  const kubectl = defineTool({
    name: "kubectl",
    description: "k",
    schema: z.discriminatedUnion("operation", [z.object({ operation: z.literal("get") }), z.object({ operation: z.literal("delete") })]),
    risk: "low",
    operationRisk: { delete: "medium" },
    execute: () => "ok",
  });
  // Declares no risk of its own: the policy's defaultRisk decides.
  const probe = defineTool({ name: "probe", description: "p", schema: z.object({}), execute: () => "ok" });
  const decide = (guard: Guard, name: string, args: Record<string, unknown>) =>
    Promise.resolve(reviewCall(guard, guard.initialRuleState(), { id: "c", name, args })).then((r) => ({ outcome: r.outcome, risk: r.risk }));

  it("raising an operation's risk or dropping defaultRisk takes effect on the next call; lowering a tool's own risk is rejected and audited", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gg-watch-risk-"));
    const file = join(dir, "policy.yaml");
    writeFileSync(file, "defaultRisk: low\n");
    const audit = new MemoryAuditSink();
    const pg = await guardFromPolicy(file, { tools: [kubectl, probe], audit, watch: { debounceMs: 60_000, log: () => undefined } });
    try {
      expect(await decide(pg.guard, "kubectl", { operation: "delete" })).toEqual({ outcome: "run", risk: "medium" });
      expect(await decide(pg.guard, "probe", {})).toEqual({ outcome: "run", risk: "low" });

      // The operator raises delete to high and drops defaultRisk (an undeclared tool then asks).
      writeFileSync(file, "tools:\n  kubectl:\n    operations: { delete: high }\n");
      expect((await pg.watcher?.reload())?.kind).toBe("applied");
      expect(await decide(pg.guard, "kubectl", { operation: "delete" })).toEqual({ outcome: "ask", risk: "high" });
      expect(await decide(pg.guard, "kubectl", { operation: "get" })).toEqual({ outcome: "run", risk: "low" });
      expect((await decide(pg.guard, "probe", {})).outcome).toBe("ask");
      expect(pg.guard.riskOf("kubectl", "delete")).toBe("high");

      // Raising the whole tool to high also reaches every operation at once.
      writeFileSync(file, "tools:\n  kubectl: { risk: high }\n");
      expect((await pg.watcher?.reload())?.kind).toBe("applied");
      expect(await decide(pg.guard, "kubectl", { operation: "get" })).toEqual({ outcome: "ask", risk: "high" });

      // Lowering delete below the tool's own medium without lowerRisk: rejected, the previous policy stays.
      writeFileSync(file, "defaultRisk: low\ntools:\n  kubectl:\n    operations: { delete: low }\n");
      const rejected = await pg.watcher?.reload();
      expect(rejected?.kind).toBe("rejected");
      expect(rejected?.message).toContain("tools.kubectl.operations.delete: low is lower than the medium risk kubectl declares for delete");
      expect(await decide(pg.guard, "kubectl", { operation: "get" })).toEqual({ outcome: "ask", risk: "high" });
      expect((await decide(pg.guard, "probe", {})).outcome).toBe("ask");
      const records = (await audit.query({})).filter((r) => r.event === "policy");
      expect(records.map((r) => r.decision)).toEqual(["applied", "applied", "rejected"]);

      // With lowerRisk the same lowering is what the operator meant, and it applies.
      writeFileSync(file, "tools:\n  kubectl:\n    lowerRisk: true\n    operations: { delete: low }\n");
      expect((await pg.watcher?.reload())?.kind).toBe("applied");
      expect(await decide(pg.guard, "kubectl", { operation: "delete" })).toEqual({ outcome: "run", risk: "low" });
    } finally {
      await pg.close();
    }
  }, 60_000);

  it("risks given in code stay over the file's after a swap", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gg-watch-risk-"));
    const file = join(dir, "policy.yaml");
    writeFileSync(file, "defaultRisk: low\n");
    const pg = await guardFromPolicy(file, { tools: [kubectl, probe], toolRisk: { probe: "high" }, watch: { debounceMs: 60_000, log: () => undefined } });
    try {
      expect(await decide(pg.guard, "probe", {})).toEqual({ outcome: "ask", risk: "high" });
      writeFileSync(file, "defaultRisk: low\ntools:\n  probe: { risk: low }\n");
      expect((await pg.watcher?.reload())?.kind).toBe("applied");
      expect(await decide(pg.guard, "probe", {})).toEqual({ outcome: "ask", risk: "high" });
    } finally {
      await pg.close();
    }
  }, 60_000);

  it("with permission rules given in code the file is still watched: its risk levels and tool rules swap", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gg-watch-risk-"));
    const file = join(dir, "policy.yaml");
    writeFileSync(file, "defaultRisk: low\n");
    const permissions = new PermissionPolicy([{ id: "no-get", tool: "kubectl", where: { operation: { equals: "get" } }, mode: "deny" }]);
    const pg = await guardFromPolicy(file, { tools: [kubectl, probe], permissions, watch: { debounceMs: 60_000, log: () => undefined } });
    try {
      expect(pg.watcher).toBeDefined();
      expect(await decide(pg.guard, "kubectl", { operation: "delete" })).toEqual({ outcome: "run", risk: "medium" });
      writeFileSync(file, "tools:\n  kubectl:\n    operations: { delete: high }\n");
      expect((await pg.watcher?.reload())?.kind).toBe("applied");
      expect(await decide(pg.guard, "kubectl", { operation: "delete" })).toEqual({ outcome: "ask", risk: "high" });
      expect((await decide(pg.guard, "probe", {})).outcome).toBe("ask");
      // The code's permission rules stay in force.
      expect((await decide(pg.guard, "kubectl", { operation: "get" })).outcome).toBe("refuse");
    } finally {
      await pg.close();
    }
  }, 60_000);
});
