import type { RiskLevel } from "../tools/types.js";
import type { PermissionMode, PolicyDecision } from "./types.js";
import { riskDefaultReason, undeclaredRiskReason } from "../messages/index.js";

/** What each risk level decides when no permission rule matches; a policy's `riskModes` changes it. */
export const DEFAULT_RISK_MODES: Readonly<Record<RiskLevel, PermissionMode>> = {
  low: "allow",
  medium: "allow",
  high: "ask",
  "always-deny": "deny",
};

/** The rule id of the fail-closed default: no rule matched and nobody declared the tool's risk. */
const DEFAULT_ASK_RULE_ID = "default:ask";

/**
 * The one decision when no permission rule applies, for every entry point (with or without a policy):
 * the declared risk's mode decides; a tool whose risk nobody declared (the tool, the policy's
 * `tools.X.risk`, `defaultRisk` of the policy or of the guard's options) asks: a call no rule decides waits for a person.
 */
export function noRuleDecision(tool: string, risk: RiskLevel | undefined, modes?: Partial<Record<RiskLevel, PermissionMode>>): PolicyDecision {
  if (risk === undefined) return { mode: "ask", ruleId: DEFAULT_ASK_RULE_ID, reason: undeclaredRiskReason(tool), risk: "medium" };
  const mode = modes?.[risk] ?? DEFAULT_RISK_MODES[risk];
  return { mode, ruleId: `risk:${risk}`, reason: riskDefaultReason(tool, risk, mode), risk };
}
