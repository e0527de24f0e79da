/**
 * The SQLite execution ledger's commits and the disk (docs/durability.md, "One commit per batch"):
 * a batch's claims and the decisions written with them are synced before any of its calls starts;
 * its completions are committed at once (a killed process loses none) and reach the disk with the
 * next synced commit or within `completionSyncMs`. The system calls of a real guarded run under
 * strace judge when the disk is asked; a SIGKILLed process judges what a crash keeps.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ErrorCode, StorageError } from "../src/errors/index.js";
import { openLedger } from "../src/storage/ledger.js";
import { nodeArgsFor } from "./helpers/ts-entry.js";

const WORKER = fileURLToPath(new URL("./fixtures/workers/ledger-sync-worker.ts", import.meta.url));
const hasStrace = spawnSync("strace", ["-V"]).status === 0;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "gg-ledger-sync-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Traced {
  /** Line numbers of the writes to the database's write-ahead log. */
  walWrites: number[];
  /** Syncs of the log: the line it started and the line it returned. */
  syncs: { start: number; done: number }[];
  effects: { name: string; at: number }[];
  marker: number;
}

/** Runs the agent worker under strace and reads the log's writes and syncs, the side effects and the marker off its system calls. */
async function traced(syncMs: number): Promise<Traced> {
  const trace = join(dir, "trace");
  const result = spawnSync("strace", ["-f", "-e", "trace=openat,pwrite64,write,fdatasync,fsync", "-o", trace, process.execPath, ...nodeArgsFor(WORKER, "agent", dir, String(syncMs))], { encoding: "utf8", timeout: 120_000 });
  expect(result.stdout, result.stderr).toContain("DONE");
  const walFds = new Set<string>();
  const out: Traced = { walWrites: [], syncs: [], effects: [], marker: -1 };
  const unfinished = new Map<string, number>();
  const lines = (await readFile(trace, "utf8")).split("\n");
  lines.forEach((line, i) => {
    const m = /^(\d+)\s+(.*)$/.exec(line);
    if (!m) return;
    const [, pid, call] = m as unknown as [string, string, string];
    const open = /^openat\(AT_FDCWD, "([^"]+)", .*= (\d+)$/.exec(call);
    if (open) {
      if (open[1] === join(dir, "agent.db-wal")) walFds.add(open[2]!);
      const effect = /\/effect-(\w+)$/.exec(open[1]!);
      if (effect && open[1]!.startsWith(dir)) out.effects.push({ name: effect[1]!, at: i });
      if (open[1] === join(dir, "marker")) out.marker = i;
      return;
    }
    const fd = /^(?:pwrite64|write|fdatasync|fsync)\((\d+)/.exec(call)?.[1];
    if (fd !== undefined && walFds.has(fd)) {
      if (call.startsWith("pwrite64(") || call.startsWith("write(")) out.walWrites.push(i);
      else if (call.includes("<unfinished")) unfinished.set(pid, i);
      else out.syncs.push({ start: i, done: i });
    } else if (/^<\.\.\. f(data)?sync resumed>/.test(call) && unfinished.has(pid)) {
      out.syncs.push({ start: unfinished.get(pid)!, done: i });
      unfinished.delete(pid);
    }
  });
  expect(walFds.size, "the worker opened the write-ahead log").toBeGreaterThan(0);
  expect(out.effects.map((e) => e.name).sort()).toEqual(["a", "b", "c", "d", "e", "f"]);
  expect(out.marker).toBeGreaterThan(0);
  return out;
}

/** Every write to the log before a side effect was synced before that side effect started. */
function everyWriteSyncedBeforeEachEffect(t: Traced): void {
  for (const effect of t.effects) {
    const lastWrite = Math.max(...t.walWrites.filter((w) => w < effect.at));
    expect(lastWrite, `the log was written before effect-${effect.name}`).toBeGreaterThan(0);
    const covered = t.syncs.some((s) => s.start > lastWrite && s.done < effect.at);
    expect(covered, `a sync of the log after its last write returned before effect-${effect.name}`).toBe(true);
  }
}

describe.skipIf(!hasStrace)("the ledger's syncs, under strace", () => {
  it("default: claims synced before each call starts, completions carried by the next claims' sync (3 batches: 2 syncs between the first batch's calls and the last completion), the last one synced within completionSyncMs", async () => {
    const t = await traced(50);
    everyWriteSyncedBeforeEachEffect(t);
    const lastEffect = Math.max(...t.effects.map((e) => e.at));
    const completion = t.walWrites.find((w) => w > lastEffect)!;
    expect(completion, "the last batch's completion was written to the log").toBeGreaterThan(0);
    // One wait for the disk per batch: from the first batch's calls to the last batch's completion,
    // the claims of batches 2 and 3 (the completions of batches 1 and 2 ride on them).
    const firstEffect = Math.min(...t.effects.map((e) => e.at));
    expect(t.syncs.filter((s) => s.start > firstEffect && s.start < completion)).toHaveLength(2);
    // The last completion is synced by the deferred sync, before the worker's marker 300 ms later.
    expect(t.syncs.some((s) => s.start > completion && s.done < t.marker)).toBe(true);
  }, 180_000);

  it("completionSyncMs: 0 syncs every completion before it returns: two waits for the disk per batch", async () => {
    const t = await traced(0);
    everyWriteSyncedBeforeEachEffect(t);
    const lastEffect = Math.max(...t.effects.map((e) => e.at));
    const completion = t.walWrites.find((w) => w > lastEffect)!;
    const firstEffect = Math.min(...t.effects.map((e) => e.at));
    // Completion 1, claims 2, completion 2, claims 3.
    expect(t.syncs.filter((s) => s.start > firstEffect && s.start < completion)).toHaveLength(4);
    const completionSync = t.syncs.find((s) => s.start > completion)!;
    expect(completionSync.start).toBeLessThan(t.marker);
  }, 180_000);
});

describe("the ledger's completions and a crash", () => {
  it("a completion is committed when completeMany resolves: another connection reads it, and a SIGKILLed process keeps it", async () => {
    const child = spawn(process.execPath, nodeArgsFor(WORKER, "kill", dir), { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes("COMPLETED")) resolve();
      });
      child.on("exit", (code) => reject(new Error(`worker exited (${code}) before completing`)));
    });
    const reader = new Database(join(dir, "kill.db"), { readonly: true });
    expect(reader.prepare("SELECT state, result FROM guarded_graph_ledger WHERE key = ?").get("call-1")).toEqual({ state: "done", result: "the recorded result" });
    reader.close();
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    const ledger = await openLedger(`sqlite:${join(dir, "kill.db")}`);
    expect(await ledger.result("call-1")).toBe("the recorded result");
    expect(await ledger.claimMany(["call-1"], "other", 60_000)).toEqual(["done"]);
    await ledger.close();
  }, 60_000);
});

describe("completionSyncMs", () => {
  it("accepts whole milliseconds from 0 to 60,000 and refuses anything else", async () => {
    for (const bad of [-1, 1.5, 60_001, Number.NaN]) {
      await expect(openLedger(`sqlite:${join(dir, "bad.db")}`, { completionSyncMs: bad })).rejects.toThrow();
    }
    for (const good of [0, 1, 60_000]) await (await openLedger(`sqlite:${join(dir, `ok-${good}.db`)}`, { completionSyncMs: good })).close();
  });

  it("a deferred sync that fails is sticky: every later claim and completion refuses with GG_ERR_STORAGE_WRITE, and so does close", async () => {
    const file = join(dir, "fail.db");
    const ledger = await openLedger(`sqlite:${file}`, { completionSyncMs: 5 });
    expect(await ledger.claimMany(["k1"], "me", 60_000)).toEqual(["claimed"]);
    await ledger.completeMany([{ key: "k1", result: "r" }]);
    // The deferred sync rewrites the completed row; a table that is gone makes that write fail.
    const other = new Database(file);
    other.exec("DROP TABLE guarded_graph_ledger");
    other.close();
    await new Promise((resolve) => setTimeout(resolve, 60));
    const refused = (promise: Promise<unknown>) => expect(promise).rejects.toSatisfy((e: unknown) => e instanceof StorageError && e.code === ErrorCode.STORAGE_WRITE);
    await refused(ledger.claimMany(["k2"], "me", 60_000));
    await refused(ledger.claim("k3", "me", 60_000));
    await refused(ledger.completeMany([{ key: "k2", result: "r" }]));
    await refused(ledger.close());
  });

  it("a claim's synced commit covers the completions before it: no deferred sync is left pending after it", async () => {
    const file = join(dir, "cover.db");
    const ledger = await openLedger(`sqlite:${file}`, { completionSyncMs: 5 });
    await ledger.claimMany(["a"], "me", 60_000);
    await ledger.completeMany([{ key: "a", result: "r" }]);
    await ledger.claimMany(["b"], "me", 60_000);
    // Were a sync still pending, it would rewrite `a` and fail on the dropped table.
    const other = new Database(file);
    other.exec("DROP TABLE guarded_graph_ledger");
    other.close();
    await new Promise((resolve) => setTimeout(resolve, 60));
    await ledger.close();
  });
});
