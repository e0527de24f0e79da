export { createGuardedAgent, buildGuardedGraph, GUARDED_NODES, agentNode, reviewNode, toolsNode, executeNode, collectNode, finishNode } from "./agent.js";
export type { GuardedNodeName } from "./agent.js";
export type { GuardedAgentOptions } from "./agent.js";
export { Guard } from "./guard.js";
export type { RawToolCall } from "./guard.js";
export { GuardedToolNode, guardedToolsRoute } from "./tool-node.js";
export type { GuardedToolNodeInput, GuardedToolNodeOutput } from "./tool-node.js";
export { guardFromPolicy, guardOptionsFromPolicy } from "./from-policy.js";
export type { PolicyGuard } from "./from-policy.js";
export {
  ApprovalResumeError,
  checkResume,
  DecisionSchema,
  matchDecisions,
  pendingApproval,
  ResumeSchema,
} from "./approval.js";
export { auditStickyRevoked, revokeSticky, screenRunInput, stickyDecisions } from "./approval.js";
export type {
  ActionRequest,
  ApprovalRequest,
  ApprovalResume,
  ApprovalState,
  Decision,
  DecisionEvent,
  InterruptOn,
  InterruptOnConfig,
  InterruptRequest,
  ReviewConfig,
  StickyDecision,
  StickyRequest,
} from "./approval.js";
export { GuardAnnotation, GuardedAgentState, emptyGuardState } from "./state.js";
export type { CallResult, GuardState, GuardedAgentStateType, ReviewedCall, TurnPlan } from "./state.js";
export type { GuardOptions, HumanDecisionType } from "./options.js";
export type { ExecutionLedgerView, KillswitchView, PermissionDecider } from "./interfaces.js";
export { partitionCalls } from "./partition.js";
export { truncateResult, truncateToolContent } from "./truncate.js";
export { DEFAULT_RISK_MODES, riskDecision } from "./risk.js";
export { continueThread, resumeThread, runThreadLocked, startThread, threadProgress } from "./durable.js";
export type { DurableGraph, DurableOutcome, DurableRunOptions, ThreadProgress } from "./durable.js";
