/**
 * Item: four workers on one PostgreSQL store against one worker, in CPU efficiency (not part of
 * `npm run bench`). Each round runs THREADS threads (start → approval interrupt → resume → end,
 * two model turns each; PostgreSQL checkpointer, execution ledger and thread lock) once with 1
 * worker process and once with 4 (each its share), the order alternating per round. Efficiency:
 * turns per CPU-second, CPU summed over the worker processes, from "go" to the end of the work
 * (`work`) and over each process's whole life (`process`: start-up and connection set-up too).
 * Prints the median (p25–p75) of per-round ratios 4-worker / 1-worker.
 *   POSTGRES_URL=… npx tsx bench/lib/w4-efficiency.ts [rounds] [threads]
 * W4E_WARM=N: each worker runs N threads of its own before "go" (steady state; default 0: cold start counted).
 * W4E_POOL=1: the 1-worker and the 4-worker pools are started once (and warmed by W4E_WARM), then every
 * round sends each pool its threads: steady-state workers, no process start inside any round.
 * W4E_PLAIN=1: the control — the workers run LangGraph's ToolNode loop on the same store, no guard.
 * W4E_WORKERS=N: compare N workers (default 4) with one, e.g. 2 to tell the cost of more workers than cores.
 * W4E_PROF=DIR: each worker runs under `--cpu-prof` into DIR/<round>-w<workers>-<index>.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { openCheckpointer } from "../../src/storage/index.js";
import { openLedger } from "../../src/storage/ledger.js";
import { median, spread } from "./stats.js";

const url = process.env.POSTGRES_URL;
if (!url) throw new Error("w4-efficiency: set POSTGRES_URL");
const rounds = Number(process.argv[2] ?? 5);
const threads = Number(process.argv[3] ?? 80);
const schema = `gg_w4e_${process.pid}`;
const MANY = Number(process.env.W4E_WORKERS ?? 4);
const script = fileURLToPath(new URL("./efficiency-worker.ts", import.meta.url));

interface Report {
  type: string;
  turns?: number;
  workCpuMs?: number;
  processCpuMs?: number;
  wallMs?: number;
}

function next(child: ChildProcess): Promise<Report> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`worker exited with ${code} before reporting`));
    child.once("exit", onExit);
    child.once("message", (m) => {
      child.off("exit", onExit);
      resolve(m as Report);
    });
  });
}

interface Pool {
  children: ChildProcess[];
  exited: Promise<unknown>[];
}

/**
 * Starts `workers` worker processes and waits until each is warm: long-lived (`keep`, W4E_POOL=1 in
 * the worker: one round per message) or for one round (threads named `name`, profiled with W4E_PROF).
 */
async function startPool(workers: number, name: string, keep: boolean): Promise<Pool> {
  const profile = (i: number) => (!keep && process.env.W4E_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.W4E_PROF}/${name}-${i}`] : []);
  const children = Array.from({ length: workers }, (_, i) =>
    spawn(process.execPath, [...profile(i), "--import", "tsx", script, url as string, schema, name, String(i), String(workers), String(threads)], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      env: { ...process.env, W4E_POOL: keep ? "1" : "0" },
    }),
  );
  const exited = children.map((c) => new Promise((resolve) => c.once("exit", resolve)));
  for (const c of children) if ((await next(c)).type !== "ready") throw new Error("worker: expected ready");
  return { children, exited };
}

/** One round on started workers: the threads split over them; CPU from each worker's own report. */
async function runPool(pool: Pool, round: string): Promise<{ turns: number; work: number; process: number; wall: number }> {
  const reports = pool.children.map((c) => next(c));
  const start = performance.now();
  for (const c of pool.children) c.send({ go: round });
  const done = await Promise.all(reports);
  const wall = performance.now() - start;
  const sum = (f: (r: Report) => number | undefined) => done.reduce((n, r) => n + (f(r) ?? 0), 0);
  return { turns: sum((r) => r.turns), work: sum((r) => r.workCpuMs), process: sum((r) => r.processCpuMs), wall };
}

/** One round in new processes (module loading and start-up before "go", their exit after the report). */
async function run(workers: number, prefix: string): Promise<{ turns: number; work: number; process: number; wall: number }> {
  const pool = await startPool(workers, prefix, false);
  const result = await runPool(pool, prefix);
  // The process CPU is read after the work; a worker's close and exit come after it.
  await Promise.all(pool.exited);
  return result;
}

const admin = new pg.Client({ connectionString: url });
await admin.connect();
try {
  await admin.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  // Tables once, before any race.
  await (await openCheckpointer(url, { schema })).close();
  await (await openLedger(url, { schema })).close();
  const pools = process.env.W4E_POOL === "1" ? { 1: await startPool(1, "p1", true), many: await startPool(MANY, `p${MANY}`, true) } : undefined;
  const ratioWork: number[] = [];
  const ratioProcess: number[] = [];
  const eff: Record<string, number[]> = { "1 work": [], [`${MANY} work`]: [], "1 process": [], [`${MANY} process`]: [] };
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? [1, MANY] : [MANY, 1];
    const got: Record<number, { turns: number; work: number; process: number; wall: number }> = {};
    for (const workers of order) got[workers] = pools ? await runPool(workers === 1 ? pools[1] : pools.many, `r${r}-w${workers}`) : await run(workers, `r${r}-w${workers}`);
    const one = got[1]!;
    const four = got[MANY]!;
    if (one.turns !== 2 * threads || four.turns !== 2 * threads) throw new Error(`turns ${one.turns} / ${four.turns}, expected ${2 * threads}`);
    const e = (x: typeof one, cpu: number) => x.turns / (cpu / 1000);
    eff["1 work"]!.push(e(one, one.work));
    eff[`${MANY} work`]!.push(e(four, four.work));
    eff["1 process"]!.push(e(one, one.process));
    eff[`${MANY} process`]!.push(e(four, four.process));
    ratioWork.push(e(four, four.work) / e(one, one.work));
    ratioProcess.push(e(four, four.process) / e(one, one.process));
    console.log(`round ${r}: 1 worker ${one.work.toFixed(0)} ms CPU (process ${one.process.toFixed(0)}), wall ${one.wall.toFixed(0)} ms; ${MANY} workers ${four.work.toFixed(0)} ms CPU (process ${four.process.toFixed(0)}), wall ${four.wall.toFixed(0)} ms`);
  }
  if (pools) {
    for (const pool of [pools[1], pools.many]) for (const c of pool.children) c.send("stop");
    await Promise.all([...pools[1].exited, ...pools.many.exited]);
  }
  const fmt = (s: { median: number; p25: number; p75: number }) => `${s.median.toFixed(3)} (p25–p75 ${s.p25.toFixed(3)}–${s.p75.toFixed(3)})`;
  console.log(`${rounds} rounds of ${threads} threads (${2 * threads} turns) per contender`);
  for (const [k, v] of Object.entries(eff)) console.log(`${k.padEnd(10)} ${median(v).toFixed(1)} turns per CPU-second`);
  console.log(`${MANY} workers / 1 worker, work CPU:    ${fmt(spread(ratioWork))}`);
  console.log(`${MANY} workers / 1 worker, process CPU: ${fmt(spread(ratioProcess))}`);
} finally {
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
}
