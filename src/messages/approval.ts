/**
 * Sentences of the approval step (src/guard/approval.ts): what a reviewer reads in an approval
 * request and in a refused resume, and what the model reads after a human decision. Part of the one
 * messages module (src/messages/); pinned by exact-text tests in test/approval-messages.test.ts.
 */

/** Longest piece of a client's input quoted back in an error. */
export const QUOTE_LIMIT = 200;

/** The description of one pending call in an approval request. */
export function approvalDescription(call: { name: string; risk: string; ruleId: string; reason: string }): string {
  return `${call.name} needs approval (${call.risk} risk) by ${call.ruleId}: ${call.reason}`;
}

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

export const decisionText = {
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
  bothSpellings: (camel: string, snake: string) => `both ${camel} and ${snake} given: send one of them`,
  editNeedsAction: "an edit needs editedAction (or edited_action): { name, args }",
} as const;

/** What the model reads when a human rejected its call. */
export function rejectedByHuman(message: string | undefined): string {
  const note = message ? `: ${message}` : "";
  return `Rejected by a human reviewer${note}. Do not retry this call unchanged.`;
}

/** What the model reads when a human's edit of its call was refused by the guard. */
export function editRefused(ruleId: string, reason: string, message: string | undefined): string {
  return `The human's edit of this call was refused by ${ruleId}: ${reason}. ${message ?? ""}`.trim();
}

/** Appended to the review reason of a call a human approved. */
export const approvedByHuman = (reason: string): string => `${reason} (approved by a human)`;
/** Appended to the review reason of a call a human edited and the guard then allowed. */
export const editedByHuman = (reason: string): string => `${reason} (edited and approved by a human)`;

function trimStop(text: string): string {
  return text.trim().replace(/[.]+$/, "");
}
