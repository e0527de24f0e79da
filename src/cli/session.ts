import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { existsSync } from "node:fs";
import { userInfo } from "node:os";
import { join, resolve } from "node:path";
import { z } from "zod";
import { DEFAULT_AUDIT_SPEC, openAuditSink, type AuditSinkOptions } from "../audit/open.js";
import { MemoryAuditSink } from "../audit/memory.js";
import type { AuditSink } from "../audit/types.js";
import { loadPolicyFile } from "../policy/file.js";
import { openCheckpointer } from "../storage/checkpointer.js";
import { acquireThreadLock, type ThreadLock } from "../storage/lock.js";
import type { GraphName, ReadyGraph } from "../../graphs/shared.js";
import { CliError } from "./errors.js";
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
  close(): Promise<void>;
}

export async function openSession(flags: StorageFlags): Promise<Session> {
  let opened;
  try {
    opened = await openCheckpointer(flags.db);
  } catch (error) {
    throw new CliError(`--db refused: ${(error as Error).message}`, 2);
  }
  const registry = await openThreadRegistry(opened.spec);
  return {
    spec: opened.spec,
    checkpointer: opened.checkpointer,
    registry,
    close: async () => {
      await registry.close();
      await opened.close();
    },
  };
}

/** Audit sink: --audit, else GUARDED_GRAPH_AUDIT, else the one the policy names, else `.guarded-graph/audit.jsonl`. */
export async function openCliAudit(flag: string | undefined, policyPath: string | undefined): Promise<AuditSink> {
  let spec: string | AuditSinkOptions = flag?.trim() || process.env.GUARDED_GRAPH_AUDIT?.trim() || DEFAULT_AUDIT_SPEC;
  if (!flag?.trim() && !process.env.GUARDED_GRAPH_AUDIT?.trim() && policyPath !== undefined) {
    spec = (await loadPolicyFile(policyPath)).audit ?? spec;
  }
  try {
    return await openAuditSink(spec);
  } catch (error) {
    throw new CliError(`--audit refused: ${(error as Error).message}`, 2);
  }
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

export async function lockThread(session: Session, threadId: string): Promise<ThreadLock> {
  const lock = await acquireThreadLock(session.spec, threadId);
  if (!lock) throw new CliError(`thread ${threadId} is being run by another process right now; try again when it has stopped`);
  return lock;
}
