/**
 * writesAfterTheirCheckpoint (src/storage/write-order.ts), the checkpointer createGuardedAgent
 * compiles with: under durability "sync" a write saved under a checkpoint whose put is in flight
 * waits for that put (and is not saved when it fails); under "async" nothing waits. The crash this
 * closes (a run killed after its input write was saved, before its input checkpoint) is measured in
 * test/crash-boundaries.test.ts ("first step, …").
 */
import { HumanMessage } from "@langchain/core/messages";
import { MemorySaver, emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import type { Checkpoint, CheckpointMetadata } from "@langchain/langgraph-checkpoint";
import type { RunnableConfig } from "@langchain/core/runnables";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MemoryAuditSink } from "../src/audit/memory.js";
import { buildGraph } from "../src/cli/session.js";
import { createGuardedAgent } from "../src/guard/agent.js";
import { readThreadProgress } from "../src/guard/durable.js";
import { ScriptedChatModel } from "../src/model/scripted.js";
import { openCheckpointer } from "../src/storage/checkpointer.js";
import { threadSourceOf } from "../src/storage/thread-source.js";
import { writesAfterTheirCheckpoint } from "../src/storage/write-order.js";
import { effectTools } from "./fixtures/workers/effects.js";

const tmp = mkdtempSync(join(tmpdir(), "gg-write-order-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A saver (not MemorySaver itself) whose puts wait for `release`, logging what reached storage. */
class GatedSaver extends MemorySaver {
  readonly log: string[] = [];
  #gate: Promise<void> = Promise.resolve();
  #fail = false;
  hold(): { release: () => void; fail: () => void } {
    let release: () => void = () => undefined;
    this.#gate = new Promise((resolve) => (release = resolve));
    return {
      release,
      fail: () => {
        this.#fail = true;
        release();
      },
    };
  }
  override async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, _versions?: unknown): Promise<RunnableConfig> {
    await this.#gate;
    if (this.#fail) throw new Error("disk full");
    this.log.push(`put ${checkpoint.id}`);
    return super.put(config, checkpoint, metadata);
  }
  override async putWrites(config: RunnableConfig, writes: [string, unknown][], taskId: string): Promise<void> {
    this.log.push(`writes ${String(config.configurable?.checkpoint_id)}`);
    return super.putWrites(config, writes, taskId);
  }
}

/** A saver (not MemorySaver itself) whose every put takes 30 ms, logging when each put and write reached it. */
class SlowPutSaver extends MemorySaver {
  readonly log: string[] = [];
  override async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, _versions?: unknown): Promise<RunnableConfig> {
    await new Promise((resolve) => setTimeout(resolve, 30));
    this.log.push(`put ${checkpoint.id}`);
    return super.put(config, checkpoint, metadata);
  }
  override async putWrites(config: RunnableConfig, writes: [string, unknown][], taskId: string): Promise<void> {
    this.log.push(`writes ${String(config.configurable?.checkpoint_id)}`);
    return super.putWrites(config, writes, taskId);
  }
  /** Writes that reached the saver before the checkpoint they belong to. */
  writesBeforeTheirCheckpoint(): string[] {
    return this.log.filter((entry, i) => entry.startsWith("writes ") && !this.log.slice(0, i).includes(`put ${entry.slice("writes ".length)}`));
  }
}

function checkpointWithId(): Checkpoint {
  return { ...emptyCheckpoint(), id: uuid6(-1) };
}

const base = { configurable: { thread_id: "t", checkpoint_ns: "" } };
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("writesAfterTheirCheckpoint", () => {
  it('under "sync", a write under a checkpoint still being put is saved after it', async () => {
    const saver = new GatedSaver();
    const ordered = writesAfterTheirCheckpoint(saver);
    const checkpoint = checkpointWithId();
    const gate = saver.hold();
    const put = ordered.put({ ...base, durability: "sync" } as RunnableConfig, checkpoint, { source: "input", step: -1, parents: {} }, {});
    const writes = ordered.putWrites({ configurable: { ...base.configurable, checkpoint_id: checkpoint.id } }, [["messages", "hi"]], "task-1");
    await settle();
    expect(saver.log).toEqual([]);
    gate.release();
    await Promise.all([put, writes]);
    expect(saver.log).toEqual([`put ${checkpoint.id}`, `writes ${checkpoint.id}`]);
    // A write under a checkpoint saved before (no put in flight) does not wait.
    await ordered.putWrites({ configurable: { ...base.configurable, checkpoint_id: checkpoint.id } }, [["messages", "again"]], "task-2");
    expect(saver.log).toHaveLength(3);
  });

  it("a write under a checkpoint whose put failed is not saved", async () => {
    const saver = new GatedSaver();
    const ordered = writesAfterTheirCheckpoint(saver);
    const checkpoint = checkpointWithId();
    const gate = saver.hold();
    const put = ordered.put({ ...base, durability: "sync" } as RunnableConfig, checkpoint, { source: "input", step: -1, parents: {} }, {});
    const writes = ordered.putWrites({ configurable: { ...base.configurable, checkpoint_id: checkpoint.id } }, [["messages", "hi"]], "task-1");
    gate.fail();
    await expect(put).rejects.toThrow("disk full");
    await expect(writes).rejects.toThrow("disk full");
    expect(saver.log).toEqual([]);
  });

  it('under "async" nothing waits (as LangGraph runs it)', async () => {
    const saver = new GatedSaver();
    const ordered = writesAfterTheirCheckpoint(saver);
    const checkpoint = checkpointWithId();
    const gate = saver.hold();
    const put = ordered.put({ ...base, durability: "async" } as RunnableConfig, checkpoint, { source: "input", step: -1, parents: {} }, {});
    await ordered.putWrites({ configurable: { ...base.configurable, checkpoint_id: checkpoint.id } }, [["messages", "hi"]], "task-1");
    expect(saver.log).toEqual([`writes ${checkpoint.id}`]);
    gate.release();
    await put;
  });

  it("MemorySaver itself is used as it is; other savers keep their members and thread source", async () => {
    const memory = new MemorySaver();
    expect(writesAfterTheirCheckpoint(memory)).toBe(memory);
    const opened = await openCheckpointer(`sqlite:${join(tmp, "source.db")}`);
    try {
      const ordered = writesAfterTheirCheckpoint(opened.checkpointer);
      expect(ordered).not.toBe(opened.checkpointer);
      expect(ordered).toBeInstanceOf(opened.checkpointer.constructor);
      expect(threadSourceOf(ordered)).toBe(threadSourceOf(opened.checkpointer));
      expect(ordered.getNextVersion).toBe(ordered.getNextVersion);
    } finally {
      await opened.close();
    }
  });

  it("a run's first writes (its input, by __start__) reach the checkpointer after the input checkpoint: createGuardedAgent and the CLI's graphs", async () => {
    const sink = { record: async () => undefined, close: async () => undefined };
    const scenario = { name: "one", turns: [{ tool_calls: [{ name: "effect", args: { label: "a", ms: 1, safe: true } }] }, { text: "done" }] };
    const agentSaver = new SlowPutSaver();
    const agent = createGuardedAgent({ model: new ScriptedChatModel({ scenario }), tools: effectTools(sink), checkpointer: agentSaver });
    await agent.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: "first" } });
    await agent.invoke({ messages: [new HumanMessage("again")] }, { configurable: { thread_id: "first" } });
    expect(agentSaver.log.filter((e) => e.startsWith("writes ")).length).toBeGreaterThan(4);
    expect(agentSaver.writesBeforeTheirCheckpoint()).toEqual([]);
    // The same run under "async" (its own durability): LangGraph saves writes before their checkpoint, as documented.
    await agent.invoke({ messages: [new HumanMessage("async")] }, { configurable: { thread_id: "first" }, durability: "async" });
    expect(agentSaver.writesBeforeTheirCheckpoint().length).toBeGreaterThan(0);
    // The CLI runs its graphs (graphs/shared.ts) through createGuardedAgent.
    const cliSaver = new SlowPutSaver();
    const ready = await buildGraph("etl", { checkpointer: cliSaver, audit: new MemoryAuditSink(), policy: undefined, threadId: "cli" });
    try {
      await ready.graph.invoke({ messages: [new HumanMessage("load the orders")] }, { configurable: { thread_id: "cli" } });
    } finally {
      await ready.close();
    }
    expect(cliSaver.log.length).toBeGreaterThan(2);
    expect(cliSaver.writesBeforeTheirCheckpoint()).toEqual([]);
  });

  it("a guarded graph on a SQLite checkpointer runs and reads its threads through it", async () => {
    const opened = await openCheckpointer(`sqlite:${join(tmp, "graph.db")}`);
    try {
      const sink = { record: async () => undefined, close: async () => undefined };
      const scenario = { name: "one", turns: [{ tool_calls: [{ name: "effect", args: { label: "a", ms: 1, safe: true } }] }, { text: "done" }] };
      const graph = createGuardedAgent({ model: new ScriptedChatModel({ scenario }), tools: effectTools(sink), checkpointer: opened.checkpointer });
      await graph.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: "g" } });
      expect((await readThreadProgress(graph, "g")).progress).toBe("done");
      const state = await graph.getState({ configurable: { thread_id: "g" } });
      expect((state.values as { messages: unknown[] }).messages).toHaveLength(4);
    } finally {
      await opened.close();
    }
  });
});
