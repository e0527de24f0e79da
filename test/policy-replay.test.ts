// `policy replay`: an audit log of more than 1,000 calls across several threads, recorded by running
// a guarded graph under an old policy with a scripted model, is decided again under a new policy;
// the judge is the same scripted inputs run live under the new policy. Every call replay re-decides
// gets the decision and the rule the live run gave it, the counts per change, rule and thread are the
// live ones, on JSONL, SQLite (and PostgreSQL when configured); calls whose context is gone (a
// deleted checkpoint, redacted arguments) are named as such, never decided.
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { Command, MemorySaver } from "@langchain/langgraph";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { JsonlAuditSink } from "../src/audit/jsonl.js";
import { MemoryAuditSink } from "../src/audit/memory.js";
import { PostgresAuditSink } from "../src/audit/postgres.js";
import { SqliteAuditSink } from "../src/audit/sqlite.js";
import type { AuditQuery, AuditRecord, AuditSink } from "../src/audit/types.js";
import { replayCommand } from "../src/cli/commands/replay.js";
import { createGuardedAgent } from "../src/guard/agent.js";
import { pendingApproval } from "../src/guard/approval/payload.js";
import { guardFromPolicy } from "../src/guard/from-policy.js";
import { cannotRedecide } from "../src/messages/index.js";
import { ScriptedChatModel } from "../src/model/scripted.js";
import { loadPolicyFile } from "../src/policy/file.js";
import { replayAudit, summariseReplay, type ReplayedCall } from "../src/replay/replay.js";
import { openCheckpointer } from "../src/storage/checkpointer.js";
import { defineTool } from "../src/tools/define-tool.js";
import { postgresForTests, uniqueName } from "./helpers/postgres.js";
import { seeded } from "../bench/lib/hetero.js";

const dir = mkdtempSync(join(tmpdir(), "gg-replay-"));
const OLD = join(dir, "old.yaml");
const NEW = join(dir, "new.yaml");
writeFileSync(
  OLD,
  `permissions:
  - { id: prod-delete, tool: delete, where: { namespace: { equals: production } }, mode: deny }
  - { id: dev-any, tool: "*", where: { namespace: { equals: dev } }, mode: allow }
`,
);
writeFileSync(
  NEW,
  `provenance: { untrusted: [fetch] }
tools:
  deploy: { risk: high }
permissions:
  - { id: prod-delete, tool: delete, where: { namespace: { equals: production } }, mode: deny }
  - { id: prod-deploy, tool: deploy, where: { namespace: { equals: production } }, mode: deny }
  - { id: staging-ask, tool: "*", where: { namespace: { equals: staging } }, mode: ask }
  - { id: fetched-names, tool: send, where: { name: { from: [untrusted] } }, mode: deny }
  - { id: dev-any, tool: "*", where: { namespace: { equals: dev } }, mode: allow }
tool_rules:
  - { tool: delete, type: MaxCalls, max: 2, scope: run }
`,
);

function tools() {
  const schema = z.object({ namespace: z.string(), name: z.string(), token: z.string().optional() });
  const make = (name: string, risk: "low" | "medium" | "high", answer: (input: { name: string }) => string) =>
    defineTool({ name, description: name, schema, risk, execute: (input) => answer(input) });
  return [
    make("read", "low", (i) => `read ${i.name}`),
    make("deploy", "medium", (i) => `deployed ${i.name}`),
    make("delete", "high", (i) => `deleted ${i.name}`),
    make("fetch", "low", (i) => `the page mentions ${i.name}`),
    make("send", "medium", (i) => `sent to ${i.name}`),
  ];
}

const THREADS = 8;
const RUNS = 3;
const TURNS_PER_RUN = 20;
/** The thread whose checkpoint is deleted after recording; the thread some of whose calls carry a redacted token. */
const GONE = "t6";
const REDACTED_THREAD = "t7";

type Call = { name: string; args: Record<string, string> };

/** Per thread: per run, the model turns (each a list of calls). */
function script(thread: number): Call[][][] {
  const next = seeded(1000 + thread);
  const pick = <T,>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  const names = ["web01", "db02", "cache03", "alpha7", "bravo8", "queue04"];
  return Array.from({ length: RUNS }, (_, run) =>
    Array.from({ length: TURNS_PER_RUN }, () =>
      Array.from({ length: 1 + Math.floor(next() * 4) }, () => {
        const tool = pick(["read", "deploy", "delete", "fetch", "send", "send", "deploy"]);
        const args: Record<string, string> = { namespace: pick(["production", "staging", "dev"]), name: pick(names) };
        if (`t${thread}` === REDACTED_THREAD && run === RUNS - 1 && (tool === "deploy" || tool === "delete") && next() < 0.5) args.token = `secret-${Math.floor(next() * 1000)}`;
        return { name: tool, args };
      }),
    ),
  );
}

/** Writes every record to each sink (the recorded log exists in each storage). */
class Tee implements AuditSink {
  constructor(readonly sinks: readonly AuditSink[]) {}
  async write(records: readonly AuditRecord[]): Promise<void> {
    for (const sink of this.sinks) await sink.write(records);
  }
  async query(query?: AuditQuery): Promise<AuditRecord[]> {
    return this.sinks[0]!.query(query);
  }
  async close(): Promise<void> {
    for (const sink of this.sinks) await sink.close();
  }
}

/** Plays every thread's script under `policy`, approving every call that asks. */
async function play(policy: string, audit: AuditSink, checkpointer: BaseCheckpointSaver): Promise<void> {
  const ready = await guardFromPolicy(policy, { tools: tools(), audit, redact: ["token"] });
  try {
    for (let t = 0; t < THREADS; t++) {
      const runs = script(t);
      const turns = runs.flatMap((run) => [...run.map((calls) => ({ tool_calls: calls })), { text: "done" }]);
      const graph = createGuardedAgent({ model: new ScriptedChatModel({ scenario: { name: `t${t}`, turns } }), guard: ready.guard, checkpointer });
      const config = { configurable: { thread_id: `t${t}` }, recursionLimit: 1_000 };
      for (let run = 0; run < RUNS; run++) {
        let out = (await graph.invoke({ messages: [new HumanMessage(`run ${run}`)] }, config)) as { messages: BaseMessage[] };
        for (let i = 0; i < 100 && pendingApproval(out) !== undefined; i++) {
          const decisions = pendingApproval(out)!.actionRequests.map(() => ({ type: "approve" as const }));
          out = (await graph.invoke(new Command({ resume: { decisions } }), config)) as { messages: BaseMessage[] };
        }
        expect(pendingApproval(out)).toBeUndefined();
      }
    }
  } finally {
    await ready.close();
  }
}

/** The review decision of each call (the first one recorded), by thread and call id. */
function decisions(records: readonly AuditRecord[]): Map<string, { decision: string; ruleId: string }> {
  const out = new Map<string, { decision: string; ruleId: string }>();
  for (const r of records) {
    if (r.event !== "decision" || r.detail?.recheck !== undefined) continue;
    const key = `${r.threadId}/${r.toolCallId}`;
    if (!out.has(key)) out.set(key, { decision: r.decision, ruleId: r.ruleId });
  }
  return out;
}

let jsonl: JsonlAuditSink;
let sqlite: SqliteAuditSink;
let postgres: PostgresAuditSink | undefined;
let live: Map<string, { decision: string; ruleId: string }>;
let recorded: AuditRecord[];
let messagesOf: (threadId: string) => Promise<readonly BaseMessage[] | undefined>;
let closeThreads: () => Promise<void>;
const threadsSpec = `sqlite:${join(dir, "threads.db")}`;

beforeAll(async () => {
  jsonl = await JsonlAuditSink.open(join(dir, "audit.jsonl"));
  sqlite = await SqliteAuditSink.open(join(dir, "audit.db"));
  const url = await postgresForTests();
  if (url !== undefined) postgres = await PostgresAuditSink.open({ url, table: uniqueName("replay_audit") });
  const opened = await openCheckpointer(threadsSpec);
  closeThreads = () => opened.close();
  // Recorded under the old policy, into every sink, with the thread's checkpoints kept.
  await play(OLD, new Tee([jsonl, sqlite, ...(postgres ? [postgres] : [])]), opened.checkpointer);
  await opened.checkpointer.deleteThread(GONE);
  messagesOf = async (threadId) => {
    const tuple = await opened.checkpointer.getTuple({ configurable: { thread_id: threadId } });
    return (tuple?.checkpoint.channel_values as { messages?: BaseMessage[] } | undefined)?.messages;
  };
  // The judge: the same inputs run live under the new policy.
  const liveAudit = new MemoryAuditSink();
  await play(NEW, liveAudit, new MemorySaver());
  live = decisions(await liveAudit.query({}));
  recorded = await jsonl.query({});
}, 600_000);

afterAll(async () => {
  await closeThreads?.();
  await jsonl?.close();
  await sqlite?.close();
  if (postgres) {
    await postgres.close();
  }
});

function liveSummary(keys: readonly string[]) {
  const old = decisions(recorded);
  const byChange = new Map<string, number>();
  const byRule = new Map<string, number>();
  const byThread = new Map<string, number>();
  const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  for (const key of keys) {
    const before = old.get(key)!;
    const after = live.get(key)!;
    if (before.decision === after.decision) continue;
    bump(byChange, `${before.decision} → ${after.decision}`);
    bump(byRule, after.ruleId);
    bump(byThread, key.split("/")[0]!);
  }
  return { byChange, byRule, byThread };
}

function check(calls: readonly ReplayedCall[]) {
  const total = decisions(recorded).size;
  expect(total).toBeGreaterThanOrEqual(1_000);
  expect(calls.length).toBe(total);
  expect(new Set(calls.map((c) => c.threadId)).size).toBe(THREADS);
  // Every re-decided call gets the live decision and rule.
  const redecided = calls.filter((c) => c.replayed !== undefined);
  const mismatches = redecided.filter((c) => {
    const judged = live.get(`${c.threadId}/${c.toolCallId}`);
    return judged?.decision !== c.replayed!.decision || judged?.ruleId !== c.replayed!.ruleId;
  });
  expect(mismatches.slice(0, 5)).toEqual([]);
  expect(redecided.length).toBeGreaterThan(1_000);
  // The counts replay prints are the live run's counts over the same calls.
  const summary = summariseReplay(calls);
  const judge = liveSummary(redecided.map((c) => `${c.threadId}/${c.toolCallId}`));
  expect(summary.byChange).toEqual(judge.byChange);
  expect(summary.byRule).toEqual(judge.byRule);
  expect(summary.byThread).toEqual(judge.byThread);
  // Not vacuous: the new policy changes many calls, in several directions, by several rules.
  expect(summary.changed).toBeGreaterThan(100);
  for (const change of ["allow → ask", "allow → deny", "ask → deny"]) expect(summary.byChange.get(change) ?? 0).toBeGreaterThan(0);
  for (const rule of ["permission:prod-deploy", "permission:staging-ask", "permission:fetched-names"]) expect(summary.byRule.get(rule) ?? 0).toBeGreaterThan(0);
  expect([...summary.byRule.keys()].some((rule) => rule.startsWith("rule:MaxCalls"))).toBe(true);
  // What could not be re-decided is named, and nothing else: the calls of send (the tool the
  // provenance rule reads the thread for) in the thread whose checkpoint is gone; the calls whose
  // token was redacted; and, since the MaxCalls rule counts deletes, the deletes after a redacted delete.
  const expected = new Map<string, string>();
  let redactedDelete = false;
  for (const r of recorded) {
    if (r.event !== "decision" || r.detail?.recheck !== undefined) continue;
    const key = `${r.threadId}/${r.toolCallId}`;
    if (expected.has(key)) continue;
    if (r.threadId === GONE && r.tool === "send") expected.set(key, cannotRedecide.checkpointGone(GONE));
    else if (r.args.includes('"token":"[REDACTED]"')) {
      expected.set(key, cannotRedecide.redacted(["token"]));
      if (r.tool === "delete") redactedDelete = true;
    } else if (r.threadId === REDACTED_THREAD && r.tool === "delete" && redactedDelete) expected.set(key, cannotRedecide.afterUndecided(REDACTED_THREAD, "delete"));
  }
  const undecided = calls.filter((c) => c.replayed === undefined);
  expect(new Map(undecided.map((c) => [`${c.threadId}/${c.toolCallId}`, c.cannot]))).toEqual(expected);
  for (const reason of [cannotRedecide.checkpointGone(GONE), cannotRedecide.redacted(["token"]), cannotRedecide.afterUndecided(REDACTED_THREAD, "delete")]) expect(summary.cannot.get(reason) ?? 0).toBeGreaterThan(0);
  expect(summary.redecided + undecided.length).toBe(total);
  return summary;
}

describe("policy replay re-decides a recorded audit log as the new policy decides live", () => {
  it("JSONL: the same decisions, rules and counts as the live run; undecidable calls named", async () => {
    check(await replayAudit(await jsonl.query({}), await loadPolicyFile(NEW), { messages: messagesOf }));
  });

  it("SQLite: the same", async () => {
    const fromSqlite = await sqlite.query({});
    expect(fromSqlite.length).toBe(recorded.length);
    check(await replayAudit(fromSqlite, await loadPolicyFile(NEW), { messages: messagesOf }));
  });

  it("PostgreSQL: the same (when POSTGRES_URL is set)", async (ctx) => {
    if (postgres === undefined) return ctx.skip();
    check(await replayAudit(await postgres.query({}), await loadPolicyFile(NEW), { messages: messagesOf }));
  });

  it("the old policy replayed over its own log changes nothing", async () => {
    const calls = await replayAudit(recorded, await loadPolicyFile(OLD), { messages: messagesOf });
    const summary = summariseReplay(calls);
    expect(summary.changed).toBe(0);
    // The old policy reads no thread: only the redacted calls (and, with no tool rules, nothing after them) are undecidable.
    expect([...summary.cannot.keys()].every((r) => r.startsWith("arguments redacted"))).toBe(true);
  });

  it("the CLI prints the changes per rule and thread, and fails CI when they exceed --fail-on", async () => {
    const lines: string[] = [];
    const output = { out: (line: string) => lines.push(line), err: (line: string) => lines.push(`ERR ${line}`) };
    const args = ["--audit", `sqlite:${join(dir, "audit.db")}`, "--policy", NEW, "--threads", threadsSpec];
    const json: string[] = [];
    expect(await replayCommand([...args, "--json"], { out: (l) => json.push(l), err: (l) => json.push(l) })).toBe(0);
    const report = JSON.parse(json.join("\n")) as { changed: number; byRule: Record<string, number>; cannot: Record<string, number> };
    const summary = summariseReplay(await replayAudit(recorded, await loadPolicyFile(NEW), { messages: messagesOf }));
    expect(report.changed).toBe(summary.changed);
    expect(report.byRule).toEqual(Object.fromEntries(summary.byRule));
    expect(report.cannot[cannotRedecide.checkpointGone(GONE)]).toBe(summary.cannot.get(cannotRedecide.checkpointGone(GONE)));

    expect(await replayCommand([...args, "--fail-on", String(summary.changed)], output)).toBe(0);
    expect(lines.at(-1)).toBe(`✓ ${summary.changed} change(s) within --fail-on ${summary.changed}`);
    lines.length = 0;
    expect(await replayCommand([...args, "--fail-on", "1%"], output)).toBe(1);
    expect(lines[0]).toMatch(/^Replayed \d+ recorded call\(s\) of 8 thread\(s\) from sqlite:/);
    expect(lines).toContain("Changes by the rule that decides under the new policy:");
    expect(lines).toContain(`  permission:prod-deploy: ${summary.byRule.get("permission:prod-deploy")}`);
    expect(lines.some((l) => l.startsWith("could not re-decide: "))).toBe(true);
    expect(lines.at(-1)).toBe(`✗ ${summary.changed} change(s) exceed --fail-on 1%`);
  });
});
