// Permission policy from a file: decide allow / deny / ask for DevOps tool calls.
import { fileURLToPath } from "node:url";
import { checkPolicy, loadPolicyFile, permissionPolicy } from "guarded-graph";
import { DEVOPS_POLICY } from "guarded-graph/graphs";

const devopsPolicy = DEVOPS_POLICY; // the bundled policies/devops.yaml; use your own file path

export async function policyExample(log: (line: string) => void = console.log) {
  const loaded = await loadPolicyFile(devopsPolicy); // YAML, JSON or TOML; errors name file, path and expectation
  const { errors, warnings } = checkPolicy(loaded);
  if (errors.length > 0) throw new Error(errors.join("\n"));
  warnings.forEach((warning: string) => log(`warning: ${warning}`));

  const policy = permissionPolicy(loaded);
  const calls: [string, Record<string, unknown>][] = [
    ["kubectl_get", { resource: "pods", namespace: "production" }], // read-only: allowed
    ["kubectl_delete", { resource: "pod", name: "web-1", namespace: "staging" }], // destructive: ask
    ["kubectl_delete", { resource: "pod", name: "web-1", namespace: " Production " }], // production: deny
    ["bash", { command: "sudo rm -fr  /" }], // any spelling of rm -rf /: deny
    ["bash", { command: "ls -la" }], // no rule: bash is high risk, so ask
  ];
  return calls.map(([tool, args]) => {
    const decision = policy.decide(tool, args);
    log(`${tool} ${JSON.stringify(args)} -> ${decision.mode} (${decision.ruleId})`);
    return decision;
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await policyExample();
