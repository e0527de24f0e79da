import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { inMemoryMemory, MemoryError } from "../src/memory/index.js";
import { DESCRIPTOR_PATHS, FileSource } from "../src/sources/index.js";

// The race the issue found: a second process swaps a checked directory, and a checked file, for
// symlinks to outside the root while loads, saves and creates run. Realpath-then-open let loads return
// the outside file and saves write temp files and replace files outside. Every access now goes through
// descriptors opened from the base without following links (src/sources/safe-fs.ts).

const SWAPPER = fileURLToPath(new URL("./fixtures/memory/swapper.mjs", import.meta.url));
const RUN_MS = Number(process.env.GG_RACE_MS ?? 4000);
const OUTSIDE = "OUTSIDE-SECRET\n";

const root = realpathSync(mkdtempSync(path.join(tmpdir(), "gg-race-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Every file under a directory, with its content, for a before/after comparison. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else out[path.relative(dir, p)] = entry.isFile() ? readFileSync(p, "utf8") : `<${entry.isSymbolicLink() ? "link" : "other"}>`;
    }
  };
  walk(dir);
  return out;
}

describe.skipIf(process.platform === "win32")("FileSource against a second process swapping paths for symlinks", () => {
  it("never reads or writes outside the root", { timeout: RUN_MS + 60_000 }, async () => {
    const base = path.join(root, "base");
    const outside = path.join(root, "outside");
    mkdirSync(path.join(base, "dir"), { recursive: true });
    mkdirSync(path.join(outside, "dir"), { recursive: true });
    writeFileSync(path.join(base, "dir", "file.txt"), "inside 0\n");
    writeFileSync(path.join(outside, "dir", "file.txt"), OUTSIDE);
    const outsideBefore = snapshot(outside);
    const outsideMtime = statSync(path.join(outside, "dir")).mtimeMs;

    const { memory } = inMemoryMemory({ namespace: ["race"] });
    const files = new FileSource({ id: "race", baseDir: base, rules: [{ pattern: "**", permission: "read-write" }], memory });

    const swapper = spawn(process.execPath, [SWAPPER, base, outside], { stdio: ["ignore", "pipe", "inherit"] });
    let swapperOut = "";
    swapper.stdout.on("data", (d: Buffer) => (swapperOut += d.toString()));
    await new Promise((r) => setTimeout(r, 200));

    const counts = { loads: 0, loadOk: 0, outsideReads: 0, saves: 0, saveOk: 0, creates: 0, createOk: 0, refused: 0, otherErrors: [] as string[] };
    const reasons: Record<string, number> = {};
    const deadline = Date.now() + RUN_MS;
    const attempt = async <T>(fn: () => Promise<T>): Promise<T | undefined> => {
      try {
        return await fn();
      } catch (error) {
        if (error instanceof MemoryError) {
          counts.refused += 1;
          reasons[error.rule] = (reasons[error.rule] ?? 0) + 1;
        }
        else counts.otherErrors.push(String(error));
        return undefined;
      }
    };
    const worker = async (id: number) => {
      for (let i = 0; Date.now() < deadline; i += 1) {
        counts.loads += 1;
        const loaded = await attempt(() => files.load("dir/file.txt"));
        if (loaded) {
          counts.loadOk += 1;
          if (loaded.content === OUTSIDE || loaded.content?.includes("OUTSIDE")) counts.outsideReads += 1;
          const block = await memory.requireBlock(loaded.label);
          await memory.putBlock({ ...block, content: `inside ${id}-${i}\n` });
          counts.saves += 1;
          if (await attempt(() => files.save({ path: "dir/file.txt" }))) counts.saveOk += 1;
        }
        counts.creates += 1;
        if (await attempt(() => files.create(`dir/new-${id}-${i}.txt`, `created ${id}-${i}\n`))) counts.createOk += 1;
      }
    };
    await Promise.all([0, 1, 2, 3].map(worker));

    swapper.kill("SIGTERM");
    await new Promise((r) => swapper.on("exit", r));
    const swaps = JSON.parse(swapperOut.trim() || '{"swaps":0}') as { swaps: number; failures: number };

    const outsideAfter = snapshot(outside);
    const outsideWrites = Object.keys(outsideAfter).filter((k) => outsideAfter[k] !== outsideBefore[k]).length +
      Object.keys(outsideBefore).filter((k) => !(k in outsideAfter)).length;
    console.log(
      `race (${DESCRIPTOR_PATHS ? "descriptor paths" : "path checks"}, ${RUN_MS} ms): ${swaps.swaps} swaps by the second process; ` +
        `${counts.loads} loads (${counts.loadOk} ok, ${counts.outsideReads} outside), ${counts.saves} saves (${counts.saveOk} ok), ` +
        `${counts.creates} creates (${counts.createOk} ok), ${counts.refused} refusals, ${outsideWrites} outside writes; refusals by rule: ${JSON.stringify(reasons)}; swapper: ${JSON.stringify(swaps)}`,
    );
    expect(counts.otherErrors).toEqual([]);
    expect(swaps.swaps).toBeGreaterThan(50);
    // Both sides really ran: some operations succeeded between swaps, some met a swap and were refused.
    expect(counts.loadOk).toBeGreaterThan(0);
    expect(counts.saveOk + counts.createOk).toBeGreaterThan(0);
    expect(counts.refused).toBeGreaterThan(0);
    // The window between the path check and the open was hit (refused by the descriptor walk, not the realpath check).
    expect(reasons["file-source:path-swapped"] ?? 0).toBeGreaterThan(0);
    expect(counts.outsideReads).toBe(0);
    expect(outsideWrites).toBe(0);
    expect(outsideAfter).toEqual(outsideBefore);
    expect(statSync(path.join(outside, "dir")).mtimeMs).toBe(outsideMtime); // not even a temp file came and went
    // Whatever the swaps left, every file of the root holds inside content.
    for (const [name, content] of Object.entries(snapshot(base))) {
      if (content === "<link>") continue;
      expect(content, name).toMatch(/^(inside|created) /);
    }
  });
});
