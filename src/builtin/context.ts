import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { renderContent } from "../memory/content.js";
import type { MemoryStore } from "../memory/memory-store.js";
import { describePermission } from "../memory/permissions.js";
import type { Block } from "../memory/types.js";

/**
 * Where a tool finds the agent's memory: a fixed MemoryStore, or a function of the runnable config
 * (e.g. `(config) => MemoryStore.fromConfig(config, { namespace: ["memory", agentId] })` on LangGraph Platform).
 */
export type MemoryProvider = MemoryStore | ((config: LangGraphRunnableConfig | undefined) => MemoryStore);

export function resolveMemory(provider: MemoryProvider, config: LangGraphRunnableConfig | undefined): MemoryStore {
  return typeof provider === "function" ? provider(config) : provider;
}

/** What `block info` shows: everything but the content. */
export function blockInfo(block: Block) {
  return {
    label: block.label,
    description: block.description,
    schema: block.schema,
    type: block.type,
    pinned: block.pinned,
    permission: block.permission,
    permissionMeans: describePermission(block.permission),
    size: renderContent(block.content).length,
    metadata: block.metadata,
    updatedAt: new Date(block.updatedAt).toISOString(),
    version: block.version,
  };
}

/** A block as the model sees it when loaded. */
export function blockView(block: Block) {
  return { label: block.label, type: block.type, permission: block.permission, pinned: block.pinned, content: renderContent(block.content) };
}
