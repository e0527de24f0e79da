export { defineTool } from "./define-tool.js";
export { guardSpecOf, schemaFor, strictSchemaFor, ToolRegistry } from "./registry.js";
export type { ToolDefinition } from "./registry.js";
export { toToolJsonSchema } from "./schema.js";
export type { AnyTool } from "./types.js";
