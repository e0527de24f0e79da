import { z } from "zod";
import { FieldConditionSchema, PermissionRuleSchema, PolicyFileSchema } from "./schema.js";

type RuleOutput = z.output<typeof PermissionRuleSchema>;
type ConditionOutput = z.output<typeof FieldConditionSchema>;

/** The object schema inside a lazily built one (the policy schemas are built on first parse). */
function objectOf(schema: unknown): z.ZodObject {
  const lazy = schema as { unwrap?: () => unknown };
  return (typeof lazy.unwrap === "function" ? lazy.unwrap() : schema) as z.ZodObject;
}

/** PermissionRuleSchema with each `where` condition left to `validRulesOnce`. */
// (`safeExtend` keeps the schemas' refinements; its types only allow narrowing a field, hence the widening casts.)
const RulesShellSchema = z.lazy(() => z.array(objectOf(PermissionRuleSchema).safeExtend({ where: z.record(z.string().min(1), z.unknown()).optional() }))) as unknown as z.ZodType<
  (Omit<RuleOutput, "where"> & { where?: Record<string, unknown> })[]
>;

/** PolicyFileSchema with the permission rules left to `validRulesOnce`. */
export const PolicyShellSchema = z.lazy(() => objectOf(PolicyFileSchema).safeExtend({ permissions: z.array(z.unknown()).optional() })) as unknown as z.ZodType<
  Omit<z.output<typeof PolicyFileSchema>, "permissions"> & { permissions?: unknown[] }
>;

/**
 * The JSON text of a value made of plain data only (strings, finite numbers other than -0, booleans,
 * null, arrays and objects of the Object prototype without a toJSON of their own), else undefined:
 * two such values with the same text are the same data, so a schema judges them alike.
 */
function plainText(value: unknown): string | undefined {
  return isPlain(value, 0) ? JSON.stringify(value) : undefined;
}

/** Deeper than this, a value is not keyed (validated on its own). */
const MAX_PLAIN_DEPTH = 32;

function isPlain(value: unknown, depth: number): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value) && !Object.is(value, -0);
  if (typeof value !== "object" || depth > MAX_PLAIN_DEPTH) return false;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return false;
    for (let i = 0; i < value.length; i++) if (!(i in value) || !isPlain(value[i], depth + 1)) return false;
    return true;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype || Object.hasOwn(value, "toJSON")) return false;
  for (const key in value) if (!Object.hasOwn(value, key) || !isPlain((value as Record<string, unknown>)[key], depth + 1)) return false;
  return true;
}

/**
 * Permission rules validated as `z.array(PermissionRuleSchema)` validates them, each distinct
 * `where` condition (by its plain-data text) validated once and its parsed form shared by the rules
 * that repeat it: big policies repeat conditions across tools. Undefined when anything is refused
 * (or cannot be judged this way): the caller then runs the whole schema, which names every problem
 * exactly as before.
 */
export function validRulesOnce(input: unknown): RuleOutput[] | undefined {
  const shells = RulesShellSchema.safeParse(input);
  if (!shells.success) return undefined;
  const known = new Map<string, ConditionOutput>();
  for (const rule of shells.data) {
    if (rule.where === undefined) continue;
    const where: Record<string, ConditionOutput> = {};
    for (const [selector, condition] of Object.entries(rule.where)) {
      if (selector === "__proto__") return undefined;
      const text = plainText(condition);
      let valid = text === undefined ? undefined : known.get(text);
      if (valid === undefined) {
        const parsed = FieldConditionSchema.safeParse(condition);
        if (!parsed.success) return undefined;
        valid = parsed.data;
        if (text !== undefined) known.set(text, valid);
      }
      where[selector] = valid;
    }
    rule.where = where;
  }
  return shells.data as RuleOutput[];
}
