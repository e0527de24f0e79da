import { z } from "zod";
import { MemoryError } from "../memory/errors.js";
import { consentReason } from "../memory/permissions.js";
import type { SourceManager } from "../sources/source-manager.js";
import { defineTool } from "../tools/define-tool.js";
import { blockInfo, blockView, resolveMemory, type MemoryProvider } from "./context.js";

const label = z.string().min(1).describe("Label of the block");

const blockInputSchema = z.discriminatedUnion("op", [
  z
    .object({
      op: z.literal("load"),
      label: label.describe("Label of the block, or with source_id, what the source should load (e.g. a file path)"),
      source_id: z.string().min(1).optional().describe("Source that owns the block, e.g. a FileSource id"),
    })
    .describe("Load a block into working context"),
  z.object({ op: z.literal("pin"), label }).describe("Keep the block in context across turns"),
  z.object({ op: z.literal("unpin"), label }).describe("Let the block leave context"),
  z.object({ op: z.literal("archive"), label }).describe("Change a Working block to Archival"),
  z.object({ op: z.literal("info"), label }).describe("Show schema, type, permission, size and pinned status"),
]);

const BLOCK_USAGE_RULE =
  "block manages block lifecycle: load a block (or, with source_id, a source's block such as a file) into context, pin/unpin it, archive a Working block, info for its schema and permission. The conversation continues after it.";

/** The `block` tool: load a memory block (or a source's block, such as a file) into context, pin, unpin, archive it, or read its schema. */
export function createBlockTool(options: { memory: MemoryProvider; sources?: SourceManager }) {
  return defineTool({
    name: "block",
    description: "Block lifecycle: load, pin, unpin, archive, info.",
    schema: blockInputSchema,
    usageRule: BLOCK_USAGE_RULE,
    risk: "low",
    operationRisk: { archive: "medium" },
    isConcurrencySafe: (input) => input.op === "info",
    requiresApproval: async (input, config) => {
      if (input.op !== "archive") return undefined;
      const block = await resolveMemory(options.memory, config).getBlock(input.label);
      return block ? consentReason(block, "lifecycle", "block archive") : undefined;
    },
    execute: async (input, context) => {
      const memory = resolveMemory(options.memory, context.config);
      switch (input.op) {
        case "load": {
          if (input.source_id !== undefined) {
            if (!options.sources) throw new MemoryError("block load with source_id: no sources are configured", "source:not-configured");
            const source = options.sources.require(input.source_id);
            if (!source.loadBlock) throw new MemoryError(`source "${input.source_id}" does not load blocks`, "source:no-blocks");
            const { label: loaded } = await source.loadBlock(input.label);
            return blockView(await memory.requireBlock(loaded));
          }
          const block = await memory.requireBlock(input.label);
          return blockView(block.type === "archival" ? await memory.setType(block.label, "working") : block);
        }
        case "pin":
        case "unpin": {
          const block = await memory.setPinned(input.label, input.op === "pin");
          return `block "${block.label}" ${block.pinned ? "pinned: it stays in context" : "unpinned: it may leave context"}`;
        }
        case "archive": {
          const block = await memory.requireBlock(input.label);
          if (block.type !== "working") {
            throw new MemoryError(`block archive refused on "${block.label}": it is ${block.type}; only Working blocks are archived`, "block:not-working");
          }
          if (block.permission === "read-only" || block.permission === "append") {
            throw new MemoryError(
              `block archive refused on "${block.label}": its permission is ${block.permission}; archiving needs read-write, admin, or consent`,
              `permission:${block.permission}`,
            );
          }
          await memory.setType(block.label, "archival");
          return `block "${block.label}" archived (type archival); block load brings it back`;
        }
        case "info":
          return blockInfo(await memory.requireBlock(input.label));
      }
    },
  });
}
