// Shadow rules and shadow policies: decided on every call, audited as what they would have done,
// never enforced. The property: over generated calls and generated shadow rules, a guard with the
// rules in shadow gives exactly the outcomes of the guard without them (what ran, what the model read,
// what was audited), and the would-be decision of every call is the decision the same rules give
// when they are enforced.
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { Annotation, Command, END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { GuardAnnotation } from "../src/guard/state.js";
import { createAgent } from "langchain";
import { GuardedToolNode } from "../src/guard/tool-node.js";
import { guardMiddleware } from "../src/middleware/index.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryAuditSink } from "../src/audit/memory.js";
import type { AuditRecord } from "../src/audit/types.js";
import { createGuardedAgent } from "../src/guard/agent.js";
import { pendingApproval } from "../src/guard/approval/payload.js";
import { Guard } from "../src/guard/guard.js";
import type { PermissionDecider } from "../src/guard/interfaces.js";
import { ScriptedChatModel } from "../src/model/scripted.js";
import { loadPolicyFile, permissionPolicy } from "../src/policy/file.js";
import { PermissionPolicy, type PermissionRule } from "../src/policy/permissions.js";
import { defineTool } from "../src/tools/define-tool.js";
import { wouldBe } from "../src/messages/index.js";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JsonlAuditSink } from "../src/audit/jsonl.js";
import { auditCommand } from "../src/cli/commands/audit.js";
import type { DecisionEvent } from "../src/guard/approval/events.js";
import { guardFromPolicy } from "../src/guard/from-policy.js";
import { explainDecision } from "../src/policy/explain.js";
import { planPolicy } from "../src/policy/check.js";

const NAMESPACES = ["production", "staging", "dev"] as const;

function tools(ran: string[]) {
  const schema = z.object({ namespace: z.string(), name: z.string() });
  const make = (name: string, risk: "low" | "medium" | "high") =>
    defineTool({ name, description: name, schema, risk, execute: (input, ctx) => { ran.push(`${ctx.toolCallId}:${name}:${input.namespace}`); return `${name} ${input.name} in ${input.namespace}`; } });
  return [make("read", "low"), make("deploy", "medium"), make("delete", "high")];
}

/** The policy in force in every run. */
const ENFORCED: PermissionRule[] = [
  { id: "prod-delete", tool: "delete", where: { namespace: { equals: "production" } }, mode: "deny" },
  { id: "dev-any", tool: "*", where: { namespace: { equals: "dev" } }, mode: "allow" },
];

/** Candidate rules the property draws shadow rules from. */
const CANDIDATES: PermissionRule[] = [
  { id: "prod-deploy", tool: "deploy", where: { namespace: { equals: "production" } }, mode: "deny" },
  { id: "staging-ask", tool: "*", where: { namespace: { equals: "staging" } }, mode: "ask" },
  { id: "tmp-names", tool: "*", where: { name: { glob: "tmp-*" } }, mode: "deny" },
  { id: "reads", tool: "read", mode: "allow" },
  { id: "dev-delete", tool: "delete", where: { namespace: { equals: "dev" } }, mode: "ask" },
  { id: "all-deletes", tool: "delete", mode: "allow" },
];

interface Run {
  ran: string[];
  answers: [string, string, string][];
  records: AuditRecord[];
}

type Turn = { name: string; namespace: string; name_: string }[];

async function run(turns: readonly Turn[], options: { permissions: PermissionDecider; shadowPermissions?: PermissionDecider }, threadId: string): Promise<Run> {
  const ran: string[] = [];
  const audit = new MemoryAuditSink();
  const guard = new Guard({ tools: tools(ran), audit, ...options });
  const model = new ScriptedChatModel({
    scenario: { name: threadId, turns: [...turns.map((calls) => ({ tool_calls: calls.map((c) => ({ name: c.name, args: { namespace: c.namespace, name: c.name_ } })) })), { text: "done" }] },
  });
  const graph = createGuardedAgent({ model, guard, checkpointer: new MemorySaver() });
  const config = { configurable: { thread_id: threadId } };
  let out = (await graph.invoke({ messages: [new HumanMessage("go")] }, config)) as { messages: BaseMessage[] };
  for (let i = 0; i < 50; i++) {
    const pending = pendingApproval(out);
    if (pending === undefined) break;
    out = (await graph.invoke(new Command({ resume: { decisions: pending.actionRequests.map(() => ({ type: "approve" })) } }), config)) as { messages: BaseMessage[] };
  }
  expect(pendingApproval(out)).toBeUndefined();
  const answers = out.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => [m.tool_call_id, String(m.status), String(m.content)] as [string, string, string]);
  return { ran, answers, records: await audit.query({}) };
}

/** What an audit record says, without the parts that name the run (time, shadow). */
function essence(record: AuditRecord) {
  const { shadow: _shadow, ...detail } = (record.detail ?? {}) as Record<string, unknown>;
  return { id: record.id, tool: record.tool, toolCallId: record.toolCallId, event: record.event, decision: record.decision, ruleId: record.ruleId, reason: record.reason, args: record.args, detail };
}

const call = fc.record({ name: fc.constantFrom("read", "deploy", "delete"), namespace: fc.constantFrom(...NAMESPACES), name_: fc.constantFrom("web", "tmp-1", "db") });
const turnsArb = fc.array(fc.array(call, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 });
const shadowArb = fc.subarray(CANDIDATES, { minLength: 1 });

describe("shadow rules never change an outcome, and every would-be decision is audited", () => {
  it("property: outcomes with and without the shadow rules are identical; the shadow is what the rules would enforce", async () => {
    let changedSeen = 0;
    let n = 0;
    await fc.assert(
      fc.asyncProperty(turnsArb, shadowArb, async (turns, shadowRules) => {
        const id = `p${n++}`;
        const without = await run(turns, { permissions: new PermissionPolicy(ENFORCED) }, id);
        const withShadowRules = await run(turns, { permissions: new PermissionPolicy([...ENFORCED, ...shadowRules.map((r) => ({ ...r, shadow: true }))]) }, id);
        const candidate = new PermissionPolicy([...ENFORCED, ...shadowRules]);
        const withShadowPolicy = await run(turns, { permissions: new PermissionPolicy(ENFORCED), shadowPermissions: candidate }, id);
        const enforcedCandidate = await run(turns, { permissions: candidate }, id);

        for (const shadowed of [withShadowRules, withShadowPolicy]) {
          expect(shadowed.ran).toEqual(without.ran);
          expect(shadowed.answers).toEqual(without.answers);
          expect(shadowed.records.map(essence)).toEqual(without.records.map(essence));
          // Every review decision carries the would-be decision: the one the candidate gives when enforced.
          const decisions = shadowed.records.filter((r) => r.event === "decision");
          // One review decision per generated call, each with its would-be decision.
          expect(new Set(decisions.map((r) => r.toolCallId)).size).toBe(turns.flat().length);
          for (const record of decisions) {
            const enforced = enforcedCandidate.records.find((r) => r.event === "decision" && r.toolCallId === record.toolCallId);
            const shadow = (record.detail as { shadow?: { decision: string; ruleId: string; reason: string; changed: boolean } }).shadow;
            expect(shadow, `call ${record.toolCallId}`).toEqual({ decision: enforced?.decision, ruleId: enforced?.ruleId, reason: enforced?.reason, changed: enforced?.decision !== record.decision });
            if (shadow?.changed === true) changedSeen++;
          }
        }
        // Without any shadow, no record carries one.
        expect(without.records.some((r) => (r.detail as { shadow?: unknown } | undefined)?.shadow !== undefined)).toBe(false);
      }),
      { numRuns: 25, seed: 2811 },
    );
    // The generated cases include calls whose outcome the shadow would have changed (the property is not vacuous).
    expect(changedSeen).toBeGreaterThan(10);
  }, 120_000);

  it("a policy file's shadow: true rule and shadow: FILE candidate are read, never enforced; events, explain and audit --shadow show them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gg-shadow-"));
    writeFileSync(join(dir, "candidate.yaml"), "permissions:\n  - { id: no-staging, tool: '*', where: { namespace: { equals: staging } }, mode: ask }\n");
    writeFileSync(
      join(dir, "policy.yaml"),
      [
        "shadow: candidate.yaml",
        "permissions:",
        "  - { id: prod-deploy, rule: 'deploy(namespace:production)', mode: deny, shadow: true, reason: production is frozen }",
        "  - { id: reads, tool: read, mode: allow }",
      ].join("\n"),
    );
    const loaded = await loadPolicyFile(join(dir, "policy.yaml"));
    const policy = permissionPolicy(loaded);
    expect(policy.decide("deploy", { namespace: "production", name: "web" }, "medium").mode).toBe("allow");
    expect(policy.shadow?.decide("deploy", { namespace: "production", name: "web" }, "medium")).toMatchObject({ mode: "deny", ruleId: "permission:prod-deploy" });
    expect(loaded.shadow?.source).toBe(join(dir, "candidate.yaml"));
    expect(wouldBe("deny", "permission:prod-deploy", "production is frozen")).toBe("would deny by permission:prod-deploy: production is frozen");

    // A graph under the file: the shadow rules win over nothing; the candidate file is the shadow (shadowPermissions).
    const ran: string[] = [];
    const audit = new MemoryAuditSink();
    const ready = await guardFromPolicy(loaded, { tools: tools(ran), audit });
    const model = new ScriptedChatModel({
      scenario: { name: "file", turns: [{ tool_calls: [{ name: "deploy", args: { namespace: "production", name: "web" } }, { name: "read", args: { namespace: "staging", name: "db" } }] }, { text: "done" }] },
    });
    const graph = createGuardedAgent({ model, guard: ready.guard, checkpointer: new MemorySaver() });
    const events: DecisionEvent[] = [];
    for await (const chunk of await graph.stream({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: "file" }, streamMode: "custom" })) events.push(chunk as DecisionEvent);
    await ready.close();
    // Both calls ran: the shadow decided, the policy in force let them through.
    expect(ran.map((r) => r.split(":").slice(1).join(":"))).toEqual(["deploy:production", "read:staging"]);
    const review = events.filter((e) => e.source === "review");
    expect(review.map((e) => [e.tool, e.decision, e.shadow?.decision, e.shadow?.ruleId])).toEqual([
      ["deploy", "allow", "allow", "risk:medium"],
      ["read", "allow", "ask", "permission:no-staging"],
    ]);
    // The candidate file is the shadow policy: it wins over the shadow rules (GuardOptions.shadowPermissions).
    const records = await audit.query({});
    const decisions = records.filter((r) => r.event === "decision");
    expect(decisions.map((r) => (r.detail as { shadow?: unknown }).shadow)).toEqual(review.map((e) => ({ ...e.shadow, changed: e.shadow?.decision !== e.decision })));

    // Without the candidate file, the shadow rules are the shadow.
    const rulesOnly = new MemoryAuditSink();
    const second = await guardFromPolicy({ ...loaded, shadow: undefined }, { tools: tools([]), audit: rulesOnly });
    const graph2 = createGuardedAgent({ model: new ScriptedChatModel({ scenario: { name: "file", turns: [{ tool_calls: [{ name: "deploy", args: { namespace: "production", name: "web" } }] }, { text: "done" }] } }), guard: second.guard, checkpointer: new MemorySaver() });
    await graph2.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: "rules" } });
    await second.close();
    const shadowed = (await rulesOnly.query({})).filter((r) => r.event === "decision");
    expect(shadowed.map((r) => [r.decision, (r.detail as { shadow?: unknown }).shadow])).toEqual([["allow", { decision: "deny", ruleId: "permission:prod-deploy", reason: "production is frozen", changed: true }]]);

    // policy plan lists them apart from the rules in force.
    const plan = planPolicy(loaded);
    expect(plan).toContain("Shadow rules (decided and audited on every call, never enforced):\n  - deny   prod-deploy");
    expect(plan).toContain(`Shadow policy (decided and audited on every call, never enforced): ${join(dir, "candidate.yaml")}`);
    expect(plan.split("Shadow rules")[0]).not.toContain("prod-deploy");

    // policy explain names what the shadow rules and the candidate would do.
    const text = explainDecision(loaded, { tool: "deploy", args: { namespace: "production", name: "web" }, declaredRisk: "medium" });
    expect(text).toContain("Decision: allow by risk:medium");
    expect(text).toContain("Shadow rules (never enforced): would deny by permission:prod-deploy — production is frozen");
    expect(text).toContain(`Shadow policy ${join(dir, "candidate.yaml")} (never enforced): would allow by risk:medium`);

    // audit --shadow counts the would-be changes per change and per rule.
    const file = join(dir, "audit.jsonl");
    const sink = await JsonlAuditSink.open(file);
    await sink.write([...records, ...(await rulesOnly.query({}))]);
    await sink.close();
    const lines: string[] = [];
    expect(await auditCommand(["--audit", `jsonl:${file}`, "--shadow"], { out: (l) => lines.push(l), err: (l) => lines.push(l) })).toBe(0);
    expect(lines).toEqual([
      "3 decision(s), 3 with a shadow decision, 2 the shadow would change",
      "Would-be changes (enforced → shadow):",
      "  allow → ask: 1",
      "  allow → deny: 1",
      "Shadow decisions by rule:",
      "  permission:no-staging: 1",
      "  permission:prod-deploy: 1",
    ]);
    const rows: string[] = [];
    await auditCommand(["--audit", `jsonl:${file}`], { out: (l) => rows.push(l), err: () => undefined });
    expect(rows.filter((row) => row.includes("[shadow: would deny by permission:prod-deploy]"))).toHaveLength(1);
  });

  it("every entry point audits and streams the shadow decision and enforces only the policy: createGuardedAgent, GuardedToolNode, guardMiddleware", async () => {
    const permissions = new PermissionPolicy([...ENFORCED, { id: "prod-deploy", tool: "deploy", where: { namespace: { equals: "production" } }, mode: "deny", shadow: true }]);
    const turns = () => new ScriptedChatModel({ scenario: { name: "ep", turns: [{ tool_calls: [{ name: "deploy", args: { namespace: "production", name: "web" } }] }, { text: "done" }] } });
    const results: Record<string, { ran: number; shadow: unknown; event: unknown }> = {};
    for (const entry of ["createGuardedAgent", "GuardedToolNode", "guardMiddleware"] as const) {
      const ran: string[] = [];
      const audit = new MemoryAuditSink();
      const guard = new Guard({ tools: tools(ran), audit, permissions });
      const model = turns();
      const graph =
        entry === "createGuardedAgent"
          ? createGuardedAgent({ model, guard, checkpointer: new MemorySaver() })
          : entry === "GuardedToolNode"
            ? new StateGraph(Annotation.Root({ ...MessagesAnnotation.spec, ...GuardAnnotation.spec }))
                .addNode("agent", async (state) => ({ messages: [await model.bindTools(tools([])).invoke(state.messages)] }))
                .addNode("tools", new GuardedToolNode(guard))
                .addEdge(START, "agent")
                .addConditionalEdges("agent", (state) => ((state.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END))
                .addEdge("tools", "agent")
                .compile({ checkpointer: new MemorySaver() })
            : createAgent({ model, middleware: [guardMiddleware({ guard })], checkpointer: new MemorySaver() });
      const events: DecisionEvent[] = [];
      for await (const chunk of await (graph as unknown as { stream(i: unknown, c: unknown): Promise<AsyncIterable<unknown>> }).stream({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: entry }, streamMode: "custom" })) {
        if ((chunk as { type?: unknown }).type === "guarded-graph/decision") events.push(chunk as DecisionEvent);
      }
      const record = (await audit.query({})).find((r) => r.event === "decision");
      results[entry] = { ran: ran.length, shadow: (record?.detail as { shadow?: unknown } | undefined)?.shadow, event: events.find((e) => e.source === "review")?.shadow };
    }
    const expected = { ran: 1, shadow: { decision: "deny", ruleId: "permission:prod-deploy", reason: "deploy where namespace equals \"production\"", changed: true }, event: { decision: "deny", ruleId: "permission:prod-deploy", reason: "deploy where namespace equals \"production\"" } };
    expect(results).toEqual({ createGuardedAgent: expected, GuardedToolNode: expected, guardMiddleware: expected });
  });

  it("interruptOn holds for the shadow decision as for the enforced one: an allow both turn into asks is no change", async () => {
    const audit = new MemoryAuditSink();
    const permissions = new PermissionPolicy([...ENFORCED, { id: "staging-reads", tool: "read", where: { namespace: { equals: "staging" } }, mode: "deny", shadow: true }]);
    const guard = new Guard({ tools: tools([]), audit, permissions, interruptOn: { read: true } });
    const model = new ScriptedChatModel({
      scenario: { name: "io", turns: [{ tool_calls: [{ name: "read", args: { namespace: "production", name: "web" } }, { name: "read", args: { namespace: "staging", name: "web" } }] }, { text: "done" }] },
    });
    const graph = createGuardedAgent({ model, guard, checkpointer: new MemorySaver() });
    await graph.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: "io" } });
    const decisions = (await audit.query({})).filter((r) => r.event === "decision");
    expect(decisions.map((r) => [r.decision, r.ruleId, (r.detail as { shadow?: { decision: string; ruleId: string; changed: boolean } }).shadow])).toEqual([
      ["ask", "interruptOn:read", { decision: "ask", ruleId: "interruptOn:read", reason: expect.any(String), changed: false }],
      ["ask", "interruptOn:read", { decision: "deny", ruleId: "permission:staging-reads", reason: expect.any(String), changed: true }],
    ]);
  });

  it("calls refused before any permission rule (unknown tool, invalid arguments) carry the same shadow decision: every decision has one", async () => {
    const audit = new MemoryAuditSink();
    const permissions = new PermissionPolicy([...ENFORCED, { id: "prod-deploy", tool: "deploy", where: { namespace: { equals: "production" } }, mode: "deny", shadow: true }]);
    const guard = new Guard({ tools: tools([]), audit, permissions });
    const model = new ScriptedChatModel({
      scenario: { name: "early", turns: [{ tool_calls: [{ name: "nope", args: {} }, { name: "deploy", args: { namespace: 3 } }, { name: "deploy", args: { namespace: "production", name: "web" } }] }, { text: "done" }] },
    });
    await createGuardedAgent({ model, guard, checkpointer: new MemorySaver() }).invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: "early" } });
    const decisions = (await audit.query({})).filter((r) => r.event === "decision");
    expect(decisions.map((r) => [r.decision, r.ruleId, (r.detail as { shadow?: { decision: string; ruleId: string; changed: boolean } }).shadow])).toEqual([
      ["deny", "unknown-tool", { decision: "deny", ruleId: "unknown-tool", reason: expect.any(String), changed: false }],
      ["deny", "schema", { decision: "deny", ruleId: "schema", reason: expect.any(String), changed: false }],
      ["allow", "risk:medium", { decision: "deny", ruleId: "permission:prod-deploy", reason: expect.any(String), changed: true }],
    ]);
  });
});

