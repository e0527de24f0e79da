import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { PostgresAuditSink } from "../src/audit/postgres.js";
import { PostgresArchivalIndex } from "../src/memory/archival-postgres.js";
import { openCheckpointer } from "../src/storage/checkpointer.js";
import { postgresConfigured, postgresForTests, uniqueName } from "./helpers/postgres.js";
import { nodeArgsFor } from "./helpers/ts-entry.js";

const WORKER = fileURLToPath(new URL("./fixtures/workers/open-checkpointer.ts", import.meta.url));
const SINK_WORKER = fileURLToPath(new URL("./fixtures/workers/open-audit-sink.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** Runs one worker process; resolves with what it printed ("OK" or "ERR …"). */
function openInProcess(url: string, schema: string, startAt: number, worker = WORKER): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, nodeArgsFor(worker, url, schema, String(startAt)), {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NODE_NO_WARNINGS: "1" },
    });
    let out = "";
    let err = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code === 0 && out.trim() !== "") resolve(out.trim());
      else reject(new Error(`worker exited with ${code}: ${err.slice(-2000)}`));
    });
  });
}

describe.runIf(postgresConfigured)("openCheckpointer on a fresh PostgreSQL schema, opened by several processes at once", () => {
  const schemas: string[] = [];
  let admin: pg.Pool | undefined;

  afterAll(async () => {
    for (const schema of schemas) await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin?.end();
  });

  it("every process opens it; the migrations ran once each", async () => {
    const url = await postgresForTests();
    if (!url) return;
    admin ??= new pg.Pool({ connectionString: url, max: 1 });
    // Two rounds, each on its own fresh schema: two processes, then three.
    for (const count of [2, 3]) {
      const schema = uniqueName("gg_ckpt_race");
      schemas.push(schema);
      // Start line far enough ahead for every process to have loaded its modules (about 2–4 s each).
      const startAt = Date.now() + 8_000;
      const outcomes = await Promise.all(Array.from({ length: count }, () => openInProcess(url, schema, startAt)));
      expect(outcomes).toEqual(Array.from({ length: count }, () => "OK"));
      const versions = await admin.query<{ v: number }>(`SELECT v FROM "${schema}".checkpoint_migrations ORDER BY v`);
      const vs = versions.rows.map((r) => r.v);
      expect(vs).toEqual([...new Set(vs)]);
      expect(vs[0]).toBe(0);
      expect(vs).toEqual(vs.map((_v, i) => i));
    }
  });

  it("in one process, concurrent opens of a fresh schema all succeed too", async () => {
    const url = await postgresForTests();
    if (!url) return;
    admin ??= new pg.Pool({ connectionString: url, max: 1 });
    const schema = uniqueName("gg_ckpt_race_local");
    schemas.push(schema);
    const opened = await Promise.all([0, 1, 2, 3].map(() => openCheckpointer(url, { schema })));
    await Promise.all(opened.map((o) => o.close()));
    const versions = await admin.query<{ v: number }>(`SELECT v FROM "${schema}".checkpoint_migrations ORDER BY v`);
    expect(versions.rows.map((r) => r.v)).toEqual(versions.rows.map((_r, i) => i));
  });

  it("the archival memory index: concurrent setups of a fresh schema all succeed", async () => {
    const url = await postgresForTests();
    if (!url) return;
    admin ??= new pg.Pool({ connectionString: url, max: 1 });
    const schema = uniqueName("gg_archival_race");
    schemas.push(schema);
    const indexes = [0, 1, 2, 3].map(() => new PostgresArchivalIndex({ connection: url, schema }));
    try {
      const results = await Promise.allSettled(indexes.map((index) => index.setup()));
      expect(results.map((r) => (r.status === "rejected" ? String((r.reason as Error).message) : "ok"))).toEqual(["ok", "ok", "ok", "ok"]);
    } finally {
      for (const index of indexes) await index.close();
    }
  });

  it("the audit sink: 3 processes opening a fresh table at once all open it and write", async () => {
    const url = await postgresForTests();
    if (!url) return;
    admin ??= new pg.Pool({ connectionString: url, max: 1 });
    for (let round = 0; round < 2; round++) {
      const table = uniqueName("gg_audit_race");
      const startAt = Date.now() + 6_000;
      try {
        const outcomes = await Promise.all([0, 1, 2].map(() => openInProcess(url, table, startAt, SINK_WORKER)));
        expect(outcomes).toEqual(["OK", "OK", "OK"]);
        const rows = await admin.query<{ n: string }>(`SELECT count(*) AS n FROM "${table}"`);
        expect(Number(rows.rows[0]?.n)).toBe(3);
      } finally {
        await admin.query(`DROP TABLE IF EXISTS "${table}"`);
      }
    }
  }, 120_000);

  it("the audit sink creates its table under guarded-graph's DDL lock (the one the checkpointer and the ledger take)", async () => {
    const url = await postgresForTests();
    if (!url) return;
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    const table = uniqueName("gg_audit_lock");
    try {
      await holder.query("SELECT pg_advisory_lock(hashtext('guarded-graph:ddl'))");
      let opened = false;
      const opening = PostgresAuditSink.open({ url, table }).then((sink) => {
        opened = true;
        return sink;
      });
      // While another setup holds the lock, the sink waits and creates nothing.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const during = await holder.query<{ t: string | null }>("SELECT to_regclass($1) AS t", [`"${table}"`]);
      expect(opened).toBe(false);
      expect(during.rows[0]?.t).toBeNull();
      await holder.query("SELECT pg_advisory_unlock(hashtext('guarded-graph:ddl'))");
      const sink = await opening;
      expect(opened).toBe(true);
      await sink.close();
      // Setup released the lock: another session can take it. (Other test files set up their own
      // PostgreSQL stores under the same lock meanwhile, each for a moment: try for up to 10 s.)
      let locked = false;
      for (let i = 0; i < 100 && !locked; i++) {
        const free = await holder.query<{ locked: boolean }>("SELECT pg_try_advisory_lock(hashtext('guarded-graph:ddl')) AS locked");
        locked = free.rows[0]?.locked === true;
        if (!locked) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(locked).toBe(true);
      await holder.query("SELECT pg_advisory_unlock(hashtext('guarded-graph:ddl'))");
    } finally {
      await holder.query(`DROP TABLE IF EXISTS "${table}"`);
      await holder.end();
    }
  }, 60_000);
});
