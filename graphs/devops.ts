// "guarded-graph/graphs/devops": the DevOps demo graph (kubectl-like and shell tools on a sandbox
// cluster, under policies/devops.yaml) for a langgraph.json of your own: `export { graph } from "guarded-graph/graphs/devops";`.
import { createDevopsTools, createSandbox, type Sandbox } from "./tools/devops.js";
import { assembleGraph, bundledPolicy, platformGraph, type GraphOptions, type ReadyGraph } from "./shared.js";

export const DEVOPS_POLICY = bundledPolicy("devops.yaml");

export const DEVOPS_SYSTEM_PROMPT = [
  "You are a DevOps assistant operating a Kubernetes cluster through kubectl-like tools and a shell.",
  "Every call is checked by a guard: refused calls come back as errors that name the rule; do not retry them unchanged.",
  "Destructive operations may need a human's approval. Finish with a short summary of what changed.",
].join("\n");

export interface DevopsGraphOptions extends GraphOptions {
  /** The fake cluster the tools act on; default: a fresh one in memory. */
  sandbox?: Sandbox;
  /** JSON file to keep the sandbox in between processes (ignored when `sandbox` is given). */
  sandboxPath?: string;
}

/** The DevOps agent: kubectl-like and shell tools on a sandbox (never the real machine), guarded by policies/devops.yaml. */
export async function createDevopsGraph(options: DevopsGraphOptions = {}): Promise<ReadyGraph & { sandbox: Sandbox }> {
  const sandbox = options.sandbox ?? createSandbox(options.sandboxPath ? { path: options.sandboxPath } : {});
  const ready = await assembleGraph({
    name: "devops",
    tools: createDevopsTools(sandbox),
    policyPath: options.policy ?? DEVOPS_POLICY,
    scenario: "devops-demo",
    systemPrompt: DEVOPS_SYSTEM_PROMPT,
    options,
  });
  return { ...ready, sandbox };
}

/** For langgraph.json. Policy: GUARDED_GRAPH_POLICY_DEVOPS / GUARDED_GRAPH_POLICY; sandbox file: GUARDED_GRAPH_SANDBOX. */
export const graph = platformGraph("devops", DEVOPS_POLICY, (options) => {
  const sandboxPath = process.env.GUARDED_GRAPH_SANDBOX?.trim();
  return createDevopsGraph({ ...options, ...(sandboxPath ? { sandboxPath } : {}) });
});
