import type { Connection } from "@langchain/mcp-adapters";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { GuardConfigError } from "../errors/index.js";
import { MCP_TOOL_NAMING, serverNameProblem } from "./annotations.js";
import { importOptional } from "../optional/index.js";

// Connecting to MCP servers with `@langchain/mcp-adapters` so that their tools reach the guard as it
// reads them: named `mcp__SERVER__TOOL`, with the server's annotations in `metadata.annotations`.

/**
 * The common `mcpServers` configuration (Claude Code's `.mcp.json`, Claude Desktop,
 * `MultiServerMCPClient`): server name → a stdio server (`command`, `args`, `env`) or an HTTP one
 * (`url`, `type`/`transport`: "http" or "sse", `headers`). Each entry is handed to
 * `MultiServerMCPClient` as it is; only the names are checked here.
 */
const McpServersConfigSchema = z.object({
  mcpServers: z.record(z.string(), z.record(z.string(), z.unknown())),
});

export type McpServersConfig = z.infer<typeof McpServersConfigSchema>;

/** The server names of `config`, refusing any that cannot be read back from a tool name. */
function checkedConfig(config: unknown, source: string): McpServersConfig {
  const parsed = McpServersConfigSchema.safeParse(config);
  if (!parsed.success) throw new GuardConfigError(`${source}: expected { "mcpServers": { NAME: { command, args } | { url } } }: ${z.prettifyError(parsed.error)}`);
  const names = Object.keys(parsed.data.mcpServers);
  if (names.length === 0) throw new GuardConfigError(`${source}: mcpServers names no server`);
  for (const name of names) {
    const problem = serverNameProblem(name);
    if (problem !== undefined) throw new GuardConfigError(`${source}: ${problem}`);
  }
  return parsed.data;
}

/** Reads an `mcpServers` JSON file (Claude Code's `.mcp.json` shape). */
export async function readMcpConfig(path: string): Promise<McpServersConfig> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new GuardConfigError(`cannot read the MCP configuration ${path}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    // A leading byte order mark (an editor on Windows writes one) is skipped, as JSON parsers may (RFC 8259 8.1).
    json = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as unknown;
  } catch (error) {
    throw new GuardConfigError(`${path} is not JSON: ${(error as Error).message}`);
  }
  return checkedConfig(json, path);
}

export interface McpTools {
  /** Every tool of every server, named `mcp__SERVER__TOOL`, with the server's annotations in `metadata.annotations`. */
  readonly tools: StructuredToolInterface[];
  /** Closes every connection (stops the stdio servers it started). */
  close(): Promise<void>;
}

/**
 * Connects to the servers of an `mcpServers` configuration (an object, or the path of a JSON file)
 * and loads their tools, named `mcp__SERVER__TOOL` with their annotations, ready for the guard. A
 * server that cannot be reached, or a tool that cannot be loaded, is an error: a guard must not start
 * with a different set of tools than its policy was checked against.
 */
export async function connectMcpTools(config: McpServersConfig | string): Promise<McpTools> {
  const checked = typeof config === "string" ? await readMcpConfig(config) : checkedConfig(config, "mcpServers");
  const { MultiServerMCPClient } = await importOptional("@langchain/mcp-adapters", "MCP tools (connectMcpTools, policy check --mcp)", () => import("@langchain/mcp-adapters"));
  const client = new MultiServerMCPClient({
    // Each entry is validated by MultiServerMCPClient itself (its own schema of Connection).
    mcpServers: checked.mcpServers as Record<string, Connection>,
    ...MCP_TOOL_NAMING,
    throwOnLoadError: true,
    onConnectionError: "throw",
  });
  try {
    const tools = await client.getTools();
    return { tools, close: () => client.close() };
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
}
