/**
 * One commit per batch. With the execution ledger and the audit log in one database (the same
 * SQLite file, the same PostgreSQL URL), a batch's claims commit together with the decisions its
 * calls run on, and calls that end together complete in one commit with their outcome records. Seen
 * from the ledger's side (every call it gets is counted) and from the database (what one failing
 * statement leaves: nothing). The SIGKILL side is test/crash-boundaries.test.ts ("ledger and audit in
 * one database").
 */
import { HumanMessage } from "@langchain/core/messages";
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { openAuditSink } from "../src/audit/open.js";
import { auditId } from "../src/audit/record.js";
import type { AuditRecord, AuditSink } from "../src/audit/types.js";
import { createGuardedAgent } from "../src/guard/agent.js";
import { ScriptedChatModel } from "../src/model/scripted.js";
import { openCheckpointer } from "../src/storage/checkpointer.js";
import { openLedger } from "../src/storage/ledger.js";
import type { ExecutionLedger } from "../src/storage/ledger.js";
import { defineTool } from "../src/tools/define-tool.js";
import { dropTable, postgresConfigured, postgresForTests, schemaDroppedAfterAll, uniqueName } from "./helpers/postgres.js";

const tmp = mkdtempSync(join(tmpdir(), "gg-batch-commit-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface LedgerCalls {
  claim: number;
  complete: number;
  claimMany: { keys: number; decisions: string[] }[];
  completeMany: { keys: number; outcomes: string[] }[];
}

/** The ledger as the guard sees it, with every call counted (what a commit carries). */
function counted(ledger: ExecutionLedger): { ledger: ExecutionLedger; calls: LedgerCalls } {
  const calls: LedgerCalls = { claim: 0, complete: 0, claimMany: [], completeMany: [] };
  const wrapped: ExecutionLedger = {
    ...ledger,
    kind: ledger.kind,
    claim: (key, owner, leaseMs) => ((calls.claim += 1), ledger.claim(key, owner, leaseMs)),
    complete: (key, result) => ((calls.complete += 1), ledger.complete(key, result)),
    result: (key) => ledger.result(key),
    release: (key, owner) => ledger.release(key, owner),
    renew: (key, owner, leaseMs) => ledger.renew(key, owner, leaseMs),
    claimMany: (keys, owner, leaseMs, audit) => {
      calls.claimMany.push({ keys: keys.length, decisions: (audit?.records ?? []).map((r) => `${r.toolCallId}:${r.event}:${r.decision}`) });
      return ledger.claimMany(keys, owner, leaseMs, audit);
    },
    completeMany: (completions, audit) => {
      calls.completeMany.push({ keys: completions.length, outcomes: (audit?.records ?? []).map((r) => `${r.toolCallId}:${r.event}:${r.decision}`) });
      return ledger.completeMany(completions, audit);
    },
    carriesAudit: (sink) => ledger.carriesAudit(sink),
    close: () => ledger.close(),
  };
  return { ledger: wrapped, calls };
}

/** The sink with the records it is asked to write itself (not through the ledger). */
function watched(sink: AuditSink): { sink: AuditSink; written: AuditRecord[] } {
  const written: AuditRecord[] = [];
  return {
    written,
    sink: {
      store: sink.store,
      write: (records) => (written.push(...records), sink.write(records)),
      query: (q) => sink.query(q),
      close: () => sink.close(),
    },
  };
}

/** One turn: three concurrency-safe calls (one batch), then an unsafe one (a batch of its own). */
function turnAgent(options: { checkpointer: Parameters<typeof createGuardedAgent>[0]["checkpointer"]; ledger: ExecutionLedger; audit: AuditSink }) {
  const ran: string[] = [];
  const schema = z.object({ name: z.string() });
  const touch = defineTool({ name: "touch", description: "Side effect.", schema, risk: "low", isConcurrencySafe: () => true, execute: ({ name }) => (ran.push(name), `${name} ok`) });
  const seal = defineTool({ name: "seal", description: "Side effect, alone.", schema, risk: "low", isConcurrencySafe: () => false, execute: ({ name }) => (ran.push(name), `${name} ok`) });
  const scenario = {
    name: "batches",
    turns: [
      { tool_calls: [{ name: "touch", args: { name: "a" } }, { name: "touch", args: { name: "b" } }, { name: "touch", args: { name: "c" } }, { name: "seal", args: { name: "d" } }] },
      { text: "done" },
    ],
  };
  const graph = createGuardedAgent({ model: new ScriptedChatModel({ scenario }), tools: [touch, seal], ...options, workerId: "w1" });
  return { ran, graph };
}

const CALLS = ["call_0_0", "call_0_1", "call_0_2", "call_0_3"];

async function expectOneCommitPerBatch(opened: { checkpointer: NonNullable<Parameters<typeof createGuardedAgent>[0]["checkpointer"]> }, rawLedger: ExecutionLedger, rawSink: AuditSink, threadId: string) {
  expect(rawLedger.carriesAudit(rawSink)).toBe(true);
  const { ledger, calls } = counted(rawLedger);
  const { sink, written } = watched(rawSink);
  const { ran, graph } = turnAgent({ checkpointer: opened.checkpointer, ledger, audit: sink });
  const state = await graph.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: threadId } });
  expect(state.messages.at(-1)?.content).toBe("done");
  expect(ran.sort()).toEqual(["a", "b", "c", "d"]);
  // Two batches, two claim commits: the first carries every decision of the turn, before any call starts.
  expect(calls.claim).toBe(0);
  expect(calls.claimMany).toEqual([
    { keys: 3, decisions: CALLS.map((id) => `${id}:decision:allow`) },
    { keys: 1, decisions: [] },
  ]);
  // Completions: one per commit at most per call, each with its outcome record; never one by one.
  expect(calls.complete).toBe(0);
  expect(calls.completeMany.reduce((n, c) => n + c.keys, 0)).toBe(4);
  expect(calls.completeMany.length).toBeLessThanOrEqual(2);
  expect(calls.completeMany.flatMap((c) => c.outcomes).sort()).toEqual(CALLS.map((id) => `${id}:outcome:success`));
  for (const c of calls.completeMany) expect(c.outcomes).toHaveLength(c.keys);
  // Nothing of it went through the sink on its own.
  expect(written.filter((r) => (r.event === "decision" && r.decision === "allow") || r.event === "outcome")).toEqual([]);
  // And all of it is in the audit log.
  const records = await rawSink.query({ threadId });
  expect(records.filter((r) => r.event === "decision").map((r) => r.toolCallId).sort()).toEqual(CALLS);
  expect(records.filter((r) => r.event === "outcome").map((r) => r.toolCallId).sort()).toEqual(CALLS);
}

/** The checkpointer, the ledger and the audit sink on one store, closed after `use`. */
async function onOneStore(spec: string, options: { schema?: string; table?: string }, use: (opened: { checkpointer: NonNullable<Parameters<typeof createGuardedAgent>[0]["checkpointer"]> }, ledger: ExecutionLedger, sink: AuditSink) => Promise<void>): Promise<void> {
  const opened = await openCheckpointer(spec, options.schema ? { schema: options.schema } : {});
  const ledger = await openLedger(spec, options.schema ? { schema: options.schema } : {});
  const sink = await openAuditSink(options.table ? { sink: "postgres", url: spec, table: options.table } : spec);
  try {
    await use(opened, ledger, sink);
  } finally {
    await sink.close();
    await ledger.close();
    await opened.close();
  }
}

function auditRecord(n: number): AuditRecord {
  return { id: auditId(["batch", String(n)]), at: 1_000 + n, threadId: "t-atomic", runId: "r", toolCallId: `call-${n}`, tool: "touch", args: "{}", event: "decision", decision: "allow", ruleId: "risk:low", reason: "low risk" };
}

describe("one commit per batch, SQLite (ledger and audit in one file)", () => {
  it("a turn of two batches: two claim commits (the first with every decision), completions with their outcomes", async () => {
    await onOneStore(`sqlite:${join(tmp, "one.db")}`, {}, (opened, ledger, sink) => expectOneCommitPerBatch(opened, ledger, sink, "sqlite-batches"));
  });

  it("a sink in another file or a JSONL file is not carried: the decisions reach the sink before the batch's calls start", async () => {
    const file = join(tmp, "two.db");
    const opened = await openCheckpointer(`sqlite:${file}`);
    const rawLedger = await openLedger(`sqlite:${file}`);
    const other = await openAuditSink(`sqlite:${join(tmp, "other.db")}`);
    const jsonl = await openAuditSink(`jsonl:${join(tmp, "audit.jsonl")}`);
    try {
      expect(rawLedger.carriesAudit(other)).toBe(false);
      expect(rawLedger.carriesAudit(jsonl)).toBe(false);
      const { ledger, calls } = counted(rawLedger);
      const order: string[] = [];
      const sink: AuditSink = { write: async (records) => (order.push(...records.map((r) => `${r.event}:${r.toolCallId}`)), other.write(records)), query: (q) => other.query(q), close: async () => undefined };
      const { ran, graph } = turnAgent({ checkpointer: opened.checkpointer, ledger, audit: sink });
      const probe = ran.push.bind(ran);
      ran.push = (...names: string[]) => (order.push(...names.map((n) => `ran:${n}`)), probe(...names));
      await graph.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: "not-carried" } });
      // Claims still batched, without records; every decision written before the first call ran.
      expect(calls.claimMany.map((c) => c.decisions.length)).toEqual([0, 0]);
      const firstRun = order.findIndex((e) => e.startsWith("ran:"));
      expect(order.slice(0, firstRun).filter((e) => e.startsWith("decision:")).sort()).toEqual(CALLS.map((id) => `decision:${id}`));
    } finally {
      await other.close();
      await jsonl.close();
      await rawLedger.close();
      await opened.close();
    }
  });

  it("claims and records are one transaction: when the records cannot be written, no claim is left", async () => {
    const file = join(tmp, "atomic.db");
    const ledger = await openLedger(`sqlite:${file}`);
    const sink = await openAuditSink(`sqlite:${file}`);
    try {
      const db = new Database(file);
      db.exec(`DROP TABLE guarded_graph_audit`);
      db.close();
      await expect(ledger.claimMany(["k1", "k2"], "w1", 10_000, { sink, records: [auditRecord(1)] })).rejects.toThrow(/no such table/);
      // Rolled back: another worker claims both at once (a claim left behind would read "busy").
      expect(await ledger.claimMany(["k1", "k2", "k1"], "w2", 10_000)).toEqual(["claimed", "claimed", "busy"]);
      // An invalid record is refused before anything is written.
      await expect(ledger.claimMany(["k3"], "w1", 10_000, { sink, records: [{ ...auditRecord(2), event: "nonsense" as AuditRecord["event"] }] })).rejects.toThrow();
      expect(await ledger.claim("k3", "w2", 10_000)).toBe("claimed");
    } finally {
      await sink.close();
      await ledger.close();
    }
  });

  it("claimMany answers each key as claim does: claimed, done (completed), busy (another's live claim), claimed again (expired)", async () => {
    const ledger = await openLedger(`sqlite:${join(tmp, "outcomes.db")}`);
    try {
      expect(await ledger.claimMany(["done", "live", "expired"], "w1", 10_000)).toEqual(["claimed", "claimed", "claimed"]);
      await ledger.completeMany([{ key: "done", result: "r" }]);
      await ledger.release("expired", "w1");
      expect(await ledger.claim("expired", "w1", 1)).toBe("claimed");
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await ledger.claimMany(["done", "live", "expired", "fresh"], "w2", 10_000)).toEqual(["done", "busy", "claimed", "claimed"]);
      expect(await ledger.result("done")).toBe("r");
    } finally {
      await ledger.close();
    }
  });
});

describe.runIf(postgresConfigured)("one commit per batch, PostgreSQL (ledger and audit on one URL)", () => {
  const schema = schemaDroppedAfterAll("gg_batch");
  const table = uniqueName("gg_batch_audit");
  afterAll(async () => {
    const url = await postgresForTests();
    if (url) await dropTable(url, table);
  });

  it("a turn of two batches: two claim statements (the first with every decision), completions with their outcomes", async () => {
    const url = await postgresForTests();
    if (!url) return;
    await onOneStore(url, { schema, table }, (opened, ledger, sink) => expectOneCommitPerBatch(opened, ledger, sink, uniqueName("pg-batches")));
  });

  it("claims and records are one statement: when the records cannot be written, no claim is left; outcomes per key as claim gives them", async () => {
    const url = await postgresForTests();
    if (!url) return;
    const ledger = await openLedger(url, { schema });
    const lost = uniqueName("gg_batch_lost");
    const sink = await openAuditSink({ sink: "postgres", url, table: lost });
    try {
      await dropTable(url, lost);
      const k = uniqueName("k");
      await expect(ledger.claimMany([`${k}1`, `${k}2`], "w1", 10_000, { sink, records: [auditRecord(1)] })).rejects.toThrow(/does not exist/);
      expect(await ledger.claimMany([`${k}1`, `${k}2`, `${k}1`], "w2", 10_000)).toEqual(["claimed", "claimed", "busy"]);
      await ledger.completeMany([{ key: `${k}1`, result: "r1" }, { key: `${k}1`, result: "r1 again" }]);
      expect(await ledger.claimMany([`${k}1`, `${k}2`, `${k}3`], "w3", 10_000)).toEqual(["done", "busy", "claimed"]);
      expect(await ledger.result(`${k}1`)).toBe("r1");
    } finally {
      await sink.close();
      await ledger.close();
    }
  });
});
