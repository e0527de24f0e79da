import { z } from "zod";
import { PLAIN_RULE_TYPES } from "./types.js";
import type { RuleState, ToolRule } from "./types.js";

const toolName = z.string().min(1, "tool name must not be empty");

const base = {
  tool: toolName,
  conditions: z.array(toolName).optional(),
  priority: z.number().finite().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  id: z.string().min(1).optional(),
};

const duration = z.number().finite().positive("durationMs must be a positive number of milliseconds");

/** Strict: a misspelt key in a rules file is an error, not a silently ignored rule. */
export const ToolRuleSchema: z.ZodType<ToolRule> = z.union([
  z.strictObject({ ...base, type: z.enum(PLAIN_RULE_TYPES) }),
  z.strictObject({
    ...base,
    type: z.literal("MaxCalls"),
    max: z.number().int("max must be a whole number").nonnegative("max must not be negative"),
    scope: z.enum(["run", "thread"]).optional(),
  }),
  z.strictObject({ ...base, type: z.literal("Cooldown"), durationMs: duration }),
  z.strictObject({ ...base, type: z.literal("Periodic"), durationMs: duration }),
  z.strictObject({
    ...base,
    type: z.literal("AllowedOperations"),
    operations: z.array(z.string().min(1)),
  }),
]);

export const ToolRulesSchema = z.array(ToolRuleSchema);

const counts = z.record(z.string(), z.number().int().nonnegative());

export const ExecutionRecordSchema = z.object({
  tool: toolName,
  operation: z.string().optional(),
  callId: z.string(),
  success: z.boolean(),
  at: z.number().finite(),
});

export const RuleStateSchema: z.ZodType<RuleState> = z.object({
  version: z.literal(1),
  run: z.number().int().nonnegative(),
  runStartedAt: z.number().finite(),
  runCounts: counts,
  threadCounts: counts,
  runAttempts: counts,
  threadAttempts: counts,
  lastCallAt: z.record(z.string(), z.number().finite()),
  calledThisRun: z.array(z.string()),
  history: z.array(ExecutionRecordSchema),
  exitReminders: z.number().int().nonnegative(),
});

function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`).join("; ");
}

/** Parses rules loaded from a file or an API; throws an Error naming every bad field. */
export function parseToolRules(input: unknown): ToolRule[] {
  const parsed = ToolRulesSchema.safeParse(input);
  if (!parsed.success) throw new Error(`invalid tool rules: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

/** Parses rule state read back from a checkpoint or a store. */
export function parseRuleState(input: unknown): RuleState {
  const parsed = RuleStateSchema.safeParse(input);
  if (!parsed.success) throw new Error(`invalid rule state: ${describeIssues(parsed.error)}`);
  return parsed.data;
}
