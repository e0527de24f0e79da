import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { auditId, JsonlAuditSink, type AuditRecord } from "../src/audit/index.js";

function record(n: number, threadId = "t1"): AuditRecord {
  return {
    id: auditId([threadId, `call-${n}`]),
    at: 1_000 + n,
    threadId,
    runId: "r",
    toolCallId: `call-${n}`,
    tool: "bash",
    args: JSON.stringify({ command: `echo ${n}` }),
    event: "outcome",
    decision: "executed",
    ruleId: "permission:echo",
    reason: "echo is harmless",
  };
}

async function lines(path: string): Promise<string[]> {
  return (await readFile(path, "utf8")).split("\n");
}

describe("JsonlAuditSink on disk", () => {
  let dir: string;
  let path: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "gg-jsonl-"));
    path = join(dir, "a", "b", "audit.jsonl");
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("creates directories and writes one JSON line per record, ending in a newline", async () => {
    const sink = await JsonlAuditSink.open(path);
    await sink.write([record(1), record(2)]);
    await sink.close();
    const text = await readFile(path, "utf8");
    expect(text.endsWith("\n")).toBe(true);
    const parsed = text.trimEnd().split("\n").map((line) => JSON.parse(line) as AuditRecord);
    expect(parsed).toEqual([record(1), record(2)]);
  });

  it("does not append a duplicate id: not in one batch, not later, not after reopening", async () => {
    const first = await JsonlAuditSink.open(path);
    await first.write([record(1), record(1)]);
    await first.write([record(1)]);
    await first.close();
    const second = await JsonlAuditSink.open(path);
    await second.write([record(1), record(2)]);
    await second.close();
    expect(await lines(path)).toEqual([JSON.stringify(record(1)), JSON.stringify(record(2)), ""]);
  });

  it("skips a torn last line, starts the next append on a new line, and still reads everything else", async () => {
    const sink = await JsonlAuditSink.open(path);
    await sink.write([record(1), record(2)]);
    await sink.close();
    const torn = JSON.stringify(record(3)).slice(0, 40);
    await appendFile(path, torn); // a crash in the middle of an append

    const reopened = await JsonlAuditSink.open(path);
    expect((await reopened.query()).map((r) => r.toolCallId)).toEqual(["call-1", "call-2"]);
    // record 3 was never fully written, so it is not a duplicate: it is written now.
    await reopened.write([record(3), record(4)]);
    await reopened.close();

    expect(await lines(path)).toEqual([JSON.stringify(record(1)), JSON.stringify(record(2)), torn, JSON.stringify(record(3)), JSON.stringify(record(4)), ""]);
    const again = await JsonlAuditSink.open(path);
    expect((await again.query()).map((r) => r.toolCallId)).toEqual(["call-1", "call-2", "call-3", "call-4"]);
    await again.close();
  });

  it("skips blank and foreign lines in the middle of the file", async () => {
    await mkdir(join(dir, "a", "b"), { recursive: true });
    await writeFile(path, `${JSON.stringify(record(1))}\n\nnot json\n{"id":"x"}\n${JSON.stringify(record(2))}\n`);
    const sink = await JsonlAuditSink.open(path);
    expect((await sink.query()).map((r) => r.toolCallId)).toEqual(["call-1", "call-2"]);
    await sink.write([record(2), record(5)]);
    await sink.close();
    expect((await lines(path)).filter((line) => line.includes("call-5"))).toHaveLength(1);
    expect((await lines(path)).filter((line) => line.includes("call-2"))).toHaveLength(1);
  });

  it("reads a record appended twice by two processes only once", async () => {
    await mkdir(join(dir, "a", "b"), { recursive: true });
    await writeFile(path, `${JSON.stringify(record(1))}\n${JSON.stringify({ ...record(1), decision: "failed" })}\n`);
    const sink = await JsonlAuditSink.open(path);
    const read = await sink.query();
    expect(read).toHaveLength(1);
    expect(read[0]?.decision).toBe("executed");
    await sink.close();
  });

  it("keeps every line whole under many concurrent writers in one process", async () => {
    const sink = await JsonlAuditSink.open(path);
    const batches = Array.from({ length: 50 }, (_, b) => [record(b * 2), record(b * 2 + 1), record(0)]);
    await Promise.all(batches.map((batch) => sink.write(batch)));
    await sink.close();
    const written = (await lines(path)).filter((line) => line !== "");
    expect(written).toHaveLength(100);
    expect(new Set(written.map((line) => (JSON.parse(line) as AuditRecord).id)).size).toBe(100);
  });

  it("a write refused for an invalid record does not stop later writes", async () => {
    const sink = await JsonlAuditSink.open(path);
    await expect(sink.write([{ ...record(1), at: Number.NaN }])).rejects.toThrow(/audit write refused/);
    await sink.write([record(2)]);
    expect((await sink.query()).map((r) => r.toolCallId)).toEqual(["call-2"]);
    await sink.close();
  });
});
