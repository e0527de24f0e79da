import { ASKABLE_RULE_TYPES, SCOPED_RULE_TYPES } from "./types.js";
import type { RuleType, ToolRule } from "./types.js";

/** A rule after normalisation: id, priority and conditions always present. Still a valid {@link ToolRule}. */
export type NormalisedRule = ToolRule & {
  id: string;
  priority: number;
  conditions: string[];
};

/** A normalised rule with its position in priority order (0 = checked first). */
export type RankedRule = NormalisedRule & { rank: number };

export const WILDCARD = "*";

/** Rule types whose `tool: "*"` has no sensible "every tool" meaning (they name one concrete tool). */
export const WILDCARD_UNSUPPORTED: ReadonlySet<RuleType> = new Set<RuleType>([
  "MustPrecede",
  "ExclusiveGroup",
  "InitialCall",
  "RequiredForExit",
  "RequiredForExitIf",
  "Periodic",
  "ChildTools",
  "ParentTools",
  "ConditionalNext",
]);

/** Rule types that may carry prefilled `args` (tools the guard may call itself). */
const ARGS_TYPES: ReadonlySet<RuleType> = new Set<RuleType>(["InitialCall", "RequiredForExit", "RequiredForExitIf", "Periodic"]);

/** For these, `tool: "*"` with `conditions` means "the listed tools" (seed 001's NoHeartbeat example). */
const WILDCARD_LISTS: ReadonlySet<RuleType> = new Set<RuleType>(["NoHeartbeat", "ContinueLoop"]);

export function defaultRuleId(rule: ToolRule, index: number): string {
  return `${rule.type}:${rule.tool}#${index}`;
}

/** Problems that make a rule set impossible to run (the engine refuses to start with them). */
export function structuralProblems(rules: readonly ToolRule[]): string[] {
  const problems: string[] = [];
  rules.forEach((rule, index) => {
    const id = rule.id ?? defaultRuleId(rule, index);
    if (rule.tool === WILDCARD && WILDCARD_UNSUPPORTED.has(rule.type)) {
      problems.push(`${id}: ${rule.type} needs a concrete tool, not "*"`);
    }
    if ((rule.conditions ?? []).includes(WILDCARD)) {
      problems.push(`${id}: conditions must name tools, "*" is not allowed there`);
    }
    if (rule.type === "MaxTotalCalls" && rule.tool !== WILDCARD) {
      problems.push(`${id}: MaxTotalCalls counts every tool together; its tool must be "*" (use MaxCalls for one tool)`);
    }
    const scoped = "scope" in rule && rule.scope !== undefined;
    if (scoped && !(SCOPED_RULE_TYPES as readonly string[]).includes(rule.type)) {
      problems.push(`${id}: scope has no meaning for ${rule.type} (only for ${SCOPED_RULE_TYPES.join(", ")})`);
    }
    if (rule.onViolation !== undefined && !(ASKABLE_RULE_TYPES as readonly string[]).includes(rule.type)) {
      problems.push(`${id}: onViolation has no meaning for ${rule.type} (only for ${ASKABLE_RULE_TYPES.join(", ")})`);
    }
    if (rule.onViolation === "ask" && "exitBehavior" in rule && rule.exitBehavior !== undefined && rule.exitBehavior !== "continue") {
      problems.push(`${id}: onViolation "ask" cannot be combined with exitBehavior "${rule.exitBehavior}" (a call that asks neither ends the run nor throws)`);
    }
    if ("args" in rule && rule.args !== undefined && !ARGS_TYPES.has(rule.type)) {
      problems.push(`${id}: args has no meaning for ${rule.type} (only for ${[...ARGS_TYPES].join(", ")})`);
    }
    if (rule.type === "ChildTools" || rule.type === "ParentTools" || rule.type === "ConditionalNext" || rule.type === "InitialCall") {
      const named = rule.type === "ChildTools" || rule.type === "ParentTools" ? rule.children : rule.type === "InitialCall" ? (rule.alternatives ?? []) : [...Object.values(rule.outputMapping), ...(rule.defaultChild ? [rule.defaultChild] : [])];
      if (named.includes(WILDCARD)) problems.push(`${id}: ${rule.type} must name tools, "*" is not allowed among them`);
    }
    if (rule.type === "ChildTools" && rule.childArgs) {
      for (const child of Object.keys(rule.childArgs)) {
        if (!rule.children.includes(child)) problems.push(`${id}: childArgs names ${child}, which is not one of the children (${rule.children.join(", ")})`);
      }
    }
  });
  return problems;
}

/**
 * Assigns default ids and priorities, expands `"*"` NoHeartbeat/ContinueLoop rules into one rule per
 * listed tool, and sorts by priority (higher first, stable: ties keep declaration order).
 */
export function normaliseRules(rules: readonly ToolRule[]): RankedRule[] {
  const out: NormalisedRule[] = [];
  rules.forEach((rule, index) => {
    const id = rule.id ?? defaultRuleId(rule, index);
    const priority = rule.priority ?? 0;
    const conditions = [...(rule.conditions ?? [])];
    if (rule.tool === WILDCARD && WILDCARD_LISTS.has(rule.type) && conditions.length > 0) {
      for (const tool of new Set(conditions)) out.push({ ...rule, tool, id, priority, conditions: [] });
      return;
    }
    out.push({ ...rule, id, priority, conditions });
  });
  return out
    .map((rule, order) => ({ rule, order }))
    .sort((a, b) => b.rule.priority - a.rule.priority || a.order - b.order)
    .map(({ rule }, rank) => ({ ...rule, rank }));
}
