import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { MemorySaver } from "@langchain/langgraph";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createFileTool, defaultToolRules } from "../src/builtin/index.js";
import { createGuardedAgent } from "../src/guard/agent.js";
import { inMemoryMemory } from "../src/memory/index.js";
import { ToolRulesEngine } from "../src/rules/engine.js";
import type { ToolRule } from "../src/rules/types.js";
import { FileSource } from "../src/sources/index.js";
import type { ToolDefinition } from "../src/tools/index.js";
import { ToolRegistry } from "../src/tools/index.js";

let base: string;
beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), "gg-agent-files-"));
  mkdirSync(path.join(base, "src"));
  writeFileSync(path.join(base, "src", "app.ts"), "one\n");
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function fileTool() {
  const { memory } = inMemoryMemory({ namespace: ["agent"] });
  const source = new FileSource({ id: "repo", baseDir: base, rules: [{ pattern: "src/**", permission: "read-write" }], memory });
  return createFileTool({ source });
}

const onlyLoadAndAppend: ToolRule = { type: "AllowedOperations", tool: "file", operations: ["load", "append"], id: "file-read-append" };

function operationsShown(definitions: ToolDefinition[]): string[] {
  const parameters = definitions.find((d) => d.function.name === "file")?.function.parameters as { properties: { op: { enum: string[] } } } | undefined;
  return parameters?.properties.op.enum ?? [];
}

describe("AllowedOperations limits the file tool (FileSource permission and agent rules compose)", () => {
  it("the schema shown to the model has only load and append, and the engine refuses a forged delete", () => {
    const tool = fileTool();
    const registry = new ToolRegistry([tool]);
    const engine = new ToolRulesEngine([...defaultToolRules().filter((r) => r.tool === "file"), onlyLoadAndAppend], {
      tools: registry.catalog(),
    });
    const state = engine.initialState();
    const allowed = engine.allowedTools(state, registry.names());
    expect(allowed).toEqual([{ name: "file", operations: ["load", "append"] }]);
    const definitions = registry.definitions(allowed);
    expect(operationsShown(definitions)).toEqual(["load", "append"]);
    expect(operationsShown(registry.definitions())).toEqual(["load", "save", "create", "delete", "append", "replace"]);

    const violation = engine.checkCall(state, { tool: "file", operation: "delete" });
    expect(violation).toMatchObject({ ruleId: "file-read-append", ruleType: "AllowedOperations", tool: "file", operation: "delete" });
    expect(violation?.message).toMatch(/load, append/);
    expect(engine.checkCall(state, { tool: "file", operation: "append" })).toBeNull();
  });

  it("in a guarded agent: the model is never shown save or delete, and its forged delete never reaches the disk", async () => {
    const model = fakeModel()
      .respondWithTools([{ name: "file", args: { op: "delete", path: "src/app.ts" }, id: "forged" }])
      .respondWithTools([{ name: "file", args: { op: "load", path: "src/app.ts" }, id: "ok" }])
      .respond(new AIMessage("done"));
    const shown: ToolDefinition[][] = [];
    const original = model.bindTools.bind(model);
    vi.spyOn(model, "bindTools").mockImplementation((tools) => {
      shown.push(tools as unknown as ToolDefinition[]);
      return original(tools);
    });
    const graph = createGuardedAgent({
      model,
      tools: [fileTool()],
      rules: [...defaultToolRules().filter((r) => r.tool === "file"), onlyLoadAndAppend],
      checkpointer: new MemorySaver(),
    });
    const out = await graph.invoke({ messages: [new HumanMessage("clean up")] }, { configurable: { thread_id: "t1" } });
    expect(shown.length).toBeGreaterThan(0);
    for (const definitions of shown) expect(operationsShown(definitions)).toEqual(["load", "append"]);
    const replies = out.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
    const refusal = replies.find((m) => m.tool_call_id === "forged");
    expect(refusal?.status).toBe("error");
    expect(String(refusal?.content)).toContain("file-read-append");
    expect(existsSync(path.join(base, "src", "app.ts"))).toBe(true);
    expect(readFileSync(path.join(base, "src", "app.ts"), "utf8")).toBe("one\n");
    expect(String(replies.find((m) => m.tool_call_id === "ok")?.content)).toContain("one");
  });
});
