import { normaliseRules, structuralProblems, WILDCARD, type NormalisedRule, type RankedRule } from "./normalize.js";
import { parseToolRules } from "./schema.js";
import { DEFAULT_HISTORY_LIMIT, emptyRuleState, nextRun, recordExecution } from "./state.js";
import type {
  CallInfo,
  ExecutionRecord,
  RuleState,
  RuleViolation,
  TerminationDecision,
  ToolAllowanceInfo,
  ToolRule,
} from "./types.js";
import { usageSentence } from "./usage.js";
import { ExecutionRecordSchema } from "./schema.js";

export interface ToolRulesEngineOptions {
  /** Tool name → declared operations (empty: the tool has none). Also the tools listed in `allowedNow`. */
  tools?: ReadonlyMap<string, readonly string[]>;
  /** Clock used when a method is not given `now` (epoch ms). */
  now?: () => number;
  /** How many recent executions the state keeps. Default 50. */
  historyLimit?: number;
}

/** Rule types that can refuse a call. */
const GATE_TYPES = new Set<string>([
  "MustFollow",
  "MustPrecede",
  "ExclusiveGroup",
  "InitialCall",
  "MaxCalls",
  "Cooldown",
  "AllowedOperations",
]);

/** Facts derived from one state object; states are never mutated, so they are cached per object. */
interface Derived {
  called: ReadonlySet<string>;
  termination: TerminationDecision & { rule?: RankedRule };
  pendingExit: string[];
  pendingExitSet: ReadonlySet<string>;
  initialPending: string[];
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
  readonly #initialTools: ReadonlySet<string>;
  readonly #terminal: RankedRule[] = [];
  readonly #exit: RankedRule[] = [];
  readonly #periodic: RankedRule[] = [];
  readonly #universe: string[];
  readonly #gateCache = new Map<string, RankedRule[]>();
  readonly #opsCache = new Map<string, string[] | undefined>();
  readonly #derived = new WeakMap<RuleState, Derived>();

  constructor(rules: ToolRule[], options: ToolRulesEngineOptions = {}) {
    const parsed = parseToolRules(rules);
    const problems = structuralProblems(parsed);
    if (problems.length > 0) throw new Error(`tool rules cannot be used: ${problems.join("; ")}`);
    this.#rules = normaliseRules(parsed);
    this.#publicRules = this.#rules.map(({ rank: _rank, ...rule }) => rule as NormalisedRule);
    this.#catalog = options.tools;
    this.#clock = options.now ?? Date.now;
    this.#historyLimit = options.historyLimit ?? DEFAULT_HISTORY_LIMIT;
    if (!Number.isInteger(this.#historyLimit) || this.#historyLimit < 0) {
      throw new Error(`historyLimit must be a non-negative integer, got ${options.historyLimit}`);
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
        default:
          break;
      }
    }
    this.#initialTools = new Set(this.#initial.map((r) => r.tool));
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
    return recordExecution(state, ExecutionRecordSchema.parse(execution), this.#historyLimit);
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

  /** The backstop: the first rule (by priority) that refuses this call, or null when it may run. */
  checkCall(state: RuleState, call: CallInfo, now?: number): RuleViolation | null {
    const at = now ?? this.#clock();
    const derived = this.#derive(state);
    const { tool, operation } = call;
    const ended = derived.termination.rule;
    if (ended && !derived.pendingExitSet.has(tool)) {
      const pending = derived.pendingExit.length > 0 ? derived.pendingExit.join(", ") : "none";
      return this.#violation(state, derived, at, ended, call,
        `the run has ended (${ended.tool === WILDCARD ? "a tool" : ended.tool} succeeded); only pending exit tools may run: ${pending}`);
    }
    for (const rule of this.#gates(tool)) {
      const reason =
        rule.type === "AllowedOperations"
          ? this.#operationRefusal(rule, tool, operation)
          : this.#refusal(rule, state, derived, tool, at);
      if (reason !== null) return this.#violation(state, derived, at, rule, call, reason);
    }
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

  /** A "## Tool usage rules" markdown section: tool usage rules first, then rule sentences; "" when empty. */
  usageSection(toolUsageRules: Record<string, string> = {}): string {
    const lines = [
      ...Object.entries(toolUsageRules)
        .filter(([, text]) => text.trim() !== "")
        .map(([tool, text]) => `- \`${tool}\`: ${text.trim()}`),
      ...this.usageLines().map((line) => `- ${line}`),
    ];
    return lines.length === 0 ? "" : `## Tool usage rules\n\n${lines.join("\n")}\n`;
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
        if (rule.type !== "AllowedOperations") continue;
        const allowed = new Set(rule.operations);
        ops = ops === undefined ? unique(rule.operations) : ops.filter((op) => allowed.has(op));
      }
    }
    if (this.#opsCache.size < MAX_CACHED_TOOLS) this.#opsCache.set(tool, ops);
    return ops;
  }

  #operationRefusal(rule: RankedRule, tool: string, operation: string | undefined): string | null {
    if (rule.type !== "AllowedOperations" || !this.#bindsOperations(tool)) return null;
    const allowed = this.#allowedOps(tool) ?? [];
    const allowedText = allowed.length > 0 ? allowed.join(", ") : "none";
    if (operation === undefined) return `${tool} must be called with an operation; allowed operations: ${allowedText}`;
    if (!rule.operations.includes(operation)) {
      return `operation ${operation} of ${tool} is not allowed; allowed operations: ${allowedText}`;
    }
    return null;
  }

  /** Why `rule` refuses a call to `tool` now (operation aside), or null. */
  #refusal(rule: RankedRule, state: RuleState, derived: Derived, tool: string, now: number): string | null {
    const called = derived.called;
    const soFar = () => `called so far: [${state.calledThisRun.join(", ")}]`;
    switch (rule.type) {
      case "MustFollow":
        return rule.conditions.every((c) => called.has(c))
          ? null
          : `${tool} must follow ${rule.conditions.join(", ")}; ${soFar()}`;
      case "MustPrecede":
        return called.has(rule.tool) ? null : `${rule.tool} must precede ${tool}; ${soFar()}`;
      case "ExclusiveGroup": {
        const used = [rule.tool, ...rule.conditions].filter((m) => m !== tool && called.has(m));
        if (used.length === 0) return null;
        const group = unique([rule.tool, ...rule.conditions]).join(", ");
        return `only one of ${group} may be used per run and ${unique(used).join(", ")} already was`;
      }
      case "InitialCall":
        if (this.#initialTools.has(tool) || (state.runAttempts[rule.tool] ?? 0) > 0) return null;
        return `the initial tools must run first: ${derived.initialPending.join(", ")}`;
      case "MaxCalls": {
        const scope = rule.scope ?? "run";
        const attempts = (scope === "run" ? state.runAttempts : state.threadAttempts)[tool] ?? 0;
        if (attempts < rule.max) return null;
        return `${tool} may be called at most ${rule.max} time(s) per ${scope} and was called ${attempts} time(s)`;
      }
      case "Cooldown": {
        const last = state.lastCallAt[tool];
        if (last === undefined || now - last >= rule.durationMs) return null;
        return `${tool} is cooling down: ${rule.durationMs - (now - last)} ms left of ${rule.durationMs} ms between calls`;
      }
      default:
        return null;
    }
  }

  #allowance(state: RuleState, derived: Derived, tool: string, now: number): ToolAllowanceInfo | null {
    if (derived.termination.rule && !derived.pendingExitSet.has(tool)) return null;
    for (const rule of this.#gates(tool)) {
      if (rule.type !== "AllowedOperations" && this.#refusal(rule, state, derived, tool, now) !== null) return null;
    }
    const operations = this.#allowedOps(tool);
    if (operations === undefined) return { name: tool };
    return operations.length > 0 ? { name: tool, operations: [...operations] } : null;
  }

  #violation(
    state: RuleState,
    derived: Derived,
    now: number,
    rule: RankedRule,
    call: CallInfo,
    reason: string,
  ): RuleViolation {
    const allowedNow: string[] = [];
    for (const tool of this.#universe) {
      const allowance = this.#allowance(state, derived, tool, now);
      if (allowance) allowedNow.push(formatAllowance(allowance));
    }
    const what = call.operation === undefined ? call.tool : `${call.tool} (${call.operation})`;
    const allowedText = allowedNow.length > 0 ? allowedNow.join("; ") : "no tool";
    return {
      ruleId: rule.id,
      ruleType: rule.type,
      tool: call.tool,
      operation: call.operation,
      message: `Refused ${what} by ${rule.type} rule ${rule.id}: ${reason}. Allowed now: ${allowedText}.`,
      allowedNow,
    };
  }

  #derive(state: RuleState): Derived {
    const cached = this.#derived.get(state);
    if (cached) return cached;
    const called = new Set(state.calledThisRun);
    const allCalled = (tools: readonly string[]) => tools.every((t) => called.has(t));
    let termination: Derived["termination"] = { terminate: false };
    for (const rule of this.#terminal) {
      const fired =
        rule.tool === WILDCARD
          ? [...called].some((t) => !rule.conditions.includes(t))
          : called.has(rule.tool);
      if (fired && (rule.type === "Terminal" || allCalled(rule.conditions))) {
        termination = { terminate: true, ruleId: rule.id, rule };
        break;
      }
    }
    const pendingExit = unique(
      this.#exit
        .filter((r) => !called.has(r.tool) && (r.type === "RequiredForExit" || allCalled(r.conditions)))
        .map((r) => r.tool),
    );
    const initialPending = unique(
      this.#initial.filter((r) => (state.runAttempts[r.tool] ?? 0) === 0).map((r) => r.tool),
    );
    const derived: Derived = { called, termination, pendingExit, pendingExitSet: new Set(pendingExit), initialPending };
    this.#derived.set(state, derived);
    return derived;
  }
}
