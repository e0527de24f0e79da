import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { InMemoryArchivalIndex } from "../src/memory/archival-memory.js";
import { PostgresArchivalIndex } from "../src/memory/archival-postgres.js";
import type { ArchivalIndex, ArchivalInsert } from "../src/memory/archival.js";
import { openSqliteMemory } from "../src/memory/backends.js";
import { MemoryStore } from "../src/memory/memory-store.js";
import { InMemoryStore } from "@langchain/langgraph";

export interface RecallBenchResult {
  backend: string;
  entries: number;
  medianMs: number;
  p99Ms: number;
}

const NAMESPACE = ["bench", "recall"];
const SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "ta", "shi", "po", "ve", "da", "zu", "gor", "lin", "qua", "fen", "bri"];
const VOCABULARY = 8_000;
const QUERIES = 300;

/** Deterministic PRNG so every backend gets the same corpus and queries. */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function word(index: number): string {
  let out = "";
  let n = index;
  do {
    out += SYLLABLES[n % SYLLABLES.length];
    n = Math.floor(n / SYLLABLES.length);
  } while (n > 0);
  return `${out}x`;
}

/** Zipf-like: a few words are very common, most are rare (as in real notes). */
function pick(random: () => number): string {
  return word(Math.floor(VOCABULARY * random() ** 3));
}

export function corpus(entries: number): ArchivalInsert[] {
  const random = mulberry32(42);
  const out: ArchivalInsert[] = [];
  for (let i = 0; i < entries; i += 1) {
    const length = 15 + Math.floor(random() * 30);
    const words: string[] = [];
    for (let w = 0; w < length; w += 1) words.push(pick(random));
    out.push({ content: words.join(" "), metadata: { n: i } });
  }
  return out;
}

function queries(count: number): string[] {
  const random = mulberry32(7);
  return Array.from({ length: count }, () => Array.from({ length: 2 + Math.floor(random() * 2) }, () => pick(random)).join(" "));
}

async function measure(backend: string, memory: MemoryStore, entries: number): Promise<RecallBenchResult> {
  const qs = queries(QUERIES);
  for (const q of qs.slice(0, 20)) await memory.searchArchival(q, { limit: 10 }); // warm-up
  const times: number[] = [];
  let hits = 0;
  for (const q of qs) {
    const start = performance.now();
    hits += (await memory.searchArchival(q, { limit: 10 })).length;
    times.push(performance.now() - start);
  }
  if (hits === 0) throw new Error(`${backend}: no query matched anything; the benchmark corpus is wrong`);
  times.sort((a, b) => a - b);
  const at = (p: number) => Number((times[Math.min(times.length - 1, Math.floor(p * times.length))] ?? 0).toFixed(3));
  return { backend, entries, medianMs: at(0.5), p99Ms: at(0.99) };
}

async function benchInMemory(data: ArchivalInsert[]): Promise<RecallBenchResult> {
  const index: ArchivalIndex = new InMemoryArchivalIndex();
  for (const entry of data) await index.insert(NAMESPACE, entry);
  return measure("in-memory", new MemoryStore(new InMemoryStore(), { namespace: NAMESPACE, archival: index }), data.length);
}

async function benchSqlite(data: ArchivalInsert[]): Promise<RecallBenchResult> {
  const backend = openSqliteMemory({ path: ":memory:", namespace: NAMESPACE });
  try {
    const archival = backend.memory.archival;
    if (!archival || !("insertMany" in archival)) throw new Error("expected a SqliteArchivalIndex");
    (archival as { insertMany(ns: readonly string[], e: readonly ArchivalInsert[]): unknown }).insertMany(NAMESPACE, data);
    return await measure("sqlite-fts5", backend.memory, data.length);
  } finally {
    await backend.close();
  }
}

async function benchPostgres(data: ArchivalInsert[], url: string): Promise<RecallBenchResult> {
  const schema = `gg_recall_bench_${process.pid}`;
  const archival = new PostgresArchivalIndex({ connection: url, schema });
  try {
    await archival.insertMany(NAMESPACE, data);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`ANALYZE "${schema}".archival_entries`);
    await admin.end();
    return await measure("postgres-tsvector", new MemoryStore(new InMemoryStore(), { namespace: NAMESPACE, archival }), data.length);
  } finally {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
    await archival.close();
  }
}

/** Recall search (what `recall search` runs) over 100,000 archival entries (quick: 5,000). Target: median under 20 ms. */
export async function benchRecall(opts: { quick: boolean; postgresUrl?: string }): Promise<RecallBenchResult[]> {
  const data = corpus(opts.quick ? 5_000 : 100_000);
  const results = [await benchInMemory(data), await benchSqlite(data)];
  if (opts.postgresUrl) results.push(await benchPostgres(data, opts.postgresUrl));
  return results;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const quick = process.argv.includes("--quick");
  const results = await benchRecall({ quick, postgresUrl: process.env.POSTGRES_URL });
  console.table(results);
}
