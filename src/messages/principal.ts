// Sentences about who is asking (src/principal): why a rule on the principal could not tell, why an
// approver's answer was refused, and what a reviewer reads about the approvals a call still needs.
// Part of the one messages module (src/messages/); pinned by exact-text tests.

function quoted(text: string, max = 80): string {
  return JSON.stringify(text.length <= max ? text : `${text.slice(0, max)}…`);
}

export const principalText = {
  /** The principal is missing what a condition reads. */
  missingUser: (name: string) => `the run has no authenticated user (langgraph_auth_user), so ${name} cannot be read`,
  missingAttribute: (name: string) => `the run's principal has no ${name}`,
  /** `policy explain` and reasons: a rule-level principal condition. */
  describe: (name: string, condition: string) => `principal ${name} ${condition}`,
  /** A `sameAs` condition, described. */
  sameAs: (name: string) => `same as the principal's ${name}`,
  /** Appended to a decision that asks or denies when an allow rule needed something the principal lacks. */
  allowNeeded: (ruleId: string, why: string) => `${ruleId} could not allow this call: ${why}`,
  unknownName: (label: string, name: string, suggestion: string | undefined, known: readonly string[]) =>
    `${label}: principal name ${quoted(name)} is not known${suggestion === undefined ? "" : ` (did you mean ${quoted(suggestion)}?)`}; known names: ${known.join(", ")}`,
  undeclaredName: (label: string, name: string, scope: "metadata" | "configurable", suggestion: string | undefined) =>
    `${label}: ${name} reads ${scope}.${name.slice(scope.length + 1)}, which principals.${scope} does not declare${suggestion === undefined ? "" : ` (did you mean ${quoted(suggestion)}?)`}; declare it there so a misspelling cannot go unnoticed`,
  internalConfigurable: (label: string, name: string) => `${label}: ${name} is set by LangGraph itself, not a value of the run; read the user with identity, permissions or metadata.<key>`,
} as const;

export const approverText = {
  /** The answer's sender has no authenticated user: approver rules cannot be checked. */
  noUser: (tool: string, ruleId: string) =>
    `${ruleId}: only an authenticated user may answer the call of ${tool}, and this answer carries none (an identity written in the answer itself does not count)`,
  /** The sender is not among the approvers the rule names. */
  notApprover: (identity: string, tool: string, ruleId: string, who: string) => `${ruleId}: ${quoted(identity)} may not answer the call of ${tool} (approvers: ${who})`,
  /** Four eyes: the user who ran the call approved it. */
  ownCall: (identity: string, tool: string, ruleId: string) => `${ruleId}: ${quoted(identity)} ran the call of ${tool} and may not approve it; another approver must`,
  /** Four eyes without a known requester. */
  requesterUnknown: (tool: string, ruleId: string) => `${ruleId}: the user who ran the call of ${tool} is not known, so no one can be shown to be a different person; this call cannot be approved here`,
  /** A second approval by a user who approved already. */
  alreadyApproved: (identity: string, tool: string, ruleId: string, needed: number) => `${ruleId}: ${quoted(identity)} approved the call of ${tool} already; it needs ${needed} different approvers`,
  /** An entry point that cannot keep a first approval across answers. */
  cannotCollect: (tool: string, ruleId: string, needed: number) => `${ruleId}: the call of ${tool} needs ${needed} different approvers, which only a graph that keeps its state between answers can collect`,
  /** "Don't ask again" on a call whose rule needs four eyes or several approvers. */
  noStanding: (tool: string, ruleId: string) => `${ruleId}: the call of ${tool} needs its approvers every time; answer it without "don't ask again" (sticky)`,
  /** An edit of a call that needs several approvers. */
  noEdit: (tool: string, ruleId: string, needed: number) => `${ruleId}: the call of ${tool} needs ${needed} different approvers of the same arguments; approve or reject it (an edit would leave earlier approvals behind)`,
  /** Appended to the description of a call approver rules cover: who may answer it. */
  who: (rules: readonly { principal: string | undefined; notRequester: boolean; approvals: number }[]) => {
    const parts = rules.flatMap((rule) => [
      ...(rule.principal === undefined ? ["an authenticated user"] : [`a user with ${rule.principal}`]),
      ...(rule.notRequester ? ["not the user who ran it"] : []),
      ...(rule.approvals > 1 ? [`${rule.approvals} different approvers`] : []),
    ]);
    return `Who may answer: ${[...new Set(parts)].join("; ")}.`;
  },
  /** Shown to the next reviewer: approvals so far. */
  collected: (have: readonly string[], needed: number) =>
    `Approved so far by ${have.map((name) => quoted(name)).join(", ")} (${have.length} of ${needed}); another approver must answer.`,
  /** The reason of an audit record of an approval that counted but did not yet let the call run. */
  countersignPending: (identity: string, have: number, needed: number) => `approval ${have} of ${needed}, by ${quoted(identity)}; the call waits for another approver`,
  /** Reason recorded when an answer is refused by an approver rule. */
  refusedRecord: (why: string) => `answer refused, the call is asked again: ${why}`,
} as const;
