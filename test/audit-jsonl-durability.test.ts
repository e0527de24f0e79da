/**
 * The JSONL audit sink's durability contract (docs/audit.md, "Durability"):
 * - a record a call may start on (a decision) is fdatasynced before the call's side effect — seen
 *   in the system calls of a real guarded run under strace;
 * - outcome records are written at once and synced with the next batch or at close, so a killed
 *   process loses none;
 * - one sync covers every earlier append, and a failed sync is sticky (the sink refuses after it).
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryAuditSink } from "../src/audit/memory.js";
import { AuditError, ErrorCode } from "../src/errors/index.js";
import { createGuardedAgent } from "../src/guard/agent.js";
import { ScriptedChatModel } from "../src/model/scripted.js";
import { defineTool } from "../src/tools/define-tool.js";
import { FileSync } from "../src/audit/file-sync.js";
import { JsonlAuditSink } from "../src/audit/jsonl.js";
import { openAuditSink } from "../src/audit/open.js";
import type { AuditRecord } from "../src/audit/types.js";
import { nodeArgsFor } from "./helpers/ts-entry.js";

const WORKER = fileURLToPath(new URL("./fixtures/workers/audit-order-worker.ts", import.meta.url));
const hasStrace = spawnSync("strace", ["-V"]).status === 0;

describe("FileSync", () => {
  it("one sync covers every append written before it; nothing pending, no sync", () => {
    let syncs = 0;
    const sync = new FileSync(() => void (syncs += 1));
    sync.syncNow();
    expect(syncs).toBe(0);
    sync.written();
    sync.written();
    expect(sync.pending).toBe(true);
    sync.syncNow();
    expect(syncs).toBe(1);
    expect(sync.pending).toBe(false);
    sync.syncNow();
    expect(syncs).toBe(1);
  });

  it("a failed sync is sticky: every later sync throws it and the file is not synced again", () => {
    let syncs = 0;
    const sync = new FileSync(() => {
      syncs += 1;
      throw new Error("EIO");
    });
    sync.written();
    expect(() => sync.syncNow()).toThrow("EIO");
    expect(sync.failure?.message).toBe("EIO");
    sync.written();
    expect(() => sync.syncNow()).toThrow("EIO");
    expect(syncs).toBe(1);
  });

  it("later(ms) syncs within ms; a sync before that cancels the timer", async () => {
    let syncs = 0;
    const sync = new FileSync(() => void (syncs += 1));
    sync.written();
    sync.later(20);
    expect(syncs).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(syncs).toBe(1);
    expect(sync.pending).toBe(false);
    sync.written();
    sync.later(30);
    sync.syncNow();
    expect(syncs).toBe(2);
    sync.written();
    await new Promise((resolve) => setTimeout(resolve, 60));
    // The cancelled timer did not fire: the third append waits for the next sync.
    expect(syncs).toBe(2);
    expect(sync.pending).toBe(true);
  });
});

describe("JsonlAuditSink durability", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "gg-jsonl-durable-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("refuses an outcomeSyncMs that is not a whole number of milliseconds in 0..60000, in the object spec too", async () => {
    for (const bad of [-1, 1.5, 60_001, Number.NaN]) {
      await expect(JsonlAuditSink.open(join(dir, "a.jsonl"), { outcomeSyncMs: bad })).rejects.toThrow(/JSONL audit sink refused/);
      await expect(openAuditSink({ sink: "jsonl", path: join(dir, "a.jsonl"), outcomeSyncMs: bad })).rejects.toThrow(/audit sink spec refused/);
    }
    await expect(JsonlAuditSink.open(join(dir, "a.jsonl"), { outcomeSyncMs: 0, extra: 1 } as never)).rejects.toThrow(/JSONL audit sink refused/);
  });

  it("a process killed right after write() resolved for an outcome batch (its sync still deferred) loses no record", async () => {
    const child = spawn(process.execPath, nodeArgsFor(WORKER, "kill", dir), { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes("WRITTEN")) {
          child.kill("SIGKILL");
          resolve();
        }
      });
      child.on("exit", (code) => (out.includes("WRITTEN") ? undefined : reject(new Error(`worker exited ${code} before writing`))));
    });
    await new Promise((resolve) => child.on("exit", resolve));
    const sink = await JsonlAuditSink.open(join(dir, "audit.jsonl"));
    const records = await sink.query();
    await sink.close();
    expect(records.map((r) => `${r.toolCallId}:${r.event}`).sort()).toEqual(["call-1:decision", "call-1:outcome", "call-2:decision", "call-2:outcome"]);
  });

  it("three processes appending to one file at once: every line whole, every record once", async () => {
    const batches = 400;
    const names = ["p1", "p2", "p3"];
    await Promise.all(
      names.map(
        (name) =>
          new Promise<void>((resolve, reject) => {
            const child = spawn(process.execPath, nodeArgsFor(WORKER, "append", dir, name, String(batches)), { stdio: ["ignore", "pipe", "inherit"] });
            let out = "";
            child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
            child.on("exit", (code) => (code === 0 && out.includes("DONE") ? resolve() : reject(new Error(`worker ${name} exited ${code}`))));
          }),
      ),
    );
    const lines = (await readFile(join(dir, "audit.jsonl"), "utf8")).split("\n");
    expect(lines.pop()).toBe("");
    const parsed = lines.map((line) => JSON.parse(line) as AuditRecord);
    expect(parsed).toHaveLength(names.length * batches * 3);
    expect(new Set(parsed.map((r) => r.id)).size).toBe(parsed.length);
    const sink = await JsonlAuditSink.open(join(dir, "audit.jsonl"));
    for (const name of names) expect(await sink.query({ threadId: `append-${name}` })).toHaveLength(batches * 3);
    await sink.close();
  });

  it.skipIf(!hasStrace)("under strace: every decision write is fdatasynced before the next side effect starts; outcomes ride on the next sync or the close", async () => {
    const trace = join(dir, "trace");
    const result = spawnSync("strace", ["-f", "-s", "65536", "-e", "trace=openat,write,fdatasync,fsync,close", "-o", trace, process.execPath, ...nodeArgsFor(WORKER, "guard", dir)], { encoding: "utf8", timeout: 60_000 });
    expect(result.stdout).toContain("DONE");
    const lines = (await readFile(trace, "utf8")).split("\n");
    let auditFd: string | undefined;
    const decisionWrites: number[] = [];
    const writes: number[] = [];
    const effects: { name: string; at: number }[] = [];
    const syncs: { start: number; done?: number }[] = [];
    const unfinished = new Map<string, { start: number; done?: number }>();
    let closedAt: number | undefined;
    lines.forEach((line, i) => {
      const m = /^(\d+)\s+(.*)$/.exec(line);
      if (!m) return;
      const [, pid, call] = m as unknown as [string, string, string];
      const open = /^openat\(AT_FDCWD, "([^"]+)", ([A-Z_|]+).*= (\d+)$/.exec(call);
      if (open) {
        if (open[1] === join(dir, "audit.jsonl") && open[2]!.includes("O_APPEND")) auditFd = open[3];
        const effect = /effect-(\w+)$/.exec(open[1]!);
        if (effect && open[1]!.startsWith(dir)) effects.push({ name: effect[1]!, at: i });
        return;
      }
      if (auditFd === undefined) return;
      if (call.startsWith(`write(${auditFd}, `)) {
        writes.push(i);
        if (call.includes('\\"event\\":\\"decision\\"')) decisionWrites.push(i);
      } else if (call.startsWith(`fdatasync(${auditFd})`) || call.startsWith(`fsync(${auditFd})`)) {
        syncs.push({ start: i, done: i });
      } else if (call.startsWith(`fdatasync(${auditFd} <unfinished`) || call.startsWith(`fsync(${auditFd} <unfinished`)) {
        const sync: { start: number; done?: number } = { start: i };
        syncs.push(sync);
        unfinished.set(pid, sync);
      } else if (/^<\.\.\. f(data)?sync resumed>/.test(call) && unfinished.has(pid)) {
        unfinished.get(pid)!.done = i;
        unfinished.delete(pid);
      } else if (call.startsWith(`close(${auditFd})`)) {
        closedAt ??= i;
      }
    });
    expect(auditFd).toBeDefined();
    expect(effects.map((e) => e.name).sort()).toEqual(["a", "b", "c", "d"]);
    for (const effect of effects) {
      const lastDecision = Math.max(...decisionWrites.filter((w) => w < effect.at));
      expect(lastDecision, `a decision record was written before effect-${effect.name}`).toBeGreaterThan(-Infinity);
      const covered = syncs.some((s) => s.start > lastDecision && s.done !== undefined && s.done < effect.at);
      expect(covered, `a sync after the last decision write completed before effect-${effect.name}`).toBe(true);
    }
    // The outcomes of the last batch are on disk before the file is closed.
    const lastWrite = Math.max(...writes);
    expect(syncs.some((s) => s.start > lastWrite && s.done !== undefined && closedAt !== undefined && s.done < closedAt)).toBe(true);
    // Fewer syncs than appends: outcome batches wait for the next sync (2 turns → 2 decision syncs + 1 at close).
    expect(syncs.length).toBeLessThan(writes.length);
    expect(syncs.length).toBeLessThanOrEqual(decisionWrites.length + 1);
    const stored = (await readFile(join(dir, "audit.jsonl"), "utf8")).trimEnd().split("\n").map((l) => JSON.parse(l) as AuditRecord);
    expect(stored.filter((r) => r.event === "decision")).toHaveLength(4);
    expect(stored.filter((r) => r.event === "outcome")).toHaveLength(4);
  });
});

describe("a failing audit sink", () => {
  it("no call starts when its decision cannot be written; the run fails naming the sink, and the thread continues once the sink works", async () => {
    const ran: string[] = [];
    const inner = new MemoryAuditSink();
    let failing = true;
    const sink = {
      write: async (records: readonly AuditRecord[]) => {
        if (failing && records.some((r) => r.event === "decision")) throw new AuditError(ErrorCode.AUDIT_WRITE, "audit write to test.jsonl failed: fdatasync: EIO");
        return inner.write(records);
      },
      query: inner.query.bind(inner),
      close: inner.close.bind(inner),
    };
    const tool = defineTool({ name: "touch", description: "Side effect.", schema: z.object({ name: z.string() }), risk: "low", execute: ({ name }) => (ran.push(name), "done") });
    const graph = createGuardedAgent({
      model: new ScriptedChatModel({ scenario: { name: "one", turns: [{ tool_calls: [{ name: "touch", args: { name: "a" } }] }, { text: "done" }] } }),
      tools: [tool],
      checkpointer: new MemorySaver(),
      audit: sink,
    });
    const config = { configurable: { thread_id: "failing-sink" } };
    await expect(graph.invoke({ messages: [new HumanMessage("go")] }, config)).rejects.toThrow(/audit write to test\.jsonl failed/);
    expect(ran).toEqual([]);
    failing = false;
    const state = await graph.invoke(null, config);
    expect(ran).toEqual(["a"]);
    expect(state.messages.at(-1)?.content).toBe("done");
    expect((await inner.query()).map((r) => r.event)).toEqual(["decision", "outcome"]);
  });
});
