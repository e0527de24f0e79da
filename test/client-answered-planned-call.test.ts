// A client answers a call the guard already planned to run (LangGraph's "provide the tool's result
// yourself" pattern: the run stopped before the tools with `interruptBefore`, then
// `updateState(config, { messages: [new ToolMessage({ tool_call_id, ... })] }, asNode?)` and
// `invoke(null)`). The client's answer is the call's one answer: the call does not run, the other
// calls of the turn do, and the model reads one ToolMessage per call. Before, on a checkpointer
// other than MemorySaver without the guard's ledger (one task per call), the plan's Send ran the
// answered call anyway and the thread held two ToolMessages for it (a provider refuses that).
// And `updateState(..., "tools")`, the form LangGraph's docs give, ended the run on MemorySaver
// (the run stops there before "execute"; the tools step, not sent by a plan, led nowhere): the model
// never read the given result, and a sibling call was left with no answer.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Command, MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryAuditSink } from "../src/audit/index.js";
import { createGuardedAgent } from "../src/guard/agent.js";
import { pendingApproval } from "../src/guard/approval/payload.js";
import { openCheckpointer } from "../src/storage/checkpointer.js";
import { defineTool } from "../src/tools/define-tool.js";
import { expectNoOrphans } from "./helpers/middleware-fixtures.js";

const tmp = mkdtempSync(join(tmpdir(), "gg-client-answered-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const answers = (messages: readonly BaseMessage[]) =>
  messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => `${m.tool_call_id}=${String(m.content)}`);

async function scenario(checkpointer: BaseCheckpointSaver, risk: "low" | "high", asNode: string | undefined, threadId: string, calls = 2) {
  const ran: string[] = [];
  const deploy = defineTool({ name: "deploy", description: "Deploy a service", schema: z.object({ s: z.string() }), risk, execute: ({ s }) => (ran.push(s), `deployed ${s}`) });
  const model = fakeModel()
    .respondWithTools([{ name: "deploy", args: { s: "a" }, id: "c1" }, { name: "deploy", args: { s: "b" }, id: "c2" }].slice(0, calls))
    .respond(new AIMessage("done"));
  const audit = new MemoryAuditSink();
  const agent = createGuardedAgent({ model, tools: [deploy], checkpointer, audit });
  const config = { configurable: { thread_id: threadId } };
  const stopBeforeTools = { ...config, interruptBefore: ["execute", "tools"] as ("execute" | "tools")[] };
  // A high-risk call is asked about first, then stopped before the tools once approved.
  let out = await agent.invoke({ messages: [new HumanMessage("deploy both")] }, risk === "high" ? config : stopBeforeTools);
  const asked = pendingApproval(out);
  expect(asked?.actionRequests.length).toBe(risk === "high" ? calls : undefined);
  if (asked) out = await agent.invoke(new Command({ resume: { decisions: asked.actionRequests.map(() => ({ type: "approve" })) } }), stopBeforeTools);
  expect(ran).toEqual([]);
  expect((await agent.getState(config)).next.some((n) => n === "execute" || n === "tools")).toBe(true);
  await agent.updateState(config, { messages: [new ToolMessage({ tool_call_id: "c1", content: "skipped by the user" })] }, asNode);
  out = await agent.invoke(null, config);
  return { ran, messages: out.messages as BaseMessage[], audit, model };
}

const CHECKPOINTERS = [
  ["MemorySaver", async () => ({ checkpointer: new MemorySaver(), close: async () => {} })],
  ["SQLite without a ledger", async () => openCheckpointer(`sqlite:${join(tmp, `${Math.random()}.db`)}`)],
] as const;

describe.each(CHECKPOINTERS)("a client's ToolMessage for a planned call (%s)", (name, open) => {
  describe.each(["low", "high"] as const)("a %s-risk tool", (risk) => {
    it.each(["tools", "review", "collect"])("updateState as %s: the answered call does not run, its sibling does, one answer each", async (asNode) => {
      const opened = await open();
      try {
        const threadId = `t-${risk}-${asNode}`;
        const { ran, messages, model, audit } = await scenario(opened.checkpointer, risk, asNode, threadId);
        expect(ran).toEqual(["b"]);
        expect(answers(messages)).toEqual(["c1=skipped by the user", "c2=deployed b"]);
        expectNoOrphans(messages);
        expect(model.callCount).toBe(2);
        expect(String(messages.at(-1)?.content)).toBe("done");
        // The audit says c2 ran and c1 ended without running, answered by the client. (On MemorySaver a
        // low-risk turn is reviewed in the step the client's answer precedes: c1 was never decided, so never audited.)
        const outcomes = (await audit.query({ threadId })).filter((r) => r.event === "outcome").map((r) => `${r.toolCallId}:${r.decision}:${r.ruleId}`);
        const reviewedFirst = !(name === "MemorySaver" && risk === "low");
        expect(outcomes.sort()).toEqual([...(reviewedFirst ? ["c1:cancelled:run:answered"] : []), `c2:success:risk:${risk}`]);
      } finally {
        await opened.close();
      }
    });
  });
});

describe.each(CHECKPOINTERS)("LangGraph's documented form, updateState(config, { messages: [toolMessage] }, \"tools\"), for the only call (%s)", (_name, open) => {
  it.each(["low", "high"] as const)("a %s-risk tool: nothing runs, the model reads the given result and the run goes on", async (risk) => {
    const opened = await open();
    try {
      const { ran, messages, model } = await scenario(opened.checkpointer, risk, "tools", `one-${risk}`, 1);
      expect(ran).toEqual([]);
      expect(answers(messages)).toEqual(["c1=skipped by the user"]);
      expectNoOrphans(messages);
      expect(model.callCount).toBe(2);
      expect(String(messages.at(-1)?.content)).toBe("done");
    } finally {
      await opened.close();
    }
  });
});
