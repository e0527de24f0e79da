/**
 * W1 at equal durability (not part of `npm run bench`): the guarded agent against the plain ToolNode
 * loop on the same checkpointer, in interleaved blocks (2 threads × 10 turns × 4 calls per contender
 * and block, order rotated), process CPU per turn, median (p25–p75) of per-block ratios.
 *   npx tsx bench/lib/w1-durable.ts [blocks] [ids]
 * Contenders (ids):
 *   a-mem       ToolNode loop, MemorySaver
 *   c-mem       guarded (200 permission + 20 tool rules), MemorySaver, in-memory audit
 *   a-sqlite    ToolNode loop, SQLite checkpointer (its own file), LangGraph's default durability ("async")
 *   a-sqlite-sync    the same run with durability "sync", as createGuardedAgent runs by default
 *               (each step's checkpoint saved before the next step starts)
 *   c-sqlite    guarded, SQLite checkpointer + ledger + audit in one file (`openCheckpointer`,
 *               `openLedger`, `openAuditSink` on one path): a batch's claims commit with its
 *               decisions, completions with their outcomes
 *   c-sqlite-jsonl   the same with the JSONL audit (fdatasync per decision round) instead
 *   c-sqlite-memledger  guarded on the SQLite checkpointer with an in-memory ledger and audit: what
 *               the guard costs on that checkpointer without the ledger's and the audit's commits
 *   c-sqlite-2files  the same as c-sqlite with the ledger and the audit in a second file (the
 *               checkpointer alone in the first)
 *   c-sqlite-percall the same as c-sqlite with a ledger that claims and completes call by call
 *               (as before one commit per batch): every claim, completion and audit write its own commit
 *   a-sqlite-full    a-sqlite with its checkpointer file at `synchronous = FULL` (each commit synced, as the
 *                    guard's ledger and audit are): the ToolNode loop at power-loss durability
 *   c-sqlite-full    c-sqlite with its checkpointer connection at `synchronous = FULL` too: every SQLite
 *                    file on both sides synced per commit (equal durability)
 * Ratios: c-mem / a-mem, c-sqlite-full / a-sqlite-full, every other c-sqlite* / a-sqlite (and / a-sqlite-sync when it runs).
 */
import { MemorySaver } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryAuditSink } from "../../src/audit/index.js";
import { openAuditSink } from "../../src/audit/open.js";
import type { AuditSink } from "../../src/audit/types.js";
import type { ExecutionLedgerView } from "../../src/guard/interfaces.js";
import { openCheckpointer } from "../../src/storage/checkpointer.js";
import { openLedger } from "../../src/storage/ledger.js";
import { guardedAgent, plainToolNode, runW1Threads, type Contender } from "./contenders.js";
import { cpuAndWallMs, median, rotation, spread } from "./stats.js";

const blocks = Number(process.argv[2] ?? 30);
const wanted = (process.argv[3] ?? "a-mem,c-mem,a-sqlite,c-sqlite,c-sqlite-jsonl,c-sqlite-percall").split(",");
const warmThreads = Number(process.env.W1D_WARM ?? 20);
const dir = mkdtempSync(join(tmpdir(), "gg-w1-durable-"));
const closers: (() => Promise<void>)[] = [];

async function sqliteSaver(name: string, full = false): Promise<BaseCheckpointSaver> {
  const opened = await openCheckpointer(`sqlite:${join(dir, `${name}.db`)}`);
  closers.push(() => opened.close());
  if (full) syncEachCommit(opened.checkpointer);
  return opened.checkpointer;
}

/** Puts a SQLite checkpointer's connection at `synchronous = FULL` (LangGraph's SqliteSaver runs WAL at better-sqlite3's default, NORMAL: no sync per commit). */
function syncEachCommit(checkpointer: BaseCheckpointSaver): void {
  const db = (checkpointer as BaseCheckpointSaver & { db?: { pragma(text: string): unknown } }).db;
  if (db === undefined) throw new Error("w1-durable: the SQLite checkpointer has no connection to set");
  db.pragma("synchronous = FULL");
}

function guarded(id: string, checkpointer: BaseCheckpointSaver, audit: AuditSink, ledger?: ExecutionLedgerView): Contender {
  return { ...guardedAgent({ turnsPerRun: 10, checkpointer: () => checkpointer, audit, ...(ledger ? { ledger } : {}) }), id, label: id };
}

/** The ledger with its batch methods hidden: the guard claims and completes call by call. */
function perCall(ledger: ExecutionLedgerView): ExecutionLedgerView {
  return {
    claim: (k, o, l) => ledger.claim(k, o, l),
    complete: (k, r) => ledger.complete(k, r),
    result: (k) => ledger.result(k),
    release: (k, o) => ledger.release(k, o),
    renew: (k, o, l) => ledger.renew(k, o, l),
  };
}

async function guardedOnSqlite(id: string, audit: "sqlite" | "jsonl", batched: boolean, ledgerFile = `${id}.db`, full = false): Promise<Contender> {
  const file = join(dir, `${id}.db`);
  const opened = await openCheckpointer(`sqlite:${file}`);
  if (full) syncEachCommit(opened.checkpointer);
  const ledger = await openLedger(`sqlite:${join(dir, ledgerFile)}`);
  const sink = await openAuditSink(audit === "sqlite" ? `sqlite:${join(dir, ledgerFile)}` : `jsonl:${join(dir, `${id}.jsonl`)}`);
  closers.push(() => sink.close(), () => ledger.close(), () => opened.close());
  return guarded(id, opened.checkpointer, sink, batched ? ledger : perCall(ledger));
}

const make: Record<string, () => Promise<Contender>> = {
  "a-mem": async () => ({ ...plainToolNode({ turnsPerRun: 10, checkpointer: () => new MemorySaver() }), id: "a-mem" }),
  "c-mem": async () => guarded("c-mem", new MemorySaver(), new MemoryAuditSink()),
  "a-sqlite": async () => {
    const saver = await sqliteSaver("a-sqlite");
    return { ...plainToolNode({ turnsPerRun: 10, checkpointer: () => saver }), id: "a-sqlite" };
  },
  "a-sqlite-sync": async () => {
    const saver = await sqliteSaver("a-sqlite-sync");
    return { ...plainToolNode({ turnsPerRun: 10, checkpointer: () => saver, durability: "sync" }), id: "a-sqlite-sync" };
  },
  "a-sqlite-full": async () => {
    const saver = await sqliteSaver("a-sqlite-full", true);
    return { ...plainToolNode({ turnsPerRun: 10, checkpointer: () => saver }), id: "a-sqlite-full" };
  },
  "c-sqlite-full": () => guardedOnSqlite("c-sqlite-full", "sqlite", true, "c-sqlite-full.db", true),
  "c-sqlite": () => guardedOnSqlite("c-sqlite", "sqlite", true),
  "c-sqlite-jsonl": () => guardedOnSqlite("c-sqlite-jsonl", "jsonl", true),
  "c-sqlite-percall": () => guardedOnSqlite("c-sqlite-percall", "sqlite", false),
  "c-sqlite-memledger": async () => {
    const opened = await openCheckpointer(`sqlite:${join(dir, "c-sqlite-memledger.db")}`);
    const ledger = await openLedger("memory:w1-durable");
    closers.push(() => ledger.close(), () => opened.close());
    return guarded("c-sqlite-memledger", opened.checkpointer, new MemoryAuditSink(), ledger);
  },
  "c-sqlite-2files": () => guardedOnSqlite("c-sqlite-2files", "sqlite", true, "c-sqlite-2files-ledger.db"),
};
const contenders: Contender[] = [];
for (const id of wanted) {
  const build = make[id];
  if (!build) throw new Error(`w1-durable: unknown contender ${id}; known: ${Object.keys(make).join(", ")}`);
  contenders.push(await build());
}
const referenceOf = (id: string) => (id.endsWith("-mem") ? "a-mem" : id.endsWith("-full") ? "a-sqlite-full" : "a-sqlite");
/** c-sqlite against the ToolNode loop under the same "sync" durability, when that contender runs. */
const syncReference = wanted.includes("a-sqlite-sync") ? "a-sqlite-sync" : undefined;
const syncRatio: Record<string, number[]> = {};

const TURNS = 20;
const run = (c: Contender, prefix: string) => runW1Threads(c, prefix, TURNS);
for (const c of contenders) for (let w = 0; w < warmThreads / 2; w++) await run(c, `warm${w}-${c.id}`);
const cpu: Record<string, number[]> = {};
const wall: Record<string, number[]> = {};
const ratio: Record<string, number[]> = {};
for (let r = 0; r < blocks; r++) {
  const here: Record<string, number> = {};
  for (const c of rotation(contenders, r)) {
    const used = await cpuAndWallMs(() => run(c, `r${r}-${c.id}`));
    here[c.id] = used.cpu / TURNS;
    (cpu[c.id] ??= []).push(here[c.id]!);
    (wall[c.id] ??= []).push(used.wall / TURNS);
  }
  for (const c of contenders) {
    const reference = here[referenceOf(c.id)];
    if (reference !== undefined && !c.id.startsWith("a-")) (ratio[c.id] ??= []).push(here[c.id]! / reference);
    if (syncReference && c.id.startsWith("c-sqlite") && !c.id.endsWith("-full")) (syncRatio[c.id] ??= []).push(here[c.id]! / here[syncReference]!);
  }
  if (syncReference) (syncRatio["a-sqlite-sync"] ??= []).push(here[syncReference]! / here["a-sqlite"]!);
}
console.log(`${blocks} blocks of ${TURNS} turns × 4 calls per contender; CPU ms per turn (median of blocks), ratio: median (p25–p75) of per-block ratios`);
for (const c of contenders) {
  const s = ratio[c.id] ? spread(ratio[c.id]!) : undefined;
  const text = s ? `  ×${referenceOf(c.id)} ${s.median.toFixed(3)} (p25–p75 ${s.p25.toFixed(3)}–${s.p75.toFixed(3)})` : "";
  const sync = syncRatio[c.id] ? spread(syncRatio[c.id]!) : undefined;
  const syncText = sync ? `  ×${c.id === "a-sqlite-sync" ? "a-sqlite" : "a-sqlite-sync"} ${sync.median.toFixed(3)} (p25–p75 ${sync.p25.toFixed(3)}–${sync.p75.toFixed(3)})` : "";
  console.log(`${c.id.padEnd(17)} CPU ${median(cpu[c.id]!).toFixed(3)} ms/turn (wall ${median(wall[c.id]!).toFixed(3)})${text}${syncText}`);
}
for (const close of closers.reverse()) await close();
rmSync(dir, { recursive: true, force: true });
