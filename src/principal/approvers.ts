import { compileGlob } from "../policy/glob.js";
import { YES } from "../policy/kinds/verdict.js";
import { approverText } from "../messages/principal.js";
import { compilePrincipalConditions, type PrincipalConditions } from "./conditions.js";
import { principalOf, principalSnapshot, type Principal, type PrincipalSnapshot } from "./principal.js";
import { comparableText } from "./same-as.js";
import type { ApproverRule } from "./schema.js";

/**
 * Approver rules at the approval step: who may answer a call (the answering run's authenticated
 * user, never a name written in the answer), four eyes (the user who ran the call may not approve
 * it), and calls that need several different approvers (each approval is recorded with the thread
 * and the call is asked again until enough different users approved). A refused answer changes
 * nothing: the approval step asks again with the reason.
 */

/** What the approval step keeps about who asked and who approved (`ApprovalState.approvers`). */
export interface ApproverRecord {
  /** The model message whose calls this is about. */
  messageId: string;
  /** The identity of the authenticated user of the run in which the calls were reviewed and asked, when it had one. */
  requester?: string | undefined;
  /** That run's principal: review on resume judges the calls for it, not for whoever answers. */
  principal?: PrincipalSnapshot | undefined;
  /** Per call id, the users whose approval counted so far (calls that need several approvers). */
  approvedBy?: Record<string, string[]> | undefined;
}

interface CompiledApproverRule {
  readonly ruleId: string;
  readonly rule: ApproverRule;
  readonly matches: (tool: string) => boolean;
  readonly principal: PrincipalConditions | undefined;
}

const compiledRules = new WeakMap<readonly ApproverRule[], CompiledApproverRule[]>();

function compileRules(rules: readonly ApproverRule[]): CompiledApproverRule[] {
  let compiled = compiledRules.get(rules);
  if (compiled === undefined) {
    compiled = rules.map((rule, index) => ({
      ruleId: `approvers:${rule.id ?? index}`,
      rule,
      matches: compileGlob(rule.tool, { nocase: true, dot: true }),
      principal: rule.principal === undefined ? undefined : compilePrincipalConditions(rule.principal, `approvers[${index}].principal`),
    }));
    compiledRules.set(rules, compiled);
  }
  return compiled;
}

/** Identities compare as the matchers compare text: normalised, case-insensitive ("Alice " is alice). */
function sameIdentity(a: string, b: string): boolean {
  return comparableText(a, false) === comparableText(b, false);
}

/** A pending call as the gate sees it. */
interface GateCall {
  readonly id: string;
  readonly name: string;
}

/** A decision as the gate sees it. */
interface GateDecision {
  readonly type: "approve" | "edit" | "reject";
  /** "Don't ask again": a standing decision for later calls. */
  readonly sticky?: unknown;
}

/** An approval that counted but did not yet let its call run. */
interface Countersign {
  readonly callId: string;
  readonly approver: string;
  readonly have: number;
  readonly needed: number;
  readonly reason: string;
}

/** The approver rules of one approval step (see the module comment). */
export class ApproverGate {
  readonly #rules: readonly CompiledApproverRule[];
  readonly #record: ApproverRecord;
  readonly #answerer: Principal;
  /** Whether the record was written before this step (the requester of its calls is known to the thread). */
  readonly #recorded: boolean;
  readonly #partial: boolean;
  /** Calls whose count this answer completed: every approver, in order. */
  readonly #completed = new Map<string, string[]>();

  readonly #config: { configurable?: Record<string, unknown> | undefined } | undefined;
  /** The policy reads the principal: the run's principal is recorded before its calls are asked about. */
  readonly #recordsPrincipal: boolean;

  constructor(rules: readonly ApproverRule[], messageId: string, record: ApproverRecord | null | undefined, config: { configurable?: Record<string, unknown> | undefined } | undefined, partial: boolean, recordsPrincipal = false) {
    this.#rules = compileRules(rules);
    this.#config = config;
    this.#recordsPrincipal = recordsPrincipal;
    this.#answerer = principalOf(config);
    this.#recorded = record?.messageId === messageId;
    this.#partial = partial;
    this.#record = this.#recorded && record ? { ...record, approvedBy: { ...record.approvedBy } } : { messageId };
  }

  /** The user answering (the run's authenticated user), for audit records. */
  get answerer(): string | undefined {
    return this.#answerer.user?.identity;
  }

  /** The last refusal `refusal` returned (for its audit record). */
  lastRefusal: { callId: string; ruleId: string; why: string } | undefined;

  #rulesFor(tool: string): CompiledApproverRule[] {
    return this.#rules.filter((rule) => rule.matches(tool));
  }

  /** Different approvers a call needs (1 unless a rule says more). */
  #needed(tool: string): number {
    return Math.max(1, ...this.#rulesFor(tool).map((rule) => rule.rule.approvals ?? 1));
  }

  /**
   * Some pending call is covered by an approver rule and the step has not recorded who ran it: the
   * step records it (this run's user is the requester) before it asks, so the answer, which comes
   * in another run, is checked against the requester, not against itself.
   */
  mustRecord(pending: readonly GateCall[]): boolean {
    return !this.#recorded && pending.length > 0 && (this.#recordsPrincipal || pending.some((call) => this.#rulesFor(call.name).length > 0));
  }

  /** What to checkpoint with the approval state: the record, first made by the run that asks. */
  state(pending: readonly GateCall[] = []): { approvers: ApproverRecord } | Record<string, never> {
    if (this.mustRecord(pending)) {
      const requester = this.#answerer.user?.identity;
      return { approvers: { messageId: this.#record.messageId, ...(requester === undefined ? {} : { requester }), principal: principalSnapshot(this.#config) } };
    }
    return this.#recorded || Object.keys(this.#record.approvedBy ?? {}).length > 0 ? { approvers: this.#record } : {};
  }

  /** For the audit record of an answer to `callId`: the requester, and the earlier approvers when this answer completed a count. */
  detail(callId: string): { requester?: string; approvedBy?: string[] } {
    const completed = this.#completed.get(callId);
    return { ...(this.#record.requester === undefined ? {} : { requester: this.#record.requester }), ...(completed === undefined ? {} : { approvedBy: completed }) };
  }

  /** Why these answers may not be given by the answering user; undefined when they may. */
  refusal(pending: readonly GateCall[], decisions: ReadonlyMap<string, GateDecision>): string | undefined {
    for (const call of pending) {
      const decision = decisions.get(call.id);
      if (decision === undefined) continue;
      for (const rule of this.#rulesFor(call.name)) {
        const why = this.#refusalBy(rule, call, decision);
        if (why === undefined) continue;
        this.lastRefusal = { callId: call.id, ruleId: rule.ruleId, why };
        return why;
      }
    }
    return undefined;
  }

  #refusalBy(rule: CompiledApproverRule, call: GateCall, decision: GateDecision): string | undefined {
    const user = this.#answerer.user;
    if (user === undefined) return approverText.noUser(call.name, rule.ruleId);
    if (rule.principal !== undefined && rule.principal.verdict(this.#answerer) !== YES) {
      return approverText.notApprover(user.identity, call.name, rule.ruleId, rule.rule.reason ?? rule.principal.description);
    }
    if (decision.type === "reject") return undefined;
    const needed = rule.rule.approvals ?? 1;
    // A standing approval would answer later calls with no approver looking: not where a rule needs a particular one.
    if (decision.sticky !== undefined && (rule.rule.notRequester === true || needed > 1)) return approverText.noStanding(call.name, rule.ruleId);
    // Several approvers approve one set of arguments: an edit would leave the earlier approvals behind.
    if (decision.type === "edit" && needed > 1) return approverText.noEdit(call.name, rule.ruleId, needed);
    if (rule.rule.notRequester === true) {
      const requester = this.#record.requester;
      if (requester === undefined) return approverText.requesterUnknown(call.name, rule.ruleId);
      if (sameIdentity(requester, user.identity)) return approverText.ownCall(user.identity, call.name, rule.ruleId);
    }
    if (needed > 1) {
      if (!this.#partial) return approverText.cannotCollect(call.name, rule.ruleId, needed);
      if ((this.#record.approvedBy?.[call.id] ?? []).some((earlier) => sameIdentity(earlier, user.identity))) return approverText.alreadyApproved(user.identity, call.name, rule.ruleId, needed);
    }
    return undefined;
  }

  /**
   * Whether a standing decision ("don't ask again") may answer this call: a standing reject always
   * may; a standing approval not where a rule needs four eyes or several approvers (one made before
   * the rule existed would answer with no approver looking).
   */
  standingHolds(call: GateCall, decision: "approve" | "reject"): boolean {
    return decision === "reject" || !this.#rulesFor(call.name).some((rule) => rule.rule.notRequester === true || (rule.rule.approvals ?? 1) > 1);
  }

  /** The line a reviewer reads above a call that has approvals already. */
  note(call: GateCall, description: string): string {
    const have = this.#record.approvedBy?.[call.id] ?? [];
    const rules = this.#rulesFor(call.name);
    const who = rules.length === 0 ? "" : ` ${approverText.who(rules.map((rule) => ({ principal: rule.rule.reason ?? rule.principal?.description, notRequester: rule.rule.notRequester === true, approvals: rule.rule.approvals ?? 1 })))}`;
    return `${have.length === 0 ? "" : `${approverText.collected(have, this.#needed(call.name))} `}${description}${who}`;
  }

  /**
   * Approvals (and edits) of calls that need more approvers than they now have: recorded (unless
   * `record` is false: the answer applied is another process's), and removed from `decisions`, so
   * the call stays waiting and is asked again. A reject or an approval
   * that completes the count clears what was recorded for the call.
   */
  settle(pending: readonly GateCall[], decisions: Map<string, GateDecision>, record = true): Countersign[] {
    const user = this.#answerer.user;
    const out: Countersign[] = [];
    for (const call of pending) {
      const decision = decisions.get(call.id);
      if (decision === undefined) continue;
      const needed = this.#needed(call.name);
      const earlier = this.#record.approvedBy?.[call.id] ?? [];
      if (decision.type === "reject" || needed <= 1 || user === undefined || earlier.length + 1 >= needed) {
        if (earlier.length > 0) {
          if (decision.type !== "reject" && user !== undefined) this.#completed.set(call.id, [...earlier, user.identity]);
          this.#forget(call.id);
        }
        continue;
      }
      decisions.delete(call.id);
      // Another process's answer was applied (`record` false): it counts its own approval; this one leaves the call waiting.
      if (!record) continue;
      const have = [...earlier, user.identity];
      this.#record.approvedBy = { ...this.#record.approvedBy, [call.id]: have };
      out.push({ callId: call.id, approver: user.identity, have: have.length, needed, reason: approverText.countersignPending(user.identity, have.length, needed) });
    }
    return out;
  }

  #forget(callId: string): void {
    const { [callId]: _dropped, ...rest } = this.#record.approvedBy ?? {};
    this.#record.approvedBy = rest;
  }
}
