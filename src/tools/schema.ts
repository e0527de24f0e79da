import { z } from "zod";
import type { JsonSchema } from "./types.js";

const UNSIGNED_FORMATS = new Set(["uint", "uint8", "uint16", "uint32", "uint64", "uint128"]);

/**
 * JSON schema of a zod input schema, fully inlined (no `$ref`/`$defs`), with no unsigned
 * integer formats and an object root, as MCP and OpenAI function calling expect.
 */
export function toToolJsonSchema(schema: z.ZodType): JsonSchema {
  const raw = z.toJSONSchema(schema, {
    io: "input",
    reused: "inline",
    cycles: "throw",
    unrepresentable: "any",
  }) as JsonSchema;
  const { $schema: _ignored, ...rest } = raw;
  const cleaned = stripUnsigned(rest) as JsonSchema;
  if (cleaned.type === undefined) cleaned.type = "object";
  return cleaned;
}

function stripUnsigned(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(stripUnsigned);
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "format" && typeof value === "string" && UNSIGNED_FORMATS.has(value)) continue;
    out[key] = stripUnsigned(value);
  }
  return out;
}

type Variant = Record<string, unknown>;

/** Operation value(s) a (sub)schema of the discriminator field admits: `const`, `enum`, or a union of consts. */
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
    if (Array.isArray(list)) {
      out[key] = list.filter((v) => (discriminatorValues(v) ?? []).some((op) => allowed.has(op)));
    }
  }
  return out;
}

/**
 * The schema with the operation discriminator filtered to `allowed`: a plain `enum`,
 * `oneOf`/`anyOf` of `const`s, and discriminated unions (variants that are not allowed are dropped).
 */
export function filterSchemaOperations(
  schema: JsonSchema,
  operationKey: string,
  allowed: Iterable<string>,
): JsonSchema {
  const allow = new Set(allowed);
  const out: JsonSchema = structuredClone(schema);
  const properties = out.properties as Record<string, Variant> | undefined;
  const field = properties?.[operationKey];
  if (properties && field) properties[operationKey] = filterField(field, allow);
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
