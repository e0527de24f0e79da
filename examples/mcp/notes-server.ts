// A small MCP server (official TypeScript SDK) over a notes folder: a read-only tool and a
// destructive one, each annotated. Run: node --import tsx examples/mcp/notes-server.ts DIR (stdio).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { readFileSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import { z } from "zod";

const dir = process.argv[2] ?? ".";
const server = new McpServer({ name: "notes", version: "1.0.0" });

server.registerTool(
  "read_note",
  { description: "Read a note", inputSchema: { path: z.string() }, annotations: { readOnlyHint: true } },
  ({ path }) => ({ content: [{ type: "text", text: readFileSync(join(dir, basename(path)), "utf8") }] }),
);

server.registerTool(
  "delete_note",
  { description: "Delete a note", inputSchema: { path: z.string() }, annotations: { destructiveHint: true } },
  ({ path }) => {
    rmSync(join(dir, basename(path)));
    return { content: [{ type: "text", text: `deleted ${basename(path)}` }] };
  },
);

await server.connect(new StdioServerTransport());
