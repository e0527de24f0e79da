import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBlockEditTool, createBlockTool, createRecallTool } from "../src/builtin/index.js";
import { openPostgresMemory, type MemoryBackend } from "../src/memory/index.js";
import { dropSchema, postgresConfigured, postgresForTests, uniqueName } from "./helpers/postgres.js";
import { callTool, callToolJson } from "./helpers/tool-call.js";

describe.runIf(postgresConfigured)("memory on PostgreSQL", () => {
  let url: string | undefined;
  const schema = uniqueName("gg_memory");
  const namespace = ["memory", "pg-agent"];
  let backend: (MemoryBackend & { archival: { close(): Promise<void> } }) | undefined;

  beforeAll(async () => {
    url = await postgresForTests();
    if (url) backend = await openPostgresMemory({ url, namespace, schema });
  });

  afterAll(async () => {
    await backend?.close();
    if (url) await dropSchema(url, schema);
  });

  it("runs block, block_edit and recall on PostgresStore with tsvector search ranked by relevance", async ({ skip }) => {
    if (!backend) return skip();
    const { memory } = backend;
    const block = createBlockTool({ memory });
    const edit = createBlockEditTool({ memory });
    const recall = createRecallTool({ memory });
    await memory.createBlock({ label: "persona", content: "I help with deployments", type: "core" });
    await callTool(edit, { op: "append", label: "persona", content: "I never deploy on Fridays" });
    await callTool(block, { op: "pin", label: "persona" });
    expect(await callToolJson(block, { op: "info", label: "persona" })).toMatchObject({ pinned: true, type: "core" });

    await callTool(recall, { op: "insert", content: "Database migrations run before each deployment" });
    await callTool(recall, { op: "insert", content: "Deployments deploy the deployed build; deploying twice is safe", label: "deploys" });
    await callTool(recall, { op: "insert", content: "The office plant needs water on Mondays" });
    const hits = await callToolJson<{ content: string; score: number }[]>(recall, { op: "search", query: "deploy", limit: 5 });
    expect(hits.map((h) => h.content)).toEqual([
      "Deployments deploy the deployed build; deploying twice is safe",
      "Database migrations run before each deployment",
    ]);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    expect(await callToolJson(recall, { op: "search", query: "spaceship" })).toEqual([]);
    // Quotes and tsquery operators in the query are plain words, never syntax.
    expect(await callToolJson<unknown[]>(recall, { op: "search", query: "plant' | !water & (" })).toHaveLength(1);
  });

  it("uses the GIN index and refuses UPDATE and DELETE of archival rows", async ({ skip }) => {
    if (!url || !backend) return skip();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query("SET enable_seqscan = off");
      const plan = await client.query(
        `EXPLAIN SELECT id FROM "${schema}".archival_entries WHERE tsv @@ to_tsquery('english', 'deploy')`,
      );
      expect(JSON.stringify(plan.rows)).toMatch(/archival_entries_tsv/);
      await expect(client.query(`UPDATE "${schema}".archival_entries SET content = 'x'`)).rejects.toThrow(/immutable/);
      await expect(client.query(`DELETE FROM "${schema}".archival_entries`)).rejects.toThrow(/immutable/);
    } finally {
      await client.end();
    }
  });

  it("keeps blocks and archival entries after close and reopen", async ({ skip }) => {
    if (!url || !backend) return skip();
    await backend.close();
    backend = await openPostgresMemory({ url, namespace, schema });
    const { memory } = backend;
    expect((await memory.requireBlock("persona")).content).toBe("I help with deployments\nI never deploy on Fridays");
    expect((await memory.requireBlock("persona")).pinned).toBe(true);
    expect((await memory.searchArchival("plant water")).map((h) => h.content)).toEqual(["The office plant needs water on Mondays"]);
    expect(await memory.archival!.count(namespace)).toBe(3);
    expect(await memory.archival!.count(["memory", "someone-else"])).toBe(0);
  });
});
