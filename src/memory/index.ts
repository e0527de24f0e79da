export { InMemoryArchivalIndex } from "./archival-memory.js";
export { PostgresArchivalIndex, tsQuery } from "./archival-postgres.js";
export type { PostgresArchivalOptions } from "./archival-postgres.js";
export { SqliteArchivalIndex, fts5Query } from "./archival-sqlite.js";
export { MAX_SEARCH_LIMIT, tokenize } from "./archival.js";
export type { ArchivalIndex, ArchivalInsert, ArchivalSearchOptions } from "./archival.js";
export { inMemoryMemory, openPostgresMemory, openSqliteMemory } from "./backends.js";
export type { MemoryBackend } from "./backends.js";
export { applyEdit, editsFor, emptyContent, isReadOnlyField, renderContent } from "./content.js";
export { MemoryError } from "./errors.js";
export { MemoryStore } from "./memory-store.js";
export type { BlockFilter, MemoryStoreOptions } from "./memory-store.js";
export { consentPartyFor, consentReason, describePermission, permits } from "./permissions.js";
export type { ChangeKind, ConsentParty } from "./permissions.js";
export { blocksInContext, DEFAULT_MEMORY_BUDGET_CHARS, memoryContext, renderMemoryBlocks, renderNotifications } from "./render.js";
export type { MemoryContextOptions, RenderMemoryOptions } from "./render.js";
export { SqliteStore } from "./sqlite-store.js";
export {
  BLOCK_TYPES,
  MEMORY_PERMISSIONS,
  blockSchemaSchema,
  blockTypeSchema,
  jsonValueSchema,
  memoryPermissionSchema,
} from "./types.js";
export type {
  ArchivalEntry,
  ArchivalSearchResult,
  Block,
  BlockContent,
  BlockEdit,
  BlockSchema,
  BlockType,
  CompositeField,
  JsonValue,
  MemoryPermission,
  NewBlock,
} from "./types.js";
