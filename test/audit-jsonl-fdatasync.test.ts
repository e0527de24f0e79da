/**
 * The real JsonlAuditSink when `fdatasync` fails (EIO): `node:fs` is mocked so that one chosen
 * `fdatasyncSync` call throws, every other one syncs for real. A failed sync is sticky
 * (src/audit/file-sync.ts): the kernel may already have dropped the unsynced pages, so even once
 * fdatasync works again nothing can prove the earlier appends on disk — the sink refuses every
 * later write and `close` rejects. Both ways a sync happens are covered: a decision batch (synced
 * before `write` resolves) and a batch of outcomes only (synced later by a timer). The sticky part
 * is checked after the failure, with fdatasync working again.
 */
import { HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { JsonlAuditSink } from "../src/audit/jsonl.js";
import { auditId } from "../src/audit/record.js";
import type { AuditRecord } from "../src/audit/types.js";
import { AuditError } from "../src/errors/index.js";
import { createGuardedAgent } from "../src/guard/agent.js";
import { ScriptedChatModel } from "../src/model/scripted.js";
import { defineTool } from "../src/tools/define-tool.js";

const fsControl = vi.hoisted(() => ({ calls: 0, failAt: 0, failed: 0, writeFailures: 0, writeFailuresAfterSyncFailure: 0, tearAfterSyncFailure: false, tear: false }));

vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  return {
    ...actual,
    fdatasyncSync: (fd: number) => {
      fsControl.calls += 1;
      if (fsControl.calls === fsControl.failAt) {
        fsControl.failed += 1;
        fsControl.writeFailures = fsControl.writeFailuresAfterSyncFailure;
        fsControl.tear = fsControl.tearAfterSyncFailure;
        throw Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO", errno: -5, syscall: "fdatasync" });
      }
      actual.fdatasyncSync(fd);
    },
    // While `writeFailures` > 0, each writeSync fails with ENOSPC (and counts one down). `tear`: the
    // next one writes half its bytes (a torn line), and the one after it fails.
    writeSync: (...args: Parameters<typeof actual.writeSync>) => {
      if (fsControl.tear) {
        fsControl.tear = false;
        fsControl.writeFailures = 1;
        const [fd, buffer, offset, length] = args as unknown as [number, Buffer, number, number];
        return actual.writeSync(fd, buffer, offset, Math.floor(length / 2));
      }
      if (fsControl.writeFailures > 0) {
        fsControl.writeFailures -= 1;
        throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", errno: -28, syscall: "write" });
      }
      return actual.writeSync(...args);
    },
  };
});

/** The next fdatasyncSync call fails; every one after it works again. */
function failNextSync(): void {
  fsControl.failAt = fsControl.calls + 1;
}

function record(n: number, event: "decision" | "outcome"): AuditRecord {
  return {
    id: auditId(["t1", `call-${n}`, event]),
    at: 1_000 + n,
    threadId: "t1",
    runId: "r",
    toolCallId: `call-${n}`,
    tool: "bash",
    args: JSON.stringify({ command: `echo ${n}` }),
    event,
    decision: event === "decision" ? "allow" : "executed",
    ruleId: "permission:echo",
    reason: "echo is harmless",
  };
}

const refusedAfterFailure = { name: "AuditError", code: "GG_ERR_AUDIT_WRITE", message: expect.stringMatching(/audit write refused: an earlier fdatasync of .*audit\.jsonl failed \(EIO: i\/o error, fdatasync\)/) };
const closedAfterFailure = { name: "AuditError", code: "GG_ERR_AUDIT_WRITE", message: expect.stringMatching(/closed after a failed fdatasync \(EIO/) };

/** Ids of the record lines, in file order (marker lines are not records). */
async function storedIds(path: string): Promise<string[]> {
  return (await lines(path)).flatMap((line) => (line.unsynced === undefined ? [(line as unknown as AuditRecord).id] : []));
}

/** Every line of the file, parsed. */
async function lines(path: string): Promise<{ unsynced?: { ids: string[]; error: string } }[]> {
  return (await readFile(path, "utf8")).trimEnd().split("\n").map((line) => JSON.parse(line) as { unsynced?: { ids: string[]; error: string } });
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "gg-jsonl-eio-"));
  fsControl.failAt = 0;
  fsControl.failed = 0;
  fsControl.writeFailures = 0;
  fsControl.writeFailuresAfterSyncFailure = 0;
  fsControl.tearAfterSyncFailure = false;
  fsControl.tear = false;
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A guarded agent whose model calls `touch` once, then says "done"; `agent(sink)` builds one more on the same checkpointer (a new process would). */
function touchAgent() {
  const ran: string[] = [];
  const tool = defineTool({ name: "touch", description: "Side effect.", schema: z.object({ name: z.string() }), risk: "low", execute: ({ name }) => (ran.push(name), "touched") });
  const scenario = { name: "one", turns: [{ tool_calls: [{ name: "touch", args: { name: "a" } }] }, { text: "done" }] };
  const checkpointer = new MemorySaver();
  return { ran, agent: (audit: JsonlAuditSink) => createGuardedAgent({ model: new ScriptedChatModel({ scenario }), tools: [tool], checkpointer, audit }) };
}

describe("JsonlAuditSink when fdatasync fails", () => {
  it("a decision batch: write rejects naming fdatasync, and every later write and close are refused though fdatasync works again", async () => {
    const path = join(dir, "audit.jsonl");
    const sink = await JsonlAuditSink.open(path);
    const before = fsControl.calls;
    await sink.write([record(1, "decision")]);
    // The mock is what the sink calls: the decision batch was synced before write resolved.
    expect(fsControl.calls).toBe(before + 1);
    failNextSync();
    const error = await sink.write([record(2, "decision")]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuditError);
    expect(error).toMatchObject({ code: "GG_ERR_AUDIT_WRITE", message: expect.stringMatching(/audit write to .*audit\.jsonl failed: fdatasync: EIO/) });
    expect(fsControl.failed).toBe(1);
    const afterFailure = fsControl.calls;
    // Sticky: neither outcomes nor decisions are appended any more, nothing is synced again.
    await expect(sink.write([record(2, "outcome")])).rejects.toMatchObject(refusedAfterFailure);
    await expect(sink.write([record(3, "decision")])).rejects.toMatchObject(refusedAfterFailure);
    await expect(sink.close()).rejects.toMatchObject(closedAfterFailure);
    expect(fsControl.calls).toBe(afterFailure);
    // The batch whose sync failed was appended (not proven on disk); nothing after it was.
    expect(await storedIds(path)).toEqual([record(1, "decision").id, record(2, "decision").id]);
    // A marker line names what was appended since the last good sync: record 2, not record 1.
    expect((await lines(path)).at(-1)?.unsynced).toEqual({ ids: [record(2, "decision").id], error: expect.stringMatching(/EIO/), at: expect.any(Number) });
    // A sink opening the file later (a new process) does not take record 2 as written: written
    // again (a re-run after the crash), it is appended and synced again; record 1 is not.
    const reopened = await JsonlAuditSink.open(path);
    const beforeRewrite = fsControl.calls;
    await reopened.write([record(1, "decision"), record(2, "decision")]);
    expect(fsControl.calls).toBe(beforeRewrite + 1);
    expect(await storedIds(path)).toEqual([record(1, "decision").id, record(2, "decision").id, record(2, "decision").id]);
    expect((await reopened.query()).map((r) => r.id)).toEqual([record(1, "decision").id, record(2, "decision").id]);
    await reopened.close();
    // Once appended and synced again, record 2 is written for the next sink too.
    const third = await JsonlAuditSink.open(path);
    await third.write([record(2, "decision")]);
    expect(await storedIds(path)).toHaveLength(3);
    await third.close();
  });

  it("a deferred outcome batch: the timer's sync fails, the next write is refused and close rejects", async () => {
    const path = join(dir, "audit.jsonl");
    const sink = await JsonlAuditSink.open(path, { outcomeSyncMs: 20 });
    await sink.write([record(1, "decision")]);
    failNextSync();
    // Outcomes only: written at once, synced by the timer; write resolves before that sync.
    await sink.write([record(1, "outcome")]);
    expect(fsControl.failed).toBe(0);
    await vi.waitFor(() => expect(fsControl.failed).toBe(1), { timeout: 2_000, interval: 10 });
    const afterFailure = fsControl.calls;
    await expect(sink.write([record(2, "outcome")])).rejects.toMatchObject(refusedAfterFailure);
    await expect(sink.write([record(2, "decision")])).rejects.toMatchObject(refusedAfterFailure);
    await expect(sink.close()).rejects.toMatchObject(closedAfterFailure);
    expect(fsControl.calls).toBe(afterFailure);
    expect(await storedIds(path)).toEqual([record(1, "decision").id, record(1, "outcome").id]);
    // The marker names the outcome (the decision had been synced before it).
    expect((await lines(path)).at(-1)?.unsynced?.ids).toEqual([record(1, "outcome").id]);
    const reopened = await JsonlAuditSink.open(path);
    await reopened.write([record(1, "outcome")]);
    await reopened.close();
    expect(await storedIds(path)).toEqual([record(1, "decision").id, record(1, "outcome").id, record(1, "outcome").id]);
  });

  it("the marker's own append fails: a later refused write or close appends it, and a reopened sink does not take its ids as written", async () => {
    for (const retryBy of ["write", "close"] as const) {
      const path = join(dir, retryBy, "audit.jsonl");
      const sink = await JsonlAuditSink.open(path);
      await sink.write([record(1, "decision")]);
      // The sync of record 2 fails, and the marker's append right after it fails too (ENOSPC).
      failNextSync();
      fsControl.writeFailuresAfterSyncFailure = 1;
      await expect(sink.write([record(2, "decision")])).rejects.toMatchObject({ code: "GG_ERR_AUDIT_WRITE", message: expect.stringMatching(/fdatasync: EIO/) });
      expect(fsControl.writeFailures).toBe(0);
      expect((await lines(path)).map((line) => line.unsynced)).toEqual([undefined, undefined]);
      // Refused all the same; the refusal (or close) appends the marker now that writes work.
      if (retryBy === "write") await expect(sink.write([record(3, "outcome")])).rejects.toMatchObject(refusedAfterFailure);
      await expect(sink.close()).rejects.toMatchObject(closedAfterFailure);
      const all = await lines(path);
      expect(all).toHaveLength(3);
      expect(all.filter((line) => line.unsynced !== undefined).map((line) => line.unsynced?.ids)).toEqual([[record(2, "decision").id]]);
      expect(await storedIds(path)).toEqual([record(1, "decision").id, record(2, "decision").id]);
      // A new process's sink re-appends and syncs record 2, not record 1.
      const reopened = await JsonlAuditSink.open(path);
      const beforeRewrite = fsControl.calls;
      await reopened.write([record(1, "decision"), record(2, "decision")]);
      expect(fsControl.calls).toBe(beforeRewrite + 1);
      expect(await storedIds(path)).toEqual([record(1, "decision").id, record(2, "decision").id, record(2, "decision").id]);
      await reopened.close();
    }
  });

  it("a marker whose append keeps failing stays pending, and is appended once, after the records, when a write gets through", async () => {
    const path = join(dir, "audit.jsonl");
    const sink = await JsonlAuditSink.open(path);
    await sink.write([record(1, "decision")]);
    failNextSync();
    fsControl.writeFailuresAfterSyncFailure = 3;
    await expect(sink.write([record(2, "decision")])).rejects.toMatchObject({ code: "GG_ERR_AUDIT_WRITE" });
    await expect(sink.write([record(3, "decision")])).rejects.toMatchObject(refusedAfterFailure);
    await expect(sink.write([record(3, "decision")])).rejects.toMatchObject(refusedAfterFailure);
    expect(fsControl.writeFailures).toBe(0);
    // The third try (close) gets through: one marker, after the two records.
    await expect(sink.close()).rejects.toMatchObject(closedAfterFailure);
    const all = await lines(path);
    expect(all.map((line) => line.unsynced?.ids)).toEqual([undefined, undefined, [record(2, "decision").id]]);
  });

  it("a marker append torn halfway (half written, then ENOSPC): the retry starts on a fresh line, readers skip the torn half, a reopened sink reads the marker", async () => {
    const path = join(dir, "audit.jsonl");
    const sink = await JsonlAuditSink.open(path);
    await sink.write([record(1, "decision")]);
    failNextSync();
    fsControl.tearAfterSyncFailure = true;
    await expect(sink.write([record(2, "decision")])).rejects.toMatchObject({ code: "GG_ERR_AUDIT_WRITE" });
    const torn = (await readFile(path, "utf8")).split("\n");
    expect(torn).toHaveLength(3);
    expect(torn[2]?.startsWith('{"unsynced"')).toBe(true);
    await expect(sink.close()).rejects.toMatchObject(closedAfterFailure);
    const text = await readFile(path, "utf8");
    const rows = text.trimEnd().split("\n");
    expect(rows).toHaveLength(4);
    expect(rows[2]).toBe(torn[2]);
    expect(JSON.parse(rows[3] ?? "")).toMatchObject({ unsynced: { ids: [record(2, "decision").id] } });
    const reopened = await JsonlAuditSink.open(path);
    expect((await reopened.query()).map((r) => r.id)).toEqual([record(1, "decision").id, record(2, "decision").id]);
    const beforeRewrite = fsControl.calls;
    await reopened.write([record(2, "decision")]);
    expect(fsControl.calls).toBe(beforeRewrite + 1);
    await reopened.close();
  });

  it("a guarded run on the failing sink starts no tool call; the thread continues with a working sink", async () => {
    const { ran, agent } = touchAgent();
    const config = { configurable: { thread_id: "eio" } };
    const failing = await JsonlAuditSink.open(join(dir, "audit.jsonl"));
    const graph = agent(failing);
    failNextSync();
    await expect(graph.invoke({ messages: [new HumanMessage("go")] }, config)).rejects.toMatchObject({ code: "GG_ERR_AUDIT_WRITE", message: expect.stringMatching(/fdatasync: EIO/) });
    expect(fsControl.failed).toBe(1);
    expect(ran).toEqual([]);
    // The same sink stays refused, so the thread cannot go on with it, and nothing runs.
    await expect(graph.invoke(null, config)).rejects.toMatchObject(refusedAfterFailure);
    expect(ran).toEqual([]);
    await expect(failing.close()).rejects.toMatchObject(closedAfterFailure);
    // A working sink (another file; a new process would open one): the thread continues from its checkpoint.
    const working = await JsonlAuditSink.open(join(dir, "audit-2.jsonl"));
    const resumed = agent(working);
    const state = await resumed.invoke(null, config);
    expect(ran).toEqual(["a"]);
    expect(state.messages.at(-1)?.content).toBe("done");
    expect((await working.query()).map((r) => r.event)).toEqual(["decision", "outcome"]);
    await working.close();
  });

  it("the thread continued on the same file reopened (a new process): the decision whose sync failed is appended and synced again before the call starts", async () => {
    const { ran, agent } = touchAgent();
    const config = { configurable: { thread_id: "eio-same-file" } };
    const path = join(dir, "audit.jsonl");
    const failing = await JsonlAuditSink.open(path);
    const graph = agent(failing);
    failNextSync();
    await expect(graph.invoke({ messages: [new HumanMessage("go")] }, config)).rejects.toMatchObject({ code: "GG_ERR_AUDIT_WRITE" });
    await expect(failing.close()).rejects.toMatchObject(closedAfterFailure);
    expect(ran).toEqual([]);
    const decisionId = (await storedIds(path))[0];
    expect((await lines(path)).at(-1)?.unsynced?.ids).toEqual([decisionId]);
    // Reopened: the decision is not taken as written, so the re-run's review appends it again, and
    // the sync of that append comes before the call (the mock counts it; the call then runs once).
    const working = await JsonlAuditSink.open(path);
    const syncsBefore = fsControl.calls;
    const resumed = agent(working);
    const state = await resumed.invoke(null, config);
    expect(ran).toEqual(["a"]);
    expect(state.messages.at(-1)?.content).toBe("done");
    expect(fsControl.calls).toBeGreaterThan(syncsBefore);
    expect((await storedIds(path)).filter((id) => id === decisionId)).toHaveLength(2);
    await working.close();
  });
});
