/**
 * Sentences of the turn engine (authorization at call start, exit escalation). Part of the one
 * messages module (src/messages/); pinned by exact-text tests in test/engine-authorize.test.ts.
 */

/**
 * A call refused immediately before it started, although review had let it through. `reason` is
 * the rule's reason clause (never a whole refusal sentence: the model reads "Refused" once); a tool
 * rule's audit id `rule:<id>` is shown as its rule id.
 */
export function refusedAtStart(tool: string, ruleId: string, reason: string): string {
  const text = reason.trim().replace(/[.]$/, "");
  return `Refused ${tool} at the moment it was to start (rule ${ruleId.replace(/^rule:/, "")}): ${text}. It did not run.`;
}

/** The killswitch now asks for a human, and this call was not approved by one. */
export function killswitchAsksNow(reason: string): string {
  return `the killswitch now requires a human's approval (${reason.trim().replace(/[.]$/, "")}) and none was given for this call`;
}
