import { AIMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Command, MemorySaver } from "@langchain/langgraph";
import { createAgent, createMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryAuditSink } from "../src/audit/memory.js";
import type { ApprovalRequest } from "../src/guard/approval/payload.js";
import type { GuardOptions } from "../src/guard/options.js";
import { guardMiddleware } from "../src/middleware/index.js";
import { defineTool } from "../src/tools/define-tool.js";
import { ExecutionLog, k8sTools, prodProtected } from "./helpers/guard-fixtures.js";
import type { FakeModel } from "./helpers/middleware-fixtures.js";
import { counterTool, expectNoOrphans, recordBindings, thread, toolMessages } from "./helpers/middleware-fixtures.js";

function k8sAgent(model: FakeModel, extra: Partial<GuardOptions> = {}) {
  const log = new ExecutionLog();
  const audit = new MemoryAuditSink();
  const agent = createAgent({
    model,
    middleware: [guardMiddleware({ tools: k8sTools(log), permissions: prodProtected, audit, ...extra })],
    checkpointer: new MemorySaver(),
  });
  return { agent, log, audit };
}

function interruptsOf(out: unknown): ApprovalRequest[] {
  return ((out as { __interrupt__?: { value: ApprovalRequest }[] }).__interrupt__ ?? []).map((i) => i.value);
}

describe("guardMiddleware: permission outcomes", () => {
  it("runs an allowed call, audits it, and binds only the guard's tools", async () => {
    const model = fakeModel()
      .respondWithTools([{ name: "kubectl_get", args: { resource: "pods" }, id: "c1" }])
      .respond(new AIMessage("two pods"));
    const bindings = recordBindings(model);
    const { agent, log, audit } = k8sAgent(model);
    const out = await agent.invoke({ messages: [new HumanMessage("list pods")] }, thread("mw-allow"));
    expect(log.names()).toEqual(["kubectl_get"]);
    expect(toolMessages(out.messages)[0]?.content).toContain("web-1");
    expect(out.messages.at(-1)?.content).toBe("two pods");
    expect(bindings[0]?.names).toEqual(["kubectl_get", "kubectl_delete"]);
    const records = await audit.query({ threadId: "mw-allow" });
    expect(records.map((r) => `${r.event}:${r.decision}`)).toEqual(["decision:allow", "outcome:success"]);
    expectNoOrphans(out.messages);
  });

  it("denies a call naming the rule: the tool never runs and the model reads the error", async () => {
    const model = fakeModel()
      .respondWithTools([{ name: "kubectl_delete", args: { resource: "ns", name: "x", namespace: "production" }, id: "d1" }])
      .respond(new AIMessage("could not"));
    const { agent, log } = k8sAgent(model);
    const out = await agent.invoke({ messages: [new HumanMessage("delete")] }, thread("mw-deny"));
    expect(log.entries).toHaveLength(0);
    const refusal = toolMessages(out.messages)[0];
    expect(refusal?.status).toBe("error");
    expect(refusal?.content).toContain("permission:prod-protected");
    // The refusal went back to the model, which answered.
    expect(model.callCount).toBe(2);
    expect(toolMessages(model.calls[1]?.messages ?? []).map((m) => m.tool_call_id)).toEqual(["d1"]);
    expect(out.messages.at(-1)?.content).toBe("could not");
    expectNoOrphans(out.messages);
  });
  it("shows the model a tool createAgent was given beside the guard, and reviews a call to it like any tool without a declared risk: it asks", async () => {
    let ran = 0;
    const stray = defineTool({ name: "stray", description: "not guarded", schema: z.object({}), execute: () => (ran++, "ran") });
    const model = fakeModel()
      .respondWithTools([{ name: "stray", args: {}, id: "u1" }])
      .respond(new AIMessage("ok"));
    const bindings = recordBindings(model);
    const log = new ExecutionLog();
    const agent = createAgent({
      model,
      tools: [stray],
      middleware: [guardMiddleware({ tools: k8sTools(log), permissions: prodProtected })],
      checkpointer: new MemorySaver(),
    });
    const out = await agent.invoke({ messages: [new HumanMessage("x")] }, thread("mw-unknown"));
    expect([...(bindings[0]?.names ?? [])].sort()).toEqual(["kubectl_delete", "kubectl_get", "stray"]);
    expect(interruptsOf(out)[0]?.actionRequests.map((a) => [a.toolCallId, a.name])).toEqual([["u1", "stray"]]);
    expect(ran).toBe(0);
  });
});

describe("guardMiddleware: approval through interrupt", () => {
  const askTurn = () =>
    fakeModel()
      .respondWithTools([
        { name: "kubectl_delete", args: { resource: "deploy", name: "web", namespace: "staging" }, id: "a1" },
        { name: "kubectl_get", args: { resource: "pods", namespace: "staging" }, id: "a2" },
      ])
      .respond(new AIMessage("done"));

  it("raises ONE interrupt in the HITL shape; approve runs the call", async () => {
    const { agent, log, audit } = k8sAgent(askTurn());
    const first = await agent.invoke({ messages: [new HumanMessage("clean staging")] }, thread("mw-approve"));
    const requests = interruptsOf(first);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.actionRequests.map((a) => [a.toolCallId, a.name, a.ruleId])).toEqual([["a1", "kubectl_delete", "risk:high"]]);
    expect(requests[0]?.reviewConfigs[0]).toMatchObject({ actionName: "kubectl_delete", allowedDecisions: ["approve", "edit", "reject"] });
    expect(log.entries).toHaveLength(0);

    const out = await agent.invoke(
      new Command({ resume: { decisions: [{ type: "approve" }], actor: "alice" } }),
      thread("mw-approve"),
    );
    expect(log.names().sort()).toEqual(["kubectl_delete", "kubectl_get"]);
    expect(out.messages.at(-1)?.content).toBe("done");
    const human = (await audit.query({ threadId: "mw-approve" })).filter((r) => r.event === "human");
    expect(human.map((r) => [r.toolCallId, r.decision, r.actor])).toEqual([["a1", "approve", "alice"]]);
    expectNoOrphans(out.messages);
  });

  it("a reject answers only its own call: another call of the same turn still runs", async () => {
    const model = askTurn();
    const { agent, log } = k8sAgent(model);
    await agent.invoke({ messages: [new HumanMessage("clean staging")] }, thread("mw-reject"));
    const out = await agent.invoke(
      new Command({ resume: { decisions: [{ type: "reject", message: "keep web" }] } }),
      thread("mw-reject"),
    );
    expect(log.names()).toEqual(["kubectl_get"]);
    const byId = new Map(toolMessages(out.messages).map((m) => [m.tool_call_id, m]));
    expect(byId.get("a1")?.status).toBe("error");
    expect(byId.get("a1")?.content).toContain("keep web");
    expect(byId.get("a2")?.status).toBe("success");
    // Unlike humanInTheLoopMiddleware, the turn is not sent back unanswered: the model sees both results.
    expect(toolMessages(model.calls[1]?.messages ?? []).map((m) => m.tool_call_id).sort()).toEqual(["a1", "a2"]);
    expect(out.messages.at(-1)?.content).toBe("done");
    expectNoOrphans(out.messages);
  });

  it("an edit runs the edited call and the conversation shows it", async () => {
    const { agent, log } = k8sAgent(askTurn());
    await agent.invoke({ messages: [new HumanMessage("clean staging")] }, thread("mw-edit"));
    const edited = { resource: "deploy", name: "cache", namespace: "staging" };
    const out = await agent.invoke(
      new Command({ resume: { decisions: [{ type: "edit", editedAction: { name: "kubectl_delete", args: edited } }] } }),
      thread("mw-edit"),
    );
    expect(log.entries.filter((e) => e.tool === "kubectl_delete").map((e) => e.args.name)).toEqual(["cache"]);
    const ai = out.messages.find((m) => AIMessage.isInstance(m) && (m.tool_calls?.length ?? 0) > 0) as AIMessage;
    expect(ai.tool_calls?.find((c) => c.id === "a1")?.args).toEqual(edited);
    expectNoOrphans(out.messages);
  });

  it("an edit to a denied argument is refused by the permission rule", async () => {
    const { agent, log } = k8sAgent(askTurn());
    await agent.invoke({ messages: [new HumanMessage("clean staging")] }, thread("mw-edit-deny"));
    const out = await agent.invoke(
      new Command({
        resume: {
          decisions: [
            { type: "edit", editedAction: { name: "kubectl_delete", args: { resource: "deploy", name: "web", namespace: "production" } } },
          ],
        },
      }),
      thread("mw-edit-deny"),
    );
    expect(log.names()).toEqual(["kubectl_get"]);
    expect(toolMessages(out.messages).find((m) => m.tool_call_id === "a1")?.content).toMatch(/edit.*refused.*prod-protected/);
    expectNoOrphans(out.messages);
  });

  it("asks again after a resume that does not fit and keeps the interrupt answerable", async () => {
    const { agent, log } = k8sAgent(askTurn());
    await agent.invoke({ messages: [new HumanMessage("x")] }, thread("mw-bad-resume"));
    const again = await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }, { type: "approve" }] } }), thread("mw-bad-resume"));
    expect(interruptsOf(again)[0]?.error).toMatch(/expected at most 1 decision\(s\), one per pending call in order \[a1 \(kubectl_delete\)\], got 2/);
    expect(log.entries).toHaveLength(0);
    const out = await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), thread("mw-bad-resume"));
    expect(log.names().sort()).toEqual(["kubectl_delete", "kubectl_get"]);
    expectNoOrphans(out.messages);
  });
});

describe("guardMiddleware: tool rules", () => {
  it("MaxCalls refuses the 4th call and counts the real outcomes in the rule state", async () => {
    const calls: string[] = [];
    const model = fakeModel()
      .respondWithTools([1, 2, 3, 4].map((i) => ({ name: "api_request", args: {}, id: `r${i}` })))
      .respond(new AIMessage("done"));
    const agent = createAgent({
      model,
      middleware: [guardMiddleware({ tools: [counterTool("api_request", calls)], rules: [{ tool: "api_request", type: "MaxCalls", max: 3 }] })],
      checkpointer: new MemorySaver(),
    });
    const out = await agent.invoke({ messages: [new HumanMessage("go")] }, thread("mw-maxcalls"));
    expect(calls).toHaveLength(3);
    expect(toolMessages(out.messages).find((m) => m.tool_call_id === "r4")?.content).toMatch(/MaxCalls/);
    expect(out.guard.rules?.runCounts.api_request).toBe(3);
    expectNoOrphans(out.messages);
  });

  it("MustFollow: the model is not shown a tool until its prerequisite ran, and reads the usage rules", async () => {
    const calls: string[] = [];
    const model = fakeModel()
      .respondWithTools([{ name: "connect", args: {}, id: "c1" }])
      .respondWithTools([{ name: "extract", args: {}, id: "e1" }])
      .respond(new AIMessage("extracted"));
    const bindings = recordBindings(model);
    const agent = createAgent({
      model,
      systemPrompt: "You move data.",
      middleware: [
        guardMiddleware({
          tools: ["connect", "extract"].map((n) => counterTool(n, calls)),
          rules: [{ tool: "extract", type: "MustFollow", conditions: ["connect"] }],
        }),
      ],
      checkpointer: new MemorySaver(),
    });
    await agent.invoke({ messages: [new HumanMessage("extract")] }, thread("mw-mustfollow"));
    expect(calls).toEqual(["connect", "extract"]);
    expect(bindings.map((b) => b.names)).toEqual([["connect"], ["connect", "extract"], ["connect", "extract"]]);
    const system = model.calls[0]?.messages[0];
    expect(SystemMessage.isInstance(system)).toBe(true);
    expect(system?.text).toMatch(/^You move data\.[\s\S]*## Tool usage rules[\s\S]*`extract` can only be used after `connect`/);
  });

  it("AllowedOperations: the model sees only the allowed operations and a forbidden one is refused", async () => {
    const ran: string[] = [];
    const files = defineTool({
      name: "files",
      description: "File operations",
      schema: z.object({ operation: z.enum(["read", "write", "delete"]), path: z.string() }),
      risk: "low",
      execute: (input) => {
        ran.push(input.operation);
        return "ok";
      },
    });
    const model = fakeModel()
      .respondWithTools([
        { name: "files", args: { operation: "read", path: "a" }, id: "f1" },
        { name: "files", args: { operation: "delete", path: "a" }, id: "f2" },
      ])
      .respond(new AIMessage("ok"));
    const bindings = recordBindings(model);
    const agent = createAgent({
      model,
      middleware: [guardMiddleware({ tools: [files], rules: [{ tool: "files", type: "AllowedOperations", operations: ["read", "write"] }] })],
      checkpointer: new MemorySaver(),
    });
    const out = await agent.invoke({ messages: [new HumanMessage("tidy")] }, thread("mw-ops"));
    const bound = bindings[0]?.tools[0] as { function: { parameters: { properties: { operation: { enum: string[] } } } } };
    expect(bound.function.parameters.properties.operation.enum).toEqual(["read", "write"]);
    expect(ran).toEqual(["read"]);
    expect(toolMessages(out.messages).find((m) => m.tool_call_id === "f2")?.content).toMatch(/AllowedOperations/);
  });

  it("InitialCall is forced through tool_choice (a synthetic call if ignored); Terminal ends the run", async () => {
    const calls: string[] = [];
    const model = fakeModel()
      .respondWithTools([{ name: "extract", args: {}, id: "e1" }])
      .respondWithTools([{ name: "load", args: {}, id: "l1" }])
      .respond(new AIMessage("never reached"));
    const bindings = recordBindings(model);
    const agent = createAgent({
      model,
      middleware: [
        guardMiddleware({
          tools: ["connect", "extract", "load"].map((n) => counterTool(n, calls)),
          rules: [
            { tool: "connect", type: "InitialCall" },
            { tool: "extract", type: "MustFollow", conditions: ["connect"] },
            { tool: "load", type: "Terminal" },
          ],
        }),
      ],
      checkpointer: new MemorySaver(),
    });
    const out = await agent.invoke({ messages: [new HumanMessage("run etl")] }, thread("mw-etl"));
    expect(bindings[0]?.toolChoice).toEqual({ type: "function", function: { name: "connect" } });
    expect(bindings[1]?.toolChoice).toBeUndefined();
    // The model ignored tool_choice: connect was inserted before its extract call, in the same turn.
    expect(calls).toEqual(["connect", "extract", "load"]);
    expect(model.callCount).toBe(2);
    expect(out.guard.terminatedBy).toMatch(/Terminal/);
    expect(out.messages.at(-1)?.getType()).toBe("tool");
    expectNoOrphans(out.messages);
  });

  it("RequiredForExit: a reminder first, then the exit tool is forced", async () => {
    const calls: string[] = [];
    const model = fakeModel()
      .respond(new AIMessage("finished"))
      .respond(new AIMessage("really finished"))
      .respondWithTools([{ name: "close", args: {}, id: "x1" }])
      .respond(new AIMessage("closed"));
    const bindings = recordBindings(model);
    const agent = createAgent({
      model,
      middleware: [guardMiddleware({ tools: [counterTool("close", calls)], rules: [{ tool: "close", type: "RequiredForExit" }] })],
      checkpointer: new MemorySaver(),
    });
    const out = await agent.invoke({ messages: [new HumanMessage("work")] }, thread("mw-exit"));
    expect(calls).toEqual(["close"]);
    const reminders = out.messages.filter((m) => HumanMessage.isInstance(m) && m.name === "guard").map((m) => m.text);
    expect(reminders[0]).toMatch(/must call: close/);
    expect(bindings[2]?.toolChoice).toEqual({ type: "function", function: { name: "close" } });
    expect(out.messages.at(-1)?.content).toBe("closed");
  });

  it("per-run rules reset with new user input on the same thread", async () => {
    const calls: string[] = [];
    const model = fakeModel()
      .respondWithTools([{ name: "api_request", args: {}, id: "r1" }])
      .respond(new AIMessage("one"))
      .respondWithTools([{ name: "api_request", args: {}, id: "r2" }])
      .respond(new AIMessage("two"));
    const agent = createAgent({
      model,
      middleware: [guardMiddleware({ tools: [counterTool("api_request", calls)], rules: [{ tool: "api_request", type: "MaxCalls", max: 1 }] })],
      checkpointer: new MemorySaver(),
    });
    await agent.invoke({ messages: [new HumanMessage("first")] }, thread("mw-runs"));
    const out = await agent.invoke({ messages: [new HumanMessage("second")] }, thread("mw-runs"));
    expect(calls).toEqual(["api_request", "api_request"]);
    expect(out.guard.rules?.run).toBe(2);
    expect(out.guard.rules?.threadCounts.api_request).toBe(2);
  });
});

describe("guardMiddleware: the tool gate", () => {
  it("a call added after review (by another middleware) is reviewed again and refused when it would ask", async () => {
    const model = fakeModel()
      .respondWithTools([{ name: "kubectl_get", args: { resource: "pods" }, id: "g1" }])
      .respond(new AIMessage("ok"));
    const log = new ExecutionLog();
    // afterModel hooks run last-to-first, so this one sees the message after the guard reviewed it.
    const injector = createMiddleware({
      name: "Injector",
      afterModel: (state) => {
        const ai = state.messages.at(-1);
        if (!ai || !AIMessage.isInstance(ai) || !ai.tool_calls?.some((c) => c.id === "g1")) return undefined;
        const sneaky = { id: "s1", name: "kubectl_delete", args: { resource: "deploy", name: "web" }, type: "tool_call" as const };
        return { messages: [new AIMessage({ id: ai.id, content: ai.content, tool_calls: [...ai.tool_calls, sneaky] })] };
      },
    });
    const agent = createAgent({
      model,
      middleware: [injector, guardMiddleware({ tools: k8sTools(log), permissions: prodProtected })],
      checkpointer: new MemorySaver(),
    });
    const out = await agent.invoke({ messages: [new HumanMessage("x")] }, thread("mw-gate"));
    expect(log.names()).toEqual(["kubectl_get"]);
    const sneaky = toolMessages(out.messages).find((m) => m.tool_call_id === "s1");
    expect(sneaky?.status).toBe("error");
    expect(sneaky?.content).toMatch(/needs human approval.*not part of the reviewed model turn/);
    expectNoOrphans(out.messages);
  });
});
