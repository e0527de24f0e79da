import { dependencyEdges, dependencyMap, findCycles } from "./graph.js";
import { defaultRuleId, normaliseRules, structuralProblems, WILDCARD, WILDCARD_UNSUPPORTED, type NormalisedRule } from "./normalize.js";
import { ToolRuleSchema } from "./schema.js";
import type { RuleValidationIssue, ToolRule } from "./types.js";
import { checkRequiredTools, type RequiredTool } from "../sources/requirements.js";
import { RulesError } from "../errors/index.js";
import type { z } from "zod";

type Catalog = ReadonlyMap<string, readonly string[]>;

/** A tool's input schema as prefilled rule arguments are checked against it (ToolRegistry.inputSchemas). */
export interface ToolInputSchema {
  /** The zod schema a call's arguments are parsed with. */
  schema: z.ZodType;
  /** Its top-level argument names; undefined when it takes any argument (`z.looseObject`). */
  arguments: readonly string[] | undefined;
}

/** Rule types that do nothing (or only something trivial) without `conditions`. */
const NEEDS_CONDITIONS = new Set(["MustFollow", "MustPrecede", "ExclusiveGroup", "TerminalIf", "RequiredForExitIf"]);

function issue(severity: RuleValidationIssue["severity"], code: string, message: string, ruleIds: string[]): RuleValidationIssue {
  return { severity, code, message, ruleIds: [...new Set(ruleIds)] };
}

function parseEach(rules: readonly unknown[], issues: RuleValidationIssue[]): NormalisedRule[] {
  const valid: ToolRule[] = [];
  rules.forEach((raw, index) => {
    const parsed = ToolRuleSchema.safeParse(raw);
    const shape = (raw ?? {}) as Partial<ToolRule>;
    const id = typeof shape.id === "string" ? shape.id : defaultRuleId({ type: shape.type ?? "?", tool: shape.tool ?? "?" } as ToolRule, index);
    if (!parsed.success) {
      const detail = parsed.error.issues.map((i) => `${i.path.join(".") || "(rule)"}: ${i.message}`).join("; ");
      issues.push(issue("error", "invalid-rule", `rule ${id} is malformed: ${detail}`, [id]));
      return;
    }
    valid.push({ ...parsed.data, id });
  });
  const counts = new Map<string, number>();
  for (const rule of valid) counts.set(rule.id!, (counts.get(rule.id!) ?? 0) + 1);
  for (const [id, count] of counts) {
    if (count > 1) issues.push(issue("error", "duplicate-id", `rule id ${id} is used by ${count} rules; ids must be unique`, [id]));
  }
  // Strip ranks: validation works on declaration order.
  return normaliseRules(valid).map(({ rank: _rank, ...rule }) => rule as NormalisedRule);
}

function checkWildcardsAndConditions(rules: readonly NormalisedRule[], issues: RuleValidationIssue[]): void {
  for (const rule of rules) {
    if (rule.tool === WILDCARD && WILDCARD_UNSUPPORTED.has(rule.type)) {
      issues.push(issue("error", "wildcard", `rule ${rule.id}: ${rule.type} needs a concrete tool; "*" is only meaningful for rules that apply to each tool on its own`, [rule.id]));
    }
    if (rule.conditions.includes(WILDCARD)) {
      issues.push(issue("error", "wildcard", `rule ${rule.id}: conditions must name tools; "*" is not allowed there`, [rule.id]));
    }
    if (NEEDS_CONDITIONS.has(rule.type) && rule.conditions.length === 0) {
      issues.push(issue("warning", "no-conditions", `rule ${rule.id}: ${rule.type} without conditions has no effect${rule.type === "TerminalIf" ? " beyond Terminal" : ""}`, [rule.id]));
    }
  }
}

/** Every tool a rule names: its tool, conditions, children, output targets and initial alternatives. */
function toolsNamedBy(rule: NormalisedRule): string[] {
  const extra =
    rule.type === "ChildTools" || rule.type === "ParentTools"
      ? rule.children
      : rule.type === "ConditionalNext"
        ? [...Object.values(rule.outputMapping), ...(rule.defaultChild ? [rule.defaultChild] : [])]
        : rule.type === "InitialCall"
          ? (rule.alternatives ?? [])
          : [];
  return [...new Set([rule.tool, ...rule.conditions, ...extra])];
}

function checkCatalog(rules: readonly NormalisedRule[], catalog: Catalog, issues: RuleValidationIssue[]): void {
  const known = [...catalog.keys()].join(", ") || "none";
  for (const rule of rules) {
    for (const tool of toolsNamedBy(rule)) {
      if (tool === WILDCARD || catalog.has(tool)) continue;
      issues.push(issue("error", "unknown-tool", `rule ${rule.id} names unknown tool ${tool}; known tools: ${known}`, [rule.id]));
    }
    if (rule.type !== "AllowedOperations" || rule.tool === WILDCARD) continue;
    const declared = catalog.get(rule.tool);
    if (declared === undefined) continue;
    if (declared.length === 0) {
      issues.push(issue("error", "conflict", `rule ${rule.id}: AllowedOperations on ${rule.tool}, which has no operations`, [rule.id]));
      continue;
    }
    for (const op of rule.operations) {
      if (!declared.includes(op)) {
        issues.push(issue("error", "unknown-operation", `rule ${rule.id}: ${rule.tool} has no operation ${op}; its operations: ${declared.join(", ")}`, [rule.id]));
      }
    }
  }
}

function rulesOn(rules: readonly NormalisedRule[], tool: string, type: ToolRule["type"]): NormalisedRule[] {
  return rules.filter((r) => r.type === type && (r.tool === tool || (r.tool === WILDCARD && !r.conditions.includes(tool))));
}

/** Tools a MaxCalls 0 rule disables (named ones; "*" disables every tool). */
function disabledTools(rules: readonly NormalisedRule[], tools: Iterable<string>): Map<string, string> {
  const disabled = new Map<string, string>();
  for (const tool of tools) {
    const rule = rulesOn(rules, tool, "MaxCalls").find((r) => r.type === "MaxCalls" && r.max === 0);
    if (rule) disabled.set(tool, rule.id);
  }
  return disabled;
}

/**
 * A run limit above the thread limit on the same calls can never be reached (the thread limit stops
 * them first): refused, as LangChain's toolCallLimitMiddleware refuses `runLimit > threadLimit`.
 */
function checkLimitScopes(rules: readonly NormalisedRule[], issues: RuleValidationIssue[]): void {
  const groups = new Map<string, { run: NormalisedRule[]; thread: NormalisedRule[] }>();
  for (const rule of rules) {
    if (rule.type !== "MaxCalls" && rule.type !== "MaxTotalCalls") continue;
    // MaxTotalCalls counts every call whatever its tool; MaxCalls counts its tool's (each tool's for "*").
    const key = rule.type === "MaxTotalCalls" ? rule.type : JSON.stringify([rule.type, rule.tool]);
    const group = groups.get(key) ?? { run: [], thread: [] };
    group[rule.scope === "thread" ? "thread" : "run"].push(rule);
    groups.set(key, group);
  }
  for (const { run, thread } of groups.values()) {
    for (const perRun of run) {
      for (const perThread of thread) {
        const runMax = (perRun as { max: number }).max;
        const threadMax = (perThread as { max: number }).max;
        if (runMax <= threadMax) continue;
        const calls = perRun.type === "MaxTotalCalls" ? "calls to all tools together" : perRun.tool === WILDCARD ? "calls to each tool" : `calls to ${perRun.tool}`;
        issues.push(
          issue(
            "error",
            "limit-scope",
            `rule ${perRun.id} allows ${runMax} ${calls} per run, more than rule ${perThread.id} allows per thread (${threadMax}): the run limit can never be reached. Make the run limit at most ${threadMax}`,
            [perRun.id, perThread.id],
          ),
        );
      }
    }
  }
}

function checkConflicts(rules: readonly NormalisedRule[], tools: ReadonlySet<string>, issues: RuleValidationIssue[]): void {
  const disabled = disabledTools(rules, tools);
  for (const rule of rules) {
    if (rule.tool === WILDCARD) continue;
    if (rule.type === "RequiredForExit") {
      for (const terminal of rulesOn(rules, rule.tool, "Terminal")) {
        issues.push(issue("error", "conflict", `${rule.tool} is both Terminal (${terminal.id}) and RequiredForExit (${rule.id}): a terminal tool ends the run, it cannot also be an exit requirement`, [terminal.id, rule.id]));
      }
    }
    const off = disabled.get(rule.tool);
    if (off !== undefined && ["RequiredForExit", "RequiredForExitIf", "InitialCall"].includes(rule.type)) {
      issues.push(issue("error", "conflict", `${rule.tool} is disabled by MaxCalls 0 (${off}) but ${rule.type} (${rule.id}) requires calling it`, [off, rule.id]));
    }
    if (rule.type === "AllowedOperations") {
      const all = rulesOn(rules, rule.tool, "AllowedOperations");
      if (all[0] !== rule) continue; // report each tool once
      let ops = new Set(rule.operations);
      for (const other of all.slice(1)) if (other.type === "AllowedOperations") ops = new Set(other.operations.filter((o) => ops.has(o)));
      if (ops.size === 0) {
        const why = all.length > 1 ? "the AllowedOperations rules on it share no operation" : "its AllowedOperations rule lists no operation";
        issues.push(issue("error", "conflict", `${rule.tool} can never be called: ${why}`, all.map((r) => r.id)));
      }
    }
    if (rule.type === "ExclusiveGroup") {
      const members = [...new Set([rule.tool, ...rule.conditions])];
      const required = members.filter((m) => rules.some((r) => r.type === "RequiredForExit" && r.tool === m));
      if (required.length > 1) {
        const exitIds = rules.filter((r) => r.type === "RequiredForExit" && required.includes(r.tool)).map((r) => r.id);
        issues.push(issue("error", "conflict", `${required.join(" and ")} are in exclusive group ${rule.id} but all required for exit: only one of them can run per run`, [rule.id, ...exitIds]));
      }
    }
  }
}

function checkGraph(rules: readonly NormalisedRule[], catalog: Catalog | undefined, tools: ReadonlySet<string>, issues: RuleValidationIssue[]): void {
  const edges = dependencyEdges(rules);
  const idsBetween = (path: readonly string[]) =>
    edges.filter((e) => path.some((p, i) => i > 0 && path[i - 1] === e.before && p === e.after)).map((e) => e.ruleId);
  const inCycle = new Set<string>();
  for (const cycle of findCycles(edges)) {
    cycle.forEach((t) => inCycle.add(t));
    issues.push(issue("error", "cycle", `dependency cycle ${cycle.join(" → ")}: none of these tools can ever run`, idsBetween(cycle)));
  }
  const deps = dependencyMap(edges);
  const disabled = disabledTools(rules, tools);
  const initial = new Set(rules.filter((r) => r.type === "InitialCall").map((r) => r.tool));
  // A tool is blocked when a (transitive) prerequisite is disabled or unknown.
  const blockedBy = new Map<string, string[] | null>();
  const blockingChain = (tool: string, seen: Set<string>): string[] | null => {
    if (blockedBy.has(tool)) return blockedBy.get(tool) ?? null;
    if (seen.has(tool) || inCycle.has(tool)) return null;
    seen.add(tool);
    let chain: string[] | null = null;
    for (const before of deps.get(tool) ?? []) {
      if (disabled.has(before) || (catalog !== undefined && !catalog.has(before))) chain = [before];
      else {
        const sub = blockingChain(before, seen);
        if (sub) chain = [...sub, before];
      }
      if (chain) break;
    }
    blockedBy.set(tool, chain);
    return chain;
  };
  for (const tool of deps.keys()) {
    const chain = blockingChain(tool, new Set());
    if (!chain) continue;
    const root = chain[0]!;
    const why = disabled.has(root) ? `is disabled by MaxCalls 0 (${disabled.get(root)})` : "is not a known tool";
    issues.push(issue("error", "unreachable", `${tool} can never run: it needs ${[...chain].reverse().join(", which needs ")}, and ${root} ${why}`, idsBetween([...chain, tool])));
  }
  for (const tool of initial) {
    const outside = (deps.get(tool) ?? []).filter((d) => !initial.has(d));
    if (outside.length > 0) {
      const ids = rules.filter((r) => r.type === "InitialCall" && r.tool === tool).map((r) => r.id);
      issues.push(issue("error", "unreachable", `${tool} is an InitialCall tool but must run after ${outside.join(", ")}, which are held back until the initial tools have run: deadlock`, [...ids, ...edges.filter((e) => e.after === tool).map((e) => e.ruleId)]));
    }
  }
  for (const group of rules.filter((r) => r.type === "ExclusiveGroup")) {
    const members = new Set([group.tool, ...group.conditions]);
    for (const edge of edges) {
      if (edge.before !== edge.after && members.has(edge.before) && members.has(edge.after)) {
        issues.push(issue("error", "unreachable", `${edge.after} must run after ${edge.before}, but both are in exclusive group ${group.id}: ${edge.after} can never run`, [group.id, edge.ruleId]));
      }
    }
  }
}

/** ChildTools / ConditionalNext whose every next tool is disabled: after the parent nothing can run. */
function checkSequences(rules: readonly NormalisedRule[], tools: ReadonlySet<string>, issues: RuleValidationIssue[]): void {
  const disabled = disabledTools(rules, tools);
  for (const rule of rules) {
    if (rule.type !== "ChildTools") continue;
    if (rule.children.every((c) => disabled.has(c))) {
      issues.push(issue("error", "conflict", `after ${rule.tool} only ${rule.children.join(", ")} may run (${rule.id}), and every one of them is disabled by MaxCalls 0`, [rule.id, ...rule.children.map((c) => disabled.get(c) ?? "")].filter(Boolean)));
    }
  }
}

/**
 * Checks a rule set before it is used: malformed rules, unknown tools and operations (when `tools`
 * is given), conflicting rules, dependency cycles and tools that can never become callable.
 */
/** Each prefilled argument (`args`, `childArgs`) with the tool it is for. */
function prefills(rule: NormalisedRule): { tool: string; args: Readonly<Record<string, unknown>> }[] {
  if (rule.type === "ChildTools") return Object.entries(rule.childArgs ?? {}).map(([tool, args]) => ({ tool, args }));
  return "args" in rule && rule.args !== undefined ? [{ tool: rule.tool, args: rule.args }] : [];
}

/**
 * Prefilled arguments replace the model's values for their keys: a value the tool's schema rejects,
 * or a key the tool does not have, would make every such call fail (or be dropped), so with the
 * schemas known it is an error now, naming rule, tool and field. Only the prefilled keys are judged:
 * the model supplies the others.
 */
function checkPrefilledArgs(rules: readonly NormalisedRule[], schemas: ReadonlyMap<string, ToolInputSchema>, issues: RuleValidationIssue[]): void {
  for (const rule of rules) {
    for (const { tool, args } of prefills(rule)) {
      const input = schemas.get(tool);
      if (input === undefined) continue;
      const keys = Object.keys(args);
      const problems = new Map<string, string>();
      for (const key of keys) {
        if (input.arguments !== undefined && !input.arguments.includes(key)) {
          problems.set(key, `${tool} has no argument ${JSON.stringify(key)} (its arguments: ${input.arguments.join(", ") || "none"})`);
        }
      }
      const parsed = input.schema.safeParse(args);
      for (const zodIssue of parsed.success ? [] : parsed.error.issues) {
        const named = zodIssue.code === "unrecognized_keys" ? zodIssue.keys : zodIssue.path.length > 0 ? [String(zodIssue.path[0])] : [];
        for (const key of named) {
          if (!keys.includes(key) || problems.has(key)) continue;
          const at = zodIssue.path.length > 1 ? ` (at ${zodIssue.path.join(".")})` : "";
          problems.set(key, `is rejected by its schema: ${zodIssue.message}${at}`);
        }
      }
      for (const [key, problem] of problems) {
        const text = problem.startsWith("is rejected") ? `prefilled argument ${JSON.stringify(key)} of ${tool} ${problem}` : `prefilled argument ${JSON.stringify(key)} of ${tool}: ${problem}`;
        issues.push(issue("error", "invalid-prefilled-args", `rule ${rule.id}: ${text}`, [rule.id]));
      }
    }
  }
}

/**
 * `tools`: the tools' operations (unknown tools and operations are errors). `schemas`: their input
 * schemas (prefilled arguments are checked against them). `required`: data sources' required tools.
 */
export function validateRules(
  rules: readonly ToolRule[],
  tools?: Catalog,
  options: { required?: readonly RequiredTool[] | undefined; schemas?: ReadonlyMap<string, ToolInputSchema> | undefined } = {},
): RuleValidationIssue[] {
  const issues: RuleValidationIssue[] = [];
  const valid = parseEach(rules, issues);
  for (const problem of structuralProblems(valid)) {
    const id = problem.split(":")[0] ?? "";
    if (!problem.includes("needs a concrete tool") && !problem.includes("conditions must name tools")) {
      issues.push(issue("error", "invalid-rule", `rule ${problem}`, [id]));
    }
  }
  checkWildcardsAndConditions(valid, issues);
  if (tools) checkCatalog(valid, tools, issues);
  if (options.schemas) checkPrefilledArgs(valid, options.schemas, issues);
  const named = new Set<string>(tools ? tools.keys() : []);
  for (const rule of valid) for (const t of toolsNamedBy(rule)) if (t !== WILDCARD) named.add(t);
  checkSequences(valid, named, issues);
  checkConflicts(valid, named, issues);
  checkLimitScopes(valid, issues);
  checkGraph(valid, tools, named, issues);
  // Data sources' required tools (seed 000), e.g. sources.requiredTools() of a SourceManager.
  if (options.required) issues.push(...checkRequiredTools(valid, tools, options.required));
  return issues;
}

/** Throws an Error listing every error-level issue; returns the warnings otherwise. */
export function assertValidRules(
  rules: readonly ToolRule[],
  tools?: Catalog,
  options: { required?: readonly RequiredTool[] | undefined; schemas?: ReadonlyMap<string, ToolInputSchema> | undefined } = {},
): RuleValidationIssue[] {
  const issues = validateRules(rules, tools, options);
  const errors = issues.filter((i) => i.severity === "error");
  if (errors.length > 0) {
    throw new RulesError(`invalid tool rules (${errors.length} error${errors.length === 1 ? "" : "s"}):\n${errors.map((e) => `- [${e.code}] ${e.message}`).join("\n")}`);
  }
  return issues;
}
