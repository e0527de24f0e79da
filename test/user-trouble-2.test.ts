// More troubles users of LangGraph.js / LangChain.js report with tool calls and human-in-the-loop,
// each reproduced through the three public entry points (createGuardedAgent, GuardedToolNode in a
// user's own graph, guardMiddleware in LangChain's createAgent) with the payloads real clients send
// and a scripted model that refuses what the chat providers refuse (test/helpers/provider-agent.ts).
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { Command, interrupt } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { pendingApproval } from "../src/guard/approval/payload.js";
import type { ApprovalRequest } from "../src/guard/approval/payload.js";
import { openLedger } from "../src/storage/ledger.js";
import { defineTool } from "../src/tools/define-tool.js";
import { answersPerCall, deployTool, readFileTool } from "./helpers/ops-tools.js";
import { build, ENTRIES, messagesOf, newThread, resume, say, toolText, unanswered } from "./helpers/provider-agent.js";
import type { Reply } from "./helpers/provider-agent.js";

/** Tools of a small ops agent; `ran` records what really ran, with its arguments. */
function opsTools(ran: string[]) {
  const read = readFileTool(ran);
  const deploy = deployTool(ran);
  // The "ask the user" tool of LangGraph's docs: the tool body itself calls interrupt().
  const askUser = defineTool({
    name: "ask_user",
    description: "Ask the user a question",
    schema: z.object({ question: z.string() }),
    risk: "low",
    execute: ({ question }) => {
      const answer: unknown = interrupt({ question });
      ran.push(`answered ${JSON.stringify(answer)}`);
      return `the user said ${JSON.stringify(answer)}`;
    },
  });
  return [read, deploy, askUser];
}

const interruptsOf = (out: Record<string, unknown>) => (out.__interrupt__ as { id: string; value: unknown }[] | undefined) ?? [];

/** No refusal by the provider, and every call of every AI message answered exactly once, right after it. */
function expectProviderSafe(messages: readonly BaseMessage[], refusals: readonly string[]) {
  expect(refusals).toEqual([]);
  expect(unanswered(messages)).toEqual([]);
  for (let i = 0; i < messages.length; i += 1) {
    const m = messages[i];
    if (!m || !AIMessage.isInstance(m) || (m.tool_calls?.length ?? 0) === 0) continue;
    const after: string[] = [];
    for (let j = i + 1; j < messages.length && ToolMessage.isInstance(messages[j]); j += 1) after.push((messages[j] as ToolMessage).tool_call_id);
    expect(after.sort(), `answers right after ${m.id}`).toEqual((m.tool_calls ?? []).map((c) => c.id ?? "").sort());
  }
}

// ---------------------------------------------------------------------------------------------
// langchain-ai/langchainjs#10145 "@langchain/google: tool_call IDs are not unique across turns,
// causing ToolNode to silently skip tool execution" (call_0, call_1, … restart at every response;
// the same numbering appears with other OpenAI-compatible servers). A call whose id an earlier turn
// used must still be reviewed, run and answered.
describe("a provider that numbers its calls per response (call_0 in every turn): each turn's call runs and is answered", () => {
  const replies: Reply[] = [[{ name: "read_file", args: { path: "a" }, id: "call_0" }], "read a", [{ name: "read_file", args: { path: "b" }, id: "call_0" }], "read b", [{ name: "deploy", args: { service: "web" }, id: "call_0" }], "deployed"];

  describe.each(ENTRIES)("%s", (entry) => {
    it.each([["without a ledger", false], ["with the guard's ledger", true]] as const)("%s", async (_label, withLedger) => {
      const ran: string[] = [];
      const guard = withLedger ? { ledger: await openLedger(`memory:trouble2-ids-${entry}`) } : {};
      const { graph, refusals } = build(entry, { tools: opsTools(ran), replies, guard });
      const config = newThread("call-0");
      await graph.invoke(say("read a"), config);
      const second = await graph.invoke(say("now read b"), config);
      expect(ran).toEqual(["read a", "read b"]);
      expect(String(messagesOf(second).at(-1)?.content)).toBe("read b");
      // The third turn's call_0 asks like any deploy: the earlier call_0 answers nothing.
      const paused = await graph.invoke(say("deploy web"), config);
      expect(pendingApproval(paused)?.actionRequests.map((a) => a.toolCallId)).toEqual(["call_0"]);
      const done = await graph.invoke(resume({ decisions: [{ type: "approve" }] }), config);
      expect(ran).toEqual(["read a", "read b", "deploy web staging"]);
      const messages = messagesOf(done);
      expect(messages.filter((m) => ToolMessage.isInstance(m)).map((m) => String(m.content))).toEqual(["contents of a", "contents of b", "deployed web to staging"]);
      expectProviderSafe(messages, refusals);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// langchain-ai/langgraph#5345 "Tool argument update does not affect LLM content after human review
// resume" and langchain-ai/langgraphjs#1423 "interrupt causes 'unexpected tool_use_id found in
// tool_result' errors with Anthropic API". ChatAnthropic sends an AI message's content blocks, not its
// `tool_calls`, when the content is a list (langchainjs libs/providers/langchain-anthropic
// src/utils/message_inputs.ts, _convertMessagesToAnthropicPayload): an edited call must be edited in
// its tool_use block too, and a call the guard adds must get one.

/** The tool_use blocks ChatAnthropic sends for an AI message (the rule of _convertMessagesToAnthropicPayload). */
function anthropicToolUses(message: AIMessage): { id: string; name: string; input: unknown }[] {
  if (typeof message.content === "string") return (message.tool_calls ?? []).map((c) => ({ id: c.id ?? "", name: c.name, input: c.args }));
  return message.content.flatMap((block) => {
    const b = block as { type?: string; id?: string; name?: string; input?: unknown };
    return b.type === "tool_use" || b.type === "input_json_delta" ? [{ id: b.id ?? "", name: b.name ?? "", input: b.input }] : [];
  });
}

/** What Anthropic's API would refuse in a model call's input (tool_result without its tool_use right before it, and the reverse). */
function anthropicRefusal(messages: readonly BaseMessage[]): string | undefined {
  for (let i = 0; i < messages.length; i += 1) {
    const m = messages[i];
    if (!m || !AIMessage.isInstance(m)) continue;
    const uses = anthropicToolUses(m).map((u) => u.id);
    const results: string[] = [];
    for (let j = i + 1; j < messages.length && ToolMessage.isInstance(messages[j]); j += 1) results.push((messages[j] as ToolMessage).tool_call_id);
    const orphan = results.find((id) => !uses.includes(id));
    if (orphan) return `unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${orphan}`;
    const missing = uses.find((id) => !results.includes(id));
    if (missing) return `\`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing}`;
  }
  return undefined;
}

/** An AI message as ChatAnthropic returns it: text and tool_use blocks in the content, the parsed calls in tool_calls. */
function anthropicMessage(id: string, text: string, calls: { id: string; name: string; args: Record<string, unknown> }[]): AIMessage {
  return new AIMessage({
    id,
    content: [{ type: "text", text }, ...calls.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.args }))],
    tool_calls: calls.map((c) => ({ ...c, type: "tool_call" as const })),
  });
}

describe("Anthropic-format messages (tool_use content blocks): the model reads the human's edit, and every tool_result has its tool_use", () => {
  it.each(ENTRIES)("%s: an edited call", async (entry) => {
    const ran: string[] = [];
    const { graph, refusals, modelInputs } = build(entry, {
      tools: opsTools(ran),
      replies: [anthropicMessage("ai-0", "Deploying web.", [{ id: "toolu_1", name: "deploy", args: { service: "web", env: "production" } }]), "done"],
    });
    const config = newThread("anthropic-edit");
    await graph.invoke(say("deploy web"), config);
    const done = await graph.invoke(resume({ decisions: [{ type: "edit", editedAction: { name: "deploy", args: { service: "web", env: "canary" } } }] }), config);
    expect(ran).toEqual(["deploy web canary"]);
    const seen = modelInputs.at(-1) ?? [];
    expect(anthropicRefusal(seen)).toBeUndefined();
    const ai = seen.find((m): m is AIMessage => AIMessage.isInstance(m) && (m.tool_calls?.length ?? 0) > 0);
    // What ChatAnthropic sends is what ran, not what the model first wrote.
    expect(ai && anthropicToolUses(ai)).toEqual([{ id: "toolu_1", name: "deploy", input: { service: "web", env: "canary" } }]);
    expect(ai?.content).toEqual(expect.arrayContaining([{ type: "text", text: "Deploying web." }]));
    expectProviderSafe(messagesOf(done), refusals);
  });

  it.each(["agent", "middleware"] as const)("%s: a call the guard forces (InitialCall) on a message whose content is a list", async (entry) => {
    const ran: string[] = [];
    const { graph, refusals, modelInputs } = build(entry, {
      tools: opsTools(ran),
      replies: [new AIMessage({ id: "ai-0", content: [{ type: "text", text: "Let me look." }] }), "read it"],
      guard: { rules: [{ tool: "read_file", type: "InitialCall", args: { path: "README" } }] },
    });
    const out = await graph.invoke(say("what is this project?"), newThread("anthropic-forced"));
    expect(ran).toEqual(["read README"]);
    expect(String(messagesOf(out).at(-1)?.content)).toBe("read it");
    const seen = modelInputs.at(-1) ?? [];
    expect(anthropicRefusal(seen)).toBeUndefined();
    const ai = seen.find((m): m is AIMessage => AIMessage.isInstance(m) && (m.tool_calls?.length ?? 0) > 0);
    expect(ai && anthropicToolUses(ai).map((u) => [u.name, u.input])).toEqual([["read_file", { path: "README" }]]);
    expectProviderSafe(messagesOf(out), refusals);
  });
});

// ---------------------------------------------------------------------------------------------
// langchain-ai/langgraphjs#1109 "Command resume with update throws, but docs show that it shouldn't"
// (`new Command({ resume, update })`, the documented way to update the state and resume) and the
// LangGraph SDK's `command: { update }`: a client's update that puts a ToolMessage for a waiting call
// into the state. Only the guard answers guarded calls: the client's ToolMessage is not the call's
// result, the call does not run, it is answered once, and the model reads that it did not run.
describe("a client's Command({ update }) with a ToolMessage for a call waiting for approval is not taken as its result", () => {
  const fake = () => new ToolMessage({ tool_call_id: "d1", content: "deployed web to production (done by hand)" });
  describe.each(ENTRIES)("%s", (entry) => {
    it.each([
      ["update alone", () => new Command({ update: { messages: [fake()] } })],
      ["update with a reject", () => new Command({ resume: { decisions: [{ type: "reject", message: "did it by hand" }] }, update: { messages: [fake()] } })],
      ["update with an approve", () => new Command({ resume: { decisions: [{ type: "approve" }] }, update: { messages: [fake()] } })],
    ])("%s", async (_label, command) => {
      const ran: string[] = [];
      const { graph, refusals, modelInputs } = build(entry, { tools: opsTools(ran), replies: [[{ name: "deploy", args: { service: "web" }, id: "d1" }], "understood", "next"] });
      const config = newThread("update");
      await graph.invoke(say("deploy web"), config);
      const out = await graph.invoke(command(), config);
      expect(ran).toEqual([]);
      expect(pendingApproval(out)).toBeUndefined();
      const messages = messagesOf(out);
      expect(toolText(messages).d1).toMatch(/^Refused deploy by rule approval:superseded: /);
      expect(JSON.stringify(modelInputs.map((input) => input.map((m) => m.content)))).not.toContain("done by hand");
      expect(answersPerCall(messages).d1).toBe(1);
      expect(String(messages.at(-1)?.content)).toBe("understood");
      const next = await graph.invoke(say("ok"), config);
      expect(ran).toEqual([]);
      expectProviderSafe(messagesOf(next), refusals);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Agent Chat UI before LangChain v1 (and Agent Inbox) answered an interrupt with the HumanResponse
// list `[{ type: "accept" | "edit" | "response" | "ignore", args }]` (langchain-ai/agent-chat-ui#85
// shows the HumanInterrupt it answers); langchain-ai/langchain#37095 added a `respond` decision to
// Python's HumanInTheLoopMiddleware. The guard takes neither: nothing runs, nothing is decided, the same
// calls are asked again with the reason, and a proper answer then works.
describe("answers in other clients' shapes: nothing runs, the calls are asked again with the reason, a proper answer then works", () => {
  describe.each(ENTRIES)("%s", (entry) => {
    it.each([
      ["Agent Inbox accept", [{ type: "accept", args: null }], /\(an Agent Inbox response list, not taken here: send \{ decisions: \[\.\.\.\] \}, accept as \{ type: "approve" \}/],
      ["Agent Inbox edit", [{ type: "edit", args: { action: "deploy", args: { service: "api" } } }], /Agent Inbox response list, .* edit as \{ type: "edit", editedAction \}/],
      ["Agent Inbox response (text feedback)", [{ type: "response", args: "use the canary first" }], /Agent Inbox response list, .* response or ignore as \{ type: "reject", message \}\)$/],
      ["Agent Inbox ignore", [{ type: "ignore", args: null }], /Agent Inbox response list/],
      ["HumanInTheLoopMiddleware respond (Python)", { decisions: [{ type: "respond", message: "I did it by hand" }] }, /\(decision type "respond" is not one the guard takes \(approve \| edit \| reject\)\)$/],
      ["a decision type in upper case", { decisions: [{ type: "APPROVE" }] }, /\(decision type "APPROVE" is not one the guard takes/],
      ["a decision without a type, keyed by call id", { decisions: { d1: { approved: true } } }, /decision type undefined is not one the guard takes/],
    ])("%s", async (_label, value, reason) => {
      const ran: string[] = [];
      const { graph, refusals } = build(entry, { tools: opsTools(ran), replies: [[{ name: "deploy", args: { service: "web" }, id: "d1" }], "done"] });
      const config = newThread("shapes");
      await graph.invoke(say("deploy web"), config);
      const again = await graph.invoke(resume(value), config);
      expect(ran).toEqual([]);
      const asked = pendingApproval(again);
      expect(asked?.actionRequests.map((a) => a.toolCallId)).toEqual(["d1"]);
      expect(asked?.error).toMatch(/^invalid approval resume /);
      expect(asked?.error).toMatch(reason);
      expect(asked?.actionRequests[0]?.description).toMatch(/^Your last answer was refused and nothing was done: /);
      const done = await graph.invoke(resume({ decisions: [{ type: "approve" }] }), config);
      expect(ran).toEqual(["deploy web staging"]);
      expectProviderSafe(messagesOf(done), refusals);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// LibreChat-AI/agents#294 "guard sibling double-execution when ask_user_question interrupts
// mid-batch" (the interrupted node re-runs from the top on resume, so a sibling tool that already ran
// runs again) and langchain-ai/langgraphjs#970 "Interrupt is not working inside tool definitions":
// a guarded tool whose body calls interrupt(), next to a sibling call.
describe("a guarded tool that itself calls interrupt() (ask the user): the question reaches the client, the answer reaches the tool, the sibling runs once", () => {
  it.each(ENTRIES)("%s", async (entry) => {
    const ran: string[] = [];
    const { graph, refusals } = build(entry, { tools: opsTools(ran), replies: [[{ name: "read_file", args: { path: "plan" }, id: "r1" }, { name: "ask_user", args: { question: "Which environment?" }, id: "q1" }], "thanks"] });
    const config = newThread("ask-user");
    const paused = await graph.invoke(say("read the plan and ask me"), config);
    expect(interruptsOf(paused).map((i) => i.value)).toEqual([{ question: "Which environment?" }]);
    // Not a guard approval: the tool's own question.
    expect(pendingApproval(paused)).toBeUndefined();
    const done = await graph.invoke(resume("staging"), config);
    expect(ran).toEqual(["read plan", 'answered "staging"']);
    expect(toolText(messagesOf(done))).toEqual({ r1: "contents of plan", q1: 'the user said "staging"' });
    expect(String(messagesOf(done).at(-1)?.content)).toBe("thanks");
    expectProviderSafe(messagesOf(done), refusals);
  });
});

// ---------------------------------------------------------------------------------------------
// langchain-ai/deepagents#2946 "HumanInTheLoopMiddleware: reject decision causes infinite interrupt
// loop — LLM retries rejected tool indefinitely": the model repeats the rejected call unchanged. The
// repeat never runs without a human (it is asked again, the model having read "Do not retry this call
// unchanged"); a reject that holds for the run ("sticky") answers the repeat without asking, and the
// loop ends.
describe("the model repeats a rejected call: it never runs unasked, and a reject for the run ends the loop", () => {
  const repeat: Reply[] = [[{ name: "deploy", args: { service: "web" }, id: "d1" }], [{ name: "deploy", args: { service: "web" }, id: "d2" }], [{ name: "deploy", args: { service: "web" }, id: "d3" }], "I will not deploy."];
  describe.each(ENTRIES)("%s", (entry) => {
    it("a plain reject: the repeat is asked again, and the model read why", async () => {
      const ran: string[] = [];
      const { graph, modelInputs } = build(entry, { tools: opsTools(ran), replies: repeat });
      const config = newThread("reject-loop");
      await graph.invoke(say("deploy web"), config);
      const again = await graph.invoke(resume({ decisions: [{ type: "reject", message: "not before the release" }] }), config);
      expect(ran).toEqual([]);
      expect(pendingApproval(again)?.actionRequests.map((a) => a.toolCallId)).toEqual(["d2"]);
      expect(modelInputs.at(-1)?.filter((m) => ToolMessage.isInstance(m)).map((m) => String(m.content))).toEqual(["Refused deploy by a human reviewer: not before the release. Do not retry this call unchanged."]);
    });

    it("a reject for the run: the repeats are refused without asking, the run ends", async () => {
      const ran: string[] = [];
      const { graph, refusals } = build(entry, { tools: opsTools(ran), replies: repeat });
      const config = newThread("reject-sticky");
      await graph.invoke(say("deploy web"), config);
      const done = await graph.invoke(resume({ decisions: [{ type: "reject", message: "not before the release", sticky: { scope: "run" } }] }), config);
      expect(ran).toEqual([]);
      expect(pendingApproval(done)).toBeUndefined();
      const text = toolText(messagesOf(done));
      expect(Object.keys(text).sort()).toEqual(["d1", "d2", "d3"]);
      for (const id of ["d2", "d3"]) expect(text[id]).toMatch(/not before the release/);
      expect(String(messagesOf(done).at(-1)?.content)).toBe("I will not deploy.");
      expectProviderSafe(messagesOf(done), refusals);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// langchain-ai/langgraph#6956 "get_state().next is empty after a node calls interrupt() twice" and
// langchain-ai/langgraphjs#758 (clients read getState's tasks to tell an interrupted thread): after a
// partial answer the thread is still interrupted, and getState says so, with only the call left.
describe("getState while an approval waits, and after a partial answer: the thread reads as interrupted, with the calls still asked", () => {
  it.each(ENTRIES)("%s", async (entry) => {
    const ran: string[] = [];
    const { graph, refusals } = build(entry, { tools: opsTools(ran), replies: [[{ name: "deploy", args: { service: "web" }, id: "d1" }, { name: "deploy", args: { service: "db" }, id: "d2" }], "done"] });
    const config = newThread("get-state");
    await graph.invoke(say("deploy both"), config);
    const asked = (s: Awaited<ReturnType<typeof graph.getState>>) => s.tasks.flatMap((t) => t.interrupts).map((i) => (i.value as ApprovalRequest).actionRequests.map((a) => a.toolCallId));
    const first = await graph.getState(config);
    expect(first.next.length).toBeGreaterThan(0);
    expect(asked(first)).toEqual([["d1", "d2"]]);
    await graph.invoke(resume({ decisions: [{ type: "approve" }] }), config);
    const second = await graph.getState(config);
    expect(ran).toEqual(["deploy web staging"]);
    expect(second.next.length).toBeGreaterThan(0);
    expect(asked(second)).toEqual([["d2"]]);
    expect(pendingApproval(second)?.actionRequests.map((a) => a.toolCallId)).toEqual(["d2"]);
    const done = await graph.invoke(resume({ decisions: [{ type: "reject" }] }), config);
    const last = await graph.getState(config);
    expect(last.next).toEqual([]);
    expect(last.tasks.flatMap((t) => t.interrupts)).toEqual([]);
    expectProviderSafe(messagesOf(done), refusals);
  });
});

// ---------------------------------------------------------------------------------------------
// langchain-ai/langgraph#8836 "Command(resume={...}) with 32-hex keys that match no pending interrupt
// id is silently ignored", and a resume sent again after the thread went on (a retried request, a
// second tab) or to a thread whose checkpoint is gone: nothing runs twice, nothing runs unasked.
describe("a resume with nothing waiting for it: nothing runs again, nothing runs unasked", () => {
  describe.each(ENTRIES)("%s", (entry) => {
    it("the same approve sent again after the call ran", async () => {
      const ran: string[] = [];
      const { graph, refusals } = build(entry, { tools: opsTools(ran), replies: [[{ name: "deploy", args: { service: "web" }, id: "d1" }], "done", "done again", "more"] });
      const config = newThread("resume-again");
      await graph.invoke(say("deploy web"), config);
      await graph.invoke(resume({ decisions: [{ type: "approve" }] }), config);
      await graph.invoke(resume({ decisions: [{ type: "approve" }] }), config);
      expect(ran).toEqual(["deploy web staging"]);
      const state = messagesOf((await graph.getState(config)).values);
      expect(answersPerCall(state)).toEqual({ d1: 1 });
      const next = await graph.invoke(say("and now?"), config);
      expect(ran).toEqual(["deploy web staging"]);
      expectProviderSafe(messagesOf(next), refusals);
    });

    it("an approve sent to a thread that has no checkpoint (lost, or a wrong thread id)", async () => {
      const ran: string[] = [];
      const { graph } = build(entry, { tools: opsTools(ran), replies: [[{ name: "deploy", args: { service: "web" }, id: "d1" }], "done"] });
      const config = newThread("no-checkpoint");
      await graph.invoke(resume({ decisions: [{ type: "approve" }] }), config).catch(() => undefined);
      expect(ran).toEqual([]);
      expect(unanswered(messagesOf((await graph.getState(config)).values))).toEqual([]);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// camel-ai/camel#3027 "Gemini response with empty tool call id" (results sharing one id are
// collapsed), langchain-ai/langchain#29921 (tools must answer a call whose id is ""), brainlid/langchain#620
// (Gemini calls named `call-<tool>`: two calls of one tool share an id) and
// lmstudio-ai/lmstudio-bug-tracker#1756 (a local server repeating a call in one response). Each call
// gets an id of its own in the model's message, and its own answer: none is dropped, none answered twice.
describe("calls without an id, or sharing one in a message: each is reviewed, run and answered on its own", () => {
  const idless = (calls: { name: string; args: Record<string, unknown>; id?: string }[]) =>
    new AIMessage({ content: "", id: "ai-ids", tool_calls: calls.map((c) => ({ ...c, type: "tool_call" as const })) });

  describe.each(ENTRIES)("%s", (entry) => {
    it.each([
      ["no ids", [{ name: "read_file", args: { path: "a" } }, { name: "read_file", args: { path: "b" } }]],
      ["empty ids", [{ name: "read_file", args: { path: "a" }, id: "" }, { name: "read_file", args: { path: "b" }, id: "" }]],
      ["one id twice", [{ name: "read_file", args: { path: "a" }, id: "call-read_file" }, { name: "read_file", args: { path: "b" }, id: "call-read_file" }]],
    ])("%s", async (_label, calls) => {
      const ran: string[] = [];
      const { graph, refusals } = build(entry, { tools: opsTools(ran), replies: [idless(calls), "read both", "next"] });
      const config = newThread("ids");
      const out = await graph.invoke(say("read a and b"), config);
      expect(ran.sort()).toEqual(["read a", "read b"]);
      const messages = messagesOf(out);
      const ai = messages.find((m): m is AIMessage => AIMessage.isInstance(m) && (m.tool_calls?.length ?? 0) > 0);
      const ids = (ai?.tool_calls ?? []).map((c) => c.id ?? "");
      expect(new Set(ids).size).toBe(2);
      expect(ids.every((id) => id !== "")).toBe(true);
      expect(ids.map((id) => toolText(messages)[id])).toEqual(["contents of a", "contents of b"]);
      const next = await graph.invoke(say("thanks"), config);
      expectProviderSafe(messagesOf(next), refusals);
    });

    it("two deploys sharing an id: asked as two calls, each decision applies to its own", async () => {
      const ran: string[] = [];
      const { graph, refusals } = build(entry, { tools: opsTools(ran), replies: [idless([{ name: "deploy", args: { service: "web" }, id: "call-deploy" }, { name: "deploy", args: { service: "db" }, id: "call-deploy" }]), "one deployed"] });
      const config = newThread("ids-approval");
      const paused = await graph.invoke(say("deploy web and db"), config);
      const asked = pendingApproval(paused)?.actionRequests ?? [];
      expect(asked.map((a) => a.args)).toEqual([{ service: "web" }, { service: "db" }]);
      expect(new Set(asked.map((a) => a.toolCallId)).size).toBe(2);
      const done = await graph.invoke(resume({ decisions: [{ type: "approve" }, { type: "reject", message: "not the db" }] }), config);
      expect(ran).toEqual(["deploy web staging"]);
      const text = toolText(messagesOf(done));
      expect(asked.map((a) => text[a.toolCallId])).toEqual(["deployed web to staging", "Refused deploy by a human reviewer: not the db. Do not retry this call unchanged."]);
      expectProviderSafe(messagesOf(done), refusals);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// langchain-ai/langgraph#6534 (Command goto + resume while another interrupt is pending: the goto's
// node runs next to the waiting one) and Agent Chat UI's "Mark as Resolved", which sends
// `command: { goto: "__end__" }`: a client's Command({ goto }) to a node of the graph while an approval
// waits. Nothing runs, the approval still waits, the approve then runs the call once and it is
// answered once; the thread goes on.
describe("a client's Command({ goto }) while an approval waits: nothing runs, the approval still decides, one answer", () => {
  const cases: [typeof ENTRIES[number], string][] = [
    ["agent", "__end__"], ["agent", "agent"], ["agent", "review"], ["agent", "execute"], ["agent", "tools"],
    ["node", "__end__"], ["node", "tools"],
    ["middleware", "__end__"], ["middleware", "tools"], ["middleware", "model_request"], ["middleware", "GuardMiddleware.before_model"],
  ];
  it.each(cases)("%s: goto %s", async (entry, goto) => {
    const ran: string[] = [];
    const { graph, refusals } = build(entry, { tools: opsTools(ran), replies: [[{ name: "deploy", args: { service: "web" }, id: "d1" }], "done", "next"] });
    const config = newThread("goto");
    await graph.invoke(say("deploy web"), config);
    const after = await graph.invoke(new Command({ goto }), config);
    expect(ran).toEqual([]);
    // The model step too (goto agent): no new input came, so it calls no model; the approval, raised
    // again in the same step, decides (before, it refused the call as superseded while the approval
    // still waited, and an approve then gave the call a second answer).
    expect(pendingApproval(after)?.actionRequests.map((a) => a.toolCallId)).toEqual(["d1"]);
    expect(interruptsOf(after)).toHaveLength(1);
    const done = await graph.invoke(resume({ decisions: [{ type: "approve" }] }), config);
    expect(ran).toEqual(["deploy web staging"]);
    expect(toolText(messagesOf(done)).d1).toBe("deployed web to staging");
    const next = await graph.invoke(say("and now?"), config);
    expect(ran.length).toBeLessThanOrEqual(1);
    expect(answersPerCall(messagesOf(next)).d1).toBe(1);
    expectProviderSafe(messagesOf(next), refusals);
  });
});
