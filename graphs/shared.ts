import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseCheckpointSaver, BaseStore, LangGraphRunnableConfig } from "@langchain/langgraph";
import { join, resolve } from "node:path";
import { DEFAULT_AUDIT_SPEC, openAuditSink } from "../src/audit/open.js";
import type { AuditSink } from "../src/audit/types.js";
import { createGuardedAgent, type GuardedAgentOptions } from "../src/guard/agent.js";
import { guardFromPolicy } from "../src/guard/from-policy.js";
import { Guard } from "../src/guard/guard.js";
import type { GuardOptions } from "../src/guard/options.js";
import { createModel } from "../src/model/create-model.js";
import { packageRoot } from "../src/package-root.js";
import { policyDirectory, resolvePolicyName } from "../src/platform/policy-names.js";
import { parseScenario, type ScenarioInput } from "../src/model/scenario.js";
import { loadPolicyPath } from "../src/policy/file.js";
import type { LoadedPolicy } from "../src/policy/file.js";
import type { AnyTool } from "../src/tools/types.js";

export const GRAPH_NAMES = ["devops", "etl", "memory"] as const;
export type GraphName = (typeof GRAPH_NAMES)[number];

/** Options every graph factory takes. */
export interface GraphOptions {
  /** Omit on LangGraph Platform: the server injects its own. */
  checkpointer?: BaseCheckpointSaver;
  store?: BaseStore;
  /** Policy file path; default: the graph's file under `policies/` (or none for graphs without one). */
  policy?: string;
  /** Any LangChain chat model; default `createModel()` (ChatOpenAI from env, else the scripted scenario). */
  model?: BaseChatModel;
  /** Audit sink; default: the one the policy names, else none. */
  audit?: AuditSink;
  /** Extra guard options (bypass, timeouts, ...). */
  guardOptions?: Partial<Omit<GuardOptions, "tools" | "audit">>;
  /** Environment the model is configured from (default `process.env`). */
  env?: Record<string, string | undefined>;
}

export type GuardedGraph = ReturnType<typeof createGuardedAgent>;

/** A compiled graph plus what it holds open. */
export interface ReadyGraph {
  name: GraphName;
  graph: GuardedGraph;
  guard: Guard;
  policy: LoadedPolicy | undefined;
  audit: AuditSink | undefined;
  close(): Promise<void>;
}

export function bundledPolicy(file: string): string {
  return join(packageRoot(), "policies", file);
}

/**
 * Policy path from the environment: `GUARDED_GRAPH_POLICY_<NAME>` (e.g. GUARDED_GRAPH_POLICY_DEVOPS),
 * else `GUARDED_GRAPH_POLICY`. Never from the request: a caller must not pick its own policy.
 */
export function policyFromEnv(name: GraphName, env: Record<string, string | undefined> = process.env): string | undefined {
  const value = env[`GUARDED_GRAPH_POLICY_${name.toUpperCase()}`]?.trim() || env.GUARDED_GRAPH_POLICY?.trim();
  return value ? resolve(value) : undefined;
}

export interface AssembleOptions {
  name: GraphName;
  tools: readonly AnyTool[];
  /** Policy path, or undefined for a guard from the tools' own risk and `rules`. */
  policyPath: string | undefined;
  scenario: string;
  /** The scenario itself, for graphs whose scenario is not a file under `scenarios/`. */
  scenarioInput?: ScenarioInput;
  systemPrompt: string;
  /** Text added to the system prompt at each model step (e.g. memory blocks, see memoryContext). */
  context?: GuardedAgentOptions["context"];
  rules?: GuardOptions["rules"];
  options: GraphOptions;
  /** Called by close() after the guard is released (e.g. to close a memory store). */
  onClose?: () => Promise<void>;
}

/** Builds the guard (from a policy file when given) and the guarded agent around it. */
export async function assembleGraph(spec: AssembleOptions): Promise<ReadyGraph> {
  const { options } = spec;
  const base: GuardOptions = { ...options.guardOptions, tools: spec.tools, rules: spec.rules, audit: options.audit };
  let guard: Guard;
  let policy: LoadedPolicy | undefined;
  let audit = options.audit;
  let release: () => Promise<void> = async () => undefined;
  if (spec.policyPath !== undefined) {
    const loaded = await loadPolicyPath(spec.policyPath);
    const policyGuard = await guardFromPolicy(loaded, base);
    ({ guard, policy, audit } = policyGuard);
    release = policyGuard.close;
  } else {
    guard = new Guard(base);
  }
  // GUARDED_GRAPH_SCENARIO plays another scenario file offline (tests, trying a policy without a key).
  const scenarioFile = (options.env ?? process.env).GUARDED_GRAPH_SCENARIO?.trim();
  const scenario = scenarioFile ? resolve(scenarioFile) : spec.scenarioInput ? parseScenario(spec.scenarioInput) : spec.scenario;
  const model = options.model ?? await createModel({ scenario, env: options.env });
  const graph = createGuardedAgent({
    model,
    guard,
    tools: [],
    systemPrompt: spec.systemPrompt,
    context: spec.context,
    checkpointer: options.checkpointer,
    store: options.store,
    name: spec.name,
  });
  let closed = false;
  return {
    name: spec.name,
    graph,
    guard,
    policy,
    audit,
    close: async () => {
      if (closed) return;
      closed = true;
      await release();
      await spec.onClose?.();
    },
  };
}

/**
 * The policy file of one run on LangGraph Platform: the name an assistant picks
 * (`config.configurable.policy`, looked up in the server's own set, see `resolvePolicyName`), else the
 * operator's environment (`policyFromEnv`), else the graph's default. Never a path or body from the request.
 */
export function platformPolicy(
  name: GraphName,
  defaultPolicy: string | undefined,
  config: LangGraphRunnableConfig | undefined,
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  const requested: unknown = config?.configurable?.policy;
  if (requested !== undefined && requested !== null) return resolvePolicyName(requested, policyDirectory(env));
  return policyFromEnv(name, env) ?? defaultPolicy;
}

/**
 * The `graph` export for langgraph.json: a function of the run config that LangGraph Platform calls
 * (it injects its checkpointer and store). Built once per process and policy; the audit log goes
 * where the policy says, else `GUARDED_GRAPH_AUDIT`, else the default JSONL file.
 */
export function platformGraph(
  name: GraphName,
  defaultPolicy: string | undefined,
  build: (options: GraphOptions) => Promise<ReadyGraph>,
): (config?: LangGraphRunnableConfig) => Promise<GuardedGraph> {
  const cache = new Map<string, Promise<ReadyGraph>>();
  return async (config?: LangGraphRunnableConfig) => {
    const policy = platformPolicy(name, defaultPolicy, config);
    const key = policy ?? "";
    let ready = cache.get(key);
    if (!ready) {
      ready = (async () => {
        const policyAudit = policy === undefined ? undefined : (await loadPolicyPath(policy)).audit;
        const audit = policyAudit ? undefined : await openAuditSink(process.env.GUARDED_GRAPH_AUDIT?.trim() || DEFAULT_AUDIT_SPEC);
        return build({ ...(policy === undefined ? {} : { policy }), ...(audit ? { audit } : {}) });
      })();
      cache.set(key, ready);
      ready.catch(() => cache.delete(key));
    }
    return (await ready).graph;
  };
}
