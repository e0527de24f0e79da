// The custom auth handler langgraph.json names (`auth.path`); see src/platform/auth.ts. An installed
// package's users write `export { auth } from "guarded-graph/auth";` in their own auth module.
export { auth } from "../src/platform/auth-handler.js";
