import { z } from "zod";
import { checkPolicy, planPolicy } from "../../policy/check.js";
import { loadPolicyFile, type LoadedPolicy } from "../../policy/file.js";
import { GRAPH_NAMES } from "../../../graphs/shared.js";
import { MemoryAuditSink } from "../../audit/memory.js";
import { MemorySaver } from "@langchain/langgraph";
import { CliError } from "../errors.js";
import { parseFlags } from "../flags.js";
import type { Output } from "../render.js";
import { buildGraph } from "../session.js";
import { declaredRisks } from "../../guard/from-policy.js";

const checkFlags = z.object({ graph: z.enum(GRAPH_NAMES).optional(), json: z.boolean().optional() });

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
  if (sub !== "check") throw new CliError(`policy: unknown subcommand ${JSON.stringify(sub ?? "")}; use "policy check FILE" or "policy plan FILE"`, 2);
  const { flags, positionals } = parseFlags("policy check", rest, { graph: { type: "string" }, json: { type: "boolean" } }, checkFlags);
  const loaded = await load(positionals[0], output);
  if (!loaded) return 1;
  let catalog;
  let declared;
  if (flags.graph) {
    // The graph's tools, so rules naming a tool or operation that does not exist are errors.
    const ready = await buildGraph(flags.graph, { checkpointer: new MemorySaver(), audit: new MemoryAuditSink(), policy: undefined, threadId: "policy-check" });
    catalog = ready.guard.registry.catalog();
    declared = declaredRisks(ready.guard);
    await ready.close();
  }
  const result = checkPolicy(loaded, catalog, declared);
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
