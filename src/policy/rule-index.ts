import { globLiteralStart, isGlobPattern } from "./glob.js";
import { serverWidePrefix } from "./mcp-names.js";
import { requiredLiteral } from "./regex.js";
import type { CanonicalArgs } from "./canonical.js";
import { ANY_VALUE, equalityKey, startKey, type EqualityLookup, type FieldCondition, type StartLookup } from "./matchers.js";

/** What the index needs of a compiled permission rule. */
interface IndexableRule {
  /** Needs the thread: never skipped (its provenance conditions record evidence as they are read). */
  readonly contextual: boolean;
  readonly where: readonly FieldCondition[];
}

interface Group {
  readonly read: EqualityLookup["read"];
  /** The key of a value read (`equalityKey` or `startKey`). */
  readonly key: (found: unknown) => string | undefined | typeof ANY_VALUE;
  /** Key → positions of the rules indexed in this group whose condition may hold for it. */
  readonly byKey: Map<string, number[]>;
  /** Positions of every rule indexed in this group. */
  readonly members: number[];
}

/** `prefix` / `glob` / `regex` rules of one group before their keys' length (the shortest literal) is known. */
interface StartGroup {
  readonly lookup: StartLookup;
  readonly entries: { position: number; literal: string }[];
}

/**
 * An index of one tool's rules (in effect order) by the value of a plain `equals` / `in`
 * condition, else by the first characters of a plain `prefix`, `glob` or `regex` condition whose
 * matches start with known characters (StartLookup), so that a call only evaluates the rules whose
 * value can match.
 *
 * A start group keys a value by its first L characters (L: the group's shortest literal), folded
 * as the group folds (`startKey`), and keeps a rule live for the key its literal begins with: a
 * value the condition accepts starts with the literal, so its key is the literal's first L
 * characters. Values `startKey` cannot key so (not a string, control characters, a non-ASCII
 * character among the first L) keep every rule of the group live, as ANY_VALUE does below.
 *
 * Why skipping is exact: a rule is indexed under one of its `equals` / `in` conditions on a
 * selector without wildcards, and only if it needs no thread (contextual rules record provenance
 * evidence while they are read, so they are always evaluated). `live(view)` leaves a rule out only
 * when, on the normalised view AND (if normalisation changed anything) on the literal view, the
 * field's key (`equalityKey`: the exact text the condition's test compares) is absent or a string the
 * condition does not want. Then that condition evaluates to NO on every view `argumentsVerdict`
 * reads, a NO condition makes the rule's conditions NO whatever the others say, and so the rule's
 * verdict is NO for allow, ask and deny alike. Any value the test would not simply compare (a list,
 * duplicated keys, embedded JSON, an object, control characters) keeps every rule of the group live,
 * and so does input too large to inspect. The property test in test/policy-index.test.ts compares
 * every decision and `explain` trace with the linear scan.
 */
export class ValueIndex {
  private constructor(
    private readonly groups: readonly Group[],
    /** 1 for rules the index never skips, 0 for indexed ones (a plain array: copying it is cheaper than a typed array's). */
    private readonly template: readonly number[],
  ) {}

  /** The index of `rules` (in effect order), or undefined when none of them can be indexed. */
  static build(rules: readonly IndexableRule[]): ValueIndex | undefined {
    const groups = new Map<string, Group>();
    const starts = new Map<string, StartGroup>();
    const template: number[] = rules.map(() => 1);
    rules.forEach((rule, position) => {
      if (rule.contextual) return;
      const lookup = rule.where.find((condition) => condition.equality !== undefined)?.equality;
      if (lookup === undefined) {
        // No `equals` / `in`: a `prefix`, `glob` or `regex` whose matches start with known characters.
        const start = rule.where.find((condition) => condition.start !== undefined)?.start;
        if (start === undefined) return;
        let group = starts.get(start.group);
        if (group === undefined) starts.set(start.group, (group = { lookup: start, entries: [] }));
        group.entries.push({ position, literal: start.literal });
        template[position] = 0;
        return;
      }
      let group = groups.get(lookup.group);
      if (group === undefined) {
        const fold = lookup.fold;
        group = { read: lookup.read, key: (found) => equalityKey(found, fold), byKey: new Map(), members: [] };
        groups.set(lookup.group, group);
      }
      group.members.push(position);
      for (const key of lookup.wanted) addPosition(group.byKey, key, position);
      template[position] = 0;
    });
    // A start group's key is as long as its shortest literal: a rule is kept for a value whose first
    // characters (folded as the group folds) are its literal's first characters.
    const all = [...groups.values()];
    for (const { lookup, entries } of starts.values()) {
      const length = Math.min(...entries.map((entry) => entry.literal.length));
      const { caseSensitive } = lookup;
      const group: Group = { read: lookup.read, key: (found) => startKey(found, length, caseSensitive), byKey: new Map(), members: [] };
      for (const { position, literal } of entries) {
        group.members.push(position);
        addPosition(group.byKey, literal.slice(0, length), position);
      }
      all.push(group);
    }
    return all.length === 0 ? undefined : new ValueIndex(all, template);
  }

  /** Per rule position: 1 when the rule must be evaluated, 0 when its verdict is NO. Undefined: evaluate every rule. */
  live(view: CanonicalArgs): readonly number[] | undefined {
    if (view.oversized) return undefined;
    // Most calls hit no indexed rule: the template is returned as it is, copied only to mark a hit.
    let live: readonly number[] = this.template;
    for (const group of this.groups) {
      live = mark(live, this.template, group, group.key(group.read(view.value)));
      if (view.changed) live = mark(live, this.template, group, group.key(group.read(view.literal)));
    }
    return live;
  }
}

function addPosition(byKey: Map<string, number[]>, key: string, position: number): void {
  const positions = byKey.get(key);
  if (positions === undefined) byKey.set(key, [position]);
  else positions.push(position);
}

/** `live` with the rules `key` selects in `group` set to 1 (a copy of the template on the first hit). */
function mark(live: readonly number[], template: readonly number[], group: Group, key: string | undefined | typeof ANY_VALUE): readonly number[] {
  if (key === undefined) return live;
  const positions = key === ANY_VALUE ? group.members : group.byKey.get(key);
  if (positions === undefined) return live;
  const out = live === template ? template.slice() : (live as number[]);
  for (const position of positions) out[position] = 1;
  return out;
}

/** How a rule names its tools, as `compileToolMatcher` reads it. */
interface ToolPattern {
  readonly tool: string;
  readonly toolRegex?: boolean | undefined;
  readonly caseSensitive?: boolean | undefined;
}

/** Longest key of a glob's literal start: a name is looked up under its first 1..PREFIX_KEY characters. */
const PREFIX_KEY = 4;

/**
 * Items (rules) by the tool names their pattern can match, so that finding the rules of one tool
 * name does not test every rule: a literal name is keyed by itself (lower-cased unless
 * case-sensitive, as `compileToolMatcher` compares it), a glob by the first characters every name
 * it accepts starts with (`globLiteralStart`, at most PREFIX_KEY of them), a tool regex by its
 * required literal (`requiredLiteral`: the whole name must match, so it starts there), and the rest
 * (globs with no literal start such as `*`, regexes with none) are candidates for every name.
 *
 * `candidates(name)` never leaves out an item whose pattern matches `name` (it may return items
 * that do not: the caller tests each with the rule's own matcher). A glob matched case-insensitively
 * is a JavaScript regex with flag `i` and no `u`: a non-ASCII character never matches an ASCII one
 * there, so a name it accepts starts with the literal's characters up to ASCII case, and
 * lower-casing the name's first characters gives the key.
 */
/** A rule's tool pattern names exactly one tool: no glob, and not a whole MCP server (`mcp__SERVER`). */
export function isOneToolName(tool: string): boolean {
  return !isGlobPattern(tool) && serverWidePrefix(tool) === undefined;
}

export class ToolNameIndex<T> {
  private readonly exactFolded = new Map<string, T[]>();
  private readonly exactCased = new Map<string, T[]>();
  private readonly prefixFolded = new Map<string, T[]>();
  private readonly prefixCased = new Map<string, T[]>();
  private readonly rest: T[] = [];
  private readonly prefixLengths = new Set<number>();

  add(item: T, pattern: ToolPattern): void {
    const key = patternKey(pattern);
    if (key.kind === "any") this.rest.push(item);
    else if (key.kind === "exact") addTo(key.caseSensitive ? this.exactCased : this.exactFolded, key.key, item);
    else {
      this.prefixLengths.add(key.key.length);
      addTo(key.caseSensitive ? this.prefixCased : this.prefixFolded, key.key, item);
    }
  }

  /** Every item whose pattern may match `name` (a superset), each once. */
  candidates(name: string): T[] {
    const folded = name.toLowerCase();
    const out: T[] = [...(this.exactFolded.get(folded) ?? []), ...(this.exactCased.get(name) ?? []), ...this.rest];
    for (const length of this.prefixLengths) {
      if (name.length < length) continue;
      const cased = this.prefixCased.get(name.slice(0, length));
      if (cased !== undefined) out.push(...cased);
      const lower = this.prefixFolded.get(foldPrefix(name.slice(0, length)));
      if (lower !== undefined) out.push(...lower);
    }
    return out;
  }
}

/**
 * The first characters of a name as a case-insensitive pattern's key reads them: lower-cased, and
 * U+017F (long s) as s (RE2's case folding matches it with s; U+212A, the Kelvin sign, lower-cases to k).
 */
function foldPrefix(text: string): string {
  return text.toLowerCase().replaceAll("\u017f", "s");
}

/** Where a tool pattern is kept in a ToolNameIndex (and which names a ToolNames lookup returns for it). */
type PatternKey = { kind: "any" } | { kind: "exact" | "prefix"; key: string; caseSensitive: boolean };

function patternKey(pattern: ToolPattern): PatternKey {
  // A big policy names the same tool pattern in many rules: its key is read once (it depends on these three alone).
  const text = `${pattern.toolRegex === true ? "r" : "g"}${pattern.caseSensitive === true ? "1" : "0"}${pattern.tool}`;
  let key = patternKeys.get(text);
  if (key === undefined) {
    key = readPatternKey(pattern);
    if (patternKeys.size >= MAX_PATTERN_KEYS) patternKeys.clear();
    patternKeys.set(text, key);
  }
  return key;
}

const patternKeys = new Map<string, PatternKey>();
const MAX_PATTERN_KEYS = 50_000;

function readPatternKey(pattern: ToolPattern): PatternKey {
  const caseSensitive = pattern.caseSensitive === true;
  if (pattern.toolRegex === true) {
    // A tool regex matches the whole name (testExact): a name it accepts starts with its required
    // literal, matched as RE2 matches it (case-insensitively: the other ASCII case, and U+212A / U+017F
    // for k / s, which foldPrefix maps onto them).
    const required = requiredLiteral(pattern.tool);
    if (required === undefined) return { kind: "any" };
    return { kind: "prefix", key: (caseSensitive ? required.literal : required.literal.toLowerCase()).slice(0, PREFIX_KEY), caseSensitive };
  }
  // `mcp__SERVER` names the server's tools too: a prefix.
  if (!isGlobPattern(pattern.tool) && serverWidePrefix(pattern.tool) !== undefined) return { kind: "prefix", key: (caseSensitive ? pattern.tool : foldPrefix(pattern.tool)).slice(0, PREFIX_KEY), caseSensitive };
  if (!isGlobPattern(pattern.tool)) return { kind: "exact", key: caseSensitive ? pattern.tool : pattern.tool.toLowerCase(), caseSensitive };
  let literal: string | undefined;
  try {
    literal = globLiteralStart(pattern.tool, { nocase: !caseSensitive, dot: true });
  } catch {
    literal = undefined;
  }
  if (literal === undefined || literal === "") return { kind: "any" };
  return { kind: "prefix", key: literal.slice(0, PREFIX_KEY), caseSensitive };
}

/**
 * A list of tool names by the keys of ToolNameIndex, the other way round: `candidates(pattern)` is
 * every name the pattern may match (a superset, in the list's order), never leaving one out.
 */
export class ToolNames {
  private readonly position = new Map<string, number>();
  private readonly exactFolded = new Map<string, string[]>();
  private readonly exactCased = new Map<string, string[]>();
  /** Per key length 1..PREFIX_KEY: names by their first characters, lower-cased and as they are. */
  private readonly prefixFolded: Map<string, string[]>[] = [];
  private readonly prefixCased: Map<string, string[]>[] = [];
  /** `matching` answers by pattern (kind, case rule, text). */
  private readonly matched = new Map<string, readonly string[]>();

  constructor(private readonly names: readonly string[]) {
    for (let k = 0; k <= PREFIX_KEY; k++) {
      this.prefixFolded.push(new Map());
      this.prefixCased.push(new Map());
    }
    names.forEach((name, i) => {
      if (this.position.has(name)) return;
      this.position.set(name, i);
      addTo(this.exactFolded, name.toLowerCase(), name);
      addTo(this.exactCased, name, name);
      for (let k = 1; k <= PREFIX_KEY && k <= name.length; k++) {
        addTo(this.prefixFolded[k]!, foldPrefix(name.slice(0, k)), name);
        addTo(this.prefixCased[k]!, name.slice(0, k), name);
      }
    });
  }

  candidates(pattern: ToolPattern): readonly string[] {
    const key = patternKey(pattern);
    if (key.kind === "any") return this.names;
    if (key.kind === "exact") return (key.caseSensitive ? this.exactCased : this.exactFolded).get(key.key) ?? [];
    return (key.caseSensitive ? this.prefixCased : this.prefixFolded)[key.key.length]!.get(key.key) ?? [];
  }

  /**
   * The names `matches` accepts among the candidates of `pattern`, in the list's order. `matches`
   * must be the pattern's own matcher (`compileToolMatcher`): the answer is kept per pattern, so a
   * policy naming one tool pattern in many rules tests the names once.
   */
  matching(pattern: ToolPattern, matches: (name: string) => boolean): readonly string[] {
    // Rules of one pattern usually share its matcher (ToolMatchers): found by it without building the key.
    const byMatcher = this.matchedBy.get(matches);
    if (byMatcher !== undefined) return byMatcher;
    const key = `${pattern.toolRegex === true ? "r" : "g"}${pattern.caseSensitive === true ? "1" : "0"}${pattern.tool}`;
    let found = this.matched.get(key);
    if (found === undefined) {
      const list = this.candidates(pattern).filter(matches);
      if (list.length > 1) list.sort((a, b) => this.position.get(a)! - this.position.get(b)!);
      this.matched.set(key, (found = list));
    }
    this.matchedBy.set(matches, found);
    return found;
  }

  /** `matching` answers by the matcher they were found with (the pattern's own, so one per pattern). */
  private readonly matchedBy = new WeakMap<(name: string) => boolean, readonly string[]>();
}

function addTo<T>(map: Map<string, T[]>, key: string, item: T): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [item]);
  else list.push(item);
}
