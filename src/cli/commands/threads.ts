import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { z } from "zod";
import { listThreads } from "../../storage/threads.js";
import type { GraphName, ReadyGraph } from "../../../graphs/shared.js";
import { CliError } from "../errors.js";
import { parseFlags, STORAGE_OPTIONS, storageFlagsSchema } from "../flags.js";
import { threadStatus, type ThreadStatus } from "../pending.js";
import { REMOTE_OPTIONS, remoteFlagsSchema, remoteShow, remoteTarget, remoteThreadRows } from "../remote.js";
import { formatPending, type Output } from "../render.js";
import { localAnswerRoute, parseThreadId, readerGraph, withSession, type Session } from "../session.js";
import type { ThreadEntry } from "../thread-registry.js";

const listFlags = z.object({ ...storageFlagsSchema, ...remoteFlagsSchema, json: z.boolean().optional() });
const LIST_OPTIONS = { ...STORAGE_OPTIONS, ...REMOTE_OPTIONS, json: { type: "boolean" } } as const;

interface ThreadRow {
  threadId: string;
  graph: string | null;
  updatedAt: string | null;
  status: string;
}

/** The `threads` table (or JSON), local or from a server. */
function printThreadRows(rows: readonly ThreadRow[], json: boolean | undefined, empty: string, output: Output): void {
  if (json) {
    output.out(JSON.stringify(rows, null, 2));
    return;
  }
  if (rows.length === 0) {
    output.out(empty);
    return;
  }
  const width = Math.max(6, ...rows.map((r) => r.threadId.length));
  output.out(`${"THREAD".padEnd(width)}  ${"GRAPH".padEnd(7)}  ${"UPDATED".padEnd(24)}  STATUS`);
  for (const r of rows) output.out(`${r.threadId.padEnd(width)}  ${(r.graph ?? "?").padEnd(7)}  ${(r.updatedAt ?? "").padEnd(24)}  ${r.status}`);
}

function statusWord(status: ThreadStatus): string {
  if (status.pending) return `waiting for approval (${status.pending.actionRequests.length} call${status.pending.actionRequests.length === 1 ? "" : "s"})`;
  if (status.lost) return "run lost (start it again with its input; see show)";
  return status.hasNext ? "interrupted (run it again to continue)" : "done";
}

/** Reads every thread's status with one reader graph per graph kind. */
async function withReaders<T>(session: Session, use: (status: (id: string, entry: ThreadEntry | undefined) => Promise<ThreadStatus>) => Promise<T>): Promise<T> {
  const readers = new Map<GraphName, Promise<ReadyGraph>>();
  try {
    return await use(async (threadId, entry) => {
      const kind = entry?.graph ?? "devops";
      let reader = readers.get(kind);
      if (!reader) readers.set(kind, (reader = readerGraph(session, entry ? { ...entry, policy: null } : undefined, threadId)));
      return threadStatus((await reader).graph, threadId);
    });
  } finally {
    for (const reader of readers.values()) await (await reader).close();
  }
}

export async function threadsCommand(argv: string[], output: Output): Promise<number> {
  const { flags, positionals } = parseFlags("threads", argv, LIST_OPTIONS, listFlags);
  if (positionals.length > 0) throw new CliError("threads takes no arguments (did you mean show THREAD?)", 2);
  const target = remoteTarget(flags);
  if (target) {
    printThreadRows(await remoteThreadRows(target), flags.json, `no threads waiting for approval on ${target.url}`, output);
    return 0;
  }
  return withSession(flags, async (session) => {
    const entries = new Map((await session.registry.list()).map((e) => [e.threadId, e]));
    const summaries = await listThreads(session.checkpointer);
    const rows = await withReaders(session, async (status) =>
      Promise.all(
        summaries.map(async (s) => {
          const entry = entries.get(s.threadId);
          const st = await status(s.threadId, entry);
          return { threadId: s.threadId, graph: entry?.graph ?? null, updatedAt: s.updatedAt ?? null, status: statusWord(st), waiting: st.pending !== undefined, pending: st.pending?.actionRequests ?? [] };
        }),
      ),
    );
    printThreadRows(rows, flags.json, `no threads in ${session.spec}`, output);
    return 0;
  });
}

export async function showCommand(argv: string[], output: Output): Promise<number> {
  const { flags, positionals } = parseFlags("show", argv, LIST_OPTIONS, listFlags);
  if (positionals.length !== 1) throw new CliError("usage: show THREAD [--json]", 2);
  const threadId = parseThreadId(positionals[0]);
  const target = remoteTarget(flags);
  if (target) return remoteShow(target, threadId, flags.json === true, output);
  return withSession(flags, async (session) => {
    const entry = await session.registry.get(threadId);
    const status = await withReaders(session, (read) => read(threadId, entry));
    if (!status.exists) throw new CliError(`no thread ${threadId} in ${session.spec} (guarded-graph threads lists them)`);
    if (flags.json) {
      output.out(JSON.stringify({ threadId, graph: entry?.graph ?? null, status: statusWord(status), pending: status.pending ?? null, ...(status.lost ? { lost: status.lost } : {}) }, null, 2));
      return 0;
    }
    if (status.pending) {
      for (const line of formatPending(threadId, status.pending, localAnswerRoute(flags, session.spec))) output.out(line);
      return 0;
    }
    const messages = (status.values.messages ?? []) as BaseMessage[];
    const last = messages.findLast((m) => AIMessage.isInstance(m));
    output.out(`thread ${threadId}: ${statusWord(status)}; no pending calls`);
    if (status.lost) output.out(status.lost);
    if (last?.text) output.out(`last model message: ${last.text}`);
    return 0;
  });
}
