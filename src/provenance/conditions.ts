import { evidenceNote } from "../messages/provenance.js";
import { NO, UNKNOWN, YES, type Verdict } from "../policy/kinds/verdict.js";
import type { Evaluation, ProvenanceSettings } from "./context.js";
import type { Evidence, ProvenanceIndex, SourceText } from "./index-builder.js";
import type { BudgetCondition, ConditionSpec, FromCondition, SameAsCondition } from "./schema.js";
import { DEFAULT_MIN_LENGTH, extractIdentifiers, valueQuery, type ValueQuery } from "./tokens.js";
import { compileSameAs } from "../principal/same-as.js";
import { principalText } from "../messages/principal.js";

/**
 * A test of one scalar value, three-valued like the matchers: UNKNOWN when the guard cannot tell
 * (no messages to trace a value in, a number that is not a number). `restrictive` is true for deny
 * and ask rules: they turn UNKNOWN into "ask"; an allow rule needs YES.
 */
type ValueTest = (text: string, restrictive: boolean, field?: string, evaluation?: Evaluation) => Verdict;

const NUMERIC_RE = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;
const COMPOSITE_KEYS = ["not", "anyOf", "allOf", "from", "sameAs", "lt", "lte", "gt", "gte", "between"] as const;

function numberOf(text: string): number | undefined {
  const trimmed = text.trim().replace(/^"|"$/g, "");
  if (!NUMERIC_RE.test(trimmed)) return undefined;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether a condition is more than a leaf matcher (connective, number, provenance). */
export function isComposite(condition: unknown): boolean {
  return isObject(condition) && COMPOSITE_KEYS.some((key) => key in condition);
}

/** Whether a condition needs the thread (so the policy knows to build the provenance index). */
export function usesContext<Leaf>(condition: ConditionSpec<Leaf>): boolean {
  return usesKey(condition, "from");
}

/** Whether a condition reads the run's principal (`sameAs`): its verdict is not a function of the value alone. */
export function usesPrincipal<Leaf>(condition: ConditionSpec<Leaf>): boolean {
  return usesKey(condition, "sameAs");
}

/** Whether `key` is a condition somewhere in `condition` (under not / anyOf / allOf too). */
function usesKey(condition: unknown, key: "from" | "sameAs"): boolean {
  if (!isObject(condition)) return false;
  if (key in condition) return true;
  if ("not" in condition) return usesKey(condition.not, key);
  for (const list of [condition.anyOf, condition.allOf]) if (Array.isArray(list) && list.some((inner) => usesKey(inner, key))) return true;
  return false;
}

/** Human-readable form of a condition for reasons and `policy explain`. */
export function describeCondition<Leaf>(condition: ConditionSpec<Leaf>, describeLeaf: (leaf: Leaf) => string): string {
  const c = condition as Record<string, unknown>;
  if (!isComposite(c)) return describeLeaf(condition as Leaf);
  if ("not" in c) return `not (${describeCondition(c.not as ConditionSpec<Leaf>, describeLeaf)})`;
  if ("anyOf" in c) return `any of (${(c.anyOf as ConditionSpec<Leaf>[]).map((x) => describeCondition(x, describeLeaf)).join("; ")})`;
  if ("allOf" in c) return `all of (${(c.allOf as ConditionSpec<Leaf>[]).map((x) => describeCondition(x, describeLeaf)).join("; ")})`;
  if ("sameAs" in c) return principalText.sameAs(String(c.sameAs));
  if ("from" in c) return `from ${(c.from as string[]).join(" or ")}${c.only === undefined ? "" : ` (only ${(c.only as string[]).join(" and ")})`}`;
  if ("between" in c) return `between ${(c.between as number[]).join(" and ")}`;
  const op = (["lt", "lte", "gt", "gte"] as const).find((key) => key in c) ?? "lt";
  return `${{ lt: "<", lte: "<=", gt: ">", gte: ">=" }[op]} ${String(c[op])}`;
}

/** Values repeat across the calls of a thread: their lookups are kept per minLength (bounded, dropped all at once when full). */
const queries = new Map<number, Map<string, ValueQuery>>();
let cachedQueries = 0;
const MAX_CACHED_QUERIES = 10_000;
const MAX_CACHED_VALUE_CHARS = 512;

function cachedQuery(value: string | number, minLength: number): ValueQuery {
  if (typeof value === "string" && value.length > MAX_CACHED_VALUE_CHARS) return valueQuery(value, minLength);
  // Numbers and strings are looked up differently ("0013" is not 13): a number's key is marked.
  const key = typeof value === "number" ? `\u0000${value}` : value;
  let byValue = queries.get(minLength);
  let query = byValue?.get(key);
  if (query === undefined) {
    if (cachedQueries >= MAX_CACHED_QUERIES) {
      queries.clear();
      cachedQueries = 0;
      byValue = undefined;
    }
    if (byValue === undefined) {
      byValue = new Map();
      queries.set(minLength, byValue);
    }
    query = valueQuery(value, minLength);
    byValue.set(key, query);
    cachedQueries += 1;
  }
  return query;
}

/**
 * Which sources a `from` list accepts, compiled once. A tool output is accepted when the list names
 * the tool, or `trusted` and the value is in a trusted part of it, or `untrusted` and the value is in
 * its untrusted part (see {@link TrustTable}).
 */
function acceptorOf(sources: readonly string[]): (source: SourceText, query: ValueQuery, evaluation: Evaluation, index: ProvenanceIndex) => boolean {
  const user = sources.includes("user");
  const anyTrusted = sources.includes("trusted");
  const anyUntrusted = sources.includes("untrusted");
  const tools = new Set(sources.filter((name) => name !== "user" && name !== "trusted" && name !== "untrusted" && !name.startsWith("args:")));
  const calls = new Set(sources.filter((name) => name.startsWith("args:")).map((name) => name.slice(5)));
  return (source, query, evaluation, index) => {
    if (source.kind === "user" || source.kind === "system") return user;
    const tool = source.tool ?? "";
    if (source.kind === "call") return calls.has(tool);
    if (tools.has(tool)) return true;
    if (anyTrusted && evaluation.trust.trusts(source, query, index)) return true;
    return anyUntrusted && evaluation.trust.inUntrustedPart(source, query, index);
  };
}

/** A value's last trace by one `from` condition, reused while the index it was made on has not changed. */
interface Traced {
  index: ProvenanceIndex;
  /** Texts indexed when it was made: a value found stays found (later texts come later), one not found may be found in a new text. */
  size: number;
  trusted: ReadonlySet<string>;
  settings: ProvenanceSettings;
  item: Evidence;
}
const MAX_MEMO_ENTRIES = 10_000;

function compileFrom(condition: FromCondition): ValueTest {
  const acceptor = acceptorOf(condition.from);
  const namesTrusted = condition.from.includes("trusted");
  const memo = new Map<string, Map<ValueQuery, Traced>>();
  let memoEntries = 0;
  const trace = (value: string, field: string, index: ProvenanceIndex, evaluation: Evaluation, minLength: number): boolean => {
    const query = cachedQuery(value, minLength);
    const trusted = evaluation.trusted;
    let byQuery = memo.get(field);
    const hit = byQuery?.get(query);
    if (hit !== undefined && hit.index === index && hit.trusted === trusted && hit.settings === evaluation.settings) {
      // Not found before: still not found when no text added since can hold it.
      if (!hit.item.found && hit.size !== index.size && !index.mayHoldSince(query, hit.size)) hit.size = index.size;
      if (hit.item.found || hit.size === index.size) {
        evaluation.evidence.push(hit.item);
        return hit.item.found;
      }
    }
    let item: Evidence;
    if (query.untraceable !== undefined) {
      item = appearanceOf(query, field, index);
    } else {
      const found = index.find(query, (source) => acceptor(source, query, evaluation, index));
      item = { field, value: query.display, found: found.source !== undefined };
      if (found.source !== undefined) item.source = found.source;
      if (found.seenIn !== undefined) item.seenIn = found.seenIn;
      // Seen first in an output trusted only in part: say why that output did not count.
      const partly = namesTrusted && found.source === undefined && found.seenIn?.kind === "tool" ? evaluation.trust.partly(found.seenIn.tool ?? "") : undefined;
      if (partly !== undefined) item.note = evidenceNote.partlyTrusted(found.seenIn!.tool ?? "", partly.fields, partly.argsFromUser);
    }
    // Shared by the decisions that trace the same value: never changed after this.
    Object.freeze(item);
    if (byQuery === undefined) {
      if (memoEntries >= MAX_MEMO_ENTRIES) {
        memo.clear();
        memoEntries = 0;
      }
      byQuery = new Map();
      memo.set(field, byQuery);
    }
    if (!byQuery.has(query)) memoEntries += 1;
    byQuery.set(query, { index, size: index.size, trusted, settings: evaluation.settings, item });
    evaluation.evidence.push(item);
    return item.found;
  };
  return (text, _restrictive, field = "", evaluation) => {
    const index = evaluation?.provenance();
    if (evaluation === undefined || index === undefined) return UNKNOWN;
    const minLength = condition.minLength ?? evaluation.settings.minLength ?? DEFAULT_MIN_LENGTH;
    if (condition.only === undefined) return trace(text, field, index, evaluation, minLength) ? YES : NO;
    let all = true;
    for (const identifier of extractIdentifiers(text, condition.only)) all = trace(identifier, field, index, evaluation, minLength) && all;
    return all ? YES : NO;
  };
}

const NOWHERE = (_source: SourceText) => false;

/**
 * Evidence of where a value appears, without accepting any source: a value too short to trace is
 * still located by its whole-token appearances (and never found); `note` says why it is named.
 */
/** Where values first appear, per index: a first appearance stays first as the thread grows; "nowhere" is asked again once it grew. */
const appearances = new WeakMap<ProvenanceIndex, Map<ValueQuery, { size: number; seenIn: SourceText | undefined }>>();

function firstAppearance(query: ValueQuery, index: ProvenanceIndex): SourceText | undefined {
  let known = appearances.get(index);
  if (known === undefined || known.size >= MAX_MEMO_ENTRIES) {
    known = new Map();
    appearances.set(index, known);
  }
  const hit = known.get(query);
  if (hit !== undefined && hit.seenIn === undefined && hit.size !== index.size && !index.mayHoldSince(query, hit.size)) hit.size = index.size;
  if (hit !== undefined && (hit.seenIn !== undefined || hit.size === index.size)) return hit.seenIn;
  const alternatives = query.untraceable === undefined ? query.alternatives : (query.appearances ?? []);
  const { seenIn } = index.find({ ...query, alternatives }, NOWHERE);
  known.set(query, { size: index.size, seenIn });
  return seenIn;
}

function appearanceOf(query: ValueQuery, field: string, index: ProvenanceIndex, note?: string): Evidence {
  const seenIn = firstAppearance(query, index);
  const notes = [note, query.untraceable].filter((x) => x !== undefined);
  const item: Evidence = { field, value: query.display, found: false };
  if (seenIn !== undefined) item.seenIn = seenIn;
  if (notes.length > 0) item.note = notes.join("; ");
  return item;
}

/**
 * Where each value first appears in the thread (the user's messages, a tool's output, an earlier
 * call's arguments), for the evidence of a deny or ask decided without a provenance condition: an
 * amount over a limit, a tool that always asks. Values are never "found" here (no source is accepted).
 */
export function locateValues(values: readonly { field: string; value: unknown; note?: string }[], evaluation: Evaluation): Evidence[] {
  const index = evaluation.provenance();
  if (index === undefined) return [];
  const minLength = evaluation.settings.minLength ?? DEFAULT_MIN_LENGTH;
  const out: Evidence[] = [];
  for (const { field, value, note } of values) {
    if (typeof value !== "string" && typeof value !== "number") continue;
    const item = appearanceOf(cachedQuery(value, minLength), field, index, note);
    item.located = true;
    out.push(item);
  }
  return out;
}

function numeric(test: (n: number) => boolean): ValueTest {
  return (text) => {
    const n = numberOf(text);
    return n === undefined ? UNKNOWN : test(n) ? YES : NO;
  };
}

/**
 * Compiles a field condition into a test of one value. Leaf matchers (equals, glob, path, url...)
 * are compiled by the policy's matcher framework (`compileLeaf`); this adds `not`, `anyOf`, `allOf`,
 * numbers and provenance around them. Under `not`, the inner condition is read the other way
 * (a deny rule's `not` reads its inner condition as an allow would), so that "cannot tell" still
 * fails closed: not(UNKNOWN) is UNKNOWN.
 */
export function compileCondition<Leaf>(condition: ConditionSpec<Leaf>, compileLeaf: (leaf: Leaf) => ValueTest): ValueTest {
  const c = condition as Record<string, unknown>;
  if (!isComposite(c)) return compileLeaf(condition as Leaf);
  if ("not" in c) {
    const inner = compileCondition(c.not as ConditionSpec<Leaf>, compileLeaf);
    return (text, restrictive, field, evaluation) => {
      const value = inner(text, !restrictive, field, evaluation);
      return value === UNKNOWN ? UNKNOWN : value === YES ? NO : YES;
    };
  }
  if ("anyOf" in c || "allOf" in c) {
    const any = "anyOf" in c;
    const parts = ((any ? c.anyOf : c.allOf) as ConditionSpec<Leaf>[]).map((x) => compileCondition(x, compileLeaf));
    const decisive = any ? YES : NO;
    return (text, restrictive, field, evaluation) => {
      let unknown = false;
      for (const part of parts) {
        const value = part(text, restrictive, field, evaluation);
        if (value === decisive) return decisive;
        if (value === UNKNOWN) unknown = true;
      }
      return unknown ? UNKNOWN : any ? NO : YES;
    };
  }
  if ("from" in c) return compileFrom(condition as FromCondition);
  if ("sameAs" in c) return compileSameAs(condition as SameAsCondition);
  return numeric(numericPredicate(c) ?? (() => false));
}

/** The test of a numeric comparison (`lt`, `lte`, `gt`, `gte`, `between`); undefined for any other condition. */
export function numericPredicate(c: Readonly<Record<string, unknown>>): ((n: number) => boolean) | undefined {
  if ("between" in c) {
    const [low, high] = c.between as [number, number];
    return (n) => n >= low && n <= high;
  }
  if ("lt" in c) return (n) => n < (c.lt as number);
  if ("lte" in c) return (n) => n <= (c.lte as number);
  if ("gt" in c) return (n) => n > (c.gt as number);
  if ("gte" in c) return (n) => n >= (c.gte as number);
  return undefined;
}

/** The total of `budget.sum` over the completed calls of the rule's tools in scope, plus this turn's earlier calls. */
export function budgetTotal(
  budget: BudgetCondition,
  matchesTool: (tool: string) => boolean,
  select: (args: unknown) => unknown[],
  evaluation: Evaluation | undefined,
): number | undefined {
  const index = evaluation?.provenance();
  if (evaluation === undefined || index === undefined) return undefined;
  const scope = budget.scope ?? "run";
  let total = 0;
  const add = (args: unknown): boolean => {
    for (const value of select(args)) {
      const n = typeof value === "number" ? value : typeof value === "string" ? numberOf(value) : undefined;
      if (n === undefined) return false;
      total += n;
    }
    return true;
  };
  for (const call of index.completedCalls) {
    if (scope === "run" && call.runId !== index.runId) continue;
    if (matchesTool(call.tool) && !add(call.args)) return undefined;
  }
  for (const call of evaluation.context?.turnCalls ?? []) {
    if (matchesTool(call.name) && !add(call.args)) return undefined;
  }
  return total;
}

/** Whether one of the `after` tools returned (successfully) in scope. */
export function seenAfter(after: readonly string[], scope: "run" | "thread", evaluation: Evaluation | undefined): { seen: boolean } | undefined {
  const index = evaluation?.provenance();
  if (evaluation === undefined || index === undefined) return undefined;
  const names = new Set(after.flatMap((name) => (name === "untrusted" ? (evaluation.settings.untrusted ?? []) : [name])));
  for (const output of index.outputs) {
    if (!output.ok || !names.has(output.tool)) continue;
    if (scope === "run" && output.runId !== index.runId) continue;
    evaluation.evidence.push({
      field: "after",
      value: output.tool,
      found: true,
      source: { index: output.index, kind: "tool", tool: output.tool, toolCallId: output.toolCallId, runId: output.runId },
    });
    return { seen: true };
  }
  return { seen: false };
}
