export { defineTool, executionContextFrom, idempotencyKeyFor, isGuardedTool } from "./define-tool.js";
export type { DefineToolOptions } from "./define-tool.js";
export { guardSpecOf, schemaFor, strictSchemaFor, ToolRegistry } from "./registry.js";
export type { ToolAllowance, ToolDefinition } from "./registry.js";
export { filterSchemaOperations, flattenOperationUnion, operationsInSchema, toStrictToolSchema, toToolJsonSchema } from "./schema.js";
export type { FieldOperations, FlatZod, StrictSchemaResult } from "./schema.js";
export type { AnyTool, GuardedTool, JsonSchema, RiskLevel, ToolExecutionContext, ToolGuardSpec } from "./types.js";
