import { normaliseRules, structuralProblems, WILDCARD, type NormalisedRule, type RankedRule } from "./normalize.js";
import { parseToolRules } from "./schema.js";
import { DEFAULT_HISTORY_LIMIT, emptyRuleState, nextRun, recordExecutions } from "./state.js";
import type {
  CallInfo,
  ExecutionRecord,
  RuleState,
  RuleViolation,
  TerminationDecision,
  ToolAllowanceInfo,
  ForcedCall,
  RuleScope,
  ToolRule,
  ViolationDetail,
} from "./types.js";
import { ASKABLE_RULE_TYPES } from "./types.js";
import { usageSentence } from "./usage.js";
import { allowedNowText, ruleReasons, ruleRefusal, toolUsageLine, usageSection } from "../messages/index.js";
import { StateFacts } from "./facts.js";


import { ExecutionRecordSchema } from "./schema.js";
import { RulesError } from "../errors/index.js";

export interface ToolRulesEngineOptions {
  /** Tool name → declared operations (empty: the tool has none). Also the tools listed in `allowedNow`. */
  tools?: ReadonlyMap<string, readonly string[]>;
  /** Clock used when a method is not given `now` (epoch ms). */
  now?: () => number;
  /** How many recent executions the state keeps. Default 50. */
  historyLimit?: number;
}

/** Rule types that can refuse a call (the same ones that may ask instead). */
const GATE_TYPES: ReadonlySet<string> = new Set<string>(ASKABLE_RULE_TYPES);

/** Longest output kept for a ConditionalNext rule to read. */
const MAX_KEPT_OUTPUT = 2_000;

/** An execution record as the schema reads it: the shape checked by hand (the common case), else by the schema, which names what is wrong. */
function readExecution(input: ExecutionRecord): ExecutionRecord {
  const e = input as unknown as Record<string, unknown> | null;
  if (
    typeof e === "object" && e !== null &&
    typeof e.tool === "string" && e.tool.length > 0 &&
    (e.operation === undefined || typeof e.operation === "string") &&
    typeof e.callId === "string" &&
    typeof e.success === "boolean" &&
    typeof e.at === "number" && Number.isFinite(e.at) &&
    (e.output === undefined || typeof e.output === "string")
  )
    return input;
  return ExecutionRecordSchema.parse(input);
}

/**
 * The output a ConditionalNext rule matches: a JSON object's `message` field (Letta's function
 * response shape), else the text itself, trimmed.
 */
function conditionalOutput(output: string | undefined): string | undefined {
  if (output === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(output);
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) && "message" in parsed) {
      const message = (parsed as { message: unknown }).message;
      return typeof message === "string" ? message.trim() : JSON.stringify(message);
    }
  } catch {
    // not JSON: the text itself
  }
  return output.trim();
}

/** Letta's key matching: "true"/"false" compare as booleans (any case), numbers as numbers, the rest as text. */
function outputMatches(output: string, key: string): boolean {
  const k = key.trim();
  if (/^(true|false)$/i.test(k)) return output.toLowerCase() === k.toLowerCase();
  if (k !== "" && Number.isFinite(Number(k))) return output !== "" && Number(output) === Number(k);
  return output === k;
}

/** A violation's own copy: its lists are not shared with the one kept for the state. */
function copyViolation(kept: RuleViolation): RuleViolation {
  const out = Object.assign({}, kept);
  if (kept.required !== undefined) out.required = kept.required.slice();
  if (kept.executed !== undefined) out.executed = kept.executed.slice();
  if (kept.group !== undefined) out.group = kept.group.slice();
  if (kept.alreadyCalled !== undefined) out.alreadyCalled = kept.alreadyCalled.slice();
  if (kept.allowedOperations !== undefined) out.allowedOperations = kept.allowedOperations.slice();
  out.allowedNow = kept.allowedNow.slice();
  return out;
}

/** Upper bound on per-tool caches, so a model inventing tool names cannot grow memory without limit. */
const MAX_CACHED_TOOLS = 4096;

function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function unique(values: Iterable<string>): string[] {
  return [...new Set(values)];
}

function formatAllowance(info: ToolAllowanceInfo): string {
  return info.operations ? `${info.name} (${info.operations.join(", ")})` : info.name;
}

/**
 * Evaluates tool rules over a plain-JSON {@link RuleState}. Every method is pure: states are never
 * mutated, new states are returned. Rules are indexed by tool name at construction, so checking a
 * call only looks at the rules that can concern that tool.
 */
export class ToolRulesEngine {
  readonly #rules: RankedRule[];
  readonly #publicRules: readonly NormalisedRule[];
  readonly #catalog: ReadonlyMap<string, readonly string[]> | undefined;
  readonly #clock: () => number;
  readonly #historyLimit: number;
  readonly #bySubject = new Map<string, RankedRule[]>();
  readonly #wildcard: RankedRule[] = [];
  /** MustPrecede rules indexed by the tools they hold back; ExclusiveGroup rules by every member. */
  readonly #byCondition = new Map<string, RankedRule[]>();
  readonly #initial: RankedRule[] = [];
  /** ChildTools and ConditionalNext rules: they constrain every tool right after their own. */
  readonly #sequence: RankedRule[] = [];
  /** Tools whose output a ConditionalNext rule reads. */
  readonly #outputTools = new Set<string>();
  /** Rules with prefilled arguments in the order they are applied (a higher priority, then a later rule, wins a shared key). */
  readonly #argsRules: RankedRule[];
  readonly #initialTools: ReadonlySet<string>;
  readonly #terminal: RankedRule[] = [];
  readonly #exit: RankedRule[] = [];
  readonly #periodic: RankedRule[] = [];
  readonly #universe: string[];
  readonly #gateCache = new Map<string, RankedRule[]>();
  readonly #opsCache = new Map<string, string[] | undefined>();
  readonly #derived = new WeakMap<RuleState, StateFacts>();

  constructor(rules: ToolRule[], options: ToolRulesEngineOptions = {}) {
    const parsed = parseToolRules(rules);
    const problems = structuralProblems(parsed);
    if (problems.length > 0) throw new RulesError(`tool rules cannot be used: ${problems.join("; ")}`);
    this.#rules = normaliseRules(parsed);
    this.#publicRules = this.#rules.map(({ rank: _rank, ...rule }) => rule as NormalisedRule);
    this.#catalog = options.tools;
    this.#clock = options.now ?? Date.now;
    this.#historyLimit = options.historyLimit ?? DEFAULT_HISTORY_LIMIT;
    if (!Number.isInteger(this.#historyLimit) || this.#historyLimit < 0) {
      throw new RulesError(`historyLimit must be a non-negative integer, got ${options.historyLimit}`);
    }
    const named = new Set<string>();
    for (const rule of this.#rules) {
      if (rule.tool === WILDCARD) this.#wildcard.push(rule);
      else {
        pushTo(this.#bySubject, rule.tool, rule);
        named.add(rule.tool);
      }
      for (const c of rule.conditions) named.add(c);
      switch (rule.type) {
        case "MustPrecede":
          for (const c of new Set(rule.conditions)) pushTo(this.#byCondition, c, rule);
          break;
        case "ExclusiveGroup":
          for (const member of new Set([rule.tool, ...rule.conditions])) pushTo(this.#byCondition, member, rule);
          break;
        case "InitialCall":
          this.#initial.push(rule);
          for (const c of rule.alternatives ?? []) named.add(c);
          break;
        case "Terminal":
        case "TerminalIf":
          this.#terminal.push(rule);
          break;
        case "RequiredForExit":
        case "RequiredForExitIf":
          this.#exit.push(rule);
          break;
        case "Periodic":
          this.#periodic.push(rule);
          break;
        case "ChildTools":
        case "ParentTools":
          this.#sequence.push(rule);
          for (const c of rule.children) named.add(c);
          break;
        case "ConditionalNext":
          this.#sequence.push(rule);
          this.#outputTools.add(rule.tool);
          for (const c of Object.values(rule.outputMapping)) named.add(c);
          if (rule.defaultChild) named.add(rule.defaultChild);
          break;
        default:
          break;
      }
    }
    // Tools of InitialCall rules without alternatives: all of them run first, in any order.
    // Applied in this order, so the last one applied wins a shared key: lower priority first, and at
    // equal priority in declaration order (the later rule wins, Letta's "last write wins").
    this.#argsRules = this.#rules
      .filter((r) => ("args" in r && r.args !== undefined) || (r.type === "ChildTools" && r.childArgs !== undefined))
      .sort((a, b) => a.priority - b.priority || a.rank - b.rank);
    this.#initialTools = new Set(this.#initial.filter((r) => !this.#hasAlternatives(r)).map((r) => r.tool));
    this.#universe = this.#catalog ? [...this.#catalog.keys()] : [...named];
  }

  /** The normalised rules, highest priority first. */
  get rules(): readonly NormalisedRule[] {
    return this.#publicRules;
  }

  initialState(now?: number): RuleState {
    return emptyRuleState(now ?? this.#clock());
  }

  /** New user input: run + 1; per-run counters reset; thread counters and last-call times kept. */
  startRun(state: RuleState, now?: number): RuleState {
    return nextRun(state, now ?? this.#clock());
  }

  record(state: RuleState, execution: ExecutionRecord): RuleState {
    return this.recordAll(state, [execution]);
  }

  /** Several finished calls, in the order they finished: the state recording them one by one gives. */
  recordAll(state: RuleState, executions: readonly ExecutionRecord[]): RuleState {
    if (executions.length === 0) return state;
    const parsed = executions.map(readExecution);
    const next = recordExecutions(state, parsed, this.#historyLimit);
    const last = parsed[parsed.length - 1]!;
    const keep = this.#outputTools.has(last.tool) && last.output !== undefined;
    const lastCall = { tool: last.tool, success: last.success, ...(keep ? { output: last.output?.slice(0, MAX_KEPT_OUTPUT) } : {}) };
    return { ...next, lastCall };
  }

  /** Whether the guard should keep this tool's output in the rule state (a ConditionalNext rule reads it). */
  needsOutput(tool: string): boolean {
    return this.#outputTools.has(tool);
  }

  /**
   * The call the guard makes itself now (through tool_choice), or null:
   * 1. an InitialCall tool not yet run this run (one at a time; alternatives with several choices are not forced);
   * 2. a ChildTools / ConditionalNext rule that leaves exactly one allowed tool (other than its own tool);
   * 3. a Periodic tool still due after the model, reminded in the prompt, called another tool instead.
   * A tool another rule refuses now is never forced.
   */
  forcedTool(state: RuleState, now?: number): ForcedCall | null {
    const at = now ?? this.#clock();
    const derived = this.#derive(state);
    const allowed = (tool: string) => this.#allowance(state, derived, tool, at) !== null;
    for (const rule of this.#initial) {
      // A rule that asks instead of refusing leaves the model its choice: nothing is forced.
      if (rule.onViolation === "ask") continue;
      const choices = [rule.tool, ...(rule.type === "InitialCall" ? (rule.alternatives ?? []) : [])];
      if (choices.some((c) => (state.runAttempts[c] ?? 0) > 0)) continue;
      if (choices.length === 1 && allowed(rule.tool)) return this.#forced(rule, rule.tool, state);
    }
    for (const rule of this.#sequence) {
      if (rule.onViolation === "ask") continue;
      const next = this.#nextSet(rule, state);
      if (next === null || next.size !== 1) continue;
      const [tool] = [...next];
      // A rule that leads back to its own tool is not forced: that would loop without end.
      if (tool !== undefined && tool !== rule.tool && allowed(tool)) return this.#forced(rule, tool, state);
    }
    for (const rule of this.#periodic) {
      if (rule.type !== "Periodic") continue;
      const dueSince = (state.lastCallAt[rule.tool] ?? state.runStartedAt - rule.durationMs) + rule.durationMs;
      if (at < dueSince) continue;
      // Reminded (the prompt names due tools) and ignored: another tool was called after it fell due.
      let ignored = false;
      for (const [tool, last] of Object.entries(state.lastCallAt)) if (tool !== rule.tool && last >= dueSince) ignored = true;
      if (ignored && allowed(rule.tool)) return this.#forced(rule, rule.tool, state);
    }
    return null;
  }

  /**
   * Whether the next model call must call some tool, though no single one is forced (Letta's
   * `should_force_tool_call` when a constraining rule leaves a choice): InitialCall alternatives not
   * yet taken, or a ChildTools / ParentTools / ConditionalNext rule whose tool ran last and that
   * leaves several tools (a ConditionalNext whose output matched no key and that has no default
   * child leaves every tool). The guard then asks for `tool_choice: "any"` (the model still picks among
   * the tools it is shown). False when {@link forcedTool} names one, when only the rule's own tool
   * would be left (no loop), and for rules that ask instead of refusing.
   */
  mustCallTool(state: RuleState, now?: number): boolean {
    const at = now ?? this.#clock();
    if (this.forcedTool(state, at) !== null) return false;
    const derived = this.#derive(state);
    const allowed = (tool: string) => this.#allowance(state, derived, tool, at) !== null;
    for (const rule of this.#initial) {
      if (rule.onViolation === "ask" || !this.#hasAlternatives(rule) || rule.type !== "InitialCall") continue;
      const choices = [rule.tool, ...(rule.alternatives ?? [])];
      if (choices.some((c) => (state.runAttempts[c] ?? 0) > 0)) continue;
      if (choices.some(allowed)) return true;
    }
    for (const rule of this.#sequence) {
      if (rule.onViolation === "ask") continue;
      const next = this.#nextSet(rule, state);
      // A ConditionalNext whose tool ran last and whose output matched no key, without a default
      // child: any tool may come next, but some tool must (Letta forces a tool call after it too).
      if (next === null && rule.type === "ConditionalNext" && state.lastCall?.tool === rule.tool) return true;
      if (next === null || next.size < 2) continue;
      for (const tool of next) if (tool !== rule.tool && allowed(tool)) return true;
    }
    return false;
  }

  /**
   * Arguments a rule fills in for a call to `tool` now (they replace the model's values for those
   * keys): a pending InitialCall's `args`, the `childArgs` of the ChildTools rule whose tool ran last,
   * a RequiredForExit(If) or Periodic rule's `args`. Empty when none.
   */
  /** Whether some rule prefills arguments (else `prefilledArgs` is always empty). */
  get prefillsArgs(): boolean {
    return this.#argsRules.length > 0;
  }

  prefilledArgs(state: RuleState, tool: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (this.#argsRules.length === 0) return out;
    for (const rule of this.#argsRules) {
      if (rule.type === "ChildTools" && state.lastCall?.tool === rule.tool) Object.assign(out, rule.childArgs?.[tool] ?? {});
      else if (rule.tool === tool && "args" in rule && rule.args) {
        if (rule.type === "InitialCall" && (state.runAttempts[tool] ?? 0) > 0) continue;
        Object.assign(out, rule.args);
      }
    }
    return out;
  }

  #forced(rule: RankedRule, tool: string, state: RuleState): ForcedCall {
    const legacy = rule.metadata?.args;
    const fromMetadata = legacy !== null && typeof legacy === "object" && rule.tool === tool ? (legacy as Record<string, unknown>) : {};
    return { tool, ruleId: rule.id, ruleType: rule.type, args: { ...fromMetadata, ...this.prefilledArgs(state, tool) } };
  }

  #hasAlternatives(rule: RankedRule): boolean {
    return rule.type === "InitialCall" && (rule.alternatives ?? []).length > 0;
  }

  /** The tools a ChildTools / ConditionalNext rule allows next; null when it does not constrain now. */
  #nextSet(rule: RankedRule, state: RuleState): ReadonlySet<string> | null {
    const last = state.lastCall;
    if (!last || last.tool !== rule.tool) return null;
    if (rule.type === "ChildTools" || rule.type === "ParentTools") return new Set(rule.children);
    if (rule.type !== "ConditionalNext") return null;
    const output = conditionalOutput(last.output);
    if (output !== undefined) {
      for (const [key, tool] of Object.entries(rule.outputMapping)) if (outputMatches(output, key)) return new Set([tool]);
    }
    if (rule.defaultChild !== undefined) return new Set([rule.defaultChild]);
    return rule.requireOutputMapping === true ? new Set() : null;
  }

  noteExitReminder(state: RuleState): RuleState {
    return { ...state, exitReminders: state.exitReminders + 1 };
  }

  /** The tools (and operations) the model may be shown now. Agrees with {@link checkCall}. */
  allowedTools(state: RuleState, candidates: readonly string[], now?: number): ToolAllowanceInfo[] {
    const at = now ?? this.#clock();
    const derived = this.#derive(state);
    const out: ToolAllowanceInfo[] = [];
    for (const tool of candidates) {
      const allowance = this.#allowance(state, derived, tool, at);
      if (allowance) out.push(allowance);
    }
    return out;
  }

  /**
   * The backstop: the first rule (by priority) that refuses this call, or null when it may run.
   * States are never mutated: the answer for one state, clock value, tool and operation is worked
   * out once and kept with the state's derived facts (a turn, or a batch, checks many calls against
   * one state); each caller gets its own copy.
   */
  checkCall(state: RuleState, call: CallInfo, now?: number): RuleViolation | null {
    const kept = this.keptViolation(state, call.tool, call.operation, now);
    return kept === null ? null : copyViolation(kept);
  }

  /**
   * {@link checkCall}'s answer as kept for the state, shared by every caller: read it, never change
   * it (a caller that hands the violation on takes `checkCall`'s copy).
   */
  keptViolation(state: RuleState, tool: string, operation: string | undefined, now?: number): Readonly<RuleViolation> | null {
    const at = now ?? this.#clock();
    const derived = this.#derive(state);
    let checks = derived.checks;
    if (checks === undefined || checks.now !== at) checks = derived.checks = { now: at, size: 0, byTool: new Map() };
    // By tool, then operation: no key text built per call.
    let forTool = checks.byTool.get(tool);
    const kept = forTool === undefined ? undefined : operation === undefined ? forTool.none : forTool.byOperation?.get(operation);
    if (kept !== undefined) return kept;
    const found = this.#check(state, derived, { tool, operation }, at);
    if (checks.size >= MAX_CACHED_TOOLS) {
      checks.byTool.clear();
      checks.size = 0;
      forTool = undefined;
    }
    if (forTool === undefined) checks.byTool.set(tool, (forTool = { none: undefined, byOperation: undefined }));
    if (operation === undefined) forTool.none = found;
    else (forTool.byOperation ??= new Map()).set(operation, found);
    checks.size += 1;
    return found;
  }

  #check(state: RuleState, derived: StateFacts, call: CallInfo, at: number): RuleViolation | null {
    const { tool, operation } = call;
    const ended = derived.termination.rule;
    if (ended && !derived.pendingExitSet.has(tool)) {
      const reason = ruleReasons.runEnded(ended.tool === WILDCARD ? undefined : ended.tool, derived.pendingExit);
      return this.#violation(state, derived, at, ended, call, { reason, required: [...derived.pendingExit] });
    }
    // A rule that refuses wins over one that asks: the first asking rule is kept until none refuses.
    let asks: RankedRule | undefined;
    let asksDetail: ViolationDetail | undefined;
    for (const rule of this.#gates(tool)) {
      if (asks !== undefined && rule.onViolation === "ask") continue;
      let detail: ViolationDetail | null = null;
      if (rule.type === "AllowedOperations") detail = this.#operationRefusal(rule, tool, operation);
      else if (this.#blocks(rule, state, derived, tool, at)) detail = this.#reason(rule, state, derived, tool, at);
      if (detail === null) continue;
      if (rule.onViolation !== "ask") return this.#violation(state, derived, at, rule, call, detail);
      asks = rule;
      asksDetail = detail;
    }
    if (asks !== undefined && asksDetail !== undefined) return this.#violation(state, derived, at, asks, call, { ...asksDetail, onViolation: "ask" });
    return null;
  }

  shouldTerminate(state: RuleState): TerminationDecision {
    const { terminate, ruleId } = this.#derive(state).termination;
    return terminate ? { terminate, ruleId } : { terminate };
  }

  /** RequiredForExit tools not yet successful this run, and RequiredForExitIf ones whose conditions are met. */
  pendingExitTools(state: RuleState): string[] {
    return [...this.#derive(state).pendingExit];
  }

  /** InitialCall tools not yet run (attempted) this run. */
  initialTools(state: RuleState): string[] {
    return [...this.#derive(state).initialPending];
  }

  /** Periodic tools never called, or last called at least `durationMs` ago. */
  dueTools(state: RuleState, now?: number): string[] {
    const at = now ?? this.#clock();
    const due = this.#periodic.filter((rule) => {
      if (rule.type !== "Periodic") return false;
      const last = state.lastCallAt[rule.tool];
      return last === undefined || at - last >= rule.durationMs;
    });
    return unique(due.map((r) => r.tool));
  }

  requiresHeartbeat(tool: string): boolean {
    return !this.#hasFlag(tool, "NoHeartbeat");
  }

  continuesLoop(tool: string): boolean {
    return this.#hasFlag(tool, "ContinueLoop");
  }

  /** Operations every AllowedOperations rule on this tool admits (intersection); undefined when unrestricted. */
  allowedOperations(tool: string): string[] | undefined {
    const ops = this.#allowedOps(tool);
    return ops ? [...ops] : undefined;
  }

  /** One sentence per rule, for the system prompt. */
  usageLines(): string[] {
    return unique(this.#rules.map(usageSentence));
  }

  /** A "## Tool usage rules" markdown section: tool usage rules first, then rule sentences, then `extra` (permission rules); "" when empty. */
  usageSection(toolUsageRules: Record<string, string> = {}, extra: readonly string[] = []): string {
    return usageSection([
      ...Object.entries(toolUsageRules)
        .filter(([, text]) => text.trim() !== "")
        .map(([tool, text]) => toolUsageLine(tool, text)),
      ...this.usageLines(),
      ...extra,
    ]);
  }

  #hasFlag(tool: string, type: "NoHeartbeat" | "ContinueLoop"): boolean {
    const own = this.#bySubject.get(tool) ?? [];
    return own.some((r) => r.type === type) || this.#wildcard.some((r) => r.type === type);
  }

  /** Rules that can refuse a call to `tool`, in priority order. */
  #gates(tool: string): RankedRule[] {
    const cached = this.#gateCache.get(tool);
    if (cached) return cached;
    const gates = new Set<RankedRule>();
    for (const rule of this.#bySubject.get(tool) ?? []) {
      if (GATE_TYPES.has(rule.type) && rule.type !== "ExclusiveGroup" && rule.type !== "MustPrecede") gates.add(rule);
    }
    for (const rule of this.#byCondition.get(tool) ?? []) gates.add(rule);
    for (const rule of this.#wildcard) {
      // A wildcard MustFollow does not hold back its own prerequisites (they could never run).
      if (!GATE_TYPES.has(rule.type) || (rule.type === "MustFollow" && rule.conditions.includes(tool))) continue;
      gates.add(rule);
    }
    for (const rule of this.#initial) gates.add(rule);
    for (const rule of this.#sequence) gates.add(rule);
    const sorted = [...gates].sort((a, b) => a.rank - b.rank);
    if (this.#gateCache.size < MAX_CACHED_TOOLS) this.#gateCache.set(tool, sorted);
    return sorted;
  }

  /** AllowedOperations does not bind a tool the catalog declares without operations. */
  #bindsOperations(tool: string): boolean {
    const declared = this.#catalog?.get(tool);
    return declared === undefined || declared.length > 0;
  }

  #allowedOps(tool: string): string[] | undefined {
    if (this.#opsCache.has(tool)) return this.#opsCache.get(tool);
    let ops: string[] | undefined;
    if (this.#bindsOperations(tool)) {
      for (const rule of this.#gates(tool)) {
        // Operations a rule that asks does not list stay offered: calling them asks.
        if (rule.type !== "AllowedOperations" || rule.onViolation === "ask") continue;
        const allowed = new Set(rule.operations);
        ops = ops === undefined ? unique(rule.operations) : ops.filter((op) => allowed.has(op));
      }
    }
    if (this.#opsCache.size < MAX_CACHED_TOOLS) this.#opsCache.set(tool, ops);
    return ops;
  }

  #operationRefusal(rule: RankedRule, tool: string, operation: string | undefined): ViolationDetail | null {
    if (rule.type !== "AllowedOperations" || !this.#bindsOperations(tool)) return null;
    const allowed = rule.onViolation === "ask" ? rule.operations : (this.#allowedOps(tool) ?? []);
    if (operation === undefined) return { reason: ruleReasons.operationMissing(tool, allowed), allowedOperations: [...allowed] };
    if (!rule.operations.includes(operation)) {
      return { reason: ruleReasons.operationNotAllowed(tool, operation, allowed), allowedOperations: [...allowed] };
    }
    return null;
  }

  /** Whether `rule` refuses a call to `tool` now (operation aside). Allocation-free: it runs for every tool listed. */
  #blocks(rule: RankedRule, state: RuleState, derived: StateFacts, tool: string, now: number): boolean {
    const called = "scope" in rule && rule.scope === "thread" ? derived.calledInThread : derived.called;
    switch (rule.type) {
      case "MustFollow":
        for (const c of rule.conditions) if (!called.has(c)) return true;
        return false;
      case "MustPrecede":
        return !called.has(rule.tool);
      case "ExclusiveGroup":
        if (rule.tool !== tool && called.has(rule.tool)) return true;
        for (const m of rule.conditions) if (m !== tool && called.has(m)) return true;
        return false;
      case "InitialCall": {
        if (rule.alternatives && rule.alternatives.length > 0) {
          if (tool === rule.tool || rule.alternatives.includes(tool)) return false;
          if ((state.runAttempts[rule.tool] ?? 0) > 0) return false;
          for (const c of rule.alternatives) if ((state.runAttempts[c] ?? 0) > 0) return false;
          return true;
        }
        return !this.#initialTools.has(tool) && (state.runAttempts[rule.tool] ?? 0) === 0;
      }
      case "MaxCalls":
        return ((rule.scope === "thread" ? state.threadAttempts : state.runAttempts)[tool] ?? 0) >= rule.max;
      case "MaxTotalCalls":
        return derived.totalAttempts(rule.scope ?? "run") >= rule.max;
      case "ChildTools":
      case "ConditionalNext": {
        const next = this.#nextSet(rule, state);
        return next !== null && !next.has(tool);
      }
      case "ParentTools":
        // Right after its tool: only the children. Otherwise: never a child.
        return state.lastCall?.tool === rule.tool ? !rule.children.includes(tool) : rule.children.includes(tool);
      case "Cooldown": {
        const last = state.lastCallAt[tool];
        return last !== undefined && now - last < rule.durationMs;
      }
      default:
        return false;
    }
  }

  /** Why `rule` refuses a call to `tool`, with the typed fields; only called once {@link #blocks} said it does. */
  #reason(rule: RankedRule, state: RuleState, derived: StateFacts, tool: string, now: number): ViolationDetail {
    const threadScope = "scope" in rule && rule.scope === "thread";
    const executed = threadScope ? Object.keys(state.threadCounts).filter((t) => (state.threadCounts[t] ?? 0) > 0) : [...state.calledThisRun];
    const called = threadScope ? derived.calledInThread : derived.called;
    const scopeOf = (): RuleScope => (threadScope ? "thread" : "run");
    switch (rule.type) {
      case "MustFollow": {
        const missing = rule.conditions.filter((c) => !called.has(c));
        return { reason: ruleReasons.mustFollow(tool, rule.conditions, missing, scopeOf()), required: [...rule.conditions], executed, scope: scopeOf() };
      }
      case "MustPrecede":
        return { reason: ruleReasons.mustPrecede(tool, rule.tool, scopeOf()), required: [rule.tool], executed, scope: scopeOf() };
      case "ExclusiveGroup": {
        const group = unique([rule.tool, ...rule.conditions]);
        const used = group.filter((m) => m !== tool && called.has(m));
        return { reason: ruleReasons.exclusiveGroup(group, used, scopeOf()), group, alreadyCalled: used, executed, scope: scopeOf() };
      }
      case "InitialCall": {
        if (rule.alternatives && rule.alternatives.length > 0) {
          const choices = [rule.tool, ...rule.alternatives];
          return { reason: ruleReasons.initialChoice(choices), required: choices, executed };
        }
        return { reason: ruleReasons.initialCall(derived.initialPending), required: [...derived.initialPending], executed };
      }
      case "MaxCalls": {
        const scope = rule.scope ?? "run";
        const current = (scope === "run" ? state.runAttempts : state.threadAttempts)[tool] ?? 0;
        const exitBehavior = rule.exitBehavior ?? "continue";
        return { reason: ruleReasons.maxCalls(tool, rule.max, current, scope), max: rule.max, current, scope, exitBehavior };
      }
      case "MaxTotalCalls": {
        const scope = rule.scope ?? "run";
        const current = derived.totalAttempts(scope);
        const exitBehavior = rule.exitBehavior ?? "continue";
        return { reason: ruleReasons.totalCalls(rule.max, current, scope), max: rule.max, current, scope, exitBehavior };
      }
      case "ChildTools":
        return { reason: ruleReasons.childOnly(rule.tool, rule.children), required: [...rule.children], after: rule.tool, executed };
      case "ParentTools":
        return state.lastCall?.tool === rule.tool
          ? { reason: ruleReasons.childOnly(rule.tool, rule.children), required: [...rule.children], after: rule.tool, executed }
          : { reason: ruleReasons.parentOnly(tool, rule.tool), required: [rule.tool], after: rule.tool, executed };
      case "ConditionalNext": {
        const next = [...(this.#nextSet(rule, state) ?? [])];
        return { reason: ruleReasons.conditionalNext(rule.tool, next, conditionalOutput(state.lastCall?.output)), required: next, after: rule.tool, executed };
      }
      case "Cooldown": {
        const elapsed = now - (state.lastCallAt[tool] ?? now);
        const remainingMs = rule.durationMs - elapsed;
        return { reason: ruleReasons.cooldown(tool, remainingMs, rule.durationMs), remainingMs };
      }
      default:
        return { reason: `${rule.type} refused ${tool}` };
    }
  }

  #allowance(state: RuleState, derived: StateFacts, tool: string, now: number): ToolAllowanceInfo | null {
    if (derived.termination.rule && !derived.pendingExitSet.has(tool)) return null;
    for (const rule of this.#gates(tool)) {
      // A rule that asks does not hide the tool: calling it puts the call to a human.
      if (rule.onViolation === "ask") continue;
      if (rule.type !== "AllowedOperations" && this.#blocks(rule, state, derived, tool, now)) return null;
    }
    const operations = this.#allowedOps(tool);
    if (operations === undefined) return { name: tool };
    return operations.length > 0 ? { name: tool, operations: [...operations] } : null;
  }

  #violation(
    state: RuleState,
    derived: StateFacts,
    now: number,
    rule: RankedRule,
    call: CallInfo,
    detail: ViolationDetail,
  ): RuleViolation {
    const allowed = this.#allowedNow(state, derived, now);
    // The list joined for the message is kept with it: a turn may refuse many calls at one clock value.
    const allowedText = (allowed.text ??= allowedNowText(allowed.list));
    const message = ruleRefusal({ ruleId: rule.id, ruleType: rule.type, tool: call.tool, operation: call.operation, reason: detail.reason, allowedNow: allowed.list, allowedNowText: allowedText });
    // Same keys, in the same order, as `{ ...detail, ruleId, ruleType, tool, operation, allowedNow, message }`.
    const out = Object.assign({}, detail) as RuleViolation;
    out.ruleId = rule.id;
    out.ruleType = rule.type;
    out.tool = call.tool;
    out.operation = call.operation;
    out.allowedNow = allowed.list.slice();
    out.message = message;
    return out;
  }

  /** What the model may call now, over the known tools; cached per state and clock value (one turn checks many calls). */
  #allowedNow(state: RuleState, derived: StateFacts, now: number): { now: number; list: readonly string[]; text?: string } {
    if (derived.allowedNow?.now === now) return derived.allowedNow;
    const list: string[] = [];
    for (const tool of this.#universe) {
      const allowance = this.#allowance(state, derived, tool, now);
      if (allowance) list.push(formatAllowance(allowance));
    }
    derived.allowedNow = { now, list };
    return derived.allowedNow;
  }

  #derive(state: RuleState): StateFacts {
    let facts = this.#derived.get(state);
    if (!facts) {
      facts = new StateFacts(state, { terminal: this.#terminal, exit: this.#exit, initial: this.#initial });
      this.#derived.set(state, facts);
    }
    return facts;
  }
}
