// "guarded-graph/platform": serve a graph of your own tools and policy file with LangGraph Platform
// or `langgraph dev` (langgraph.json), and the API-key auth handler. `npx guarded-graph init` writes both.
export { servedGraph, servedAuditSpec } from "./serve.js";
export type { ServedGraph, ServedGraphOptions } from "./serve.js";
export { apiKeyAuth } from "./auth.js";
