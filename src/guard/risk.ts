import type { PermissionMode, PolicyDecision } from "../policy/types.js";
import type { RiskLevel } from "../tools/types.js";
import { noRuleDecision } from "../policy/defaults.js";

export { DEFAULT_RISK_MODES } from "../policy/defaults.js";

/**
 * The decision when no permission rule applies and the risk is known: the risk category decides (seed 003).
 * Guards decide through `noRuleDecision`, which also covers a tool whose risk nobody declared (it asks).
 */
export function riskDecision(risk: RiskLevel, modes?: Partial<Record<RiskLevel, PermissionMode>>, tool = "the tool"): PolicyDecision {
  return noRuleDecision(tool, risk, modes);
}
