// One obvious way to get a guard from a policy: what guardFromPolicy returns is accepted wherever a
// guard is (createGuardedAgent, GuardedToolNode, guardMiddleware), and the options are checked when
// the agent is built, with errors that name the fix (a Promise as model, guard or tools).
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { guardFromPolicyExample } from "../examples/guard-from-policy.js";
import { MemoryAuditSink } from "../src/audit/memory.js";
import { GuardConfigError } from "../src/errors/index.js";
import { createGuardedAgent } from "../src/guard/agent.js";
import { guardFromPolicy, type PolicyGuard } from "../src/guard/from-policy.js";
import { Guard } from "../src/guard/guard.js";
import { GuardedToolNode } from "../src/guard/tool-node.js";
import { guardMiddleware } from "../src/middleware/index.js";
import { parsePolicy } from "../src/policy/index.js";
import { defineTool } from "../src/tools/define-tool.js";

const POLICY = `
version: 1
permissions:
  - id: no-prod
    tool: deploy
    where: { env: { equals: production } }
    mode: deny
    reason: production is frozen
`;

const opened: PolicyGuard[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((pg) => pg.close()));
});

function deployTool(ran: string[]) {
  return defineTool({ name: "deploy", description: "Deploy", schema: z.object({ env: z.string() }), risk: "low", execute: ({ env }) => { ran.push(env); return `deployed ${env}`; } });
}

async function policyGuard(ran: string[], audit = new MemoryAuditSink()) {
  const pg = await guardFromPolicy(parsePolicy(POLICY, "yaml", "inline.yaml"), { tools: [deployTool(ran)], audit });
  opened.push(pg);
  return { pg, audit };
}

const model = () =>
  fakeModel()
    .respondWithTools([
      { name: "deploy", args: { env: "staging" }, id: "ok" },
      { name: "deploy", args: { env: "production" }, id: "prod" },
    ])
    .respond(new AIMessage("done"));

function answers(messages: readonly unknown[]) {
  return Object.fromEntries(messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => [m.tool_call_id, String(m.content)]));
}

const thread = (id: string) => ({ configurable: { thread_id: id } });

describe("guardFromPolicy's result is accepted wherever a guard is", () => {
  it("the example in docs/guard.md runs: createGuardedAgent, GuardedToolNode and guardMiddleware from one policy guard", async () => {
    const lines: string[] = [];
    const result = await guardFromPolicyExample((line) => lines.push(line));
    expect(result).toEqual({ answer: "Listed staging; production is protected.", nodeGuard: true });
    expect(lines[0]).toBe("agent tool: Refused kubectl_delete by rule permission:prod-protected: production namespace is protected.");
    expect(lines.at(-1)).toBe("middleware: Listed staging; production is protected.");
  });

  it("createGuardedAgent({ model, guard: policyGuard }) and ({ guard: policyGuard.guard }) guard the same way", async () => {
    for (const pick of [(pg: PolicyGuard) => pg, (pg: PolicyGuard) => pg.guard]) {
      const ran: string[] = [];
      const { pg, audit } = await policyGuard(ran);
      const agent = createGuardedAgent({ model: model(), guard: pick(pg), checkpointer: new MemorySaver() });
      const out = await agent.invoke({ messages: [new HumanMessage("go")] }, thread(`agent-${opened.length}`));
      expect(answers(out.messages)).toEqual({ ok: "deployed staging", prod: "Refused deploy by rule permission:no-prod: production is frozen." });
      expect(ran).toEqual(["staging"]);
      expect((await audit.query({})).filter((r) => r.event === "decision").map((r) => r.decision)).toEqual(["allow", "deny"]);
    }
  });

  it("new GuardedToolNode(policyGuard) uses the policy's guard", async () => {
    const ran: string[] = [];
    const { pg } = await policyGuard(ran);
    const node = new GuardedToolNode(pg);
    expect(node.guard).toBe(pg.guard);
  });

  it("guardMiddleware({ guard: policyGuard }) and guardMiddleware(policyGuard)", async () => {
    for (const build of [(pg: PolicyGuard) => guardMiddleware({ guard: pg }), (pg: PolicyGuard) => guardMiddleware(pg)]) {
      const ran: string[] = [];
      const { pg } = await policyGuard(ran);
      const agent = createAgent({ model: model(), middleware: [build(pg)], checkpointer: new MemorySaver() });
      const out = await agent.invoke({ messages: [new HumanMessage("go")] }, thread(`mw-${opened.length}`));
      expect(answers(out.messages).prod).toBe("Refused deploy by rule permission:no-prod: production is frozen.");
      expect(ran).toEqual(["staging"]);
    }
  });
});

describe("options are checked when the agent is built, and the error names the fix", () => {
  const tools = [deployTool([])];
  const refused = (build: () => unknown, message: RegExp) => {
    let error: unknown;
    try {
      build();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GuardConfigError);
    expect((error as Error).message).toMatch(message);
  };

  it("a Promise as model (a missing await createModel())", () => {
    const pending = Promise.resolve(fakeModel());
    refused(
      () => createGuardedAgent({ model: pending as never, tools }),
      /^createGuardedAgent: `model` is a Promise, not a chat model\. createModel\(\) is async: write `model: await createModel\(\.\.\.\)`$/,
    );
  });

  it("no model, or something that is not a chat model", () => {
    refused(() => createGuardedAgent({ tools } as never), /createGuardedAgent needs `model`: a LangChain chat model, e\.g\. `await createModel\(\)`/);
    refused(() => createGuardedAgent({ model: { modelName: "gpt" } as never, tools }), /`model` must be a LangChain chat model \(with an invoke\(\) method\), not an object with keys modelName/);
  });

  it("a Promise as guard (a missing await guardFromPolicy(...))", () => {
    const pending = guardFromPolicy(parsePolicy(POLICY, "yaml", "inline.yaml"), { tools });
    void pending.then((pg) => pg.close());
    const fix = /`guard` is a Promise\. guardFromPolicy is async: write `guard: await guardFromPolicy\(\.\.\.\)`/;
    refused(() => createGuardedAgent({ model: fakeModel(), guard: pending as never }), fix);
    refused(() => guardMiddleware({ guard: pending as never }), fix);
    refused(() => guardMiddleware(pending as never), /guardMiddleware: received a Promise\. guardFromPolicy is async: write `guardMiddleware\(\{ guard: await guardFromPolicy\(\.\.\.\) \}\)`/);
    refused(() => new GuardedToolNode(pending as never), /GuardedToolNode: received a Promise\. guardFromPolicy is async: write `new GuardedToolNode\(await guardFromPolicy\(\.\.\.\)\)`/);
  });

  it("something else as guard", () => {
    refused(() => createGuardedAgent({ model: fakeModel(), guard: { tools } as never }), /`guard` must be a Guard \(`new Guard\(\{ tools \}\)`\) or the result of `await guardFromPolicy\(\.\.\.\)`, not an object with keys tools/);
    refused(() => guardMiddleware({ guard: "g" as never }), /guardMiddleware: `guard` must be a Guard .* not a string/);
  });

  it("tools that are a Promise, hold a Promise, or are not tools", () => {
    const later = Promise.resolve(tools);
    refused(() => createGuardedAgent({ model: fakeModel(), tools: later as never }), /createGuardedAgent: `tools` is a Promise\. Await it first/);
    refused(() => createGuardedAgent({ model: fakeModel(), tools: [tools[0], Promise.resolve(tools[0])] as never }), /`tools\[1\]` is a Promise\. Await it before passing it/);
    refused(() => guardMiddleware({ tools: later as never }), /guardMiddleware: `tools` is a Promise/);
    refused(() => new GuardedToolNode({ tools: [{ description: "no name" }] as never }), /GuardedToolNode: `tools\[0\]` is not a tool/);
    refused(() => createGuardedAgent({ model: fakeModel(), tools: tools[0] as never }), /`tools` must be an array of tools .* not a /);
  });

  it("what was accepted before still is: a Guard, GuardOptions, a model with invoke", () => {
    const guard = new Guard({ tools });
    expect(() => createGuardedAgent({ model: fakeModel(), guard })).not.toThrow();
    expect(() => createGuardedAgent({ model: fakeModel(), tools })).not.toThrow();
    expect(new GuardedToolNode(guard).guard).toBe(guard);
    expect(new GuardedToolNode({ tools }).guard).toBeInstanceOf(Guard);
    expect(() => guardMiddleware({ guard })).not.toThrow();
    expect(() => guardMiddleware({ tools })).not.toThrow();
  });
});
