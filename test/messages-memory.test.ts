import { describe, expect, it } from "vitest";
import { memoryMessages as m } from "../src/messages/index.js";

describe("memory, file and source sentences (src/messages/memory.ts), exact text", () => {
  it("file refusals", () => {
    expect(m.pathSwapped("dir/a.txt", "repo")).toBe(
      'path "dir/a.txt" refused by FileSource "repo": it changed on disk while it was checked (a symbolic link or another directory took its place); nothing was read or written',
    );
    expect(m.notARegularFile("load", "dev")).toBe('file load refused for "dev": not a regular file');
    expect(m.noSuchFile("save", "a.txt")).toBe('file save refused for "a.txt": no such file');
  });

  it("reconcile", () => {
    expect(m.reconcileInSync("a.txt", "file:1:a.txt")).toBe("a.txt: disk and block file:1:a.txt agree");
    expect(m.reconcileDiffers("a.txt", "block-changed", false)).toBe("a.txt: the block has unsaved edits");
    expect(m.reconcileDiffers("a.txt", "disk-changed", true)).toBe('a.txt: the file changed on disk; reconcile with strategy "disk" (reload) or "block" (overwrite) to settle it');
    expect(m.reconcileDiffers("a.txt", "deleted", false)).toBe("a.txt: the file was deleted");
    expect(m.reconcileNothingOnDisk("a.txt")).toBe('a.txt: the file was deleted; there is nothing on disk to reload (strategy "block" writes the block back)');
    expect(m.reconcileReloaded("a.txt", "L", true)).toBe("a.txt: block L reloaded from disk; its unsaved edits were dropped");
    expect(m.reconcileReloaded("a.txt", "L", false)).toBe("a.txt: block L reloaded from disk");
    expect(m.reconcileSaved("a.txt", "saved 3 bytes to a.txt", true)).toBe("a.txt: saved 3 bytes to a.txt; the external change on disk was overwritten");
  });

  it("sources and required tools", () => {
    expect(m.sourceAlreadyRegistered("repo")).toBe('source "repo" is already registered');
    expect(m.sourceToolClash("docs", "file")).toBe('source "docs" brings a tool named "file", which another source already registered; give it another tool name');
    expect(m.missingRequiredTool("repo", "file", ["load", "save"], [])).toBe("source repo needs tool file (operations load, save), which is not registered; known tools: none");
    expect(m.undeclaredRequiredOperation("repo", "file", ["save"], ["load"])).toBe("source repo needs file operations save, which the tool does not declare (it has load)");
    expect(m.requiredOperationNotAllowed("repo", "file", ["load", "save"], "r1", [], ["load", "save"])).toBe(
      "source repo needs file operations load, save; rule r1 allows only none, so load, save can never run",
    );
  });

  it("messages and the memory prompt section", () => {
    expect(m.unknownChannel("discord", [])).toBe('send_message refused: no channel "discord"; registered channels: none');
    expect(m.unknownChannel("x", ["a", "b"])).toBe('send_message refused: no channel "x"; registered channels: a, b');
    expect(m.memoryIntro()).toBe(
      "Your memory blocks now in context: core blocks, pinned blocks and loaded working blocks. Change them with block_edit (or file for file blocks) within each block's permission.",
    );
    expect(m.memoryTruncated(120)).toBe("120 more characters not shown (memory budget); block info / block load show the whole block");
    expect(m.notificationsDropped(4)).toBe("4 older notifications were dropped (queue full)");
  });
});
