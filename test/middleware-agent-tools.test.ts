// Tools a createAgent agent gets from elsewhere — another middleware's `tools` (LangChain's
// todoListMiddleware `write_todos`, which answers with a Command that sets `todos`) and
// `createAgent({ tools })` — are shown to the model and reviewed by guardMiddleware like its own
// tools, then run through the agent's own tool handler once approved (audited, ledger-kept).
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { Command, MemorySaver } from "@langchain/langgraph";
import { createAgent, todoListMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryAuditSink } from "../src/audit/memory.js";
import { guardMiddleware } from "../src/middleware/index.js";
import { PermissionPolicy } from "../src/policy/permissions.js";
import { defineTool } from "../src/tools/define-tool.js";
import { providerModel, unanswered } from "./helpers/provider-agent.js";
import type { Reply } from "./helpers/provider-agent.js";

let counter = 0;
const thread = (label: string) => ({ configurable: { thread_id: `agent-tools-${label}-${counter++}` } });
const say = (text: string) => ({ messages: [new HumanMessage(text)] });

function transcript(messages: readonly BaseMessage[]): string[] {
  return messages.map((m) => `${m.getType()}:${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}`);
}

function lookup(ran: string[]) {
  return defineTool({ name: "lookup", description: "Looks something up", schema: z.object({ q: z.string() }), risk: "low", execute: ({ q }) => (ran.push(`lookup ${q}`), `found ${q}`) });
}

const todoCall: Reply[] = [[{ name: "write_todos", args: { todos: [{ content: "ship it", status: "pending" }] }, id: "t1" }], "planned"];

describe("todoListMiddleware + guardMiddleware: write_todos updates `todos` under the guard", () => {
  it.each(["guard last", "guard first"] as const)("%s: with defaultRisk low it runs, as without the guard", async (order) => {
    const audit = new MemoryAuditSink();
    const todos = todoListMiddleware();
    const guard = guardMiddleware({ tools: [lookup([])], defaultRisk: "low", audit });
    const refusals: string[] = [];
    const agent = createAgent({ model: providerModel(todoCall, refusals, []), middleware: order === "guard last" ? [todos, guard] : [guard, todos], checkpointer: new MemorySaver() });
    const out = await agent.invoke(say("plan"), thread(order));
    const plain = createAgent({ model: providerModel(todoCall, [], []), middleware: [todoListMiddleware()], checkpointer: new MemorySaver() });
    const expected = await plain.invoke(say("plan"), thread(`${order}-plain`));
    expect(out.todos).toEqual([{ content: "ship it", status: "pending" }]);
    expect(out.todos).toEqual(expected.todos);
    expect(transcript(out.messages)).toEqual(transcript(expected.messages));
    expect(refusals).toEqual([]);
    // Reviewed and audited like the guard's own tools.
    const records = (await audit.query()).filter((r) => r.toolCallId === "t1");
    expect(records.map((r) => [r.event, r.decision])).toEqual([["decision", "allow"], ["outcome", "success"]]);
  });

  it("the model sees write_todos beside the guard's tools", async () => {
    const seen: string[][] = [];
    const model = providerModel(["nothing to do"], [], []);
    const bindTools = model.bindTools.bind(model);
    model.bindTools = ((tools: { name?: string; function?: { name?: string } }[]) => {
      seen.push(tools.map((t) => t.name ?? t.function?.name ?? ""));
      return bindTools(tools as never);
    }) as typeof model.bindTools;
    const agent = createAgent({ model, middleware: [todoListMiddleware(), guardMiddleware({ tools: [lookup([])] })], checkpointer: new MemorySaver() });
    await agent.invoke(say("hi"), thread("seen"));
    expect([...(seen[0] ?? [])].sort()).toEqual(["lookup", "write_todos"]);
  });

  it("no rule and no declared risk: the call asks a human; approve runs it once, reject runs nothing", async () => {
    for (const decision of [{ type: "approve" }, { type: "reject", message: "no plan" }] as const) {
      const agent = createAgent({ model: providerModel([...todoCall, "ok"], [], []), middleware: [todoListMiddleware(), guardMiddleware({ tools: [lookup([])] })], checkpointer: new MemorySaver() });
      const config = thread(`ask-${decision.type}`);
      const paused = await agent.invoke(say("plan"), config);
      const interrupts = (paused as { __interrupt__?: { value: { actionRequests: { name: string }[] } }[] }).__interrupt__ ?? [];
      expect(interrupts[0]?.value.actionRequests.map((a) => a.name)).toEqual(["write_todos"]);
      expect(paused.todos ?? []).toEqual([]);
      const out = await agent.invoke(new Command({ resume: { decisions: [decision] } }), config);
      expect(out.todos ?? []).toEqual(decision.type === "approve" ? [{ content: "ship it", status: "pending" }] : []);
      expect(unanswered(out.messages)).toEqual([]);
    }
  });

  it("agentTools: permission rules and toolRisk name write_todos and its arguments", async () => {
    const todos = todoListMiddleware();
    const permissions = new PermissionPolicy([{ id: "no-deploy-todos", tool: "write_todos", args: "deploy", mode: "deny", reason: "deploy plans go through the release board" }]);
    const guard = guardMiddleware({ tools: [lookup([])], agentTools: todos.tools ?? [], permissions, toolRisk: { write_todos: "low" } });
    const replies: Reply[] = [[{ name: "write_todos", args: { todos: [{ content: "deploy web", status: "pending" }] }, id: "d1" }], [{ name: "write_todos", args: { todos: [{ content: "write docs", status: "pending" }] }, id: "d2" }], "ok"];
    const agent = createAgent({ model: providerModel(replies, [], []), middleware: [todos, guard], checkpointer: new MemorySaver() });
    const out = await agent.invoke(say("plan"), thread("agent-tools"));
    const answers = out.messages.filter((m) => ToolMessage.isInstance(m)).map((m) => String(m.content));
    expect(answers[0]).toMatch(/^Refused write_todos by rule permission:no-deploy-todos: deploy plans go through the release board/);
    expect(out.todos).toEqual([{ content: "write docs", status: "pending" }]);
  });
});

describe("tools given to createAgent({ tools }) beside guardMiddleware", () => {
  it("are shown to the model and reviewed: with defaultRisk they run through the agent's handler, audited", async () => {
    const ran: string[] = [];
    const stray = tool(async ({ city }) => (ran.push(city), `sunny in ${city}`), { name: "weather", description: "Weather", schema: z.object({ city: z.string() }) });
    const audit = new MemoryAuditSink();
    const agent = createAgent({ model: providerModel([[{ name: "weather", args: { city: "Oslo" }, id: "w1" }], "nice"], [], []), tools: [stray], middleware: [guardMiddleware({ tools: [lookup([])], defaultRisk: "low", audit })], checkpointer: new MemorySaver() });
    const out = await agent.invoke(say("weather?"), thread("stray"));
    expect(ran).toEqual(["Oslo"]);
    expect(out.messages.filter((m) => ToolMessage.isInstance(m)).map((m) => m.content)).toEqual(["sunny in Oslo"]);
    expect((await audit.query()).filter((r) => r.toolCallId === "w1").map((r) => r.event)).toEqual(["decision", "outcome"]);
  });

  it("a permission rule denies one by name: it does not run", async () => {
    const ran: string[] = [];
    const stray = tool(async ({ city }) => (ran.push(city), `sunny in ${city}`), { name: "weather", description: "Weather", schema: z.object({ city: z.string() }) });
    const permissions = new PermissionPolicy([{ id: "no-weather", tool: "weather", mode: "deny", reason: "no weather today" }]);
    const agent = createAgent({ model: providerModel([[{ name: "weather", args: { city: "Oslo" }, id: "w1" }], "ok"], [], []), tools: [stray], middleware: [guardMiddleware({ tools: [lookup([])], agentTools: [stray], permissions })], checkpointer: new MemorySaver() });
    const out = await agent.invoke(say("weather?"), thread("stray-deny"));
    expect(ran).toEqual([]);
    expect(String(out.messages.find((m) => ToolMessage.isInstance(m))?.content)).toMatch(/^Refused weather by rule permission:no-weather/);
  });
});
