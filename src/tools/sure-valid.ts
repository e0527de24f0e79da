/**
 * A cheaper reading of a zod input schema for the review: `surelyValid` says, for schemas built
 * only of the plain kinds below, that zod's own parse would report no issue. It is one-sided: false
 * means "ask zod" (which then parses and words any refusal), never "invalid". Schemas with checks
 * (lengths, formats, integers, refinements), coercion, transforms, pipes, defaults, catch-alls or
 * any other kind are never read here: zod parses them.
 */

type Check = (value: unknown) => boolean;

interface ZodDef {
  readonly type?: unknown;
  readonly checks?: readonly unknown[];
  readonly innerType?: unknown;
  readonly element?: unknown;
  readonly shape?: Record<string, unknown>;
  readonly keyType?: unknown;
  readonly valueType?: unknown;
  readonly options?: readonly unknown[];
  readonly discriminator?: unknown;
}

/** The compiled check of each schema object (null: not a plain schema, zod parses it). */
const compiled = new WeakMap<object, Check | null>();

/** True only when zod's parse of `value` by `schema` would succeed with no issue (see the module note). */
export function surelyValid(schema: unknown, value: unknown): boolean {
  const check = checkOf(schema);
  return check !== undefined && check(value);
}

function checkOf(schema: unknown): Check | undefined {
  if (typeof schema !== "object" || schema === null) return undefined;
  let check = compiled.get(schema);
  if (check === undefined) {
    compiled.set(schema, null); // a schema that contains itself (z.lazy aside) is not plain
    check = compile(schema) ?? null;
    compiled.set(schema, check);
  }
  return check ?? undefined;
}

/** A plain object as JSON data makes it (prototype Object.prototype): zod reads others in ways of its own. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/**
 * The members a plain schema's definition may have, by kind (`error` words a refusal only; an
 * empty `checks` list checks nothing). A definition with any other member (a format, a pattern,
 * coercion, a catch-all, an exclusive or fallback union, a partial record, ...) is not plain.
 */
const PLAIN_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  string: ["checks"],
  number: ["checks"],
  boolean: [],
  null: [],
  any: [],
  unknown: [],
  enum: ["entries"],
  literal: ["values"],
  optional: ["innerType"],
  nullable: ["innerType"],
  array: ["element", "checks"],
  object: ["shape"],
  record: ["keyType", "valueType"],
  union: ["options"],
};

/** The definition of a plain schema (see PLAIN_MEMBERS; no check of its own, none in `checks`), else undefined. */
function plainDef(schema: unknown): ZodDef | undefined {
  const zod = (schema as { _zod?: { def?: ZodDef; check?: unknown } } | null | undefined)?._zod;
  const def = zod?.def;
  if (def === undefined || zod?.check !== undefined || typeof def.type !== "string" || !Object.hasOwn(PLAIN_MEMBERS, def.type)) return undefined;
  const members = PLAIN_MEMBERS[def.type]!;
  for (const key of Object.keys(def)) {
    if (key === "type" || key === "error" || members.includes(key)) continue;
    // A discriminated union reads the option its discriminator names: an input one option accepts is accepted.
    if (def.type === "union" && (key === "discriminator" || key === "inclusive") && typeof def.discriminator === "string") continue;
    return undefined;
  }
  if (def.checks !== undefined && def.checks.length > 0) return undefined;
  return def;
}

function compile(schema: object): Check | undefined {
  const def = plainDef(schema);
  if (def === undefined) return undefined;
  switch (def.type) {
    case "string":
      return (value) => typeof value === "string";
    case "number":
      return (value) => typeof value === "number" && Number.isFinite(value);
    case "boolean":
      return (value) => typeof value === "boolean";
    case "null":
      return (value) => value === null;
    case "any":
    case "unknown":
      return (value) => value !== undefined; // undefined is left to zod (it may read it as a missing value)
    case "enum":
    case "literal": {
      // The values zod's own parse accepts (its `values` set), strings, booleans and finite numbers among them.
      const values = (schema as { _zod?: { values?: unknown } })._zod?.values;
      if (!(values instanceof Set)) return undefined;
      const allowed = new Set([...(values as Set<unknown>)].filter((entry) => typeof entry === "string" || typeof entry === "boolean" || (typeof entry === "number" && Number.isFinite(entry))));
      return (value) => allowed.has(value);
    }
    case "optional": {
      const inner = checkOf(def.innerType);
      return inner === undefined ? undefined : (value) => value === undefined || inner(value);
    }
    case "nullable": {
      const inner = checkOf(def.innerType);
      return inner === undefined ? undefined : (value) => value === null || inner(value);
    }
    case "array": {
      const element = checkOf(def.element);
      if (element === undefined) return undefined;
      return (value) => {
        if (!Array.isArray(value)) return false;
        for (let i = 0; i < value.length; i++) if (!element(value[i])) return false; // a hole reads undefined, as zod reads it
        return true;
      };
    }
    case "object": {
      // A strip object (the default; no catch-all) only: unknown keys are no issue. Each field is read as zod reads it.
      if (def.shape === undefined) return undefined;
      // A missing (or undefined) field is accepted only where zod marks the field optional (`optin`).
      const keys = Object.keys(def.shape);
      const checks: Check[] = [];
      const optional: boolean[] = [];
      for (const key of keys) {
        const field = def.shape[key];
        const check = checkOf(field);
        if (check === undefined) return undefined;
        checks.push(check);
        optional.push((field as { _zod?: { optin?: unknown } })._zod?.optin === "optional");
      }
      return (value) => {
        if (!isPlainObject(value)) return false;
        for (let i = 0; i < keys.length; i++) {
          const field = value[keys[i]!];
          if (field === undefined ? !optional[i] : !checks[i]!(field)) return false;
        }
        return true;
      };
    }
    case "record": {
      // String keys of no check; the value of every own enumerable key checked. Only plain
      // objects without symbol keys or an own `constructor` (zod reads those too, and refuses them for a string key).
      if (plainDef(def.keyType)?.type !== "string") return undefined;
      const inner = checkOf(def.valueType);
      if (inner === undefined) return undefined;
      return (value) => {
        if (!isPlainObject(value) || Object.hasOwn(value, "constructor") || Object.getOwnPropertySymbols(value).length > 0) return false;
        for (const key in value) if (Object.hasOwn(value, key) && !inner(value[key])) return false;
        return true;
      };
    }
    case "union": {
      // A plain or discriminated union: an input some option accepts with no issue is accepted.
      if (def.options === undefined) return undefined;
      const options: Check[] = [];
      for (const option of def.options) {
        const check = checkOf(option);
        if (check === undefined) return undefined;
        options.push(check);
      }
      return (value) => options.some((check) => check(value));
    }
    default:
      return undefined;
  }
}
