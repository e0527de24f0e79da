import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { inMemoryMemory } from "../src/memory/index.js";
import { FileSource, isTempFileName } from "../src/sources/index.js";
import { nodeArgsFor } from "./helpers/ts-entry.js";

const SCRIPT = fileURLToPath(new URL("./fixtures/memory/save-loop.ts", import.meta.url));
const SIZE_A = 3 * 1024 * 1024;
const SIZE_B = 5 * 1024 * 1024;
const A = "A".repeat(SIZE_A) + "\nend-A\n";
const B = "B".repeat(SIZE_B) + "\nend-B\n";
const dir = mkdtempSync(path.join(tmpdir(), "gg-crash-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the save loop until it has saved `minSaves` times, then waits `extraMs` and SIGKILLs it mid-flight. */
function killDuringSaves(minSaves: number, extraMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, nodeArgsFor(SCRIPT, dir), {
      env: { ...process.env, CONTENT_A: String(SIZE_A), CONTENT_B: String(SIZE_B) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let saves = 0;
    let stderr = "";
    let armed = false;
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.stdout.on("data", (d: Buffer) => {
      saves += d.toString().split("saved").length - 1;
      if (saves >= minSaves && !armed) {
        armed = true;
        setTimeout(() => child.kill("SIGKILL"), extraMs);
      }
    });
    child.on("exit", (_code, signal) => (signal === "SIGKILL" ? resolve(saves) : reject(new Error(`child exited without being killed: ${stderr}`))));
  });
}

const tempFiles = () => readdirSync(dir).filter(isTempFileName);

describe("atomic save under SIGKILL", () => {
  it("leaves the old or the new file whole, never a mix or a truncation; the next open removes the temp files", { timeout: 300_000 }, async () => {
    writeFileSync(path.join(dir, "big.txt"), A);
    let saves = 0;
    let tempLeft = 0;
    const rounds = 8;
    for (let round = 0; round < rounds; round += 1) {
      // Random moment: after 1-3 saves, 0-40 ms into the following ones.
      const saved = await killDuringSaves(1 + Math.floor(Math.random() * 3), Math.floor(Math.random() * 40));
      expect(saved).toBeGreaterThan(0);
      saves += saved;
      const content = readFileSync(path.join(dir, "big.txt"), "utf8");
      expect(content.length === A.length || content.length === B.length).toBe(true);
      expect(content === A || content === B).toBe(true);
      // Only FileSource temp files may be left beside it (the next round's first load removes them).
      const left = readdirSync(dir).filter((n) => n !== "big.txt");
      for (const name of left) expect(isTempFileName(name), name).toBe(true);
      tempLeft += left.length;
    }
    // The next open of the directory removes what the killed saves left.
    const { memory } = inMemoryMemory({ namespace: ["crash-after"] });
    const files = new FileSource({ id: "after", baseDir: dir, rules: [{ pattern: "**", permission: "read-write" }], memory, maxFileBytes: 64 * 1024 * 1024 });
    await files.load("big.txt");
    console.log(`SIGKILL loop: ${rounds} kills during ${saves} saves; temp files found after a kill: ${tempLeft}; after the next open: ${tempFiles().length}`);
    expect(tempFiles()).toEqual([]);
    expect(readdirSync(dir)).toEqual(["big.txt"]);
  });

  it("a temp file of a live process is left alone; one of a dead process is removed", async () => {
    const live = `.gg-${process.ppid.toString(36)}-0123abcd.tmp`;
    const dead = `.gg-${(2 ** 22 + 12345).toString(36)}-89abcdef.tmp`; // above the default pid_max: no such process
    writeFileSync(path.join(dir, live), "x");
    writeFileSync(path.join(dir, dead), "y");
    const { memory } = inMemoryMemory({ namespace: ["crash-live"] });
    const files = new FileSource({ id: "live", baseDir: dir, rules: [{ pattern: "**", permission: "read-write" }], memory, maxFileBytes: 64 * 1024 * 1024 });
    await files.load("big.txt");
    expect(tempFiles()).toEqual([live]);
    rmSync(path.join(dir, live));
  });
});
