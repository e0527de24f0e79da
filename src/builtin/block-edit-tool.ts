import { z } from "zod";
import { jsonValueSchema, type BlockEdit } from "../memory/types.js";
import { defineTool } from "../tools/define-tool.js";
import { renderContent } from "../memory/content.js";
import { resolveMemory, type MemoryProvider } from "./context.js";

const label = z.string().min(1).describe("Label of the block to edit");

const blockEditInputSchema = z.discriminatedUnion("op", [
  z
    .object({ op: z.literal("append"), label, content: z.string().min(1).describe("Text (Text block) or item (List block) to add") })
    .describe("Append to a Text or List block"),
  z
    .object({
      op: z.literal("replace"),
      label,
      old: z.string().min(1).describe("Exact text to replace; must occur once"),
      new: z.string().describe("Replacement text"),
    })
    .describe("Replace text in a Text block"),
  z
    .object({ op: z.literal("patch"), label, patch: z.string().min(1).describe("Unified diff against the block's current content") })
    .describe("Apply a unified diff to a Text block"),
  z
    .object({
      op: z.literal("set_field"),
      label,
      field: z.string().min(1).describe("Field or key to set"),
      value: z.unknown().describe("New JSON value of the field"),
    })
    .describe("Set a field of a Map or Composite block (read_only fields refuse)"),
]);
type BlockEditInput = z.infer<typeof blockEditInputSchema>;

const BLOCK_EDIT_USAGE_RULE =
  "block_edit changes block content: append (Text, List), replace (Text, exact unique match), patch (Text, unified diff), set_field (Map, Composite; read_only fields refuse). Edits of human/partner blocks wait for consent. The conversation continues after it.";

/** The store edit an input describes; `value` is checked to be JSON here, where the data enters. */
function editOf(input: BlockEditInput): BlockEdit {
  switch (input.op) {
    case "append":
      return { kind: "append", content: input.content };
    case "replace":
      return { kind: "replace", old: input.old, new: input.new };
    case "patch":
      return { kind: "patch", patch: input.patch };
    case "set_field":
      return { kind: "set_field", field: input.field, value: jsonValueSchema.parse(input.value ?? null) };
  }
}

/** The `block_edit` tool: edit a memory block's content (append, replace, patch with a unified diff, set a field), within the block's permission. */
export function createBlockEditTool(options: { memory: MemoryProvider }) {
  return defineTool({
    name: "block_edit",
    description: "Edit block content: append, replace, patch (unified diff), set_field.",
    schema: blockEditInputSchema,
    usageRule: BLOCK_EDIT_USAGE_RULE,
    risk: "low",
    requiresApproval: (input, config) =>
      resolveMemory(options.memory, config).editConsent(input.label, { kind: input.op }, `block_edit ${input.op}`),
    execute: async (input, context) => {
      const memory = resolveMemory(options.memory, context.config);
      const block = await memory.editBlock(input.label, editOf(input), `block_edit ${input.op}`);
      return { label: block.label, op: input.op, version: block.version, content: renderContent(block.content) };
    },
  });
}
