import type { AuditRecord, AuditSink } from "../audit/types.js";
import type { KillswitchSnapshot } from "../killswitch/types.js";
import type { PolicyDecision } from "../policy/types.js";
import type { RiskLevel } from "../tools/types.js";
import type { DecisionContext } from "../provenance/context.js";
import type { Principal } from "../principal/principal.js";
import type { ApproverRule } from "../principal/schema.js";

/** Decides allow / deny / ask for a call from the permission rules (PermissionPolicy implements it). */
export interface PermissionDecider {
  /**
   * `context`: the thread's messages, for conditions on where values came from and what the run has seen.
   * `declaredRisk` is undefined when nobody declared the tool's risk (nor a `defaultRisk`): a decider of
   * your own should then ask when no rule of its own applies, as `noRuleDecision(tool, declaredRisk)` does.
   */
  decide(tool: string, args: unknown, declaredRisk?: RiskLevel, context?: DecisionContext, principal?: Principal): PolicyDecision;
  /** True when `decide` reads `principal` (who runs the call): the guard reads it from the run's config only then. */
  readonly readsPrincipal?: boolean;
  /** Who may answer which approvals (PermissionPolicy: its `approvers`). */
  approverRules?(): readonly ApproverRule[];
  /** Sentences for the system prompt's tool usage section (PermissionPolicy: its provenance, after and budget rules). */
  usageLines?(): string[];
  /**
   * The decider with its shadow rules enforced (PermissionPolicy: rules with `shadow: true`), or
   * undefined: the guard decides it beside this one on every call and audits its answer, never enforces it.
   */
  readonly shadow?: PermissionDecider | undefined;
  /** False when no shadow rule names `tool`: `shadow` then decides as this decider does, and is not asked. */
  shadowCovers?(tool: string): boolean;
}

/** The killswitch as the guard sees it (Killswitch implements it). Never touches the network. */
export interface KillswitchView {
  decide(tool: string, risk: RiskLevel): { mode: "deny" | "ask"; ruleId: string; reason: string } | null;
  snapshot(): KillswitchSnapshot;
  bypassAllowed(): boolean;
}

/** Exactly-once bookkeeping for tool side effects across processes (the storage ledger implements it). */
export interface ExecutionLedgerView {
  claim(key: string, owner: string, leaseMs: number): Promise<"claimed" | "done" | "busy">;
  complete(key: string, result: string): Promise<void>;
  result(key: string): Promise<string | undefined>;
  /** Drops `owner`'s unfinished claim so the call can run again at once. */
  release(key: string, owner: string): Promise<void>;
  /** Extends `owner`'s live claim; false when it is gone. */
  renew(key: string, owner: string, leaseMs: number): Promise<boolean>;
  /**
   * Claims a batch's calls in one commit, with `audit.records` (their decisions) in the same
   * commit when `carriesAudit(audit.sink)`. Optional: without it each call is claimed on its own.
   */
  claimMany?(keys: readonly string[], owner: string, leaseMs: number, audit?: { sink: AuditSink; records: readonly AuditRecord[] }): Promise<("claimed" | "done" | "busy")[]>;
  /** Completes calls that ended together in one commit, with their outcome records when `carriesAudit(audit.sink)`. */
  completeMany?(completions: readonly { key: string; result: string }[], audit?: { sink: AuditSink; records: readonly AuditRecord[] }): Promise<void>;
  /** Whether `sink` keeps its records in the ledger's database (then they share its commits). */
  carriesAudit?(sink: AuditSink): boolean;
}

