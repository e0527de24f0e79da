// Sentences of the policy file watcher (log lines and the reason of its audit records).

export const policyWatchMessages = {
  applied: (path: string, permissionRules: number, toolRules: number, toolRulesNeedRestart: boolean) =>
    `policy ${path} applied (${permissionRules} permission rules, ${toolRules} tool rules)` +
    (toolRulesNeedRestart ? "; its tool_rules changed and apply after a restart (nothing swaps the tool rules of this watcher)" : ""),
  rejected: (path: string, error: string) => `policy ${path} rejected, the previous policy stays in force: ${error}`,
} as const;
