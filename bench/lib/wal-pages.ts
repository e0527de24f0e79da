/**
 * WAL pages written per W1 turn on one SQLite file (not part of `npm run bench`): the guarded agent
 * on `openCheckpointer` + `openLedger` + `openAuditSink` sharing the file, and the ToolNode loop on
 * its own, and the guarded agent's checkpoints alone (in-memory audit, no ledger), after a warm-up thread; the log is truncated, 20 turns run, and its frames counted.
 *   npx tsx bench/lib/wal-pages.ts
 */
import type { BaseMessage } from "@langchain/core/messages";
import Database from "better-sqlite3";
import { mkdtempSync, rmSync, statSync } from "node:fs";
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

function framesIn(file: string): number {
  const db = new Database(file);
  const pageSize = db.pragma("page_size", { simple: true }) as number;
  db.close();
  let size = 0;
  try {
    size = statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
  return size === 0 ? 0 : (size - 32) / (pageSize + 24);
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
  console.log(`${name.padEnd(10)} ${(framesIn(file) / TURNS).toFixed(1)} WAL pages per turn; ${(row.n / 10).toFixed(1)} checkpoints (${(row.bytes / 10 / 1024).toFixed(1)} KiB) and ${(writes.n / 10).toFixed(1)} writes (${(writes.bytes / 10 / 1024).toFixed(1)} KiB) per turn`);
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
