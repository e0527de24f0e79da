import { Annotation, MessagesAnnotation } from "@langchain/langgraph";
import type { RuleState } from "../rules/types.js";
import { emptyApprovalState } from "./approval.js";
import type { ApprovalState } from "./approval.js";
import type { RiskLevel } from "../tools/types.js";
import type { Evidence } from "../provenance/index-builder.js";

export type CallOutcome = "run" | "refuse" | "ask";

/** One tool call after review. Plain JSON: it lives in the checkpointed graph state. */
export interface ReviewedCall {
  id: string;
  name: string;
  /** Arguments as they will run (heartbeat flag removed; edited by a human when `edited`). */
  args: Record<string, unknown>;
  operation?: string | undefined;
  outcome: CallOutcome;
  /** Id of the rule that decided (e.g. `permission:prod-protected`, `rule:MaxCalls:api#2`, `schema`). */
  ruleId: string;
  reason: string;
  risk: RiskLevel;
  /** Whether this parsed input may run in parallel with other safe calls. */
  concurrencySafe: boolean;
  /** Heartbeat mode: the model asked to continue after this call. */
  requestHeartbeat: boolean;
  edited?: boolean | undefined;
  /** A human approved this call (approve or edit): a killswitch that asks later does not stop it at start. */
  approved?: boolean | undefined;
  /** For refusals: the error the model reads. */
  message?: string | undefined;
  /** Provenance: where each traced argument value was found, or that it was not. */
  evidence?: Evidence[] | undefined;
  /**
   * Set when a tool rule with `onViolation: "ask"` made this call ask (the rule's id): once a human
   * (or a standing decision) approved it, that rule does not refuse it at its start.
   */
  askedRule?: string | undefined;
  /** Set when a limit with `exitBehavior: "end"` refused this call: the run ends after the turn. */
  endsRun?: boolean | undefined;
}

/** What one executed call reports back for loop control and the rule state. */
export interface CallResult {
  id: string;
  name: string;
  operation?: string | undefined;
  /** `refused`: stopped by the check at its start (killswitch, failed prerequisite); it did not run. */
  status: "success" | "error" | "cancelled" | "refused";
  at: number;
  requestHeartbeat: boolean;
  /** The result text (truncated), kept only when a ConditionalNext rule reads this tool's output. */
  output?: string | undefined;
}

/** The approved calls of the current model turn, in batches, and how far execution got. */
export interface TurnPlan {
  /** Id of the AIMessage whose calls this plan runs. */
  messageId: string;
  calls: Record<string, ReviewedCall>;
  batches: string[][];
  nextBatch: number;
  /** Calls of the turn that were refused or rejected (they ended with an error ToolMessage). */
  refused: number;
  /** Results of the batches that finished, in model order: what authorization at start checks against. */
  done?: CallResult[];
  /** A limit with `exitBehavior: "end"` refused a call of this turn: the run ends once the turn's calls ran. */
  endRun?: { ruleId: string; reason: string } | undefined;
}

export interface GuardState {
  rules: RuleState | null;
  /** Id of the human message that started the current run. */
  runId: string;
  turn: TurnPlan | null;
  /** The next model call must call this tool (InitialCall, RequiredForExit escalation). */
  forcedTool: string | null;
  /** Set when the run ended by a Terminal rule. */
  terminatedBy: string | null;
  /** Where the loop goes after the current step: next batch, back to the model, or the end. */
  next: "dispatch" | "agent" | "end";
  /** Exit tools still pending when the run had to end anyway (they were refused or never called). */
  exitUnsatisfied: string[];
  /** The approval step's state (owned by approval.ts): a refused resume to show when asking again. Absent in older checkpoints. */
  approvals?: ApprovalState | undefined;
}

export function emptyGuardState(): GuardState {
  return {
    rules: null,
    runId: "",
    turn: null,
    forcedTool: null,
    terminatedBy: null,
    next: "agent",
    exitUnsatisfied: [],
    approvals: emptyApprovalState(),
  };
}

/** Results of executed calls; `null` clears the channel once they are recorded into the rule state. */
function mergeResults(
  current: Record<string, CallResult>,
  update: Record<string, CallResult> | null,
): Record<string, CallResult> {
  if (update === null) return {};
  return { ...current, ...update };
}

/** Graph state channels of the guard. Spread `GuardAnnotation.spec` into your own state to use GuardedToolNode. */
export const GuardAnnotation = Annotation.Root({
  guard: Annotation<GuardState>({ reducer: (_current, next) => next, default: emptyGuardState }),
  guardResults: Annotation<Record<string, CallResult>, Record<string, CallResult> | null>({
    reducer: mergeResults,
    default: () => ({}),
  }),
});

/** Messages plus the guard's channels: the state of `createGuardedAgent`. */
export const GuardedAgentState = Annotation.Root({
  ...MessagesAnnotation.spec,
  ...GuardAnnotation.spec,
});

export type GuardedAgentStateType = typeof GuardedAgentState.State;
export type GuardedAgentUpdate = typeof GuardedAgentState.Update;
