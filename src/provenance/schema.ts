import { z } from "zod";
import { parseSelector } from "../policy/selector.js";

/**
 * The policy condition language on top of the per-field matchers: `not`, `anyOf`, `allOf`, numeric
 * comparisons, `from` (where a value came from), and the rule-level context conditions `after` and
 * `budget`. Built as functions of the leaf matcher schema so the policy schema can use them without
 * an import cycle.
 */

const SOURCE_HELP =
  'user (human messages and the system prompt), trusted (outputs of the tools in provenance.trusted), untrusted (outputs of the tools in provenance.untrusted: with from and no not, a rule stops values copied from them), a tool name (its outputs), or "args:<tool>" (values used by earlier calls of that tool that completed)';

const SourceSchema = z.lazy(() =>
  z
    .string()
    .min(1)
    .regex(/^(?:user|trusted|args:[^\s]+|[^\s:]+)$/, `expected ${SOURCE_HELP}`)
    .describe(`Where a value may come from: ${SOURCE_HELP}.`),
);

const FromSchema = z.lazy(() =>
  z.strictObject({
    from: z.array(SourceSchema).min(1).describe(`Holds when the value appears (as whole tokens, normalised) in one of these sources: ${SOURCE_HELP}.`),
    minLength: z.number().int().min(1).optional().describe("Fewest letters and digits a value needs to be traced (default 3); shorter values are never found."),
    only: z
      .array(z.enum(["links", "emails"]))
      .min(1)
      .optional()
      .describe("Trace only the links and/or email addresses written inside the value (a message body); holds when every one is found (and when there are none)."),
  }),
);

/** Built where used (each use its own schema, as the policy's JSON Schema shows it). */
const finite = () => z.number().finite();

const NumericSchema = z.lazy(() =>
  z.union([
    z.strictObject({ lt: finite().describe("Holds when the value is a number below this.") }),
    z.strictObject({ lte: finite().describe("Holds when the value is a number at most this.") }),
    z.strictObject({ gt: finite().describe("Holds when the value is a number above this.") }),
    z.strictObject({ gte: finite().describe("Holds when the value is a number at least this.") }),
    z
      .strictObject({ between: z.tuple([finite(), finite()]).describe("Holds when the value is a number in [low, high], both included.") })
      .refine((m) => m.between[0] <= m.between[1], { message: "between: the low bound is above the high bound", path: ["between"] }),
  ]),
);

const SameAsSchema = z.lazy(() =>
  z.strictObject({
    sameAs: z
      .string()
      .min(1)
      .describe("Holds when the value equals this value of the run's principal (identity, display_name, permissions: one of them, metadata.<key>, configurable.<key>); a missing one never holds. Normalised, case-insensitive unless caseSensitive."),
    caseSensitive: z.boolean().optional(),
  }),
);

export type SameAsCondition = z.output<typeof SameAsSchema>;
export type FromCondition = z.output<typeof FromSchema>;
export type NumericCondition = z.output<typeof NumericSchema>;

/** A field condition: a leaf matcher, or `not` / `anyOf` / `allOf` of conditions, `from`, or a numeric comparison. */
export type ConditionSpec<Leaf> =
  | Leaf
  | FromCondition
  | SameAsCondition
  | NumericCondition
  | { not: ConditionSpec<Leaf> }
  | { anyOf: ConditionSpec<Leaf>[] }
  | { allOf: ConditionSpec<Leaf>[] };

/** The field-condition schema over a leaf matcher schema (recursive through not/anyOf/allOf). */
export function fieldConditionSchema<Leaf>(leaf: z.ZodType<Leaf>): z.ZodType<ConditionSpec<Leaf>> {
  const condition: z.ZodType<ConditionSpec<Leaf>> = z.lazy(() =>
    z.union([
      leaf,
      FromSchema,
      SameAsSchema,
      NumericSchema,
      z.strictObject({ not: condition }).describe("Holds when the inner condition does not."),
      z.strictObject({ anyOf: z.array(condition).min(1) }).describe("Holds when any of these holds."),
      z.strictObject({ allOf: z.array(condition).min(1) }).describe("Holds when all of these hold."),
    ]),
  ) as z.ZodType<ConditionSpec<Leaf>>;
  return condition;
}

export const ScopeSchema = z.lazy(() => z.enum(["run", "thread"]));

/** Rule-level: the rule applies only once one of these tools has returned in the run (or thread). */
export const AfterSchema = z.lazy(() =>
  z
    .array(z.string().min(1))
    .min(1)
    .describe('The rule applies only after one of these tools returned output in the run (afterScope: thread for the whole thread); "untrusted" names the tools in provenance.untrusted.'),
);

/** Rule-level: the rule applies when the field summed over the completed calls of its tools in scope, plus this call, exceeds max. */
export const BudgetSchema = z.lazy(() =>
  z
    .strictObject({
      sum: z.string().min(1).optional().describe("Field selector of the number to add up, e.g. amount. Without it, calls are counted (each adds 1)."),
      max: z.number().finite().nonnegative().describe("The rule applies when the total with this call exceeds this."),
      scope: ScopeSchema.optional().describe("run (default: since the last human message) or thread."),
    })
    .describe("A budget across calls: applies when the total of a field (or the number of calls) over this rule's tools exceeds max; a limit that can ask, not only refuse."),
);

const OutputSelectorSchema = z.lazy(() =>
  z
    .string()
    .min(1)
    .superRefine((selector, ctx) => {
      try {
        parseSelector(selector);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message });
      }
    })
    .describe('A field selector into the tool\'s output, parsed as JSON or YAML: "recipient", "[*].sender", "participants[*]".'),
);

/**
 * One entry of `provenance.trusted`: a tool name (its whole output is trusted), or a tool whose
 * trust is scoped to some fields of its output and/or to calls whose arguments the user typed.
 */
const TrustEntrySchema = z.lazy(() =>
  z.union([
    z.string().min(1).describe("A tool whose whole output is trusted."),
    z
      .strictObject({
        tool: z.string().min(1).describe("The tool's name."),
        fields: z
          .array(OutputSelectorSchema)
          .min(1)
          .optional()
          .describe("Only the values at these selectors of the output (parsed as JSON or YAML) are trusted; every other value and key stays untrusted. An output that does not parse trusts nothing."),
        argsFromUser: z
          .boolean()
          .optional()
          .describe("The output is trusted only when every string and number argument of the call that produced it appears in the user's messages before it (a page fetched at the address the user typed)."),
      })
      .describe("A tool whose output is trusted in part: some fields of it, or only when the user typed its arguments."),
  ]),
);

export type TrustEntry = z.output<typeof TrustEntrySchema>;

/** Policy-level provenance settings. */
export const ProvenanceConfigSchema = z.lazy(() =>
  z
    .strictObject({
      trusted: z
        .array(TrustEntrySchema)
        .optional()
        .describe("Tools whose outputs count as trusted sources (from: [trusted]): a name, or { tool, fields, argsFromUser } to trust some fields of the output or only the outputs of calls whose arguments the user typed."),
      untrusted: z.array(z.string().min(1)).optional().describe("Tools whose outputs carry outside text (after: [untrusted], from: [untrusted])."),
      minLength: z.number().int().min(1).optional().describe("Default fewest letters and digits a traced value needs (3)."),
    })
    .describe("Which tool outputs are trusted sources of argument values, and which are untrusted."),
);

export type ProvenanceConfig = z.output<typeof ProvenanceConfigSchema>;
export type BudgetCondition = z.output<typeof BudgetSchema>;
