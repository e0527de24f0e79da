import { CANONICAL_PROTOTYPE, DuplicateValues, EmbeddedJson } from "./json-dup.js";
import { normalizeString } from "./normalize.js";

function isEmbeddedJson(value: unknown): value is EmbeddedJson {
  return value instanceof EmbeddedJson;
}

/** The containers a selector step looks into: an embedded JSON document's structure, every value of a duplicated key. */
function containers(value: unknown, out: unknown[]): void {
  if (value instanceof DuplicateValues) for (const item of value.values) containers(item, out);
  else if (isEmbeddedJson(value)) containers(value.parsed, out);
  else out.push(value);
}

/** Returned by a direct getter that met a duplicated key or embedded JSON: use selectAll. */
export const NEEDS_FULL_SELECT: unique symbol = Symbol("needs full select");

/** One step of a field selector: an object key, an array index, or `*` (every key or element). */
export type SelectorSegment = { key: string } | { index: number } | { any: true };

/**
 * Parses `a.b[0].c`, `containers[*].image`, `labels["app.kubernetes.io/name"]`, `*`.
 * Throws a TypeError naming the selector and the position of the problem.
 */
export function parseSelector(selector: string): SelectorSegment[] {
  const segments: SelectorSegment[] = [];
  let i = 0;
  const fail = (what: string): never => {
    throw new TypeError(`field selector ${JSON.stringify(selector)} is invalid at position ${i}: ${what} (expected e.g. a.b[0].c, items[*].name or labels["x.y"])`);
  };
  if (selector.length === 0) fail("empty selector");
  let expectName = true;
  while (i < selector.length) {
    const ch = selector[i];
    if (ch === "[") {
      const close = selector.indexOf("]", i);
      if (close < 0) fail("missing ]");
      const inner = selector.slice(i + 1, close);
      if (inner === "*") segments.push({ any: true });
      else if (/^\d+$/.test(inner)) segments.push({ index: Number(inner) });
      else if (/^"(?:[^"\\]|\\.)*"$/.test(inner)) segments.push({ key: normalizeString(JSON.parse(inner) as string) });
      else fail(`[${inner}] is not an index, [*] or a quoted key`);
      i = close + 1;
      expectName = false;
    } else if (ch === ".") {
      if (expectName) fail("empty path segment");
      i += 1;
      expectName = true;
    } else {
      if (!expectName) fail("expected . or [ between segments");
      let end = i;
      while (end < selector.length && selector[end] !== "." && selector[end] !== "[") end += 1;
      const name = selector.slice(i, end);
      segments.push(name === "*" ? { any: true } : { key: normalizeString(name) });
      i = end;
      expectName = false;
    }
  }
  if (expectName) fail("selector ends with .");
  return segments;
}

/**
 * The top-level argument a selector reads, as the matcher reads it (parseSelector, keys normalised):
 * `path` of `path.to[0]`, `a.b` of `["a.b"].c`, `env` of `ｅｎｖ`. Undefined when the first step is
 * not a plain key (`*`, `[*]`, `[0]`: it may read any argument, or none) or the selector is invalid
 * (refused when its rule is compiled).
 */
export function topArgument(selector: string): string | undefined {
  let first: SelectorSegment | undefined;
  try {
    first = parseSelector(selector)[0];
  } catch {
    return undefined;
  }
  return first !== undefined && "key" in first ? first.key : undefined;
}

function step(outer: unknown, segment: SelectorSegment, out: unknown[]): void {
  if (outer instanceof DuplicateValues || isEmbeddedJson(outer)) {
    const inner: unknown[] = [];
    containers(outer, inner);
    for (const item of inner) step(item, segment, out);
    return;
  }
  const value = outer;
  if (typeof value !== "object" || value === null) return;
  if ("any" in segment) {
    out.push(...(Array.isArray(value) ? value : Object.values(value)));
  } else if ("index" in segment) {
    if (Array.isArray(value) && segment.index < value.length) out.push(value[segment.index]);
  } else if (!Array.isArray(value) && Object.hasOwn(value, segment.key)) {
    out.push((value as Record<string, unknown>)[segment.key]);
  }
}

/**
 * A getter for selectors made of keys and indexes only (the common case): no allocation per call.
 * Returns undefined for selectors with a wildcard.
 */
export function compileDirectGetter(segments: readonly SelectorSegment[]): ((value: unknown) => unknown | typeof NEEDS_FULL_SELECT) | undefined {
  if (segments.some((segment) => "any" in segment)) return undefined;
  const steps = segments.map((segment) => ("key" in segment ? segment.key : (segment as { index: number }).index));
  const only = steps[0];
  if (steps.length === 1 && typeof only === "string") {
    // One key (`namespace`, `path`): the loop below unrolled, the common case.
    return (value) => {
      if (typeof value !== "object" || value === null) return undefined;
      // A canonical object (the usual tree) inherits nothing: the key's own value, or undefined.
      if (Object.getPrototypeOf(value) === CANONICAL_PROTOTYPE) return (value as Record<string, unknown>)[only];
      if (value instanceof DuplicateValues || value instanceof EmbeddedJson) return NEEDS_FULL_SELECT;
      if (Array.isArray(value) || !Object.hasOwn(value, only)) return undefined;
      return (value as Record<string, unknown>)[only];
    };
  }
  return (value) => {
    let current = value;
    for (const key of steps) {
      if (typeof current !== "object" || current === null) return undefined;
      if (typeof key === "string" && Object.getPrototypeOf(current) === CANONICAL_PROTOTYPE) {
        current = (current as Record<string, unknown>)[key]; // as for one key, above
        continue;
      }
      if (current instanceof DuplicateValues || isEmbeddedJson(current)) return NEEDS_FULL_SELECT;
      if (typeof key === "number") {
        if (!Array.isArray(current) || key >= current.length) return undefined;
        current = current[key];
      } else {
        if (Array.isArray(current) || !Object.hasOwn(current, key)) return undefined;
        current = (current as Record<string, unknown>)[key];
      }
    }
    return current;
  };
}

/** Every value the selector reaches (wildcards may reach several; a missing path reaches none). */
export function selectAll(value: unknown, segments: readonly SelectorSegment[]): unknown[] {
  let current: unknown[] = [value];
  for (const segment of segments) {
    const next: unknown[] = [];
    for (const item of current) step(item, segment, next);
    current = next;
    if (current.length === 0) break;
  }
  return current;
}

/**
 * The value at `selector` in `args` (use it on `canonicalize(args).value` to see what rules see).
 * Undefined when the path is missing; an array of the reached values when the selector has a `*`.
 */
export function selectField(args: unknown, selector: string): unknown {
  const segments = parseSelector(selector);
  const found = selectAll(args, segments);
  if (segments.some((segment) => "any" in segment)) return found.length > 0 ? found : undefined;
  return found[0];
}
