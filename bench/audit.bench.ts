import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { auditId, JsonlAuditSink, PostgresAuditSink, SqliteAuditSink, type AuditRecord, type AuditSink } from "../src/audit/index.js";

export interface AuditBenchResult {
  sink: string;
  recordsPerSecond: number;
}

/** Calls per model turn: each write is one turn's batch. */
const BATCH = 4;

function records(count: number): AuditRecord[] {
  const now = Date.now();
  return Array.from({ length: count }, (_, i) => ({
    id: auditId(["bench", String(i)]),
    at: now + i,
    threadId: `thread-${i % 8}`,
    runId: "bench-run",
    toolCallId: `call-${i}`,
    tool: "write_file",
    operation: "write",
    args: JSON.stringify({ path: `/tmp/bench/${i}.txt`, content: "[REDACTED]" }),
    event: "decision",
    decision: "allow",
    ruleId: "permission:tmp-writes",
    reason: "writes under /tmp are allowed",
    risk: "medium",
  }));
}

async function measure(sink: AuditSink, all: readonly AuditRecord[]): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < all.length; i += BATCH) await sink.write(all.slice(i, i + BATCH));
  const seconds = (performance.now() - started) / 1000;
  await sink.close();
  return Math.round(all.length / seconds);
}

/** Records/s written to each durable sink, one batch of 4 at a time (each batch fsynced/committed). */
export async function benchAudit(opts: { quick: boolean; postgresUrl?: string }): Promise<AuditBenchResult[]> {
  const count = opts.quick ? 400 : 4000;
  const dir = await mkdtemp(join(tmpdir(), "gg-audit-bench-"));
  const results: AuditBenchResult[] = [];
  try {
    results.push({ sink: "jsonl", recordsPerSecond: await measure(await JsonlAuditSink.open(join(dir, "audit.jsonl")), records(count)) });
    results.push({ sink: "sqlite", recordsPerSecond: await measure(await SqliteAuditSink.open(join(dir, "audit.db")), records(count)) });
    if (opts.postgresUrl) {
      const table = `audit_bench_${process.pid}_${Date.now().toString(36)}`;
      try {
        results.push({ sink: "postgres", recordsPerSecond: await measure(await PostgresAuditSink.open({ url: opts.postgresUrl, table }), records(count)) });
      } finally {
        const client = new pg.Client({ connectionString: opts.postgresUrl });
        await client.connect();
        await client.query(`DROP TABLE IF EXISTS "${table}"`);
        await client.end();
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return results;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const quick = process.argv.includes("--quick");
  const results = await benchAudit({ quick, postgresUrl: process.env.POSTGRES_URL });
  for (const { sink, recordsPerSecond } of results) console.log(`audit ${sink.padEnd(8)} ${recordsPerSecond.toLocaleString("en-US")} records/s (batches of ${BATCH})`);
}
