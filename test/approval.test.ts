import { normalizeHitlResponseForServer } from "@langchain/langgraph-sdk/ui";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Annotation, Command, END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { MemoryAuditSink } from "../src/audit/memory.js";
import { createGuardedAgent } from "../src/guard/agent.js";
import { pendingApproval } from "../src/guard/approval/payload.js";
import { quote } from "../src/guard/approval/quote.js";
import { checkResume, matchDecisions } from "../src/guard/approval/resume.js";
import { screenRunInput } from "../src/guard/approval/screening.js";
import type { DecisionEvent } from "../src/guard/approval/events.js";
import type { ApprovalRequest } from "../src/guard/approval/payload.js";
import { GuardAnnotation } from "../src/guard/state.js";
import { GuardedToolNode, guardedToolsRoute } from "../src/guard/tool-node.js";
import { guardMiddleware } from "../src/middleware/guard-middleware.js";
import { ensureToolCallsHaveResponses, isAgentInboxInterruptSchema, shownAction, uiResume } from "./helpers/agent-chat-ui.js";
import { ExecutionLog, k8sTools, prodProtected } from "./helpers/guard-fixtures.js";

const thread = (id: string) => ({ configurable: { thread_id: id } });
const toolMessages = (messages: BaseMessage[]) => messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
const interruptsOf = (out: unknown) => (out as { __interrupt__?: { id?: string; value: unknown }[] }).__interrupt__ ?? [];

/** One turn: a staging delete that asks, a read that is allowed, a production delete that is denied. */
const mixedTurn = () =>
  fakeModel()
    .respondWithTools([
      { name: "kubectl_delete", args: { resource: "deploy", name: "web", namespace: "staging" }, id: "ask1" },
      { name: "kubectl_get", args: { resource: "pods", namespace: "staging" }, id: "ok1" },
      { name: "kubectl_delete", args: { resource: "ns", name: "prod", namespace: "production" }, id: "deny1" },
    ])
    .respond(new AIMessage("done"));

/** One turn with two calls that ask. */
const twoAsks = () =>
  fakeModel()
    .respondWithTools([
      { name: "kubectl_delete", args: { resource: "deploy", name: "web", namespace: "staging" }, id: "a1" },
      { name: "kubectl_delete", args: { resource: "deploy", name: "db", namespace: "staging" }, id: "a2" },
    ])
    .respond(new AIMessage("done"));

function agentGraph(model: ReturnType<typeof fakeModel>) {
  const log = new ExecutionLog();
  const audit = new MemoryAuditSink();
  const checkpointer = new MemorySaver();
  const graph = createGuardedAgent({ model, tools: k8sTools(log), permissions: prodProtected, checkpointer, audit });
  return { graph, log, audit, checkpointer };
}

async function paused(model: ReturnType<typeof fakeModel>, id: string) {
  const ctx = agentGraph(model);
  const first = await ctx.graph.invoke({ messages: [new HumanMessage("clean staging")] }, thread(id));
  const interrupts = interruptsOf(first);
  expect(interrupts).toHaveLength(1);
  return { ...ctx, first, request: interrupts[0]?.value as ApprovalRequest };
}

describe("approval payload: Agent Chat UI and humanInTheLoopMiddleware code both read it", () => {
  it("passes the UI's isAgentInboxInterruptSchema, from invoke's __interrupt__ and from the thread state", async () => {
    const { graph, first, request } = await paused(mixedTurn(), "ui-shape");
    expect(isAgentInboxInterruptSchema(interruptsOf(first))).toBe(true);
    const snapshot = await graph.getState(thread("ui-shape"));
    expect(isAgentInboxInterruptSchema(snapshot.tasks.flatMap((t) => t.interrupts))).toBe(true);
    // Both casings, same content; each action request carries its tool call id.
    expect(request.actionRequests.map((a) => [a.toolCallId, a.name])).toEqual([["ask1", "kubectl_delete"]]);
    expect(request.action_requests.map((a) => [a.tool_call_id, a.name, a.rule_id])).toEqual([["ask1", "kubectl_delete", "risk:high"]]);
    expect(request.action_requests[0]?.args).toEqual(request.actionRequests[0]?.args);
    expect(request.action_requests[0]?.description).toBe(request.actionRequests[0]?.description);
    expect(request.review_configs).toEqual([{ action_name: "kubectl_delete", allowed_decisions: ["approve", "edit", "reject"], args_schema: request.reviewConfigs[0]?.argsSchema }]);
    expect(request.review_configs[0]?.args_schema).toMatchObject({ type: "object" });
    expect(pendingApproval(snapshot)).toEqual(request);
  });

  it("the helper is not a rubber stamp: LangChain's camelCase-only payload fails the UI's check", () => {
    const camelOnly = [{ value: { actionRequests: [{ name: "x", args: {} }], reviewConfigs: [{ actionName: "x", allowedDecisions: ["approve"] }] } }];
    expect(isAgentInboxInterruptSchema(camelOnly)).toBe(false);
    const noActionName = [{ value: { action_requests: [{ name: "x", args: {} }], review_configs: [{ allowed_decisions: ["approve"] }] } }];
    expect(isAgentInboxInterruptSchema(noActionName)).toBe(false);
    expect(isAgentInboxInterruptSchema([{ value: { action_requests: [{ name: "x", args: null }], review_configs: [{ action_name: "x", allowed_decisions: [] }] } }])).toBe(false);
  });

  it("answers as the UI sends them: approve, edit as edited_action (re-reviewed), reject with a message", async () => {
    const approve = await paused(mixedTurn(), "ui-approve");
    await approve.graph.invoke(new Command({ resume: uiResume(approve.request, { type: "approve" }) }), thread("ui-approve"));
    expect(approve.log.names().sort()).toEqual(["kubectl_delete", "kubectl_get"]);

    const edit = await paused(mixedTurn(), "ui-edit");
    const editArgs = { resource: "deploy", name: "web-canary", namespace: "staging" };
    const sent = uiResume(edit.request, { type: "edit", args: editArgs });
    expect(sent).toEqual({ decisions: [{ type: "edit", edited_action: { name: "kubectl_delete", args: editArgs } }] });
    await edit.graph.invoke(new Command({ resume: sent }), thread("ui-edit"));
    expect(edit.log.entries.find((e) => e.tool === "kubectl_delete")?.args.name).toBe("web-canary");
    const human = (await edit.audit.query({ threadId: "ui-edit" })).filter((r) => r.event === "human");
    expect(human.map((r) => [r.toolCallId, r.decision, r.detail?.result])).toEqual([["ask1", "edit", "approved"]]);

    const editDenied = await paused(mixedTurn(), "ui-edit-denied");
    const denied = uiResume(editDenied.request, { type: "edit", args: { resource: "deploy", name: "web", namespace: "production" } });
    const out = await editDenied.graph.invoke(new Command({ resume: denied }), thread("ui-edit-denied"));
    expect(editDenied.log.names()).toEqual(["kubectl_get"]);
    expect(toolMessages(out.messages).find((m) => m.tool_call_id === "ask1")?.content).toBe(
      "The reviewer's edit of this call was checked again and refused. Refused kubectl_delete by rule permission:prod-protected: production namespace is protected.",
    );

    const reject = await paused(mixedTurn(), "ui-reject");
    const rejected = await reject.graph.invoke(new Command({ resume: uiResume(reject.request, { type: "reject", message: "not today" }) }), thread("ui-reject"));
    expect(reject.log.names()).toEqual(["kubectl_get"]);
    expect(toolMessages(rejected.messages).find((m) => m.tool_call_id === "ask1")?.content).toBe(
      "Refused kubectl_delete by a human reviewer: not today. Do not retry this call unchanged.",
    );
  });

  it("accepts snake_case decision keys: tool_call_id and edited_action", async () => {
    const { graph, log } = await paused(twoAsks(), "snake-keys");
    await graph.invoke(
      new Command({
        resume: {
          decisions: [
            { type: "reject", tool_call_id: "a1", message: "no" },
            { type: "edit", tool_call_id: "a2", edited_action: { name: "kubectl_delete", args: { resource: "deploy", name: "db-old", namespace: "staging" } } },
          ],
        },
      }),
      thread("snake-keys"),
    );
    expect(log.entries.map((e) => e.args.name)).toEqual(["db-old"]);
  });
});

describe("strict decisions: nothing is silently dropped", () => {
  const pending = [
    { id: "a1", name: "kubectl_delete" },
    { id: "a2", name: "kubectl_delete" },
  ];
  const all = ["approve", "edit", "reject"] as const;
  const action = { name: "kubectl_delete", args: { resource: "x", name: "y" } };

  it.each([
    ["approve carrying an edit", { decisions: [{ type: "approve", editedAction: action }, { type: "approve" }] }, /Unrecognized key.*editedAction/],
    ["approve carrying a snake edit", { decisions: [{ type: "approve", edited_action: action }, { type: "approve" }] }, /Unrecognized key.*edited_action/],
    ["reject carrying an edit", { decisions: [{ type: "reject", editedAction: action }, { type: "approve" }] }, /Unrecognized key.*editedAction/],
    ["edit casings that disagree", { decisions: [{ type: "edit", editedAction: action, edited_action: { ...action, args: { resource: "x", name: "z" } } }, { type: "approve" }] }, /editedAction and edited_action disagree/],
    ["id casings that disagree", { decisions: [{ type: "approve", toolCallId: "a1", tool_call_id: "a2" }, { type: "approve", toolCallId: "a2" }] }, /toolCallId and tool_call_id disagree/],
    ["edit without an action", { decisions: [{ type: "edit" }, { type: "approve" }] }, /an edit needs editedAction/],
    ["unknown decision field", { decisions: [{ type: "approve", force: true }, { type: "approve" }] }, /Unrecognized key.*force/],
    ["unknown top-level field", { decisions: [{ type: "approve" }, { type: "approve" }], approveAll: true }, /Unrecognized key.*approveAll/],
    ["unknown field in the edited action", { decisions: [{ type: "edit", editedAction: { ...action, id: "x" } }, { type: "approve" }] }, /Unrecognized key/],
    ["message not a string", { decisions: [{ type: "reject", message: 5 }, { type: "approve" }] }, /message/],
    ["false", false, /invalid approval resume false/],
    ["zero", 0, /invalid approval resume 0/],
    ["empty string", "", /invalid approval resume ""/],
    ["null", null, /invalid approval resume null/],
    ["empty decisions", { decisions: [] }, /no decisions given/],
    ["too few without partial answers", { decisions: [{ type: "approve" }] }, /expected 2 decision\(s\), one per pending call in order \[a1 \(kubectl_delete\), a2 \(kubectl_delete\)\], got 1/],
    ["a keyed call missing without partial answers", { decisions: { a1: { type: "approve" } } }, /no decision for pending call\(s\) a2; every pending call needs one/],
    ["empty id", { decisions: { "": { type: "approve" } } }, /invalid approval resume/],
  ])("refuses %s", (_label, value, message) => {
    expect(() => checkResume(pending, value, all)).toThrow(message);
  });

  it("accepts a resume as the LangGraph SDK's normalizeHitlResponseForServer sends it: both casings, one value", () => {
    const edit = { type: "edit", toolCallId: "a1", editedAction: action };
    const sent = normalizeHitlResponseForServer({ decisions: [edit, { type: "approve", toolCallId: "a2", tool_call_id: "a2" }] });
    expect((sent as { decisions: Record<string, unknown>[] }).decisions[0]).toHaveProperty("edited_action", action);
    const resume = checkResume(pending, sent, all);
    const match = matchDecisions(pending, resume, all);
    expect(match.ok).toBe(true);
    if (!match.ok) return;
    expect(match.decisions.get("a1")).toEqual({ type: "edit", toolCallId: "a1", editedAction: action });
    expect(match.decisions.get("a2")).toEqual({ type: "approve", toolCallId: "a2" });
  });

  it("quotes at most ~200 characters of the input, whatever its size", () => {
    const huge = "x".repeat(10 * 1024 * 1024);
    for (const value of [
      { decisions: [{ type: "approve", note: huge }, { type: "approve" }] },
      { decisions: [{ type: "reject", message: 1 }, { type: "approve" }], [huge]: 1 },
      { decisions: { [huge]: { type: "approve" } } },
      { decisions: [{ type: huge }, { type: "approve" }] },
      huge,
    ]) {
      let message = "";
      try {
        checkResume(pending, value, all);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/^invalid approval resume/);
      expect(message.length).toBeLessThan(700);
      expect(message.match(/x+/g)?.reduce((n, run) => Math.max(n, run.length), 0) ?? 0).toBeLessThanOrEqual(200);
    }
  });

  it("quote() is bounded and safe on cycles, BigInt and deep values", () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(quote(cyclic)).toBe('{"a":1,"self":[circular]}');
    expect(quote({ n: 10n, f: () => 1, u: undefined })).toBe('{"n":10n,"f":[function],"u":undefined}');
    let deep: unknown = 0;
    for (let i = 0; i < 10_000; i += 1) deep = [deep];
    expect(quote(deep).length).toBeLessThanOrEqual(201);
    expect(quote("y".repeat(5000))).toHaveLength(201);
  });

  it("a decision type the reviewer may not take is refused, naming what is allowed", () => {
    expect(() => checkResume(pending, { decisions: [{ type: "edit", editedAction: action }, { type: "approve" }] }, ["approve", "reject"])).toThrow(
      'invalid approval resume: decision "edit" is not allowed for a1; allowed: approve, reject',
    );
  });
});

describe("a resume that does not fit asks again (createGuardedAgent)", () => {
  it.each([
    ["approve carrying an edit", { decisions: [{ type: "approve", editedAction: { name: "kubectl_delete", args: {} } }, { type: "approve" }] }, /Unrecognized key/],
    ["too many", { decisions: [{ type: "approve" }, { type: "approve" }, { type: "approve" }] }, /expected at most 2 decision/],
    ["unknown id", { decisions: { a1: { type: "approve" }, zz: { type: "approve" } } }, /unknown tool call id "zz"/],
    ["false", false, /invalid approval resume false/],
    ["zero", 0, /invalid approval resume 0/],
    ["empty string", "", /invalid approval resume ""/],
  ])("%s: the thread stays interrupted, the new interrupt carries the error, nothing ran", async (label, resume, message) => {
    const id = `reask-${label.replace(/ /g, "-")}`;
    const { graph, log, audit } = await paused(twoAsks(), id);
    const before = await graph.getState(thread(id));
    const out = await graph.invoke(new Command({ resume }), thread(id));
    const again = interruptsOf(out);
    expect(again).toHaveLength(1);
    const request = again[0]?.value as ApprovalRequest;
    expect(request.error).toMatch(message);
    expect(request.action_requests[0]?.description).toMatch(/^Your last answer was refused and nothing was done: invalid approval resume/);
    expect(isAgentInboxInterruptSchema(again)).toBe(true);
    const after = await graph.getState(thread(id));
    expect(after.next).toEqual(["review"]);
    expect(after.tasks.flatMap((t) => t.interrupts)).toHaveLength(1);
    expect(after.values.messages).toHaveLength(before.values.messages.length);
    expect(log.entries).toHaveLength(0);
    expect((await audit.query({ threadId: id })).filter((r) => r.event === "human")).toHaveLength(0);
    // The next right answer goes through.
    const done = await graph.invoke(new Command({ resume: { decisions: [{ type: "approve" }, { type: "reject", message: "keep db" }] } }), thread(id));
    expect(log.entries.map((e) => e.args.name)).toEqual(["web"]);
    expect(done.messages.at(-1)?.content).toBe("done");
    expect(pendingApproval(await graph.getState(thread(id)))).toBeUndefined();
  });

  it("a refused resume leaves nothing in the head checkpoint that a later resume could replay", async () => {
    const id = "no-replay";
    const { graph, log, checkpointer } = await paused(twoAsks(), id);
    // Two approvals for two pending calls would be fine; three are refused.
    await graph.invoke(new Command({ resume: { decisions: [{ type: "approve" }, { type: "approve" }, { type: "approve" }] } }), thread(id));
    const head = await checkpointer.getTuple(thread(id));
    const resumeWrites = (head?.pendingWrites ?? []).filter(([, channel]) => channel === "__resume__");
    expect(resumeWrites).toEqual([]);
    // A resume keyed by an interrupt id that is not pending: asked again, nothing replayed or run.
    const wrongId = "0123456789abcdef0123456789abcdef";
    const out = await graph.invoke(new Command({ resume: { [wrongId]: { decisions: [{ type: "approve" }, { type: "approve" }] } } }), thread(id));
    expect(interruptsOf(out)).toHaveLength(1);
    expect(log.entries).toHaveLength(0);
    // invoke(null) resumes the interrupted step without an answer: asked again, nothing run.
    const resumed = await graph.invoke(null, thread(id));
    expect(interruptsOf(resumed)).toHaveLength(1);
    expect(log.entries).toHaveLength(0);
    // The pending interrupt's own id still answers it.
    const pendingId = interruptsOf(resumed)[0]?.id ?? "";
    await graph.invoke(new Command({ resume: { [pendingId]: { decisions: [{ type: "approve" }, { type: "approve" }] } } }), thread(id));
    expect(log.entries.map((e) => e.args.name)).toEqual(["web", "db"]);
  });

  it("null is refused by LangGraph itself before the graph runs; the approval stays pending", async () => {
    const { graph, log } = await paused(twoAsks(), "null-resume");
    await expect(graph.invoke(new Command({ resume: null }), thread("null-resume"))).rejects.toThrow(/empty Command input/);
    expect(pendingApproval(await graph.getState(thread("null-resume")))).toBeDefined();
    expect(log.entries).toHaveLength(0);
  });
});

describe("a resume that does not fit asks again (GuardedToolNode and guardMiddleware)", () => {
  it("GuardedToolNode: the interrupt is raised again with the error, in a new step; the right answer then runs", async () => {
    const log = new ExecutionLog();
    const model = twoAsks();
    const State = Annotation.Root({ ...MessagesAnnotation.spec, ...GuardAnnotation.spec });
    const graph = new StateGraph(State)
      .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
      .addNode("tools", new GuardedToolNode({ tools: k8sTools(log), permissions: prodProtected }))
      .addEdge(START, "agent")
      .addConditionalEdges("agent", (s) => ((s.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END), ["tools", END])
      .addConditionalEdges("tools", guardedToolsRoute("agent"), ["agent", END])
      .compile({ checkpointer: new MemorySaver() });
    const first = await graph.invoke({ messages: [new HumanMessage("x")] }, thread("node-reask"));
    const firstId = interruptsOf(first)[0]?.id;
    const out = await graph.invoke(new Command({ resume: { decisions: [{ type: "approve", editedAction: { name: "kubectl_delete", args: {} } }] } }), thread("node-reask"));
    const again = interruptsOf(out);
    expect(again).toHaveLength(1);
    // The node ended its step and came back to itself (nothing decided), so the interrupt is a new
    // task's: a new id, and the refused value is gone with the step (test/refused-resume-replay.test.ts).
    expect(again[0]?.id).not.toBe(firstId);
    expect((again[0]?.value as ApprovalRequest).error).toMatch(/Unrecognized key/);
    expect((await graph.getState(thread("node-reask"))).next).toEqual(["tools"]);
    expect(log.entries).toHaveLength(0);
    await graph.invoke(new Command({ resume: { decisions: [{ type: "approve" }, { type: "approve" }] } }), thread("node-reask"));
    expect(log.entries.map((e) => e.args.name)).toEqual(["web", "db"]);
  });

  it("guardMiddleware: the same interrupt is raised again with the error; the right answer then runs", async () => {
    const log = new ExecutionLog();
    const agent = createAgent({
      model: twoAsks(),
      middleware: [guardMiddleware({ tools: k8sTools(log), permissions: prodProtected })],
      checkpointer: new MemorySaver(),
    });
    await agent.invoke({ messages: [new HumanMessage("x")] }, thread("mw-reask"));
    const out = await agent.invoke(new Command({ resume: 0 }), thread("mw-reask"));
    expect((interruptsOf(out)[0]?.value as ApprovalRequest).error).toMatch(/invalid approval resume 0/);
    expect(log.entries).toHaveLength(0);
    await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }, { type: "approve" }] } }), thread("mw-reask"));
    expect(log.entries.map((e) => e.args.name)).toEqual(["web", "db"]);
  });
});

describe("decision events in the custom stream", () => {
  it("a denied sibling and an allowed one show BEFORE the interrupt; the human decision after the resume", async () => {
    const { graph } = agentGraph(mixedTurn());
    const seen: { kind: string; event?: DecisionEvent }[] = [];
    for await (const [mode, chunk] of await graph.stream({ messages: [new HumanMessage("clean staging")] }, {
      ...thread("events"),
      streamMode: ["custom", "updates"],
    })) {
      if (mode === "custom") seen.push({ kind: "custom", event: chunk as DecisionEvent });
      else if (mode === "updates" && "__interrupt__" in (chunk as object)) seen.push({ kind: "interrupt" });
    }
    expect(seen.map((s) => (s.kind === "custom" ? `${s.event?.source}:${s.event?.toolCallId}:${s.event?.decision}` : "interrupt"))).toEqual([
      "review:ask1:ask",
      "review:ok1:allow",
      "review:deny1:deny",
      "interrupt",
    ]);
    expect(seen[2]?.event).toMatchObject({
      type: "guarded-graph/decision",
      tool: "kubectl_delete",
      ruleId: "permission:prod-protected",
      threadId: "events",
    });
    const custom: DecisionEvent[] = [];
    for await (const chunk of await graph.stream(new Command({ resume: { decisions: [{ type: "approve" }], actor: "alice" } }), {
      ...thread("events"),
      streamMode: "custom",
    })) {
      custom.push(chunk as DecisionEvent);
    }
    const human = custom.filter((e) => e.source === "human");
    expect(human.map((e) => [e.toolCallId, e.decision, e.actor])).toEqual([["ask1", "approve", "alice"]]);
    // Events re-emitted when review re-runs on resume carry the ids they had: a consumer dedupes by id.
    const firstIds = new Set(seen.flatMap((s) => (s.event ? [s.event.id] : [])));
    expect(custom.filter((e) => e.source === "review").every((e) => firstIds.has(e.id))).toBe(true);
  });

  it("the middleware writes the same events", async () => {
    const log = new ExecutionLog();
    const agent = createAgent({
      model: mixedTurn(),
      middleware: [guardMiddleware({ tools: k8sTools(log), permissions: prodProtected })],
      checkpointer: new MemorySaver(),
    });
    const events: DecisionEvent[] = [];
    for await (const chunk of await agent.stream({ messages: [new HumanMessage("x")] }, { ...thread("mw-events"), streamMode: "custom" })) {
      events.push(chunk as DecisionEvent);
    }
    expect(events.map((e) => `${e.toolCallId}:${e.decision}`)).toEqual(["ask1:ask", "ok1:allow", "deny1:deny"]);
  });
});

describe("approver identity", () => {
  it("on LangGraph Platform the approver is langgraph_auth_user; the client's actor is only a claim", async () => {
    const { graph, audit } = await paused(mixedTurn(), "identity");
    await graph.invoke(new Command({ resume: { decisions: [{ type: "approve" }], actor: "mallory" } }), {
      configurable: { thread_id: "identity", langgraph_auth_user: { identity: "bob@example.com", is_authenticated: true, permissions: [] } },
    });
    const human = (await audit.query({ threadId: "identity" })).filter((r) => r.event === "human");
    expect(human).toHaveLength(1);
    expect(human[0]?.actor).toBe("bob@example.com");
    expect(human[0]?.detail).toMatchObject({ actorSource: "langgraph_auth_user", claimedActor: "mallory" });
  });

  it("without a platform user the client's actor is recorded, marked as a claim", async () => {
    const { graph, audit } = await paused(mixedTurn(), "claim");
    await graph.invoke(new Command({ resume: { decisions: [{ type: "approve" }], actor: "alice" } }), thread("claim"));
    const human = (await audit.query({ threadId: "claim" })).filter((r) => r.event === "human");
    expect(human[0]?.actor).toBe("alice");
    expect(human[0]?.detail).toMatchObject({ actorSource: "claim", claimedActor: "alice" });
  });

  it("an unauthenticated platform user is not taken as the approver", async () => {
    const { graph, audit } = await paused(mixedTurn(), "anon");
    await graph.invoke(new Command({ resume: { decisions: [{ type: "approve" }], actor: "alice" } }), {
      configurable: { thread_id: "anon", langgraph_auth_user: { identity: "anonymous", is_authenticated: false } },
    });
    const human = (await audit.query({ threadId: "anon" })).filter((r) => r.event === "human");
    expect(human[0]?.actor).toBe("alice");
    expect(human[0]?.detail).toMatchObject({ actorSource: "claim" });
  });
});

describe("what the UI shows", () => {
  it("shows the first pending call and its own review config", async () => {
    const { request } = await paused(twoAsks(), "ui-first");
    expect(shownAction(request)?.request.name).toBe("kubectl_delete");
    expect(shownAction(request)?.allowed).toEqual(["approve", "edit", "reject"]);
  });
});

describe("partial answers (createGuardedAgent)", () => {
  it("Agent Chat UI answers the one call it shows: that call runs, the other is asked again, the model is not called in between", async () => {
    const model = twoAsks();
    const { graph, log, audit } = agentGraph(model);
    const first = await graph.invoke({ messages: [new HumanMessage("clean staging")] }, thread("partial-ui"));
    const request = interruptsOf(first)[0]?.value as ApprovalRequest;
    expect(shownAction(request)?.request.name).toBe("kubectl_delete");
    const second = await graph.invoke(new Command({ resume: uiResume(request, { type: "approve" }) }), thread("partial-ui"));
    expect(log.entries.map((e) => e.args.name)).toEqual(["web"]);
    const next = interruptsOf(second);
    expect(next).toHaveLength(1);
    const nextRequest = next[0]?.value as ApprovalRequest;
    expect(nextRequest.action_requests.map((a) => a.tool_call_id)).toEqual(["a2"]);
    expect(nextRequest.error).toBeUndefined();
    expect(isAgentInboxInterruptSchema(next)).toBe(true);
    expect(model.calls).toHaveLength(1);
    // The answered call has its result; the open one has none yet.
    const state = await graph.getState(thread("partial-ui"));
    expect(toolMessages(state.values.messages).map((m) => m.tool_call_id)).toEqual(["a1"]);
    const done = await graph.invoke(new Command({ resume: uiResume(nextRequest, { type: "reject", message: "keep db" }) }), thread("partial-ui"));
    expect(log.entries.map((e) => e.args.name)).toEqual(["web"]);
    expect(done.messages.at(-1)?.content).toBe("done");
    expect(model.calls).toHaveLength(2);
    expect(toolMessages(model.calls[1]?.messages ?? []).map((m) => m.tool_call_id).sort()).toEqual(["a1", "a2"]);
    const human = (await audit.query({ threadId: "partial-ui" })).filter((r) => r.event === "human");
    expect(human.map((r) => [r.toolCallId, r.decision])).toEqual([
      ["a1", "approve"],
      ["a2", "reject"],
    ]);
  });

  it("keyed: answering the second call first leaves the first pending", async () => {
    const { graph, log } = await paused(twoAsks(), "partial-keyed");
    const out = await graph.invoke(new Command({ resume: { decisions: { a2: { type: "approve" } } } }), thread("partial-keyed"));
    expect(log.entries.map((e) => e.args.name)).toEqual(["db"]);
    expect((interruptsOf(out)[0]?.value as ApprovalRequest).actionRequests.map((a) => a.toolCallId)).toEqual(["a1"]);
  });

  it("the middleware takes a partial answer too: the answered call runs, the other is asked again (all three entry points: test/partial-answers.test.ts)", async () => {
    const log = new ExecutionLog();
    const agent = createAgent({
      model: twoAsks(),
      middleware: [guardMiddleware({ tools: k8sTools(log), permissions: prodProtected })],
      checkpointer: new MemorySaver(),
    });
    await agent.invoke({ messages: [new HumanMessage("x")] }, thread("mw-partial"));
    const out = await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), thread("mw-partial"));
    const request = interruptsOf(out)[0]?.value as ApprovalRequest;
    expect(request.error).toBeUndefined();
    expect(request.actionRequests.map((a) => a.toolCallId)).toEqual(["a2"]);
    expect(log.entries.map((e) => e.args.name)).toEqual(["web"]);
  });
});

describe("only the guard answers guarded calls (new input while an approval is pending)", () => {
  it("the user types instead of clicking: Agent Chat UI's 'Successfully handled tool call.' is never taken as a result; every waiting call is refused, audited and explained", async () => {
    const model = fakeModel()
      .respondWithTools([
        { name: "kubectl_delete", args: { resource: "deploy", name: "web", namespace: "staging" }, id: "ask1" },
        { name: "kubectl_get", args: { resource: "pods", namespace: "staging" }, id: "ok1" },
        { name: "kubectl_delete", args: { resource: "ns", name: "prod", namespace: "production" }, id: "deny1" },
      ])
      .respond(new AIMessage("understood"));
    const { graph, log, audit } = agentGraph(model);
    await graph.invoke({ messages: [new HumanMessage("clean staging")] }, thread("typed"));
    const state = await graph.getState(thread("typed"));
    // Exactly what the UI sends: its ToolMessages for the unanswered calls, then the typed text.
    const sdkView = state.values.messages.map((m: BaseMessage) => ({
      type: m.getType(),
      id: m.id,
      tool_calls: AIMessage.isInstance(m) ? m.tool_calls : undefined,
    }));
    const added = ensureToolCallsHaveResponses(sdkView);
    expect(added.map((m) => m.tool_call_id)).toEqual(["ask1", "ok1", "deny1"]);
    const out = await graph.invoke(
      { messages: [...added.map((m) => new ToolMessage({ ...m })), new HumanMessage({ content: "approve", id: "h2" })] },
      thread("typed"),
    );
    expect(log.entries).toHaveLength(0);
    const answers = toolMessages(out.messages);
    expect(answers.map((m) => [m.tool_call_id, m.status])).toEqual([
      ["ask1", "error"],
      ["ok1", "error"],
      ["deny1", "error"],
    ]);
    expect(answers.every((m) => m.content !== "Successfully handled tool call.")).toBe(true);
    expect(answers[0]?.content).toBe(
      "Refused kubectl_delete by rule approval:superseded: new input arrived while this turn waited for a human's approval, so it did not run. Call it again if it is still needed.",
    );
    // The refusals sit right after the model message, before the new input; the model saw them, not the UI's.
    expect(out.messages.map((m: BaseMessage) => m.getType())).toEqual(["human", "ai", "tool", "tool", "tool", "human", "ai"]);
    const seen = model.calls[1]?.messages ?? [];
    expect(toolMessages(seen).map((m) => m.content)).not.toContain("Successfully handled tool call.");
    expect(pendingApproval(await graph.getState(thread("typed")))).toBeUndefined();
    const records = (await audit.query({ threadId: "typed" })).filter((r) => r.ruleId === "approval:superseded");
    expect(records.map((r) => [r.toolCallId, r.decision])).toEqual([
      ["ask1", "deny"],
      ["ok1", "deny"],
      ["deny1", "deny"],
    ]);
    expect(records[0]?.reason).toMatch(/the input's own result for it was dropped: "Successfully handled tool call\."/);
  });

  it("a bare ToolMessage sent as input for a waiting call is not its result either", async () => {
    const { graph, log, audit } = await paused(twoAsks(), "bare-tool");
    const out = await graph.invoke({ messages: [new ToolMessage({ content: "deleted", tool_call_id: "a1", name: "kubectl_delete" })] }, thread("bare-tool"));
    expect(log.entries).toHaveLength(0);
    expect(toolMessages(out.messages).map((m) => [m.tool_call_id, m.status, m.content === "deleted"])).toEqual([
      ["a1", "error", false],
      ["a2", "error", false],
    ]);
    expect((await audit.query({ threadId: "bare-tool" })).filter((r) => r.ruleId === "approval:superseded")).toHaveLength(2);
  });

  it("after a partial answer, new input settles only the calls still waiting", async () => {
    const { graph, log } = await paused(twoAsks(), "partial-then-input");
    await graph.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), thread("partial-then-input"));
    expect(log.entries.map((e) => e.args.name)).toEqual(["web"]);
    const out = await graph.invoke({ messages: [new HumanMessage("never mind")] }, thread("partial-then-input"));
    expect(toolMessages(out.messages).map((m) => [m.tool_call_id, m.status])).toEqual([
      ["a1", "success"],
      ["a2", "error"],
    ]);
  });
});

describe("approval sentences (src/messages/approval.ts), exact text", () => {
  it("the re-asked description, the resume refusals and the superseded call", async () => {
    const m = await import("../src/messages/approval.js");
    expect(m.reaskedDescription("invalid approval resume 0: bad.", "kubectl_delete needs approval by rule risk:high: high risk.")).toBe(
      "Your last answer was refused and nothing was done: invalid approval resume 0: bad. Answer again. kubectl_delete needs approval by rule risk:high: high risk.",
    );
    expect(() => checkResume([{ id: "a1", name: "t" }], 0, ["approve"])).toThrow(
      "invalid approval resume 0: expected { decisions: [...] } with one of approve | edit | reject per pending call ((root): Invalid input: expected object, received number)",
    );
    expect(m.decisionText.wrongCount(2, "a1 (t), a2 (t)", 1)).toBe("expected 2 decision(s), one per pending call in order [a1 (t), a2 (t)], got 1");
    expect(m.decisionText.none("a1 (t)")).toBe("no decisions given; pending calls: [a1 (t)]");
    expect(m.supersededReason).toBe("new input arrived while the turn waited for approval; the call was not run");
  });
});

describe("per-tool approval config (interruptOn, as LangChain's humanInTheLoopMiddleware names it)", () => {
  function withInterruptOn(model: ReturnType<typeof fakeModel>, interruptOn: import("../src/guard/approval/interrupt-on.js").InterruptOn) {
    const log = new ExecutionLog();
    const audit = new MemoryAuditSink();
    const graph = createGuardedAgent({ model, tools: k8sTools(log), permissions: prodProtected, checkpointer: new MemorySaver(), audit, interruptOn });
    return { graph, log, audit };
  }

  it("true: calls the policy allows ask too; the rule names interruptOn; audited as ask", async () => {
    const { graph, log, audit } = withInterruptOn(mixedTurn(), { kubectl_get: true });
    const out = await graph.invoke({ messages: [new HumanMessage("x")] }, thread("io-true"));
    const request = interruptsOf(out)[0]?.value as ApprovalRequest;
    expect(request.actionRequests.map((a) => [a.toolCallId, a.ruleId])).toEqual([
      ["ask1", "risk:high"],
      ["ok1", "interruptOn:kubectl_get"],
    ]);
    expect(request.actionRequests[1]?.reason).toBe("every call of this tool is put to a reviewer");
    expect(request.actionRequests[1]?.description).toBe("kubectl_get needs approval by rule interruptOn:kubectl_get: every call of this tool is put to a reviewer (low risk).");
    expect(log.entries).toHaveLength(0);
    const decisions = (await audit.query({ threadId: "io-true" })).filter((r) => r.event === "decision");
    expect(decisions.map((r) => [r.toolCallId, r.decision])).toEqual([
      ["ask1", "ask"],
      ["ok1", "ask"],
      ["deny1", "deny"],
    ]);
  });

  it("allowedDecisions, description (string or function of call, state, runtime) and argsSchema per tool, in both casings", async () => {
    const seen: unknown[] = [];
    const { graph } = withInterruptOn(twoAsks(), {
      kubectl_delete: {
        allowedDecisions: ["approve", "reject"],
        description: (toolCall, state, runtime) => {
          seen.push([toolCall.id, state.messages.length, runtime.configurable?.thread_id]);
          return `Delete ${String(toolCall.args.name)}?`;
        },
        argsSchema: { type: "object", properties: { name: { type: "string" } } },
      },
    });
    const out = await graph.invoke({ messages: [new HumanMessage("x")] }, thread("io-config"));
    const request = interruptsOf(out)[0]?.value as ApprovalRequest;
    expect(request.actionRequests.map((a) => a.description)).toEqual(["Delete web?", "Delete db?"]);
    expect(request.action_requests.map((a) => a.description)).toEqual(["Delete web?", "Delete db?"]);
    expect(request.review_configs[0]).toEqual({
      action_name: "kubectl_delete",
      allowed_decisions: ["approve", "reject"],
      args_schema: { type: "object", properties: { name: { type: "string" } } },
    });
    expect(request.reviewConfigs[0]?.allowedDecisions).toEqual(["approve", "reject"]);
    expect(seen).toContainEqual(["a1", 2, "io-config"]);
    // An edit is not among this tool's decisions: refused and asked again.
    const again = await graph.invoke(
      new Command({ resume: { decisions: [{ type: "edit", editedAction: { name: "kubectl_delete", args: { resource: "deploy", name: "x", namespace: "staging" } } }, { type: "approve" }] } }),
      thread("io-config"),
    );
    expect((interruptsOf(again)[0]?.value as ApprovalRequest).error).toMatch(/decision "edit" is not allowed for a1; allowed: approve, reject/);
  });

  it("when(request) sees the call id, state and runtime; false leaves an allowed call allowed", async () => {
    const requests: unknown[] = [];
    const { graph, log } = withInterruptOn(mixedTurn(), {
      kubectl_get: {
        when: (request) => {
          requests.push([request.toolCall.id, request.tool, request.state.messages.length, request.runtime.configurable?.thread_id]);
          return request.toolCall.args.namespace === "production";
        },
      },
    });
    const out = await graph.invoke({ messages: [new HumanMessage("x")] }, thread("io-when"));
    expect((interruptsOf(out)[0]?.value as ApprovalRequest).actionRequests.map((a) => a.toolCallId)).toEqual(["ask1"]);
    expect(requests).toContainEqual(["ok1", undefined, 2, "io-when"]);
    await graph.invoke(new Command({ resume: { decisions: [{ type: "reject", message: "no" }] } }), thread("io-when"));
    expect(log.names()).toEqual(["kubectl_get"]);
  });

  it("never weakens the policy: false, or a when() that says no, leaves a policy ask asking and a deny denied", async () => {
    const { graph, log } = withInterruptOn(mixedTurn(), { kubectl_delete: false, kubectl_get: { when: () => false } });
    const out = await graph.invoke({ messages: [new HumanMessage("x")] }, thread("io-never"));
    expect((interruptsOf(out)[0]?.value as ApprovalRequest).actionRequests.map((a) => [a.toolCallId, a.ruleId])).toEqual([["ask1", "risk:high"]]);
    const done = await graph.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), thread("io-never"));
    expect(toolMessages(done.messages).find((m) => m.tool_call_id === "deny1")?.status).toBe("error");
    expect(log.entries.map((e) => e.args.namespace)).not.toContain("production");
    const deniedEverywhere = withInterruptOn(mixedTurn(), { kubectl_delete: { when: () => true, allowedDecisions: ["approve"] } });
    const first = await deniedEverywhere.graph.invoke({ messages: [new HumanMessage("x")] }, thread("io-deny"));
    expect((interruptsOf(first)[0]?.value as ApprovalRequest).actionRequests.map((a) => a.toolCallId)).toEqual(["ask1"]);
  });
});

describe("a refused resume kept by LangGraph is never taken later (GuardedToolNode)", () => {
  it("after the policy changes, a resume keyed by a wrong interrupt id does not replay the refused value", async () => {
    const log = new ExecutionLog();
    const model = twoAsks();
    let strict = true;
    // While strict, both deletes ask; afterwards only "web" asks (db is allowed).
    const permissions = {
      decide: (tool: string, args: unknown, risk: import("../src/tools/types.js").RiskLevel = "medium") =>
        !strict && (args as { name?: string }).name === "db"
          ? { mode: "allow" as const, ruleId: "test:relaxed", reason: "relaxed", risk }
          : prodProtected.decide(tool, args, risk),
    };
    const State = Annotation.Root({ ...MessagesAnnotation.spec, ...GuardAnnotation.spec });
    const checkpointer = new MemorySaver();
    const graph = new StateGraph(State)
      .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
      .addNode("tools", new GuardedToolNode({ tools: k8sTools(log), permissions }))
      .addEdge(START, "agent")
      .addConditionalEdges("agent", (s) => ((s.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END), ["tools", END])
      .addConditionalEdges("tools", guardedToolsRoute("agent"), ["agent", END])
      .compile({ checkpointer });
    await graph.invoke({ messages: [new HumanMessage("x")] }, thread("stale"));
    // Three decisions for two pending calls: refused.
    const tooMany = { decisions: [{ type: "approve" }, { type: "approve" }, { type: "approve" }] };
    await graph.invoke(new Command({ resume: tooMany }), thread("stale"));
    const head = await checkpointer.getTuple(thread("stale"));
    // The node ended the step in which it refused the value (and came back to itself): LangGraph's
    // null-task resume write went with that step, so the head checkpoint keeps nothing to replay.
    expect((head?.pendingWrites ?? []).filter(([, channel]) => channel === "__resume__")).toEqual([]);
    strict = false;
    const out = await graph.invoke(new Command({ resume: { "0123456789abcdef0123456789abcdef": { decisions: [{ type: "reject" }] } } }), thread("stale"));
    expect(log.entries).toHaveLength(0);
    const request = interruptsOf(out)[0]?.value as ApprovalRequest;
    expect(request.actionRequests.map((a) => a.toolCallId)).toEqual(["a1"]);
    // The wrong id hands the node no value at all (nothing was kept); the interrupt still shows the last refusal.
    expect(request.error).toMatch(/expected at most 2 decision\(s\)/);
    await graph.invoke(new Command({ resume: { decisions: [{ type: "reject", message: "no" }] } }), thread("stale"));
    expect(log.entries.map((e) => e.args.name)).toEqual(["db"]);
  });
});

describe("only the guard answers guarded calls (guardMiddleware)", () => {
  it("typed input with Agent Chat UI's ToolMessages while an approval waits: every open call refused, the UI's results dropped", async () => {
    const log = new ExecutionLog();
    const audit = new MemoryAuditSink();
    const model = fakeModel()
      .respondWithTools([
        { name: "kubectl_delete", args: { resource: "deploy", name: "web", namespace: "staging" }, id: "m1" },
        { name: "kubectl_get", args: { resource: "pods", namespace: "staging" }, id: "m2" },
      ])
      .respond(new AIMessage("understood"));
    const agent = createAgent({ model, middleware: [guardMiddleware({ tools: k8sTools(log), permissions: prodProtected, audit })], checkpointer: new MemorySaver() });
    await agent.invoke({ messages: [new HumanMessage("clean staging")] }, thread("mw-typed"));
    const state = (await agent.getState(thread("mw-typed"))) as unknown as { values: { messages: BaseMessage[] } };
    const added = ensureToolCallsHaveResponses(
      state.values.messages.map((m: BaseMessage) => ({ type: m.getType(), id: m.id, tool_calls: AIMessage.isInstance(m) ? m.tool_calls : undefined })),
    );
    expect(added.map((m) => m.tool_call_id)).toEqual(["m1", "m2"]);
    const out = await agent.invoke({ messages: [...added.map((m) => new ToolMessage({ ...m })), new HumanMessage("approve")] }, thread("mw-typed"));
    expect(log.entries).toHaveLength(0);
    expect(toolMessages(out.messages).map((m) => [m.tool_call_id, m.status])).toEqual([
      ["m1", "error"],
      ["m2", "error"],
    ]);
    expect(toolMessages(model.calls[1]?.messages ?? []).map((m) => m.content)).not.toContain("Successfully handled tool call.");
    expect((await audit.query({ threadId: "mw-typed" })).filter((r) => r.ruleId === "approval:superseded")).toHaveLength(2);
    expect(out.messages.at(-1)?.content).toBe("understood");
  });

  it("a normal next run is untouched (the last turn was reviewed and answered by the guard)", async () => {
    const log = new ExecutionLog();
    const model = fakeModel()
      .respondWithTools([{ name: "kubectl_get", args: { resource: "pods" }, id: "n1" }])
      .respond(new AIMessage("two pods"))
      .respondWithTools([{ name: "kubectl_get", args: { resource: "svc" }, id: "n2" }])
      .respond(new AIMessage("one svc"));
    const agent = createAgent({ model, middleware: [guardMiddleware({ tools: k8sTools(log), permissions: prodProtected })], checkpointer: new MemorySaver() });
    await agent.invoke({ messages: [new HumanMessage("pods?")] }, thread("mw-normal"));
    const out = await agent.invoke({ messages: [new HumanMessage("svc?")] }, thread("mw-normal"));
    expect(toolMessages(out.messages).map((m) => [m.tool_call_id, m.status])).toEqual([
      ["n1", "success"],
      ["n2", "success"],
    ]);
    expect(log.entries).toHaveLength(2);
  });
});

describe("only the guard answers guarded calls (GuardedToolNode in a user's own graph)", () => {
  /** A user's graph whose model node screens new input with the exported screenRunInput, as docs/approvals.md shows. */
  function screenedUserGraph(model: ReturnType<typeof fakeModel>, log: ExecutionLog, audit: MemoryAuditSink) {
    const State = Annotation.Root({ ...MessagesAnnotation.spec, ...GuardAnnotation.spec });
    const tools = new GuardedToolNode({ tools: k8sTools(log), permissions: prodProtected, audit });
    return new StateGraph(State)
      .addNode("agent", async (state, config) => {
        const threadId = String(config.configurable?.thread_id);
        const screened = await screenRunInput(tools.guard, state.guard.approvals, state.messages, { threadId, runId: state.guard.runId }, config, { unreviewed: true });
        const ai = await model.invoke(screened?.messages ?? state.messages);
        return { messages: [...(screened?.update ?? []), ai], ...(screened ? { guard: { ...state.guard, approvals: screened.approvals } } : {}) };
      })
      .addNode("tools", tools)
      .addEdge(START, "agent")
      .addConditionalEdges("agent", (s) => ((s.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END), ["tools", END])
      .addConditionalEdges("tools", guardedToolsRoute("agent"), ["agent", END])
      .compile({ checkpointer: new MemorySaver() });
  }

  it("typed input with Agent Chat UI's ToolMessages while an approval waits: the calls are refused, the UI's results dropped", async () => {
    const log = new ExecutionLog();
    const audit = new MemoryAuditSink();
    const graph = screenedUserGraph(mixedTurn(), log, audit);
    const first = await graph.invoke({ messages: [new HumanMessage("clean staging")] }, thread("node-typed"));
    expect(interruptsOf(first)).toHaveLength(1);
    const state = await graph.getState(thread("node-typed"));
    const added = ensureToolCallsHaveResponses(
      state.values.messages.map((m: BaseMessage) => ({ type: m.getType(), id: m.id, tool_calls: AIMessage.isInstance(m) ? m.tool_calls : undefined })),
    );
    expect(added.map((m) => m.tool_call_id)).toEqual(["ask1", "ok1", "deny1"]);
    const out = await graph.invoke({ messages: [...added.map((m) => new ToolMessage({ ...m })), new HumanMessage("approve")] }, thread("node-typed"));
    expect(log.entries).toHaveLength(0);
    expect(toolMessages(out.messages).map((m) => [m.tool_call_id, m.status])).toEqual([
      ["ask1", "error"],
      ["ok1", "error"],
      ["deny1", "error"],
    ]);
    expect(toolMessages(out.messages).every((m) => m.content !== "Successfully handled tool call.")).toBe(true);
    expect(out.messages.map((m: BaseMessage) => m.getType())).toEqual(["human", "ai", "tool", "tool", "tool", "human", "ai"]);
    expect(out.messages.at(-1)?.content).toBe("done");
    expect(pendingApproval(await graph.getState(thread("node-typed")))).toBeUndefined();
    expect((await audit.query({ threadId: "node-typed" })).filter((r) => r.ruleId === "approval:superseded").map((r) => r.toolCallId)).toEqual([
      "ask1",
      "ok1",
      "deny1",
    ]);
  });

  it("a normal turn is untouched: the node reviewed and answered the last model message, screening finds nothing", async () => {
    const log = new ExecutionLog();
    const audit = new MemoryAuditSink();
    const model = fakeModel()
      .respondWithTools([{ name: "kubectl_get", args: { resource: "pods", namespace: "staging" }, id: "g1" }])
      .respond(new AIMessage("listed"));
    const graph = screenedUserGraph(model, log, audit);
    const out = await graph.invoke({ messages: [new HumanMessage("list pods")] }, thread("node-normal"));
    expect(log.names()).toEqual(["kubectl_get"]);
    expect(toolMessages(out.messages).map((m) => [m.tool_call_id, m.status])).toEqual([["g1", "success"]]);
    expect(out.messages.at(-1)?.content).toBe("listed");
    expect((await audit.query({ threadId: "node-normal" })).filter((r) => r.ruleId === "approval:superseded")).toHaveLength(0);
  });
});
