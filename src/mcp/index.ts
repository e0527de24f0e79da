// "guarded-graph/mcp": MCP tools loaded with @langchain/mcp-adapters (an optional peer dependency),
// named mcp__SERVER__TOOL so permission rules can name them, with their annotations as guard defaults.
export { MCP_TOOL_NAMING, parseMcpToolName } from "./annotations.js";
export type { McpOptions } from "./annotations.js";
export { connectMcpTools, readMcpConfig } from "./client.js";
export type { McpServersConfig, McpTools } from "./client.js";
