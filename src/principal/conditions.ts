import { PolicyError } from "../policy/errors.js";
import { NO, UNKNOWN, YES, type Verdict } from "../policy/kinds/verdict.js";
import { stringTest } from "../policy/matchers.js";
import { describeCondition, numericPredicate } from "../provenance/conditions.js";
import { principalText } from "../messages/principal.js";
import { principalValue, type Principal, type PrincipalValue } from "./principal.js";
import type { PrincipalCondition, PrincipalMatcher } from "./schema.js";
import { comparableText } from "./same-as.js";

/**
 * Conditions on the principal of a run (a rule's `principal:` block, an approver rule's), compiled.
 * A value that is a list (permissions, a list of roles) holds a leaf test when one of its items
 * does: `permissions: { equals: deploy }` is "has the permission deploy", and `not` of it "lacks
 * it". A missing user or value is UNKNOWN (never YES): an allow rule does not apply, a deny or ask
 * rule asks, an approver rule refuses; `why` names what was missing.
 */
export interface PrincipalConditions {
  readonly names: readonly string[];
  readonly description: string;
  verdict(principal: Principal | undefined): Verdict;
  /** What the principal lacks that a condition reads (for the reason of a decision); undefined when nothing. */
  why(principal: Principal | undefined): string | undefined;
}

type ValueTest = (found: PrincipalValue) => Verdict;

function describeLeaf(leaf: PrincipalMatcher): string {
  const [key, value] = Object.entries(leaf).find(([name]) => name !== "caseSensitive") ?? ["", ""];
  return `${key} ${JSON.stringify(value)}`;
}

const NUMERIC_RE = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;

function numberOf(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value !== "string" || !NUMERIC_RE.test(value.trim())) return undefined;
  const n = Number(value.trim());
  return Number.isFinite(n) ? n : undefined;
}

/** YES when one item passes; UNKNOWN when none does and some could not be read; else NO. */
function anyItem(found: PrincipalValue, test: (item: unknown) => Verdict): Verdict {
  if (!found.found) return UNKNOWN;
  const items = Array.isArray(found.value) ? found.value : [found.value];
  let unknown = items.length === 0 && !Array.isArray(found.value);
  for (const item of items) {
    const one = test(item);
    if (one === YES) return YES;
    if (one === UNKNOWN) unknown = true;
  }
  return unknown ? UNKNOWN : NO;
}

function compileLeaf(leaf: PrincipalMatcher, where: string): ValueTest {
  if (leaf.exists !== undefined) {
    const want = leaf.exists;
    // No user at all: whether it has the value cannot be told.
    return (found) => (found.found ? (want ? YES : NO) : found.missing === "user" ? UNKNOWN : want ? NO : YES);
  }
  let test: (text: string) => boolean;
  try {
    test = stringTest(leaf as Parameters<typeof stringTest>[0], where);
  } catch (error) {
    if (error instanceof PolicyError) throw error;
    throw new PolicyError(undefined, where, error instanceof Error ? error.message : String(error));
  }
  return (found) =>
    anyItem(found, (item) => {
      const text = comparableText(item, true);
      return text === undefined ? UNKNOWN : test(text) ? YES : NO;
    });
}

function compile(condition: PrincipalCondition, where: string): ValueTest {
  const c = condition as Record<string, unknown>;
  if ("not" in c) {
    const inner = compile(c.not as PrincipalCondition, `${where}.not`);
    return (found) => {
      const v = inner(found);
      return v === UNKNOWN ? UNKNOWN : v === YES ? NO : YES;
    };
  }
  if ("anyOf" in c || "allOf" in c) {
    const any = "anyOf" in c;
    const parts = ((any ? c.anyOf : c.allOf) as PrincipalCondition[]).map((part, i) => compile(part, `${where}.${any ? "anyOf" : "allOf"}[${i}]`));
    const decisive = any ? YES : NO;
    return (found) => {
      let unknown = false;
      for (const part of parts) {
        const v = part(found);
        if (v === decisive) return decisive;
        if (v === UNKNOWN) unknown = true;
      }
      return unknown ? UNKNOWN : any ? NO : YES;
    };
  }
  const holds = numericPredicate(c);
  if (holds !== undefined) {
    return (found) =>
      anyItem(found, (item) => {
        const n = numberOf(item);
        return n === undefined ? UNKNOWN : holds(n) ? YES : NO;
      });
  }
  if ("from" in c || "sameAs" in c) throw new PolicyError(undefined, where, `${"from" in c ? "from" : "sameAs"} has no meaning in a condition on the principal`);
  return compileLeaf(condition as PrincipalMatcher, where);
}

/** What is missing for `name`, as a reason. */
export function missingReason(principal: Principal | undefined, name: string): string | undefined {
  const found = principalValue(principal, name);
  if (found.found) return undefined;
  return found.missing === "user" ? principalText.missingUser(name) : principalText.missingAttribute(name);
}

/** Compiles a `principal:` block (`where` locates it for errors). */
export function compilePrincipalConditions(block: Readonly<Record<string, PrincipalCondition>>, where: string): PrincipalConditions {
  const entries = Object.entries(block).map(([name, condition]) => ({ name, test: compile(condition, `${where}[${JSON.stringify(name)}]`) }));
  const description = Object.entries(block)
    .map(([name, condition]) => principalText.describe(name, describeCondition(condition, describeLeaf)))
    .join(" and ");
  return {
    names: entries.map((entry) => entry.name),
    description,
    verdict(principal) {
      let verdict: Verdict = YES;
      for (const entry of entries) {
        const one = entry.test(principalValue(principal, entry.name));
        if (one === NO) return NO;
        if (one === UNKNOWN) verdict = UNKNOWN;
      }
      return verdict;
    },
    why(principal) {
      for (const entry of entries) {
        if (entry.test(principalValue(principal, entry.name)) !== UNKNOWN) continue;
        return missingReason(principal, entry.name) ?? principalText.missingAttribute(entry.name);
      }
      return undefined;
    },
  };
}
