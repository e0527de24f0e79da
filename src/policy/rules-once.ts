import { z } from "zod";
import { FieldConditionSchema, PermissionRuleSchema, PolicyFileSchema } from "./schema.js";

type RuleOutput = z.output<typeof PermissionRuleSchema>;
type ConditionOutput = z.output<typeof FieldConditionSchema>;

/** The object schema inside a lazily built one (the policy schemas are built on first parse). */
function objectOf(schema: unknown): z.ZodObject {
  const lazy = schema as { unwrap?: () => unknown };
  return (typeof lazy.unwrap === "function" ? lazy.unwrap() : schema) as z.ZodObject;
}

type ShellOutput = Omit<RuleOutput, "where"> & { where?: Record<string, unknown> };

/** PermissionRuleSchema with each `where` condition left to `validRulesOnce`. */
// (`safeExtend` keeps the schemas' refinements; its types only allow narrowing a field, hence the widening casts.)
const RuleShellSchema = z.lazy(() => objectOf(PermissionRuleSchema).safeExtend({ where: z.record(z.string().min(1), z.unknown()).optional() })) as unknown as z.ZodType<ShellOutput>;

/** The keys of a rule `plainShell` judges: those whose schema is a string, a boolean or the mode (and `where`, a record of conditions). */
const PLAIN_STRING_KEYS = new Set(["id", "rule", "tool", "args", "reason"]);
const NON_EMPTY_KEYS = new Set(["id", "rule", "tool", "args"]);
const PLAIN_BOOLEAN_KEYS = new Set(["toolRegex", "shadow", "caseSensitive"]);
const MODES = new Set<unknown>(["allow", "deny", "ask"]);

/**
 * True when RuleShellSchema accepts `rule` and its output is `rule`'s own data: an object of the
 * Object prototype whose keys are all its own and among id, rule, tool, toolRegex, args, mode,
 * reason, shadow, caseSensitive and where, each of the type the schema asks (`where`: an object of
 * the Object prototype whose keys are its own non-empty strings), with the schema's
 * refinement (tool or rule, not both). Anything else (after, budget, principal, odd objects) is left
 * to the schema, so this only ever spares it work on rules it would accept as they are.
 */
function plainShell(rule: unknown): rule is ShellOutput {
  if (typeof rule !== "object" || rule === null || Object.getPrototypeOf(rule) !== Object.prototype) return false;
  const r = rule as Record<string, unknown>;
  for (const key in r) {
    if (!Object.hasOwn(r, key)) return false;
    // An unknown key is refused even when its value is undefined; a known one may be undefined.
    const value = r[key];
    if (PLAIN_STRING_KEYS.has(key)) {
      if (value !== undefined && (typeof value !== "string" || (value.length === 0 && NON_EMPTY_KEYS.has(key)))) return false;
    } else if (PLAIN_BOOLEAN_KEYS.has(key)) {
      if (value !== undefined && typeof value !== "boolean") return false;
    } else if (key === "where") {
      if (value !== undefined && !plainWhere(value)) return false;
    } else if (key !== "mode") return false;
  }
  if (!MODES.has(r.mode) || Object.getOwnPropertySymbols(r).length > 0) return false;
  if (r.rule === undefined) return r.tool !== undefined;
  return r.tool === undefined && r.toolRegex === undefined && r.where === undefined;
}

function plainWhere(where: unknown): boolean {
  if (typeof where !== "object" || where === null || Object.getPrototypeOf(where) !== Object.prototype) return false;
  for (const key in where) if (key === "" || key === "__proto__" || !Object.hasOwn(where, key)) return false;
  return Object.getOwnPropertySymbols(where).length === 0;
}

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

/** FieldMatcherSchema's keys in its shape's order (the order of the keys it outputs). */
const LEAF_KEYS = ["equals", "in", "glob", "regex", "prefix", "exists", "path", "base", "command", "url", "domain", "email", "caseSensitive"] as const;
/** The leaf keys of which exactly one must be given (MATCHER_KEYS of the schema). */
const LEAF_MATCHERS = new Set<string>(["equals", "in", "glob", "regex", "prefix", "exists", "path", "command", "url", "domain", "email"]);
const PATTERN_KEYS = new Set<string>(["path", "command", "url", "domain", "email"]);
const NON_EMPTY_STRING_KEYS = new Set<string>(["glob", "regex", "prefix", "base"]);
const NUMERIC_KEYS = new Set<string>(["lt", "lte", "gt", "gte"]);
const CONNECTIVES = new Set<string>(["not", "anyOf", "allOf"]);

/** A scalar of the leaf schema (`equals`, an `in` item): a string, a finite number or a boolean. */
function isScalar(value: unknown): boolean {
  return typeof value === "string" || typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value));
}

/** An array of the Array prototype without holes (`every` would pass over a hole the schema refuses). */
function isDenseArray(value: unknown): value is unknown[] {
  if (!Array.isArray(value) || Object.getPrototypeOf(value) !== Array.prototype) return false;
  for (let i = 0; i < value.length; i++) if (!(i in value)) return false;
  return true;
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value.length > 0;
}

/**
 * `FieldConditionSchema`'s output for a condition it accepts as `isPlain` data of the usual shapes —
 * a leaf matcher, a numeric comparison, or `not` / `anyOf` / `allOf` of such — built as the schema
 * builds it (keys in its shape's order, arrays copied); undefined for anything else, which the schema
 * then judges (and names every problem of). It never accepts what the schema refuses:
 * test/policy-plain-conditions.test.ts compares the two on generated conditions.
 */
export function plainCondition(value: unknown, depth = 0): ConditionOutput | undefined {
  if (typeof value !== "object" || value === null || Object.getPrototypeOf(value) !== Object.prototype || depth > MAX_PLAIN_DEPTH) return undefined;
  const c = value as Record<string, unknown>;
  let first: string | undefined;
  let count = 0;
  for (const key in c) {
    if (!Object.hasOwn(c, key)) return undefined;
    if (count++ === 0) first = key;
  }
  if (Object.getOwnPropertySymbols(c).length > 0) return undefined;
  if (first === undefined) return undefined;
  if (count === 1 && CONNECTIVES.has(first)) {
    if (first === "not") {
      const inner = plainCondition(c.not, depth + 1);
      return inner === undefined ? undefined : ({ not: inner } as ConditionOutput);
    }
    const list = c[first];
    if (!isDenseArray(list) || list.length === 0) return undefined;
    const out: ConditionOutput[] = [];
    for (const item of list) {
      const inner = plainCondition(item, depth + 1);
      if (inner === undefined) return undefined;
      out.push(inner);
    }
    return { [first]: out } as ConditionOutput;
  }
  if (count === 1 && NUMERIC_KEYS.has(first)) {
    const bound = c[first];
    return typeof bound === "number" && Number.isFinite(bound) ? ({ [first]: bound } as ConditionOutput) : undefined;
  }
  if (count === 1 && first === "between") {
    const range = c.between;
    if (!isDenseArray(range) || range.length !== 2) return undefined;
    const [low, high] = range as unknown[];
    if (typeof low !== "number" || typeof high !== "number" || !Number.isFinite(low) || !Number.isFinite(high) || low > high) return undefined;
    return { between: [low, high] } as ConditionOutput;
  }
  return plainLeaf(c);
}

/** FieldMatcherSchema's output for a leaf `plainCondition` can judge, else undefined. */
function plainLeaf(c: Record<string, unknown>): ConditionOutput | undefined {
  let matcher: string | undefined;
  for (const key in c) {
    const value = c[key];
    if (LEAF_MATCHERS.has(key)) {
      if (matcher !== undefined) return undefined;
      matcher = key;
    }
    if (key === "equals") {
      if (!isScalar(value)) return undefined;
    } else if (key === "in") {
      if (!isDenseArray(value) || value.length === 0 || !value.every(isScalar)) return undefined;
    } else if (key === "exists" || key === "caseSensitive") {
      if (typeof value !== "boolean") return undefined;
    } else if (NON_EMPTY_STRING_KEYS.has(key)) {
      if (!isNonEmptyString(value)) return undefined;
    } else if (PATTERN_KEYS.has(key)) {
      if (!isNonEmptyString(value) && !(isDenseArray(value) && value.length > 0 && value.every(isNonEmptyString))) return undefined;
    } else return undefined;
  }
  if (matcher === undefined) return undefined;
  if (matcher === "exists" && c.caseSensitive !== undefined) return undefined;
  if (c.base !== undefined && matcher !== "path") return undefined;
  const out: Record<string, unknown> = {};
  for (const key of LEAF_KEYS) {
    if (!Object.hasOwn(c, key)) continue;
    const value = c[key];
    out[key] = Array.isArray(value) ? [...value] : value;
  }
  return out as ConditionOutput;
}

/**
 * Permission rules validated as `z.array(PermissionRuleSchema)` validates them, each distinct
 * `where` condition (by its plain-data text) validated once and its parsed form shared by the rules
 * that repeat it: big policies repeat conditions across tools. Undefined when anything is refused
 * (or cannot be judged this way): the caller then runs the whole schema, which names every problem
 * exactly as before.
 */
export function validRulesOnce(input: unknown): RuleOutput[] | undefined {
  const once = validShellsOnce(input);
  if (once === undefined) return undefined;
  return once.rules.map((rule, index) => {
    if (rule.where === undefined) return rule as RuleOutput;
    return { ...rule, where: Object.fromEntries(Object.keys(rule.where).map((selector, k) => [selector, once.conditions[once.from[index]! + k]!])) } as RuleOutput;
  });
}

/**
 * Rules as `validRulesOnce` judges them, without building a rule per rule: each rule's shell (a
 * plain one as it was given, never changed; else the schema's output, whose `where` holds the
 * conditions as written), and its `where` conditions as validated, in the order of
 * `Object.keys(rule.where)`, at `conditions[from[index] + k]`.
 */
export interface ShellsOnce {
  readonly rules: readonly ShellOutput[];
  readonly conditions: readonly ConditionOutput[];
  readonly from: Int32Array;
}

export function validShellsOnce(input: unknown): ShellsOnce | undefined {
  if (!Array.isArray(input)) return undefined;
  const known = new Map<string, ConditionOutput>();
  const rules: ShellOutput[] = new Array(input.length);
  const conditions: ConditionOutput[] = [];
  const from = new Int32Array(input.length);
  for (let i = 0; i < input.length; i++) {
    const item: unknown = input[i];
    let rule: ShellOutput;
    // A plain rule is read as it is (the schema's output would be a copy of the same data); the others through the schema.
    if (plainShell(item)) rule = item;
    else {
      const shell = RuleShellSchema.safeParse(item);
      if (!shell.success) return undefined;
      rule = shell.data;
    }
    rules[i] = rule;
    from[i] = conditions.length;
    if (rule.where === undefined) continue;
    const where = rule.where;
    for (const selector in where) {
      if (!Object.hasOwn(where, selector)) continue;
      if (selector === "__proto__") return undefined;
      const condition = where[selector];
      const text = plainText(condition);
      let valid = text === undefined ? undefined : known.get(text);
      if (valid === undefined) {
        // Plain data of the usual shapes is read without the schema (the same output); the rest through it.
        valid = text === undefined ? undefined : plainCondition(condition);
        if (valid === undefined) {
          const parsed = FieldConditionSchema.safeParse(condition);
          if (!parsed.success) return undefined;
          valid = parsed.data;
        }
        if (text !== undefined) known.set(text, valid);
      }
      conditions.push(valid);
    }
  }
  return { rules, conditions, from };
}
