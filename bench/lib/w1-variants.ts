/**
 * W1's contenders beside variants of ours, in interleaved blocks (not part of `npm run bench`):
 * CPU ms per turn (median of blocks) and the median (p25–p75) of per-block ratios to (a).
 *   npx tsx bench/lib/w1-variants.ts [blocks] [calls-safe|calls-unsafe]
 *   W1V_ONLY=c,c-per-call npx tsx bench/lib/w1-variants.ts 20 calls-unsafe
 * `calls-unsafe` makes the 4 no-op tools not concurrency-safe: every turn is 4 batches of one call.
 * Variants: c (W1's contender: MemorySaver, so the turn runs in one task), c-per-call (the same on a
 * checkpointer the guard cannot know to be in-memory: review step, then one task per call),
 * c-sync-every-batch (JSONL sink with `outcomeSyncMs: 0`: outcome batches fsynced too), c-memaudit (in-memory audit sink), c-bare (no rules, no audit), c-ledger (with an in-memory
 * execution ledger).
 */
import { MemorySaver } from "@langchain/langgraph";
import { z } from "zod";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAuditSink } from "../../src/audit/open.js";
import { MemoryAuditSink } from "../../src/audit/index.js";
import { openLedger } from "../../src/storage/ledger.js";
import { createGuardedAgent } from "../../src/guard/index.js";
import { PermissionPolicy } from "../../src/policy/index.js";
import { defineTool } from "../../src/tools/index.js";
import type { GuardedTool } from "../../src/tools/types.js";
import { plainToolNode, type Contender } from "./contenders.js";
import { permissionRules, toolRules } from "./guard-rules.js";
import { LoopModel } from "./loop-model.js";
import { NOOP_ARGS, NOOP_TOOL_NAMES, noopTools, type NoopInput } from "./noop-tools.js";
import { cpuAndWallMs, median, rotation, spread } from "./stats.js";

const blocks = Number(process.argv[2] ?? 20);
const unsafe = process.argv[3] === "calls-unsafe";
const dir = mkdtempSync(join(tmpdir(), "gg-w1v-"));
const jsonl = await openAuditSink(`jsonl:${join(dir, "audit.jsonl")}`);
const jsonlEveryBatch = await openAuditSink({ sink: "jsonl", path: join(dir, "audit-every-batch.jsonl"), outcomeSyncMs: 0 });
const ledger = await openLedger("memory:w1v");

/** A checkpointer the guard cannot know to live in this process only: it keeps one task per call. */
class OpaqueSaver extends MemorySaver {}

const Input = z.object({ path: z.string(), query: z.string().optional() });
const tools = (): GuardedTool<NoopInput>[] =>
  unsafe ? noopTools().map((t) => defineTool({ name: t.name, description: t.description, schema: Input, risk: "low", isConcurrencySafe: () => false, execute: () => "ok" })) : noopTools();

function guarded(id: string, opts: { audit?: "jsonl" | "jsonl-every-batch" | "memory" | "none"; rules?: boolean; ledger?: boolean; perCall?: boolean }): Contender {
  const agent = createGuardedAgent({
    model: new LoopModel({ turnsPerRun: 10, calls: NOOP_TOOL_NAMES, args: NOOP_ARGS }),
    tools: tools(),
    ...(opts.rules === false ? {} : { rules: toolRules(20), permissions: new PermissionPolicy(permissionRules(200)) }),
    ...(opts.audit === "none" ? {} : { audit: opts.audit === "memory" ? new MemoryAuditSink() : opts.audit === "jsonl-every-batch" ? jsonlEveryBatch : jsonl }),
    ...(opts.ledger ? { ledger } : {}),
    checkpointer: opts.perCall ? new OpaqueSaver() : new MemorySaver(),
    maxConcurrency: 10,
  });
  return { id, label: id, invoke: async (t, text) => (await agent.invoke({ messages: [{ role: "user", content: text }] }, { configurable: { thread_id: t }, recursionLimit: 1_000_000 })).messages };
}

const contenders: Contender[] = [
  plainToolNode({ turnsPerRun: 10, checkpointer: () => new MemorySaver(), tools: tools() }),
  guarded("c", { audit: "jsonl" }),
  guarded("c-per-call", { audit: "jsonl", perCall: true }),
  guarded("c-sync-every-batch", { audit: "jsonl-every-batch" }),
  guarded("c-memaudit", { audit: "memory" }),
  guarded("c-bare", { audit: "none", rules: false }),
  guarded("c-ledger", { audit: "jsonl", ledger: true }),
];
const only = (process.env.W1V_ONLY ?? "").split(",").filter(Boolean);
const active = only.length ? contenders.filter((c) => c.id === "a" || only.includes(c.id)) : contenders;
const run = async (c: Contender, prefix: string, n: number) => {
  for (let t = 0; t < n; t++) await c.invoke(`${prefix}-${t}`, "go");
};
for (const c of active) await run(c, `warm-${c.id}`, 2);
const cpu: Record<string, number[]> = {};
const wall: Record<string, number[]> = {};
const ratio: Record<string, number[]> = {};
for (let r = 0; r < blocks; r++) {
  const here: Record<string, number> = {};
  for (const c of rotation(active, r)) {
    const t = await cpuAndWallMs(() => run(c, `r${r}-${c.id}`, 2));
    here[c.id] = t.cpu / 20;
    (cpu[c.id] ??= []).push(here[c.id]!);
    (wall[c.id] ??= []).push(t.wall / 20);
  }
  for (const c of active) (ratio[c.id] ??= []).push(here[c.id]! / here.a!);
}
console.log(`${blocks} blocks of 20 turns × 4 calls (${unsafe ? "4 batches of 1" : "1 batch of 4"}) per contender`);
for (const c of active) {
  const s = spread(ratio[c.id]!);
  console.log(`${c.id.padEnd(12)} CPU ${median(cpu[c.id]!).toFixed(3)} ms/turn (wall ${median(wall[c.id]!).toFixed(3)})  ×a ${s.median.toFixed(2)} (p25–p75 ${s.p25.toFixed(2)}–${s.p75.toFixed(2)})`);
}
await jsonl.close();
await jsonlEveryBatch.close();
rmSync(dir, { recursive: true, force: true });
