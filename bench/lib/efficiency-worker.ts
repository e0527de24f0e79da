/**
 * A worker process of bench/lib/w4-efficiency.ts: opens the PostgreSQL checkpointer and execution
 * ledger (one schema), then, on "go", starts its share of the threads (each stops at an approval
 * interrupt) and resumes them, every run under the thread lock (startThread / resumeThread, as a
 * worker of a queue would). Reports the CPU time of the work (process.cpuUsage from "go" to the
 * end) and of the whole process, and the model turns it ran. With W4E_POOL=1 it stays up and runs one
 * round per `{ go: ROUND }` message (a worker pool in steady state) until "stop".
 * argv: POSTGRES_URL schema prefix workerIndex workers threads
 */
import { resumeThread, startThread } from "../../src/guard/durable.js";
import { openCheckpointer } from "../../src/storage/index.js";
import { openLedger } from "../../src/storage/ledger.js";
import { APPROVE, approvalAgent } from "./approval-agent.js";
import { plainToolNode } from "./contenders.js";

const [url, schema, prefix, indexText, workersText, threadsText] = process.argv.slice(2);
if (!url || !schema || !prefix || !indexText || !workersText || !threadsText) throw new Error("usage: efficiency-worker.ts URL SCHEMA PREFIX INDEX WORKERS THREADS");
const index = Number(indexText);
const workers = Number(workersText);
const threads = Number(threadsText);
const send = (message: Record<string, unknown>) => process.send?.(message);

const opened = await openCheckpointer(url, { schema });
const ledger = await openLedger(url, { schema });
const graph = approvalAgent(opened.checkpointer, () => undefined, ledger);
// W4E_PLAIN=1: the control — LangGraph's ToolNode loop on the same PostgreSQL checkpointer, no guard,
// no lock, no ledger; a thread is two runs of one model turn (one call) each, as the guarded thread's start and resume.
const plain = process.env.W4E_PLAIN === "1" ? plainToolNode({ turnsPerRun: 1, calls: ["noop_read"], checkpointer: () => opened.checkpointer }) : undefined;
const options = { lockSpec: url, waitMs: 60_000, config: { recursionLimit: 100 } };
// Warm-up threads of this worker's own (W4E_WARM, default 0) before "go": the work measured is then steady state.
for (let w = 0; w < Number(process.env.W4E_WARM ?? 0); w++) {
  const id = `${prefix}-warm${index}-${w}`;
  if (plain) {
    await plain.invoke(id, "go");
    await plain.invoke(id, "again");
    continue;
  }
  await startThread(graph, id, { messages: [{ role: "user", content: "deploy" }] }, options);
  await resumeThread(graph, id, APPROVE, options);
}
send({ type: "ready" });

/** Runs this worker's share of the round's threads (ids `${round}-${i}`), each started then resumed; reports CPU and turns. */
async function work(round: string): Promise<void> {
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  let turns = 0;
  const own = Array.from({ length: threads }, (_, i) => i).filter((i) => i % workers === index);
  for (const i of plain ? [] : own) {
    const outcome = await startThread(graph, `${round}-${i}`, { messages: [{ role: "user", content: "deploy" }] }, options);
    if (outcome.status !== "ran" || outcome.interrupts.length !== 1) throw new Error(`thread ${i}: start gave ${outcome.status}`);
    turns += 1;
  }
  for (const i of plain ? own : []) {
    await plain?.invoke(`${round}-${i}`, "go");
    await plain?.invoke(`${round}-${i}`, "again");
    turns += 2;
  }
  for (const i of plain ? [] : own) {
    const outcome = await resumeThread(graph, `${round}-${i}`, APPROVE, options);
    if (outcome.status !== "ran") throw new Error(`thread ${i}: resume gave ${outcome.status}`);
    turns += 1;
  }
  const used = process.cpuUsage(cpu0);
  const total = process.cpuUsage();
  send({ type: "done", turns, threads: own.length, workCpuMs: (used.user + used.system) / 1000, processCpuMs: (total.user + total.system) / 1000, wallMs: performance.now() - wall0 });
}

// One round on the first message, or, in a pool (W4E_POOL=1), one round per `{ go: ROUND }` message until "stop".
if (process.env.W4E_POOL === "1") {
  await new Promise<void>((resolve, reject) => {
    process.on("message", (m: unknown) => {
      if (m === "stop") resolve();
      else if (typeof m === "object" && m !== null && typeof (m as { go?: unknown }).go === "string") work((m as { go: string }).go).catch(reject);
    });
  });
} else {
  await new Promise<void>((resolve) => process.once("message", () => resolve()));
  await work(prefix);
}
await ledger.close();
await opened.close();
process.disconnect?.();
