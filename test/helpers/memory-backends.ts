import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { inMemoryMemory, openSqliteMemory, type MemoryBackend } from "../../src/memory/index.js";

/** The backends every memory test runs on: a fresh one per call. */
export const LOCAL_BACKENDS: { name: string; open: () => MemoryBackend & { reopen?: () => MemoryBackend } }[] = [
  { name: "InMemoryStore", open: () => inMemoryMemory({ namespace: ["memory", "agent-1"] }) },
  {
    name: "SQLite",
    open: () => {
      const dir = mkdtempSync(path.join(tmpdir(), "gg-memory-"));
      const file = path.join(dir, "memory.db");
      const backend = openSqliteMemory({ path: file, namespace: ["memory", "agent-1"] });
      return {
        memory: backend.memory,
        close: async () => {
          await backend.close();
          rmSync(dir, { recursive: true, force: true });
        },
        reopen: () => {
          const again = openSqliteMemory({ path: file, namespace: ["memory", "agent-1"] });
          return again;
        },
      };
    },
  },
];
