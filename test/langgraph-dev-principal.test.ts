import { Client } from "@langchain/langgraph-sdk";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { CLI_AVAILABLE, ROOT, startDevServer, type DevServer } from "./helpers/langgraph-dev.js";
import { uiResume } from "./helpers/agent-chat-ui.js";

// Two API keys of different roles on a real `langgraph dev` with the project's auth handler: the
// keys' users (GUARDED_GRAPH_API_USERS) carry permissions and a role that the policies read.
const DEV_KEY = "principal-dev-key-0123456789ab";
const LEAD_KEY = "principal-lead-key-0123456789a";

const APPROVERS = `
principals: { metadata: [role] }
approvers:
  - id: leads
    tool: "kubectl_*"
    principal: { permissions: { equals: approve } }
    notRequester: true
`;

const ROLES = `
principals: { metadata: [role] }
`;
const LEAD_RULE = `  - id: leads-delete-staging
    tool: kubectl_delete
    where: { namespace: { equals: staging } }
    principal: { metadata.role: { equals: lead } }
    mode: allow
    reason: leads clean up staging themselves

`;

const requestSchema = z.object({ error: z.string().optional(), actionRequests: z.array(z.object({ name: z.string(), toolCallId: z.string(), description: z.string(), reason: z.string() })) });
const recordSchema = z.object({ threadId: z.string(), event: z.string(), decision: z.string(), tool: z.string(), actor: z.string().optional(), requester: z.string().optional(), ruleId: z.string() }).loose();

describe.runIf(CLI_AVAILABLE)("langgraph dev: rules and approvers read the API key's user", { timeout: 240_000 }, () => {
  let server: DevServer;
  let dir: string;
  const client = (key: string) => new Client({ apiUrl: server.apiUrl, apiKey: key });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "gg-lgdev-principal-"));
    const policies = join(dir, "policies");
    mkdirSync(policies);
    const devops = readFileSync(join(ROOT, "policies", "devops.yaml"), "utf8");
    writeFileSync(join(policies, "approvals.yaml"), `${devops}\n${APPROVERS}`);
    // deny-first: an allow never beats a matching ask, so the ask rule itself leaves the leads out.
    const asksOthers = devops.replace('tool: "kubectl_{delete,drain,cordon,taint}"\n    mode: ask', 'tool: "kubectl_{delete,drain,cordon,taint}"\n    principal: { metadata.role: { not: { equals: lead } } }\n    mode: ask');
    expect(asksOthers).not.toBe(devops);
    writeFileSync(join(policies, "roles.yaml"), `${asksOthers.replace("permissions:\n", `permissions:\n${LEAD_RULE}`)}\n${ROLES}`);
    server = await startDevServer({
      GUARDED_GRAPH_API_KEYS: `dev:${DEV_KEY},lead:${LEAD_KEY}`,
      GUARDED_GRAPH_API_USERS: JSON.stringify({ dev: { permissions: ["read"], metadata: { role: "dev" } }, lead: { permissions: ["approve"], metadata: { role: "lead" } } }),
      GUARDED_GRAPH_AUDIT: `jsonl:${join(dir, "audit.jsonl")}`,
      GUARDED_GRAPH_POLICY_DIR: policies,
    });
  }, 200_000);

  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const audit = () =>
    readFileSync(join(dir, "audit.jsonl"), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => recordSchema.parse(JSON.parse(line)));

  async function startRun(key: string, policy: string): Promise<{ thread: string; assistant: string }> {
    const c = client(key);
    const assistant = await c.assistants.create({ graphId: "devops", config: { configurable: { policy } } });
    const thread = await c.threads.create();
    await c.runs.wait(thread.thread_id, assistant.assistant_id, { input: { messages: [{ type: "human", content: "Tidy up the cluster" }] } });
    return { thread: thread.thread_id, assistant: assistant.assistant_id };
  }

  async function pending(key: string, thread: string) {
    const state = await client(key).threads.getState(thread);
    const value = state.tasks.flatMap((task) => task.interrupts ?? [])[0]?.value;
    return value === undefined ? undefined : { raw: value, request: requestSchema.parse(value) };
  }

  async function answer(key: string, run: { thread: string; assistant: string }, resume: unknown) {
    await client(key).runs.wait(run.thread, run.assistant, { command: { resume } });
    return pending(key, run.thread);
  }

  it("a rule on the role: the lead's delete in staging runs, the developer's same call asks and names the rule that did not allow it", async () => {
    const lead = await startRun(LEAD_KEY, "roles");
    expect(await pending(LEAD_KEY, lead.thread)).toBeUndefined();
    const dev = await startRun(DEV_KEY, "roles");
    const asked = await pending(DEV_KEY, dev.thread);
    expect(asked?.request.actionRequests.map((a) => a.name)).toEqual(["kubectl_delete"]);
    const decisions = audit().filter((r) => r.event === "decision" && r.tool === "kubectl_delete");
    const of = (thread: string) => decisions.filter((r) => r.threadId === thread).map((r) => `${r.decision}:${r.ruleId}`).sort();
    // The production delete of the same turn stays denied for both.
    expect(of(lead.thread)).toEqual(["allow:permission:leads-delete-staging", "deny:permission:prod-protected"]);
    expect(of(dev.thread)).toEqual(["ask:permission:k8s-destructive", "deny:permission:prod-protected"]);
  });

  it("the key without the approver permission is asked again; the lead's key approves; the audit names both users", async () => {
    const run = await startRun(DEV_KEY, "approvals");
    const first = await pending(DEV_KEY, run.thread);
    expect(first?.request.actionRequests.map((a) => a.name)).toEqual(["kubectl_delete"]);
    // The developer answers from Agent Chat UI's approve button, claiming in the answer to be the lead.
    const again = await answer(DEV_KEY, run, { ...uiResume(first?.raw, { type: "approve" }), actor: "lead" });
    expect(again?.request.error).toBe('approvers:leads: "dev" may not answer the call of kubectl_delete (approvers: principal permissions equals "approve")');
    expect(again?.request.actionRequests[0]?.description).toMatch(/^Your last answer was refused and nothing was done: approvers:leads: "dev" may not answer/);
    expect(await answer(LEAD_KEY, run, { decisions: [{ type: "approve" }] })).toBeUndefined();
    const humans = audit().filter((r) => r.threadId === run.thread && r.event === "human");
    expect(humans.map((r) => `${r.decision}:${r.actor}:${r.requester}`)).toEqual(["refused:dev:dev", "approve:lead:dev"]);
    const outcome = audit().find((r) => r.threadId === run.thread && r.event === "outcome" && r.tool === "kubectl_delete");
    expect(outcome?.decision).toBe("success");
  });

  it("four eyes: the lead cannot approve the lead's own call, not even naming another user in the answer; a user field in the answer is refused", async () => {
    const run = await startRun(LEAD_KEY, "approvals");
    expect((await pending(LEAD_KEY, run.thread))?.request.actionRequests).toHaveLength(1);
    let again = await answer(LEAD_KEY, run, { decisions: [{ type: "approve" }], actor: "dev" });
    expect(again?.request.error).toBe('approvers:leads: "lead" ran the call of kubectl_delete and may not approve it; another approver must');
    again = await answer(LEAD_KEY, run, { decisions: [{ type: "approve" }], langgraph_auth_user: { identity: "other", permissions: ["approve"] } });
    expect(again?.request.error).toMatch(/Unrecognized key.*langgraph_auth_user/);
    // The developer may not answer at all; the lead may reject the lead's own call.
    again = await answer(DEV_KEY, run, { decisions: [{ type: "approve" }] });
    expect(again?.request.error).toContain('"dev" may not answer');
    expect(await answer(LEAD_KEY, run, { decisions: [{ type: "reject", message: "not now" }] })).toBeUndefined();
    const humans = audit().filter((r) => r.threadId === run.thread && r.event === "human");
    expect(humans.map((r) => `${r.decision}:${r.actor}:${r.requester}`)).toEqual(["refused:lead:lead", "refused:dev:lead", "reject:lead:lead"]);
    expect(audit().some((r) => r.threadId === run.thread && r.event === "outcome" && r.tool === "kubectl_delete")).toBe(false);
  });
});
