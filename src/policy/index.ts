export type * from "./types.js";
export {
  canonicalArgs,
  canonicalArgsFolded,
  canonicalize,
  MAX_MATCH_INPUT_CHARS,
  selectField,
} from "./canonical.js";
export { compileSafeRegex } from "./regex.js";
export { PolicyError } from "./errors.js";
export { PermissionPolicy } from "./permissions.js";
export type { PermissionRule } from "./permissions.js";
export { loadClaudeSettings, loadPolicyFile, parseClaudeSettingsLayers, parsePolicy, permissionPolicy } from "./file.js";
export type { ClaudeSettingsFiles, LoadedPolicy } from "./file.js";
export type { ClaudeSettingsLayer, ClaudeSettingsPlace, ClaudeSettingsScope } from "./claude-settings.js";
export { policyJsonSchemaText } from "./json-schema.js";
export { checkPolicy, planPolicy } from "./check.js";
