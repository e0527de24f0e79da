/**
 * Sentences of the approval step (src/guard/approval.ts) about resumes: what a client or reviewer
 * reads when a resume is refused and the approval is asked again. Part of the one messages module
 * (src/messages/; the approval description and the human-decision sentences are in index.ts);
 * pinned by exact-text tests in test/approval.test.ts.
 */

/** Longest piece of a client's input quoted back in an error. */
export const QUOTE_LIMIT = 200;

/** The first line of every description when the request is asked again after a refused resume. */
export function reaskedDescription(error: string, description: string): string {
  return `Your last answer was refused and nothing was done: ${trimStop(error)}. Answer again. ${description}`;
}

/** A resume value that is not `{ decisions: … }` of the right shape. `quoted` is already bounded. */
export function resumeShapeRefused(quoted: string, detail: string): string {
  return `invalid approval resume ${quoted}: expected { decisions: [...] } with one of approve | edit | reject per pending call (${detail})`;
}

/** A well-formed resume that does not answer the pending calls. */
export function resumeMatchRefused(detail: string): string {
  return `invalid approval resume: ${detail}`;
}

/** The calls waiting for a human changed after the reviewer was asked (a client's state update): the answer decided nothing. */
export const callsChangedRefused =
  "the calls waiting for approval were changed after you were asked (a state update rewrote their tool, arguments or number), so your answer was not applied to them; these are the calls as they are now";

export const decisionText = {
  staleResume: "the resume names no pending interrupt of this request (it is keyed by another interrupt id); answer the pending request",
  none: (listing: string) => `no decisions given; pending calls: [${listing}]`,
  mixedKeys: "mix of decisions with and without toolCallId: key all of them or none",
  tooMany: (pending: number, listing: string, got: number) =>
    `expected at most ${pending} decision(s), one per pending call in order [${listing}], got ${got}`,
  wrongCount: (pending: number, listing: string, got: number) =>
    `expected ${pending} decision(s), one per pending call in order [${listing}], got ${got}`,
  unknownId: (id: string, listing: string) => `decision for unknown tool call id ${id}; pending calls: [${listing}]`,
  twice: (id: string) => `two decisions for tool call ${id}`,
  notAllowed: (type: string, id: string, allowed: readonly string[]) =>
    `decision "${type}" is not allowed for ${id}; allowed: ${allowed.join(", ")}`,
  missing: (ids: readonly string[]) => `no decision for pending call(s) ${ids.join(", ")}; every pending call needs one`,
  spellingsDisagree: (camel: string, snake: string) => `${camel} and ${snake} disagree: send one of them, or both with the same value`,
  editNeedsAction: "an edit needs editedAction (or edited_action): { name, args }",
  agentInboxList:
    'an Agent Inbox response list, not taken here: send { decisions: [...] }, accept as { type: "approve" }, edit as { type: "edit", editedAction }, response or ignore as { type: "reject", message }',
  unknownType: (types: readonly string[]) => `decision type ${types.join(", ")} is not one the guard takes (approve | edit | reject)`,
} as const;

/** The ToolMessage of a call whose turn waited for a human's approval when new input arrived instead of an answer. */
export function supersededByInput(tool: string): string {
  return `Refused ${tool} by rule approval:superseded: new input arrived while this turn waited for a human's approval, so it did not run. Call it again if it is still needed.`;
}

/** The audit reason of such a call. */
export const supersededReason = "new input arrived while the turn waited for approval; the call was not run";

/** The audit reason when the new input carried a ToolMessage for the call (the guard never takes it as the result). */
export function foreignAnswerReason(quoted: string): string {
  return `${supersededReason}; the input's own result for it was dropped: ${quoted}`;
}

/**
 * The review reason of a call the policy allows and `interruptOn` makes ask. Short: the rule id
 * (`interruptOn:<tool>`) already names the setting and the tool, and the description says "needs approval".
 */
export function interruptOnReason(): string {
  return "every call of this tool is put to a reviewer";
}

/** The audit reason of a revoked standing decision. */
export function stickyRevokedReason(decision: "approve" | "reject", scope: "run" | "thread"): string {
  return `standing ${decision} for the ${scope} revoked: later calls ask again`;
}

/** `revokeStickyDecision` refused: no standing decision with that id on the thread. */
export function stickyUnknown(threadId: string, id: string, known: readonly string[]): string {
  return `thread ${threadId} has no standing decision ${JSON.stringify(id)}; standing: ${known.length > 0 ? known.join(", ") : "(none)"}`;
}

/** `revokeStickyDecision` refused: the thread waits for an approval (answer it first; the state must not change under it). */
export function stickyWhileWaiting(threadId: string): string {
  return `thread ${threadId} is waiting for an approval: answer it first, then revoke (nothing was changed)`;
}

/** What `guarded-graph sticky revoke` prints once a standing decision is revoked and audited. */
export function stickyRevokedLine(threadId: string, id: string, decision: "approve" | "reject", tool: string, scope: "run" | "thread"): string {
  return `revoked ${id} on thread ${threadId}: the standing ${decision} of ${tool} for the ${scope} no longer holds; later calls ask again (audited)`;
}

function trimStop(text: string): string {
  return text.trim().replace(/[.]+$/, "");
}
