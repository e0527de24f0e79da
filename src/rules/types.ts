/**
 * Tool rules (seed 001 + 000 + 002). A rule is plain JSON so policies can be loaded from files
 * and rule state can live in LangGraph's checkpointed graph state.
 */
/** Rule types that carry only a tool, conditions and the common fields. */
export const PLAIN_RULE_TYPES = [
  "NoHeartbeat",
  "ContinueLoop",
  "Terminal",
  "TerminalIf",
  "MustFollow",
  "MustPrecede",
  "ExclusiveGroup",
  "RequiredForExit",
  "RequiredForExitIf",
] as const;

export const RULE_TYPES = [
  ...PLAIN_RULE_TYPES,
  "InitialCall",
  "MaxCalls",
  "MaxTotalCalls",
  "Cooldown",
  "Periodic",
  "AllowedOperations",
  "ChildTools",
  "ParentTools",
  "ConditionalNext",
] as const;

export type RuleType = (typeof RULE_TYPES)[number];

/** Rule types that refuse a call and so may ask a human instead (`onViolation: "ask"`). */
export const ASKABLE_RULE_TYPES = [
  "MustFollow",
  "MustPrecede",
  "ExclusiveGroup",
  "InitialCall",
  "MaxCalls",
  "MaxTotalCalls",
  "Cooldown",
  "AllowedOperations",
  "ChildTools",
  "ParentTools",
  "ConditionalNext",
] as const;

/**
 * What a rule does with a call that breaks it: "refuse" (default) answers the model with the
 * refusal; "ask" puts the call to a human through the approval flow, naming the rule.
 */
type OnViolation = "refuse" | "ask";

/** Per run: one user input until the final answer. Per thread: the whole conversation. */
export type RuleScope = "run" | "thread";

/** Rule types whose state may be kept per thread (`scope: "thread"`) instead of per run. */
export const SCOPED_RULE_TYPES = ["MustFollow", "MustPrecede", "ExclusiveGroup", "MaxCalls", "MaxTotalCalls"] as const;

/**
 * What a limit does when a call would exceed it (LangChain's toolCallLimit `exitBehavior`):
 * "continue" refuses the call and lets the model go on (default); "end" refuses it, lets the turn's
 * other calls finish, then ends the run with a message; "error" throws a ToolCallLimitError.
 */
export type ExitBehavior = "continue" | "end" | "error";

/** Arguments a rule fills in for its tool (Letta's `args`): they replace the model's values for those keys. */
export type PrefilledArgs = Record<string, unknown>;

interface RuleBase {
  /** Tool name, or "*" for every tool (or, for NoHeartbeat/ContinueLoop, the tools named in `conditions`). */
  tool: string;
  /** Tool names the rule refers to (prerequisites, group members, conditions). */
  conditions?: string[];
  /** Higher runs first; ties keep declaration order. */
  priority?: number;
  metadata?: Record<string, unknown>;
  /** Stable id used in violation messages and the audit log; defaults to `${type}:${tool}#index`. */
  id?: string;
  /** Only for {@link ASKABLE_RULE_TYPES}: "ask" lets a human approve a call that breaks the rule (default "refuse"). */
  onViolation?: OnViolation;
}

export type ToolRule =
  | (RuleBase & { type: (typeof PLAIN_RULE_TYPES)[number]; scope?: RuleScope; args?: PrefilledArgs })
  /** `alternatives`: the first call is one of `tool` and these (Letta's several init rules); without, every InitialCall tool runs first. */
  | (RuleBase & { type: "InitialCall"; alternatives?: string[]; args?: PrefilledArgs })
  | (RuleBase & { type: "MaxCalls"; max: number; scope?: RuleScope; exitBehavior?: ExitBehavior })
  /** Every call to any tool counts against one limit (LangChain's toolCallLimit without `toolName`); `tool` is "*". */
  | (RuleBase & { type: "MaxTotalCalls"; max: number; scope?: RuleScope; exitBehavior?: ExitBehavior })
  | (RuleBase & { type: "Cooldown"; durationMs: number })
  | (RuleBase & { type: "Periodic"; durationMs: number; args?: PrefilledArgs })
  | (RuleBase & { type: "AllowedOperations"; operations: string[] })
  /** Letta's ChildToolRule: right after `tool` was called, only `children` may be called. `childArgs`: prefilled arguments per child. */
  | (RuleBase & { type: "ChildTools"; children: string[]; childArgs?: Record<string, PrefilledArgs> })
  /**
   * Letta's ParentToolRule (`parent_last_tool`): `children` may be called only right after `tool`,
   * and right after `tool` only they may be called.
   */
  | (RuleBase & { type: "ParentTools"; children: string[] })
  /**
   * Letta's ConditionalToolRule: right after `tool` was called, its output picks the next tool.
   * `outputMapping` maps an output ("true", "3", "done") to the tool; without a match `defaultChild`
   * is next, or any tool — or none when `requireOutputMapping` is true.
   */
  | (RuleBase & {
      type: "ConditionalNext";
      outputMapping: Record<string, string>;
      defaultChild?: string;
      requireOutputMapping?: boolean;
    });

/** A call the engine is asked about. */
export interface CallInfo {
  tool: string;
  operation?: string | undefined;
}

/** One finished call, recorded into the state. `success` is the tool's real outcome. */
export interface ExecutionRecord extends CallInfo {
  callId: string;
  success: boolean;
  /** Epoch ms. */
  at: number;
  /** The call's output (truncated), kept only for tools a ConditionalNext rule reads. */
  output?: string | undefined;
}

/** The last call of this run: ChildTools and ConditionalNext decide from it. */
interface LastCall {
  tool: string;
  success: boolean;
  output?: string | undefined;
}

/**
 * Rule state: plain JSON, bounded in size whatever the thread length. Counts and last-call times
 * are per tool; `history` keeps only the most recent entries.
 */
export interface RuleState {
  version: 1;
  /** Index of the current run within the thread (starts at 0, +1 per user input). */
  run: number;
  runStartedAt: number;
  /** Successful calls per tool in this run. */
  runCounts: Record<string, number>;
  /** Successful calls per tool in the thread. */
  threadCounts: Record<string, number>;
  /** Attempted calls (success or not) per tool in this run; MaxCalls counts attempts. */
  runAttempts: Record<string, number>;
  threadAttempts: Record<string, number>;
  /** Epoch ms of the last call per tool (thread-wide; used by Cooldown and Periodic). */
  lastCallAt: Record<string, number>;
  /** Tools that succeeded in this run, in first-success order (each once). */
  calledThisRun: string[];
  /** Most recent executions (bounded ring). */
  history: ExecutionRecord[];
  /** Reminders sent this run because the model tried to end with exit tools pending. */
  exitReminders: number;
  /** The last call of this run (absent before the first). */
  lastCall?: LastCall | undefined;
  /** Model steps a Periodic tool was shown as due without being called, per tool (reset when it is called). */
  dueReminders?: Record<string, number> | undefined;
}

/**
 * Why a rule refused, as data (seed 001's ToolRuleViolation fields) plus the reason clause. Which
 * fields are present depends on the rule type: MustFollow/MustPrecede/InitialCall set `required`
 * and `executed`; MaxCalls sets `max`, `current` and `scope`; Cooldown sets `remainingMs`;
 * ExclusiveGroup sets `group` and `alreadyCalled`; AllowedOperations sets `allowedOperations`.
 */
export interface ViolationDetail {
  /** The reason clause (no tool prefix, no trailing period). */
  reason: string;
  /** Tools that must have succeeded (or be called first) for the call to be allowed. */
  required?: string[];
  /** Tools that succeeded so far in the rule's scope, in order. */
  executed?: string[];
  /** The limit that was reached. */
  max?: number;
  /** Calls counted against the limit so far. */
  current?: number;
  /** The scope the rule counts in. */
  scope?: RuleScope;
  /** Milliseconds until the cooldown ends. */
  remainingMs?: number;
  /** Members of the exclusive group. */
  group?: string[];
  /** Group members already used. */
  alreadyCalled?: string[];
  /** Operations the tool may be called with. */
  allowedOperations?: string[];
  /** For a limit: what happens now (see {@link ExitBehavior}). */
  exitBehavior?: ExitBehavior;
  /** "ask" when the rule asks a human instead of refusing (its `onViolation`); absent for a refusal. */
  onViolation?: OnViolation;
  /** ChildTools / ConditionalNext: the call that constrains what comes next. */
  after?: string;
}

/** A call the guard makes itself (tool_choice), because a rule leaves no other choice or the reminders ran out. */
export interface ForcedCall {
  tool: string;
  /** The rule that forces it. */
  ruleId: string;
  ruleType: RuleType;
  /** Prefilled arguments for the call (empty when the rule gives none). */
  args: PrefilledArgs;
}

export interface RuleViolation extends ViolationDetail {
  /** Id of the rule that refused. */
  ruleId: string;
  ruleType: RuleType;
  tool: string;
  operation?: string | undefined;
  /** The one sentence the model reads: what was refused, by which rule, and what is allowed now. */
  message: string;
  /** Tools (with operations) the model may call now. */
  allowedNow: string[];
}

export interface ToolAllowanceInfo {
  name: string;
  /** Undefined: every operation of the tool. */
  operations?: string[] | undefined;
}

export interface TerminationDecision {
  terminate: boolean;
  /** Id of the Terminal/TerminalIf rule that ended the run. */
  ruleId?: string | undefined;
}

export interface RuleValidationIssue {
  severity: "error" | "warning";
  /** e.g. "unknown-tool", "unknown-operation", "conflict", "cycle", "unreachable". */
  code: string;
  message: string;
  ruleIds: string[];
}

export interface ExecutionPlan {
  initialTools: string[];
  /** tool → tools that must have run before it. */
  dependencies: Record<string, string[]>;
  terminalTools: string[];
  exitRequirements: string[];
  maxCalls: Record<string, { max: number; scope: RuleScope }>;
  allowedOperations: Record<string, string[]>;
  /** Mermaid flowchart of the dependency graph. */
  mermaid: string;
}
