// "guarded-graph/graphs/memory": the memory demo graph (the built-in memory tools and a FileSource)
// for a langgraph.json of your own: `export { graph } from "guarded-graph/graphs/memory";`.
import type { BaseStore } from "@langchain/langgraph";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBuiltinTools, defaultToolRules } from "../src/builtin/index.js";
import { InMemoryArchivalIndex, inMemoryMemory, memoryContext, MemoryStore, openSqliteMemory, type MemoryBackend } from "../src/memory/index.js";
import { RunStore } from "../src/platform/run-store.js";
import type { ScenarioInput } from "../src/model/scenario.js";
import { FileSource, SourceManager } from "../src/sources/index.js";
import { assembleGraph, platformGraph, type GraphOptions, type ReadyGraph } from "./shared.js";

export const MEMORY_SYSTEM_PROMPT = [
  "You are an assistant with memory blocks and a workspace of files (FileSource `workspace`).",
  "Load a file before editing it, edit with append/replace, then save. Deleting files asks a human first.",
].join("\n");

/** The offline scenario: load a note, append to it, save it, report. */
export const MEMORY_DEMO_SCENARIO: ScenarioInput = {
  name: "memory-demo",
  description: "Load notes/todo.md, tick an item, save it.",
  turns: [
    { text: "Let me read the todo list.", tool_calls: [{ name: "file", args: { op: "load", path: "notes/todo.md" } }] },
    { tool_calls: [{ name: "file", args: { op: "append", path: "notes/todo.md", content: "- [x] tried guarded-graph\n" } }] },
    { tool_calls: [{ name: "file", args: { op: "save", path: "notes/todo.md" } }] },
    { text: "Added a done item to notes/todo.md and saved it." },
  ],
};

export interface MemoryGraphOptions extends GraphOptions {
  /** Directory for the memory database and the `workspace/` files; default: memory in RAM, files under `.guarded-graph/memory/default`. */
  dataDir?: string;
  /**
   * Keep memory blocks in this store instead of a database under `dataDir` (only `workspace/` files go
   * there). The platform export passes a `RunStore`: the store LangGraph Platform injects into each run.
   * Without it, a `store` given to the graph holds the blocks too.
   */
  memoryStore?: BaseStore;
}

function seedWorkspace(dir: string): void {
  mkdirSync(join(dir, "notes"), { recursive: true });
  const todo = join(dir, "notes", "todo.md");
  if (!existsSync(todo)) writeFileSync(todo, "# Todo\n- [ ] read the README\n");
}

/** The memory agent: block/block_edit/recall/source tools and a FileSource over `workspace/`. No policy file unless configured. */
export async function createMemoryGraph(options: MemoryGraphOptions = {}): Promise<ReadyGraph> {
  const dataDir = options.dataDir ?? join(process.cwd(), ".guarded-graph", "memory", "default");
  const workspace = join(dataDir, "workspace");
  seedWorkspace(workspace);
  const namespace = ["memory-agent"];
  const blockStore = options.memoryStore ?? options.store;
  const backend: MemoryBackend =
    blockStore !== undefined
      ? { memory: new MemoryStore(blockStore, { namespace, archival: new InMemoryArchivalIndex() }), close: async () => {} }
      : options.dataDir === undefined
        ? inMemoryMemory({ namespace })
        : openSqliteMemory({ path: join(dataDir, "memory.db"), namespace });
  const source = new FileSource({
    id: "workspace",
    baseDir: workspace,
    rules: [{ pattern: "notes/**", permission: "read-write" }],
    memory: backend.memory,
  });
  const sources = new SourceManager().register(source);
  // The FileSource registered its own `file` tool when started; its rules limit it to what the globs allow.
  const tools = createBuiltinTools({ memory: backend.memory, sources });
  const names = new Set(tools.map((t) => t.name));
  return assembleGraph({
    name: "memory",
    tools,
    rules: [...defaultToolRules().filter((rule) => names.has(rule.tool)), ...sources.toolRules().filter((rule) => rule.type === "AllowedOperations")],
    policyPath: options.policy,
    scenario: "memory-demo",
    scenarioInput: MEMORY_DEMO_SCENARIO,
    systemPrompt: MEMORY_SYSTEM_PROMPT,
    context: memoryContext({ memory: backend.memory, sources }),
    options,
    onClose: async () => {
      await sources.close();
      await backend.close();
    },
  });
}

/**
 * For langgraph.json. Memory blocks live in the store LangGraph Platform injects into each run (never
 * in the server's working directory); workspace files under GUARDED_GRAPH_MEMORY_DIR, else a fresh
 * temporary directory per server process. Policy: the assistant's `configurable.policy` name, else
 * GUARDED_GRAPH_POLICY_MEMORY / GUARDED_GRAPH_POLICY (none by default).
 */
export const graph = platformGraph("memory", undefined, (options) => {
  const dataDir = process.env.GUARDED_GRAPH_MEMORY_DIR?.trim() || mkdtempSync(join(tmpdir(), "guarded-graph-memory-"));
  return createMemoryGraph({ ...options, dataDir, memoryStore: new RunStore() });
});
