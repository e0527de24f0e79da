import { ToolInputParsingException, tool as lcTool } from "@langchain/core/tools";
import type { ToolRunnableConfig } from "@langchain/core/tools";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { randomUUID } from "node:crypto";
import { sha256Hex } from "../sha256.js";
import { z } from "zod";
import { detectOperationKey, flattenOperationUnion, operationsInSchema, toToolJsonSchema } from "./schema.js";
import type { GuardedTool, RiskLevel, ToolExecutionContext, ToolGuardSpec, ToolKind } from "./types.js";
import { cancelsSiblingsByDefault, toolKindOf } from "./kind.js";
import { isCommandLike } from "./command-result.js";
import { ToolDefinitionError } from "../errors/index.js";
import { ARGUMENT_KINDS, type ArgumentKind } from "../policy/kinds/readings.js";
import { toolContent, type ToolContent } from "./tool-content.js";

/** What `defineTool` takes: the tool's name, description and zod schema, how it runs, and what the guard should know about it (risk, kind, timeouts). */
export interface DefineToolOptions<S extends z.ZodType<Record<string, unknown>>, R> {
  name: string;
  description: string;
  schema: S;
  /** Discriminator field of a multi-operation tool; defaults to `operation` or `op` when present. */
  operationKey?: string;
  usageRule?: string;
  risk?: RiskLevel;
  operationRisk?: Record<string, RiskLevel>;
  /** Whether this particular input may run in parallel with other safe calls. Default: never. */
  isConcurrencySafe?: (input: z.output<S>) => boolean;
  idempotent?: boolean;
  timeoutMs?: number;
  /**
   * "command" (a shell), "read-only" or "other". Default: "command" for a shell tool's name (bash,
   * shell, sh, run_command, …), else "other". Sets the default of `cancelSiblingsOnError`.
   */
  kind?: ToolKind;
  /**
   * What some arguments are, by field selector: `{ path: "path", target: "url" }` (path, url,
   * domain, email, command, or text for none). Every plain string matcher (`equals`, `in`,
   * `prefix`, `glob`, `regex`) a permission rule writes on such a field then compares the value's
   * canonical readings (a path resolved, a URL normalised), not its spelling. Without a declaration,
   * conventional names (path, file_path, url, command, host, ...) have their kind.
   */
  argumentKinds?: Readonly<Partial<Record<(keyof z.output<S> & string) | (string & {}), ArgumentKind>>>;
  /** Whether a failure aborts the other calls of its batch. Default: by `kind` (true for a command only). */
  cancelSiblingsOnError?: boolean;
  maxResultChars?: number;
  /** Reason to ask a human before running this input, or undefined. Pure: may run again on resume. */
  requiresApproval?: (
    input: z.output<S>,
    config: LangGraphRunnableConfig | undefined,
  ) => Promise<string | undefined> | string | undefined;
  execute: (input: z.output<S>, context: ToolExecutionContext) => Promise<R> | R;
}

/** Key that identifies one tool call across re-runs and processes: thread + tool call id. */
export function idempotencyKeyFor(threadId: string | undefined, toolCallId: string): string {
  return sha256Hex(`${threadId ?? ""}\u0000${toolCallId}`).slice(0, 32);
}

/** Where the guard's executor passes a call's abort signal (see guard/execute.ts). */
export const GUARD_SIGNAL_KEY = "__guard_signal";

/** Builds the execution context from the runnable config LangChain passes to a tool. */
function executionContextFrom(config: ToolRunnableConfig | undefined): ToolExecutionContext {
  const configurable = (config?.configurable ?? {}) as Record<string, unknown>;
  const guardSignal = configurable[GUARD_SIGNAL_KEY];
  // A direct invocation (no tool call) gets an id of its own: one shared "direct" id would give every
  // direct call the same idempotency key, and a second, different message would be taken for a re-send.
  const toolCallId = config?.toolCall?.id ?? (configurable.tool_call_id as string | undefined) ?? `direct_${randomUUID()}`;
  const threadId = configurable.thread_id as string | undefined;
  const key = configurable.idempotency_key;
  return {
    signal: guardSignal instanceof AbortSignal ? guardSignal : (config?.signal ?? new AbortController().signal),
    toolCallId,
    threadId,
    idempotencyKey: typeof key === "string" ? key : idempotencyKeyFor(threadId, toolCallId),
    config: config as LangGraphRunnableConfig | undefined,
  };
}

/**
 * Runs a `defineTool` tool's own function the way LangChain's tool wrapper would (the input parsed
 * by the tool's schema, the same refusal text when it does not fit, the result as a string), minus
 * the wrapper's callbacks: for the guard's executor when nothing observes tool runs (guard/execute.ts).
 */
type DirectRun = (args: unknown, config: ToolRunnableConfig) => Promise<ToolContent | object>;

const directRuns = new WeakMap<object, DirectRun>();

/** The direct runner of a tool made by `defineTool` (undefined for any other tool). */
export function directRunOf(tool: object): DirectRun | undefined {
  return directRuns.get(tool);
}

/**
 * The tool's result as its ToolMessage's content: text, or content blocks (tool-content.ts). A
 * LangGraph Command goes as it is: the guard applies it as LangGraph's ToolNode does (command-result.ts).
 */
function stringify(result: unknown): ToolContent | object {
  if (typeof result === "string") return result;
  if (isCommandLike(result)) return result;
  return toolContent(result);
}

/**
 * A typed (multi-operation) tool. The result is a real LangChain structured tool, usable
 * anywhere LangChain tools are, that also carries the guard's metadata in `.guard`.
 */
export function defineTool<S extends z.ZodType<Record<string, unknown>>, R = unknown>(
  options: DefineToolOptions<S, R>,
): GuardedTool<z.output<S>> {
  // A union of operations is published flat (one object, provider-safe) and validated exactly per
  // operation by the original schema, which the flat one pipes into.
  const flat = flattenOperationUnion(options.schema, options.operationKey);
  const published = (flat?.schema ?? options.schema) as unknown as z.ZodType<z.output<S>>;
  const jsonSchema = toToolJsonSchema(published);
  const operationKey = flat?.operationKey ?? detectOperationKey(jsonSchema, options.operationKey);
  const operations = flat?.operations ?? (operationKey ? operationsInSchema(jsonSchema, operationKey) : []);
  if (options.operationKey !== undefined && operations.length === 0) {
    throw new ToolDefinitionError(
      `defineTool(${options.name}): operationKey "${options.operationKey}" has no enum or literal values in the schema`,
    );
  }
  const kind = toolKindOf(options.name, options.kind);
  const guard: ToolGuardSpec<z.output<S>> = {
    operationKey,
    operations,
    usageRule: options.usageRule,
    risk: options.risk,
    operationRisk: options.operationRisk ?? {},
    idempotent: options.idempotent ?? false,
    isConcurrencySafe: options.isConcurrencySafe ?? (() => false),
    timeoutMs: options.timeoutMs,
    kind,
    cancelSiblingsOnError: options.cancelSiblingsOnError ?? cancelsSiblingsByDefault(kind),
    maxResultChars: options.maxResultChars,
    requiresApproval: options.requiresApproval,
    jsonSchema,
    ...(options.argumentKinds === undefined ? {} : { argumentKinds: definedKinds(options.argumentKinds) }),
    fieldOperations: flat?.fields,
    inputSchema: published,
  };
  const structured = lcTool(
    async (input: z.output<S>, config?: ToolRunnableConfig) =>
      stringify(await options.execute(input, executionContextFrom(config))),
    { name: options.name, description: options.description, schema: published as never },
  );
  Object.defineProperty(structured, "guard", { value: guard, enumerable: false });
  // LangChain's StructuredTool.call refuses with this text (and the same exception class).
  const refusal = (error: unknown, args: unknown) =>
    new ToolInputParsingException(`Received tool input did not match expected schema${error instanceof z.ZodError ? `\n\n${z.prettifyError(error)}` : ""}`, JSON.stringify(args));
  // Parsed as LangChain parses (parseAsync's result), synchronously while the schema allows it: a
  // schema with an asynchronous refinement or transform makes zod's sync parse throw, and from then
  // on this tool's arguments go through parseAsync.
  let parsesAsync = false;
  directRuns.set(structured, async (args, config) => {
    let input: z.output<S>;
    try {
      input = parsesAsync ? await published.parseAsync(args) : published.parse(args);
    } catch (error) {
      if (!(error instanceof z.core.$ZodAsyncError)) throw refusal(error, args);
      parsesAsync = true;
      try {
        input = await published.parseAsync(args);
      } catch (asyncError) {
        throw refusal(asyncError, args);
      }
    }
    const output: unknown = options.execute(input, executionContextFrom(config));
    // Awaited as `await` reads it (any thenable), without a turn of the event loop for a plain value.
    return stringify((typeof output === "object" || typeof output === "function") && output !== null && typeof (output as { then?: unknown }).then === "function" ? await output : output);
  });
  return structured as unknown as GuardedTool<z.output<S>>;
}

function definedKinds(kinds: Readonly<Partial<Record<string, ArgumentKind>>>): Record<string, ArgumentKind> {
  const out: Record<string, ArgumentKind> = {};
  for (const [field, kind] of Object.entries(kinds)) {
    if (kind === undefined) continue;
    if (!(ARGUMENT_KINDS as readonly string[]).includes(kind)) throw new ToolDefinitionError(`defineTool: argumentKinds.${field} is ${JSON.stringify(kind)}; expected one of ${ARGUMENT_KINDS.join(", ")}`);
    out[field] = kind;
  }
  return out;
}

export function isGuardedTool(value: unknown): value is GuardedTool {
  return typeof value === "object" && value !== null && "guard" in value;
}
