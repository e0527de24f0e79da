import { describe, expect, it } from "vitest";
import { auditId, followAudit, MemoryAuditSink, type AuditRecord } from "../src/audit/index.js";

function record(n: number, at: number, threadId = "t"): AuditRecord {
  return {
    id: auditId([threadId, String(n)]),
    at,
    threadId,
    runId: "r",
    toolCallId: `c${n}`,
    tool: "x",
    args: "{}",
    event: "decision",
    decision: "ask",
    ruleId: "risk:high",
    reason: "needs a human",
  };
}

async function until(predicate: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("auditId", () => {
  it("is deterministic, 32 hex chars, and separates parts unambiguously", () => {
    const id = auditId(["thread", "call-1", "decision"]);
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(auditId(["thread", "call-1", "decision"])).toBe(id);
    expect(auditId(["thread", "call-1", "outcome"])).not.toBe(id);
    expect(auditId(["ab", "c"])).not.toBe(auditId(["a", "bc"]));
  });

  it("is the first 32 hex chars of sha256 over the NUL-joined parts", async () => {
    const { createHash } = await import("node:crypto");
    expect(auditId(["a", "b"])).toBe(createHash("sha256").update("a\u0000b").digest("hex").slice(0, 32));
  });

  it("refuses an empty list", () => {
    expect(() => auditId([])).toThrow(/auditId refused/);
  });
});

describe("followAudit", () => {
  it("delivers existing records, then new ones as they are written, each once, until aborted", async () => {
    const sink = new MemoryAuditSink();
    await sink.write([record(1, 100), record(2, 200), record(9, 150, "other")]);
    const seen: string[] = [];
    const controller = new AbortController();
    const following = followAudit(sink, { threadId: "t" }, (r) => void seen.push(r.toolCallId), { signal: controller.signal, intervalMs: 10 });
    await until(() => seen.length === 2);
    await sink.write([record(3, 300)]);
    await until(() => seen.length === 3);
    // A late record (older `at` than the newest seen, within the look-back) still arrives.
    await sink.write([record(4, 250)]);
    await until(() => seen.length === 4);
    controller.abort();
    await following;
    await sink.write([record(5, 400)]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen).toEqual(["c1", "c2", "c3", "c4"]);
  });

  it("starts after `after` and resolves at once when already aborted", async () => {
    const sink = new MemoryAuditSink();
    await sink.write([record(1, 100), record(2, 200)]);
    const seen: number[] = [];
    const controller = new AbortController();
    const following = followAudit(sink, { after: 150 }, (r) => void seen.push(r.at), { signal: controller.signal, intervalMs: 10 });
    await until(() => seen.length === 1);
    controller.abort();
    await following;
    expect(seen).toEqual([200]);
    await expect(followAudit(sink, {}, () => undefined, { signal: AbortSignal.abort() })).resolves.toBeUndefined();
  });

  it("rejects when the sink fails", async () => {
    const sink = new MemoryAuditSink();
    await sink.close();
    const broken = { ...sink, query: () => Promise.reject(new Error("disk gone")), write: sink.write.bind(sink), close: sink.close.bind(sink) };
    await expect(followAudit(broken, {}, () => undefined, { signal: new AbortController().signal, intervalMs: 10 })).rejects.toThrow("disk gone");
  });
});
