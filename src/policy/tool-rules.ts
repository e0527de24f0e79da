import type { z } from "zod";
import type { RuleScope, ToolRule } from "../rules/types.js";
import type { DurationSchema, NativeToolRuleSchema, SeedToolRuleSchema, ToolRuleEntry } from "./schema.js";

type Duration = z.output<typeof DurationSchema>;
type NativeEntry = z.output<typeof NativeToolRuleSchema>;
type SeedEntry = z.output<typeof SeedToolRuleSchema>;

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `30000` (ms), `"1m30s"`, `{ secs: 30, nanos: 0 }` → milliseconds. Input already validated by DurationSchema. */
function durationToMs(duration: Duration): number {
  if (typeof duration === "number") return duration;
  if (typeof duration === "object") return duration.secs * 1_000 + (duration.nanos ?? 0) / 1_000_000;
  let total = 0;
  for (const match of duration.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) {
    total += Number(match[1]) * (UNIT_MS[match[2] ?? "ms"] ?? 1);
  }
  return total;
}

interface Common {
  tool: string;
  conditions?: string[];
  priority?: number;
  metadata?: Record<string, unknown>;
  id?: string;
}

function common(tool: string, entry: NativeEntry | SeedEntry): Common {
  const out: Common = { tool };
  if (entry.id !== undefined) out.id = entry.id;
  if (entry.conditions !== undefined && entry.conditions.length > 0) out.conditions = [...entry.conditions];
  if (entry.priority !== undefined) out.priority = entry.priority;
  if (entry.metadata !== undefined && entry.metadata !== null) out.metadata = entry.metadata;
  return out;
}

function withScope<T extends object>(rule: T, scope: RuleScope | undefined): T & { scope?: RuleScope } {
  return scope === undefined ? rule : { ...rule, scope };
}

/** Copies the optional fields that are set (the schema already checked they belong to the type). */
function optional<T extends object>(rule: T, entry: NativeEntry, keys: readonly (keyof NativeEntry)[]): T {
  const out: Record<string, unknown> = { ...(rule as Record<string, unknown>) };
  for (const key of keys) if (entry[key] !== undefined) out[key] = structuredClone(entry[key]);
  return out as T;
}

function fromNative(entry: NativeEntry): ToolRule {
  const rule = fromNativeType(entry);
  return entry.onViolation === undefined ? rule : { ...rule, onViolation: entry.onViolation };
}

function fromNativeType(entry: NativeEntry): ToolRule {
  const base = common(entry.tool, entry);
  switch (entry.type) {
    case "MaxCalls":
    case "MaxTotalCalls":
      return optional({ ...base, type: entry.type, max: entry.max ?? 0 }, entry, ["scope", "exitBehavior"]);
    case "Cooldown":
      return { ...base, type: entry.type, durationMs: entry.durationMs ?? durationToMs(entry.duration ?? 0) };
    case "Periodic":
      return optional({ ...base, type: entry.type, durationMs: entry.durationMs ?? durationToMs(entry.duration ?? 0) }, entry, ["args"]);
    case "AllowedOperations":
      return { ...base, type: "AllowedOperations", operations: [...(entry.operations ?? [])] };
    case "InitialCall":
      return optional({ ...base, type: "InitialCall" }, entry, ["alternatives", "args"]);
    case "ChildTools":
      return optional({ ...base, type: "ChildTools", children: [...(entry.children ?? [])] }, entry, ["childArgs"]);
    case "ParentTools":
      return { ...base, type: "ParentTools", children: [...(entry.children ?? [])] };
    case "ConditionalNext":
      return optional({ ...base, type: "ConditionalNext", outputMapping: { ...entry.outputMapping } }, entry, ["defaultChild", "requireOutputMapping"]);
    default:
      return optional({ ...base, type: entry.type }, entry, ["scope", "args"]);
  }
}

function fromSeed(entry: SeedEntry): ToolRule {
  const base = common(entry.tool_name, entry);
  const ruleType = entry.rule_type;
  if (typeof ruleType === "string") {
    // MaxCalls/Cooldown/Periodic/AllowedOperations without a value were refused by the schema.
    return { ...base, type: ruleType } as ToolRule;
  }
  if ("MaxCalls" in ruleType) return withScope({ ...base, type: "MaxCalls", max: ruleType.MaxCalls }, entry.scope);
  if ("Cooldown" in ruleType) return { ...base, type: "Cooldown", durationMs: durationToMs(ruleType.Cooldown) };
  if ("Periodic" in ruleType) return { ...base, type: "Periodic", durationMs: durationToMs(ruleType.Periodic) };
  return { ...base, type: "AllowedOperations", operations: [...ruleType.AllowedOperations] };
}

/** Turns a validated tool-rule entry (this project's form or the seed's serde form) into a ToolRule. */
export function toToolRule(entry: ToolRuleEntry): ToolRule {
  return "tool_name" in entry ? fromSeed(entry) : fromNative(entry);
}
