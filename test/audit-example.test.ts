import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { benchAudit } from "../bench/audit.bench.js";
import { auditLogExample } from "../examples/audit-log.js";
import { postgresForTests } from "./helpers/postgres.js";

describe("audit example and benchmark", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "gg-audit-example-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("examples/audit-log.ts stores one redacted record and a bounded preview", async () => {
    const { records, preview } = await auditLogExample(dir);
    expect(records).toHaveLength(1);
    expect(records[0]?.args).toBe('{"headers":{"Authorization":"[REDACTED]"},"url":"https://api.example.com"}');
    const lines = (await readFile(join(dir, "audit.jsonl"), "utf8")).trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain("sk-123");
    expect(preview.length).toBeLessThanOrEqual(200);
    expect(preview).toMatch(/\[89,8\d\d chars truncated\]/);
  });

  it("bench/audit.bench.ts measures every durable sink it is given", async () => {
    const postgresUrl = await postgresForTests();
    const results = await benchAudit({ quick: true, postgresUrl });
    expect(results.map((r) => r.sink)).toEqual(postgresUrl ? ["jsonl", "sqlite", "postgres"] : ["jsonl", "sqlite"]);
    for (const result of results) expect(result.recordsPerSecond).toBeGreaterThan(0);
  });
});
