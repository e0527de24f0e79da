// Memory blocks, archival recall and a FileSource on SQLite, driven through the built-in tools.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createBuiltinTools, defaultToolRules, FileSource, openSqliteMemory, renderToolUsageRules, SourceManager } from "guarded-graph/memory";

export async function runMemoryQuickstart(workDir: string) {
  // 1. Memory on SQLite (blocks in a LangGraph BaseStore, archival entries in FTS5).
  const { memory, close } = openSqliteMemory({ path: path.join(workDir, "memory.db"), namespace: ["memory", "agent-1"] });
  await memory.createBlock({ label: "persona", content: "I keep the docs tidy.", type: "core", pinned: true, permission: "read-only" });
  await memory.createBlock({ label: "human", content: "Name: Ada", type: "core", permission: "human" });

  // 2. A FileSource: glob rules map paths to permissions; the strictest matching rule wins.
  const repo = path.join(workDir, "repo");
  mkdirSync(path.join(repo, "src"), { recursive: true });
  writeFileSync(path.join(repo, "src", "app.ts"), "export const answer = 41;\n");
  const files = new FileSource({
    id: "repo",
    baseDir: repo,
    memory,
    rules: [
      { pattern: "src/**", permission: "read-write" },
      { pattern: "docs/**", permission: "read-only" },
      { pattern: "**/*.env", permission: "denied" },
    ],
    watch: true,
  });
  const sources = new SourceManager().register(files);

  // 3. The tools (give them to createGuardedAgent together with defaultToolRules()).
  // The FileSource registered its own `file` tool when started: it comes last.
  const [block, blockEdit, recall, source, file] = createBuiltinTools({ memory, sources });
  const call = (tool: { invoke(input: unknown): Promise<unknown> }, args: Record<string, unknown>) => tool.invoke(args);

  await call(recall!, { op: "insert", content: "Ada prefers short answers", label: "preferences" });
  const found = await call(recall!, { op: "search", query: "short answers" });
  const consent = await blockEdit!.guard.requiresApproval?.({ op: "append", label: "human", content: "Likes tea" }, undefined);
  await call(file!, { op: "load", path: "src/app.ts" });
  await call(file!, { op: "replace", path: "src/app.ts", old: "41", new: "42" });
  await call(file!, { op: "save", path: "src/app.ts" });
  const refused = await call(file!, { op: "load", path: "../outside.txt" }).catch((e: Error) => e.message);
  const info = await call(block!, { op: "info", label: "persona" });
  const status = await call(source!, { op: "list" });

  await sources.close();
  await close();
  return { found, consent, refused, info, status, rules: defaultToolRules(), prompt: renderToolUsageRules([block!, blockEdit!, recall!, source!, file!]) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.dir(await runMemoryQuickstart(mkdtempSync(path.join(tmpdir(), "memory-"))), { depth: 4 });
