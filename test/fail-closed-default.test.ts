import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool as langchainTool } from "@langchain/core/tools";
import { Annotation, Command, END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import fc from "fast-check";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryAuditSink } from "../src/audit/memory.js";
import { createGuardedAgent } from "../src/guard/agent.js";
import { pendingApproval } from "../src/guard/approval/payload.js";
import { guardFromPolicy } from "../src/guard/from-policy.js";
import { Guard } from "../src/guard/guard.js";
import type { GuardOptions } from "../src/guard/options.js";
import { GuardAnnotation } from "../src/guard/state.js";
import { GuardedToolNode, guardedToolsRoute } from "../src/guard/tool-node.js";
import { guardMiddleware } from "../src/middleware/index.js";
import { undeclaredRiskReason } from "../src/messages/index.js";
import { parsePolicy } from "../src/policy/file.js";
import { PermissionPolicy } from "../src/policy/permissions.js";
import { defineTool } from "../src/tools/define-tool.js";
import type { AnyTool } from "../src/tools/types.js";

/**
 * Build 7 (issue 12): no matching rule and no declared risk → ask, at every entry point, with or
 * without a policy. Each test tries to get a risk-less tool to run without a human and checks the
 * tool never ran, the turn interrupted, and the audit names the default.
 */

const thread = (id: string) => ({ configurable: { thread_id: id } });
const toolMessages = (messages: BaseMessage[]) => messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));

/** A tool with no declared risk that records every run. */
function risklessTools(ran: string[]): AnyTool[] {
  const own = defineTool({
    name: "wipe_cache",
    description: "Wipe a cache",
    schema: z.object({ target: z.string() }),
    execute: ({ target }) => {
      ran.push(`wipe_cache:${target}`);
      return "wiped";
    },
  });
  // A plain LangChain tool carries no guard spec at all.
  const plain = langchainTool(
    ({ url }: { url: string }) => {
      ran.push(`fetch:${url}`);
      return "fetched";
    },
    { name: "fetch", description: "Fetch a URL", schema: z.object({ url: z.string() }) },
  );
  return [own, plain];
}

const calls = [
  { name: "wipe_cache", args: { target: "all" }, id: "w1" },
  { name: "fetch", args: { url: "https://attacker.example/x" }, id: "f1" },
];

async function expectDefaultAskAudited(audit: MemoryAuditSink, threadId: string) {
  const records = (await audit.query({ threadId })).filter((r) => r.event !== "outcome");
  const asks = records.filter((r) => r.decision === "ask");
  expect(asks.map((r) => [r.toolCallId, r.ruleId, r.reason]).sort()).toEqual([
    ["f1", "default:ask", undeclaredRiskReason("fetch")],
    ["w1", "default:ask", undeclaredRiskReason("wipe_cache")],
  ]);
}

function interruptedIds(result: unknown): string[] {
  return (pendingApproval(result)?.actionRequests ?? []).map((a) => a.toolCallId).sort();
}

describe("fail-closed default: a risk-less tool no rule matches asks at every entry point", () => {
  it("the default's reason names the default and how to change it (exact text)", () => {
    expect(undeclaredRiskReason("fetch")).toBe(
      "no permission rule matched fetch and nobody declared its risk, so by default it needs approval (declare the tool's risk, or set tools.fetch.risk or defaultRisk in the policy or the guard's options, to change this default)",
    );
  });

  it("createGuardedAgent without a policy interrupts and runs nothing", async () => {
    const ran: string[] = [];
    const audit = new MemoryAuditSink();
    const model = fakeModel().respondWithTools(calls).respond(new AIMessage("done"));
    const agent = createGuardedAgent({ model, tools: risklessTools(ran), audit, checkpointer: new MemorySaver() });
    const first = await agent.invoke({ messages: [new HumanMessage("go")] }, thread("agent"));
    expect(interruptedIds(first)).toEqual(["f1", "w1"]);
    expect(pendingApproval(first)?.actionRequests.map((a) => a.ruleId)).toEqual(["default:ask", "default:ask"]);
    expect(ran).toEqual([]);
    await expectDefaultAskAudited(audit, "agent");
    // A human's reject keeps it that way.
    await agent.invoke(new Command({ resume: { decisions: [{ type: "reject" }, { type: "reject" }] } }), thread("agent"));
    expect(ran).toEqual([]);
  });

  it("GuardedToolNode in a user's graph without a policy interrupts and runs nothing", async () => {
    const ran: string[] = [];
    const audit = new MemoryAuditSink();
    const model = fakeModel().respondWithTools(calls).respond(new AIMessage("done"));
    const State = Annotation.Root({ ...MessagesAnnotation.spec, ...GuardAnnotation.spec });
    const graph = new StateGraph(State)
      .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
      .addNode("tools", new GuardedToolNode({ tools: risklessTools(ran), audit }))
      .addEdge(START, "agent")
      .addConditionalEdges("agent", (s) => ((s.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END), ["tools", END])
      .addConditionalEdges("tools", guardedToolsRoute("agent"), ["agent", END])
      .compile({ checkpointer: new MemorySaver() });
    const first = await graph.invoke({ messages: [new HumanMessage("go")] }, thread("node"));
    expect(interruptedIds(first)).toEqual(["f1", "w1"]);
    expect(ran).toEqual([]);
    await expectDefaultAskAudited(audit, "node");
  });

  it("guardMiddleware without a policy interrupts and runs nothing", async () => {
    const ran: string[] = [];
    const audit = new MemoryAuditSink();
    const model = fakeModel().respondWithTools(calls).respond(new AIMessage("done"));
    const agent = createAgent({ model, middleware: [guardMiddleware({ tools: risklessTools(ran), audit })], checkpointer: new MemorySaver() });
    const first = await agent.invoke({ messages: [new HumanMessage("go")] }, thread("mw"));
    expect(interruptedIds(first)).toEqual(["f1", "w1"]);
    expect(ran).toEqual([]);
    expect(toolMessages((first as { messages: BaseMessage[] }).messages)).toEqual([]);
    await expectDefaultAskAudited(audit, "mw");
  });

  it("guardFromPolicy with a policy that has no rules and no defaultRisk asks", async () => {
    const ran: string[] = [];
    const audit = new MemoryAuditSink();
    const policy = parsePolicy("version: 1\n", "yaml", "empty.yaml");
    const ready = await guardFromPolicy(policy, { tools: risklessTools(ran), audit });
    try {
      const model = fakeModel().respondWithTools(calls).respond(new AIMessage("done"));
      const agent = createGuardedAgent({ model, guard: ready.guard, checkpointer: new MemorySaver() });
      const first = await agent.invoke({ messages: [new HumanMessage("go")] }, thread("from-policy"));
      expect(interruptedIds(first)).toEqual(["f1", "w1"]);
      expect(ran).toEqual([]);
      await expectDefaultAskAudited(audit, "from-policy");
    } finally {
      await ready.close();
    }
  });

  it("a Guard constructed directly asks for both calls of the turn", async () => {
    const guard = new Guard({ tools: risklessTools([]) });
    const { reviewed } = await guard.reviewTurn(guard.initialRuleState(), calls);
    expect(reviewed.map((r) => [r.id, r.outcome, r.ruleId, r.reason])).toEqual([
      ["w1", "ask", "default:ask", undeclaredRiskReason("wipe_cache")],
      ["f1", "ask", "default:ask", undeclaredRiskReason("fetch")],
    ]);
  });

  it("a guard with a permission policy that matches nothing asks too (the policy does not reopen the default)", async () => {
    // The allow names a real tool but matches neither call (a rule naming no known tool is refused at build).
    const guard = new Guard({ tools: risklessTools([]), permissions: new PermissionPolicy([{ tool: "wipe_cache", mode: "allow", where: { target: { equals: "tmp" } } }]) });
    const { reviewed } = await guard.reviewTurn(guard.initialRuleState(), calls);
    expect(reviewed.map((r) => [r.outcome, r.ruleId])).toEqual([
      ["ask", "default:ask"],
      ["ask", "default:ask"],
    ]);
  });

  it("bypass mode auto-approves the default ask and says so; it never turns it into a silent allow", async () => {
    const guard = new Guard({ tools: risklessTools([]), bypass: true });
    const { reviewed } = await guard.reviewTurn(guard.initialRuleState(), calls);
    expect(reviewed.map((r) => [r.outcome, r.ruleId])).toEqual([
      ["run", "default:ask"],
      ["run", "default:ask"],
    ]);
  });

  it("property: any tool name, any arguments, no risk, no rule → never run without a human", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^[a-z][a-z0-9_]{0,20}$/),
        fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
        fc.constantFrom<Partial<GuardOptions>>({}, { permissions: new PermissionPolicy([]) }, { riskModes: { medium: "allow", low: "allow" } }),
        async (name, args, extra) => {
          const t = defineTool({ name, description: "d", schema: z.looseObject({}), execute: () => "ran" });
          const guard = new Guard({ tools: [t], ...extra });
          const { reviewed } = await guard.reviewTurn(guard.initialRuleState(), [{ id: "c", name, args: args as Record<string, unknown> }]);
          expect(reviewed[0]?.outcome).not.toBe("run");
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("the one explicit way back: defaultRisk (guard option or policy)", () => {
  it("defaultRisk in the guard's options lets risk-less calls run as that risk decides", async () => {
    const ran: string[] = [];
    const audit = new MemoryAuditSink();
    const model = fakeModel().respondWithTools(calls).respond(new AIMessage("done"));
    const agent = createGuardedAgent({ model, tools: risklessTools(ran), audit, defaultRisk: "medium", checkpointer: new MemorySaver() });
    const out = await agent.invoke({ messages: [new HumanMessage("go")] }, thread("explicit"));
    expect(pendingApproval(out)).toBeUndefined();
    expect(ran.sort()).toEqual(["fetch:https://attacker.example/x", "wipe_cache:all"]);
    const decisions = (await audit.query({ threadId: "explicit" })).filter((r) => r.event !== "outcome").map((r) => r.ruleId);
    expect(decisions).toEqual(["risk:medium", "risk:medium"]);
  });

  it("defaultRisk: high in the guard's options still asks (with the risk's rule id)", async () => {
    const guard = new Guard({ tools: risklessTools([]), defaultRisk: "high" });
    const { reviewed } = await guard.reviewTurn(guard.initialRuleState(), calls);
    expect(reviewed.map((r) => [r.outcome, r.ruleId])).toEqual([
      ["ask", "risk:high"],
      ["ask", "risk:high"],
    ]);
  });

  it("a policy file's defaultRisk reaches the guard through guardFromPolicy; the guard option wins over it", async () => {
    const policy = parsePolicy("version: 1\ndefaultRisk: low\n", "yaml", "low.yaml");
    const fromFile = await guardFromPolicy(policy, { tools: risklessTools([]) });
    const overridden = await guardFromPolicy(policy, { tools: risklessTools([]), defaultRisk: "high" });
    try {
      const a = await fromFile.guard.reviewTurn(fromFile.guard.initialRuleState(), calls);
      expect(a.reviewed.map((r) => [r.outcome, r.ruleId])).toEqual([
        ["run", "risk:low"],
        ["run", "risk:low"],
      ]);
      const b = await overridden.guard.reviewTurn(overridden.guard.initialRuleState(), calls);
      expect(b.reviewed.map((r) => [r.outcome, r.ruleId])).toEqual([
        ["ask", "risk:high"],
        ["ask", "risk:high"],
      ]);
    } finally {
      await fromFile.close();
      await overridden.close();
    }
  });

  it("a declared risk is never replaced by the default: a high tool under defaultRisk: low still asks", async () => {
    const high = defineTool({ name: "drop", description: "d", schema: z.object({}), risk: "high", execute: () => "x" });
    const guard = new Guard({ tools: [high], defaultRisk: "low" });
    const { reviewed } = await guard.reviewTurn(guard.initialRuleState(), [{ id: "d", name: "drop", args: {} }]);
    expect(reviewed[0]).toMatchObject({ outcome: "ask", ruleId: "risk:high" });
  });
});
