export { ToolRulesEngine } from "./engine.js";
export { assertValidRules, validateRules } from "./validate.js";
export { executionPlan } from "./plan.js";
export { DEFAULT_PRIORITIES, rules } from "./builder.js";
export { parseRuleState } from "./schema.js";
export type * from "./types.js";
