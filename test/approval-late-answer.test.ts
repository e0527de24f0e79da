/**
 * An answer that reaches a thread after another answer to the same approval was applied and its calls
 * ran, but before that run ended (the window two processes hit without the thread lock): the thread
 * waits on no interrupt, so LangGraph keeps the resume as a "null resume" and runs the next step. The
 * guard must tell this answer it was superseded (result, audit, stream), change nothing, and never
 * apply it to a later approval.
 */
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Command, MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { MemoryAuditSink } from "../src/audit/memory.js";
import { buildGuardedGraph } from "../src/guard/agent.js";
import { supersededAnswer } from "../src/guard/answer-race.js";
import type { DecisionEvent } from "../src/guard/approval/events.js";
import { Guard } from "../src/guard/guard.js";
import { guardMiddleware } from "../src/middleware/guard-middleware.js";
import { openLedger } from "../src/storage/ledger.js";
import { ExecutionLog, k8sTools, prodProtected } from "./helpers/guard-fixtures.js";

const thread = (id: string) => ({ configurable: { thread_id: id } });
const toolMessages = (messages: BaseMessage[]) => messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
const interruptsOf = (out: unknown) => (out as { __interrupt__?: unknown[] }).__interrupt__ ?? [];

const del = (id: string) => ({ name: "kubectl_delete", args: { resource: "deploy", name: "web", namespace: "staging" }, id });

/**
 * The guarded agent with the winner's run stopped right after its approved call ran (`interruptAfter`
 * the step that runs calls): the state every later answer finds while the winner's run goes on.
 */
/** A checkpointer the guard cannot prove in-memory (it may persist): each approved call runs in its own task. */
class PersistingSaver extends MemorySaver {}

async function settledApproval(id: string, withLedger: boolean, model = fakeModel().respondWithTools([del("c1")]).respond(new AIMessage("done")), checkpointer: MemorySaver = new MemorySaver()) {
  const log = new ExecutionLog();
  const audit = new MemoryAuditSink();
  const ledger = withLedger ? await openLedger(`memory:late-answer-${id}-${Math.random()}`) : undefined;
  const guard = new Guard({ tools: k8sTools(log), permissions: prodProtected, audit, ...(ledger ? { ledger } : {}) });
  // The approved calls run in the review's own task (execute; on MemorySaver the graph's process ledger allows it) or one task per call (tools).
  const graph = buildGuardedGraph(guard, { model }).compile({ checkpointer, interruptAfter: ["execute", "tools"] });
  // The late answer's own run: the same guard and thread, no stop.
  const late = buildGuardedGraph(guard, { model }).compile({ checkpointer });
  await untilStopped(graph, { messages: [new HumanMessage("clean staging")] }, id);
  expect((await graph.getState(thread(id))).tasks.flatMap((t) => t.interrupts)).toHaveLength(1);
  const state = await untilStopped(graph, new Command({ resume: { decisions: [{ type: "approve" }], actor: "alice" } }), id);
  // The winner's call ran and the next step is the model's: no interrupt waits for an answer.
  expect(log.names()).toEqual(["kubectl_delete"]);
  expect(state.tasks.flatMap((t) => t.interrupts)).toEqual([]);
  expect(state.next).toEqual(["agent"]);
  return { graph: late, log, audit };
}

/** Runs the input, then continues past every `interruptAfter` stop before the call ran: the state at the approval, or right after the call ran. */
type Graph = ReturnType<ReturnType<typeof buildGuardedGraph>["compile"]>;

async function untilStopped(graph: Graph, input: Parameters<Graph["invoke"]>[0], id: string) {
  await graph.invoke(input, thread(id));
  for (let i = 0; i < 5; i++) {
    const state = await graph.getState(thread(id));
    const ran = toolMessages((state.values as { messages?: BaseMessage[] }).messages ?? []).length > 0;
    if (state.tasks.some((t) => t.interrupts.length > 0) || ran || state.next.length === 0) return state;
    await graph.invoke(null, thread(id));
  }
  throw new Error("the graph never reached the approval");
}

async function lateAnswer(graph: Awaited<ReturnType<typeof settledApproval>>["graph"], id: string, resume: unknown) {
  const events: DecisionEvent[] = [];
  let values: unknown;
  for await (const [mode, chunk] of await graph.stream(new Command({ resume }), { ...thread(id), streamMode: ["values", "custom"] })) {
    if (mode === "values") values = chunk;
    else events.push(chunk as DecisionEvent);
  }
  return { values, events };
}

describe("an answer that arrives after the approval was settled (the thread waits on no interrupt)", () => {
  for (const withLedger of [true, false]) {
    const label = withLedger ? "with a ledger" : "without a ledger";

    it(`${label}: the late reject is told it was superseded, audited as superseded and changes nothing`, async () => {
      const id = `late-${withLedger}`;
      const { graph, log, audit } = await settledApproval(id, withLedger);
      const { values, events } = await lateAnswer(graph, id, { decisions: [{ type: "reject", message: "no" }], actor: "bob" });

      const report = supersededAnswer(values);
      expect(report).toBeDefined();
      expect(report?.messageId).toBeTruthy();
      expect(report?.yours).toEqual({ c1: "reject" });
      expect(report?.actor).toBe("bob");
      // The ledger recorded which answer won; without one the guard says only that the approval was answered.
      if (withLedger) expect(report?.appliedAnswer).toEqual({ actor: "alice", decisions: { c1: "approve" } });
      else expect(report?.appliedAnswer).toEqual({ decisions: {} });

      const superseded = (await audit.query()).filter((r) => r.event === "human" && r.decision === "superseded");
      expect(superseded.map((r) => [r.toolCallId, r.actor, r.detail?.yours])).toEqual([["c1", "bob", "reject"]]);
      expect(superseded[0]?.reason).toContain(withLedger ? "(approve by alice)" : "already answered");
      // The winner's human record is the only other one; nothing ran again, the ToolMessage is the winner's.
      expect((await audit.query()).filter((r) => r.event === "human" && r.decision !== "superseded").map((r) => [r.decision, r.actor])).toEqual([["approve", "alice"]]);
      expect(log.names()).toEqual(["kubectl_delete"]);
      const messages = (values as { messages: BaseMessage[] }).messages;
      expect(toolMessages(messages).map((m) => [m.tool_call_id, m.status])).toEqual([["c1", "success"]]);
      // The model step proceeded as before.
      expect(messages.at(-1)?.content).toBe("done");
      expect(events.filter((e) => e.decision === "superseded").map((e) => [e.toolCallId, e.actor, e.source])).toEqual([["c1", "bob", "human"]]);
    });
  }

  it("one task per call (a checkpointer that may persist, no ledger): the late answer is told it was superseded in the model step", async () => {
    const id = "late-tools";
    const { graph, log, audit } = await settledApproval(id, false, undefined, new PersistingSaver());
    const { values } = await lateAnswer(graph, id, { decisions: [{ type: "reject" }], actor: "bob" });
    expect(supersededAnswer(values)).toMatchObject({ yours: { c1: "reject" }, actor: "bob", appliedAnswer: { decisions: {} }, late: true });
    expect((await audit.query()).filter((r) => r.event === "human").map((r) => [r.decision, r.actor])).toEqual([["approve", "alice"], ["superseded", "bob"]]);
    expect(log.names()).toEqual(["kubectl_delete"]);
    expect((values as { messages: BaseMessage[] }).messages.at(-1)?.content).toBe("done");
  });

  it("one task per call with a Terminal rule (the turn is recorded in its own step): the late answer is told there, and the run ends", async () => {
    const id = "late-collect";
    const log = new ExecutionLog();
    const audit = new MemoryAuditSink();
    const guard = new Guard({ tools: k8sTools(log), permissions: prodProtected, audit, rules: [{ tool: "kubectl_delete", type: "Terminal" }] });
    const model = fakeModel().respondWithTools([del("c1")]).respond(new AIMessage("never asked"));
    const checkpointer = new PersistingSaver();
    const winner = buildGuardedGraph(guard, { model }).compile({ checkpointer, interruptAfter: ["tools"] });
    await untilStopped(winner, { messages: [new HumanMessage("clean staging")] }, id);
    const state = await untilStopped(winner, new Command({ resume: { decisions: [{ type: "approve" }], actor: "alice" } }), id);
    expect(state.next).toEqual(["collect"]);
    const late = buildGuardedGraph(guard, { model }).compile({ checkpointer });
    const { values, events } = await lateAnswer(late, id, { decisions: [{ type: "reject" }], actor: "bob" });
    expect(supersededAnswer(values)).toMatchObject({ yours: { c1: "reject" }, actor: "bob", late: true });
    expect(events.filter((e) => e.decision === "superseded").map((e) => e.actor)).toEqual(["bob"]);
    expect((await audit.query()).filter((r) => r.event === "human").map((r) => [r.decision, r.actor])).toEqual([["approve", "alice"], ["superseded", "bob"]]);
    expect(log.names()).toEqual(["kubectl_delete"]);
    expect((values as { guard: { terminatedBy?: string | null } }).guard.terminatedBy).toMatch(/Terminal/);
  });

  it("the late answer is not applied to the next approval of the run", async () => {
    const id = "late-next";
    const model = fakeModel()
      .respondWithTools([del("c1")])
      .respondWithTools([{ ...del("c2"), args: { resource: "deploy", name: "db", namespace: "staging" } }])
      .respond(new AIMessage("done"));
    const { graph, log, audit } = await settledApproval(id, true, model);
    const { values } = await lateAnswer(graph, id, { decisions: [{ type: "approve" }], actor: "bob" });
    // The next call asks again: the late approve was for c1, not for it.
    expect(interruptsOf(values).length + (await graph.getState(thread(id))).tasks.flatMap((t) => t.interrupts).length).toBeGreaterThan(0);
    expect(log.names()).toEqual(["kubectl_delete"]);
    // The run waits at c2's approval; its state still reports the superseded answer (the run has not ended).
    expect(supersededAnswer(await graph.getState(thread(id)))?.yours).toEqual({ c1: "approve" });
    expect((await audit.query()).filter((r) => r.decision === "superseded").map((r) => [r.toolCallId, r.actor])).toEqual([["c1", "bob"]]);
    expect((await audit.query()).filter((r) => r.event === "human" && r.toolCallId === "c2")).toEqual([]);
  });

  it("a run that ends without a late answer reports nothing superseded", async () => {
    const id = "late-none";
    const { graph, audit } = await settledApproval(id, true);
    const out = await graph.invoke(null, thread(id));
    expect(supersededAnswer(out)).toBeUndefined();
    expect((await audit.query()).filter((r) => r.decision === "superseded")).toEqual([]);
  });

  it("guardMiddleware: the late answer reaches the model step's beforeModel, is told it was superseded and changes nothing", async () => {
    const id = "late-mw";
    const log = new ExecutionLog();
    const audit = new MemoryAuditSink();
    const model = fakeModel().respondWithTools([del("c1")]).respond(new AIMessage("done"));
    const agent = createAgent({ model, middleware: [guardMiddleware({ tools: k8sTools(log), permissions: prodProtected, audit })], checkpointer: new MemorySaver() });
    const first = await agent.invoke({ messages: [new HumanMessage("clean staging")] }, thread(id));
    expect(interruptsOf(first)).toHaveLength(1);
    // The winner's run stops right after its approved call ran (its run would go on to the model).
    await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }], actor: "alice" } }), { ...thread(id), interruptAfter: ["tools"] } as Parameters<typeof agent.invoke>[1]);
    expect(log.names()).toEqual(["kubectl_delete"]);
    const paused = (await agent.getState(thread(id))) as unknown as { tasks: { interrupts: unknown[] }[] };
    expect(paused.tasks.flatMap((t) => t.interrupts)).toEqual([]);
    const out = await agent.invoke(new Command({ resume: { decisions: [{ type: "reject" }], actor: "bob" } }), thread(id));
    expect(supersededAnswer(out)).toMatchObject({ yours: { c1: "reject" }, actor: "bob", late: true });
    expect((await audit.query()).filter((r) => r.event === "human").map((r) => [r.decision, r.actor])).toEqual([["approve", "alice"], ["superseded", "bob"]]);
    expect(log.names()).toEqual(["kubectl_delete"]);
    expect(toolMessages(out.messages).map((m) => [m.tool_call_id, m.status])).toEqual([["c1", "success"]]);
    expect(out.messages.at(-1)?.content).toBe("done");
  });

  it("the late answer reaches the step that runs the approved calls: told it was superseded, the winner's decision runs once", async () => {
    const id = "late-execute";
    const log = new ExecutionLog();
    const audit = new MemoryAuditSink();
    const ledger = await openLedger(`memory:late-answer-${id}-${Math.random()}`);
    const guard = new Guard({ tools: k8sTools(log), permissions: prodProtected, audit, ledger });
    const model = fakeModel().respondWithTools([del("c1")]).respond(new AIMessage("done"));
    const checkpointer = new MemorySaver();
    // The winner's run stops right after its answer was applied in the review step, before its calls ran.
    const winner = buildGuardedGraph(guard, { model }).compile({ checkpointer, interruptAfter: ["review"] });
    await untilStopped(winner, { messages: [new HumanMessage("clean staging")] }, id);
    await winner.invoke(new Command({ resume: { decisions: [{ type: "approve" }], actor: "alice" } }), thread(id));
    const state = await winner.getState(thread(id));
    expect(state.next).toEqual(["execute"]);
    expect(state.tasks.flatMap((t) => t.interrupts)).toEqual([]);
    const late = buildGuardedGraph(guard, { model }).compile({ checkpointer });
    const { values, events } = await lateAnswer(late, id, { decisions: [{ type: "reject", message: "not now" }], actor: "bob" });
    expect(supersededAnswer(values)).toEqual({ messageId: expect.any(String), yours: { c1: "reject" }, actor: "bob", appliedAnswer: { actor: "alice", decisions: { c1: "approve" } }, late: true });
    // The winner's approve is what happened: the call ran once (in this run) and its result is the model's.
    expect(log.names()).toEqual(["kubectl_delete"]);
    const messages = (values as { messages: BaseMessage[] }).messages;
    expect(toolMessages(messages).map((m) => [m.tool_call_id, m.status])).toEqual([["c1", "success"]]);
    expect(messages.at(-1)?.content).toBe("done");
    expect((await audit.query()).filter((r) => r.event === "human").map((r) => [r.decision, r.actor])).toEqual([["approve", "alice"], ["superseded", "bob"]]);
    expect(events.filter((e) => e.decision === "superseded").map((e) => e.actor)).toEqual(["bob"]);
  });
});
