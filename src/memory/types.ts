import { z } from "zod";

/**
 * Who may change a block (strictest first). `partner` and `human` allow every edit, but only with the
 * consent of that party: the tools report it through `requiresApproval` and the guard asks.
 */
export const MEMORY_PERMISSIONS = ["read-only", "partner", "human", "append", "read-write", "admin"] as const;
export type MemoryPermission = (typeof MEMORY_PERMISSIONS)[number];
const memoryPermissionSchema = z.enum(MEMORY_PERMISSIONS);

/** Core: always in context. Working: in context until archived. Archival: stored, shown only when loaded. */
const BLOCK_TYPES = ["core", "working", "archival"] as const;
export type BlockType = (typeof BLOCK_TYPES)[number];
const blockTypeSchema = z.enum(BLOCK_TYPES);

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export const jsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(jsonValueSchema), z.record(z.string(), jsonValueSchema)]),
);

const FIELD_KINDS = ["text", "list", "map"] as const;

const compositeFieldSchema = z.object({
  name: z.string().min(1),
  kind: z.enum(FIELD_KINDS),
  readOnly: z.boolean().optional(),
  description: z.string().optional(),
});
export type CompositeField = z.infer<typeof compositeFieldSchema>;

/** Text: a string. List: string items. Map: free keys (some may be read-only). Composite: declared fields. */
const blockSchemaSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("text") }),
  z.object({ kind: z.literal("list") }),
  z.object({ kind: z.literal("map"), readOnlyKeys: z.array(z.string()).optional() }),
  z.object({ kind: z.literal("composite"), fields: z.array(compositeFieldSchema).min(1) }),
]);
export type BlockSchema = z.infer<typeof blockSchemaSchema>;

const blockContentSchema = z.union([
  z.string(),
  z.array(z.string()),
  z.record(z.string(), jsonValueSchema),
]);
export type BlockContent = string | string[] | Record<string, JsonValue>;

/** A block as stored (the value of one BaseStore item). Dates are epoch ms so every backend round-trips them. */
export const blockRecordSchema = z.object({
  label: z.string().min(1),
  description: z.string().optional(),
  schema: blockSchemaSchema,
  type: blockTypeSchema,
  pinned: z.boolean(),
  permission: memoryPermissionSchema,
  metadata: z.record(z.string(), jsonValueSchema),
  content: blockContentSchema,
  createdAt: z.number(),
  updatedAt: z.number(),
  version: z.number().int().nonnegative(),
});
export type Block = z.infer<typeof blockRecordSchema>;

export const newBlockSchema = z.object({
  label: z.string().min(1).max(512),
  description: z.string().optional(),
  schema: blockSchemaSchema.default({ kind: "text" }),
  type: blockTypeSchema.default("working"),
  pinned: z.boolean().default(false),
  permission: memoryPermissionSchema.default("read-write"),
  metadata: z.record(z.string(), jsonValueSchema).default({}),
  content: blockContentSchema.optional(),
});
export type NewBlock = z.input<typeof newBlockSchema>;

/** One edit of a block's content. */
export type BlockEdit =
  | { kind: "append"; content: string }
  | { kind: "replace"; old: string; new: string }
  | { kind: "patch"; patch: string }
  | { kind: "set_field"; field: string; value: JsonValue };

export interface ArchivalEntry {
  id: string;
  content: string;
  label: string | undefined;
  metadata: Record<string, JsonValue>;
  /** Epoch ms. */
  createdAt: number;
}

export interface ArchivalSearchResult extends ArchivalEntry {
  /** Higher is more relevant; comparable only within one search. */
  score: number;
}
