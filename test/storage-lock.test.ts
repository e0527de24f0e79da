import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { acquireThreadLock } from "../src/storage/lock.js";
import { postgresConfigured, postgresForTests, uniqueName } from "./helpers/postgres.js";

const tmp = mkdtempSync(join(tmpdir(), "gg-lock-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("acquireThreadLock (SQLite)", () => {
  const spec = `sqlite:${join(tmp, "locks.db")}`;

  it("gives a thread to one holder at a time and frees it on release", async () => {
    const first = await acquireThreadLock(spec, "t1", { owner: "worker-a" });
    expect(first?.owner).toBe("worker-a");
    expect(await acquireThreadLock(spec, "t1", { owner: "worker-b" })).toBeNull();
    const other = await acquireThreadLock(spec, "t2", { owner: "worker-b" });
    expect(other).not.toBeNull();
    await first?.release();
    await first?.release();
    const second = await acquireThreadLock(spec, "t1", { owner: "worker-b" });
    expect(second?.owner).toBe("worker-b");
    await second?.release();
    await other?.release();
  });

  it("lets a new owner take over a lease that expired after a crash", async () => {
    const path = join(tmp, "crash.db");
    const crashed = await acquireThreadLock(`sqlite:${path}`, "t", { owner: "dead", leaseMs: 60_000 });
    expect(crashed).not.toBeNull();
    // Simulate the crash: the holder stops renewing and its lease lies in the past.
    const db = new Database(path);
    db.prepare("UPDATE guarded_graph_thread_locks SET expires_at = ? WHERE owner = 'dead'").run(Date.now() - 1);
    db.close();
    const successor = await acquireThreadLock(`sqlite:${path}`, "t", { owner: "alive" });
    expect(successor?.owner).toBe("alive");
    // The crashed holder's late release must not free the successor's lock.
    await crashed?.release();
    expect(await acquireThreadLock(`sqlite:${path}`, "t", { owner: "third" })).toBeNull();
    await successor?.release();
  });

  it("renews the lease while held, so a live holder is never taken over", async () => {
    const spec2 = `sqlite:${join(tmp, "renew.db")}`;
    const holder = await acquireThreadLock(spec2, "t", { owner: "live", leaseMs: 60 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await acquireThreadLock(spec2, "t", { owner: "thief", leaseMs: 60 })).toBeNull();
    await holder?.release();
    expect(await acquireThreadLock(spec2, "t", { owner: "next" })).not.toBeNull();
  });

  it("refuses an empty thread id and a bad lease", async () => {
    await expect(acquireThreadLock(spec, "")).rejects.toThrow(/thread id is empty/);
    await expect(acquireThreadLock(spec, "t", { leaseMs: -5 })).rejects.toThrow();
  });
});

describe("acquireThreadLock (memory)", () => {
  it("is exclusive per thread within the process", async () => {
    const name = `memory:${uniqueName("locks")}`;
    const lock = await acquireThreadLock(name, "t");
    expect(await acquireThreadLock(name, "t")).toBeNull();
    await lock?.release();
    expect(await acquireThreadLock(name, "t")).not.toBeNull();
  });
});

describe.runIf(postgresConfigured)("acquireThreadLock (PostgreSQL)", () => {
  it("excludes a second connection until the first releases", async (context) => {
    const url = await postgresForTests();
    if (!url) return context.skip();
    const thread = uniqueName("thread");
    const first = await acquireThreadLock(url, thread, { owner: "a" });
    expect(first).not.toBeNull();
    expect(await acquireThreadLock(url, thread, { owner: "b" })).toBeNull();
    const unrelated = await acquireThreadLock(url, `${thread}-other`, { owner: "b" });
    expect(unrelated).not.toBeNull();
    await first?.release();
    const second = await acquireThreadLock(url, thread, { owner: "b" });
    expect(second).not.toBeNull();
    await second?.release();
    await unrelated?.release();
  });

  it("frees the lock when the holder's connection dies", async (context) => {
    const url = await postgresForTests();
    if (!url) return context.skip();
    const thread = uniqueName("thread");
    const owner = uniqueName("owner");
    const holder = await acquireThreadLock(url, thread, { owner });
    expect(holder).not.toBeNull();
    const pg = (await import("pg")).default;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [
      `guarded-graph lock ${owner}`.slice(0, 63),
    ]);
    await admin.end();
    let successor = null;
    for (let attempt = 0; attempt < 50 && successor === null; attempt++) {
      successor = await acquireThreadLock(url, thread, { owner: "successor" });
      if (successor === null) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(successor).not.toBeNull();
    await successor?.release();
    await holder?.release();
  });
});
