import type { RiskLevel } from "../tools/types.js";
import { higherRisk } from "./permissions.js";

/** The risk levels a guard or policy sets over the tools' own (a policy's `tools.X.risk`, `tools.X.operations`, `lowerRisk`). */
interface RiskOverrides {
  readonly toolRisk: Readonly<Record<string, RiskLevel>>;
  readonly operationRisk: Readonly<Record<string, Readonly<Record<string, RiskLevel>>>>;
  readonly lowerRisk: ReadonlySet<string> | readonly string[];
}

/**
 * The risk someone declared for a call, before `defaultRisk`: the policy's per-operation risk, else
 * the higher of the policy's per-tool risk and the tool's own (`own`: per operation, else per tool;
 * the policy's alone with lowerRisk); undefined when nobody did. The guard decides with it, and
 * `policy replay` re-decides recorded calls with it under another policy.
 */
export function overriddenRisk(risks: RiskOverrides, name: string, operation: string | undefined, own: RiskLevel | undefined): RiskLevel | undefined {
  const policyOp = operation !== undefined ? risks.operationRisk[name]?.[operation] : undefined;
  if (policyOp !== undefined) return policyOp;
  const policy = Object.hasOwn(risks.toolRisk, name) ? risks.toolRisk[name] : undefined;
  if (policy === undefined) return own;
  // A policy may raise a tool's risk; lowering it needs lowerRisk (policy check refuses it otherwise).
  const lower = Array.isArray(risks.lowerRisk) ? risks.lowerRisk.includes(name) : (risks.lowerRisk as ReadonlySet<string>).has(name);
  if (own === undefined || lower) return policy;
  return higherRisk(policy, own);
}
