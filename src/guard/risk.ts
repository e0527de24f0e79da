import type { PermissionMode, PolicyDecision } from "../policy/types.js";
import type { RiskLevel } from "../tools/types.js";

const DEFAULT_RISK_MODES: Readonly<Record<RiskLevel, PermissionMode>> = {
  low: "allow",
  medium: "allow",
  high: "ask",
  "always-deny": "deny",
};

/** The decision when no permission rule applies: the tool's risk category decides (seed 003). */
export function riskDecision(risk: RiskLevel, modes?: Partial<Record<RiskLevel, PermissionMode>>): PolicyDecision {
  const mode = modes?.[risk] ?? DEFAULT_RISK_MODES[risk];
  return { mode, ruleId: `risk:${risk}`, reason: `${risk} risk tool: ${mode} by default`, risk };
}
