import { randomUUID } from "node:crypto";
import { z } from "zod";
import { jsonValueSchema, type ArchivalEntry, type ArchivalSearchResult, type JsonValue } from "./types.js";

export interface ArchivalInsert {
  content: string;
  label?: string | undefined;
  metadata?: Record<string, JsonValue> | undefined;
}

export interface ArchivalSearchOptions {
  /** Default 10, at most 100. */
  limit?: number | undefined;
}

/**
 * Immutable archival entries with ranked full-text search, one collection per namespace.
 * There is deliberately no update or delete.
 */
export interface ArchivalIndex {
  insert(namespace: readonly string[], entry: ArchivalInsert): Promise<ArchivalEntry>;
  /** Entries matching any term of `query`, most relevant first. */
  search(namespace: readonly string[], query: string, options?: ArchivalSearchOptions): Promise<ArchivalSearchResult[]>;
  get(namespace: readonly string[], id: string): Promise<ArchivalEntry | undefined>;
  count(namespace: readonly string[]): Promise<number>;
  /** Releases connections the index owns. */
  close(): Promise<void>;
}

const archivalInsertSchema = z.object({
  content: z.string().min(1, "archival content is empty").max(100_000),
  label: z.string().max(512).optional(),
  metadata: z.record(z.string(), jsonValueSchema).optional(),
});

export const MAX_SEARCH_LIMIT = 100;

export function searchLimit(options?: ArchivalSearchOptions): number {
  const limit = options?.limit ?? 10;
  return Math.max(1, Math.min(MAX_SEARCH_LIMIT, Math.floor(limit)));
}

/** A validated entry with a fresh id and timestamp. */
export function newArchivalEntry(input: ArchivalInsert): ArchivalEntry {
  const parsed = archivalInsertSchema.parse(input);
  return {
    id: randomUUID(),
    content: parsed.content,
    label: parsed.label,
    metadata: parsed.metadata ?? {},
    createdAt: Date.now(),
  };
}

export function namespaceKey(namespace: readonly string[]): string {
  return namespace.join("\u001f");
}

/** Lower-cased word tokens (letters and digits of any script), the unit every backend's query is built from. */
export function tokenize(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}
