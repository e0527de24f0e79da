import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { hostname } from "node:os";
import { ToolRulesEngine } from "../rules/engine.js";
import { assertValidRules } from "../rules/validate.js";
import type { RuleState, ToolRule } from "../rules/types.js";
import { ToolRegistry, guardSpecOf } from "../tools/registry.js";
import type { ToolAllowance, ToolDefinition } from "../tools/registry.js";
import type { AnyTool, RiskLevel, ToolGuardSpec } from "../tools/types.js";
import type { GuardOptions, GuardSettings, HumanDecisionType, PermissionsOption } from "./options.js";
import { PermissionPolicy } from "../policy/permissions.js";
import { overriddenRisk } from "../policy/risk.js";
import type { PermissionDecider } from "./interfaces.js";
import { assertPermissionsFit } from "../policy/check.js";
import { permissionPolicy } from "../policy/file.js";
import { SwappablePermissions } from "../policy/watch.js";
import { reviewCall } from "./review.js";
import type { RawToolCall } from "./review.js";
import type { ReviewedCall } from "./state.js";
import type { DecisionContext, TurnCall } from "../provenance/context.js";
import { HEARTBEAT_DESCRIPTION } from "../messages/index.js";
import { withoutStrictNulls } from "../tools/schema.js";
import { annotatedSpecs, trustProblems } from "../mcp/annotations.js";
import { GuardConfigError } from "../errors/index.js";

const HEARTBEAT_ARG = "request_heartbeat";

/** The guard options that set risk levels (a policy's `tools.X.risk`, `tools.X.operations`, `lowerRisk`, `defaultRisk`, `mcp.trustAnnotations`). */
type RiskSettings = Pick<GuardOptions, "toolRisk" | "operationRisk" | "lowerRisk" | "defaultRisk" | "mcp" | "riskModes">;

interface RiskTable {
  readonly toolRisk: Readonly<Record<string, RiskLevel>>;
  readonly operationRisk: Readonly<Record<string, Readonly<Record<string, RiskLevel>>>>;
  readonly lowerRisk: ReadonlySet<string>;
  readonly defaultRisk: RiskLevel | undefined;
  /** MCP tools whose annotations change their spec (src/mcp/annotations.ts), by name. */
  readonly mcpSpecs: ReadonlyMap<string, ToolGuardSpec>;
}

/**
 * What decides an undeclared tool's call when no rule matches, for the MCP hints' stricter-only test:
 * the guard's `defaultRisk` and `riskModes`, else those of a PermissionPolicy handed to it (which
 * applies its own defaultRisk to a tool the guard declares no risk for).
 */
function riskBaseline(settings: RiskSettings, permissions: GuardSettings["permissions"]) {
  const policy = permissions instanceof SwappablePermissions ? permissionPolicy(permissions.loaded) : permissions;
  const own = policy instanceof PermissionPolicy ? policy.definition.options : {};
  return { defaultRisk: settings.defaultRisk ?? own.defaultRisk, riskModes: { ...own.riskModes, ...settings.riskModes } };
}

/** A frozen copy: a caller changing its objects later changes nothing in force. */
function riskSettings(settings: RiskSettings, registry: ToolRegistry, permissions: GuardSettings["permissions"]): RiskTable {
  const problems = trustProblems(registry.list(), settings.mcp);
  if (problems.length > 0) throw new GuardConfigError(problems.join("; "));
  return Object.freeze({
    toolRisk: { ...settings.toolRisk },
    operationRisk: Object.fromEntries(Object.entries(settings.operationRisk ?? {}).map(([tool, ops]) => [tool, { ...ops }])),
    lowerRisk: new Set(settings.lowerRisk ?? []),
    defaultRisk: settings.defaultRisk,
    mcpSpecs: annotatedSpecs(registry.list(), guardSpecOf, settings.mcp, riskBaseline(settings, permissions)),
  });
}
/**
 * `permissions` or `shadowPermissions` as the guard holds it: a decider as given, a list of
 * permission rules built into a PermissionPolicy (its errors name the rule), anything else refused
 * here rather than at the first call.
 */
function deciderOf(given: PermissionsOption | undefined, option: "permissions" | "shadowPermissions"): PermissionDecider | undefined {
  if (given === undefined) return undefined;
  if (Array.isArray(given)) return new PermissionPolicy(given);
  const decide = typeof given === "object" && given !== null ? (given as { decide?: unknown }).decide : undefined;
  if (typeof decide === "function") return given as PermissionDecider;
  throw new GuardConfigError(
    `${option} must be a PermissionPolicy (new PermissionPolicy(rules), or permissionPolicy(parsePolicy(text))), a list of permission rules, or an object with a decide(tool, args) method; got ${given === null ? "null" : typeof given}`,
  );
}

/** Distinct allowance sets whose tool definitions are kept (a rule state rarely yields many). */
const MAX_CACHED_DEFINITIONS = 64;

/**
 * The guard's configuration and pure decisions, shared by the agent graph, GuardedToolNode and
 * the LangChain middleware. Holds no per-thread state: that lives in the graph state.
 */
export class Guard {
  readonly registry: ToolRegistry;
  /** The options given, with `permissions` and `shadowPermissions` as deciders (see `GuardSettings`). */
  readonly options: GuardSettings;
  readonly maxConcurrency: number;
  readonly maxResultChars: number;
  readonly abortGraceMs: number;
  readonly maxExitReminders: number;
  readonly allowedDecisions: readonly HumanDecisionType[];
  readonly workerId: string;
  readonly ledgerLeaseMs: number;
  readonly now: () => number;

  constructor(given: GuardOptions) {
    const decider = deciderOf(given.permissions, "permissions");
    const shadowDecider = deciderOf(given.shadowPermissions, "shadowPermissions");
    const options: GuardSettings =
      given.permissions === decider && given.shadowPermissions === shadowDecider ? (given as GuardSettings) : { ...given, permissions: decider, shadowPermissions: shadowDecider };
    this.options = options;
    this.registry = new ToolRegistry(options.tools);
    this.now = options.now ?? Date.now;
    this.#rules = this.compileRules(options.rules ?? []);
    this.#risks = riskSettings(options, this.registry, options.permissions);
    // Permission rules naming no known tool, or reading an argument their tool lacks, would never
    // fire: checked here against the tools as `policy check --graph` checks a file (issue 12).
    // The argument kinds the tools declare reach the policy's matchers (the policy's own win).
    const kinds = this.registry.argumentKinds();
    if (options.permissions instanceof PermissionPolicy || options.permissions instanceof SwappablePermissions) {
      if (kinds.size > 0) options.permissions.declareToolKinds(kinds);
      options.permissions.declareToolArguments(this.registry.argumentNames());
    }
    const permissions = options.permissions instanceof SwappablePermissions ? permissionPolicy(options.permissions.loaded) : options.permissions;
    if (permissions instanceof PermissionPolicy) assertPermissionsFit(permissions, this.registry.catalog(), this.registry.argumentNames());
    this.maxConcurrency = Math.max(1, options.maxConcurrency ?? 10);
    this.maxResultChars = options.maxResultChars ?? 10_000;
    this.abortGraceMs = options.abortGraceMs ?? 1_000;
    this.maxExitReminders = options.maxExitReminders ?? 1;
    this.allowedDecisions = options.allowedDecisions ?? ["approve", "edit", "reject"];
    this.workerId = options.workerId ?? `${process.pid}@${hostname()}`;
    this.ledgerLeaseMs = Math.max(30, options.ledgerLeaseMs ?? 10_000);
  }

  /** The tool rules in force (replaced whole by `prepareRules(...)()`, e.g. when a watched policy file changes). */
  get engine(): ToolRulesEngine {
    return this.#rules.engine;
  }

  /** Whether some rule can make a call wait for another call of the same turn (MustFollow, MustPrecede, InitialCall). */
  get hasPrerequisiteRules(): boolean {
    return this.#rules.hasPrerequisites;
  }

  /**
   * Validates and compiles new tool rules (throws on unknown tools or operations and on malformed
   * rules) and returns the function that puts them in force: one assignment, so a decision sees the
   * old rules or the new ones, never a mix. Rule state is kept per tool, not per rule: counts, last
   * call times and the run's call order survive the swap and the new rules read them.
   */
  prepareRules(rules: readonly ToolRule[]): () => void {
    const next = this.compileRules(rules);
    return () => {
      this.#rules = next;
      this.#definitionCache.clear();
      this.#usage = undefined;
    };
  }

  /**
   * Returns the function that puts new risk settings (`toolRisk`, `operationRisk`, `lowerRisk`,
   * `defaultRisk`) in force: one assignment, so a lookup sees the old settings or the new ones. A
   * watched policy file swaps them with its permission rules and tool rules.
   */
  prepareRisks(settings: RiskSettings): () => void {
    const next = riskSettings(settings, this.registry, this.options.permissions);
    return () => {
      this.#risks = next;
    };
  }

  private compileRules(given: readonly ToolRule[]): { engine: ToolRulesEngine; hasPrerequisites: boolean } {
    const rules = [...given, ...returnDirectRules(this.registry, given)];
    // Unknown tools and operations in the rules are errors now, not surprises mid-run.
    assertValidRules(rules, this.registry.catalog(), { schemas: this.registry.inputSchemas() });
    const engine = new ToolRulesEngine([...rules], {
      tools: this.registry.catalog(),
      now: this.now,
      // No rule reads the execution history: keeping none keeps each checkpoint small.
      historyLimit: 0,
    });
    const hasPrerequisites = engine.rules.some(
      (r) => r.type === "MustFollow" || r.type === "MustPrecede" || r.type === "InitialCall" || r.type === "ParentTools",
    );
    return { engine, hasPrerequisites };
  }

  tool(name: string): AnyTool | undefined {
    return this.registry.get(name);
  }

  /**
   * Makes the guard review `tool` like its own tools while another part of the agent runs it: a tool
   * another middleware, or `createAgent({ tools })`, gives a `createAgent` agent (guardMiddleware
   * runs it through the agent's own tool handler, once the guard approved it). A tool the guard
   * already has is left as it is. The guard's own executor never runs a delegated tool.
   */
  delegate(tool: AnyTool): void {
    if (this.registry.has(tool.name)) return;
    this.registry.register(tool);
    this.#delegated.add(tool.name);
    this.#definitionCache.clear();
    this.#usage = undefined;
  }

  /** Marks tools given with the guard's own as run elsewhere (guardMiddleware's `agentTools`). */
  markDelegated(names: Iterable<string>): void {
    for (const name of names) if (this.registry.has(name)) this.#delegated.add(name);
  }

  /** Whether the guard reviews `name` but another part of the agent runs it (`delegate`). */
  isDelegated(name: string): boolean {
    return this.#delegated.has(name);
  }

  readonly #delegated = new Set<string>();

  /** The tool's guard spec; for an MCP tool, with its annotations applied as `mcp.trustAnnotations` allows. */
  spec(name: string): ToolGuardSpec | undefined {
    return this.#risks.mcpSpecs.get(name) ?? this.registry.spec(name);
  }

  /** Effective risk (`declaredRisk`), else medium. */
  riskOf(name: string, operation?: string): RiskLevel {
    return this.declaredRisk(name, operation) ?? "medium";
  }

  /**
   * The risk someone declared: the policy's per-operation risk, else the higher of the policy's
   * per-tool risk and the tool's own (per operation, else per tool; the policy's alone with
   * lowerRisk), else `defaultRisk`; undefined when nobody did (then a call no rule matches asks).
   * The settings in force are the last `prepareRisks` put there (a watched policy file swaps them).
   */
  declaredRisk(name: string, operation?: string): RiskLevel | undefined {
    return this.#ownDeclaredRisk(name, operation) ?? this.#risks.defaultRisk;
  }

  #ownDeclaredRisk(name: string, operation?: string): RiskLevel | undefined {
    return overriddenRisk(this.#risks, name, operation, this.toolOwnRisk(name, operation));
  }

  /** The risk the tool itself declares (per operation, else per tool; MCP annotations applied), before any policy. */
  toolOwnRisk(name: string, operation?: string): RiskLevel | undefined {
    const spec = this.spec(name);
    return (operation !== undefined ? spec?.operationRisk[operation] : undefined) ?? spec?.risk;
  }

  /** The decider run in shadow: `shadowPermissions`, else the shadow rules of `permissions`; undefined when there is none. */
  get shadowPermissions(): PermissionDecider | undefined {
    return this.options.shadowPermissions ?? this.options.permissions?.shadow;
  }

  initialRuleState(): RuleState {
    return this.engine.initialState(this.now());
  }

  usesHeartbeat(name: string): boolean {
    return this.options.heartbeat === true && this.engine.requiresHeartbeat(name) && !this.engine.continuesLoop(name);
  }

  /**
   * The model's arguments as the guard reads them: a null in an optional field whose schema does not
   * accept null is dropped (strict mode's "absent"; see `withoutStrictNulls`), and the heartbeat flag
   * is split off. Review and the middleware's check of a planned call both read arguments this way.
   * `noNulls`: the caller knows the arguments hold no null anywhere (nothing to drop).
   */
  splitHeartbeat(name: string, modelArgs: Record<string, unknown>, noNulls = false): { args: Record<string, unknown>; heartbeat: boolean } {
    const spec = noNulls ? undefined : this.registry.spec(name);
    const args = spec === undefined ? modelArgs : (withoutStrictNulls(modelArgs, spec.jsonSchema) as Record<string, unknown>);
    if (!this.usesHeartbeat(name) || !(HEARTBEAT_ARG in args)) return { args, heartbeat: false };
    const { [HEARTBEAT_ARG]: flag, ...rest } = args;
    return { args: rest, heartbeat: flag === true };
  }

  /** Reviews the calls of one model turn in order; each approved call counts against the rules for the next. */
  reviewTurn(
    state: RuleState,
    calls: readonly RawToolCall[],
    config?: LangGraphRunnableConfig,
    context?: Omit<DecisionContext, "turnCalls">,
  ): Promise<{ reviewed: ReviewedCall[]; provisional: RuleState }> {
    // Synchronous until a call's review is not (a tool's consent check): no async frame per turn.
    // A review that throws (a limit with exitBehavior "error") rejects the turn, as it always has.
    try {
      // Calls of this turn that were not refused: budgets count them before they run (only read with a context).
      const turn: TurnProgress = { reviewed: [], provisional: state, turnCalls: context === undefined ? undefined : [] };
      const done = this.#reviewFrom(turn, 0, calls, config, context);
      return done === undefined ? Promise.resolve({ reviewed: turn.reviewed, provisional: turn.provisional }) : done;
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Reviews `calls` from `start` into `turn`; undefined when all were synchronous, else the rest of the turn as a promise. */
  #reviewFrom(
    turn: TurnProgress,
    start: number,
    calls: readonly RawToolCall[],
    config: LangGraphRunnableConfig | undefined,
    context: Omit<DecisionContext, "turnCalls"> | undefined,
  ): Promise<{ reviewed: ReviewedCall[]; provisional: RuleState }> | undefined {
    const turnCalls = turn.turnCalls;
    for (let index = start; index < calls.length; index++) {
      const call = calls[index]!;
      const draft = reviewCall(this, turn.provisional, call, config, context === undefined || turnCalls === undefined ? undefined : { messages: context.messages, threadId: context.threadId, turnCalls: [...turnCalls] });
      if (isPromise(draft)) {
        return draft.then((result) => {
          this.#reviewed(turn, result, index, calls.length);
          return this.#reviewFrom(turn, index + 1, calls, config, context) ?? { reviewed: turn.reviewed, provisional: turn.provisional };
        });
      }
      this.#reviewed(turn, draft, index, calls.length);
    }
    return undefined;
  }

  #reviewed(turn: TurnProgress, result: ReviewedCall, index: number, count: number): void {
    turn.reviewed.push(result);
    if (result.outcome !== "refuse" && turn.turnCalls !== undefined) turn.turnCalls.push({ name: result.name, args: result.args });
    // Only later calls of the turn read the provisional state: the last call need not be recorded.
    if (result.outcome !== "refuse" && index < count - 1) {
      turn.provisional = this.engine.record(turn.provisional, {
        tool: result.name,
        operation: result.operation,
        callId: result.id,
        success: true,
        at: this.now(),
      });
    }
  }

  /** What the model may use now: only allowed tools, operation enums filtered (filter first, reject as a backstop). */
  allowances(state: RuleState): ToolAllowance[] {
    return this.engine
      .allowedTools(state, this.registry.names(), this.now())
      .map((a) => ({ name: a.name, operations: a.operations }));
  }

  /**
   * Whether tool definitions for `model` go in OpenAI strict mode (`strictTools`, default "auto":
   * for LangChain's OpenAI chat models, ChatOpenAI and AzureChatOpenAI, whatever server they call).
   */
  strictToolsFor(model: unknown): boolean {
    const setting = this.options.strictTools ?? "auto";
    if (setting !== "auto") return setting;
    const llmType = (model as { _llmType?: unknown } | null)?._llmType;
    if (typeof llmType !== "function") return false;
    try {
      const type: unknown = (llmType as () => unknown).call(model);
      return type === "openai" || type === "azure_openai";
    } catch {
      return false;
    }
  }

  /**
   * Tool definitions to bind to the model for this step: flat schemas (one object per tool, no root
   * oneOf), with `strict` each tool whose schema allows it in strict form with `strict: true`.
   */
  definitions(state: RuleState, options: { strict?: boolean } = {}): ToolDefinition[] {
    const allowances = this.allowances(state);
    const strict = options.strict === true;
    // Most turns allow the same tools: definitions are built once per distinct allowance set.
    const key = `${strict ? "strict:" : ""}${JSON.stringify(allowances)}`;
    let defs = this.#definitionCache.get(key);
    if (!defs) {
      const built = this.registry.definitions(allowances, { strict });
      defs = this.options.heartbeat !== true ? built : built.map((def) => (this.usesHeartbeat(def.function.name) ? withHeartbeatArg(def) : def));
      if (this.#definitionCache.size >= MAX_CACHED_DEFINITIONS) this.#definitionCache.clear();
      this.#definitionCache.set(key, defs);
    }
    return [...defs];
  }

  /** The "Tool usage rules" section for the system prompt; rebuilt only when the permission policy's lines change. */
  usageSection(): string {
    const permissionLines = this.options.permissions?.usageLines?.() ?? [];
    const key = permissionLines.join("\n");
    if (this.#usage?.key === key) return this.#usage.text;
    const toolRules: Record<string, string> = {};
    for (const tool of this.registry.list()) {
      const rule = guardSpecOf(tool).usageRule;
      if (rule) toolRules[tool.name] = rule;
    }
    const text = this.engine.usageSection(toolRules, permissionLines);
    this.#usage = { key, text };
    return text;
  }

  #rules: { engine: ToolRulesEngine; hasPrerequisites: boolean };
  #risks: RiskTable;
  readonly #definitionCache = new Map<string, ToolDefinition[]>();
  #usage: { key: string; text: string } | undefined;
}

/** A turn's review so far. */
interface TurnProgress {
  reviewed: ReviewedCall[];
  provisional: RuleState;
  turnCalls: TurnCall[] | undefined;
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown }).then === "function";
}

function withHeartbeatArg(def: ToolDefinition): ToolDefinition {
  const parameters = structuredClone(def.function.parameters);
  const properties = (parameters.properties ?? {}) as Record<string, unknown>;
  // Strict mode: every field required, an optional one nullable (null reads as "no heartbeat").
  const strict = def.function.strict === true;
  properties[HEARTBEAT_ARG] = {
    type: strict ? ["boolean", "null"] : "boolean",
    description: HEARTBEAT_DESCRIPTION,
  };
  parameters.properties = properties;
  if (strict) parameters.required = [...((parameters.required as string[] | undefined) ?? []), HEARTBEAT_ARG];
  return { ...def, function: { ...def.function, parameters } };
}

/**
 * A LangChain tool with `returnDirect: true` ends the run once it succeeded (LangChain's createAgent
 * and LangGraph's createReactAgent return its result without calling the model again): the guard's
 * `Terminal` rule says exactly that, so each such tool gets one, unless a Terminal rule names it or
 * a RequiredForExit rule does (the user's rule then says what the tool is to the run).
 */
function returnDirectRules(registry: ToolRegistry, rules: readonly ToolRule[]): ToolRule[] {
  const terminal = new Set(rules.filter((r) => r.type === "Terminal" || r.type === "RequiredForExit").map((r) => r.tool));
  return registry
    .list()
    .filter((tool) => (tool as { returnDirect?: unknown }).returnDirect === true && !terminal.has(tool.name))
    .map((tool) => ({ type: "Terminal" as const, tool: tool.name, id: `returnDirect:${tool.name}` }));
}
