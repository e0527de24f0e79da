import type { ArgumentKind } from "../policy/kinds/readings.js";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { z } from "zod";
import type { FieldOperations } from "./schema.js";

/** Risk category of a tool. Decides the default permission when no rule matches. */
export type RiskLevel = "low" | "medium" | "high" | "always-deny";

/** What a tool's `execute` receives besides its parsed input. */
export interface ToolExecutionContext {
  /** Aborted on run cancel, sibling failure in the same batch, or the tool's timeout. */
  readonly signal: AbortSignal;
  readonly toolCallId: string;
  /** Stable across re-runs of the same call (thread + tool call id): use it to de-duplicate side effects. */
  readonly idempotencyKey: string;
  readonly threadId: string | undefined;
  /** The LangGraph config of the task running the call (store, configurable, callbacks). */
  readonly config: LangGraphRunnableConfig | undefined;
}

/**
 * What kind of tool it is, as far as a failure matters to its batch siblings: "command" (a shell:
 * its failure cancels them), "read-only" (never does), "other" (does not, unless the tool says so).
 */
export type ToolKind = "command" | "read-only" | "other";

/** Guard metadata carried by every tool made with `defineTool`. Plain LangChain tools get defaults. */
export interface ToolGuardSpec<I = unknown> {
  /** Name of the operation discriminator field, when the tool has operations. */
  readonly operationKey: string | undefined;
  /** Operation names derived from the schema (empty when the tool has none). */
  readonly operations: readonly string[];
  readonly usageRule: string | undefined;
  readonly risk: RiskLevel | undefined;
  readonly idempotent: boolean;
  /** Per-operation risk overrides, e.g. `{ delete: "high" }`. */
  readonly operationRisk: Readonly<Record<string, RiskLevel>>;
  isConcurrencySafe(input: I): boolean;
  /** Per-call timeout in ms (undefined: none). */
  readonly timeoutMs: number | undefined;
  /** The tool's kind (declared, or "command" for a shell tool's name, else "other"). */
  readonly kind: ToolKind;
  /**
   * Whether a failure of this tool aborts its siblings in the same batch: as the tool says, else by
   * its kind (a command does, a read-only or other tool does not; see tools/kind.ts).
   */
  readonly cancelSiblingsOnError: boolean;
  /** Longest result kept before head/tail truncation (undefined: the guard's default). */
  readonly maxResultChars: number | undefined;
  /**
   * Asks the guard for human approval of this particular input (e.g. an edit of a block whose
   * permission needs consent): returns the reason, or undefined when no approval is needed.
   * Must not have side effects: the review step may run it again on resume.
   */
  readonly requiresApproval:
    | ((input: I, config: LangGraphRunnableConfig | undefined) => Promise<string | undefined> | string | undefined)
    | undefined;
  /**
   * Argument kinds the tool declares, by field selector (`{ path: "path", "request.url": "url" }`):
   * permission rules' plain string matchers on those fields compare canonical readings.
   */
  readonly argumentKinds?: Readonly<Record<string, ArgumentKind>> | undefined;
  /** Inlined, provider-safe JSON schema of the full input (flat for multi-operation tools; see tools/schema.ts). */
  readonly jsonSchema: JsonSchema;
  /** For a flattened multi-operation tool: which operations use each field (filtering drops unused fields). */
  readonly fieldOperations?: FieldOperations | undefined;
  readonly inputSchema: z.ZodType<I>;
}

export type JsonSchema = { [key: string]: unknown };

/** A LangChain structured tool that also carries its guard spec. */
export type GuardedTool<I = unknown> = StructuredToolInterface & {
  readonly guard: ToolGuardSpec<I>;
};

/** Any tool the guard can run: one made by `defineTool`, or any LangChain structured tool. */
export type AnyTool = StructuredToolInterface | GuardedTool;
