// Providers that number their tool calls per response (`call_0` in every turn: some OpenAI-compatible
// servers and proxies) repeat call ids across the turns of one run. Each such call is a call of its
// own: it runs, its ToolMessage carries its own result, and the tool rules count it. Before, the
// second `call_0` of a run was taken for the first one (the ledger, the process ledger of MemorySaver
// included, keyed a call by thread + run + call id): it never ran, and the model was told the first
// call's result for it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Annotation, END, MemorySaver, START, StateGraph, type BaseCheckpointSaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryAuditSink } from "../src/audit/index.js";
import { createGuardedAgent } from "../src/guard/agent.js";
import { Guard } from "../src/guard/guard.js";
import { withBoundedArguments } from "../src/guard/model-step.js";
import { GuardAnnotation } from "../src/guard/state.js";
import { GuardedToolNode, guardedToolsRoute } from "../src/guard/tool-node.js";
import { guardMiddleware } from "../src/middleware/index.js";
import { openCheckpointer } from "../src/storage/checkpointer.js";
import { openLedger } from "../src/storage/ledger.js";
import type { ExecutionLedger } from "../src/storage/ledger.js";
import { defineTool } from "../src/tools/define-tool.js";
import type { ToolRule } from "../src/rules/types.js";
import { postgresConfigured, postgresForTests, schemaDroppedAfterAll } from "./helpers/postgres.js";
import { toolNodeGraph } from "./helpers/tool-node-graph.js";

const tmp = mkdtempSync(join(tmpdir(), "gg-repeated-ids-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A tool that records each text it ran with. */
function echoTool(ran: string[]) {
  return defineTool({
    name: "echo",
    description: "Echo a text",
    schema: z.object({ text: z.string() }),
    risk: "low",
    execute: (input) => {
      ran.push(input.text);
      return `echo ${input.text}`;
    },
  });
}

const TEXTS = ["one", "two", "three"];

/** Three turns, each one call named `call_0` (as such providers name them), then a final answer. */
function repeatingModel(ids: readonly (string | undefined)[] = ["call_0", "call_0", "call_0"]) {
  let model = fakeModel();
  TEXTS.forEach((text, turn) => {
    model = model.respondWithTools([{ name: "echo", args: { text }, ...(ids[turn] === undefined ? {} : { id: ids[turn] }) }]);
  });
  return model.respond(new AIMessage("done"));
}

/** Each ToolMessage's content, in order. */
function answers(messages: readonly BaseMessage[]): string[] {
  return messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => String(m.content));
}

/** Every call ran once with its own arguments, and its ToolMessage says so; the audit saw three successes. */
async function expectEachCallItsOwn(messages: readonly BaseMessage[], ran: readonly string[], audit: MemoryAuditSink, threadId: string) {
  expect(ran).toEqual(TEXTS);
  expect(answers(messages)).toEqual(TEXTS.map((t) => `echo ${t}`));
  const outcomes = (await audit.query({ threadId })).filter((r) => r.event === "outcome");
  expect(outcomes.map((r) => r.decision)).toEqual(["success", "success", "success"]);
}

async function guardedAgentRun(options: { ledger?: ExecutionLedger; checkpointer?: BaseCheckpointSaver; rules?: ToolRule[]; ids?: (string | undefined)[] }, threadId: string) {
  const ran: string[] = [];
  const audit = new MemoryAuditSink();
  const agent = createGuardedAgent({
    model: repeatingModel(options.ids),
    tools: [echoTool(ran)],
    audit,
    checkpointer: options.checkpointer ?? new MemorySaver(),
    ...(options.ledger ? { ledger: options.ledger } : {}),
    ...(options.rules ? { rules: options.rules } : {}),
  });
  const out = await agent.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: threadId } });
  return { ran, audit, messages: out.messages as BaseMessage[] };
}

describe("a model that repeats a tool call id across the turns of one run", () => {
  it("createGuardedAgent on MemorySaver (the process ledger): each call runs and is answered with its own result", async () => {
    const { ran, audit, messages } = await guardedAgentRun({}, "mem");
    await expectEachCallItsOwn(messages, ran, audit, "mem");
  });

  it("createGuardedAgent with an in-memory ledger", async () => {
    const { ran, audit, messages } = await guardedAgentRun({ ledger: await openLedger("memory:repeated") }, "memledger");
    await expectEachCallItsOwn(messages, ran, audit, "memledger");
  });

  it("createGuardedAgent on SQLite (checkpointer and ledger in one file)", async () => {
    const file = join(tmp, "repeated.db");
    const opened = await openCheckpointer(`sqlite:${file}`);
    const ledger = await openLedger(`sqlite:${file}`);
    try {
      const { ran, audit, messages } = await guardedAgentRun({ ledger, checkpointer: opened.checkpointer }, "sqlite");
      await expectEachCallItsOwn(messages, ran, audit, "sqlite");
    } finally {
      await ledger.close();
      await opened.close();
    }
  });

  describe.runIf(postgresConfigured)("PostgreSQL", () => {
    const schema = schemaDroppedAfterAll("gg_repeated_ids");
    it("createGuardedAgent on a PostgreSQL checkpointer and ledger", async () => {
      const url = await postgresForTests();
      if (!url) return;
      const opened = await openCheckpointer(url, { schema });
      const ledger = await openLedger(url, { schema });
      try {
        const { ran, audit, messages } = await guardedAgentRun({ ledger, checkpointer: opened.checkpointer }, "pg");
        await expectEachCallItsOwn(messages, ran, audit, "pg");
      } finally {
        await ledger.close();
        await opened.close();
      }
    });
  });

  it("the tool rules count every call: MaxCalls 2 refuses the third call_0", async () => {
    const { ran, messages } = await guardedAgentRun({ rules: [{ id: "two", type: "MaxCalls", tool: "echo", max: 2 }] }, "maxcalls");
    expect(ran).toEqual(["one", "two"]);
    const third = messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m))[2];
    expect(third?.status).toBe("error");
    expect(String(third?.content)).not.toMatch(/^echo /);
  });

  it("calls without an id in every turn are each their own too", async () => {
    const { ran, audit, messages } = await guardedAgentRun({ ids: [undefined, undefined, undefined] }, "noid");
    await expectEachCallItsOwn(messages, ran, audit, "noid");
  });

  it("GuardedToolNode in a user's StateGraph", async () => {
    const ran: string[] = [];
    const audit = new MemoryAuditSink();
    const graph = toolNodeGraph(new Guard({ tools: [echoTool(ran)], audit }), repeatingModel());
    const out = await graph.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: "node" } });
    await expectEachCallItsOwn(out.messages, ran, audit, "node");
  });

  it("guardMiddleware on LangChain's createAgent", async () => {
    const ran: string[] = [];
    const audit = new MemoryAuditSink();
    const agent = createAgent({ model: repeatingModel(), middleware: [guardMiddleware({ tools: [echoTool(ran)], audit })], checkpointer: new MemorySaver() });
    const out = await agent.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: "mw" } });
    await expectEachCallItsOwn(out.messages, ran, audit, "mw");
  });

  it("GuardedToolNode in a graph whose messages reducer gives no ids (a plain concat): the model's same answer twice runs twice, each recorded", async () => {
    let runs = 0;
    const tool = defineTool({
      name: "echo",
      description: "Echo a text",
      schema: z.object({ text: z.string() }),
      risk: "low",
      execute: (input) => `echo ${input.text} #${++runs}`,
    });
    const State = Annotation.Root({ messages: Annotation<BaseMessage[]>({ reducer: (a, b) => a.concat(b), default: () => [] }), ...GuardAnnotation.spec });
    let turn = 0;
    // A provider that gives its messages no id and numbers its calls per response, asked the same twice.
    const answer = () => (++turn <= 2 ? new AIMessage({ content: "", tool_calls: [{ name: "echo", args: { text: "same" }, id: "call_0", type: "tool_call" }] }) : new AIMessage("done"));
    const audit = new MemoryAuditSink();
    const graph = new StateGraph(State)
      .addNode("agent", () => ({ messages: [withBoundedArguments(answer())] }))
      .addNode("tools", new GuardedToolNode(new Guard({ tools: [tool], audit })))
      .addEdge(START, "agent")
      .addConditionalEdges("agent", (st) => ((st.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END), ["tools", END])
      .addConditionalEdges("tools", guardedToolsRoute("agent"), ["agent", END])
      .compile({ checkpointer: new MemorySaver() });
    const out = await graph.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: "concat" } });
    expect(answers(out.messages)).toEqual(["echo same #1", "echo same #2"]);
    const records = await audit.query({ threadId: "concat" });
    expect(records.map((r) => `${r.event}:${r.decision}`)).toEqual(["decision:allow", "outcome:success", "decision:allow", "outcome:success"]);
  });
});
