/**
 * WAL pages written per W1 turn on one SQLite file (not part of `npm run bench`): the guarded agent
 * on `openCheckpointer` + `openLedger` + `openAuditSink` sharing the file, and the ToolNode loop on
 * its own, and the guarded agent's checkpoints alone (in-memory audit, no ledger), after a warm-up thread; the log is truncated, 20 turns run, and its frames counted.
 *   npx tsx bench/lib/wal-pages.ts
 */
import type { BaseMessage } from "@langchain/core/messages";
import Database from "better-sqlite3";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryAuditSink } from "../../src/audit/index.js";
import { openAuditSink } from "../../src/audit/open.js";
import { createGuardedAgent } from "../../src/guard/index.js";
import { PermissionPolicy } from "../../src/policy/index.js";
import { openCheckpointer } from "../../src/storage/checkpointer.js";
import { openLedger } from "../../src/storage/ledger.js";
import { plainToolNode } from "./contenders.js";
import { permissionRules, toolRules } from "./guard-rules.js";
import { LoopModel } from "./loop-model.js";
import { NOOP_ARGS, NOOP_TOOL_NAMES, noopTools } from "./noop-tools.js";

const dir = mkdtempSync(join(tmpdir(), "gg-wal-pages-"));
const TURNS = 20;

/** The WAL's frames: how many, and how many per b-tree (table or index) that owns each frame's page, largest first. */
function walFrames(file: string): { frames: number; byTree: [string, number][] } {
  let wal: Buffer;
  try {
    wal = readFileSync(`${file}-wal`);
  } catch {
    return { frames: 0, byTree: [] };
  }
  const db = new Database(file, { readonly: true });
  const pageSize = db.pragma("page_size", { simple: true }) as number;
  const owner = new Map((db.prepare("SELECT pageno, name FROM dbstat").all() as { pageno: number; name: string }[]).map((r) => [r.pageno, r.name]));
  db.close();
  const counts = new Map<string, number>();
  let frames = 0;
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    const name = owner.get(wal.readUInt32BE(at)) ?? "(free or new)";
    counts.set(name, (counts.get(name) ?? 0) + 1);
    frames += 1;
  }
  return { frames, byTree: [...counts].sort((a, b) => b[1] - a[1]) };
}
function truncate(file: string): void {
  const db = new Database(file);
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
}

async function measure(name: string, file: string, invoke: (thread: string) => Promise<BaseMessage[]>): Promise<void> {
  await invoke(`${name}-warm`);
  truncate(file);
  for (let t = 0; t < TURNS / 10; t++) await invoke(`${name}-${t}`);
  const db = new Database(file, { readonly: true });
  const row = db.prepare("SELECT count(*) AS n, sum(length(checkpoint)) AS bytes FROM checkpoints WHERE thread_id = ?").get(`${name}-0`) as { n: number; bytes: number };
  const writes = db.prepare("SELECT count(*) AS n, sum(length(value)) AS bytes FROM writes WHERE thread_id = ?").get(`${name}-0`) as { n: number; bytes: number };
  db.close();
  const wal = walFrames(file);
  console.log(`${name.padEnd(10)} ${(wal.frames / TURNS).toFixed(1)} WAL pages per turn; ${(row.n / 10).toFixed(1)} checkpoints (${(row.bytes / 10 / 1024).toFixed(1)} KiB) and ${(writes.n / 10).toFixed(1)} writes (${(writes.bytes / 10 / 1024).toFixed(1)} KiB) per turn`);
  console.log(`           by b-tree: ${wal.byTree.map(([tree, n]) => `${tree} ${(n / TURNS).toFixed(1)}`).join(", ")}`);
}

const gFile = join(dir, "guarded.db");
const opened = await openCheckpointer(`sqlite:${gFile}`);
const ledger = await openLedger(`sqlite:${gFile}`);
const sink = await openAuditSink(`sqlite:${gFile}`);
const agent = createGuardedAgent({
  model: new LoopModel({ turnsPerRun: 10, calls: NOOP_TOOL_NAMES, args: NOOP_ARGS }),
  tools: noopTools(),
  rules: toolRules(20),
  permissions: new PermissionPolicy(permissionRules(200)),
  audit: sink,
  checkpointer: opened.checkpointer,
  maxConcurrency: 10,
  ledger,
});
await measure("c-sqlite", gFile, async (thread) => (await agent.invoke({ messages: [{ role: "user", content: "go" }] }, { configurable: { thread_id: thread }, recursionLimit: 1_000_000 })).messages);

const mFile = join(dir, "guarded-ckpt.db");
const mOpened = await openCheckpointer(`sqlite:${mFile}`);
const mAgent = createGuardedAgent({
  model: new LoopModel({ turnsPerRun: 10, calls: NOOP_TOOL_NAMES, args: NOOP_ARGS }),
  tools: noopTools(),
  rules: toolRules(20),
  permissions: new PermissionPolicy(permissionRules(200)),
  audit: new MemoryAuditSink(),
  checkpointer: mOpened.checkpointer,
  maxConcurrency: 10,
});
await measure("c-ckpt", mFile, async (thread) => (await mAgent.invoke({ messages: [{ role: "user", content: "go" }] }, { configurable: { thread_id: thread }, recursionLimit: 1_000_000 })).messages);
await mOpened.close();

const aFile = join(dir, "loop.db");
const aOpened = await openCheckpointer(`sqlite:${aFile}`);
const loop = plainToolNode({ turnsPerRun: 10, checkpointer: () => aOpened.checkpointer });
await measure("a-sqlite", aFile, (thread) => loop.invoke(thread, "go"));

await sink.close();
await ledger.close();
await opened.close();
await aOpened.close();
rmSync(dir, { recursive: true, force: true });
