import { z } from "zod";
import { MemoryError } from "../memory/errors.js";
import type { MemoryStore } from "../memory/memory-store.js";
import { assertPermits, consentReason } from "../memory/permissions.js";
import { defineTool } from "../tools/define-tool.js";
import { blockView, resolveMemory, type MemoryProvider } from "./context.js";

const label = z.string().min(1).describe("Label of the block");

const contextInputSchema = z.discriminatedUnion("operation", [
  z.object({ operation: z.literal("append"), label, value: z.string().min(1) }).describe("Append to a block"),
  z.object({ operation: z.literal("replace"), label, old: z.string().min(1), new: z.string() }).describe("Replace text in a block"),
  z.object({ operation: z.literal("archive"), label }).describe("Move a Core or Working block to archival"),
  z.object({ operation: z.literal("load_from_archival"), label }).describe("Bring an archived block back as Core"),
  z
    .object({ operation: z.literal("swap"), archive: z.string().min(1), load: z.string().min(1) })
    .describe("Archive one block and load another"),
]);

const CONTEXT_USAGE_RULE =
  "context (superseded by block and block_edit) manages core memory: append or replace block text, archive a block, load_from_archival, swap. The conversation continues after it.";

async function archive(memory: MemoryStore, label: string): Promise<void> {
  const block = await memory.requireBlock(label);
  if (block.type === "archival") throw new MemoryError(`context archive refused on "${label}": it is already archival`, "block:already-archival");
  assertPermits(block, "lifecycle", "context archive");
  await memory.setType(label, "archival");
  await memory.setPinned(label, false);
}

async function loadFromArchival(memory: MemoryStore, label: string) {
  const block = await memory.requireBlock(label);
  if (block.type !== "archival") {
    throw new MemoryError(`context load_from_archival refused on "${label}": it is ${block.type}, not archival`, "block:not-archival");
  }
  return blockView(await memory.setType(label, "core"));
}

/** The `context` tool, superseded by `block` and `block_edit` and kept for existing agents: append, replace, archive, load and swap core memory. */
export function createContextTool(options: { memory: MemoryProvider }) {
  return defineTool({
    name: "context",
    description: "Superseded by block and block_edit (kept for existing agents). Core memory: append, replace, archive, load_from_archival, swap.",
    schema: contextInputSchema,
    usageRule: CONTEXT_USAGE_RULE,
    risk: "low",
    requiresApproval: async (input, config) => {
      const memory = resolveMemory(options.memory, config);
      if (input.operation === "append" || input.operation === "replace") {
        return memory.editConsent(input.label, { kind: input.operation }, `context ${input.operation}`);
      }
      const target = input.operation === "swap" ? input.archive : input.operation === "archive" ? input.label : undefined;
      const block = target === undefined ? undefined : await memory.getBlock(target);
      return block ? consentReason(block, "lifecycle", `context ${input.operation}`) : undefined;
    },
    execute: async (input, context) => {
      const memory = resolveMemory(options.memory, context.config);
      switch (input.operation) {
        case "append":
          return blockView(await memory.editBlock(input.label, { kind: "append", content: input.value }, "context append"));
        case "replace":
          return blockView(await memory.editBlock(input.label, { kind: "replace", old: input.old, new: input.new }, "context replace"));
        case "archive":
          await archive(memory, input.label);
          return `block "${input.label}" archived`;
        case "load_from_archival":
          return loadFromArchival(memory, input.label);
        case "swap": {
          // Check both sides before changing either, so a refused swap changes nothing.
          const incoming = await memory.requireBlock(input.load);
          if (incoming.type !== "archival") {
            throw new MemoryError(`context swap refused: "${input.load}" is ${incoming.type}, not archival`, "block:not-archival");
          }
          const outgoing = await memory.requireBlock(input.archive);
          if (outgoing.type === "archival") throw new MemoryError(`context swap refused: "${input.archive}" is already archival`, "block:already-archival");
          assertPermits(outgoing, "lifecycle", "context swap");
          await archive(memory, input.archive);
          return { archived: input.archive, loaded: await loadFromArchival(memory, input.load) };
        }
      }
    },
  });
}
