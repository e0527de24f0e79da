import { createHash } from "node:crypto";
import type { AuditRecord } from "../audit/types.js";
import type { KillswitchSnapshot, KillswitchStatus } from "./types.js";

/** One change of the killswitch state: status, restriction reason, or the policy itself. */
export interface KillswitchTransition {
  /** Epoch ms (the killswitch's clock). */
  at: number;
  url: string;
  from: { status: KillswitchStatus; reason: string | undefined };
  to: KillswitchSnapshot;
}

/** The audit record of a transition. Its id is a hash of what changed, so a re-write is a no-op. */
export function transitionRecord(transition: KillswitchTransition): AuditRecord {
  const { to } = transition;
  const policyJson = JSON.stringify(to.policy ?? null);
  const id = createHash("sha256")
    .update([transition.url, transition.at, to.status, to.reason ?? "", policyJson].join("\n"))
    .digest("hex");
  return {
    id: `killswitch:${id}`,
    at: transition.at,
    threadId: "*",
    runId: "*",
    toolCallId: "*",
    tool: "*",
    args: "{}",
    event: "killswitch",
    decision: to.status,
    ruleId: to.status === "ok" ? "killswitch:ok" : "killswitch:restricted",
    reason: to.reason ?? `remote policy from ${transition.url} applied`,
    detail: {
      url: transition.url,
      from: transition.from,
      restrictMode: to.restrictMode,
      policy: to.policy ?? null,
      fetchedAt: to.fetchedAt ?? null,
    },
  };
}
