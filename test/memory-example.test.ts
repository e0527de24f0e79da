import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runMemoryQuickstart } from "../examples/memory-quickstart.js";

describe("examples/memory-quickstart.ts", () => {
  it("runs end to end on SQLite", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "gg-memory-example-"));
    try {
      const out = await runMemoryQuickstart(dir);
      expect(String(out.found)).toContain("Ada prefers short answers");
      expect(out.consent).toMatch(/needs a human's consent/);
      expect(readFileSync(path.join(dir, "repo", "src", "app.ts"), "utf8")).toBe("export const answer = 42;\n");
      expect(out.refused).toMatch(/contains a '\.\.' segment/);
      expect(JSON.parse(String(out.info))).toMatchObject({ permission: "read-only", pinned: true });
      expect(JSON.parse(String(out.status))).toEqual([expect.objectContaining({ id: "repo", kind: "stream", state: "active" })]);
      expect(out.prompt).toContain("## Tool usage rules");
      expect(out.rules.find((r) => r.tool === "send_message")?.type).toBe("Terminal");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
