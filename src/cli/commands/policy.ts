import { z } from "zod";
import { checkPolicy, planPolicy } from "../../policy/check.js";
import { loadPolicyPath, type LoadedPolicy } from "../../policy/file.js";
import { GRAPH_NAMES } from "../../../graphs/shared.js";
import { MemoryAuditSink } from "../../audit/memory.js";
import { MemorySaver } from "@langchain/langgraph";
import { CliError } from "../errors.js";
import { parseFlags } from "../flags.js";
import type { Output } from "../render.js";
import { buildGraph, parseThreadId, withSession } from "../session.js";
import { isBaseMessage, type BaseMessage } from "@langchain/core/messages";
import { declaredRisks, toolArguments } from "../../guard/from-policy.js";
import { explainDecision, ExplainStateSchema } from "../../policy/explain.js";
import { RiskLevelSchema } from "../../policy/schema.js";
import type { RiskLevel } from "../../tools/types.js";
import type { ToolInputSchema } from "../../rules/validate.js";
import { mcpToolFacts, type ToolFacts } from "../../mcp/check.js";
import { connectMcpTools } from "../../mcp/client.js";
import { REPLAY_USAGE, replayCommand } from "./replay.js";
import { principalOf } from "../../principal/principal.js";

/**
 * Connects to the MCP servers of `config` (an mcpServers JSON file), hands their tools' facts to
 * `known`, and returns the errors only MCP facts show. `@langchain/mcp-adapters` is an optional peer
 * dependency, loaded by connectMcpTools (its absence is reported by name).
 */
async function withMcpTools(config: string, loaded: LoadedPolicy, known: (facts: ToolFacts) => void): Promise<string[]> {
  let mcp;
  try {
    mcp = await connectMcpTools(config);
  } catch (error) {
    throw new CliError(`policy check --mcp ${config}: ${(error as Error).message}`, 1);
  }
  try {
    const facts = mcpToolFacts(mcp.tools, loaded);
    known(facts);
    return facts.errors;
  } finally {
    await mcp.close();
  }
}

const checkFlags = z.object({ graph: z.enum(GRAPH_NAMES).optional(), mcp: z.string().min(1).optional(), json: z.boolean().optional() });

function jsonFlag(name: string) {
  return z.string().transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      ctx.addIssue({ code: "custom", message: `${name} is not JSON (${(error as Error).message.slice(0, 120)})` });
      return z.NEVER;
    }
  });
}

const explainFlags = z.object({
  tool: z.string().min(1),
  args: jsonFlag("--args").default({}),
  state: jsonFlag("--state").pipe(ExplainStateSchema).optional(),
  risk: RiskLevelSchema.optional(),
  operation: z.string().min(1).optional(),
  graph: z.enum(GRAPH_NAMES).optional(),
  mcp: z.string().min(1).optional(),
  thread: z.string().optional(),
  db: z.string().min(1).optional(),
  user: jsonFlag("--user").optional(),
  configurable: jsonFlag("--configurable").pipe(z.record(z.string(), z.unknown())).optional(),
});

/** The messages of a thread's latest checkpoint (the source of truth provenance is computed from). */
async function threadMessages(threadId: string, db: string | undefined): Promise<BaseMessage[]> {
  return withSession({ db }, async (session) => {
    const tuple = await session.checkpointer.getTuple({ configurable: { thread_id: threadId } });
    if (tuple === undefined) throw new CliError(`policy explain: no checkpoint for thread ${JSON.stringify(threadId)} in ${session.spec}`, 1);
    const messages = (tuple.checkpoint.channel_values as { messages?: unknown }).messages;
    if (!Array.isArray(messages)) throw new CliError(`policy explain: thread ${JSON.stringify(threadId)} has no messages channel`, 1);
    return messages.filter((m): m is BaseMessage => isBaseMessage(m));
  });
}

/** `policy explain FILE --tool T --args JSON [--state JSON] [--risk LEVEL] [--operation OP] [--graph NAME] [--mcp CONFIG] [--thread ID [--db SPEC]] [--user JSON] [--configurable JSON]`: seed 001's debug mode. */
async function explain(argv: string[], output: Output): Promise<number> {
  const { flags, positionals } = parseFlags(
    "policy explain",
    argv,
    { tool: { type: "string" }, args: { type: "string" }, state: { type: "string" }, risk: { type: "string" }, operation: { type: "string" }, graph: { type: "string" }, mcp: { type: "string" }, thread: { type: "string" }, db: { type: "string" }, user: { type: "string" }, configurable: { type: "string" } },
    explainFlags,
  );
  const loaded = await load(positionals[0], output);
  if (!loaded) return 1;
  let tools;
  let declaredRisk = flags.risk;
  if (flags.graph) {
    const ready = await buildGraph(flags.graph, { checkpointer: new MemorySaver(), audit: new MemoryAuditSink(), policy: undefined, threadId: "policy-explain" });
    tools = ready.guard.registry.catalog();
    const operation = flags.operation ?? (typeof (flags.args as { operation?: unknown } | null)?.operation === "string" ? (flags.args as { operation: string }).operation : undefined);
    declaredRisk ??= ready.guard.declaredRisk(flags.tool, operation);
    await ready.close();
  }
  if (flags.mcp !== undefined) {
    // The MCP servers' tools: the risk their annotations give under the policy's mcp.trustAnnotations.
    let facts: ToolFacts | undefined;
    await withMcpTools(flags.mcp, loaded, (known) => {
      facts = known;
    });
    if (facts !== undefined) {
      tools = new Map([...(tools ?? []), ...facts.catalog]);
      declaredRisk ??= facts.declared.get(flags.tool)?.risk;
    }
  }
  if (flags.db !== undefined && flags.thread === undefined) throw new CliError("policy explain: --db names where --thread is read from; give --thread ID", 2);
  const thread = flags.thread === undefined ? undefined : { id: parseThreadId(flags.thread), messages: await threadMessages(parseThreadId(flags.thread), flags.db) };
  // --user: the authenticated user as an auth handler returns it ({ identity, permissions, metadata }).
  const principal = flags.user === undefined && flags.configurable === undefined ? undefined : principalOf({ configurable: { ...flags.configurable, ...(flags.user === undefined ? {} : { langgraph_auth_user: flags.user }) } });
  output.out(explainDecision(loaded, { tool: flags.tool, args: flags.args, state: flags.state, declaredRisk, operation: flags.operation, tools, thread, principal }));
  return 0;
}

async function load(path: string | undefined, output: Output): Promise<LoadedPolicy | undefined> {
  if (path === undefined) throw new CliError("usage: policy check FILE [--graph devops|etl|memory] [--mcp CONFIG] | policy plan FILE", 2);
  try {
    return await loadPolicyPath(path);
  } catch (error) {
    output.err(`✗ ${path}: ${(error as Error).message}`);
    return undefined;
  }
}

/** `policy check FILE` (exit 0 when it can work, 1 on errors) and `policy plan FILE`. */
export async function policyCommand(argv: string[], output: Output): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "plan") {
    const { positionals } = parseFlags("policy plan", rest, {}, z.object({}));
    const loaded = await load(positionals[0], output);
    if (!loaded) return 1;
    output.out(planPolicy(loaded));
    return 0;
  }
  if (sub === "explain") return explain(rest, output);
  if (sub === "replay") return replayCommand(rest, output);
  if (sub !== "check") throw new CliError(`policy: unknown subcommand ${JSON.stringify(sub ?? "")}; use "policy check FILE", "policy plan FILE", "policy explain FILE --tool T --args JSON" or "${REPLAY_USAGE}"`, 2);
  const { flags, positionals } = parseFlags("policy check", rest, { graph: { type: "string" }, mcp: { type: "string" }, json: { type: "boolean" } }, checkFlags);
  const loaded = await load(positionals[0], output);
  if (!loaded) return 1;
  let catalog: Map<string, readonly string[]> | undefined;
  let declared: Map<string, { risk: RiskLevel | undefined; operationRisk: Readonly<Record<string, RiskLevel>> }> | undefined;
  let args: Map<string, readonly string[]> | undefined;
  let schemas: Map<string, ToolInputSchema> | undefined;
  const known = (more: ToolFacts) => {
    catalog = new Map([...(catalog ?? []), ...more.catalog]);
    declared = new Map([...(declared ?? []), ...more.declared]);
    args = new Map([...(args ?? []), ...more.toolArguments]);
    schemas = new Map([...(schemas ?? []), ...more.schemas]);
  };
  if (flags.graph) {
    // The graph's tools, so rules naming a tool or operation that does not exist are errors.
    const ready = await buildGraph(flags.graph, { checkpointer: new MemorySaver(), audit: new MemoryAuditSink(), policy: undefined, threadId: "policy-check" });
    known({ catalog: ready.guard.registry.catalog(), declared: new Map(declaredRisks(ready.guard)), toolArguments: new Map(toolArguments(ready.guard)), schemas: ready.guard.registry.inputSchemas(), errors: [] });
    await ready.close();
  }
  // The tools of the configured MCP servers (connected to and listed now), named mcp__SERVER__TOOL.
  const mcpErrors = flags.mcp === undefined ? [] : await withMcpTools(flags.mcp, loaded, known);
  const result = checkPolicy(loaded, catalog, declared, args, schemas);
  result.errors.push(...mcpErrors);
  if (loaded.shadow !== undefined) {
    // The shadow policy (`shadow: FILE`) is checked against the same tools: a rule that never fires shadows nothing.
    const shadow = checkPolicy(loaded.shadow, catalog, declared, args, schemas);
    const named = (line: string) => `shadow policy ${loaded.shadow?.source}: ${line}`;
    result.errors.push(...shadow.errors.map(named));
    result.warnings.push(...shadow.warnings.map(named));
  }
  if (flags.json) {
    output.out(JSON.stringify({ file: loaded.source, ...result }, null, 2));
  } else {
    for (const reading of result.readings) output.out(`read: ${reading}`);
    for (const error of result.errors) output.out(`error: ${error}`);
    for (const warning of result.warnings) output.out(`warning: ${warning}`);
    output.out(
      result.errors.length > 0
        ? `✗ ${loaded.source}: ${result.errors.length} error(s), ${result.warnings.length} warning(s)`
        : `✓ ${loaded.source}: no errors, ${result.warnings.length} warning(s)`,
    );
  }
  return result.errors.length > 0 ? 1 : 0;
}
