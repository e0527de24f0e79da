import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { existsSync } from "node:fs";
import { userInfo } from "node:os";
import { join, resolve } from "node:path";
import { z } from "zod";
import { DEFAULT_AUDIT_SPEC, openAuditSink, type AuditSinkOptions } from "../audit/open.js";
import { MemoryAuditSink } from "../audit/memory.js";
import type { AuditSink } from "../audit/types.js";
import { loadPolicyPath } from "../policy/file.js";
import { openCheckpointer } from "../storage/checkpointer.js";
import { DEFAULT_STORAGE_SPEC } from "../storage/spec.js";
import { acquireThreadLock, type ThreadLock } from "../storage/lock.js";
import type { GraphName, ReadyGraph } from "../../graphs/shared.js";
import { MissingDependencyError } from "../errors/index.js";
import { addSuppressed, CliError } from "./errors.js";
import { shellWord, type AnswerRoute } from "./render.js";
import { openThreadRegistry, type ThreadEntry, type ThreadRegistry } from "./thread-registry.js";

const threadIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, "thread ids use letters, digits, '.', '_' and '-' (up to 128)");

export function parseThreadId(value: string | undefined): string {
  const parsed = threadIdSchema.safeParse(value);
  if (!parsed.success) throw new CliError(`thread id ${JSON.stringify(value ?? "")} refused: ${parsed.error.issues[0]?.message}`, 2);
  return parsed.data;
}

interface StorageFlags {
  db?: string | undefined;
  audit?: string | undefined;
}

/** Storage a command works on: checkpoints and the thread registry in one database. */
export interface Session {
  spec: string;
  checkpointer: BaseCheckpointSaver;
  registry: ThreadRegistry;
}

type Defer = (close: () => Promise<void>) => void;

/**
 * Runs `body`, then every close it deferred, last deferred first, each one attempted whatever the others
 * did. The first error (the body's, else the first close's) is the one thrown; every later one is kept
 * with it (`suppressedErrors`), and `main` reports them after it.
 */
async function closingAfter<T>(body: (defer: Defer) => Promise<T>): Promise<T> {
  const closes: Array<() => Promise<void>> = [];
  let outcome: { ok: true; value: T } | { ok: false; error: unknown };
  try {
    outcome = { ok: true, value: await body((close) => void closes.push(close)) };
  } catch (error) {
    outcome = { ok: false, error };
  }
  for (const close of closes.reverse()) {
    try {
      await close();
    } catch (error) {
      if (outcome.ok) outcome = { ok: false, error };
      else outcome = { ok: false, error: addSuppressed(outcome.error, error) };
    }
  }
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}

async function openSession(flags: StorageFlags, defer: Defer): Promise<Session> {
  const opened = await openCheckpointer(flags.db).catch((error: unknown) => {
    // Blame what chose the storage: --db, GUARDED_GRAPH_DB, or the default the user never typed.
    const source =
      flags.db !== undefined ? "--db" : process.env.GUARDED_GRAPH_DB?.trim() ? `GUARDED_GRAPH_DB=${process.env.GUARDED_GRAPH_DB.trim()}` : `the default storage (${DEFAULT_STORAGE_SPEC})`;
    if (error instanceof MissingDependencyError) {
      const other = flags.db === undefined ? "; or keep threads elsewhere with --db postgres://… or --db memory:" : "";
      throw new CliError(`${source}: ${error.message}${other}`, 1);
    }
    throw new CliError(`${source} refused: ${(error as Error).message}`, 2);
  });
  defer(() => opened.close());
  const registry = await openThreadRegistry(opened.spec);
  defer(() => registry.close());
  return { spec: opened.spec, checkpointer: opened.checkpointer, registry };
}

/** Opens the storage (checkpointer, then registry), runs `use`, and closes both, registry first, even when `use` throws. */
export async function withSession<T>(flags: StorageFlags, use: (session: Session) => Promise<T>): Promise<T> {
  return closingAfter(async (defer) => use(await openSession(flags, defer)));
}

/** What a thread runs with, decided from the registry before its lock is taken. */
interface ThreadPlan {
  graph: GraphName;
  policy: string | undefined;
  /** Scenario file the thread plays (see GraphBuild.scenario). */
  scenario: string | null;
}

/** The plan of a registered thread: the graph, policy and scenario it was started with. */
export function registeredPlan(entry: ThreadEntry): ThreadPlan {
  return { graph: entry.graph, policy: entry.policy ?? undefined, scenario: entry.scenario };
}

/** A thread opened to run: its lock held, its audit sink open and its graph built, all on `session`. */
export interface ThreadSession {
  session: Session;
  plan: ThreadPlan;
  audit: AuditSink;
  ready: ReadyGraph;
}

/**
 * Everything a command that runs a thread opens, in order: the storage, then (after `plan` has read the
 * registry and refused what it must) the thread's lock, the audit sink and the graph. When `use` ends,
 * or any step fails, what was opened is closed in reverse order: graph, audit sink, lock, registry,
 * checkpointer; each close is attempted, and the first error is the one thrown (see `closingAfter`).
 */
export async function withThreadSession<T>(
  options: { flags: StorageFlags; threadId: string; plan: (session: Session) => Promise<ThreadPlan> },
  use: (thread: ThreadSession) => Promise<T>,
): Promise<T> {
  const { flags, threadId } = options;
  return closingAfter(async (defer) => {
    const session = await openSession(flags, defer);
    const plan = await options.plan(session);
    const lock = await lockThread(session, threadId);
    defer(() => lock.release());
    const audit = await openCliAudit(flags.audit, plan.policy);
    defer(() => audit.close());
    const ready = await buildGraph(plan.graph, { checkpointer: session.checkpointer, audit, policy: plan.policy, threadId, scenario: plan.scenario });
    defer(() => ready.close());
    return use({ session, plan, audit, ready });
  });
}

/** Audit sink spec: --audit, else GUARDED_GRAPH_AUDIT, else the one the policy names, else `.guarded-graph/audit.jsonl`. */
export async function cliAuditSpec(flag: string | undefined, policyPath: string | undefined): Promise<string | AuditSinkOptions> {
  let spec: string | AuditSinkOptions = flag?.trim() || process.env.GUARDED_GRAPH_AUDIT?.trim() || DEFAULT_AUDIT_SPEC;
  if (!flag?.trim() && !process.env.GUARDED_GRAPH_AUDIT?.trim() && policyPath !== undefined) {
    spec = (await loadPolicyPath(policyPath)).audit ?? spec;
  }
  return spec;
}

/** An audit sink spec as a user reads it (a database password hidden). */
export function describeAuditSpec(spec: string | AuditSinkOptions): string {
  const text = typeof spec === "string" ? spec : spec.sink === "memory" ? "memory:" : spec.sink === "postgres" ? (spec.url ?? "postgres") : `${spec.sink}:${spec.path ?? ""}`;
  return text.replace(/^(postgres(?:ql)?:\/\/[^:/@]*:)[^@]*@/i, "$1***@");
}

/** Audit sink: --audit, else GUARDED_GRAPH_AUDIT, else the one the policy names, else `.guarded-graph/audit.jsonl`. */
export async function openCliAudit(flag: string | undefined, policyPath: string | undefined, known?: string | AuditSinkOptions): Promise<AuditSink> {
  const spec = known ?? (await cliAuditSpec(flag, policyPath));
  try {
    return await openAuditSink(spec);
  } catch (error) {
    throw new CliError(`--audit refused: ${(error as Error).message}`, 2);
  }
}

/**
 * How a printed follow-up command (approve, reject, edit) reaches a local thread: the storage flags
 * this command was given (the environment stays set); an in-memory thread ends with this process, so
 * no later command can answer it.
 */
export function localAnswerRoute(flags: { db?: string | undefined; audit?: string | undefined }, spec: string): AnswerRoute {
  if (spec.startsWith("memory:")) {
    return {
      unanswerable: `this thread is kept in memory (${spec}) and ends with this command, so no later command can answer it: answer here with --yes or --interactive, or keep threads in a database (--db sqlite:PATH).`,
    };
  }
  const db = flags.db?.trim();
  const audit = flags.audit?.trim();
  return { flags: [...(db ? [`--db ${shellWord(db)}`] : []), ...(audit ? [`--audit ${shellWord(audit)}`] : [])] };
}

export function policyPathFlag(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const path = resolve(value);
  if (!existsSync(path)) throw new CliError(`--policy refused: no file at ${path}`, 2);
  return path;
}

export function actorOf(flag: string | undefined): string {
  if (flag?.trim()) return flag.trim();
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return "cli";
  }
}

interface GraphBuild {
  checkpointer: BaseCheckpointSaver;
  audit: AuditSink;
  policy: string | undefined;
  threadId: string;
  /** Scenario file the thread was started with (stored in the registry); null: the graph's own. */
  scenario?: string | null;
}

/** The scenario a new thread plays offline: GUARDED_GRAPH_SCENARIO as an absolute path, else null (the graph's own). */
export function scenarioFromEnv(): string | null {
  const value = process.env.GUARDED_GRAPH_SCENARIO?.trim();
  return value ? resolve(value) : null;
}

/** The graphs the CLI runs. The DevOps sandbox of a thread is a JSON file, so `approve` in a new process sees it. */
export async function buildGraph(name: GraphName, build: GraphBuild): Promise<ReadyGraph> {
  // A thread plays the scenario it was started with, whatever this process's environment says.
  const env = build.scenario === undefined ? {} : { env: { ...process.env, GUARDED_GRAPH_SCENARIO: build.scenario ?? "" } };
  const common = { checkpointer: build.checkpointer, audit: build.audit, ...env, ...(build.policy ? { policy: build.policy } : {}) };
  switch (name) {
    case "devops": {
      const { createDevopsGraph } = await import("../../graphs/devops.js");
      return createDevopsGraph({ ...common, sandboxPath: join(resolve(".guarded-graph", "sandboxes"), `${build.threadId}.json`) });
    }
    case "etl": {
      const { createEtlGraph } = await import("../../graphs/etl.js");
      return createEtlGraph(common);
    }
    case "memory": {
      const { createMemoryGraph } = await import("../../graphs/memory.js");
      return createMemoryGraph({ ...common, dataDir: resolve(".guarded-graph", "memory", build.threadId) });
    }
  }
}

/** A graph to read thread state with (nothing runs, nothing is audited). */
export async function readerGraph(session: Session, entry: ThreadEntry | undefined, threadId: string): Promise<ReadyGraph> {
  return buildGraph(entry?.graph ?? "devops", {
    checkpointer: session.checkpointer,
    audit: new MemoryAuditSink(),
    policy: entry?.policy ?? undefined,
    threadId,
    ...(entry ? { scenario: entry.scenario } : {}),
  });
}

async function lockThread(session: Session, threadId: string): Promise<ThreadLock> {
  const lock = await acquireThreadLock(session.spec, threadId);
  if (!lock) throw new CliError(`thread ${threadId} is being run by another process right now; try again when it has stopped`);
  return lock;
}
