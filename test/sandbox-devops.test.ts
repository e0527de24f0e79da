import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createDevopsTools, createSandbox, isReadOnlyCommand, type Sandbox } from "../graphs/tools/devops.js";
import { guardSpecOf } from "../src/tools/registry.js";

const tmp = mkdtempSync(join(tmpdir(), "gg-sandbox-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function toolsOn(sandbox: Sandbox) {
  const tools = createDevopsTools(sandbox);
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return (name: string, args: Record<string, unknown>): Promise<unknown> => {
    const tool = byName.get(name);
    if (!tool) throw new Error(`no tool ${name}`);
    return tool.invoke(args);
  };
}

describe("DevOps sandbox tools", () => {
  it("declares risks and concurrency safety per input", () => {
    const tools = createDevopsTools(createSandbox());
    const risk = Object.fromEntries(tools.map((tool) => [tool.name, tool.guard.risk]));
    expect(risk).toEqual({
      kubectl_get: "low", kubectl_describe: "low", kubectl_logs: "low",
      kubectl_apply: "medium", kubectl_scale: "medium", bash: "medium",
      kubectl_delete: "high", kubectl_drain: "high",
    });
    const spec = (name: string) => guardSpecOf(tools.find((tool) => tool.name === name)!);
    expect(spec("kubectl_get").isConcurrencySafe({ resource: "pods", namespace: "default" })).toBe(true);
    expect(spec("kubectl_delete").isConcurrencySafe({ resource: "pod", name: "x", namespace: "default" })).toBe(false);
    expect(spec("bash").isConcurrencySafe({ command: "grep ERROR /var/log/app.log | wc -l" })).toBe(true);
    expect(spec("bash").isConcurrencySafe({ command: "ls; rm -rf /" })).toBe(false);
    expect(spec("bash").isConcurrencySafe({ command: "echo x > /tmp/f" })).toBe(false);
  });

  it("kubectl_get lists and shows deployments, pods, nodes and namespaces", async () => {
    const run = toolsOn(createSandbox());
    const deployments = String(await run("kubectl_get", { resource: "deployments", namespace: "staging" }));
    expect(deployments).toMatch(/^NAME\s+READY\s+IMAGE\napi\s+2\/2\s+api:1.4\nworker\s+1\/1\s+worker:1.4$/);
    expect(String(await run("kubectl_get", { resource: "ns" }))).toMatch(/default[\s\S]*staging[\s\S]*production/);
    expect(String(await run("kubectl_get", { resource: "nodes", name: "node-2" }))).toMatch(/node-2\s+Ready/);
    const pods = String(await run("kubectl_get", { resource: "po" }));
    expect(pods.split("\n")).toHaveLength(3);
    await expect(run("kubectl_get", { resource: "deployment", name: "nope", namespace: "staging" })).rejects.toThrow(
      /deployments "nope" not found in namespace "staging"/,
    );
    await expect(run("kubectl_get", { resource: "secrets" })).rejects.toThrow(/doesn't have a resource type "secrets"/);
    await expect(run("kubectl_get", { resource: "pods", namespace: "qa" })).rejects.toThrow(/namespaces "qa" not found/);
  });

  it("kubectl_describe and kubectl_logs read a resource", async () => {
    const sandbox = createSandbox();
    const run = toolsOn(sandbox);
    expect(String(await run("kubectl_describe", { resource: "deployment", name: "api", namespace: "production" }))).toContain(
      "Replicas: 3 desired, 3 running",
    );
    const pod = Object.keys(sandbox.snapshot().namespaces.production?.pods ?? {})[0] ?? "";
    expect(String(await run("kubectl_describe", { resource: "pod", name: pod, namespace: "production" }))).toMatch(/Controlled By: Deployment\//);
    expect(String(await run("kubectl_logs", { resource: "pod", name: pod, namespace: "production" }))).toContain("listening on :8080");
    expect(String(await run("kubectl_logs", { resource: "deployment", name: "web", namespace: "default" }))).toContain("nginx:1.27");
  });

  it("kubectl_delete removes a deployment with its pods, and a pod is replaced like a ReplicaSet would", async () => {
    const sandbox = createSandbox();
    const run = toolsOn(sandbox);
    expect(await run("kubectl_delete", { resource: "deployment", name: "worker", namespace: "staging" })).toBe('deployment.apps "worker" deleted');
    const staging = sandbox.snapshot().namespaces.staging;
    expect(Object.keys(staging?.deployments ?? {})).toEqual(["api"]);
    expect(Object.values(staging?.pods ?? {}).every((p) => p.deployment === "api")).toBe(true);
    const pod = Object.keys(staging?.pods ?? {})[0] ?? "";
    await run("kubectl_delete", { resource: "pod", name: pod, namespace: "staging" });
    const after = sandbox.snapshot().namespaces.staging?.pods ?? {};
    expect(pod in after).toBe(false);
    expect(Object.keys(after)).toHaveLength(2);
    await expect(run("kubectl_delete", { resource: "deployment", name: "worker", namespace: "staging" })).rejects.toThrow(/not found/);
  });

  it("kubectl_apply creates and updates a deployment from a manifest; kubectl_scale changes replicas", async () => {
    const sandbox = createSandbox();
    const run = toolsOn(sandbox);
    expect(await run("kubectl_apply", { resource: "deployment", name: "cache", namespace: "staging", manifest: "replicas: 2\nimage: redis:7" })).toBe(
      "deployment.apps/cache created",
    );
    expect(await run("kubectl_apply", { resource: "deployment", name: "cache", namespace: "staging", manifest: '{"replicas": 3, "image": "redis:7.2"}' })).toBe(
      "deployment.apps/cache configured",
    );
    expect(String(await run("kubectl_get", { resource: "deploy", name: "cache", namespace: "staging" }))).toMatch(/cache\s+3\/3\s+redis:7.2/);
    await expect(run("kubectl_apply", { resource: "deployment", name: "bad", namespace: "staging", manifest: "replicas: -1" })).rejects.toThrow(
      /invalid deployment manifest: replicas/,
    );
    expect(await run("kubectl_scale", { resource: "deployment", name: "cache", namespace: "staging", replicas: 1 })).toBe("deployment.apps/cache scaled to 1");
    expect(Object.values(sandbox.snapshot().namespaces.staging?.pods ?? {}).filter((p) => p.deployment === "cache")).toHaveLength(1);
    await expect(run("kubectl_scale", { resource: "pod", name: "x", namespace: "staging", replicas: 1 })).rejects.toThrow(/only deployments/);
  });

  it("kubectl_drain cordons a node and reschedules its pods elsewhere", async () => {
    const sandbox = createSandbox();
    const run = toolsOn(sandbox);
    const before = Object.values(sandbox.snapshot().namespaces).flatMap((ns) => Object.values(ns.pods)).length;
    const out = String(await run("kubectl_drain", { resource: "node", name: "node-1" }));
    expect(out).toMatch(/^node\/node-1 cordoned\n[\s\S]*evicting pod [\s\S]*node\/node-1 drained$/);
    const pods = Object.values(sandbox.snapshot().namespaces).flatMap((ns) => Object.values(ns.pods));
    expect(pods).toHaveLength(before);
    expect(pods.some((p) => p.node === "node-1")).toBe(false);
    expect(String(await run("kubectl_get", { resource: "nodes", name: "node-1" }))).toContain("SchedulingDisabled");
  });

  it("persists the sandbox to a JSON file atomically and reloads it", async () => {
    const path = join(tmp, "state", "cluster.json");
    const run = toolsOn(createSandbox({ path }));
    await run("kubectl_delete", { resource: "deployment", name: "web", namespace: "default" });
    expect(existsSync(path)).toBe(true);
    expect(JSON.parse(readFileSync(path, "utf8")).namespaces.default.deployments).toEqual({});
    const reloaded = createSandbox({ path });
    expect(reloaded.snapshot().namespaces.default?.deployments).toEqual({});
  });
});

describe("bash in the sandbox", () => {
  it("runs read-only commands over the virtual filesystem", async () => {
    const run = toolsOn(createSandbox());
    expect(await run("bash", { command: "ls /" })).toBe("app\netc\nhome\ntmp\nvar\n");
    expect(await run("bash", { command: "cat notes.txt" })).toBe("staging api is flaky\nproduction is protected\n");
    expect(await run("bash", { command: "grep ERROR /var/log/app.log | wc -l" })).toBe("2\n");
    expect(await run("bash", { command: "grep -ic error /var/log/app.log" })).toBe("2\n");
    expect(await run("bash", { command: "echo 'hello   world'" })).toBe("hello   world\n");
  });

  it("writes with touch and redirection, and fails on unknown commands without running anything", async () => {
    const sandbox = createSandbox();
    const run = toolsOn(sandbox);
    await run("bash", { command: "touch /tmp/a && echo one > /tmp/b; echo two >> /tmp/b" });
    expect(sandbox.snapshot().files["/tmp/b"]).toBe("one\ntwo\n");
    expect(sandbox.snapshot().files["/tmp/a"]).toBe("");
    await expect(run("bash", { command: "curl http://example.com" })).rejects.toThrow(/exit code 127[\s\S]*curl: command not found/);
    await expect(run("bash", { command: "cat /nope" })).rejects.toThrow(/exit code 1[\s\S]*No such file/);
    await expect(run("bash", { command: "echo 'unterminated" })).rejects.toThrow(/unmatched/);
  });

  it("`rm -rf /` only empties the virtual filesystem", async () => {
    const sandbox = createSandbox();
    const run = toolsOn(sandbox);
    const marker = join(tmp, "must-survive.txt");
    const { writeFileSync } = await import("node:fs");
    writeFileSync(marker, "real file");
    expect(await run("bash", { command: "rm -rf /" })).toBe("");
    expect(sandbox.snapshot().files).toEqual({});
    expect(await run("bash", { command: "ls /" })).toBe("");
    expect(readFileSync(marker, "utf8")).toBe("real file");
    expect(existsSync("/etc/hostname") || existsSync("/etc/passwd")).toBe(true);
    // The cluster is untouched by the shell.
    expect(Object.keys(sandbox.snapshot().namespaces)).toEqual(["default", "staging", "production"]);
  });

  it("classifies command lines as read-only only when every part reads", () => {
    expect(isReadOnlyCommand("cat a | grep b && wc -l c")).toBe(true);
    expect(isReadOnlyCommand("cat a && rm b")).toBe(false);
    expect(isReadOnlyCommand("touch x")).toBe(false);
    expect(isReadOnlyCommand("cat 'unterminated")).toBe(false);
  });
});
