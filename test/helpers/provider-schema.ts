// Constraint checkers for tool schemas, written from each provider's documentation. Each returns the
// list of violations (empty: accepted). They check what the docs state; they are not the providers.
//
// OpenAI function calling — https://platform.openai.com/docs/guides/function-calling ("Defining
// functions", "Strict mode") and the API reference for `function.name`: "Must be a-z, A-Z, 0-9, or
// contain underscores and dashes, with a maximum length of 64"; `parameters`: "described as a JSON
// Schema object". Strict mode — https://platform.openai.com/docs/guides/structured-outputs#supported-schemas:
// "additionalProperties: false must always be set in objects"; "all fields or function parameters must
// be specified as required" (optional = a union with "null"); "the root level object must be an
// object, and not use anyOf"; supported types string, number, boolean, integer, object, array, enum,
// anyOf; keywords outside the supported list are refused ("'oneOf' is not permitted"); at most 100
// object properties and 5 levels of nesting (the older, stricter limits; the current ones are larger).
//
// Anthropic tool use — https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use:
// `name` must match ^[a-zA-Z0-9_-]{1,64}$; `input_schema` is "a JSON Schema object defining the
// expected parameters" with `type: "object"`; the API refuses "input_schema does not support oneOf,
// allOf, or anyOf at the top level".
//
// MCP — specification schema 2025-06-18 (modelcontextprotocol/modelcontextprotocol,
// schema/2025-06-18/schema.ts, `interface Tool`): `inputSchema: { type: "object"; properties?: {
// [key: string]: object }; required?: string[] }`; seed 004's "MCP compatibility" adds: no `$ref`
// (inline everything), no unsigned integer formats.

type Node = Record<string, unknown>;

export interface OpenAIFunction {
  name: string;
  description?: string;
  parameters: Node;
  strict?: boolean;
}

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const ROOT_COMBINATORS = ["oneOf", "anyOf", "allOf", "not", "enum", "const"];

function walk(node: unknown, path: string, visit: (node: Node, path: string, depth: number) => void, depth = 0): void {
  if (node === null || typeof node !== "object" || Array.isArray(node)) return;
  const n = node as Node;
  visit(n, path, depth);
  const props = n.properties;
  if (props && typeof props === "object") for (const [k, v] of Object.entries(props as Node)) walk(v, `${path}.${k}`, visit, depth + 1);
  if (n.items && typeof n.items === "object") walk(n.items, `${path}[]`, visit, depth + 1);
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    const list = n[key];
    if (Array.isArray(list)) list.forEach((b, i) => walk(b, `${path}.${key}[${i}]`, visit, depth));
  }
  if (n.additionalProperties && typeof n.additionalProperties === "object") walk(n.additionalProperties, `${path}{}`, visit, depth + 1);
}

/** Problems every provider shares: a `$ref`, an unsigned format, an empty `{}` schema where a type is expected. */
function common(schema: Node, where: string): string[] {
  const problems: string[] = [];
  walk(schema, where, (n, p) => {
    if ("$ref" in n || "$defs" in n || "definitions" in n) problems.push(`${p}: $ref/$defs (schemas must be inlined)`);
    if (typeof n.format === "string" && /^u?int\d*$/.test(n.format)) problems.push(`${p}: integer format "${n.format}"`);
  });
  return problems;
}

function rootProblems(schema: Node, where: string): string[] {
  const problems: string[] = [];
  if (schema.type !== "object") problems.push(`${where}: root type is ${JSON.stringify(schema.type)}, not "object"`);
  for (const key of ROOT_COMBINATORS) if (key in schema) problems.push(`${where}: root uses ${key}`);
  return problems;
}

const STRICT_KEYWORDS = new Set([
  "type", "description", "enum", "const", "anyOf", "properties", "required", "additionalProperties", "items", "title",
  "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
]);
const STRICT_TYPES = new Set(["string", "number", "boolean", "integer", "object", "array", "null"]);

export function checkOpenAI(fn: OpenAIFunction): string[] {
  const where = `openai:${fn.name}`;
  const problems: string[] = [];
  if (!NAME.test(fn.name)) problems.push(`${where}: name does not match ^[a-zA-Z0-9_-]{1,64}$`);
  problems.push(...rootProblems(fn.parameters, where), ...common(fn.parameters, where));
  if (!fn.strict) return problems;
  let properties = 0;
  walk(fn.parameters, where, (n, p, depth) => {
    for (const key of Object.keys(n)) if (!STRICT_KEYWORDS.has(key)) problems.push(`${p}: keyword "${key}" is not supported in strict mode`);
    const types = Array.isArray(n.type) ? n.type : n.type === undefined ? [] : [n.type];
    for (const t of types) if (!STRICT_TYPES.has(t as string)) problems.push(`${p}: type ${JSON.stringify(t)}`);
    if (types.length === 0 && !Array.isArray(n.anyOf) && !Array.isArray(n.enum) && n.const === undefined) problems.push(`${p}: no type`);
    if (types.includes("object") || n.properties !== undefined) {
      if (n.additionalProperties !== false) problems.push(`${p}: object without additionalProperties: false`);
      const keys = Object.keys((n.properties ?? {}) as Node);
      properties += keys.length;
      const required = Array.isArray(n.required) ? (n.required as string[]) : [];
      for (const k of keys) if (!required.includes(k)) problems.push(`${p}.${k}: not in required (strict mode needs every field required)`);
    }
    if (depth > 5) problems.push(`${p}: nested deeper than 5 levels`);
  });
  if (properties > 100) problems.push(`${where}: ${properties} object properties (over 100)`);
  return problems;
}

export function checkAnthropic(tool: { name: string; input_schema: Node }): string[] {
  const where = `anthropic:${tool.name}`;
  const problems: string[] = [];
  if (!NAME.test(tool.name)) problems.push(`${where}: name does not match ^[a-zA-Z0-9_-]{1,64}$`);
  problems.push(...rootProblems(tool.input_schema, where), ...common(tool.input_schema, where));
  return problems;
}

export function checkMcp(tool: { name: string; inputSchema: Node }): string[] {
  const where = `mcp:${tool.name}`;
  const problems: string[] = [...rootProblems(tool.inputSchema, where), ...common(tool.inputSchema, where)];
  const props = tool.inputSchema.properties;
  if (props !== undefined) {
    if (typeof props !== "object" || props === null) problems.push(`${where}: properties is not an object`);
    else for (const [k, v] of Object.entries(props as Node)) if (typeof v !== "object" || v === null) problems.push(`${where}.${k}: property schema is not an object`);
  }
  const required = tool.inputSchema.required;
  if (required !== undefined && (!Array.isArray(required) || required.some((r) => typeof r !== "string" || !(r in ((props ?? {}) as Node))))) {
    problems.push(`${where}: required must list property names`);
  }
  return problems;
}
