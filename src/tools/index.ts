export { defineTool, executionContextFrom, idempotencyKeyFor, isGuardedTool } from "./define-tool.js";
export type { DefineToolOptions } from "./define-tool.js";
export { guardSpecOf, schemaFor, ToolRegistry } from "./registry.js";
export type { ToolAllowance, ToolDefinition } from "./registry.js";
export { filterSchemaOperations, operationsInSchema, toToolJsonSchema } from "./schema.js";
export type { AnyTool, GuardedTool, JsonSchema, RiskLevel, ToolExecutionContext, ToolGuardSpec } from "./types.js";
