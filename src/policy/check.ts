import picomatch from "picomatch";
import { normaliseRules } from "../rules/normalize.js";
import { executionPlan } from "../rules/plan.js";
import { parseToolRules } from "../rules/schema.js";
import { usageSentence } from "../rules/usage.js";
import { provenanceWarnings } from "../provenance/check.js";
import { validateRules } from "../rules/validate.js";
import type { LoadedPolicy } from "./file.js";
import { permissionPolicy } from "./file.js";
import { compileToolMatcher, DEFAULT_RISK_MODES, type PermissionRule } from "./permissions.js";
import type { PermissionMode } from "./types.js";

export interface PolicyCheckResult {
  /** The policy cannot work as written (from the tool-rule validator). */
  errors: string[];
  /** Rules that can never fire, duplicate ids, names of tools that do not exist. */
  warnings: string[];
}

/** Tool name → its operations (empty when it has none), as ToolRegistry.catalog() gives it. */
export type ToolCatalog = ReadonlyMap<string, readonly string[]>;

const MODE_RANK: Readonly<Record<PermissionMode, number>> = { deny: 0, ask: 1, allow: 2 };
const MATCH_ALL_GLOBS = new Set(["*", "**"]);

interface RuleInfo {
  index: number;
  rule: PermissionRule;
  label: string;
  matches: (tool: string) => boolean;
  unconditional: boolean;
}

function labelOf(rule: PermissionRule, index: number): string {
  return rule.id === undefined ? `permissions[${index}]` : `permissions[${index}] (${rule.id})`;
}

/** Whether every call `inner`'s tool pattern can match is also matched by `outer`'s. */
function covers(outer: RuleInfo, inner: RuleInfo, tools: ToolCatalog | undefined): boolean {
  if (tools !== undefined) {
    const innerTools = [...tools.keys()].filter(inner.matches);
    if (innerTools.length > 0) return innerTools.every(outer.matches);
  }
  const a = outer.rule;
  const b = inner.rule;
  if (a.toolRegex !== true && MATCH_ALL_GLOBS.has(a.tool)) return true;
  if (a.toolRegex === true && a.tool === ".*") return true;
  if (a.tool === b.tool && (a.toolRegex === true) === (b.toolRegex === true)) return true;
  // A literal tool name is covered when the outer pattern matches it.
  return b.toolRegex !== true && !picomatch.scan(b.tool).isGlob && outer.matches(b.tool);
}

function shadowWarnings(infos: readonly RuleInfo[], precedence: LoadedPolicy["precedence"], tools: ToolCatalog | undefined): string[] {
  const warnings: string[] = [];
  for (const inner of infos) {
    const shadow = infos.find((outer) => {
      if (outer === inner || !outer.unconditional || !covers(outer, inner, tools)) return false;
      if (precedence === "first-match") return outer.index < inner.index;
      return MODE_RANK[outer.rule.mode] < MODE_RANK[inner.rule.mode];
    });
    if (shadow === undefined) continue;
    const why =
      precedence === "first-match"
        ? `${shadow.label} comes first and matches every call it could match (first-match)`
        : `${shadow.label} (${shadow.rule.mode}, no conditions) matches every call it could match and ${shadow.rule.mode} wins over ${inner.rule.mode}`;
    warnings.push(`${inner.label} can never fire: ${why}`);
  }
  return warnings;
}

function catalogWarnings(loaded: LoadedPolicy, infos: readonly RuleInfo[], tools: ToolCatalog): string[] {
  const warnings: string[] = [];
  const known = [...tools.keys()];
  for (const info of infos) {
    if (!known.some(info.matches)) warnings.push(`${info.label} names tool ${JSON.stringify(info.rule.tool)}, which matches no known tool (known: ${known.join(", ")})`);
  }
  for (const name of Object.keys(loaded.toolRisk)) {
    if (!tools.has(name)) warnings.push(`tools.${name}: no tool named ${JSON.stringify(name)} exists`);
  }
  for (const name of loaded.agent?.tools ?? []) {
    if (!tools.has(name)) warnings.push(`agent.tools: no tool named ${JSON.stringify(name)} exists`);
  }
  return warnings;
}

/**
 * Checks a loaded policy: tool rules through the rules validator (conflicts, cycles, unknown tools
 * and operations), and permission rules that can never fire, duplicate ids and unknown tool names.
 */
export function checkPolicy(loaded: LoadedPolicy, tools?: ToolCatalog): PolicyCheckResult {
  const errors: string[] = [];
  const warnings: string[] = [];
  for (const issue of validateRules(loaded.toolRules, tools)) {
    (issue.severity === "error" ? errors : warnings).push(`tool_rules: [${issue.code}] ${issue.message}`);
  }
  const infos: RuleInfo[] = loaded.permissions.map((rule, index) => ({
    index,
    rule,
    label: labelOf(rule, index),
    matches: compileToolMatcher(rule, `permissions[${index}]`),
    unconditional: rule.args === undefined && Object.keys(rule.where ?? {}).length === 0 && rule.after === undefined && rule.budget === undefined,
  }));
  const seen = new Map<string, number>();
  for (const info of infos) {
    if (info.rule.id === undefined) continue;
    const first = seen.get(info.rule.id);
    if (first === undefined) seen.set(info.rule.id, info.index);
    else warnings.push(`${info.label}: duplicate id, already used by permissions[${first}]; decisions and audit records could not tell them apart`);
  }
  warnings.push(...shadowWarnings(infos, loaded.precedence, tools));
  if (tools !== undefined) warnings.push(...catalogWarnings(loaded, infos, tools));
  warnings.push(...provenanceWarnings(loaded.permissions, loaded.provenance, tools));
  return { errors, warnings };
}

function describePermission(rule: PermissionRule): string {
  const parts = [rule.mode.padEnd(5), rule.id ?? "(no id)", `tool ${rule.toolRegex === true ? `/${rule.tool}/` : rule.tool}`];
  if (rule.args !== undefined) parts.push(`args ~ /${rule.args}/`);
  for (const [selector, matcher] of Object.entries(rule.where ?? {})) parts.push(`${selector} ${JSON.stringify(matcher)}`);
  if (rule.reason !== undefined) parts.push(`— ${rule.reason}`);
  return parts.join("  ");
}

/** A readable summary: permission rules in the order they are tried, risk defaults, and the tool-rule plan. */
export function planPolicy(loaded: LoadedPolicy): string {
  const lines = [`Policy ${loaded.source} (precedence: ${loaded.precedence})`, "", "Permission rules, in the order they are tried:"];
  const ordered = permissionPolicy(loaded).effectiveOrder();
  if (ordered.length === 0) lines.push("  (none)");
  ordered.forEach((rule, i) => lines.push(`  ${i + 1}. ${describePermission(rule)}`));
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
