import { principalText } from "../messages/principal.js";
import { isInternalConfigurableKey, PRINCIPAL_FIELDS, principalName } from "./principal.js";
import type { ApproverRule, PrincipalsDeclaration } from "./schema.js";

/** What `policy check` needs of a policy to check the names its rules read of the principal. */
interface PrincipalUse {
  readonly permissions: readonly { id?: string | undefined; principal?: Readonly<Record<string, unknown>> | undefined; where?: Readonly<Record<string, unknown>> | undefined }[];
  readonly approvers?: readonly ApproverRule[] | undefined;
  readonly principals?: PrincipalsDeclaration | undefined;
}

/** The principal names a condition's `sameAs` tests read (under not / anyOf / allOf too). */
export function sameAsNames(condition: unknown, out: string[] = []): string[] {
  if (typeof condition !== "object" || condition === null) return out;
  const c = condition as Record<string, unknown>;
  if (typeof c.sameAs === "string") out.push(c.sameAs);
  if (c.not !== undefined) sameAsNames(c.not, out);
  for (const key of ["anyOf", "allOf"]) if (Array.isArray(c[key])) for (const inner of c[key] as unknown[]) sameAsNames(inner, out);
  return out;
}

/** Whether `sameAsNames(condition)` has a name: the same walk, without building the list. */
function readsSameAs(condition: unknown): boolean {
  if (typeof condition !== "object" || condition === null) return false;
  const c = condition as Record<string, unknown>;
  if (typeof c.sameAs === "string") return true;
  if (c.not !== undefined && readsSameAs(c.not)) return true;
  if (Array.isArray(c.anyOf) && c.anyOf.some(readsSameAs)) return true;
  return Array.isArray(c.allOf) && c.allOf.some(readsSameAs);
}

/** Edit distance, for "did you mean" (names are short). */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/** The known name closest to `name` (same letters in another case, or at most two edits away). */
function closest(name: string, known: readonly string[]): string | undefined {
  const folded = name.trim().toLowerCase();
  const same = known.find((candidate) => candidate.toLowerCase() === folded);
  if (same !== undefined) return same;
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of known) {
    const d = distance(folded, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * Errors for every principal name a rule reads that the policy does not know: not identity,
 * permissions, display_name, a `metadata.<key>` declared in `principals.metadata`, or a
 * `configurable.<key>` declared in `principals.configurable` (and not LangGraph's own). A misspelt
 * name would never hold: an allow would never allow, a deny would ask on every call.
 */
export function principalNameErrors(policy: PrincipalUse): string[] {
  const metadata = policy.principals?.metadata ?? [];
  const configurable = policy.principals?.configurable ?? [];
  const known = [...PRINCIPAL_FIELDS, ...metadata.map((key) => `metadata.${key}`), ...configurable.map((key) => `configurable.${key}`)];
  const errors: string[] = [];
  const check = (label: string, name: string) => {
    const parsed = principalName(name);
    if (parsed === undefined) {
      errors.push(principalText.unknownName(label, name, closest(name, known), known));
      return;
    }
    if (parsed.scope === "user") return;
    if (parsed.scope === "configurable" && isInternalConfigurableKey(parsed.key)) {
      errors.push(principalText.internalConfigurable(label, name));
      return;
    }
    const declared = parsed.scope === "metadata" ? metadata : configurable;
    if (!declared.includes(parsed.key)) {
      const suggestion = closest(name, known);
      errors.push(principalText.undeclaredName(label, name, parsed.scope, suggestion));
    }
  };
  // (Labels are written only for the rules that read the principal: a big policy has few.)
  const label = (index: number) => {
    const rule = policy.permissions[index]!;
    return rule.id === undefined ? `permissions[${index}]` : `permissions[${index}] (${rule.id})`;
  };
  for (let index = 0; index < policy.permissions.length; index++) {
    const rule = policy.permissions[index]!;
    if (rule.principal !== undefined) for (const name of Object.keys(rule.principal)) check(`${label(index)}.principal`, name);
    const where = rule.where;
    if (where === undefined) continue;
    for (const selector in where) {
      if (!Object.hasOwn(where, selector) || !readsSameAs(where[selector])) continue;
      for (const name of sameAsNames(where[selector])) check(`${label(index)}.where[${JSON.stringify(selector)}]`, name);
    }
  }
  (policy.approvers ?? []).forEach((rule, index) => {
    const label = rule.id === undefined ? `approvers[${index}]` : `approvers[${index}] (${rule.id})`;
    for (const name of Object.keys(rule.principal ?? {})) check(`${label}.principal`, name);
  });
  return errors;
}
