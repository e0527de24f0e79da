// Sentences of shadow policies and `policy replay`: what a policy would have decided, what changed,
// and why a recorded call could not be decided again.

/** "would deny by permission:prod: production is protected". */
export function wouldBe(decision: string, ruleId: string, reason: string): string {
  return `would ${decision} by ${ruleId}${reason === "" ? "" : `: ${reason}`}`;
}

/** "allow → ask". */
export function changeLabel(from: string, to: string): string {
  return `${from} → ${to}`;
}

/** Why `policy replay` could not decide a recorded call again (counted under this reason, never guessed). */
export const cannotRedecide = {
  checkpointGone: (threadId: string) => `the checkpoint of thread ${threadId} is gone (its messages are needed by the policy's provenance conditions)`,
  messageGone: (threadId: string) => `the model message that made the call is not in thread ${threadId}'s checkpoint`,
  redacted: (fields: readonly string[]) => `arguments redacted in the audit log (${fields.join(", ")})`,
  unrecordedArgs: "the arguments were too large or deep to record",
  toolUnknown: (tool: string) => `tool ${tool} is unknown (the graph had no such tool when the call was recorded)`,
  noReplayData: "the record has no replay data (written before guarded-graph recorded the calling message and the tool's risk)",
  killswitch: (ruleId: string) => `the killswitch decided it (${ruleId}): its state then is not part of a policy`,
  beforePolicy: (ruleId: string) => `it was refused before any policy rule read it (${ruleId})`,
  outputsNeeded: (tool: string) => `the policy's ConditionalNext rules read ${tool}'s output, which the audit log does not keep`,
  historyChanged: (tool: string, callId: string, runs: boolean) =>
    `the new policy reads the thread's history, and call ${callId} of ${tool} ${runs ? "would run under it but did not" : "would not run under it but did"}, so the later messages are not the ones it would read`,
  historyUnknown: (tool: string, callId: string) => `the new policy reads the thread's history, and whether call ${callId} of ${tool} would have run under it is not known`,
  afterUndecided: (threadId: string, tool: string) => `an earlier call of ${tool} in thread ${threadId} could not be re-decided, and the policy's tool rules count its calls`,
} as const;

export const replayText = {
  header: (audit: string, policy: string, calls: number, threads: number) => `Replayed ${calls} recorded call(s) of ${threads} thread(s) from ${audit} under ${policy}`,
  unchanged: (n: number) => `unchanged: ${n}`,
  changed: (n: number, pct: string) => `changed: ${n} (${pct} of the calls re-decided)`,
  byChange: "Changes (recorded → new):",
  byRule: "Changes by the rule that decides under the new policy:",
  byThread: "Changes by thread:",
  cannot: (n: number) => `could not re-decide: ${n}`,
  threshold: (changes: number, limit: string) => `✗ ${changes} change(s) exceed --fail-on ${limit}`,
  withinThreshold: (changes: number, limit: string) => `✓ ${changes} change(s) within --fail-on ${limit}`,
} as const;

export const shadowSummaryText = {
  header: (decisions: number, shadowed: number, changed: number) => `${decisions} decision(s), ${shadowed} with a shadow decision, ${changed} the shadow would change`,
  none: "no decision record carries a shadow decision (no shadow rule or shadow policy was in force)",
  byChange: "Would-be changes (enforced → shadow):",
  byRule: "Shadow decisions by rule:",
} as const;
