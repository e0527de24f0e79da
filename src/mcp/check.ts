import type { DeclaredRisks } from "../policy/check.js";
import { parseCompactRule } from "../policy/compact.js";
import type { LoadedPolicy } from "../policy/file.js";
import { compileToolMatcher, type PermissionRule } from "../policy/permissions.js";
import { topArgument } from "../policy/selector.js";
import { guardSpecOf, ToolRegistry } from "../tools/registry.js";
import type { AnyTool, JsonSchema } from "../tools/types.js";
import { annotatedSpecs, mcpFactsOf, trustProblems } from "./annotations.js";

// What `policy check --mcp` knows of the MCP tools beyond their names and argument names: the risk
// their annotations give under the policy's `mcp.trustAnnotations`, and the kind of an argument
// where the server's schema says it (`format: uri` → url), so a rule reading a URL argument as a path
// is an error, as a rule naming an argument the tool lacks is.

/** The kind of value an argument holds, as its JSON schema's `format` says. */
type ArgumentKind = "url" | "email" | "domain";

const KIND_BY_FORMAT: Readonly<Record<string, ArgumentKind>> = {
  uri: "url",
  "uri-reference": "url",
  iri: "url",
  "iri-reference": "url",
  url: "url",
  email: "email",
  "idn-email": "email",
  hostname: "domain",
  "idn-hostname": "domain",
};

/** Matcher kinds that can read a value of each argument kind (a domain matcher reads a URL's host). */
const READS: Readonly<Record<ArgumentKind, readonly string[]>> = {
  url: ["url", "domain"],
  email: ["email"],
  domain: ["domain"],
};

/** Matchers that read a value as a particular kind of thing (others compare text: equals, glob, regex, …). */
const KINDED_MATCHERS = new Set(["path", "command", "url", "domain", "email"]);

/** Top-level argument → its kind, where the schema gives a format the guard knows. */
function argumentKinds(schema: JsonSchema): Map<string, ArgumentKind> {
  const out = new Map<string, ArgumentKind>();
  const properties = schema.properties;
  if (typeof properties !== "object" || properties === null) return out;
  for (const [name, property] of Object.entries(properties as Record<string, unknown>)) {
    const format = typeof property === "object" && property !== null ? (property as { format?: unknown }).format : undefined;
    const kind = typeof format === "string" ? KIND_BY_FORMAT[format] : undefined;
    if (kind !== undefined) out.set(name, kind);
  }
  return out;
}

/** The policy facts of a set of tools (MCP or not): what `checkPolicy` takes, with MCP annotations applied. */
export interface ToolFacts {
  catalog: Map<string, readonly string[]>;
  declared: DeclaredRisks;
  toolArguments: Map<string, readonly string[]>;
  schemas: ReturnType<ToolRegistry["inputSchemas"]>;
  /** Problems only the MCP facts show: trusted servers with no tools, arguments read as the wrong kind. */
  errors: string[];
}

export function mcpToolFacts(tools: readonly AnyTool[], loaded: LoadedPolicy): ToolFacts {
  const registry = new ToolRegistry(tools);
  const problems = trustProblems(tools, loaded.mcp);
  const specs = annotatedSpecs(tools, guardSpecOf, problems.length > 0 ? undefined : loaded.mcp, { defaultRisk: loaded.defaultRisk, riskModes: loaded.riskModes });
  const declared = new Map(
    registry.names().map((name) => {
      const spec = specs.get(name) ?? registry.spec(name);
      return [name, { risk: spec?.risk, operationRisk: spec?.operationRisk ?? {} }] as const;
    }),
  );
  return {
    catalog: registry.catalog(),
    declared,
    toolArguments: registry.argumentNames(),
    schemas: registry.inputSchemas(),
    errors: [...problems, ...kindErrors(loaded, tools)],
  };
}

/** The kinded matchers a rule applies to top-level arguments: argument → [matcher kind]. */
function kindedReads(rule: PermissionRule, label: string, loaded: LoadedPolicy): [string, string][] {
  const where = rule.rule !== undefined ? parseCompactRule(rule.rule, label, loaded.mainArguments).where : rule.where;
  const out: [string, string][] = [];
  for (const [selector, condition] of Object.entries(where ?? {})) {
    // Only a plain top-level argument read directly (`url`, not `items[*].url` or a nested condition).
    if (topArgument(selector) !== selector || typeof condition !== "object" || condition === null) continue;
    for (const key of Object.keys(condition)) if (KINDED_MATCHERS.has(key)) out.push([selector, key]);
  }
  return out;
}

/**
 * A rule that reads an MCP tool's argument as a kind of thing its schema says it is not (a URL
 * argument as a path or a command) would never match as meant: an error.
 */
function kindErrors(loaded: LoadedPolicy, tools: readonly AnyTool[]): string[] {
  const kinds = new Map<string, Map<string, ArgumentKind>>();
  for (const tool of tools) {
    if (mcpFactsOf(tool) === undefined) continue;
    const byArgument = argumentKinds(guardSpecOf(tool).jsonSchema);
    if (byArgument.size > 0) kinds.set(tool.name, byArgument);
  }
  if (kinds.size === 0) return [];
  const errors: string[] = [];
  loaded.permissions.forEach((rule, index) => {
    const label = rule.id === undefined ? `permissions[${index}]` : `permissions[${index}] (${rule.id})`;
    const matches = compileToolMatcher(rule, label);
    const reads = kindedReads(rule, label, loaded);
    for (const [tool, byArgument] of kinds) {
      if (!matches(tool)) continue;
      for (const [argument, matcher] of reads) {
        const kind = byArgument.get(argument);
        if (kind === undefined || READS[kind].includes(matcher)) continue;
        const how = rule.rule !== undefined ? `${rule.rule} reads ${argument} as a ${matcher}` : `where ${JSON.stringify(argument)} reads it as a ${matcher}`;
        errors.push(`${label}: ${how}, but ${tool}'s schema says ${argument} is ${kind === "url" ? "a URL" : kind === "email" ? "an email address" : "a host name"}; the rule would not match as meant: use ${READS[kind].map((m) => `${m}:`).join(" or ")} in where form`);
      }
    }
  });
  return errors;
}
