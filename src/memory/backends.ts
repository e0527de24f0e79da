import { InMemoryStore } from "@langchain/langgraph";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { importOptional } from "../optional/index.js";
import { InMemoryArchivalIndex } from "./archival-memory.js";
import { PostgresArchivalIndex } from "./archival-postgres.js";
import { SqliteArchivalIndex } from "./archival-sqlite.js";
import { MemoryStore } from "./memory-store.js";
import { SqliteStore } from "./sqlite-store.js";

/** A memory backend: the MemoryStore and a `close()` releasing what it opened. */
export interface MemoryBackend {
  memory: MemoryStore;
  close(): Promise<void>;
}

/** A memory backend kept in this process only (lost when it exits): for tests, demos and short-lived agents. */
export function inMemoryMemory(options: { namespace: readonly string[] }): MemoryBackend {
  const memory = new MemoryStore(new InMemoryStore(), { namespace: options.namespace, archival: new InMemoryArchivalIndex() });
  return { memory, close: async () => {} };
}

/** SQLite (the embedded default): blocks in a SqliteStore, archival entries in FTS5, one database file. */
export function openSqliteMemory(options: { path: string; namespace: readonly string[] }): MemoryBackend & { store: SqliteStore } {
  const store = new SqliteStore(options.path);
  const memory = new MemoryStore(store, { namespace: options.namespace, archival: new SqliteArchivalIndex(store.db) });
  return { memory, store, close: async () => store.stop() };
}

/** PostgreSQL: blocks in LangGraph's PostgresStore, archival entries in a tsvector/GIN table, both in `schema`. */
export async function openPostgresMemory(options: {
  url: string;
  namespace: readonly string[];
  schema?: string;
}): Promise<MemoryBackend & { store: BaseStore; archival: PostgresArchivalIndex }> {
  const schema = options.schema ?? "public";
  const archival = new PostgresArchivalIndex({ connection: options.url, schema });
  await archival.setup(); // creates the schema the store's migrations then use
  const { PostgresStore } = await importOptional(
    "@langchain/langgraph-checkpoint-postgres",
    "PostgreSQL memory (postgres://URL)",
    () => import("@langchain/langgraph-checkpoint-postgres/store"),
  );
  const store = PostgresStore.fromConnString(options.url, { schema });
  await store.setup();
  const memory = new MemoryStore(store, { namespace: options.namespace, archival });
  return {
    memory,
    store,
    archival,
    close: async () => {
      await store.stop();
      await archival.close();
    },
  };
}
