import type { ExitBehavior, PrefilledArgs, RuleScope, ToolRule } from "./types.js";

/** Default priorities of the rule types (higher runs first). */
export const DEFAULT_PRIORITIES = {
  InitialCall: 10,
  RequiredForExit: 9,
  RequiredForExitIf: 9,
  Terminal: 8,
  TerminalIf: 8,
  MustFollow: 5,
  MustPrecede: 5,
  ExclusiveGroup: 5,
  MaxCalls: 5,
  MaxTotalCalls: 5,
  ChildTools: 5,
  ParentTools: 5,
  ConditionalNext: 5,
  Cooldown: 5,
  Periodic: 1,
  NoHeartbeat: 1,
  ContinueLoop: 1,
  AllowedOperations: 0,
} as const satisfies Record<ToolRule["type"], number>;

/** Fluent builder for rule lists: one method per rule type, then `build()`. */
class ToolRulesBuilder {
  readonly #rules: ToolRule[] = [];

  /** `tool` may only run after every tool in `mustFollow` succeeded this run. */
  withToolDependency(tool: string, mustFollow: string | readonly string[]): this {
    return this.#add({ type: "MustFollow", tool, conditions: [mustFollow].flat() });
  }

  /** `tool` must succeed before any of `tools` may run this run. */
  withMustPrecede(tool: string, tools: readonly string[]): this {
    return this.#add({ type: "MustPrecede", tool, conditions: [...tools] });
  }

  withNoHeartbeatTool(tool: string): this {
    return this.#add({ type: "NoHeartbeat", tool });
  }

  withContinueLoop(tool: string): this {
    return this.#add({ type: "ContinueLoop", tool });
  }

  withTerminalTool(tool: string): this {
    return this.#add({ type: "Terminal", tool });
  }

  /** `tool` ends the run when it succeeds after every tool in `conditions` succeeded. */
  withTerminalIf(tool: string, conditions: readonly string[]): this {
    return this.#add({ type: "TerminalIf", tool, conditions: [...conditions] });
  }

  /** `tool` runs first. With `alternatives`, the first call is one of `tool` and them. `args` prefill the call. */
  withInitialCall(tool: string, options: { alternatives?: readonly string[]; args?: PrefilledArgs } = {}): this {
    return this.#add({
      type: "InitialCall",
      tool,
      ...(options.alternatives ? { alternatives: [...options.alternatives] } : {}),
      ...(options.args ? { args: options.args } : {}),
    });
  }

  withRequiredForExit(tool: string): this {
    return this.#add({ type: "RequiredForExit", tool });
  }

  /** `tool` must succeed before the run ends, once every tool in `conditions` succeeded. */
  withRequiredForExitIf(tool: string, conditions: readonly string[]): this {
    return this.#add({ type: "RequiredForExitIf", tool, conditions: [...conditions] });
  }

  withMaxCalls(tool: string, max: number, scope: RuleScope = "run", exitBehavior?: ExitBehavior): this {
    return this.#add({ type: "MaxCalls", tool, max, scope, ...(exitBehavior ? { exitBehavior } : {}) });
  }

  /** At most `max` calls to all tools together (LangChain's toolCallLimit without toolName). */
  withMaxTotalCalls(max: number, scope: RuleScope = "run", exitBehavior?: ExitBehavior): this {
    return this.#add({ type: "MaxTotalCalls", tool: "*", max, scope, ...(exitBehavior ? { exitBehavior } : {}) });
  }

  /** Right after `tool`, only `children` may be called (Letta's ChildToolRule). */
  withChildTools(tool: string, children: readonly string[], childArgs?: Record<string, PrefilledArgs>): this {
    return this.#add({ type: "ChildTools", tool, children: [...children], ...(childArgs ? { childArgs } : {}) });
  }

  /** `children` only right after `tool`, and right after it only they (Letta's ParentToolRule). */
  withParentTools(tool: string, children: readonly string[]): this {
    return this.#add({ type: "ParentTools", tool, children: [...children] });
  }

  /** Right after `tool`, its output picks the next tool (Letta's ConditionalToolRule). */
  withConditionalNext(
    tool: string,
    outputMapping: Record<string, string>,
    options: { defaultChild?: string; requireOutputMapping?: boolean } = {},
  ): this {
    return this.#add({ type: "ConditionalNext", tool, outputMapping: { ...outputMapping }, ...options });
  }

  withCooldown(tool: string, durationMs: number): this {
    return this.#add({ type: "Cooldown", tool, durationMs });
  }

  withPeriodic(tool: string, durationMs: number): this {
    return this.#add({ type: "Periodic", tool, durationMs });
  }

  withAllowedOperations(tool: string, operations: readonly string[]): this {
    return this.#add({ type: "AllowedOperations", tool, operations: [...operations] });
  }

  /** At most one of `tool` and `others` may be used per run. */
  withExclusiveGroup(tool: string, others: readonly string[]): this {
    return this.#add({ type: "ExclusiveGroup", tool, conditions: [...others] });
  }

  /** Any rule as is (its own priority, or none). */
  withRule(rule: ToolRule): this {
    this.#rules.push(structuredClone(rule));
    return this;
  }

  build(): ToolRule[] {
    return structuredClone(this.#rules);
  }

  #add(rule: ToolRule): this {
    this.#rules.push({ ...rule, priority: DEFAULT_PRIORITIES[rule.type] });
    return this;
  }
}

/**
 * Starts a fluent list of tool rules: `rules().withInitialCall("connect").withTerminalTool("load").build()`
 * gives the same plain rule objects a policy file or a `toolRules` array holds, with default priorities.
 */
export function rules(): ToolRulesBuilder {
  return new ToolRulesBuilder();
}
