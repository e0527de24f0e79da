import { z } from "zod";
import { InMemoryArchivalIndex } from "../memory/archival-memory.js";
import { MAX_SEARCH_LIMIT } from "../memory/archival.js";
import { MemoryError } from "../memory/errors.js";
import { defineTool } from "../tools/define-tool.js";
import { resolveMemory, type MemoryProvider } from "./context.js";

interface ConversationMessage {
  id: string;
  role: "user" | "assistant" | "tool" | "system";
  content: string;
  /** Epoch ms. */
  at: number;
  threadId?: string | undefined;
}

interface ConversationQuery {
  limit: number;
  role?: ConversationMessage["role"] | undefined;
  start?: number | undefined;
  end?: number | undefined;
}

/** Full-text search over conversation history, however it is stored. */
export interface ConversationSearch {
  search(query: string, options: ConversationQuery): Promise<(ConversationMessage & { score: number })[]>;
}

/** Conversation history in process memory, indexed as it is added (BM25, like archival memory). */
export class InMemoryConversationLog implements ConversationSearch {
  readonly #index = new InMemoryArchivalIndex();
  readonly #messages = new Map<string, ConversationMessage>();
  readonly #byEntry = new Map<string, string>();

  async add(message: ConversationMessage): Promise<void> {
    const entry = await this.#index.insert(["conversations"], { content: message.content });
    this.#messages.set(message.id, { ...message });
    this.#byEntry.set(entry.id, message.id);
  }

  async search(query: string, options: ConversationQuery): Promise<(ConversationMessage & { score: number })[]> {
    const hits = await this.#index.search(["conversations"], query, { limit: MAX_SEARCH_LIMIT });
    const out: (ConversationMessage & { score: number })[] = [];
    for (const hit of hits) {
      const message = this.#messages.get(this.#byEntry.get(hit.id) ?? "");
      if (!message || !matches(message, options)) continue;
      out.push({ ...message, score: hit.score });
      if (out.length >= options.limit) break;
    }
    return out;
  }
}

function matches(message: ConversationMessage, q: ConversationQuery): boolean {
  return (q.role === undefined || message.role === q.role) && (q.start === undefined || message.at >= q.start) && (q.end === undefined || message.at <= q.end);
}

const isoTime = z.iso.datetime({ offset: true }).describe("ISO 8601 time, e.g. 2025-01-31T12:00:00Z");

const searchInputSchema = z.object({
  domain: z.enum(["archival_memory", "conversations", "all"]).describe("What to search"),
  query: z.string().min(1),
  limit: z.number().int().min(1).max(MAX_SEARCH_LIMIT).optional().describe("Most results per domain (default 10)"),
  filters: z
    .object({
      role: z.enum(["user", "assistant", "tool", "system"]).optional().describe("Conversations: only this role"),
      start_time: isoTime.optional(),
      end_time: isoTime.optional(),
      label: z.string().optional().describe("Archival memory: only entries with this label"),
    })
    .optional(),
});

const SEARCH_USAGE_RULE =
  "search (superseded by recall search) finds archival memory entries, past conversation messages, or both, ranked by relevance; narrow with limit and filters. The conversation continues after it.";

/** The `search` tool, superseded by `recall` search and kept for existing agents: search archival memory, past conversations, or both. */
export function createSearchTool(options: { memory: MemoryProvider; conversations?: ConversationSearch }) {
  return defineTool({
    name: "search",
    description: "Superseded by recall search (kept for existing agents). Search archival memory, conversations, or all.",
    schema: searchInputSchema,
    usageRule: SEARCH_USAGE_RULE,
    risk: "low",
    isConcurrencySafe: () => true,
    execute: async (input, context) => {
      const limit = input.limit ?? 10;
      const start = input.filters?.start_time ? Date.parse(input.filters.start_time) : undefined;
      const end = input.filters?.end_time ? Date.parse(input.filters.end_time) : undefined;
      const result: { archival_memory?: unknown[]; conversations?: unknown[] } = {};
      if (input.domain !== "conversations") {
        const memory = resolveMemory(options.memory, context.config);
        // Over-fetch, then filter: the index ranks, the filters only narrow.
        const hits = await memory.searchArchival(input.query, { limit: MAX_SEARCH_LIMIT });
        result.archival_memory = hits
          .filter((h) => (start === undefined || h.createdAt >= start) && (end === undefined || h.createdAt <= end))
          .filter((h) => input.filters?.label === undefined || h.label === input.filters.label)
          .slice(0, limit)
          .map((h) => ({ id: h.id, label: h.label, content: h.content, createdAt: new Date(h.createdAt).toISOString(), score: Number(h.score.toFixed(4)) }));
      }
      if (input.domain !== "archival_memory") {
        if (!options.conversations) {
          if (input.domain === "conversations") {
            throw new MemoryError("search refused: no conversation history is configured; search archival_memory instead", "search:no-conversations");
          }
        } else {
          const hits = await options.conversations.search(input.query, { limit, role: input.filters?.role, start, end });
          result.conversations = hits.map((h) => ({ ...h, at: new Date(h.at).toISOString(), score: Number(h.score.toFixed(4)) }));
        }
      }
      return result;
    },
  });
}
