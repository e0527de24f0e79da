/**
 * Aborting a run mid-batch keeps the invariants: every call of the aborted turn ends with exactly
 * one ToolMessage before any new input is processed, and a side effect that completes after the
 * abort (a tool that ignores its signal) is recorded and never runs again — continuing the run with
 * `invoke(null)` reuses it, new input answers the call with it. On LangGraph's MemorySaver (the
 * graph's process ledger) and on a SQLite checkpointer with the guard's ledger.
 */
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { MemorySaver } from "@langchain/langgraph";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createGuardedAgent } from "../src/guard/agent.js";
import { openCheckpointer } from "../src/storage/checkpointer.js";
import { openLedger } from "../src/storage/ledger.js";
import { timedTool } from "./helpers/timed-tools.js";
import type { Stamp } from "./helpers/timed-tools.js";

const tmp = mkdtempSync(join(tmpdir(), "gg-abort-"));
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
  rmSync(tmp, { recursive: true, force: true });
});

const CALLS = 8;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ids = Array.from({ length: CALLS }, (_, i) => `w${i}`);

type Store = "memory" | "sqlite" | "sqlite-no-ledger";
let counter = 0;

async function setup(store: Store, tool: { ms: number; ignoreSignal: boolean }, responses: string[]) {
  counter += 1;
  const calls = ids.map((id) => ({ name: "work", id, args: { label: id, ms: tool.ms, safe: true, ignoreSignal: tool.ignoreSignal } }));
  let model = fakeModel().respondWithTools(calls);
  for (const text of responses) model = model.respond(new AIMessage(text));
  const stamps: Stamp[] = [];
  let storage = {};
  if (store !== "memory") {
    const spec = `sqlite:${join(tmp, `abort-${counter}.db`)}`;
    const opened = await openCheckpointer(spec);
    const ledger = store === "sqlite" ? await openLedger(spec) : undefined;
    closers.push(async () => {
      await ledger?.close();
      await opened.close();
    });
    storage = { checkpointer: opened.checkpointer, ...(ledger ? { ledger } : {}) };
  } else {
    storage = { checkpointer: new MemorySaver() };
  }
  const graph = createGuardedAgent({ model, tools: [timedTool(stamps)], toolRisk: { work: "low" }, abortGraceMs: 100, ...storage });
  const config = { configurable: { thread_id: `abort-${store}-${counter}` } };
  return { graph, config, stamps };
}

/** Starts the turn and aborts it `afterMs` into the batch; the run rejects. */
async function abortedRun(graph: Awaited<ReturnType<typeof setup>>["graph"], config: { configurable: { thread_id: string } }, afterMs: number) {
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error("user pressed Ctrl-C")), afterMs);
  await expect(graph.invoke({ messages: [new HumanMessage("go")] }, { ...config, signal: controller.signal })).rejects.toThrow();
}

function answersOf(messages: BaseMessage[]) {
  return ids.map((id) => messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m) && m.tool_call_id === id));
}

/** Every call has exactly one ToolMessage, right after the model message and before any later human input. */
function expectAnsweredOnce(messages: BaseMessage[]): ToolMessage[] {
  const answers = answersOf(messages);
  for (const [i, list] of answers.entries()) expect(list, `ToolMessages of ${ids[i]}`).toHaveLength(1);
  const aiIndex = messages.findIndex((m) => AIMessage.isInstance(m) && (m.tool_calls ?? []).length > 0);
  const firstHumanAfter = messages.findIndex((m, i) => i > aiIndex && HumanMessage.isInstance(m));
  for (const list of answers) {
    const at = messages.indexOf(list[0] as ToolMessage);
    expect(at).toBeGreaterThan(aiIndex);
    if (firstHumanAfter >= 0) expect(at).toBeLessThan(firstHumanAfter);
  }
  return answers.map((list) => list[0] as ToolMessage);
}

function startsPerCall(stamps: Stamp[]): number[] {
  return ids.map((id) => stamps.filter((s) => s.label === id).length);
}

describe.each<Store>(["memory", "sqlite"])("aborts keep the invariants (%s)", (store) => {
  it("abort mid-batch, then new input: every call of the aborted turn is answered once, before the input", async () => {
    const { graph, config, stamps } = await setup(store, { ms: 3_000, ignoreSignal: false }, ["after new input"]);
    await abortedRun(graph, config, 150);
    const out = await graph.invoke({ messages: [new HumanMessage("something else")] }, config);
    const answers = expectAnsweredOnce(out.messages);
    // Every call started. On MemorySaver the graph's process ledger knows that: whether it had any
    // effect is unknown; the guard's ledger knows only that no completion was recorded.
    const said = store === "memory" ? /^Cancelled: work did not report a result: the run was aborted while it ran, .* Whether it had any effect is unknown/ : /^Cancelled: work (did not run|stopped|did not finish)/;
    for (const m of answers) expect(String(m.content)).toMatch(said);
    expect(startsPerCall(stamps)).toEqual(ids.map(() => 1));
    expect(String(out.messages.at(-1)?.content)).toBe("after new input");
    expect((await graph.getState(config)).next).toEqual([]);
  });

  it("a tool that ignores the abort finishes after it: new input answers each call with its real result, nothing runs twice", async () => {
    const { graph, config, stamps } = await setup(store, { ms: 300, ignoreSignal: true }, ["after new input"]);
    await abortedRun(graph, config, 100);
    // Past the tool's end and past abortGraceMs (100 ms): the calls were abandoned, then completed.
    await sleep(600);
    const out = await graph.invoke({ messages: [new HumanMessage("something else")] }, config);
    const answers = expectAnsweredOnce(out.messages);
    expect(answers.map((m) => String(m.content))).toEqual(ids.map((id) => `${id} done`));
    expect(startsPerCall(stamps)).toEqual(ids.map(() => 1));
  });

  // The tool ends 200 ms after the abort (abandoned at 100 ms, then completes), or 50 ms after it (within abortGraceMs).
  for (const [toolMs, waitMs] of [[300, 0], [300, 300], [300, 600], [150, 300]] as const) {
    it(`a tool that ignores the abort and ends ${toolMs - 100} ms after it; invoke(null) ${waitMs} ms after the abort, then new input: no side effect twice`, async () => {
      const { graph, config, stamps } = await setup(store, { ms: toolMs, ignoreSignal: true }, ["continued", "after new input"]);
      await abortedRun(graph, config, 100);
      await sleep(waitMs);
      const continued = await graph.invoke(null, config);
      const answers = expectAnsweredOnce(continued.messages);
      expect(answers.map((m) => String(m.content))).toEqual(ids.map((id) => `${id} done`));
      expect(String(continued.messages.at(-1)?.content)).toBe("continued");
      const out = await graph.invoke({ messages: [new HumanMessage("something else")] }, config);
      expectAnsweredOnce(out.messages);
      await sleep(400);
      expect(startsPerCall(stamps)).toEqual(ids.map(() => 1));
      expect(String(out.messages.at(-1)?.content)).toBe("after new input");
    });
  }
});

describe("aborts without a ledger on a durable checkpointer (one task per call)", () => {
  it("abort mid-batch, then new input: every call answered once, saying that whether it ran is unknown", async () => {
    const { graph, config, stamps } = await setup("sqlite-no-ledger", { ms: 3_000, ignoreSignal: false }, ["after new input"]);
    await abortedRun(graph, config, 300);
    const out = await graph.invoke({ messages: [new HumanMessage("something else")] }, config);
    const answers = expectAnsweredOnce(out.messages);
    for (const m of answers) expect(String(m.content)).toMatch(/^Cancelled: work did not report a result: .* Whether it had any effect is unknown/);
    expect(startsPerCall(stamps)).toEqual(ids.map(() => 1));
    expect(String(out.messages.at(-1)?.content)).toBe("after new input");
  });
});
