import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { cli } from "./helpers/cli-process.js";
import { postgresForTests, uniqueName } from "./helpers/postgres.js";

/**
 * Sticky decisions through the CLI, each command a separate process (a restart, another worker):
 * made with `approve --sticky`, listed with `sticky list`, revoked with `sticky revoke` (audited),
 * on SQLite and, when POSTGRES_URL is reachable, on PostgreSQL.
 */
let root: string;
let scenario: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "gg-sticky-"));
  scenario = join(root, "three-runs.json");
  const del = (name: string) => ({ tool_calls: [{ name: "kubectl_delete", args: { resource: "deployment", name, namespace: "staging" } }] });
  // Three runs, one staging delete each (call ids call_0_0, call_2_0, call_4_0).
  writeFileSync(scenario, JSON.stringify({ name: "three-runs", turns: [del("worker"), { text: "first done" }, del("api"), { text: "second done" }, del("cache"), { text: "third done" }] }));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const stickyRow = z.object({
  id: z.string(),
  decision: z.enum(["approve", "reject"]),
  tool: z.string(),
  scope: z.enum(["run", "thread"]),
  runId: z.string(),
  toolCallId: z.string(),
  actor: z.string().optional(),
  at: z.number(),
  args: z.record(z.string(), z.unknown()).optional(),
});
const auditRecord = z.looseObject({ toolCallId: z.string(), event: z.string(), decision: z.string(), actor: z.string().optional(), reason: z.string() });

async function journey(dir: string, thread: string, db: string[]) {
  const env = { GUARDED_GRAPH_SCENARIO: scenario };
  const run = (message: string) => cli(dir, ["run", "devops", message, "--thread", thread, ...db], { env });
  const sticky = (...args: string[]) => cli(dir, ["sticky", ...args, ...db], { env });

  const first = await run("one");
  expect(first.code, first.stderr).toBe(0);
  expect(first.stdout).toMatch(/approval needed on thread .*: 1 pending call/);

  // Nothing to revoke while the thread waits: refused, nothing changed.
  const waiting = await sticky("revoke", thread, "anything");
  expect(waiting.code).toBe(1);
  expect(waiting.stderr).toContain(`thread ${thread} is waiting for an approval: answer it first, then revoke (nothing was changed)`);

  const approve = await cli(dir, ["approve", thread, "--sticky", "thread", "--actor", "alice", ...db], { env });
  expect(approve.code, approve.stderr).toBe(0);
  expect(approve.stdout).toContain('deployment.apps "worker" deleted');

  const listed = await sticky("list", thread, "--json");
  expect(listed.code, listed.stderr).toBe(0);
  const standing = z.array(stickyRow).parse(JSON.parse(listed.stdout));
  expect(standing).toMatchObject([{ decision: "approve", tool: "kubectl_delete", scope: "thread", toolCallId: "call_0_0", actor: "alice" }]);
  const id = standing[0]?.id ?? "";
  const table = await sticky("list", thread);
  expect(table.stdout).toMatch(new RegExp(`^ID\\s+DECISION\\s+TOOL\\s+ARGS\\s+SCOPE\\s+BY\\s+MADE\\n${id}\\s+approve\\s+kubectl_delete\\s+\\(any\\)\\s+thread\\s+alice\\s+\\d{4}-`));

  // A new run in a new process: the standing approval answers the delete, no approval asked.
  const second = await run("two");
  expect(second.code, second.stderr).toBe(0);
  expect(second.stdout).toContain('deployment.apps "api" deleted');
  expect(second.stdout).not.toMatch(/approval needed/);

  const unknown = await sticky("revoke", thread, "no-such-id");
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain(`thread ${thread} has no standing decision "no-such-id"; standing: ${id}`);

  const revoke = await sticky("revoke", thread, id, "--actor", "bob");
  expect(revoke.code, revoke.stderr).toBe(0);
  expect(revoke.stdout.trim()).toBe(
    `revoked ${id} on thread ${thread}: the standing approve of kubectl_delete for the thread no longer holds; later calls ask again (audited)`,
  );
  expect((await sticky("list", thread)).stdout.trim()).toBe(`thread ${thread} has no standing decisions`);
  const again = await sticky("revoke", thread, id);
  expect(again.code).toBe(1);

  // The next run asks again.
  const third = await run("three");
  expect(third.code, third.stderr).toBe(0);
  expect(third.stdout).toMatch(/approval needed on thread .*: 1 pending call/);
  expect(third.stdout).toMatch(/call id: call_4_0/);

  const audit = await cli(dir, ["audit", thread, "--json"]);
  expect(audit.code, audit.stderr).toBe(0);
  const records = audit.stdout.trim().split("\n").filter(Boolean).map((line) => auditRecord.parse(JSON.parse(line)));
  const human = records.filter((r) => r.event === "human").map((r) => [r.toolCallId, r.decision, r.actor]);
  expect(human).toEqual([
    ["call_0_0", "approve", "alice"],
    ["call_2_0", "approve", "alice"],
    ["call_0_0", "revoke", "bob"],
  ]);
  expect(records.find((r) => r.decision === "revoke")?.reason).toBe("standing approve for the thread revoked: later calls ask again");
}

describe.concurrent("guarded-graph sticky list / revoke, each command a separate process", { timeout: 180_000 }, () => {
  it("SQLite: made with approve --sticky, listed, holds in a new run, revoked (audited), asks again", async () => {
    await journey(mkdtempSync(join(root, "case-")), "sticky-sqlite", []);
  });

  it("PostgreSQL: the same, every command a fresh worker on the shared database", async () => {
    const url = await postgresForTests();
    if (!url) return;
    const thread = uniqueName("sticky-cli").replace(/_/g, "-");
    try {
      await journey(mkdtempSync(join(root, "case-")), thread, ["--db", url]);
    } finally {
      const pool = new pg.Pool({ connectionString: url, max: 1 });
      await pool.query("DELETE FROM checkpoints WHERE thread_id = $1", [thread]).catch(() => undefined);
      await pool.query("DELETE FROM checkpoint_writes WHERE thread_id = $1", [thread]).catch(() => undefined);
      await pool.query("DELETE FROM checkpoint_blobs WHERE thread_id = $1", [thread]).catch(() => undefined);
      await pool.end();
    }
  });

  it("usage: sticky needs list or revoke and the right arguments; --sticky does not go with edit", async () => {
    const dir = mkdtempSync(join(root, "case-"));
    const bare = await cli(dir, ["sticky"]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("sticky: list or revoke? Usage: sticky list THREAD [--json] | sticky revoke THREAD ID [--actor NAME]");
    expect((await cli(dir, ["sticky", "revoke", "t1"])).code).toBe(2);
    const edit = await cli(dir, ["edit", "t1", "c1", "--args", "{}", "--sticky", "run"]);
    expect(edit.code).toBe(2);
    expect(edit.stderr).toMatch(/--sticky goes with approve or reject/);
    const scope = await cli(dir, ["approve", "t1", "--sticky", "forever"]);
    expect(scope.code).toBe(2);
    expect(scope.stderr).toMatch(/--sticky/);
  });
});
