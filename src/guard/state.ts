import type { ToolCallLimitStop } from "../errors/index.js";
import { Annotation, MessagesAnnotation, ReducedValue, type BaseChannel, type OverwriteValue } from "@langchain/langgraph";
import { z } from "zod";
import { RuleStateSchema } from "../rules/schema.js";
import type { RuleState } from "../rules/types.js";
import { emptyApprovalState } from "./approval/state.js";
import type { ApprovalState } from "./approval/state.js";
import type { RiskLevel } from "../tools/types.js";
import type { Evidence } from "../provenance/index-builder.js";

export type CallOutcome = "run" | "refuse" | "ask";

/** One tool call after review. Plain JSON: it lives in the checkpointed graph state. */
export interface ReviewedCall {
  id: string;
  name: string;
  /** Arguments as they will run (heartbeat flag removed; edited by a human when `edited`). */
  args: Record<string, unknown>;
  /**
   * Set only when the model's arguments were not a JSON object (the call is refused and `args` is
   * empty): the value as sent, for the audit record.
   */
  sentArgs?: unknown;
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
  /** What the shadow policy (or the shadow rules) would have decided; set only when one runs. Never enforced. */
  shadow?: ShadowDecision | undefined;
}

/** A shadow policy's answer for a call: what review would have decided with it, by which rule. */
export interface ShadowDecision {
  decision: "allow" | "deny" | "ask";
  ruleId: string;
  reason: string;
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
  /** The approval step's state (owned by approval/state.ts): a refused resume to show when asking again. Absent in older checkpoints. */
  approvals?: ApprovalState | undefined;
  /**
   * A limit with `exitBehavior: "error"` stopped the run: every call of that model turn has its
   * refusal ToolMessage in the thread, and the next step of the run throws this as a
   * ToolCallLimitError. New user input starts a run without it.
   */
  limitError?: ToolCallLimitStop | null | undefined;
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

type CallResults = Record<string, CallResult>;

/** Results of executed calls; `null` clears the channel once they are recorded into the rule state. */
function mergeResults(current: CallResults, update: CallResults | null): CallResults {
  if (update === null) return {};
  return { ...current, ...update };
}

// Loose objects: the state is the guard's own plain JSON, read back from a checkpoint. Known
// fields are checked; fields a newer version adds survive a round trip.
const ReviewedCallSchema: z.ZodType<ReviewedCall> = z.lazy(() => z.looseObject({
  id: z.string(),
  name: z.string(),
  args: z.record(z.string(), z.unknown()),
  operation: z.string().optional(),
  outcome: z.enum(["run", "refuse", "ask"]),
  ruleId: z.string(),
  reason: z.string(),
  risk: z.enum(["low", "medium", "high", "always-deny"]),
  concurrencySafe: z.boolean(),
  requestHeartbeat: z.boolean(),
  edited: z.boolean().optional(),
  approved: z.boolean().optional(),
  message: z.string().optional(),
  askedRule: z.string().optional(),
}));

const CallResultSchema: z.ZodType<CallResult> = z.lazy(() => z.looseObject({
  id: z.string(),
  name: z.string(),
  operation: z.string().optional(),
  status: z.enum(["success", "error", "cancelled", "refused"]),
  at: z.number(),
  requestHeartbeat: z.boolean(),
  output: z.string().optional(),
}));

const TurnPlanSchema: z.ZodType<TurnPlan> = z.lazy(() => z.looseObject({
  messageId: z.string(),
  calls: z.record(z.string(), ReviewedCallSchema),
  batches: z.array(z.array(z.string())),
  nextBatch: z.number().int().nonnegative(),
  refused: z.number().int().nonnegative(),
  done: z.array(CallResultSchema).optional(),
  endRun: z.object({ ruleId: z.string(), reason: z.string() }).optional(),
}));

/** The `guard` channel's value, checked where it enters the middleware's state. */
export const GuardStateSchema: z.ZodType<GuardState> = z.lazy(() => z.looseObject({
  rules: RuleStateSchema.nullable(),
  runId: z.string(),
  turn: TurnPlanSchema.nullable(),
  forcedTool: z.string().nullable(),
  terminatedBy: z.string().nullable(),
  next: z.enum(["dispatch", "agent", "end"]),
  exitUnsatisfied: z.array(z.string()),
}));

const CallResultsSchema: z.ZodType<CallResults> = z.lazy(() => z.record(z.string(), CallResultSchema));

/** One channel of the guard's graph state. */
interface GuardChannel<Value, Update> {
  /** The stored value (the middleware's state schema checks it). */
  readonly value: z.ZodType<Value>;
  /** What a node may write to the channel. */
  readonly update: z.ZodType<Update>;
  /** How a write combines with the stored value. */
  reducer(current: Value, update: Update): Value;
  /** The value before the first write. */
  initial(): Value;
}

/**
 * The guard's graph-state channels, declared once: `GuardAnnotation` (for StateGraph and
 * `createGuardedAgent`) and the middleware's `GuardMiddlewareState` are both built from this list.
 * - `guard`: the rule state, the reviewed calls of the current turn and loop control; a write replaces it.
 * - `guardResults`: outcomes of the turn's calls, merged as parallel tool tasks finish; `null` clears it.
 */
export const GUARD_CHANNELS: {
  readonly guard: GuardChannel<GuardState, GuardState>;
  readonly guardResults: GuardChannel<CallResults, CallResults | null>;
} = {
  guard: { value: GuardStateSchema, update: GuardStateSchema, reducer: (_current, next) => next, initial: emptyGuardState },
  guardResults: { value: CallResultsSchema, update: CallResultsSchema.nullable(), reducer: mergeResults, initial: () => ({}) },
};

type GuardChannels = typeof GUARD_CHANNELS;
type ValueOf<C> = C extends GuardChannel<infer Value, infer _Update> ? Value : never;
type UpdateOf<C> = C extends GuardChannel<infer _Value, infer Update> ? Update : never;

/**
 * Builds one value per guard channel (a LangGraph channel, a StateSchema field), in the order of
 * `GUARD_CHANNELS`. `R` names the result per channel; `build` sees each channel's own types only
 * through `R`, so the builder stays one function for all channels.
 */
function mapGuardChannels<R extends { [K in keyof GuardChannels]: unknown }>(build: (channel: GuardChannel<unknown, unknown>) => unknown): R {
  return Object.fromEntries(Object.entries(GUARD_CHANNELS).map(([name, channel]) => [name, build(channel as GuardChannel<unknown, unknown>)])) as R;
}

/** Graph state channels of the guard. Spread `GuardAnnotation.spec` into your own state to use GuardedToolNode. */
export const GuardAnnotation = Annotation.Root(
  mapGuardChannels<{ -readonly [K in keyof GuardChannels]: BaseChannel<ValueOf<GuardChannels[K]>, UpdateOf<GuardChannels[K]> | OverwriteValue<ValueOf<GuardChannels[K]>>> }>(
    (channel) => Annotation<unknown, unknown>({ reducer: channel.reducer, default: channel.initial }),
  ),
);

/**
 * The guard's channels as LangGraph `StateSchema` fields, for graphs whose state is a StateSchema:
 * `new StateSchema({ messages: MessagesValue, ...GuardStateFields })` is what `...GuardAnnotation.spec`
 * is to `Annotation.Root` (GuardedToolNode keeps its rule state there). Each is a reduced value whose
 * stored value and updates are checked by the channel's zod schemas; both default to the channel's
 * initial value (LangChain's agent requires a default on every middleware state field, the update
 * schema included). The middleware's `GuardMiddlewareState` is `new StateSchema(GuardStateFields)`.
 */
export const GuardStateFields = mapGuardChannels<{
  -readonly [K in keyof GuardChannels]: ReducedValue<ValueOf<GuardChannels[K]>, z.output<GuardChannels[K]["update"]>>;
}>((channel) => new ReducedValue(channel.value.default(channel.initial), { inputSchema: channel.update.default(channel.initial), reducer: channel.reducer }));

/** Messages plus the guard's channels: the state of `createGuardedAgent`. */
export const GuardedAgentState = Annotation.Root({
  ...MessagesAnnotation.spec,
  ...GuardAnnotation.spec,
});

export type GuardedAgentStateType = typeof GuardedAgentState.State;
export type GuardedAgentUpdate = typeof GuardedAgentState.Update;
