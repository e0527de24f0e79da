import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { threadSourceOf, type ThreadSource } from "./thread-source.js";
import { ErrorCode, StorageError } from "../errors/index.js";

export interface ThreadSummary {
  threadId: string;
  /** ISO time of the thread's latest checkpoint. */
  updatedAt?: string;
}

async function threadIdsFromSql(source: ThreadSource): Promise<string[]> {
  if (source.kind === "sqlite") {
    if (!source.db.open) throw new StorageError(ErrorCode.STORAGE_CLOSED, "cannot list threads: the SQLite checkpointer is closed");
    const table = source.db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'checkpoints'")
      .get();
    if (table === undefined) return [];
    // A thread whose only trace is writes under checkpoints never saved (see unsavedCheckpointWrites) is listed too.
    const writes = source.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'writes'").get() !== undefined;
    const sql = writes ? "SELECT thread_id FROM checkpoints UNION SELECT thread_id FROM writes WHERE checkpoint_ns = ''" : "SELECT DISTINCT thread_id FROM checkpoints";
    const rows = source.db.prepare(sql).all() as { thread_id: string }[];
    return rows.map((row) => row.thread_id);
  }
  const result = await source.pool.query<{ thread_id: string }>(
    `SELECT thread_id FROM "${source.schema}".checkpoints UNION SELECT thread_id FROM "${source.schema}".checkpoint_writes WHERE checkpoint_ns = ''`,
  );
  return result.rows.map((row) => row.thread_id);
}

async function threadIdsFromList(checkpointer: BaseCheckpointSaver): Promise<string[]> {
  const ids = new Set<string>();
  for await (const tuple of checkpointer.list({})) {
    const threadId = tuple.config.configurable?.thread_id;
    if (typeof threadId === "string") ids.add(threadId);
  }
  return [...ids];
}

/**
 * Every thread the checkpointer holds, with the time of its latest checkpoint, newest first.
 * SQLite and PostgreSQL checkpointers opened by `openCheckpointer` are read with one SQL query;
 * any other saver is scanned through `list({})`.
 */
export async function listThreads(checkpointer: BaseCheckpointSaver): Promise<ThreadSummary[]> {
  const source = threadSourceOf(checkpointer);
  const ids = source ? await threadIdsFromSql(source) : await threadIdsFromList(checkpointer);
  const summaries = await Promise.all(
    ids.map(async (threadId): Promise<ThreadSummary> => {
      const latest = await checkpointer.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } });
      const ts = latest?.checkpoint.ts;
      return ts ? { threadId, updatedAt: ts } : { threadId };
    }),
  );
  return summaries.sort(
    (a, b) => (b.updatedAt ?? "").localeCompare(a.updatedAt ?? "") || a.threadId.localeCompare(b.threadId),
  );
}

/** Checkpoint writes saved under checkpoint ids the checkpointer never saved (see `unsavedCheckpointWrites`). */
export interface UnsavedWrites {
  /** The checkpoint ids the writes name, oldest first. */
  checkpointIds: string[];
  /** The channels written (e.g. `messages`, `__interrupt__`). */
  channels: string[];
}

/**
 * Writes of a thread's root namespace saved under checkpoint ids newer than its latest checkpoint
 * (`latestId`; undefined: the thread has no checkpoint) that have no checkpoint of their own.
 * Under LangGraph's `durability: "async"` a step's checkpoint is saved in the background, chained
 * after the one before, while its tasks' writes are saved at once: a process killed in between
 * leaves writes under checkpoint ids that never reach the checkpointer. Read with SQL from the
 * SQLite and PostgreSQL checkpointers `openCheckpointer` opens; undefined for any other saver (it
 * cannot be asked) and when there are none.
 */
export async function unsavedCheckpointWrites(checkpointer: BaseCheckpointSaver, threadId: string, latestId: string | undefined): Promise<UnsavedWrites | undefined> {
  const source = threadSourceOf(checkpointer);
  if (!source) return undefined;
  let rows: { checkpoint_id: string; channel: string }[];
  if (source.kind === "sqlite") {
    if (!source.db.open) throw new StorageError(ErrorCode.STORAGE_CLOSED, "cannot read writes: the SQLite checkpointer is closed");
    const table = source.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'writes'").get();
    if (table === undefined) return undefined;
    rows = source.db
      .prepare(
        `SELECT w.checkpoint_id, w.channel FROM writes w WHERE w.thread_id = ? AND w.checkpoint_ns = '' AND w.checkpoint_id > ?
         AND NOT EXISTS (SELECT 1 FROM checkpoints c WHERE c.thread_id = w.thread_id AND c.checkpoint_ns = '' AND c.checkpoint_id = w.checkpoint_id)`,
      )
      .all(threadId, latestId ?? "") as { checkpoint_id: string; channel: string }[];
  } else {
    const result = await source.pool.query<{ checkpoint_id: string; channel: string }>(
      `SELECT w.checkpoint_id, w.channel FROM "${source.schema}".checkpoint_writes w WHERE w.thread_id = $1 AND w.checkpoint_ns = '' AND w.checkpoint_id > $2
       AND NOT EXISTS (SELECT 1 FROM "${source.schema}".checkpoints c WHERE c.thread_id = w.thread_id AND c.checkpoint_ns = '' AND c.checkpoint_id = w.checkpoint_id)`,
      [threadId, latestId ?? ""],
    );
    rows = result.rows;
  }
  if (rows.length === 0) return undefined;
  return {
    checkpointIds: [...new Set(rows.map((r) => r.checkpoint_id))].sort(),
    channels: [...new Set(rows.map((r) => r.channel))].sort(),
  };
}
