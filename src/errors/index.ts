import { limitEndings } from "../messages/index.js";

/**
 * The one error family of guarded-graph. Every error the package throws to its users is a
 * `GuardedGraphError` with a stable `code` (like undici's `UND_ERR_*`): match on `error.code`, not
 * on the message, which may be reworded. Subclasses group the codes per area.
 *
 * Adding a code: add it to `ErrorCode` below (one line, with the sentence of when it is thrown),
 * list it in docs/errors.md, and throw the area's subclass with it.
 */

/** Every stable code, with when it is thrown. docs/errors.md lists the same table (a test keeps them in sync). */
export const ErrorCode = {
  /** An optional peer dependency (better-sqlite3, pg, @langchain/openai, …) is not installed. */
  MISSING_DEPENDENCY: "GG_ERR_MISSING_DEPENDENCY",
  /** A storage spec (`sqlite:PATH`, `postgres://…`, `memory:`) or SQL identifier is invalid. */
  STORAGE_SPEC: "GG_ERR_STORAGE_SPEC",
  /** A checkpointer or execution ledger could not be opened. */
  STORAGE_OPEN: "GG_ERR_STORAGE_OPEN",
  /** A storage object was used after it was closed. */
  STORAGE_CLOSED: "GG_ERR_STORAGE_CLOSED",
  /** The execution ledger could not sync completions it had committed; it refuses every later write. */
  STORAGE_WRITE: "GG_ERR_STORAGE_WRITE",
  /** A thread's last run was lost: its writes were saved under checkpoints that never were (durability "async" and a crash). */
  THREAD_RUN_LOST: "GG_ERR_THREAD_RUN_LOST",
  /** An audit sink spec or option (path, table name, url/pool) is invalid. */
  AUDIT_CONFIG: "GG_ERR_AUDIT_CONFIG",
  /** An audit record, query, id parts or redaction selector is invalid. */
  AUDIT_INVALID: "GG_ERR_AUDIT_INVALID",
  /** An audit write failed or the sink is closed. */
  AUDIT_WRITE: "GG_ERR_AUDIT_WRITE",
  /** The model configuration (OPENAI_API_KEY, OPENAI_BASE_URL, MODEL) is invalid. */
  MODEL_CONFIG: "GG_ERR_MODEL_CONFIG",
  /** A scripted scenario is unknown, unreadable or invalid. */
  SCENARIO: "GG_ERR_SCENARIO",
  /** A tool definition is invalid (e.g. an operationKey without values) or registered twice. */
  TOOL_DEFINITION: "GG_ERR_TOOL_DEFINITION",
  /** A policy (file or object) cannot be used. */
  POLICY: "GG_ERR_POLICY",
  /** Tool rules or rule state are invalid. */
  RULES: "GG_ERR_RULES",
  /** A call limit with `exitBehavior: "error"` was reached. */
  TOOL_CALL_LIMIT: "GG_ERR_TOOL_CALL_LIMIT",
  /** The guard is configured wrongly (missing tools, channels, options). */
  GUARD_CONFIG: "GG_ERR_GUARD_CONFIG",
  /** A resume value does not answer the pending approval request. */
  APPROVAL_RESUME: "GG_ERR_APPROVAL_RESUME",
  /** A standing (sticky) decision could not be revoked: unknown id, or the thread waits for an approval. */
  STICKY_REVOKE: "GG_ERR_STICKY_REVOKE",
  /** A running tool call was aborted (run cancelled, timeout, killswitch). */
  CALL_ABORTED: "GG_ERR_CALL_ABORTED",
  /** A memory or file operation was refused (`rule` names what refused it). */
  MEMORY_REFUSED: "GG_ERR_MEMORY_REFUSED",
  /** A memory store, archival index or source is configured wrongly. */
  MEMORY_CONFIG: "GG_ERR_MEMORY_CONFIG",
  /** CLI: wrong usage (unknown command or flag, malformed value); exit code 2. */
  CLI_USAGE: "GG_ERR_CLI_USAGE",
  /** CLI: the command was refused or failed; exit code 1. */
  CLI_FAILED: "GG_ERR_CLI_FAILED",
  /** The package's own files (policies/, scenarios/) cannot be found. */
  PACKAGE_FILES: "GG_ERR_PACKAGE_FILES",
  /** LangGraph Platform set-up: the auth handler's API keys, the store a graph needs, the CLI's server URL. */
  PLATFORM_CONFIG: "GG_ERR_PLATFORM_CONFIG",
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Base class of every error guarded-graph throws to its users. */
export class GuardedGraphError extends Error {
  override name = "GuardedGraphError";
  constructor(
    /** Stable code, e.g. `GG_ERR_POLICY`; see `ErrorCode`. */
    readonly code: ErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** An optional peer dependency is needed for what was asked and is not installed. */
export class MissingDependencyError extends GuardedGraphError {
  override name = "MissingDependencyError";
  /** The npm package to install, e.g. `better-sqlite3` (the first, when several are missing). */
  readonly packageName: string;
  /** Every package the feature still needs, all named in the message and the one install command. */
  readonly packageNames: readonly string[];
  constructor(
    packages: string | readonly string[],
    /** What needed it, e.g. `the SQLite checkpointer (sqlite:PATH)`. */
    readonly feature: string,
    options?: ErrorOptions,
  ) {
    const names = typeof packages === "string" ? [packages] : [...packages];
    const quoted = names.map((name) => `"${name}"`);
    const list = quoted.length === 1 ? `the optional package ${quoted[0]}` : `the optional packages ${quoted.slice(0, -1).join(", ")} and ${quoted.at(-1)}`;
    super(ErrorCode.MISSING_DEPENDENCY, `${feature} needs ${list}: run npm install ${names.join(" ")}`, options);
    this.packageName = names[0] ?? "";
    this.packageNames = names;
  }
}

type CodeOf<K extends keyof typeof ErrorCode> = (typeof ErrorCode)[K];

/** Checkpointer, ledger, thread listing and storage specs. */
export class StorageError extends GuardedGraphError {
  override name = "StorageError";
  constructor(code: CodeOf<"STORAGE_SPEC" | "STORAGE_OPEN" | "STORAGE_CLOSED" | "STORAGE_WRITE" | "THREAD_RUN_LOST">, message: string, options?: ErrorOptions) {
    super(code, message, options);
  }
}

/** Audit sinks, records, queries and redaction. */
export class AuditError extends GuardedGraphError {
  override name = "AuditError";
  constructor(code: CodeOf<"AUDIT_CONFIG" | "AUDIT_INVALID" | "AUDIT_WRITE">, message: string, options?: ErrorOptions) {
    super(code, message, options);
  }
}

/** Chat model configuration and scripted scenarios. */
export class ModelError extends GuardedGraphError {
  override name = "ModelError";
  constructor(code: CodeOf<"MODEL_CONFIG" | "SCENARIO">, message: string, options?: ErrorOptions) {
    super(code, message, options);
  }
}

/** Tool definitions and the tool registry. */
export class ToolDefinitionError extends GuardedGraphError {
  override name = "ToolDefinitionError";
  constructor(message: string, options?: ErrorOptions) {
    super(ErrorCode.TOOL_DEFINITION, message, options);
  }
}

/** Tool rules and rule state. */
export class RulesError extends GuardedGraphError {
  override name = "RulesError";
  constructor(message: string, options?: ErrorOptions) {
    super(ErrorCode.RULES, message, options);
  }
}

/** The fields of a ToolCallLimitError, as plain JSON. */
export interface ToolCallLimitStop {
  ruleId: string;
  tool: string;
  max?: number | undefined;
  current?: number | undefined;
  scope?: "run" | "thread" | undefined;
  reason: string;
}

/**
 * A MaxCalls / MaxTotalCalls rule with `exitBehavior: "error"` refused a call (LangChain's
 * ToolCallLimitExceededError). The fields say which limit, for which call, and the counts.
 */
export class ToolCallLimitError extends GuardedGraphError {
  override name = "ToolCallLimitError";
  readonly ruleId: string;
  readonly tool: string;
  readonly max: number | undefined;
  readonly current: number | undefined;
  readonly scope: "run" | "thread" | undefined;
  /** The rule's reason ("call limit reached: …"). */
  readonly reason: string;
  /** The tool call that crossed the limit, and the refusal sentence its ToolMessage carries (set by the guard's review). */
  readonly callId: string | undefined;
  readonly refusal: string | undefined;
  constructor(violation: ToolCallLimitStop, options?: ErrorOptions & { callId?: string; refusal?: string }) {
    super(ErrorCode.TOOL_CALL_LIMIT, limitEndings.error(violation.ruleId, violation.reason), options);
    this.callId = options?.callId;
    this.refusal = options?.refusal;
    this.ruleId = violation.ruleId;
    this.tool = violation.tool;
    this.max = violation.max;
    this.current = violation.current;
    this.scope = violation.scope;
    this.reason = violation.reason;
  }

  /** What the guard state keeps of it (plain JSON) to throw it again at the next step. */
  toStop(): ToolCallLimitStop {
    return { ruleId: this.ruleId, tool: this.tool, max: this.max, current: this.current, scope: this.scope, reason: this.reason };
  }
}

/** Guard configuration (createGuardedAgent, GuardedToolNode, guardMiddleware). */
export class GuardConfigError extends GuardedGraphError {
  override name = "GuardConfigError";
  constructor(message: string, options?: ErrorOptions) {
    super(ErrorCode.GUARD_CONFIG, message, options);
  }
}
