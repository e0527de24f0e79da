/**
 * How MCP tools are named where rules name them: `mcp__SERVER__TOOL`, Claude Code's form, which
 * `@langchain/mcp-adapters` writes with `prefixToolNameWithServerName` and `additionalToolNamePrefix: "mcp"`.
 * A server's name holds no `__`, so a rule on `mcp__SERVER` names every tool of that server, as
 * Claude Code reads it ("`mcp__puppeteer` matches any tool provided by the puppeteer server").
 */

/** The prefix of server-qualified MCP tool names. */
export const MCP_PREFIX = "mcp";
/** Between the prefix, the server and the tool. */
export const MCP_SEPARATOR = "__";

const SERVER_WIDE_RE = /^mcp__(?:(?!__)[^*?[\]{}()!+@|\\])+$/i;

/**
 * `mcp__SERVER` written as a rule's tool (no tool after the server, no glob character): the prefix
 * every tool of that server's name starts with (`mcp__SERVER__`), else undefined.
 */
export function serverWidePrefix(tool: string): string | undefined {
  return SERVER_WIDE_RE.test(tool) ? `${tool}${MCP_SEPARATOR}` : undefined;
}
