/**
 * What one W1 turn asks of the checkpointer, per contender (not part of `npm run bench`): checkpoint
 * puts (supersteps), channels each checkpoint writes and its serialised bytes, task writes and their
 * bytes, per model turn. The saver's own `put` / `putWrites` are wrapped on the instance (a
 * MemorySaver keeps its class, so the guard still sees LangGraph's in-memory saver).
 *   npx tsx bench/lib/w1-count.ts [threads]
 */
import { MemorySaver } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryAuditSink } from "../../src/audit/index.js";
import type { AuditSink } from "../../src/audit/types.js";
import type { ExecutionLedgerView } from "../../src/guard/interfaces.js";
import { openAuditSink } from "../../src/audit/open.js";
import { openCheckpointer } from "../../src/storage/checkpointer.js";
import { openLedger } from "../../src/storage/ledger.js";
import { guardedAgent, plainToolNode, type Contender } from "./contenders.js";

const threads = Number(process.argv[2] ?? 5);
const dir = mkdtempSync(join(tmpdir(), "gg-w1-count-"));

interface Counts {
  puts: number;
  putChannels: number;
  putBytes: number;
  putWrites: number;
  writeChannels: number;
  writeBytes: number;
  byChannel: Record<string, number>;
}

function counted(saver: BaseCheckpointSaver): { saver: BaseCheckpointSaver; counts: Counts } {
  const counts: Counts = { puts: 0, putChannels: 0, putBytes: 0, putWrites: 0, writeChannels: 0, writeBytes: 0, byChannel: {} };
  const put = saver.put.bind(saver);
  const putWrites = saver.putWrites.bind(saver);
  const size = async (value: unknown) => (await saver.serde.dumpsTyped(value))[1].length;
  saver.put = async (config, checkpoint, metadata, versions) => {
    counts.puts += 1;
    const changed = Object.keys(versions);
    counts.putChannels += changed.length;
    for (const name of changed) {
      counts.byChannel[`put:${name}`] = (counts.byChannel[`put:${name}`] ?? 0) + 1;
      if (name in checkpoint.channel_values) counts.putBytes += await size(checkpoint.channel_values[name]);
    }
    counts.putBytes += await size({ ...checkpoint, channel_values: {} });
    return put(config, checkpoint, metadata, versions);
  };
  saver.putWrites = async (config, writes, taskId) => {
    counts.putWrites += 1;
    for (const [channel, value] of writes) {
      counts.writeChannels += 1;
      counts.byChannel[`w:${channel}`] = (counts.byChannel[`w:${channel}`] ?? 0) + 1;
      counts.writeBytes += await size(value);
    }
    return putWrites(config, writes, taskId);
  };
  return { saver, counts };
}

function guarded(id: string, checkpointer: BaseCheckpointSaver, audit: AuditSink, ledger?: ExecutionLedgerView): Contender {
  return { ...guardedAgent({ turnsPerRun: 10, checkpointer: () => checkpointer, audit, ...(ledger ? { ledger } : {}) }), id, label: id };
}

const rows: { id: string; counts: Counts; close?: () => Promise<void> }[] = [];
const run = async (id: string, contender: (saver: BaseCheckpointSaver) => Promise<Contender>, saver: BaseCheckpointSaver) => {
  const { counts } = counted(saver);
  const c = await contender(saver);
  for (let t = 0; t < threads; t++) await c.invoke(`${id}-${t}`, "go");
  rows.push({ id, counts });
};
await run("a-mem", async (saver) => plainToolNode({ turnsPerRun: 10, checkpointer: () => saver }), new MemorySaver());
await run("c-mem", async (saver) => guarded("c-mem", saver, new MemoryAuditSink()), new MemorySaver());
const aFile = await openCheckpointer(`sqlite:${join(dir, "a.db")}`);
await run("a-sqlite", async (saver) => plainToolNode({ turnsPerRun: 10, checkpointer: () => saver }), aFile.checkpointer);
const cFile = join(dir, "c.db");
const cOpened = await openCheckpointer(`sqlite:${cFile}`);
const ledger = await openLedger(`sqlite:${cFile}`);
const sink = await openAuditSink(`sqlite:${cFile}`);
await run("c-sqlite", async (saver) => guarded("c-sqlite", saver, sink, ledger), cOpened.checkpointer);
const turns = threads * 11; // 10 turns with calls + the final answer per thread
console.log(`${threads} threads × 11 model turns; per model turn:`);
for (const { id, counts } of rows) {
  const f = (n: number) => (n / turns).toFixed(2);
  console.log(
    `${id.padEnd(9)} puts ${f(counts.puts)} (channels ${f(counts.putChannels)}, ${f(counts.putBytes)} B)  putWrites ${f(counts.putWrites)} (writes ${f(counts.writeChannels)}, ${f(counts.writeBytes)} B)`,
  );
  console.log(`          ${Object.entries(counts.byChannel).map(([k, v]) => `${k}=${f(v)}`).join(" ")}`);
}
await sink.close();
await ledger.close();
await cOpened.close();
await aFile.close();
rmSync(dir, { recursive: true, force: true });
