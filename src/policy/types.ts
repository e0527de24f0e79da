import type { RiskLevel } from "../tools/types.js";
import type { Evidence } from "../provenance/index-builder.js";
import type { BudgetCondition, ConditionSpec } from "../provenance/schema.js";
import type { PrincipalCondition } from "../principal/schema.js";

export type PermissionMode = "allow" | "deny" | "ask";

/** How a value at a field selector is compared. Strings are canonicalised (NFKC, whitespace, case-folded for `glob`/`equals` unless `caseSensitive`). */
export type FieldMatcher =
  | { equals: string | number | boolean; caseSensitive?: boolean }
  | { in: (string | number | boolean)[]; caseSensitive?: boolean }
  | { glob: string; caseSensitive?: boolean }
  | { regex: string; caseSensitive?: boolean }
  | { prefix: string; caseSensitive?: boolean }
  | { exists: boolean }
  /** Filesystem path, resolved against `base` (default: the policy's `pathBase`, else "/"); gitignore-like globs. */
  | { path: string | string[]; base?: string; caseSensitive?: boolean }
  /** Shell command line, split into simple commands; `npm run test:*` prefix patterns (Claude Code's Bash rules). */
  | { command: string | string[]; caseSensitive?: boolean }
  /** URL (WHATWG-normalised) glob: `https://api.example.com/v1/**`. */
  | { url: string | string[] }
  /** Host name: `example.com`, `*.example.com` (subdomains), `.example.com` (both). */
  | { domain: string | string[] }
  /** Email addresses (every address of a list): `*@example.com`. */
  | { email: string | string[] };

/** One permission rule as written in code or a policy file: which tool, which arguments, and `allow`, `deny` or `ask`. */
export interface PermissionRuleSpec {
  id?: string;
  /** Tool name pattern: a glob (`kubectl_*`) unless `toolRegex` is true. */
  tool: string;
  /** The compact string this rule was read from (`Bash(npm run test:*)`), when it was written that way. */
  rule?: string;
  toolRegex?: boolean;
  /** Regex searched in the canonical JSON rendering of the arguments (linear-time engine). */
  args?: string;
  /** Per-field selectors, e.g. `{ "namespace": { equals: "production" }, "path": { glob: "/etc/**" } }`; all must match. */
  where?: Record<string, ConditionSpec<FieldMatcher>>;
  /** The rule applies only after one of these tools returned in the run (`"untrusted"`: the policy's untrusted tools). */
  after?: string[];
  afterScope?: "run" | "thread";
  /** The rule applies when `sum` over the completed calls of its tools in scope, plus this call, exceeds `max`. */
  budget?: BudgetCondition;
  /**
   * Conditions on who runs the call: `identity`, `permissions`, `display_name`, `metadata.<key>`
   * (attributes of the authenticated user) or `configurable.<key>` (the run's values) → condition.
   */
  principal?: Record<string, PrincipalCondition>;
  mode: PermissionMode;
  reason?: string;
  /**
   * Shadow rule: decided on every call and audited (and streamed) as what it would have done
   * ("would deny by permission:X"), never enforced. The policy in force is the other rules.
   */
  shadow?: boolean;
}

/** Why the guard decided what it did. Every outcome names the rule that decided it. */
export interface PolicyDecision {
  mode: PermissionMode;
  /** Id of the deciding rule, e.g. `permission:prod-protected`, `risk:high`, `killswitch:stop-all`, `unknown-tool`. */
  ruleId: string;
  reason: string;
  risk: RiskLevel;
  /** Provenance conditions: where each traced value was found, or that it was not. */
  evidence?: Evidence[];
}

export type Precedence = "deny-first" | "first-match";
