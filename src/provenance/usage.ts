import { conditionWords, MAX_INLINE_SOURCES_CHARS, provenanceUsage, sourceLegend, sourceNames, type SourceLists } from "../messages/provenance.js";
import { describeCondition } from "./conditions.js";
import type { BudgetCondition, ConditionSpec } from "./schema.js";

/**
 * The "Tool usage rules" lines of a policy's provenance, context and budget rules: one sentence per
 * restricting rule that says every condition the rule applies on (all its fields, `after`, `budget`),
 * so the model is never told a stricter or looser rule than the one enforced. Rules that say the
 * same about different tools share a line; the whole stays under {@link MAX_USAGE_CHARS}.
 */

/** Longest usage text (characters, all lines) the provenance rules add to the system prompt; the rest is counted in a last line. */
export const MAX_USAGE_CHARS = 2_000;

export interface UsageRule<Leaf> {
  tool: string;
  toolRegex?: boolean | undefined;
  args?: string | undefined;
  where?: Record<string, ConditionSpec<Leaf>> | undefined;
  after?: readonly string[] | undefined;
  afterScope?: "run" | "thread" | undefined;
  budget?: BudgetCondition | undefined;
  mode: "deny" | "ask";
}

export type UsageLists = Omit<SourceLists, "legend">;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The sources every `from` of a condition names. */
function sourcesIn(condition: unknown): string[] {
  if (!isObject(condition)) return [];
  if (Array.isArray(condition.from)) return condition.from as string[];
  if (condition.not !== undefined) return sourcesIn(condition.not);
  return (["anyOf", "allOf"] as const).flatMap((key) => (Array.isArray(condition[key]) ? (condition[key] as unknown[]).flatMap(sourcesIn) : []));
}

function hasFrom(condition: unknown): boolean {
  if (!isObject(condition)) return false;
  if (Array.isArray(condition.from)) return true;
  if (condition.not !== undefined) return hasFrom(condition.not);
  return (["anyOf", "allOf"] as const).some((key) => Array.isArray(condition[key]) && (condition[key] as unknown[]).some(hasFrom));
}

/** The tool names of a rule as shown: a plain brace list `{a,b}` as its names, any other pattern as written. */
function toolsOf(rule: UsageRule<unknown>): string[] {
  if (rule.toolRegex === true) return [`/${rule.tool}/`];
  const brace = /^\{([^{}*?[\]]+)\}$/.exec(rule.tool);
  return brace === null ? [rule.tool] : brace[1]!.split(",").map((name) => name.trim()).filter((name) => name !== "");
}

/**
 * The sentence body of one rule (without its tools), or undefined when it restricts nothing the
 * model can act on. The two common one-field forms keep their short sentences, which say the same
 * condition: `not: { from }` (optionally `not: { anyOf: [{ from }, matchers…] }`) and a plain `from`.
 */
function bodyOf<Leaf>(rule: UsageRule<Leaf>, lists: UsageLists, describeLeaf: (leaf: Leaf) => string): string | undefined {
  const fields = Object.entries(rule.where ?? {});
  const only = fields.length === 1 && rule.after === undefined && rule.budget === undefined && rule.args === undefined ? fields[0] : undefined;
  if (only !== undefined) {
    const [field, condition] = only;
    const c = condition as Record<string, unknown>;
    if (Array.isArray(c.from) && c.only === undefined) return provenanceUsage.foundIn("", field, c.from as string[], lists, rule.mode);
    const inner = isObject(c.not) ? c.not : undefined;
    if (inner !== undefined && Array.isArray(inner.from)) return provenanceUsage.from("", field, inner.from as string[], lists, rule.mode, inner.only as string[] | undefined);
    if (inner !== undefined && Array.isArray(inner.anyOf)) {
      const branches = inner.anyOf as unknown[];
      const froms = branches.filter((b) => isObject(b) && Array.isArray(b.from) && b.only === undefined);
      const others = branches.filter((b) => !froms.includes(b));
      if (froms.length === 1 && !others.some(hasFrom)) {
        const otherwise = others.map((o) => describeCondition(o as ConditionSpec<Leaf>, describeLeaf));
        return provenanceUsage.from("", field, (froms[0] as { from: string[] }).from, lists, rule.mode, undefined, otherwise);
      }
    }
  }
  if (fields.length === 0 && rule.args === undefined) {
    if (rule.after !== undefined && rule.budget === undefined) return provenanceUsage.after("", rule.after, lists.untrusted, rule.afterScope ?? "run", rule.mode);
    if (rule.budget !== undefined && rule.after === undefined) {
      const { sum, max, scope } = rule.budget;
      return sum === undefined ? provenanceUsage.callBudget("", max, scope ?? "run", rule.mode) : provenanceUsage.budget("", sum, max, scope ?? "run", rule.mode);
    }
  }
  const clauses: string[] = [];
  if (rule.after !== undefined) clauses.push(provenanceUsage.afterClause(rule.after, lists.untrusted, rule.afterScope ?? "run"));
  for (const [field, condition] of fields) {
    const words = conditionWords(condition, lists, describeLeaf as (leaf: never) => string);
    // Clauses are joined by "and": a field's "or" is kept apart.
    const joined = clauses.length > 0 || fields.length > 1 || rule.args !== undefined || rule.budget !== undefined;
    clauses.push(provenanceUsage.fieldClause(field, joined && words.joint === "or" ? `(${words.text})` : words.text));
  }
  if (rule.args !== undefined) clauses.push(provenanceUsage.argsClause(rule.args));
  if (rule.budget !== undefined) clauses.push(provenanceUsage.budgetClause(rule.budget.sum, rule.budget.max, rule.budget.scope ?? "run"));
  return clauses.length === 0 ? undefined : provenanceUsage.when("", clauses, rule.mode);
}

/** Usage lines for the restricting rules that need the thread (provenance, `after`, `budget`), grouped and bounded. */
export function provenanceUsageLines<Leaf>(rules: readonly UsageRule<Leaf>[], given: UsageLists, describeLeaf: (leaf: Leaf) => string): string[] {
  // Long lists of trusted or untrusted outputs are said once, above the sentences that name them.
  const names = sourceNames(given);
  const sources = new Set(rules.flatMap((rule) => Object.values(rule.where ?? {}).flatMap((condition) => sourcesIn(condition))));
  const legend = {
    trusted: sources.has("trusted") && names.trusted.length > MAX_INLINE_SOURCES_CHARS,
    untrusted: sources.has("untrusted") && names.untrusted.length > MAX_INLINE_SOURCES_CHARS,
  };
  const lists: SourceLists = { ...given, legend };
  const head = [...(legend.trusted ? [sourceLegend.trusted(names.trusted)] : []), ...(legend.untrusted ? [sourceLegend.untrusted(names.untrusted)] : [])];
  // Sentence bodies in the order of their first rule, with the tools that share each.
  const groups = new Map<string, string[]>();
  for (const rule of rules) {
    const body = bodyOf(rule, lists, describeLeaf);
    if (body === undefined) continue;
    const tools = groups.get(body) ?? [];
    for (const tool of toolsOf(rule)) if (!tools.includes(tool)) tools.push(tool);
    groups.set(body, tools);
  }
  const lines = [...groups].map(([body, tools]) => ({ line: `${tools.map((t) => `\`${t}\``).join(", ")}${body}`, tools }));
  const out: string[] = [...head];
  let used = head.reduce((sum, line) => sum + line.length + 1, 0);
  for (const [position, { line }] of lines.entries()) {
    const rest = lines.slice(position + 1);
    // Room for this line, and for the closing line if more follow.
    const closing = rest.length === 0 ? 0 : provenanceUsage.more(rest.length, [...new Set(rest.flatMap((r) => r.tools))]).length + 1;
    if (used + line.length + 1 + closing > MAX_USAGE_CHARS) {
      const left = lines.slice(position);
      out.push(provenanceUsage.more(left.length, [...new Set(left.flatMap((r) => r.tools))]));
      break;
    }
    out.push(line);
    used += line.length + 1;
  }
  return out;
}
