import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditId, JsonlAuditSink, MemoryAuditSink, PostgresAuditSink, SqliteAuditSink, type AuditRecord, type AuditSink } from "../src/audit/index.js";
import { postgresConfigured, postgresForTests, uniqueName } from "./helpers/postgres.js";

function record(overrides: Partial<AuditRecord> & { n: number }): AuditRecord {
  const { n, ...rest } = overrides;
  return {
    id: auditId(["thread-a", `call-${n}`, "decision"]),
    at: 1_700_000_000_000 + n,
    threadId: "thread-a",
    runId: "run-1",
    toolCallId: `call-${n}`,
    tool: "write_file",
    operation: "write",
    args: JSON.stringify({ path: `/tmp/f${n}`, content: "[REDACTED]" }),
    event: "decision",
    decision: "allow",
    ruleId: "permission:write-tmp",
    reason: "writes under /tmp are allowed",
    risk: "medium",
    detail: { batch: n % 4, nested: { ok: true } },
    ...rest,
  };
}

interface Storage {
  /** Opens the sink on the same underlying storage each time (a "restart"). */
  open(): Promise<AuditSink>;
  durable: boolean;
}

function sinkContract(name: string, makeStorage: () => Promise<Storage | undefined>): void {
  describe(`${name} audit sink`, () => {
    let storage: Storage;
    beforeAll(async () => {
      const made = await makeStorage();
      if (!made) throw new Error(`${name}: storage unavailable`);
      storage = made;
    });

    it("writes records and reads them back unchanged, oldest first", async () => {
      const sink = await storage.open();
      const batch = [record({ n: 3 }), record({ n: 1 }), record({ n: 2, operation: undefined, risk: undefined, detail: undefined })];
      await sink.write(batch);
      const read = await sink.query({ threadId: "thread-a" });
      expect(read.map((r) => r.toolCallId)).toEqual(["call-1", "call-2", "call-3"]);
      expect(read[2]).toEqual(batch[0]);
      expect(read[1]).toEqual({ ...batch[2], operation: undefined, risk: undefined, detail: undefined });
      await sink.close();
    });

    it("ignores a record whose id was already written, in one batch and across batches", async () => {
      const sink = await storage.open();
      const r = record({ n: 10, threadId: "dedupe" });
      await sink.write([r, r]);
      await sink.write([{ ...r, decision: "deny" }]);
      const read = await sink.query({ threadId: "dedupe" });
      expect(read).toHaveLength(1);
      expect(read[0]?.decision).toBe("allow");
      await sink.close();
    });

    it("filters by thread and `after`, and limits", async () => {
      const sink = await storage.open();
      const records = Array.from({ length: 6 }, (_, i) => record({ n: 100 + i, threadId: i % 2 === 0 ? "even" : "odd" }));
      await sink.write(records);
      const even = await sink.query({ threadId: "even" });
      expect(even.map((r) => r.toolCallId)).toEqual(["call-100", "call-102", "call-104"]);
      const later = await sink.query({ threadId: "even", after: records[2]!.at });
      expect(later.map((r) => r.toolCallId)).toEqual(["call-104"]);
      const firstAfter = await sink.query({ threadId: "odd", after: 0, limit: 2 });
      expect(firstAfter.map((r) => r.toolCallId)).toEqual(["call-101", "call-103"]);
      const newest = await sink.query({ threadId: "odd", limit: 2 });
      expect(newest.map((r) => r.toolCallId)).toEqual(["call-103", "call-105"]);
      await sink.close();
    });

    it("keeps write order for records with the same `at`", async () => {
      const sink = await storage.open();
      const ids = ["z", "a", "m"].map((tag, i) => record({ n: 200 + i, threadId: "ties", at: 42, toolCallId: tag }));
      await sink.write(ids);
      expect((await sink.query({ threadId: "ties" })).map((r) => r.toolCallId)).toEqual(["z", "a", "m"]);
      await sink.close();
    });

    it("refuses an invalid record and an invalid query with a reason", async () => {
      const sink = await storage.open();
      const bad = { ...record({ n: 300 }), event: "whatever" } as unknown as AuditRecord;
      await expect(sink.write([bad])).rejects.toThrow(/record #0 .*invalid/);
      await expect(sink.query({ limit: -1 })).rejects.toThrow(/audit query refused/);
      await sink.close();
    });

    it("survives a reopen and still dedupes against what is stored", async ({ skip }) => {
      if (!storage.durable) skip("not durable");
      const first = await storage.open();
      await first.write([record({ n: 400, threadId: "restart" }), record({ n: 401, threadId: "restart" })]);
      await first.close();
      const second = await storage.open();
      await second.write([record({ n: 401, threadId: "restart" }), record({ n: 402, threadId: "restart" })]);
      const read = await second.query({ threadId: "restart" });
      expect(read.map((r) => r.toolCallId)).toEqual(["call-400", "call-401", "call-402"]);
      await second.close();
    });

    it("serialises concurrent writes without losing or duplicating records", async () => {
      const sink = await storage.open();
      const records = Array.from({ length: 40 }, (_, i) => record({ n: 500 + i, threadId: "concurrent" }));
      await Promise.all(
        Array.from({ length: 10 }, (_, b) => sink.write([...records.slice(b * 4, b * 4 + 4), records[0]!])),
      );
      const read = await sink.query({ threadId: "concurrent" });
      expect(new Set(read.map((r) => r.id)).size).toBe(40);
      expect(read).toHaveLength(40);
      await sink.close();
    });
  });
}

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "gg-audit-"));
  dirs.push(dir);
  return dir;
}

sinkContract("memory", async () => {
  const sink = new MemoryAuditSink();
  // The same instance stands in for "reopening"; it is not durable, so the restart test is skipped.
  const shared: AuditSink = { write: (r) => sink.write(r), query: (q) => sink.query(q), close: async () => undefined };
  return { open: async () => shared, durable: false };
});

sinkContract("JSONL", async () => {
  const path = join(await tempDir(), "nested", "dir", "audit.jsonl");
  return { open: () => JsonlAuditSink.open(path), durable: true };
});

sinkContract("SQLite", async () => {
  const path = join(await tempDir(), "db", "audit.sqlite");
  return { open: () => SqliteAuditSink.open(path, { table: "audit_log" }), durable: true };
});

describe.runIf(postgresConfigured)("PostgreSQL", () => {
  const table = uniqueName("audit_contract");
  let url: string | undefined;
  beforeAll(async () => {
    url = await postgresForTests();
  });
  afterAll(async () => {
    if (!url) return;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`DROP TABLE IF EXISTS "${table}"`);
    await client.end();
  });

  sinkContract("PostgreSQL", async () => {
    const connection = url ?? (await postgresForTests());
    if (!connection) return undefined;
    return { open: () => PostgresAuditSink.open({ url: connection, table }), durable: true };
  });

  it("uses a caller's pool without ending it, and splits large batches", async () => {
    if (!url) return;
    const pool = new pg.Pool({ connectionString: url });
    const sink = await PostgresAuditSink.open({ pool, table });
    const many = Array.from({ length: 2500 }, (_, i) => record({ n: 10_000 + i, threadId: "bulk" }));
    await sink.write(many);
    await sink.close();
    const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM "${table}" WHERE thread_id = 'bulk'`);
    expect(Number(rows[0]?.n)).toBe(2500);
    await pool.end();
  });
});

describe("sink options", () => {
  it("refuses table names that are not plain identifiers", async () => {
    await expect(SqliteAuditSink.open(":memory:", { table: 'x"; DROP TABLE y; --' })).rejects.toThrow(/audit table name refused/);
    await expect(PostgresAuditSink.open({ url: "postgres://127.0.0.1:1/none", table: "1abc" })).rejects.toThrow(/audit table name refused/);
  });

  it("refuses writes after close", async () => {
    const path = join(await tempDir(), "closed.jsonl");
    const sink = await JsonlAuditSink.open(path);
    await sink.close();
    await expect(sink.write([record({ n: 1 })])).rejects.toThrow(/closed/);
  });
});
