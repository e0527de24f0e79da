/**
 * W1 under the profiler, one contender at a time, set up as the bench sets it up (ours with the
 * JSONL audit sink; `c-mem`: the same with the in-memory audit sink; `c-bare`: ours without rules
 * and audit, the graph's own cost; `c-sqlite` / `a-sqlite`: the guarded agent with checkpointer, ledger
 * and audit in one SQLite file, and the ToolNode loop on its own SQLite file; `c-ledger-sqlite` /
 * `c-memledger-sqlite`: the guarded agent on a SQLite checkpointer with the SQLite or the in-memory
 * ledger and the in-memory audit):
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof/c --import tsx bench/lib/profile-w1.ts c
 *   npx tsx bench/lib/profile-summary.ts /tmp/prof/c
 */
import { MemorySaver } from "@langchain/langgraph";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAuditSink } from "../../src/audit/open.js";
import { openCheckpointer } from "../../src/storage/checkpointer.js";
import { openLedger } from "../../src/storage/ledger.js";
import { bareGuardedAgent, guardedAgent, langchainAgent, plainToolNode } from "./contenders.js";

const which = process.argv[2] ?? "c";
const threads = Number(process.argv[3] ?? 60);
const dir = mkdtempSync(join(tmpdir(), "gg-profile-w1-"));
const audit = which === "c" ? await openAuditSink(`jsonl:${join(dir, "audit.jsonl")}`) : undefined;
const sqliteFile = join(dir, "w1.db");
const opened = which.endsWith("-sqlite") ? await openCheckpointer(`sqlite:${sqliteFile}`) : undefined;
const options = { turnsPerRun: 10, checkpointer: () => opened?.checkpointer ?? new MemorySaver() };
const ledger = which === "c-sqlite" || which === "c-ledger-sqlite" ? await openLedger(`sqlite:${sqliteFile}`) : which === "c-memledger-sqlite" ? await openLedger("memory:") : undefined;
const sqliteAudit = which === "c-sqlite" ? await openAuditSink(`sqlite:${sqliteFile}`) : undefined;
const contender = which === "a-sqlite" ? plainToolNode(options) : (which === "c-ledger-sqlite" || which === "c-memledger-sqlite") && ledger ? guardedAgent({ ...options, ledger }) : which === "c-sqlite" && ledger && sqliteAudit ? guardedAgent({ ...options, audit: sqliteAudit, ledger }) : which === "a" ? plainToolNode(options) : which === "b" ? langchainAgent(options) : which === "c-bare" ? bareGuardedAgent(options) : which === "c-mem" ? guardedAgent(options) : guardedAgent({ ...options, audit });
for (let t = 0; t < threads; t++) await contender.invoke(`t${t}`, "go");
await audit?.close();
await sqliteAudit?.close();
await ledger?.close();
await opened?.close();
if (process.env.KEEP !== "1") rmSync(dir, { recursive: true, force: true });
