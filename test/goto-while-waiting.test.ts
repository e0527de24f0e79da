// A client's Command({ goto }) while an approval waits, on every node of each entry point's graph
// (read from the compiled graph, not listed by hand), alone and combined: goto with a resume in one
// Command, goto with a state update carrying a foreign ToolMessage, two gotos in a row, a goto and a
// resume sent at once, a goto and then two resumes at once — on LangGraph's MemorySaver and on the
// SQLite checkpointer. Invariants for every case:
// - no tool runs without its approval (and an approved call runs at most once);
// - every tool call gets exactly one ToolMessage, right after its model message, before the model is
//   next called (each model call's input is checked as a provider would, duplicates included);
// - the thread is never stranded: new input afterwards is answered, and every call of the thread has
//   exactly one answer.
// What a goto does (docs/approvals.md): whatever node it names, nothing runs, no model is called and
// the approval still waits and decides; new input sent with it (a message in its update) refuses the
// waiting calls as superseded, once.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { Command, END, MemorySaver } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pendingApproval } from "../src/guard/approval/payload.js";
import { openCheckpointer } from "../src/storage/checkpointer.js";
import type { OpenedCheckpointer } from "../src/storage/checkpointer.js";
import { openLedger } from "../src/storage/ledger.js";
import { answersPerCall, deployTool, readFileTool } from "./helpers/ops-tools.js";
import { build, ENTRIES, messagesOf, newThread, resume, say, toolText } from "./helpers/provider-agent.js";
import type { Agent, Entry, Reply } from "./helpers/provider-agent.js";

const tmp = mkdtempSync(join(tmpdir(), "gg-goto-"));
let sqlite: OpenedCheckpointer;
beforeAll(async () => {
  sqlite = await openCheckpointer(`sqlite:${join(tmp, "checkpoints.db")}`);
});
afterAll(async () => {
  await sqlite.close();
  rmSync(tmp, { recursive: true, force: true });
});

const CHECKPOINTERS = ["memory", "sqlite"] as const;
type Saver = (typeof CHECKPOINTERS)[number];
const saverOf = (kind: Saver): BaseCheckpointSaver => (kind === "memory" ? new MemorySaver() : sqlite.checkpointer);

/** The model deploys (asks a human) and reads (runs), then only answers in text. */
const REPLIES: Reply[] = [
  [{ name: "deploy", args: { service: "web" }, id: "d1" }, { name: "read_file", args: { path: "a" }, id: "r1" }],
  ...Array.from({ length: 12 }, (_, i) => `text ${i}`),
];

/** The nodes of an entry point's compiled graph (createAgent's is `.graph`), and the end. */
function nodeNames(entry: Entry): string[] {
  const { graph } = build(entry, { tools: [readFileTool([]), deployTool([])], replies: [] });
  const compiled = ((graph as unknown as { graph?: unknown }).graph ?? graph) as { nodes: Record<string, unknown> };
  return [...Object.keys(compiled.nodes), END];
}

/** Each model call's input: every call of every AI message answered exactly once, right after it. */
function expectEveryCallAnsweredOnce(inputs: readonly BaseMessage[][], refusals: readonly string[]) {
  expect(refusals).toEqual([]);
  for (const [n, messages] of inputs.entries()) {
    for (let i = 0; i < messages.length; i += 1) {
      const m = messages[i];
      if (!m || !AIMessage.isInstance(m) || (m.tool_calls ?? []).length === 0) continue;
      const after: string[] = [];
      for (let j = i + 1; j < messages.length && ToolMessage.isInstance(messages[j]); j += 1) after.push((messages[j] as ToolMessage).tool_call_id);
      expect(after.sort(), `model call ${n}: answers right after ${m.id}`).toEqual((m.tool_calls ?? []).map((c) => c.id ?? "").sort());
    }
  }
}

interface Case {
  graph: Agent;
  ran: string[];
  config: { configurable: { thread_id: string } };
  check(): void;
  /** How many times the model was called so far. */
  modelCalls(): number;
}

async function waiting(entry: Entry, saver: Saver, label: string, withLedger = false): Promise<Case> {
  const ran: string[] = [];
  const checkpointer = saverOf(saver);
  const guard = withLedger ? { ledger: await openLedger(saver === "memory" ? `memory:goto-${label}-${Math.random()}` : `sqlite:${join(tmp, "ledger.db")}`) } : {};
  const { graph, refusals, modelInputs } = build(entry, { tools: [readFileTool(ran), deployTool(ran)], replies: REPLIES, checkpointer, guard });
  const config = newThread(`goto-${entry}-${saver}-${label}`);
  const paused = await graph.invoke(say("deploy web and read a"), config);
  expect(pendingApproval(paused)?.actionRequests.map((a) => a.toolCallId)).toEqual(["d1"]);
  return { graph, ran, config, check: () => expectEveryCallAnsweredOnce(modelInputs, refusals), modelCalls: () => modelInputs.length };
}

/** New input afterwards is answered; every call of the thread has exactly one answer; the model saw valid histories. */
async function expectNotStranded(c: Case) {
  const next = await c.graph.invoke(say("and now?"), c.config);
  expect(pendingApproval(next)).toBeUndefined();
  const messages = messagesOf(next);
  const last = messages.at(-1);
  expect(last && AIMessage.isInstance(last) && (last.tool_calls ?? []).length === 0, `last message: ${last?.getType()} ${String(last?.content)}`).toBe(true);
  expect(answersPerCall(messages)).toEqual({ d1: 1, r1: 1 });
  c.check();
}

/** The deploy ran at most once, and only if `approved`; the read ran once. */
function expectRanOnlyApproved(ran: readonly string[], approved: boolean) {
  const deploys = ran.filter((r) => r.startsWith("deploy"));
  expect(deploys.length).toBeLessThanOrEqual(approved ? 1 : 0);
  expect(ran.filter((r) => r === "read a").length).toBeLessThanOrEqual(1);
}

/**
 * LangChain's createAgent lets one node per step write its `jumpTo` channel (UntrackedValue with
 * guard=true), and every middleware hook node writes it. A goto to a hook node (before_agent,
 * before_model) runs it next to the waiting afterModel step; when that step completes in the same
 * step too (a resume or a state update came with the goto), LangGraph refuses the step
 * (InvalidUpdateError): nothing of it is kept. The invariants still hold afterwards.
 */
async function unlessJumpToClash(entry: Entry, node: string, run: Promise<Record<string, unknown>>): Promise<Record<string, unknown> | undefined> {
  try {
    return await run;
  } catch (error) {
    const hook = entry === "middleware" && /^(__start__|GuardMiddleware\.before_(agent|model))$/.test(node);
    if (hook && error instanceof Error && error.name === "InvalidUpdateError" && /channel "jumpTo"/.test(error.message)) return undefined;
    throw error;
  }
}

/** After a refused step: nothing ran; an approve then runs the call at most once, and the thread goes on. */
async function afterClash(c: Case) {
  expect(c.ran).toEqual([]);
  await c.graph.invoke(approve(), c.config);
  expectRanOnlyApproved(c.ran, true);
  await expectNotStranded(c);
  expectRanOnlyApproved(c.ran, true);
}

const approve = () => resume({ decisions: [{ type: "approve" }] });
const superseded = /^Refused deploy by rule approval:superseded: /;

/**
 * Known holes, each case listed runs as a test that must fail (it.fails), so a fix shows up:
 * - guardMiddleware: a goto to before_model with a foreign ToolMessage in its update: LangChain refuses
 *   the step (two jumpTo writes); LangGraph applies the update again when the approval is answered,
 *   after the guard's refusal, so the call has two ToolMessages.
 */
const KNOWN: ReadonlySet<string> = new Set<string>([]);
const known = (entry: Entry, node: string, scenario: string) => KNOWN.has(`${entry} ${node} ${scenario}`);

/** `it`, or `it.fails` for a known hole. */
function each(nodes: readonly string[], entry: Entry, scenario: string, title: string, fn: (node: string) => Promise<void>) {
  for (const node of nodes) (known(entry, node, scenario) ? it.fails : it)(title.replace("%s", node), () => fn(node));
}

describe.each(ENTRIES)("%s", (entry) => {
  const nodes = nodeNames(entry);

  it("the graph's nodes are the ones this file expects (a new node needs a decision here)", () => {
    const expected = { agent: ["__start__", "agent", "review", "tools", "execute", "collect", "finish"], node: ["__start__", "agent", "tools"], middleware: ["__start__", "GuardMiddleware.before_agent", "GuardMiddleware.before_model", "GuardMiddleware.after_model", "model_request", "tools"] };
    expect(nodes).toEqual([...expected[entry], END]);
  });

  describe.each(CHECKPOINTERS)("%s", (saver) => {
    each(nodes, entry, "alone", "goto %s: nothing runs, the approval still waits and decides", async (node) => {
      const c = await waiting(entry, saver, `alone-${node}`);
      const after = await c.graph.invoke(new Command({ goto: node }), c.config);
      expect(c.ran).toEqual([]);
      expect(c.modelCalls()).toBe(1);
      expect(pendingApproval(after)?.actionRequests.map((a) => a.toolCallId)).toEqual(["d1"]);
      expect(toolText(messagesOf(after))).toEqual({});
      const done = await c.graph.invoke(approve(), c.config);
      expect(c.ran.filter((r) => r.startsWith("deploy"))).toEqual(["deploy web staging"]);
      expect(toolText(messagesOf(done)).d1).toBe("deployed web to staging");
      // One model call answers the turn.
      expect(c.modelCalls()).toBe(2);
      await expectNotStranded(c);
    });

    each(nodes, entry, "input", "goto %s with new input in its update: the waiting calls are refused as superseded, once; nothing runs", async (node) => {
      const c = await waiting(entry, saver, `input-${node}`);
      const after = (await unlessJumpToClash(entry, node, c.graph.invoke(new Command({ goto: node, update: { messages: [new HumanMessage("never mind")] } }), c.config)));
      if (after === undefined) return afterClash(c);
      expect(c.ran).toEqual([]);
      const text = toolText(messagesOf(after)).d1;
      if (text !== undefined) expect(text).toMatch(superseded);
      await expectNotStranded(c);
      expect(c.ran).toEqual([]);
      expect(toolText(messagesOf((await c.graph.getState(c.config)).values)).d1).toMatch(superseded);
    });

    each(nodes, entry, "resume", "goto %s with a resume in one Command: one answer, run only if approved", async (node) => {
      const c = await waiting(entry, saver, `resume-${node}`);
      const after = (await unlessJumpToClash(entry, node, c.graph.invoke(new Command({ goto: node, resume: { decisions: [{ type: "approve" }] } }), c.config)));
      if (after === undefined) return afterClash(c);
      expectRanOnlyApproved(c.ran, true);
      const text = toolText(messagesOf(after)).d1;
      if (text === undefined) {
        // The resume was not taken: the approval still waits.
        expect(pendingApproval(after)?.actionRequests.map((a) => a.toolCallId)).toEqual(["d1"]);
        expect(c.ran.filter((r) => r.startsWith("deploy"))).toEqual([]);
      } else if (text === "deployed web to staging") {
        expect(c.ran.filter((r) => r.startsWith("deploy"))).toEqual(["deploy web staging"]);
      } else {
        expect(text).toMatch(superseded);
        expect(c.ran.filter((r) => r.startsWith("deploy"))).toEqual([]);
      }
      await expectNotStranded(c);
    });

    each(nodes, entry, "update", "goto %s with an update carrying a foreign ToolMessage: dropped, the call refused, nothing runs", async (node) => {
      const c = await waiting(entry, saver, `update-${node}`);
      const foreign = new ToolMessage({ tool_call_id: "d1", content: "deployed web (done by hand)" });
      const after = (await unlessJumpToClash(entry, node, c.graph.invoke(new Command({ goto: node, update: { messages: [foreign] } }), c.config)));
      if (after === undefined) return afterClash(c);
      expect(c.ran.filter((r) => r.startsWith("deploy"))).toEqual([]);
      const text = toolText(messagesOf(after)).d1;
      expect(text).not.toBe("deployed web (done by hand)");
      if (text !== undefined) expect(text).toMatch(superseded);
      else expect(pendingApproval(after)?.actionRequests.map((a) => a.toolCallId)).toEqual(["d1"]);
      await expectNotStranded(c);
      expect(c.ran.filter((r) => r.startsWith("deploy"))).toEqual([]);
    });

    each(nodes, entry, "twice", "goto %s twice in a row: as once", async (node) => {
      const c = await waiting(entry, saver, `twice-${node}`);
      await c.graph.invoke(new Command({ goto: node }), c.config);
      const after = await c.graph.invoke(new Command({ goto: node }), c.config);
      expect(c.ran).toEqual([]);
      expect(c.modelCalls()).toBe(1);
      expect(pendingApproval(after)?.actionRequests.map((a) => a.toolCallId)).toEqual(["d1"]);
      const done = await c.graph.invoke(approve(), c.config);
      expect(c.ran.filter((r) => r.startsWith("deploy"))).toEqual(["deploy web staging"]);
      expect(toolText(messagesOf(done)).d1).toBe("deployed web to staging");
      await expectNotStranded(c);
    });

    each(nodes, entry, "race", "goto %s and a resume sent at once: one answer, run only if approved", async (node) => {
      const c = await waiting(entry, saver, `race-${node}`, saver === "sqlite");
      await Promise.all([c.graph.invoke(new Command({ goto: node }), c.config), c.graph.invoke(approve(), c.config)]);
      expectRanOnlyApproved(c.ran, true);
      await expectNotStranded(c);
      expectRanOnlyApproved(c.ran, true);
    });

    each(nodes, entry, "then-race", "goto %s, then two resumes at once: the approval decides once", async (node) => {
      const c = await waiting(entry, saver, `then-race-${node}`, saver === "sqlite");
      await c.graph.invoke(new Command({ goto: node }), c.config);
      await Promise.all([c.graph.invoke(approve(), c.config), c.graph.invoke(approve(), c.config)]);
      expectRanOnlyApproved(c.ran, true);
      expect(c.ran.filter((r) => r.startsWith("deploy"))).toEqual(["deploy web staging"]);
      await expectNotStranded(c);
      expectRanOnlyApproved(c.ran, true);
    });
  });
});
