// "guarded-graph": the guard (createGuardedAgent, GuardedToolNode, Guard, guardFromPolicy), approvals,
// durable threads, tools, tool rules, permission policy and provenance, audit, killswitch, storage,
// createModel and errors.
// Memory, files and the built-in memory tools are in "guarded-graph/memory"; the scripted offline
// model in "guarded-graph/testing"; the demo graphs in "guarded-graph/graphs"; the LangChain v1
// middleware in "guarded-graph/middleware".
// docs/api.md and docs/api/*.md list every exported name with its declaration (generated: npm run docs:api).

// The guard: createGuardedAgent, GuardedToolNode (with GuardAnnotation in your state), a policy file.
export { createGuardedAgent, GUARDED_NODES } from "./guard/agent.js";
export type { GuardedAgentOptions, GuardedNodeName } from "./guard/agent.js";
export { GuardedToolNode, guardedToolsRoute } from "./guard/tool-node.js";
export type { GuardedToolsRouteOptions } from "./guard/tool-node.js";
export type { GuardedToolNodeInput, GuardedToolNodeOutput, GuardedToolNodeOutputs } from "./guard/tool-node.js";
export { GuardAnnotation, GuardedAgentState, GuardStateFields } from "./guard/state.js";
export type { GuardState, GuardedAgentStateType } from "./guard/state.js";
export { Guard } from "./guard/guard.js";
export type { GuardOptions, GuardSettings, HumanDecisionType, PermissionsOption } from "./guard/options.js";
export { guardFromPolicy } from "./guard/from-policy.js";
export type { PolicyGuard } from "./guard/from-policy.js";
export { truncateResult, truncateToolContent } from "./guard/truncate.js";

// Human approval: the interrupt payload and the resume that answers it.
export { pendingApproval } from "./guard/approval/payload.js";
export { ApprovalResumeError, checkResume } from "./guard/approval/resume.js";
export { heldForApproval, screenRunInput } from "./guard/approval/screening.js";
export {
  listSticky,
  revokeSticky,
  revokeStickyDecision,
  stickyDecisions,
  StickyRevokeError,
} from "./guard/approval/sticky.js";
export type { DecisionEvent } from "./guard/approval/events.js";
export type { InterruptOn, InterruptOnConfig, InterruptRequest } from "./guard/options.js";
export type { ActionRequest, ApprovalRequest, ReviewConfig } from "./guard/approval/payload.js";
export type { ApprovalResume, Decision, StickyRequest } from "./guard/approval/resume.js";
export type { ScreenedInput } from "./guard/approval/screening.js";
export type { StickyDecision } from "./guard/approval/state.js";
export type { StickyThreadGraph } from "./guard/approval/sticky.js";
// Two answers to one approval at once (without the thread lock): what the losing one's run reports.
export { supersededAnswer } from "./guard/answer-race.js";
export type { SupersededAnswer } from "./guard/approval/state.js";

// Durable threads: start, resume and continue a thread under a per-thread lock.
export { continueThread, readThreadProgress, resumeThread, runThreadLocked, startThread, threadProgress } from "./guard/durable.js";
export type { DurableGraph, DurableOutcome, DurableRunOptions, ThreadProgress, ThreadReport } from "./guard/durable.js";

// Tools.
export { defineTool, idempotencyKeyFor } from "./tools/define-tool.js";
export type { DefineToolOptions } from "./tools/define-tool.js";
export type { AnyTool, GuardedTool, RiskLevel, ToolExecutionContext } from "./tools/types.js";

// Tool rules.
export { rules } from "./rules/builder.js";
export { ToolRulesEngine } from "./rules/engine.js";
export type { ToolRulesEngineOptions } from "./rules/engine.js";
export { assertValidRules, validateRules } from "./rules/validate.js";
export { executionPlan } from "./rules/plan.js";
export type { CallInfo, ExecutionPlan, RuleScope, RuleState, RuleType, RuleValidationIssue, RuleViolation, ToolRule } from "./rules/types.js";

// Permission policy.
export { PermissionPolicy } from "./policy/permissions.js";
export { asUser, principalOf } from "./principal/principal.js";
export type { AuthUserInput, Principal, PrincipalUser } from "./principal/principal.js";
export type { ApproverRule, ApproverRuleInput, PrincipalCondition, PrincipalsDeclaration } from "./principal/schema.js";
export { noRuleDecision } from "./policy/defaults.js";
export type { MainArgument } from "./policy/compact.js";
export type { PermissionPolicyOptions, PermissionRule } from "./policy/permissions.js";
export type { FieldMatcher, PermissionMode, PermissionRuleSpec, PolicyDecision, Precedence } from "./policy/types.js";
export { loadClaudeSettings, loadPolicyFile, parseClaudeSettingsLayers, parsePolicy, permissionPolicy } from "./policy/file.js";
export type { ClaudeSettingsFiles, LoadedPolicy, PolicyFormat } from "./policy/file.js";
export type { ClaudeSettingsLayer, ClaudeSettingsPlace, ClaudeSettingsScope } from "./policy/claude-settings.js";
export type { PolicyFile, PolicyFileInput } from "./policy/schema.js";
export { checkPolicy, planPolicy } from "./policy/check.js";
export { canonicalArgs, canonicalize, MAX_MATCH_INPUT_CHARS, selectField } from "./policy/canonical.js";
export { PolicyError } from "./policy/errors.js";
export { PolicyRegexError } from "./policy/regex.js";
export type { PolicyWatcher, PolicyWatchEvent, WatchPolicyOptions } from "./policy/watch.js";

// Provenance: conditions on where an argument's value came from (docs/provenance.md).
export type { DecisionContext, ProvenanceSettings, TurnCall } from "./provenance/context.js";
export type { Evidence } from "./provenance/index-builder.js";
export type { BudgetCondition, ConditionSpec, FromCondition, NumericCondition, ProvenanceConfig } from "./provenance/schema.js";

// Audit log.
export { openAuditSink, DEFAULT_AUDIT_SPEC } from "./audit/open.js";
export type { AuditSinkOptions } from "./audit/open.js";
export { JsonlAuditSink, DEFAULT_OUTCOME_SYNC_MS, type JsonlAuditSinkOptions } from "./audit/jsonl.js";
export { SqliteAuditSink } from "./audit/sqlite.js";
export type { SqliteAuditSinkOptions } from "./audit/sqlite.js";
export { PostgresAuditSink } from "./audit/postgres.js";
export type { PostgresAuditSinkOptions } from "./audit/postgres.js";
export { MemoryAuditSink } from "./audit/memory.js";
export { auditArgs, redactArgs, REDACTED } from "./audit/redact.js";
export { auditId, followAudit } from "./audit/record.js";
export type { FollowAuditOptions } from "./audit/record.js";
export type { AuditQuery, AuditRecord, AuditSink, AuditStore } from "./audit/types.js";
export { shadowPart, summariseShadow } from "./audit/shadow-summary.js";
export type { ShadowPart, ShadowSummary } from "./audit/shadow-summary.js";

// Rolling out a policy: shadow decisions and replaying an audit log under another policy (docs/rollout.md).
export type { ShadowDecision } from "./guard/state.js";
export { replayAudit, summariseReplay } from "./replay/replay.js";
export type { ReplayDecision, ReplayedCall, ReplayOptions, ReplaySummary } from "./replay/replay.js";

// Killswitch.
export { Killswitch } from "./killswitch/killswitch.js";
export type { KillswitchOptions } from "./killswitch/killswitch.js";
export { sharedKillswitch } from "./killswitch/shared.js";
export type { KillswitchLease } from "./killswitch/shared.js";
export type { KillswitchDecision } from "./killswitch/compiled-policy.js";
export type { KillswitchTransition } from "./killswitch/transition-record.js";
export type { KillswitchConfigInput, KillswitchStatus, RemotePolicy } from "./killswitch/types.js";

// Storage: checkpointer, per-thread lock, exactly-once ledger.
export { openCheckpointer } from "./storage/checkpointer.js";
export type { CheckpointerKind, OpenCheckpointerOptions, OpenedCheckpointer } from "./storage/checkpointer.js";
export { acquireThreadLock } from "./storage/lock.js";
export type { ThreadLock, ThreadLockOptions } from "./storage/lock.js";
export { openLedger } from "./storage/ledger.js";
export type { ClaimOutcome, ExecutionLedger, LedgerAuditWrite, LedgerCompletion, OpenLedgerOptions } from "./storage/ledger.js";
export { listThreads } from "./storage/threads.js";
export type { ThreadSummary, UnsavedWrites } from "./storage/threads.js";
export { DEFAULT_STORAGE_SPEC } from "./storage/spec.js";
export { writesAfterTheirCheckpoint } from "./storage/write-order.js";

// The chat model: ChatOpenAI from the environment, else the scripted offline model.
export { createModel } from "./model/create-model.js";
export type { CreateModelOptions } from "./model/create-model.js";

// Errors: one family with stable codes (docs/errors.md).
export {
  AuditError,
  ErrorCode,
  GuardConfigError,
  GuardedGraphError,
  MissingDependencyError,
  ModelError,
  RulesError,
  StorageError,
  ToolCallLimitError,
  ToolDefinitionError,
} from "./errors/index.js";
export { MemoryError } from "./memory/errors.js";
export type { PgPool, SqliteDatabase } from "./optional/types.js";
