import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { addPods, initialSandboxState, sandboxStateSchema, type SandboxState } from "./state.js";

export type ResourceKind = "deployment" | "pod" | "node" | "namespace";

const ALIASES: Record<string, ResourceKind> = {
  deployment: "deployment", deployments: "deployment", deploy: "deployment",
  pod: "pod", pods: "pod", po: "pod",
  node: "node", nodes: "node", no: "node",
  namespace: "namespace", namespaces: "namespace", ns: "namespace",
};

/** A kubectl-style refusal; the tool fails with this message. */
export class SandboxError extends Error {
  override readonly name = "SandboxError";
}

export function resourceKind(resource: string): ResourceKind {
  const kind = ALIASES[resource.trim().toLowerCase()];
  if (!kind) {
    throw new SandboxError(`error: the server doesn't have a resource type "${resource}" (sandbox knows deployments, pods, nodes, namespaces)`);
  }
  return kind;
}

const manifestSchema = z.object({
  replicas: z.number().int().min(0).max(50).default(1),
  image: z.string().min(1),
});

export interface SandboxOptions {
  /** JSON file the sandbox is loaded from (when it exists) and saved to after every change, atomically. */
  path?: string;
  /** Starting state (default: the demo cluster). Ignored when `path` exists. */
  state?: SandboxState;
}

/** An in-memory fake cluster plus virtual filesystem. Nothing here touches the real machine. */
export class Sandbox {
  readonly path: string | undefined;
  #state: SandboxState;

  constructor(options: SandboxOptions = {}) {
    this.path = options.path;
    if (options.path && existsSync(options.path)) {
      const raw: unknown = JSON.parse(readFileSync(options.path, "utf8"));
      const parsed = sandboxStateSchema.safeParse(raw);
      if (!parsed.success) throw new Error(`sandbox file ${options.path} is invalid: ${parsed.error.issues[0]?.message}`);
      this.#state = parsed.data;
    } else {
      this.#state = structuredClone(options.state ?? initialSandboxState());
    }
  }

  /** A copy of the current state. */
  snapshot(): SandboxState {
    return structuredClone(this.#state);
  }

  /** Runs `change` on the state and persists it. */
  mutate<T>(change: (state: SandboxState) => T): T {
    const result = change(this.#state);
    this.save();
    return result;
  }

  read<T>(view: (state: SandboxState) => T): T {
    return view(this.#state);
  }

  save(): void {
    if (!this.path) return;
    mkdirSync(dirname(this.path), { recursive: true });
    const temp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(this.#state, null, 2));
    renameSync(temp, this.path);
  }

  namespace(name: string) {
    const ns = this.#state.namespaces[name];
    if (!ns) throw new SandboxError(`Error from server (NotFound): namespaces "${name}" not found`);
    return ns;
  }

  get(kind: ResourceKind, namespace: string, name?: string): string {
    if (kind === "namespace") {
      const names = Object.keys(this.#state.namespaces).filter((ns) => name === undefined || ns === name);
      if (names.length === 0) throw new SandboxError(`Error from server (NotFound): namespaces "${name}" not found`);
      return table(["NAME", "STATUS"], names.map((ns) => [ns, "Active"]));
    }
    if (kind === "node") {
      const nodes = Object.entries(this.#state.nodes).filter(([n]) => name === undefined || n === name);
      if (nodes.length === 0) throw notFound("nodes", name ?? "", undefined);
      return table(["NAME", "STATUS"], nodes.map(([n, node]) => [n, nodeStatus(node)]));
    }
    const ns = this.namespace(namespace);
    if (kind === "deployment") {
      const rows = Object.entries(ns.deployments).filter(([n]) => name === undefined || n === name);
      if (name !== undefined && rows.length === 0) throw notFound("deployments", name, namespace);
      if (rows.length === 0) return `No resources found in ${namespace} namespace.`;
      return table(
        ["NAME", "READY", "IMAGE"],
        rows.map(([n, d]) => [n, `${runningPods(ns.pods, n)}/${d.replicas}`, d.image]),
      );
    }
    const pods = Object.entries(ns.pods).filter(([n]) => name === undefined || n === name);
    if (name !== undefined && pods.length === 0) throw notFound("pods", name, namespace);
    if (pods.length === 0) return `No resources found in ${namespace} namespace.`;
    return table(["NAME", "STATUS", "NODE"], pods.map(([n, p]) => [n, p.status, p.node]));
  }

  describe(kind: ResourceKind, namespace: string, name: string): string {
    if (kind === "node") {
      const node = this.#state.nodes[name];
      if (!node) throw notFound("nodes", name, undefined);
      const pods = Object.entries(this.#state.namespaces).flatMap(([ns, n]) =>
        Object.entries(n.pods).filter(([, p]) => p.node === name).map(([p]) => `${ns}/${p}`),
      );
      return `Name: ${name}\nStatus: ${nodeStatus(node)}\nPods: ${pods.join(", ") || "<none>"}`;
    }
    if (kind === "namespace") {
      const ns = this.namespace(name);
      return `Name: ${name}\nStatus: Active\nDeployments: ${Object.keys(ns.deployments).join(", ") || "<none>"}`;
    }
    const ns = this.namespace(namespace);
    if (kind === "deployment") {
      const d = ns.deployments[name];
      if (!d) throw notFound("deployments", name, namespace);
      return `Name: ${name}\nNamespace: ${namespace}\nImage: ${d.image}\nReplicas: ${d.replicas} desired, ${runningPods(ns.pods, name)} running`;
    }
    const pod = ns.pods[name];
    if (!pod) throw notFound("pods", name, namespace);
    return `Name: ${name}\nNamespace: ${namespace}\nNode: ${pod.node}\nStatus: ${pod.status}\nControlled By: ${pod.deployment ? `Deployment/${pod.deployment}` : "<none>"}`;
  }

  logs(kind: ResourceKind, namespace: string, name: string): string {
    const ns = this.namespace(namespace);
    if (kind === "deployment") {
      if (!ns.deployments[name]) throw notFound("deployments", name, namespace);
      const first = Object.entries(ns.pods).find(([, p]) => p.deployment === name);
      if (!first) throw new SandboxError(`error: deployment "${name}" has no pods`);
      return first[1].logs.join("\n");
    }
    if (kind !== "pod") throw new SandboxError(`error: cannot get logs of a ${kind}`);
    const pod = ns.pods[name];
    if (!pod) throw notFound("pods", name, namespace);
    return pod.logs.join("\n");
  }

  delete(kind: ResourceKind, namespace: string, name: string): string {
    return this.mutate((state) => {
      if (kind === "namespace") {
        this.namespace(name);
        delete state.namespaces[name];
        return `namespace "${name}" deleted`;
      }
      if (kind === "node") {
        if (!state.nodes[name]) throw notFound("nodes", name, undefined);
        delete state.nodes[name];
        return `node "${name}" deleted`;
      }
      const ns = this.namespace(namespace);
      if (kind === "deployment") {
        if (!ns.deployments[name]) throw notFound("deployments", name, namespace);
        delete ns.deployments[name];
        for (const [pod, p] of Object.entries(ns.pods)) if (p.deployment === name) delete ns.pods[pod];
        return `deployment.apps "${name}" deleted`;
      }
      const pod = ns.pods[name];
      if (!pod) throw notFound("pods", name, namespace);
      delete ns.pods[name];
      // Like a ReplicaSet: a pod owned by a deployment is replaced.
      if (pod.deployment && ns.deployments[pod.deployment]) addPods(state, namespace, pod.deployment, 1);
      return `pod "${name}" deleted`;
    });
  }

  apply(kind: ResourceKind, namespace: string, name: string, manifest: string): string {
    if (kind === "namespace") {
      return this.mutate((state) => {
        if (state.namespaces[name]) return `namespace/${name} unchanged`;
        state.namespaces[name] = { deployments: {}, pods: {} };
        return `namespace/${name} created`;
      });
    }
    if (kind !== "deployment") throw new SandboxError(`error: the sandbox can only apply deployments and namespaces, not ${kind}s`);
    let data: unknown;
    try {
      data = parseYaml(manifest);
    } catch (error) {
      throw new SandboxError(`error: manifest is not valid YAML: ${(error as Error).message}`);
    }
    const parsed = manifestSchema.safeParse(data);
    if (!parsed.success) {
      throw new SandboxError(`error: invalid deployment manifest: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
    }
    return this.mutate((state) => {
      const ns = this.namespace(namespace);
      const existing = ns.deployments[name];
      ns.deployments[name] = { replicas: parsed.data.replicas, image: parsed.data.image };
      if (existing && existing.image !== parsed.data.image) {
        for (const [pod, p] of Object.entries(ns.pods)) if (p.deployment === name) delete ns.pods[pod];
      }
      reconcile(state, namespace, name);
      return `deployment.apps/${name} ${existing ? "configured" : "created"}`;
    });
  }

  scale(kind: ResourceKind, namespace: string, name: string, replicas: number): string {
    if (kind !== "deployment") throw new SandboxError(`error: only deployments can be scaled, not ${kind}s`);
    return this.mutate((state) => {
      const ns = this.namespace(namespace);
      const d = ns.deployments[name];
      if (!d) throw notFound("deployments", name, namespace);
      d.replicas = replicas;
      reconcile(state, namespace, name);
      return `deployment.apps/${name} scaled to ${replicas}`;
    });
  }

  drain(kind: ResourceKind, name: string): string {
    if (kind !== "node") throw new SandboxError(`error: only nodes can be drained, not ${kind}s`);
    return this.mutate((state) => {
      const node = state.nodes[name];
      if (!node) throw notFound("nodes", name, undefined);
      node.schedulable = false;
      const evicted: string[] = [];
      for (const [namespace, ns] of Object.entries(state.namespaces)) {
        for (const [pod, p] of Object.entries(ns.pods)) {
          if (p.node !== name) continue;
          delete ns.pods[pod];
          evicted.push(`${namespace}/${pod}`);
          if (p.deployment) reconcile(state, namespace, p.deployment);
        }
      }
      return [`node/${name} cordoned`, ...evicted.map((pod) => `evicting pod ${pod}`), `node/${name} drained`].join("\n");
    });
  }
}

/** Adds or removes pods until the deployment has as many as it wants. */
function reconcile(state: SandboxState, namespace: string, deployment: string): void {
  const ns = state.namespaces[namespace];
  const want = ns?.deployments[deployment]?.replicas ?? 0;
  if (!ns) return;
  const pods = Object.keys(ns.pods).filter((pod) => ns.pods[pod]?.deployment === deployment);
  for (const pod of pods.slice(want)) delete ns.pods[pod];
  if (pods.length < want) addPods(state, namespace, deployment, want - pods.length);
}

function runningPods(pods: SandboxState["namespaces"][string]["pods"], deployment: string): number {
  return Object.values(pods).filter((p) => p.deployment === deployment && p.status === "Running").length;
}

function nodeStatus(node: { ready: boolean; schedulable: boolean }): string {
  return `${node.ready ? "Ready" : "NotReady"}${node.schedulable ? "" : ",SchedulingDisabled"}`;
}

function notFound(kind: string, name: string, namespace: string | undefined): SandboxError {
  const where = namespace ? ` in namespace "${namespace}"` : "";
  return new SandboxError(`Error from server (NotFound): ${kind} "${name}" not found${where}`);
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join("   ").trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}
