import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createBlockEditTool,
  createBlockTool,
  createContextTool,
  createRecallTool,
  createSearchTool,
  createSendMessageTool,
  createSourceTool,
  defaultToolRules,
  InMemoryConversationLog,
  MessageRouter,
  OutboxChannel,
  renderToolUsageRules,
} from "../src/builtin/index.js";
import type { MemoryBackend, MemoryStore } from "../src/memory/index.js";
import { SourceManager } from "../src/sources/index.js";
import type { DataSource, SourceStatus } from "../src/sources/index.js";
import { LOCAL_BACKENDS } from "./helpers/memory-backends.js";
import { callTool, callToolJson } from "./helpers/tool-call.js";

/** A stream source for the source tool: counts pause/resume and reports its state. */
class FakeStream implements DataSource {
  paused = false;
  constructor(readonly id: string) {}
  kind() {
    return "stream" as const;
  }
  status(): SourceStatus {
    return { id: this.id, kind: "stream", description: "test stream", state: this.paused ? "paused" : "active", details: {} };
  }
  pause() {
    this.paused = true;
  }
  resume() {
    this.paused = false;
  }
  async loadBlock(reference: string) {
    return { label: `stream:${reference}`, summary: "" };
  }
}

describe.each(LOCAL_BACKENDS)("built-in tools on $name", ({ open }) => {
  let backend: MemoryBackend;
  let memory: MemoryStore;
  beforeEach(() => {
    backend = open();
    memory = backend.memory;
  });
  afterEach(async () => backend.close());

  describe("block", () => {
    it("load returns the block and brings an Archival block back to Working", async () => {
      const tool = createBlockTool({ memory });
      await memory.createBlock({ label: "notes", content: "hello", type: "archival" });
      const view = await callToolJson(tool, { op: "load", label: "notes" });
      expect(view).toMatchObject({ label: "notes", content: "hello", type: "working" });
      expect((await memory.requireBlock("notes")).type).toBe("working");
      await expect(callTool(tool, { op: "load", label: "missing" })).rejects.toThrow(/no block labelled "missing"/);
    });

    it("load with source_id delegates to the source", async () => {
      const sources = new SourceManager().register(new FakeStream("feed"));
      const tool = createBlockTool({ memory, sources });
      await memory.createBlock({ label: "stream:item-1", content: "from the stream" });
      expect(await callToolJson(tool, { op: "load", label: "item-1", source_id: "feed" })).toMatchObject({ content: "from the stream" });
      await expect(callTool(tool, { op: "load", label: "x", source_id: "nope" })).rejects.toThrow(/no source "nope"; registered sources: feed/);
    });

    it("pin and unpin", async () => {
      const tool = createBlockTool({ memory });
      await memory.createBlock({ label: "b" });
      expect(await callTool(tool, { op: "pin", label: "b" })).toMatch(/pinned/);
      expect((await memory.requireBlock("b")).pinned).toBe(true);
      expect(await callTool(tool, { op: "unpin", label: "b" })).toMatch(/unpinned/);
      expect((await memory.requireBlock("b")).pinned).toBe(false);
    });

    it("archive changes Working to Archival only, respecting permission and asking for consent", async () => {
      const tool = createBlockTool({ memory });
      await memory.createBlock({ label: "w" });
      await memory.createBlock({ label: "c", type: "core" });
      await memory.createBlock({ label: "ro", permission: "read-only" });
      await memory.createBlock({ label: "h", permission: "human" });
      expect(await callTool(tool, { op: "archive", label: "w" })).toMatch(/archived/);
      expect((await memory.requireBlock("w")).type).toBe("archival");
      await expect(callTool(tool, { op: "archive", label: "c" })).rejects.toThrow(/it is core; only Working blocks/);
      await expect(callTool(tool, { op: "archive", label: "ro" })).rejects.toThrow(/permission is read-only/);
      expect(await tool.guard.requiresApproval?.({ op: "archive", label: "h" }, undefined)).toMatch(/human's consent/);
      expect(await tool.guard.requiresApproval?.({ op: "archive", label: "ro" }, undefined)).toBeUndefined();
      expect(await tool.guard.requiresApproval?.({ op: "pin", label: "h" }, undefined)).toBeUndefined();
    });

    it("info shows schema, type, permission, size and pinned, and is the only concurrency-safe op", async () => {
      const tool = createBlockTool({ memory });
      await memory.createBlock({ label: "i", content: "12345", permission: "append", pinned: true });
      const info = await callToolJson(tool, { op: "info", label: "i" });
      expect(info).toMatchObject({ label: "i", schema: { kind: "text" }, type: "working", permission: "append", size: 5, pinned: true });
      expect(info.permissionMeans).toBe("append only");
      expect(tool.guard.isConcurrencySafe({ op: "info", label: "i" })).toBe(true);
      expect(tool.guard.isConcurrencySafe({ op: "pin", label: "i" })).toBe(false);
      expect(tool.guard.operations).toEqual(["load", "pin", "unpin", "archive", "info"]);
    });
  });

  describe("block_edit", () => {
    it("append, replace, patch and set_field each change the block", async () => {
      const tool = createBlockEditTool({ memory });
      await memory.createBlock({ label: "t", content: "alpha" });
      await memory.createBlock({ label: "m", schema: { kind: "map" } });
      expect(await callToolJson(tool, { op: "append", label: "t", content: "beta" })).toMatchObject({ content: "alpha\nbeta" });
      expect(await callToolJson(tool, { op: "replace", label: "t", old: "beta", new: "gamma" })).toMatchObject({ content: "alpha\ngamma" });
      const patch = "--- t\n+++ t\n@@ -1,2 +1,2 @@\n-alpha\n+ALPHA\n gamma\n";
      expect(await callToolJson(tool, { op: "patch", label: "t", patch })).toMatchObject({ content: "ALPHA\ngamma" });
      expect(await callToolJson(tool, { op: "set_field", label: "m", field: "lang", value: { primary: "en" } })).toMatchObject({
        content: JSON.stringify({ lang: { primary: "en" } }, null, 2),
      });
      expect((await memory.requireBlock("m")).content).toEqual({ lang: { primary: "en" } });
    });

    it("refuses edits the permission or schema does not allow, and a patch that does not apply", async () => {
      const tool = createBlockEditTool({ memory });
      await memory.createBlock({ label: "ro", content: "x", permission: "read-only" });
      await memory.createBlock({ label: "ap", content: "x", permission: "append" });
      await memory.createBlock({ label: "l", schema: { kind: "list" } });
      await expect(callTool(tool, { op: "append", label: "ro", content: "y" })).rejects.toThrow(/permission is read-only/);
      await expect(callTool(tool, { op: "replace", label: "ap", old: "x", new: "y" })).rejects.toThrow(/only append is allowed/);
      await expect(callTool(tool, { op: "set_field", label: "l", field: "a", value: 1 })).rejects.toThrow(/schema is list/);
      await expect(callTool(tool, { op: "patch", label: "ap", patch: "--- a\n+++ a\n@@ -1 +1 @@\n-x\n+y\n" })).rejects.toThrow(/only append/);
      await memory.createBlock({ label: "t", content: "one\n" });
      await expect(callTool(tool, { op: "patch", label: "t", patch: "--- a\n+++ a\n@@ -1 +1 @@\n-two\n+three\n" })).rejects.toThrow(
        /do not match the current content/,
      );
      await expect(callTool(tool, { op: "patch", label: "t", patch: "@@ nonsense" })).rejects.toThrow(/patch refused/);
    });

    it("asks for consent on human and partner blocks only, without editing", async () => {
      const tool = createBlockEditTool({ memory });
      await memory.createBlock({ label: "h", content: "x", permission: "human" });
      await memory.createBlock({ label: "p", content: "x", permission: "partner" });
      await memory.createBlock({ label: "rw", content: "x" });
      expect(await tool.guard.requiresApproval?.({ op: "append", label: "h", content: "y" }, undefined)).toMatch(/block_edit append on block "h" needs a human's consent/);
      expect(await tool.guard.requiresApproval?.({ op: "replace", label: "p", old: "x", new: "y" }, undefined)).toMatch(/partner's consent/);
      expect(await tool.guard.requiresApproval?.({ op: "append", label: "rw", content: "y" }, undefined)).toBeUndefined();
      expect((await memory.requireBlock("h")).content).toBe("x");
      // Once the guard approved, the edit runs.
      expect(await callToolJson(tool, { op: "append", label: "h", content: "y" })).toMatchObject({ content: "x\ny" });
    });

    it("refuses a set_field on a read_only field", async () => {
      const tool = createBlockEditTool({ memory });
      await memory.createBlock({
        label: "c",
        schema: { kind: "composite", fields: [{ name: "id", kind: "text", readOnly: true }, { name: "bio", kind: "text" }] },
        content: { id: "u1", bio: "" },
      });
      await expect(callTool(tool, { op: "set_field", label: "c", field: "id", value: "u2" })).rejects.toThrow(/field "id" is read_only/);
      expect(await callToolJson(tool, { op: "set_field", label: "c", field: "bio", value: "hi" })).toMatchObject({ op: "set_field" });
    });
  });

  describe("recall", () => {
    it("insert then search, ranked; search is concurrency-safe", async () => {
      const tool = createRecallTool({ memory });
      const inserted = await callToolJson<{ inserted: string }>(tool, { op: "insert", content: "Alice prefers email over phone", metadata: { topic: "contact" } });
      expect(inserted.inserted).toMatch(/[0-9a-f-]{36}/);
      await callTool(tool, { op: "insert", content: "Bob prefers phone calls", label: "bob" });
      const hits = await callToolJson<{ content: string; metadata: unknown; score: number }[]>(tool, { op: "search", query: "email alice", limit: 5 });
      expect(hits[0]).toMatchObject({ content: "Alice prefers email over phone", metadata: { topic: "contact" } });
      expect(hits).toHaveLength(1);
      expect(tool.guard.isConcurrencySafe({ op: "search", query: "x" })).toBe(true);
      expect(tool.guard.isConcurrencySafe({ op: "insert", content: "x" })).toBe(false);
      await expect(callTool(tool, { op: "search", query: "x", limit: 1000 })).rejects.toThrow();
    });
  });

  describe("superseded context tool", () => {
    it("append, replace, archive, load_from_archival and swap", async () => {
      const tool = createContextTool({ memory });
      expect(tool.description).toMatch(/Superseded/);
      await memory.createBlock({ label: "human", content: "Name: Ada", type: "core" });
      await memory.createBlock({ label: "old", content: "old facts", type: "archival" });
      expect(await callToolJson(tool, { operation: "append", label: "human", value: "Likes tea" })).toMatchObject({ content: "Name: Ada\nLikes tea" });
      expect(await callToolJson(tool, { operation: "replace", label: "human", old: "tea", new: "coffee" })).toMatchObject({
        content: "Name: Ada\nLikes coffee",
      });
      expect(await callTool(tool, { operation: "archive", label: "human" })).toMatch(/archived/);
      expect((await memory.requireBlock("human")).type).toBe("archival");
      expect(await callToolJson(tool, { operation: "load_from_archival", label: "human" })).toMatchObject({ type: "core" });
      const swapped = await callToolJson(tool, { operation: "swap", archive: "human", load: "old" });
      expect(swapped).toMatchObject({ archived: "human", loaded: { label: "old", type: "core" } });
      expect((await memory.requireBlock("human")).type).toBe("archival");
      // A refused swap changes nothing.
      await expect(callTool(tool, { operation: "swap", archive: "old", load: "old" })).rejects.toThrow(/not archival/);
      expect((await memory.requireBlock("old")).type).toBe("core");
      expect(tool.guard.operationKey).toBe("operation");
    });
  });

  describe("superseded search tool", () => {
    it("searches archival memory, conversations and all, with limit and filters", async () => {
      const conversations = new InMemoryConversationLog();
      await conversations.add({ id: "m1", role: "user", content: "what is the wifi password", at: Date.parse("2025-01-01T10:00:00Z") });
      await conversations.add({ id: "m2", role: "assistant", content: "the wifi password is on the fridge", at: Date.parse("2025-01-02T10:00:00Z") });
      await memory.insertArchival({ content: "wifi password rotates monthly", label: "it" });
      await memory.insertArchival({ content: "wifi router is in the hall", label: "home" });
      const tool = createSearchTool({ memory, conversations });
      const archival = await callToolJson<{ archival_memory: { content: string }[] }>(tool, { domain: "archival_memory", query: "wifi password" });
      expect(archival.archival_memory[0]!.content).toBe("wifi password rotates monthly");
      expect(archival).not.toHaveProperty("conversations");
      const filtered = await callToolJson<{ archival_memory: unknown[] }>(tool, { domain: "archival_memory", query: "wifi", filters: { label: "home" } });
      expect(filtered.archival_memory).toHaveLength(1);
      const convo = await callToolJson<{ conversations: { id: string }[] }>(tool, { domain: "conversations", query: "wifi", filters: { role: "assistant" } });
      expect(convo.conversations.map((c) => c.id)).toEqual(["m2"]);
      const early = await callToolJson<{ conversations: { id: string }[] }>(tool, {
        domain: "conversations",
        query: "wifi",
        filters: { end_time: "2025-01-01T23:59:59Z" },
      });
      expect(early.conversations.map((c) => c.id)).toEqual(["m1"]);
      const all = await callToolJson<{ archival_memory: unknown[]; conversations: unknown[] }>(tool, { domain: "all", query: "wifi", limit: 1 });
      expect(all.archival_memory).toHaveLength(1);
      expect(all.conversations).toHaveLength(1);
      await expect(callTool(createSearchTool({ memory }), { domain: "conversations", query: "x" })).rejects.toThrow(/no conversation history/);
    });
  });
});

describe("source tool", () => {
  it("pause, resume, status and list", async () => {
    const stream = new FakeStream("feed");
    const blockOnly: DataSource = {
      id: "docs",
      kind: () => "block",
      status: () => ({ id: "docs", kind: "block", description: "docs", state: "idle", details: { loaded: ["a.md"] } }),
    };
    const sources = new SourceManager().register(stream).register(blockOnly);
    const tool = createSourceTool({ sources });
    expect(await callTool(tool, { op: "pause", source_id: "feed" })).toMatch(/paused/);
    expect(stream.paused).toBe(true);
    expect(await callToolJson(tool, { op: "status", source_id: "feed" })).toMatchObject({ state: "paused" });
    expect(await callTool(tool, { op: "resume", source_id: "feed" })).toMatch(/resumed/);
    expect(stream.paused).toBe(false);
    expect(await callTool(tool, { op: "pause", source_id: "docs" })).toMatch(/block source, not a stream.*a\.md/);
    expect(await callToolJson(tool, { op: "list" })).toEqual([
      { id: "feed", kind: "stream", state: "active", description: "test stream" },
      { id: "docs", kind: "block", state: "idle", description: "docs" },
    ]);
    expect(await callToolJson<unknown[]>(tool, { op: "status" })).toHaveLength(2);
    await expect(callTool(tool, { op: "pause", source_id: "nope" })).rejects.toThrow(/no source "nope"/);
    expect(tool.guard.isConcurrencySafe({ op: "list" })).toBe(true);
    expect(tool.guard.isConcurrencySafe({ op: "pause", source_id: "x" })).toBe(false);
  });
});

describe("send_message tool", () => {
  it("delivers to the user, an agent, a group and a registered channel, once per tool call", async () => {
    const discord = new OutboxChannel("discord");
    const router = new MessageRouter({ channels: [discord] });
    const tool = createSendMessageTool({ router });
    expect(await callTool(tool, { target: { type: "user" }, content: "hi" }, "call_a")).toMatch(/sent to the user via outbox/);
    expect(await callTool(tool, { target: { type: "user" }, content: "hi" }, "call_a")).toMatch(/sent to the user/);
    await callTool(tool, { target: { type: "agent", id: "planner" }, content: "plan" });
    await callTool(tool, { target: { type: "group", name: "ops" }, content: "deploying", metadata: { urgent: true } });
    expect(await callTool(tool, { target: { type: "channel", channel: "discord", address: "#general" }, content: "yo" })).toMatch(/#general on discord/);
    expect(router.outbox.messages.map((m) => m.target.type)).toEqual(["user", "agent", "group"]);
    expect(router.outbox.messages[2]!.metadata).toEqual({ urgent: true });
    expect(discord.messages).toHaveLength(1);
    await expect(callTool(tool, { target: { type: "channel", channel: "bluesky", address: "@a" }, content: "x" })).rejects.toThrow(
      /no channel "bluesky"; registered channels: discord/,
    );
  });

  it("invoked directly (no tool call id), two different messages are both sent; a re-run of one tool call is not", async () => {
    const router = new MessageRouter();
    const tool = createSendMessageTool({ router });
    const first = await tool.invoke({ target: { type: "user" }, content: "first" });
    const second = await tool.invoke({ target: { type: "user" }, content: "second" });
    expect(router.outbox.messages.map((m) => m.content)).toEqual(["first", "second"]);
    expect([first, second]).toEqual(["sent to the user via outbox (outbox#1)", "sent to the user via outbox (outbox#2)"]);
    expect(new Set(router.outbox.messages.map((m) => m.idempotencyKey)).size).toBe(2);
    await callTool(tool, { target: { type: "user" }, content: "third" }, "call_x");
    await callTool(tool, { target: { type: "user" }, content: "third" }, "call_x");
    expect(router.outbox.messages).toHaveLength(3);
  });

  it("seed 004's Discord and Bluesky targets go to the channels registered under those names (pluggable delivery)", async () => {
    const delivered: string[] = [];
    const channel = (name: string) => ({ name, deliver: (m: { target: unknown; content: string }) => void delivered.push(`${name}:${JSON.stringify(m.target)}:${m.content}`) });
    const router = new MessageRouter({ channels: [channel("discord"), channel("bluesky")] });
    const tool = createSendMessageTool({ router });
    expect(await callTool(tool, { target: { type: "discord", channel_id: "123" }, content: "hi" }, "d1")).toBe("sent to Discord channel 123 via discord");
    expect(await callTool(tool, { target: { type: "bluesky", handle: "@me.bsky.social" }, content: "post" }, "b1")).toBe("sent to Bluesky @me.bsky.social via bluesky");
    expect(delivered).toEqual(['discord:{"type":"discord","channel_id":"123"}:hi', 'bluesky:{"type":"bluesky","handle":"@me.bsky.social"}:post']);
    await expect(callTool(createSendMessageTool(), { target: { type: "discord", channel_id: "1" }, content: "x" }, "d2")).rejects.toThrow(/no channel "discord"; registered channels: none/);
  });
});

describe("default tool rules and usage rules", () => {
  it("continue the loop after memory tools and end the run after send_message", () => {
    const rules = defaultToolRules();
    expect(rules.filter((r) => r.type === "Terminal").map((r) => r.tool)).toEqual(["send_message"]);
    expect(rules.filter((r) => r.type === "ContinueLoop").map((r) => r.tool)).toEqual(
      expect.arrayContaining(["block", "block_edit", "recall", "source", "file"]),
    );
  });

  it("renders every tool's usage rule into the prompt section", async () => {
    const { inMemoryMemory } = await import("../src/memory/index.js");
    const { memory } = inMemoryMemory({ namespace: ["m"] });
    const text = renderToolUsageRules([createBlockTool({ memory }), createSendMessageTool()]);
    expect(text.split("\n")[0]).toBe("## Tool usage rules");
    expect(text).toMatch(/- block: block manages block lifecycle/);
    expect(text).toMatch(/- send_message: .*the conversation ends\./);
  });
});
