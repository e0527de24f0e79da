import { ReducedValue, StateSchema } from "@langchain/langgraph";
import { z } from "zod";
import type { CallResult, GuardState, ReviewedCall, TurnPlan } from "../guard/state.js";
import { emptyGuardState } from "../guard/state.js";
import { RuleStateSchema } from "../rules/schema.js";

// Loose objects: the state is the guard's own plain JSON, read back from a checkpoint. Known
// fields are checked; fields a newer version adds survive a round trip.
const ReviewedCallSchema: z.ZodType<ReviewedCall> = z.looseObject({
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
});

const TurnPlanSchema: z.ZodType<TurnPlan> = z.looseObject({
  messageId: z.string(),
  calls: z.record(z.string(), ReviewedCallSchema),
  batches: z.array(z.array(z.string())),
  nextBatch: z.number().int().nonnegative(),
  refused: z.number().int().nonnegative(),
  done: z.array(z.lazy(() => CallResultSchema)).optional(),
  endRun: z.object({ ruleId: z.string(), reason: z.string() }).optional(),
});

export const GuardStateSchema: z.ZodType<GuardState> = z.looseObject({
  rules: RuleStateSchema.nullable(),
  runId: z.string(),
  turn: TurnPlanSchema.nullable(),
  forcedTool: z.string().nullable(),
  terminatedBy: z.string().nullable(),
  next: z.enum(["dispatch", "agent", "end"]),
  exitUnsatisfied: z.array(z.string()),
});

const CallResultSchema: z.ZodType<CallResult> = z.looseObject({
  id: z.string(),
  name: z.string(),
  operation: z.string().optional(),
  status: z.enum(["success", "error", "cancelled", "refused"]),
  at: z.number(),
  requestHeartbeat: z.boolean(),
  output: z.string().optional(),
});

const CallResultsSchema = z.record(z.string(), CallResultSchema);
type CallResults = Record<string, CallResult>;

/**
 * The middleware's state keys, checkpointed with the agent: `guard` (rule state and the reviewed
 * calls of the current turn) and `guardResults` (outcomes of the turn's calls, merged as parallel
 * tool tasks finish; `null` clears it once they are recorded into the rule state).
 */
export const GuardMiddlewareState = new StateSchema({
  guard: GuardStateSchema.default(emptyGuardState),
  guardResults: new ReducedValue(CallResultsSchema.default(() => ({})), {
    inputSchema: CallResultsSchema.nullable().default(() => ({})),
    reducer: (current: CallResults, update: CallResults | null): CallResults =>
      update === null ? {} : { ...current, ...update },
  }),
});
