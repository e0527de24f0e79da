// MCP tools in a guarded agent: loaded from a real MCP server, named mcp__notes__TOOL for the rules,
// their annotations as defaults (read_note: read-only, delete_note: destructive).
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { HumanMessage } from "@langchain/core/messages";
import { Command, MemorySaver } from "@langchain/langgraph";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createGuardedAgent, PermissionPolicy, type ApprovalRequest } from "guarded-graph";
import { connectMcpTools } from "guarded-graph/mcp";
import { ScriptedChatModel } from "guarded-graph/testing";

const SERVER = fileURLToPath(new URL("./mcp/notes-server.ts", import.meta.url));

export async function createNotesAgent(model: BaseChatModel, notesDir: string) {
  // Any mcpServers entry works here: { command, args } (stdio) or { type: "http", url }.
  const mcp = await connectMcpTools({
    mcpServers: { notes: { command: process.execPath, args: ["--import", "tsx", SERVER, notesDir] } },
  });
  const agent = createGuardedAgent({
    model,
    tools: mcp.tools, // mcp__notes__read_note, mcp__notes__delete_note
    permissions: new PermissionPolicy([
      { id: "keep-pinned", tool: "mcp__notes__delete_note", where: { path: { glob: "pinned-*" } }, mode: "deny", reason: "pinned notes stay" },
    ]),
    // We run this server ourselves: its readOnlyHint may make read_note low risk and parallel.
    // Without this line its annotations could only make tools stricter.
    mcp: { trustAnnotations: ["notes"] },
    checkpointer: new MemorySaver(),
  });
  return { agent, close: () => mcp.close() };
}

/** Runs one request, answering every approval with `review`. */
export async function runNotes(model: BaseChatModel, notesDir: string, review: (request: ApprovalRequest) => "approve" | "reject") {
  const { agent, close } = await createNotesAgent(model, notesDir);
  try {
    const config = { configurable: { thread_id: "notes" } };
    let result = await agent.invoke({ messages: [new HumanMessage("Clean up my notes")] }, config);
    for (;;) {
      const pending = (result as { __interrupt__?: { value: ApprovalRequest }[] }).__interrupt__?.[0]?.value;
      if (!pending) return result.messages;
      const decisions = pending.actionRequests.map(() => ({ type: review(pending) }));
      result = await agent.invoke(new Command({ resume: { decisions } }), config);
    }
  } finally {
    await close();
  }
}

// Run directly: two reads run together, the pinned note's delete is denied, the other delete asks.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = mkdtempSync(join(tmpdir(), "notes-"));
  writeFileSync(join(dir, "old.md"), "an old note");
  writeFileSync(join(dir, "pinned-todo.md"), "keep me");
  const model = new ScriptedChatModel({
    scenario: {
      name: "mcp-notes",
      turns: [
        { tool_calls: [{ name: "mcp__notes__read_note", args: { path: "old.md" } }, { name: "mcp__notes__read_note", args: { path: "pinned-todo.md" } }] },
        { tool_calls: [{ name: "mcp__notes__delete_note", args: { path: "pinned-todo.md" } }, { name: "mcp__notes__delete_note", args: { path: "old.md" } }] },
        { text: "Deleted old.md; pinned-todo.md is pinned." },
      ],
    },
  });
  const messages = await runNotes(model, dir, (request) => {
    console.log(`asked: ${request.actionRequests.map((a) => a.description).join("; ")}`);
    return "approve";
  });
  for (const message of messages) console.log(`${message.getType()}: ${message.text}`);
}
