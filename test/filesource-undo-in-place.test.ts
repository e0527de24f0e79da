import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DESCRIPTOR_PATHS, isTempFileName, openDirChain, UnsafePathError, VerifiedDir, writeFileIn } from "../src/sources/safe-fs.js";

// A write whose directory moved out of the root between the check and the rename is undone in the
// moved directory — but only while the file there is still the write's own. Another process may
// have written into that very file in place meanwhile (open with O_TRUNC, write): its bytes must
// stay. Size and modification time cannot tell: the kernel's file clock is coarse,
// so a same-length write in the same tick (several milliseconds) leaves both as they were. Here the directory moves at
// the exact moment between the rename and the re-check, and the other writer's mtime is set back
// to the write's own, as a write in the same tick leaves it.

const root = realpathSync(mkdtempSync(path.join(tmpdir(), "gg-undo-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A directory that, when re-checked after the rename, first lets `meanwhile` run (another process). */
class MovingDir extends VerifiedDir {
  constructor(dir: VerifiedDir, private readonly meanwhile: () => void) {
    super(dir.handle, dir.expected);
  }
  override async verify(reason: "swapped" | "moved" = "swapped"): Promise<void> {
    if (reason === "moved") this.meanwhile();
    return super.verify(reason);
  }
}

let n = 0;
function setup(files: Record<string, string>): { base: string; dir: string; outside: string } {
  n += 1;
  const base = path.join(root, `base-${n}`);
  const dir = path.join(base, "dir");
  const outside = path.join(root, `outside-${n}`);
  mkdirSync(dir, { recursive: true });
  for (const [name, content] of Object.entries(files)) writeFileSync(path.join(dir, name), content);
  return { base, dir, outside };
}

/** Writes into the file in place (the same inode) and leaves its mtime to the nanosecond as it was. */
function writeInPlaceSameTick(file: string, content: string): void {
  const { mtimeNs } = statSync(file, { bigint: true });
  writeFileSync(file, content);
  const ns = (mtimeNs % 1_000_000_000n).toString().padStart(9, "0");
  execFileSync("touch", ["-m", "-d", `@${mtimeNs / 1_000_000_000n}.${ns}`, file]);
  expect(statSync(file, { bigint: true }).mtimeNs).toBe(mtimeNs);
}

function names(dir: string): string[] {
  return readdirSync(dir).filter((name) => !isTempFileName(name)).sort();
}

describe.skipIf(!DESCRIPTOR_PATHS)("a write undone after its directory moved keeps another writer's bytes", () => {
  for (const exclusive of [false, true]) {
    const kind = exclusive ? "a create" : "a save over no file";
    it(`${kind}: written into in place with the same length and mtime, the other bytes stay`, async () => {
      const { base, dir, outside } = setup({});
      const opened = await openDirChain(base, ["dir"]);
      const theirs = "THEIRS-0123456789\n";
      const ours = "ours-0123456789ab\n";
      expect(theirs.length).toBe(ours.length);
      const moving = new MovingDir(opened, () => {
        writeInPlaceSameTick(path.join(dir, "f.txt"), theirs);
        renameSync(dir, outside);
      });
      const refused = await writeFileIn(moving, "f.txt", ours, { exclusive }).then(() => undefined, (error: unknown) => error);
      await opened.close();
      expect(refused).toBeInstanceOf(UnsafePathError);
      expect((refused as UnsafePathError).reason).toBe("moved");
      expect(names(outside)).toEqual(["f.txt"]);
      expect(readFileSync(path.join(outside, "f.txt"), "utf8")).toBe(theirs);
    });
  }

  it("a save over an old file: written into in place, the other bytes stay and the old file does not come back", async () => {
    const { base, dir, outside } = setup({ "f.txt": "old\n" });
    const opened = await openDirChain(base, ["dir"]);
    const theirs = "THEIRS-0123456789\n";
    const ours = "ours-0123456789ab\n";
    const moving = new MovingDir(opened, () => {
      writeInPlaceSameTick(path.join(dir, "f.txt"), theirs);
      renameSync(dir, outside);
    });
    const refused = await writeFileIn(moving, "f.txt", ours).then(() => undefined, (error: unknown) => error);
    await opened.close();
    expect((refused as UnsafePathError).reason).toBe("moved");
    expect(names(outside)).toEqual(["f.txt"]);
    expect(readFileSync(path.join(outside, "f.txt"), "utf8")).toBe(theirs);
  });

  // The undo itself still happens when nobody touched the file.
  for (const [kind, files, exclusive, after] of [
    ["a save over an old file", { "f.txt": "old\n" }, false, { "f.txt": "old\n" }],
    ["a save over no file", {}, false, {}],
    ["a create", {}, true, {}],
  ] as const) {
    it(`${kind}, untouched: undone in the moved directory`, async () => {
      const { base, dir, outside } = setup(files);
      const opened = await openDirChain(base, ["dir"]);
      const moving = new MovingDir(opened, () => renameSync(dir, outside));
      const refused = await writeFileIn(moving, "f.txt", "ours\n", { exclusive }).then(() => undefined, (error: unknown) => error);
      await opened.close();
      expect((refused as UnsafePathError).reason).toBe("moved");
      const now: Record<string, string> = {};
      for (const name of names(outside)) now[name] = readFileSync(path.join(outside, name), "utf8");
      expect(now).toEqual(after);
      expect(readdirSync(outside).filter(isTempFileName)).toEqual([]);
    });
  }
});
