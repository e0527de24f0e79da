import { z } from "zod";
import { PLAIN_RULE_TYPES, RULE_TYPES } from "./types.js";
import { validation } from "../messages/index.js";
import type { RuleState, ToolRule } from "./types.js";
import { RulesError } from "../errors/index.js";

const toolName = z.lazy(() => z.string().min(1, "tool name must not be empty"));

const baseShape = () => ({
  tool: toolName,
  conditions: z.array(toolName).optional(),
  priority: z.number().finite().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  id: z.string().min(1).optional(),
  onViolation: z.enum(["refuse", "ask"]).optional(),
});
let baseFields: ReturnType<typeof baseShape> | undefined;
/** The fields every rule has (built once, on the first parse). */
const base = () => (baseFields ??= baseShape());

const duration = z.lazy(() => z.number().finite().positive("must be a positive number of milliseconds"));
const limit = z.lazy(() => z.number().int("must be a whole number").nonnegative("must not be negative"));
const scope = z.lazy(() => z.enum(["run", "thread"]));
const exitBehavior = z.lazy(() => z.enum(["continue", "end", "error"]));
const prefilled = z.lazy(() => z.record(z.string(), z.unknown()));

/** Strict: a misspelt key in a rules file is an error, not a silently ignored rule. Keyed on `type`, so an error names the field. */
export const ToolRuleSchema: z.ZodType<ToolRule> = z.lazy(() =>
  z.discriminatedUnion("type", [
    z.strictObject({ ...base(), type: z.enum(PLAIN_RULE_TYPES), scope: scope.optional(), args: prefilled.optional() }),
    z.strictObject({ ...base(), type: z.literal("InitialCall"), alternatives: z.array(toolName).optional(), args: prefilled.optional() }),
    z.strictObject({ ...base(), type: z.literal("MaxCalls"), max: limit, scope: scope.optional(), exitBehavior: exitBehavior.optional() }),
    z.strictObject({ ...base(), type: z.literal("MaxTotalCalls"), max: limit, scope: scope.optional(), exitBehavior: exitBehavior.optional() }),
    z.strictObject({ ...base(), type: z.literal("Cooldown"), durationMs: duration }),
    z.strictObject({ ...base(), type: z.literal("Periodic"), durationMs: duration, args: prefilled.optional() }),
    z.strictObject({
      ...base(),
      type: z.literal("ChildTools"),
      children: z.array(toolName).min(1, "must name at least one tool"),
      childArgs: z.record(toolName, prefilled).optional(),
    }),
    z.strictObject({
      ...base(),
      type: z.literal("ParentTools"),
      children: z.array(toolName).min(1, "must name at least one tool"),
    }),
    z.strictObject({
      ...base(),
      type: z.literal("ConditionalNext"),
      outputMapping: z
        .record(z.string(), toolName)
        .refine((m) => Object.keys(m).length > 0, "must map at least one output to a tool"),
      defaultChild: toolName.optional(),
      requireOutputMapping: z.boolean().optional(),
    }),
    z.strictObject({
      ...base(),
      type: z.literal("AllowedOperations"),
      operations: z.array(z.string().min(1)),
    }),
  ]),
);

const ToolRulesSchema = z.lazy(() => z.array(ToolRuleSchema));

const counts = z.lazy(() => z.record(z.string(), z.number().int().nonnegative()));

export const ExecutionRecordSchema = z.lazy(() =>
  z.object({
  tool: toolName,
  operation: z.string().optional(),
  callId: z.string(),
  success: z.boolean(),
  at: z.number().finite(),
  output: z.string().optional(),
  }),
);

export const RuleStateSchema: z.ZodType<RuleState> = z.lazy(() =>
  z.object({
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
  lastCall: z.object({ tool: toolName, success: z.boolean(), output: z.string().optional() }).optional(),
  dueReminders: counts.optional(),
  }),
);

function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`).join("; ");
}

/** What each field needs, for "field X is required" messages. */
const FIELD_NEEDS: Record<string, string> = {
  tool: 'a tool name, or "*"',
  type: `one of ${RULE_TYPES.join(", ")}`,
  max: "a whole number, 0 or more",
  durationMs: "a positive number of milliseconds",
  operations: "a list of operation names",
  children: "a list of tool names",
  outputMapping: 'an object mapping outputs to tools, e.g. { "true": "approve" }',
};

function whereOf(input: unknown, index: PropertyKey | undefined): string {
  if (typeof index !== "number") return "rules";
  const rule = Array.isArray(input) ? (input[index] as { type?: unknown; tool?: unknown } | undefined) : undefined;
  const type = typeof rule?.type === "string" ? rule.type : undefined;
  const tool = typeof rule?.tool === "string" ? rule.tool : undefined;
  const what = type && tool ? ` (${type} on ${tool})` : type ? ` (${type})` : "";
  return `rule ${index}${what}`;
}

/** One readable line per problem, naming the rule (index, type, tool) and the field. */
function describeRuleIssues(input: unknown, error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const [index, field, ...rest] = issue.path;
      const where = whereOf(input, index);
      const rule = Array.isArray(input) && typeof index === "number" ? (input[index] as Record<string, unknown> | undefined) : undefined;
      if (field === undefined) {
        const type = typeof rule?.type === "string" ? rule.type : "rule";
        if (issue.code === "unrecognized_keys") return issue.keys.map((k) => validation.unknownField(where, k, type)).join("; ");
        return `${where}: ${issue.message}`;
      }
      const name = [field, ...rest].map(String).join(".");
      if (field === "type" && issue.code === "invalid_union") {
        return typeof rule?.type === "string"
          ? validation.unknownType(where, rule.type, RULE_TYPES)
          : validation.missingField(where, "type", FIELD_NEEDS.type ?? "");
      }
      if (issue.code === "invalid_type" && rest.length === 0 && rule !== undefined && !(String(field) in rule)) {
        return validation.missingField(where, name, FIELD_NEEDS[name] ?? issue.expected);
      }
      return validation.badField(where, name, issue.message);
    })
    .join("; ");
}

/** Parses rules loaded from a file or an API; throws an Error naming every bad field. */
export function parseToolRules(input: unknown): ToolRule[] {
  const parsed = ToolRulesSchema.safeParse(input);
  if (!parsed.success) throw new RulesError(`invalid tool rules: ${describeRuleIssues(input, parsed.error)}`);
  return parsed.data;
}

/** Parses rule state read back from a checkpoint or a store. */
export function parseRuleState(input: unknown): RuleState {
  const parsed = RuleStateSchema.safeParse(input);
  if (!parsed.success) throw new RulesError(`invalid rule state: ${describeIssues(parsed.error)}`);
  return parsed.data;
}
