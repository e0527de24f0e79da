import { z } from "zod";
import { defineTool } from "../../src/tools/define-tool.js";
import type { GuardedTool } from "../../src/tools/types.js";
import { resourceKind, Sandbox, SandboxError, type SandboxOptions } from "./sandbox/cluster.js";
import { isReadOnlyCommand, VirtualShell } from "./sandbox/shell.js";

export { Sandbox, SandboxError } from "./sandbox/cluster.js";
export type { ResourceKind, SandboxOptions } from "./sandbox/cluster.js";
export { initialSandboxState } from "./sandbox/state.js";
export type { SandboxState } from "./sandbox/state.js";
export { isReadOnlyCommand, VirtualShell } from "./sandbox/shell.js";

/** A fresh sandbox cluster (optionally persisted to a JSON file). */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  return new Sandbox(options);
}

const resource = z.string().min(1).describe("Resource type: deployment, pod, node or namespace (plural and short forms work)");
const namespace = z.string().min(1).default("default").describe("Namespace (default: default)");
const name = z.string().min(1).describe("Resource name");

const getSchema = z.object({ resource, name: name.optional().describe("Resource name; omit to list"), namespace });
const namedSchema = z.object({ resource, name, namespace });
const applySchema = namedSchema.extend({
  manifest: z.string().min(1).describe("YAML or JSON spec, e.g. `replicas: 2\\nimage: api:1.5`"),
});
const scaleSchema = namedSchema.extend({ replicas: z.number().int().min(0).max(50).describe("Desired replica count") });
const bashSchema = z.object({ command: z.string().min(1).describe("Command line for the sandbox shell") });

/**
 * The DevOps demo tools: kubectl-like tools and `bash`, all acting on the sandbox, never on the
 * machine. Read-only calls are concurrency-safe; a failure (not found, bad manifest) fails the call.
 */
export function createDevopsTools(sandbox: Sandbox = createSandbox()): GuardedTool[] {
  const readOnly = { risk: "low" as const, idempotent: true, isConcurrencySafe: () => true };
  const tools = [
    defineTool({
      name: "kubectl_get",
      description: "List resources, or show one by name (like `kubectl get`).",
      schema: getSchema,
      ...readOnly,
      execute: (input) => sandbox.get(resourceKind(input.resource), input.namespace, input.name),
    }),
    defineTool({
      name: "kubectl_describe",
      description: "Show details of one resource (like `kubectl describe`).",
      schema: namedSchema,
      ...readOnly,
      execute: (input) => sandbox.describe(resourceKind(input.resource), input.namespace, input.name),
    }),
    defineTool({
      name: "kubectl_logs",
      description: "Print the logs of a pod, or of the first pod of a deployment.",
      schema: namedSchema,
      ...readOnly,
      execute: (input) => sandbox.logs(resourceKind(input.resource), input.namespace, input.name),
    }),
    defineTool({
      name: "kubectl_delete",
      description: "Delete a resource (like `kubectl delete`). Destructive.",
      schema: namedSchema,
      risk: "high",
      execute: (input) => sandbox.delete(resourceKind(input.resource), input.namespace, input.name),
    }),
    defineTool({
      name: "kubectl_apply",
      description: "Create or update a deployment (or namespace) from a manifest.",
      schema: applySchema,
      risk: "medium",
      idempotent: true,
      execute: (input) => sandbox.apply(resourceKind(input.resource), input.namespace, input.name, input.manifest),
    }),
    defineTool({
      name: "kubectl_scale",
      description: "Set the replica count of a deployment.",
      schema: scaleSchema,
      risk: "medium",
      idempotent: true,
      execute: (input) => sandbox.scale(resourceKind(input.resource), input.namespace, input.name, input.replicas),
    }),
    defineTool({
      name: "kubectl_drain",
      description: "Cordon a node and evict its pods. Destructive.",
      schema: namedSchema,
      risk: "high",
      execute: (input) => sandbox.drain(resourceKind(input.resource), input.name),
    }),
    defineTool({
      name: "bash",
      description: "Run a command in the sandbox shell (echo, ls, cat, grep, wc, rm, touch; pipes, ;, &&, > and >>).",
      schema: bashSchema,
      risk: "medium",
      isConcurrencySafe: (input) => isReadOnlyCommand(input.command),
      cancelSiblingsOnError: true,
      execute: (input) => {
        const run = (state: Parameters<Parameters<Sandbox["read"]>[0]>[0]) => new VirtualShell(state).run(input.command);
        const result = isReadOnlyCommand(input.command) ? sandbox.read(run) : sandbox.mutate(run);
        // Like a shell tool: a non-zero exit fails the call, with the output in the error.
        if (result.exitCode !== 0) throw new SandboxError(`exit code ${result.exitCode}\n${result.stdout}`.trimEnd());
        return result.stdout;
      },
    }),
  ];
  return tools as GuardedTool[];
}
