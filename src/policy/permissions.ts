import picomatch from "picomatch";
import { z } from "zod";
import type { RiskLevel } from "../tools/types.js";
import { canonicalize, MAX_MATCH_DEPTH, MAX_MATCH_INPUT_CHARS, type CanonicalArgs } from "./canonical.js";
import { PolicyError } from "./errors.js";
import { formatIssues } from "./format-issues.js";
import { parseCompactRule } from "./compact.js";
import { compileFieldCondition, NO, UNKNOWN, YES, type FieldCondition, type MatcherDefaults, type Verdict } from "./matchers.js";
import { compileSafeRegex, type SafeRegex } from "./regex.js";
import { PermissionModeSchema, PermissionRuleSchema, PrecedenceSchema, RiskLevelSchema, type FieldMatcherEntry } from "./schema.js";
import type { FieldMatcher, PermissionMode, PermissionRuleSpec, PolicyDecision, Precedence } from "./types.js";
import { cannotTellReason, controlCharacterReason, riskDefaultReason, undeclaredRiskReason } from "../messages/index.js";

/** A permission rule as written: `PermissionRuleSpec` plus `caseSensitive` for the tool name and `args` regex. */
export interface PermissionRule extends PermissionRuleSpec {
  caseSensitive?: boolean;
}

export interface PermissionPolicyOptions {
  /** Default `deny-first`: deny > ask > allow among all matching rules. `first-match` is the seed's order. */
  precedence?: Precedence;
  /** Risk per tool name; overrides the risk the tool declares. */
  toolRisk?: Record<string, RiskLevel>;
  /** What each risk level decides when no rule matches (default low/medium allow, high ask, always-deny deny). */
  riskModes?: Partial<Record<RiskLevel, PermissionMode>>;
  /**
   * Risk of a tool that declares none and is not in `toolRisk`. Unset (the default): a call no rule
   * matches, on such a tool, asks (seed 003: no matching rule → ask).
   */
  defaultRisk?: RiskLevel;
  /** Absolute directory relative paths in `path` matchers resolve against (default "/"). */
  pathBase?: string;
}

export const DEFAULT_RISK_MODES: Readonly<Record<RiskLevel, PermissionMode>> = {
  low: "allow",
  medium: "allow",
  high: "ask",
  "always-deny": "deny",
};

/** One rule tried for a call, as `policy explain` shows it. */
export interface RuleTrace {
  ruleId: string;
  mode: PermissionMode;
  description: string;
  verdict: "match" | "no match" | "cannot tell";
}

const MODE_RANK: Readonly<Record<PermissionMode, number>> = { deny: 0, ask: 1, allow: 2 };
const MAX_CACHED_TOOLS = 10_000;
const UNINSPECTABLE = `arguments longer than ${MAX_MATCH_INPUT_CHARS} characters or nested deeper than ${MAX_MATCH_DEPTH} levels cannot be inspected`;

const OptionsSchema = z.strictObject({
  precedence: PrecedenceSchema.optional(),
  toolRisk: z.record(z.string(), RiskLevelSchema).optional(),
  riskModes: z.partialRecord(RiskLevelSchema, PermissionModeSchema).optional(),
  defaultRisk: RiskLevelSchema.optional(),
  pathBase: z.string().min(1).optional(),
});

interface CompiledRule {
  readonly order: number;
  readonly spec: PermissionRule;
  readonly ruleId: string;
  readonly mode: PermissionMode;
  readonly matchesTool: (tool: string) => boolean;
  /** Has `args` or `where`: needs the canonical arguments. */
  readonly conditional: boolean;
  readonly args: SafeRegex | undefined;
  readonly where: readonly FieldCondition[];
  readonly description: string;
}

export function compileToolMatcher(rule: PermissionRule, where: string): (tool: string) => boolean {
  const caseSensitive = rule.caseSensitive === true;
  if (rule.toolRegex === true) {
    const regex = compileSafeRegex(rule.tool, { caseSensitive, where: `${where}.tool` });
    return (tool) => regex.testExact(tool);
  }
  if (!picomatch.scan(rule.tool).isGlob) {
    const name = caseSensitive ? rule.tool : rule.tool.toLowerCase();
    return caseSensitive ? (tool) => tool === name : (tool) => tool.toLowerCase() === name;
  }
  const isMatch = picomatch(rule.tool, { nocase: !caseSensitive, dot: true });
  return (tool) => isMatch(tool); // picomatch's second parameter must never receive an index
}

function describeRule(rule: PermissionRule, where: readonly FieldCondition[]): string {
  const parts = [`${rule.toolRegex === true ? "tool matching /" + rule.tool + "/" : rule.tool}`];
  if (rule.args !== undefined) parts.push(`args ~ /${rule.args}/`);
  if (where.length > 0) parts.push(`where ${where.map((condition) => condition.description).join(" and ")}`);
  return parts.join(" ");
}

function compileRule(rule: PermissionRule, index: number, defaults: MatcherDefaults): CompiledRule {
  const location = `permissions[${index}]`;
  const id = rule.id ?? location;
  const where = Object.entries(rule.where ?? {}).map(([selector, matcher]) =>
    compileFieldCondition(selector, matcher, `${location}.where[${JSON.stringify(selector)}]`, defaults),
  );
  return {
    order: index,
    spec: rule,
    ruleId: `permission:${id}`,
    mode: rule.mode,
    matchesTool: compileToolMatcher(rule, location),
    conditional: rule.args !== undefined || where.length > 0,
    args: rule.args === undefined ? undefined : compileSafeRegex(rule.args, { caseSensitive: rule.caseSensitive, where: `${location}.args` }),
    where,
    description: describeRule(rule, where),
  };
}

function conditionsVerdict(rule: CompiledRule, tree: unknown, text: string, restrictive: boolean): Verdict {
  let verdict: Verdict = YES;
  if (rule.args !== undefined && !rule.args.test(text)) return NO;
  for (const condition of rule.where) {
    const one = condition.evaluate(tree, restrictive);
    if (one === NO) return NO;
    if (one === UNKNOWN) verdict = UNKNOWN;
  }
  return verdict;
}

/**
 * Normalisation merges look-alike spellings, so it may only ever make a call MORE restricted:
 * deny/ask rules match if the normalised OR the literal arguments match; allow rules only if both
 * do. A deny/ask rule that cannot tell (UNKNOWN) makes the call ask; an allow needs a clear YES.
 */
function argumentsVerdict(rule: CompiledRule, view: CanonicalArgs): Verdict {
  if (view.oversized) return rule.mode === "allow" ? NO : YES;
  if (rule.mode === "allow") {
    if (conditionsVerdict(rule, view.value, view.text, false) !== YES) return NO;
    return !view.changed || conditionsVerdict(rule, view.literal, view.literalText, false) === YES ? YES : NO;
  }
  const normal = conditionsVerdict(rule, view.value, view.text, true);
  if (normal === YES || !view.changed) return normal;
  const literal = conditionsVerdict(rule, view.literal, view.literalText, true);
  if (literal === YES) return YES;
  return normal === UNKNOWN || literal === UNKNOWN ? UNKNOWN : NO;
}

function toFieldMatchers(where: Record<string, FieldMatcherEntry>): Record<string, FieldMatcher> {
  const out: Record<string, FieldMatcher> = {};
  for (const [selector, m] of Object.entries(where)) {
    const cs = m.caseSensitive === undefined ? {} : { caseSensitive: m.caseSensitive };
    if (m.equals !== undefined) out[selector] = { equals: m.equals, ...cs };
    else if (m.in !== undefined) out[selector] = { in: m.in, ...cs };
    else if (m.glob !== undefined) out[selector] = { glob: m.glob, ...cs };
    else if (m.regex !== undefined) out[selector] = { regex: m.regex, ...cs };
    else if (m.prefix !== undefined) out[selector] = { prefix: m.prefix, ...cs };
    else if (m.exists !== undefined) out[selector] = { exists: m.exists };
    else if (m.path !== undefined) out[selector] = { path: m.path, ...(m.base === undefined ? {} : { base: m.base }), ...cs };
    else if (m.command !== undefined) out[selector] = { command: m.command, ...cs };
    else if (m.url !== undefined) out[selector] = { url: m.url };
    else if (m.domain !== undefined) out[selector] = { domain: m.domain };
    else if (m.email !== undefined) out[selector] = { email: m.email };
  }
  return out;
}

/** Validates rules that enter from outside (files, APIs, user code); throws a PolicyError per problem. */
export function parsePermissionRules(input: unknown): PermissionRule[] {
  const parsed = z.array(PermissionRuleSchema).safeParse(input);
  if (!parsed.success) {
    const lines = formatIssues(parsed.error.issues, input, ["permissions"]);
    throw new PolicyError(undefined, "", `invalid permission rules: ${lines.join("; ")}`);
  }
  return parsed.data.map((rule, index) => {
    const compact = rule.rule === undefined ? undefined : parseCompactRule(rule.rule, `permissions[${index}].rule`);
    const out: PermissionRule = { tool: compact?.tool ?? rule.tool ?? "", mode: rule.mode };
    if (rule.rule !== undefined) out.rule = rule.rule;
    if (rule.id !== undefined) out.id = rule.id;
    if (rule.toolRegex !== undefined) out.toolRegex = rule.toolRegex;
    if (rule.args !== undefined) out.args = rule.args;
    if (compact?.where !== undefined) out.where = compact.where;
    if (rule.where !== undefined) out.where = toFieldMatchers(rule.where);
    if (rule.reason !== undefined) out.reason = rule.reason;
    if (rule.caseSensitive !== undefined) out.caseSensitive = rule.caseSensitive;
    return out;
  });
}

/**
 * Decides allow / deny / ask for a tool call from permission rules on the tool name and its
 * (canonicalised) arguments, falling back to the tool's risk category.
 *
 * `decide` assumes the tool exists: unknown tools are refused by the guard before it asks.
 * Everything is compiled up front; the rules that can apply to a tool name are cached per name.
 */
export class PermissionPolicy {
  readonly precedence: Precedence;
  readonly defaultRisk: RiskLevel | undefined;
  private readonly rules: readonly CompiledRule[];
  private readonly toolRisk: Readonly<Record<string, RiskLevel>>;
  private readonly riskModes: Readonly<Record<RiskLevel, PermissionMode>>;
  private readonly byTool = new Map<string, readonly CompiledRule[]>();

  constructor(rules: readonly PermissionRule[], options: PermissionPolicyOptions = {}) {
    const parsedOptions = OptionsSchema.safeParse(options);
    if (!parsedOptions.success) {
      throw new PolicyError(undefined, "", `invalid permission policy options: ${formatIssues(parsedOptions.error.issues, options).join("; ")}`);
    }
    const valid = parsePermissionRules(rules);
    const defaults: MatcherDefaults = { pathBase: options.pathBase };
    this.rules = valid.map((rule, index) => {
      try {
        return compileRule(rule, index, defaults);
      } catch (error) {
        if (!(error instanceof PolicyError)) throw error;
        const id = rule.id === undefined ? "" : ` (rule id ${JSON.stringify(rule.id)})`;
        throw new PolicyError(undefined, error.path, `${error.detail}${id}`);
      }
    });
    this.precedence = options.precedence ?? "deny-first";
    this.defaultRisk = options.defaultRisk;
    this.toolRisk = { ...options.toolRisk };
    this.riskModes = { ...DEFAULT_RISK_MODES, ...options.riskModes };
  }

  /** The rules in the order they are tried (deny-first: denies, then asks, then allows; each in file order). */
  effectiveOrder(): PermissionRule[] {
    return this.sorted(this.rules).map((rule) => rule.spec);
  }

  /** Effective risk: the policy's `toolRisk`, then the tool's declared risk, then `defaultRisk`; undefined when none is declared. */
  riskOf(tool: string, declaredRisk?: RiskLevel): RiskLevel | undefined {
    return (Object.hasOwn(this.toolRisk, tool) ? this.toolRisk[tool] : undefined) ?? declaredRisk ?? this.defaultRisk;
  }

  decide(tool: string, args: unknown, declaredRisk?: RiskLevel): PolicyDecision {
    return this.evaluate(tool, args, declaredRisk, undefined);
  }

  /** Ids of every rule that matches the call, in effect order (for explaining a decision). */
  matchingRules(tool: string, args: unknown): string[] {
    const trace: RuleTrace[] = [];
    this.evaluate(tool, args, undefined, trace);
    return trace.filter((entry) => entry.verdict !== "no match").map((entry) => entry.ruleId);
  }

  /** The decision plus every rule tried, in order, with its verdict (for `policy explain`). */
  explain(tool: string, args: unknown, declaredRisk?: RiskLevel): { decision: PolicyDecision; trace: RuleTrace[] } {
    const trace: RuleTrace[] = [];
    const decision = this.evaluate(tool, args, declaredRisk, trace);
    return { decision, trace };
  }

  private evaluate(tool: string, args: unknown, declaredRisk: RiskLevel | undefined, trace: RuleTrace[] | undefined): PolicyDecision {
    const risk = this.riskOf(tool, declaredRisk);
    const shownRisk: RiskLevel = risk ?? "medium";
    let view: CanonicalArgs | undefined;
    let unsure: CompiledRule | undefined;
    let decided: PolicyDecision | undefined;
    for (const rule of this.candidates(tool)) {
      let verdict: Verdict = YES;
      if (rule.conditional) {
        view ??= canonicalize(args);
        verdict = argumentsVerdict(rule, view);
      }
      trace?.push({ ruleId: rule.ruleId, mode: rule.mode, description: rule.description, verdict: verdict === YES ? "match" : verdict === NO ? "no match" : "cannot tell" });
      if (decided !== undefined) continue;
      if (verdict === UNKNOWN) {
        unsure ??= rule;
        continue;
      }
      if (verdict === NO) continue;
      if (rule.mode === "allow" && unsure !== undefined) {
        decided = this.unsureDecision(unsure, shownRisk);
      } else decided = { mode: rule.mode, ruleId: rule.ruleId, reason: this.reasonFor(rule, view), risk: shownRisk };
      if (trace === undefined) break;
    }
    if (decided === undefined && unsure !== undefined) decided = this.unsureDecision(unsure, shownRisk);
    if (decided === undefined) {
      if (risk === undefined) {
        decided = { mode: "ask", ruleId: "default:ask", reason: undeclaredRiskReason(tool), risk: shownRisk };
      } else {
        const mode = this.riskModes[risk];
        decided = { mode, ruleId: `risk:${risk}`, reason: riskDefaultReason(tool, risk, mode), risk };
      }
    }
    if (decided.mode === "allow") {
      view ??= canonicalize(args);
      if (view.controlChar !== undefined) {
        return { mode: "ask", ruleId: "control-characters", reason: controlCharacterReason(view.controlChar), risk: shownRisk };
      }
    }
    return decided;
  }

  private unsureDecision(rule: CompiledRule, risk: RiskLevel): PolicyDecision {
    return { mode: "ask", ruleId: rule.ruleId, reason: cannotTellReason(rule.mode, rule.description), risk };
  }

  private reasonFor(rule: CompiledRule, view: CanonicalArgs | undefined): string {
    // The tool and the rule id travel beside the reason; sentences in src/messages add them once.
    const base = rule.spec.reason ?? (rule.description.length > 120 ? `${rule.description.slice(0, 117)}...` : rule.description);
    return view?.oversized === true && rule.conditional ? `${base}; ${UNINSPECTABLE}` : base;
  }

  private sorted(rules: readonly CompiledRule[]): CompiledRule[] {
    if (this.precedence === "first-match") return [...rules];
    return [...rules].sort((a, b) => MODE_RANK[a.mode] - MODE_RANK[b.mode] || a.order - b.order);
  }

  private candidates(tool: string): readonly CompiledRule[] {
    let found = this.byTool.get(tool);
    if (found === undefined) {
      found = this.sorted(this.rules.filter((rule) => rule.matchesTool(tool)));
      if (this.byTool.size >= MAX_CACHED_TOOLS) this.byTool.clear();
      this.byTool.set(tool, found);
    }
    return found;
  }
}
