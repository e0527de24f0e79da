// An answer belongs to what it was asked about. Three ways a client could make an answer decide
// something else, each tried on the three entry points (createGuardedAgent, GuardedToolNode in a
// user's own graph, guardMiddleware in LangChain's createAgent):
// - two tools of one turn that each ask the user with LangGraph's `interrupt()` (langchain-ai/langgraph
//   #6624, #6626: several interrupts in one task are matched to resumes by their order in the task);
//   the guard does not run a finished call again, so the second tool's question must still get the
//   second answer, not the first;
// - a `Command({ update, resume })` whose update rewrites the calls waiting for approval (new
//   arguments, a new tool, an added call) in the same command as the approval: the approval was
//   given for what the reviewer was shown, so the rewritten calls are reviewed and asked again;
// - `updateState` rewriting or adding a call to the waiting message, then an approval.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { AIMessage } from "@langchain/core/messages";
import { Command, interrupt } from "@langchain/langgraph";
import { afterAll, describe, expect, it } from "vitest";
import { openCheckpointer } from "../src/storage/checkpointer.js";
import { openLedger } from "../src/storage/ledger.js";
import { postgresConfigured, postgresForTests, schemaDroppedAfterAll } from "./helpers/postgres.js";
import { z } from "zod";
import { pendingApproval } from "../src/guard/approval/payload.js";
import { defineTool } from "../src/tools/define-tool.js";
import { answersPerCall, deployTool, readFileTool } from "./helpers/ops-tools.js";
import { build, ENTRIES, messagesOf, newThread, resume, say, toolText, unanswered } from "./helpers/provider-agent.js";

/** A tool that asks the user a question with LangGraph's interrupt and returns the answer. */
function askTool(name: string, ran: string[]) {
  return defineTool({
    name,
    description: `Asks the user (${name})`,
    schema: z.object({ question: z.string() }),
    risk: "low",
    execute: ({ question }) => {
      const answer: unknown = interrupt({ question, tool: name });
      ran.push(`${name}: ${String(answer)}`);
      return `${name} got ${String(answer)}`;
    },
  });
}

/** Another tool that asks a human (high risk). */
function restartTool(ran: string[]) {
  return defineTool({ name: "restart", description: "Restart a service", schema: z.object({ service: z.string() }), risk: "high", execute: ({ service }) => (ran.push(`restart ${service}`), `restarted ${service}`) });
}

/** One approval per call of the rewritten message: what a client that approves what it now reads sends. */
const approveAll = (ai: AIMessage) => (ai.tool_calls ?? []).map(() => ({ type: "approve" as const }));

const interruptValues = (out: Record<string, unknown>) => ((out.__interrupt__ as { value: unknown }[] | undefined) ?? []).map((i) => i.value);

describe.each(ENTRIES)("%s", (entry) => {
  it("two tools that each ask the user in one turn get their own answers", async () => {
    const ran: string[] = [];
    const { graph } = build(entry, {
      tools: [askTool("ask_a", ran), askTool("ask_b", ran)],
      replies: [[{ name: "ask_a", args: { question: "colour?" }, id: "qa" }, { name: "ask_b", args: { question: "size?" }, id: "qb" }], "done"],
    });
    const config = newThread("two-asks");
    let out = await graph.invoke(say("ask me"), config);
    if (entry === "middleware") {
      // LangChain's createAgent runs each call as its own task: both questions wait at once, answered by interrupt id.
      const asked = (out.__interrupt__ as { id: string; value: { tool: string } }[]).map((i) => [i.value.tool, i.id] as const);
      expect(asked.map(([tool]) => tool).sort()).toEqual(["ask_a", "ask_b"]);
      const byId = Object.fromEntries(asked.map(([tool, id]) => [id, tool === "ask_a" ? "red" : "large"]));
      out = await graph.invoke(new Command({ resume: byId }), config);
    } else {
      expect(interruptValues(out)).toEqual([{ question: "colour?", tool: "ask_a" }]);
      out = await graph.invoke(new Command({ resume: "red" }), config);
      expect(interruptValues(out)).toEqual([{ question: "size?", tool: "ask_b" }]);
      out = await graph.invoke(new Command({ resume: "large" }), config);
    }
    expect(interruptValues(out)).toEqual([]);
    expect(toolText(messagesOf(out))).toMatchObject({ qa: "ask_a got red", qb: "ask_b got large" });
    // Each tool ran to its end once (a finished call is not run again).
    expect([...ran].sort()).toEqual(["ask_a: red", "ask_b: large"]);
    expect(String(messagesOf(out).at(-1)?.content)).toBe("done");
  });

  it("a call that asks approval, then a tool that asks the user: each answer goes where it was asked", async () => {
    const ran: string[] = [];
    const { graph } = build(entry, {
      tools: [deployTool(ran), askTool("ask_a", ran)],
      replies: [[{ name: "deploy", args: { service: "web" }, id: "d1" }, { name: "ask_a", args: { question: "colour?" }, id: "qa" }], "done"],
    });
    const config = newThread("approval-then-ask");
    let out = await graph.invoke(say("go"), config);
    expect(pendingApproval(out)?.actionRequests.map((a) => a.toolCallId)).toEqual(["d1"]);
    out = await graph.invoke(resume({ decisions: [{ type: "approve" }] }), config);
    expect(interruptValues(out)).toEqual([{ question: "colour?", tool: "ask_a" }]);
    out = await graph.invoke(new Command({ resume: "blue" }), config);
    expect(interruptValues(out)).toEqual([]);
    expect(toolText(messagesOf(out))).toMatchObject({ d1: "deployed web to staging", qa: "ask_a got blue" });
    expect(ran).toEqual(["deploy web staging", "ask_a: blue"]);
  });

  describe("an approval is for the calls the reviewer was shown", () => {
    async function waiting(label: string) {
      const ran: string[] = [];
      const built = build(entry, {
        tools: [deployTool(ran), readFileTool(ran), restartTool(ran)],
        replies: [[{ name: "deploy", args: { service: "web" }, id: "d1" }], "done", "done again", "done thrice"],
      });
      const config = newThread(label);
      const out = await built.graph.invoke(say("deploy web"), config);
      const request = pendingApproval(out);
      expect(request?.actionRequests.map((a) => [a.toolCallId, a.args])).toEqual([["d1", { service: "web" }]]);
      const state = await built.graph.getState(config);
      const ai = messagesOf(state.values).findLast((m) => AIMessage.isInstance(m)) as AIMessage;
      return { ...built, ran, config, ai };
    }

    const rewrites: [string, (ai: AIMessage) => AIMessage][] = [
      ["new arguments", (ai) => new AIMessage({ id: ai.id, content: "", tool_calls: [{ id: "d1", name: "deploy", args: { service: "db", env: "production" }, type: "tool_call" }] })],
      ["another tool", (ai) => new AIMessage({ id: ai.id, content: "", tool_calls: [{ id: "d1", name: "restart", args: { service: "db" }, type: "tool_call" }] })],
      ["an added call", (ai) => new AIMessage({ id: ai.id, content: "", tool_calls: [...(ai.tool_calls ?? []), { id: "d2", name: "deploy", args: { service: "db" }, type: "tool_call" }] })],
    ];

    it.each(rewrites)("Command({ update, resume }) with %s: nothing rewritten runs under the approval", async (_label, rewrite) => {
      const { graph, config, ran, ai } = await waiting("update-and-resume");
      const out = await graph.invoke(new Command({ update: { messages: [rewrite(ai)] }, resume: { decisions: approveAll(rewrite(ai)) } }), config);
      // Only the call the reviewer saw, as it was shown, may run: the rewritten ones are asked again.
      expect(ran.filter((r) => !r.startsWith("deploy web staging"))).toEqual([]);
      const request = pendingApproval(out);
      if (request === undefined) throw new Error("the rewritten calls were not asked again");
      // Asked again, as the calls are now, with the reason the answer was not applied.
      expect(request.actionRequests.map((a) => a.args)).toEqual((rewrite(ai).tool_calls ?? []).map((c) => c.args));
      expect(request.actionRequests[0]?.description).toBe(
        `Your last answer was refused and nothing was done: the calls waiting for approval were changed after you were asked (a state update rewrote their tool, arguments or number), so your answer was not applied to them; these are the calls as they are now. Answer again. ${request.actionRequests[0]?.name} needs approval by rule risk:high: no permission rule matched ${request.actionRequests[0]?.name}; high risk tools are asked about by default.`,
      );
      // Then an approval of what is shown runs exactly that.
      const done = await graph.invoke(resume({ decisions: approveAll(rewrite(ai)) }), config);
      expect(pendingApproval(done)).toBeUndefined();
      expect(unanswered(messagesOf(done))).toEqual([]);
      expect(ran.length).toBe((rewrite(ai).tool_calls ?? []).length);
    });

    it.each(rewrites)("updateState with %s, then approve: the rewritten calls are asked again", async (_label, rewrite) => {
      const { graph, config, ran, ai } = await waiting("update-state");
      await graph.updateState(config, { messages: [rewrite(ai)] });
      const out = await graph.invoke(resume({ decisions: approveAll(rewrite(ai)) }), config);
      expect(ran.filter((r) => !r.startsWith("deploy web staging"))).toEqual([]);
      const request = pendingApproval(out);
      if (request !== undefined) {
        expect(request.actionRequests.length).toBeGreaterThan(0);
        return;
      }
      // LangGraph took the update for the end of the waiting step (no interrupt waits, the resume
      // decides nothing): the thread's next input answers every waiting call once, and none of them ran.
      const next = await graph.invoke(say("what happened?"), config);
      const messages = messagesOf(next);
      expect(unanswered(messages)).toEqual([]);
      for (const count of Object.values(answersPerCall(messages))) expect(count).toBe(1);
      expect(ran.filter((r) => !r.startsWith("deploy web staging"))).toEqual([]);
    });
  });
});

// The same on durable storage: the SQLite checkpointer with the guard's ledger in the same file, where
// GuardedToolNode and guardMiddleware note the calls they ask about and the interrupts a call asked.
describe.each(ENTRIES)("%s on SQLite with the guard's ledger", (entry) => {
  const dir = mkdtempSync(path.join(tmpdir(), "gg-binding-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  async function durable() {
    const spec = `sqlite:${path.join(dir, `t${n++}.db`)}`;
    const opened = await openCheckpointer(spec);
    const ledger = await openLedger(spec);
    return { checkpointer: opened.checkpointer, guard: { ledger }, close: () => opened.close() };
  }

  it("Command({ update, resume }) with new arguments: asked again, then the approval runs what was shown", async () => {
    const store = await durable();
    try {
      const ran: string[] = [];
      const { graph } = build(entry, { tools: [deployTool(ran)], replies: [[{ name: "deploy", args: { service: "web" }, id: "d1" }], "done"], checkpointer: store.checkpointer, guard: store.guard });
      const config = newThread("durable-rewrite");
      await graph.invoke(say("deploy web"), config);
      const state = await graph.getState(config);
      const ai = messagesOf(state.values).findLast((m) => AIMessage.isInstance(m)) as AIMessage;
      const rewritten = new AIMessage({ id: ai.id, content: "", tool_calls: [{ id: "d1", name: "deploy", args: { service: "db", env: "production" }, type: "tool_call" }] });
      const out = await graph.invoke(new Command({ update: { messages: [rewritten] }, resume: { decisions: [{ type: "approve" }] } }), config);
      expect(ran).toEqual([]);
      expect(pendingApproval(out)?.actionRequests.map((a) => a.args)).toEqual([{ service: "db", env: "production" }]);
      const done = await graph.invoke(resume({ decisions: [{ type: "reject", message: "no" }] }), config);
      expect(ran).toEqual([]);
      expect(toolText(messagesOf(done)).d1).toMatch(/^Refused deploy by a human reviewer: no/);
      expect(unanswered(messagesOf(done))).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it("two tools that each ask the user in one turn get their own answers", async () => {
    const store = await durable();
    try {
      const ran: string[] = [];
      const { graph } = build(entry, {
        tools: [askTool("ask_a", ran), askTool("ask_b", ran)],
        replies: [[{ name: "ask_a", args: { question: "colour?" }, id: "qa" }, { name: "ask_b", args: { question: "size?" }, id: "qb" }], "done"],
        checkpointer: store.checkpointer,
        guard: store.guard,
      });
      const config = newThread("durable-two-asks");
      let out = await graph.invoke(say("ask me"), config);
      for (let i = 0; i < 4 && (out.__interrupt__ as unknown[] | undefined)?.length; i += 1) {
        const waiting = out.__interrupt__ as { id: string; value: { tool: string } }[];
        out = await graph.invoke(new Command({ resume: Object.fromEntries(waiting.map((w) => [w.id, w.value.tool === "ask_a" ? "red" : "large"])) }), config);
      }
      expect(toolText(messagesOf(out))).toMatchObject({ qa: "ask_a got red", qb: "ask_b got large" });
      expect([...ran].sort()).toEqual(["ask_a: red", "ask_b: large"]);
    } finally {
      await store.close();
    }
  });
});

// Without the guard's ledger on a durable checkpointer: what the reviewer was shown is read back from
// the checkpoint itself (the approval interrupt LangGraph saved with the waiting step), so the answer
// is still bound to it on every entry point.
const STORES = ["sqlite", ...(postgresConfigured ? ["postgres"] : [])] as const;
describe.each(ENTRIES.flatMap((entry) => STORES.map((store) => [entry, store] as const)))("%s on %s without a ledger", (entry, store) => {
  const dir = mkdtempSync(path.join(tmpdir(), "gg-binding-noledger-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  const schema = schemaDroppedAfterAll("gg_binding");
  async function checkpointer() {
    if (store === "sqlite") return openCheckpointer(`sqlite:${path.join(dir, `t${n++}.db`)}`);
    const url = await postgresForTests();
    if (url === undefined) throw new Error("PostgreSQL is not reachable");
    return openCheckpointer(url, { schema });
  }

  const rewrites: [string, (ai: AIMessage) => AIMessage][] = [
    ["new arguments", (ai) => new AIMessage({ id: ai.id, content: "", tool_calls: [{ id: "d1", name: "deploy", args: { service: "db", env: "production" }, type: "tool_call" }] })],
    ["another tool", (ai) => new AIMessage({ id: ai.id, content: "", tool_calls: [{ id: "d1", name: "restart", args: { service: "db" }, type: "tool_call" }] })],
    ["an added call", (ai) => new AIMessage({ id: ai.id, content: "", tool_calls: [...(ai.tool_calls ?? []), { id: "d2", name: "deploy", args: { service: "db" }, type: "tool_call" }] })],
  ];

  it.each(rewrites)("Command({ update, resume }) with %s: asked again, then the approval runs what is shown", async (_label, rewrite) => {
    const opened = await checkpointer();
    try {
      const ran: string[] = [];
      const { graph } = build(entry, { tools: [deployTool(ran), restartTool(ran)], replies: [[{ name: "deploy", args: { service: "web" }, id: "d1" }], "done"], checkpointer: opened.checkpointer });
      const config = newThread("noledger-rewrite");
      await graph.invoke(say("deploy web"), config);
      const state = await graph.getState(config);
      const ai = messagesOf(state.values).findLast((m) => AIMessage.isInstance(m)) as AIMessage;
      const rewritten = rewrite(ai);
      const out = await graph.invoke(new Command({ update: { messages: [rewritten] }, resume: { decisions: approveAll(rewritten) } }), config);
      expect(ran.filter((r) => !r.startsWith("deploy web staging"))).toEqual([]);
      expect(pendingApproval(out)?.actionRequests.map((a) => a.args)).toEqual((rewritten.tool_calls ?? []).map((c) => c.args));
      const done = await graph.invoke(resume({ decisions: approveAll(rewritten) }), config);
      expect(pendingApproval(done)).toBeUndefined();
      expect(unanswered(messagesOf(done))).toEqual([]);
      expect(ran.length).toBe((rewritten.tool_calls ?? []).length);
    } finally {
      await opened.close();
    }
  });

  it("a plain approval runs the call shown, once", async () => {
    const opened = await checkpointer();
    try {
      const ran: string[] = [];
      const { graph } = build(entry, { tools: [deployTool(ran)], replies: [[{ name: "deploy", args: { service: "web" }, id: "d1" }], "done"], checkpointer: opened.checkpointer });
      const config = newThread("noledger-plain");
      await graph.invoke(say("deploy web"), config);
      const done = await graph.invoke(resume({ decisions: [{ type: "approve" }] }), config);
      expect(ran).toEqual(["deploy web staging"]);
      expect(unanswered(messagesOf(done))).toEqual([]);
    } finally {
      await opened.close();
    }
  });
});
