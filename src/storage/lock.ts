import { z } from "zod";
import { defaultOwner } from "./owner.js";
import { ensureSqliteDirectory, parseStorageSpec } from "./spec.js";
import type pg from "pg";
import { loadBetterSqlite3, loadPg } from "../optional/index.js";
import { prepareSqliteFile } from "./sqlite-file.js";

export interface ThreadLock {
  readonly threadId: string;
  readonly owner: string;
  /** Gives the lock up; safe to call more than once. */
  release(): Promise<void>;
}

export interface ThreadLockOptions {
  /** SQLite only: how long a lease lasts without renewal (renewed every third of it while held). Default 30 s. */
  leaseMs?: number;
  /** Identity recorded with the lock; default host:pid:random. */
  owner?: string;
}

const optionsSchema = z.lazy(() =>
  z.object({
    leaseMs: z.number().int().positive().default(30_000),
    owner: z.string().min(1).optional(),
  }),
);
const threadIdSchema = z.lazy(() => z.string().min(1, "thread id is empty"));

const LOCK_TABLE = "guarded_graph_thread_locks";
/** First key of the two-key advisory lock, so our locks never collide with another app's single-key locks. */
const ADVISORY_NAMESPACE = "guarded-graph:thread";

/**
 * Takes the execution lock of one thread so two workers resuming the same thread never both run it.
 * Resolves to null when another holder has it. PostgreSQL: a session advisory lock held on a
 * dedicated connection (released by the server if the worker dies). SQLite: a lease row taken in
 * `BEGIN IMMEDIATE`, renewed while held; an expired lease (crashed worker) can be taken over.
 */
export async function acquireThreadLock(
  spec: string,
  threadId: string,
  options: ThreadLockOptions = {},
): Promise<ThreadLock | null> {
  const id = threadIdSchema.parse(threadId);
  const { leaseMs, owner: givenOwner } = optionsSchema.parse(options);
  const owner = givenOwner ?? defaultOwner();
  const parsed = parseStorageSpec(spec);
  switch (parsed.kind) {
    case "memory":
      return acquireMemoryLock(parsed.name, id, owner);
    case "sqlite":
      return acquireSqliteLock(parsed.path, id, owner, leaseMs);
    case "postgres":
      return acquirePostgresLock(parsed.url, id, owner);
  }
}

const memoryLocks = new Map<string, Map<string, string>>();

function acquireMemoryLock(space: string, threadId: string, owner: string): ThreadLock | null {
  let held = memoryLocks.get(space);
  if (!held) memoryLocks.set(space, (held = new Map()));
  if (held.has(threadId)) return null;
  held.set(threadId, owner);
  const locks = held;
  return {
    threadId,
    owner,
    release: async () => {
      if (locks.get(threadId) === owner) locks.delete(threadId);
    },
  };
}

function acquireSqliteLock(path: string, threadId: string, owner: string, leaseMs: number): ThreadLock | null {
  ensureSqliteDirectory(path);
  const db = new (loadBetterSqlite3("SQLite storage (sqlite:PATH)"))(path);
  prepareSqliteFile(db, {
    wal: false,
    schema: () =>
      db.exec(`CREATE TABLE IF NOT EXISTS ${LOCK_TABLE} (thread_id TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_at INTEGER NOT NULL)`),
  });
  const select = db.prepare(`SELECT owner, expires_at FROM ${LOCK_TABLE} WHERE thread_id = ?`);
  const upsert = db.prepare(
    `INSERT INTO ${LOCK_TABLE} (thread_id, owner, expires_at) VALUES (?, ?, ?)
     ON CONFLICT(thread_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at`,
  );
  const take = db
    .transaction((): boolean => {
      const now = Date.now();
      const row = select.get(threadId) as { owner: string; expires_at: number } | undefined;
      if (row && row.expires_at > now) return false;
      upsert.run(threadId, owner, now + leaseMs);
      return true;
    })
    .immediate;
  let taken: boolean;
  try {
    taken = take();
  } catch (error) {
    db.close();
    throw error;
  }
  if (!taken) {
    db.close();
    return null;
  }
  const renew = db.prepare(`UPDATE ${LOCK_TABLE} SET expires_at = ? WHERE thread_id = ? AND owner = ?`);
  const remove = db.prepare(`DELETE FROM ${LOCK_TABLE} WHERE thread_id = ? AND owner = ?`);
  const timer = setInterval(() => {
    try {
      renew.run(Date.now() + leaseMs, threadId, owner);
    } catch {
      // A busy database delays renewal; the next tick tries again before the lease runs out.
    }
  }, Math.max(1, Math.floor(leaseMs / 3)));
  timer.unref();
  return releasedOnce(threadId, owner, async () => {
    clearInterval(timer);
    try {
      remove.run(threadId, owner);
    } finally {
      db.close();
    }
  });
}

/**
 * Connections that hold thread locks, one pool per database URL, kept for the process: a lock
 * attempt reuses an idle session instead of opening a connection (a connection's set-up cost about
 * as much CPU as the rest of the attempt, and workers that wait for a busy thread try every 100 ms).
 * Idle sessions hold no lock (unlocked before they go back) and do not keep the process alive.
 */
const lockPools = new Map<string, pg.Pool>();
const IDLE_LOCK_SESSION = "guarded-graph lock (idle)";
/** Pooled sessions that already ignore their connection's errors. */
const guardedClients = new WeakSet<object>();

function lockPool(url: string): pg.Pool {
  let pool = lockPools.get(url);
  if (!pool) {
    pool = new (loadPg("PostgreSQL storage (postgres://URL)")).Pool({ connectionString: url, max: 20, idleTimeoutMillis: 10_000, allowExitOnIdle: true, application_name: IDLE_LOCK_SESSION });
    // A dropped idle connection frees its advisory locks on the server; it must not crash this process.
    pool.on("error", () => undefined);
    lockPools.set(url, pool);
  }
  return pool;
}

async function acquirePostgresLock(url: string, threadId: string, owner: string): Promise<ThreadLock | null> {
  const client = await lockPool(url).connect();
  // A held session's connection may drop (which frees its lock on the server): not a crash here.
  if (!guardedClients.has(client)) {
    guardedClients.add(client);
    client.on("error", () => undefined);
  }
  let locked: boolean;
  try {
    // The session names its holder while it holds the lock (pg_stat_activity.application_name).
    const result = await client.query<{ locked: boolean }>(
      "SELECT pg_try_advisory_lock(hashtext($1), hashtext($2)) AS locked, set_config('application_name', $3, false)",
      [ADVISORY_NAMESPACE, threadId, `guarded-graph lock ${owner}`.slice(0, 63)],
    );
    locked = result.rows[0]?.locked === true;
  } catch (error) {
    // Whether the lock was taken is unknown: the session is closed, which frees it.
    client.release(true);
    throw error;
  }
  if (!locked) {
    client.release();
    return null;
  }
  return releasedOnce(threadId, owner, async () => {
    // Back to the pool only once unlocked; when the unlock fails (connection lost) the session is
    // closed instead, which frees its advisory locks on the server.
    const unlocked = await client
      .query<{ unlocked: boolean }>("SELECT pg_advisory_unlock(hashtext($1), hashtext($2)) AS unlocked, set_config('application_name', $3, false)", [ADVISORY_NAMESPACE, threadId, IDLE_LOCK_SESSION])
      .then((result) => result.rows[0]?.unlocked === true, () => false);
    client.release(!unlocked);
  });
}

/** The held lock whose `release` gives it up on the first call only (later calls resolve at once). */
function releasedOnce(threadId: string, owner: string, giveUp: () => Promise<void>): ThreadLock {
  let released = false;
  return {
    threadId,
    owner,
    release: async () => {
      if (released) return;
      released = true;
      await giveUp();
    },
  };
}
