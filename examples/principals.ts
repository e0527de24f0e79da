// Rules that know who is asking: a tenant check, a role rule, and approvers with four eyes.
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Command, MemorySaver } from "@langchain/langgraph";
import { asUser, createGuardedAgent, defineTool, MemoryAuditSink, parsePolicy, pendingApproval, permissionPolicy } from "guarded-graph";
import { fileURLToPath } from "node:url";
import { z } from "zod";

const policy = permissionPolicy(
  parsePolicy(
    `
principals:
  metadata: [tenant, role]               # the user attributes the rules read (policy check knows them)
tools:
  read_invoice: { risk: low }
  refund: { risk: high }                 # asks a human unless a rule allows it
permissions:
  - id: own-tenant                       # an invoice of another tenant is refused
    tool: "{read_invoice,refund}"
    where: { tenantId: { not: { sameAs: metadata.tenant } } }
    mode: deny
    reason: another tenant's invoice
  - id: small-refunds                    # users with the refund permission: up to 50 without asking
    tool: refund
    where: { amount: { lte: 50 } }
    principal: { permissions: { equals: refund } }
    mode: allow
approvers:
  - id: finance                          # larger refunds: someone from finance, not the requester
    tool: refund
    principal: { metadata.role: { equals: finance } }
    notRequester: true
`,
    "yaml",
    "support.yaml",
  ),
);

const refunds: string[] = [];
const tools = [
  defineTool({ name: "read_invoice", description: "Read an invoice", schema: z.object({ tenantId: z.string(), id: z.string() }), execute: ({ id }) => `invoice ${id}: 120.00` }),
  defineTool({
    name: "refund",
    description: "Refund an invoice",
    schema: z.object({ tenantId: z.string(), id: z.string(), amount: z.number() }),
    execute: ({ id, amount }) => (refunds.push(`${id}:${amount}`), `refunded ${amount} on ${id}`),
  }),
];

// The model is scripted here; use ChatOpenAI or any LangChain chat model instead.
const model = fakeModel()
  .respondWithTools([
    { name: "read_invoice", args: { tenantId: "globex", id: "G-7" }, id: "call_other" },
    { name: "refund", args: { tenantId: "acme", id: "A-1", amount: 20 }, id: "call_small" },
    { name: "refund", args: { tenantId: "acme", id: "A-2", amount: 120 }, id: "call_large" },
  ])
  .respond(new AIMessage("Refunded A-1 and A-2; G-7 belongs to another tenant."));

export async function principalsExample() {
  const audit = new MemoryAuditSink();
  const agent = createGuardedAgent({ model, tools, permissions: policy, audit, checkpointer: new MemorySaver() });
  const thread = { configurable: { thread_id: "support-1" } };
  // On LangGraph Platform the auth handler sets the user; in-process, say who the caller is.
  const frank = { identity: "frank", permissions: ["refund"], metadata: { tenant: "acme", role: "finance" } };
  const fiona = { identity: "fiona", permissions: [], metadata: { tenant: "acme", role: "finance" } };

  const paused = await agent.invoke({ messages: [new HumanMessage("refund A-1 and A-2")] }, asUser(thread, frank));
  const asked = pendingApproval(paused)?.actionRequests.map((a) => a.toolCallId);

  // Frank is in finance, but may not approve Frank's own refund: the request comes back with the reason.
  const again = await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), asUser(thread, frank));
  const refused = pendingApproval(again)?.error;

  // Fiona, also in finance, approves it.
  await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), asUser(thread, fiona));
  const answers = (await audit.query({ threadId: "support-1" }))
    .filter((r) => r.event === "human")
    .map((r) => `${r.decision} by ${r.actor} for ${r.requester}`);
  return { asked, refused, answers, refunds };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(await principalsExample());
