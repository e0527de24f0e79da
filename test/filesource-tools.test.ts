import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBuiltinTools, defaultToolRules } from "../src/builtin/index.js";
import { inMemoryMemory, memoryContext, type MemoryStore } from "../src/memory/index.js";
import { ToolRulesEngine } from "../src/rules/engine.js";
import { validateRules } from "../src/rules/validate.js";
import type { ToolRule } from "../src/rules/types.js";
import { FileSource, SourceManager, type FileRule } from "../src/sources/index.js";
import { ToolRegistry } from "../src/tools/index.js";

let base: string;
let memory: MemoryStore;
beforeEach(() => {
  base = realpathSync(mkdtempSync(path.join(tmpdir(), "gg-srctools-")));
  mkdirSync(path.join(base, "src"));
  writeFileSync(path.join(base, "src", "app.ts"), "v1\n");
  memory = inMemoryMemory({ namespace: ["srctools"] }).memory;
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const source = (rules: FileRule[], extra: Partial<ConstructorParameters<typeof FileSource>[0]> = {}) =>
  new FileSource({ id: "repo", baseDir: base, rules, memory, ...extra });

describe("FileSource registers its own file tool when started", () => {
  it("a SourceManager lists it and createBuiltinTools includes it; two sources need two tool names", () => {
    const files = source([{ pattern: "src/**", permission: "read-write" }]);
    const sources = new SourceManager().register(files);
    expect(sources.tools().map((t) => t.name)).toEqual(["file"]);
    expect(sources.tools()[0]).toBe(files.tools()[0]); // one instance
    expect(createBuiltinTools({ memory, sources }).map((t) => t.name)).toEqual(["block", "block_edit", "recall", "source", "file"]);
    const other = new FileSource({ id: "docs", baseDir: base, rules: [], memory });
    expect(() => sources.register(other)).toThrow('source "docs" brings a tool named "file", which another source already registered; give it another tool name');
    sources.register(new FileSource({ id: "docs2", baseDir: base, rules: [], memory, toolName: "docs_file" }));
    expect(sources.tools().map((t) => t.name)).toEqual(["file", "docs_file"]);
  });
});

describe("tool rules derived from the permission rules (seed 002)", () => {
  it.each([
    [[{ pattern: "**", permission: "read-only" }], ["load"]],
    [[{ pattern: "logs/**", permission: "append" }], ["load", "save", "append"]],
    [[{ pattern: "src/**", permission: "read-write" }, { pattern: "**/*.env", permission: "denied" }], ["load", "save", "create", "delete", "append", "replace"]],
    [[{ pattern: "notes/**", permission: "human" }], ["load", "save", "create", "delete", "append", "replace"]],
    [[{ pattern: "**", permission: "denied" }], []],
  ] as [FileRule[], string[]][])("%j → AllowedOperations %j", (rules, operations) => {
    const files = source(rules);
    expect(files.toolRules()).toEqual([
      { type: "ContinueLoop", tool: "file", id: "source:repo:continue" },
      { type: "AllowedOperations", tool: "file", operations, id: "source:repo:allowed-operations" },
    ]);
  });

  it("a read-only source's file tool is shown to the model with load only", () => {
    const files = source([{ pattern: "**", permission: "read-only" }]);
    const registry = new ToolRegistry(files.tools());
    const engine = new ToolRulesEngine(files.toolRules(), { tools: registry.catalog() });
    const allowed = engine.allowedTools(engine.initialState(), registry.names());
    const [definition] = registry.definitions(allowed);
    expect((definition?.function.parameters.properties as { op: { enum: string[] } }).op.enum).toEqual(["load"]);
    expect(Object.keys(definition?.function.parameters.properties as object).sort()).toEqual(["op", "path"]);
  });
});

describe("required tools (seed 000) checked by validateRules", () => {
  it("names a missing tool, and an AllowedOperations rule that leaves out what the source needs", () => {
    const files = source([{ pattern: "src/**", permission: "read-write" }]);
    const sources = new SourceManager().register(files);
    expect(sources.requiredTools()).toEqual([{ source: "repo", tool: "file", operations: ["load", "save"] }]);
    const withFile = new ToolRegistry(createBuiltinTools({ memory, sources })).catalog();
    const withoutFile = new ToolRegistry(createBuiltinTools({ memory })).catalog();
    const codes = (rules: ToolRule[], catalog = withFile) => validateRules(rules, catalog, { required: sources.requiredTools() }).map((i) => `${i.code}: ${i.message}`);
    expect(codes(defaultToolRules().filter((r) => r.tool === "block"))).toEqual([]);
    expect(codes([{ type: "AllowedOperations", tool: "file", operations: ["load"], id: "read-only-agent" }])).toEqual([
      "required-operation-not-allowed: source repo needs file operations load, save; rule read-only-agent allows only load, so save can never run",
    ]);
    expect(codes([], withoutFile)).toEqual([
      "missing-required-tool: source repo needs tool file (operations load, save), which is not registered; known tools: block, block_edit, recall",
    ]);
    // The source's own derived rules satisfy its requirements.
    expect(codes(sources.toolRules())).toEqual([]);
  });
});

describe("reconcile: disk against block, with a stated strategy", () => {
  const file = () => path.join(base, "src", "app.ts");
  async function loaded(files: FileSource) {
    const result = await files.load("src/app.ts");
    return result.label;
  }
  const blockText = async (label: string) => (await memory.requireBlock(label)).content;

  it("in sync; unsaved block edits are saved and an external edit is reloaded under 'safe'", async () => {
    const files = source([{ pattern: "src/**", permission: "read-write" }]);
    const label = await loaded(files);
    expect(await files.reconcile("src/app.ts")).toMatchObject({ state: "in-sync", action: "none" });
    await files.append("src/app.ts", "agent\n");
    expect(await files.reconcile("src/app.ts")).toMatchObject({ state: "block-changed", action: "saved" });
    expect(readFileSync(file(), "utf8")).toBe("v1\nagent\n");
    writeFileSync(file(), "human\n");
    expect(await files.reconcile("src/app.ts")).toMatchObject({ state: "disk-changed", action: "reloaded" });
    expect(await blockText(label)).toBe("human\n");
  });

  it("a conflict changes nothing under 'safe' and 'report'; 'disk' reloads, 'block' overwrites", async () => {
    const files = source([{ pattern: "src/**", permission: "read-write" }]);
    const label = await loaded(files);
    await files.append("src/app.ts", "agent\n");
    writeFileSync(file(), "human\n");
    const refused = await files.reconcile("src/app.ts");
    expect(refused).toMatchObject({ state: "conflict", action: "refused" });
    expect(refused.message).toBe('src/app.ts: both the file on disk and the block changed since the last load or save; reconcile with strategy "disk" (reload) or "block" (overwrite) to settle it');
    expect(await files.reconcile("src/app.ts", "report")).toMatchObject({ state: "conflict", action: "none" });
    expect([readFileSync(file(), "utf8"), await blockText(label)]).toEqual(["human\n", "v1\nagent\n"]);
    expect(await files.reconcile("src/app.ts", "block")).toMatchObject({ action: "saved" });
    expect(readFileSync(file(), "utf8")).toBe("v1\nagent\n");
    await files.append("src/app.ts", "more\n");
    writeFileSync(file(), "human again\n");
    expect(await files.reconcile("src/app.ts", "disk")).toMatchObject({ state: "conflict", action: "reloaded" });
    expect(await blockText(label)).toBe("human again\n");
  });

  it("a deleted file: 'safe' refuses, 'block' writes the block back; 'block' still needs write permission", async () => {
    const files = source([{ pattern: "src/**", permission: "read-write" }]);
    await loaded(files);
    rmSync(file());
    expect(await files.reconcile("src/app.ts")).toMatchObject({ state: "deleted", action: "refused" });
    expect(await files.reconcile("src/app.ts", "block")).toMatchObject({ state: "deleted", action: "saved" });
    expect(readFileSync(file(), "utf8")).toBe("v1\n");
    const readOnly = source([{ pattern: "src/**", permission: "read-only" }]);
    await readOnly.load("src/app.ts");
    writeFileSync(file(), "changed\n");
    await expect(readOnly.reconcile("src/app.ts", "block")).rejects.toThrow(/file save refused for "src\/app.ts".*read-only/);
    expect(readFileSync(file(), "utf8")).toBe("changed\n");
  });
});

describe("source notifications reach the model's context", () => {
  it("an external edit of a watched file appears once in the next model step's context", async () => {
    const files = source([{ pattern: "src/**", permission: "read-write" }], { watch: { debounceMs: 20 } });
    const sources = new SourceManager().register(files);
    const context = memoryContext({ memory, sources });
    await files.load("src/app.ts");
    writeFileSync(path.join(base, "src", "app.ts"), "edited by a human\n");
    for (let i = 0; i < 250 && sources.pendingNotifications === 0; i += 1) await new Promise((r) => setTimeout(r, 20));
    const first = await context();
    expect(first).toMatch(/<source_notifications>\n- \[repo\] .* file-modified: src\/app.ts changed outside the agent; use file load to refresh block file:[0-9a-f]{8}:src\/app.ts before saving\n<\/source_notifications>/);
    expect(await context()).not.toContain("source_notifications");
    await sources.close();
  });
});
