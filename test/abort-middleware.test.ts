/**
 * Aborts under `guardMiddleware` (LangChain's createAgent): the calls of an aborted turn have no
 * ToolMessage when new input arrives; the middleware answers each of them exactly once, before the
 * new input reaches the model — with its recorded result when the guard's ledger holds its
 * completion (a tool that ignored its abort and finished), else saying it did not finish, or, with
 * no ledger, that whether it had any effect is unknown. No call runs twice.
 */
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { guardMiddleware } from "../src/middleware/index.js";
import { openLedger } from "../src/storage/ledger.js";
import { timedTool } from "./helpers/timed-tools.js";
import type { Stamp } from "./helpers/timed-tools.js";

const CALLS = 6;
const ids = Array.from({ length: CALLS }, (_, i) => `m${i}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let counter = 0;

async function setup(tool: { ms: number; ignoreSignal: boolean }, withLedger: boolean) {
  counter += 1;
  const calls = ids.map((id) => ({ name: "work", id, args: { label: id, ms: tool.ms, safe: true, ignoreSignal: tool.ignoreSignal } }));
  const model = fakeModel().respondWithTools(calls).respond(new AIMessage("after new input"));
  const stamps: Stamp[] = [];
  const ledger = withLedger ? await openLedger(`memory:abort-middleware-${counter}`) : undefined;
  const agent = createAgent({
    model,
    middleware: [guardMiddleware({ tools: [timedTool(stamps)], toolRisk: { work: "low" }, abortGraceMs: 100, ...(ledger ? { ledger } : {}) })],
    checkpointer: new MemorySaver(),
  });
  return { agent, config: { configurable: { thread_id: `abort-mw-${counter}` } }, stamps };
}

async function abortedRun(agent: Awaited<ReturnType<typeof setup>>["agent"], config: { configurable: { thread_id: string } }, afterMs: number) {
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error("user pressed Ctrl-C")), afterMs);
  await expect(agent.invoke({ messages: [new HumanMessage("go")] }, { ...config, signal: controller.signal })).rejects.toThrow();
}

/** Every call has exactly one ToolMessage, after its model message and before the new input. */
function expectAnsweredOnce(messages: BaseMessage[]): ToolMessage[] {
  const aiIndex = messages.findIndex((m) => AIMessage.isInstance(m) && (m.tool_calls ?? []).length > 0);
  const input = messages.findIndex((m) => HumanMessage.isInstance(m) && m.content === "something else");
  expect(input).toBeGreaterThan(aiIndex);
  return ids.map((id) => {
    const answers = messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m) && m.tool_call_id === id);
    expect(answers, `ToolMessages of ${id}`).toHaveLength(1);
    const at = messages.indexOf(answers[0] as ToolMessage);
    expect(at).toBeGreaterThan(aiIndex);
    expect(at).toBeLessThan(input);
    return answers[0] as ToolMessage;
  });
}

const startsPerCall = (stamps: Stamp[]) => ids.map((id) => stamps.filter((s) => s.label === id).length);

describe("guardMiddleware: aborts keep the invariants", () => {
  it("with the guard's ledger, a tool that ignores the abort and finishes: new input answers each call with its real result, nothing runs twice", async () => {
    const { agent, config, stamps } = await setup({ ms: 300, ignoreSignal: true }, true);
    await abortedRun(agent, config, 100);
    await sleep(500);
    const out = await agent.invoke({ messages: [new HumanMessage("something else")] }, config);
    const answers = expectAnsweredOnce(out.messages);
    expect(answers.map((m) => String(m.content))).toEqual(ids.map((id) => `${id} done`));
    expect(String(out.messages.at(-1)?.content)).toBe("after new input");
    await sleep(300);
    expect(startsPerCall(stamps)).toEqual(ids.map(() => 1));
  });

  it("without a ledger, on MemorySaver, a tool that ignores the abort and finishes: the middleware's process ledger gives each call its real result", async () => {
    const { agent, config, stamps } = await setup({ ms: 300, ignoreSignal: true }, false);
    await abortedRun(agent, config, 100);
    await sleep(500);
    const out = await agent.invoke({ messages: [new HumanMessage("something else")] }, config);
    expect(expectAnsweredOnce(out.messages).map((m) => String(m.content))).toEqual(ids.map((id) => `${id} done`));
    await sleep(300);
    expect(startsPerCall(stamps)).toEqual(ids.map(() => 1));
  });

  it("with the guard's ledger, calls stopped by the abort: answered once as not finished, never run again", async () => {
    const { agent, config, stamps } = await setup({ ms: 3_000, ignoreSignal: false }, true);
    await abortedRun(agent, config, 150);
    const out = await agent.invoke({ messages: [new HumanMessage("something else")] }, config);
    for (const m of expectAnsweredOnce(out.messages)) expect(String(m.content)).toMatch(/^Cancelled: work did not finish/);
    expect(startsPerCall(stamps)).toEqual(ids.map(() => 1));
    expect(String(out.messages.at(-1)?.content)).toBe("after new input");
  });

  it("without a ledger: answered once, saying whether it had any effect is unknown", async () => {
    const { agent, config, stamps } = await setup({ ms: 3_000, ignoreSignal: false }, false);
    await abortedRun(agent, config, 150);
    const out = await agent.invoke({ messages: [new HumanMessage("something else")] }, config);
    for (const m of expectAnsweredOnce(out.messages)) expect(String(m.content)).toMatch(/^Cancelled: work did not report a result: .* Whether it had any effect is unknown/);
    expect(startsPerCall(stamps)).toEqual(ids.map(() => 1));
  });
});
