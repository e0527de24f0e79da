import { z } from "zod";
import { reaskedDescription } from "../../messages/approval.js";
import { approvalDescription } from "../../messages/index.js";
import type { HumanDecisionType } from "../options.js";
import type { ReviewedCall } from "../state.js";
import { ArgsSchema } from "./resume.js";

// ─── the interrupt payload ─────────────────────────────────────────────────────────────────────

/** One pending call, in LangChain v1 humanInTheLoopMiddleware's shape plus id, risk and the deciding rule. */
export interface ActionRequest {
  name: string;
  args: Record<string, unknown>;
  description: string;
  toolCallId: string;
  risk: string;
  ruleId: string;
  reason: string;
}

export interface ReviewConfig {
  actionName: string;
  /**
   * The same name again, in snake_case, on the camelCase config: the SDK's client-side rewrite
   * (`normalizeHitlInterruptPayload`, used by useStream and so by Agent Chat UI) replaces
   * `review_configs` with a copy of `reviewConfigs` and never adds `action_name`, which the UI's
   * `isAgentInboxInterruptSchema` requires.
   */
  action_name: string;
  allowedDecisions: HumanDecisionType[];
  argsSchema?: Record<string, unknown>;
}

/** The snake_case form Agent Chat UI reads (its `isAgentInboxInterruptSchema`). */
interface SnakeActionRequest {
  name: string;
  args: Record<string, unknown>;
  description: string;
  tool_call_id: string;
  risk: string;
  rule_id: string;
  reason: string;
}

interface SnakeReviewConfig {
  action_name: string;
  allowed_decisions: HumanDecisionType[];
  args_schema?: Record<string, unknown>;
}

/**
 * The value of the guard's approval interrupt: one per model turn, covering every call that asks.
 * Both casings carry the same content: camelCase for code written against humanInTheLoopMiddleware,
 * snake_case for Agent Chat UI and other Agent Inbox clients. `error` is set when the request is
 * asked again because the last resume did not fit.
 */
export interface ApprovalRequest {
  type: "guarded-graph/approval";
  actionRequests: ActionRequest[];
  reviewConfigs: ReviewConfig[];
  action_requests: SnakeActionRequest[];
  review_configs: SnakeReviewConfig[];
  error?: string | undefined;
}

export function approvalRequest(
  pending: readonly ReviewedCall[],
  allowed: readonly HumanDecisionType[] | ((call: ReviewedCall) => readonly HumanDecisionType[]),
  argsSchemaOf: (name: string) => Record<string, unknown> | undefined,
  error?: string,
  descriptionOf: (call: ReviewedCall) => string | undefined = () => undefined,
): ApprovalRequest {
  const allowedOf = typeof allowed === "function" ? allowed : () => allowed;
  const actionRequests: ActionRequest[] = pending.map((call) => {
    const description =
      descriptionOf(call) ?? approvalDescription({ tool: call.name, risk: call.risk, ruleId: call.ruleId, reason: call.reason });
    return {
      name: call.name,
      args: call.args,
      description: error === undefined ? description : reaskedDescription(error, description),
      toolCallId: call.id,
      risk: call.risk,
      ruleId: call.ruleId,
      reason: call.reason,
    };
  });
  const reviewConfigs: ReviewConfig[] = pending.map((call) => {
    const argsSchema = argsSchemaOf(call.name);
    return { actionName: call.name, action_name: call.name, allowedDecisions: [...allowedOf(call)], ...(argsSchema ? { argsSchema } : {}) };
  });
  return {
    type: "guarded-graph/approval",
    actionRequests,
    reviewConfigs,
    action_requests: actionRequests.map((a) => ({
      name: a.name,
      args: a.args,
      description: a.description,
      tool_call_id: a.toolCallId,
      risk: a.risk,
      rule_id: a.ruleId,
      reason: a.reason,
    })),
    review_configs: reviewConfigs.map((c) => ({
      action_name: c.actionName,
      allowed_decisions: [...c.allowedDecisions],
      ...(c.argsSchema ? { args_schema: c.argsSchema } : {}),
    })),
    ...(error === undefined ? {} : { error }),
  };
}

// ─── reading a pending request back ────────────────────────────────────────────────────────────

const ApprovalRequestSchema = z.lazy(() => z.object({
  type: z.literal("guarded-graph/approval"),
  actionRequests: z.array(
    z.object({
      name: z.string(),
      args: ArgsSchema,
      description: z.string(),
      toolCallId: z.string(),
      risk: z.string(),
      ruleId: z.string(),
      reason: z.string(),
    }),
  ),
  reviewConfigs: z.array(
    z
      .object({
        actionName: z.string(),
        // Requests checkpointed before the alias existed lack it.
        action_name: z.string().optional(),
        allowedDecisions: z.array(z.enum(["approve", "edit", "reject"])),
        argsSchema: z.record(z.string(), z.unknown()).optional(),
      })
      .transform(({ action_name, ...config }) => ({ ...config, action_name: action_name ?? config.actionName })),
  ),
  action_requests: z.array(
    z.object({
      name: z.string(),
      args: ArgsSchema,
      description: z.string(),
      tool_call_id: z.string(),
      risk: z.string(),
      rule_id: z.string(),
      reason: z.string(),
    }),
  ),
  review_configs: z.array(
    z.object({
      action_name: z.string(),
      allowed_decisions: z.array(z.enum(["approve", "edit", "reject"])),
      args_schema: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
  error: z.string().optional(),
}));

/** An interrupt value checked to be the guard's approval request (e.g. read back from a checkpoint); undefined otherwise. */
export function readApprovalRequest(value: unknown): ApprovalRequest | undefined {
  const parsed = ApprovalRequestSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

const InterruptCarrier = z.lazy(() => z.object({ value: z.unknown() }));

/**
 * The guard's pending approval request, read from what `invoke` returned (`__interrupt__`) or from a
 * state snapshot (`graph.getState(config)`, whose tasks carry the interrupts); undefined when none.
 */
export function pendingApproval(result: unknown): ApprovalRequest | undefined {
  if (result === null || typeof result !== "object") return undefined;
  const candidates: unknown[] = [];
  const direct = (result as { __interrupt__?: unknown }).__interrupt__;
  if (Array.isArray(direct)) candidates.push(...direct);
  const tasks = (result as { tasks?: unknown }).tasks;
  if (Array.isArray(tasks)) {
    for (const task of tasks) {
      const interrupts = (task as { interrupts?: unknown }).interrupts;
      if (Array.isArray(interrupts)) candidates.push(...interrupts);
    }
  }
  for (const candidate of candidates) {
    const carrier = InterruptCarrier.safeParse(candidate);
    if (!carrier.success) continue;
    const request = readApprovalRequest(carrier.data.value);
    if (request) return request;
  }
  return undefined;
}
