// "guarded-graph/graphs/etl": the ETL demo graph (tool rules from policies/etl.toml) for a
// langgraph.json of your own: `export { graph } from "guarded-graph/graphs/etl";`.
import { createEtlTools, createWarehouse, type FakeWarehouse } from "./tools/etl.js";
import { assembleGraph, bundledPolicy, platformGraph, type GraphOptions, type ReadyGraph } from "./shared.js";

export const ETL_POLICY = bundledPolicy("etl.toml");

export const ETL_SYSTEM_PROMPT = [
  "You are an ETL agent. Connect to the source database, extract, validate and load the requested table,",
  "then close the connection. The guard enforces the order (InitialCall connect_database, MustFollow chain,",
  "Terminal load_warehouse, RequiredForExit close_database).",
].join("\n");

export interface EtlGraphOptions extends GraphOptions {
  /** The in-memory source database and warehouse; default: a fresh demo one. */
  warehouse?: FakeWarehouse;
}

/** The ETL demo agent (connect, extract, validate, load, close) under its tool rules from policies/etl.toml. */
export async function createEtlGraph(options: EtlGraphOptions = {}): Promise<ReadyGraph & { warehouse: FakeWarehouse }> {
  const warehouse = options.warehouse ?? createWarehouse();
  const ready = await assembleGraph({
    name: "etl",
    tools: createEtlTools(warehouse),
    policyPath: options.policy ?? ETL_POLICY,
    scenario: "etl-demo",
    systemPrompt: ETL_SYSTEM_PROMPT,
    options,
  });
  return { ...ready, warehouse };
}

/** For langgraph.json. Policy: GUARDED_GRAPH_POLICY_ETL / GUARDED_GRAPH_POLICY. */
export const graph = platformGraph("etl", ETL_POLICY, (options) => createEtlGraph(options));
