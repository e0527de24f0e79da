// "guarded-graph/graphs": the demo graphs as factories (DevOps, ETL, memory) and their sandboxed
// tools. Each factory returns the compiled graph, its guard, policy and audit sink, and close().
export { createDevopsGraph, DEVOPS_POLICY } from "../../graphs/devops.js";
export type { DevopsGraphOptions } from "../../graphs/devops.js";
export { createEtlGraph, ETL_POLICY } from "../../graphs/etl.js";
export type { EtlGraphOptions } from "../../graphs/etl.js";
export { createMemoryGraph } from "../../graphs/memory.js";
export type { MemoryGraphOptions } from "../../graphs/memory.js";
export type { GraphOptions, ReadyGraph } from "../../graphs/shared.js";
export { createDevopsTools, createSandbox, Sandbox } from "../../graphs/tools/devops.js";
export type { SandboxOptions } from "../../graphs/tools/devops.js";
export { createEtlTools, createWarehouse } from "../../graphs/tools/etl.js";
export type { FakeWarehouse } from "../../graphs/tools/etl.js";
