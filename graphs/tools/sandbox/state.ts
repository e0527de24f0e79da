import { z } from "zod";

const deploymentSchema = z.object({ replicas: z.number().int().min(0), image: z.string() });
const podSchema = z.object({
  deployment: z.string().optional(),
  node: z.string(),
  status: z.enum(["Running", "Pending"]),
  logs: z.array(z.string()),
});
const nodeSchema = z.object({ ready: z.boolean(), schedulable: z.boolean() });
const namespaceSchema = z.object({
  deployments: z.record(z.string(), deploymentSchema),
  pods: z.record(z.string(), podSchema),
});

/** The whole sandbox: a fake cluster and a virtual filesystem. Plain JSON so it can be persisted. */
export const sandboxStateSchema = z.object({
  namespaces: z.record(z.string(), namespaceSchema),
  nodes: z.record(z.string(), nodeSchema),
  /** Virtual filesystem: absolute path → file content. Directories are implied by paths, plus `dirs`. */
  files: z.record(z.string(), z.string()),
  dirs: z.array(z.string()),
  /** Source of pod name suffixes, so names are deterministic. */
  nextPodId: z.number().int().min(0),
});

export type SandboxState = z.output<typeof sandboxStateSchema>;
export type Deployment = z.output<typeof deploymentSchema>;
export type Pod = z.output<typeof podSchema>;

const NODES = ["node-1", "node-2", "node-3"];

/** Pods for a deployment, spread round-robin over schedulable nodes. */
export function addPods(state: SandboxState, namespace: string, deployment: string, count: number): void {
  const ns = state.namespaces[namespace];
  const spec = ns?.deployments[deployment];
  if (!ns || !spec) return;
  const nodes = Object.entries(state.nodes)
    .filter(([, node]) => node.ready && node.schedulable)
    .map(([name]) => name);
  for (let i = 0; i < count; i++) {
    const id = state.nextPodId++;
    const name = `${deployment}-${id.toString(36).padStart(5, "0")}`;
    const node = nodes[id % Math.max(1, nodes.length)];
    ns.pods[name] = {
      deployment,
      node: node ?? "<none>",
      status: node ? "Running" : "Pending",
      logs: [`starting ${spec.image}`, `${deployment} listening on :8080`, "GET /healthz 200"],
    };
  }
}

/** The demo cluster: default, staging and production namespaces on three nodes, and a small filesystem. */
export function initialSandboxState(): SandboxState {
  const state: SandboxState = {
    namespaces: {},
    nodes: Object.fromEntries(NODES.map((name) => [name, { ready: true, schedulable: true }])),
    files: {
      "/etc/hostname": "sandbox\n",
      "/home/agent/notes.txt": "staging api is flaky\nproduction is protected\n",
      "/var/log/app.log": "INFO boot\nERROR connection refused\nINFO retry ok\nERROR timeout\n",
      "/app/config.yaml": "replicas: 2\nimage: api:1.4\n",
    },
    dirs: ["/", "/tmp"],
    nextPodId: 0,
  };
  const deployments: Record<string, Record<string, Deployment>> = {
    default: { web: { replicas: 2, image: "nginx:1.27" } },
    staging: { api: { replicas: 2, image: "api:1.4" }, worker: { replicas: 1, image: "worker:1.4" } },
    production: { api: { replicas: 3, image: "api:1.3" }, payments: { replicas: 2, image: "payments:2.0" } },
  };
  for (const [namespace, specs] of Object.entries(deployments)) {
    state.namespaces[namespace] = { deployments: structuredClone(specs), pods: {} };
    for (const [name, spec] of Object.entries(specs)) addPods(state, namespace, name, spec.replicas);
  }
  return state;
}
