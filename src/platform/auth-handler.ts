// "guarded-graph/auth": the API-key auth handler for langgraph.json's `auth.path`
// (`export { auth } from "guarded-graph/auth";`); keys from GUARDED_GRAPH_API_KEYS=alice:KEY,…
import { apiKeyAuth } from "./auth.js";

export const auth = apiKeyAuth();
