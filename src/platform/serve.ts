/**
 * A graph of the user's own tools and policy file, for `langgraph.json` (LangGraph Platform,
 * `langgraph dev`). The server calls the exported function with each run's config and injects its
 * own checkpointer and store; the guard, the audit sink and the model are built once per process.
 * The audit log is always on: the sink the policy names, else GUARDED_GRAPH_AUDIT, else
 * `jsonl:.guarded-graph/audit.jsonl` in the server's working directory.
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { resolve } from "node:path";
import { DEFAULT_AUDIT_SPEC, openAuditSink } from "../audit/open.js";
import type { AuditSink } from "../audit/types.js";
import { createGuardedAgent } from "../guard/agent.js";
import { guardFromPolicy, type PolicyGuard } from "../guard/from-policy.js";
import type { GuardOptions } from "../guard/options.js";
import { createModel } from "../model/create-model.js";
import { loadPolicyFile } from "../policy/file.js";
import type { AnyTool } from "../tools/types.js";

export interface ServedGraphOptions {
  /** The graph's name (the model's name in messages). */
  name: string;
  /** The tools the agent may call. */
  tools: readonly AnyTool[];
  /** Policy file (YAML, JSON or TOML), relative to the server's working directory or absolute. */
  policy: string;
  /** The chat model, or a function that makes it; default `createModel()` (ChatOpenAI from OPENAI_API_KEY / OPENAI_BASE_URL, else the scenario GUARDED_GRAPH_SCENARIO names). */
  model?: BaseChatModel | (() => Promise<BaseChatModel>);
  systemPrompt?: string;
  /** Extra guard options (tool rules, bypass, timeouts …); the policy file's settings come first. */
  guardOptions?: Partial<Omit<GuardOptions, "tools" | "audit">>;
  /** Audit sink spec (`jsonl:PATH`, `sqlite:PATH`, `postgres://…`) when the policy names none; default GUARDED_GRAPH_AUDIT, else `jsonl:.guarded-graph/audit.jsonl`. */
  audit?: string;
  /** Environment read for the model, the scenario and the audit default (default `process.env`). */
  env?: Record<string, string | undefined>;
}

export type ServedGraph = ReturnType<typeof createGuardedAgent>;

/** Where the audit log of a served graph goes when its policy names no sink. */
export function servedAuditSpec(options: Pick<ServedGraphOptions, "audit" | "env">): string {
  return options.audit?.trim() || (options.env ?? process.env).GUARDED_GRAPH_AUDIT?.trim() || DEFAULT_AUDIT_SPEC;
}

async function build(options: ServedGraphOptions): Promise<{ graph: ServedGraph; ready: PolicyGuard }> {
  const env = options.env ?? process.env;
  const policy = await loadPolicyFile(resolve(options.policy));
  const audit: AuditSink | undefined = policy.audit === undefined ? await openAuditSink(servedAuditSpec(options)) : undefined;
  const ready = await guardFromPolicy(policy, { ...options.guardOptions, tools: options.tools, ...(audit ? { audit } : {}) });
  const scenario = env.GUARDED_GRAPH_SCENARIO?.trim();
  const model =
    options.model === undefined
      ? await createModel({ env, ...(scenario ? { scenario: resolve(scenario) } : {}) })
      : typeof options.model === "function"
        ? await options.model()
        : options.model;
  const graph = createGuardedAgent({ model, guard: ready.guard, tools: [], name: options.name, ...(options.systemPrompt ? { systemPrompt: options.systemPrompt } : {}) });
  return { graph, ready };
}

/**
 * The `graph` export for langgraph.json, e.g. `export const graph = servedGraph({ name: "ops", tools, policy: "./policy.yaml" })`.
 * A failed build (a bad policy file, say) is reported by the run that needed it and retried by the next.
 */
export function servedGraph(options: ServedGraphOptions): (config?: LangGraphRunnableConfig) => Promise<ServedGraph> {
  let pending: Promise<{ graph: ServedGraph; ready: PolicyGuard }> | undefined;
  return async () => {
    pending ??= build(options);
    const current = pending;
    current.catch(() => {
      if (pending === current) pending = undefined;
    });
    return (await current).graph;
  };
}
