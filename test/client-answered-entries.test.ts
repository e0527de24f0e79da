// LangGraph's "provide the tool's result yourself" on every entry point: the run stops before the
// tools (`interruptBefore`), the client gives one planned call's result with
// `updateState(config, { messages: [new ToolMessage({ tool_call_id, content })] }, asNode)`, then
// `invoke(null)`. The answered call does not run, every other planned call runs exactly once and gets
// exactly one ToolMessage, and every model call reads each call of the history answered exactly once
// (a provider refuses a message list where a call has no ToolMessage, or two).
//
// Entry points: createGuardedAgent, GuardedToolNode in a user's own graph routed by guardedToolsRoute,
// LangChain's createAgent with guardMiddleware. Checkpointers: MemorySaver and SQLite. asNode: unset,
// "tools", and each graph's own node names. Then the adversarial updates a client can send.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Command, MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryAuditSink } from "../src/audit/index.js";
import { pendingApproval } from "../src/guard/approval/payload.js";
import { openCheckpointer } from "../src/storage/checkpointer.js";
import { openLedger, type ExecutionLedger } from "../src/storage/ledger.js";
import { defineTool } from "../src/tools/define-tool.js";
import { execution } from "../src/messages/index.js";
import { answers, oneAnswerPerCall } from "./helpers/tool-messages.js";
import { entryGraph, type Entry } from "./helpers/entry-graph.js";

const tmp = mkdtempSync(join(tmpdir(), "gg-client-answered-entries-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));


interface Graph {
  invoke(input: unknown, config: unknown): Promise<{ messages: BaseMessage[] }>;
  updateState(config: unknown, values: unknown, asNode?: string): Promise<unknown>;
  getState(config: unknown): Promise<{ next: readonly string[]; values: { messages?: BaseMessage[] } }>;
}

/** Where each entry point's run stops before its tools, and the node names a client may name. */
const STOP_BEFORE: Record<Entry, string[]> = { agent: ["execute", "tools"], node: ["tools"], middleware: ["tools"] };
const AS_NODES: Record<Entry, (string | undefined)[]> = {
  agent: [undefined, "tools", "agent", "review", "collect"],
  // The update attributed to your model node (asNode "agent", or unset: the run stopped right after it)
  // is routed by your model node's edge, which the guard does not own: give the result as "tools".
  node: ["tools"],
  middleware: [undefined, "tools", "model_request", "GuardMiddleware.after_model", "GuardMiddleware.before_model"],
};

interface Tool {
  name: string;
  risk: "low" | "high";
}

interface Storage {
  checkpointer: BaseCheckpointSaver;
  ledger?: ExecutionLedger;
  close(): Promise<void>;
}

function build(entry: Entry, storage: Storage, toolSpecs: readonly Tool[], calls: { name: string; id: string }[]) {
  const { checkpointer, ledger } = storage;
  const ran: string[] = [];
  const tools = toolSpecs.map((t) =>
    defineTool({ name: t.name, description: `${t.name} tool`, schema: z.object({ s: z.string() }), risk: t.risk, execute: ({ s }) => (ran.push(s), `${t.name} ${s}`) }),
  );
  const model = fakeModel()
    .respondWithTools(calls.map((c) => ({ name: c.name, args: { s: c.id }, id: c.id })))
    .respond(new AIMessage("done"));
  const audit = new MemoryAuditSink();
  const guarded = { tools, audit, ...(ledger ? { ledger } : {}) };
  const graph = entryGraph(entry, model, guarded, checkpointer) as Graph;
  return { graph, ran, model, audit };
}

const CHECKPOINTERS: [string, () => Promise<Storage>][] = [
  ["MemorySaver", async () => ({ checkpointer: new MemorySaver(), close: async () => {} })],
  ["SQLite without a ledger", async () => openCheckpointer(`sqlite:${join(tmp, `${Math.random()}.db`)}`)],
  [
    "SQLite with the guard's ledger",
    async () => {
      const opened = await openCheckpointer(`sqlite:${join(tmp, `${Math.random()}.db`)}`);
      const ledger = await openLedger(`sqlite:${join(tmp, `${Math.random()}-ledger.db`)}`);
      return { checkpointer: opened.checkpointer, ledger, close: async () => (await ledger.close(), await opened.close()) };
    },
  ],
];


/** Every model call after the first read a valid history. */
function modelReadValidHistories(model: ReturnType<typeof fakeModel>) {
  for (const call of model.calls) expect(oneAnswerPerCall(call.messages)).toEqual([]);
}

const config = (threadId: string) => ({ configurable: { thread_id: threadId } });

/** Runs to the stop before the tools (approving every asked call first), then checks nothing ran. */
async function stopBeforeTools(entry: Entry, graph: Graph, threadId: string, ran: string[], risk: "low" | "high" = "low") {
  const stop = { ...config(threadId), interruptBefore: STOP_BEFORE[entry] };
  // A high-risk turn is asked about first (nothing runs before the answer), then stopped before the tools once approved.
  const out = await graph.invoke({ messages: [new HumanMessage("go")] }, risk === "high" ? config(threadId) : stop);
  const asked = pendingApproval(out);
  expect(asked?.actionRequests.length).toBe(risk === "high" ? 2 : undefined);
  if (asked) await graph.invoke(new Command({ resume: { decisions: asked.actionRequests.map(() => ({ type: "approve" })) } }), stop);
  expect(ran).toEqual([]);
  expect((await graph.getState(config(threadId))).next.some((n) => STOP_BEFORE[entry].includes(n))).toBe(true);
}

const outcomes = async (audit: MemoryAuditSink, threadId: string) =>
  (await audit.query({ threadId })).filter((r) => r.event === "outcome").map((r) => `${r.toolCallId}:${r.decision}`).sort();

// GuardedToolNode asks for approval inside the tools step and runs what was approved in the same
// step: its run cannot stop between an approval and the tools, so only a low-risk turn applies there.
const RISKS: Record<Entry, ("low" | "high")[]> = { agent: ["low", "high"], node: ["low"], middleware: ["low", "high"] };

describe.each(CHECKPOINTERS)("a client's ToolMessage for one of two planned calls (%s)", (name, open) => {
  describe.each(["agent", "node", "middleware"] as const)("%s", (entry) => {
    const cases = RISKS[entry].flatMap((risk) => AS_NODES[entry].map((asNode) => [risk, asNode ?? "unset"] as const));
    it.each(cases)("%s risk, asNode %s: the answered call never runs, its sibling runs once, the model reads one answer per call", async (risk, asNode) => {
      const opened = await open();
      try {
        const threadId = `${entry}-${risk}-${asNode}`;
        const { graph, ran, model, audit } = build(entry, opened, [{ name: "deploy", risk }], [{ name: "deploy", id: "c1" }, { name: "deploy", id: "c2" }]);
        await stopBeforeTools(entry, graph, threadId, ran, risk);
        await graph.updateState(config(threadId), { messages: [new ToolMessage({ tool_call_id: "c1", content: "given by the client" })] }, asNode === "unset" ? undefined : asNode);
        const out = await graph.invoke(null, config(threadId));
        if (entry === "middleware" && asNode === "GuardMiddleware.before_model") {
          // Attributed to the hook before the model, the update leads straight to LangChain's model step:
          // no tools step comes, so the guard answers the call that never ran as not run (run:skipped)
          // before the model is called. Each call answered once; c2 did not run. The audit ends both
          // without running: c1 as the client's answer (run:answered), c2 as skipped.
          expect(ran).toEqual([]);
          expect(answers(out.messages)).toEqual(["c1=given by the client", `c2=${execution.skippedByJump("deploy")}`]);
          modelReadValidHistories(model);
          expect(model.callCount).toBe(2);
          expect(await outcomes(audit, threadId)).toEqual(["c1:cancelled", "c2:cancelled"]);
          return;
        }
        if (entry === "node" && opened.ledger === undefined && name !== "MemorySaver") {
          // GuardedToolNode without a ledger on a durable checkpointer cannot tell this answer from one a
          // client sent while an approval waited (the node asks inside its own step): fail closed, the
          // answer is dropped and each call refused as superseded; nothing runs, one answer per call.
          expect(ran).toEqual([]);
          expect(answers(out.messages).map((a) => a.split("=")[0])).toEqual(["c1", "c2"]);
          expect(answers(out.messages).every((a) => a.includes("approval:superseded"))).toBe(true);
          modelReadValidHistories(model);
          expect(model.callCount).toBe(2);
          return;
        }
        expect(ran).toEqual(["c2"]);
        expect(answers(out.messages)).toEqual(["c1=given by the client", "c2=deploy c2"]);
        expect(oneAnswerPerCall(out.messages)).toEqual([]);
        modelReadValidHistories(model);
        expect(model.callCount).toBe(2);
        expect(String(out.messages.at(-1)?.content)).toBe("done");
        // c2's run is audited; c1 never has a success.
        const recorded = await outcomes(audit, threadId);
        expect(recorded).toContain("c2:success");
        expect(recorded).not.toContain("c1:success");
      } finally {
        await opened.close();
      }
    });
  });
});

describe.each(CHECKPOINTERS)("adversarial client answers before the tools (%s)", (name, open) => {
  const ENTRIES = ["agent", "node", "middleware"] as const;
  const twoCalls = [{ name: "deploy", id: "c1" }, { name: "deploy", id: "c2" }];

  /** GuardedToolNode without a ledger on a durable checkpointer screens a client's answer (see above): nothing runs, each call refused once. */
  const screens = (entry: Entry, opened: Storage) => entry === "node" && opened.ledger === undefined && name !== "MemorySaver";
  function expectScreened(out: { messages: BaseMessage[] }, ran: string[], model: ReturnType<typeof fakeModel>) {
    expect(ran).toEqual([]);
    expect(answers(out.messages).map((a) => a.split("=")[0])).toEqual(["c1", "c2"]);
    expect(answers(out.messages).every((a) => a.includes("approval:superseded"))).toBe(true);
    modelReadValidHistories(model);
  }

  async function prepared(entry: Entry, threadId: string, opened: Storage) {
    const built = build(entry, opened, [{ name: "deploy", risk: "low" }], twoCalls);
    await stopBeforeTools(entry, built.graph, threadId, built.ran);
    return built;
  }

  it.each(ENTRIES)("%s: an answer for a call id the model never made answers nothing; every planned call runs once", async (entry) => {
    const opened = await open();
    try {
      const threadId = `${entry}-stray`;
      const { graph, ran, model } = await prepared(entry, threadId, opened);
      await graph.updateState(config(threadId), { messages: [new ToolMessage({ tool_call_id: "never-made", content: "stray" })] }, "tools");
      const out = await graph.invoke(null, config(threadId));
      expect([...ran].sort()).toEqual(["c1", "c2"]);
      expect(answers(out.messages).sort()).toEqual(["c1=deploy c1", "c2=deploy c2"]);
      // The stray answer is dropped before the model reads the thread (a provider refuses a ToolMessage for no call).
      modelReadValidHistories(model);
      expect(model.callCount).toBe(2);
    } finally {
      await opened.close();
    }
  });

  it.each(ENTRIES)("%s: an answer with status \"error\" is that call's answer", async (entry) => {
    const opened = await open();
    try {
      const threadId = `${entry}-error`;
      const { graph, ran, model } = await prepared(entry, threadId, opened);
      await graph.updateState(config(threadId), { messages: [new ToolMessage({ tool_call_id: "c1", content: "failed at the client", status: "error" })] }, "tools");
      const out = await graph.invoke(null, config(threadId));
      if (screens(entry, opened)) return expectScreened(out, ran, model);
      expect(ran).toEqual(["c2"]);
      expect(answers(out.messages)).toEqual(["c1=failed at the client", "c2=deploy c2"]);
      expect(out.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).find((m) => m.tool_call_id === "c1")?.status).toBe("error");
      modelReadValidHistories(model);
      expect(model.callCount).toBe(2);
    } finally {
      await opened.close();
    }
  });

  it.each(ENTRIES)("%s: two updates answering the same call: the model reads one answer for it (the first), the sibling runs once", async (entry) => {
    const opened = await open();
    try {
      const threadId = `${entry}-twice`;
      const { graph, ran, model } = await prepared(entry, threadId, opened);
      await graph.updateState(config(threadId), { messages: [new ToolMessage({ tool_call_id: "c1", content: "first" })] }, "tools");
      await graph.updateState(config(threadId), { messages: [new ToolMessage({ tool_call_id: "c1", content: "second" })] }, "tools");
      const out = await graph.invoke(null, config(threadId));
      if (screens(entry, opened)) return expectScreened(out, ran, model);
      expect(ran).toEqual(["c2"]);
      expect(answers(out.messages)).toEqual(["c1=first", "c2=deploy c2"]);
      modelReadValidHistories(model);
      expect(model.callCount).toBe(2);
    } finally {
      await opened.close();
    }
  });

  it.each(ENTRIES)("%s: answers for every call: nothing runs, the model reads them", async (entry) => {
    const opened = await open();
    try {
      const threadId = `${entry}-all`;
      const { graph, ran, model } = await prepared(entry, threadId, opened);
      await graph.updateState(config(threadId), { messages: [new ToolMessage({ tool_call_id: "c1", content: "one" }), new ToolMessage({ tool_call_id: "c2", content: "two" })] }, "tools");
      const out = await graph.invoke(null, config(threadId));
      expect(ran).toEqual([]);
      expect(answers(out.messages)).toEqual(["c1=one", "c2=two"]);
      modelReadValidHistories(model);
      expect(model.callCount).toBe(2);
      expect(String(out.messages.at(-1)?.content)).toBe("done");
    } finally {
      await opened.close();
    }
  });
});

// A client's ToolMessage for a sibling of a call that WAITS FOR HUMAN APPROVAL (the run stopped at the
// approval interrupt; the sibling was allowed but, like every call of the turn, waits with it). As for
// new input, the guard alone answers waiting calls: the client's ToolMessage is dropped and every
// waiting call is refused as superseded, once (docs/approvals.md). The resume that follows finds no
// approval to answer. Before, on createGuardedAgent, the update ended the waiting step and led nowhere:
// the approved call was never answered and the thread held an open call until its next input.
const WAITING_AS_NODES: Record<Entry, (string | undefined)[]> = {
  agent: [undefined, "tools", "execute", "review", "agent"],
  node: ["tools"],
  middleware: [undefined],
};

describe.each(CHECKPOINTERS)("a client's ToolMessage for a sibling of a call waiting for approval (%s)", (_name, open) => {
  const cases = (["agent", "node", "middleware"] as const).flatMap((entry) => WAITING_AS_NODES[entry].map((asNode) => [entry, asNode ?? "unset"] as const));
  it.each(cases)("%s, asNode %s: nothing runs, each call answered once (superseded), the model reads them, the audit says so", async (entry, asNode) => {
    const opened = await open();
    try {
      const threadId = `waiting-${entry}-${asNode}`;
      const { graph, ran, model, audit } = build(entry, opened, [{ name: "search", risk: "low" }, { name: "deploy", risk: "high" }], [{ name: "search", id: "s1" }, { name: "deploy", id: "d1" }]);
      const asked = pendingApproval(await graph.invoke({ messages: [new HumanMessage("go")] }, config(threadId)));
      expect(asked?.actionRequests.map((a) => a.name)).toEqual(["deploy"]);
      await graph.updateState(config(threadId), { messages: [new ToolMessage({ tool_call_id: "s1", content: "given by the client" })] }, asNode === "unset" ? undefined : asNode);
      const out = await graph.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), config(threadId));
      expect(ran).toEqual([]);
      expect(pendingApproval(out)).toBeUndefined();
      const given = answers(out.messages);
      expect(given.map((a) => a.split("=")[0])).toEqual(["s1", "d1"]);
      expect(given.every((a) => a.includes("approval:superseded"))).toBe(true);
      expect(oneAnswerPerCall(out.messages)).toEqual([]);
      modelReadValidHistories(model);
      expect(model.callCount).toBe(2);
      expect(String(out.messages.at(-1)?.content)).toBe("done");
      const denied = (await audit.query({ threadId })).filter((r) => r.event === "decision" && r.ruleId === "approval:superseded").map((r) => r.toolCallId).sort();
      expect(denied).toEqual(["d1", "s1"]);
    } finally {
      await opened.close();
    }
  });
});
