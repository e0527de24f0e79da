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

  it("FileSource refusals and results", () => {
    expect(m.badPath("../x", "repo", "it contains a '..' segment")).toBe(
      `path "../x" refused by FileSource "repo": it contains a '..' segment; give a path relative to the source's base directory, like "src/app.ts"`,
    );
    expect(m.symlinkEscape("src/leak", "repo")).toBe('path "src/leak" refused by FileSource "repo": a symbolic link leads outside the base directory');
    expect(m.permissionRefused("save", "docs/a.md", "repo", "docs/**", "read-only", "src/** (read-write)")).toBe(
      'file save refused for "docs/a.md": FileSource "repo" rule "docs/**" gives it read-only; allowed paths: src/** (read-write)',
    );
    expect(m.permissionRefused("load", "x", "repo", undefined, "denied", "nothing")).toBe('file load refused for "x": FileSource "repo" the default permission gives it denied; allowed paths: nothing');
    expect(m.tooLarge("load", "big", 2048, 1024)).toBe('file load refused for "big": 2048 bytes is over the 1024-byte limit');
    expect(m.modifiedExternally("a.ts")).toBe('file save refused for "a.ts": file modified externally, use file load to refresh');
    expect(m.appendOnly("log")).toBe('file save refused for "log": its permission is append and the block changes existing text; only appended text may be saved');
    expect(m.alreadyExists("a.ts")).toBe('file create refused for "a.ts": it already exists; use file load');
    expect(m.notLoaded("a.ts")).toBe('"a.ts" is not loaded; call file load first');
    expect(m.loaded(5, "L")).toBe("loaded 5 bytes into block L");
    expect(m.saved(5, "a.ts")).toBe("saved 5 bytes to a.ts");
    expect(m.created("a.ts", 5, "L")).toBe("created a.ts (5 bytes) as block L");
    expect(m.appended(3, "L")).toBe("appended 3 characters to block L; file save writes it to disk");
    expect(m.fileChangedOutside("a.ts", "L")).toBe("a.ts changed outside the agent; use file load to refresh block L before saving");
    expect(m.fileDeletedOutside("a.ts", "L")).toBe("a.ts was deleted outside the agent; its block L keeps the loaded content");
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
