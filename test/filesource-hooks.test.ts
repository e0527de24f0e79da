// Issue 15, FileSource: the windows a second process would have to hit by luck, hit on purpose.
// node:fs/promises is wrapped so a test can act right before or right after the system call that
// FileSource makes (rename, link, unlink): a directory moved out of the root between the last check
// and the rename, and a formatter rewriting the file right after the agent's rename.
import { createHash } from "node:crypto";
import { linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { inMemoryMemory, MemoryError, type MemoryStore } from "../src/memory/index.js";
import { memoryMessages } from "../src/messages/index.js";
import { DESCRIPTOR_PATHS, FileSource, isTempFileName } from "../src/sources/index.js";

type Call = "rename" | "link" | "unlink";
type Hook = { call: Call; when: "before" | "after"; run: (args: readonly string[]) => unknown };
const hooks: Hook[] = [];
const seen: { call: Call; args: string[] }[] = [];

vi.mock("node:fs/promises", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs/promises")>();
  const wrap =
    <A extends string[]>(call: Call, fn: (...args: A) => Promise<void>) =>
    async (...args: A): Promise<void> => {
      seen.push({ call, args: [...args] });
      // A hook fires once: the first call of its kind after it was set.
      const before = hooks.findIndex((h) => h.call === call && h.when === "before");
      if (before >= 0) await hooks.splice(before, 1)[0]?.run(args);
      await fn(...args);
      const after = hooks.findIndex((h) => h.call === call && h.when === "after");
      if (after >= 0) await hooks.splice(after, 1)[0]?.run(args);
    };
  return {
    ...real,
    default: real,
    rename: wrap("rename", (a: string, b: string) => real.rename(a, b)),
    link: wrap("link", (a: string, b: string) => real.link(a, b)),
    unlink: wrap("unlink", (a: string) => real.unlink(a)),
  };
});

let root: string;
let base: string;
let outside: string;
let memory: MemoryStore;

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), "gg-hooks-")));
  base = path.join(root, "repo");
  outside = path.join(root, "outside");
  mkdirSync(path.join(base, "dir"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(base, "dir", "file.txt"), "inside 0\n");
  memory = inMemoryMemory({ namespace: ["hooks"] }).memory;
  hooks.length = 0;
  seen.length = 0;
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const source = (extra: Partial<ConstructorParameters<typeof FileSource>[0]> = {}) =>
  new FileSource({ id: "repo", baseDir: base, rules: [{ pattern: "**", permission: "read-write" }], memory, ...extra });

async function refusal(promise: Promise<unknown>): Promise<MemoryError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MemoryError);
  return error as MemoryError;
}

const moveOut = () => renameSync(path.join(base, "dir"), path.join(outside, "moved"));
const namesIn = (dir: string) => readdirSync(dir).sort();

describe.skipIf(process.platform === "win32")("a directory moved out of the root between the check and the write", () => {
  it("save: moved right before the rename → the write is undone in the moved directory and refused", async () => {
    const files = source();
    const loaded = await files.load("dir/file.txt");
    await memory.putBlock({ ...(await memory.requireBlock(loaded.label)), content: "agent text\n" });
    const inode = statSync(path.join(base, "dir", "file.txt")).ino;
    hooks.push({ call: "rename", when: "before", run: moveOut });
    const error = await refusal(files.save({ path: "dir/file.txt" }));
    expect(error.rule).toBe("file-source:directory-moved");
    expect(error.message).toBe(memoryMessages.directoryMoved("dir/file.txt", "repo"));
    expect(error.message).toBe('path "dir/file.txt" refused by FileSource "repo": its directory was moved while the file was written; the write was undone');
    // The rename did happen (through the directory's descriptor, now outside): the test hit the window.
    expect(seen.filter((c) => c.call === "rename")).toHaveLength(2); // the write, then the rollback
    // Outside, the moved directory holds what it held: the same file (same inode), old content, no temp file.
    expect(namesIn(path.join(outside, "moved"))).toEqual(["file.txt"]);
    expect(readFileSync(path.join(outside, "moved", "file.txt"), "utf8")).toBe("inside 0\n");
    expect(statSync(path.join(outside, "moved", "file.txt")).ino).toBe(inode);
  });

  it("save: another writer rewrites the saved file in place right after the rename, then the directory moves → theirs stays", async () => {
    // The undo puts the old file back only while the name still holds exactly this write: a writer that
    // truncated and rewrote the same file (same inode) wrote it again, and what it wrote is not undone.
    const files = source();
    const loaded = await files.load("dir/file.txt");
    await memory.putBlock({ ...(await memory.requireBlock(loaded.label)), content: "agent text\n" });
    hooks.push({
      call: "rename",
      when: "after",
      run: () => {
        writeFileSync(path.join(base, "dir", "file.txt"), "the other writer's text\n"); // in place: O_TRUNC on the renamed file
        moveOut();
      },
    });
    const error = await refusal(files.save({ path: "dir/file.txt" }));
    expect(error.rule).toBe("file-source:directory-moved");
    expect(namesIn(path.join(outside, "moved"))).toEqual(["file.txt"]);
    expect(readFileSync(path.join(outside, "moved", "file.txt"), "utf8")).toBe("the other writer's text\n");
  });

  it("create: moved right before the link → the new file is removed from the moved directory and refused", async () => {
    const files = source();
    hooks.push({ call: "link", when: "before", run: moveOut });
    const error = await refusal(files.create("dir/new.txt", "new\n"));
    expect(error.rule).toBe("file-source:directory-moved");
    expect(namesIn(path.join(outside, "moved"))).toEqual(["file.txt"]);
  });

  it("delete: moved right before the unlink → the file comes back in the moved directory and the delete is refused", async () => {
    const files = source();
    await files.load("dir/file.txt");
    const inode = statSync(path.join(base, "dir", "file.txt")).ino;
    // The first unlink is the file's own (the backup link was made just before it).
    hooks.push({ call: "unlink", when: "before", run: moveOut });
    const error = await refusal(files.delete("dir/file.txt"));
    expect(error.rule).toBe("file-source:directory-moved");
    expect(namesIn(path.join(outside, "moved"))).toEqual(["file.txt"]);
    expect(readFileSync(path.join(outside, "moved", "file.txt"), "utf8")).toBe("inside 0\n");
    expect(statSync(path.join(outside, "moved", "file.txt")).ino).toBe(inode);
  });

  it("a save that meets no move leaves no backup link behind and keeps one link on the file", async () => {
    const files = source();
    const loaded = await files.load("dir/file.txt");
    await memory.putBlock({ ...(await memory.requireBlock(loaded.label)), content: "agent text\n" });
    await files.save({ path: "dir/file.txt" });
    expect(namesIn(path.join(base, "dir"))).toEqual(["file.txt"]);
    expect(statSync(path.join(base, "dir", "file.txt")).nlink).toBe(1);
    // The backup link was made and removed: one link to the old file, then its unlink.
    const backups = seen.filter((c) => c.call === "link").map((c) => path.basename(c.args[1] ?? ""));
    expect(backups).toHaveLength(1);
    expect(isTempFileName(backups[0] ?? "")).toBe(true);
  });

  it("a load that runs while a save holds its backup link is not refused as a hard link", async () => {
    const files = source();
    const loaded = await files.load("dir/file.txt");
    await memory.putBlock({ ...(await memory.requireBlock(loaded.label)), content: "agent text\n" });
    let during: { content?: string | undefined } | undefined;
    let links = 0;
    const other = source();
    // Between the backup link and the rename, a whole load runs: the old file has two names then, both in its own directory.
    hooks.push({
      call: "rename",
      when: "before",
      run: async () => {
        links = statSync(path.join(base, "dir", "file.txt")).nlink;
        during = await other.load("dir/file.txt");
      },
    });
    await files.save({ path: "dir/file.txt" });
    expect(links).toBe(2);
    expect(during?.content).toBe("inside 0\n");
  });
});

describe.skipIf(process.platform === "win32")("hard links", () => {
  it("a hard link inside the root to a file outside it is refused (load and save); allowHardLinks accepts it", async () => {
    writeFileSync(path.join(outside, "secret.txt"), "OUTSIDE SECRET\n");
    linkSync(path.join(outside, "secret.txt"), path.join(base, "dir", "linked.txt"));
    const files = source();
    const error = await refusal(files.load("dir/linked.txt"));
    expect(error.rule).toBe("file-source:hard-link");
    expect(error.message).toBe(memoryMessages.hardLinked("load", "dir/linked.txt", "repo"));
    expect(error.message).toBe(
      'file load refused for "dir/linked.txt" by FileSource "repo": the file has another hard link, which may be outside the source\'s directory; nothing was read or written (allowHardLinks: true accepts such files)',
    );
    expect(error.message).not.toContain("OUTSIDE SECRET");
    // A save of a file loaded before the link appeared is refused too, and the outside file is untouched.
    const loaded = await files.load("dir/file.txt");
    renameSync(path.join(base, "dir", "linked.txt"), path.join(base, "dir", "file.txt"));
    await memory.putBlock({ ...(await memory.requireBlock(loaded.label)), content: "agent\n" });
    expect((await refusal(files.save({ path: "dir/file.txt" }))).rule).toBe("file-source:hard-link");
    expect(readFileSync(path.join(outside, "secret.txt"), "utf8")).toBe("OUTSIDE SECRET\n");
    // Delete refuses as well (its check opens the file).
    expect((await refusal(files.delete("dir/file.txt"))).rule).toBe("file-source:hard-link");
    // Opted in: read as any file.
    const lenient = source({ allowHardLinks: true });
    expect((await lenient.load("dir/file.txt")).content).toBe("OUTSIDE SECRET\n");
  });

  it("a hard link whose every name is in the same directory is accepted; one in another directory of the root is refused", async () => {
    linkSync(path.join(base, "dir", "file.txt"), path.join(base, "dir", "copy.txt"));
    const files = source();
    expect((await files.load("dir/copy.txt")).content).toBe("inside 0\n");
    mkdirSync(path.join(base, "other"));
    linkSync(path.join(base, "dir", "file.txt"), path.join(base, "other", "third.txt"));
    expect((await refusal(files.load("dir/copy.txt"))).rule).toBe("file-source:hard-link");
  });
});

describe.skipIf(process.platform === "win32")("a formatter rewriting the file right after the agent's rename", () => {
  for (const keep of ["content only", "size and mtime too"] as const) {
    it(`is seen at the next save (${keep}): the record is what was written, not what is there after the rename`, async () => {
      const file = path.join(base, "dir", "file.txt");
      const files = source();
      const loaded = await files.load("dir/file.txt");
      const ours = "const   x=1\n";
      const formatted = "const x = 1\n"; // same length as ours
      expect(Buffer.byteLength(formatted)).toBe(Buffer.byteLength(ours));
      await memory.putBlock({ ...(await memory.requireBlock(loaded.label)), content: ours });
      // The formatter runs inside the save, right after the rename put our bytes in place, before
      // FileSource records anything; with "size and mtime too" it leaves the size and mtime of our file.
      hooks.push({
        call: "rename",
        when: "after",
        run: ([, target]) => {
          if (target === undefined) return;
          const before = statSync(target);
          writeFileSync(target, formatted);
          if (keep === "size and mtime too") utimesSync(target, before.atime, before.mtime);
        },
      });
      const saved = await files.save({ path: "dir/file.txt" });
      expect(hooks).toHaveLength(0); // the hook ran
      expect(readFileSync(file, "utf8")).toBe(formatted);
      const record = (await memory.requireBlock(saved.label)).metadata;
      expect(record.disk_sha256).toBe(createHash("sha256").update(ours).digest("hex"));
      await memory.putBlock({ ...(await memory.requireBlock(saved.label)), content: `${ours}more\n` });
      const error = await refusal(files.save({ path: "dir/file.txt" }));
      expect(error.rule).toBe("file-source:modified-externally");
      expect(readFileSync(file, "utf8")).toBe(formatted);
    });
  }

  it("without the formatter the next save goes through (the test above can fail)", async () => {
    const files = source();
    const loaded = await files.load("dir/file.txt");
    await memory.putBlock({ ...(await memory.requireBlock(loaded.label)), content: "one\n" });
    await files.save({ path: "dir/file.txt" });
    await memory.putBlock({ ...(await memory.requireBlock(loaded.label)), content: "two\n" });
    await files.save({ path: "dir/file.txt" });
    expect(readFileSync(path.join(base, "dir", "file.txt"), "utf8")).toBe("two\n");
    expect(DESCRIPTOR_PATHS || process.platform !== "linux").toBe(true);
  });
});
