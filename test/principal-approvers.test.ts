import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Annotation, Command, END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryAuditSink } from "../src/audit/memory.js";
import type { AuditRecord } from "../src/audit/types.js";
import { createGuardedAgent } from "../src/guard/agent.js";
import type { ApprovalRequest } from "../src/guard/approval/payload.js";
import { GuardAnnotation } from "../src/guard/state.js";
import { GuardedToolNode, guardedToolsRoute } from "../src/guard/tool-node.js";
import { guardMiddleware } from "../src/middleware/guard-middleware.js";
import { parsePolicy, permissionPolicy } from "../src/policy/file.js";
import { asUser, type AuthUserInput } from "../src/principal/principal.js";
import { defineTool } from "../src/tools/define-tool.js";

const POLICY = `
principals: { metadata: [tenant, role] }
tools:
  deploy: { risk: high }
  drop_table: { risk: high }
  read_invoice: { risk: low }
permissions:
  - id: own-tenant
    tool: read_invoice
    mode: deny
    where: { tenantId: { not: { sameAs: metadata.tenant } } }
    reason: invoices of another tenant
approvers:
  - id: deployers
    tool: deploy
    principal: { permissions: { equals: approve } }
    notRequester: true
  - id: two-dbas
    tool: drop_table
    principal: { metadata.role: { equals: dba } }
    approvals: 2
`;

const alice: AuthUserInput = { identity: "alice", permissions: ["approve"], metadata: { tenant: "acme", role: "dba" } };
const bob: AuthUserInput = { identity: "bob", permissions: ["approve"], metadata: { tenant: "acme", role: "dba" } };
const carol: AuthUserInput = { identity: "carol", permissions: ["read"], metadata: { tenant: "acme", role: "dev" } };
const dave: AuthUserInput = { identity: "dave", permissions: [], metadata: { tenant: "acme", role: ["ops", "DBA"] } };

function tools(ran: string[]) {
  const deploy = defineTool({ name: "deploy", description: "Deploy a service", schema: z.object({ service: z.string() }), execute: (input) => (ran.push(`deploy ${input.service}`), "deployed") });
  const drop = defineTool({ name: "drop_table", description: "Drop a table", schema: z.object({ table: z.string() }), execute: (input) => (ran.push(`drop ${input.table}`), "dropped") });
  const read = defineTool({ name: "read_invoice", description: "Read an invoice", schema: z.object({ tenantId: z.string(), id: z.string() }), execute: (input) => (ran.push(`read ${input.tenantId}/${input.id}`), "invoice") });
  return [deploy, drop, read];
}

type Call = { name: string; args: Record<string, unknown>; id: string };
const model = (calls: Call[]) => fakeModel().respondWithTools(calls).respond(new AIMessage("done"));

interface Runner {
  invoke(input: unknown, config: Record<string, unknown>): Promise<unknown>;
}

/** The same policy and tools behind each entry point. */
const ENTRY_POINTS: Record<string, (calls: Call[], ran: string[], audit: MemoryAuditSink, policy?: string) => Runner> = {
  createGuardedAgent: (calls, ran, audit, policy = POLICY) => createGuardedAgent({ model: model(calls), tools: tools(ran), permissions: permissionPolicy(parsePolicy(policy, "yaml", "p.yaml")), checkpointer: new MemorySaver(), audit }) as unknown as Runner,
  GuardedToolNode: (calls, ran, audit, policy = POLICY) => {
    const m = model(calls);
    const State = Annotation.Root({ ...MessagesAnnotation.spec, ...GuardAnnotation.spec });
    return new StateGraph(State)
      .addNode("agent", async (state) => ({ messages: [await m.invoke(state.messages)] }))
      .addNode("tools", new GuardedToolNode({ tools: tools(ran), permissions: permissionPolicy(parsePolicy(policy, "yaml", "p.yaml")), audit }))
      .addEdge(START, "agent")
      .addConditionalEdges("agent", (s) => ((s.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END), ["tools", END])
      .addConditionalEdges("tools", guardedToolsRoute("agent"), ["agent", END])
      .compile({ checkpointer: new MemorySaver() }) as unknown as Runner;
  },
  guardMiddleware: (calls, ran, audit, policy = POLICY) =>
    createAgent({ model: model(calls), middleware: [guardMiddleware({ tools: tools(ran), permissions: permissionPolicy(parsePolicy(policy, "yaml", "p.yaml")), audit })], checkpointer: new MemorySaver() }) as unknown as Runner,
};

const thread = (id: string) => ({ configurable: { thread_id: id } });
const as = (id: string, user: AuthUserInput | undefined) => (user === undefined ? thread(id) : asUser(thread(id), user));
const requestOf = (out: unknown): ApprovalRequest | undefined => ((out as { __interrupt__?: { value: unknown }[] }).__interrupt__ ?? [])[0]?.value as ApprovalRequest | undefined;
const approve = (extra: Record<string, unknown> = {}) => new Command({ resume: { decisions: [{ type: "approve" }], ...extra } });
const humans = async (audit: MemoryAuditSink): Promise<AuditRecord[]> => (await audit.query()).filter((r) => r.event === "human");

for (const [entry, build] of Object.entries(ENTRY_POINTS)) {
  /** A graph of this entry point over `calls`, run once as `user` (null: no authenticated user) on thread `${entry}-${name}`. */
  const started = async (name: string, calls: Call[], user: AuthUserInput | null = alice) => {
    const ran: string[] = [];
    const audit = new MemoryAuditSink();
    const graph = build(calls, ran, audit);
    const id = `${entry}-${name}`;
    const first = requestOf(await graph.invoke({ messages: [new HumanMessage("go")] }, as(id, user ?? undefined)));
    return { ran, audit, graph, id, first };
  };

  describe(`rules on who asks and who answers, through ${entry}`, () => {
    it("sameAs: the caller's own tenant runs, another tenant is denied, no authenticated user asks", async () => {
      const ran: string[] = [];
      const audit = new MemoryAuditSink();
      const graph = build(
        [
          { name: "read_invoice", args: { tenantId: "ACME ", id: "1" }, id: "r1" },
          { name: "read_invoice", args: { tenantId: "globex", id: "2" }, id: "r2" },
        ],
        ran,
        audit,
      );
      await graph.invoke({ messages: [new HumanMessage("invoices")] }, as(`${entry}-tenant`, alice));
      expect(ran).toEqual(["read ACME /1"]);
      const decisions = (await audit.query()).filter((r) => r.event === "decision").map((r) => `${r.toolCallId}:${r.decision}:${r.ruleId}`);
      expect(decisions).toEqual(["r1:allow:risk:low", "r2:deny:permission:own-tenant"]);

      const anonymous = build([{ name: "read_invoice", args: { tenantId: "acme", id: "1" }, id: "r3" }], [], new MemoryAuditSink());
      const out = await anonymous.invoke({ messages: [new HumanMessage("invoices")] }, as(`${entry}-anon`, undefined));
      expect(requestOf(out)?.actionRequests[0]?.reason).toContain("the run has no authenticated user (langgraph_auth_user), so metadata.tenant cannot be read");
    });

    it("four eyes: a user without the approver permission, the requester and a forged identity are asked again; another approver runs it", async () => {
      const { ran, audit, graph, id, first: asked } = await started("four-eyes", [{ name: "deploy", args: { service: "web" }, id: "d1" }]);
      expect(asked?.actionRequests[0]?.description).toMatch(/ Who may answer: a user with principal permissions equals "approve"; not the user who ran it\.$/);

      let again = requestOf(await graph.invoke(approve(), as(id, carol)));
      expect(again?.error).toBe('invalid approval resume: approvers:deployers: "carol" may not answer the call of deploy (approvers: principal permissions equals "approve")'.replace("invalid approval resume: ", ""));
      again = requestOf(await graph.invoke(approve(), as(id, { ...alice, identity: " Alice" })));
      expect(again?.error).toBe('approvers:deployers: "Alice" ran the call of deploy and may not approve it; another approver must');
      // No authenticated user: a name in the answer is only a claim, whatever it says.
      again = requestOf(await graph.invoke(approve({ actor: "bob" }), as(id, undefined)));
      expect(again?.error).toBe("approvers:deployers: only an authenticated user may answer the call of deploy, and this answer carries none (an identity written in the answer itself does not count)");
      expect(again?.actionRequests[0]?.description).toMatch(/^Your last answer was refused and nothing was done: approvers:deployers: only an authenticated user/);
      // A user field in the answer itself is not part of the resume: refused as it does not fit.
      again = requestOf(await graph.invoke(new Command({ resume: { decisions: [{ type: "approve" }], langgraph_auth_user: bob } }), as(id, carol)));
      expect(again?.error).toMatch(/Unrecognized key.*langgraph_auth_user/);
      expect(ran).toEqual([]);

      // Carol claims to be bob in the answer: the claim is recorded as such, carol is the approver and is refused.
      again = requestOf(await graph.invoke(approve({ actor: "bob" }), as(id, carol)));
      expect(again?.error).toContain('"carol" may not answer');
      expect(ran).toEqual([]);

      expect(requestOf(await graph.invoke(approve(), as(id, bob)))).toBeUndefined();
      expect(ran).toEqual(["deploy web"]);
      const records = await humans(audit);
      expect(records.map((r) => `${r.decision}:${r.actor ?? "-"}:${r.requester ?? "-"}`)).toEqual([
        "refused:carol:alice",
        "refused:Alice:alice",
        "refused:-:alice",
        "approve:bob:alice",
      ]);
      expect(records.at(-1)).toMatchObject({ ruleId: "risk:high", detail: { actorSource: "langgraph_auth_user" } });
      expect(records.at(-1)?.detail).not.toHaveProperty("requester");
    });

    it("no standing approval where a rule needs its approvers every time, and no edit of a call that needs several", async () => {
      const { ran, graph, id } = await started("standing", [{ name: "deploy", args: { service: "web" }, id: "d3" }, { name: "drop_table", args: { table: "t" }, id: "t3" }]);
      let again = requestOf(await graph.invoke(new Command({ resume: { decisions: { d3: { type: "approve", sticky: { scope: "thread" } } } } }), as(id, bob)));
      expect(again?.error).toBe('approvers:deployers: the call of deploy needs its approvers every time; answer it without "don\'t ask again" (sticky)');
      again = requestOf(await graph.invoke(new Command({ resume: { decisions: { t3: { type: "edit", editedAction: { name: "drop_table", args: { table: "u" } } } } } }), as(id, bob)));
      expect(again?.error).toBe("approvers:two-dbas: the call of drop_table needs 2 different approvers of the same arguments; approve or reject it (an edit would leave earlier approvals behind)");
      expect(ran).toEqual([]);
    });

    it("four eyes with no authenticated requester: no one can be shown to be someone else, so no approval counts", async () => {
      const { ran, graph, id } = await started("anonymous-requester", [{ name: "deploy", args: { service: "web" }, id: "d4" }], null);
      const again = requestOf(await graph.invoke(approve(), as(id, bob)));
      expect(again?.error).toBe("approvers:deployers: the user who ran the call of deploy is not known, so no one can be shown to be a different person; this call cannot be approved here");
      expect(requestOf(await graph.invoke(new Command({ resume: { decisions: [{ type: "reject", message: "who asked?" }] } }), as(id, bob)))).toBeUndefined();
      expect(ran).toEqual([]);
    });

    it("a reject by an approver is accepted; the requester may reject but not approve", async () => {
      const { ran, audit, graph, id } = await started("reject", [{ name: "deploy", args: { service: "web" }, id: "d2" }]);
      expect(requestOf(await graph.invoke(new Command({ resume: { decisions: [{ type: "reject", message: "not today" }] } }), as(id, alice)))).toBeUndefined();
      expect(ran).toEqual([]);
      expect((await humans(audit)).map((r) => `${r.decision}:${r.actor}:${r.requester}`)).toEqual(["reject:alice:alice"]);
    });

    it("on resume the calls are judged for the user who ran them: an approver without the requester's permission changes no decision", async () => {
      const ran: string[] = [];
      const audit = new MemoryAuditSink();
      // read_invoice is allowed for alice's tenant; as bob's (tenant globex) it would be denied.
      const graph = build(
        [
          { name: "read_invoice", args: { tenantId: "acme", id: "9" }, id: "r9" },
          { name: "deploy", args: { service: "api" }, id: "d9" },
        ],
        ran,
        audit,
      );
      const id = `${entry}-requester-view`;
      const out = await graph.invoke({ messages: [new HumanMessage("go")] }, as(id, alice));
      expect(requestOf(out)?.actionRequests.map((a) => a.toolCallId)).toEqual(["d9"]);
      expect(requestOf(await graph.invoke(approve(), as(id, { ...bob, metadata: { tenant: "globex" } })))).toBeUndefined();
      expect(ran.sort()).toEqual(["deploy api", "read acme/9"]);
      const decisions = (await audit.query()).filter((r) => r.event === "decision").map((r) => `${r.toolCallId}:${r.decision}`);
      expect(decisions).toEqual(["r9:allow", "d9:ask"]);
    });

    it("without approver rules too, a resume by another user (or none) changes no decision made for the user who ran the calls", async () => {
      const rulesOnly = POLICY.slice(0, POLICY.indexOf("approvers:"));
      for (const answerer of [{ ...bob, metadata: { tenant: "globex" } }, undefined]) {
        const ran: string[] = [];
        const audit = new MemoryAuditSink();
        const graph = build([{ name: "read_invoice", args: { tenantId: "acme", id: "7" }, id: "r7" }, { name: "deploy", args: { service: "api" }, id: "d7" }], ran, audit, rulesOnly);
        const id = `${entry}-rules-only-${answerer?.identity ?? "nobody"}`;
        expect(requestOf(await graph.invoke({ messages: [new HumanMessage("go")] }, as(id, alice)))?.actionRequests.map((a) => a.toolCallId)).toEqual(["d7"]);
        expect(requestOf(await graph.invoke(approve(), as(id, answerer)))).toBeUndefined();
        expect(ran.sort()).toEqual(["deploy api", "read acme/7"]);
      }
    });

    it("two different approvers: the first approval is kept and the call asked again; the same approver twice is refused", async () => {
      const { ran, audit, graph, id } = await started("two", [{ name: "drop_table", args: { table: "users" }, id: "t1" }]);
      let again = requestOf(await graph.invoke(approve(), as(id, bob)));
      expect(again?.actionRequests[0]?.description).toMatch(/^Approved so far by "bob" \(1 of 2\); another approver must answer\. /);
      expect(again?.actionRequests[0]?.description).toMatch(/ Who may answer: a user with principal metadata\.role equals "dba"; 2 different approvers\.$/);
      expect(ran).toEqual([]);
      again = requestOf(await graph.invoke(approve(), as(id, { ...bob, identity: "BOB" })));
      expect(again?.error).toBe('approvers:two-dbas: "BOB" approved the call of drop_table already; it needs 2 different approvers');
      again = requestOf(await graph.invoke(approve(), as(id, carol)));
      expect(again?.error).toContain('"carol" may not answer the call of drop_table');
      expect(ran).toEqual([]);
      expect(requestOf(await graph.invoke(approve(), as(id, dave)))).toBeUndefined();
      expect(ran).toEqual(["drop users"]);
      const records = await humans(audit);
      expect(records.map((r) => `${r.decision}:${r.actor}:${r.requester}`)).toEqual(["countersign:bob:alice", "refused:BOB:alice", "refused:carol:alice", "approve:dave:alice"]);
      expect(records.at(-1)?.detail).toMatchObject({ approvedBy: ["bob", "dave"] });
    });
  });
}

describe("examples/principals.ts (docs/principals.md)", () => {
  it("denies the other tenant's invoice, allows the small refund, asks finance for the large one and refuses the requester's own approval", async () => {
    const { principalsExample } = await import("../examples/principals.js");
    expect(await principalsExample()).toEqual({
      asked: ["call_large"],
      refused: 'approvers:finance: "frank" ran the call of refund and may not approve it; another approver must',
      answers: ["refused by frank for frank", "approve by fiona for frank"],
      refunds: ["A-1:20", "A-2:120"],
    });
  });
});

describe("decision events in the custom stream name both users", () => {
  it("the human event of an approval carries the approver as actor and the requester", async () => {
    const graph = ENTRY_POINTS.createGuardedAgent!([{ name: "deploy", args: { service: "web" }, id: "d5" }], [], new MemoryAuditSink()) as unknown as {
      invoke: Runner["invoke"];
      stream(input: unknown, config: Record<string, unknown>): Promise<AsyncIterable<[string, unknown]>>;
    };
    await graph.invoke({ messages: [new HumanMessage("deploy")] }, as("events", alice));
    const events: unknown[] = [];
    for await (const [mode, chunk] of await graph.stream(approve(), { ...as("events", bob), streamMode: ["custom"] })) if (mode === "custom") events.push(chunk);
    expect(events.filter((e) => (e as { source?: string }).source === "human")).toEqual([expect.objectContaining({ decision: "approve", actor: "bob", requester: "alice", toolCallId: "d5" })]);
  });
});
