import { WILDCARD, type RankedRule } from "./normalize.js";
import type { RuleState, RuleViolation, TerminationDecision } from "./types.js";

/** The rule lists facts are derived from (fixed per engine). */
interface FactRules {
  terminal: readonly RankedRule[];
  exit: readonly RankedRule[];
  initial: readonly RankedRule[];
}

function unique(values: Iterable<string>): string[] {
  return [...new Set(values)];
}

/**
 * Facts derived from one state object, each computed on first use. States are never mutated,
 * so the engine caches one instance per state object.
 */
/** One tool's kept `checkCall` answers: without an operation, and per operation. */
interface KeptChecks {
  none: RuleViolation | null | undefined;
  byOperation: Map<string, RuleViolation | null> | undefined;
}

export class StateFacts {
  readonly #state: RuleState;
  readonly #rules: FactRules;
  #called: ReadonlySet<string> | undefined;
  #termination: (TerminationDecision & { rule?: RankedRule }) | undefined;
  #pendingExit: string[] | undefined;
  #pendingExitSet: ReadonlySet<string> | undefined;
  #initialPending: string[] | undefined;
  /** `allowedNow` for violation messages, for the last clock value asked. */
  allowedNow: { now: number; list: readonly string[]; text?: string } | undefined;
  /**
   * `checkCall`'s answers for this state at one clock value, by tool, then operation (`none`: the
   * call has none); `size` counts every answer kept. The engine copies what it hands out.
   */
  checks: { now: number; size: number; byTool: Map<string, KeptChecks> } | undefined;

  constructor(state: RuleState, rules: FactRules) {
    this.#state = state;
    this.#rules = rules;
  }

  /** Tools that succeeded this run. */
  get called(): ReadonlySet<string> {
    return (this.#called ??= new Set(this.#state.calledThisRun));
  }

  #calledInThread: ReadonlySet<string> | undefined;
  #totals: { run?: number; thread?: number } = {};

  /** Tools that succeeded at least once in the thread (rules with `scope: "thread"`). */
  get calledInThread(): ReadonlySet<string> {
    return (this.#calledInThread ??= new Set(
      Object.entries(this.#state.threadCounts).filter(([, n]) => n > 0).map(([t]) => t),
    ));
  }

  /** Calls to every tool together (attempts), in the run or the thread. */
  totalAttempts(scope: "run" | "thread"): number {
    const cached = this.#totals[scope];
    if (cached !== undefined) return cached;
    let total = 0;
    for (const n of Object.values(scope === "run" ? this.#state.runAttempts : this.#state.threadAttempts)) total += n;
    this.#totals[scope] = total;
    return total;
  }

  #allCalled(tools: readonly string[]): boolean {
    for (const t of tools) if (!this.called.has(t)) return false;
    return true;
  }

  /** The first Terminal/TerminalIf rule (by priority) that ended this run, if any. */
  get termination(): TerminationDecision & { rule?: RankedRule } {
    if (this.#termination) return this.#termination;
    this.#termination = { terminate: false };
    for (const rule of this.#rules.terminal) {
      const fired =
        rule.tool === WILDCARD
          ? [...this.called].some((t) => !rule.conditions.includes(t))
          : this.called.has(rule.tool);
      if (fired && (rule.type === "Terminal" || this.#allCalled(rule.conditions))) {
        this.#termination = { terminate: true, ruleId: rule.id, rule };
        break;
      }
    }
    return this.#termination;
  }

  get pendingExit(): string[] {
    return (this.#pendingExit ??= unique(
      this.#rules.exit
        .filter((r) => !this.called.has(r.tool) && (r.type === "RequiredForExit" || this.#allCalled(r.conditions)))
        .map((r) => r.tool),
    ));
  }

  get pendingExitSet(): ReadonlySet<string> {
    return (this.#pendingExitSet ??= new Set(this.pendingExit));
  }

  /** InitialCall tools not attempted yet this run. */
  get initialPending(): string[] {
    return (this.#initialPending ??= unique(
      this.#rules.initial
        .filter((r) => !(r.type === "InitialCall" && (r.alternatives ?? []).length > 0))
        .filter((r) => (this.#state.runAttempts[r.tool] ?? 0) === 0)
        .map((r) => r.tool),
    ));
  }
}
