/**
 * A JSON parser that keeps every value of a duplicated key (`{"ns":"dev","ns":"production"}` gives
 * `ns: ["dev", "production"]` wrapped in DuplicateValues), so a rule sees what any consumer might read:
 * JSON.parse keeps the last value, other parsers keep the first.
 */
export class DuplicateValues {
  constructor(readonly values: unknown[]) {}
  toJSON(): unknown[] {
    return this.values;
  }
}

/**
 * A string argument that holds a JSON document: rules see both the raw string (a condition on the
 * field judges `raw`) and the structure (selectors step into `parsed`; the canonical text shows it).
 */
export class EmbeddedJson {
  constructor(
    readonly raw: string,
    readonly parsed: unknown,
  ) {}
  toJSON(): unknown {
    return this.parsed;
  }
}

/**
 * The prototype of canonical objects (canonical.ts): empty, frozen, and itself without a prototype,
 * so that `__proto__`, `toString` or `constructor` are plain keys as in a null-prototype object
 * (nothing is inherited: reading a key an object lacks gives undefined), while V8 keeps the objects
 * in its fast representation (`Object.create(null)` objects are dictionaries: slower to build, read
 * and render as JSON). Only canonical.ts creates objects with it, never arrays.
 */
export const CANONICAL_PROTOTYPE: object = Object.freeze(Object.create(null) as object);

/**
 * Where JSON `text` first repeats a key in one object (the path to that key), or undefined when no
 * object does (or the text is not JSON). JSON.parse keeps a repeated key's last value and other
 * readers its first: a document that repeats one says two things.
 */
export function firstRepeatedKey(text: string): (string | number)[] | undefined {
  let parsed: unknown;
  try {
    parsed = parseJsonKeepingDuplicates(text, 4_096);
  } catch {
    return undefined;
  }
  const walk = (value: unknown, path: (string | number)[]): (string | number)[] | undefined => {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const found = walk(value[i], [...path, i]);
        if (found) return found;
      }
      return undefined;
    }
    if (typeof value !== "object" || value === null) return undefined;
    for (const [key, child] of Object.entries(value)) {
      if (child instanceof DuplicateValues) return [...path, key];
      const found = walk(child, [...path, key]);
      if (found) return found;
    }
    return undefined;
  };
  return walk(parsed, []);
}

class Bad extends Error {}

export class JsonTooDeep extends Error {}

/** Parses `text`; undefined when it is not JSON. Throws JsonTooDeep past `maxDepth`. */
export function parseJsonKeepingDuplicates(text: string, maxDepth: number): unknown {
  let i = 0;
  const ws = () => {
    while (i < text.length && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i += 1;
  };
  const value = (depth: number): unknown => {
    if (depth > maxDepth) throw new JsonTooDeep();
    ws();
    const ch = text[i];
    if (ch === "{") {
      i += 1;
      const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
      ws();
      if (text[i] === "}") {
        i += 1;
        return out;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') throw new Bad();
        const key = string();
        ws();
        if (text[i] !== ":") throw new Bad();
        i += 1;
        const item = value(depth + 1);
        if (Object.hasOwn(out, key)) {
          const prior = out[key];
          out[key] = new DuplicateValues(prior instanceof DuplicateValues ? [...prior.values, item] : [prior, item]);
        } else out[key] = item;
        ws();
        if (text[i] === ",") {
          i += 1;
          continue;
        }
        if (text[i] === "}") {
          i += 1;
          return out;
        }
        throw new Bad();
      }
    }
    if (ch === "[") {
      i += 1;
      const out: unknown[] = [];
      ws();
      if (text[i] === "]") {
        i += 1;
        return out;
      }
      for (;;) {
        out.push(value(depth + 1));
        ws();
        if (text[i] === ",") {
          i += 1;
          continue;
        }
        if (text[i] === "]") {
          i += 1;
          return out;
        }
        throw new Bad();
      }
    }
    if (ch === '"') return string();
    const literal = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 400));
    if (literal === null) throw new Bad();
    i += literal[0].length;
    return JSON.parse(literal[0]) as unknown;
  };
  const string = (): string => {
    const start = i;
    i += 1;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === "\\") i += 1;
      i += 1;
    }
    if (i >= text.length) throw new Bad();
    i += 1;
    return JSON.parse(text.slice(start, i)) as string;
  };
  try {
    const result = value(0);
    ws();
    return i === text.length ? result : undefined;
  } catch (error) {
    if (error instanceof Bad || error instanceof SyntaxError) return undefined;
    throw error;
  }
}
