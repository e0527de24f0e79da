import { z } from "zod";
import { DEFAULT_RISK_MODES } from "../policy/defaults.js";
import { MCP_PREFIX, MCP_SEPARATOR } from "../policy/mcp-names.js";
import type { PermissionMode } from "../policy/types.js";
import type { AnyTool, RiskLevel, ToolGuardSpec } from "../tools/types.js";

// MCP tool annotations as guard defaults. An MCP server describes its tools with hints
// (readOnlyHint, destructiveHint, idempotentHint, openWorldHint; MCP spec 2025-03-26 and later).
// They are claims by the server, so by default they may only make a tool stricter than a plain
// LangChain tool with nothing declared; a server the guard's `mcp.trustAnnotations` names may also
// relax it. `@langchain/mcp-adapters` puts the hints in the LangChain tool's
// `metadata.annotations` and, with `prefixToolNameWithServerName` and `additionalToolNamePrefix:
// "mcp"`, names the tool `mcp__SERVER__TOOL` (Claude Code's form), which is where the server is read.

const PREFIX = MCP_PREFIX;
const SEPARATOR = MCP_SEPARATOR;

/** The options of `@langchain/mcp-adapters` (MultiServerMCPClient, loadMcpTools) that name tools `mcp__SERVER__TOOL`. */
export const MCP_TOOL_NAMING = Object.freeze({ prefixToolNameWithServerName: true, additionalToolNamePrefix: PREFIX } as const);

/** Why a server name cannot be read back from `mcp__SERVER__TOOL`, or undefined when it can. */
export function serverNameProblem(server: string): string | undefined {
  if (server.length === 0) return "an MCP server name cannot be empty";
  if (server.includes(SEPARATOR)) return `the MCP server name ${JSON.stringify(server)} contains "${SEPARATOR}", so its tools' names (${PREFIX}${SEPARATOR}SERVER${SEPARATOR}TOOL) could not tell where the server name ends`;
  return undefined;
}

/** `mcp__SERVER__TOOL` → server and tool; undefined for any other name. */
export function parseMcpToolName(name: string): { server: string; tool: string } | undefined {
  const head = `${PREFIX}${SEPARATOR}`;
  if (!name.startsWith(head)) return undefined;
  const rest = name.slice(head.length);
  const end = rest.indexOf(SEPARATOR);
  if (end <= 0 || end + SEPARATOR.length >= rest.length) return undefined;
  return { server: rest.slice(0, end), tool: rest.slice(end + SEPARATOR.length) };
}

/**
 * The hints the guard reads. A hint that is not a boolean is not read (as if absent): a malformed
 * claim gains nothing and, read as absent, costs nothing either.
 */
const HintsSchema = z.lazy(() =>
  z.object({
    readOnlyHint: z.unknown().optional(),
    destructiveHint: z.unknown().optional(),
    idempotentHint: z.unknown().optional(),
  }),
);

/** The tool hints of the MCP spec, as the guard reads them. */
interface McpToolHints {
  readonly readOnlyHint?: boolean | undefined;
  readonly destructiveHint?: boolean | undefined;
  readonly idempotentHint?: boolean | undefined;
}

/** What the guard knows of an MCP tool: its server (from its name) and its hints. */
interface McpToolFacts {
  /** Undefined when the tool's name is not `mcp__SERVER__TOOL`: then no server can be trusted with it. */
  readonly server: string | undefined;
  readonly hints: McpToolHints;
}

function bool(value: unknown): boolean | undefined {
  return typeof value === "boolean" ? value : undefined;
}

/**
 * The MCP facts of a tool loaded by `@langchain/mcp-adapters` (its `metadata` has an `annotations`
 * key, possibly undefined when the server gave none), else undefined.
 */
export function mcpFactsOf(tool: AnyTool): McpToolFacts | undefined {
  const metadata = (tool as { metadata?: unknown }).metadata;
  if (typeof metadata !== "object" || metadata === null || !Object.hasOwn(metadata, "annotations")) return undefined;
  const parsed = HintsSchema.safeParse((metadata as { annotations?: unknown }).annotations ?? {});
  const raw = parsed.success ? parsed.data : {};
  return {
    server: parseMcpToolName(tool.name)?.server,
    hints: { readOnlyHint: bool(raw.readOnlyHint), destructiveHint: bool(raw.destructiveHint), idempotentHint: bool(raw.idempotentHint) },
  };
}

/** The guard's MCP settings (`GuardOptions.mcp`, a policy file's `mcp:`). */
export interface McpOptions {
  /**
   * Servers whose annotations may also relax a tool (readOnlyHint → low risk and parallel runs,
   * destructiveHint: false → medium, idempotentHint → idempotent). Any other server's annotations
   * may only make its tools stricter (destructiveHint → high risk).
   */
  trustAnnotations?: readonly string[];
}

/** What decides when no rule matches, for a risk (undefined: nobody declared one, which asks). */
interface RiskBaseline {
  /** Risk of a tool that declares none (the guard's, or the policy's, `defaultRisk`). */
  readonly defaultRisk: RiskLevel | undefined;
  readonly riskModes: Readonly<Partial<Record<RiskLevel, PermissionMode>>> | undefined;
}

const STRICTNESS: Readonly<Record<PermissionMode, number>> = { allow: 0, ask: 1, deny: 2 };

function modeOf(risk: RiskLevel | undefined, baseline: RiskBaseline): PermissionMode {
  if (risk === undefined) return "ask";
  return baseline.riskModes?.[risk] ?? DEFAULT_RISK_MODES[risk];
}

/**
 * The risk an untrusted hint may give: `candidate` only when the decision it leads to with no rule
 * matching (deny > ask > allow) is at least as strict as the one the tool gets without it (its
 * `defaultRisk`, else ask); otherwise nothing (the tool stays undeclared).
 */
function noLaxerThanBaseline(candidate: RiskLevel, baseline: RiskBaseline): RiskLevel | undefined {
  const without = baseline.defaultRisk;
  return STRICTNESS[modeOf(candidate, baseline)] >= STRICTNESS[modeOf(without, baseline)] ? candidate : undefined;
}

/**
 * The guard spec of an MCP tool: `base` (the defaults of a plain LangChain tool: no declared risk,
 * never concurrency-safe, not idempotent, kind "other") with its hints applied.
 *
 * Untrusted server (the default), stricter only:
 *  - destructiveHint: true → risk high, but only when that decides at least as strictly, with no
 *    rule matching, as the tool's risk without it (see noLaxerThanBaseline: under `defaultRisk:
 *    always-deny` a destructive claim must not turn a deny into an ask);
 *  - readOnlyHint, destructiveHint: false and idempotentHint could only relax: ignored.
 * Trusted server (`trustAnnotations`), as the hints say:
 *  - readOnlyHint: true → risk low, concurrency-safe, kind "read-only";
 *  - else destructiveHint: true → high; destructiveHint: false → medium (additive updates only);
 *  - idempotentHint: true → idempotent.
 * A risk the tool already declares (a wrapper made with defineTool) is never replaced.
 */
function annotatedSpec(base: ToolGuardSpec, facts: McpToolFacts, trusted: boolean, baseline: RiskBaseline): ToolGuardSpec {
  const { readOnlyHint, destructiveHint, idempotentHint } = facts.hints;
  if (!trusted) {
    const risk = destructiveHint === true ? noLaxerThanBaseline("high", baseline) : undefined;
    return risk === undefined || base.risk !== undefined ? base : { ...base, risk };
  }
  const readOnly = readOnlyHint === true;
  const hinted: RiskLevel | undefined = readOnly ? "low" : destructiveHint === true ? "high" : destructiveHint === false ? "medium" : undefined;
  return {
    ...base,
    risk: base.risk ?? hinted,
    idempotent: base.idempotent || idempotentHint === true,
    ...(readOnly ? { isConcurrencySafe: () => true, kind: "read-only" as const } : {}),
  };
}

/**
 * The specs of the MCP tools among `tools` whose hints change anything, by tool name, for the
 * trusted servers and risk baseline given. Tools that are not MCP tools are absent.
 */
export function annotatedSpecs(
  tools: readonly AnyTool[],
  specOf: (tool: AnyTool) => ToolGuardSpec,
  options: McpOptions | undefined,
  baseline: RiskBaseline,
): Map<string, ToolGuardSpec> {
  const trusted = new Set(options?.trustAnnotations ?? []);
  const out = new Map<string, ToolGuardSpec>();
  for (const tool of tools) {
    const facts = mcpFactsOf(tool);
    if (facts === undefined) continue;
    const base = specOf(tool);
    const spec = annotatedSpec(base, facts, facts.server !== undefined && trusted.has(facts.server), baseline);
    if (spec !== base) out.set(tool.name, spec);
  }
  return out;
}

/**
 * Problems with `trustAnnotations` against the tools: a server name that cannot appear in a tool
 * name, or that no tool comes from (a typo would trust nothing, silently). Tools carrying MCP
 * annotations under a name with no server are named too: no server can be trusted with them.
 */
export function trustProblems(tools: readonly AnyTool[], options: McpOptions | undefined): string[] {
  const trusted = options?.trustAnnotations ?? [];
  if (trusted.length === 0) return [];
  const servers = new Set<string>();
  const unqualified: string[] = [];
  for (const tool of tools) {
    const facts = mcpFactsOf(tool);
    if (facts === undefined) continue;
    if (facts.server === undefined) unqualified.push(tool.name);
    else servers.add(facts.server);
  }
  const problems: string[] = [];
  for (const server of trusted) {
    const bad = serverNameProblem(server);
    if (bad !== undefined) problems.push(`mcp.trustAnnotations: ${bad}`);
    else if (!servers.has(server)) {
      const hint = unqualified.length > 0 ? `; MCP tools without a server in their name: ${unqualified.slice(0, 5).join(", ")} (load them with prefixToolNameWithServerName: true, additionalToolNamePrefix: "mcp")` : "";
      problems.push(`mcp.trustAnnotations names the server ${JSON.stringify(server)}, but no tool is named ${PREFIX}${SEPARATOR}${server}${SEPARATOR}TOOL (known servers: ${[...servers].join(", ") || "none"})${hint}`);
    }
  }
  return problems;
}
