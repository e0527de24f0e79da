import type pg from "pg";

/**
 * The key of the advisory lock that serialises guarded-graph's DDL: the checkpointer's and archival
 * index's setup, the execution ledger's table and the audit sink's table all take it, so openers of
 * a fresh schema or table never race on CREATE (duplicate pg_type or pg_namespace rows).
 */
export const DDL_LOCK = "guarded-graph:ddl";

/**
 * Runs `body` while holding a session advisory lock on a dedicated connection (other connections of
 * the pool do the work). A process that dies while holding it loses its session, and the server
 * frees the lock.
 */
export async function withDdlLock<T>(pool: pg.Pool, body: () => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let unlocked = false;
  try {
    await client.query("SELECT pg_advisory_lock(hashtext($1))", [DDL_LOCK]);
    try {
      return await body();
    } finally {
      unlocked = await client.query("SELECT pg_advisory_unlock(hashtext($1))", [DDL_LOCK]).then(
        () => true,
        () => false,
      );
    }
  } finally {
    // A connection that may still hold the lock is closed, not returned to the pool (closing frees it).
    client.release(!unlocked);
  }
}
