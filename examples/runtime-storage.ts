import { fileURLToPath } from "node:url";
import { acquireThreadLock, listThreads, openCheckpointer, openLedger } from "guarded-graph";

/** Storage in one place: a checkpointer, a per-thread lock and the exactly-once ledger. */
export async function storageExample(spec = "sqlite:.guarded-graph/checkpoints.db") {
  const { checkpointer, kind, close } = await openCheckpointer(spec);
  try {
    const threads = await listThreads(checkpointer); // [{ threadId, updatedAt }], newest first

    // Only one worker at a time may run a thread; the other gets null and moves on.
    const lock = await acquireThreadLock(spec, "thread-42", { leaseMs: 30_000 });
    if (lock === null) return { kind, threads, ran: false };
    try {
      const ledger = await openLedger(spec);
      try {
        const key = "thread-42/call_1_0"; // the guard uses the call's idempotency key
        if ((await ledger.claim(key, lock.owner, 60_000)) === "claimed") {
          await ledger.complete(key, "deployment.apps \"worker\" deleted");
        }
        return { kind, threads, ran: true, result: await ledger.result(key) };
      } finally {
        await ledger.close();
      }
    } finally {
      await lock.release();
    }
  } finally {
    await close();
  }
}

// Needs better-sqlite3 for sqlite: specs (npm install better-sqlite3); "memory:" needs nothing, postgres:// needs pg.
if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(await storageExample(process.argv[2]));
