import { picomatchLibrary } from "../deps/on-demand.js";
import { normaliseRules } from "../rules/normalize.js";
import { executionPlan } from "../rules/plan.js";
import { parseToolRules } from "../rules/schema.js";
import { usageSentence } from "../rules/usage.js";
import { PolicyError } from "./errors.js";
import { provenanceWarnings } from "../provenance/check.js";
import { validateRules, type ToolInputSchema } from "../rules/validate.js";
import type { LoadedPolicy } from "./file.js";
import { loadedPolicyOf, permissionPolicy } from "./file.js";
import type { PermissionPolicy } from "./permissions.js";
import { compileToolMatcher, DEFAULT_RISK_MODES, ToolMatchers, type PermissionRule } from "./permissions.js";
import type { PermissionMode } from "./types.js";
import type { RiskLevel } from "../tools/types.js";
import { conventionalKind, parseCompactRule, type CompactReading } from "./compact.js";
import { isLowerRisk } from "./permissions.js";
import { topArgument } from "./selector.js";
import { normalizeString } from "./normalize.js";
import { isOneToolName, ToolNameIndex, ToolNames } from "./rule-index.js";
import { principalNameErrors } from "../principal/check.js";

interface PolicyCheckResult {
  /** The policy cannot work as written: tool-rule conflicts, and — when the tools are known — rules naming tools or operations that do not exist, or a risk lower than the tool's own without lowerRisk. */
  errors: string[];
  /** Rules that can never fire, duplicate ids, names of tools the policy itself does not declare (when the tools are not known). */
  warnings: string[];
  /** How each compact rule string was read: `permissions[3]: Bash(npm run test:*) → ...`. */
  readings: string[];
}

/** The risk each tool declares itself (and per operation), as the tools' guard specs say. */
export type DeclaredRisks = ReadonlyMap<string, { risk: RiskLevel | undefined; operationRisk: Readonly<Record<string, RiskLevel>> }>;

/** Tool name → its operations (empty when it has none), as ToolRegistry.catalog() gives it. */
export type ToolCatalog = ReadonlyMap<string, readonly string[]>;

/** Tool name → the names of its top-level arguments (its JSON schema's properties); a tool that takes any argument is absent. */
export type ToolArguments = ReadonlyMap<string, readonly string[]>;

const MODE_RANK: Readonly<Record<PermissionMode, number>> = { deny: 0, ask: 1, allow: 2 };
const MATCH_ALL_GLOBS = new Set(["*", "**"]);

/**
 * One permission rule as the check reads it. Its label is written only when a message names it (a
 * big policy's check names few rules), and rules of one tool pattern share its matcher.
 */
class RuleInfo {
  /** The known tools the rule matches, in the catalog's order (found through ToolNames, computed once). */
  tools?: readonly string[];
  constructor(
    readonly index: number,
    readonly rule: PermissionRule,
    readonly matches: (tool: string) => boolean,
  ) {}

  get label(): string {
    return labelOf(this.rule, this.index);
  }

  get unconditional(): boolean {
    const rule = this.rule;
    return rule.args === undefined && isEmpty(rule.where) && rule.after === undefined && rule.budget === undefined && rule.principal === undefined;
  }
}

/** True for undefined and for an object without own enumerable keys. */
function isEmpty(value: object | undefined): boolean {
  if (value === undefined) return true;
  for (const key in value) if (Object.hasOwn(value, key)) return false;
  return true;
}

/** The check's reading of each rule, in file order; rules of one tool pattern share its matcher (ToolMatchers). */
function ruleInfos(permissions: readonly PermissionRule[]): RuleInfo[] {
  const matchers = new ToolMatchers();
  return permissions.map((rule, index) => new RuleInfo(index, rule, matchers.of(rule, index)));
}

/** The known tools `info` matches, in the catalog's order: looked up once per rule through the name index. */
function toolsOf(info: RuleInfo, names: ToolNames): readonly string[] {
  return (info.tools ??= names.matching(info.rule, info.matches));
}

function labelOf(rule: PermissionRule, index: number): string {
  return rule.id === undefined ? `permissions[${index}]` : `permissions[${index}] (${rule.id})`;
}

/** Without tools that `inner` matches: whether every call `inner`'s tool pattern can match is also matched by `outer`'s, judged from the patterns. */
function coversByPattern(outer: RuleInfo, inner: RuleInfo): boolean {
  const a = outer.rule;
  const b = inner.rule;
  if (matchesAll(a)) return true;
  if (a.tool === b.tool && (a.toolRegex === true) === (b.toolRegex === true)) return true;
  // A literal tool name is covered when the outer pattern matches it.
  return b.toolRegex !== true && isOneToolName(b.tool) && outer.matches(b.tool);
}

function matchesAll(rule: PermissionRule): boolean {
  return rule.toolRegex === true ? rule.tool === ".*" : MATCH_ALL_GLOBS.has(rule.tool);
}

/**
 * Rules that can never fire: for each rule, the first unconditional rule (in file order) that
 * matches every call it could match and wins over it. Judged against the known tools when the rule
 * matches some (every one of its tools is matched by the other rule), else from the patterns. The
 * other rules are found through indexes (unconditional rules by the tools they match, by pattern
 * text, and by the names they may match), not by trying every pair.
 */
function shadowWarnings(infos: readonly RuleInfo[], precedence: LoadedPolicy["precedence"], tools: ToolCatalog | undefined, names: ToolNames | undefined): string[] {
  const warnings: string[] = [];
  const unconditional = infos.filter((info) => info.unconditional);
  if (unconditional.length === 0) return warnings;
  const wins = (outer: RuleInfo, inner: RuleInfo) =>
    outer !== inner && (precedence === "first-match" ? outer.index < inner.index : MODE_RANK[outer.rule.mode] < MODE_RANK[inner.rule.mode]);
  // Unconditional rules by each known tool they match; their matched tools as sets.
  const byTool = new Map<string, RuleInfo[]>();
  const toolSets = new Map<RuleInfo, ReadonlySet<string>>();
  if (names !== undefined) {
    // Rules of one tool pattern share their list of matched tools (ToolNames.matching): one set each.
    const sets = new Map<readonly string[], ReadonlySet<string>>();
    for (const outer of unconditional) {
      const matched = toolsOf(outer, names);
      let set = sets.get(matched);
      if (set === undefined) sets.set(matched, (set = new Set(matched)));
      toolSets.set(outer, set);
      for (const tool of matched) {
        const list = byTool.get(tool);
        if (list === undefined) byTool.set(tool, [outer]);
        else list.push(outer);
      }
    }
  }
  // For rules judged from their patterns: match-all rules, rules by pattern text, rules by the names they may match.
  const everything = unconditional.filter((info) => matchesAll(info.rule));
  const byText = new Map<string, RuleInfo[]>();
  const byName = new ToolNameIndex<RuleInfo>();
  for (const outer of unconditional) {
    const key = `${outer.rule.toolRegex === true}\u0000${outer.rule.tool}`;
    const list = byText.get(key);
    if (list === undefined) byText.set(key, [outer]);
    else list.push(outer);
    byName.add(outer, outer.rule);
  }
  for (const inner of infos) {
    let shadow: RuleInfo | undefined;
    const innerTools = tools !== undefined && names !== undefined ? toolsOf(inner, names) : [];
    if (innerTools.length > 0) {
      // The first (file order) unconditional rule matching every tool the rule matches.
      for (const outer of byTool.get(innerTools[0]!) ?? []) {
        if (!wins(outer, inner)) continue;
        const set = toolSets.get(outer)!;
        if (innerTools.every((tool) => set.has(tool))) {
          shadow = outer;
          break;
        }
      }
    } else {
      const candidates = new Set<RuleInfo>([...everything, ...(byText.get(`${inner.rule.toolRegex === true}\u0000${inner.rule.tool}`) ?? [])]);
      if (inner.rule.toolRegex !== true && isOneToolName(inner.rule.tool)) for (const outer of byName.candidates(inner.rule.tool)) candidates.add(outer);
      for (const outer of candidates) {
        if ((shadow === undefined || outer.index < shadow.index) && wins(outer, inner) && coversByPattern(outer, inner)) shadow = outer;
      }
    }
    if (shadow === undefined) continue;
    const why =
      precedence === "first-match"
        ? `${shadow.label} comes first and matches every call it could match (first-match)`
        : `${shadow.label} (${shadow.rule.mode}, no conditions) matches every call it could match and ${shadow.rule.mode} wins over ${inner.rule.mode}`;
    warnings.push(`${inner.label} can never fire: ${why}`);
  }
  return warnings;
}

/** With the tools known: rules, risk entries and agent.tools naming tools or operations that do not exist are errors. */
function catalogErrors(loaded: LoadedPolicy, infos: readonly RuleInfo[], tools: ToolCatalog, names: ToolNames): string[] {
  const errors: string[] = [];
  const known = [...tools.keys()];
  for (let i = 0; i < infos.length; i++) {
    const info = infos[i]!;
    if (toolsOf(info, names).length === 0) errors.push(`${info.label} names tool ${JSON.stringify(info.rule.tool)}, which matches no known tool (known: ${known.join(", ")}); the rule would never fire`);
  }
  const named = new Set([...Object.keys(loaded.toolRisk), ...Object.keys(loaded.operationRisk), ...Object.keys(loaded.mainArguments)]);
  for (const name of named) {
    if (tools.has(name)) continue;
    if (picomatchLibrary().scan(name).isGlob) errors.push(...globKeyErrors(loaded, name, known));
    else errors.push(`tools.${name}: no tool named ${JSON.stringify(name)} exists (known: ${known.join(", ")})`);
  }
  for (const [name, operations] of Object.entries(loaded.operationRisk)) {
    const ops = tools.get(name);
    if (ops === undefined) continue;
    for (const op of Object.keys(operations)) {
      if (!ops.includes(op)) errors.push(`tools.${name}.operations.${op}: ${name} has no operation ${JSON.stringify(op)} (operations: ${ops.join(", ") || "none"})`);
    }
  }
  for (const name of loaded.agent?.tools ?? []) {
    if (!tools.has(name)) errors.push(`agent.tools: no tool named ${JSON.stringify(name)} exists`);
  }
  (loaded.approvers ?? []).forEach((rule, index) => {
    const matches = compileToolMatcher({ tool: rule.tool, mode: "ask" }, `approvers[${index}]`);
    if (!known.some(matches)) errors.push(`approvers[${index}]${rule.id === undefined ? "" : ` (${rule.id})`} names tool ${JSON.stringify(rule.tool)}, which matches no known tool (known: ${known.join(", ")}); the rule would never apply`);
  });
  return errors;
}

/**
 * A glob key under `tools:` (`mcp__*`). Its mainArgument is what a compact rule written with that
 * exact tool text reads (parseCompactRule), and the rule fires on every tool the glob matches: an
 * error only when the glob, matched as a rule's tool pattern is (compileToolMatcher), matches no
 * known tool. Risk and operation risk are looked up by exact tool name (PermissionPolicy.riskOf,
 * the guard's declaredRisk), so under a glob key they apply to no tool: always an error.
 */
function globKeyErrors(loaded: LoadedPolicy, name: string, known: readonly string[]): string[] {
  const errors: string[] = [];
  if (Object.hasOwn(loaded.toolRisk, name)) errors.push(`tools.${name}.risk: risk is looked up by exact tool name, so a glob key applies to no tool; name each tool`);
  if (Object.hasOwn(loaded.operationRisk, name)) errors.push(`tools.${name}.operations: operation risk is looked up by exact tool name, so a glob key applies to no tool; name each tool`);
  if (Object.hasOwn(loaded.mainArguments, name)) {
    const matches = compileToolMatcher({ tool: name, mode: "deny" }, `tools.${name}`);
    if (!known.some(matches)) errors.push(`tools.${name}.mainArgument: the glob ${JSON.stringify(name)} matches no known tool (known: ${known.join(", ")})`);
  }
  return errors;
}

/** Without the tools: rules naming a tool the policy declares nowhere (tools:, agent.tools) may be typos. */
function undeclaredToolWarnings(loaded: LoadedPolicy, infos: readonly RuleInfo[]): string[] {
  const declared = [...new Set([...Object.keys(loaded.toolRisk), ...Object.keys(loaded.operationRisk), ...Object.keys(loaded.mainArguments), ...(loaded.agent?.tools ?? []), ...loaded.toolRules.map((rule) => rule.tool)])];
  if (declared.length === 0) return [];
  const names = new ToolNames(declared);
  return infos
    .filter((info) => names.matching(info.rule, info.matches).length === 0)
    .map((info) => `${info.label} names tool ${JSON.stringify(info.rule.tool)}, which the policy declares nowhere (tools:, agent.tools, tool_rules); check it against the real tools with --graph NAME`);
}

/** A policy risk lower than the tool's own (or its operation's) is an error unless tools.<name>.lowerRisk says so. */
function loweringErrors(loaded: LoadedPolicy, declared: DeclaredRisks): string[] {
  const errors: string[] = [];
  const allowed = new Set(loaded.lowerRisk);
  for (const [name, own] of declared) {
    if (allowed.has(name)) continue;
    const policyRisk = loaded.toolRisk[name];
    const policyOps = loaded.operationRisk[name] ?? {};
    if (policyRisk !== undefined && own.risk !== undefined && isLowerRisk(policyRisk, own.risk)) {
      errors.push(`tools.${name}.risk: ${policyRisk} is lower than the ${own.risk} risk ${name} declares; write lowerRisk: true to mean it`);
    }
    // A tool-level policy risk never lowers an operation's own risk (the higher counts); an operation-level one could.
    for (const [op, opRisk] of Object.entries(own.operationRisk)) {
      const policyOp = policyOps[op];
      if (policyOp !== undefined && isLowerRisk(policyOp, opRisk)) {
        errors.push(`tools.${name}.operations.${op}: ${policyOp} is lower than the ${opRisk} risk ${name} declares for ${op}; write lowerRisk: true to mean it`);
      }
    }
  }
  return errors;
}

/**
 * Checks a loaded policy: tool rules through the rules validator (conflicts, cycles, unknown tools
 * and operations), and permission rules that can never fire, duplicate ids and unknown tool names.
 */
export function checkPolicy(
  loaded: LoadedPolicy,
  tools?: ToolCatalog,
  declared?: DeclaredRisks,
  toolArguments?: ToolArguments,
  /** The tools' input schemas: tool rules' prefilled arguments are checked against them. */
  schemas?: ReadonlyMap<string, ToolInputSchema>,
): PolicyCheckResult {
  return examine(loaded, tools, declared, toolArguments, schemas, true);
}

/**
 * `checkPolicy`; with `warnings` false only what can be an error is judged (a guard being built
 * refuses on errors alone): no shadowed rules, duplicate ids, kind-blind patterns, provenance
 * warnings or compact readings beyond those an error needs.
 */
function examine(
  loaded: LoadedPolicy,
  tools: ToolCatalog | undefined,
  declared: DeclaredRisks | undefined,
  toolArguments: ToolArguments | undefined,
  schemas: ReadonlyMap<string, ToolInputSchema> | undefined,
  withWarnings: boolean,
): PolicyCheckResult {
  const errors: string[] = [];
  const warnings: string[] = [];
  for (const issue of validateRules(loaded.toolRules, tools, { schemas })) {
    (issue.severity === "error" ? errors : warnings).push(`tool_rules: [${issue.code}] ${issue.message}`);
  }
  const infos = ruleInfos(loaded.permissions);
  const seen = new Map<string, number>();
  if (withWarnings) for (const info of infos) {
    if (info.rule.id === undefined) continue;
    const first = seen.get(info.rule.id);
    if (first === undefined) seen.set(info.rule.id, info.index);
    else warnings.push(`${info.label}: duplicate id, already used by permissions[${first}]; decisions and audit records could not tell them apart`);
  }
  errors.push(...principalNameErrors(loaded));
  if (withWarnings && loaded.notRead !== undefined && loaded.notRead.length > 0) {
    warnings.push(`${loaded.source}: read as Claude Code's settings (its permission lists and modes); ${loaded.notRead.join(", ")} configure Claude Code itself and are not read by the guard`);
  }
  if (withWarnings && loaded.settingsNotes !== undefined) for (const note of loaded.settingsNotes) warnings.push(note.startsWith("permissions.") ? `${loaded.source}: ${note}` : note);
  const names = tools === undefined ? undefined : new ToolNames([...tools.keys()]);
  if (withWarnings) warnings.push(...shadowWarnings(infos, loaded.precedence, tools, names));
  if (withWarnings) warnings.push(...provenanceWarnings(loaded.permissions, loaded.provenance, tools));
  if (tools !== undefined && names !== undefined) errors.push(...catalogErrors(loaded, infos, tools, names));
  else if (withWarnings) warnings.push(...undeclaredToolWarnings(loaded, infos));
  if (declared !== undefined) errors.push(...loweringErrors(loaded, declared));
  if (names !== undefined && toolArguments !== undefined) {
    for (let i = 0; i < infos.length; i++) {
      const found = whereFieldErrors(infos[i]!, names, toolArguments);
      if (found.length > 0) errors.push(...found);
    }
  }
  if (withWarnings) for (const info of infos) warnings.push(...kindBlindWarnings(info, loaded));
  const readings: string[] = [];
  // The compact readings: shown with the warnings; without them, needed only to judge their fields against the tools.
  const readsCompact = withWarnings || (names !== undefined && toolArguments !== undefined);
  // A compact string reads the same wherever it is written (its label only names it in an error): read once per text.
  const compacts = new Map<string, CompactReading>();
  for (let i = 0; i < infos.length && readsCompact; i++) {
    const info = infos[i]!;
    const text = info.rule.rule;
    if (text === undefined) continue;
    // A rule read from its compact string holds the conditions it was read as: when none of them can
    // read an argument its tools lack, there is no error to name (and, without warnings, nothing to show).
    if (!withWarnings && names !== undefined && toolArguments !== undefined && info.rule.where !== undefined && !someUnread(info.rule.where, matchedTools(info, names, toolArguments))) continue;
    let reading = compacts.get(text);
    if (reading === undefined) compacts.set(text, (reading = parseCompactRule(text, info.label, loaded.mainArguments)));
    if (withWarnings) readings.push(`${info.label}: ${reading.explanation}`);
    if (names !== undefined && toolArguments !== undefined) {
      const found = compactFieldErrors(info, reading, names, toolArguments);
      if (found.length > 0) errors.push(...found);
    }
    else if (reading.mainArgument?.source === "convention") {
      warnings.push(
        `${info.label}: ${info.rule.rule} reads the argument ${JSON.stringify(reading.mainArgument.field)} by Claude Code's convention for ${reading.tool}; if your ${reading.tool} tool names it differently the rule never fires: check it against the real tools with --graph NAME, or declare tools.${reading.tool}.mainArgument`,
      );
    }
  }
  return { errors, warnings, readings };
}

const STRING_MATCHERS = ["equals", "in", "prefix", "glob", "regex"] as const;
const URL_LIKE_RE = /^\^?(?:[a-z][a-z0-9+.-]*:\/\/|https?:)/i;
const PATH_LIKE_RE = /^\^?(?:\/|\.{1,2}\/|~\/|\*\*\/)|\/\*\*$|^[\w.-]+\/(?:[\w.*-]+\/?)*$/;
const COMMAND_LIKE_RE = /^\^?(?:\\s\*)?(?:sudo|rm|git|curl|wget|bash|sh|zsh|npm|npx|pnpm|yarn|kubectl|docker|chmod|chown|dd|mkfs|ssh|scp|rsync|python3?|node|find|xargs|eval)(?:\s|\\s|$)/;

/** The kind a pattern reads like, for a field of no kind. */
function looksLike(pattern: string): "url" | "path" | "command" | undefined {
  if (URL_LIKE_RE.test(pattern)) return "url";
  if (COMMAND_LIKE_RE.test(pattern)) return "command";
  if (PATH_LIKE_RE.test(pattern)) return "path";
  return undefined;
}

/** The kinded matcher to write instead of a plain one (`{ prefix: "/w/" }` → `{ path: "/w/**" }`). */
function kindedForm(kind: "url" | "path" | "command", key: string, pattern: string): string {
  if (key === "regex") return `{ ${kind}: ... }`;
  const base = key === "prefix" ? (kind === "command" ? `${pattern.trim()}:*` : `${pattern.replace(/\/*$/, "")}/**`) : pattern;
  return `{ ${kind}: ${JSON.stringify(base)} }`;
}

/**
 * A plain string matcher on a field with no argument kind (declared in tools.X.fields, by the tool,
 * or by its conventional name) whose pattern reads like a path, a URL or a command compares the
 * text as written: `docs/../secrets/x`, `http://[::ffff:a9fe:a9fe]/` or `echo ok; rm -rf /`
 * slip past it. Named with the kinded form to write instead.
 */
function kindBlindWarnings(info: RuleInfo, loaded: LoadedPolicy): string[] {
  const warnings: string[] = [];
  const declared = { ...(loaded.fieldKinds?.[info.rule.tool] ?? {}) };
  const main = loaded.mainArguments[info.rule.tool];
  if (main !== undefined) declared[main.field] = main.kind;
  for (const [selector, condition] of Object.entries(info.rule.where ?? {})) {
    if (Object.hasOwn(declared, selector) || typeof condition !== "object" || condition === null) continue;
    const c = condition as Record<string, unknown>;
    const key = STRING_MATCHERS.find((name) => c[name] !== undefined);
    if (key === undefined) continue;
    const patterns = (key === "in" ? (c.in as unknown[]) : [c[key]]).filter((p): p is string => typeof p === "string");
    if (conventionalKind(selector, patterns) !== undefined) continue;
    const pattern = patterns.find((p) => looksLike(p) !== undefined);
    const kind = pattern === undefined ? undefined : looksLike(pattern);
    if (pattern === undefined || kind === undefined) continue;
    warnings.push(
      `${info.label}: where ${JSON.stringify(selector)} ${key} ${JSON.stringify(pattern)} compares the text as written, but it reads like a ${kind}; write ${kindedForm(kind, key, pattern)} or declare tools.${info.rule.tool}.fields.${selector}: ${kind} (then every spelling the ${kind === "path" ? "tool resolves to the same file" : kind === "url" ? "client connects to the same host" : "shell runs the same way"} is read alike)`,
    );
  }
  return warnings;
}

/** Whether a tool with these argument names has `field` (a topArgument), comparing names as the policy compares keys (normalised: fullwidth, look-alike letters). */
function hasArgument(args: readonly string[], field: string): boolean {
  let known = argumentAnswers.get(args);
  if (known === undefined) argumentAnswers.set(args, (known = new Map()));
  let has = known.get(field);
  if (has === undefined) {
    const wanted = normalizeString(field);
    has = args.some((arg) => arg === field || normalizeString(arg) === wanted);
    known.set(field, has);
  }
  return has;
}

/** `hasArgument` answers per argument list (a tool's, as the check was handed it) and field: many rules read the same fields of the same tools. */
const argumentAnswers = new WeakMap<readonly string[], Map<string, boolean>>();

/** `topArgument` per selector text (a pure function of it): many rules repeat a selector. */
function topArgumentOf(selector: string): string | undefined {
  if (topArguments.has(selector)) return topArguments.get(selector);
  const field = topArgument(selector);
  if (topArguments.size >= 10_000) topArguments.clear();
  topArguments.set(selector, field);
  return field;
}

const topArguments = new Map<string, string | undefined>();

/** The tools a rule matches (by name) and the names of each one's top-level arguments (absent: its schema takes any argument). */
interface MatchedTools {
  names: readonly string[];
  args: ToolArguments;
}

function matchedTools(info: RuleInfo, names: ToolNames, toolArguments: ToolArguments): MatchedTools {
  return { names: toolsOf(info, names), args: toolArguments };
}

/** True when a condition can hold with its field absent (`not`, `exists: false`): such a rule fires on every call of a tool lacking the field. */
function holdsWhenAbsent(condition: unknown): boolean {
  if (typeof condition !== "object" || condition === null) return false;
  const c = condition as Record<string, unknown>;
  if ("not" in c) return !holdsWhenAbsent(c.not);
  if (Array.isArray(c.anyOf)) return c.anyOf.some(holdsWhenAbsent);
  if (Array.isArray(c.allOf)) return c.allOf.every(holdsWhenAbsent);
  return c.exists === false;
}

const LISTED_TOOLS = 5;
const LISTED_ARGUMENTS = 8;

function bounded(items: readonly string[], max: number, more: (n: number) => string): string {
  return items.length <= max ? items.join(", ") : `${items.slice(0, max).join(", ")}, ${more(items.length - max)}`;
}

/** Whether one of the matched tools has `field` or takes any argument; kept per matched list (rules of one tool pattern share it: ToolNames.matching) and field. */
function someToolReads(matched: MatchedTools, field: string): boolean {
  let byField = readers.get(matched.names);
  if (byField === undefined) readers.set(matched.names, (byField = new Map()));
  let reads = byField.get(field);
  if (reads === undefined) {
    reads = matched.names.some((name) => {
      const args = matched.args.get(name);
      return args === undefined || hasArgument(args, field);
    });
    byField.set(field, reads);
  }
  return reads;
}

/** `someToolReads` answers. A matched list belongs to one check (its ToolNames), so to one map of tool arguments. */
const readers = new WeakMap<readonly string[], Map<string, boolean>>();

/**
 * The one judgement of a rule's condition against the tools it matches (compact rules and `where`
 * conditions alike): the condition on `selector` is an error only when the selector starts at a plain
 * key (topArgument: not `*`, not an index), the rule matches some tool, none of those tools has the
 * argument (names compared normalised), and none takes any argument (an open schema may have it).
 * A rule that can fire on one of its tools is not a typo, even when its other tools lack the argument.
 * Returns the message (`LABEL: READS, but ...; EFFECT: FIX`; `reads` is given the argument read), naming the tools and their arguments, or undefined.
 */
/** Whether a selector of `where` may read an argument none of the matched tools has (`mayBeUnread`). */
function someUnread(where: Readonly<Record<string, unknown>>, matched: MatchedTools): boolean {
  for (const selector in where) if (Object.hasOwn(where, selector) && mayBeUnread(selector, matched)) return true;
  return false;
}

/** False when `unreadArgumentError` surely finds nothing for `selector` (it reads no plain key, the rule matches no tool, or a tool has the argument): spares building its message parts. */
function mayBeUnread(selector: string, matched: MatchedTools): boolean {
  const field = topArgumentOf(selector);
  return field !== undefined && matched.names.length > 0 && !someToolReads(matched, field);
}

function unreadArgumentError(label: () => string, reads: (field: string) => string, selector: string, condition: unknown, mode: PermissionMode, matched: MatchedTools, fix: string): string | undefined {
  const field = topArgumentOf(selector);
  if (field === undefined || matched.names.length === 0 || someToolReads(matched, field)) return undefined;
  const closed = matched.names.map((name) => ({ name, args: matched.args.get(name)! }));
  const only = closed.length === 1 ? closed[0] : undefined;
  const lacking =
    only !== undefined
      ? `tool ${only.name} has no argument ${JSON.stringify(field)} (its arguments: ${only.args.join(", ") || "none"})`
      : `none of its tools (${bounded(closed.map((tool) => tool.name), LISTED_TOOLS, (n) => `and ${n} more`)}) has an argument ${JSON.stringify(field)}`;
  const effect = holdsWhenAbsent(condition) ? `the condition would hold for every call, so the rule would ${mode} them all` : "the rule would never fire";
  const theirs =
    only !== undefined
      ? ""
      : ` (${closed
          .slice(0, LISTED_TOOLS)
          .map((tool) => `${tool.name} takes ${tool.args.length === 0 ? "no arguments" : bounded(tool.args, LISTED_ARGUMENTS, (n) => `${n} more`)}`)
          .join("; ")}${closed.length > LISTED_TOOLS ? `; ${closed.length - LISTED_TOOLS} more tools` : ""})`;
  return `${label()}: ${reads(field)}, but ${lacking}; ${effect}: ${fix}${theirs}`;
}

/**
 * A compact rule reading an argument none of its tools has would never fire: with the tools known,
 * that is an error, judged by unreadArgumentError as `where` conditions are.
 */
function compactFieldErrors(info: RuleInfo, reading: CompactReading, names: ToolNames, toolArguments: ToolArguments): readonly string[] {
  if (reading.where === undefined) return NO_ERRORS;
  const matched = matchedTools(info, names, toolArguments);
  const main = reading.mainArgument;
  const why = main === undefined ? "" : main.source === "policy" ? ` (tools.${reading.tool}.mainArgument)` : ` (Claude Code's convention for ${reading.tool})`;
  const fix = main === undefined ? `name one of its arguments` : `declare tools.${reading.tool}.mainArgument: { field: NAME, kind: ${main.kind} } or write ${reading.tool}(FIELD:PATTERN)`;
  let errors: string[] | undefined;
  for (const [selector, condition] of Object.entries(reading.where)) {
    const error = unreadArgumentError(() => info.label, () => `${info.rule.rule ?? ""} reads the argument ${JSON.stringify(selector)}${why}`, selector, condition, info.rule.mode, matched, fix);
    if (error !== undefined) (errors ??= []).push(error);
  }
  return errors ?? NO_ERRORS;
}

/** What a rule without errors adds to the list. */
const NO_ERRORS: readonly string[] = Object.freeze([]);

/**
 * A `where` condition reading an argument none of the rule's tools has never sees a value: the rule
 * would never fire (or, under `not` / `exists: false`, fire on every call). With the tools known,
 * that is an error, judged by unreadArgumentError.
 */
function whereFieldErrors(info: RuleInfo, names: ToolNames, toolArguments: ToolArguments): readonly string[] {
  const where = info.rule.where;
  if (info.rule.rule !== undefined || where === undefined) return NO_ERRORS;
  const matched = matchedTools(info, names, toolArguments);
  let errors: string[] | undefined;
  for (const selector in where) {
    if (!Object.hasOwn(where, selector) || !mayBeUnread(selector, matched)) continue;
    const error = unreadArgumentError(() => info.label, (field) => `where ${JSON.stringify(selector)} reads the argument ${JSON.stringify(field)}`, selector, where[selector], info.rule.mode, matched, "name one of its arguments");
    if (error !== undefined) (errors ??= []).push(error);
  }
  return errors ?? NO_ERRORS;
}

/** Errors of `checkPolicy` as one PolicyError (for guardFromPolicy), or nothing. */
export function assertPolicyFits(loaded: LoadedPolicy, tools: ToolCatalog, declared: DeclaredRisks | undefined, toolArguments?: ToolArguments): void {
  const { errors } = examine(loaded, tools, declared, toolArguments, undefined, false);
  if (errors.length > 0) throw new PolicyError(loaded.source, "", errors.length === 1 ? (errors[0] ?? "") : `\n  ${errors.join("\n  ")}`);
}

/**
 * A PermissionPolicy handed to a guard, checked against the guard's tools as `policy check --graph`
 * checks a file: rules naming no known tool, and compact rules or `where` conditions reading an argument the tools lack,
 * are errors (one PolicyError listing them); warnings (shadowed rules, …) do not stop the build.
 */
export function assertPermissionsFit(policy: PermissionPolicy, tools: ToolCatalog, toolArguments: ToolArguments): void {
  assertPolicyFits(loadedPolicyOf(policy), tools, undefined, toolArguments);
}

function describePermission(rule: PermissionRule): string {
  const parts = [rule.mode.padEnd(5), rule.id ?? "(no id)", `tool ${rule.toolRegex === true ? `/${rule.tool}/` : rule.tool}`];
  if (rule.args !== undefined) parts.push(`args ~ /${rule.args}/`);
  for (const [selector, matcher] of Object.entries(rule.where ?? {})) parts.push(`${selector} ${JSON.stringify(matcher)}`);
  for (const [name, condition] of Object.entries(rule.principal ?? {})) parts.push(`principal ${name} ${JSON.stringify(condition)}`);
  if (rule.reason !== undefined) parts.push(`— ${rule.reason}`);
  return parts.join("  ");
}

/** A readable summary: permission rules in the order they are tried, risk defaults, and the tool-rule plan. */
export function planPolicy(loaded: LoadedPolicy): string {
  const lines = [`Policy ${loaded.source} (precedence: ${loaded.precedence})`, "", "Permission rules, in the order they are tried:"];
  const ordered = permissionPolicy(loaded).effectiveOrder();
  if (ordered.length === 0) lines.push("  (none)");
  ordered.forEach((rule, i) => lines.push(`  ${i + 1}. ${describePermission(rule)}`));
  const shadows = loaded.permissions.filter((rule) => rule.shadow === true);
  if (shadows.length > 0) lines.push("", "Shadow rules (decided and audited on every call, never enforced):", ...shadows.map((rule) => `  - ${describePermission(rule)}`));
  if (loaded.shadow !== undefined) lines.push("", `Shadow policy (decided and audited on every call, never enforced): ${loaded.shadow.source}`);
  const modes = { ...DEFAULT_RISK_MODES, ...loaded.riskModes };
  lines.push("", `When no rule matches, the tool's risk decides (${loaded.defaultRisk === undefined ? "a tool with no declared risk asks" : `default risk ${loaded.defaultRisk}`}):`);
  lines.push(`  ${Object.entries(modes).map(([risk, mode]) => `${risk} → ${mode}`).join(", ")}`);
  const risks = Object.entries(loaded.toolRisk);
  if (risks.length > 0) lines.push(`  tools: ${risks.map(([tool, risk]) => `${tool}=${risk}`).join(", ")}`);
  lines.push("", "Tool rules:");
  if (loaded.toolRules.length === 0) {
    lines.push("  (none)");
    return lines.join("\n");
  }
  const plan = executionPlan(loaded.toolRules);
  const list = (values: readonly string[]) => (values.length > 0 ? values.join(", ") : "-");
  lines.push(`  initial calls: ${list(plan.initialTools)}`);
  for (const [tool, deps] of Object.entries(plan.dependencies)) lines.push(`  ${tool} after: ${deps.join(", ")}`);
  lines.push(`  terminal: ${list(plan.terminalTools)}`, `  required before exit: ${list(plan.exitRequirements)}`);
  for (const [tool, limit] of Object.entries(plan.maxCalls)) lines.push(`  ${tool}: at most ${limit.max} per ${limit.scope}`);
  for (const [tool, ops] of Object.entries(plan.allowedOperations)) lines.push(`  ${tool} operations: ${ops.join(", ")}`);
  // Rules the plan's data does not show (timing, exclusive groups, loop control), as the model is told them.
  const PLANNED = new Set(["InitialCall", "MustFollow", "MustPrecede", "Terminal", "TerminalIf", "RequiredForExit", "RequiredForExitIf", "MaxCalls", "AllowedOperations"]);
  for (const rule of normaliseRules(parseToolRules(loaded.toolRules))) {
    if (!PLANNED.has(rule.type)) lines.push(`  ${usageSentence(rule)}`);
  }
  lines.push("", plan.mermaid);
  return lines.join("\n");
}
