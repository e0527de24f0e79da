import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBlockEditTool, createFileTool } from "../src/builtin/index.js";
import { inMemoryMemory, MemoryError, type MemoryStore } from "../src/memory/index.js";
import { FileSource, isTempFileName, SourceManager, writeFileAtomic, type FileRule, type SourceNotification } from "../src/sources/index.js";
import { callTool, callToolJson } from "./helpers/tool-call.js";

const RULES: FileRule[] = [
  { pattern: "src/**", permission: "read-write" },
  { pattern: "docs/**", permission: "read-only" },
  { pattern: "**/*.env", permission: "denied" },
  { pattern: "logs/**", permission: "append" },
  { pattern: "notes/**", permission: "human" },
];

let root: string;
let base: string;
let outside: string;
let memory: MemoryStore;

function write(relative: string, content: string, dir = base): void {
  mkdirSync(path.dirname(path.join(dir, relative)), { recursive: true });
  writeFileSync(path.join(dir, relative), content);
}

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), "gg-files-")));
  base = path.join(root, "repo");
  outside = path.join(root, "outside");
  mkdirSync(base);
  mkdirSync(outside);
  write("src/app.ts", "export const a = 1;\n");
  write("src/.env", "TOKEN=1\n");
  write("secrets.env", "TOKEN=2\n");
  write("docs/guide.md", "# Guide\n");
  write("logs/app.log", "boot\n");
  write("notes/plan.md", "plan\n");
  write("other.txt", "unmatched\n");
  write("secret.txt", "outside secret\n", outside);
  memory = inMemoryMemory({ namespace: ["memory", "files"] }).memory;
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const source = (extra: Partial<ConstructorParameters<typeof FileSource>[0]> = {}) =>
  new FileSource({ id: "repo", baseDir: base, rules: RULES, memory, ...extra });

function refusal(error: unknown): MemoryError {
  expect(error).toBeInstanceOf(MemoryError);
  return error as MemoryError;
}

describe("FileSource paths", () => {
  it("labels blocks file:{hash8}:{relative_path} with the hash of the absolute path", async () => {
    const files = source();
    const result = await files.load("src/app.ts");
    const hash8 = createHash("sha256").update(path.join(base, "src/app.ts")).digest("hex").slice(0, 8);
    expect(result.label).toBe(`file:${hash8}:src/app.ts`);
    expect(files.pathOfLabel(result.label)).toBe("src/app.ts");
    mkdirSync(path.join(root, "repo2"));
    const other = new FileSource({ id: "repo2", baseDir: path.join(root, "repo2"), rules: RULES, memory });
    expect(other.labelFor("src/app.ts")).not.toBe(result.label);
    expect(other.pathOfLabel(result.label)).toBeUndefined();
  });

  it.each([
    ["../outside/secret.txt", "parent-segment"],
    ["src/../../outside/new.txt", "parent-segment"],
    ["/etc/passwd", "absolute-path"],
    [path.join(tmpdir(), "gg-planted.txt"), "absolute-path"],
    ["src/app\u0000.ts", "nul-byte"],
    ["C:/windows/system.ini", "absolute-path"],
    ["src\\..\\..\\x", "backslash"],
    ["", "empty-path"],
    [".", "base-directory"],
  ])("refuses %j before touching the disk (%s)", async (bad, rule) => {
    const files = source();
    for (const attempt of [() => files.load(bad), () => files.create(bad, "pwned"), () => files.delete(bad)]) {
      const error = refusal(await attempt().catch((e: unknown) => e));
      expect(error.rule).toBe(`file-source:${rule}`);
      expect(error.message).toMatch(/give a path relative to the source's base directory/);
    }
    expect(existsSync(path.join(outside, "new.txt"))).toBe(false);
    expect(readFileSync(path.join(outside, "secret.txt"), "utf8")).toBe("outside secret\n");
    expect(existsSync(path.join(tmpdir(), "gg-planted.txt"))).toBe(false);
  });

  it("refuses symlinks that lead outside the base, for reads and writes", async () => {
    symlinkSync(outside, path.join(base, "src", "escape"));
    symlinkSync(path.join(outside, "secret.txt"), path.join(base, "src", "leak.ts"));
    const files = source();
    for (const attempt of [
      () => files.load("src/escape/secret.txt"),
      () => files.create("src/escape/planted.txt", "x"),
      () => files.create("src/escape/deeper/planted.txt", "x"),
      () => files.load("src/leak.ts"),
      () => files.delete("src/leak.ts"),
    ]) {
      expect(refusal(await attempt().catch((e: unknown) => e)).rule).toBe("file-source:symlink-escape");
    }
    expect(existsSync(path.join(outside, "planted.txt"))).toBe(false);
    expect(existsSync(path.join(outside, "deeper"))).toBe(false);
    expect(existsSync(path.join(outside, "secret.txt"))).toBe(true);
  });

  it("applies the stricter rule when an inside symlink points at a denied file", async () => {
    symlinkSync(path.join(base, "secrets.env"), path.join(base, "src", "config.ts"));
    const error = refusal(await source().load("src/config.ts").catch((e: unknown) => e));
    expect(error.message).toMatch(/rule "\*\*\/\*\.env" gives it denied/);
  });
});

describe("FileSource permissions", () => {
  it("denies by glob (strictest matching rule wins) and by default, naming the rule and what is allowed", async () => {
    const files = source();
    for (const denied of ["secrets.env", "src/.env"]) {
      const error = refusal(await files.load(denied).catch((e: unknown) => e));
      expect(error.rule).toBe("file-source:repo:**/*.env");
      expect(error.message).toContain(`file load refused for "${denied}"`);
      expect(error.message).toContain("allowed paths: src/** (read-write), docs/** (read-only), logs/** (append), notes/** (human)");
    }
    expect(refusal(await files.load("other.txt").catch((e: unknown) => e)).message).toMatch(/the default permission gives it denied/);
    const lenient = source({ defaultPermission: "read-only" });
    expect((await lenient.load("other.txt")).content).toBe("unmatched\n");
  });

  it("read-only paths load but refuse every change", async () => {
    const files = source();
    expect((await files.load("docs/guide.md")).permission).toBe("read-only");
    for (const attempt of [
      () => files.append("docs/guide.md", "x"),
      () => files.replace("docs/guide.md", "Guide", "G"),
      () => files.save({ path: "docs/guide.md" }),
      () => files.create("docs/new.md"),
      () => files.delete("docs/guide.md"),
    ]) {
      expect(refusal(await attempt().catch((e: unknown) => e)).message).toMatch(/gives it read-only/);
    }
    // The block carries the permission, so block_edit refuses too.
    const edit = createBlockEditTool({ memory });
    await expect(callTool(edit, { op: "append", label: files.labelFor("docs/guide.md"), content: "x" })).rejects.toThrow(/permission is read-only/);
    expect(readFileSync(path.join(base, "docs/guide.md"), "utf8")).toBe("# Guide\n");
  });

  it("append paths take appends and save them, but refuse other changes", async () => {
    const files = source();
    await files.load("logs/app.log");
    await files.append("logs/app.log", "request 1\n");
    await files.save({ path: "logs/app.log" });
    expect(readFileSync(path.join(base, "logs/app.log"), "utf8")).toBe("boot\nrequest 1\n");
    await expect(files.replace("logs/app.log", "boot", "BOOT")).rejects.toThrow(/gives it append/);
    // A block whose text no longer extends the file cannot be saved under append permission.
    const block = await memory.requireBlock(files.labelFor("logs/app.log"));
    await memory.putBlock({ ...block, content: "rewritten\n" });
    await expect(files.save({ path: "logs/app.log" })).rejects.toThrow(/only appended text may be saved/);
    expect(readFileSync(path.join(base, "logs/app.log"), "utf8")).toBe("boot\nrequest 1\n");
  });

  it("human paths need consent for changes, not for load", async () => {
    const files = source();
    const tool = createFileTool({ source: files });
    expect(files.consentFor("load", "notes/plan.md")).toBeUndefined();
    expect(await tool.guard.requiresApproval?.({ op: "append", path: "notes/plan.md", content: "x" }, undefined)).toMatch(
      /file append on "notes\/plan.md" needs a human's consent \(FileSource "repo" rule "notes\/\*\*": human\)/,
    );
    expect(await tool.guard.requiresApproval?.({ op: "save", label: files.labelFor("notes/plan.md") }, undefined)).toMatch(/consent/);
    expect(await tool.guard.requiresApproval?.({ op: "delete", path: "src/app.ts" }, undefined)).toBeUndefined();
    expect(await tool.guard.requiresApproval?.({ op: "load", path: "../x" }, undefined)).toBeUndefined();
    expect(tool.guard.operationRisk).toMatchObject({ delete: "high", load: "low" });
    expect(tool.guard.risk).toBe("medium");
  });
});

describe("file tool operations", () => {
  it("load, append, replace, save, create and delete", async () => {
    const files = source();
    const tool = createFileTool({ source: files });
    const loaded = await callToolJson<{ label: string; content: string }>(tool, { op: "load", path: "src/app.ts" });
    expect(loaded.content).toBe("export const a = 1;\n");
    const block = await memory.requireBlock(loaded.label);
    expect(block).toMatchObject({ type: "working", permission: "read-write", schema: { kind: "text" } });
    expect(block.metadata).toMatchObject({ source_id: "repo", path: "src/app.ts", disk_size: 20 });

    await callTool(tool, { op: "append", path: "src/app.ts", content: "export const b = 2;\n" });
    await callTool(tool, { op: "replace", path: "src/app.ts", old: "a = 1", new: "a = 10" });
    expect(readFileSync(path.join(base, "src/app.ts"), "utf8")).toBe("export const a = 1;\n"); // not saved yet
    await callTool(tool, { op: "save", label: loaded.label });
    expect(readFileSync(path.join(base, "src/app.ts"), "utf8")).toBe("export const a = 10;\nexport const b = 2;\n");

    const created = await callToolJson<{ label: string }>(tool, { op: "create", path: "src/new/mod.ts", content: "x\n" });
    expect(readFileSync(path.join(base, "src/new/mod.ts"), "utf8")).toBe("x\n");
    expect((await memory.requireBlock(created.label)).content).toBe("x\n");
    await expect(callTool(tool, { op: "create", path: "src/app.ts" })).rejects.toThrow(/already exists/);

    await callTool(tool, { op: "delete", path: "src/new/mod.ts" });
    expect(existsSync(path.join(base, "src/new/mod.ts"))).toBe(false);
    expect(await memory.getBlock(created.label)).toBeUndefined();
    await expect(callTool(tool, { op: "append", path: "src/other.ts", content: "x" })).rejects.toThrow(/not loaded; call file load first/);
    await expect(callTool(tool, { op: "save", label: "file:00000000:src/app.ts" })).rejects.toThrow(/does not belong to FileSource "repo"/);
    expect(tool.guard.operations).toEqual(["load", "save", "create", "delete", "append", "replace"]);
  });

  it("block load with source_id loads a file through the source", async () => {
    const { createBlockTool } = await import("../src/builtin/index.js");
    const files = source();
    const tool = createBlockTool({ memory, sources: new SourceManager().register(files) });
    expect(await callToolJson(tool, { op: "load", label: "src/app.ts", source_id: "repo" })).toMatchObject({
      label: files.labelFor("src/app.ts"),
      content: "export const a = 1;\n",
    });
  });
});

describe("external edits", () => {
  it("save refuses when the file changed on disk since load, until it is loaded again", async () => {
    const files = source();
    await files.load("src/app.ts");
    await files.append("src/app.ts", "// agent\n");
    writeFileSync(path.join(base, "src/app.ts"), "export const a = 2; // human\n");
    const error = refusal(await files.save({ path: "src/app.ts" }).catch((e: unknown) => e));
    expect(error.message).toContain("file modified externally, use file load to refresh");
    expect(readFileSync(path.join(base, "src/app.ts"), "utf8")).toBe("export const a = 2; // human\n");
    await files.load("src/app.ts");
    await files.append("src/app.ts", "// agent\n");
    await files.save({ path: "src/app.ts" });
    expect(readFileSync(path.join(base, "src/app.ts"), "utf8")).toBe("export const a = 2; // human\n// agent\n");
  });

  it("a deleted file counts as modified; a touch that keeps the content does not", async () => {
    const files = source();
    await files.load("src/app.ts");
    utimesSync(path.join(base, "src/app.ts"), new Date(), new Date(Date.now() + 5000));
    await files.save({ path: "src/app.ts" });
    rmSync(path.join(base, "src/app.ts"));
    await expect(files.save({ path: "src/app.ts" })).rejects.toThrow(/modified externally/);
  });

  it("an edit that keeps the size and the exact mtime (cp -p, touch -r) is detected by the hash", async () => {
    const file = path.join(base, "src/app.ts");
    const stamp = 1_700_000_000; // whole seconds: exactly representable, so the mtime is put back to the nanosecond
    utimesSync(file, stamp, stamp);
    const files = source();
    await files.load("src/app.ts");
    const before = statSync(file, { bigint: true });
    writeFileSync(file, "export const b = 1;\n"); // same length, other bytes
    utimesSync(file, stamp, stamp); // touch -r
    const after = statSync(file, { bigint: true });
    expect([after.size, after.mtimeNs]).toEqual([before.size, before.mtimeNs]);
    await files.append("src/app.ts", "// agent\n");
    await expect(files.save({ path: "src/app.ts" })).rejects.toThrow(/modified externally/);
    expect(readFileSync(file, "utf8")).toBe("export const b = 1;\n");
    // cp -p: a file with other content but the same size and times, renamed over ours.
    await files.load("src/app.ts");
    writeFileSync(path.join(root, "copy"), "export const c = 1;\n");
    utimesSync(path.join(root, "copy"), stamp, stamp);
    renameSync(path.join(root, "copy"), file);
    expect(statSync(file, { bigint: true }).mtimeNs).toBe(before.mtimeNs);
    await files.append("src/app.ts", "// agent\n");
    await expect(files.save({ path: "src/app.ts" })).rejects.toThrow(/modified externally/);
  });

  it("a formatter rewriting the file right after our save is detected at the next save (what we wrote is recorded)", async () => {
    const file = path.join(base, "src/app.ts");
    const files = source();
    await files.load("src/app.ts");
    await files.append("src/app.ts", "const   x=1\n");
    const saved = await files.save({ path: "src/app.ts" });
    // The load record is what we wrote (hash of our bytes, size of our temp file), not a stat of whatever is there later.
    const record = (await memory.requireBlock(saved.label)).metadata;
    const written = "export const a = 1;\nconst   x=1\n";
    expect([record.disk_sha256, record.disk_size]).toEqual([createHash("sha256").update(written).digest("hex"), Buffer.byteLength(written)]);
    writeFileSync(file, "export const a = 1;\nconst x = 1;\n"); // the formatter, right after the rename
    await files.append("src/app.ts", "// more\n");
    const error = refusal(await files.save({ path: "src/app.ts" }).catch((e: unknown) => e));
    expect(error.rule).toBe("file-source:modified-externally");
    expect(readFileSync(file, "utf8")).toBe("export const a = 1;\nconst x = 1;\n");
  });

  it("saves a file whose name is 255 bytes (the temp name is short), and round-trips a multi-byte name near the limit", async () => {
    const files = source();
    const long = `src/${"n".repeat(252)}.ts`; // 255-byte file name
    await files.create(long, "v1\n");
    await files.load(long);
    await files.append(long, "v2\n");
    await files.save({ path: long });
    expect(readFileSync(path.join(base, long), "utf8")).toBe("v1\nv2\n");
    const multi = `src/${"é".repeat(125)}.ts`; // 250 + 3 bytes
    await files.create(multi, "é\n");
    await files.append(multi, "ü\n");
    await files.save({ path: multi });
    expect(readFileSync(path.join(base, multi), "utf8")).toBe("é\nü\n");
    expect(readdirSync(path.join(base, "src")).filter(isTempFileName)).toEqual([]);
  });

  it("detects the change after a restart, from the block's load record", async () => {
    await source().load("src/app.ts");
    writeFileSync(path.join(base, "src/app.ts"), "changed while we were down\n");
    await expect(source().save({ path: "src/app.ts" })).rejects.toThrow(/modified externally/);
  });
});

async function waitFor<T>(probe: () => T | undefined, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("watch mode", () => {
  it("notifies external changes of loaded files, not the agent's own saves, and honours pause/resume", async () => {
    const files = source({ watch: { debounceMs: 30 } });
    const manager = new SourceManager().register(files);
    const seen: SourceNotification[] = [];
    const drain = () => {
      seen.push(...manager.drainNotifications());
      return seen.length > 0 ? seen : undefined;
    };
    try {
      expect(files.kind()).toBe("stream");
      await files.load("src/app.ts");
      await files.load("docs/guide.md");
      expect(manager.status("repo")).toMatchObject({ state: "active", details: { loaded: ["src/app.ts", "docs/guide.md"] } });

      writeFileSync(path.join(base, "src/app.ts"), "edited outside\n");
      const [first] = await waitFor(drain);
      expect(first).toMatchObject({ sourceId: "repo", kind: "file-modified", label: files.labelFor("src/app.ts") });
      expect(first!.message).toMatch(/changed outside the agent; use file load/);
      seen.length = 0;

      // The agent's own save is not an external change.
      await files.load("src/app.ts");
      await files.append("src/app.ts", "more\n");
      await files.save({ path: "src/app.ts" });
      writeFileSync(path.join(base, "other.txt"), "not loaded, not reported\n");
      await new Promise((r) => setTimeout(r, 300));
      expect(manager.drainNotifications()).toEqual([]);

      expect(await manager.pause("repo")).toMatch(/paused/);
      expect(manager.status("repo").state).toBe("paused");
      writeFileSync(path.join(base, "docs/guide.md"), "# Changed while paused\n");
      await new Promise((r) => setTimeout(r, 300));
      expect(manager.drainNotifications()).toEqual([]);

      await manager.resume("repo");
      const [afterResume] = await waitFor(drain);
      expect(afterResume).toMatchObject({ kind: "file-modified", label: files.labelFor("docs/guide.md") });
      seen.length = 0;

      rmSync(path.join(base, "src/app.ts"));
      const [deleted] = await waitFor(drain);
      expect(deleted).toMatchObject({ kind: "file-deleted", label: files.labelFor("src/app.ts") });
    } finally {
      await manager.close();
    }
  });

  it("a source without watch mode is a block source that pause/resume leave alone", async () => {
    const manager = new SourceManager().register(source());
    expect(await manager.pause("repo")).toMatch(/block source, not a stream/);
    expect(manager.status("repo")).toMatchObject({ kind: "block", state: "idle" });
  });
});

describe("writeFileAtomic (the same descriptor-based write for a trusted absolute path)", () => {
  it("replaces, refuses an existing target when exclusive, keeps the mode and leaves no temp file", async () => {
    const target = path.join(base, "src", "atomic.txt");
    await writeFileAtomic(target, "one");
    chmodSync(target, 0o600);
    await writeFileAtomic(target, "two");
    expect(readFileSync(target, "utf8")).toBe("two");
    expect(statSync(target).mode & 0o777).toBe(0o600);
    await expect(writeFileAtomic(target, "three", { exclusive: true })).rejects.toMatchObject({ code: "EEXIST" });
    expect(readFileSync(target, "utf8")).toBe("two");
    expect(readdirSync(path.join(base, "src")).filter(isTempFileName)).toEqual([]);
  });
});
