import { isDeepStrictEqual } from "node:util";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { z } from "zod";
import { ErrorCode, GuardedGraphError } from "../../errors/index.js";
import { decisionText, QUOTE_LIMIT, resumeMatchRefused, resumeShapeRefused } from "../../messages/approval.js";
import type { HumanDecisionType } from "../options.js";
import type { ReviewedCall } from "../state.js";
import { bounded, quote } from "./quote.js";

// ─── the resume: strict, both casings ──────────────────────────────────────────────────────────

export const ArgsSchema = z.lazy(() => z.record(z.string(), z.unknown()));
const ActionSchema = z.lazy(() => z.strictObject({ name: z.string().min(1), args: ArgsSchema }));
const CallId = z.lazy(() => z.string().min(1));

/** "Don't ask again": the same decision for later calls of this tool (optionally only with these argument values), for the run or the thread. */
const StickyInput = z.lazy(() => z.strictObject({ scope: z.enum(["run", "thread"]), args: ArgsSchema.optional() }));

const ApproveInput = z.lazy(() => z.strictObject({
  type: z.literal("approve"),
  toolCallId: CallId.optional(),
  tool_call_id: CallId.optional(),
  sticky: StickyInput.optional(),
}));
const EditInput = z.lazy(() => z.strictObject({
  type: z.literal("edit"),
  toolCallId: CallId.optional(),
  tool_call_id: CallId.optional(),
  editedAction: ActionSchema.optional(),
  edited_action: ActionSchema.optional(),
}));
const RejectInput = z.lazy(() => z.strictObject({
  type: z.literal("reject"),
  toolCallId: CallId.optional(),
  tool_call_id: CallId.optional(),
  message: z.string().optional(),
  sticky: StickyInput.optional(),
}));

/** A decision as a client sends it; unknown fields are refused, not dropped; either casing accepted, both only when they agree. */
const DecisionSchema = z.lazy(() => z
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
  }));

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
export const ResumeSchema = z.lazy(() => z.strictObject({
  decisions: z.union([z.array(DecisionSchema), z.record(CallId, DecisionSchema)]),
  /** Who answered, as the client claims it; kept in the audit record as a claim (see `approverOf`). */
  actor: z.string().max(QUOTE_LIMIT).optional(),
}));
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
    const detail = shapeHint(value) ?? parsed.error.issues
      .map((i) => `${i.path.map((p) => bounded(String(p), 40)).join(".") || "(root)"}: ${bounded(i.message, 120)}`)
      .join("; ");
    throw new ApprovalResumeError(resumeShapeRefused(quote(value), bounded(detail, QUOTE_LIMIT)));
  }
  const match = matchDecisions(pending, parsed.data, allowed, options);
  if (!match.ok) throw new ApprovalResumeError(resumeMatchRefused(match.error));
  return parsed.data;
}

const DECISION_TYPES: readonly string[] = ["approve", "edit", "reject"];
const AGENT_INBOX_TYPES: readonly string[] = ["accept", "edit", "response", "ignore"];

/**
 * What a client that speaks another answer format sent, named, when the resume is one: Agent
 * Inbox's HumanResponse list (older Agent Chat UI), or decision types the guard does not take
 * (Python HumanInTheLoopMiddleware's "respond"). Undefined for any other shape.
 */
function shapeHint(value: unknown): string | undefined {
  const typeOf = (v: unknown): unknown => (v !== null && typeof v === "object" ? (v as { type?: unknown }).type : undefined);
  if (Array.isArray(value) && value.length > 0 && value.every((v) => AGENT_INBOX_TYPES.includes(String(typeOf(v))) && v !== null && typeof v === "object" && "args" in v)) {
    return decisionText.agentInboxList;
  }
  const decisions = value !== null && typeof value === "object" ? (value as { decisions?: unknown }).decisions : undefined;
  const listed = Array.isArray(decisions) ? decisions : decisions !== null && typeof decisions === "object" ? Object.values(decisions) : [];
  const unknown = [...new Set(listed.map(typeOf).filter((t) => !DECISION_TYPES.includes(String(t))).map((t) => quote(t)))];
  return unknown.length > 0 ? decisionText.unknownType(unknown) : undefined;
}

/** Who may answer (src/principal/approvers.ts's ApproverGate): why the answers of a matched resume are refused, if they are. */
interface ApproverCheck {
  refusal(pending: readonly Pick<ReviewedCall, "id" | "name">[], decisions: ReadonlyMap<string, Decision>): string | undefined;
}

/**
 * The resume schema handed to LangGraph's `interrupt`: a value that does not fit throws an
 * ApprovalResumeError inside `interrupt`, before LangGraph adds it to the task's resume values.
 */
export function resumeSchemaFor(
  pending: readonly ReviewedCall[],
  allowed: readonly HumanDecisionType[] | ReadonlyMap<string, readonly HumanDecisionType[]>,
  options: { partial?: boolean; config?: LangGraphRunnableConfig | undefined; gate?: ApproverCheck | undefined } = {},
) {
  return z
    .unknown()
    .superRefine((value) => {
      if (isStaleResume(value, options.config)) throw new ApprovalResumeError(resumeMatchRefused(decisionText.staleResume));
      const resume = checkResume(pending, value, allowed, options);
      // Approver rules: an answer its sender may not give is refused like one that does not fit (asked again).
      const match = options.gate === undefined ? undefined : matchDecisions(pending, resume, allowed, options);
      const refused = match?.ok === true ? options.gate?.refusal(pending, match.decisions) : undefined;
      if (refused !== undefined) throw new ApprovalResumeError(refused);
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
