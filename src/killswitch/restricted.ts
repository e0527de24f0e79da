import type { RiskLevel } from "../tools/types.js";
import type { KillswitchDecision } from "./compiled-policy.js";
import type { RestrictMode } from "./types.js";

export type RestrictedDecisions = Readonly<Record<RiskLevel, KillswitchDecision | null>>;

/** The decisions of restricted mode, one per risk level, built once per restriction reason. */
export function restrictedDecisions(reason: string, mode: RestrictMode): RestrictedDecisions {
  const build = (risk: RiskLevel): KillswitchDecision | null => {
    if (risk === "low") return null;
    return Object.freeze(
      mode === "deny-risky"
        ? {
            mode: "deny",
            ruleId: "killswitch:restricted",
            reason: `killswitch restricted: ${reason}; while restricted (deny-risky) ${risk}-risk tools are denied, only low-risk tools may run`,
          }
        : {
            mode: "ask",
            ruleId: "killswitch:restricted",
            reason: `killswitch restricted: ${reason}; while restricted (ask-non-low) every ${risk}-risk call needs human approval, low-risk tools run as usual`,
          },
    );
  };
  return Object.freeze({
    low: build("low"),
    medium: build("medium"),
    high: build("high"),
    "always-deny": build("always-deny"),
  });
}
