import type { ArgumentKind } from "../policy/kinds/readings.js";
import { toJsonSchema } from "@langchain/core/utils/json_schema";
import { z } from "zod";
import { validate as validateJsonSchema } from "@cfworker/json-schema";
import { isGuardedTool } from "./define-tool.js";
import { cancelsSiblingsByDefault, toolKindOf } from "./kind.js";
import { detectOperationKey, filterSchemaOperations, flattenJsonOperationUnion, flattenOperationUnion, operationsInSchema, toStrictToolSchema, toToolJsonSchema } from "./schema.js";
import type { AnyTool, JsonSchema, ToolGuardSpec } from "./types.js";
import { ToolDefinitionError } from "../errors/index.js";
import type { ToolInputSchema } from "../rules/validate.js";

const plainSpecs = new WeakMap<object, ToolGuardSpec>();

/** The guard spec of any tool: its own for `defineTool` tools, derived defaults for plain LangChain tools. */
export function guardSpecOf(tool: AnyTool): ToolGuardSpec {
  if (isGuardedTool(tool)) return tool.guard;
  const cached = plainSpecs.get(tool);
  if (cached) return cached;
  // A zod 4 schema is read as it is; any other (a JSON schema, or zod 3, as LangChain's own tools such
  // as todoListMiddleware's `write_todos` and many users' tools still use) through its JSON schema.
  const isZod = isZod4(tool.schema);
  const flat = isZod ? flattenOperationUnion(tool.schema as z.ZodType) : undefined;
  let jsonSchema: JsonSchema;
  let jsonFlat: ReturnType<typeof flattenJsonOperationUnion>;
  if (isZod) {
    jsonSchema = toToolJsonSchema((flat?.schema ?? tool.schema) as z.ZodType);
  } else {
    const { $schema: _ignored, ...raw } = toJsonSchema(tool.schema as never) as JsonSchema;
    jsonFlat = flattenJsonOperationUnion(raw);
    jsonSchema = jsonFlat?.schema ?? raw;
  }
  if (jsonSchema.type === undefined) jsonSchema.type = "object";
  const operationKey = flat?.operationKey ?? jsonFlat?.operationKey ?? detectOperationKey(jsonSchema);
  const spec: ToolGuardSpec = {
    operationKey,
    operations: operationKey ? operationsInSchema(jsonSchema, operationKey) : [],
    usageRule: undefined,
    risk: undefined,
    operationRisk: {},
    idempotent: false,
    isConcurrencySafe: () => false,
    timeoutMs: undefined,
    kind: toolKindOf(tool.name),
    cancelSiblingsOnError: cancelsSiblingsByDefault(toolKindOf(tool.name)),
    maxResultChars: undefined,
    requiresApproval: undefined,
    jsonSchema,
    fieldOperations: flat?.fields ?? jsonFlat?.fields,
    inputSchema: isZod ? ((flat?.schema ?? tool.schema) as z.ZodType) : isOtherZod(tool.schema) ? parsedBy(tool.schema) : isJsonSchemaObject(tool.schema) ? validatedBy(tool.schema) : z.record(z.string(), z.unknown()),
  };
  plainSpecs.set(tool, spec);
  return spec;
}

/** A zod 4 schema (classic or mini): its internals are what the schema readers here walk. */
function isZod4(schema: unknown): boolean {
  return typeof schema === "object" && schema !== null && typeof (schema as { _zod?: { def?: unknown } })._zod?.def === "object";
}

interface SafeParser {
  safeParse(value: unknown): { success: true; data: unknown } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
}

/** Another schema library that parses with `safeParse` (zod 3). */
function isOtherZod(schema: unknown): schema is SafeParser {
  return typeof schema === "object" && schema !== null && typeof (schema as { safeParse?: unknown }).safeParse === "function";
}

/** The guard's input check of a tool whose schema is another zod: that schema parses, its issues are the guard's. */
function parsedBy(schema: SafeParser): z.ZodType {
  return z.unknown().transform((value, ctx) => {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path.map((key) => (typeof key === "symbol" ? String(key) : key)) });
    return z.NEVER;
  });
}

/** A plain JSON schema (an MCP tool's `inputSchema`, a StructuredTool given a JSON-schema object). */
function isJsonSchemaObject(schema: unknown): schema is Record<string, unknown> {
  return typeof schema === "object" && schema !== null && !Array.isArray(schema);
}

/**
 * The guard's input check of a tool whose schema is a plain JSON schema: the validator the tool itself
 * runs (@langchain/core's StructuredTool.call uses @cfworker/json-schema's `validate`), so review refuses
 * what the tool would refuse. A schema the validator cannot use (it throws) refuses every call, naming
 * why: the guard cannot tell which calls the tool would take.
 */
function validatedBy(schema: Record<string, unknown>): z.ZodType {
  return z.unknown().transform((value, ctx) => {
    let result: ReturnType<typeof validateJsonSchema>;
    try {
      result = validateJsonSchema(value as never, schema as never);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: `the tool's JSON schema cannot be checked (${error instanceof Error ? error.message : String(error)})`, path: [] });
      return z.NEVER;
    }
    if (result.valid) return value;
    // The innermost errors say what is wrong; the outer ones only that a subschema failed.
    const errors = result.errors.filter((e, i, all) => !all.some((other, j) => j !== i && other.instanceLocation.startsWith(e.instanceLocation) && other.keywordLocation.startsWith(e.keywordLocation + "/")));
    for (const error of errors.length > 0 ? errors : result.errors) {
      const path = error.instanceLocation.replace(/^#\/?/, "").split("/").filter((k) => k !== "").map((k) => k.replace(/~1/g, "/").replace(/~0/g, "~"));
      ctx.addIssue({ code: "custom", message: error.error, path });
    }
    return z.NEVER;
  });
}

/** An OpenAI-format function tool definition, accepted by every LangChain chat model's `bindTools`. */
export interface ToolDefinition {
  type: "function";
  function: { name: string; description: string; parameters: JsonSchema; strict?: boolean };
}

/** What the model may use of one tool now: all of it, or a subset of its operations. */
export interface ToolAllowance {
  name: string;
  /** Undefined: every operation. */
  operations?: readonly string[] | undefined;
}

/** The input schema of `tool` with its operations filtered to `allowedOps` (all when undefined). */
export function schemaFor(tool: AnyTool, allowedOps?: Iterable<string>): JsonSchema {
  const spec = guardSpecOf(tool);
  if (allowedOps === undefined || spec.operationKey === undefined) return structuredClone(spec.jsonSchema);
  return filterSchemaOperations(spec.jsonSchema, spec.operationKey, allowedOps, spec.fieldOperations);
}

/**
 * The strict-mode schema of `tool` (OpenAI `strict: true`: every property required, optional ones
 * nullable, `additionalProperties: false`), or the reason it cannot be strict (a free-form JSON field).
 */
export function strictSchemaFor(tool: AnyTool, allowedOps?: Iterable<string>) {
  return toStrictToolSchema(schemaFor(tool, allowedOps));
}

export class ToolRegistry {
  readonly #tools = new Map<string, AnyTool>();

  constructor(tools: Iterable<AnyTool> = []) {
    for (const tool of tools) this.register(tool);
  }

  register(tool: AnyTool): this {
    if (this.#tools.has(tool.name)) throw new ToolDefinitionError(`tool "${tool.name}" is already registered`);
    this.#tools.set(tool.name, tool);
    return this;
  }

  get(name: string): AnyTool | undefined {
    return this.#tools.get(name);
  }

  has(name: string): boolean {
    return this.#tools.has(name);
  }

  list(): AnyTool[] {
    return [...this.#tools.values()];
  }

  names(): string[] {
    return [...this.#tools.keys()];
  }

  spec(name: string): ToolGuardSpec | undefined {
    const tool = this.#tools.get(name);
    return tool ? guardSpecOf(tool) : undefined;
  }

  /** Tool name → the argument kinds it declares (tools that declare none are left out). */
  argumentKinds(): Map<string, Readonly<Record<string, ArgumentKind>>> {
    return new Map(this.names().flatMap((name) => {
      const kinds = this.spec(name)?.argumentKinds;
      return kinds === undefined ? [] : [[name, kinds] as const];
    }));
  }

  /**
   * Tool name → the names of its top-level arguments (its JSON schema's properties). A tool whose
   * schema takes other arguments too (`z.looseObject`, `additionalProperties`) is left out: any
   * argument may be there.
   */
  argumentNames(): Map<string, readonly string[]> {
    return new Map(
      this.names().flatMap((name) => {
        const schema = this.spec(name)?.jsonSchema;
        const open = schema?.additionalProperties !== undefined && schema.additionalProperties !== false;
        const properties = schema?.properties;
        return open ? [] : [[name, typeof properties === "object" && properties !== null ? Object.keys(properties) : []] as const];
      }),
    );
  }

  /** Tool name → its input schema and argument names, for checking rules' prefilled arguments. */
  inputSchemas(): Map<string, ToolInputSchema> {
    const names = this.argumentNames();
    return new Map(this.names().flatMap((name) => {
      const spec = this.spec(name);
      return spec === undefined ? [] : [[name, { schema: spec.inputSchema as z.ZodType, arguments: names.get(name) }] as const];
    }));
  }

  /** Tool name → declared operations, for rule validation. */
  catalog(): Map<string, readonly string[]> {
    return new Map(this.list().map((t) => [t.name, guardSpecOf(t).operations]));
  }

  /** Definitions to bind to the model: only the allowed tools, each with its operations filtered. */
  /**
   * With `strict`, each tool that can be strict is sent in strict form with `strict: true`; a tool that
   * cannot (see `strictSchemaFor`) is sent as usual with `strict: false`.
   */
  definitions(allowed?: readonly ToolAllowance[], options: { strict?: boolean } = {}): ToolDefinition[] {
    const selection: readonly ToolAllowance[] = allowed ?? this.names().map((name) => ({ name }));
    const out: ToolDefinition[] = [];
    for (const { name, operations } of selection) {
      const tool = this.#tools.get(name);
      if (!tool) continue;
      if (options.strict) {
        const strict = strictSchemaFor(tool, operations);
        out.push({
          type: "function",
          function: strict.schema
            ? { name, description: tool.description, parameters: strict.schema, strict: true }
            : { name, description: tool.description, parameters: schemaFor(tool, operations), strict: false },
        });
        continue;
      }
      out.push({
        type: "function",
        function: { name, description: tool.description, parameters: schemaFor(tool, operations) },
      });
    }
    return out;
  }
}

