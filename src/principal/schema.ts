import { z } from "zod";
import type { ConditionSpec } from "../provenance/schema.js";

/**
 * The policy language of "who is asking": conditions on the principal of a run (a rule's
 * `principal:` block), the names a policy declares (`principals:`), and approver rules
 * (`approvers:`). Built on the field-condition language (equals, in, glob, regex, prefix, exists,
 * numbers, not / anyOf / allOf); `from` and `sameAs` have no meaning on the principal itself.
 */

const scalar = z.lazy(() => z.union([z.string(), z.number(), z.boolean()]));
const LEAF_KEYS = ["equals", "in", "glob", "regex", "prefix", "exists"] as const;

/** One test of a principal value; exactly one of equals/in/glob/regex/prefix/exists. */
const PrincipalMatcherSchema = z.lazy(() =>
  z
    .strictObject({
      equals: scalar.optional().describe("Equal after normalisation (case-insensitive unless caseSensitive). On a list (permissions): the list holds it."),
      in: z.array(scalar).min(1).optional().describe("Equal to one of these values. On a list: the list holds one of them."),
      glob: z.string().min(1).optional(),
      regex: z.string().min(1).optional(),
      prefix: z.string().min(1).optional(),
      exists: z.boolean().optional().describe("The value is present (true) or absent (false)."),
      caseSensitive: z.boolean().optional(),
    })
    .superRefine((matcher, ctx) => {
      const used = LEAF_KEYS.filter((key) => matcher[key] !== undefined);
      if (used.length !== 1) ctx.addIssue({ code: "custom", message: `expected exactly one of ${LEAF_KEYS.join("|")}, got ${used.length === 0 ? "none" : used.join(" and ")}` });
      else if (used[0] === "exists" && matcher.caseSensitive !== undefined) ctx.addIssue({ code: "custom", path: ["caseSensitive"], message: "caseSensitive has no meaning with exists" });
    }),
);

export type PrincipalMatcher = z.output<typeof PrincipalMatcherSchema>;
export type PrincipalCondition = ConditionSpec<PrincipalMatcher>;

const finite = z.lazy(() => z.number().finite());

const PrincipalConditionSchema: z.ZodType<PrincipalCondition> = z.lazy(() =>
  z.union([
    PrincipalMatcherSchema,
    z.strictObject({ lt: finite }),
    z.strictObject({ lte: finite }),
    z.strictObject({ gt: finite }),
    z.strictObject({ gte: finite }),
    z.strictObject({ between: z.tuple([finite, finite]) }),
    z.strictObject({ not: PrincipalConditionSchema }),
    z.strictObject({ anyOf: z.array(PrincipalConditionSchema).min(1) }),
    z.strictObject({ allOf: z.array(PrincipalConditionSchema).min(1) }),
  ]),
) as z.ZodType<PrincipalCondition>;

const NAME_HELP = "identity, permissions, display_name, metadata.<key> (an attribute of the authenticated user, declared in principals.metadata) or configurable.<key> (a value of the run's configurable, declared in principals.configurable)";

/** A rule's `principal:` block: principal name → condition; all must hold. */
export const PrincipalConditionsSchema = z.lazy(() =>
  z
    .record(z.string().min(1), PrincipalConditionSchema)
    .describe(`Conditions on who runs the call: ${NAME_HELP} → condition; all must hold. A missing user or value never lets the rule apply (an allow does not allow; a deny or ask asks).`),
);

/** `principals:` the names of the principal a policy reads, so `policy check` can catch misspellings. */
export const PrincipalsDeclarationSchema = z.lazy(() =>
  z
    .strictObject({
      metadata: z.array(z.string().min(1)).optional().describe("Attributes of the authenticated user the rules read as metadata.<key> (e.g. tenant, role)."),
      configurable: z.array(z.string().min(1)).optional().describe("Keys of the run's configurable the rules read as configurable.<key>. The client of a run chooses these values: use them for routing, never for who may do what."),
    })
    .describe("The names of the principal the rules read."),
);

export type PrincipalsDeclaration = z.output<typeof PrincipalsDeclarationSchema>;

/** One approver rule: who may answer the approvals of some calls. */
export const ApproverRuleSchema = z.lazy(() =>
  z
    .strictObject({
      id: z.string().min(1).optional().describe("Stable id; refusals and audit records name it as approvers:<id>."),
      tool: z.string().min(1).describe("Tool name glob of the calls this rule covers (e.g. deploy_*, *)."),
      principal: PrincipalConditionsSchema.optional().describe(`Who may answer (approve, edit or reject) these calls: ${NAME_HELP} → condition.`),
      notRequester: z.boolean().optional().describe("Four eyes: the user who ran the call may not approve or edit it (rejecting stays possible)."),
      approvals: z.number().int().min(1).max(5).optional().describe("How many different users must approve the call before it runs (default 1)."),
      reason: z.string().optional(),
    })
    .describe("Which users may answer which approvals: roles, permissions, four eyes, several approvers."),
);

export type ApproverRule = z.output<typeof ApproverRuleSchema>;
export type ApproverRuleInput = z.input<typeof ApproverRuleSchema>;
