// Permission rules in code: deny beats ask beats allow, whatever the order they are written in.
import { fileURLToPath } from "node:url";
import { PermissionPolicy } from "guarded-graph";

export function inlinePolicyExample() {
  const policy = new PermissionPolicy(
    [
      { id: "read-etc", tool: "read_file", where: { path: { glob: "/etc/**" } }, mode: "ask", reason: "system configuration" },
      { id: "workspace", tool: "{read,write}_file", where: { path: { prefix: "/workspace/" } }, mode: "allow" },
      { id: "secrets", tool: "*_file", where: { path: { regex: "(^|/)\\.env$|id_rsa" } }, mode: "deny", reason: "secrets stay secret" },
    ],
    { toolRisk: { read_file: "low", write_file: "high", delete_file: "high" } },
  );
  return {
    workspace: policy.decide("write_file", { path: "/workspace/notes.md", content: "hi" }), // allow (workspace)
    // ask (risk:high): `path` is a path, read as /root/.ssh/authorized_keys, which is not under /workspace/
    escape: policy.decide("write_file", { path: "/workspace/../root/.ssh/authorized_keys", content: "key" }),
    secret: policy.decide("read_file", { path: "/workspace/.env" }), // deny (secrets), though workspace also matches
    etc: policy.decide("read_file", { path: "/etc/hosts" }), // ask (read-etc)
    other: policy.decide("delete_file", { path: "/tmp/x" }), // ask (risk:high, no rule matched)
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(inlinePolicyExample());
