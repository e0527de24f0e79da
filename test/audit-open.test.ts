import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import {
  auditId,
  DEFAULT_AUDIT_SPEC,
  JsonlAuditSink,
  MemoryAuditSink,
  openAuditSink,
  parseAuditSpec,
  PostgresAuditSink,
  SqliteAuditSink,
  type AuditRecord,
} from "../src/audit/index.js";
import { postgresConfigured, postgresForTests, uniqueName } from "./helpers/postgres.js";

const sample: AuditRecord = {
  id: auditId(["open", "1"]),
  at: 5,
  threadId: "t",
  runId: "r",
  toolCallId: "c",
  tool: "read_file",
  args: "{}",
  event: "decision",
  decision: "allow",
  ruleId: "risk:low",
  reason: "read-only",
};

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe("parseAuditSpec", () => {
  it("reads each string form", () => {
    expect(parseAuditSpec("jsonl:logs/a.jsonl")).toEqual({ sink: "jsonl", path: "logs/a.jsonl" });
    expect(parseAuditSpec("sqlite:/var/x.db")).toEqual({ sink: "sqlite", path: "/var/x.db" });
    expect(parseAuditSpec("postgres://u@h:5432/db")).toEqual({ sink: "postgres", url: "postgres://u@h:5432/db" });
    expect(parseAuditSpec("postgresql://h/db")).toEqual({ sink: "postgres", url: "postgresql://h/db" });
    expect(parseAuditSpec("memory:")).toEqual({ sink: "memory" });
    expect(parseAuditSpec(DEFAULT_AUDIT_SPEC)).toEqual({ sink: "jsonl", path: ".guarded-graph/audit.jsonl" });
    // A Windows drive letter survives: only the first colon separates the kind.
    expect(parseAuditSpec("jsonl:C:\\logs\\a.jsonl")).toEqual({ sink: "jsonl", path: "C:\\logs\\a.jsonl" });
  });

  it("refuses unknown kinds and missing paths, saying what is accepted", () => {
    expect(() => parseAuditSpec("s3://bucket/x")).toThrow(/jsonl:PATH, sqlite:PATH, postgres:\/\/URL, memory:/);
    expect(() => parseAuditSpec("jsonl:")).toThrow(/names no file path/);
    expect(() => parseAuditSpec("memory:x")).toThrow(/takes nothing/);
  });
});

describe("openAuditSink", () => {
  it("opens each kind from a string and from an object", async () => {
    const dir = await mkdtemp(join(tmpdir(), "gg-open-"));
    dirs.push(dir);
    const jsonl = await openAuditSink(`jsonl:${join(dir, "a.jsonl")}`);
    expect(jsonl).toBeInstanceOf(JsonlAuditSink);
    await jsonl.write([sample]);
    await jsonl.close();
    expect(JSON.parse(await readFile(join(dir, "a.jsonl"), "utf8"))).toEqual(sample);

    const sqlite = await openAuditSink({ sink: "sqlite", path: join(dir, "a.db"), table: "custom_audit" });
    expect(sqlite).toBeInstanceOf(SqliteAuditSink);
    await sqlite.write([sample]);
    expect(await sqlite.query()).toEqual([sample]);
    await sqlite.close();

    expect(await openAuditSink("memory:")).toBeInstanceOf(MemoryAuditSink);
    expect(await openAuditSink({ sink: "memory" })).toBeInstanceOf(MemoryAuditSink);
  });

  it("refuses an object spec that does not fit its kind", async () => {
    await expect(openAuditSink({ sink: "jsonl" })).rejects.toThrow(/audit sink spec refused/);
    await expect(openAuditSink({ sink: "postgres", path: "x" })).rejects.toThrow(/audit sink spec refused/);
    await expect(openAuditSink({ sink: "ftp" } as unknown as { sink: "memory" })).rejects.toThrow(/audit sink spec refused/);
  });

  it.runIf(postgresConfigured)("opens PostgreSQL from a URL", async () => {
    const url = await postgresForTests();
    if (!url) return;
    const table = uniqueName("audit_open");
    const sink = await openAuditSink({ sink: "postgres", url, table });
    expect(sink).toBeInstanceOf(PostgresAuditSink);
    await sink.write([sample, sample]);
    expect(await sink.query()).toEqual([sample]);
    await sink.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`DROP TABLE "${table}"`);
    await client.end();
  });
});
