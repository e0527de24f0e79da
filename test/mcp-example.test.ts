import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runNotes } from "../examples/mcp-notes.js";
import type { ApprovalRequest } from "../src/guard/approval/payload.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function notes(): string {
  const dir = mkdtempSync(join(tmpdir(), "gg-notes-"));
  dirs.push(dir);
  writeFileSync(join(dir, "old.md"), "an old note");
  writeFileSync(join(dir, "pinned-todo.md"), "keep me");
  return dir;
}

const script = () =>
  fakeModel()
    .respondWithTools([
      { name: "mcp__notes__read_note", args: { path: "old.md" }, id: "r1" },
      { name: "mcp__notes__read_note", args: { path: "pinned-todo.md" }, id: "r2" },
    ])
    .respondWithTools([
      { name: "mcp__notes__delete_note", args: { path: "pinned-todo.md" }, id: "d1" },
      { name: "mcp__notes__delete_note", args: { path: "old.md" }, id: "d2" },
    ])
    .respond(new AIMessage("done"));

describe("examples/mcp-notes.ts (a real MCP server over stdio)", () => {
  it("reads run unasked, the pinned delete is denied by its rule, the other delete asks (destructiveHint) and runs once approved", async () => {
    const dir = notes();
    const asked: ApprovalRequest[] = [];
    const messages = await runNotes(script(), dir, (request) => {
      asked.push(request);
      return "approve";
    });
    expect(asked.map((r) => r.actionRequests.map((a) => [a.name, a.args, a.ruleId]))).toEqual([[["mcp__notes__delete_note", { path: "old.md" }, "risk:high"]]]);
    const answers = messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => [m.tool_call_id, m.content]);
    expect(answers).toEqual([
      ["r1", "an old note"],
      ["r2", "keep me"],
      ["d1", "Refused mcp__notes__delete_note by rule permission:keep-pinned: pinned notes stay."],
      ["d2", "deleted old.md"],
    ]);
    expect([existsSync(join(dir, "old.md")), existsSync(join(dir, "pinned-todo.md"))]).toEqual([false, true]);
  }, 90_000);

  it("a rejected delete never reaches the server", async () => {
    const dir = notes();
    await runNotes(script(), dir, () => "reject");
    expect([existsSync(join(dir, "old.md")), existsSync(join(dir, "pinned-todo.md"))]).toEqual([true, true]);
  }, 90_000);
});

describe("docs/mcp.md", () => {
  it("shows examples/mcp-notes.ts as it is", async () => {
    const doc = await readFile(new URL("../docs/mcp.md", import.meta.url), "utf8");
    const example = await readFile(new URL("../examples/mcp-notes.ts", import.meta.url), "utf8");
    expect(doc).toContain(`<!-- example: examples/mcp-notes.ts -->\n\`\`\`ts\n${example}\`\`\``);
  });
});
