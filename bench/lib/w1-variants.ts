/**
 * Scratch harness (not part of `npm run bench`): W1 contenders and variants of ours in interleaved
 * blocks, CPU ms per turn (median) and the median per-block ratio to (a).
 *   npx tsx bench/lib/w1-variants.ts [blocks]
 */
import { MemorySaver } from "@langchain/langgraph";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAuditSink } from "../../src/audit/open.js";
import { MemoryAuditSink } from "../../src/audit/index.js";
import { openLedger } from "../../src/storage/ledger.js";
import { createGuardedAgent } from "../../src/guard/index.js";
import { PermissionPolicy } from "../../src/policy/index.js";
import { plainToolNode, type Contender } from "./contenders.js";
import { permissionRules, toolRules } from "./guard-rules.js";
import { LoopModel } from "./loop-model.js";
import { NOOP_ARGS, NOOP_TOOL_NAMES, noopTools } from "./noop-tools.js";
import { cpuAndWallMs, median, rotation, spread } from "./stats.js";

const blocks = Number(process.argv[2] ?? 20);
const dir = mkdtempSync(join(tmpdir(), "gg-w1v-"));
const jsonl = await openAuditSink(`jsonl:${join(dir, "audit.jsonl")}`);
const ledger = await openLedger("memory:w1v");

function guarded(id: string, opts: { audit?: "jsonl" | "memory" | "none"; rules?: boolean; ledger?: boolean }): Contender {
  const agent = createGuardedAgent({
    model: new LoopModel({ turnsPerRun: 10, calls: NOOP_TOOL_NAMES, args: NOOP_ARGS }),
    tools: noopTools(),
    ...(opts.rules === false ? {} : { rules: toolRules(20), permissions: new PermissionPolicy(permissionRules(200)) }),
    ...(opts.audit === "none" ? {} : { audit: opts.audit === "memory" ? new MemoryAuditSink() : jsonl }),
    ...(opts.ledger ? { ledger } : {}),
    checkpointer: new MemorySaver(),
    maxConcurrency: 10,
  });
  return { id, label: id, invoke: async (t, text) => (await agent.invoke({ messages: [{ role: "user", content: text }] }, { configurable: { thread_id: t }, recursionLimit: 1_000_000 })).messages };
}

const contenders: Contender[] = [
  plainToolNode({ turnsPerRun: 10, checkpointer: () => new MemorySaver() }),
  guarded("c", { audit: "jsonl" }),
  guarded("c-memaudit", { audit: "memory" }),
  guarded("c-noaudit-norules", { audit: "none", rules: false }),
  guarded("c-ledger", { audit: "jsonl", ledger: true }),
  guarded("c-ledger-noaudit-norules", { audit: "none", rules: false, ledger: true }),
];
const extra = (process.env.W1V_ONLY ?? "").split(",").filter(Boolean);
const active = extra.length ? contenders.filter((c) => c.id === "a" || extra.includes(c.id)) : contenders;
const run = async (c: Contender, prefix: string, n: number) => {
  for (let t = 0; t < n; t++) await c.invoke(`${prefix}-${t}`, "go");
};
for (const c of active) await run(c, `warm-${c.id}`, 2);
const cpu: Record<string, number[]> = {};
const ratio: Record<string, number[]> = {};
for (let r = 0; r < blocks; r++) {
  const here: Record<string, number> = {};
  for (const c of rotation(active, r)) {
    const t = await cpuAndWallMs(() => run(c, `r${r}-${c.id}`, 2));
    here[c.id] = t.cpu / 20;
    (cpu[c.id] ??= []).push(here[c.id]!);
  }
  for (const c of active) (ratio[c.id] ??= []).push(here[c.id]! / here.a!);
}
for (const c of active) {
  const s = spread(ratio[c.id]!);
  console.log(`${c.id.padEnd(26)} ${median(cpu[c.id]!).toFixed(3)} ms/turn  ×a ${s.median.toFixed(2)} (${s.p25.toFixed(2)}–${s.p75.toFixed(2)})`);
}
await jsonl.close();
rmSync(dir, { recursive: true, force: true });
