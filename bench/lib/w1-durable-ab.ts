/**
 * W1 at equal durability, this tree's guarded agent against another tree's (not part of `npm run
 * bench`): the ToolNode loop and both guarded agents on the same kind of checkpointer, interleaved in
 * blocks (2 threads × 10 turns × 4 calls per contender and block, order rotated), process CPU per
 * turn, median (p25–p75) of per-block ratios.
 *   mkdir -p /tmp/gg-base && git archive main src bench vendor package.json tsconfig.json | tar -x -C /tmp/gg-base
 *   ln -s "$PWD/node_modules" /tmp/gg-base/node_modules
 *   W1D_WARM=20 npx tsx bench/lib/w1-durable-ab.ts --base /tmp/gg-base [--blocks 30] [--kinds mem,sqlite]
 * Contenders per kind: a-KIND (the ToolNode loop), c-KIND-base (the other tree), c-KIND (this tree);
 * `mem`: MemorySaver and the in-memory audit; `sqlite`: `openCheckpointer` + `openLedger` +
 * `openAuditSink` on one SQLite file per contender (the ToolNode loop on its own file).
 * Ratios: each guarded agent / the ToolNode loop, and this tree / the base tree, per block.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { plainToolNode, runW1Threads, type Contender } from "./contenders.js";
import { permissionRules, toolRules } from "./guard-rules.js";
import { LoopModel } from "./loop-model.js";
import { NOOP_ARGS, NOOP_TOOL_NAMES, noopTools } from "./noop-tools.js";
import { cpuAndWallMs, rotation, spread } from "./stats.js";

const { values } = parseArgs({ options: { base: { type: "string" }, blocks: { type: "string", default: "30" }, kinds: { type: "string", default: "mem,sqlite" } } });
if (!values.base) throw new Error("w1-durable-ab: --base DIR (another tree's src, unpacked with its node_modules linked) is required");
const blocks = Number(values.blocks);
const kinds = values.kinds.split(",");
const warmThreads = Number(process.env.W1D_WARM ?? 20);
const dir = mkdtempSync(join(tmpdir(), "gg-w1-ab-"));
const closers: (() => Promise<void>)[] = [];

/** What a tree's guarded agent needs, imported from that tree. */
interface Tree {
  MemoryAuditSink: new () => unknown;
  openAuditSink: (spec: string) => Promise<{ close(): Promise<void> }>;
  createGuardedAgent: (options: Record<string, unknown>) => { invoke(input: unknown, config: unknown): Promise<{ messages: unknown[] }> };
  PermissionPolicy: new (rules: unknown) => unknown;
  openCheckpointer: (spec: string) => Promise<{ checkpointer: BaseCheckpointSaver; close(): Promise<void> }>;
  openLedger: (spec: string) => Promise<{ close(): Promise<void> }>;
}

async function tree(root: string): Promise<Tree> {
  const at = (path: string) => import(resolve(root, path));
  return {
    MemoryAuditSink: (await at("src/audit/index.ts")).MemoryAuditSink,
    openAuditSink: (await at("src/audit/open.ts")).openAuditSink,
    createGuardedAgent: (await at("src/guard/index.ts")).createGuardedAgent,
    PermissionPolicy: (await at("src/policy/index.ts")).PermissionPolicy,
    openCheckpointer: (await at("src/storage/checkpointer.ts")).openCheckpointer,
    openLedger: (await at("src/storage/ledger.ts")).openLedger,
  };
}

function guarded(t: Tree, id: string, checkpointer: BaseCheckpointSaver, audit: unknown, ledger?: unknown): Contender {
  const agent = t.createGuardedAgent({
    model: new LoopModel({ turnsPerRun: 10, calls: NOOP_TOOL_NAMES, args: NOOP_ARGS }),
    tools: noopTools(),
    rules: toolRules(20),
    permissions: new t.PermissionPolicy(permissionRules(200)),
    audit,
    checkpointer,
    maxConcurrency: 10,
    ...(ledger ? { ledger } : {}),
  });
  return { id, label: id, invoke: async (thread, text) => (await agent.invoke({ messages: [{ role: "user", content: text }] }, { configurable: { thread_id: thread }, recursionLimit: 1_000_000 })).messages as BaseMessage[] };
}

async function guardedOn(t: Tree, id: string, kind: string): Promise<Contender> {
  if (kind === "mem") return guarded(t, id, new MemorySaver(), new t.MemoryAuditSink());
  const file = join(dir, `${id}.db`);
  const opened = await t.openCheckpointer(`sqlite:${file}`);
  const ledger = await t.openLedger(`sqlite:${file}`);
  const sink = await t.openAuditSink(`sqlite:${file}`);
  closers.push(() => sink.close(), () => ledger.close(), () => opened.close());
  return guarded(t, id, opened.checkpointer, sink, ledger);
}

async function loop(t: Tree, kind: string): Promise<Contender> {
  if (kind === "mem") return { ...plainToolNode({ turnsPerRun: 10, checkpointer: () => new MemorySaver() }), id: "a-mem" };
  const opened = await t.openCheckpointer(`sqlite:${join(dir, "a-sqlite.db")}`);
  closers.push(() => opened.close());
  return { ...plainToolNode({ turnsPerRun: 10, checkpointer: () => opened.checkpointer }), id: "a-sqlite" };
}

const here = await tree(resolve(import.meta.dirname, "../.."));
const base = await tree(values.base);
const contenders: Contender[] = [];
for (const kind of kinds) contenders.push(await loop(here, kind), await guardedOn(base, `c-${kind}-base`, kind), await guardedOn(here, `c-${kind}`, kind));

const TURNS = 20;
const run = (c: Contender, prefix: string) => runW1Threads(c, prefix, TURNS);
for (const c of contenders) for (let w = 0; w < warmThreads / 2; w++) await run(c, `warm${w}-${c.id}`);
const cpu: Record<string, number[]> = {};
const ratio: Record<string, number[]> = {};
const push = (key: string, value: number) => (ratio[key] ??= []).push(value);
for (let r = 0; r < blocks; r++) {
  const block: Record<string, number> = {};
  for (const c of rotation(contenders, r)) {
    block[c.id] = (await cpuAndWallMs(() => run(c, `r${r}-${c.id}`))).cpu / TURNS;
    (cpu[c.id] ??= []).push(block[c.id]!);
  }
  for (const kind of kinds) {
    const a = block[`a-${kind}`]!;
    push(`c-${kind}-base / a-${kind}`, block[`c-${kind}-base`]! / a);
    push(`c-${kind} / a-${kind}`, block[`c-${kind}`]! / a);
    push(`c-${kind} / c-${kind}-base`, block[`c-${kind}`]! / block[`c-${kind}-base`]!);
  }
}
const fmt = (s: { median: number; p25: number; p75: number }) => `${s.median.toFixed(3)} (p25–p75 ${s.p25.toFixed(3)}–${s.p75.toFixed(3)})`;
console.log(`${blocks} blocks of ${TURNS} turns × 4 calls per contender; base ${values.base}`);
for (const c of contenders) console.log(`${c.id.padEnd(14)} CPU ${spread(cpu[c.id]!).median.toFixed(3)} ms/turn`);
for (const [key, values] of Object.entries(ratio)) console.log(`${key.padEnd(26)} ${fmt(spread(values))}`);
for (const close of closers.reverse()) await close();
rmSync(dir, { recursive: true, force: true });
