import type { CanonicalArgs } from "./canonical.js";
import { ANY_VALUE, equalityKey, type EqualityLookup, type FieldCondition } from "./matchers.js";

/** What the index needs of a compiled permission rule. */
interface IndexableRule {
  /** Needs the thread: never skipped (its provenance conditions record evidence as they are read). */
  readonly contextual: boolean;
  readonly where: readonly FieldCondition[];
}

interface Group {
  readonly read: EqualityLookup["read"];
  readonly fold: EqualityLookup["fold"];
  /** Folded value → positions of the rules indexed in this group whose condition wants it. */
  readonly byKey: Map<string, number[]>;
  /** Positions of every rule indexed in this group. */
  readonly members: number[];
}

/**
 * An index of one tool's rules (in effect order) by the value of a plain `equals` / `in`
 * condition, so that a call only evaluates the rules whose value can match.
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
    const template: number[] = rules.map(() => 1);
    rules.forEach((rule, position) => {
      if (rule.contextual) return;
      const lookup = rule.where.find((condition) => condition.equality !== undefined)?.equality;
      if (lookup === undefined) return;
      let group = groups.get(lookup.group);
      if (group === undefined) {
        group = { read: lookup.read, fold: lookup.fold, byKey: new Map(), members: [] };
        groups.set(lookup.group, group);
      }
      group.members.push(position);
      for (const key of lookup.wanted) {
        const positions = group.byKey.get(key);
        if (positions === undefined) group.byKey.set(key, [position]);
        else positions.push(position);
      }
      template[position] = 0;
    });
    return groups.size === 0 ? undefined : new ValueIndex([...groups.values()], template);
  }

  /** Per rule position: 1 when the rule must be evaluated, 0 when its verdict is NO. Undefined: evaluate every rule. */
  live(view: CanonicalArgs): readonly number[] | undefined {
    if (view.oversized) return undefined;
    // Most calls hit no indexed rule: the template is returned as it is, copied only to mark a hit.
    let live: readonly number[] = this.template;
    for (const group of this.groups) {
      live = mark(live, this.template, group, equalityKey(group.read(view.value), group.fold));
      if (view.changed) live = mark(live, this.template, group, equalityKey(group.read(view.literal), group.fold));
    }
    return live;
  }
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
