import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { cli, ROOT } from "./helpers/cli-process.js";

let root: string;
let twoAsks: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "gg-cli-"));
  twoAsks = join(root, "two-asks.json");
  // Two calls that ask in one model turn, to test partial answers and --reject-rest.
  writeFileSync(
    twoAsks,
    JSON.stringify({
      name: "two-asks",
      turns: [
        {
          tool_calls: [
            { name: "kubectl_delete", args: { resource: "deployment", name: "worker", namespace: "staging" } },
            { name: "kubectl_drain", args: { resource: "node", name: "node-1" } },
          ],
        },
        { text: "Done with both requests." },
      ],
    }),
  );
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A working directory of its own per test, so the tests can run at the same time. */
function workdir(): string {
  return mkdtempSync(join(root, "case-"));
}

const auditRecord = z.object({ threadId: z.string(), toolCallId: z.string(), tool: z.string(), event: z.string(), decision: z.string(), ruleId: z.string(), actor: z.string().optional() });

async function auditOf(dir: string, thread: string) {
  const result = await cli(dir, ["audit", thread, "--json"]);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim().split("\n").filter(Boolean).map((line) => auditRecord.parse(JSON.parse(line)));
}

async function threadsJson(dir: string) {
  const result = await cli(dir, ["threads", "--json"]);
  expect(result.code, result.stderr).toBe(0);
  return z.array(z.object({ threadId: z.string(), graph: z.string().nullable(), waiting: z.boolean(), status: z.string() })).parse(JSON.parse(result.stdout));
}

// Each test drives several CLI processes (a few seconds each); the tests run concurrently. On a loaded
// 2-core machine (the whole suite beside helpers' runs, load 8) the longest two took over 180 s.
describe.concurrent("guarded-graph CLI, each command a separate process", { timeout: 360_000 }, () => {
  it("run stops at the approval, threads shows it waiting, approve in a new process completes it, the audit has every decision", async () => {
    const dir = workdir();
    const run = await cli(dir, ["run", "devops", "Tidy up the cluster", "--thread", "e2e-approve"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/guard\s+allow\s+kubectl_get \(call_0_0\)\s+rule permission:k8s-read/);
    expect(run.stdout).toMatch(/guard\s+deny\s+kubectl_delete \(call_1_0\)\s+rule permission:prod-protected/);
    expect(run.stdout).toMatch(/approval needed on thread e2e-approve: 1 pending call/);
    expect(run.stdout).toMatch(/kubectl_delete\s+call id: call_2_0/);
    expect(run.stdout).toMatch(/risk:\s+high/);
    expect(run.stdout).toMatch(/rule:\s+permission:k8s-destructive/);
    expect(run.stdout).not.toMatch(/result/);

    const waiting = (await threadsJson(dir)).find((t) => t.threadId === "e2e-approve");
    expect(waiting).toMatchObject({ graph: "devops", waiting: true });
    const listing = await cli(dir, ["threads"]);
    expect(listing.stdout).toMatch(/e2e-approve\s+devops\s+\S+\s+waiting for approval \(1 call\)/);
    const show = await cli(dir, ["show", "e2e-approve"]);
    expect(show.stdout).toMatch(/call id: call_2_0/);
    expect(show.stdout).toContain('"namespace":"staging"');

    const approve = await cli(dir, ["approve", "e2e-approve", "--actor", "alice"]);
    expect(approve.code, approve.stderr).toBe(0);
    expect(approve.stdout).toMatch(/human\s+approve kubectl_delete \(call_2_0\) by alice/);
    expect(approve.stdout).toContain('deployment.apps "worker" deleted');
    expect(approve.stdout).toMatch(/result\s+Summary: .*deleted after approval/);
    expect((await threadsJson(dir)).find((t) => t.threadId === "e2e-approve")).toMatchObject({ waiting: false, status: "done" });

    const records = await auditOf(dir, "e2e-approve");
    const events = records.map((r) => `${r.event}:${r.decision}:${r.tool}:${r.toolCallId}`);
    expect(events).toEqual([
      "decision:allow:kubectl_get:call_0_0",
      "outcome:success:kubectl_get:call_0_0",
      "decision:deny:kubectl_delete:call_1_0",
      "decision:ask:kubectl_delete:call_2_0",
      "human:approve:kubectl_delete:call_2_0",
      "outcome:success:kubectl_delete:call_2_0",
    ]);
    expect(records.find((r) => r.event === "human")?.actor).toBe("alice");
    expect(records.find((r) => r.decision === "deny")?.ruleId).toBe("permission:prod-protected");
  });

  it("reject sends the message to the model and nothing runs", async () => {
    const dir = workdir();
    expect((await cli(dir, ["run", "devops", "Tidy up", "--thread", "e2e-reject"])).code).toBe(0);
    const reject = await cli(dir, ["reject", "e2e-reject", "call_2_0", "--message", "not during the freeze"]);
    expect(reject.code, reject.stderr).toBe(0);
    expect(reject.stdout).toMatch(/human\s+reject kubectl_delete \(call_2_0\) by \S+: not during the freeze/);
    expect(reject.stdout).toMatch(/was not approved, so nothing changed/);
    const records = await auditOf(dir, "e2e-reject");
    expect(records.filter((r) => r.event === "outcome" && r.tool === "kubectl_delete")).toEqual([]);
  });

  it("edit runs the edited call after the guard reviews it again", async () => {
    const dir = workdir();
    expect((await cli(dir, ["run", "devops", "Tidy up", "--thread", "e2e-edit"])).code).toBe(0);
    const edit = await cli(dir, ["edit", "e2e-edit", "call_2_0", "--args", '{"resource":"deployment","name":"api","namespace":"staging"}']);
    expect(edit.code, edit.stderr).toBe(0);
    expect(edit.stdout).toContain('deployment.apps "api" deleted');
    const records = await auditOf(dir, "e2e-edit");
    expect(records.map((r) => `${r.event}:${r.decision}`)).toContain("human:edit");

    // An edit into production is denied by the policy: the edit cannot reach a denied call.
    expect((await cli(dir, ["run", "devops", "Tidy up", "--thread", "e2e-edit-prod"])).code).toBe(0);
    const denied = await cli(dir, ["edit", "e2e-edit-prod", "call_2_0", "--args", '{"resource":"deployment","name":"api","namespace":"production"}']);
    expect(denied.code).toBe(0);
    expect(denied.stdout).toMatch(/guard\s+deny\s+kubectl_delete \(call_2_0\)\s+rule permission:prod-protected/);
    expect(denied.stdout).not.toContain("deleted\n");

    const badJson = await cli(dir, ["edit", "e2e-edit-prod", "call_2_0", "--args", "{nope"]);
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toMatch(/--args for call_2_0 refused: not valid JSON/);
  });

  it("refuses until every pending call is answered; --reject-rest rejects the others", async () => {
    const dir = workdir();
    const env = { GUARDED_GRAPH_SCENARIO: twoAsks };
    const run = await cli(dir, ["run", "devops", "Clean up", "--thread", "e2e-two"], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/2 pending calls/);

    const partial = await cli(dir, ["approve", "e2e-two", "call_0_0"], { env });
    expect(partial.code).toBe(1);
    expect(partial.stderr).toMatch(/call_0_1 \(kubectl_drain\) has none/);
    expect(partial.stderr).toMatch(/--reject-rest/);
    expect(partial.stderr).toMatch(/Nothing was sent/);
    expect((await threadsJson(dir)).find((t) => t.threadId === "e2e-two")?.waiting).toBe(true);

    const unknown = await cli(dir, ["reject", "e2e-two", "call_9_9", "--message", "x"], { env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no pending call "call_9_9".*call_0_0 \(kubectl_delete\), call_0_1 \(kubectl_drain\)/);

    const done = await cli(dir, ["approve", "e2e-two", "call_0_0", "--reject-rest", "--message", "not the node"], { env });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain('deployment.apps "worker" deleted');
    expect(done.stdout).toMatch(/result\s+Done with both requests/);
    const human = (await auditOf(dir, "e2e-two")).filter((r) => r.event === "human").map((r) => `${r.decision}:${r.toolCallId}`);
    expect(human.sort()).toEqual(["approve:call_0_0", "reject:call_0_1"]);

    const again = await cli(dir, ["approve", "e2e-two"], { env });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/not waiting for approval/);
  });

  it("--leave-rest sends a partial answer: the named call runs, the other waits for a later command", async () => {
    const dir = workdir();
    const env = { GUARDED_GRAPH_SCENARIO: twoAsks };
    expect((await cli(dir, ["run", "devops", "Clean up", "--thread", "e2e-leave"], { env })).code).toBe(0);
    const both = await cli(dir, ["approve", "e2e-leave", "call_0_0", "--leave-rest", "--reject-rest"], { env });
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--reject-rest or --leave-rest, not both/);

    const first = await cli(dir, ["approve", "e2e-leave", "call_0_0", "--leave-rest"], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('deployment.apps "worker" deleted');
    expect(first.stdout).toMatch(/approval needed on thread e2e-leave: 1 pending call/);
    expect(first.stdout).toMatch(/kubectl_drain\s+call id: call_0_1/);
    expect(first.stdout).not.toMatch(/Done with both requests/);
    expect((await threadsJson(dir)).find((t) => t.threadId === "e2e-leave")?.waiting).toBe(true);

    const rest = await cli(dir, ["reject", "e2e-leave", "call_0_1", "--message", "not the node"], { env });
    expect(rest.code, rest.stderr).toBe(0);
    expect(rest.stdout).toMatch(/result\s+Done with both requests/);
    const human = (await auditOf(dir, "e2e-leave")).filter((r) => r.event === "human").map((r) => `${r.decision}:${r.toolCallId}`);
    expect(human).toEqual(["approve:call_0_0", "reject:call_0_1"]);
  });

  it("run --interactive asks y/n/e at the prompt (answers piped on stdin)", async () => {
    const dir = workdir();
    const result = await cli(dir, ["run", "devops", "Tidy up", "--thread", "e2e-interactive", "--interactive"], { input: "y\n" });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/approve kubectl_delete\? \[y\/n\/e\]/);
    expect(result.stdout).toContain('deployment.apps "worker" deleted');
  });

  it("policy check exits 0 for a valid policy and 1 for errors; policy plan prints the plan", async () => {
    const dir = workdir();
    const ok = await cli(dir, ["policy", "check", join(ROOT, "policies", "devops.yaml"), "--graph", "devops"]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/✓ .*devops\.yaml: no errors/);
    const cycle = join(dir, "cycle.toml");
    writeFileSync(
      cycle,
      'version = 1\n[[agent.tool_rules]]\ntool_name = "a"\nrule_type = "MustFollow"\nconditions = ["b"]\n[[agent.tool_rules]]\ntool_name = "b"\nrule_type = "MustFollow"\nconditions = ["a"]\n',
    );
    const bad = await cli(dir, ["policy", "check", cycle]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/error: tool_rules: \[cycle\]/);
    writeFileSync(join(dir, "broken.yaml"), "version: 1\npermissions: 42\n");
    expect((await cli(dir, ["policy", "check", join(dir, "broken.yaml")])).code).toBe(1);
    const plan = await cli(dir, ["policy", "plan", join(ROOT, "policies", "etl.toml")]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/initial calls: connect_database/);
    expect(plan.stdout).toMatch(/required before exit: close_database/);
  });

  it("usage errors exit 2 and name what would be accepted", async () => {
    const dir = workdir();
    const graph = await cli(dir, ["run", "nope", "hi"]);
    expect(graph.code).toBe(2);
    expect(graph.stderr).toMatch(/unknown graph "nope"; graphs: devops, etl, memory/);
    const flag = await cli(dir, ["threads", "--bogus"]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/--bogus/);
    const db = await cli(dir, ["threads", "--db", "mysql://x"]);
    expect(db.code).toBe(2);
    expect(db.stderr).toMatch(/--db refused: .*sqlite:PATH/);
  });

  it("demo --yes runs the DevOps demo to the end offline", async () => {
    const dir = workdir();
    const demo = await cli(dir, ["demo", "--yes"]);
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stdout).toMatch(/scripted \(scenarios\/devops-demo\.yaml, offline\)/);
    expect(demo.stdout).toMatch(/guard\s+deny/);
    expect(demo.stdout).toMatch(/auto-approved \(--yes\)/);
    expect(demo.stdout).toMatch(/after:\s+staging deployments api;/);
    expect(demo.stdout).toMatch(/audit:\s+1 allowed, 1 denied, 1 asked, 1 human answer/);
  });

  it("demo without a terminal approves automatically with a notice", async () => {
    const dir = workdir();
    const demo = await cli(dir, ["demo"]);
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stderr).toMatch(/stdin is not a terminal/);
    expect(demo.stdout).toMatch(/result\s+Summary/);
  });
});
