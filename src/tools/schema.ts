import { z } from "zod";
import type { FieldOperations, JsonSchema } from "./types.js";

// Provider-safe tool schemas (issue 15, seed 004 "MCP compatibility"). A multi-operation tool is
// published as ONE flat object: the operation enum plus every operation's fields, each described with
// the operations it belongs to; no root oneOf/anyOf/allOf (Anthropic's input_schema and OpenAI's
// function parameters both refuse them), everything inlined, unsigned integers as `integer` +
// `minimum: 0`. The exact per-operation validation stays in zod and runs on every call.

type Variant = Record<string, unknown>;

interface ZodInternals {
  _zod: { def: Record<string, unknown> & { type: string }; optin?: string; bag?: Record<string, unknown> };
}

function internals(schema: z.ZodType): ZodInternals["_zod"] {
  return (schema as unknown as ZodInternals)._zod;
}

function literalValues(schema: z.ZodType): string[] | undefined {
  const def = internals(schema).def;
  if (def.type === "literal" && Array.isArray(def.values)) return def.values.filter((v): v is string => typeof v === "string");
  if (def.type === "enum" && def.entries && typeof def.entries === "object") return Object.values(def.entries as Record<string, unknown>).filter((v): v is string => typeof v === "string");
  return undefined;
}

function objectShape(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  const def = internals(schema).def;
  return def.type === "object" ? (def.shape as Record<string, z.ZodType>) : undefined;
}

function isOptional(schema: z.ZodType): boolean {
  return internals(schema).optin === "optional";
}

function unwrapOptional(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (;;) {
    const def = internals(current).def;
    if (def.type !== "optional" && def.type !== "default") return current;
    current = def.innerType as z.ZodType;
  }
}

function descriptionOf(schema: z.ZodType): string | undefined {
  return (schema as { description?: string }).description;
}

interface FlatZod {
  /** Accepts the flat object (nulls in optional fields mean "absent"), outputs the original schema's output. */
  schema: z.ZodType;
  operationKey: string;
  operations: string[];
  fields: FieldOperations;
}

/**
 * The flat form of a zod union of objects that share a literal discriminator (a `z.discriminatedUnion`
 * or a plain `z.union` of such objects): one object with the operation enum and every field, optional
 * and nullable, described with its operations; piped into the original union so that each call is
 * still validated exactly per operation. Undefined when the schema is not such a union.
 */
export function flattenOperationUnion(schema: z.ZodType, explicitKey?: string): FlatZod | undefined {
  const def = internals(schema).def;
  if (def.type !== "union" || !Array.isArray(def.options)) return undefined;
  const options = def.options as z.ZodType[];
  const shapes = options.map(objectShape);
  if (shapes.some((s) => s === undefined)) return undefined;
  const objects = shapes as Record<string, z.ZodType>[];
  const candidates = explicitKey ? [explicitKey] : typeof def.discriminator === "string" ? [def.discriminator] : Object.keys(objects[0] ?? {});
  const key = candidates.find((k) => objects.every((shape) => shape[k] !== undefined && literalValues(unwrapOptional(shape[k] as z.ZodType)) !== undefined));
  if (key === undefined) return undefined;

  const operations: string[] = [];
  const opDescriptions: string[] = [];
  const byField = new Map<string, { ops: string[]; requiredFor: string[]; schemas: z.ZodType[]; descriptions: string[] }>();
  options.forEach((option, index) => {
    const shape = objects[index] as Record<string, z.ZodType>;
    const ops = literalValues(unwrapOptional(shape[key] as z.ZodType)) ?? [];
    for (const op of ops) if (!operations.includes(op)) operations.push(op);
    const what = descriptionOf(option);
    if (what) opDescriptions.push(`${ops.join("/")}: ${what}`);
    for (const [field, fieldSchema] of Object.entries(shape)) {
      if (field === key) continue;
      const entry = byField.get(field) ?? { ops: [], requiredFor: [], schemas: [], descriptions: [] };
      entry.ops.push(...ops.filter((op) => !entry.ops.includes(op)));
      if (!isOptional(fieldSchema)) entry.requiredFor.push(...ops);
      const base = unwrapOptional(fieldSchema);
      entry.schemas.push(base);
      const description = descriptionOf(fieldSchema) ?? descriptionOf(base);
      if (description && !entry.descriptions.includes(description)) entry.descriptions.push(description);
      byField.set(field, entry);
    }
  });

  const shape: Record<string, z.ZodType> = {
    [key]: z.enum(operations as [string, ...string[]]).describe(opDescriptions.length ? `The operation. ${opDescriptions.join("; ")}` : "The operation"),
  };
  const fields: FieldOperations = {};
  const bigints: string[] = [];
  for (const [field, entry] of byField) {
    // One schema object (a field every variant shares, or one variant has) needs no comparison by its JSON form.
    const objects = [...new Set(entry.schemas)];
    const distinct: z.ZodType[] = objects.length === 1 ? objects : [];
    const seen = new Set<string>();
    for (const s of objects.length === 1 ? [] : objects) {
      const { description: _d, ...json } = z.toJSONSchema(s, { io: "input", unrepresentable: "any" }) as Variant;
      const id = JSON.stringify(json);
      if (!seen.has(id)) {
        seen.add(id);
        distinct.push(s);
      }
    }
    let base = distinct.length === 1 ? (distinct[0] as z.ZodType) : z.union(distinct as [z.ZodType, z.ZodType, ...z.ZodType[]]);
    // A bigint (z.uint64(), z.int64()) has no JSON form: the model sends an integer, converted back below.
    if (distinct.length === 1 && internals(base).def.type === "bigint") {
      const unsigned = isUnsignedBigint(base);
      base = unsigned ? z.number().int().min(0) : z.number().int();
      bigints.push(field);
    }
    const usedBy = entry.ops.length === operations.length ? "all operations" : `${key} ${entry.ops.join(", ")}`;
    const required = entry.requiredFor.length ? `; required for ${entry.requiredFor.join(", ")}` : "";
    const text = [entry.descriptions.join(" / "), `(used by ${usedBy}${required})`].filter(Boolean).join(" ");
    shape[field] = base.nullable().optional().describe(text);
    fields[field] = { operations: entry.ops, requiredFor: entry.requiredFor };
  }
  const flat = z
    .object(shape)
    .transform((value) =>
      Object.fromEntries(
        Object.entries(value)
          .filter(([, v]) => v !== null)
          .map(([k, v]) => [k, bigints.includes(k) && typeof v === "number" ? BigInt(v) : v]),
      ),
    )
    .pipe(schema as z.ZodType<unknown, Record<string, unknown>>);
  return { schema: flat, operationKey: key, operations, fields };
}

/** z.uint64() (format uint64) or a bigint with a non-negative minimum. */
function isUnsignedBigint(schema: z.ZodType): boolean {
  const zod = internals(schema);
  const format = zod.def.format ?? zod.bag?.format;
  const min = (schema as { minValue?: unknown }).minValue ?? zod.bag?.minimum;
  return (typeof format === "string" && format.startsWith("uint")) || (typeof min === "bigint" && min >= 0n);
}

const SAFE_INT = 9007199254740991;

/**
 * JSON schema of a zod input schema as providers accept it: fully inlined (no `$ref`/`$defs`), no
 * `$schema`, an object root with no oneOf/anyOf/allOf (a flattened operation union), nested `oneOf`
 * as `anyOf`, integers without the safe-integer noise, unsigned and 64-bit integers as `integer`
 * (`minimum: 0` when unsigned; never `{}`), and the null branch of optional fields removed (null means
 * absent at run time; strict mode puts it back, see `toStrictToolSchema`).
 */
export function toToolJsonSchema(schema: z.ZodType): JsonSchema {
  const raw = z.toJSONSchema(schema, {
    io: "input",
    reused: "inline",
    cycles: "throw",
    unrepresentable: "any",
    override: (ctx) => {
      const zodSchema = ctx.zodSchema as unknown as z.ZodType;
      const def = internals(zodSchema).def;
      if (def.type === "bigint") {
        ctx.jsonSchema.type = "integer";
        if (isUnsignedBigint(zodSchema)) ctx.jsonSchema.minimum = 0;
      }
    },
  }) as JsonSchema;
  const { $schema: _ignored, ...rest } = raw;
  const cleaned = clean(rest) as JsonSchema;
  if (cleaned.type === undefined) cleaned.type = "object";
  return cleaned;
}

/**
 * The same flattening for a JSON schema whose root is a `oneOf`/`anyOf` of objects sharing a
 * const/enum discriminator (a plain LangChain tool defined with a JSON schema): one object with the
 * operation enum and every field. The tool's own validation still runs at call time. Undefined when
 * the root is not such a union.
 */
export function flattenJsonOperationUnion(schema: JsonSchema): { schema: JsonSchema; operationKey: string; operations: string[]; fields: FieldOperations } | undefined {
  const variants = (schema.oneOf ?? schema.anyOf) as Variant[] | undefined;
  if (!Array.isArray(variants) || variants.length === 0) return undefined;
  const props = variants.map((v) => (v && typeof v === "object" && v.properties && typeof v.properties === "object" ? (v.properties as Record<string, Variant>) : undefined));
  if (props.some((p) => p === undefined)) return undefined;
  const shapes = props as Record<string, Variant>[];
  const key = Object.keys(shapes[0] ?? {}).find((k) => shapes.every((shape) => discriminatorValues(shape[k]) !== undefined));
  if (key === undefined) return undefined;
  const operations: string[] = [];
  const fields: FieldOperations = {};
  const properties: Record<string, Variant> = {};
  const opDescriptions: string[] = [];
  variants.forEach((variant, index) => {
    const shape = shapes[index] as Record<string, Variant>;
    const ops = discriminatorValues(shape[key]) ?? [];
    for (const op of ops) if (!operations.includes(op)) operations.push(op);
    if (typeof variant.description === "string") opDescriptions.push(`${ops.join("/")}: ${variant.description}`);
    const required = Array.isArray(variant.required) ? (variant.required as string[]) : [];
    for (const [field, fieldSchema] of Object.entries(shape)) {
      if (field === key) continue;
      const use = (fields[field] ??= { operations: [], requiredFor: [] });
      use.operations.push(...ops.filter((op) => !use.operations.includes(op)));
      if (required.includes(field)) use.requiredFor.push(...ops);
      const existing = properties[field];
      if (existing === undefined) properties[field] = { ...fieldSchema };
      else if (JSON.stringify({ ...existing, description: undefined }) !== JSON.stringify({ ...fieldSchema, description: undefined })) {
        const branches = Array.isArray(existing.anyOf) && existing.__merged ? (existing.anyOf as Variant[]) : [existing];
        properties[field] = { anyOf: [...branches, fieldSchema], __merged: true };
      }
    }
  });
  for (const [field, use] of Object.entries(fields)) {
    const { __merged: _m, description, ...rest } = properties[field] as Variant;
    const usedBy = use.operations.length === operations.length ? "all operations" : `${key} ${use.operations.join(", ")}`;
    const required = use.requiredFor.length ? `; required for ${use.requiredFor.join(", ")}` : "";
    properties[field] = { ...rest, description: [typeof description === "string" ? description : "", `(used by ${usedBy}${required})`].filter(Boolean).join(" ") };
  }
  const flat: JsonSchema = {
    type: "object",
    properties: { [key]: { type: "string", enum: operations, description: opDescriptions.length ? `The operation. ${opDescriptions.join("; ")}` : "The operation" }, ...properties },
    required: [key],
  };
  return { schema: clean(flat) as JsonSchema, operationKey: key, operations, fields };
}

const UNSIGNED_FORMATS = new Set(["uint", "uint8", "uint16", "uint32", "uint64", "uint128", "int64", "int32", "safeint"]);

function clean(node: unknown, optionalProperty = false): unknown {
  if (Array.isArray(node)) return node.map((n) => clean(n));
  if (node === null || typeof node !== "object") return node;
  const input = node as Variant;
  const out: Variant = {};
  for (const [key, value] of Object.entries(input)) {
    if (key === "format" && typeof value === "string" && UNSIGNED_FORMATS.has(value)) continue;
    if ((key === "maximum" && value === SAFE_INT) || (key === "minimum" && value === -SAFE_INT)) continue;
    if (key === "properties" && value && typeof value === "object") {
      const required = new Set(Array.isArray(input.required) ? (input.required as string[]) : []);
      out.properties = Object.fromEntries(Object.entries(value as Variant).map(([name, prop]) => [name, clean(prop, !required.has(name))]));
      continue;
    }
    out[key === "oneOf" ? "anyOf" : key] = clean(value);
  }
  // An optional field's `anyOf: [X, {type: "null"}]` is X: null and absent mean the same at run time.
  if (optionalProperty && Array.isArray(out.anyOf)) {
    const branches = (out.anyOf as Variant[]).filter((b) => !(b && b.type === "null" && Object.keys(b).length === 1));
    if (branches.length === 1 && branches.length < (out.anyOf as unknown[]).length) {
      const { anyOf: _a, ...restOut } = out;
      return { ...restOut, ...(branches[0] as Variant), ...(restOut.description ? { description: restOut.description } : {}) };
    }
  }
  if (out.type === "integer" && out.minimum === undefined && typeof input.format === "string" && input.format.startsWith("uint")) out.minimum = 0;
  return out;
}

function discriminatorValues(field: unknown): string[] | undefined {
  if (field === null || typeof field !== "object") return undefined;
  const f = field as Variant;
  if (typeof f.const === "string") return [f.const];
  if (Array.isArray(f.enum)) return f.enum.filter((v): v is string => typeof v === "string");
  for (const key of ["oneOf", "anyOf"] as const) {
    const list = f[key];
    if (Array.isArray(list)) return list.flatMap((v) => discriminatorValues(v) ?? []);
  }
  return undefined;
}

function filterField(field: Variant, allowed: ReadonlySet<string>): Variant {
  const out: Variant = { ...field };
  if (Array.isArray(out.enum)) out.enum = out.enum.filter((v) => typeof v === "string" && allowed.has(v));
  for (const key of ["oneOf", "anyOf"] as const) {
    const list = out[key];
    if (Array.isArray(list)) out[key] = list.filter((v) => (discriminatorValues(v) ?? []).some((op) => allowed.has(op)));
  }
  return out;
}

/**
 * The schema with the operation enum filtered to `allowed`, and (with `fields`, a flattened tool's
 * field map) without the fields that only the removed operations use. Schemas that still carry a
 * union of variants (plain LangChain tools) have their variants filtered the same way.
 */
export function filterSchemaOperations(schema: JsonSchema, operationKey: string, allowed: Iterable<string>, fields?: FieldOperations): JsonSchema {
  const allow = new Set(allowed);
  const out: JsonSchema = structuredClone(schema);
  const properties = out.properties as Record<string, Variant> | undefined;
  const field = properties?.[operationKey];
  if (properties && field) properties[operationKey] = filterField(field, allow);
  if (properties && fields) {
    for (const [name, use] of Object.entries(fields)) {
      if (!use.operations.some((op) => allow.has(op))) delete properties[name];
    }
  }
  for (const key of ["oneOf", "anyOf"] as const) {
    const variants = out[key];
    if (!Array.isArray(variants)) continue;
    out[key] = (variants as Variant[])
      .filter((variant) => {
        const props = variant.properties as Record<string, unknown> | undefined;
        const ops = discriminatorValues(props?.[operationKey]);
        return ops === undefined || ops.some((op) => allow.has(op));
      })
      .map((variant) => {
        const props = variant.properties as Record<string, Variant> | undefined;
        const f = props?.[operationKey];
        if (!props || !f) return variant;
        return { ...variant, properties: { ...props, [operationKey]: filterField(f, allow) } };
      });
  }
  return out;
}

/** Operation names declared by a JSON schema's discriminator field, in schema order. */
export function operationsInSchema(schema: JsonSchema, operationKey: string): string[] {
  const found: string[] = [];
  const add = (values: string[] | undefined) => {
    for (const v of values ?? []) if (!found.includes(v)) found.push(v);
  };
  const properties = schema.properties as Record<string, unknown> | undefined;
  add(discriminatorValues(properties?.[operationKey]));
  for (const key of ["oneOf", "anyOf"] as const) {
    const variants = schema[key];
    if (!Array.isArray(variants)) continue;
    for (const variant of variants as Variant[]) {
      const props = variant.properties as Record<string, unknown> | undefined;
      add(discriminatorValues(props?.[operationKey]));
    }
  }
  return found;
}

const DEFAULT_OPERATION_KEYS = ["operation", "op"];

/** The discriminator key: the one given, else `operation` or `op` when the schema declares values for it. */
export function detectOperationKey(schema: JsonSchema, explicit?: string): string | undefined {
  if (explicit !== undefined) return explicit;
  return DEFAULT_OPERATION_KEYS.find((key) => operationsInSchema(schema, key).length > 0);
}

// Strict mode (OpenAI function calling with `strict: true`, Structured Outputs' supported subset):
// every object lists all its properties as required and sets `additionalProperties: false`; an
// optional field becomes nullable; keywords outside the subset move into the description.
const STRICT_KEYWORDS = new Set([
  "type", "description", "enum", "const", "anyOf", "properties", "required", "additionalProperties", "items",
  "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems", "title",
]);

type StrictSchemaResult = { schema: JsonSchema; reason?: undefined } | { schema?: undefined; reason: string };

/** The strict-mode form of a provider-safe schema, or why the tool cannot be strict (e.g. a free-form JSON field). */
export function toStrictToolSchema(schema: JsonSchema): StrictSchemaResult {
  try {
    return { schema: strictNode(schema, "", false) as JsonSchema };
  } catch (error) {
    if (error instanceof StrictUnsupported) return { reason: error.message };
    throw error;
  }
}

class StrictUnsupported extends Error {}

function strictNode(node: Variant, where: string, nullable: boolean): Variant {
  const out: Variant = {};
  const moved: string[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (STRICT_KEYWORDS.has(key)) out[key] = value;
    else moved.push(`${key}: ${JSON.stringify(value)}`);
  }
  const hasShape = out.type !== undefined || out.anyOf !== undefined || out.enum !== undefined || out.const !== undefined;
  if (!hasShape) throw new StrictUnsupported(`${where || "the input"} accepts any JSON value; strict mode needs a type for every field`);
  if (out.type === "object" || out.properties !== undefined) {
    if (out.properties === undefined || (out.additionalProperties !== undefined && out.additionalProperties !== false)) {
      throw new StrictUnsupported(`${where || "the input"} is a free-form object; strict mode needs every object's properties listed and additionalProperties: false`);
    }
    const required = new Set(Array.isArray(out.required) ? (out.required as string[]) : []);
    const props = out.properties as Record<string, Variant>;
    out.properties = Object.fromEntries(Object.entries(props).map(([name, prop]) => [name, strictNode(prop, where ? `${where}.${name}` : name, !required.has(name))]));
    out.required = Object.keys(props);
    out.additionalProperties = false;
  }
  if (Array.isArray(out.anyOf)) out.anyOf = (out.anyOf as Variant[]).map((b, i) => strictNode(b, `${where}[${i}]`, false));
  if (out.items && typeof out.items === "object") out.items = strictNode(out.items as Variant, `${where}[]`, false);
  if (out.const !== undefined && out.enum === undefined) {
    out.enum = [out.const];
    delete out.const;
  }
  if (moved.length) out.description = [out.description, `(${moved.join(", ")})`].filter(Boolean).join(" ");
  if (!nullable) return out;
  if (typeof out.type === "string" && out.anyOf === undefined) {
    out.type = [out.type, "null"];
    if (Array.isArray(out.enum)) out.enum = [...(out.enum as unknown[]), null];
    return out;
  }
  const { description, ...shape } = out;
  return { ...(description ? { description } : {}), anyOf: [shape, { type: "null" }] };
}

function acceptsNull(node: Variant): boolean {
  if (node.type === "null" || (Array.isArray(node.type) && node.type.includes("null"))) return true;
  if (Array.isArray(node.enum) && node.enum.includes(null)) return true;
  if (node.const === null) return true;
  for (const key of ["anyOf", "oneOf"]) {
    const branches = node[key];
    if (Array.isArray(branches) && branches.some((b) => b !== null && typeof b === "object" && acceptsNull(b as Variant))) return true;
  }
  return Object.keys(node).length === 0; // {} accepts anything
}

/**
 * The arguments with `null` removed from every optional field whose schema does not accept null,
 * in nested objects and arrays too: strict mode makes every field required and the optional ones
 * nullable, so a strict model writes `null` for "absent" (the inverse of `toStrictToolSchema`).
 * A field that accepts null, or a required one, keeps its null (zod then judges it).
 */
export function withoutStrictNulls(value: unknown, schema: JsonSchema): unknown {
  return dropNulls(value, schema as Variant);
}

function isRequired(node: Variant, key: string): boolean {
  return Array.isArray(node.required) && (node.required as unknown[]).includes(key);
}

function dropNulls(value: unknown, node: Variant): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const items = node.items;
    if (items === null || typeof items !== "object" || Array.isArray(items)) return value;
    // A copy only when some item changes (a list of strings comes back as it is).
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const next = dropNulls(item, items as Variant);
      if (next === item) continue;
      copy ??= value.slice();
      copy[i] = next;
    }
    return copy ?? value;
  }
  const props = node.properties;
  if (props === null || typeof props !== "object") return value;
  let out: Record<string, unknown> | undefined;
  // for-in over own keys: Object.keys' keys in its order, without an array per object.
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const field = (value as Record<string, unknown>)[key];
    // Strings, numbers and booleans come back as they are: skip them (this runs on every reviewed call).
    if (field !== null && typeof field !== "object") continue;
    const sub = (props as Record<string, unknown>)[key];
    if (sub === null || typeof sub !== "object") continue;
    const next = field === null && !isRequired(node, key) && !acceptsNull(sub as Variant) ? undefined : dropNulls(field, sub as Variant);
    if (next === field) continue;
    out ??= { ...(value as Record<string, unknown>) };
    if (next === undefined) delete out[key];
    else out[key] = next;
  }
  return out ?? value;
}
