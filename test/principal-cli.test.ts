import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { cli, ROOT } from "./helpers/cli-process.js";

// The local CLI authenticates an API key against the same keys a server uses: approver rules and
// rules on the principal read the same user on a local thread as on a LangGraph server.
const DEV = "cli-dev-key-0123456789abcdef";
const LEAD = "cli-lead-key-0123456789abcde";
const ENV = {
  GUARDED_GRAPH_API_KEYS: `dev:${DEV},lead:${LEAD}`,
  GUARDED_GRAPH_API_USERS: JSON.stringify({ dev: { metadata: { role: "dev" } }, lead: { permissions: ["approve"], metadata: { role: "lead" } } }),
  GUARDED_GRAPH_API_KEY: "",
};

const root = mkdtempSync(join(tmpdir(), "gg-cli-principal-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const record = z.object({ event: z.string(), decision: z.string(), tool: z.string(), actor: z.string().optional(), requester: z.string().optional() }).loose();

describe("the CLI on a local thread: --api-key names the user", { timeout: 180_000 }, () => {
  it("the developer's key and a claimed name are refused, the lead's key approves; the audit names both users", async () => {
    const dir = mkdtempSync(join(root, "case-"));
    const policy = join(dir, "approvals.yaml");
    writeFileSync(policy, `${readFileSync(join(ROOT, "policies", "devops.yaml"), "utf8")}\napprovers:\n  - { id: leads, tool: "kubectl_*", principal: { permissions: { equals: approve } }, notRequester: true }\n`);
    const run = await cli(dir, ["run", "devops", "Tidy up the cluster", "--thread", "t1", "--policy", policy, "--api-key", DEV, "--no-interactive"], { env: ENV });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/approval needed on thread t1: 1 pending call/);

    const own = await cli(dir, ["approve", "t1", "--api-key", DEV, "--no-interactive"], { env: ENV });
    expect(own.stdout + own.stderr).toContain('approvers:leads: "dev" may not answer the call of kubectl_delete');
    const claimed = await cli(dir, ["approve", "t1", "--actor", "lead", "--no-interactive"], { env: ENV });
    expect(claimed.stdout + claimed.stderr).toContain("approvers:leads: only an authenticated user may answer the call of kubectl_delete");
    const wrongKey = await cli(dir, ["approve", "t1", "--api-key", "not-a-key-0123456789abcdef", "--no-interactive"], { env: ENV });
    expect(wrongKey.code).toBe(2);
    expect(wrongKey.stderr).toContain("the API key is not one of GUARDED_GRAPH_API_KEYS");

    const lead = await cli(dir, ["approve", "t1", "--api-key", LEAD, "--no-interactive"], { env: ENV });
    expect(lead.code, lead.stderr).toBe(0);
    expect(lead.stdout).not.toMatch(/approval needed/);
    const humans = readFileSync(join(dir, "audit.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => record.parse(JSON.parse(line)))
      .filter((r) => r.event === "human");
    expect(humans.map((r) => `${r.decision}:${r.actor ?? "-"}:${r.requester}`)).toEqual(["refused:dev:dev", "refused:-:dev", "approve:lead:dev"]);
  });
});
