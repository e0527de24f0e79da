import type { BaseStore, LangGraphRunnableConfig } from "@langchain/langgraph";
import type { ArchivalIndex, ArchivalInsert, ArchivalSearchOptions } from "./archival.js";
import { applyEdit, assertContentMatches, emptyContent } from "./content.js";
import { MemoryError } from "./errors.js";
import { assertPermits, changeKindOf, consentReason } from "./permissions.js";
import {
  blockRecordSchema,
  newBlockSchema,
  type ArchivalEntry,
  type ArchivalSearchResult,
  type Block,
  type BlockEdit,
  type BlockType,
  type JsonValue,
  type NewBlock,
} from "./types.js";
import { ErrorCode, GuardedGraphError } from "../errors/index.js";

export interface MemoryStoreOptions {
  /** Namespace of this agent's memory, e.g. ["memory", agentId]. Blocks live under [...namespace, "blocks"]. */
  namespace: readonly string[];
  /** Ranked full-text index for archival entries. Without one, `insertArchival`/`searchArchival` refuse. */
  archival?: ArchivalIndex | undefined;
}

export interface BlockFilter {
  type?: BlockType;
  pinned?: boolean;
}

/**
 * Memory blocks and archival entries of one agent, on any LangGraph BaseStore (InMemoryStore,
 * SqliteStore, PostgresStore, or the store LangGraph Platform injects into the runnable config).
 */
export class MemoryStore {
  readonly store: BaseStore;
  readonly namespace: readonly string[];
  readonly archival: ArchivalIndex | undefined;
  readonly #blocks: string[];

  constructor(store: BaseStore, options: MemoryStoreOptions) {
    if (options.namespace.length === 0) throw new GuardedGraphError(ErrorCode.MEMORY_CONFIG, "MemoryStore: namespace must not be empty");
    this.store = store;
    this.namespace = [...options.namespace];
    this.archival = options.archival;
    this.#blocks = [...options.namespace, "blocks"];
  }

  /** A MemoryStore on the store LangGraph passes in the runnable config (LangGraph Platform, `compile({ store })`). */
  static fromConfig(config: LangGraphRunnableConfig | undefined, options: MemoryStoreOptions): MemoryStore {
    const store = config?.store;
    if (!store) {
      throw new GuardedGraphError(ErrorCode.MEMORY_CONFIG, "MemoryStore.fromConfig: the runnable config has no store; compile the graph with { store } or run it on LangGraph Platform");
    }
    return new MemoryStore(store, options);
  }

  async getBlock(label: string): Promise<Block | undefined> {
    const item = await this.store.get(this.#blocks, label);
    return item ? blockRecordSchema.parse(item.value) : undefined;
  }

  async requireBlock(label: string): Promise<Block> {
    const block = await this.getBlock(label);
    if (!block) throw new MemoryError(`no block labelled "${label}"; list blocks with block info or load one first`, "block:not-found");
    return block;
  }

  async listBlocks(filter: BlockFilter = {}): Promise<Block[]> {
    const out: Block[] = [];
    for (let offset = 0; ; offset += 100) {
      const page = await this.store.search(this.#blocks, { limit: 100, offset });
      for (const item of page) {
        const block = blockRecordSchema.parse(item.value);
        if (filter.type !== undefined && block.type !== filter.type) continue;
        if (filter.pinned !== undefined && block.pinned !== filter.pinned) continue;
        out.push(block);
      }
      if (page.length < 100) break;
    }
    return out.sort((a, b) => a.label.localeCompare(b.label));
  }

  /** Creates a block; refuses when the label is taken. */
  async createBlock(input: NewBlock): Promise<Block> {
    const parsed = newBlockSchema.parse(input);
    if (await this.getBlock(parsed.label)) {
      throw new MemoryError(`a block labelled "${parsed.label}" already exists`, "block:exists");
    }
    return this.#write(this.#fresh(parsed));
  }

  /** Creates the block, or replaces the content and settings of an existing one (used by sources that own their blocks). */
  async putBlock(input: NewBlock): Promise<Block> {
    const parsed = newBlockSchema.parse(input);
    const existing = await this.getBlock(parsed.label);
    const fresh = this.#fresh(parsed);
    if (!existing) return this.#write(fresh);
    return this.#write({ ...fresh, createdAt: existing.createdAt, version: existing.version + 1, pinned: input.pinned ?? existing.pinned });
  }

  #fresh(parsed: ReturnType<typeof newBlockSchema.parse>): Block {
    const content = parsed.content ?? emptyContent(parsed.schema);
    assertContentMatches(parsed.label, parsed.schema, content);
    const now = Date.now();
    return { ...parsed, content, createdAt: now, updatedAt: now, version: 0 };
  }

  async deleteBlock(label: string): Promise<void> {
    await this.store.delete(this.#blocks, label);
  }

  /** Applies an edit after checking schema, read-only fields and permission. Consent was obtained by the guard. */
  async editBlock(label: string, edit: BlockEdit, operation: string = edit.kind): Promise<Block> {
    const block = await this.requireBlock(label);
    assertPermits(block, changeKindOf(edit), operation);
    return this.#write({ ...block, content: applyEdit(block, edit), updatedAt: Date.now(), version: block.version + 1 });
  }

  /** The approval reason for an edit (human / partner permission), or undefined. Reads only. */
  async editConsent(label: string, edit: Pick<BlockEdit, "kind">, operation: string = edit.kind): Promise<string | undefined> {
    const block = await this.getBlock(label);
    return block ? consentReason(block, edit.kind === "append" ? "append" : "write", operation) : undefined;
  }

  async setPinned(label: string, pinned: boolean): Promise<Block> {
    const block = await this.requireBlock(label);
    return this.#write({ ...block, pinned, updatedAt: Date.now(), version: block.version + 1 });
  }

  async setType(label: string, type: BlockType): Promise<Block> {
    const block = await this.requireBlock(label);
    return this.#write({ ...block, type, updatedAt: Date.now(), version: block.version + 1 });
  }

  async setMetadata(label: string, metadata: Record<string, JsonValue>): Promise<Block> {
    const block = await this.requireBlock(label);
    return this.#write({ ...block, metadata: { ...block.metadata, ...metadata }, updatedAt: Date.now(), version: block.version + 1 });
  }

  async #write(block: Block): Promise<Block> {
    const checked = blockRecordSchema.parse(block);
    await this.store.put(this.#blocks, checked.label, checked, false);
    return checked;
  }

  #requireArchival(): ArchivalIndex {
    if (!this.archival) {
      throw new MemoryError("archival memory is not configured for this agent (no ArchivalIndex)", "archival:not-configured");
    }
    return this.archival;
  }

  async insertArchival(entry: ArchivalInsert): Promise<ArchivalEntry> {
    return this.#requireArchival().insert(this.namespace, entry);
  }

  async searchArchival(query: string, options?: ArchivalSearchOptions): Promise<ArchivalSearchResult[]> {
    return this.#requireArchival().search(this.namespace, query, options);
  }

  async getArchival(id: string): Promise<ArchivalEntry | undefined> {
    return this.#requireArchival().get(this.namespace, id);
  }
}
