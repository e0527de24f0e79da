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
    const rows = source.db.prepare("SELECT DISTINCT thread_id FROM checkpoints").all() as { thread_id: string }[];
    return rows.map((row) => row.thread_id);
  }
  const result = await source.pool.query<{ thread_id: string }>(
    `SELECT DISTINCT thread_id FROM "${source.schema}".checkpoints`,
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
