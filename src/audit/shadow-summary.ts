import { z } from "zod";
import type { AuditRecord } from "./types.js";

/** The shadow part of a decision record (`detail.shadow`): what a shadow rule or policy would have decided. */
const ShadowPartSchema = z.lazy(() =>
  z.object({
    decision: z.enum(["allow", "deny", "ask"]),
    ruleId: z.string(),
    reason: z.string(),
    changed: z.boolean(),
  }),
);

export type ShadowPart = z.output<typeof ShadowPartSchema>;

/** The shadow part of a record, or undefined when it has none (or a malformed one). */
export function shadowPart(record: AuditRecord): ShadowPart | undefined {
  const value = record.detail?.shadow;
  if (value === undefined) return undefined;
  const parsed = ShadowPartSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** `audit --shadow`: how many review decisions had a shadow decision, how many it would change, by change and by rule. */
export interface ShadowSummary {
  decisions: number;
  shadowed: number;
  changed: number;
  /** "allow → deny": count (enforced → shadow). */
  byChange: Map<string, number>;
  /** Per shadow rule id: the calls it would have decided differently. */
  byRule: Map<string, number>;
}

/** Counts the shadow decisions of an audit log's review records (each call's first), as `guarded-graph audit --shadow` prints them. */
export function summariseShadow(records: readonly AuditRecord[]): ShadowSummary {
  const summary: ShadowSummary = { decisions: 0, shadowed: 0, changed: 0, byChange: new Map(), byRule: new Map() };
  const seen = new Set<string>();
  for (const record of records) {
    if (record.event !== "decision" || record.detail?.recheck !== undefined || seen.has(record.id)) continue;
    seen.add(record.id);
    summary.decisions++;
    const shadow = shadowPart(record);
    if (shadow === undefined) continue;
    summary.shadowed++;
    if (shadow.decision === record.decision) continue;
    summary.changed++;
    const change = `${record.decision} → ${shadow.decision}`;
    summary.byChange.set(change, (summary.byChange.get(change) ?? 0) + 1);
    summary.byRule.set(shadow.ruleId, (summary.byRule.get(shadow.ruleId) ?? 0) + 1);
  }
  return summary;
}
