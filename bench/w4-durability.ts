import { Command, type BaseCheckpointSaver } from "@langchain/langgraph";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { openCheckpointer } from "../src/storage/index.js";
import { APPROVE, approvalAgent, type ApprovalAgent } from "./lib/approval-agent.js";
import type { BenchRow } from "./lib/result.js";
import { median, rotation, round, timeMs } from "./lib/stats.js";

interface Backend {
  id: string;
  agent: ApprovalAgent;
  close(): Promise<void>;
}

async function backend(id: string, spec: string, schema?: string): Promise<Backend> {
  const opened = await openCheckpointer(spec, schema ? { schema } : {});
  return { id, agent: approvalAgent(opened.checkpointer as BaseCheckpointSaver), close: () => opened.close() };
}

/** One approval round trip: the run stops at the interrupt, then the approval resumes it to the end. */
async function roundTrip(agent: ApprovalAgent, threadId: string): Promise<void> {
  const config = { configurable: { thread_id: threadId } };
  const first = await agent.invoke({ messages: [{ role: "user", content: "deploy" }] }, config);
  if (!("__interrupt__" in first)) throw new Error(`W4 ${threadId}: no approval interrupt`);
  const done = await agent.invoke(new Command({ resume: APPROVE }), config);
  const last = done.messages[done.messages.length - 1];
  if (last?.content !== "done") throw new Error(`W4 ${threadId}: the resumed run did not finish`);
}

async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}

/** W4a: interrupt → resume round trip per checkpointer, interleaved rounds, ratio to MemorySaver. */
async function roundTrips(quick: boolean, postgresUrl: string | undefined, schema: string, dir: string): Promise<BenchRow[]> {
  const backends = [await backend("memory", "memory:"), await backend("sqlite", `sqlite:${join(dir, "w4.db")}`)];
  if (postgresUrl) backends.push(await backend("postgres", postgresUrl, schema));
  try {
    const rounds = quick ? 5 : 40;
    const ms: Record<string, number[]> = Object.fromEntries(backends.map((b) => [b.id, []]));
    for (const b of backends) await roundTrip(b.agent, `warm-${b.id}`);
    for (let r = 0; r < rounds; r++) {
      for (const b of rotation(backends, r)) ms[b.id]!.push(await timeMs(() => roundTrip(b.agent, `rt-${r}`)));
    }
    const base = median(ms.memory!);
    return backends.map((b) => ({
      workload: "W4",
      contender: `approval round trip, ${b.id}`,
      metric: "median",
      value: round(median(ms[b.id]!), 2),
      unit: "ms",
      ratio: round(median(ms[b.id]!) / base),
      ratioOf: "/ MemorySaver",
    }));
  } finally {
    for (const b of backends) await b.close();
  }
}

interface WorkerReport {
  type: string;
  started?: number;
  resumed?: number;
  busy?: number;
}

function nextMessage(child: ChildProcess): Promise<WorkerReport> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`W4 worker exited with ${code} before reporting`));
    child.once("exit", onExit);
    child.once("message", (m) => {
      child.off("exit", onExit);
      resolve(m as WorkerReport);
    });
  });
}

/** W4b: `threads` threads started (each interrupts) and resumed by 4 worker processes racing on PostgreSQL. */
async function multiProcess(quick: boolean, url: string, schema: string): Promise<BenchRow[]> {
  const threads = quick ? 12 : 100;
  const workers = 4;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await admin.query(`CREATE TABLE "${schema}".executions (key text NOT NULL, worker int NOT NULL)`);
    const opened = await openCheckpointer(url, { schema }); // creates the checkpoint tables once, before the race
    await opened.close();
    const script = fileURLToPath(new URL("./lib/worker.ts", import.meta.url));
    const children = Array.from({ length: workers }, (_, i) =>
      spawn(process.execPath, ["--import", "tsx", script, url, schema, String(i), String(workers), String(threads)], {
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      }),
    );
    const exited = children.map((c) => new Promise<number | null>((resolve) => c.once("exit", resolve)));
    await Promise.all(children.map(async (c) => {
      const m = await nextMessage(c);
      if (m.type !== "ready") throw new Error(`W4 worker: expected ready, got ${JSON.stringify(m)}`);
    }));
    const start = performance.now();
    const reports = children.map((c) => nextMessage(c));
    for (const c of children) c.send("go");
    const done = await Promise.all(reports);
    const seconds = (performance.now() - start) / 1000;
    const codes = await Promise.all(exited);
    if (codes.some((code) => code !== 0)) throw new Error(`W4 workers exited with ${codes.join(", ")}`);

    const { rows } = await admin.query<{ total: string; distinct: string }>(
      `SELECT count(*) AS total, count(DISTINCT key) AS distinct FROM "${schema}".executions`,
    );
    const total = Number(rows[0]?.total ?? 0);
    const distinct = Number(rows[0]?.distinct ?? 0);
    const resumed = done.reduce((n, m) => n + (m.resumed ?? 0), 0);
    if (distinct !== threads || resumed !== threads) throw new Error(`W4: ${distinct} calls executed and ${resumed} threads resumed, expected ${threads}`);
    const doubles = total - distinct;
    return [
      { workload: "W4", contender: `${threads} threads, ${workers} worker processes, PostgreSQL`, metric: "interrupt + resume throughput", value: round(threads / seconds, 1), unit: "threads/s", note: `per worker resumed: ${done.map((m) => m.resumed).join("/")}` },
      { workload: "W4", contender: `${threads} threads, ${workers} worker processes, PostgreSQL`, metric: "double executions", value: doubles, unit: "", target: "= 0", met: doubles === 0, note: `${total} executions of ${threads} calls` },
    ];
  } finally {
    await admin.end();
  }
}

/** W4: durability costs. PostgreSQL parts only with `postgresUrl`. */
export async function benchW4(opts: { quick: boolean; postgresUrl?: string | undefined }): Promise<BenchRow[]> {
  const dir = await mkdtemp(join(tmpdir(), "gg-w4-"));
  const schema = `gg_w4_${process.pid}_${Date.now().toString(36)}`;
  try {
    const rows = await roundTrips(opts.quick, opts.postgresUrl, `${schema}_rt`, dir);
    if (opts.postgresUrl) rows.push(...(await multiProcess(opts.quick, opts.postgresUrl, `${schema}_mp`)));
    return rows;
  } finally {
    await rm(dir, { recursive: true, force: true });
    if (opts.postgresUrl) {
      await dropSchema(opts.postgresUrl, `${schema}_rt`);
      await dropSchema(opts.postgresUrl, `${schema}_mp`);
    }
  }
}
