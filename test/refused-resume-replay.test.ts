import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Annotation, Command, END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { MemoryAuditSink } from "../src/audit/memory.js";
import type { ApprovalRequest } from "../src/guard/approval/payload.js";
import type { PermissionDecider } from "../src/guard/interfaces.js";
import { GuardAnnotation } from "../src/guard/state.js";
import { GuardedToolNode, guardedToolsRoute } from "../src/guard/tool-node.js";
import { guardMiddleware } from "../src/middleware/guard-middleware.js";
import { noRuleDecision } from "../src/policy/defaults.js";
import type { RiskLevel } from "../src/tools/types.js";
import { ExecutionLog, k8sTools } from "./helpers/guard-fixtures.js";

/**
 * Issue 12, Build 6: a refused resume leaves nothing that can be replayed. The attack: a resume is
 * refused because it does not fit the calls pending then (two approvals, one pending call); the
 * policy then changes so that it WOULD fit; the attacker replays the kept value with invoke(null),
 * with a resume keyed by a wrong interrupt id, and once more after a second interrupt in the same
 * thread. The refused value must never approve anything, at GuardedToolNode and guardMiddleware.
 */

const thread = (id: string) => ({ configurable: { thread_id: id } });
const interruptsOf = (out: unknown) => (out as { __interrupt__?: { id?: string; value: unknown }[] }).__interrupt__ ?? [];
const pendingIds = (out: unknown) => ((interruptsOf(out)[0]?.value as ApprovalRequest | undefined)?.actionRequests ?? []).map((a) => a.toolCallId);

/** While relaxed, deleting db is allowed; strict, every delete asks (high risk). */
function switchable() {
  const state = { strict: false };
  const permissions: PermissionDecider = {
    decide: (tool: string, args: unknown, declared?: RiskLevel) =>
      !state.strict && (args as { name?: string }).name === "db"
        ? { mode: "allow", ruleId: "test:relaxed", reason: "relaxed", risk: declared ?? "medium" }
        : noRuleDecision(tool, declared),
  };
  return { state, permissions };
}

/** Turn 1: delete web (asks) and db (allowed while relaxed); turn 2: delete cache (asks). */
const model = () =>
  fakeModel()
    .respondWithTools([
      { name: "kubectl_delete", args: { resource: "deploy", name: "web", namespace: "staging" }, id: "w" },
      { name: "kubectl_delete", args: { resource: "deploy", name: "db", namespace: "staging" }, id: "d" },
    ])
    .respondWithTools([{ name: "kubectl_delete", args: { resource: "deploy", name: "cache", namespace: "staging" }, id: "c" }])
    .respond(new AIMessage("done"));

/** Two unkeyed approvals: refused while one call is pending; they would fit two. */
const REFUSED = { decisions: [{ type: "approve" }, { type: "approve" }] };
const WRONG_ID = "0123456789abcdef0123456789abcdef";

interface Harness {
  invoke: (input: unknown) => Promise<unknown>;
  checkpointer: BaseCheckpointSaver;
  log: ExecutionLog;
  audit: MemoryAuditSink;
  state: { strict: boolean };
}

function toolNodeHarness(id: string): Harness {
  const log = new ExecutionLog();
  const audit = new MemoryAuditSink();
  const { state, permissions } = switchable();
  const m = model();
  const checkpointer = new MemorySaver();
  const State = Annotation.Root({ ...MessagesAnnotation.spec, ...GuardAnnotation.spec });
  const graph = new StateGraph(State)
    .addNode("agent", async (s) => ({ messages: [await m.invoke(s.messages)] }))
    .addNode("tools", new GuardedToolNode({ tools: k8sTools(log), permissions, audit }))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", (s) => ((s.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END), ["tools", END])
    .addConditionalEdges("tools", guardedToolsRoute("agent"), ["agent", END])
    .compile({ checkpointer });
  return { invoke: (input) => graph.invoke(input as never, thread(id)), checkpointer, log, audit, state };
}

function middlewareHarness(id: string): Harness {
  const log = new ExecutionLog();
  const audit = new MemoryAuditSink();
  const { state, permissions } = switchable();
  const checkpointer = new MemorySaver();
  const agent = createAgent({ model: model(), middleware: [guardMiddleware({ tools: k8sTools(log), permissions, audit })], checkpointer });
  return { invoke: (input) => agent.invoke(input as never, thread(id)), checkpointer, log, audit, state };
}

/** Every value the head checkpoint keeps as a pending resume write (LangGraph's `__resume__` channel). */
async function keptResumes(h: Harness, id: string): Promise<unknown[]> {
  const head = await h.checkpointer.getTuple(thread(id));
  return (head?.pendingWrites ?? []).filter(([, channel]) => channel === "__resume__").map(([, , value]) => value);
}

async function humanDecisions(h: Harness, id: string) {
  return (await h.audit.query({ threadId: id })).filter((r) => r.event === "human").map((r) => [r.toolCallId, r.decision]);
}

describe.each([
  ["GuardedToolNode", toolNodeHarness],
  ["guardMiddleware", middlewareHarness],
] as const)("a refused resume is never replayed (%s)", (_name, make) => {
  it("refuse, then invoke(null) after the policy changed so it would fit: nothing approved, nothing run", async () => {
    const id = `${_name}-null`;
    const h = make(id);
    expect(pendingIds(await h.invoke({ messages: [new HumanMessage("tidy")] }))).toEqual(["w"]);
    const refused = await h.invoke(new Command({ resume: REFUSED }));
    expect(pendingIds(refused)).toEqual(["w"]);
    expect((interruptsOf(refused)[0]?.value as ApprovalRequest).error).toMatch(/expected at most 1 decision\(s\), one per pending call in order \[w \(kubectl_delete\)\], got 2/);
    // Nothing of the refused value stays where a later step could read it.
    expect(await keptResumes(h, id)).not.toContainEqual(REFUSED);
    h.state.strict = true; // now both deletes ask: two approvals would fit
    const replayed = await h.invoke(null);
    expect(h.log.entries).toEqual([]);
    expect(pendingIds(replayed)).toEqual(["w", "d"]);
    expect(await humanDecisions(h, id)).toEqual([]);
  });

  it("refuse, then a resume keyed by a wrong interrupt id, then invoke(null): the refused value never answers", async () => {
    const id = `${_name}-wrong-id`;
    const h = make(id);
    await h.invoke({ messages: [new HumanMessage("tidy")] });
    await h.invoke(new Command({ resume: REFUSED }));
    h.state.strict = true;
    const keyed = await h.invoke(new Command({ resume: { [WRONG_ID]: { decisions: [{ type: "reject" }] } } }));
    expect(h.log.entries).toEqual([]);
    expect(pendingIds(keyed).length).toBeGreaterThan(0);
    const replayed = await h.invoke(null);
    expect(h.log.entries).toEqual([]);
    expect(pendingIds(replayed)).toEqual(["w", "d"]);
    expect(await humanDecisions(h, id)).toEqual([]);
    expect(await keptResumes(h, id)).not.toContainEqual(REFUSED);
  });

  it("two refusals in a row, then the right answer: only what the human approved (and the allowed call) runs", async () => {
    const id = `${_name}-twice`;
    const h = make(id);
    await h.invoke({ messages: [new HumanMessage("tidy")] });
    expect(pendingIds(await h.invoke(new Command({ resume: REFUSED })))).toEqual(["w"]);
    const second = await h.invoke(new Command({ resume: 0 }));
    expect(pendingIds(second)).toEqual(["w"]);
    expect((interruptsOf(second)[0]?.value as ApprovalRequest).error).toMatch(/invalid approval resume 0/);
    expect(await keptResumes(h, id)).toEqual([]);
    expect(h.log.entries).toEqual([]);
    await h.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }));
    expect(h.log.entries.map((e) => e.args.name).sort()).toEqual(["db", "web"]);
    expect(await humanDecisions(h, id)).toEqual([["w", "approve"]]);
  });

  it("a second interrupt in the same thread: neither invoke(null) nor a wrong id replays the refused value; real answers still work", async () => {
    const id = `${_name}-second`;
    const h = make(id);
    await h.invoke({ messages: [new HumanMessage("tidy")] });
    await h.invoke(new Command({ resume: REFUSED }));
    h.state.strict = true;
    // The real answer for the pending call(s): reject them all (the model goes on to turn 2).
    const pending = pendingIds(await h.invoke(null));
    const second = await h.invoke(new Command({ resume: { decisions: pending.map(() => ({ type: "reject", message: "no" })) } }));
    expect(pendingIds(second)).toEqual(["c"]);
    expect(h.log.entries).toEqual([]);
    // One approval would fit the single pending call; the refused value held two, and must not come back as anything.
    expect(pendingIds(await h.invoke(null))).toEqual(["c"]);
    expect(pendingIds(await h.invoke(new Command({ resume: { [WRONG_ID]: { decisions: [{ type: "approve" }] } } })))).toEqual(["c"]);
    expect(h.log.entries).toEqual([]);
    expect(await keptResumes(h, id)).not.toContainEqual(REFUSED);
    expect((await humanDecisions(h, id)).map(([call, decision]) => `${call}:${decision}`).sort()).toEqual(pending.map((call) => `${call}:reject`).sort());
    // A real approval of the pending call still runs it.
    await h.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }));
    expect(h.log.entries.map((e) => e.args.name)).toEqual(["cache"]);
  });
});
