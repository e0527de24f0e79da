import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Annotation, Command, END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { createAgent } from "langchain";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { MemoryAuditSink } from "../src/audit/memory.js";
import { PostgresAuditSink } from "../src/audit/postgres.js";
import type { AuditSink } from "../src/audit/types.js";
import { createGuardedAgent } from "../src/guard/agent.js";
import { pendingApproval } from "../src/guard/approval/payload.js";
import { checkResume } from "../src/guard/approval/resume.js";
import { auditStickyRevoked, listSticky, revokeSticky, revokeStickyDecision, stickyDecisions } from "../src/guard/approval/sticky.js";
import type { ApprovalRequest } from "../src/guard/approval/payload.js";
import { openCheckpointer } from "../src/storage/checkpointer.js";
import { GuardAnnotation } from "../src/guard/state.js";
import { GuardedToolNode, guardedToolsRoute } from "../src/guard/tool-node.js";
import { guardMiddleware } from "../src/middleware/guard-middleware.js";
import { ExecutionLog, k8sTools, prodProtected } from "./helpers/guard-fixtures.js";
import { postgresConfigured, postgresForTests, uniqueName } from "./helpers/postgres.js";

const thread = (id: string) => ({ configurable: { thread_id: id } });
const toolMessages = (messages: BaseMessage[]) => messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
const interruptsOf = (out: unknown) => (out as { __interrupt__?: { value: unknown }[] }).__interrupt__ ?? [];
const del = (name: string, namespace: string, id: string) => ({ name: "kubectl_delete", args: { resource: "deploy", name, namespace }, id });

/** One model turn per entry, each followed by a plain answer (so each user message is one run of one turn). */
function runs(...turns: ReturnType<typeof del>[][]) {
  let model = fakeModel();
  for (const [i, turn] of turns.entries()) model = model.respondWithTools(turn).respond(new AIMessage(`done ${i}`));
  return model;
}

function graphWith(model: ReturnType<typeof fakeModel>, checkpointer: BaseCheckpointSaver = new MemorySaver(), audit: AuditSink = new MemoryAuditSink()) {
  const log = new ExecutionLog();
  const graph = createGuardedAgent({ model, tools: k8sTools(log), permissions: prodProtected, checkpointer, audit });
  return { graph, log, audit };
}

describe("sticky approvals: don't ask again, for the run or the thread", () => {
  it("approve for the thread: later runs' calls of the tool run without asking; listed; audited", async () => {
    const { graph, log, audit } = graphWith(runs([del("web", "staging", "c1")], [del("db", "staging", "c2")]));
    await graph.invoke({ messages: [new HumanMessage("one")] }, thread("thread-wide"));
    await graph.invoke(new Command({ resume: { decisions: [{ type: "approve", sticky: { scope: "thread" } }], actor: "alice" } }), thread("thread-wide"));
    const out = await graph.invoke({ messages: [new HumanMessage("two")] }, thread("thread-wide"));
    expect(interruptsOf(out)).toHaveLength(0);
    expect(log.entries.map((e) => e.args.name)).toEqual(["web", "db"]);
    const standing = stickyDecisions((await graph.getState(thread("thread-wide"))).values.guard);
    expect(standing).toMatchObject([{ decision: "approve", tool: "kubectl_delete", scope: "thread", toolCallId: "c1", actor: "alice" }]);
    const human = (await audit.query({ threadId: "thread-wide" })).filter((r) => r.event === "human");
    expect(human.map((r) => [r.toolCallId, r.decision, r.actor, (r.detail?.sticky as { id?: string } | undefined)?.id])).toEqual([
      ["c1", "approve", "alice", standing[0]?.id],
      ["c2", "approve", "alice", standing[0]?.id],
    ]);
  });

  it("an argument pattern holds only for those values; a run-scoped one ends with its run", async () => {
    const { graph, log } = graphWith(
      fakeModel()
        .respondWithTools([del("a", "staging", "p1")])
        .respondWithTools([del("b", "staging", "p2"), del("c", "dev", "p3")])
        .respond(new AIMessage("first run done"))
        .respondWithTools([del("d", "staging", "p4")])
        .respond(new AIMessage("second run done")),
    );
    await graph.invoke({ messages: [new HumanMessage("one")] }, thread("pattern"));
    const second = await graph.invoke(
      new Command({ resume: { decisions: [{ type: "approve", sticky: { scope: "run", args: { namespace: "staging" } } }] } }),
      thread("pattern"),
    );
    // Same run: the staging delete runs without asking, the dev delete asks.
    expect((interruptsOf(second)[0]?.value as ApprovalRequest).actionRequests.map((a) => a.toolCallId)).toEqual(["p3"]);
    expect(log.entries.map((e) => e.args.name)).toEqual(["a"]);
    await graph.invoke(new Command({ resume: { decisions: [{ type: "reject", message: "not dev" }] } }), thread("pattern"));
    expect(log.entries.map((e) => e.args.name)).toEqual(["a", "b"]);
    // Next run: the run-scoped decision no longer holds.
    const third = await graph.invoke({ messages: [new HumanMessage("two")] }, thread("pattern"));
    expect((interruptsOf(third)[0]?.value as ApprovalRequest).actionRequests.map((a) => a.toolCallId)).toEqual(["p4"]);
  });

  it("sticky reject: later calls are refused without asking, with the reviewer's note", async () => {
    const { graph, log } = graphWith(runs([del("web", "staging", "r1")], [del("db", "staging", "r2")]));
    await graph.invoke({ messages: [new HumanMessage("one")] }, thread("reject"));
    await graph.invoke(new Command({ resume: { decisions: [{ type: "reject", message: "no deletes today", sticky: { scope: "thread" } }] } }), thread("reject"));
    const out = await graph.invoke({ messages: [new HumanMessage("two")] }, thread("reject"));
    expect(interruptsOf(out)).toHaveLength(0);
    expect(log.entries).toHaveLength(0);
    expect(toolMessages(out.messages).find((m) => m.tool_call_id === "r2")?.content).toBe(
      "Refused kubectl_delete by a human reviewer: no deletes today. Do not retry this call unchanged.",
    );
  });

  it("never overrides a deny", async () => {
    const { graph, log } = graphWith(runs([del("web", "staging", "d1")], [del("db", "production", "d2")]));
    await graph.invoke({ messages: [new HumanMessage("one")] }, thread("deny"));
    await graph.invoke(new Command({ resume: { decisions: [{ type: "approve", sticky: { scope: "thread" } }] } }), thread("deny"));
    const out = await graph.invoke({ messages: [new HumanMessage("two")] }, thread("deny"));
    expect(log.entries.map((e) => e.args.namespace)).toEqual(["staging"]);
    expect(toolMessages(out.messages).find((m) => m.tool_call_id === "d2")?.content).toMatch(/permission:prod-protected/);
  });

  it("revocable: listed, revoked through the state, audited; the next call asks again", async () => {
    const { graph, audit } = graphWith(runs([del("web", "staging", "v1")], [del("db", "staging", "v2")]));
    await graph.invoke({ messages: [new HumanMessage("one")] }, thread("revoke"));
    await graph.invoke(new Command({ resume: { decisions: [{ type: "approve", sticky: { scope: "thread" } }] } }), thread("revoke"));
    const state = await graph.getState(thread("revoke"));
    const [standing] = stickyDecisions(state.values.guard);
    expect(standing).toBeDefined();
    const { guard, revoked } = revokeSticky(state.values.guard, standing?.id ?? "");
    expect(revoked?.id).toBe(standing?.id);
    await graph.updateState(thread("revoke"), { guard });
    await auditStickyRevoked(audit, "revoke", revoked!, "bob", 1);
    expect(stickyDecisions((await graph.getState(thread("revoke"))).values.guard)).toEqual([]);
    const out = await graph.invoke({ messages: [new HumanMessage("two")] }, thread("revoke"));
    expect(pendingApproval(out)?.actionRequests.map((a) => a.toolCallId)).toEqual(["v2"]);
    const revokes = (await audit.query({ threadId: "revoke" })).filter((r) => r.decision === "revoke");
    expect(revokes.map((r) => [r.actor, r.reason])).toEqual([["bob", "standing approve for the thread revoked: later calls ask again"]]);
    expect(revokeSticky(state.values.guard, "no-such-id").revoked).toBeUndefined();
  });

  it("is strict: no sticky on an edit, no unknown keys, only run or thread", () => {
    const pending = [{ id: "a1", name: "kubectl_delete" }];
    const all = ["approve", "edit", "reject"] as const;
    expect(() => checkResume(pending, { decisions: [{ type: "edit", editedAction: { name: "kubectl_delete", args: {} }, sticky: { scope: "run" } }] }, all)).toThrow(/Unrecognized key.*sticky/);
    expect(() => checkResume(pending, { decisions: [{ type: "approve", sticky: { scope: "forever" } }] }, all)).toThrow(/scope/);
    expect(() => checkResume(pending, { decisions: [{ type: "approve", sticky: { scope: "run", tools: "*" } }] }, all)).toThrow(/Unrecognized key.*tools/);
  });
});

describe.runIf(postgresConfigured)("sticky approvals on PostgreSQL: a restart and a second worker", () => {
  const schema = uniqueName("gg_sticky");
  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
    const url = await postgresForTests();
    if (!url) return;
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.query(`DROP TABLE IF EXISTS "${schema}_audit"`);
    await pool.end();
  });

  it("a thread-wide approval made by worker A holds for worker B (fresh guard and connections) and both show in the shared audit log", async () => {
    const url = await postgresForTests();
    if (!url) return;
    const threadId = uniqueName("sticky");
    const table = `${schema}_audit`;
    const workerA = await openCheckpointer(url, { schema });
    const auditA = await PostgresAuditSink.open({ url, table });
    // One scripted model for both workers (two fake model instances would reuse message ids).
    const model = runs([del("web", "staging", "w1")], [del("db", "staging", "w2")], [del("cache", "staging", "w3")]);
    const a = graphWith(model, workerA.checkpointer, auditA);
    await a.graph.invoke({ messages: [new HumanMessage("one")] }, thread(threadId));
    await a.graph.invoke(new Command({ resume: { decisions: [{ type: "approve", sticky: { scope: "thread" } }], actor: "alice" } }), thread(threadId));
    await auditA.close();
    await workerA.close();

    // "Restart": a second worker with its own guard, checkpointer connection and audit connection.
    const workerB = await openCheckpointer(url, { schema });
    const auditB = await PostgresAuditSink.open({ url, table });
    closers.push(() => workerB.close(), () => auditB.close());
    const b = graphWith(model, workerB.checkpointer, auditB);
    const out = await b.graph.invoke({ messages: [new HumanMessage("two")] }, thread(threadId));
    expect(interruptsOf(out)).toHaveLength(0);
    expect(b.log.entries.map((e) => e.args.name)).toEqual(["db"]);
    expect(stickyDecisions((await b.graph.getState(thread(threadId))).values.guard)).toMatchObject([{ tool: "kubectl_delete", scope: "thread", actor: "alice" }]);
    const human = (await auditB.query({ threadId })).filter((r) => r.event === "human");
    expect(human.map((r) => [r.toolCallId, r.decision, r.actor])).toEqual([
      ["w1", "approve", "alice"],
      ["w2", "approve", "alice"],
    ]);

    // Worker B lists and revokes it (audited); worker C, started afresh, asks again.
    const [standing] = await listSticky(b.graph, threadId);
    expect(standing?.toolCallId).toBe("w1");
    await revokeStickyDecision(b.graph, threadId, standing?.id ?? "", { audit: auditB, actor: "bob" });
    const workerC = await openCheckpointer(url, { schema });
    const auditC = await PostgresAuditSink.open({ url, table });
    closers.push(() => workerC.close(), () => auditC.close());
    const c = graphWith(model, workerC.checkpointer, auditC);
    expect(await listSticky(c.graph, threadId)).toEqual([]);
    const third = await c.graph.invoke({ messages: [new HumanMessage("three")] }, thread(threadId));
    expect(pendingApproval(third)?.actionRequests.map((a) => a.toolCallId)).toEqual(["w3"]);
    expect(c.log.entries).toHaveLength(0);
    const revokes = (await auditC.query({ threadId })).filter((r) => r.decision === "revoke");
    expect(revokes.map((r) => [r.toolCallId, r.actor, r.ruleId])).toEqual([["w1", "bob", `sticky:${standing?.id}`]]);
  });
});

describe("revokeStickyDecision: the library call the CLI uses", () => {
  it("refuses while the thread waits for an approval and for an unknown id, changing nothing", async () => {
    const audit = new MemoryAuditSink();
    const { graph } = graphWith(runs([del("web", "staging", "x1")], [del("db", "staging", "x2")]), new MemorySaver(), audit);
    await graph.invoke({ messages: [new HumanMessage("one")] }, thread("lib-revoke"));
    await graph.invoke(new Command({ resume: { decisions: [{ type: "approve", sticky: { scope: "thread" } }] } }), thread("lib-revoke"));
    const [standing] = await listSticky(graph, "lib-revoke");
    await expect(revokeStickyDecision(graph, "lib-revoke", "nope", { audit })).rejects.toMatchObject({
      name: "StickyRevokeError",
      code: "GG_ERR_STICKY_REVOKE",
      message: `thread lib-revoke has no standing decision "nope"; standing: ${standing?.id}`,
    });
    // A thread waiting for an approval (a fresh one, on a tool the decision does not cover) is left alone.
    const waiting = graphWith(runs([del("web", "staging", "y1")]), new MemorySaver(), audit);
    await waiting.graph.invoke({ messages: [new HumanMessage("one")] }, thread("lib-waiting"));
    await expect(revokeStickyDecision(waiting.graph, "lib-waiting", standing?.id ?? "", { audit })).rejects.toThrow(
      "thread lib-waiting is waiting for an approval: answer it first, then revoke (nothing was changed)",
    );
    expect(await listSticky(graph, "lib-revoke")).toHaveLength(1);
    expect((await audit.query({ threadId: "lib-revoke" })).filter((r) => r.decision === "revoke")).toEqual([]);
  });
});

describe("a standing approval is not a human's look at the call", () => {
  it("a killswitch that asks by the time the call starts stops a sticky-approved call", async () => {
    let killswitchAsks = false;
    const killswitch = {
      decide: (_tool: string, _risk: import("../src/tools/types.js").RiskLevel) =>
        killswitchAsks ? { mode: "ask" as const, ruleId: "killswitch:ask-tools", reason: "incident in progress" } : null,
      snapshot: () => ({ status: "ok" as const, restrictMode: "deny" as const }),
      bypassAllowed: () => true,
    } as unknown as import("../src/guard/interfaces.js").KillswitchView;
    // The killswitch turns to "ask" while review looks at the call (after its own killswitch check).
    const permissions = {
      decide: (tool: string, args: unknown, risk: import("../src/tools/types.js").RiskLevel = "medium") => {
        const decision = prodProtected.decide(tool, args, risk);
        if ((args as { name?: string }).name === "flip") killswitchAsks = true;
        return decision;
      },
    };
    const log = new ExecutionLog();
    const graph = createGuardedAgent({
      model: runs([del("web", "staging", "k1")], [del("flip", "staging", "k2")]),
      tools: k8sTools(log),
      permissions,
      killswitch,
      checkpointer: new MemorySaver(),
    });
    await graph.invoke({ messages: [new HumanMessage("one")] }, thread("kill"));
    await graph.invoke(new Command({ resume: { decisions: [{ type: "approve", sticky: { scope: "thread" } }] } }), thread("kill"));
    expect(log.entries.map((e) => e.args.name)).toEqual(["web"]);
    // Sticky-approved at review, but the killswitch asks at its start: refused, not run.
    const second = await graph.invoke({ messages: [new HumanMessage("two")] }, thread("kill"));
    expect(log.entries.map((e) => e.args.name)).toEqual(["web"]);
    expect(toolMessages(second.messages).find((m) => m.tool_call_id === "k2")?.content).toMatch(/killswitch/);
  });
});

describe("listed and revoked on every entry point (the library calls the CLI uses)", () => {
  type Graph = Parameters<typeof listSticky>[0] & { invoke(input: unknown, config: unknown): Promise<unknown> };
  const build: Record<string, (model: ReturnType<typeof fakeModel>, log: ExecutionLog, audit: AuditSink) => Graph> = {
    createGuardedAgent: (model, log, audit) =>
      createGuardedAgent({ model, tools: k8sTools(log), permissions: prodProtected, checkpointer: new MemorySaver(), audit }) as unknown as Graph,
    guardMiddleware: (model, log, audit) =>
      createAgent({ model, middleware: [guardMiddleware({ tools: k8sTools(log), permissions: prodProtected, audit })], checkpointer: new MemorySaver() })
        .graph as unknown as Graph,
    GuardedToolNode: (model, log, audit) => {
      const State = Annotation.Root({ ...MessagesAnnotation.spec, ...GuardAnnotation.spec });
      return new StateGraph(State)
        .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
        .addNode("tools", new GuardedToolNode({ tools: k8sTools(log), permissions: prodProtected, audit }))
        .addEdge(START, "agent")
        .addConditionalEdges("agent", (st) => ((st.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END), ["tools", END])
        .addConditionalEdges("tools", guardedToolsRoute("agent"), ["agent", END])
        .compile({ checkpointer: new MemorySaver() }) as unknown as Graph;
    },
  };
  it.each(Object.keys(build).map((k) => [k]))("%s: made, holds, listed, revoked (audited), asks again", async (entry) => {
    const log = new ExecutionLog();
    const audit = new MemoryAuditSink();
    const graph = build[entry]!(runs([del("web", "staging", "s1")], [del("db", "staging", "s2")], [del("cache", "staging", "s3")]), log, audit);
    const id = `every-${entry}`;
    await graph.invoke({ messages: [new HumanMessage("one")] }, thread(id));
    await graph.invoke(new Command({ resume: { decisions: [{ type: "approve", sticky: { scope: "thread" } }], actor: "alice" } }), thread(id));
    await graph.invoke({ messages: [new HumanMessage("two")] }, thread(id));
    expect(log.entries.map((e) => e.args.name)).toEqual(["web", "db"]);
    const [standing, ...more] = await listSticky(graph, id);
    expect(more).toEqual([]);
    expect(standing).toMatchObject({ decision: "approve", tool: "kubectl_delete", scope: "thread", toolCallId: "s1", actor: "alice" });
    await revokeStickyDecision(graph, id, standing?.id ?? "", { audit, actor: "bob" });
    expect(await listSticky(graph, id)).toEqual([]);
    const out = await graph.invoke({ messages: [new HumanMessage("three")] }, thread(id));
    expect(pendingApproval(out)?.actionRequests.map((a) => a.toolCallId)).toEqual(["s3"]);
    expect(log.entries.map((e) => e.args.name)).toEqual(["web", "db"]);
    const human = (await audit.query({ threadId: id })).filter((r) => r.event === "human");
    expect(human.map((r) => [r.toolCallId, r.decision, r.actor])).toEqual([
      ["s1", "approve", "alice"],
      ["s2", "approve", "alice"],
      ["s1", "revoke", "bob"],
    ]);
  });
});
