import type { AuditSink } from "../audit/types.js";
import type { BaseMessage } from "@langchain/core/messages";
import type { PermissionMode } from "../policy/types.js";
import type { ToolRule } from "../rules/types.js";
import type { AnyTool, RiskLevel } from "../tools/types.js";
import type { ExecutionLedgerView, KillswitchView, PermissionDecider } from "./interfaces.js";
import type { McpOptions } from "../mcp/annotations.js";
import type { PermissionRule } from "../policy/permissions.js";

export type HumanDecisionType = "approve" | "edit" | "reject";

/** What `permissions` takes: a decider (`PermissionPolicy`, a swappable or your own), or a list of permission rules. */
export type PermissionsOption = PermissionDecider | readonly PermissionRule[];

export interface GuardOptions {
  tools: readonly AnyTool[];
  /** Tool rules (ordering, limits, cooldowns, terminal and exit tools, allowed operations). */
  rules?: readonly ToolRule[];
  /**
   * Permission rules on tool name and arguments: a `PermissionPolicy` (or any decider), or the rules
   * themselves (`[{ tool: "deploy", mode: "ask" }]`, built into a `PermissionPolicy` with its default
   * options). Without any, each tool's risk decides.
   */
  permissions?: PermissionsOption;
  /**
   * A candidate policy run in shadow beside `permissions`: decided on every call, audited
   * (`detail.shadow` of each decision record) and streamed (`shadow` of each decision event) as what
   * it would have done, never enforced. Wins over the shadow rules of `permissions` (`shadow: true`).
   * A policy file's `shadow: FILE` sets it.
   */
  shadowPermissions?: PermissionsOption;
  /** Risk per tool name, overriding what the tool declares (used when `permissions` is absent). */
  toolRisk?: Readonly<Record<string, RiskLevel>>;
  /** Risk per tool and operation (`{ kubectl: { delete: "high" } }`), from a policy's `tools.X.operations`. */
  operationRisk?: Readonly<Record<string, Readonly<Record<string, RiskLevel>>>>;
  /** Tools whose `toolRisk` may be lower than the risk they declare (else the higher of the two counts). */
  lowerRisk?: readonly string[];
  /**
   * Risk of a tool that declares none (neither the tool, `toolRisk` nor `operationRisk` gives one).
   * Unset (the default): a call no permission rule matches, on such a tool, asks a human (rule id
   * `default:ask`: a call no rule decides asks). `"medium"` lets such calls run, as `low` does.
   * A policy file's `defaultRisk` sets the same thing.
   */
  defaultRisk?: RiskLevel;
  /**
   * MCP tools (loaded with `@langchain/mcp-adapters`, named `mcp__SERVER__TOOL`): their annotations
   * are defaults that may only make a tool stricter (destructiveHint → high risk), except for the
   * servers named in `trustAnnotations`, whose readOnlyHint also makes a tool low risk and
   * concurrency-safe. A policy file's `mcp:` adds to it.
   */
  mcp?: McpOptions;
  /** Mode per risk level when no permission rule matches: default low/medium allow, high ask, always-deny deny. */
  riskModes?: Partial<Record<RiskLevel, PermissionMode>>;
  killswitch?: KillswitchView;
  audit?: AuditSink;
  /** Field selectors whose values the audit log replaces with "[REDACTED]". */
  redact?: readonly string[];
  /** Auto-approve calls that would ask (the killswitch can disable this). Default false. */
  bypass?: boolean;
  /**
   * Send tool definitions in OpenAI strict mode (`strict: true`; every field required, optional ones
   * nullable, `additionalProperties: false`) for each tool whose schema allows it; the others go
   * with `strict: false`. "auto" (default): for LangChain's OpenAI chat models (ChatOpenAI and
   * AzureChatOpenAI, whatever OpenAI-compatible server they call); true: for every model; false: never.
   * Whatever the model, a null in an optional field that does not accept null reads as absent.
   */
  strictTools?: boolean | "auto";
  /** Largest parallel batch of concurrency-safe calls. Default 10. */
  maxConcurrency?: number;
  /** Longest tool result kept (head and tail around a marker). Default 10,000 characters. */
  maxResultChars?: number;
  /** Timeout of a call whose tool sets none (ms). Default none. */
  defaultTimeoutMs?: number;
  /** How long an aborted tool that ignores its signal is waited for before it is abandoned (ms). Default 1,000. */
  abortGraceMs?: number;
  /** MemGPT-style heartbeats: the loop continues only when a call asks for it. Default false. */
  heartbeat?: boolean;
  /** Reminders before a pending RequiredForExit tool is forced. Default 1. */
  maxExitReminders?: number;
  /** Decisions a human may take on an approval request. Default all three. */
  allowedDecisions?: readonly HumanDecisionType[];
  /**
   * Per-tool approval settings like LangChain's `interruptOn` (allowed decisions, description,
   * argsSchema, `when`); they can only add asks, never turn an ask or a deny into an allow (approval/interrupt-on.ts).
   */
  interruptOn?: InterruptOn;
  /** Records executed calls so a call completed by one worker is never run again by another. */
  ledger?: ExecutionLedgerView;
  /**
   * How long a ledger claim lives without renewal (ms). The running worker renews it every third
   * of that, so a crashed worker's calls can be claimed again within one lease. Default 10,000.
   */
  ledgerLeaseMs?: number;
  /** Identifies this worker in the ledger. Default `pid@host`. */
  workerId?: string;
  now?: () => number;
}

// ─── per-tool approval settings (LangChain's `interruptOn`), applied in approval/interrupt-on.ts ───

/** The call as LangChain's HITL middleware hands it to `description` and `when`. */
export interface InterruptToolCall {
  type: "tool_call";
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/** What the guard can show of the graph state: the thread's messages as checkpointed. */
interface InterruptState {
  messages: readonly BaseMessage[];
}

/** The run's runtime, as LangChain's middleware Runtime names it. */
export interface InterruptRuntime {
  configurable: Record<string, unknown> | undefined;
  context: unknown;
  store: unknown;
  writer: ((chunk: unknown) => void) | undefined;
  signal: AbortSignal | undefined;
}

export interface InterruptRequest {
  toolCall: InterruptToolCall;
  /** Always undefined, as in LangChain: the predicate runs at review, before any tool is chosen to run. */
  tool: undefined;
  state: InterruptState;
  runtime: InterruptRuntime;
}

/**
 * Per-tool approval settings, with the names and meaning of LangChain's `interruptOn` where that is
 * safe. Unlike LangChain, this can only make the guard stricter: a policy "ask" is never turned
 * into "allow", and a deny is never touched.
 */
export interface InterruptOnConfig {
  /** Decisions a reviewer may take on this tool's calls (default: the guard's `allowedDecisions`). */
  allowedDecisions?: readonly HumanDecisionType[];
  /** Shown to the reviewer instead of the guard's description. */
  description?: string | ((toolCall: InterruptToolCall, state: InterruptState, runtime: InterruptRuntime) => string | Promise<string>);
  /** JSON schema of the arguments shown for edits (default: the tool's own schema). */
  argsSchema?: Record<string, unknown>;
  /** Whether a call the policy allows asks anyway (default: always). A policy "ask" asks regardless. */
  when?: (request: InterruptRequest) => boolean | Promise<boolean>;
}

/**
 * Tool name → `true` (calls the policy allows ask too, every decision allowed), `false` (nothing
 * added: the policy decides; LangChain would auto-approve, which could weaken a policy "ask"), or a
 * config.
 */
export type InterruptOn = Readonly<Record<string, boolean | InterruptOnConfig>>;

/** GuardOptions as a `Guard` holds them: `permissions` and `shadowPermissions` are deciders (a list of rules became a `PermissionPolicy`). */
export type GuardSettings = Omit<GuardOptions, "permissions" | "shadowPermissions"> & {
  readonly permissions?: PermissionDecider;
  readonly shadowPermissions?: PermissionDecider;
};
