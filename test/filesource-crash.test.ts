import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

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
    const child = spawn(process.execPath, ["--import", "tsx", SCRIPT, dir], {
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

describe("atomic save under SIGKILL", () => {
  it("leaves the old or the new file whole, never a mix or a truncation", { timeout: 120_000 }, async () => {
    writeFileSync(path.join(dir, "big.txt"), A);
    for (let round = 0; round < 8; round += 1) {
      // Random moment: after 1-3 saves, 0-40 ms into the following ones.
      const saves = await killDuringSaves(1 + Math.floor(Math.random() * 3), Math.floor(Math.random() * 40));
      expect(saves).toBeGreaterThan(0);
      const content = readFileSync(path.join(dir, "big.txt"), "utf8");
      expect(content.length === A.length || content.length === B.length).toBe(true);
      expect(content === A || content === B).toBe(true);
    }
    // Temp files of interrupted saves may remain, hidden, beside the file; the file itself is always whole.
    for (const name of readdirSync(dir).filter((n) => n !== "big.txt")) expect(name).toMatch(/^\.big\.txt\.[0-9a-f]{12}\.tmp$/);
  });
});
