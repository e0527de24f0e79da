/**
 * writesAfterTheirCheckpoint (src/storage/write-order.ts), the checkpointer createGuardedAgent
 * compiles with: under durability "sync" a write saved under a checkpoint whose put is in flight
 * waits for that put (and is not saved when it fails); under "async" nothing waits. The crash this
 * closes (a run killed after its input write was saved, before its input checkpoint) is measured in
 * test/crash-boundaries.test.ts ("first step, …").
 */
import { HumanMessage, type AIMessage } from "@langchain/core/messages";
import { Annotation, END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
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
import { GuardAnnotation } from "../src/guard/state.js";
import { GuardedToolNode, guardedToolsRoute } from "../src/guard/tool-node.js";
import { PermissionPolicy } from "../src/policy/permissions.js";
import { readThreadProgress } from "../src/guard/durable.js";
import { ScriptedChatModel } from "../src/model/scripted.js";
import { openCheckpointer } from "../src/storage/checkpointer.js";
import { threadSourceOf } from "../src/storage/thread-source.js";
import { writesAfterTheirCheckpoint } from "../src/storage/write-order.js";
import { effectTools } from "./fixtures/workers/effects.js";
import { graph as etlPlatformGraph } from "../graphs/etl.js";

const tmp = mkdtempSync(join(tmpdir(), "gg-write-order-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A saver (not MemorySaver itself) logging when each put and write reached it; a put first awaits `beforePut`. */
class LoggingSaver extends MemorySaver {
  readonly log: string[] = [];
  protected async beforePut(): Promise<void> {}
  override async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, _versions?: unknown): Promise<RunnableConfig> {
    await this.beforePut();
    this.log.push(`put ${checkpoint.id}`);
    return super.put(config, checkpoint, metadata);
  }
  override async putWrites(config: RunnableConfig, writes: [string, unknown][], taskId: string): Promise<void> {
    this.log.push(`writes ${String(config.configurable?.checkpoint_id)}`);
    return super.putWrites(config, writes, taskId);
  }
}

/** A logging saver whose puts wait for `release` (or fail, after `fail`). */
class GatedSaver extends LoggingSaver {
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
  protected override async beforePut(): Promise<void> {
    await this.#gate;
    if (this.#fail) throw new Error("disk full");
  }
}

/** A logging saver whose every put takes 30 ms. */
class SlowPutSaver extends LoggingSaver {
  protected override async beforePut(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 30));
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

/**
 * Through the wrapper, the put of a fresh input checkpoint under `durability`, held at a GatedSaver's
 * gate; `writeUnder` saves one messages write under that checkpoint.
 */
function heldPut(durability: "sync" | "async") {
  const saver = new GatedSaver();
  const ordered = writesAfterTheirCheckpoint(saver);
  const checkpoint = checkpointWithId();
  const gate = saver.hold();
  const put = ordered.put({ ...base, durability } as RunnableConfig, checkpoint, { source: "input", step: -1, parents: {} }, {});
  const writeUnder = (message: string, taskId: string) =>
    ordered.putWrites({ configurable: { ...base.configurable, checkpoint_id: checkpoint.id } }, [["messages", message]], taskId);
  return { saver, checkpoint, gate, put, writeUnder };
}

/** A scripted model that calls the effect tool once, then says "done", and that tool (its effects dropped). */
function oneEffectThenDone() {
  const sink = { record: async () => undefined, close: async () => undefined };
  const scenario = { name: "one", turns: [{ tool_calls: [{ name: "effect", args: { label: "a", ms: 1, safe: true } }] }, { text: "done" }] };
  return { model: new ScriptedChatModel({ scenario }), tools: effectTools(sink) };
}

describe("writesAfterTheirCheckpoint", () => {
  it('under "sync", a write under a checkpoint still being put is saved after it', async () => {
    const { saver, checkpoint, gate, put, writeUnder } = heldPut("sync");
    const writes = writeUnder("hi", "task-1");
    await settle();
    expect(saver.log).toEqual([]);
    gate.release();
    await Promise.all([put, writes]);
    expect(saver.log).toEqual([`put ${checkpoint.id}`, `writes ${checkpoint.id}`]);
    // A write under a checkpoint saved before (no put in flight) does not wait.
    await writeUnder("again", "task-2");
    expect(saver.log).toHaveLength(3);
  });

  it("a write under a checkpoint whose put failed is not saved", async () => {
    const { saver, gate, put, writeUnder } = heldPut("sync");
    const writes = writeUnder("hi", "task-1");
    gate.fail();
    await expect(put).rejects.toThrow("disk full");
    await expect(writes).rejects.toThrow("disk full");
    expect(saver.log).toEqual([]);
  });

  it('under "async" nothing waits (as LangGraph runs it)', async () => {
    const { saver, checkpoint, gate, put, writeUnder } = heldPut("async");
    await writeUnder("hi", "task-1");
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
    const agentSaver = new SlowPutSaver();
    const agent = createGuardedAgent({ ...oneEffectThenDone(), checkpointer: agentSaver });
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

  it("one wrapper per saver: wrapping again, or wrapping the wrapper, gives the same wrapper", () => {
    const saver = new SlowPutSaver();
    const ordered = writesAfterTheirCheckpoint(saver);
    expect(ordered).not.toBe(saver);
    expect(writesAfterTheirCheckpoint(saver)).toBe(ordered);
    expect(writesAfterTheirCheckpoint(ordered)).toBe(ordered);
  });

  // LangGraph Platform's server loads the exported graph and, before each run, assigns its own
  // saver: `compiled.checkpointer = options?.checkpointer ?? checkpointer` (@langchain/langgraph-api
  // dist/graph/load.mjs, getGraph, 1.x as pinned by the LangGraph CLI 1.5.1). The exported graphs
  // (graphs/*.ts) are createGuardedAgent graphs compiled without a checkpointer.
  it("runs of several threads at once on one assigned saver, the saver assigned again before each (as the server does per run): no write before its checkpoint, every run done", async () => {
    const graph = createGuardedAgent(oneEffectThenDone());
    const saver = new SlowPutSaver();
    const platform = graph as unknown as { checkpointer: unknown };
    const threads = ["p1", "p2", "p3", "p4"];
    await Promise.all(
      threads.map(async (thread) => {
        platform.checkpointer = saver;
        await graph.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: thread } });
      }),
    );
    expect(saver.log.filter((e) => e.startsWith("writes ")).length).toBeGreaterThan(4 * threads.length);
    expect(saver.writesBeforeTheirCheckpoint()).toEqual([]);
    for (const thread of threads) expect((await readThreadProgress(graph, thread)).progress).toBe("done");
  });

  it("a checkpointer assigned after createGuardedAgent, as LangGraph Platform assigns its own, is wrapped too", async () => {
    const graph = createGuardedAgent(oneEffectThenDone());
    expect(graph.checkpointer).toBeUndefined();
    const saver = new SlowPutSaver();
    // The server's line, as it runs it.
    const platform = graph as unknown as { checkpointer: unknown };
    platform.checkpointer = saver;
    expect(graph.checkpointer).not.toBe(saver);
    expect(graph.checkpointer).toBe(writesAfterTheirCheckpoint(saver));
    // Assigned again before the next run (the server does it per run): the same wrapper.
    platform.checkpointer = saver;
    expect(graph.checkpointer).toBe(writesAfterTheirCheckpoint(saver));
    await graph.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: "platform" } });
    await graph.invoke({ messages: [new HumanMessage("again")] }, { configurable: { thread_id: "platform" } });
    expect(saver.log.filter((e) => e.startsWith("writes ")).length).toBeGreaterThan(4);
    expect(saver.writesBeforeTheirCheckpoint()).toEqual([]);
    // The graph reads its threads through the saver it was given.
    expect((await readThreadProgress(graph, "platform")).progress).toBe("done");
    // A graph derived with withConfig (exported as `createGuardedAgent(...).withConfig({ ... })`) wraps an assigned saver too.
    const derived = graph.withConfig({ recursionLimit: 50 }) as unknown as { checkpointer: unknown; withConfig: (c: object) => { checkpointer: unknown } };
    expect(derived.checkpointer).toBe(writesAfterTheirCheckpoint(saver));
    const other = new SlowPutSaver();
    derived.checkpointer = other;
    expect(derived.checkpointer).toBe(writesAfterTheirCheckpoint(other));
    expect(graph.checkpointer).toBe(writesAfterTheirCheckpoint(saver));
    const twice = derived.withConfig({ tags: ["x"] });
    twice.checkpointer = other;
    expect(twice.checkpointer).toBe(writesAfterTheirCheckpoint(other));
    // What the server may assign besides a saver is kept as it is.
    for (const value of [undefined, false, null]) {
      platform.checkpointer = value;
      expect(graph.checkpointer).toBe(value);
    }
    // MemorySaver itself stays itself.
    const memory = new MemorySaver();
    platform.checkpointer = memory;
    expect(graph.checkpointer).toBe(memory);
    // langgraph.json's `etl` export, called as the server calls it, then given the server's saver.
    const before = process.env.GUARDED_GRAPH_AUDIT;
    process.env.GUARDED_GRAPH_AUDIT = "memory:";
    const cliSaver = new SlowPutSaver();
    try {
      const exported = await etlPlatformGraph({ configurable: {} });
      (exported as unknown as { checkpointer: unknown }).checkpointer = cliSaver;
      await exported.invoke({ messages: [new HumanMessage("load the orders")] }, { configurable: { thread_id: "platform-etl" } });
    } finally {
      if (before === undefined) delete process.env.GUARDED_GRAPH_AUDIT;
      else process.env.GUARDED_GRAPH_AUDIT = before;
    }
    expect(cliSaver.log.length).toBeGreaterThan(2);
    expect(cliSaver.writesBeforeTheirCheckpoint()).toEqual([]);
  });

  it("a graph compiled by hand (GuardedToolNode) keeps the first-step order when its checkpointer is wrapped, and not otherwise", async () => {
    const State = Annotation.Root({ ...MessagesAnnotation.spec, ...GuardAnnotation.spec });
    const build = (checkpointer: SlowPutSaver | ReturnType<typeof writesAfterTheirCheckpoint<SlowPutSaver>>) => {
      const { model, tools } = oneEffectThenDone();
      return new StateGraph(State)
        .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
        .addNode("tools", new GuardedToolNode({ tools, permissions: new PermissionPolicy([{ tool: "effect", mode: "allow" }]) }))
        .addEdge(START, "agent")
        .addConditionalEdges("agent", (s) => ((s.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END), ["tools", END])
        .addConditionalEdges("tools", guardedToolsRoute("agent"), ["agent", END])
        .compile({ checkpointer });
    };
    const wrapped = new SlowPutSaver();
    await build(writesAfterTheirCheckpoint(wrapped)).invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: "hand" }, durability: "sync" });
    expect(wrapped.log.filter((e) => e.startsWith("writes ")).length).toBeGreaterThan(2);
    expect(wrapped.writesBeforeTheirCheckpoint()).toEqual([]);
    const plain = new SlowPutSaver();
    await build(plain).invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: "hand" }, durability: "sync" });
    expect(plain.writesBeforeTheirCheckpoint().length).toBeGreaterThan(0);
  });

  it("a guarded graph on a SQLite checkpointer runs and reads its threads through it", async () => {
    const opened = await openCheckpointer(`sqlite:${join(tmp, "graph.db")}`);
    try {
      const graph = createGuardedAgent({ ...oneEffectThenDone(), checkpointer: opened.checkpointer });
      await graph.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: "g" } });
      expect((await readThreadProgress(graph, "g")).progress).toBe("done");
      const state = await graph.getState({ configurable: { thread_id: "g" } });
      expect((state.values as { messages: unknown[] }).messages).toHaveLength(4);
    } finally {
      await opened.close();
    }
  });
});
