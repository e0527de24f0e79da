import { decisionContextOf } from "../provenance/context.js";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { interrupt } from "@langchain/langgraph";
import { z } from "zod";
import type { RuleState } from "../rules/types.js";
import { auditDecisions, auditHuman } from "./audit-trail.js";
import type { TurnContext } from "./audit-trail.js";
import type { Guard, RawToolCall } from "./guard.js";
import type { HumanDecisionType } from "./options.js";
import type { ReviewedCall } from "./state.js";
import { approvalDescription, approvalNotes, refusals } from "../messages/index.js";

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
  allowedDecisions: HumanDecisionType[];
  argsSchema?: Record<string, unknown>;
}

/** The value of the guard's approval interrupt: one per model turn, covering every call that asks. */
export interface ApprovalRequest {
  type: "guarded-graph/approval";
  actionRequests: ActionRequest[];
  reviewConfigs: ReviewConfig[];
}

const ArgsSchema = z.record(z.string(), z.unknown());

export const DecisionSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("approve"), toolCallId: z.string().optional() }),
  z.object({
    type: z.literal("edit"),
    toolCallId: z.string().optional(),
    editedAction: z.object({ name: z.string().min(1), args: ArgsSchema }),
  }),
  z.object({ type: z.literal("reject"), toolCallId: z.string().optional(), message: z.string().optional() }),
]);
export type Decision = z.infer<typeof DecisionSchema>;

/** Decisions in order (one per pending call), each optionally naming its call, or a map keyed by tool call id. */
export const ResumeSchema = z.object({
  decisions: z.union([z.array(DecisionSchema), z.record(z.string(), DecisionSchema)]),
  /** Who answered, for the audit log. */
  actor: z.string().optional(),
});
export type ApprovalResume = z.infer<typeof ResumeSchema>;

export function approvalRequest(
  pending: readonly ReviewedCall[],
  allowed: readonly HumanDecisionType[],
  argsSchemaOf: (name: string) => Record<string, unknown> | undefined,
): ApprovalRequest {
  return {
    type: "guarded-graph/approval",
    actionRequests: pending.map((call) => ({
      name: call.name,
      args: call.args,
      description: approvalDescription({ tool: call.name, risk: call.risk, ruleId: call.ruleId, reason: call.reason }),
      toolCallId: call.id,
      risk: call.risk,
      ruleId: call.ruleId,
      reason: call.reason,
    })),
    reviewConfigs: pending.map((call) => {
      const argsSchema = argsSchemaOf(call.name);
      return { actionName: call.name, allowedDecisions: [...allowed], ...(argsSchema ? { argsSchema } : {}) };
    }),
  };
}

/**
 * Matches decisions to pending calls, or says exactly why they do not fit. Ambiguous authorization
 * fails closed: wrong count, an unknown or repeated id, a missing call, or a decision type the call
 * does not allow all refuse the whole resume.
 */
export function matchDecisions(
  pending: readonly Pick<ReviewedCall, "id" | "name">[],
  resume: ApprovalResume,
  allowed: readonly HumanDecisionType[],
): { ok: true; decisions: Map<string, Decision> } | { ok: false; error: string } {
  const ids = pending.map((c) => c.id);
  const listing = pending.map((c) => `${c.id} (${c.name})`).join(", ");
  const byId = new Map<string, Decision>();
  const entries: [string | undefined, Decision][] = Array.isArray(resume.decisions)
    ? resume.decisions.map((d) => [d.toolCallId, d])
    : Object.entries(resume.decisions).map(([id, d]) => [id, d]);
  const keyed = entries.some(([id]) => id !== undefined);
  if (keyed && entries.some(([id]) => id === undefined)) {
    return { ok: false, error: "mix of decisions with and without toolCallId: key all of them or none" };
  }
  if (!keyed && entries.length !== pending.length) {
    return {
      ok: false,
      error: `expected ${pending.length} decision(s), one per pending call in order [${listing}], got ${entries.length}`,
    };
  }
  for (const [index, [maybeId, decision]] of entries.entries()) {
    const id = maybeId ?? ids[index];
    if (id === undefined || !ids.includes(id)) {
      return { ok: false, error: `decision for unknown tool call id "${id}"; pending calls: [${listing}]` };
    }
    if (byId.has(id)) return { ok: false, error: `two decisions for tool call ${id}` };
    if (!allowed.includes(decision.type)) {
      return { ok: false, error: `decision "${decision.type}" is not allowed for ${id}; allowed: ${allowed.join(", ")}` };
    }
    byId.set(id, decision);
  }
  const missing = ids.filter((id) => !byId.has(id));
  if (missing.length > 0) {
    return { ok: false, error: `no decision for pending call(s) ${missing.join(", ")}; every pending call needs one` };
  }
  return { ok: true, decisions: byId };
}

/** A resume value that does not answer the pending approval request. Nothing was recorded. */
export class ApprovalResumeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ApprovalResumeError";
  }
}

/** Checks a resume value against the pending calls without running anything (e.g. in a CLI before sending). */
export function checkResume(
  pending: readonly Pick<ReviewedCall, "id" | "name">[],
  value: unknown,
  allowed: readonly HumanDecisionType[],
): ApprovalResume {
  const parsed = ResumeSchema.safeParse(value);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
    throw new ApprovalResumeError(
      `invalid approval resume ${JSON.stringify(value) ?? String(value)}: expected { decisions: [...] } with one of approve | edit | reject per pending call (${detail})`,
    );
  }
  const match = matchDecisions(pending, parsed.data, allowed);
  if (!match.ok) throw new ApprovalResumeError(`invalid approval resume: ${match.error}`);
  return parsed.data;
}

/**
 * The resume schema LangGraph checks before it records the resume value: a resume that does not
 * fit is refused with an ApprovalResumeError, nothing is recorded, and the interrupt can be
 * answered again (a check after `interrupt()` returns would record the bad value for good).
 */
export function resumeSchemaFor(pending: readonly ReviewedCall[], allowed: readonly HumanDecisionType[]) {
  return z
    .unknown()
    .superRefine((value) => {
      checkResume(pending, value, allowed);
    })
    .describe("{ decisions: [{ type: approve | edit | reject, ... }] } — one per pending call, in order or keyed by toolCallId");
}

const ApprovalRequestSchema = z.object({
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
    z.object({
      actionName: z.string(),
      allowedDecisions: z.array(z.enum(["approve", "edit", "reject"])),
      argsSchema: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
});

const InterruptCarrier = z.object({ value: z.unknown() });

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
    const request = ApprovalRequestSchema.safeParse(carrier.data.value);
    if (request.success) return request.data;
  }
  return undefined;
}

/**
 * The approval step of one model turn: raises ONE approval interrupt for every reviewed call that
 * asks, parses the human's resume, applies each decision (approve; edit, reviewed again; reject) and
 * audits it. Returns the turn's calls with every "ask" replaced by its decided outcome, in order.
 * Everything before `interrupt` is pure apart from idempotent audit writes, so LangGraph can run it
 * again on resume. The turn engine calls this once per turn, after `guard.reviewTurn`.
 */
export async function resolveApprovals(
  guard: Guard,
  state: RuleState,
  calls: readonly RawToolCall[],
  reviewed: readonly ReviewedCall[],
  ctx: TurnContext,
  config: LangGraphRunnableConfig | undefined,
): Promise<ReviewedCall[]> {
  const pending = reviewed.filter((c) => c.outcome === "ask");
  if (pending.length === 0) return [...reviewed];
  const decided = new Map<string, ReviewedCall>(reviewed.map((c) => [c.id, c]));
  const request = approvalRequest(pending, guard.allowedDecisions, (name) => guard.spec(name)?.jsonSchema);
  const raw: unknown = interrupt(request, { responseSchema: resumeSchemaFor(pending, guard.allowedDecisions) });
  const resume = ResumeSchema.parse(raw);
  const match = matchDecisions(pending, resume, guard.allowedDecisions);
  if (!match.ok) throw new Error(match.error);
  for (const call of pending) {
    const decision = match.decisions.get(call.id);
    if (!decision) continue;
    if (decision.type === "approve") {
      decided.set(call.id, { ...call, outcome: "run", reason: approvalNotes.approved(call.reason) });
      await auditHuman(guard, ctx, call, "approve", resume.actor);
    } else if (decision.type === "reject") {
      decided.set(call.id, { ...call, outcome: "refuse", message: refusals.humanRejected(call.name, decision.message) });
      await auditHuman(guard, ctx, call, "reject", resume.actor, decision.message ? { message: decision.message } : undefined);
    } else {
      const edited = await reviewEdit(guard, state, calls, call, decision.editedAction, config, ctx);
      decided.set(call.id, edited);
      await auditHuman(guard, ctx, call, "edit", resume.actor, {
        editedAction: decision.editedAction,
        result: edited.outcome === "refuse" ? `refused by ${edited.ruleId}` : "approved",
      });
    }
  }
  const edits = [...decided.values()].filter((c) => c.edited);
  await auditDecisions(guard, ctx, edits);
  return reviewed.map((c) => decided.get(c.id) ?? c);
}

/**
 * An edited call is reviewed again from the start, in its place in the turn, so an edit can never
 * reach a denied tool or argument. If it would only ask, the human's edit is the approval.
 */
async function reviewEdit(
  guard: Guard,
  state: RuleState,
  calls: readonly RawToolCall[],
  original: ReviewedCall,
  editedAction: { name: string; args: Record<string, unknown> },
  config: LangGraphRunnableConfig | undefined,
  ctx: TurnContext,
): Promise<ReviewedCall> {
  const substituted = calls.map((c) => (c.id === original.id ? { id: c.id, ...editedAction } : c));
  const upTo = substituted.slice(0, substituted.findIndex((c) => c.id === original.id) + 1);
  const { reviewed } = await guard.reviewTurn(state, upTo, config, decisionContextOf(ctx));
  const again = reviewed[reviewed.length - 1];
  if (!again) throw new Error(`edited call ${original.id} vanished from its turn`);
  if (again.outcome === "refuse") {
    return {
      ...again,
      edited: true,
      message: refusals.editRefused(again.message ?? refusals.generic(again.name, again.ruleId, again.reason)),
    };
  }
  return { ...again, outcome: "run", edited: true, reason: approvalNotes.editedAndApproved(again.reason) };
}
