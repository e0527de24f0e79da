import { z } from "zod";
import { checkPolicy, planPolicy } from "../../policy/check.js";
import { loadPolicyFile, type LoadedPolicy } from "../../policy/file.js";
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

const checkFlags = z.object({ graph: z.enum(GRAPH_NAMES).optional(), json: z.boolean().optional() });

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
  thread: z.string().optional(),
  db: z.string().min(1).optional(),
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

/** `policy explain FILE --tool T --args JSON [--state JSON] [--risk LEVEL] [--operation OP] [--graph NAME] [--thread ID [--db SPEC]]`: seed 001's debug mode. */
async function explain(argv: string[], output: Output): Promise<number> {
  const { flags, positionals } = parseFlags(
    "policy explain",
    argv,
    { tool: { type: "string" }, args: { type: "string" }, state: { type: "string" }, risk: { type: "string" }, operation: { type: "string" }, graph: { type: "string" }, thread: { type: "string" }, db: { type: "string" } },
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
  if (flags.db !== undefined && flags.thread === undefined) throw new CliError("policy explain: --db names where --thread is read from; give --thread ID", 2);
  const thread = flags.thread === undefined ? undefined : { id: parseThreadId(flags.thread), messages: await threadMessages(parseThreadId(flags.thread), flags.db) };
  output.out(explainDecision(loaded, { tool: flags.tool, args: flags.args, state: flags.state, declaredRisk, operation: flags.operation, tools, thread }));
  return 0;
}

async function load(path: string | undefined, output: Output): Promise<LoadedPolicy | undefined> {
  if (path === undefined) throw new CliError("usage: policy check FILE [--graph devops|etl|memory] | policy plan FILE", 2);
  try {
    return await loadPolicyFile(path);
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
  if (sub !== "check") throw new CliError(`policy: unknown subcommand ${JSON.stringify(sub ?? "")}; use "policy check FILE", "policy plan FILE" or "policy explain FILE --tool T --args JSON"`, 2);
  const { flags, positionals } = parseFlags("policy check", rest, { graph: { type: "string" }, json: { type: "boolean" } }, checkFlags);
  const loaded = await load(positionals[0], output);
  if (!loaded) return 1;
  let catalog;
  let declared;
  let args;
  let schemas;
  if (flags.graph) {
    // The graph's tools, so rules naming a tool or operation that does not exist are errors.
    const ready = await buildGraph(flags.graph, { checkpointer: new MemorySaver(), audit: new MemoryAuditSink(), policy: undefined, threadId: "policy-check" });
    catalog = ready.guard.registry.catalog();
    declared = declaredRisks(ready.guard);
    args = toolArguments(ready.guard);
    schemas = ready.guard.registry.inputSchemas();
    await ready.close();
  }
  const result = checkPolicy(loaded, catalog, declared, args, schemas);
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
