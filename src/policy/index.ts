export type * from "./types.js";
export {
  canonicalArgs,
  canonicalArgsFolded,
  canonicalize,
  foldCase,
  MAX_MATCH_DEPTH,
  MAX_MATCH_INPUT_CHARS,
  normalizeString,
  parseSelector,
  selectField,
} from "./canonical.js";
export type { CanonicalArgs, SelectorSegment } from "./canonical.js";
export { compileSafeRegex, PolicyRegexError } from "./regex.js";
export type { SafeRegex } from "./regex.js";
export { PolicyError } from "./errors.js";
export { parsePermissionRules, PermissionPolicy } from "./permissions.js";
export type { PermissionPolicyOptions, PermissionRule } from "./permissions.js";
export { loadPolicyFile, parsePolicy, permissionPolicy } from "./file.js";
export type { LoadedPolicy, PolicyFormat } from "./file.js";
export {
  AuditConfigSchema,
  DurationSchema,
  ExecutionConfigSchema,
  FieldMatcherSchema,
  PermissionRuleSchema,
  PolicyFileSchema,
  ToolRuleEntrySchema,
} from "./schema.js";
export type { AuditConfig, ExecutionConfig, PolicyFile, PolicyFileInput } from "./schema.js";
export { durationToMs, toToolRule } from "./tool-rules.js";
export { policyJsonSchema, policyJsonSchemaText, POLICY_SCHEMA_PATH } from "./json-schema.js";
export { checkPolicy, planPolicy } from "./check.js";
export type { PolicyCheckResult, ToolCatalog } from "./check.js";
