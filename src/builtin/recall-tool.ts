import { z } from "zod";
import { defineTool } from "../tools/define-tool.js";
import { jsonValueSchema } from "../memory/types.js";
import { MAX_SEARCH_LIMIT } from "../memory/archival.js";
import { resolveMemory, type MemoryProvider } from "./context.js";

const recallInputSchema = z.discriminatedUnion("op", [
  z
    .object({
      op: z.literal("insert"),
      content: z.string().min(1).max(100_000).describe("Text to remember; entries are immutable"),
      label: z.string().max(512).optional().describe("Optional short title"),
      metadata: z.record(z.string(), z.unknown()).optional().describe("Optional JSON metadata"),
    })
    .describe("Store a new immutable archival entry"),
  z
    .object({
      op: z.literal("search"),
      query: z.string().min(1).describe("Words to search for"),
      limit: z.number().int().min(1).max(MAX_SEARCH_LIMIT).optional().describe("Most results to return (default 10)"),
    })
    .describe("Full-text search of archival entries, most relevant first"),
]);

const RECALL_USAGE_RULE =
  "recall stores immutable archival entries (insert) and finds them by full-text search ranked by relevance (search). Entries cannot be changed or deleted. The conversation continues after it.";

/** The `recall` tool: insert an immutable archival memory entry, or search entries by relevance. */
export function createRecallTool(options: { memory: MemoryProvider }) {
  return defineTool({
    name: "recall",
    description: "Archival memory: insert an immutable entry, or search entries by relevance.",
    schema: recallInputSchema,
    usageRule: RECALL_USAGE_RULE,
    risk: "low",
    isConcurrencySafe: (input) => input.op === "search",
    execute: async (input, context) => {
      const memory = resolveMemory(options.memory, context.config);
      if (input.op === "insert") {
        const metadata = input.metadata === undefined ? undefined : z.record(z.string(), jsonValueSchema).parse(input.metadata);
        const entry = await memory.insertArchival({ content: input.content, label: input.label, metadata });
        return { inserted: entry.id, createdAt: new Date(entry.createdAt).toISOString() };
      }
      const results = await memory.searchArchival(input.query, { limit: input.limit });
      return results.map((r) => ({
        id: r.id,
        label: r.label,
        content: r.content,
        metadata: r.metadata,
        createdAt: new Date(r.createdAt).toISOString(),
        score: Number(r.score.toFixed(4)),
      }));
    },
  });
}
