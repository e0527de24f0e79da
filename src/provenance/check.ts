import type { PermissionRule } from "../policy/permissions.js";
import type { ProvenanceConfig } from "./schema.js";
import { trustedTool } from "./trust.js";

/** Tool name → its operations, as ToolRegistry.catalog() gives it. */
type ToolCatalog = ReadonlyMap<string, readonly string[]>;

function sourcesIn(condition: unknown, out: string[]): void {
  if (typeof condition !== "object" || condition === null) return;
  const c = condition as Record<string, unknown>;
  if (Array.isArray(c.from)) out.push(...(c.from as string[]));
  if (c.not !== undefined) sourcesIn(c.not, out);
  for (const key of ["anyOf", "allOf"] as const) if (Array.isArray(c[key])) for (const inner of c[key] as unknown[]) sourcesIn(inner, out);
}

/**
 * What `policy check` says about provenance: sources and `after` lists that name tools that do not
 * exist or lists the policy never declares (such a condition can never be met, so its rule always
 * or never applies), and trusted tools that are also untrusted.
 */
export function provenanceWarnings(permissions: readonly PermissionRule[], provenance: ProvenanceConfig | undefined, tools: ToolCatalog | undefined): string[] {
  const warnings: string[] = [];
  const known = (tool: string) => tools === undefined || tools.has(tool);
  const trusted = (provenance?.trusted ?? []).map(trustedTool);
  const untrusted = provenance?.untrusted ?? [];
  for (const [list, names] of [["trusted", trusted], ["untrusted", untrusted]] as const) {
    for (const name of names) if (!known(name)) warnings.push(`provenance.${list}: no tool is named ${JSON.stringify(name)}`);
  }
  // A tool trusted in part (some fields, or when the user typed its arguments) is meant to be untrusted for the rest.
  for (const entry of provenance?.trusted ?? []) {
    const whole = typeof entry === "string" || (entry.fields === undefined && entry.argsFromUser !== true);
    const name = trustedTool(entry);
    if (whole && untrusted.includes(name)) warnings.push(`provenance: ${JSON.stringify(name)} is both trusted and untrusted; its outputs count as trusted sources`);
  }
  permissions.forEach((rule, index) => {
    const label = rule.id === undefined ? `permissions[${index}]` : `permissions[${index}] (${rule.id})`;
    for (const [selector, condition] of Object.entries(rule.where ?? {})) {
      const sources: string[] = [];
      sourcesIn(condition, sources);
      for (const source of sources) {
        if (source === "user") continue;
        if (source === "trusted" || source === "untrusted") {
          const listed = source === "trusted" ? trusted : untrusted;
          if (listed.length === 0) warnings.push(`${label}: where[${JSON.stringify(selector)}] accepts ${source} outputs, but provenance.${source} lists no tool`);
          continue;
        }
        const tool = source.startsWith("args:") ? source.slice(5) : source;
        if (!known(tool)) warnings.push(`${label}: where[${JSON.stringify(selector)}] names the source ${JSON.stringify(source)}, but no tool is named ${JSON.stringify(tool)}`);
      }
    }
    for (const name of rule.after ?? []) {
      if (name === "untrusted") {
        if (untrusted.length === 0) warnings.push(`${label}: after: [untrusted], but provenance.untrusted lists no tool, so the rule never applies`);
      } else if (!known(name)) {
        warnings.push(`${label}: after names ${JSON.stringify(name)}, but no tool has that name, so the rule never applies`);
      }
    }
  });
  return warnings;
}
