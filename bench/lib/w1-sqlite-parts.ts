/**
 * Where W1's guarded turn on SQLite spends its CPU (not part of `npm run bench`): the ToolNode loop on
 * a SQLite checkpointer, and the guarded agent on a SQLite checkpointer with, in turn, the in-memory
 * ledger and audit, the SQLite ledger alone, the SQLite ledger and audit in the checkpointer's file
 * (as docs/durability.md sets it up), the SQLite ledger and audit in a file of their own, interleaved in blocks (2 threads × 10 turns × 4 calls per
 * contender and block, order rotated), process CPU per turn, median (p25–p75) of per-block ratios.
 *   W1D_WARM=20 npx tsx bench/lib/w1-sqlite-parts.ts [blocks]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryAuditSink } from "../../src/audit/index.js";
import { openAuditSink } from "../../src/audit/open.js";
import { openCheckpointer } from "../../src/storage/checkpointer.js";
import { openLedger } from "../../src/storage/ledger.js";
import { type Contender, guardedAgent, plainToolNode, runW1Threads } from "./contenders.js";
import { cpuAndWallMs, rotation, spread } from "./stats.js";

const blocks = Number(process.argv[2] ?? 30);
const warmThreads = Number(process.env.W1D_WARM ?? 20);
const dir = mkdtempSync(join(tmpdir(), "gg-w1-parts-"));
const closers: (() => Promise<void>)[] = [];

async function sqliteFile(name: string) {
  const file = join(dir, `${name}.db`);
  const opened = await openCheckpointer(`sqlite:${file}`);
  closers.push(() => opened.close());
  return { file, checkpointer: () => opened.checkpointer };
}

const contenders: Contender[] = [];
{
  const f = await sqliteFile("a");
  contenders.push({ ...plainToolNode({ turnsPerRun: 10, checkpointer: f.checkpointer }), id: "a-sqlite" });
}
{
  const f = await sqliteFile("c-memory");
  const ledger = await openLedger("memory:");
  contenders.push({ ...guardedAgent({ turnsPerRun: 10, checkpointer: f.checkpointer, audit: new MemoryAuditSink(), ledger }), id: "c-mem-ledger" });
}
{
  const f = await sqliteFile("c-ledger");
  const ledger = await openLedger(`sqlite:${f.file}`);
  closers.push(() => ledger.close());
  contenders.push({ ...guardedAgent({ turnsPerRun: 10, checkpointer: f.checkpointer, audit: new MemoryAuditSink(), ledger }), id: "c-sqlite-ledger" });
}
{
  const f = await sqliteFile("c-sqlite");
  const ledger = await openLedger(`sqlite:${f.file}`);
  const sink = await openAuditSink(`sqlite:${f.file}`);
  closers.push(() => sink.close(), () => ledger.close());
  contenders.push({ ...guardedAgent({ turnsPerRun: 10, checkpointer: f.checkpointer, audit: sink, ledger }), id: "c-sqlite" });
}
{
  // The ledger and audit in a file of their own beside the checkpointer's: their synced commits sync
  // only their own pages, not the checkpoints LangGraph's saver wrote without a sync.
  const f = await sqliteFile("c-apart");
  const ledger = await openLedger(`sqlite:${join(dir, "c-apart-ledger.db")}`);
  const sink = await openAuditSink(`sqlite:${join(dir, "c-apart-ledger.db")}`);
  closers.push(() => sink.close(), () => ledger.close());
  contenders.push({ ...guardedAgent({ turnsPerRun: 10, checkpointer: f.checkpointer, audit: sink, ledger }), id: "c-sqlite-apart" });
}

const TURNS = 20;
const run = (c: Contender, prefix: string) => runW1Threads(c, prefix, TURNS);
for (const c of contenders) for (let w = 0; w < warmThreads / 2; w++) await run(c, `warm${w}-${c.id}`);
const cpu: Record<string, number[]> = {};
const ratio: Record<string, number[]> = {};
for (let r = 0; r < blocks; r++) {
  const block: Record<string, number> = {};
  for (const c of rotation(contenders, r)) {
    block[c.id] = (await cpuAndWallMs(() => run(c, `r${r}-${c.id}`))).cpu / TURNS;
    (cpu[c.id] ??= []).push(block[c.id]!);
  }
  for (const c of contenders.slice(1)) (ratio[`${c.id} / a-sqlite`] ??= []).push(block[c.id]! / block["a-sqlite"]!);
}
const fmt = (s: { median: number; p25: number; p75: number }) => `${s.median.toFixed(3)} (p25–p75 ${s.p25.toFixed(3)}–${s.p75.toFixed(3)})`;
console.log(`${blocks} blocks of ${TURNS} turns × 4 calls per contender`);
for (const c of contenders) console.log(`${c.id.padEnd(16)} CPU ${spread(cpu[c.id]!).median.toFixed(3)} ms/turn`);
for (const [key, values] of Object.entries(ratio)) console.log(`${key.padEnd(28)} ${fmt(spread(values))}`);
for (const close of closers.reverse()) await close();
rmSync(dir, { recursive: true, force: true });
