// Troubles LangGraph.js / LangChain.js users report with tool calls, human-in-the-loop and agents,
// each reproduced through the public entry points (createGuardedAgent, GuardedToolNode in a user's
// own graph, guardMiddleware in LangChain's createAgent) with a scripted model that refuses what the
// chat providers refuse: a model call whose history has a tool call without its result (OpenAI 400
// "An assistant message with 'tool_calls' must be followed by tool messages responding to each
// 'tool_call_id'", Anthropic 400 "tool_use ids were found without tool_result blocks immediately after").
import { AIMessage, HumanMessage, RemoveMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { Command, END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ChatOpenAI } from "@langchain/openai";
import { createAgent, createMiddleware, toolStrategy } from "langchain";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createGuardedAgent } from "../src/guard/agent.js";
import { pendingApproval } from "../src/guard/approval/payload.js";
import type { ApprovalRequest } from "../src/guard/approval/payload.js";
import type { GuardOptions } from "../src/guard/options.js";
import { Killswitch } from "../src/killswitch/killswitch.js";
import { guardMiddleware } from "../src/middleware/index.js";
import { PermissionPolicy } from "../src/policy/permissions.js";
import { supersededAnswer } from "../src/guard/answer-race.js";
import { openLedger } from "../src/storage/ledger.js";
import { defineTool } from "../src/tools/define-tool.js";
import { answersPerCall, deployTool, readFileTool } from "./helpers/ops-tools.js";
import { strictSchemaFor } from "../src/tools/index.js";
import type { AnyTool } from "../src/tools/types.js";
import { downUrl } from "./killswitch-helpers.js";
import { startOpenAIServer, type OpenAIServer, type RecordedRequest, type ScriptedReply } from "./helpers/openai-server.js";
import { checkOpenAI } from "./helpers/provider-schema.js";
import { build, ENTRIES, messagesOf, newThread, providerModel, resume, say, toolText, unanswered } from "./helpers/provider-agent.js";
import type { Entry, Reply } from "./helpers/provider-agent.js";

/** Tools of a small ops agent; `ran` records what really ran, with its arguments. */
function opsTools(ran: string[]) {
  const read = readFileTool(ran);
  const deploy = deployTool(ran);
  const flaky = defineTool({
    name: "flaky",
    description: "Calls a flaky service",
    schema: z.object({}),
    risk: "low",
    isConcurrencySafe: () => true,
    execute: () => {
      ran.push("flaky");
      throw new Error("connection reset by peer");
    },
  });
  const slow = defineTool({
    name: "slow",
    description: "A long job that honours its abort signal",
    schema: z.object({}),
    risk: "low",
    execute: async (_input, ctx) => {
      ran.push("slow started");
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, 5_000);
        ctx.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(new Error("aborted"));
        });
      });
      ran.push("slow finished");
      return "slow done";
    },
  });
  return [read, deploy, flaky, slow];
}

const callIds = (messages: readonly BaseMessage[]) => messages.flatMap((m) => (AIMessage.isInstance(m) ? (m.tool_calls ?? []).map((c) => c.id ?? "") : []));
const interruptsOf = (out: Record<string, unknown>) => (out.__interrupt__ as { id: string; value: ApprovalRequest }[] | undefined) ?? [];

/** Every call of the thread answered exactly once, and no model call was refused by the provider. */
function expectProviderSafe(messages: readonly BaseMessage[], refusals: readonly string[]) {
  expect(refusals).toEqual([]);
  expect(unanswered(messages)).toEqual([]);
  const count = answersPerCall(messages);
  for (const id of callIds(messages)) expect(count[id], id).toBe(1);
}

// ---------------------------------------------------------------------------------------------
// langchain-ai/langgraph#6486 "Tool node error handling disabled by default after 1.0.1" (a tool's
// ValueError leaves the call without a ToolMessage; the next request fails with OpenAI's 400);
// langchain-ai/langchainjs#8570 "Abort controller leads to invalid tool call response". Every path
// that does not run a call must still answer it before the next model call.
describe("every tool call is answered before the next model call, whatever happens to it", () => {
  interface Path {
    label: string;
    replies: Reply[];
    guard?: Partial<Omit<GuardOptions, "tools">>;
    resume?: unknown;
    /** What the one call of the first turn is answered with. */
    answer: RegExp;
    mustNotRun?: string;
  }
  const one = (name: string, args: Record<string, unknown> = {}) => [{ name, args, id: "call_1" }];
  const PATHS: Path[] = [
    { label: "a human rejects it", replies: [one("deploy", { service: "web" }), "ok"], resume: { decisions: [{ type: "reject", message: "not today" }] }, answer: /^Refused deploy by a human reviewer: not today\./, mustNotRun: "deploy" },
    { label: "a human edits it", replies: [one("deploy", { service: "web" }), "ok"], resume: { decisions: [{ type: "edit", editedAction: { name: "deploy", args: { service: "api" } } }] }, answer: /^deployed api to staging$/ },
    { label: "the tool throws", replies: [one("flaky"), "ok"], answer: /^Error: flaky failed: connection reset by peer$/ },
    { label: "the tool does not exist", replies: [one("restart_cluster"), "ok"], answer: /^Refused "restart_cluster" by rule unknown-tool: there is no tool with that name\./ },
    { label: "its arguments do not fit the schema", replies: [one("read_file", { path: 42 }), "ok"], answer: /^Refused read_file by rule schema: invalid arguments \(path: / },
    {
      label: "a permission rule denies it",
      replies: [one("deploy", { service: "web", env: "production" }), "ok"],
      guard: { permissions: new PermissionPolicy([{ id: "no-prod", tool: "deploy", where: { env: { equals: "production" } }, mode: "deny", reason: "production is frozen" }]) },
      answer: /^Refused deploy by rule permission:no-prod: production is frozen/,
      mustNotRun: "deploy",
    },
    {
      label: "a call limit is reached",
      replies: [[{ name: "read_file", args: { path: "a" }, id: "call_0" }, { name: "read_file", args: { path: "b" }, id: "call_1" }], "ok"],
      guard: { rules: [{ tool: "read_file", type: "MaxCalls", max: 1 }] },
      answer: /^Refused read_file by rule /,
      mustNotRun: "read b",
    },
    {
      label: "its arguments are not JSON (invalid_tool_calls)",
      replies: [new AIMessage({ content: "", id: "ai-bad", invalid_tool_calls: [{ type: "invalid_tool_call", id: "call_1", name: "read_file", args: '{"path": "/etc/ho', error: "Unterminated string in JSON at position 17" }] }), "ok"],
      answer: /^Refused read_file by rule schema: its arguments could not be read as JSON \(Unterminated string in JSON at position 17\), so it did not run\./,
      mustNotRun: "read",
    },
  ];

  describe.each(ENTRIES)("%s", (entry) => {
    it.each(PATHS)("$label", async (path) => {
      const ran: string[] = [];
      const { graph, refusals } = build(entry, { tools: opsTools(ran), replies: [...path.replies, "second turn"], ...(path.guard ? { guard: path.guard } : {}) });
      const config = newThread("answered");
      let out = await graph.invoke(say("do it"), config);
      if (path.resume !== undefined) out = await graph.invoke(resume(path.resume), config);
      expect(pendingApproval(out)).toBeUndefined();
      expect(toolText(messagesOf(out)).call_1).toMatch(path.answer);
      if (path.mustNotRun !== undefined) expect(ran.filter((r) => r.startsWith(path.mustNotRun ?? ""))).toEqual([]);
      // The thread goes on: a second turn reaches the model with a history every provider accepts.
      out = await graph.invoke(say("and now?"), config);
      expect(String(messagesOf(out).at(-1)?.content)).toBe("second turn");
      expectProviderSafe(messagesOf(out), refusals);
    });

    it("the killswitch, unreachable, restricts: the risky call is refused and answered", async () => {
      const ran: string[] = [];
      const killswitch = new Killswitch({ url: await downUrl(), onFailure: "deny-risky", timeoutMs: 500 });
      await killswitch.start();
      try {
        const { graph, refusals } = build(entry, { tools: opsTools(ran), replies: [one("deploy", { service: "web" }), "ok"], guard: { killswitch } });
        const out = await graph.invoke(say("deploy web"), newThread("killswitch"));
        expect(pendingApproval(out)).toBeUndefined();
        expect(ran).toEqual([]);
        expect(toolText(messagesOf(out)).call_1).toMatch(/^Refused deploy by rule killswitch/);
        expectProviderSafe(messagesOf(out), refusals);
      } finally {
        await killswitch.stop();
      }
    });
  });
});

// ---------------------------------------------------------------------------------------------
// langchain-ai/langgraph#6624 "ToolNode doesn't collect all interrupts from parallel tool execution",
// langchain-ai/langgraph#6626 "interrupt() calls in parallel tools generate identical IDs, making
// multi-interrupt resume impossible", langchain-ai/langgraph#6108 (resume several interrupts by a map
// of interrupt id → value). Parallel calls that ask go into one interrupt; every resume shape works.
describe("parallel calls that need approval: one interrupt, answered by list, by call id or by interrupt id", () => {
  const twoDeploys: Reply[] = [[{ name: "deploy", args: { service: "web" }, id: "d1" }, { name: "deploy", args: { service: "db" }, id: "d2" }, { name: "read_file", args: { path: "notes" }, id: "r1" }], "done"];

  describe.each(ENTRIES)("%s", (entry) => {
    async function paused() {
      const ran: string[] = [];
      const built = build(entry, { tools: opsTools(ran), replies: twoDeploys });
      const config = newThread("parallel");
      const out = await built.graph.invoke(say("deploy both"), config);
      return { ...built, ran, config, out };
    }

    it("both asking calls are in one interrupt (the safe call already ran)", async () => {
      const { out, ran } = await paused();
      const interrupts = interruptsOf(out);
      expect(interrupts).toHaveLength(1);
      expect(interrupts[0]?.value.actionRequests.map((a) => a.toolCallId)).toEqual(["d1", "d2"]);
      expect(interrupts[0]?.value.action_requests.map((a) => a.tool_call_id)).toEqual(["d1", "d2"]);
      expect(ran.filter((r) => r.startsWith("deploy"))).toEqual([]);
    });

    it.each([
      ["a list, in order", { decisions: [{ type: "approve" }, { type: "reject", message: "not the db" }] }],
      ["an object keyed by tool call id", { decisions: { d2: { type: "reject", message: "not the db" }, d1: { type: "approve" } } }],
      ["a list naming each call (tool_call_id)", { decisions: [{ type: "reject", message: "not the db", tool_call_id: "d2" }, { type: "approve", tool_call_id: "d1" }] }],
      // The LangGraph SDK's normalizeHitlResponseForServer (useStream, Agent Chat UI) sends both spellings.
      ["both spellings, as the LangGraph SDK sends them", { decisions: [{ type: "approve", toolCallId: "d1", tool_call_id: "d1" }, { type: "reject", message: "not the db", toolCallId: "d2", tool_call_id: "d2" }] }],
    ])("resumed with %s", async (_label, value) => {
      const { graph, config, ran, refusals } = await paused();
      const done = await graph.invoke(resume(value), config);
      expect(ran.filter((r) => r.startsWith("deploy"))).toEqual(["deploy web staging"]);
      expect(toolText(messagesOf(done)).d2).toBe("Refused deploy by a human reviewer: not the db. Do not retry this call unchanged.");
      expect(String(messagesOf(done).at(-1)?.content)).toBe("done");
      expectProviderSafe(messagesOf(done), refusals);
    });

    it("resumed by a map of interrupt id → value (LangGraph's multi-interrupt resume)", async () => {
      const { graph, config, ran, refusals, out } = await paused();
      const id = interruptsOf(out)[0]?.id ?? "";
      const done = await graph.invoke(resume({ [id]: { decisions: [{ type: "approve" }, { type: "approve" }] } }), config);
      expect(ran.filter((r) => r.startsWith("deploy")).sort()).toEqual(["deploy db staging", "deploy web staging"]);
      expect(String(messagesOf(done).at(-1)?.content)).toBe("done");
      expectProviderSafe(messagesOf(done), refusals);
    });

    it("a map keyed by an interrupt id that is not pending answers nothing: nothing runs, the same calls are asked again", async () => {
      const { graph, config, ran, out } = await paused();
      const again = await graph.invoke(resume({ "0123456789abcdef0123456789abcdef": { decisions: [{ type: "approve" }, { type: "approve" }] } }), config);
      expect(ran.filter((r) => r.startsWith("deploy"))).toEqual([]);
      expect(pendingApproval(again)?.actionRequests.map((a) => a.toolCallId)).toEqual(["d1", "d2"]);
      expect(interruptsOf(again)).toHaveLength(1);
      expect(interruptsOf(out)).toHaveLength(1);
    });

    // langchain-ai/agent-chat-ui#85 "Interrupts not working as expected (graph resets instead of resuming)":
    // clients that continue with invoke(null) or send the older Agent Inbox response list.
    it.each([
      ["invoke(null), which continues a breakpoint but answers nothing", null],
      ["the older Agent Inbox response list [{ type: \"accept\", args: null }]", [{ type: "accept", args: null }]],
      ["a bare string", "approve"],
    ])("%s: nothing runs, the same calls stay asked, the thread is not stuck", async (_label, value) => {
      const { graph, config, ran, refusals } = await paused();
      const again = value === null ? await graph.invoke(null, config) : await graph.invoke(resume(value), config);
      expect(ran.filter((r) => r.startsWith("deploy"))).toEqual([]);
      expect(pendingApproval(again)?.actionRequests.map((a) => a.toolCallId)).toEqual(["d1", "d2"]);
      if (value !== null) expect(pendingApproval(again)?.error).toMatch(/decisions/);
      const done = await graph.invoke(resume({ decisions: [{ type: "approve" }, { type: "reject" }] }), config);
      expect(ran.filter((r) => r.startsWith("deploy"))).toEqual(["deploy web staging"]);
      expectProviderSafe(messagesOf(done), refusals);
    });

    it("one decision for two calls (Agent Chat UI answers the call it shows): the first runs, the second is asked again", async () => {
      const { graph, config, ran, refusals } = await paused();
      const next = await graph.invoke(resume({ decisions: [{ type: "approve" }] }), config);
      expect(ran.filter((r) => r.startsWith("deploy"))).toEqual(["deploy web staging"]);
      expect(pendingApproval(next)?.actionRequests.map((a) => a.toolCallId)).toEqual(["d2"]);
      const done = await graph.invoke(resume({ decisions: [{ type: "approve" }] }), config);
      expect(ran.filter((r) => r.startsWith("deploy"))).toEqual(["deploy web staging", "deploy db staging"]);
      expectProviderSafe(messagesOf(done), refusals);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// langchain-ai/langchain#37093 "HumanInTheLoopMiddleware executes rejected tool calls in LangGraph's
// ToolNode"; langchain-ai/langchain#40491 (another after_model middleware's documented
// `jump_to: "tools"` re-runs calls the human just rejected); langchain-ai/langchainjs#11125
// "humanInTheLoopMiddleware behaves incorrectly on rejection with human message provided".
describe("a rejected call never runs; the model reads the reviewer's message; the other calls still run", () => {
  it.each(ENTRIES)("%s", async (entry) => {
    const ran: string[] = [];
    const { graph, refusals, modelInputs } = build(entry, { tools: opsTools(ran), replies: [[{ name: "read_file", args: { path: "plan" }, id: "r1" }, { name: "deploy", args: { service: "web" }, id: "d1" }], "understood"] });
    const config = newThread("reject");
    await graph.invoke(say("read the plan and deploy"), config);
    const done = await graph.invoke(resume({ decisions: [{ type: "reject", message: "wait for the release window" }] }), config);
    expect(ran).toEqual(["read plan"]);
    const seen = modelInputs.at(-1)?.filter((m) => ToolMessage.isInstance(m)).map((m) => String(m.content));
    expect(seen?.sort()).toEqual(["Refused deploy by a human reviewer: wait for the release window. Do not retry this call unchanged.", "contents of plan"]);
    expectProviderSafe(messagesOf(done), refusals);
  });

  it("middleware: another middleware that jumps to the tools after the model cannot run the rejected call", async () => {
    const ran: string[] = [];
    const refusals: string[] = [];
    const model = providerModel([[{ name: "deploy", args: { service: "web" }, id: "d1" }], "understood", "understood again"], refusals, []);
    // A user's middleware that always sends the model's calls to the tools (LangChain's documented jumpTo).
    const jumper = createMiddleware({
      name: "AlwaysTools",
      afterModel: {
        canJumpTo: ["tools"],
        hook: (state) => ((state.messages.at(-1) as AIMessage | undefined)?.tool_calls?.length ? { jumpTo: "tools" as const } : undefined),
      },
    });
    const agent = createAgent({ model, middleware: [jumper, guardMiddleware({ tools: opsTools(ran) })], checkpointer: new MemorySaver() });
    const config = newThread("jump");
    const paused = await agent.invoke(say("deploy web"), config);
    expect(ran).toEqual([]);
    const done = paused.__interrupt__ ? await agent.invoke(new Command({ resume: { decisions: [{ type: "reject", message: "no" }] } }), config) : paused;
    expect(ran).toEqual([]);
    expect(toolText(done.messages).d1).toMatch(/^Refused deploy/);
    expect(unanswered(done.messages)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// LangChain's humanInTheLoopMiddleware `edit` decision (docs: "edit the tool call before it runs"):
// users report edited arguments not being what ran, and an edit being a way around a deny.
describe("an edit runs the edited arguments, is reviewed again, and the model reads what ran", () => {
  it.each(ENTRIES)("%s", async (entry) => {
    const ran: string[] = [];
    const permissions = new PermissionPolicy([{ id: "no-prod", tool: "deploy", where: { env: { equals: "production" } }, mode: "deny", reason: "production is frozen" }]);
    const { graph, refusals } = build(entry, { tools: opsTools(ran), replies: [[{ name: "deploy", args: { service: "web" }, id: "d1" }, { name: "deploy", args: { service: "db" }, id: "d2" }], "done"], guard: { permissions } });
    const config = newThread("edit");
    await graph.invoke(say("deploy"), config);
    const done = await graph.invoke(
      resume({
        decisions: [
          { type: "edit", editedAction: { name: "deploy", args: { service: "web", env: "canary" } } },
          // An edit onto a denied target is refused like a model's call would be.
          { type: "edit", edited_action: { name: "deploy", args: { service: "db", env: "production" } } },
        ],
      }),
      config,
    );
    expect(ran).toEqual(["deploy web canary"]);
    const messages = messagesOf(done);
    expect(toolText(messages).d1).toBe("deployed web to canary");
    expect(toolText(messages).d2).toMatch(/^The reviewer's edit of this call was checked again and refused\. Refused deploy by rule permission:no-prod: production is frozen\.$/);
    const ai = messages.find((m): m is AIMessage => AIMessage.isInstance(m) && (m.tool_calls?.length ?? 0) > 0);
    expect(ai?.tool_calls?.find((c) => c.id === "d1")?.args).toEqual({ service: "web", env: "canary" });
    expectProviderSafe(messages, refusals);
  });
});

// ---------------------------------------------------------------------------------------------
// langchain-ai/deepagentsjs#485 "handle_tool_errors — JS equivalent of Python's ToolNode(handle_tool_errors=True)":
// a tool that throws crashes the run with "Multiple errors occurred during superstep N"; the model
// never sees the error.
describe("tools that throw, alone or in parallel, become error results the model reads; the run goes on", () => {
  it.each(ENTRIES)("%s", async (entry) => {
    const ran: string[] = [];
    const { graph, refusals, modelInputs } = build(entry, { tools: opsTools(ran), replies: [[{ name: "flaky", id: "f1" }, { name: "flaky", id: "f2" }, { name: "read_file", args: { path: "x" }, id: "r1" }], "recovered"] });
    const out = await graph.invoke(say("try"), newThread("throws"));
    expect(ran.sort()).toEqual(["flaky", "flaky", "read x"]);
    const text = toolText(messagesOf(out));
    expect(text).toEqual({ f1: "Error: flaky failed: connection reset by peer", f2: "Error: flaky failed: connection reset by peer", r1: "contents of x" });
    expect(messagesOf(out).filter((m) => ToolMessage.isInstance(m)).map((m) => (m as ToolMessage).status)).toEqual(expect.arrayContaining(["error", "error", "success"]));
    expect(String(messagesOf(out).at(-1)?.content)).toBe("recovered");
    expect(modelInputs).toHaveLength(2);
    expectProviderSafe(messagesOf(out), refusals);
  });
});

// ---------------------------------------------------------------------------------------------
// openai/openai-agents-js#723 / #887 "handle invalid JSON in tool call arguments gracefully": the
// model writes arguments that are not JSON; LangChain puts such a call in `invalid_tool_calls`,
// nothing answers it, and ChatOpenAI sends it back with the next request, which the API refuses with
// a 400 — the thread can never go on. Reproduced with the real ChatOpenAI against a loopback server
// that applies the API's rule.
describe("arguments the provider cannot parse (invalid_tool_calls) are refused with the parser's error, and the thread goes on", () => {
  let server: OpenAIServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  /** The OpenAI chat API's rule on a request's messages, as its 400 says it. */
  function openAIRefusal(request: RecordedRequest): string | undefined {
    const messages = request.body.messages ?? [];
    for (let i = 0; i < messages.length; i += 1) {
      const calls = (messages[i]?.tool_calls as { id: string }[] | undefined) ?? [];
      if (messages[i]?.role !== "assistant" || calls.length === 0) continue;
      const answered = new Set<string>();
      for (let j = i + 1; j < messages.length && messages[j]?.role === "tool"; j += 1) answered.add(messages[j]?.tool_call_id ?? "");
      const missing = calls.filter((c) => !answered.has(c.id)).map((c) => c.id);
      if (missing.length > 0) return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(", ")}`;
    }
    for (let i = 0; i < messages.length; i += 1) {
      if (messages[i]?.role !== "tool") continue;
      let j = i - 1;
      while (j >= 0 && messages[j]?.role === "tool") j -= 1;
      const calls = (messages[j]?.tool_calls as { id: string }[] | undefined) ?? [];
      if (!calls.some((c) => c.id === messages[i]?.tool_call_id)) return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
    }
    return undefined;
  }

  async function openAIAgainst(replies: ScriptedReply[]) {
    server = await startOpenAIServer((request, index) => {
      const refusal = openAIRefusal(request);
      return refusal ? { status: 400, content: refusal } : (replies[index] ?? { content: "(no more replies)" });
    });
    return new ChatOpenAI({ model: "test-model", apiKey: "test", maxRetries: 0, configuration: { baseURL: server.url } });
  }

  describe.each(ENTRIES)("%s", (entry) => {
    it.each([
      ["the only call is unparsable", [{ id: "call_bad", name: "read_file", arguments: '{"path": "/etc/ho' }]],
      ["one of two calls is unparsable", [{ id: "call_ok", name: "read_file", arguments: { path: "a" } }, { id: "call_bad", name: "read_file", arguments: '{"path": "/etc/ho' }]],
    ] as const)("%s", async (_label, calls) => {
      const ran: string[] = [];
      const model = await openAIAgainst([{ tool_calls: [...calls] }, { content: "fixed it" }, { content: "next turn" }]);
      const { graph } = build(entry, { tools: opsTools(ran), model });
      const config = newThread("invalid-json");
      const out = await graph.invoke(say("read the hosts file"), config);
      expect(toolText(messagesOf(out)).call_bad).toMatch(/^Refused read_file by rule schema: its arguments could not be read as JSON \(.+\), so it did not run\. Call it again with the arguments as one complete JSON object\.$/);
      expect(ran).toEqual(calls.length === 2 ? ["read a"] : []);
      expect(String(messagesOf(out).at(-1)?.content)).toBe("fixed it");
      // The next turn's request is one the API accepts.
      const next = await graph.invoke(say("thanks"), config);
      expect(String(messagesOf(next).at(-1)?.content)).toBe("next turn");
      expect(server?.requests.map(openAIRefusal)).toEqual([undefined, undefined, undefined]);
      expect(unanswered(messagesOf(next))).toEqual([]);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// langchain-ai/langgraphjs#740 "Allow tools to return Commands and update graph state": users'
// tools return `new Command({ update: { messages: [ToolMessage], ... } })`. The guard applies it as
// LangGraph's ToolNode does (the tool's ToolMessage is the call's answer); in createGuardedAgent's own
// graph, whose state holds only messages and whose routing is the guard's, a Command that updates
// another key or routes is refused with the reason (Command.PARENT is the way out), never turned
// into JSON the model would read as the result.
describe("a tool that returns a LangGraph Command: applied as ToolNode applies it, or a clear error, and the thread goes on", () => {
  const setUser = tool(
    async ({ name }, config) =>
      new Command({ update: { user_name: name, messages: [new ToolMessage({ content: `user set to ${name}`, tool_call_id: (config as { toolCall?: { id?: string } }).toolCall?.id ?? "" })] } }),
    { name: "set_user", description: "Remember the user's name", schema: z.object({ name: z.string() }) },
  );
  const setUserDefined = defineTool({
    name: "set_user",
    description: "Remember the user's name",
    schema: z.object({ name: z.string() }),
    risk: "low",
    execute: ({ name }) => new Command({ update: { user_name: name } }),
  });

  describe.each(ENTRIES)("%s", (entry) => {
    it.each([
      ["a LangChain tool", setUser as unknown as AnyTool, entry === "agent" ? /^Error: set_user failed: it ran, but returned a LangGraph Command \(user_name, messages\) that the guarded agent's own graph cannot apply: .* Nothing of the Command was applied\. To update or route the graph that contains this agent, return Command\(\{ graph: Command\.PARENT/ : /^user set to bob$/],
      ["a defineTool tool", setUserDefined as AnyTool, entry === "agent" ? /^Error: set_user failed: it ran, but returned a LangGraph Command \(user_name\) that the guarded agent's own graph cannot apply/ : /^set_user applied its update \(user_name\)\.$/],
    ])("%s", async (_label, setter, expected) => {
      const { graph, refusals } = build(entry, { tools: [setter], replies: [[{ name: "set_user", args: { name: "bob" }, id: "u1" }], "noted", "next"], guard: { defaultRisk: "low" } });
      const config = newThread("command");
      const out = await graph.invoke(say("I am bob"), config);
      const text = toolText(messagesOf(out)).u1 ?? "";
      expect(text).toMatch(expected);
      expect(text).not.toContain("lg_name");
      expect((messagesOf(out).find((m) => ToolMessage.isInstance(m)) as ToolMessage).status).toBe(entry === "agent" ? "error" : "success");
      // No graph here has a user_name key: LangGraph drops it, as it does for its own ToolNode.
      expect(out).not.toHaveProperty("user_name");
      expect(unanswered(messagesOf(out))).toEqual([]);
      const next = await graph.invoke(say("ok"), config);
      expectProviderSafe(messagesOf(next), refusals);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// assistant-ui/assistant-ui#4477 "Support steer away from interrupts when user sends a new message"
// and Agent Chat UI, which adds a ToolMessage "Successfully handled tool call." for each waiting call
// when the user types instead of answering (double texting). The waiting calls must be answered, and
// nothing may run unapproved.
describe("new input while calls wait for approval: they are answered as not run, nothing runs, the client's ToolMessages are not taken", () => {
  it.each(ENTRIES)("%s", async (entry) => {
    const ran: string[] = [];
    const { graph, refusals, modelInputs } = build(entry, { tools: opsTools(ran), replies: [[{ name: "deploy", args: { service: "web" }, id: "d1" }, { name: "deploy", args: { service: "db" }, id: "d2" }], "ok, not deploying"] });
    const config = newThread("double-text");
    const paused = await graph.invoke(say("deploy both"), config);
    expect(pendingApproval(paused)?.actionRequests).toHaveLength(2);
    const out = await graph.invoke(
      { messages: [new ToolMessage({ tool_call_id: "d1", content: "Successfully handled tool call." }), new ToolMessage({ tool_call_id: "d2", content: "Successfully handled tool call." }), new HumanMessage("actually, never mind")] },
      config,
    );
    expect(ran).toEqual([]);
    expect(pendingApproval(out)).toBeUndefined();
    const text = toolText(messagesOf(out));
    expect(text.d1).toMatch(/^Refused deploy by rule approval:superseded: new input arrived while this turn waited for a human's approval, so it did not run\./);
    expect(text.d2).toMatch(/^Refused deploy by rule approval:superseded/);
    expect(JSON.stringify(modelInputs.at(-1)?.map((m) => m.content))).not.toContain("Successfully handled tool call.");
    // A late answer to the superseded request runs nothing.
    await graph.invoke(resume({ decisions: [{ type: "approve" }, { type: "approve" }] }), config).catch(() => undefined);
    expect(ran).toEqual([]);
    expectProviderSafe(messagesOf((await graph.getState(config)).values), refusals);
  });
});

// ---------------------------------------------------------------------------------------------
// langchain-ai/langchainjs#8570 "Abort controller leads to invalid tool call response": aborting a
// run mid-tool leaves the AI message's call without a ToolMessage; the next request fails.
describe("a run aborted while a tool runs: the next input answers the call once, it never runs again", () => {
  it.each(ENTRIES)("%s", async (entry) => {
    const ran: string[] = [];
    const { graph, refusals } = build(entry, { tools: opsTools(ran), replies: [[{ name: "slow", id: "s1" }], "after the abort"] });
    const config = newThread("abort");
    const controller = new AbortController();
    const stopping = setTimeout(() => controller.abort(), 300);
    await expect(graph.invoke(say("run the job"), { ...config, signal: controller.signal })).rejects.toThrow();
    clearTimeout(stopping);
    const out = await graph.invoke(say("what happened?"), config);
    expect(ran).toEqual(["slow started"]);
    expect(toolText(messagesOf(out)).s1).toMatch(/^(Cancelled|Refused)/);
    expect(String(messagesOf(out).at(-1)?.content)).toBe("after the abort");
    expectProviderSafe(messagesOf(out), refusals);
  });
});

// GuardedToolNode reviews and runs a turn in one step, so an abort leaves no checkpoint saying its
// calls were sent to run: new input must not answer them as calls that waited for approval ("so it
// did not run") when one had started (the model would repeat a side effect that may have happened).
describe("GuardedToolNode aborted: new input answers each call with what is known of it", () => {
  async function abortedThenNewInput(replies: Reply[], guard: Partial<Omit<GuardOptions, "tools">> = {}, abortAfterMs = 300) {
    const ran: string[] = [];
    const { graph, refusals } = build("node", { tools: opsTools(ran), replies: [...replies, "after the abort"], guard });
    const config = newThread("node-abort");
    const controller = new AbortController();
    const stopping = setTimeout(() => controller.abort(), abortAfterMs);
    await expect(graph.invoke(say("run the jobs"), { ...config, signal: controller.signal })).rejects.toThrow();
    clearTimeout(stopping);
    const out = await graph.invoke(say("what happened?"), config);
    expect(String(messagesOf(out).at(-1)?.content)).toBe("after the abort");
    expectProviderSafe(messagesOf(out), refusals);
    return { ran, answers: toolText(messagesOf(out)) };
  }

  it("a call that started may have taken effect; a call of a later batch that never started did not run", async () => {
    // Two calls that are not concurrency-safe: two batches, the second starts after the first.
    const { ran, answers } = await abortedThenNewInput([[{ name: "slow", id: "s1" }, { name: "slow", id: "s2" }]]);
    expect(ran).toEqual(["slow started"]);
    expect(answers.s1).toBe("Cancelled: slow did not report a result: the run was aborted while it ran, and new input arrived. Whether it had any effect is unknown; it will not run again. Check before calling it again.");
    expect(answers.s2).toBe("Cancelled: slow did not run: the run was cancelled");
  });

  it("aborted before any tool started (while the turn's decisions were written): every call did not run", async () => {
    // An audit sink that takes 600 ms to write: the abort comes while review writes the turn's decisions.
    const slowAudit = { write: () => new Promise<void>((resolve) => setTimeout(resolve, 600)), query: async () => [], close: async () => undefined };
    const { ran, answers } = await abortedThenNewInput([[{ name: "slow", id: "s1" }, { name: "read_file", args: { path: "a" }, id: "r1" }]], { audit: slowAudit }, 200);
    expect(ran).toEqual([]);
    // Not "new input arrived while this turn waited for a human's approval": nothing asked a human.
    expect(answers).toEqual({ s1: "Cancelled: slow did not run: the run was cancelled", r1: "Cancelled: read_file did not run: the run was cancelled" });
  });
});

// ---------------------------------------------------------------------------------------------
// langchain-ai/langgraph#4231 "GraphRecursionError: ReAct agent keeps calling the tool repeatedly";
// langchain-ai/docs#2014 (GRAPH_RECURSION_LIMIT in the quickstart): the loop hits the recursion limit
// in the middle of a turn; the thread must stay usable.
describe("the recursion limit stops a looping agent mid-turn; the thread is not stranded", () => {
  it.each(ENTRIES)("%s", async (entry) => {
    const ran: string[] = [];
    const loop: Reply[] = Array.from({ length: 6 }, (_, i) => [{ name: "read_file", args: { path: `page-${i}` }, id: `r${i}` }]);
    const { graph, refusals } = build(entry, { tools: opsTools(ran), replies: [...loop, "stopped looping"] });
    const config = newThread("recursion");
    await expect(graph.invoke(say("read everything"), { ...config, recursionLimit: 5 })).rejects.toThrow(/Recursion limit of 5 reached/);
    const reads = ran.length;
    expect(reads).toBeGreaterThan(0);
    // The user asks again with a larger limit: the model is called with a history the provider accepts.
    const out = await graph.invoke(say("stop and summarise"), { ...config, recursionLimit: 50 });
    expect(String(messagesOf(out).at(-1)?.content)).toBe("stopped looping");
    expectProviderSafe(messagesOf(out), refusals);
    // No call ran twice.
    expect(new Set(ran).size).toBe(ran.length);
  });
});

// ---------------------------------------------------------------------------------------------
// langchain-ai/langgraphjs#1552 "Resuming after NodeInterrupt using subgraphs seems buggy" (the
// subgraph resumes from the beginning): the guarded agent as a node of a parent graph.
describe("the guarded agent inside a parent graph: the approval surfaces at the parent, the resume continues where it stopped", () => {
  it("createGuardedAgent as a subgraph node", async () => {
    const ran: string[] = [];
    const refusals: string[] = [];
    const inputs: BaseMessage[][] = [];
    const agent = createGuardedAgent({ model: providerModel([[{ name: "read_file", args: { path: "a" }, id: "r1" }], [{ name: "deploy", args: { service: "web" }, id: "d1" }], "deployed"], refusals, inputs), tools: opsTools(ran) });
    const parent = new StateGraph(MessagesAnnotation).addNode("assistant", agent).addEdge(START, "assistant").addEdge("assistant", END).compile({ checkpointer: new MemorySaver() });
    const config = newThread("subgraph");
    const paused = await parent.invoke(say("read a, then deploy"), config);
    expect(pendingApproval(paused)?.actionRequests.map((a) => a.toolCallId)).toEqual(["d1"]);
    expect(pendingApproval(await parent.getState(config))?.actionRequests.map((a) => a.toolCallId)).toEqual(["d1"]);
    const done = await parent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), config);
    expect(ran).toEqual(["read a", "deploy web staging"]);
    expect(inputs).toHaveLength(3); // not restarted: two turns before the approval, one after
    expect(String(done.messages.at(-1)?.content)).toBe("deployed");
    expectProviderSafe(done.messages, refusals);
  });

  it("guardMiddleware's createAgent as a subgraph node", async () => {
    const ran: string[] = [];
    const refusals: string[] = [];
    const inputs: BaseMessage[][] = [];
    const agent = createAgent({ model: providerModel([[{ name: "deploy", args: { service: "web" }, id: "d1" }], "deployed"], refusals, inputs), middleware: [guardMiddleware({ tools: opsTools(ran) })] });
    const parent = new StateGraph(MessagesAnnotation).addNode("assistant", agent.graph).addEdge(START, "assistant").addEdge("assistant", END).compile({ checkpointer: new MemorySaver() });
    const config = newThread("subgraph-mw");
    const paused = await parent.invoke(say("deploy"), config);
    expect(pendingApproval(paused)?.actionRequests.map((a) => a.toolCallId)).toEqual(["d1"]);
    const done = await parent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), config);
    expect(ran).toEqual(["deploy web staging"]);
    expect(inputs).toHaveLength(2);
    expectProviderSafe(done.messages, refusals);
  });
});

// ---------------------------------------------------------------------------------------------
// langchain-ai/agent-chat-ui#95 "Interrupt not showing up in the UI" / #77: the client reads
// `__interrupt__` from the stream; it must be there, in the shape the UI renders.
describe("streaming: the approval interrupt reaches the client in every stream mode it reads", () => {
  it.each(ENTRIES)("%s", async (entry) => {
    const ran: string[] = [];
    const { graph, refusals } = build(entry, { tools: opsTools(ran), replies: [[{ name: "deploy", args: { service: "web" }, id: "d1" }], "done"] });
    const config = newThread("stream");
    const seen: { mode: string; request: ApprovalRequest | undefined }[] = [];
    for await (const chunk of await graph.stream(say("deploy"), { ...config, streamMode: ["updates", "values"] })) {
      const [mode, data] = chunk as [string, Record<string, unknown>];
      if (data && "__interrupt__" in data) seen.push({ mode, request: pendingApproval(data) });
    }
    expect(seen.map((s) => s.mode).sort()).toEqual(["updates", "values"]);
    for (const { request } of seen) {
      // Agent Chat UI renders the form only when these hold (isAgentInboxInterruptSchema).
      expect(request?.action_requests.map((a) => a.name)).toEqual(["deploy"]);
      expect(request?.review_configs.every((c) => typeof c.action_name === "string" && Array.isArray(c.allowed_decisions))).toBe(true);
    }
    const last: unknown[] = [];
    for await (const chunk of await graph.stream(resume({ decisions: [{ type: "approve" }] }), { ...config, streamMode: "values" })) last.push(chunk);
    expect(ran).toEqual(["deploy web staging"]);
    expectProviderSafe(messagesOf(last.at(-1) as Record<string, unknown>), refusals);
  });
});

// ---------------------------------------------------------------------------------------------
// langchain-ai/langchain#33245 "trim_messages returning invalid messages history" and the users who
// trim the history between turns: trimming must not break the guard, and must not reset what the
// guard counts for the thread (a limit is not a message the user can delete).
describe("history trimmed between turns: the guard goes on, and thread limits still count", () => {
  it.each(ENTRIES)("%s", async (entry) => {
    const ran: string[] = [];
    const { graph, refusals } = build(entry, {
      tools: opsTools(ran),
      replies: [[{ name: "read_file", args: { path: "a" }, id: "t1" }], "first", [{ name: "read_file", args: { path: "b" }, id: "t2" }], "second"],
      guard: { rules: [{ tool: "read_file", type: "MaxCalls", max: 1, scope: "thread" }] },
    });
    const config = newThread("trim");
    await graph.invoke(say("read a"), config);
    expect(ran).toEqual(["read a"]);
    // The user drops the whole first exchange (whole turns, as trimMessages with startOn: "human" does).
    const before = messagesOf((await graph.getState(config)).values);
    await graph.updateState(config, { messages: before.map((m) => new RemoveMessage({ id: m.id ?? "" })) }, entry === "middleware" ? "model_request" : "agent");
    expect(messagesOf((await graph.getState(config)).values)).toEqual([]);
    const out = await graph.invoke(say("read b"), config);
    expect(ran).toEqual(["read a"]);
    expect(toolText(messagesOf(out)).t2).toMatch(/^Refused read_file by rule /);
    expect(String(messagesOf(out).at(-1)?.content)).toBe("second");
    expectProviderSafe(messagesOf(out), refusals);
  });
});

// ---------------------------------------------------------------------------------------------
// KasarLabs/snak#132 "uses .optional() without .nullable() error" (OpenAI strict mode: every field
// required, optional ones nullable), coder/xum#2250 (the model then sends null for what it leaves
// out): zod v4 optional / nullable / nullish / default fields through ChatOpenAI's strict tools.
describe("zod v4 optional, nullable, nullish and default fields with OpenAI strict tools", () => {
  let server: OpenAIServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it.each(["agent", "middleware"] as const)("%s: the strict schema is one OpenAI accepts, and a strict model's nulls reach the tool as the schema means them", async (entry: Entry) => {
    const got: unknown[] = [];
    const search = defineTool({
      name: "search_tickets",
      description: "Search tickets",
      schema: z.object({
        query: z.string(),
        limit: z.number().int().default(10),
        status: z.enum(["open", "closed"]).optional(),
        assignee: z.string().nullable(),
        label: z.string().nullish(),
      }),
      risk: "low",
      execute: (input) => {
        got.push(input);
        return "3 tickets";
      },
    });
    server = await startOpenAIServer([
      { tool_calls: [{ id: "c1", name: "search_tickets", arguments: { query: "login", limit: null, status: null, assignee: null, label: null } }] },
      { content: "found 3" },
    ]);
    const model = new ChatOpenAI({ model: "test-model", apiKey: "test", maxRetries: 0, configuration: { baseURL: server.url } });
    const { graph } = build(entry, { tools: [search], model });
    const out = await graph.invoke(say("find login tickets"), newThread("zod-strict"));
    const sent = (server.requests[0]?.body.tools ?? []).find((t) => t.function.name === "search_tickets")?.function as { name: string; parameters?: Record<string, unknown>; strict?: boolean } | undefined;
    expect(sent?.strict).toBe(true);
    expect(sent?.parameters).toEqual(strictSchemaFor(search).schema);
    expect(checkOpenAI({ name: "search_tickets", parameters: sent?.parameters ?? {}, strict: true })).toEqual([]);
    expect(sent?.parameters).toMatchObject({ required: ["query", "limit", "status", "assignee", "label"], additionalProperties: false });
    // null for the default field → its default; for the optional one → absent; a nullable field keeps its null.
    expect(got).toEqual([{ query: "login", limit: 10, assignee: null, label: null }]);
    expect(toolText(messagesOf(out)).c1).toBe("3 tickets");
  });
});

// ---------------------------------------------------------------------------------------------
// langchain-ai/langchainjs#9418 "Can't use responseFormat and wrapModelCall together" and #11020
// (createAgent + responseFormat leaves a call of the structured-output message unanswered, then 400
// INVALID_TOOL_RESULTS): structured output through LangChain's tool strategy next to the guard.
describe("createAgent's structured output (toolStrategy) with guardMiddleware", () => {
  // A titled schema: the structured-output tool is named after it ("Answer").
  const Answer = z.object({ summary: z.string() }).meta({ title: "Answer", description: "The answer" });

  it("a guarded tool runs, then the structured-output tool ends the run with the structured response", async () => {
    const ran: string[] = [];
    const refusals: string[] = [];
    const model = providerModel([[{ name: "read_file", args: { path: "a" }, id: "r1" }], [{ name: "Answer", args: { summary: "a is fine" }, id: "s1" }], [{ name: "Answer", args: { summary: "still fine" }, id: "s2" }]], refusals, []);
    const agent = createAgent({ model, responseFormat: toolStrategy(Answer), middleware: [guardMiddleware({ tools: opsTools(ran) })], checkpointer: new MemorySaver() });
    const config = newThread("structured");
    const out = await agent.invoke(say("summarise a"), config);
    expect(out.structuredResponse).toEqual({ summary: "a is fine" });
    expect(ran).toEqual(["read a"]);
    const next = await agent.invoke(say("again"), config);
    expect(next.structuredResponse).toEqual({ summary: "still fine" });
    expectProviderSafe(next.messages, refusals);
  });

  it("a guarded call in the same message as the structured-output call is answered before the next model call, and never runs unreviewed", async () => {
    const ran: string[] = [];
    const refusals: string[] = [];
    const model = providerModel([[{ name: "deploy", args: { service: "web" }, id: "d1" }, { name: "Answer", args: { summary: "deployed" }, id: "s1" }], [{ name: "Answer", args: { summary: "next" }, id: "s2" }]], refusals, []);
    const agent = createAgent({ model, responseFormat: toolStrategy(Answer), middleware: [guardMiddleware({ tools: opsTools(ran) })], checkpointer: new MemorySaver() });
    const config = newThread("structured-mixed");
    await agent.invoke(say("deploy and report"), config);
    expect(ran).toEqual([]);
    const next = await agent.invoke(say("next"), config);
    expect(ran).toEqual([]);
    expect(next.structuredResponse).toEqual({ summary: "next" });
    // LangChain ended that run with its structured response: not an abort, and the call never ran.
    expect(toolText(next.messages).d1).toBe("Cancelled: deploy did not run: the run ended before this call was run, and new input arrived. It will not run; call it again if it is still needed.");
    expectProviderSafe(next.messages, refusals);
  });
});

// ---------------------------------------------------------------------------------------------
// LibreChat-AI/agents#294 (a side effect runs twice when a run is resumed against MemorySaver) and
// the double click on "Approve" / two reviewers answering at once: two resumes of one approval.
describe("two answers to one approval at once, with the guard's ledger: the call runs once, the losing answer is told", () => {
  it.each(ENTRIES)("%s", async (entry) => {
    const ran: string[] = [];
    const ledger = await openLedger(`memory:user-trouble-race-${entry}`);
    const { graph, refusals } = build(entry, { tools: opsTools(ran), replies: [[{ name: "deploy", args: { service: "web" }, id: "d1" }], "done", "done"], guard: { ledger } });
    const config = newThread("race");
    await graph.invoke(say("deploy web"), config);
    const [first, second] = await Promise.all([graph.invoke(resume({ decisions: [{ type: "approve" }] }), config), graph.invoke(resume({ decisions: [{ type: "reject", message: "no" }] }), config)]);
    expect(ran).toEqual(["deploy web staging"]);
    const told = [first, second].map((r) => supersededAnswer(r)?.yours);
    expect(told.filter((t) => t !== undefined)).toHaveLength(1);
    const state = messagesOf((await graph.getState(config)).values);
    expect(toolText(state).d1).toBe("deployed web to staging");
    expectProviderSafe(state, refusals);
  });
});

describe("a double-clicked approval with MemorySaver and no ledger: the approved call runs once", () => {
  it.each(ENTRIES)("%s: two identical approvals at once", async (entry) => {
    const ran: string[] = [];
    const { graph, refusals } = build(entry, { tools: opsTools(ran), replies: [[{ name: "deploy", args: { service: "web" }, id: "d1" }], "done", "done"] });
    const config = newThread("double-click");
    await graph.invoke(say("deploy web"), config);
    await Promise.all([graph.invoke(resume({ decisions: [{ type: "approve" }] }), config), graph.invoke(resume({ decisions: [{ type: "approve" }] }), config)]);
    expect(ran).toEqual(["deploy web staging"]);
    const state = messagesOf((await graph.getState(config)).values);
    expect(toolText(state).d1).toBe("deployed web to staging");
    expectProviderSafe(state, refusals);
  });
});
