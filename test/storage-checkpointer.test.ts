import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { openCheckpointer, type OpenedCheckpointer } from "../src/storage/checkpointer.js";
import { DEFAULT_STORAGE_SPEC, parseStorageSpec } from "../src/storage/spec.js";
import { listThreads } from "../src/storage/threads.js";
import { postgresConfigured, postgresForTests, schemaDroppedAfterAll } from "./helpers/postgres.js";

const State = Annotation.Root({ count: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }) });

/** A one-node graph: every invoke writes checkpoints for its thread. */
function counterGraph(checkpointer: BaseCheckpointSaver) {
  return new StateGraph(State)
    .addNode("inc", () => ({ count: 1 }))
    .addEdge(START, "inc")
    .addEdge("inc", END)
    .compile({ checkpointer });
}

async function runThreads(opened: OpenedCheckpointer, threadIds: string[]): Promise<void> {
  const graph = counterGraph(opened.checkpointer);
  for (const threadId of threadIds) await graph.invoke({ count: 0 }, { configurable: { thread_id: threadId } });
}

const tmp = mkdtempSync(join(tmpdir(), "gg-checkpointer-"));
const opened: OpenedCheckpointer[] = [];
async function open(spec?: string, options?: { schema?: string }): Promise<OpenedCheckpointer> {
  const handle = await openCheckpointer(spec, options);
  opened.push(handle);
  return handle;
}
afterEach(async () => {
  for (const handle of opened.splice(0)) await handle.close();
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("openCheckpointer", () => {
  it("opens memory: and keeps state across invokes of one thread", async () => {
    const handle = await open("memory:");
    expect(handle.kind).toBe("memory");
    const graph = counterGraph(handle.checkpointer);
    await graph.invoke({ count: 0 }, { configurable: { thread_id: "t" } });
    const second = await graph.invoke({ count: 0 }, { configurable: { thread_id: "t" } });
    expect(second.count).toBe(2);
  });

  it("opens sqlite:PATH, creating the directory, and the state survives a reopen", async () => {
    const path = join(tmp, "nested", "dir", "cp.db");
    const first = await open(`sqlite:${path}`);
    expect(first.kind).toBe("sqlite");
    await runThreads(first, ["a", "a"]);
    await first.close();
    expect(existsSync(path)).toBe(true);
    const second = await open(`sqlite:${path}`);
    const state = await counterGraph(second.checkpointer).getState({ configurable: { thread_id: "a" } });
    expect(state.values.count).toBe(2);
  });

  it("falls back to GUARDED_GRAPH_DB, then to the embedded default", async () => {
    const path = join(tmp, "from-env.db");
    const saved = process.env.GUARDED_GRAPH_DB;
    try {
      process.env.GUARDED_GRAPH_DB = `sqlite:${path}`;
      const fromEnv = await open();
      expect(fromEnv.spec).toBe(`sqlite:${path}`);
      await runThreads(fromEnv, ["env"]);
      expect(existsSync(path)).toBe(true);
      delete process.env.GUARDED_GRAPH_DB;
      const cwd = process.cwd();
      const workdir = mkdtempSync(join(tmp, "cwd-"));
      process.chdir(workdir);
      try {
        const fallback = await open();
        expect(fallback.spec).toBe(DEFAULT_STORAGE_SPEC);
        expect(fallback.kind).toBe("sqlite");
        await runThreads(fallback, ["default"]);
        expect(existsSync(join(workdir, ".guarded-graph", "checkpoints.db"))).toBe(true);
      } finally {
        process.chdir(cwd);
      }
    } finally {
      if (saved === undefined) delete process.env.GUARDED_GRAPH_DB;
      else process.env.GUARDED_GRAPH_DB = saved;
    }
  });

  it("refuses malformed specs with a message naming the spec and the accepted forms", async () => {
    await expect(openCheckpointer("mysql://x")).rejects.toThrow(/invalid storage spec "mysql:\/\/x".*sqlite:PATH/);
    await expect(openCheckpointer("sqlite:")).rejects.toThrow(/invalid storage spec/);
    await expect(openCheckpointer("postgres://local host:bad/x")).rejects.toThrow(/not a valid PostgreSQL URL/);
    expect(() => parseStorageSpec("  ")).toThrow(/storage spec is empty/);
    expect(parseStorageSpec("postgresql://u@h/db").kind).toBe("postgres");
  });

  it("refuses a PostgreSQL schema that is not a plain identifier", async () => {
    await expect(openCheckpointer("postgres://u@127.0.0.1:1/x", { schema: 'x"; drop' })).rejects.toThrow(
      /invalid PostgreSQL schema/,
    );
  });
});

describe("listThreads", () => {
  it("lists each thread once, newest first, for SQLite", async () => {
    const handle = await open(`sqlite:${join(tmp, "threads.db")}`);
    expect(await listThreads(handle.checkpointer)).toEqual([]);
    await runThreads(handle, ["old", "mid", "old", "new"]);
    const threads = await listThreads(handle.checkpointer);
    expect(threads.map((t) => t.threadId)).toEqual(["new", "old", "mid"]);
    for (const thread of threads) expect(Number.isNaN(Date.parse(thread.updatedAt ?? ""))).toBe(false);
  });

  it("lists threads of a memory checkpointer through list({})", async () => {
    const handle = await open("memory:");
    await runThreads(handle, ["x", "y", "x"]);
    const threads = await listThreads(handle.checkpointer);
    expect(threads.map((t) => t.threadId).sort()).toEqual(["x", "y"]);
    expect(threads[0]?.threadId).toBe("x");
  });
});

describe.runIf(postgresConfigured)("PostgreSQL checkpointer", () => {
  const schema = schemaDroppedAfterAll("gg_cp");

  it("opens postgres://, runs a graph and lists its threads", async (context) => {
    const url = await postgresForTests();
    if (!url) return context.skip();
    const handle = await open(url, { schema });
    expect(handle.kind).toBe("postgres");
    await runThreads(handle, ["p1", "p2", "p1"]);
    const threads = await listThreads(handle.checkpointer);
    expect(threads.map((t) => t.threadId)).toEqual(["p1", "p2"]);
    const state = await counterGraph(handle.checkpointer).getState({ configurable: { thread_id: "p1" } });
    expect(state.values.count).toBe(2);
  });

  it("reports an unreachable server without the password", async () => {
    await expect(openCheckpointer("postgres://u:secret@127.0.0.1:1/x")).rejects.toThrow(
      /cannot open PostgreSQL checkpointer at postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/x/,
    );
  });
});
