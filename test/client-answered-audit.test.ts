// What the audit log says about a call a client answered itself, on each of the three entry points.
// LangGraph's "give the tool's result yourself": the run stops before the tools (`interruptBefore`),
// the client writes `updateState(config, { messages: [new ToolMessage({ tool_call_id, content })] })`,
// then `invoke(null)`. The call never runs and gets no second ToolMessage; the others run once each.
// A call the guard had decided (allowed, or approved by a human) and that a client then answered
// ends in the audit with one outcome, `cancelled` with rule id `run:answered`, on every entry point,
// as createGuardedAgent records it; every other decided call ends with exactly one outcome too.
//
// Storage: MemorySaver with a memory sink; SQLite checkpointer and the guard's SQLite ledger with a
// JSONL sink, the continuation run by a graph built again on the same files (another process);
// SQLite checkpointer without a ledger with a SQLite sink. The durable sinks are read back from disk.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Command, MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { JsonlAuditSink } from "../src/audit/jsonl.js";
import { MemoryAuditSink } from "../src/audit/memory.js";
import { SqliteAuditSink } from "../src/audit/sqlite.js";
import type { AuditRecord, AuditSink } from "../src/audit/types.js";
import { pendingApproval } from "../src/guard/approval/payload.js";
import { openCheckpointer } from "../src/storage/checkpointer.js";
import { openLedger, type ExecutionLedger } from "../src/storage/ledger.js";
import { defineTool } from "../src/tools/define-tool.js";
import { answers, oneAnswerPerCall } from "./helpers/tool-messages.js";
import { entryGraph, type Entry } from "./helpers/entry-graph.js";

const tmp = mkdtempSync(join(tmpdir(), "gg-client-answered-audit-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

type Risk = "low" | "high";

interface Graph {
  invoke(input: unknown, config: unknown): Promise<{ messages: BaseMessage[] }>;
  updateState(config: unknown, values: unknown, asNode?: string): Promise<unknown>;
  getState(config: unknown): Promise<{ next: readonly string[] }>;
}

/** One open of a storage: what a process holds. */
interface Opened {
  checkpointer: BaseCheckpointSaver;
  ledger?: ExecutionLedger;
  audit: AuditSink;
  close(): Promise<void>;
}

/** A storage: opened once per process; `durable` ones are opened again for the continuation and read back after closing. */
interface Storage {
  name: string;
  durable: boolean;
  /** The guard has an execution ledger (on MemorySaver, the one it keeps in the process). */
  ledger: boolean;
  open(): Promise<Opened>;
  /** The audit as stored, read after every process closed it. */
  records(): Promise<AuditRecord[]>;
}

function memoryStorage(): Storage {
  const checkpointer = new MemorySaver();
  const audit = new MemoryAuditSink();
  return { name: "MemorySaver", durable: false, ledger: true, open: async () => ({ checkpointer, audit, close: async () => {} }), records: () => audit.query() };
}

function sqliteWithLedgerAndJsonl(): Storage {
  const base = join(tmp, `${Math.random()}`);
  return {
    name: "SQLite + ledger + JSONL audit",
    durable: true,
    ledger: true,
    open: async () => {
      const cp = await openCheckpointer(`sqlite:${base}-cp.db`);
      const ledger = await openLedger(`sqlite:${base}-ledger.db`);
      const audit = await JsonlAuditSink.open(`${base}-audit.jsonl`);
      return { checkpointer: cp.checkpointer, ledger, audit, close: async () => (await audit.close(), await ledger.close(), await cp.close()) };
    },
    records: async () => {
      const audit = await JsonlAuditSink.open(`${base}-audit.jsonl`);
      try {
        return await audit.query();
      } finally {
        await audit.close();
      }
    },
  };
}

function sqliteWithSqliteAudit(): Storage {
  const base = join(tmp, `${Math.random()}`);
  return {
    name: "SQLite without a ledger + SQLite audit",
    durable: true,
    ledger: false,
    open: async () => {
      const cp = await openCheckpointer(`sqlite:${base}-cp.db`);
      const audit = await SqliteAuditSink.open(`${base}-audit.db`);
      return { checkpointer: cp.checkpointer, audit, close: async () => (await audit.close(), await cp.close()) };
    },
    records: async () => {
      const audit = await SqliteAuditSink.open(`${base}-audit.db`);
      try {
        return await audit.query();
      } finally {
        await audit.close();
      }
    },
  };
}

/** Side effects of the tools, kept across the graphs built on one storage (one "process" each). */
type Ran = string[];

/** The model's replies: the calls, then a reply to the answers, then one to new input. One per thread, shared by the graphs built on it (the provider outlives a process). */
function scriptedModel(calls: readonly { name: string; id: string }[]) {
  return fakeModel()
    .respondWithTools(calls.map((c) => ({ name: c.name, args: { s: c.id }, id: c.id })))
    .respond(new AIMessage("done"))
    .respond(new AIMessage("again"));
}

interface ToolSpec {
  name: string;
  risk: Risk;
  /** Calls of it share a batch (run side by side); otherwise each call is its own batch. */
  safe?: boolean;
}

function build(entry: Entry, opened: Opened, ran: Ran, toolSpecs: readonly ToolSpec[], model: ReturnType<typeof fakeModel>) {
  const tools = toolSpecs.map((t) =>
    defineTool({
      name: t.name,
      description: `${t.name} tool`,
      schema: z.object({ s: z.string() }),
      risk: t.risk,
      ...(t.safe ? { isConcurrencySafe: () => true } : {}),
      execute: async ({ s }) => {
        ran.push(s);
        // Side by side for real: each call of a shared batch is still running when the next starts.
        await new Promise((resolve) => setTimeout(resolve, 5));
        return `${t.name} ${s}`;
      },
    }),
  );
  const guarded = { tools, audit: opened.audit, ...(opened.ledger ? { ledger: opened.ledger } : {}) };
  const { checkpointer } = opened;
  const graph = entryGraph(entry, model, guarded, checkpointer) as Graph;
  return graph;
}

const STOP_BEFORE: Record<Entry, string[]> = { agent: ["execute", "tools"], node: ["tools"], middleware: ["tools"] };
const config = (threadId: string) => ({ configurable: { thread_id: threadId } });

function modelReadValidHistories(model: ReturnType<typeof fakeModel>) {
  for (const call of model.calls) expect(oneAnswerPerCall(call.messages)).toEqual([]);
}

/** `id:decision:ruleId` of every outcome record of the thread, sorted. */
function outcomesOf(records: readonly AuditRecord[], threadId: string): string[] {
  return records.filter((r) => r.threadId === threadId && r.event === "outcome").map((r) => `${r.toolCallId}:${r.decision}:${r.ruleId}`).sort();
}

/**
 * The audit closes every call it let through: a call whose last word before running was "allow" or a
 * human's "approve" has exactly one outcome; no call has two; a call finally refused has none.
 */
function auditClosesEveryCall(records: readonly AuditRecord[], threadId: string): void {
  const byCall = new Map<string, AuditRecord[]>();
  for (const r of records) if (r.threadId === threadId) byCall.set(r.toolCallId, [...(byCall.get(r.toolCallId) ?? []), r]);
  for (const [id, rs] of byCall) {
    const outcomes = rs.filter((r) => r.event === "outcome");
    expect(outcomes.length, `${id}: outcomes ${outcomes.length}`).toBeLessThanOrEqual(1);
    const verdicts = rs.filter((r) => r.event === "decision" || r.event === "human");
    const last = verdicts.at(-1);
    const letThrough = last !== undefined && (last.decision === "allow" || last.decision === "approve" || last.decision === "edit");
    expect(outcomes.length, `${id}: last verdict ${last?.event}:${last?.decision}, outcomes ${outcomes.length}`).toBe(letThrough ? 1 : 0);
  }
}

/** Runs the thread to the stop before its tools (a high-risk turn approved first); nothing ran. */
async function stopBeforeTools(entry: Entry, graph: Graph, threadId: string, ran: Ran, risk: Risk) {
  const stop = { ...config(threadId), interruptBefore: STOP_BEFORE[entry] };
  const out = await graph.invoke({ messages: [new HumanMessage("go")] }, risk === "high" ? config(threadId) : stop);
  const asked = pendingApproval(out);
  expect(asked !== undefined).toBe(risk === "high");
  if (asked) await graph.invoke(new Command({ resume: { decisions: asked.actionRequests.map(() => ({ type: "approve" })) } }), stop);
  expect(ran).toEqual([]);
  expect((await graph.getState(config(threadId))).next.some((n) => STOP_BEFORE[entry].includes(n))).toBe(true);
}

/**
 * Whether the guard had decided the calls when the run stopped before the tools. The middleware
 * reviews in its hook after the model; createGuardedAgent in its review step, except with a ledger
 * (its own on MemorySaver) for a turn nobody is asked about: reviewed in the one task that runs it;
 * GuardedToolNode reviews inside its own step, after the client's answer. A call answered before it
 * was decided has no record at all.
 */
function decidedAtStop(entry: Entry, storage: Storage, risk: Risk): boolean {
  if (entry === "middleware") return true;
  if (entry === "node") return false;
  return risk === "high" || !storage.ledger;
}

interface Scenario {
  entry: Entry;
  storage: Storage;
  risk: Risk;
  calls: string[];
  /** The client's updates, each a list of [tool_call_id, content], applied in order. */
  updates: [string, string][][];
  asNode?: string | undefined;
  /** The tool's calls share one batch. */
  safe?: boolean;
}

/**
 * One scenario: stop before the tools in one process; in the next (a graph built again; on a
 * durable storage, on the files opened again), the client's updates and `invoke(null)`; then new input.
 */
async function play(s: Scenario) {
  const threadId = `${s.entry}-${s.risk}-${s.asNode ?? "unset"}-${Math.random()}`;
  const ran: Ran = [];
  const toolSpecs = [{ name: "deploy", risk: s.risk, safe: s.safe ?? false }];
  const calls = s.calls.map((id) => ({ name: "deploy", id }));
  const first = await s.storage.open();
  let second: Opened = first;
  try {
    const model = scriptedModel(calls);
    const a = build(s.entry, first, ran, toolSpecs, model);
    await stopBeforeTools(s.entry, a, threadId, ran, s.risk);
    let b = a;
    if (s.storage.durable) {
      await first.close();
      second = await s.storage.open();
      b = build(s.entry, second, ran, toolSpecs, model);
    }
    for (const update of s.updates) {
      await b.updateState(config(threadId), { messages: update.map(([id, content]) => new ToolMessage({ tool_call_id: id, content })) }, s.asNode);
    }
    const out = await b.invoke(null, config(threadId));
    const ranThen = [...ran];
    // The thread is not stranded: new input reaches the model, which reads a valid history.
    const after = await b.invoke({ messages: [new HumanMessage("and now?")] }, config(threadId));
    return { threadId, ran: ranThen, ranAfter: [...ran], out, after, model, close: () => second.close() };
  } catch (error) {
    await second.close();
    throw error;
  }
}

/**
 * What every case checks of the run, then closes its storage: which calls ran after the update, the answers the
 * thread holds (`answersIn` the run's own output, else the thread after the next input), one answer per call, valid
 * histories for the model, and (`again`) that the thread took the next input.
 */
async function threadChecked(
  r: Awaited<ReturnType<typeof play>>,
  expected: { ran: readonly string[]; answers?: readonly string[]; answersIn?: "out" | "after"; anyOrder?: boolean; again?: boolean },
): Promise<void> {
  try {
    const order = (list: readonly string[]) => (expected.anyOrder === true ? [...list].sort() : [...list]);
    expect(order(r.ranAfter)).toEqual(order(expected.ran));
    if (expected.answers !== undefined) expect(order(answers((expected.answersIn === "after" ? r.after : r.out).messages))).toEqual(order(expected.answers));
    expect(oneAnswerPerCall(r.after.messages)).toEqual([]);
    modelReadValidHistories(r.model);
    if (expected.again === true) expect(String(r.after.messages.at(-1)?.content)).toBe("again");
  } finally {
    await r.close();
  }
}

const STORAGES: Record<Entry, (() => Storage)[]> = {
  agent: [memoryStorage, sqliteWithLedgerAndJsonl, sqliteWithSqliteAudit],
  middleware: [memoryStorage, sqliteWithLedgerAndJsonl, sqliteWithSqliteAudit],
  // Without a ledger on a durable checkpointer GuardedToolNode refuses a client's answer as superseded (docs/approvals.md): not this file's case.
  node: [memoryStorage, sqliteWithLedgerAndJsonl],
};
const RISKS: Record<Entry, Risk[]> = { agent: ["low", "high"], middleware: ["low", "high"], node: ["low"] };
const ENTRIES = ["agent", "node", "middleware"] as const;

const cases = ENTRIES.flatMap((entry) => STORAGES[entry].flatMap((storage) => RISKS[entry].map((risk) => [entry, storage().name, risk, storage] as const)));

describe("a client answers the only planned call", () => {
  it.each(cases)("%s, %s, %s risk: it never runs, one ToolMessage, its outcome is run:answered", async (entry, _name, risk, storage) => {
    const st = storage();
    const r = await play({ entry, storage: st, risk, calls: ["c1"], updates: [[["c1", "given by the client"]]], asNode: "tools" });
    await threadChecked(r, { ran: [], answers: ["c1=given by the client"], again: true });
    const records = await st.records();
    expect(outcomesOf(records, r.threadId)).toEqual(decidedAtStop(entry, st, risk) ? ["c1:cancelled:run:answered"] : []);
    auditClosesEveryCall(records, r.threadId);
  });
});

describe("a client answers one call of a parallel batch", () => {
  const asNodes: Record<Entry, (string | undefined)[]> = {
    agent: [undefined, "tools"],
    node: ["tools"],
    middleware: [undefined, "tools", "model_request", "GuardMiddleware.after_model"],
  };
  const withAsNode = cases.flatMap(([entry, name, risk, storage]) =>
    asNodes[entry].flatMap((asNode) => (["one batch", "a batch each"] as const).map((batches) => [entry, name, risk, asNode ?? "unset", batches, storage] as const)),
  );
  it.each(withAsNode)("%s, %s, %s risk, asNode %s, %s: the others run once with one ToolMessage each; one outcome per call", async (entry, _name, risk, asNode, batches, storage) => {
    const st = storage();
    const r = await play({ entry, storage: st, risk, calls: ["c1", "c2", "c3"], updates: [[["c2", "given by the client"]]], asNode: asNode === "unset" ? undefined : asNode, safe: batches === "one batch" });
    await threadChecked(r, { ran: ["c1", "c3"], answers: ["c1=deploy c1", "c2=given by the client", "c3=deploy c3"], anyOrder: true, again: true });
    const records = await st.records();
    const answered = decidedAtStop(entry, st, risk) ? ["c2:cancelled:run:answered"] : [];
    expect(outcomesOf(records, r.threadId)).toEqual([`c1:success:risk:${risk}`, ...answered, `c3:success:risk:${risk}`]);
    auditClosesEveryCall(records, r.threadId);
  });

  // LangChain routes an update attributed to the step before the tools by that step's edge: with no
  // call left open, to the end (createAgent does so without the guard too). The next input settles the turn.
  it.each(cases.filter(([entry]) => entry === "middleware"))("%s, %s, %s risk, the only call answered with asNode unset: the run ends, the next input audits it as run:answered", async (entry, _name, risk, storage) => {
    const st = storage();
    const r = await play({ entry, storage: st, risk, calls: ["c1"], updates: [[["c1", "given by the client"]]] });
    await threadChecked(r, { ran: [], answers: ["c1=given by the client"], answersIn: "after" });
    const records = await st.records();
    expect(outcomesOf(records, r.threadId)).toEqual(["c1:cancelled:run:answered"]);
    auditClosesEveryCall(records, r.threadId);
  });

  it.each(cases.filter(([entry]) => entry === "middleware"))(
    "%s, %s, %s risk, the update attributed to the hook before the model: the answered call is run:answered, the others run:skipped",
    async (entry, _name, risk, storage) => {
      const st = storage();
      const r = await play({ entry, storage: st, risk, calls: ["c1", "c2"], updates: [[["c1", "given by the client"]]], asNode: "GuardMiddleware.before_model" });
      await threadChecked(r, { ran: [] });
      const records = await st.records();
      expect(outcomesOf(records, r.threadId)).toEqual(["c1:cancelled:run:answered", "c2:cancelled:run:skipped"]);
      auditClosesEveryCall(records, r.threadId);
    },
  );
});

describe("adversarial answers", () => {
  it.each(cases)("%s, %s, %s risk: the same call answered twice: one answer (the first), one outcome", async (entry, _name, risk, storage) => {
    const st = storage();
    const r = await play({ entry, storage: st, risk, calls: ["c1", "c2"], updates: [[["c1", "first"]], [["c1", "second"]]], asNode: "tools" });
    await threadChecked(r, { ran: ["c2"], answers: ["c1=first", "c2=deploy c2"], again: true });
    const records = await st.records();
    const answered = decidedAtStop(entry, st, risk) ? ["c1:cancelled:run:answered"] : [];
    expect(outcomesOf(records, r.threadId)).toEqual([...answered, `c2:success:risk:${risk}`]);
    auditClosesEveryCall(records, r.threadId);
  });

  it.each(cases)("%s, %s, %s risk: an answer for an unknown call id next to a real one: no crash, no record for it, the thread goes on", async (entry, _name, risk, storage) => {
    const st = storage();
    const r = await play({ entry, storage: st, risk, calls: ["c1", "c2"], updates: [[["never-made", "stray"], ["c1", "given by the client"]]], asNode: "tools" });
    await threadChecked(r, { ran: ["c2"], answers: ["c1=given by the client", "c2=deploy c2"], again: true });
    const records = await st.records();
    expect(records.filter((rec) => rec.threadId === r.threadId && rec.toolCallId === "never-made")).toEqual([]);
    const answered = decidedAtStop(entry, st, risk) ? ["c1:cancelled:run:answered"] : [];
    expect(outcomesOf(records, r.threadId)).toEqual([...answered, `c2:success:risk:${risk}`]);
    auditClosesEveryCall(records, r.threadId);
  });

  it.each(cases)("%s, %s, %s risk: every call answered: nothing runs, one outcome each", async (entry, _name, risk, storage) => {
    const st = storage();
    const r = await play({ entry, storage: st, risk, calls: ["c1", "c2"], updates: [[["c1", "one"], ["c2", "two"]]], asNode: "tools" });
    await threadChecked(r, { ran: [], answers: ["c1=one", "c2=two"] });
    const records = await st.records();
    expect(outcomesOf(records, r.threadId)).toEqual(decidedAtStop(entry, st, risk) ? ["c1:cancelled:run:answered", "c2:cancelled:run:answered"] : []);
    auditClosesEveryCall(records, r.threadId);
  });

  it.each(cases)("%s, %s, %s risk: a ToolMessage for a call that already ran is no answer: no run:answered for it", async (entry, _name, risk, storage) => {
    const st = storage();
    const opened = await st.open();
    const threadId = `${entry}-ran-${Math.random()}`;
    const ran: Ran = [];
    try {
      const model = scriptedModel([{ name: "deploy", id: "c1" }]);
      const graph = build(entry, opened, ran, [{ name: "deploy", risk }], model);
      await stopBeforeTools(entry, graph, threadId, ran, risk);
      await graph.invoke(null, config(threadId));
      expect(ran).toEqual(["c1"]);
      await graph.updateState(config(threadId), { messages: [new ToolMessage({ tool_call_id: "c1", content: "late" })] }, entry === "node" ? "tools" : undefined);
      await graph.invoke(null, config(threadId));
      const after = await graph.invoke({ messages: [new HumanMessage("and now?")] }, config(threadId));
      expect(ran).toEqual(["c1"]);
      expect(oneAnswerPerCall(after.messages)).toEqual([]);
      modelReadValidHistories(model);
    } finally {
      await opened.close();
    }
    const records = await st.records();
    expect(outcomesOf(records, threadId)).toEqual([`c1:success:risk:${risk}`]);
    auditClosesEveryCall(records, threadId);
  });
});

// A call WAITING for a human (the run stopped at the approval interrupt) that a client answers with
// a state update instead of a resume: on every entry point the update is dropped and each waiting
// call refused as superseded, once (docs/approvals.md). The audit ends each with that refusal and no
// outcome; nothing runs.
describe("a client's update instead of the answer to an approval", () => {
  const waitingCases = ENTRIES.flatMap((entry) =>
    [memoryStorage, sqliteWithLedgerAndJsonl, sqliteWithSqliteAudit].flatMap((storage) =>
      (["d1", "s1"] as const).flatMap((which) => (["invoke(null)", "resume"] as const).map((then) => [entry, storage().name, which, then, storage] as const)),
    ),
  );
  it.each(waitingCases)("%s, %s, the client answers %s, then %s: nothing runs, each call refused once, no outcome", async (entry, _name, which, then, storage) => {
    const st = storage();
    const threadId = `waiting-${entry}-${which}-${Math.random()}`;
    const ran: Ran = [];
    const specs = [{ name: "search", risk: "low" as const }, { name: "deploy", risk: "high" as const }];
    const calls = [{ name: "search", id: "s1" }, { name: "deploy", id: "d1" }];
    const first = await st.open();
    let second = first;
    try {
      const model = scriptedModel(calls);
      const a = build(entry, first, ran, specs, model);
      expect(pendingApproval(await a.invoke({ messages: [new HumanMessage("go")] }, config(threadId)))?.actionRequests.map((x) => x.name)).toEqual(["deploy"]);
      let b = a;
      if (st.durable) {
        await first.close();
        second = await st.open();
        b = build(entry, second, ran, specs, model);
      }
      await b.updateState(config(threadId), { messages: [new ToolMessage({ tool_call_id: which, content: "given by the client" })] }, entry === "node" ? "tools" : undefined);
      const out = await b.invoke(then === "resume" ? new Command({ resume: { decisions: [{ type: "approve" }] } }) : null, config(threadId));
      expect(ran).toEqual([]);
      expect(pendingApproval(out)).toBeUndefined();
      const given = answers(out.messages);
      expect(given.map((x) => x.split("=")[0])).toEqual(["s1", "d1"]);
      expect(given.every((x) => x.includes("approval:superseded"))).toBe(true);
      const after = await b.invoke({ messages: [new HumanMessage("and now?")] }, config(threadId));
      expect(ran).toEqual([]);
      expect(oneAnswerPerCall(after.messages)).toEqual([]);
      modelReadValidHistories(model);
    } finally {
      await second.close();
    }
    const records = await st.records();
    const mine = records.filter((r) => r.threadId === threadId);
    expect(mine.filter((r) => r.event === "decision" && r.ruleId === "approval:superseded").map((r) => r.toolCallId).sort()).toEqual(["d1", "s1"]);
    expect(outcomesOf(records, threadId)).toEqual([]);
    auditClosesEveryCall(records, threadId);
  });
});

// A partial answer: the human approves one of two asked calls; the run stops before the tools; the
// client answers the approved call itself. The call does not run and is audited run:answered; the
// other is asked again, and once approved runs once. (GuardedToolNode runs what a partial answer
// approved in the step that asked: a run cannot stop between the two.)
describe("a client answers the call a partial approval let through", () => {
  const partialCases = (["agent", "middleware"] as const).flatMap((entry) => [memoryStorage, sqliteWithLedgerAndJsonl, sqliteWithSqliteAudit].map((storage) => [entry, storage().name, storage] as const));
  it.each(partialCases)("%s, %s: the answered call never runs and is run:answered; the other is asked again and runs once", async (entry, _name, storage) => {
    const st = storage();
    const threadId = `partial-${entry}-${Math.random()}`;
    const ran: Ran = [];
    const model = scriptedModel([{ name: "deploy", id: "a" }, { name: "deploy", id: "b" }]);
    const opened = await st.open();
    try {
      const graph = build(entry, opened, ran, [{ name: "deploy", risk: "high" }], model);
      const stop = { ...config(threadId), interruptBefore: STOP_BEFORE[entry] };
      expect(pendingApproval(await graph.invoke({ messages: [new HumanMessage("go")] }, config(threadId)))?.actionRequests.map((x) => x.toolCallId)).toEqual(["a", "b"]);
      await graph.invoke(new Command({ resume: { decisions: { a: { type: "approve" } } } }), stop);
      expect(ran).toEqual([]);
      await graph.updateState(config(threadId), { messages: [new ToolMessage({ tool_call_id: "a", content: "given by the client" })] }, "tools");
      let out = await graph.invoke(null, config(threadId));
      expect(ran).toEqual([]);
      expect(pendingApproval(out)?.actionRequests.map((x) => x.toolCallId)).toEqual(["b"]);
      out = await graph.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), config(threadId));
      expect(ran).toEqual(["b"]);
      expect(answers(out.messages)).toEqual(["a=given by the client", "b=deploy b"]);
      expect(oneAnswerPerCall(out.messages)).toEqual([]);
      modelReadValidHistories(model);
    } finally {
      await opened.close();
    }
    const records = await st.records();
    expect(outcomesOf(records, threadId)).toEqual(["a:cancelled:run:answered", "b:success:risk:high"]);
    auditClosesEveryCall(records, threadId);
  });
});

// createGuardedAgent without a ledger runs a plan batch by batch, one step each: the run can stop
// before a later batch's tools, after earlier ones ran. A client's answer then for a call of a later
// batch leaves the batch in between to run, once.
describe("a client answers a call of a later batch after the first batch ran (createGuardedAgent, one step per batch)", () => {
  it.each(["tools", undefined])("asNode %s: the batch in between runs once, the answered call never, one outcome each", async (asNode) => {
    const st = sqliteWithSqliteAudit();
    const threadId = `later-batch-${asNode ?? "unset"}-${Math.random()}`;
    const ran: Ran = [];
    const model = scriptedModel([{ name: "deploy", id: "c1" }, { name: "deploy", id: "c2" }, { name: "deploy", id: "c3" }]);
    const opened = await st.open();
    try {
      const graph = build("agent", opened, ran, [{ name: "deploy", risk: "high" }], model);
      const stop = { ...config(threadId), interruptBefore: ["tools"] };
      const asked = pendingApproval(await graph.invoke({ messages: [new HumanMessage("go")] }, config(threadId)));
      await graph.invoke(new Command({ resume: { decisions: asked?.actionRequests.map(() => ({ type: "approve" })) } }), stop);
      expect(ran).toEqual([]);
      await graph.invoke(null, stop);
      expect(ran).toEqual(["c1"]);
      expect((await graph.getState(config(threadId))).next).toEqual(["tools"]);
      await graph.updateState(config(threadId), { messages: [new ToolMessage({ tool_call_id: "c3", content: "given by the client" })] }, asNode);
      const out = await graph.invoke(null, config(threadId));
      expect(ran).toEqual(["c1", "c2"]);
      expect(answers(out.messages).sort()).toEqual(["c1=deploy c1", "c2=deploy c2", "c3=given by the client"]);
      expect(oneAnswerPerCall(out.messages)).toEqual([]);
      modelReadValidHistories(model);
      expect(String(out.messages.at(-1)?.content)).toBe("done");
    } finally {
      await opened.close();
    }
    const records = await st.records();
    expect(outcomesOf(records, threadId)).toEqual(["c1:success:risk:high", "c2:success:risk:high", "c3:cancelled:run:answered"]);
    auditClosesEveryCall(records, threadId);
  });
});
