import type { RuleValidationIssue, ToolRule } from "../rules/types.js";
import { memoryMessages } from "../messages/memory.js";

/** What a data source needs from the agent's tools (seed 000's `required_tools`): a tool and the operations it must allow. */
export interface RequiredTool {
  /** The source that needs it. */
  source: string;
  tool: string;
  operations: string[];
}

/**
 * Issues for every requirement the agent's tools and rules cannot meet: the tool is not registered,
 * it does not declare a needed operation, or AllowedOperations rules on it (they intersect) leave a
 * needed operation out. Used by `validateRules(rules, catalog, { required })`.
 */
export function checkRequiredTools(
  rules: readonly ToolRule[],
  catalog: ReadonlyMap<string, readonly string[]> | undefined,
  required: readonly RequiredTool[],
): RuleValidationIssue[] {
  const issues: RuleValidationIssue[] = [];
  for (const need of required) {
    const id = `source:${need.source}:requires:${need.tool}`;
    const declared = catalog?.get(need.tool);
    if (catalog && declared === undefined) {
      issues.push({
        severity: "error",
        code: "missing-required-tool",
        message: memoryMessages.missingRequiredTool(need.source, need.tool, need.operations, [...catalog.keys()]),
        ruleIds: [id],
      });
      continue;
    }
    const undeclared = declared && declared.length > 0 ? need.operations.filter((op) => !declared.includes(op)) : [];
    if (undeclared.length > 0) {
      issues.push({
        severity: "error",
        code: "missing-required-operation",
        message: memoryMessages.undeclaredRequiredOperation(need.source, need.tool, undeclared, declared ?? []),
        ruleIds: [id],
      });
    }
    for (const rule of rules) {
      if (rule.type !== "AllowedOperations" || rule.tool !== need.tool) continue;
      const missing = need.operations.filter((op) => !rule.operations.includes(op));
      if (missing.length === 0) continue;
      issues.push({
        severity: "error",
        code: "required-operation-not-allowed",
        message: memoryMessages.requiredOperationNotAllowed(need.source, need.tool, need.operations, rule.id ?? `AllowedOperations:${rule.tool}`, rule.operations, missing),
        ruleIds: [id, ...(rule.id ? [rule.id] : [])],
      });
    }
  }
  return issues;
}
