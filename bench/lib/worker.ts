/**
 * W4 worker process: opens the PostgreSQL checkpointer, starts its share of the threads (each stops
 * at an approval interrupt), then resumes every thread it can lock (all workers race over all
 * threads). Each real execution of the tool inserts a row keyed by its idempotency key.
 * argv: POSTGRES_URL schema workerIndex workers threads
 */
import pg from "pg";
import { resumeThread, startThread } from "../../src/guard/durable.js";
import { openCheckpointer } from "../../src/storage/index.js";
import { APPROVE, approvalAgent } from "./approval-agent.js";

const [url, schema, indexText, workersText, threadsText] = process.argv.slice(2);
if (!url || !schema || !indexText || !workersText || !threadsText) throw new Error("usage: worker.ts URL SCHEMA INDEX WORKERS THREADS");
const index = Number(indexText);
const workers = Number(workersText);
const threads = Number(threadsText);
const send = (message: Record<string, unknown>) => process.send?.(message);

const pool = new pg.Pool({ connectionString: url, max: 2 });
const opened = await openCheckpointer(url, { schema });
const graph = approvalAgent(opened.checkpointer, async (ctx) => {
  await pool.query(`INSERT INTO "${schema}".executions (key, worker) VALUES ($1, $2)`, [ctx.idempotencyKey, index]);
});
const ids = Array.from({ length: threads }, (_, i) => `w4-thread-${i}`);
const options = { lockSpec: url, config: { recursionLimit: 100 } };

send({ type: "ready" });
await new Promise<void>((resolve) => process.once("message", () => resolve()));

let started = 0;
let resumed = 0;
let busy = 0;
for (let i = index; i < threads; i += workers) {
  // Another worker may hold the lock for a moment (its resume pass found nothing to do): wait for it.
  const outcome = await startThread(graph, ids[i]!, { messages: [{ role: "user", content: "deploy" }] }, { ...options, waitMs: 60_000 });
  if (outcome.status === "ran") started++;
}
for (let k = 0; k < threads; k++) {
  const at = (k + index * Math.ceil(threads / workers)) % threads;
  // Own threads: wait for the lock, so each started thread is surely resumed by someone.
  const own = at % workers === index;
  const outcome = await resumeThread(graph, ids[at]!, APPROVE, { ...options, waitMs: own ? 60_000 : 0 });
  if (outcome.status === "ran") resumed++;
  else if (outcome.status === "busy") busy++;
}
send({ type: "done", started, resumed, busy });
await opened.close();
await pool.end();
process.disconnect?.();
