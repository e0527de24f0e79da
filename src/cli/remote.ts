// The CLI against a LangGraph server (`--url`, or GUARDED_GRAPH_URL): the same threads / show /
// approve / reject / edit commands, through @langchain/langgraph-sdk instead of a local database.
// Decisions are built and checked by the same code as the local mode (decisions.ts), pending calls
// are printed by the same renderer (render.ts).
import type { Client, Thread } from "@langchain/langgraph-sdk";
import { z } from "zod";
import type { ApprovalRequest } from "../guard/approval/payload.js";
import type { ApprovalResume } from "../guard/approval/resume.js";
import { resumeFromAnswers, type Answers } from "./decisions.js";
import { CliError } from "./errors.js";
import { parseApprovalRequest } from "./pending.js";
import { compactJson, excerpt, formatPending, label, shellWord, type AnswerRoute, type Output } from "./render.js";

/** Flags of the remote mode, added to threads / show / approve / reject / edit. */
export const REMOTE_OPTIONS = {
  url: { type: "string" },
  "api-key": { type: "string" },
} as const;

export const remoteFlagsSchema = {
  url: z.string().min(1).optional(),
  "api-key": z.string().min(1).optional(),
};

interface RemoteTarget {
  url: string;
  apiKey: string | undefined;
  /** The flags a follow-up command needs to reach the same server: always --url; --api-key when the key was given as a flag (a key from GUARDED_GRAPH_API_KEY is not printed). */
  route: AnswerRoute;
}

/**
 * The server to talk to: --url, else GUARDED_GRAPH_URL (undefined: local mode). The key: --api-key,
 * else GUARDED_GRAPH_API_KEY; sent as x-api-key, what the auth handler in langgraph.json reads.
 */
export function remoteTarget(
  flags: { url?: string | undefined; "api-key"?: string | undefined; db?: string | undefined },
  env: Record<string, string | undefined> = process.env,
): RemoteTarget | undefined {
  const raw = flags.url?.trim() || env.GUARDED_GRAPH_URL?.trim();
  if (!raw) {
    // With GUARDED_GRAPH_API_KEYS set, a key on a local thread names its user (local-user.ts).
    if (flags["api-key"] !== undefined && !env.GUARDED_GRAPH_API_KEYS?.trim()) throw new CliError("--api-key goes with --url (or GUARDED_GRAPH_URL): which server is it for?", 2);
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(`--url refused: ${JSON.stringify(raw)} is not a URL; expected e.g. http://localhost:2024`, 2);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new CliError(`--url refused: ${url.protocol} is not http: or https:`, 2);
  if (flags.db !== undefined) throw new CliError("--db and --url contradict each other: threads are either in a local database or on a server", 2);
  const keyFlag = flags["api-key"]?.trim() || undefined;
  const apiKey = keyFlag || env.GUARDED_GRAPH_API_KEY?.trim() || undefined;
  const base = raw.replace(/\/+$/, "");
  return { url: base, apiKey, route: { flags: [`--url ${shellWord(base)}`, ...(keyFlag ? [`--api-key ${shellWord(keyFlag)}`] : [])] } };
}

async function connect(target: RemoteTarget): Promise<Client> {
  const { Client } = await import("@langchain/langgraph-sdk");
  return new Client({ apiUrl: target.url, ...(target.apiKey ? { apiKey: target.apiKey } : {}) });
}

/** The server's answer as one CLI error (401: the key; 404: the thread). */
async function call<T>(target: RemoteTarget, what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/\b401\b/.test(message)) throw new CliError(`${target.url} refused ${what}: ${message} (give a key with --api-key or GUARDED_GRAPH_API_KEY)`);
    throw new CliError(`${target.url}: ${what} failed: ${message}`);
  }
}

/** The guarded-graph approval a server thread waits for, read from `thread.interrupts`. */
function pendingOf(thread: Pick<Thread, "interrupts">): ApprovalRequest | undefined {
  for (const list of Object.values(thread.interrupts ?? {})) {
    for (const item of list) {
      const request = parseApprovalRequest(item.value);
      if (request) return request;
    }
  }
  return undefined;
}

/** How to repeat a command against the same server (the key stays in the environment, never printed). */
function graphOf(thread: Pick<Thread, "metadata">): string | null {
  const graph = thread.metadata?.graph_id;
  return typeof graph === "string" ? graph : null;
}

/** The rows `threads --url` prints (same shape as the local listing). */
interface RemoteThreadRow {
  threadId: string;
  graph: string | null;
  updatedAt: string | null;
  status: string;
  waiting: boolean;
  pending: ApprovalRequest["actionRequests"];
}

/** Threads on the server waiting for a human (status "interrupted"), newest first. */
export async function remoteThreadRows(target: RemoteTarget): Promise<RemoteThreadRow[]> {
  const client = await connect(target);
  const rows: RemoteThreadRow[] = [];
  const seen = new Set<string>();
  for (let offset = 0; ; offset += 100) {
    const page = await call(target, "the thread search", () =>
      client.threads.search({ status: "interrupted", limit: 100, offset, sortBy: "updated_at", sortOrder: "desc" }),
    );
    for (const thread of page) {
      // A server that ignores `offset` would return the same page forever: stop at the first repeat.
      if (seen.has(thread.thread_id)) return rows;
      seen.add(thread.thread_id);
      const pending = pendingOf(thread);
      const n = pending?.actionRequests.length ?? 0;
      rows.push({
        threadId: thread.thread_id,
        graph: graphOf(thread),
        updatedAt: thread.updated_at ?? null,
        status: pending ? `waiting for approval (${n} call${n === 1 ? "" : "s"})` : "interrupted (not a guarded-graph approval)",
        waiting: pending !== undefined,
        pending: pending?.actionRequests ?? [],
      });
    }
    if (page.length < 100) return rows;
  }
}

async function getThread(client: Client, target: RemoteTarget, threadId: string): Promise<Thread> {
  return call(target, `reading thread ${threadId}`, () => client.threads.get(threadId));
}

/** `audit THREAD --url`: the thread's graph on the server (a CliError when the server does not have it). */
export async function remoteThreadGraph(target: RemoteTarget, threadId: string): Promise<string | null> {
  return graphOf(await getThread(await connect(target), target, threadId));
}

function lastModelText(thread: Pick<Thread, "values">): string {
  const values = thread.values as { messages?: unknown } | null | undefined;
  const messages = Array.isArray(values?.messages) ? (values.messages as { type?: unknown; content?: unknown }[]) : [];
  const last = messages.findLast((m) => m.type === "ai");
  return textOf(last?.content);
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content.trim();
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === "object" && part !== null && (part as { type?: unknown }).type === "text" ? String((part as { text?: unknown }).text ?? "") : ""))
      .join("")
      .trim();
  }
  return "";
}

/** `show THREAD --url`: the pending calls and how to answer them, or where the thread stands. */
export async function remoteShow(target: RemoteTarget, threadId: string, json: boolean, output: Output): Promise<number> {
  const client = await connect(target);
  const thread = await getThread(client, target, threadId);
  const pending = pendingOf(thread);
  if (json) {
    output.out(JSON.stringify({ threadId, graph: graphOf(thread), status: thread.status, pending: pending ?? null }, null, 2));
    return 0;
  }
  if (pending) {
    for (const line of formatPending(threadId, pending, target.route)) output.out(line);
    return 0;
  }
  output.out(`thread ${threadId}: ${thread.status}; no pending calls`);
  const text = lastModelText(thread);
  if (text) output.out(`last model message: ${text}`);
  return 0;
}

const streamedMessageSchema = z.object({
  type: z.string(),
  content: z.unknown(),
  name: z.string().optional(),
  status: z.string().optional(),
  tool_call_id: z.string().optional(),
  tool_calls: z.array(z.object({ name: z.string(), args: z.unknown() })).optional(),
});

function printUpdate(update: unknown, output: Output): void {
  if (typeof update !== "object" || update === null) return;
  for (const [node, value] of Object.entries(update)) {
    const messages = typeof value === "object" && value !== null ? (value as { messages?: unknown }).messages : undefined;
    for (const raw of Array.isArray(messages) ? messages : []) {
      const parsed = streamedMessageSchema.safeParse(raw);
      if (!parsed.success) continue;
      const m = parsed.data;
      if (m.type === "ai") {
        output.out(`${label("model")} ${textOf(m.content) || "(no text)"}`);
        for (const c of m.tool_calls ?? []) output.out(`${label("")}  → ${c.name} ${compactJson(c.args)}`);
      } else if (m.type === "tool") {
        output.out(`${label("tool")} ${m.status === "error" ? "✗" : "✓"} ${m.name ?? "tool"} (${m.tool_call_id ?? "?"})`);
        for (const line of excerpt(textOf(m.content))) output.out(line);
      } else if (node === "finish") {
        output.out(`${label("guard")} ${textOf(m.content)}`);
      }
    }
  }
}

/**
 * `approve` / `reject` / `edit` with --url: reads the pending calls from the server, builds and checks
 * the resume exactly as the local mode does (nothing is sent when it does not answer every call),
 * then resumes the run through the SDK and prints it until it ends or asks again.
 */
export async function remoteAnswer(target: RemoteTarget, threadId: string, answers: Answers, actor: string, output: Output): Promise<number> {
  const client = await connect(target);
  const thread = await getThread(client, target, threadId);
  const pending = pendingOf(thread);
  if (!pending) throw new CliError(`thread ${threadId} on ${target.url} is not waiting for approval (status ${thread.status}); nothing to answer`);
  const resume: ApprovalResume = resumeFromAnswers(pending, answers, actor);
  const assistant = typeof thread.metadata?.assistant_id === "string" ? thread.metadata.assistant_id : graphOf(thread);
  if (!assistant) throw new CliError(`thread ${threadId} on ${target.url} names no assistant or graph in its metadata; cannot resume it`);
  output.out(`▶  thread ${threadId} · ${target.url} · assistant ${assistant} · resuming`);
  let failure: string | undefined;
  await call(target, `resuming thread ${threadId}`, async () => {
    for await (const part of client.runs.stream(threadId, assistant, { command: { resume }, streamMode: ["updates"] })) {
      if (part.event === "updates") printUpdate(part.data, output);
      if (part.event === "error") failure = compactJson(part.data, 400);
    }
  });
  const after = await getThread(client, target, threadId);
  if (failure !== undefined) throw new CliError(`the server's run on thread ${threadId} failed: ${failure} (status now ${after.status})`);
  const next = pendingOf(after);
  if (next) {
    for (const line of formatPending(threadId, next, target.route)) output.out(line);
    return 0;
  }
  output.out(`${label("result")} ${lastModelText(after) || "(the model gave no final text)"}`);
  return 0;
}
