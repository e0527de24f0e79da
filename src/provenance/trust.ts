import { parse as parseYaml } from "yaml";
import { normalizeString } from "../policy/normalize.js";
import { parseSelector, type SelectorSegment } from "../policy/selector.js";
import type { ProvenanceIndex, SourceText } from "./index-builder.js";
import type { TrustEntry } from "./schema.js";
import { DEFAULT_MIN_LENGTH, heldText, holds, valueQuery, type HeldText, type ValueQuery } from "./tokens.js";

/**
 * Which parts of which tool outputs are trusted sources (`from: [trusted]`) and which are untrusted
 * (`from: [untrusted]`), compiled once per policy from `provenance.trusted` and `.untrusted`.
 *
 * - A name in `trusted`: the tool's whole output is trusted (and none of it counts as untrusted).
 * - `{ tool, fields }`: only the values at those selectors of the output, parsed as JSON or YAML, are
 *   trusted (with every value and key inside them); every other value and key is the untrusted part.
 *   An output that does not parse, is longer than {@link MAX_PARSED_CHARS} or nests deeper than
 *   {@link MAX_DEPTH} trusts nothing and is untrusted as a whole.
 * - `{ tool, argsFromUser: true }`: the output is trusted only when every string and number argument
 *   of the call that produced it (at any depth; booleans and nulls carry no value) appears in the
 *   user's or system messages before that output, by the same tracing rules as `from: [user]`. A call
 *   with no such argument, a value too short to trace, or an output whose call is unknown trusts nothing.
 * - Both: the fields, only for calls whose arguments the user typed. Several entries for one tool add up.
 */

/** Longest output parsed for field trust; a longer one trusts none of its fields (fail closed). */
const MAX_PARSED_CHARS = 100_000;
/** Deepest nesting walked in a parsed output or in a call's arguments. */
const MAX_DEPTH = 32;

interface Scoped {
  fields: SelectorSegment[][] | undefined;
  /** The selectors as written (for messages). */
  selectors: readonly string[] | undefined;
  argsFromUser: boolean;
}

/** The trusted and untrusted parts of one output. */
type Part = { kind: "all" } | { kind: "none" } | { kind: "fields"; trusted: HeldText[]; untrusted: HeldText[] };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The output as a tree (JSON, else YAML), or undefined when it is neither or parses to a scalar. */
export function parseOutput(text: string): unknown {
  if (text.length > MAX_PARSED_CHARS) return undefined;
  let tree: unknown;
  try {
    tree = JSON.parse(text) as unknown;
  } catch {
    try {
      // Aliases could multiply a small text into a large tree: none is accepted.
      tree = parseYaml(text, { maxAliasCount: 0, strict: true, uniqueKeys: true, logLevel: "error" }) as unknown;
    } catch {
      return undefined;
    }
  }
  return typeof tree === "object" && tree !== null ? tree : undefined;
}

function segmentMatches(segment: SelectorSegment, step: string | number): boolean {
  if ("any" in segment) return true;
  if ("index" in segment) return segment.index === step;
  return segment.key === step;
}

/** Thrown by {@link splitFields} on an output nested deeper than {@link MAX_DEPTH}. */
class TooDeep extends Error {}

/**
 * Splits a parsed output into the texts at one of the selectors (every value and key below a selected
 * node) and the texts of every other value and key. Keys are compared normalised, as argument
 * selectors are.
 */
function splitFields(tree: unknown, selectors: readonly SelectorSegment[][]): { trusted: HeldText[]; untrusted: HeldText[] } {
  const trusted: HeldText[] = [];
  const untrusted: HeldText[] = [];
  const walk = (node: unknown, path: (string | number)[], selected: boolean, depth: number): void => {
    const isSelected = selected || selectors.some((segments) => segments.length === path.length && segments.every((segment, i) => segmentMatches(segment, path[i]!)));
    // Too deep to walk: the caller treats the whole output as untrusted.
    if ((Array.isArray(node) || isRecord(node)) && depth >= MAX_DEPTH) throw new TooDeep();
    if (Array.isArray(node)) {
      node.forEach((item, i) => walk(item, [...path, i], isSelected, depth + 1));
      return;
    }
    if (isRecord(node)) {
      for (const [key, value] of Object.entries(node)) {
        // A key is data too (an address a file is shared with): trusted inside a selected field, untrusted elsewhere.
        (isSelected ? trusted : untrusted).push(heldText(key));
        walk(value, [...path, normalizeString(key)], isSelected, depth + 1);
      }
      return;
    }
    if (node === null || node === undefined) return;
    const text = node instanceof Date ? node.toISOString() : String(node);
    (isSelected ? trusted : untrusted).push(heldText(text));
  };
  walk(tree, [], false, 0);
  return { trusted, untrusted };
}

/** The string and number values of a call's arguments (undefined when there are too many levels to walk). */
function argumentValues(args: unknown): (string | number)[] | undefined {
  const out: (string | number)[] = [];
  let tooDeep = false;
  const walk = (value: unknown, depth: number) => {
    if (depth > MAX_DEPTH) {
      tooDeep = true;
      return;
    }
    if (typeof value === "string" || typeof value === "number") out.push(value);
    else if (Array.isArray(value)) for (const item of value) walk(item, depth + 1);
    else if (isRecord(value)) for (const item of Object.values(value)) walk(item, depth + 1);
  };
  walk(args, 0);
  return tooDeep ? undefined : out;
}

const USER_KINDS = new Set(["user", "system"]);

export class TrustTable {
  /** Tools whose whole output is trusted (names in `provenance.trusted`). */
  readonly whole: ReadonlySet<string>;
  readonly untrusted: ReadonlySet<string>;
  private readonly scoped = new Map<string, Scoped[]>();
  private readonly minLength: number;
  /** Per index, per output position: its parts (an output never changes once indexed). */
  private readonly parts = new WeakMap<ProvenanceIndex, Map<number, Part>>();

  constructor(entries: readonly TrustEntry[], untrusted: readonly string[], minLength = DEFAULT_MIN_LENGTH) {
    const whole = new Set<string>();
    for (const entry of entries) {
      if (typeof entry === "string") {
        whole.add(entry);
        continue;
      }
      if (entry.fields === undefined && entry.argsFromUser !== true) {
        whole.add(entry.tool);
        continue;
      }
      const scoped = this.scoped.get(entry.tool) ?? [];
      scoped.push({ fields: entry.fields?.map((selector) => parseSelector(selector)), selectors: entry.fields, argsFromUser: entry.argsFromUser === true });
      this.scoped.set(entry.tool, scoped);
    }
    this.whole = whole;
    this.untrusted = new Set(untrusted);
    this.minLength = minLength;
  }

  /**
   * How a tool trusted only in part is trusted (the fields, whether only for arguments the user typed),
   * for the evidence of a value found in its output but not in that part; undefined for any other tool.
   */
  partly(tool: string): { fields: readonly string[]; argsFromUser: boolean } | undefined {
    const entries = this.scoped.get(tool);
    if (entries === undefined || this.whole.has(tool)) return undefined;
    return { fields: entries.flatMap((entry) => entry.selectors ?? []), argsFromUser: entries.some((entry) => entry.argsFromUser) };
  }

  /** Whether the value, found in this tool output, is found in a trusted part of it. */
  trusts(source: SourceText, query: ValueQuery, index: ProvenanceIndex): boolean {
    const tool = source.tool ?? "";
    if (this.whole.has(tool)) return true;
    if (!this.scoped.has(tool)) return false;
    const part = this.partOf(source, index);
    return part.kind === "all" || (part.kind === "fields" && part.trusted.some((text) => holds(query, text)));
  }

  /** Whether the value, found in this output of an untrusted tool, is found outside its trusted part. */
  inUntrustedPart(source: SourceText, query: ValueQuery, index: ProvenanceIndex): boolean {
    const tool = source.tool ?? "";
    if (!this.untrusted.has(tool) || this.whole.has(tool)) return false;
    if (!this.scoped.has(tool)) return true;
    const part = this.partOf(source, index);
    return part.kind === "none" || (part.kind === "fields" && part.untrusted.some((text) => holds(query, text)));
  }

  private partOf(source: SourceText, index: ProvenanceIndex): Part {
    let known = this.parts.get(index);
    if (known === undefined) {
      known = new Map();
      this.parts.set(index, known);
    }
    let part = known.get(source.index);
    if (part === undefined) {
      part = this.computePart(source, index);
      known.set(source.index, part);
    }
    return part;
  }

  private computePart(source: SourceText, index: ProvenanceIndex): Part {
    const entries = this.scoped.get(source.tool ?? "") ?? [];
    let userTyped: boolean | undefined;
    const selectors: SelectorSegment[][] = [];
    for (const entry of entries) {
      if (entry.argsFromUser && !(userTyped ??= this.argsTypedByUser(source, index))) continue;
      if (entry.fields === undefined) return { kind: "all" };
      selectors.push(...entry.fields);
    }
    if (selectors.length === 0) return { kind: "none" };
    const text = index.outputText(source.index);
    const tree = text === undefined ? undefined : parseOutput(text);
    if (tree === undefined) return { kind: "none" };
    try {
      return { kind: "fields", ...splitFields(tree, selectors) };
    } catch (error) {
      // Nested too deep to walk: nothing of it is trusted, all of it is untrusted (fail closed).
      if (error instanceof TooDeep) return { kind: "none" };
      throw error;
    }
  }

  /** Whether every string and number argument of the call that produced this output appears in a user or system message before it. */
  private argsTypedByUser(source: SourceText, index: ProvenanceIndex): boolean {
    const call = index.argsOfOutput(source.index);
    if (call === undefined) return false;
    const values = argumentValues(call.args);
    if (values === undefined || values.length === 0) return false;
    const before = (text: SourceText) => USER_KINDS.has(text.kind) && text.index < source.index;
    for (const value of values) {
      const query = valueQuery(value, this.minLength);
      if (query.untraceable !== undefined) return false;
      if (index.find(query, before).source === undefined) return false;
    }
    return true;
  }
}

const tables = new WeakMap<object, TrustTable>();

/** The trust table of a policy's provenance settings, made once per settings object. */
export function trustTableOf(settings: { trusted?: readonly TrustEntry[] | undefined; untrusted?: readonly string[] | undefined; minLength?: number | undefined }): TrustTable {
  let table = tables.get(settings);
  if (table === undefined) {
    table = new TrustTable(settings.trusted ?? [], settings.untrusted ?? [], settings.minLength);
    tables.set(settings, table);
  }
  return table;
}

/** The tool a trust entry names. */
export function trustedTool(entry: TrustEntry): string {
  return typeof entry === "string" ? entry : entry.tool;
}
