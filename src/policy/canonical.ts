import { CANONICAL_PROTOTYPE, DuplicateValues, EmbeddedJson, JsonTooDeep, parseJsonKeepingDuplicates } from "./json-dup.js";
import { firstControlChar } from "./kinds/verdict.js";
import { foldCase, isPlainText, normalizeString } from "./normalize.js";


export { selectField } from "./selector.js";

/**
 * Longest argument text (sum of string and key lengths) a rule inspects. Longer or deeper input is
 * uninspectable: no allow rule with argument conditions matches it, and every deny/ask rule with
 * argument conditions does (fail closed).
 */
export const MAX_MATCH_INPUT_CHARS = 64 * 1024;
/** Deepest nesting (objects, arrays and JSON strings inside strings) a rule inspects. */
export const MAX_MATCH_DEPTH = 32;

/** The views of one call's arguments that rules are matched against. */
export interface CanonicalArgs {
  /** Keys sorted at every depth, JSON-in-strings parsed, every key and string normalised. */
  readonly value: unknown;
  /** Canonical JSON text of `value`. */
  readonly text: string;
  /** The same tree without string normalisation (keys sorted, JSON-in-strings parsed). */
  readonly literal: unknown;
  readonly literalText: string;
  /** False when normalisation changed nothing (then `literal` equals `value`). */
  readonly changed: boolean;
  /** Too long or too deep to inspect (see MAX_MATCH_INPUT_CHARS). */
  readonly oversized: boolean;
  /** Where the first C0/C1 control character is (`namespace: U+0000`), if any: such a call is never allowed without a human. */
  readonly controlChar: string | undefined;
}

class TooLarge extends Error {}

interface BuildContext {
  normalise: boolean;
  budget: number;
  changed: boolean;
  controlChar: string | undefined;
  path: string[];
}

const LOOKS_LIKE_JSON_RE = /^\s*[[{][\s\S]*[\]}]\s*$/;

const LOOKS_LIKE_JSON_STRING_RE = /^\s*"[\s\S]*"\s*$/;

/** Whitespace as `\s` reads it, in the range a first character can be checked cheaply. */
function startsLikeJson(text: string): boolean {
  const first = text.charCodeAt(0);
  // `[`, `{`, `"`, or anything that is not printable ASCII (leading `\s` may be Unicode whitespace): the regexes decide.
  return first === 0x5b || first === 0x7b || first === 0x22 || !(first > 0x20 && first < 0x7f);
}

function parseJsonContainer(text: string, depth: number): unknown {
  if (!startsLikeJson(text)) return undefined;
  if (LOOKS_LIKE_JSON_STRING_RE.test(text)) {
    // A JSON document encoded once more as a JSON string: a consumer may decode it twice.
    let inner: unknown;
    try {
      inner = JSON.parse(text);
    } catch {
      return undefined;
    }
    return typeof inner === "string" && depth < MAX_MATCH_DEPTH ? parseJsonContainer(inner, depth + 1) : undefined;
  }
  if (!LOOKS_LIKE_JSON_RE.test(text)) return undefined;
  try {
    const parsed = parseJsonKeepingDuplicates(text, MAX_MATCH_DEPTH - depth);
    return typeof parsed === "object" && parsed !== null ? parsed : undefined;
  } catch (error) {
    if (error instanceof JsonTooDeep) throw new TooLarge();
    throw error;
  }
}

function noteControl(ctx: BuildContext, text: string): void {
  if (ctx.controlChar !== undefined) return;
  const found = firstControlChar(text);
  if (found !== undefined) ctx.controlChar = `${ctx.path.join(".") || "(arguments)"}: ${found}`;
}

function spend(ctx: BuildContext, chars: number): void {
  ctx.budget -= chars;
  if (ctx.budget < 0) throw new TooLarge();
}

function buildString(input: string, ctx: BuildContext, depth: number): unknown {
  spend(ctx, input.length);
  if (isPlainText(input)) {
    // Printable ASCII with single inner spaces: no control character, and normalisation keeps it as it is.
    const nested = parseJsonContainer(input, depth);
    return nested === undefined ? input : new EmbeddedJson(input, build(nested, ctx, depth + 1));
  }
  noteControl(ctx, input);
  const text = ctx.normalise ? normalizeString(input) : input;
  if (text !== input) ctx.changed = true;
  // A JSON document inside a string is matched as structure too, so it cannot hide arguments.
  const nested = parseJsonContainer(text, depth) ?? (text !== input ? parseJsonContainer(input, depth) : undefined);
  if (nested !== undefined) return new EmbeddedJson(text, build(nested, ctx, depth + 1));
  return text;
}

/**
 * Keys and values of the objects being built, as one stack shared by every level: an object's
 * entries sit from its base to the top while it is built, and are taken off before it returns
 * (no two arrays per object on this hot path). `buildTree` restores the top when a build throws.
 */
const entryKeys: string[] = [];
const entryValues: unknown[] = [];
let entryTop = 0;

function buildObject(input: object, ctx: BuildContext, depth: number): unknown {
  // Cycles need no bookkeeping: they run into MAX_MATCH_DEPTH.
  if (Array.isArray(input)) return input.map((item) => build(item, ctx, depth + 1) ?? null);
  if (input instanceof DuplicateValues) return new DuplicateValues(input.values.map((item) => build(item, ctx, depth + 1) ?? null));
  const base = entryTop;
  // for-in over own keys: Object.keys' keys in its order, without an array per object.
  for (const rawKey in input) {
    if (!Object.hasOwn(input, rawKey)) continue;
    ctx.path.push(rawKey);
    const value = build((input as Record<string, unknown>)[rawKey], ctx, depth + 1);
    ctx.path.pop();
    if (value === undefined) continue;
    spend(ctx, rawKey.length);
    let key = rawKey;
    if (!isPlainText(rawKey)) {
      noteControl(ctx, rawKey);
      if (ctx.normalise) key = normalizeString(rawKey);
      if (key !== rawKey) ctx.changed = true;
    }
    // Nested objects built above have taken their entries off: the top is this object's.
    entryKeys[entryTop] = key;
    entryValues[entryTop] = value;
    entryTop += 1;
  }
  const end = entryTop;
  sortEntries(base, end);
  const out = Object.create(CANONICAL_PROTOTYPE) as Record<string, unknown>; // "__proto__" stays a plain key
  for (let i = base; i < end; i++) {
    const key = entryKeys[i]!;
    const value = entryValues[i];
    entryValues[i] = undefined; // the stack keeps no argument value alive
    // Two keys that normalise alike keep both values, as a duplicated key does (sorted: they are adjacent).
    if (i > base && key === entryKeys[i - 1]) {
      const prior = out[key];
      out[key] = new DuplicateValues(prior instanceof DuplicateValues ? [...prior.values, value] : [prior, value]);
    } else out[key] = value;
  }
  entryTop = base;
  return out;
}

/** Sorts the entries from `from` to `to` (exclusive) by key; equal keys keep their order (a stable sort). */
function sortEntries(from: number, to: number): void {
  const keys = entryKeys;
  const values = entryValues;
  if (to - from > 16) {
    const order: number[] = [];
    for (let i = from; i < to; i++) order.push(i);
    order.sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : a - b));
    const sortedKeys = order.map((i) => keys[i]!);
    const sortedValues = order.map((i) => values[i]);
    for (let i = 0; i < sortedKeys.length; i++) {
      keys[from + i] = sortedKeys[i]!;
      values[from + i] = sortedValues[i];
    }
    return;
  }
  // Arguments have a few keys: an insertion sort, which moves an entry only past strictly greater keys.
  for (let i = from + 1; i < to; i++) {
    const key = keys[i]!;
    const value = values[i];
    let at = i;
    while (at > from && keys[at - 1]! > key) {
      keys[at] = keys[at - 1]!;
      values[at] = values[at - 1];
      at -= 1;
    }
    keys[at] = key;
    values[at] = value;
  }
}

function build(input: unknown, ctx: BuildContext, depth: number): unknown {
  if (depth > MAX_MATCH_DEPTH) throw new TooLarge();
  switch (typeof input) {
    case "string":
      return buildString(input, ctx, depth);
    case "number":
      return Number.isFinite(input) ? input : null;
    case "boolean":
      return input;
    case "bigint":
      return input.toString();
    case "object": {
      if (input === null) return null;
      if (input instanceof DuplicateValues) return buildObject(input, ctx, depth);
      const toJSON = (input as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === "function") return build(toJSON.call(input), ctx, depth + 1);
      return buildObject(input, ctx, depth);
    }
    default:
      return undefined; // undefined, functions and symbols are dropped, as JSON.stringify does
  }
}

function buildTree(args: unknown, normalise: boolean, budget: number): { value: unknown; changed: boolean; controlChar: string | undefined } {
  const ctx: BuildContext = { normalise, budget, changed: false, controlChar: undefined, path: [] };
  const top = entryTop;
  try {
    const value = build(args, ctx, 0) ?? null;
    return { value, changed: ctx.changed, controlChar: ctx.controlChar };
  } finally {
    // A build that threw (too large, a throwing toJSON) leaves its entries: take them off.
    if (entryTop !== top) {
      entryKeys.fill("", top, entryTop);
      entryValues.fill(undefined, top, entryTop);
      entryTop = top;
    }
  }
}

/** Text and literal views are built on first use: most rules only read a field or two. */
class LazyCanonicalArgs implements CanonicalArgs {
  private textCache: string | undefined;
  private literalCache: { value: unknown } | undefined;
  private literalTextCache: string | undefined;

  constructor(
    private readonly args: unknown,
    readonly value: unknown,
    readonly changed: boolean,
    readonly controlChar: string | undefined,
  ) {}

  readonly oversized = false;

  get text(): string {
    return (this.textCache ??= JSON.stringify(this.value));
  }

  get literal(): unknown {
    if (!this.changed) return this.value;
    this.literalCache ??= { value: buildTree(this.args, false, MAX_MATCH_INPUT_CHARS).value };
    return this.literalCache.value;
  }

  get literalText(): string {
    if (!this.changed) return this.text;
    return (this.literalTextCache ??= JSON.stringify(this.literal));
  }
}

const OVERSIZED: CanonicalArgs = { value: null, text: "", literal: null, literalText: "", changed: false, oversized: true, controlChar: undefined };

function tokenText(text: string): string {
  return needsJsonEscape(text) ? JSON.stringify(text) : text;
}

/**
 * True when JSON.stringify renders `text` differently from itself (a quote, a backslash, a control
 * character, a surrogate): `/["\\\u0000-\u001F\uD800-\uDFFF]/.test(text)` as a loop over UTF-16 code
 * units (faster on the short texts arguments hold; test/policy-fast-tokens.test.ts compares the two).
 */
export function needsJsonEscape(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff)) return true;
  }
  return false;
}

/**
 * True when `test` holds for the JSON rendering of some key, string, number, boolean or null of a
 * canonical tree (`CanonicalArgs.value` or `.literal`) at least `minLength` characters long, as
 * `JSON.stringify(tree)` renders each: strings that need escaping are tested escaped (with their
 * quotes), embedded JSON as its document, duplicated keys as their values. For a search whose
 * matches never cross a structural character and are at least `minLength` long
 * (`matchesWithinJsonTokens`), this equals searching the whole text, without building it.
 */
export function someJsonToken(tree: unknown, test: (text: string) => boolean, minLength = 0): boolean {
  if (typeof tree === "string") return tokenMatches(tree, test, minLength);
  if (typeof tree === "number" || typeof tree === "boolean" || tree === null) {
    // JSON.stringify's text for these, without calling it: String(n) for a finite number (-0 too), else null.
    const text = typeof tree === "number" ? (Number.isFinite(tree) ? String(tree) : "null") : tree === null ? "null" : tree ? "true" : "false";
    return text.length >= minLength && test(text);
  }
  if (typeof tree !== "object") return false;
  if (Array.isArray(tree)) {
    for (let i = 0; i < tree.length; i++) if (someJsonToken(tree[i], test, minLength)) return true;
    return false;
  }
  if (tree instanceof EmbeddedJson) return someJsonToken(tree.parsed, test, minLength);
  if (tree instanceof DuplicateValues) {
    for (const item of tree.values) if (someJsonToken(item, test, minLength)) return true;
    return false;
  }
  if (Object.getPrototypeOf(tree) === CANONICAL_PROTOTYPE) {
    // A canonical object inherits nothing: for-in visits exactly its Object.keys, in the same order, without the array.
    for (const key in tree) {
      if (tokenMatches(key, test, minLength) || someJsonToken((tree as Record<string, unknown>)[key], test, minLength)) return true;
    }
    return false;
  }
  for (const key of Object.keys(tree)) {
    if (tokenMatches(key, test, minLength) || someJsonToken((tree as Record<string, unknown>)[key], test, minLength)) return true;
  }
  return false;
}

/** `test` on a key's or string's JSON rendering (`tokenText`) when that is at least `minLength` long. */
function tokenMatches(raw: string, test: (text: string) => boolean, minLength: number): boolean {
  // Rendered first: escaping may lengthen a text up to sixfold (a lone surrogate becomes `\udXXX`).
  const text = tokenText(raw);
  return text.length >= minLength && test(text);
}

/** Builds the matching views of `args`; input over the size or depth limit comes back `oversized`. */
export function canonicalize(args: unknown): CanonicalArgs {
  try {
    const normal = buildTree(args, true, MAX_MATCH_INPUT_CHARS);
    return new LazyCanonicalArgs(args, normal.value, normal.changed, normal.controlChar);
  } catch (error) {
    if (error instanceof TooLarge) return OVERSIZED;
    throw error;
  }
}

/**
 * Canonical JSON of `args`: keys sorted at every depth, JSON objects/arrays inside strings parsed,
 * strings normalised (NFKC, look-alikes folded, invisible characters removed, whitespace collapsed).
 * Renders input of any size; cycles and nesting deeper than MAX_MATCH_DEPTH throw a TypeError.
 */
export function canonicalArgs(args: unknown): string {
  try {
    return JSON.stringify(buildTree(args, true, Number.POSITIVE_INFINITY).value);
  } catch (error) {
    if (error instanceof TooLarge) throw new TypeError(`canonicalArgs refused: arguments are cyclic or nested deeper than ${MAX_MATCH_DEPTH}`);
    throw error;
  }
}

/** `canonicalArgs` case-folded: the text case-insensitive rules are matched against. */
export function canonicalArgsFolded(args: unknown): string {
  return foldCase(canonicalArgs(args));
}

/**
 * Where the first C0/C1 control character in `args` is (`namespace: U+0000`), without building the
 * canonical views: an iterative scan of every key and string (the review has already refused
 * arguments over MAX_ARGS_CHARS / MAX_ARGS_DEPTH).
 */
export function findControlChar(args: unknown): string | undefined {
  const stack: [unknown, string, number][] = [[args, "", 0]];
  while (stack.length > 0) {
    const [value, path, depth] = stack.pop() as [unknown, string, number];
    if (typeof value === "string") {
      const found = firstControlChar(value);
      if (found !== undefined) return `${path || "(arguments)"}: ${found}`;
    } else if (typeof value === "object" && value !== null) {
      if (depth > MAX_MATCH_DEPTH) return `${path}: nested deeper than ${MAX_MATCH_DEPTH} levels, not scanned`;
      for (const key of Object.keys(value)) {
        const found = firstControlChar(key);
        const child = path === "" ? key : `${path}.${key}`;
        if (found !== undefined) return `${child}: ${found}`;
        stack.push([(value as Record<string, unknown>)[key], child, depth + 1]);
      }
    }
  }
  return undefined;
}
