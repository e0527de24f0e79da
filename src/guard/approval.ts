import { isDeepStrictEqual } from "node:util";
import { AIMessage, RemoveMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { interrupt, REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { z } from "zod";
import { auditId } from "../audit/record.js";
import { canonicalArgs } from "../policy/canonical.js";
import { ErrorCode, GuardedGraphError } from "../errors/index.js";
import {
  decisionText,
  foreignAnswerReason,
  interruptOnReason,
  stickyRevokedReason,
  stickyUnknown,
  stickyWhileWaiting,
  QUOTE_LIMIT,
  reaskedDescription,
  resumeMatchRefused,
  resumeShapeRefused,
  supersededByInput,
  supersededReason,
} from "../messages/approval.js";
import { approvalDescription, approvalNotes, refusals } from "../messages/index.js";
import { decisionContextOf } from "../provenance/context.js";
import type { RuleState } from "../rules/types.js";
import type { AuditSink } from "../audit/types.js";
import { auditDecisions, auditHuman, baseRecord, decisionRecordId, humanRecordId, reviewDecision } from "./audit-trail.js";
import type { TurnContext } from "./audit-trail.js";
import type { Guard, RawToolCall } from "./guard.js";
import type { HumanDecisionType } from "./options.js";
import type { ReviewedCall } from "./state.js";
import { claimAnswer, supersededRecords, supersededReport } from "./answer-race.js";
import type { SupersededAnswer } from "./answer-race.js";

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

function approvalRequest(
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

// ─── the resume: strict, both casings ──────────────────────────────────────────────────────────

const ArgsSchema = z.record(z.string(), z.unknown());
const ActionSchema = z.strictObject({ name: z.string().min(1), args: ArgsSchema });
const CallId = z.string().min(1);

/** "Don't ask again": the same decision for later calls of this tool (optionally only with these argument values), for the run or the thread. */
const StickyInput = z.strictObject({ scope: z.enum(["run", "thread"]), args: ArgsSchema.optional() });

const ApproveInput = z.strictObject({
  type: z.literal("approve"),
  toolCallId: CallId.optional(),
  tool_call_id: CallId.optional(),
  sticky: StickyInput.optional(),
});
const EditInput = z.strictObject({
  type: z.literal("edit"),
  toolCallId: CallId.optional(),
  tool_call_id: CallId.optional(),
  editedAction: ActionSchema.optional(),
  edited_action: ActionSchema.optional(),
});
const RejectInput = z.strictObject({
  type: z.literal("reject"),
  toolCallId: CallId.optional(),
  tool_call_id: CallId.optional(),
  message: z.string().optional(),
  sticky: StickyInput.optional(),
});

/** A decision as a client sends it; unknown fields are refused, not dropped; either casing accepted, both only when they agree. */
const DecisionSchema = z
  .discriminatedUnion("type", [ApproveInput, EditInput, RejectInput])
  .superRefine((d, ctx) => {
    // The LangGraph SDK's normalizeHitlResponseForServer sends both casings with one value: that is
    // one answer. Two casings that disagree are a contradiction, refused.
    if (d.toolCallId !== undefined && d.tool_call_id !== undefined && d.toolCallId !== d.tool_call_id) {
      ctx.addIssue({ code: "custom", message: decisionText.spellingsDisagree("toolCallId", "tool_call_id") });
    }
    if (d.type === "edit") {
      if (d.editedAction !== undefined && d.edited_action !== undefined) {
        if (!isDeepStrictEqual(d.editedAction, d.edited_action)) {
          ctx.addIssue({ code: "custom", message: decisionText.spellingsDisagree("editedAction", "edited_action") });
        }
      } else if (d.editedAction === undefined && d.edited_action === undefined) {
        ctx.addIssue({ code: "custom", message: decisionText.editNeedsAction });
      }
    }
  })
  .transform((d): Decision => {
    const id = d.toolCallId ?? d.tool_call_id;
    const keyed = id === undefined ? {} : { toolCallId: id };
    const sticky = d.type !== "edit" && d.sticky !== undefined ? { sticky: d.sticky } : {};
    if (d.type === "approve") return { type: "approve", ...keyed, ...sticky };
    if (d.type === "reject") return { type: "reject", ...keyed, ...(d.message === undefined ? {} : { message: d.message }), ...sticky };
    const action = (d.editedAction ?? d.edited_action) as { name: string; args: Record<string, unknown> };
    return { type: "edit", ...keyed, editedAction: action };
  });

/** A decision after parsing: one casing (camelCase). */
export interface StickyRequest {
  scope: "run" | "thread";
  /** Only calls whose arguments have these values (each key compared in canonical form); all calls of the tool without it. */
  args?: Record<string, unknown>;
}

export type Decision =
  | { type: "approve"; toolCallId?: string; sticky?: StickyRequest }
  | { type: "edit"; toolCallId?: string; editedAction: { name: string; args: Record<string, unknown> } }
  | { type: "reject"; toolCallId?: string; message?: string; sticky?: StickyRequest };

/** Decisions in order (one per pending call), each optionally naming its call, or a map keyed by tool call id. */
const ResumeSchema = z.strictObject({
  decisions: z.union([z.array(DecisionSchema), z.record(CallId, DecisionSchema)]),
  /** Who answered, as the client claims it; kept in the audit record as a claim (see `approverOf`). */
  actor: z.string().max(QUOTE_LIMIT).optional(),
});
export interface ApprovalResume {
  decisions: Decision[] | Record<string, Decision>;
  actor?: string | undefined;
}

/**
 * Matches decisions to pending calls, or says exactly why they do not fit. Ambiguous authorization
 * fails closed: more decisions than calls, an unknown or repeated id, mixed keyed and unkeyed
 * decisions, or a decision type the call does not allow all refuse the whole resume. With `partial`,
 * some calls may be left unanswered (they stay pending): unkeyed decisions answer the first calls in
 * order (Agent Chat UI sends one decision for the one call it shows); without it every call needs one.
 */
export function matchDecisions(
  pending: readonly Pick<ReviewedCall, "id" | "name">[],
  resume: ApprovalResume,
  allowed: readonly HumanDecisionType[] | ReadonlyMap<string, readonly HumanDecisionType[]>,
  options: { partial?: boolean } = {},
): { ok: true; decisions: Map<string, Decision> } | { ok: false; error: string } {
  const ids = pending.map((c) => c.id);
  const listing = pending.map((c) => `${c.id} (${c.name})`).join(", ");
  const byId = new Map<string, Decision>();
  const entries: [string | undefined, Decision][] = Array.isArray(resume.decisions)
    ? resume.decisions.map((d) => [d.toolCallId, d])
    : Object.entries(resume.decisions).map(([id, d]) => [id, d]);
  const keyed = entries.some(([id]) => id !== undefined);
  if (keyed && entries.some(([id]) => id === undefined)) return { ok: false, error: decisionText.mixedKeys };
  if (entries.length === 0) return { ok: false, error: decisionText.none(listing) };
  if (!keyed && entries.length !== pending.length && options.partial !== true) {
    return { ok: false, error: decisionText.wrongCount(pending.length, listing, entries.length) };
  }
  if (!keyed && entries.length > pending.length) {
    return { ok: false, error: decisionText.tooMany(pending.length, listing, entries.length) };
  }
  for (const [index, [maybeId, decision]] of entries.entries()) {
    const id = maybeId ?? ids[index];
    if (id === undefined || !ids.includes(id)) {
      return { ok: false, error: decisionText.unknownId(quote(id), listing) };
    }
    if (byId.has(id)) return { ok: false, error: decisionText.twice(id) };
    const allowedHere = Array.isArray(allowed) ? allowed : ((allowed as ReadonlyMap<string, readonly HumanDecisionType[]>).get(id) ?? []);
    if (!allowedHere.includes(decision.type)) return { ok: false, error: decisionText.notAllowed(decision.type, id, allowedHere) };
    byId.set(id, decision);
  }
  const missing = ids.filter((id) => !byId.has(id));
  if (missing.length > 0 && options.partial !== true) return { ok: false, error: decisionText.missing(missing) };
  return { ok: true, decisions: byId };
}

/** A resume value that does not answer the pending approval request. Nothing was recorded. */
export class ApprovalResumeError extends GuardedGraphError {
  override name = "ApprovalResumeError";
  constructor(message: string) {
    super(ErrorCode.APPROVAL_RESUME, message);
  }
}

/** Checks a resume value against the pending calls without running anything (e.g. in a CLI before sending). */
export function checkResume(
  pending: readonly Pick<ReviewedCall, "id" | "name">[],
  value: unknown,
  allowed: readonly HumanDecisionType[] | ReadonlyMap<string, readonly HumanDecisionType[]>,
  options: { partial?: boolean } = {},
): ApprovalResume {
  const parsed = ResumeSchema.safeParse(value);
  if (!parsed.success) {
    const detail = parsed.error.issues
      .map((i) => `${i.path.map((p) => bounded(String(p), 40)).join(".") || "(root)"}: ${bounded(i.message, 120)}`)
      .join("; ");
    throw new ApprovalResumeError(resumeShapeRefused(quote(value), bounded(detail, QUOTE_LIMIT)));
  }
  const match = matchDecisions(pending, parsed.data, allowed, options);
  if (!match.ok) throw new ApprovalResumeError(resumeMatchRefused(match.error));
  return parsed.data;
}

/**
 * The resume schema handed to LangGraph's `interrupt`: a value that does not fit throws an
 * ApprovalResumeError inside `interrupt`, before LangGraph adds it to the task's resume values.
 */
function resumeSchemaFor(
  pending: readonly ReviewedCall[],
  allowed: readonly HumanDecisionType[] | ReadonlyMap<string, readonly HumanDecisionType[]>,
  options: { partial?: boolean; config?: LangGraphRunnableConfig | undefined } = {},
) {
  return z
    .unknown()
    .superRefine((value) => {
      if (isStaleResume(value, options.config)) throw new ApprovalResumeError(resumeMatchRefused(decisionText.staleResume));
      checkResume(pending, value, allowed, options);
    })
    .describe("{ decisions: [{ type: approve | edit | reject, ... }] } — one per pending call, in order or keyed by toolCallId");
}

/**
 * A resume keyed by interrupt ids (a map) that does not name this interrupt gives it no value; if
 * `interrupt()` still returns one, it is an older plain resume LangGraph kept in the checkpoint
 * (one refused by a caller that cannot come back for its calls, which re-asks inside the same task):
 * never taken as an answer.
 */
function isStaleResume(value: unknown, config: LangGraphRunnableConfig | undefined): boolean {
  const map: unknown = config?.configurable?.__pregel_resume_map;
  if (map === null || typeof map !== "object" || Array.isArray(map)) return false;
  return !Object.values(map as Record<string, unknown>).includes(value);
}

// ─── bounded quoting ───────────────────────────────────────────────────────────────────────────

function bounded(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/**
 * A JSON-like rendering of a client's value, at most QUOTE_LIMIT characters, built without ever
 * serializing more than that (a 10 MB field costs no more than a small one); cycles and odd values safe.
 */
export function quote(value: unknown, max: number = QUOTE_LIMIT): string {
  let out = "";
  const seen = new WeakSet<object>();
  const full = () => out.length >= max;
  const put = (text: string) => {
    if (!full()) out += text.slice(0, max - out.length + 1);
  };
  const walk = (v: unknown, depth: number): void => {
    if (full()) return;
    if (v === undefined) return put("undefined");
    if (v === null || typeof v === "boolean" || typeof v === "number") return put(String(v));
    if (typeof v === "bigint") return put(`${v}n`);
    if (typeof v === "string") return put(JSON.stringify(v.slice(0, max)));
    if (typeof v !== "object") return put(`[${typeof v}]`);
    if (seen.has(v)) return put("[circular]");
    if (depth > 20) return put("…");
    seen.add(v);
    if (Array.isArray(v)) {
      put("[");
      for (let i = 0; i < v.length && !full(); i += 1) {
        if (i > 0) put(",");
        walk(v[i], depth + 1);
      }
      return put("]");
    }
    put("{");
    let first = true;
    for (const key in v) {
      if (full()) break;
      if (!Object.prototype.hasOwnProperty.call(v, key)) continue;
      if (!first) put(",");
      first = false;
      put(`${JSON.stringify(key.slice(0, max))}:`);
      walk((v as Record<string, unknown>)[key], depth + 1);
    }
    put("}");
  };
  walk(value, 0);
  return out.length > max ? `${out.slice(0, max)}…` : out;
}

// ─── approver identity ─────────────────────────────────────────────────────────────────────────

const PlatformUser = z.object({ identity: z.string().min(1), is_authenticated: z.boolean().optional() }).passthrough();

/**
 * Who answered: on LangGraph Platform the authenticated user of the run (`langgraph_auth_user` in
 * the run's configurable, set by the server's auth handler); a client-supplied `actor` is only a
 * claim. Without a platform user (a local graph), the claim is all there is and is recorded as such.
 */
function approverOf(
  config: LangGraphRunnableConfig | undefined,
  claimed: string | undefined,
): { actor: string | undefined; detail: Record<string, unknown> } {
  const user = PlatformUser.safeParse(config?.configurable?.langgraph_auth_user);
  const verified = user.success && user.data.is_authenticated !== false ? user.data.identity : undefined;
  if (verified !== undefined) {
    return { actor: verified, detail: { actorSource: "langgraph_auth_user", ...(claimed !== undefined ? { claimedActor: claimed } : {}) } };
  }
  return { actor: claimed, detail: claimed !== undefined ? { actorSource: "claim", claimedActor: claimed } : {} };
}

// ─── decision events in the custom stream ──────────────────────────────────────────────────────

/**
 * Written through LangGraph's custom stream mode (`config.writer`) as each decision is made:
 * the guard's review (allow / deny / ask) before any interrupt, then each human decision.
 * `id` equals the audit record's id: events re-emitted when review re-runs on resume carry the same id.
 */
export interface DecisionEvent {
  type: "guarded-graph/decision";
  id: string;
  /** `review` for the guard's own decision, `human` for a reviewer's, `resume-refused` for a resume that did not fit. */
  source: "review" | "human" | "resume-refused";
  decision: "allow" | "deny" | "ask" | "approve" | "edit" | "reject" | "refused" | "superseded";
  toolCallId: string;
  tool: string;
  ruleId: string;
  reason: string;
  risk: string;
  threadId: string;
  runId: string;
  messageId: string;
  actor?: string | undefined;
}

type Writer = (chunk: unknown) => void;

function writerOf(config: LangGraphRunnableConfig | undefined): Writer | undefined {
  const w = (config as { writer?: unknown } | undefined)?.writer;
  return typeof w === "function" ? (w as Writer) : undefined;
}

/** A human's (or a standing decision's) answer to one call: one audit record and one decision event. */
async function recordHuman(
  guard: Guard,
  ctx: TurnContext,
  call: ReviewedCall,
  decision: "approve" | "edit" | "reject",
  actor: string | undefined,
  detail: Parameters<typeof auditHuman>[5],
  writer: Writer | undefined,
): Promise<void> {
  await auditHuman(guard, ctx, call, decision, actor, detail);
  writer?.({
    ...reviewEvent(ctx, call),
    id: humanRecordId(ctx, call),
    source: "human",
    decision,
    actor,
  } satisfies DecisionEvent);
}

function reviewEvent(ctx: TurnContext, call: ReviewedCall): DecisionEvent {
  return {
    type: "guarded-graph/decision",
    id: decisionRecordId(ctx, call),
    source: "review",
    decision: reviewDecision(call),
    toolCallId: call.id,
    tool: call.name,
    ruleId: call.ruleId,
    reason: call.reason,
    risk: call.risk,
    threadId: ctx.threadId,
    runId: ctx.runId,
    messageId: ctx.messageId,
  };
}

/** Writes one review event per call (allow / deny / ask) to the custom stream, in model order. */
function emitReviewEvents(ctx: TurnContext, reviewed: readonly ReviewedCall[], config: LangGraphRunnableConfig | undefined): void {
  const writer = writerOf(config);
  if (!writer) return;
  for (const call of reviewed) writer(reviewEvent(ctx, call));
}

// ─── per-tool approval config (LangChain's `interruptOn`) ──────────────────────────────────────

/** The call as LangChain's HITL middleware hands it to `description` and `when`. */
interface InterruptToolCall {
  type: "tool_call";
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/** What the guard can show of the graph state: the thread's messages as checkpointed. */
interface InterruptState {
  messages: readonly BaseMessage[];
}

/** The run's runtime, as LangChain's middleware Runtime names it. */
interface InterruptRuntime {
  configurable: Record<string, unknown> | undefined;
  context: unknown;
  store: unknown;
  writer: ((chunk: unknown) => void) | undefined;
  signal: AbortSignal | undefined;
}

export interface InterruptRequest {
  toolCall: InterruptToolCall;
  /** Always undefined, as in LangChain: the predicate runs at review, before any tool is chosen to run. */
  tool: undefined;
  state: InterruptState;
  runtime: InterruptRuntime;
}

/**
 * Per-tool approval settings, with the names and meaning of LangChain's `interruptOn` where that is
 * safe. Unlike LangChain, this can only make the guard stricter: a policy "ask" is never turned
 * into "allow", and a deny is never touched.
 */
export interface InterruptOnConfig {
  /** Decisions a reviewer may take on this tool's calls (default: the guard's `allowedDecisions`). */
  allowedDecisions?: readonly HumanDecisionType[];
  /** Shown to the reviewer instead of the guard's description. */
  description?: string | ((toolCall: InterruptToolCall, state: InterruptState, runtime: InterruptRuntime) => string | Promise<string>);
  /** JSON schema of the arguments shown for edits (default: the tool's own schema). */
  argsSchema?: Record<string, unknown>;
  /** Whether a call the policy allows asks anyway (default: always). A policy "ask" asks regardless. */
  when?: (request: InterruptRequest) => boolean | Promise<boolean>;
}

/**
 * Tool name → `true` (calls the policy allows ask too, every decision allowed), `false` (nothing
 * added: the policy decides; LangChain would auto-approve, which could weaken a policy "ask"), or a
 * config.
 */
export type InterruptOn = Readonly<Record<string, boolean | InterruptOnConfig>>;

function interruptConfigOf(guard: Guard, tool: string): InterruptOnConfig | undefined {
  const entry = guard.options.interruptOn?.[tool];
  if (entry === undefined || entry === false) return undefined;
  return entry === true ? {} : entry;
}

function runtimeOf(config: LangGraphRunnableConfig | undefined): InterruptRuntime {
  const c = config as (LangGraphRunnableConfig & { context?: unknown }) | undefined;
  return { configurable: c?.configurable, context: c?.context, store: c?.store, writer: writerOf(config), signal: c?.signal };
}

function toolCallOf(call: Pick<ReviewedCall, "id" | "name" | "args">): InterruptToolCall {
  return { type: "tool_call", id: call.id, name: call.name, args: call.args };
}

/**
 * `interruptOn` applied to a reviewed turn, before it is audited: a call the policy allows asks when
 * its tool is listed (and `when` says so). Deny and ask are left as they are.
 */
export async function applyInterruptOn(
  guard: Guard,
  reviewed: readonly ReviewedCall[],
  ctx: TurnContext,
  config: LangGraphRunnableConfig | undefined,
): Promise<ReviewedCall[]> {
  const out: ReviewedCall[] = [];
  for (const call of reviewed) {
    const settings = call.outcome === "run" ? interruptConfigOf(guard, call.name) : undefined;
    if (!settings) {
      out.push(call);
      continue;
    }
    const request: InterruptRequest = { toolCall: toolCallOf(call), tool: undefined, state: { messages: ctx.messages ?? [] }, runtime: runtimeOf(config) };
    const asks = settings.when === undefined ? true : await settings.when(request);
    out.push(asks === true ? { ...call, outcome: "ask", ruleId: `interruptOn:${call.name}`, reason: interruptOnReason() } : call);
  }
  return out;
}

interface ReviewSettings {
  allowed: readonly HumanDecisionType[];
  description: string | undefined;
  argsSchema: Record<string, unknown> | undefined;
}

async function reviewSettingsOf(
  guard: Guard,
  call: ReviewedCall,
  ctx: TurnContext,
  config: LangGraphRunnableConfig | undefined,
): Promise<ReviewSettings> {
  const settings = interruptConfigOf(guard, call.name);
  const describe = settings?.description;
  const description =
    typeof describe === "function" ? await describe(toolCallOf(call), { messages: ctx.messages ?? [] }, runtimeOf(config)) : describe;
  return {
    allowed: settings?.allowedDecisions ?? guard.allowedDecisions,
    description,
    argsSchema: settings?.argsSchema ?? guard.spec(call.name)?.jsonSchema,
  };
}

// ─── the approval step ─────────────────────────────────────────────────────────────────────────

/** What the approval step keeps in the checkpointed guard state (`GuardState.approvals`). */
export interface ApprovalState {
  /** The last resume that did not fit, for the model message whose calls are pending: shown when asked again. */
  refused: { messageId: string; error: string } | null;
  /**
   * The open calls of a turn waiting for a human (those that ask and the others of the turn, which
   * the guard has not answered yet), recorded before the interrupt is raised (graphs that route back
   * only): at run start, new input finds them here, so no ToolMessage of the input is taken as their result.
   */
  pending?: { messageId: string; callIds: string[] } | null | undefined;
  /** The model message whose review last completed (its decisions were written with the turn): at run start, a later one with open calls was never answered by the guard. */
  reviewed?: { messageId: string } | null | undefined;
  /** Standing decisions ("don't ask again"), checkpointed with the thread; see `stickyDecisions`. */
  sticky?: StickyDecision[] | undefined;
  /** Set by the step whose answer lost to another answer sent at the same time (answer-race.ts); read it with `supersededAnswer`. */
  superseded?: SupersededAnswer | null | undefined;
}

/**
 * A standing decision a reviewer made: later calls of `tool` (with `args`' values, if given) that
 * would ask are approved or rejected without asking, for the run it was made in or for the thread.
 * Only asks are answered this way: a deny is never overridden, and neither is a killswitch ask.
 */
export interface StickyDecision {
  /** Stable id (revoke with it). */
  id: string;
  decision: "approve" | "reject";
  tool: string;
  args?: Record<string, unknown> | undefined;
  scope: "run" | "thread";
  /** The run it was made in (a "run" decision holds only there). */
  runId: string;
  /** The call whose decision made it. */
  toolCallId: string;
  actor?: string | undefined;
  at: number;
  /** A standing reject's note to the model. */
  message?: string | undefined;
}

export function emptyApprovalState(): ApprovalState {
  return { refused: null, pending: null, sticky: [] };
}

/** The standing decisions of a thread's guard state (e.g. `(await graph.getState(config)).values.guard`), in the order made. */
export function stickyDecisions(guardState: { approvals?: ApprovalState | undefined } | undefined): StickyDecision[] {
  return [...(guardState?.approvals?.sticky ?? [])];
}

function stickyHolds(s: StickyDecision, call: Pick<ReviewedCall, "name" | "args" | "ruleId">, runId: string): boolean {
  if (s.tool !== call.name || call.ruleId.startsWith("killswitch:")) return false;
  if (s.scope === "run" && s.runId !== runId) return false;
  return Object.entries(s.args ?? {}).every(([key, value]) => canonicalArgs({ v: call.args[key] }) === canonicalArgs({ v: value }));
}

/** The standing decision for a call that asks: a standing reject wins over a standing approve. */
function stickyFor(list: readonly StickyDecision[], call: ReviewedCall, runId: string): StickyDecision | undefined {
  const holding = list.filter((s) => stickyHolds(s, call, runId));
  return holding.find((s) => s.decision === "reject") ?? holding[0];
}

interface ApprovalStep {
  /** The turn's calls in order, every answered "ask" replaced by its decided outcome (unanswered ones stay "ask"). */
  calls: ReviewedCall[];
  /** The approval state to checkpoint with the guard state. */
  approvals: ApprovalState;
  /**
   * The resume did not fit and `routeBack` was set: nothing was decided; the caller must finish
   * its step with `approvals` written and run the review step again (which asks again).
   */
  retry: boolean;
}

export interface ApprovalStepOptions {
  /** Approval state from the checkpointed guard state (absent in checkpoints older than it). */
  approvals?: ApprovalState | undefined;
  /**
   * Whether the caller's graph runs review again while the model message still has open calls
   * (createGuardedAgent does; GuardedToolNode and the middleware cannot). When it does:
   * - a resume that does not fit ends the step with `retry` (nothing decided) and review asks again
   *   in the next step, so the head checkpoint keeps no trace of the refused value;
   * - partial answers: calls left unanswered stay pending (no ToolMessage) and are asked again
   *   after the answered ones ran.
   * When it does not (default), a resume that does not fit raises the same interrupt again at once,
   * inside the same task, unless `partial` is set (the caller comes back: the step ends, see below).
   */
  routeBack?: boolean;
  /**
   * Whether the caller comes back for calls a partial answer left open (default: `routeBack`):
   * answered calls go ahead, the others stay pending (no ToolMessage, `pending` lists them) and are
   * reviewed and asked again by the caller's next review. Without it every pending call needs a
   * decision. All three entry points set it (GuardedToolNode goes back to itself, the middleware
   * asks again in beforeModel). A resume that does not fit is then a partial answer of none: the step
   * ends with `retry` and every call waiting, so LangGraph's pending `__resume__` write of the
   * refused value goes with the step and nothing is left to replay.
   */
  partial?: boolean;
}

/**
 * The approval step of one model turn: raises ONE approval interrupt for every reviewed call that
 * asks, parses the human's resume strictly, applies each decision (approve; edit, reviewed again;
 * reject), audits it and writes it to the custom stream. A resume that does not fit is asked again
 * with its error, never fails the run. Everything before `interrupt` is pure apart from idempotent
 * audit writes and stream events, so LangGraph can run it again on resume.
 */
export async function resolveApprovals(
  guard: Guard,
  state: RuleState,
  calls: readonly RawToolCall[],
  reviewedInput: readonly ReviewedCall[],
  ctx: TurnContext,
  config: LangGraphRunnableConfig | undefined,
  options: ApprovalStepOptions = {},
): Promise<ApprovalStep> {
  let reviewed: readonly ReviewedCall[] = reviewedInput;
  const approvals = options.approvals ?? emptyApprovalState();
  const standing = approvals.sticky ?? [];
  const asking = reviewed.filter((c) => c.outcome === "ask");
  const byStanding = new Map(asking.flatMap((c) => {
    const s = stickyFor(standing, c, ctx.runId);
    return s ? [[c.id, s] as const] : [];
  }));
  const pending = asking.filter((c) => !byStanding.has(c.id));
  const settled: ApprovalState = { refused: null, pending: null, sticky: standing, reviewed: { messageId: ctx.messageId } };
  // Every open call of the turn waits while the human decides (the guard has answered none of them yet).
  const waiting = { messageId: ctx.messageId, callIds: calls.map((c) => c.id) };
  if (pending.length > 0 && options.routeBack === true && !samePending(approvals.pending, waiting)) {
    // Record what waits for a human in the checkpoint first; the next review step raises the interrupt.
    return { calls: [...reviewed], approvals: { refused: approvals.refused ?? null, pending: waiting, sticky: standing }, retry: true };
  }
  emitReviewEvents(ctx, reviewed, config);
  const afterStanding = await applyStanding(guard, reviewed, byStanding, ctx, config);
  if (pending.length === 0) return { calls: afterStanding, approvals: settled, retry: false };
  reviewed = afterStanding;

  const settings = new Map<string, ReviewSettings>();
  for (const call of pending) settings.set(call.id, await reviewSettingsOf(guard, call, ctx, config));
  const allowed = new Map(pending.map((c) => [c.id, settings.get(c.id)?.allowed ?? guard.allowedDecisions]));
  const allowedOf = (call: ReviewedCall) => allowed.get(call.id) ?? guard.allowedDecisions;
  const descriptionOf = (call: ReviewedCall) => settings.get(call.id)?.description;
  const schemaByName = new Map(pending.map((c) => [c.name, settings.get(c.id)?.argsSchema]));
  const argsSchemaOf = (name: string) => schemaByName.get(name);
  const shownError = approvals.refused?.messageId === ctx.messageId ? approvals.refused.error : undefined;
  const partial = options.partial ?? options.routeBack === true;
  const responseSchema = resumeSchemaFor(pending, allowed, { partial, config });
  let raw: unknown;
  let error = shownError;
  for (;;) {
    try {
      raw = interrupt(approvalRequest(pending, allowedOf, argsSchemaOf, error, descriptionOf), { responseSchema });
      break;
    } catch (caught) {
      if (!(caught instanceof ApprovalResumeError)) throw caught;
      error = caught.message;
      emitRefused(ctx, pending, error, config);
      if (partial) {
        // Nothing was decided: every call of the turn stays waiting and the caller comes back for it
        // (review again, GuardedToolNode's goto itself, the middleware's beforeModel) in a NEW step.
        // Ending this step is what drops the refused value: LangGraph keeps a plain resume as a
        // pending write of the head checkpoint until a step completes, and invoke(null) or a resume
        // keyed by another interrupt id would hand it back (test/refused-resume-replay.test.ts).
        return { calls: [...reviewed], approvals: { refused: { messageId: ctx.messageId, error }, pending: waiting, sticky: standing }, retry: true };
      }
      // A caller that cannot come back (GuardedToolNode run outside a graph): LangGraph did not add
      // the refused value to this task's resume values; the next interrupt has the same id as the
      // first and waits for the next answer (GraphInterrupt ends the task).
    }
  }
  const resume = ResumeSchema.parse(raw) as ApprovalResume;
  const own = matchDecisions(pending, resume, allowed, { partial });
  if (!own.ok) throw new ApprovalResumeError(resumeMatchRefused(own.error));
  // Another answer sent at the same time without the thread lock: the one that won the ledger's claim is applied (answer-race.ts).
  const mine = { resume, approver: approverOf(config, resume.actor) };
  const race = await claimAnswer(guard, ctx, state.run, pending.map((c) => c.id), mine);
  const match = race.lost ? matchDecisions(pending, race.applied.resume as ApprovalResume, allowed, { partial }) : own;
  if (!match.ok) throw new ApprovalResumeError(resumeMatchRefused(match.error));
  const superseded = race.lost ? supersededReport(ctx, mine, own.decisions, race.applied, match.decisions) : undefined;

  const approver = race.applied.approver;
  const decided = new Map<string, ReviewedCall>(reviewed.map((c) => [c.id, c]));
  const added: StickyDecision[] = [];
  const writer = writerOf(config);
  for (const call of pending) {
    const decision = match.decisions.get(call.id);
    if (!decision) continue;
    const detail: Record<string, unknown> = { ...approver.detail };
    if (decision.type === "approve") {
      decided.set(call.id, { ...call, outcome: "run", reason: approvalNotes.approved(call.reason) });
    } else if (decision.type === "reject") {
      decided.set(call.id, { ...call, outcome: "refuse", message: refusals.humanRejected(call.name, decision.message) });
      if (decision.message) detail.message = decision.message;
    } else {
      const edited = await reviewEdit(guard, state, calls, call, decision.editedAction, config, ctx);
      decided.set(call.id, edited);
      detail.editedAction = decision.editedAction;
      detail.result = edited.outcome === "refuse" ? `refused by ${edited.ruleId}` : "approved";
    }
    if (decision.type !== "edit" && decision.sticky !== undefined) {
      const made: StickyDecision = {
        id: auditId([ctx.threadId, ctx.messageId, call.id, "sticky"]),
        decision: decision.type,
        tool: call.name,
        ...(decision.sticky.args !== undefined ? { args: decision.sticky.args } : {}),
        scope: decision.sticky.scope,
        runId: ctx.runId,
        toolCallId: call.id,
        ...(approver.actor !== undefined ? { actor: approver.actor } : {}),
        at: guard.now(),
        ...(decision.type === "reject" && decision.message ? { message: decision.message } : {}),
      };
      added.push(made);
      detail.sticky = { id: made.id, scope: made.scope, ...(made.args ? { args: made.args } : {}) };
    }
    await recordHuman(guard, ctx, call, decision.type, approver.actor, Object.keys(detail).length > 0 ? detail : undefined, writer);
  }
  if (superseded) {
    const records = supersededRecords(guard, ctx, pending, superseded, mine);
    await guard.options.audit?.write(records);
    for (const record of records) {
      const call = pending.find((c) => c.id === record.toolCallId);
      if (call) writer?.({ ...reviewEvent(ctx, call), id: record.id, source: "human", decision: "superseded", actor: record.actor } satisfies DecisionEvent);
    }
  }
  const edits = [...decided.values()].filter((c) => c.edited);
  await auditDecisions(guard, ctx, edits);
  for (const edit of edits) writer?.(reviewEvent(ctx, edit));
  // Partial answer: the calls left unanswered are still waiting (review asks again after the others ran).
  const left = pending.filter((c) => !match.decisions.has(c.id)).map((c) => c.id);
  const sticky = [...standing, ...added.filter((a) => !standing.some((s) => s.id === a.id))];
  const after: ApprovalState = {
    refused: null,
    pending: left.length > 0 ? { messageId: ctx.messageId, callIds: left } : null,
    sticky,
    reviewed: { messageId: ctx.messageId },
    ...(superseded ? { superseded } : {}),
  };
  return { calls: reviewed.map((c) => decided.get(c.id) ?? c), approvals: after, retry: false };
}

/** Calls answered by a standing decision: decided like a human's answer, audited with the decision's id. */
async function applyStanding(
  guard: Guard,
  reviewed: readonly ReviewedCall[],
  byStanding: ReadonlyMap<string, StickyDecision>,
  ctx: TurnContext,
  config: LangGraphRunnableConfig | undefined,
): Promise<ReviewedCall[]> {
  const out: ReviewedCall[] = [];
  const writer = writerOf(config);
  for (const call of reviewed) {
    const standing = byStanding.get(call.id);
    if (!standing) {
      out.push(call);
      continue;
    }
    const decided: ReviewedCall =
      standing.decision === "approve"
        ? // Not a human's look at this call: a killswitch that asks by the time it starts still stops it.
          { ...call, outcome: "run", reason: approvalNotes.approved(call.reason), approved: false }
        : { ...call, outcome: "refuse", message: refusals.humanRejected(call.name, standing.message) };
    out.push(decided);
    await recordHuman(guard, ctx, call, standing.decision, standing.actor, { sticky: { id: standing.id, scope: standing.scope, madeFor: standing.toolCallId } }, writer);
  }
  return out;
}

/**
 * The guard state without one standing decision (unknown id: unchanged, `revoked` false). Write the
 * result back with `graph.updateState(config, { guard })` on a thread that is not waiting for an
 * approval, and audit it with `auditStickyRevoked`.
 */
export function revokeSticky<G extends { approvals?: ApprovalState | undefined }>(guardState: G, id: string): { guard: G; revoked: StickyDecision | undefined } {
  const list = guardState.approvals?.sticky ?? [];
  const revoked = list.find((s) => s.id === id);
  if (!revoked) return { guard: guardState, revoked: undefined };
  const approvals: ApprovalState = { ...(guardState.approvals ?? emptyApprovalState()), sticky: list.filter((s) => s.id !== id) };
  return { guard: { ...guardState, approvals }, revoked };
}

/** The audit record of a revoked standing decision (event "human", decision "revoke"). */
export async function auditStickyRevoked(
  audit: AuditSink | undefined,
  threadId: string,
  revoked: StickyDecision,
  actor: string | undefined,
  at: number = Date.now(),
): Promise<void> {
  await audit?.write([
    {
      id: auditId([threadId, revoked.id, "revoke"]),
      at,
      threadId,
      runId: revoked.runId,
      toolCallId: revoked.toolCallId,
      tool: revoked.tool,
      args: canonicalArgs(revoked.args ?? {}),
      event: "human",
      decision: "revoke",
      ruleId: `sticky:${revoked.id}`,
      reason: stickyRevokedReason(revoked.decision, revoked.scope),
      actor,
      detail: { sticky: { id: revoked.id, scope: revoked.scope } },
    },
  ]);
}

/** A standing decision could not be revoked (unknown id, or the thread waits for an approval). Nothing was changed. */
export class StickyRevokeError extends GuardedGraphError {
  override name = "StickyRevokeError";
  constructor(message: string) {
    super(ErrorCode.STICKY_REVOKE, message);
  }
}

/** What `listSticky` / `revokeStickyDecision` need of a compiled graph with the guard's state (createGuardedAgent, or a graph with `GuardAnnotation`). */
export interface StickyThreadGraph {
  getState(config: LangGraphRunnableConfig): Promise<{ values: unknown; tasks: readonly { interrupts?: readonly unknown[] }[] }>;
  updateState(config: LangGraphRunnableConfig, values: Record<string, unknown>): Promise<unknown>;
}

const GuardValues = z.object({ guard: z.object({ approvals: z.object({ sticky: z.array(z.unknown()).optional() }).loose().optional() }).loose().optional() }).loose();

function guardStateOf(values: unknown): { approvals?: ApprovalState } & Record<string, unknown> {
  const parsed = GuardValues.safeParse(values);
  return (parsed.success ? (parsed.data.guard ?? {}) : {}) as { approvals?: ApprovalState } & Record<string, unknown>;
}

/** The standing decisions of a thread, read from its latest checkpoint, in the order made. */
export async function listSticky(graph: StickyThreadGraph, threadId: string): Promise<StickyDecision[]> {
  const state = await graph.getState({ configurable: { thread_id: threadId } });
  return stickyDecisions(guardStateOf(state.values));
}

/**
 * Revokes one standing decision of a thread: the guard state without it is written as a new
 * checkpoint, then one `revoke` audit record (event "human") names who revoked it. Refused, with
 * nothing changed, when the id is unknown or the thread waits for an approval. Later calls that
 * the decision answered ask again.
 */
export async function revokeStickyDecision(
  graph: StickyThreadGraph,
  threadId: string,
  id: string,
  options: { audit?: AuditSink | undefined; actor?: string | undefined; at?: number } = {},
): Promise<StickyDecision> {
  const config = { configurable: { thread_id: threadId } };
  const state = await graph.getState(config);
  if (pendingApproval(state) !== undefined) throw new StickyRevokeError(stickyWhileWaiting(threadId));
  const guard = guardStateOf(state.values);
  const { guard: without, revoked } = revokeSticky(guard, id);
  if (!revoked) throw new StickyRevokeError(stickyUnknown(threadId, id, stickyDecisions(guard).map((s) => s.id)));
  await graph.updateState(config, { guard: without });
  await auditStickyRevoked(options.audit, threadId, revoked, options.actor, options.at ?? Date.now());
  return revoked;
}

function samePending(a: ApprovalState["pending"], b: { messageId: string; callIds: string[] }): boolean {
  return a !== null && a !== undefined && a.messageId === b.messageId && a.callIds.join("\u0000") === b.callIds.join("\u0000");
}

// ─── new input while an approval is pending ────────────────────────────────────────────────────

/**
 * Entry points that cannot record `pending` before they interrupt (the middleware, `unreviewed`),
 * where every model message with calls is reviewed right after it is made: the last model
 * message with calls whose review never completed (it is not `approvals.reviewed`) had none of its
 * calls answered by the guard, so all of them wait.
 */
function unreviewedTurn(approvals: ApprovalState | undefined, messages: readonly BaseMessage[]): ApprovalState["pending"] {
  const index = messages.findLastIndex((m) => AIMessage.isInstance(m));
  const ai = messages[index];
  if (!ai || !AIMessage.isInstance(ai) || ai.id === undefined) return null;
  const callIds = (ai.tool_calls ?? []).flatMap((c) => (c.id === undefined ? [] : [c.id]));
  if (callIds.length === 0 || approvals?.reviewed?.messageId === ai.id) return null;
  return { messageId: ai.id, callIds };
}

export interface ScreenedInput {
  /** The thread's messages as the model must see them: the pending calls answered by the guard's refusal, foreign results gone. */
  messages: BaseMessage[];
  /** The `messages` update that writes that list (put it first in the node's `messages` update). */
  update: BaseMessage[];
  approvals: ApprovalState;
}

/**
 * Run start: new user input arrived while calls waited for a human (`approvals.pending`). The guard
 * alone answers guarded calls: a ToolMessage in the input for a pending call (Agent Chat UI adds
 * "Successfully handled tool call." when the user types instead of clicking) is dropped and never
 * taken as its result; each pending call is rejected instead, with an audit record and a ToolMessage
 * saying why, placed right after the model message (before the new input) so the thread stays valid.
 * Undefined when nothing waits.
 */
export async function screenRunInput(
  guard: Guard,
  approvals: ApprovalState | undefined,
  messages: readonly BaseMessage[],
  ctx: Omit<TurnContext, "messageId">,
  config: LangGraphRunnableConfig | undefined,
  options: { unreviewed?: boolean } = {},
): Promise<ScreenedInput | undefined> {
  const waiting = approvals?.pending ?? (options.unreviewed === true ? unreviewedTurn(approvals, messages) : null);
  if (!waiting || waiting.callIds.length === 0) return undefined;
  const index = messages.findLastIndex(
    (m) => AIMessage.isInstance(m) && (m.tool_calls ?? []).some((c) => c.id !== undefined && waiting.callIds.includes(c.id)),
  );
  const ai = messages[index];
  if (index < 0 || !ai || !AIMessage.isInstance(ai)) return undefined;
  // The model step runs while calls wait only when a client sent input instead of an answer
  // (user text, ToolMessages, or a state update): whatever came, the waiting calls are settled here.
  const tail = messages.slice(index + 1);
  const foreign = new Map<string, ToolMessage>();
  for (const m of tail) {
    if (ToolMessage.isInstance(m) && waiting.callIds.includes(m.tool_call_id)) foreign.set(m.tool_call_id, m);
  }
  const turn: TurnContext = { ...ctx, messageId: waiting.messageId };
  const refusals: ToolMessage[] = [];
  const records = [];
  for (const call of ai.tool_calls ?? []) {
    if (call.id === undefined || !waiting.callIds.includes(call.id)) continue;
    const risk = guard.riskOf(call.name);
    const dropped = foreign.get(call.id);
    const reason = dropped ? foreignAnswerReason(quote(dropped.content)) : supersededReason;
    const refused: ReviewedCall = {
      id: call.id,
      name: call.name,
      args: call.args,
      outcome: "refuse",
      ruleId: "approval:superseded",
      reason,
      risk,
      concurrencySafe: false,
      requestHeartbeat: false,
      message: supersededByInput(call.name),
    };
    refusals.push(new ToolMessage({ content: supersededByInput(call.name), tool_call_id: call.id, name: call.name, status: "error" }));
    records.push({
      ...baseRecord(guard, turn, refused),
      id: auditId([turn.threadId, turn.messageId, call.id, "superseded"]),
      event: "decision" as const,
      decision: "deny",
    });
    writerOf(config)?.({ ...reviewEvent(turn, refused), id: auditId([turn.threadId, turn.messageId, call.id, "superseded"]) } satisfies DecisionEvent);
  }
  if (records.length > 0) await guard.options.audit?.write(records);
  const kept = tail.filter((m) => !(ToolMessage.isInstance(m) && foreign.get(m.tool_call_id) === m));
  // After the guard's own answers of the turn (a partial answer's results), before the new input.
  const answeredFirst = kept.findIndex((m) => !ToolMessage.isInstance(m));
  const cut = answeredFirst < 0 ? kept.length : answeredFirst;
  const newTail = [...kept.slice(0, cut), ...refusals, ...kept.slice(cut)];
  const screened = [...messages.slice(0, index + 1), ...newTail];
  return {
    messages: screened,
    // The refusals must sit right after the model message, before the new input: the whole list is
    // written again (LangGraph's remove-all marker), every message keeping its id.
    update: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...screened],
    approvals: { ...(approvals ?? emptyApprovalState()), refused: null, pending: null, reviewed: { messageId: waiting.messageId } },
  };
}

function emitRefused(ctx: TurnContext, pending: readonly ReviewedCall[], error: string, config: LangGraphRunnableConfig | undefined): void {
  const writer = writerOf(config);
  if (!writer) return;
  for (const call of pending) {
    writer({
      ...reviewEvent(ctx, call),
      id: auditId([ctx.threadId, ctx.messageId, call.id, "resume-refused", error]),
      source: "resume-refused",
      decision: "refused",
      reason: error,
    } satisfies DecisionEvent);
  }
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
    return { ...again, edited: true, message: refusals.editRefused(again.message ?? refusals.generic(again.name, again.ruleId, again.reason)) };
  }
  return { ...again, outcome: "run", edited: true, reason: approvalNotes.editedAndApproved(again.reason) };
}

// ─── reading a pending request back ────────────────────────────────────────────────────────────

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
});

/** An interrupt value checked to be the guard's approval request (e.g. read back from a checkpoint); undefined otherwise. */
export function readApprovalRequest(value: unknown): ApprovalRequest | undefined {
  const parsed = ApprovalRequestSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

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
    const request = readApprovalRequest(carrier.data.value);
    if (request) return request;
  }
  return undefined;
}
