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
 * object does. JSON.parse keeps a repeated key's last value and other readers its first: a document
 * that repeats one says two things. `text` must be JSON (JSON.parse has read it): one linear scan,
 * strings skipped by their closing quote, a key decoded only when it holds an escape.
 */
export function firstRepeatedKey(text: string): (string | number)[] | undefined {
  /** Per open object its keys so far and current key; per open array its current index. */
  const open: { keys: Set<string> | undefined; at: string | number }[] = [];
  let expectKey = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // The closing quote: the next one not escaped by an odd run of backslashes.
      let end = text.indexOf('"', i + 1);
      for (;;) {
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === 0x5c) slashes += 1;
        if (slashes % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      const top = open[open.length - 1];
      if (expectKey && top?.keys !== undefined) {
        const raw = text.slice(i + 1, end);
        const key = raw.includes("\\") ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
        if (top.keys.has(key)) return [...open.slice(0, -1).map((o) => o.at), key];
        top.keys.add(key);
        top.at = key;
        expectKey = false;
      }
      i = end;
    } else if (c === 0x7b) {
      open.push({ keys: new Set(), at: "" });
      expectKey = true;
    } else if (c === 0x5b) {
      open.push({ keys: undefined, at: 0 });
    } else if (c === 0x7d || c === 0x5d) {
      open.pop();
    } else if (c === 0x2c) {
      const top = open[open.length - 1];
      if (top?.keys !== undefined) expectKey = true;
      else if (top !== undefined) top.at = (top.at as number) + 1;
    }
  }
  return undefined;
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
