export { InMemoryArchivalIndex } from "./archival-memory.js";
export { inMemoryMemory, openPostgresMemory, openSqliteMemory } from "./backends.js";
export type { MemoryBackend } from "./backends.js";
export { MemoryError } from "./errors.js";
export { MemoryStore } from "./memory-store.js";
export { memoryContext, renderMemoryBlocks } from "./render.js";
