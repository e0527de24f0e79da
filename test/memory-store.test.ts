import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MemoryError, type MemoryBackend, type MemoryStore } from "../src/memory/index.js";
import { LOCAL_BACKENDS } from "./helpers/memory-backends.js";

describe.each(LOCAL_BACKENDS)("MemoryStore on $name", ({ open }) => {
  let backend: MemoryBackend;
  let memory: MemoryStore;
  beforeEach(() => {
    backend = open();
    memory = backend.memory;
  });
  afterEach(async () => backend.close());

  it("creates, reads, lists and deletes blocks, refusing a taken label", async () => {
    await memory.createBlock({ label: "persona", content: "I am helpful.", type: "core", pinned: true });
    await memory.createBlock({ label: "todo", schema: { kind: "list" } });
    const persona = await memory.requireBlock("persona");
    expect(persona).toMatchObject({ label: "persona", content: "I am helpful.", type: "core", pinned: true, permission: "read-write", version: 0 });
    expect((await memory.requireBlock("todo")).content).toEqual([]);
    await expect(memory.createBlock({ label: "persona" })).rejects.toThrow(/already exists/);
    expect((await memory.listBlocks()).map((b) => b.label)).toEqual(["persona", "todo"]);
    expect((await memory.listBlocks({ type: "core" })).map((b) => b.label)).toEqual(["persona"]);
    await memory.deleteBlock("todo");
    expect(await memory.getBlock("todo")).toBeUndefined();
    await expect(memory.requireBlock("todo")).rejects.toThrow(/no block labelled "todo"/);
  });

  it("refuses content that does not match the schema", async () => {
    await expect(memory.createBlock({ label: "x", schema: { kind: "list" }, content: "text" })).rejects.toThrow(/list of strings/);
    await expect(
      memory.createBlock({ label: "y", schema: { kind: "composite", fields: [{ name: "name", kind: "text" }] }, content: { name: 3 } }),
    ).rejects.toThrow(/field "name" is text/);
  });

  it("applies each edit only to the schemas that accept it", async () => {
    await memory.createBlock({ label: "notes", content: "line one" });
    await memory.createBlock({ label: "items", schema: { kind: "list" } });
    await memory.createBlock({ label: "prefs", schema: { kind: "map" } });
    expect((await memory.editBlock("notes", { kind: "append", content: "line two" })).content).toBe("line one\nline two");
    expect((await memory.editBlock("items", { kind: "append", content: "milk" })).content).toEqual(["milk"]);
    expect((await memory.editBlock("notes", { kind: "replace", old: "one", new: "1" })).content).toBe("line 1\nline two");
    expect((await memory.editBlock("prefs", { kind: "set_field", field: "theme", value: "dark" })).content).toEqual({ theme: "dark" });
    await expect(memory.editBlock("items", { kind: "replace", old: "milk", new: "tea" })).rejects.toThrow(/schema is list, which accepts append/);
    await expect(memory.editBlock("prefs", { kind: "append", content: "x" })).rejects.toThrow(/schema is map, which accepts set_field/);
    await expect(memory.editBlock("notes", { kind: "set_field", field: "a", value: 1 })).rejects.toThrow(/schema is text/);
  });

  it("replace needs exactly one occurrence; patch applies a unified diff or names why not", async () => {
    await memory.createBlock({ label: "doc", content: "a\nb\na\n" });
    await expect(memory.editBlock("doc", { kind: "replace", old: "a", new: "z" })).rejects.toThrow(/more than once/);
    await expect(memory.editBlock("doc", { kind: "replace", old: "q", new: "z" })).rejects.toThrow(/not found/);
    const patch = "--- doc\n+++ doc\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n a\n";
    expect((await memory.editBlock("doc", { kind: "patch", patch })).content).toBe("a\nB\na\n");
    await expect(memory.editBlock("doc", { kind: "patch", patch })).rejects.toThrow(/do not match the current content/);
  });

  it("enforces permission levels", async () => {
    await memory.createBlock({ label: "ro", content: "fixed", permission: "read-only" });
    await memory.createBlock({ label: "log", content: "start", permission: "append" });
    await memory.createBlock({ label: "owner", content: "x", permission: "human" });
    await memory.createBlock({ label: "pair", content: "x", permission: "partner" });
    const refusal = await memory.editBlock("ro", { kind: "append", content: "more" }).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(MemoryError);
    expect((refusal as MemoryError).rule).toBe("permission:read-only");
    expect((refusal as MemoryError).message).toMatch(/permission is read-only/);
    expect((await memory.editBlock("log", { kind: "append", content: "next" })).content).toBe("start\nnext");
    await expect(memory.editBlock("log", { kind: "replace", old: "start", new: "s" })).rejects.toThrow(/only append is allowed/);
    // Consent levels: the edit is allowed (the guard asks first), and editConsent names the party.
    expect(await memory.editConsent("owner", { kind: "replace" })).toMatch(/needs a human's consent/);
    expect(await memory.editConsent("pair", { kind: "append" })).toMatch(/needs the partner's consent/);
    expect(await memory.editConsent("log", { kind: "append" })).toBeUndefined();
    expect(await memory.editConsent("ro", { kind: "append" })).toBeUndefined();
    expect((await memory.editBlock("owner", { kind: "replace", old: "x", new: "y" })).content).toBe("y");
  });

  it("respects read_only fields of Composite and Map blocks, except for admin", async () => {
    const schema = {
      kind: "composite" as const,
      fields: [
        { name: "name", kind: "text" as const, readOnly: true },
        { name: "tags", kind: "list" as const },
      ],
    };
    await memory.createBlock({ label: "profile", schema, content: { name: "Ada", tags: [] } });
    await expect(memory.editBlock("profile", { kind: "set_field", field: "name", value: "Bob" })).rejects.toThrow(/field "name" is read_only/);
    await expect(memory.editBlock("profile", { kind: "set_field", field: "age", value: 3 })).rejects.toThrow(/no field "age"/);
    await expect(memory.editBlock("profile", { kind: "set_field", field: "tags", value: "x" })).rejects.toThrow(/field "tags" is list/);
    expect((await memory.editBlock("profile", { kind: "set_field", field: "tags", value: ["a"] })).content).toEqual({ name: "Ada", tags: ["a"] });
    await memory.createBlock({ label: "cfg", schema: { kind: "map", readOnlyKeys: ["id"] }, content: { id: 1 } });
    await expect(memory.editBlock("cfg", { kind: "set_field", field: "id", value: 2 })).rejects.toThrow(/read_only/);
    await memory.createBlock({ label: "root", schema, content: { name: "Ada", tags: [] }, permission: "admin" });
    expect((await memory.editBlock("root", { kind: "set_field", field: "name", value: "Bob" })).content).toMatchObject({ name: "Bob" });
  });

  it("pins, changes type and merges metadata", async () => {
    await memory.createBlock({ label: "w", content: "x" });
    expect((await memory.setPinned("w", true)).pinned).toBe(true);
    expect((await memory.setType("w", "archival")).type).toBe("archival");
    const updated = await memory.setMetadata("w", { source: "test" });
    expect(updated.metadata).toEqual({ source: "test" });
    expect(updated.version).toBe(3);
  });

  it("ranks archival search by relevance and keeps entries immutable", async () => {
    await memory.insertArchival({ content: "The user likes green tea in the morning" });
    await memory.insertArchival({ content: "Tea tea tea: the user drinks tea all day, tea is life", label: "tea habits" });
    await memory.insertArchival({ content: "The deploy pipeline runs on Fridays" });
    const hits = await memory.searchArchival("tea");
    expect(hits.map((h) => h.content)).toEqual([
      "Tea tea tea: the user drinks tea all day, tea is life",
      "The user likes green tea in the morning",
    ]);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    expect(hits[0]!.label).toBe("tea habits");
    expect(await memory.searchArchival("pipeline fridays", { limit: 1 })).toHaveLength(1);
    expect(await memory.searchArchival("coffee")).toEqual([]);
    expect(await memory.searchArchival("!!! ***")).toEqual([]);
    const entry = await memory.getArchival(hits[0]!.id);
    expect(entry?.content).toBe(hits[0]!.content);
    // No update or delete exists on the API.
    expect(Object.keys(Object.getPrototypeOf(memory.archival!))).not.toContain("delete");
    expect("update" in memory.archival! || "delete" in memory.archival!).toBe(false);
  });

  it("keeps archival entries of different namespaces apart", async () => {
    await memory.insertArchival({ content: "secret plan alpha" });
    const other = await memory.archival!.search(["memory", "agent-2"], "alpha");
    expect(other).toEqual([]);
    expect(await memory.archival!.count(["memory", "agent-1"])).toBe(1);
  });
});

describe("SQLite persistence", () => {
  it("keeps blocks and archival entries after close and reopen", async () => {
    const backend = LOCAL_BACKENDS[1]!.open();
    await backend.memory.createBlock({ label: "persona", content: "persistent", permission: "human" });
    await backend.memory.insertArchival({ content: "remember the blue door" });
    const reopened = backend.reopen!();
    try {
      expect((await reopened.memory.requireBlock("persona")).content).toBe("persistent");
      expect((await reopened.memory.searchArchival("door")).map((h) => h.content)).toEqual(["remember the blue door"]);
    } finally {
      await reopened.close();
      await backend.close();
    }
  });

  it("refuses UPDATE and DELETE of archival rows in the database itself", async () => {
    const { openSqliteMemory } = await import("../src/memory/index.js");
    const backend = openSqliteMemory({ path: ":memory:", namespace: ["m"] });
    await backend.memory.insertArchival({ content: "immutable" });
    expect(() => backend.store.db.prepare("UPDATE archival_entries SET content = 'x'").run()).toThrow(/immutable/);
    expect(() => backend.store.db.prepare("DELETE FROM archival_entries").run()).toThrow(/immutable/);
    // The FTS index is real: the MATCH query plan uses the virtual table.
    const plan = backend.store.db.prepare("EXPLAIN QUERY PLAN SELECT rowid FROM archival_entries_fts WHERE archival_entries_fts MATCH 'immutable'").all();
    expect(JSON.stringify(plan)).toMatch(/VIRTUAL TABLE INDEX/);
    await backend.close();
  });
});
