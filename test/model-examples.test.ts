import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { offlineModelExample } from "../examples/runtime-offline-model.js";
import { storageExample } from "../examples/runtime-storage.js";

const tmp = mkdtempSync(join(tmpdir(), "gg-examples-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("README examples (runtime)", () => {
  it("examples/runtime-offline-model.ts plays the first demo turn against the sandbox", async () => {
    const messages = await offlineModelExample();
    expect(messages.map((m) => m.type)).toEqual(["human", "ai", "tool"]);
    expect(messages[2]?.text).toMatch(/^NAME\s+READY\s+IMAGE\napi/);
  });

  it("examples/runtime-storage.ts runs a claimed call once and reads its result", async () => {
    const spec = `sqlite:${join(tmp, "example.db")}`;
    const first = await storageExample(spec);
    expect(first).toMatchObject({ kind: "sqlite", threads: [], ran: true, result: 'deployment.apps "worker" deleted' });
    const again = await storageExample(spec);
    expect(again.result).toBe('deployment.apps "worker" deleted');
  });
});
