/**
 * Arguments kept by their content: `argumentsKey` reads a call's arguments once (checking they are
 * plain JSON data) and gives their JSON text, `BoundedCache` keeps values by such keys. A policy
 * keeps its decisions here (PermissionPolicy.decide): a decision that reads nothing but the
 * arguments' canonical views (src/policy/canonical.ts) is the same for arguments with the same key.
 */

/**
 * Most characters (of strings and keys) arguments may hold to get a key: larger ones are decided
 * every time (they are rare, and their keys would take the cache's memory).
 */
const MAX_KEY_CHARS = 1_024;
/** Deepest nesting arguments may have to get a key. */
const MAX_KEY_DEPTH = 16;

/**
 * `JSON.stringify(args)` when `args` is an object of plain JSON data, else undefined. Plain data:
 * plain objects (prototype Object.prototype or null) and arrays (prototype Array.prototype), every
 * value a string, a finite number other than -0, a boolean, null or such an object or array — no
 * undefined, hole, function (a `toJSON` among them), symbol, bigint, class instance or boxed
 * primitive — at most MAX_KEY_DEPTH deep and MAX_KEY_CHARS long. JSON text determines such data
 * (its keys in their order, its values), and every reader of it (the canonical views, the control
 * character scan) reads only that: arguments with the same key get the same decision. (A getter or
 * a Proxy that answers differently on each read is read as data is.)
 */
export function argumentsKey(args: unknown): string | undefined {
  if (typeof args !== "object" || args === null) return undefined;
  // A toJSON every object inherits would be called by JSON.stringify and not by the readers.
  if ((Object.prototype as { toJSON?: unknown }).toJSON !== undefined || (Array.prototype as { toJSON?: unknown }).toJSON !== undefined) return undefined;
  if (plainData(args, 0, MAX_KEY_CHARS) < 0) return undefined;
  return JSON.stringify(args);
}

/** The character budget left after `value` (its strings and keys), or -1 when `value` is not plain data (see argumentsKey) or is over budget. */
function plainData(value: unknown, depth: number, budget: number): number {
  if (typeof value === "string") return value.length > budget ? -1 : budget - value.length;
  if (typeof value === "number") return !Number.isFinite(value) || (value === 0 && 1 / value < 0) ? -1 : budget;
  if (typeof value === "boolean" || value === null) return budget;
  // undefined (a hole too), a function, a symbol, a bigint; or too deep.
  if (typeof value !== "object" || depth >= MAX_KEY_DEPTH) return -1;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto === Array.prototype) {
    const list = value as unknown[];
    for (let i = 0; i < list.length && budget >= 0; i++) budget = plainData(list[i], depth + 1, budget);
    return budget;
  }
  if (proto !== Object.prototype && proto !== null) return -1;
  // for-in over own keys: Object.keys' keys in its order, without an array per object.
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    budget = plainData((value as Record<string, unknown>)[key], depth + 1, budget - key.length);
    if (budget < 0) return -1;
  }
  return budget;
}

/** Most entries one generation of a BoundedCache holds (two generations are kept). */
const MAX_KEPT_ENTRIES = 2_048;

/**
 * Values by key, bounded: two generations of at most MAX_KEPT_ENTRIES entries each. An entry read
 * from the older generation moves to the newer; when the newer is full it becomes the older and the
 * older is forgotten (a key in use stays, a cold one goes).
 */
export class BoundedCache<V> {
  private young = new Map<string, V>();
  private old = new Map<string, V>();

  constructor(private readonly limit = MAX_KEPT_ENTRIES) {}

  get(key: string): V | undefined {
    const found = this.young.get(key);
    if (found !== undefined) return found;
    const older = this.old.get(key);
    if (older !== undefined) this.set(key, older);
    return older;
  }

  set(key: string, value: V): void {
    this.young.set(key, value);
    if (this.young.size >= this.limit) {
      this.old = this.young;
      this.young = new Map();
    }
  }

  clear(): void {
    this.young.clear();
    this.old.clear();
  }
}
