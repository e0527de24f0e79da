import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Command, MemorySaver } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryAuditSink } from "../src/audit/memory.js";
import { createGuardedAgent } from "../src/guard/agent.js";
import { pendingApproval } from "../src/guard/approval/payload.js";
import type { ApprovalRequest } from "../src/guard/approval/payload.js";
import { defineTool } from "../src/tools/define-tool.js";
import { ExecutionLog, k8sTools, prodProtected } from "./helpers/guard-fixtures.js";

function toolMessages(messages: BaseMessage[]): ToolMessage[] {
  return messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
}

/** Every tool call of every AIMessage has exactly one ToolMessage. */
function expectNoOrphans(messages: BaseMessage[]) {
  const answers = toolMessages(messages).map((m) => m.tool_call_id);
  const calls = messages.flatMap((m) => (AIMessage.isInstance(m) ? (m.tool_calls ?? []).map((c) => c.id) : []));
  expect([...answers].sort()).toEqual([...calls].sort());
}

function setup(model: ReturnType<typeof fakeModel>, extra: Partial<Parameters<typeof createGuardedAgent>[0]> = {}) {
  const log = new ExecutionLog();
  const audit = new MemoryAuditSink();
  const graph = createGuardedAgent({
    model,
    tools: k8sTools(log),
    permissions: prodProtected,
    checkpointer: new MemorySaver(),
    audit,
    ...extra,
  });
  return { log, audit, graph };
}

const thread = (id: string) => ({ configurable: { thread_id: id } });

describe("guarded agent: permission outcomes", () => {
  it("allows a low-risk call and returns its result to the model", async () => {
    const model = fakeModel()
      .respondWithTools([{ name: "kubectl_get", args: { resource: "pods" }, id: "c1" }])
      .respond(new AIMessage("two pods"));
    const { graph, log, audit } = setup(model);
    const out = await graph.invoke({ messages: [new HumanMessage("list pods")] }, thread("allow"));
    expect(log.names()).toEqual(["kubectl_get"]);
    expect(toolMessages(out.messages)[0]?.content).toContain("web-1");
    expect(out.messages.at(-1)?.content).toBe("two pods");
    const records = await audit.query({ threadId: "allow" });
    expect(records.map((r) => `${r.event}:${r.decision}`)).toEqual(["decision:allow", "outcome:success"]);
    expectNoOrphans(out.messages);
  });

  it("denies a call naming the rule, and never runs it", async () => {
    const model = fakeModel()
      .respondWithTools([{ name: "kubectl_delete", args: { resource: "ns", name: "x", namespace: "production" }, id: "d1" }])
      .respond(new AIMessage("could not"));
    const { graph, log } = setup(model);
    const out = await graph.invoke({ messages: [new HumanMessage("delete")] }, thread("deny"));
    expect(log.entries).toHaveLength(0);
    const refusal = toolMessages(out.messages)[0];
    expect(refusal?.status).toBe("error");
    expect(refusal?.content).toContain("permission:prod-protected");
    expectNoOrphans(out.messages);
  });

  it("turns malformed arguments into an error the model can correct", async () => {
    const model = fakeModel()
      .respondWithTools([{ name: "kubectl_get", args: { resource: 42 }, id: "m1" }])
      .respondWithTools([{ name: "kubectl_get", args: { resource: "pods" }, id: "m2" }])
      .respond(new AIMessage("fixed"));
    const { graph, log } = setup(model);
    const out = await graph.invoke({ messages: [new HumanMessage("list")] }, thread("schema"));
    const [first, second] = toolMessages(out.messages);
    expect(first?.content).toMatch(/invalid arguments.*resource/);
    expect(second?.status).toBe("success");
    expect(log.entries).toHaveLength(1);
  });

  it("refuses an unknown tool and lists the available ones", async () => {
    const model = fakeModel()
      .respondWithTools([{ name: "rm_everything", args: {}, id: "u1" }])
      .respond(new AIMessage("ok"));
    const { graph } = setup(model);
    const out = await graph.invoke({ messages: [new HumanMessage("x")] }, thread("unknown"));
    expect(toolMessages(out.messages)[0]?.content).toMatch(/^Refused "rm_everything" by rule unknown-tool: there is no tool with that name. Available tools: .*kubectl_get/);
  });
});

describe("guarded agent: approval through interrupt", () => {
  const askTurn = () =>
    fakeModel()
      .respondWithTools([
        { name: "kubectl_delete", args: { resource: "deploy", name: "web", namespace: "staging" }, id: "a1" },
        { name: "kubectl_get", args: { resource: "pods", namespace: "staging" }, id: "a2" },
        { name: "kubectl_delete", args: { resource: "deploy", name: "db", namespace: "staging" }, id: "a3" },
      ])
      .respond(new AIMessage("done"));

  async function interrupted(id: string) {
    const ctx = setup(askTurn());
    const first = await ctx.graph.invoke({ messages: [new HumanMessage("clean staging")] }, thread(id));
    const interrupts = (first as { __interrupt__?: { value: unknown }[] }).__interrupt__ ?? [];
    expect(interrupts).toHaveLength(1);
    return { ...ctx, request: interrupts[0]?.value as ApprovalRequest };
  }

  it("puts every asking call of the turn into ONE interrupt in the HITL shape", async () => {
    const { request, log } = await interrupted("one-interrupt");
    expect(request.actionRequests.map((a) => a.toolCallId)).toEqual(["a1", "a3"]);
    expect(request.actionRequests[0]).toMatchObject({ name: "kubectl_delete", risk: "high", ruleId: "risk:high" });
    expect(request.reviewConfigs[0]).toMatchObject({ actionName: "kubectl_delete", allowedDecisions: ["approve", "edit", "reject"] });
    expect(log.entries).toHaveLength(0);
  });

  it("pendingApproval reads the request from an invoke result and from a state snapshot", async () => {
    const { graph, request } = await interrupted("pending-approval");
    const snapshot = await graph.getState(thread("pending-approval"));
    expect(pendingApproval(snapshot)).toEqual(request);
    expect(pendingApproval({ messages: [] })).toBeUndefined();
  });

  it("approve runs the call; a reject answers only its own call", async () => {
    const { graph, log, audit } = await interrupted("approve-reject");
    const out = await graph.invoke(
      new Command({ resume: { decisions: [{ type: "approve" }, { type: "reject", message: "keep the db" }], actor: "alice" } }),
      thread("approve-reject"),
    );
    expect(log.names().sort()).toEqual(["kubectl_delete", "kubectl_get"]);
    expect(log.entries.find((e) => e.tool === "kubectl_delete")?.args.name).toBe("web");
    const rejected = toolMessages(out.messages).find((m) => m.tool_call_id === "a3");
    expect(rejected?.content).toContain("keep the db");
    expectNoOrphans(out.messages);
    const human = (await audit.query({ threadId: "approve-reject" })).filter((r) => r.event === "human");
    expect(human.map((r) => [r.toolCallId, r.decision, r.actor])).toEqual([
      ["a1", "approve", "alice"],
      ["a3", "reject", "alice"],
    ]);
  });

  it("accepts decisions keyed by tool call id", async () => {
    const { graph, log } = await interrupted("keyed");
    await graph.invoke(
      new Command({ resume: { decisions: { a3: { type: "approve" }, a1: { type: "reject" } } } }),
      thread("keyed"),
    );
    expect(log.entries.filter((e) => e.tool === "kubectl_delete").map((e) => e.args.name)).toEqual(["db"]);
  });

  it("re-reviews an edit: an edit to a denied argument is refused", async () => {
    const { graph, log } = await interrupted("edit-denied");
    const out = await graph.invoke(
      new Command({
        resume: {
          decisions: [
            { type: "edit", editedAction: { name: "kubectl_delete", args: { resource: "deploy", name: "web", namespace: "production" } } },
            { type: "edit", editedAction: { name: "kubectl_delete", args: { resource: "deploy", name: "cache", namespace: "staging" } } },
          ],
        },
      }),
      thread("edit-denied"),
    );
    const deletes = log.entries.filter((e) => e.tool === "kubectl_delete");
    expect(deletes.map((e) => e.args.name)).toEqual(["cache"]);
    const refused = toolMessages(out.messages).find((m) => m.tool_call_id === "a1");
    expect(refused?.content).toMatch(/edit.*refused.*prod-protected/);
    expectNoOrphans(out.messages);
  });

  it.each([
    ["too many", { decisions: [{ type: "approve" }, { type: "approve" }, { type: "approve" }] }, /expected at most 2 decision/],
    ["unknown id", { decisions: { a1: { type: "approve" }, zz: { type: "approve" } } }, /unknown tool call id "zz"/],
    ["no decisions", { decisions: {} }, /no decisions given; pending calls: \[a1 \(kubectl_delete\), a3 \(kubectl_delete\)\]/],
    ["bad type", { decisions: [{ type: "approve" }, { type: "maybe" }] }, /invalid approval resume/],
    ["falsy value", false, /invalid approval resume false/],
    ["zero", 0, /invalid approval resume 0/],
    ["empty string", "", /invalid approval resume ""/],
  ])("refuses a resume that does not fit (%s), changes nothing and asks again", async (_label, resume, message) => {
    const id = `bad-${String(_label).replace(/ /g, "-")}`;
    const { graph, log } = await interrupted(id);
    const before = await graph.getState(thread(id));
    const again = await graph.invoke(new Command({ resume }), thread(id));
    expect(pendingApproval(again)?.error).toMatch(message);
    const after = await graph.getState(thread(id));
    expect(after.values.messages).toHaveLength(before.values.messages.length);
    expect(after.tasks.flatMap((t) => t.interrupts)).toHaveLength(1);
    expect(log.entries).toHaveLength(0);
    const out = await graph.invoke(new Command({ resume: { decisions: [{ type: "approve" }, { type: "approve" }] } }), thread(id));
    expect(log.names().filter((n) => n === "kubectl_delete")).toHaveLength(2);
    expectNoOrphans(out.messages);
  });

  it("refuses a decision type the reviewer may not take", async () => {
    const log = new ExecutionLog();
    const graph = createGuardedAgent({
      model: askTurn(),
      tools: k8sTools(log),
      checkpointer: new MemorySaver(),
      allowedDecisions: ["approve", "reject"],
    });
    await graph.invoke({ messages: [new HumanMessage("x")] }, thread("no-edit"));
    const again = await graph.invoke(
      new Command({
        resume: { decisions: [{ type: "edit", editedAction: { name: "kubectl_get", args: { resource: "pods" } } }, { type: "approve" }] },
      }),
      thread("no-edit"),
    );
    expect(pendingApproval(again)?.error).toMatch(/decision "edit" is not allowed for a1/);
    expect(pendingApproval(again)?.reviewConfigs[0]?.allowedDecisions).toEqual(["approve", "reject"]);
  });

  it("bypass mode auto-approves asks", async () => {
    const { graph, log } = setup(askTurn(), { bypass: true });
    const out = await graph.invoke({ messages: [new HumanMessage("x")] }, thread("bypass"));
    expect((out as { __interrupt__?: unknown }).__interrupt__).toBeUndefined();
    expect(log.entries).toHaveLength(3);
  });
});

describe("guarded agent: tool rules in the loop", () => {
  const counter = (name: string, calls: string[]) =>
    defineTool({
      name,
      description: name,
      schema: z.object({}),
      risk: "low",
      execute: () => {
        calls.push(name);
        return `${name} ok`;
      },
    });

  it("MaxCalls refuses the 4th call", async () => {
    const calls: string[] = [];
    const model = fakeModel()
      .respondWithTools([1, 2, 3, 4].map((i) => ({ name: "api_request", args: {}, id: `r${i}` })))
      .respond(new AIMessage("done"));
    const graph = createGuardedAgent({
      model,
      tools: [counter("api_request", calls)],
      rules: [{ tool: "api_request", type: "MaxCalls", max: 3 }],
      checkpointer: new MemorySaver(),
    });
    const out = await graph.invoke({ messages: [new HumanMessage("go")] }, thread("maxcalls"));
    expect(calls).toHaveLength(3);
    const fourth = toolMessages(out.messages).find((m) => m.tool_call_id === "r4");
    expect(fourth?.content).toMatch(/MaxCalls/);
  });

  it("InitialCall is forced first, RequiredForExit is enforced before END, Terminal ends the run", async () => {
    const calls: string[] = [];
    const model = fakeModel()
      .respondWithTools([{ name: "extract", args: {}, id: "e1" }])
      .respond(new AIMessage("all done"))
      .respond(new AIMessage("still done"))
      .respondWithTools([{ name: "load", args: {}, id: "l1" }]);
    const graph = createGuardedAgent({
      model,
      tools: ["connect", "extract", "load", "close"].map((n) => counter(n, calls)),
      rules: [
        { tool: "connect", type: "InitialCall" },
        { tool: "extract", type: "MustFollow", conditions: ["connect"] },
        { tool: "load", type: "Terminal" },
        { tool: "close", type: "RequiredForExit" },
      ],
      checkpointer: new MemorySaver(),
    });
    const out = await graph.invoke({ messages: [new HumanMessage("run etl")] }, thread("etl"));
    // connect forced (synthetic) before extract; a reminder, then close forced; then load ends the run.
    expect(calls).toEqual(["connect", "extract", "close", "load"]);
    const reminder = out.messages.find((m) => HumanMessage.isInstance(m) && m.name === "guard");
    expect(reminder?.content).toMatch(/must call: close/);
    expect(out.guard.terminatedBy).toMatch(/Terminal/);
    expectNoOrphans(out.messages);
  });

  it("forces a failing InitialCall tool once per run, then lets the model go on", async () => {
    const model = fakeModel().respond(new AIMessage("connecting")).respond(new AIMessage("I could not connect"));
    const broken = defineTool({
      name: "connect",
      description: "connect",
      schema: z.object({}),
      risk: "low",
      execute: () => {
        throw new Error("connection refused");
      },
    });
    const graph = createGuardedAgent({
      model,
      tools: [broken],
      rules: [{ tool: "connect", type: "InitialCall" }],
      checkpointer: new MemorySaver(),
    });
    const out = await graph.invoke({ messages: [new HumanMessage("go")] }, thread("initial-fails"));
    const results = toolMessages(out.messages);
    expect(results).toHaveLength(1);
    expect(results[0]?.content).toMatch(/connection refused/);
    expect(out.messages.at(-1)?.content).toBe("I could not connect");
  });
});
