// A model integration (or a middleware of the user's before the guard) may hand the guard tool calls
// no JSON parser produces: arguments holding a BigInt, a getter or a Proxy that throws when read, an
// id that is a number or an object. Each such call is answered once — refused when its arguments
// cannot be read as JSON data (as a call the provider could not parse), run when only its id is
// odd — and the run goes on. Before, each of them failed the whole run (a TypeError serialising the
// approval record, the limits walk throwing, the audit refusing a non-string id).
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryAuditSink } from "../src/audit/index.js";
import { createGuardedAgent } from "../src/guard/agent.js";
import { guardMiddleware } from "../src/middleware/index.js";
import { defineTool } from "../src/tools/define-tool.js";

const echo = defineTool({ name: "echo", description: "Echo a text", schema: z.object({ text: z.string() }), risk: "low", execute: (input) => `echo ${input.text}` });

const throwingGetter = () =>
  Object.defineProperty({}, "text", {
    enumerable: true,
    get() {
      throw new Error("cannot read text");
    },
  });
const throwingProxy = () =>
  new Proxy(
    {},
    {
      ownKeys() {
        throw new Error("cannot list keys");
      },
      get() {
        throw new Error("cannot read");
      },
    },
  );

/** Arguments no JSON parser gives: refused, with what could not be read. */
const UNREADABLE: readonly (readonly [string, () => unknown, RegExp])[] = [
  ["a BigInt", () => ({ text: 10n }), /BigInt/],
  ["a getter that throws", throwingGetter, /cannot read text/],
  ["a Proxy that throws", throwingProxy, /cannot list keys|cannot read/],
];

/** Ids no provider should send: the call runs under an id of its own, a string. */
const ODD_IDS: readonly (readonly [string, unknown, RegExp])[] = [
  ["a number", 7, /^7$/],
  ["an object", { a: 1 }, /_0$/],
];

type Entry = "createGuardedAgent" | "guardMiddleware";

async function run(entry: Entry, call: Record<string, unknown>, threadId: string): Promise<{ messages: BaseMessage[]; audit: MemoryAuditSink }> {
  const model = fakeModel()
    .respondWithTools([call as never])
    .respond(new AIMessage("done"));
  const audit = new MemoryAuditSink();
  const agent =
    entry === "createGuardedAgent"
      ? createGuardedAgent({ model, tools: [echo], audit, checkpointer: new MemorySaver() })
      : createAgent({ model, middleware: [guardMiddleware({ tools: [echo], audit })], checkpointer: new MemorySaver() });
  const out = await agent.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: threadId } });
  return { messages: out.messages as BaseMessage[], audit };
}

const toolAnswers = (messages: readonly BaseMessage[]) => messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));

describe.each(["createGuardedAgent", "guardMiddleware"] as const)("%s: a model's call no JSON parser gives", (entry) => {
  it.each(UNREADABLE)("arguments holding %s are refused as unreadable, and the run goes on", async (_name, args, error) => {
    const { messages, audit } = await run(entry, { name: "echo", args: args(), id: "c1" }, "unreadable");
    const answers = toolAnswers(messages);
    expect(answers).toHaveLength(1);
    expect(answers[0]?.status).toBe("error");
    expect(String(answers[0]?.content)).toMatch(/^Refused echo by rule schema: its arguments could not be read as JSON/);
    expect(String(answers[0]?.content)).toMatch(error);
    expect(String(messages.at(-1)?.content)).toBe("done");
    const decisions = (await audit.query({ threadId: "unreadable" })).filter((r) => r.event === "decision");
    expect(decisions.map((r) => r.decision)).toEqual(["deny"]);
  });

  it.each(ODD_IDS)("an id that is %s: the call runs under a string id, and its ToolMessage answers it", async (_name, id, expected) => {
    const { messages } = await run(entry, { name: "echo", args: { text: "x" }, id }, "odd-id");
    const answers = toolAnswers(messages);
    expect(answers.map((m) => String(m.content))).toEqual(["echo x"]);
    expect(answers[0]?.tool_call_id).toMatch(expected);
    const ai = messages.find((m): m is AIMessage => AIMessage.isInstance(m) && (m.tool_calls?.length ?? 0) > 0);
    expect(ai?.tool_calls?.[0]?.id).toBe(answers[0]?.tool_call_id);
    expect(String(messages.at(-1)?.content)).toBe("done");
  });
});
