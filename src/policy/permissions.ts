import { z } from "zod";
import type { RiskLevel } from "../tools/types.js";
import { canonicalize, MAX_MATCH_DEPTH, MAX_MATCH_INPUT_CHARS, someJsonToken, type CanonicalArgs } from "./canonical.js";
import { PolicyError } from "./errors.js";
import { formatIssues } from "./format-issues.js";
import { parseCompactRule, type MainArguments } from "./compact.js";
import { findControlChar } from "./canonical.js";
import { argumentsHash, DataCache } from "./decision-cache.js";
import { isOneToolName } from "./rule-index.js";
import { serverWidePrefix } from "./mcp-names.js";
import { compileFieldCondition, describeMatcher, failsOnlyOnSelector, NO, selectorSegments, UNKNOWN, YES, type FieldCondition, type MatcherDefaults, type Verdict } from "./matchers.js";
import { compileGlob, isGlobPattern } from "./glob.js";
import { compileSafeRegex, matchesWithinJsonTokens, type SafeRegex } from "./regex.js";
import { MainArgumentSchema, PermissionModeSchema, PermissionRuleSchema, PrecedenceSchema, RiskLevelSchema, type FieldMatcherEntry } from "./schema.js";
import type { FieldMatcher, PermissionMode, PermissionRuleSpec, PolicyDecision, Precedence } from "./types.js";
import { cannotTellReason, commandToolRuleDescription, controlCharacterReason, fetchFileRuleDescription, fetchNetRuleDescription, fileToolRuleDescription, netRuleDescription, shellFileRuleDescription, uncoveredReason } from "../messages/index.js";
import { DEFAULT_RISK_MODES, noRuleDecision } from "./defaults.js";
import { evidenceNote, provenanceReason } from "../messages/provenance.js";
import { budgetTotal, isComposite, locateValues, seenAfter, usesContext, usesPrincipal } from "../provenance/conditions.js";
import { compilePrincipalConditions, missingReason, type PrincipalConditions } from "../principal/conditions.js";
import type { Principal } from "../principal/principal.js";
import { sameAsNames } from "../principal/check.js";
import { ApproverRuleSchema, PrincipalsDeclarationSchema, type ApproverRule, type PrincipalsDeclaration } from "../principal/schema.js";
import { principalText } from "../messages/principal.js";
import { Evaluation, type DecisionContext, type ProvenanceSettings } from "../provenance/context.js";
import type { Evidence } from "../provenance/index-builder.js";
import { ProvenanceConfigSchema, type ConditionSpec } from "../provenance/schema.js";
import { trustTableOf } from "../provenance/trust.js";
import { provenanceUsageLines } from "../provenance/usage.js";
import { compileDirectGetter, NEEDS_FULL_SELECT, parseSelector, selectAll, type SelectorSegment } from "./selector.js";
import { ToolNameIndex, ValueIndex } from "./rule-index.js";
import { validShellsOnce, type ShellsOnce } from "./rules-once.js";
import { ARGUMENT_KINDS, type ArgumentKind } from "./kinds/readings.js";
import { machineReading } from "./kinds/net.js";
import { conventionalFetchTool, conventionalFileTool, conventionalKind, conventionalMainArgument, URL_ARGUMENTS } from "./compact.js";
import { judgeFileReach, judgeSearchReach, judgeUrlFileReach, judgeVirtualPath, type FileAccess, type FileRule, type SearchCall } from "./kinds/file-reach.js";
import { judgeNetReach, type NetRule } from "./kinds/net-reach.js";
import { expandHome, normaliseBase } from "./kinds/path.js";
import { powerShellLine } from "./kinds/command.js";
import { isPowerShellTool } from "./kinds/powershell.js";
import { statSync } from "node:fs";
import { homedir } from "node:os";

/** This process's home directory when it is an absolute path (else `~` in a path pattern is refused). */
function processHome(): string | undefined {
  try {
    const home = homedir();
    return home.startsWith("/") ? home : undefined;
  } catch {
    return undefined;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** A permission rule as written: `PermissionRuleSpec` plus `caseSensitive` for the tool name and `args` regex. */
export interface PermissionRule extends PermissionRuleSpec {
  caseSensitive?: boolean;
}

export interface PermissionPolicyOptions {
  /** Default `deny-first`: deny > ask > allow among all matching rules. `first-match`: the first matching rule in written order wins. */
  precedence?: Precedence;
  /** Risk per tool name; overrides the risk the tool declares. */
  toolRisk?: Record<string, RiskLevel>;
  /** What each risk level decides when no rule matches (default low/medium allow, high ask, always-deny deny). */
  riskModes?: Partial<Record<RiskLevel, PermissionMode>>;
  /**
   * Risk of a tool that declares none and is not in `toolRisk`. Unset (the default): a call no rule
   * matches, on such a tool, asks.
   */
  defaultRisk?: RiskLevel;
  /** Absolute directory relative paths in `path` matchers resolve against (default "/"). */
  pathBase?: string;
  /**
   * Absolute directories besides `pathBase` the tools work in (Claude Code's `additionalDirectories`): a path in one
   * of them is placed, so a deny or ask path pattern holds there only where it matches and an allow pattern naming it
   * can allow it; a path elsewhere outside the base still matches every deny and no allow.
   */
  workingDirectories?: readonly string[];
  /**
   * The home directory `~` names in `path` patterns (`Read(~/.ssh/**)`), as bash expands `~/…`: absolute
   * (default: the home of this process, `os.homedir()`, where its tools run).
   */
  home?: string;
  /** Tools whose `toolRisk` may be lower than the risk they declare; for the others the higher of the two counts. */
  lowerRisk?: readonly string[];
  /** Trusted and untrusted tools for `from: [trusted]` and `after: [untrusted]`. */
  provenance?: ProvenanceSettings;
  /** Per tool name: the argument a bare compact pattern means (`{ shell: { field: "cmd", kind: "command" } }`). */
  mainArguments?: MainArguments;
  /**
   * Per tool name, per field selector: the argument's kind (`{ write_file: { target: "path" } }`).
   * Every plain string matcher on such a field compares the value's canonical readings. Wins over
   * the kinds tools declare (`defineTool`'s `argumentKinds`) and over field-name conventions.
   */
  fieldKinds?: Record<string, Record<string, ArgumentKind>>;
  /**
   * Path readings also follow symlinks on this machine (realpath of the longest existing part).
   * Default: on when `pathBase` is given and is a directory on this machine.
   */
  followSymlinks?: boolean;
  /** The names of the principal the rules read (`metadata.<key>`, `configurable.<key>`), for `policy check`. */
  principals?: PrincipalsDeclaration;
  /** Who may answer which approvals (roles, permissions, four eyes, several approvers). */
  approvers?: ApproverRule[];
}

export { DEFAULT_RISK_MODES } from "./defaults.js";

/** One rule tried for a call, as `policy explain` shows it. */
interface RuleTrace {
  ruleId: string;
  mode: PermissionMode;
  description: string;
  verdict: "match" | "no match" | "cannot tell";
}

const RISK_RANK: Readonly<Record<RiskLevel, number>> = { low: 0, medium: 1, high: 2, "always-deny": 3 };

/** The more restrictive of two risk levels. */
export function higherRisk(a: RiskLevel, b: RiskLevel): RiskLevel {
  return RISK_RANK[a] >= RISK_RANK[b] ? a : b;
}

/** True when `a` is a lower risk than `b`. */
export function isLowerRisk(a: RiskLevel, b: RiskLevel): boolean {
  return RISK_RANK[a] < RISK_RANK[b];
}

const MODE_RANK: Readonly<Record<PermissionMode, number>> = { deny: 0, ask: 1, allow: 2 };
const MAX_CACHED_TOOLS = 10_000;
const UNINSPECTABLE = `arguments longer than ${MAX_MATCH_INPUT_CHARS} characters or nested deeper than ${MAX_MATCH_DEPTH} levels cannot be inspected`;

const OptionsSchema = z.lazy(() => z.strictObject({
  precedence: PrecedenceSchema.optional(),
  toolRisk: z.record(z.string(), RiskLevelSchema).optional(),
  riskModes: z.partialRecord(RiskLevelSchema, PermissionModeSchema).optional(),
  defaultRisk: RiskLevelSchema.optional(),
  pathBase: z.string().min(1).optional(),
  workingDirectories: z.array(z.string().min(1)).readonly().optional(),
  home: z.string().min(1).optional(),
  lowerRisk: z.array(z.string()).optional(),
  provenance: ProvenanceConfigSchema.optional(),
  mainArguments: z.record(z.string(), MainArgumentSchema).optional(),
  fieldKinds: z.record(z.string(), z.record(z.string(), z.enum(ARGUMENT_KINDS))).optional(),
  followSymlinks: z.boolean().optional(),
  principals: PrincipalsDeclarationSchema.optional(),
  approvers: z.array(ApproverRuleSchema).optional(),
}));

interface CompiledRule {
  readonly order: number;
  readonly spec: PermissionRule;
  readonly ruleId: string;
  readonly mode: PermissionMode;
  readonly matchesTool: (tool: string) => boolean;
  /** Has `args` or `where`: needs the canonical arguments. */
  readonly conditional: boolean;
  readonly args: SafeRegex | undefined;
  /** `args` is a literal search whose matches stay inside one JSON token: searched token by token, in tokens at least this long (see someJsonToken). */
  readonly argsInTokens: number | undefined;
  readonly where: readonly FieldCondition[];
  readonly description: string;
  /** The reason a decision by this rule gives: the rule's `reason`, else its description (cut at 120 characters). */
  readonly reasonText: string;
  /** Needs the thread (a `from` condition, `after` or `budget`). */
  readonly contextual: boolean;
  /** Reads the run's principal (a `principal:` block, a `sameAs` condition). */
  readonly personal: boolean;
  /** The `principal:` block, compiled. */
  readonly principal: PrincipalConditions | undefined;
  /** `after` and `budget`: YES when they let the rule apply. */
  readonly context: ((tree: unknown, evaluation: Evaluation | undefined) => Verdict) | undefined;
  /** `budget`: the total with this call (for evidence), undefined when it cannot tell. */
  readonly budgetTotal?: ((tree: unknown, evaluation: Evaluation) => number | undefined) | undefined;
  /** The argument kind each `where` selector was compiled with. */
  readonly kinds: Readonly<Record<string, ArgumentKind | undefined>>;
  /** The reason of a decision by this rule when it depends on the call (a file rule read in a shell command: what the command does). */
  readonly reasonOf?: (view: CanonicalArgs) => string | undefined;
}

/** The argument kind of a rule's field: `selector` and its condition (whose patterns the email convention reads). */
type KindOf = (selector: string, condition: unknown) => ArgumentKind | undefined;

/** The plain string patterns of a condition (under not/anyOf/allOf too). */
function stringPatterns(condition: unknown, out: string[] = []): string[] {
  if (typeof condition !== "object" || condition === null) return out;
  const c = condition as Record<string, unknown>;
  for (const key of ["equals", "prefix", "glob", "regex"]) if (typeof c[key] === "string") out.push(c[key] as string);
  if (Array.isArray(c.in)) for (const value of c.in) if (typeof value === "string") out.push(value);
  if (c.not !== undefined) stringPatterns(c.not, out);
  for (const key of ["anyOf", "allOf"]) if (Array.isArray(c[key])) for (const inner of c[key] as unknown[]) stringPatterns(inner, out);
  return out;
}

/** The kind by field-name convention alone (no tool known). */
const conventionOnly: KindOf = (selector, condition) => conventionalKind(selector, stringPatterns(condition));

/** Matchers of literal tool names, by case rule and name. */
const literalMatchers = new Map<string, (tool: string) => boolean>();

export function compileToolMatcher(rule: PermissionRule, where: string): (tool: string) => boolean {
  const caseSensitive = rule.caseSensitive === true;
  if (rule.toolRegex === true) {
    const regex = compileSafeRegex(rule.tool, { caseSensitive, where: `${where}.tool` });
    return (tool) => regex.testExact(tool);
  }
  if (!isGlobPattern(rule.tool)) {
    // Rules naming one tool share its matcher.
    const key = `${caseSensitive ? "1" : "0"}${rule.tool}`;
    let matcher = literalMatchers.get(key);
    if (matcher === undefined) {
      const name = caseSensitive ? rule.tool : rule.tool.toLowerCase();
      const server = serverWidePrefix(name);
      // `mcp__github` names the server's tools too (`mcp__github__create_issue`).
      if (server !== undefined) matcher = caseSensitive ? (tool) => tool === name || tool.startsWith(server) : (tool) => tool.toLowerCase() === name || tool.toLowerCase().startsWith(server);
      else matcher = caseSensitive ? (tool) => tool === name : (tool) => tool.toLowerCase() === name;
      if (literalMatchers.size >= MAX_CACHED_TOOLS) literalMatchers.clear();
      literalMatchers.set(key, matcher);
    }
    return matcher;
  }
  return compileGlob(rule.tool, { nocase: !caseSensitive, dot: true });
}

/**
 * The tool matchers of one policy being read, by pattern (regex or glob, case rule, text): rules
 * naming one pattern share its matcher, compiled by the first of them (so a bad pattern is refused
 * at that rule, as `compileToolMatcher` refuses it). A big policy names few patterns in many rules.
 */
export class ToolMatchers {
  /** By regex flag (2) and case flag (1), then the pattern's text. */
  private readonly byFlags = [new Map<string, (tool: string) => boolean>(), new Map<string, (tool: string) => boolean>(), new Map<string, (tool: string) => boolean>(), new Map<string, (tool: string) => boolean>()] as const;

  /** The matcher `compileToolMatcher` compiles for rule `index` (refusing a bad pattern there), shared by the rules of its pattern. */
  of(rule: PermissionRule, index: number): (tool: string) => boolean {
    const map = this.byFlags[(rule.toolRegex === true ? 2 : 0) + (rule.caseSensitive === true ? 1 : 0)]!;
    let matcher = map.get(rule.tool);
    if (matcher === undefined) map.set(rule.tool, (matcher = compileToolMatcher(rule, `permissions[${index}]`)));
    return matcher;
  }
}

function describeRule(rule: PermissionRule, where: readonly FieldCondition[], principal?: PrincipalConditions): string {
  const parts = [`${rule.toolRegex === true ? "tool matching /" + rule.tool + "/" : rule.tool}`];
  if (rule.args !== undefined) parts.push(`args ~ /${rule.args}/`);
  if (where.length > 0) parts.push(`where ${where.map((condition) => condition.description).join(" and ")}`);
  if (principal !== undefined) parts.push(`when ${principal.description}`);
  return parts.join(" ");
}

/** `after` and `budget`, compiled: both must let the rule apply. Without the thread they cannot tell (UNKNOWN). */
function compileContext(rule: PermissionRule, matchesTool: (tool: string) => boolean, location: string): Pick<CompiledRule, "context" | "budgetTotal"> {
  const { after, budget } = rule;
  if (after === undefined && budget === undefined) return { context: undefined };
  const afterScope = rule.afterScope ?? "run";
  let select: ((args: unknown) => unknown[]) | undefined;
  if (budget !== undefined && budget.sum === undefined) {
    select = () => [1]; // no field: every call counts 1
  } else if (budget?.sum !== undefined) {
    let segments: SelectorSegment[];
    try {
      segments = parseSelector(budget.sum);
    } catch (error) {
      throw new PolicyError(undefined, `${location}.budget.sum`, (error as Error).message);
    }
    select = (args) => selectAll(args, segments).flatMap((value) => (Array.isArray(value) ? value : [value]));
  }
  const total = (tree: unknown, evaluation: Evaluation | undefined): number | undefined => {
    if (budget === undefined || select === undefined) return undefined;
    const before = budgetTotal(budget, matchesTool, select, evaluation);
    const own = select(tree).map((value) => (typeof value === "number" ? value : Number(value)));
    if (before === undefined || own.some((n) => !Number.isFinite(n))) return undefined;
    return before + own.reduce((a, b) => a + b, 0);
  };
  const context = (tree: unknown, evaluation: Evaluation | undefined): Verdict => {
    if (after !== undefined) {
      const seen = seenAfter(after, afterScope, evaluation);
      if (seen === undefined) return UNKNOWN;
      if (!seen.seen) return NO;
    }
    if (budget !== undefined) {
      const sum = total(tree, evaluation);
      return sum === undefined ? UNKNOWN : sum > budget.max ? YES : NO;
    }
    return YES;
  };
  return budget === undefined ? { context } : { context, budgetTotal: total };
}

/**
 * A condition that reads the arguments as the tool receives them (a command line parsed as the shell
 * will): judged on the literal view. A deny or ask also matches when the normalised view matches
 * (keys normalised there: a look-alike field name the literal view keeps as written); an allow
 * holds only on the literal view.
 */
function literalVerdict(condition: FieldCondition, view: CanonicalArgs, restrictive: boolean, evaluation: Evaluation | undefined): Verdict {
  const literal = condition.evaluate(view.literal, restrictive, evaluation);
  if (!restrictive || literal === YES || !view.changed) return literal;
  return condition.evaluate(view.value, restrictive, evaluation) === YES ? YES : literal;
}

/** Compiles one `where` entry of a rule (`compileFieldCondition` under a policy's defaults, possibly through its ConditionCache). */
type CompileCondition = (selector: string, matcher: ConditionSpec<FieldMatcher>, where: () => string, kind: ArgumentKind | undefined) => FieldCondition;

/** What building a policy learnt of one `where` entry (ConditionCache.check): the convention's kind, and whether the condition reads the thread or the principal. */
interface CheckedCondition {
  readonly kind: ArgumentKind | undefined;
  readonly contextual: boolean;
  readonly personal: boolean;
}

/** Checks one `where` entry of rule `index` as building a policy does (ConditionCache.check). */
type CheckCondition = (selector: string, matcher: ConditionSpec<FieldMatcher>, index: number) => CheckedCondition;

/**
 * Field conditions compiled once per distinct content within one policy (selector, matcher, argument
 * kind; the policy's defaults are fixed): `compileFieldCondition` is a function of these alone
 * (`where` only names the rule in an error, and the first rule with that content is compiled first,
 * so it is the one named), and a compiled condition keeps no state between calls, so rules with the
 * same condition share it. Conditions that read the thread are compiled per rule.
 */
class ConditionCache {
  private readonly known = new Map<string, FieldCondition>();
  constructor(private readonly defaults: MatcherDefaults) {}

  /** Each matcher object's JSON text (rules that repeat a condition share the object: see toFieldMatchers). */
  private readonly texts = new WeakMap<object, string>();

  /** What `check` learnt of each matcher object, by selector (rules that repeat a condition share the object). */
  private readonly checked = new WeakMap<object, Map<string, CheckedCondition>>();

  /** The kind a field has by its name's convention alone (`conventionOnly`), kept per matcher object and selector. */
  readonly convention: KindOf = (selector, matcher) => {
    if (typeof matcher !== "object" || matcher === null) return conventionOnly(selector, matcher);
    return this.checked.get(matcher)?.get(selector)?.kind ?? conventionOnly(selector, matcher);
  };

  /** Conditions by matcher object, then kind and selector: rules sharing the object skip building the content key. */
  private readonly byObject = new WeakMap<object, Map<string, FieldCondition>>();

  /** Selectors already parsed without error. */
  private readonly selectors = new Set<string>();

  /**
   * What building a policy checks of a condition, under the field-name convention's kind: the
   * selector alone for a matcher that can fail on nothing else (`failsOnlyOnSelector`: compiled on
   * first use), else the condition compiled (and kept). Kept per matcher object and selector, with
   * what the rule learns of it (whether it reads the thread or the principal). `where` names the
   * rule in an error; it is written only when something is checked.
   */
  readonly check: CheckCondition = (selector, matcher, index) => {
    const object = typeof matcher === "object" && matcher !== null ? matcher : undefined;
    let bySelector = object === undefined ? undefined : this.checked.get(object);
    const known = bySelector?.get(selector);
    if (known !== undefined) return known;
    const kind = conventionOnly(selector, matcher);
    const where = () => `permissions[${index}].where[${JSON.stringify(selector)}]`;
    if (!failsOnlyOnSelector(matcher, kind)) this.compile(selector, matcher, where, kind);
    else if (!this.selectors.has(selector)) {
      selectorSegments(selector, where());
      this.selectors.add(selector);
    }
    const checked: CheckedCondition = { kind, contextual: usesContext(matcher), personal: usesPrincipal(matcher) };
    if (object !== undefined) {
      if (bySelector === undefined) this.checked.set(object, (bySelector = new Map()));
      bySelector.set(selector, checked);
    }
    return checked;
  };

  readonly compile: CompileCondition = (selector, matcher, where, kind) => {
    const local = `${kind ?? ""}\u0000${selector}`;
    const mine = typeof matcher === "object" && matcher !== null ? this.byObject.get(matcher) : undefined;
    let condition = mine?.get(local);
    if (condition !== undefined) return condition;
    if (usesContext(matcher)) return compileFieldCondition(selector, matcher, where(), this.defaults, kind);
    let text = this.texts.get(matcher);
    if (text === undefined) this.texts.set(matcher, (text = JSON.stringify(matcher)));
    const key = `${local}\u0000${text}`;
    condition = this.known.get(key);
    if (condition === undefined) {
      condition = compileFieldCondition(selector, matcher, where(), this.defaults, kind);
      this.known.set(key, condition);
    }
    if (typeof matcher === "object" && matcher !== null) {
      if (mine === undefined) this.byObject.set(matcher, new Map([[local, condition]]));
      else mine.set(local, condition);
    }
    return condition;
  };
}

/**
 * A rule as the policy holds it before any tool needs it: validated (every pattern, selector and
 * regex it holds checked, so a bad one fails when the policy is built), indexed by the tool names it
 * can match, and compiled (`compiled`) on the first decision of a tool it matches.
 */
interface RuleEntry {
  readonly order: number;
  readonly spec: PermissionRule;
  readonly mode: PermissionMode;
  readonly matchesTool: (tool: string) => boolean;
  /** `CompiledRule.contextual`, known before compiling. */
  readonly contextual: boolean;
  /** `CompiledRule.personal` (it reads who runs the call), known before compiling. */
  readonly personal: boolean;
  /** The rule compiled with the field kinds of no tool (conventions only). */
  compiled?: CompiledRule;
}

/**
 * Everything compiling `rule` can refuse, in the order `compileRule` meets it (so the same error
 * comes first): its conditions (through `check`: ConditionCache.check, which checks a plain
 * equals / in / prefix / exists by its selector and compiles and keeps the others, once per
 * condition object and selector), its tool pattern (ToolMatchers: once per pattern), `budget.sum`,
 * its `args` regex. Returns the rule's entry, with whether it reads the thread or the principal.
 */
function ruleEntry(rule: PermissionRule, index: number, check: CheckCondition, toolMatchers: ToolMatchers): RuleEntry {
  let contextual = rule.after !== undefined || rule.budget !== undefined;
  let personal = rule.principal !== undefined;
  const where = rule.where;
  if (where !== undefined) {
    for (const selector in where) {
      if (!Object.hasOwn(where, selector)) continue;
      const checked = check(selector, where[selector]!, index);
      if (checked.contextual) contextual = true;
      if (checked.personal) personal = true;
    }
  }
  const matchesTool = toolMatchers.of(rule, index);
  if (rule.budget !== undefined) compileContext(rule, matchesTool, `permissions[${index}]`);
  if (rule.args !== undefined) compileSafeRegex(rule.args, { caseSensitive: rule.caseSensitive, where: `permissions[${index}].args` });
  if (rule.principal !== undefined) compilePrincipalConditions(rule.principal, `permissions[${index}].principal`);
  return { order: index, spec: rule, mode: rule.mode, matchesTool, contextual, personal };
}

function compileRule(
  rule: PermissionRule,
  index: number,
  defaults: MatcherDefaults,
  kindOf: KindOf = conventionOnly,
  compile: CompileCondition = (selector, matcher, where, kind) => compileFieldCondition(selector, matcher, where(), defaults, kind),
  toolMatcher?: (tool: string) => boolean,
): CompiledRule {
  const location = `permissions[${index}]`;
  const id = rule.id ?? location;
  const kinds: Record<string, ArgumentKind | undefined> = {};
  const where = Object.entries(rule.where ?? {}).map(([selector, matcher]) => {
    const kind = (kinds[selector] = kindOf(selector, matcher));
    return compile(selector, matcher, () => `${location}.where[${JSON.stringify(selector)}]`, kind);
  });
  const matchesTool = toolMatcher ?? compileToolMatcher(rule, location);
  const { context: threadContext, budgetTotal: total } = compileContext(rule, matchesTool, location);
  const principal = rule.principal === undefined ? undefined : compilePrincipalConditions(rule.principal, `${location}.principal`);
  const context = withPrincipal(threadContext, principal);
  const whereSpecs = Object.values(rule.where ?? {});
  const description = describeRule(rule, where, principal);
  return {
    budgetTotal: total,
    order: index,
    spec: rule,
    ruleId: `permission:${id}`,
    mode: rule.mode,
    matchesTool,
    conditional: rule.args !== undefined || where.length > 0 || context !== undefined,
    contextual: threadContext !== undefined || whereSpecs.some((condition) => usesContext(condition)),
    personal: principal !== undefined || whereSpecs.some((condition) => usesPrincipal(condition)),
    principal,
    context,
    args: rule.args === undefined ? undefined : compileSafeRegex(rule.args, { caseSensitive: rule.caseSensitive, where: `${location}.args` }),
    argsInTokens: rule.args === undefined ? undefined : matchesWithinJsonTokens(rule.args),
    where,
    description,
    reasonText: ruleReason(rule, description),
    kinds,
  };
}

/** `CompiledRule.reasonText`. */
function ruleReason(rule: PermissionRule, description: string): string {
  return rule.reason ?? (description.length > 120 ? `${description.slice(0, 117)}...` : description);
}

/** `after` / `budget` and the `principal:` block: all must let the rule apply; a principal that cannot tell makes it UNKNOWN. */
function withPrincipal(context: CompiledRule["context"], principal: PrincipalConditions | undefined): CompiledRule["context"] {
  if (principal === undefined) return context;
  return (tree, evaluation) => {
    const own = principal.verdict(evaluation?.principal);
    if (own === NO) return NO;
    const rest = context === undefined ? YES : context(tree, evaluation);
    if (rest === NO) return NO;
    return own === UNKNOWN || rest === UNKNOWN ? UNKNOWN : YES;
  };
}

/**
 * The `args` regex searched in one view's canonical JSON text. A search whose matches stay inside
 * one key, string, number or literal is run on each of them instead (same answer, no text built),
 * except in the reference linear scan (`exact`), which always renders the text.
 */
function argsMatch(args: SafeRegex, inTokens: number | undefined, view: CanonicalArgs, literal: boolean, exact: boolean): boolean {
  if (inTokens !== undefined && !exact) return someJsonToken(literal ? view.literal : view.value, args.test, inTokens);
  return args.test(literal ? view.literalText : view.text);
}

function conditionsVerdict(rule: CompiledRule, view: CanonicalArgs, literal: boolean, restrictive: boolean, evaluation: Evaluation | undefined, exact: boolean): Verdict {
  let verdict: Verdict = YES;
  if (rule.args !== undefined && !argsMatch(rule.args, rule.argsInTokens, view, literal, exact)) return NO;
  const tree = literal ? view.literal : view.value;
  const where = rule.where;
  for (let i = 0; i < where.length; i++) {
    const condition = where[i]!;
    // A command matcher parses the text as the tool receives it (it normalises each word itself).
    const one = condition.literal === true ? literalVerdict(condition, view, restrictive, evaluation) : condition.evaluate(tree, restrictive, evaluation);
    if (one === NO) return NO;
    if (one === UNKNOWN) verdict = UNKNOWN;
  }
  if (rule.context !== undefined) {
    const one = rule.context(tree, evaluation);
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
function argumentsVerdict(rule: CompiledRule, view: CanonicalArgs, evaluation?: Evaluation, exact = false): Verdict {
  if (view.oversized) return rule.mode === "allow" ? NO : YES;
  if (rule.mode === "allow") {
    if (conditionsVerdict(rule, view, false, false, evaluation, exact) !== YES) return NO;
    return !view.changed || conditionsVerdict(rule, view, true, false, evaluation, exact) === YES ? YES : NO;
  }
  const normal = conditionsVerdict(rule, view, false, true, evaluation, exact);
  if (normal === YES || !view.changed) return normal;
  const literal = conditionsVerdict(rule, view, true, true, evaluation, exact);
  if (literal === YES) return YES;
  return normal === UNKNOWN || literal === UNKNOWN ? UNKNOWN : NO;
}

function toFieldMatcher(m: FieldMatcherEntry): FieldMatcher {
  const cs = m.caseSensitive === undefined ? {} : { caseSensitive: m.caseSensitive };
  if (m.equals !== undefined) return { equals: m.equals, ...cs };
  if (m.in !== undefined) return { in: m.in, ...cs };
  if (m.glob !== undefined) return { glob: m.glob, ...cs };
  if (m.regex !== undefined) return { regex: m.regex, ...cs };
  if (m.prefix !== undefined) return { prefix: m.prefix, ...cs };
  if (m.path !== undefined) return { path: m.path, ...(m.base === undefined ? {} : { base: m.base }), ...cs };
  if (m.command !== undefined) return { command: m.command, ...cs };
  if (m.url !== undefined) return { url: m.url };
  if (m.domain !== undefined) return { domain: m.domain };
  if (m.email !== undefined) return { email: m.email };
  return { exists: m.exists ?? true };
}

/** Leaf matchers are rebuilt in their typed form; connectives, numbers and `from` keep their shape. */
function toCondition(entry: ConditionSpec<FieldMatcherEntry>): ConditionSpec<FieldMatcher> {
  if (!isComposite(entry)) return toFieldMatcher(entry as FieldMatcherEntry);
  const c = entry as Record<string, unknown>;
  if ("not" in c) return { not: toCondition(c.not as ConditionSpec<FieldMatcherEntry>) };
  if ("anyOf" in c) return { anyOf: (c.anyOf as ConditionSpec<FieldMatcherEntry>[]).map(toCondition) };
  if ("allOf" in c) return { allOf: (c.allOf as ConditionSpec<FieldMatcherEntry>[]).map(toCondition) };
  return entry as ConditionSpec<FieldMatcher>;
}

/** `read`: conditions already rebuilt, by the validated object (validRulesOnce hands rules that repeat a condition the same object). */
function toFieldMatchers(where: Record<string, ConditionSpec<FieldMatcherEntry>>, read: Map<object, ConditionSpec<FieldMatcher>>): Record<string, ConditionSpec<FieldMatcher>> {
  const out: Record<string, ConditionSpec<FieldMatcher>> = {};
  for (const [selector, m] of Object.entries(where)) {
    let condition = read.get(m);
    if (condition === undefined) read.set(m, (condition = toCondition(m)));
    out[selector] = condition;
  }
  return out;
}

/** `toFieldMatchers` of a rule's conditions as `validShellsOnce` validated them (`where` names the selectors, in their order). */
function validatedMatchers(where: object, validated: Pick<ShellsOnce, "conditions" | "from">, index: number, read: Map<object, ConditionSpec<FieldMatcher>>): Record<string, ConditionSpec<FieldMatcher>> {
  const out: Record<string, ConditionSpec<FieldMatcher>> = {};
  let k = validated.from[index]!;
  for (const selector in where) {
    if (!Object.hasOwn(where, selector)) continue;
    const m = validated.conditions[k++]! as ConditionSpec<FieldMatcherEntry>;
    let condition = read.get(m);
    if (condition === undefined) read.set(m, (condition = toCondition(m)));
    out[selector] = condition;
  }
  return out;
}

/** Longest argument value a tool-level deny or ask names in its evidence (a file id, an address; not a body). */
const MAX_LOCATED_CHARS = 200;
/** Most argument values such evidence names. */
const MAX_LOCATED_VALUES = 8;

const parsedSelectors = new Map<string, SelectorSegment[] | undefined>();

/** The scalars a selector reaches (array elements included). */
function scalarsAt(tree: unknown, selector: string): unknown[] {
  let segments = parsedSelectors.get(selector);
  if (segments === undefined && !parsedSelectors.has(selector)) {
    try {
      segments = parseSelector(selector);
    } catch {
      segments = undefined;
    }
    if (parsedSelectors.size >= MAX_CACHED_TOOLS) parsedSelectors.clear();
    parsedSelectors.set(selector, segments);
  }
  if (segments === undefined) return [];
  return selectAll(tree, segments).flatMap((value) => (Array.isArray(value) ? value : [value]));
}

/** The scalar argument values of a call with their paths (`to`, `recipients[0]`), at most two levels deep. */
function argumentLeaves(args: unknown): { field: string; value: unknown }[] {
  const out: { field: string; value: unknown }[] = [];
  const walk = (value: unknown, path: string, depth: number) => {
    if (out.length >= MAX_LOCATED_VALUES) return;
    if (typeof value === "string" || typeof value === "number") out.push({ field: path, value });
    else if (depth >= 2) return;
    else if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${path}[${i}]`, depth + 1));
    else if (value !== null && typeof value === "object") for (const [key, item] of Object.entries(value)) walk(item, path === "" ? key : `${path}.${key}`, depth + 1);
  };
  walk(args, "", 0);
  return out;
}

function dedupe(evidence: readonly Evidence[]): Evidence[] {
  if (evidence.length < 2) return [...evidence];
  const seen = new Set<string>();
  return evidence.filter((item) => {
    const key = `${item.field}\u0000${item.value}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** What the principal lacks that a rule reads (its `principal:` block, then its `sameAs` conditions). */
function personalWhy(rule: CompiledRule, principal: Principal | undefined): string | undefined {
  const own = rule.principal?.why(principal);
  if (own !== undefined) return own;
  for (const condition of Object.values(rule.spec.where ?? {})) {
    for (const name of sameAsNames(condition)) {
      const missing = missingReason(principal, name);
      if (missing !== undefined) return missing;
    }
  }
  return undefined;
}

/** What a rule's conditions say about why they could not tell (restrictive) or did not cover the call (allow). */
function conditionWhy(rule: CompiledRule, view: CanonicalArgs, restrictive: boolean): string | undefined {
  if (view.oversized) return undefined;
  for (const condition of rule.where) {
    const why = condition.why?.(condition.literal === true ? view.literal : view.value, restrictive);
    if (why !== undefined) return why;
  }
  return undefined;
}

/** Validates rules that enter from outside (files, APIs, user code); throws a PolicyError per problem. */
export function parsePermissionRules(input: unknown, mainArguments?: MainArguments): PermissionRule[] {
  // Rules this function already read keep their compact string in `rule` beside the tool and
  // conditions it was read as: read them again from tool/where, then give the string back.
  const compactOf = new Map<number, string>();
  if (Array.isArray(input)) {
    input = input.map((entry: unknown, index) => {
      // Most entries hold no compact string: they are handed on as they are (no copy).
      if (typeof entry !== "object" || entry === null || typeof (entry as { rule?: unknown }).rule !== "string") return entry;
      const { rule, ...rest } = entry as { rule?: unknown; tool?: unknown };
      if (typeof rule !== "string" || rest.tool === undefined) return entry;
      compactOf.set(index, rule);
      return rest;
    });
  }
  const once = validShellsOnce(input);
  // (The shells' `where` still holds the conditions as written: readPermissionRules reads the validated ones from `once`.)
  if (once !== undefined) return readPermissionRules(once.rules as readonly z.output<typeof PermissionRuleSchema>[], mainArguments, compactOf, once);
  const parsed = z.array(PermissionRuleSchema).safeParse(input);
  if (!parsed.success) {
    const lines = formatIssues(parsed.error.issues, input, ["permissions"]);
    throw new PolicyError(undefined, "", `invalid permission rules: ${lines.join("; ")}`);
  }
  return readPermissionRules(parsed.data, mainArguments, compactOf);
}

/** Rule lists `readPermissionRules` returned: already read and validated, a PermissionPolicy built from one does not validate it again. */
const readLists = new WeakSet<readonly PermissionRule[]>();

/**
 * Permission rules as the policy schema validated them (`PermissionRuleSchema`: a policy file's
 * `permissions`), read into PermissionRule form: compact strings read, matchers rebuilt.
 */
export function readPermissionRules(
  rules: readonly z.output<typeof PermissionRuleSchema>[],
  mainArguments?: MainArguments,
  compactOf: ReadonlyMap<number, string> = new Map(),
  validated?: Pick<ShellsOnce, "conditions" | "from">,
): PermissionRule[] {
  const read = new Map<object, ConditionSpec<FieldMatcher>>();
  // A compact string reads the same wherever it is written (its location only names it in an error): read once per text.
  const compacts = new Map<string, ReturnType<typeof parseCompactRule>>();
  const compactReading = (text: string, index: number) => {
    let reading = compacts.get(text);
    if (reading === undefined) compacts.set(text, (reading = parseCompactRule(text, `permissions[${index}].rule`, mainArguments)));
    return reading;
  };
  const out = rules.map((rule, index) => {
    const compact = rule.rule === undefined ? undefined : compactReading(rule.rule, index);
    const out: PermissionRule = { tool: compact?.tool ?? rule.tool ?? "", mode: rule.mode };
    const compactText = rule.rule ?? compactOf.get(index);
    if (compactText !== undefined) out.rule = compactText;
    if (rule.id !== undefined) out.id = rule.id;
    if (rule.toolRegex !== undefined) out.toolRegex = rule.toolRegex;
    if (rule.args !== undefined) out.args = rule.args;
    if (compact?.where !== undefined) out.where = compact.where;
    if (rule.where !== undefined) out.where = validated === undefined ? toFieldMatchers(rule.where, read) : validatedMatchers(rule.where, validated, index, read);
    if (rule.reason !== undefined) out.reason = rule.reason;
    if (rule.caseSensitive !== undefined) out.caseSensitive = rule.caseSensitive;
    if (rule.after !== undefined) out.after = rule.after;
    if (rule.afterScope !== undefined) out.afterScope = rule.afterScope;
    if (rule.budget !== undefined) out.budget = rule.budget;
    if (rule.shadow === true) out.shadow = true;
    if (rule.principal !== undefined) out.principal = rule.principal;
    return out;
  });
  readLists.add(out);
  return out;
}

/** One tool's rules in effect order, and their index by `equals` / `in` value (see ValueIndex). */
interface ToolPlan {
  readonly rules: readonly CompiledRule[];
  readonly index: ValueIndex | undefined;
  /** The rules' field conditions grouped by the field they read, with verdicts kept per value (see FieldPlan). */
  readonly fields: FieldPlan | undefined;
  /** The allow rules with a condition that can say why it did not cover a value (`FieldCondition.why`): the only ones `uncoveredNote` reads. */
  readonly explainers: readonly CompiledRule[];
  /** No rule reads the thread, the principal or the filesystem: a decision depends on the arguments and the declared risk alone. */
  readonly pure: boolean;
  /** How often its kept decisions were found lately (see KeptDecisions). */
  readonly keeping: KeptDecisions;
}

/**
 * The use a tool's kept decisions have had lately: out of `lookups` calls whose decision was looked
 * for, `hits` were found. A tool whose calls rarely repeat (fewer than one in KEEP_MIN_HIT_SHARE of
 * KEEP_WINDOW calls) stops keeping for its next KEEP_PAUSE calls: building a key and keeping a
 * decision per call costs more than the few found save. Found or not, the decision is the same.
 */
interface KeptDecisions {
  lookups: number;
  hits: number;
  pause: number;
}

/** Calls after which a tool's share of found decisions is judged. */
const KEEP_WINDOW = 128;
/** Fewer than one in this many calls found: keeping pauses. */
const KEEP_MIN_HIT_SHARE = 3;
/** Calls decided without keeping once keeping paused (then it is tried again). */
const KEEP_PAUSE = 2_048;

/** Most distinct values whose verdicts one field of one tool keeps (then they are forgotten and built again). */
const MAX_KEPT_VALUES = 1_024;
/** `rows` entry of a field whose value cannot be kept (a list, an object, embedded JSON, ...): its conditions are evaluated. */
const NOT_KEPT = null;

/** Most conditions a field group keeps the verdicts of one value for in one number (two bits each: a small integer). */
const PACKED_SLOTS = 15;

/**
 * One field (selector) of one tool's rules: the conditions that read it (FieldCondition.read), each
 * with the `restrictive` flag of its rule, and per value read, the verdict of each condition once
 * it was needed (0: not yet; else verdict + 1). A group of at most PACKED_SLOTS conditions keeps a
 * value's verdicts packed in one number, two bits per condition (`packed`): read from the map
 * itself, with no row object to fetch from memory; a larger group keeps one Int8Array per value
 * (`kept`).
 */
interface FieldGroup {
  readonly read: (tree: unknown) => unknown;
  readonly conditions: FieldCondition[];
  readonly restrictive: boolean[];
  readonly kept: Map<string, Int8Array>;
  /** Set once the plan is built: conditions.length <= PACKED_SLOTS. */
  packs: boolean;
  readonly packed: Map<string, number>;
}

/**
 * A tool's field conditions evaluated once per distinct value: a condition with `read` answers from
 * the value it reads alone (FieldCondition.read), so its verdict for a value is kept and read again
 * for every later call with that value in that field (in either view). Used on calls whose
 * arguments can be inspected (oversized ones take the general path).
 */
interface FieldPlan {
  readonly groups: readonly FieldGroup[];
  /**
   * The (group, slot, literal) triples of every rule's kept conditions, rule after rule (literal 1:
   * the condition reads the literal view, see literalVerdict): rule `p`'s are `triples[from[p]]` up
   * to `triples[from[p + 1]]`. One array for the plan: a call reads it without visiting each rule.
   */
  readonly triples: Int32Array;
  readonly from: Int32Array;
  /** Per rule position: its conditions evaluated every time (no `read`). */
  readonly residual: readonly (readonly FieldCondition[])[];
  /** Per rule position: PLAN_* bits (what the loop needs to know of a rule without reading it). */
  readonly flags: Uint8Array;
}

/** FieldPlan.flags: the rule needs no thread, so its kept conditions are read (else argumentsVerdict decides it). */
const PLAN_KEPT = 1;
/** FieldPlan.flags: the rule has an `args` regex. */
const PLAN_ARGS = 2;
/** FieldPlan.flags: the rule has conditions evaluated every time (FieldPlan.residual). */
const PLAN_RESIDUAL = 4;
/** FieldPlan.flags: the rule is an allow (a permitting rule: `restrictive` false). */
const PLAN_ALLOW = 8;
/** FieldPlan.flags: the rule is conditional (CompiledRule.conditional). */
const PLAN_CONDITIONAL = 16;

function buildFieldPlan(rules: readonly CompiledRule[]): FieldPlan | undefined {
  const groups: FieldGroup[] = [];
  const bySelector = new Map<string, number>();
  const triples: number[] = [];
  const from = new Int32Array(rules.length + 1);
  const flags = new Uint8Array(rules.length);
  const residual: FieldCondition[][] = [];
  let any = false;
  for (const rule of rules) {
    const pairs = triples;
    const rest: FieldCondition[] = [];
    if (!rule.contextual && !rule.personal) {
      for (const condition of rule.where) {
        if (condition.read === undefined) {
          rest.push(condition);
          continue;
        }
        let g = bySelector.get(condition.selector);
        if (g === undefined) {
          g = groups.length;
          bySelector.set(condition.selector, g);
          groups.push({ read: condition.read, conditions: [], restrictive: [], kept: new Map(), packs: false, packed: new Map() });
        }
        const group = groups[g]!;
        pairs.push(g, group.conditions.length, condition.literal === true ? 1 : 0);
        group.conditions.push(condition);
        group.restrictive.push(rule.mode !== "allow");
        any = true;
      }
    }
    const position = residual.length;
    from[position + 1] = triples.length;
    flags[position] =
      (rule.contextual || rule.personal ? 0 : PLAN_KEPT) |
      (rule.args === undefined ? 0 : PLAN_ARGS) |
      (rest.length > 0 ? PLAN_RESIDUAL : 0) |
      (rule.mode === "allow" ? PLAN_ALLOW : 0) |
      (rule.conditional ? PLAN_CONDITIONAL : 0);
    residual.push(rest);
  }
  for (const group of groups) group.packs = group.conditions.length <= PACKED_SLOTS;
  return any ? { groups, triples: Int32Array.from(triples), from, residual, flags } : undefined;
}

const ABSENT_KEY = `\u0000undefined:undefined`;
const NULL_KEY = `\u0000object:null`;
const TRUE_KEY = `\u0000boolean:true`;
const FALSE_KEY = `\u0000boolean:false`;

/**
 * The key a value read by a FieldGroup is kept under, or NOT_KEPT: strings as they are (unless they
 * start with U+0000 or U+0001), other scalars and absence tagged by type, a list of strings,
 * numbers, booleans and nulls as U+0001 and its JSON (its verdict combines its items' verdicts).
 * Objects, nested lists, duplicated keys and embedded JSON are not kept.
 */
function keptKey(value: unknown): string | typeof NOT_KEPT {
  if (typeof value === "string") return value.charCodeAt(0) <= 1 ? NOT_KEPT : value;
  // The tagged keys of absence, null and booleans are constants (no text built per call).
  if (value === undefined) return ABSENT_KEY;
  if (value === null) return NULL_KEY;
  if (typeof value === "boolean") return value ? TRUE_KEY : FALSE_KEY;
  if (typeof value === "number") return `\u0000number:${String(value)}`;
  if (Array.isArray(value) && value.length <= 16) {
    for (const item of value) {
      const type = typeof item;
      if (item !== null && type !== "string" && type !== "number" && type !== "boolean") return NOT_KEPT;
    }
    return `\u0001${JSON.stringify(value)}`;
  }
  return NOT_KEPT;
}

/** A value's kept verdicts in `group`: its packed number (0 when none is kept yet) or its row; NOT_KEPT when the value cannot be kept. */
function fieldRow(group: FieldGroup, tree: unknown): Int8Array | number | typeof NOT_KEPT {
  const key = keptKey(group.read(tree));
  if (key === NOT_KEPT) return NOT_KEPT;
  // A packed value enters the map with its first verdict (keepPacked).
  if (group.packs) return group.packed.get(key) ?? 0;
  let row = group.kept.get(key);
  if (row === undefined) {
    if (group.kept.size >= MAX_KEPT_VALUES) group.kept.clear();
    row = new Int8Array(group.conditions.length);
    group.kept.set(key, row);
  }
  return row;
}

/**
 * Keeps `verdict` for slot `slot` of the value `tree` has in a packing `group` (the value is one
 * fieldRow kept), beside the verdicts the map holds for it; returns the value's packed verdicts.
 */
function keepPacked(group: FieldGroup, tree: unknown, slot: number, verdict: Verdict): number {
  const key = keptKey(group.read(tree)) as string;
  const held = group.packed.get(key);
  if (held === undefined && group.packed.size >= MAX_KEPT_VALUES) group.packed.clear();
  const packed = (held ?? 0) | ((verdict + 1) << (slot * 2));
  group.packed.set(key, packed);
  return packed;
}

/** Per field group of a FieldPlan: the kept verdicts of the value one view of this call has there (undefined: not read yet). */
type Rows = (Int8Array | number | typeof NOT_KEPT | undefined)[];

/** The verdict of slot `slot` of group `g` on the value `tree` has there, kept in `rows` (that view's rows; read on first use). Small: a kept verdict is read inline, anything else is `slotVerdict`. */
function keptSlot(fields: FieldPlan, g: number, slot: number, rows: Rows, tree: unknown, restrictive: boolean): Verdict {
  let row = rows[g];
  if (row === undefined) row = rows[g] = fieldRow(fields.groups[g]!, tree);
  if (typeof row === "number") {
    const packed = (row >>> (slot * 2)) & 3;
    if (packed !== 0) return (packed - 1) as Verdict;
  } else if (row !== NOT_KEPT) {
    const code = row[slot]!;
    if (code !== 0) return (code - 1) as Verdict;
  }
  return slotVerdict(fields, g, slot, rows, tree, restrictive);
}

/** `keptSlot` when the verdict is not kept yet (or the value cannot be kept): evaluated, and kept. */
function slotVerdict(fields: FieldPlan, g: number, slot: number, rows: Rows, tree: unknown, restrictive: boolean): Verdict {
  const group = fields.groups[g]!;
  const row = rows[g] as Int8Array | number | typeof NOT_KEPT; // read by keptSlot
  const one = group.conditions[slot]!.evaluate(tree, restrictive);
  if (typeof row === "number") rows[g] = keepPacked(group, tree, slot, one);
  else if (row !== NOT_KEPT) row[slot] = one + 1;
  return one;
}

/**
 * `conditionsVerdict` of a rule that needs no thread on one view, reading and filling kept verdicts
 * (`rows` are that view's; `literalRows` the literal view's when normalisation changed something).
 * Kept conditions first, then the others, then the `args` regex: each is pure, and any NO makes the
 * rule's verdict NO, so the cheapest answer comes first.
 */
function keptConditions(
  rules: readonly CompiledRule[],
  position: number,
  fields: FieldPlan,
  rows: Rows,
  normalRows: Rows,
  literalRows: Rows | undefined,
  view: CanonicalArgs,
  literal: boolean,
  restrictive: boolean,
): Verdict {
  const tree = literal ? view.literal : view.value;
  const triples = fields.triples;
  const end = fields.from[position + 1]!;
  let verdict: Verdict = YES;
  for (let i = fields.from[position]!; i < end; i += 3) {
    const g = triples[i]!;
    const slot = triples[i + 1]!;
    let one: Verdict;
    if (triples[i + 2] === 1) {
      // literalVerdict from kept verdicts: the literal view's value, and for a deny or ask the normalised one's.
      one = literalRows === undefined ? keptSlot(fields, g, slot, normalRows, view.value, restrictive) : keptSlot(fields, g, slot, literalRows, view.literal, restrictive);
      if (restrictive && one !== YES && literalRows !== undefined && keptSlot(fields, g, slot, normalRows, view.value, restrictive) === YES) one = YES;
    } else one = keptSlot(fields, g, slot, rows, tree, restrictive);
    if (one === NO) return NO;
    if (one === UNKNOWN) verdict = UNKNOWN;
  }
  const flags = fields.flags[position]!;
  if ((flags & PLAN_RESIDUAL) !== 0) {
    const residual = fields.residual[position]!;
    for (let i = 0; i < residual.length; i++) {
      const condition = residual[i]!;
      const one = condition.literal === true ? literalVerdict(condition, view, restrictive, undefined) : condition.evaluate(tree, restrictive);
      if (one === NO) return NO;
      if (one === UNKNOWN) verdict = UNKNOWN;
    }
  }
  if ((flags & PLAN_ARGS) !== 0) {
    const rule = rules[position]!;
    if (!argsMatch(rule.args!, rule.argsInTokens, view, literal, false)) return NO;
  }
  return verdict;
}

/**
 * `argumentsVerdict` of the rule at `position` (one that needs no thread), on a view that can be
 * inspected, from kept verdicts: a value gets the same verdict whichever view it is read in (the
 * verdict depends on the value alone), so the normalised and the literal view share what is kept;
 * they are combined as `argumentsVerdict` combines them. The rule itself is read only for its
 * `args` regex and residual conditions.
 */
function keptVerdict(rules: readonly CompiledRule[], position: number, fields: FieldPlan, rows: Rows, literalRows: Rows | undefined, view: CanonicalArgs): Verdict {
  if ((fields.flags[position]! & PLAN_ALLOW) !== 0) {
    if (keptConditions(rules, position, fields, rows, rows, literalRows, view, false, false) !== YES) return NO;
    return literalRows === undefined || keptConditions(rules, position, fields, literalRows, rows, literalRows, view, true, false) === YES ? YES : NO;
  }
  const normal = keptConditions(rules, position, fields, rows, rows, literalRows, view, false, true);
  if (normal === YES || literalRows === undefined) return normal;
  const literal = keptConditions(rules, position, fields, literalRows, rows, literalRows, view, true, true);
  if (literal === YES) return YES;
  return normal === UNKNOWN || literal === UNKNOWN ? UNKNOWN : NO;
}

/** The deciding rule's evidence (or, when it has none, every rule's) goes into the decision. */
function withEvidence(decision: PolicyDecision, evidenceOf: ReadonlyMap<string, Evidence[]>): PolicyDecision {
  const evidence = evidenceOf.get(decision.ruleId) ?? (evidenceOf.size === 1 ? [...evidenceOf.values()][0]! : dedupe([...evidenceOf.values()].flat()));
  // Decisions are built fresh by `evaluate`: adding the evidence in place spares a copy on the hot path.
  if (evidence.length > 0) decision.evidence = evidence;
  return decision;
}

/**
 * Decides allow / deny / ask for a tool call from permission rules on the tool name and its
 * (canonicalised) arguments, falling back to the tool's risk category.
 *
 * `decide` assumes the tool exists: unknown tools are refused by the guard before it asks.
 * Every pattern is compiled (checked) when the policy is built; a rule's conditions are put together
 * on the first decision of a tool it matches, and the rules that apply to a tool name are kept per name.
 */
export class PermissionPolicy {
  readonly precedence: Precedence;
  readonly defaultRisk: RiskLevel | undefined;
  private readonly rules: readonly RuleEntry[];
  /** Compiles a rule's conditions: through a ConditionCache (field conditions shared by content), or one by one in the eager reference. */
  private readonly compileCondition: CompileCondition;
  /** `conventionOnly`, through the ConditionCache when there is one. */
  private readonly convention: KindOf;
  private readonly toolRisk: Readonly<Record<string, RiskLevel>>;
  private readonly lowerRisk: ReadonlySet<string>;
  private readonly riskModes: Readonly<Record<RiskLevel, PermissionMode>>;
  private readonly byTool = new Map<string, ToolPlan>();
  /** The rules by the tool names they can match: a tool's first decision tests only these. */
  private readonly byToolName = new ToolNameIndex<RuleEntry>();
  /** False only in the reference the fast paths are tested against (`linearScanForTests`): no value index, `args` searched in the rendered text. */
  private fast = true;
  private readonly compositeByTool = new Map<string, readonly CompiledRule[]>();
  /** Decisions of tools whose plan is `pure`, by the arguments' data (DataCache), then tool, then declared risk (none first, then by RISK_RANK) (`decide`). */
  private readonly decisions = new DataCache<Map<string, (PolicyDecision | undefined)[]>>();
  /** Some rule reads the arguments: its verdicts may read this machine's names (a URL's host), so what is kept follows them (`followMachine`). */
  private readonly readsArguments: boolean;
  /** The reading of this machine's names the kept verdicts and decisions were made with (`machineReading`). */
  private machine = -1;
  private readonly defaults: MatcherDefaults;
  /** Field kinds the policy declares per tool (`fieldKinds`, `mainArguments`). */
  private readonly policyKinds = new Map<string, Readonly<Record<string, ArgumentKind>>>();
  /** The top-level argument names of tools whose schemas are closed (`declareToolArguments`). */
  private readonly toolArguments = new Map<string, readonly string[]>();
  /** Field kinds the tools declare (`declareToolKinds`). */
  private readonly toolKinds = new Map<string, Readonly<Record<string, ArgumentKind>>>();
  private readonly provenance: ProvenanceSettings;
  private readonly trusted: ReadonlySet<string>;
  /** Some rule needs the thread (provenance, after, budget). */
  private readonly contextual: boolean;
  /**
   * The policy with its shadow rules enforced (what it would decide if they were), or undefined
   * when it has none: the guard decides it beside this one and audits its answer, never enforces it.
   */
  readonly shadow: PermissionPolicy | undefined;
  /** The shadow rules, compiled: `shadowCovers` tests their tool patterns. */
  private readonly shadowRules: readonly RuleEntry[];
  private readonly shadowByTool = new Map<string, boolean>();
  /** Some rule reads the run's principal: the guard hands it over only then (`readsPrincipal`). */
  readonly readsPrincipal: boolean;
  /** The rules (validated, in the order given) and options it was built from: what `checkPolicy` reads. */
  readonly definition: { readonly rules: readonly PermissionRule[]; readonly options: Readonly<PermissionPolicyOptions> };

  constructor(rules: readonly PermissionRule[], options: PermissionPolicyOptions = {}) {
    const parsedOptions = OptionsSchema.safeParse(options);
    if (!parsedOptions.success) {
      throw new PolicyError(undefined, "", `invalid permission policy options: ${formatIssues(parsedOptions.error.issues, options).join("; ")}`);
    }
    const valid = readLists.has(rules) ? rules : parsePermissionRules(rules, options.mainArguments);
    this.definition = { rules: valid, options: { ...options } };
    if (options.home !== undefined && !options.home.startsWith("/")) {
      throw new PolicyError(undefined, "home", `home ${JSON.stringify(options.home)} must be an absolute path (the home directory \`~\` names in path patterns)`);
    }
    const defaults: MatcherDefaults = {
      pathBase: options.pathBase,
      home: options.home ?? processHome(),
      followSymlinks: options.followSymlinks ?? (options.pathBase !== undefined && isDirectory(options.pathBase)),
      ...(options.workingDirectories === undefined || options.workingDirectories.length === 0 ? {} : { workingDirectories: options.workingDirectories.map((dir) => normaliseBase(dir)) }),
    };
    for (const [tool, main] of Object.entries(options.mainArguments ?? {})) this.policyKinds.set(tool, { [main.field]: main.kind, ...this.policyKinds.get(tool) });
    for (const [tool, fields] of Object.entries(options.fieldKinds ?? {})) this.policyKinds.set(tool, { ...this.policyKinds.get(tool), ...fields });
    this.defaults = defaults;
    const cache = compileEagerly ? undefined : new ConditionCache(defaults);
    this.compileCondition = cache?.compile ?? ((selector, matcher, where, kind) => compileFieldCondition(selector, matcher, where(), defaults, kind));
    this.convention = cache?.convention ?? conventionOnly;
    const toolMatchers = new ToolMatchers();
    const compiled = valid.map((rule, index) => {
      try {
        if (cache === undefined) {
          const compiled = compileRule(rule, index, defaults);
          return { ...ruleEntry(rule, index, checkedOnly, toolMatchers), compiled };
        }
        return ruleEntry(rule, index, cache.check, toolMatchers);
      } catch (error) {
        if (!(error instanceof PolicyError)) throw error;
        const id = rule.id === undefined ? "" : ` (rule id ${JSON.stringify(rule.id)})`;
        throw new PolicyError(undefined, error.path, `${error.detail}${id}`);
      }
    });
    // Shadow rules are left out of the rules in force; the policy with them enforced is built once beside it.
    const shadowed = valid.some((rule) => rule.shadow === true);
    this.rules = shadowed ? compiled.filter((rule) => rule.spec.shadow !== true) : compiled;
    this.shadowRules = shadowed ? compiled.filter((rule) => rule.spec.shadow === true) : [];
    if (shadowed) {
      const enforced = valid.map((rule) => {
        if (rule.shadow !== true) return rule;
        const { shadow: _shadow, ...rest } = rule;
        return rest;
      });
      readLists.add(enforced);
      this.shadow = new PermissionPolicy(enforced, options);
    } else this.shadow = undefined;
    this.precedence = options.precedence ?? "deny-first";
    this.defaultRisk = options.defaultRisk;
    this.toolRisk = { ...options.toolRisk };
    this.lowerRisk = new Set(options.lowerRisk ?? []);
    this.riskModes = { ...DEFAULT_RISK_MODES, ...options.riskModes };
    this.provenance = { ...options.provenance };
    this.trusted = trustTableOf(this.provenance).whole;
    this.contextual = this.rules.some((rule) => rule.contextual);
    this.readsArguments = this.rules.some((rule) => rule.spec.where !== undefined || rule.spec.args !== undefined);
    this.readsPrincipal = this.rules.some((rule) => rule.personal);
    for (let i = 0; i < this.rules.length; i++) this.byToolName.add(this.rules[i]!, this.rules[i]!.spec);
    this.fileRules = fileRulesOf(this.rules, options, defaults);
    this.netRules = netRulesOf(this.rules, options);
    this.commandRules = this.rules.filter((entry) => this.isCommandRule(entry));
  }

  /** The deny and ask rules of command tools whose only condition is the command (`Bash(rm:*)`): every command tool's. */
  private readonly commandRules: readonly RuleEntry[];

  /** A deny or ask rule on one command tool's command line and nothing else (`Bash(rm:*)`, `Shell(git push:*)`). */
  private isCommandRule(entry: RuleEntry): boolean {
    const only = onlyCondition(entry);
    return only !== undefined && "command" in only.matcher && this.commandField(only.rule.tool) === only.selector;
  }

  /**
   * The other command tools' deny and ask rules as rules of the command tool `tool`: a deny on what Bash runs holds for
   * every tool that runs command lines (Shell, PowerShell, a tool declared `mainArgument: { kind: command }`).
   */
  private otherCommandRules(tool: string): CompiledRule[] {
    if (this.commandRules.length === 0) return [];
    const field = this.commandField(tool);
    if (field === undefined) return [];
    return this.commandRules
      .filter((entry) => !entry.matchesTool(tool))
      .map((entry) => this.carriedRule(entry, field, () => this.onField(entry, field, "command", commandToolRuleDescription(entry.spec.rule ?? `${entry.spec.tool}(…)`))));
  }

  /** `entry`'s one condition read on the field `field` of the tools it is carried to, compiled, described by `description`. */
  private onField(entry: RuleEntry, field: string, kind: ArgumentKind, description: string): CompiledRule {
    const where = entry.spec.where ?? {};
    const spec: PermissionRule = { ...entry.spec, where: { [field]: where[Object.keys(where)[0]!]! } };
    const compiled = compileRule(spec, entry.order, this.defaults, () => kind, this.compileCondition, () => true);
    return { ...compiled, description, reasonText: entry.spec.reason ?? description };
  }

  /**
   * The rules the policy carries to other tools (otherCommandRules, shellFileRules, shellNetRules, fileToolRules),
   * compiled once per source and field and shared by every tool that reads that field: their descriptions name no tool,
   * and a plan's rules are not asked which tools they match. (A policy with many shell tools holds each once.)
   */
  private readonly carried = new Map<object, Map<string, CompiledRule>>();

  private carriedRule(source: object, field: string, make: () => CompiledRule): CompiledRule {
    let byField = this.carried.get(source);
    if (byField === undefined) this.carried.set(source, (byField = new Map()));
    let rule = byField.get(field);
    if (rule === undefined) byField.set(field, (rule = make()));
    return rule;
  }

  /** The deny and ask rules of fetch tools (`WebFetch(domain:x)`), as every command tool's calls are read for them (netRulesOf). */
  private readonly netRules: readonly ShellNetRule[];

  /** The fetch tools' rules as rules of the command tool `tool`: each reads the command line for the places it covers. */
  private shellNetRules(tool: string): CompiledRule[] {
    if (this.netRules.length === 0) return [];
    const field = this.commandField(tool);
    if (field === undefined) return [];
    return this.netRules.map((one) => this.carriedRule(one, field, () => shellNetRule(one, field, this.compileCondition)));
  }

  /** The deny and ask rules of file tools (`Read(.env)`), as every command tool's calls are read for them (fileRulesOf). */
  private readonly fileRules: readonly ShellFileRule[];

  /** The field of `tool` that holds a command line (its declared command argument, else Bash's and Shell's `command`), if any. */
  private commandField(tool: string): string | undefined {
    for (const kinds of [this.policyKinds.get(tool), this.toolKinds.get(tool)]) {
      if (kinds === undefined) continue;
      const main = this.definition.options.mainArguments?.[tool];
      if (main !== undefined && main.kind === "command") return main.field;
      for (const selector in kinds) if (kinds[selector] === "command") return selector;
      if (main !== undefined) return undefined;
    }
    const convention = conventionalMainArgument(tool);
    return convention?.kind === "command" ? convention.field : undefined;
  }

  /** The file rules as rules of the command tool `tool`: each reads the command line for the files it covers. */
  private shellFileRules(tool: string): CompiledRule[] {
    if (this.fileRules.length === 0) return [];
    const field = this.commandField(tool);
    if (field === undefined) return [];
    return this.fileRules.map((one) => this.carriedRule(one, `shell:${field}`, () => shellFileRule(one, field, this.defaults)));
  }

  /**
   * The file rules as rules of the file tool `tool`, when it reads (Read, read_file, Grep, Glob) or writes (Edit, Write,
   * MultiEdit, NotebookEdit, write_file, edit_file) the files another file tool's rule covers: a Read rule holds for every
   * tool that reads files, an Edit or Write rule for every tool that writes them (as Claude Code reads its rules).
   */
  private fileToolRules(tool: string): CompiledRule[] {
    if (this.fileRules.length === 0) return [];
    const known = conventionalFileTool(tool);
    if (known === undefined) return [];
    const declared = this.definition.options.mainArguments?.[tool];
    if (declared !== undefined && (declared.kind !== "path" || !known.fields.includes(declared.field))) return [];
    // The arguments that may name the file: the declared one, else each the tool's known spellings use (`file_path`, `path`).
    const fields = declared !== undefined ? [declared.field] : known.fields;
    const out: CompiledRule[] = [];
    // A deep agent's backend in virtual mode reads its paths under its root: each rule (the tool's own too) is also read so.
    const virtual = fields.filter((field) => known.virtual.includes(field));
    for (const one of this.fileRules) {
      if (known.use === "write" ? one.file.access === "read" : one.file.access === "write") continue;
      if (known.use === "read" || known.use === "write") {
        out.push(...virtual.map((field) => this.carriedRule(one, `virtual:${tool}:${field}`, () => virtualFileRule(one, tool, field, known.use as "read" | "write", this.defaults))));
        if (one.entry.matchesTool(tool)) continue;
        out.push(...fields.map((field) => this.pathFileRule(one, field, known.use as "read" | "write")));
      } else if (!one.entry.matchesTool(tool)) out.push(searchFileRule(one, tool, known.use, this.defaults, virtual.length > 0 ? "deep" : "claude"));
    }
    return out;
  }

  /**
   * The Read rules (and declared path tools' rules) as rules of the fetch tool `tool` (WebFetch, the MCP fetch server's
   * `fetch`, a tool declared with a url main argument): a `file:` URL it is given is the file it names.
   */
  private fetchFileRules(tool: string): CompiledRule[] {
    if (this.fileRules.length === 0 && this.netRules.length === 0) return [];
    return this.fetchFields(tool).flatMap((field) => [
      ...this.fileRules.filter((one) => one.file.access !== "write" && !one.entry.matchesTool(tool)).map((one) => this.carriedRule(one, `fetch:${field}`, () => fetchFileRule(one, field))),
      // `WebFetch(domain:x)` holds for the MCP fetch server's `fetch` too: the same condition on its URL argument.
      ...this.netRules.filter((one) => !one.entry.matchesTool(tool)).map((one) => this.carriedRule(one, `fetch:${field}`, () => this.onField(one.entry, field, "url", fetchNetRuleDescription(one.source)))),
    ]);
  }

  /**
   * The arguments of `tool` that hold a URL it fetches: its declared url main argument; else the convention's (WebFetch's
   * and the fetch server's `url`); else the arguments the policy or the tool declares of kind url; else, for a tool that is
   * no command tool nor file tool, its top-level `url` and `uri` (an MCP tool such as `http_get` or `browser_navigate`
   * handed a URL is read as fetching it: the fetch rules hold for it unless its kinds say the argument is no URL).
   */
  private fetchFields(tool: string): readonly string[] {
    const declared = this.definition.options.mainArguments?.[tool];
    if (declared !== undefined) return declared.kind === "url" ? [declared.field] : [];
    const conventional = conventionalFetchTool(tool);
    if (conventional !== undefined) return [conventional];
    const kinds: Readonly<Record<string, ArgumentKind>> = { ...this.toolKinds.get(tool), ...this.policyKinds.get(tool) };
    const urls = Object.keys(kinds).filter((selector) => kinds[selector] === "url" && /^[A-Za-z_$][\w$-]*(?:\.[A-Za-z_$][\w$-]*|\[\*\]|\[\d+\])*$/.test(selector));
    if (urls.length > 0) return urls;
    if (this.commandField(tool) !== undefined || conventionalFileTool(tool) !== undefined) return [];
    // A tool whose closed schema has no such argument is never handed one (a tool the guard does not know may be).
    const known = this.toolArguments.get(tool);
    // (`urls[*]`: the argument `urls`; declared of another kind by either name, it is no URL.)
    return URL_ARGUMENTS.filter((field) => {
      const top = field.replace(/\[.*$/, "");
      return kinds[field] === undefined && kinds[top] === undefined && (known === undefined || known.includes(top));
    });
  }

  /** A file rule as a rule of the file tool `tool` whose `field` names the file: the same path condition, on that field. */
  private pathFileRule(one: ShellFileRule, field: string, use: "read" | "write"): CompiledRule {
    return this.carriedRule(one, `${use}:${field}`, () => this.onField(one.entry, field, "path", fileToolRuleDescription(one.file.source, use)));
  }

  /**
   * Field kinds the tools declare (`defineTool({ argumentKinds })`), by tool name; the guard hands
   * them over. The policy's own declarations win over them; conventions apply where neither speaks.
   */
  declareToolKinds(kinds: ReadonlyMap<string, Readonly<Record<string, ArgumentKind>>>): void {
    let changed = false;
    for (const [tool, fields] of kinds) {
      if (Object.keys(fields).length === 0) continue;
      this.toolKinds.set(tool, { ...this.toolKinds.get(tool), ...fields });
      changed = true;
    }
    if (changed) {
      this.byTool.clear();
      this.compositeByTool.clear();
      this.decisions.clear();
    }
    this.shadow?.declareToolKinds(kinds);
  }

  /**
   * The top-level argument names of tools whose input schemas take no others; the guard hands them
   * over. A tool read as fetching its `url` or `uri` by that convention alone is read so only when
   * it has that argument.
   */
  declareToolArguments(names: ReadonlyMap<string, readonly string[]>): void {
    let changed = false;
    for (const [tool, fields] of names) {
      this.toolArguments.set(tool, [...fields]);
      changed = true;
    }
    if (changed) {
      this.byTool.clear();
      this.compositeByTool.clear();
      this.decisions.clear();
    }
    this.shadow?.declareToolArguments(names);
  }

  /** The kind of `selector` for calls of `tool`: the policy's declaration, the tool's, else the field-name convention. */
  kindOf(tool: string, selector: string, condition?: unknown): ArgumentKind | undefined {
    const policy = this.policyKinds.get(tool);
    if (policy !== undefined && Object.hasOwn(policy, selector)) return policy[selector];
    const declared = this.toolKinds.get(tool);
    if (declared !== undefined && Object.hasOwn(declared, selector)) return declared[selector];
    return conventionOnly(selector, condition);
  }

  /**
   * The rule as it reads `tool`'s fields: compiled with the field-name conventions once (kept on the
   * entry), or for this tool when a declared kind differs from the convention.
   */
  private forTool(entry: RuleEntry, tool: string): CompiledRule {
    const where = entry.spec.where ?? {};
    const declares = this.policyKinds.size > 0 || this.toolKinds.size > 0;
    if (declares && Object.keys(where).some((selector) => this.kindOf(tool, selector, where[selector]) !== this.convention(selector, where[selector]))) {
      return compileRule(entry.spec, entry.order, this.defaults, (selector, condition) => this.kindOf(tool, selector, condition), this.compileCondition, entry.matchesTool);
    }
    return (entry.compiled ??= compileRule(entry.spec, entry.order, this.defaults, this.convention, this.compileCondition, entry.matchesTool));
  }

  /** The rules in the order they are tried (deny-first: denies, then asks, then allows; each in file order). */
  effectiveOrder(): PermissionRule[] {
    return this.sorted(this.rules).map((rule) => rule.spec);
  }

  /** Effective risk: the policy's `toolRisk`, then the tool's declared risk, then `defaultRisk`; undefined when none is declared. */
  riskOf(tool: string, declaredRisk?: RiskLevel): RiskLevel | undefined {
    const own = Object.hasOwn(this.toolRisk, tool) ? this.toolRisk[tool] : undefined;
    if (own === undefined) return declaredRisk ?? this.defaultRisk;
    if (declaredRisk === undefined || this.lowerRisk.has(tool)) return own;
    return higherRisk(own, declaredRisk);
  }

  /**
   * `context` (the thread's messages) feeds `from`, `after` and `budget`; without it they cannot
   * tell, so a deny or ask rule that uses them asks and an allow rule that uses them does not apply.
   */
  decide(tool: string, given: unknown, declaredRisk?: RiskLevel, context?: DecisionContext, principal?: Principal): PolicyDecision {
    if (this.readsArguments) this.followMachine();
    const args = this.readAs(tool, given);
    // A decision that reads nothing but the arguments (no thread, no principal, no filesystem) is
    // kept per distinct argument data and handed out again as a copy (see DataCache), while the
    // tool's calls repeat often enough (KeptDecisions). (A risk level this policy does not know is decided every time.)
    const known = declaredRisk === undefined || Object.hasOwn(RISK_RANK, declaredRisk);
    const plan = this.fast && known && (context === undefined || !this.contextual) ? this.plan(tool) : undefined;
    if (plan?.pure === true) {
      const keeping = plan.keeping;
      if (keeping.pause > 0) keeping.pause -= 1;
      else {
        const hash = argumentsHash(args);
        if (hash >= 0) return this.keptDecision(tool, args, declaredRisk, hash, keeping, context, principal);
      }
    }
    return this.evaluate(tool, args, declaredRisk, undefined, context, principal);
  }

  /**
   * Drops the verdicts and decisions kept from an earlier reading of this machine's names and
   * addresses (its hosts file, host name and interfaces, re-read every few seconds): a name added to
   * /etc/hosts for 127.0.0.1 is this machine from the next reading on, whatever was decided for it before.
   */
  private followMachine(): void {
    const now = machineReading();
    if (now === this.machine) return;
    this.machine = now;
    this.decisions.clear();
    // Each tool's plan keeps its fields' verdicts per value (FieldPlan): built again on the tool's next decision.
    this.byTool.clear();
  }

  /** `decide` through the kept decisions: the one kept for `args` (whose argumentsHash is `hash`), else evaluated and kept. */
  private keptDecision(tool: string, args: unknown, declaredRisk: RiskLevel | undefined, hash: number, keeping: KeptDecisions, context: DecisionContext | undefined, principal: Principal | undefined): PolicyDecision {
    const slot = declaredRisk === undefined ? 0 : RISK_RANK[declaredRisk] + 1;
    let byTool = this.decisions.get(hash, args);
    const kept = byTool?.get(tool)?.[slot];
    keeping.lookups += 1;
    if (kept !== undefined) keeping.hits += 1;
    if (keeping.lookups >= KEEP_WINDOW) {
      if (keeping.hits * KEEP_MIN_HIT_SHARE < keeping.lookups) keeping.pause = KEEP_PAUSE;
      keeping.lookups = 0;
      keeping.hits = 0;
    }
    // A copy (the caller may change what it gets); kept decisions have no evidence. A literal, not a spread: this is the hot path.
    if (kept !== undefined) return { mode: kept.mode, ruleId: kept.ruleId, reason: kept.reason, risk: kept.risk };
    const decided = this.evaluate(tool, args, declaredRisk, undefined, context, principal);
    if (decided.evidence === undefined) {
      if (byTool === undefined) this.decisions.set(hash, args, (byTool = new Map()));
      let slots = byTool.get(tool);
      if (slots === undefined) byTool.set(tool, (slots = []));
      slots[slot] = { ...decided };
    }
    return decided;
  }

  /** The approver rules (`approvers`), as given. */
  approverRules(): readonly ApproverRule[] {
    return this.definition.options.approvers ?? [];
  }

  /**
   * Whether a shadow rule names `tool`. When none does, `shadow` decides its calls exactly as this
   * policy does (the same rules apply to the tool), so the guard need not ask it.
   */
  shadowCovers(tool: string): boolean {
    let covers = this.shadowByTool.get(tool);
    if (covers === undefined) {
      covers = this.shadowRules.some((rule) => rule.matchesTool(tool));
      if (this.shadowByTool.size >= MAX_CACHED_TOOLS) this.shadowByTool.clear();
      this.shadowByTool.set(tool, covers);
    }
    return covers;
  }

  /** Some rule in force needs the thread's messages (a provenance condition, `after`, `budget`). */
  get needsThread(): boolean {
    return this.contextual;
  }

  /** Some rule in force for `tool` needs the thread's messages: without them its calls may be decided otherwise. */
  needsThreadFor(tool: string): boolean {
    return this.contextual && this.plan(tool).rules.some((rule) => rule.contextual);
  }

  /** Ids of every rule that matches the call, in effect order (for explaining a decision). */
  matchingRules(tool: string, args: unknown): string[] {
    if (this.readsArguments) this.followMachine();
    const trace: RuleTrace[] = [];
    this.evaluate(tool, this.readAs(tool, args), undefined, trace);
    return trace.filter((entry) => entry.verdict !== "no match").map((entry) => entry.ruleId);
  }

  /** The decision plus every rule tried, in order, with its verdict (for `policy explain`). */
  explain(tool: string, args: unknown, declaredRisk?: RiskLevel, context?: DecisionContext, principal?: Principal): { decision: PolicyDecision; trace: RuleTrace[] } {
    if (this.readsArguments) this.followMachine();
    const trace: RuleTrace[] = [];
    const decision = this.evaluate(tool, this.readAs(tool, args), declaredRisk, trace, context, principal);
    return { decision, trace };
  }

  /**
   * The arguments of a call as the rules read them: a PowerShell tool's command line (by the tool's name) as the POSIX
   * commands PowerShell runs for it, beside the line as written (powerShellLine): `Remove-Item x` is read as `rm x`.
   */
  private readAs(tool: string, args: unknown): unknown {
    if (!isPowerShellTool(tool) || typeof args !== "object" || args === null || Array.isArray(args)) return args;
    const field = this.commandField(tool);
    if (field === undefined || !Object.hasOwn(args, field)) return args;
    const text = (args as Record<string, unknown>)[field];
    return typeof text === "string" ? { ...args, [field]: powerShellLine(text) } : args;
  }

  private evaluate(tool: string, args: unknown, declaredRisk: RiskLevel | undefined, trace: RuleTrace[] | undefined, context?: DecisionContext, principal?: Principal): PolicyDecision {
    const risk = this.riskOf(tool, declaredRisk);
    const shownRisk: RiskLevel = risk ?? "medium";
    let view: CanonicalArgs | undefined;
    let unsure: CompiledRule | undefined;
    let decided: PolicyDecision | undefined;
    /** The rule whose mode decided (for the evidence of a deny or ask). */
    let decidingRule: CompiledRule | undefined;
    let evaluation: Evaluation | undefined;
    /** Evidence of the provenance conditions tried, per rule id (the deciding rule's goes into the decision). */
    let evidenceOf: Map<string, Evidence[]> | undefined;
    const plan = this.plan(tool);
    const index = this.fast ? plan.index : undefined;
    const fields = this.fast ? plan.fields : undefined;
    /** Rules the value index leaves out have the verdict NO (undefined: none is left out). */
    let live: readonly number[] | undefined;
    /** Per field group of `fields`: the kept verdicts of the values this call has there, in the normalised and (if normalisation changed something) the literal view. */
    let rows: Rows | undefined;
    let literalRows: Rows | undefined;
    const rules = plan.rules;
    for (let position = 0; position < rules.length; position++) {
      // With a field plan, a rule whose kept verdicts say NO is passed over without reading the rule
      // itself (FieldPlan.flags): at 100,000 rules, reading each rule tried costs more than its verdict.
      let known: Verdict | undefined;
      if (rows !== undefined && trace === undefined && (fields!.flags[position]! & (PLAN_CONDITIONAL | PLAN_KEPT)) === (PLAN_CONDITIONAL | PLAN_KEPT)) {
        known = keptVerdict(rules, position, fields!, rows, literalRows, view!);
        if (known === NO) continue;
      }
      const rule = rules[position]!;
      let verdict: Verdict = YES;
      if (rule.conditional) {
        if (view === undefined) {
          view = canonicalize(args);
          if (fields !== undefined && !view.oversized) {
            rows = new Array<Int8Array | number | typeof NOT_KEPT | undefined>(fields.groups.length);
            if (view.changed) literalRows = new Array<Int8Array | number | typeof NOT_KEPT | undefined>(fields.groups.length);
          } else live = index?.live(view);
        }
        const kept = rows !== undefined && (fields!.flags[position]! & PLAN_KEPT) !== 0;
        if (live !== undefined && live[position] === 0) verdict = NO;
        else if (kept) verdict = known ?? keptVerdict(rules, position, fields!, rows!, literalRows, view);
        else if (rule.contextual || rule.personal) {
          evaluation ??= new Evaluation(context, this.provenance, this.trusted, principal);
          evaluation.evidence = [];
          verdict = argumentsVerdict(rule, view, evaluation, !this.fast);
          if (evaluation.evidence.length > 0) (evidenceOf ??= new Map()).set(rule.ruleId, dedupe(evaluation.evidence));
        } else verdict = argumentsVerdict(rule, view, undefined, !this.fast);
      }
      trace?.push({ ruleId: rule.ruleId, mode: rule.mode, description: rule.description, verdict: verdict === YES ? "match" : verdict === NO ? "no match" : "cannot tell" });
      if (decided !== undefined) continue;
      if (verdict === UNKNOWN) {
        unsure ??= rule;
        continue;
      }
      if (verdict === NO) continue;
      if (rule.mode === "allow" && unsure !== undefined) {
        decided = this.unsureDecision(unsure, shownRisk, view, principal);
      } else {
        decided = { mode: rule.mode, ruleId: rule.ruleId, reason: this.reasonFor(rule, view, evidenceOf?.get(rule.ruleId)), risk: shownRisk };
        decidingRule = rule;
      }
      if (trace === undefined) break;
    }
    if (decided === undefined && unsure !== undefined) decided = this.unsureDecision(unsure, shownRisk, view, principal);
    if (decided !== undefined && decided.mode !== "allow" && context !== undefined && this.contextual && evidenceOf?.has(decided.ruleId) !== true) {
      // A deny or ask decided by another rule (an amount, a tool) still tells the human where the
      // traced values of this call came from: the provenance rules it did not reach are read for evidence.
      view ??= canonicalize(args);
      const extra = this.stopEvidence(decidingRule, tool, view, (evaluation ??= new Evaluation(context, this.provenance, this.trusted, principal)), evidenceOf);
      if (extra.length > 0) {
        decided.evidence = extra;
        decided.reason = `${decided.reason}; ${provenanceReason(extra)}`;
      }
    } else if (decided !== undefined && evidenceOf !== undefined) decided = withEvidence(decided, evidenceOf);
    if (decided === undefined) {
      // `npm run test && npm run lint`: each simple command allowed by a different command rule.
      for (const composite of this.composites(tool)) {
        view ??= canonicalize(args);
        if (argumentsVerdict(composite, view, undefined, !this.fast) !== YES) continue;
        trace?.push({ ruleId: composite.ruleId, mode: "allow", description: composite.description, verdict: "match" });
        decided = { mode: "allow", ruleId: composite.ruleId, reason: composite.description, risk: shownRisk };
        break;
      }
    }
    if (decided === undefined) {
      const evidence = evidenceOf === undefined ? undefined : dedupe([...evidenceOf.values()].flat());
      decided = noRuleDecision(tool, risk, this.riskModes);
      if (decided.mode !== "allow" && view !== undefined) {
        const note = this.principalNote(tool, principal) ?? this.uncoveredNote(tool, view);
        if (note !== undefined) decided.reason = `${note}; ${decided.reason}`;
      }
      // The audit says where the traced values were found even when no provenance rule decided.
      if (evidence !== undefined) decided.evidence = evidence;
      if (decided.mode !== "allow" && context !== undefined && this.contextual && !(evidence ?? []).some((item) => !item.found)) {
        // An ask or deny by the tool's risk still names where the call's values came from.
        view ??= canonicalize(args);
        const extra = this.stopEvidence(undefined, tool, view, (evaluation ??= new Evaluation(context, this.provenance, this.trusted, principal)), evidenceOf);
        if (extra.length > 0) {
          decided.evidence = dedupe([...(evidence ?? []), ...extra]);
          decided.reason = `${decided.reason}; ${provenanceReason(extra)}`;
        }
      }
    }
    if (decided.mode === "allow") {
      const control = view !== undefined ? view.controlChar : findControlChar(args);
      if (control !== undefined) {
        return { mode: "ask", ruleId: "control-characters", reason: controlCharacterReason(control), risk: shownRisk };
      }
    }
    return decided;
  }

  /**
   * Usage sentences for the system prompt, one per restricting rule with a provenance, `after` or
   * `budget` condition, so the model knows which values must come from the user before it calls.
   * Each says the rule's whole condition; the lines are grouped and bounded.
   */
  usageLines(): string[] {
    // The rules and provenance settings are fixed when the policy is built: the lines are built once
    // (the guard asks for them on every model call).
    if (this.#usageLines === undefined) {
      const lists = { trusted: this.provenance.trusted ?? [], untrusted: this.provenance.untrusted ?? [] };
      const rules = this.rules.flatMap((rule) => (rule.contextual && rule.mode !== "allow" ? [{ ...rule.spec, mode: rule.mode }] : []));
      this.#usageLines = provenanceUsageLines(rules, lists, describeMatcher);
    }
    return [...this.#usageLines];
  }

  #usageLines: readonly string[] | undefined;

  /**
   * The evidence of a deny or ask that no provenance condition decided: the values the policy's
   * provenance rules do not trace; the values the deciding rule's own conditions (an amount over a
   * limit) or budget judged, with where each first appears; else the call's short argument values
   * and where each first appears (a file id "13" listed by a tool). Only on this path, never per allow.
   */
  private stopEvidence(rule: CompiledRule | undefined, tool: string, view: CanonicalArgs, evaluation: Evaluation, tried: ReadonlyMap<string, Evidence[]> | undefined): Evidence[] {
    const out = this.untracedEvidence(tool, view, evaluation, tried);
    if (view.oversized) return out;
    const judged: { field: string; value: unknown; note?: string }[] = [];
    for (const condition of rule?.where ?? []) {
      if (condition.contextual === true) continue;
      for (const value of scalarsAt(view.value, condition.selector)) judged.push({ field: condition.selector, value, note: evidenceNote.condition(condition.description) });
    }
    const budget = rule?.spec.budget;
    if (rule?.budgetTotal !== undefined && budget !== undefined) {
      const total = rule.budgetTotal(view.value, evaluation);
      const note = total === undefined ? undefined : evidenceNote.budget(total, budget.max, budget.scope ?? "run");
      if (budget.sum !== undefined) for (const value of scalarsAt(view.value, budget.sum)) judged.push({ field: budget.sum, value, ...(note === undefined ? {} : { note }) });
    }
    if (judged.length > 0) return dedupe([...out, ...locateValues(judged, evaluation)]);
    if (out.length > 0) return out;
    // A tool-level rule (deletions ask): name the call's short values and where they appear.
    const leaves = argumentLeaves(view.value).filter((leaf) => String(leaf.value).length <= MAX_LOCATED_CHARS);
    return locateValues(leaves, evaluation);
  }

  /** Values of the call that the policy's provenance conditions do not trace to an accepted source. */
  private untracedEvidence(tool: string, view: CanonicalArgs, evaluation: Evaluation, tried: ReadonlyMap<string, Evidence[]> | undefined): Evidence[] {
    const out: Evidence[] = [];
    if (tried !== undefined) for (const items of tried.values()) for (const item of items) if (!item.found) out.push(item);
    for (const rule of this.plan(tool).rules) {
      if (!rule.contextual || tried?.has(rule.ruleId) === true) continue;
      if (view.oversized) break;
      evaluation.evidence = [];
      for (const condition of rule.where) if (condition.contextual === true) condition.evaluate(view.value, rule.mode !== "allow", evaluation);
      for (const item of evaluation.evidence) if (!item.found) out.push(item);
    }
    return dedupe(out);
  }

  private unsureDecision(rule: CompiledRule, risk: RiskLevel, view: CanonicalArgs | undefined, principal: Principal | undefined): PolicyDecision {
    const why = (rule.personal ? personalWhy(rule, principal) : undefined) ?? (view === undefined ? undefined : conditionWhy(rule, view, true));
    return { mode: "ask", ruleId: rule.ruleId, reason: cannotTellReason(rule.mode, rule.description, why), risk };
  }

  /**
   * When a call that asks or is denied by default had an allow rule on the principal that could not
   * tell (no authenticated user, an attribute it lacks): what was missing, named for the reviewer.
   */
  private principalNote(tool: string, principal: Principal | undefined): string | undefined {
    if (!this.readsPrincipal) return undefined;
    for (const rule of this.plan(tool).rules) {
      if (rule.mode !== "allow" || !rule.personal) continue;
      const why = personalWhy(rule, principal);
      if (why !== undefined) return principalText.allowNeeded(rule.ruleId, why);
    }
    return undefined;
  }

  /**
   * When a call that asks or is denied by default had an allow rule whose command pattern matched
   * its words but did not cover a construct of the line (a continuation, `find -exec`, a
   * here-document): that construct, named for the reviewer. Only on this slow path.
   */
  private uncoveredNote(tool: string, view: CanonicalArgs): string | undefined {
    if (view.oversized) return undefined;
    const plan = this.plan(tool);
    for (const rule of [...(this.fast ? plan.explainers : plan.rules), ...this.composites(tool)]) {
      if (rule.mode !== "allow") continue;
      const why = conditionWhy(rule, view, false);
      if (why !== undefined) return uncoveredReason(why, rule.ruleId, rule.description);
    }
    return undefined;
  }

  private reasonFor(rule: CompiledRule, view: CanonicalArgs | undefined, evidence?: readonly Evidence[]): string {
    // The tool and the rule id travel beside the reason; sentences in src/messages add them once.
    const why = (view === undefined || view.oversized ? undefined : rule.reasonOf?.(view)) ?? rule.reasonText;
    const traced = evidence === undefined || rule.mode === "allow" ? "" : provenanceReason(evidence);
    const base = traced === "" ? why : `${why}; ${traced}`;
    return view?.oversized === true && rule.conditional ? `${base}; ${UNINSPECTABLE}` : base;
  }

  private sorted<R extends { readonly mode: PermissionMode; readonly order: number }>(rules: readonly R[]): R[] {
    if (this.precedence === "first-match") return [...rules];
    return [...rules].sort((a, b) => MODE_RANK[a.mode] - MODE_RANK[b.mode] || a.order - b.order);
  }

  /**
   * Allow rules of one tool whose only condition is a `command` matcher on the same field, merged
   * into one rule per field: every simple command must match one of their patterns.
   */
  private composites(tool: string): readonly CompiledRule[] {
    let found = this.compositeByTool.get(tool);
    if (found !== undefined) return found;
    const groups = new Map<string, CompiledRule[]>();
    for (const rule of this.plan(tool).rules) {
      const entries = Object.entries(rule.spec.where ?? {});
      const matcher = entries[0]?.[1];
      if (rule.mode !== "allow" || rule.args !== undefined || rule.context !== undefined || rule.personal || entries.length !== 1 || matcher === undefined || !("command" in matcher)) continue;
      const key = `${entries[0]?.[0] ?? ""}\u0000${matcher.caseSensitive === true}`;
      groups.set(key, [...(groups.get(key) ?? []), rule]);
    }
    const merged: CompiledRule[] = [];
    for (const [key, rules] of groups) {
      if (rules.length < 2) continue;
      const [selector = "", caseSensitive] = key.split("\u0000");
      const commands = rules.flatMap((rule) => {
        const matcher = Object.values(rule.spec.where ?? {})[0];
        return matcher !== undefined && "command" in matcher ? (typeof matcher.command === "string" ? [matcher.command] : matcher.command) : [];
      });
      const condition = compileFieldCondition(selector, { command: commands, caseSensitive: caseSensitive === "true" }, `composite of ${rules.map((rule) => rule.ruleId).join(", ")}`, this.defaults);
      const description = `every simple command in ${selector} is allowed by one of ${rules.map((rule) => rule.ruleId).join(", ")}`;
      const spec: PermissionRule = { tool, mode: "allow", where: { [selector]: { command: commands } } };
      merged.push(
        madeRule({
          order: rules[0]?.order ?? 0,
          spec,
          ruleId: rules.map((rule) => rule.ruleId).join("+"),
          mode: "allow",
          matchesTool: () => true,
          kinds: {},
          where: [condition],
          description,
          reasonText: ruleReason(spec, description),
        }),
      );
    }
    if (this.compositeByTool.size >= MAX_CACHED_TOOLS) this.compositeByTool.clear();
    this.compositeByTool.set(tool, merged);
    return merged;
  }

  private plan(tool: string): ToolPlan {
    let found = this.byTool.get(tool);
    if (found === undefined) {
      // The rules whose tool pattern may match (ToolNameIndex), tested, in file order, then in effect
      // order, each compiled with the kinds this tool declares for its fields.
      const matching = (this.fast ? this.byToolName.candidates(tool) : [...this.rules]).filter((rule) => rule.matchesTool(tool));
      // A command tool's calls are also read for the files a file tool's deny and ask rules cover (decided when the policy is built: none, nothing added).
      // And a file tool's calls for the files another file tool's deny and ask rules cover (Edit(./src/**) for Write, Read(.env) for Grep).
      const rules = this.sorted([...matching.map((rule) => this.forTool(rule, tool)), ...this.shellFileRules(tool), ...this.fileToolRules(tool), ...this.fetchFileRules(tool), ...this.shellNetRules(tool), ...this.otherCommandRules(tool)].sort((a, b) => a.order - b.order));
      const explainers = rules.filter((rule) => rule.mode === "allow" && rule.where.some((condition) => condition.why !== undefined));
      const pure = rules.every((rule) => !rule.contextual && !rule.personal && rule.context === undefined && rule.where.every((condition) => condition.volatile !== true && condition.contextual !== true));
      found = { rules, index: ValueIndex.build(rules), fields: buildFieldPlan(rules), explainers, pure, keeping: { lookups: 0, hits: 0, pause: 0 } };
      if (this.byTool.size >= MAX_CACHED_TOOLS) this.byTool.clear();
      this.byTool.set(tool, found);
    }
    return found;
  }
}

/** A file tool's deny or ask rule (`Read(.env)`) as command tools read it: the rule's entry and its files. */
interface ShellFileRule {
  readonly entry: RuleEntry;
  readonly file: FileRule;
}

/** What a file tool's rule restricts: a reading tool's rules (Read) reading, a writing tool's (Edit, Write, ...) writing. */
function conventionalAccess(tool: string): FileAccess | undefined {
  const use = conventionalFileTool(tool)?.use;
  return use === "read" ? "read" : use === "write" ? "write" : undefined;
}

/**
 * A deny or ask rule on one named tool whose only condition is one plain `where` condition (no `args`, `after`,
 * `budget`, `principal`, no not/anyOf/allOf): the rules the policy carries to the other tools that do the same
 * (fileRulesOf, netRulesOf, otherCommandRules). Its selector and matcher.
 */
function onlyCondition(entry: RuleEntry): { rule: PermissionRule; selector: string; matcher: Record<string, unknown> } | undefined {
  const rule = entry.spec;
  if (rule.mode === "allow" || rule.toolRegex === true || !isOneToolName(rule.tool) || rule.args !== undefined || rule.after !== undefined || rule.budget !== undefined || rule.principal !== undefined) return undefined;
  const selectors = Object.keys(rule.where ?? {});
  if (selectors.length !== 1) return undefined;
  const selector = selectors[0]!;
  const matcher = rule.where![selector] as Record<string, unknown>;
  if (typeof matcher !== "object" || matcher === null || isComposite(matcher)) return undefined;
  return { rule, selector, matcher };
}

/**
 * The deny and ask rules whose only condition is a path condition on a file tool's main argument (`Read(.env)`,
 * `Edit(./secrets/**)`, the same long-hand, a tool the policy declares with a path main argument): what command tools'
 * calls are read for. Rules with anything more (args, another field, after, budget, principal) are the tool's own.
 */
function fileRulesOf(rules: readonly RuleEntry[], options: PermissionPolicyOptions, defaults: MatcherDefaults): ShellFileRule[] {
  const out: ShellFileRule[] = [];
  for (const entry of rules) {
    const only = onlyCondition(entry);
    if (only === undefined || !("path" in only.matcher)) continue;
    const { rule, selector, matcher } = only;
    const declared = options.mainArguments?.[rule.tool];
    const known = conventionalFileTool(rule.tool);
    // A tool the policy declares with a path argument: what it does with the file is known only when the declaration is the convention's.
    const access: FileAccess | undefined =
      declared !== undefined
        ? declared.kind === "path" && declared.field === selector
          ? (known?.fields.includes(selector) === true ? conventionalAccess(rule.tool) : undefined) ?? "any"
          : undefined
        : known?.fields.includes(selector) === true
          ? conventionalAccess(rule.tool)
          : undefined;
    if (access === undefined) continue;
    const path = matcher.path as string | readonly string[];
    const written = typeof path === "string" ? [path] : [...path];
    const patterns = written.map((pattern) => expandHome(pattern, defaults.home));
    const base = typeof matcher.base === "string" ? matcher.base : (defaults.pathBase ?? "/");
    const source = rule.rule ?? `${rule.tool}(${written.join(", ")})`;
    out.push({ entry, file: { access, mode: rule.mode, source, patterns, base: normaliseBase(base), caseSensitive: matcher.caseSensitive === true, followSymlinks: defaults.followSymlinks === true } });
  }
  return out;
}

/**
 * A rule carried to the command tools: `reach` judges each command line their `field` holds (YES with the reason the
 * decision gives, UNKNOWN with why). Kept per value, unless `volatile` (what it reads on this machine may change).
 */
function commandLineRule(entry: RuleEntry, field: string, description: string, reach: (text: string) => { verdict: Verdict; reason: string | undefined }, volatile: boolean, kind: "command" | "url" | "path" = "command"): CompiledRule {
  const direct = compileDirectGetter(parseSelector(field));
  const judge = (tree: unknown): { verdict: Verdict; reason: string | undefined } => {
    const found = direct === undefined ? NEEDS_FULL_SELECT : direct(tree);
    const values = found === NEEDS_FULL_SELECT ? selectAll(tree, parseSelector(field)) : [found];
    let doubt: string | undefined;
    for (const value of values.flatMap((one) => (typeof one === "string" ? [one] : Array.isArray(one) ? one.filter((item): item is string => typeof item === "string") : []))) {
      const one = reach(value);
      if (one.verdict === YES) return one;
      if (one.verdict === UNKNOWN) doubt ??= one.reason;
    }
    return doubt === undefined ? { verdict: NO, reason: undefined } : { verdict: UNKNOWN, reason: doubt };
  };
  const condition: FieldCondition = {
    selector: field,
    description,
    literal: true,
    ...(direct === undefined || volatile ? {} : { read: direct }),
    ...(volatile ? { volatile: true } : {}),
    evaluate: (tree, restrictive) => (restrictive ? judge(tree).verdict : NO),
    why: (tree, restrictive) => (restrictive ? judge(tree).reason : undefined),
  };
  const id = entry.spec.id ?? `permissions[${entry.order}]`;
  return madeRule({
    order: entry.order,
    spec: { tool: entry.spec.tool, mode: entry.mode, where: { [field]: kind === "command" ? { command: "*" } : { exists: true } } },
    ruleId: `permission:${id}`,
    mode: entry.mode,
    matchesTool: () => true,
    where: [condition],
    description,
    reasonText: entry.spec.reason ?? description,
    kinds: { [field]: kind },
    reasonOf: (view) => entry.spec.reason ?? judge(view.literal).reason ?? judge(view.value).reason,
  });
}

/** A file rule as a rule of the command tools, reading their `field` (file-reach.ts). */
function shellFileRule(one: ShellFileRule, field: string, defaults: MatcherDefaults): CompiledRule {
  const start = normaliseBase(defaults.pathBase);
  return commandLineRule(one.entry, field, shellFileRuleDescription(one.file.source), (text) => judgeFileReach(text, one.file, start), one.file.followSymlinks);
}

/** A file rule as a rule of the fetch tool `tool`, reading its URL argument `field`: a `file:` URL is the file it names. */
function fetchFileRule(one: ShellFileRule, field: string): CompiledRule {
  return commandLineRule(one.entry, field, fetchFileRuleDescription(one.file.source), (text) => judgeUrlFileReach(text, one.file), one.file.followSymlinks, "url");
}

/** A file rule as read in the path argument `field` of a deep agent's file tool, as a backend in virtual mode places it. */
function virtualFileRule(one: ShellFileRule, tool: string, field: string, use: "read" | "write", defaults: MatcherDefaults): CompiledRule {
  const start = normaliseBase(defaults.pathBase);
  return commandLineRule(one.entry, field, fileToolRuleDescription(one.file.source, use), (text) => judgeVirtualPath(tool, text, one.file, start), one.file.followSymlinks, "path");
}

/** A file rule as a rule of the search or listing tool `tool` (Grep, Glob): what the search reads, as file-reach.ts reads it. */
function searchFileRule(one: ShellFileRule, tool: string, use: "search" | "search-visible" | "list", defaults: MatcherDefaults, family: "claude" | "deep"): CompiledRule {
  const { entry, file } = one;
  const start = normaliseBase(defaults.pathBase);
  const judge = (tree: unknown) => judgeSearchReach(tool, use, typeof tree === "object" && tree !== null ? (tree as SearchCall) : {}, file, start, family);
  const description = fileToolRuleDescription(file.source, "read");
  const condition: FieldCondition = {
    selector: "path",
    description,
    literal: true,
    ...(file.followSymlinks ? { volatile: true } : {}),
    evaluate: (tree, restrictive) => (restrictive ? judge(tree).verdict : NO),
    why: (tree, restrictive) => (restrictive ? judge(tree).reason : undefined),
  };
  const id = entry.spec.id ?? `permissions[${entry.order}]`;
  return madeRule({
    order: entry.order,
    spec: { tool, mode: entry.mode, where: { path: { path: file.patterns.length === 1 ? file.patterns[0]! : [...file.patterns] } } },
    ruleId: `permission:${id}`,
    mode: entry.mode,
    matchesTool: (name) => name === tool,
    where: [condition],
    description,
    reasonText: entry.spec.reason ?? description,
    kinds: { path: "path" },
    reasonOf: (view) => entry.spec.reason ?? judge(view.literal).reason ?? judge(view.value).reason,
  });
}

/** A fetch tool's deny or ask rule (`WebFetch(domain:x)`) as command tools read it: the rule's entry, its field and condition. */
interface ShellNetRule {
  readonly entry: RuleEntry;
  readonly selector: string;
  readonly matcher: ConditionSpec<FieldMatcher>;
  readonly kind: "url" | "domain";
  readonly source: string;
}

/**
 * The deny and ask rules whose only condition is a `url` or `domain` condition on a fetch tool's URL argument
 * (`WebFetch(domain:evil.example)`, `WebFetch(https://x/**)`, the long-hand form, a tool the policy declares with a url
 * main argument): what command tools' calls are read for (the places their fetchers connect to).
 */
function netRulesOf(rules: readonly RuleEntry[], options: PermissionPolicyOptions): ShellNetRule[] {
  const out: ShellNetRule[] = [];
  for (const entry of rules) {
    const only = onlyCondition(entry);
    if (only === undefined) continue;
    const { rule, selector, matcher } = only;
    const where = rule.where!;
    const kind = "domain" in matcher ? "domain" : "url" in matcher ? "url" : undefined;
    if (kind === undefined) continue;
    const main = options.mainArguments?.[rule.tool] ?? conventionalMainArgument(rule.tool);
    if (main === undefined || main.kind !== "url" || main.field !== selector) continue;
    out.push({ entry, selector, matcher: where[selector]!, kind, source: rule.rule ?? `${rule.tool}(${String(matcher[kind])})` });
  }
  return out;
}

/** A fetch tool's rule as a rule of the command tools, reading their `field`: the places their commands connect to (net-reach.ts). */
function shellNetRule(one: ShellNetRule, field: string, compile: CompileCondition): CompiledRule {
  const { entry } = one;
  const place = compile(one.selector, one.matcher, () => `permissions[${entry.order}].where[${JSON.stringify(one.selector)}]`, one.kind);
  const rule: NetRule = { mode: entry.mode, source: one.source, test: (text) => place.evaluate({ [one.selector]: text }, true) };
  // Kept per command text; a change of the hosts file or this machine's names drops what is kept (followMachine).
  return commandLineRule(entry, field, netRuleDescription(one.source), (text) => judgeNetReach(text, rule), false);
}

/**
 * A rule the policy makes itself from its conditions (a tool's command allows merged into one, a file rule read in a
 * command tool's calls): conditional, and reading no thread, principal, context or `args` regex.
 */
function madeRule(rule: Omit<CompiledRule, "conditional" | "contextual" | "personal" | "principal" | "context" | "args" | "argsInTokens">): CompiledRule {
  return { ...rule, conditional: true, contextual: false, personal: false, principal: undefined, context: undefined, args: undefined, argsInTokens: undefined };
}

/** Set only while `eagerLinearScanForTests` builds its policy. */
let compileEagerly = false;
/** What `ruleEntry` is handed in the eager reference, which compiles each rule itself: what a condition reads, nothing checked. */
const checkedOnly: CheckCondition = (selector, matcher) => ({ kind: conventionOnly(selector, matcher), contextual: usesContext(matcher), personal: usesPrincipal(matcher) });

/**
 * The reference lazy compilation is tested against: every rule compiled when the policy is built, in
 * order (the first bad rule throws), each condition compiled on its own (nothing shared between
 * rules), deciding by the linear scan. For tests only; not exported from the package.
 */
export function eagerLinearScanForTests(rules: readonly PermissionRule[], options?: PermissionPolicyOptions): PermissionPolicy {
  compileEagerly = true;
  try {
    return linearScanForTests(new PermissionPolicy(rules, options));
  } finally {
    compileEagerly = false;
  }
}

/**
 * The reference the fast paths are tested against: the same policy deciding by evaluating every
 * rule in order (the linear scan), `args` regexes searched in the rendered canonical text. For tests
 * only; not exported from the package.
 */
export function linearScanForTests(policy: PermissionPolicy): PermissionPolicy {
  (policy as unknown as { fast: boolean }).fast = false;
  return policy;
}
