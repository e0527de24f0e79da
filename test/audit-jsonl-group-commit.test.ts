/**
 * Group commit of the JSONL audit sink: concurrent writers (threads of one process) share one
 * `fdatasync`, and each `write` resolves only once a sync that began after its append has ended.
 * `node:fs` is mocked to count the syncs, to note how far the file was synced, and to fail a chosen
 * one: then every waiter of that sync is refused and none is told its record is durable. Two
 * processes appending at once and SIGKILLed: every acknowledged record is in the file, each
 * thread's in its own order.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { JsonlAuditSink } from "../src/audit/jsonl.js";
import { auditId } from "../src/audit/record.js";
import type { AuditRecord } from "../src/audit/types.js";
import { nodeArgsFor } from "./helpers/ts-entry.js";

const fsControl = vi.hoisted(() => ({ calls: 0, failAt: 0, syncedSize: 0 }));

vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  return {
    ...actual,
    fdatasyncSync: (fd: number) => {
      fsControl.calls += 1;
      if (fsControl.calls === fsControl.failAt) throw Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO", errno: -5, syscall: "fdatasync" });
      // The file's size when the sync began: every byte before it is on disk once the sync returns.
      const size = actual.fstatSync(fd).size;
      actual.fdatasyncSync(fd);
      fsControl.syncedSize = size;
    },
  };
});

const WORKER = fileURLToPath(new URL("./fixtures/workers/audit-group-worker.ts", import.meta.url));

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "gg-group-commit-"));
  fsControl.failAt = 0;
  fsControl.syncedSize = 0;
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function decision(thread: number, seq: number): AuditRecord {
  const threadId = `t${thread}`;
  return { id: auditId([threadId, String(seq)]), at: 1_000 + seq, threadId, runId: "r", toolCallId: String(seq), tool: "touch", args: "{}", event: "decision", decision: "allow", ruleId: "risk:low", reason: "low risk" };
}

describe("JSONL group commit in one process", () => {
  it("40 concurrent writers × 10 decision batches: one fdatasync per round, not per write; each write resolves after a sync covering its append", async () => {
    const path = join(dir, "audit.jsonl");
    const sink = await JsonlAuditSink.open(path);
    const before = fsControl.calls;
    let uncovered = 0;
    const writer = async (thread: number) => {
      for (let seq = 0; seq < 10; seq += 1) {
        const written = sink.write([decision(thread, seq)]);
        // The append is done when `write` returns (before its first await): this is where it ends.
        const end = statSync(path).size;
        await written;
        if (fsControl.syncedSize < end) uncovered += 1;
      }
    };
    await Promise.all(Array.from({ length: 40 }, (_, t) => writer(t)));
    const syncs = fsControl.calls - before;
    expect(uncovered).toBe(0);
    // 400 writes; each round of 40 concurrent appends shares one sync.
    expect(syncs).toBeGreaterThanOrEqual(10);
    expect(syncs).toBeLessThanOrEqual(20);
    await sink.close();
    const lines = (await readFile(path, "utf8")).trimEnd().split("\n").map((l) => JSON.parse(l) as AuditRecord);
    expect(lines).toHaveLength(400);
    // Each writer's records in its own order.
    for (let t = 0; t < 40; t += 1) expect(lines.filter((r) => r.threadId === `t${t}`).map((r) => Number(r.toolCallId))).toEqual([...Array(10).keys()]);
  });

  it("the shared sync fails: every writer waiting for it is refused naming fdatasync, none resolves, later writes are refused", async () => {
    const sink = await JsonlAuditSink.open(join(dir, "audit.jsonl"));
    await sink.write([decision(0, 0)]);
    fsControl.failAt = fsControl.calls + 1;
    const settled = await Promise.allSettled(Array.from({ length: 10 }, (_, t) => sink.write([decision(t + 1, 0)])));
    expect(fsControl.calls).toBe(fsControl.failAt);
    expect(settled.filter((s) => s.status === "fulfilled")).toEqual([]);
    for (const s of settled) expect(s).toMatchObject({ status: "rejected", reason: { code: "GG_ERR_AUDIT_WRITE", message: expect.stringMatching(/fdatasync: EIO/) } });
    await expect(sink.write([decision(20, 0)])).rejects.toMatchObject({ message: expect.stringMatching(/an earlier fdatasync .* failed/) });
    await expect(sink.close()).rejects.toMatchObject({ code: "GG_ERR_AUDIT_WRITE" });
  });

  it("outcome batches still wait for the next sync (outcomeSyncMs) and ride on a decision round's sync", async () => {
    const sink = await JsonlAuditSink.open(join(dir, "audit.jsonl"), { outcomeSyncMs: 10_000 });
    const before = fsControl.calls;
    await sink.write([{ ...decision(0, 0), id: auditId(["o", "1"]), event: "outcome", decision: "success" }]);
    expect(fsControl.calls).toBe(before);
    await Promise.all([sink.write([decision(1, 0)]), sink.write([decision(2, 0)])]);
    expect(fsControl.calls).toBe(before + 1);
    await sink.close();
    expect(fsControl.calls).toBe(before + 1);
  });
});

describe("JSONL group commit across processes", () => {
  it("two processes × 8 writers append at once and are SIGKILLed: every acknowledged record is in the file, once, each writer's in order", async () => {
    const acked = new Map<string, number>();
    const children = ["p", "q"].map((name) => {
      const child = spawn(process.execPath, nodeArgsFor(WORKER, dir, name, "8"), { stdio: ["ignore", "pipe", "pipe"] });
      let buffer = "";
      child.stdout.on("data", (chunk: Buffer) => {
        buffer += chunk.toString("utf8");
        const lines = buffer.split("\n");
        buffer = lines.pop() ?? "";
        for (const line of lines) {
          const [, writer, thread, seq] = line.split(" ");
          acked.set(`${writer}-${thread}`, Math.max(acked.get(`${writer}-${thread}`) ?? -1, Number(seq)));
        }
      });
      return { child, exited: new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, signal) => resolve(signal))) };
    });
    const ackedBy = (name: string) => [...acked.entries()].filter(([k]) => k.startsWith(`${name}-`)).reduce((n, [, seq]) => n + seq + 1, 0);
    await vi.waitFor(() => expect(ackedBy("p") >= 200 && ackedBy("q") >= 200).toBe(true), { timeout: 60_000, interval: 20 });
    for (const { child } of children) child.kill("SIGKILL");
    expect(await Promise.all(children.map((c) => c.exited))).toEqual(["SIGKILL", "SIGKILL"]);
    const text = await readFile(join(dir, "audit.jsonl"), "utf8");
    // A kill mid-append may tear the last line only; every other line is a whole record.
    const lines = text.split("\n").filter((l) => l.length > 0);
    const records = lines.flatMap((l) => {
      try {
        return [JSON.parse(l) as AuditRecord];
      } catch {
        return [];
      }
    });
    expect(lines.length - records.length).toBeLessThanOrEqual(2);
    expect(new Set(records.map((r) => r.id)).size).toBe(records.length);
    for (const [writer, last] of acked) {
      const seqs = records.filter((r) => r.threadId === writer).map((r) => Number(r.toolCallId));
      // In order, no gap, and at least up to the last acknowledged one.
      expect(seqs).toEqual([...Array(seqs.length).keys()]);
      expect(seqs.length).toBeGreaterThan(last);
    }
  }, 90_000);
});
