/**
 * Arguments kept by their content: `argumentsHash` reads a call's arguments once (checking they are
 * plain JSON data) and gives a hash of their data, `DataCache` keeps values by such data. A policy
 * keeps its decisions here (PermissionPolicy.decide): a decision that reads nothing but the
 * arguments' canonical views (src/policy/canonical.ts) is the same for arguments with the same data.
 *
 * Plain data: plain objects (prototype Object.prototype or null) and arrays (prototype
 * Array.prototype), every value a string, a finite number other than -0, a boolean, null or such an
 * object or array — no undefined, hole, function (a `toJSON` among them), symbol, bigint, class
 * instance or boxed primitive — at most MAX_KEY_DEPTH deep and MAX_KEY_CHARS long. Its JSON text
 * determines such data (its keys in their order, its values), and every reader of it (the canonical
 * views, the control character scan) reads only that: arguments with the same data get the same
 * decision. (A getter or a Proxy that answers differently on each read is read as data is.)
 */

/**
 * Most characters (of strings and keys) arguments may hold to be kept: larger ones are decided
 * every time (they are rare, and their copies would take the cache's memory).
 */
const MAX_KEY_CHARS = 1_024;
/** Deepest nesting arguments may have to be kept. */
const MAX_KEY_DEPTH = 16;

/** Most entries one generation of a DataCache holds (two generations are kept). */
const MAX_KEPT_ENTRIES = 2_048;
/** Most entries kept under one hash: data that collide beyond it (by chance or on purpose) push the oldest out. */
const MAX_PER_HASH = 4;

/**
 * A hash of `args` when it is an object of plain JSON data (see above), else -1: one walk checks
 * the data and mixes each key and value (in their order) into a 31-bit number. Equal data give
 * equal hashes; unequal data may share one (a DataCache compares the data itself).
 */
export function argumentsHash(args: unknown): number {
  if (typeof args !== "object" || args === null) return -1;
  if ((Object.prototype as { toJSON?: unknown }).toJSON !== undefined || (Array.prototype as { toJSON?: unknown }).toJSON !== undefined) return -1;
  hashBudget = MAX_KEY_CHARS;
  const hash = hashData(args, 0, 0x2f6b3a1d);
  return hash < 0 || hashBudget < 0 ? -1 : hash;
}

/** Characters argumentsHash may still read (MAX_KEY_CHARS at the start). */
let hashBudget = 0;

/** One step of the mix: `h` with the 32-bit `v` folded in (Murmur3's). */
function mix(h: number, v: number): number {
  let k = Math.imul(v, 0xcc9e2d51);
  k = Math.imul((k << 15) | (k >>> 17), 0x1b873593);
  h ^= k;
  return (Math.imul((h << 13) | (h >>> 19), 5) + 0xe6546b64) | 0;
}

/** `h` with `text` folded in: FNV-1a over its UTF-16 units, two at a time (the lookup compares the data, so a cheap mix does). */
function mixString(h: number, text: string): number {
  const n = text.length;
  h = Math.imul(h ^ n, 0x01000193);
  let i = 0;
  for (; i + 1 < n; i += 2) h = Math.imul(h ^ (text.charCodeAt(i) | (text.charCodeAt(i + 1) << 16)), 0x01000193);
  if (i < n) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h;
}

/** `h` with `value` mixed in (non-negative), or -1 when `value` is not plain data. */
function hashData(value: unknown, depth: number, h: number): number {
  if (typeof value === "string") {
    hashBudget -= value.length;
    return hashBudget < 0 ? -1 : mixString(mix(h, 1), value) & 0x7fffffff;
  }
  if (typeof value === "number") {
    if (!Number.isFinite(value) || (value === 0 && 1 / value < 0)) return -1;
    return mix(mix(h, 2), Number.isInteger(value) ? value | 0 : mixString(0, String(value))) & 0x7fffffff;
  }
  if (typeof value === "boolean") return mix(h, value ? 3 : 4) & 0x7fffffff;
  if (value === null) return mix(h, 5) & 0x7fffffff;
  if (typeof value !== "object" || depth >= MAX_KEY_DEPTH) return -1;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto === Array.prototype) {
    const list = value as unknown[];
    h = mix(h, 6 + list.length * 8);
    for (let i = 0; i < list.length; i++) {
      h = hashData(list[i], depth + 1, h);
      if (h < 0) return -1;
    }
    return h & 0x7fffffff;
  }
  if (proto !== Object.prototype && proto !== null) return -1;
  h = mix(h, 7);
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    hashBudget -= key.length;
    h = hashData((value as Record<string, unknown>)[key], depth + 1, mixString(h, key));
    if (h < 0) return -1;
  }
  return mix(h, 8) & 0x7fffffff;
}

/** Plain data as a DataCache keeps it: its own copy, objects as their keys and values in order. */
type KeptData = string | number | boolean | null | KeptData[] | KeptObject;
interface KeptObject {
  readonly keys: readonly string[];
  readonly values: readonly KeptData[];
}

/** A copy of plain data (argumentsHash said it is): what the caller does with its arguments later changes nothing kept. */
function keepData(value: unknown): KeptData {
  if (typeof value !== "object" || value === null) return value as KeptData;
  if (Array.isArray(value)) return value.map(keepData);
  const keys: string[] = [];
  const values: KeptData[] = [];
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    keys.push(key);
    values.push(keepData((value as Record<string, unknown>)[key]));
  }
  return { keys, values };
}

/** Whether `value` is the data `kept` holds: the same keys in the same order, equal strings, numbers, booleans and nulls (its JSON text is the same). */
function sameData(kept: KeptData, value: unknown): boolean {
  if (typeof kept !== "object" || kept === null) return kept === value;
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(kept)) {
    if (!Array.isArray(value) || value.length !== kept.length) return false;
    for (let i = 0; i < kept.length; i++) if (!sameData(kept[i]!, value[i])) return false;
    return true;
  }
  if (Array.isArray(value)) return false;
  const keys = kept.keys;
  let i = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (keys[i] !== key || !sameData(kept.values[i]!, (value as Record<string, unknown>)[key])) return false;
    i += 1;
  }
  return i === keys.length;
}

interface Entry<V> {
  readonly data: KeptData;
  readonly value: V;
}

/**
 * Values kept by the arguments' data, bounded: found by argumentsHash, then compared with the data
 * kept (a copy), so only equal data (the same JSON text) finds a value. Two generations of at most
 * MAX_KEPT_ENTRIES entries each: an entry read from the older moves to the newer; when the newer is
 * full it becomes the older and the older is forgotten (data in use stays, cold data goes).
 */
export class DataCache<V> {
  private young = new Map<number, Entry<V>[]>();
  private old = new Map<number, Entry<V>[]>();
  private youngSize = 0;

  constructor(private readonly limit = MAX_KEPT_ENTRIES) {}

  /** The value kept for `args`, whose argumentsHash is `hash`. */
  get(hash: number, args: unknown): V | undefined {
    const found = this.young.get(hash);
    if (found !== undefined) {
      for (let i = 0; i < found.length; i++) if (sameData(found[i]!.data, args)) return found[i]!.value;
    }
    const older = this.old.get(hash);
    if (older === undefined) return undefined;
    for (let i = 0; i < older.length; i++) {
      const entry = older[i]!;
      if (!sameData(entry.data, args)) continue;
      older.splice(i, 1);
      this.add(hash, entry);
      return entry.value;
    }
    return undefined;
  }

  /** Keeps `value` for `args` (copied), whose argumentsHash is `hash`. */
  set(hash: number, args: unknown, value: V): void {
    this.add(hash, { data: keepData(args), value });
  }

  private add(hash: number, entry: Entry<V>): void {
    const list = this.young.get(hash);
    if (list === undefined) this.young.set(hash, [entry]);
    else if (list.length >= MAX_PER_HASH) {
      list.shift();
      list.push(entry);
      return;
    } else list.push(entry);
    this.youngSize += 1;
    if (this.youngSize >= this.limit) {
      this.old = this.young;
      this.young = new Map();
      this.youngSize = 0;
    }
  }

  clear(): void {
    this.young.clear();
    this.old.clear();
    this.youngSize = 0;
  }
}
