// "guarded-graph/memory": memory blocks, archival recall, file sources and the built-in tools that
// drive them (the Letta-style memory the memory graph uses).

// Memory store and backends.
export { MemoryStore } from "../memory/memory-store.js";
export type { BlockFilter, MemoryStoreOptions } from "../memory/memory-store.js";
export { inMemoryMemory, openPostgresMemory, openSqliteMemory } from "../memory/backends.js";
export type { MemoryBackend } from "../memory/backends.js";
export { SqliteStore } from "../memory/sqlite-store.js";
export { InMemoryArchivalIndex } from "../memory/archival-memory.js";
export { SqliteArchivalIndex } from "../memory/archival-sqlite.js";
export { PostgresArchivalIndex } from "../memory/archival-postgres.js";
export type { PostgresArchivalOptions } from "../memory/archival-postgres.js";
export type { ArchivalIndex, ArchivalInsert, ArchivalSearchOptions } from "../memory/archival.js";
export type {
  ArchivalEntry,
  ArchivalSearchResult,
  Block,
  BlockContent,
  BlockEdit,
  BlockSchema,
  BlockType,
  JsonValue,
  MemoryPermission,
  NewBlock,
} from "../memory/types.js";
export { MemoryError } from "../memory/errors.js";

// File sources.
export { FileSource } from "../sources/file-source.js";
export type { FileSourceOptions } from "../sources/file-source.js";
export type { FilePermission, FileRule } from "../sources/file-rules.js";
export { SourceManager } from "../sources/source-manager.js";
export type { DataSource, SourceNotification, SourceStatus } from "../sources/types.js";

// Built-in tools.
export { createBuiltinTools, defaultToolRules, renderToolUsageRules } from "../builtin/index.js";
export type { BuiltinToolsOptions } from "../builtin/index.js";
export { createFileTool } from "../sources/file-tool.js";
export type { FileToolSource } from "../sources/file-tool.js";
export { createBlockTool } from "../builtin/block-tool.js";
export { createBlockEditTool } from "../builtin/block-edit-tool.js";
export { createRecallTool } from "../builtin/recall-tool.js";
export { createSourceTool } from "../builtin/source-tool.js";
export { createContextTool } from "../builtin/context-tool.js";
export { createSearchTool, InMemoryConversationLog } from "../builtin/search-tool.js";
export type { ConversationSearch } from "../builtin/search-tool.js";
export { createSendMessageTool, MessageRouter, OutboxChannel } from "../builtin/send-message-tool.js";
export type { MessageChannel } from "../builtin/send-message-tool.js";
export type { MemoryProvider } from "../builtin/context.js";
